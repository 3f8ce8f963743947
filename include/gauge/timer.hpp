#pragma once
/// \file gauge/timer.hpp
/// gauge::Timer: times named regions of a running training loop (forward, backward, optimizer,
/// any name) on a stream, without a host synchronization per step, and summarizes them over a
/// rolling window and in total: percentiles, share of the step, wall time per step, throughput
/// (tokens/s, samples/s, FLOP/s) and model-FLOPs utilization. DESIGN.md's third use.
///
/// How it compares (what each costs per region):
/// - an event pair and `cudaEventSynchronize` per region: the host waits for the device at every
///   region, so the host can no longer run ahead and every launch latency shows;
/// - Megatron-LM's timers (megatron/core/timers.py, `_Timer.start/stop`): `torch.cuda.synchronize()`
///   at every start and stop (after an optional barrier), host clock in between: two full device
///   drains per region;
/// - DeepSpeed's timers (deepspeed/utils/timer.py, `CudaEventTimer`): a new event pair per region,
///   read later, but reading synchronizes on the end event (`end_event.synchronize()`);
/// - gauge::Timer: one event record per region boundary from a recycled pool, resolved with
///   `cudaEventQuery` (never waits) at step boundaries, in bounded memory; the host waits only at
///   flush(), finish(), or when more than `max_pending_steps` steps are pending.
///
/// \code
///   gauge::Timer timer("train", gauge::CudaTimerBackend(stream), config);
///   const auto fwd = timer.region("forward"), bwd = timer.region("backward");
///   for (int i = 0; i < steps; ++i) {
///     { auto s = timer.scope(fwd); forward(stream); }
///     timer.start(bwd); backward(stream); timer.stop(bwd);
///     { auto s = timer.scope("optimizer"); sgd(stream); }
///     timer.step(gauge::StepWork().tokens(4096).flop(flop_per_step));
///   }
///   report.add(timer.finish());  // waits once for the last steps, then summarizes
/// \endcode
///
/// Model. A *step* is the work between two calls of step(); each step() records one marker on the
/// Timer's stream, so the step's GPU time is the device time between consecutive step markers
/// (device idle time included) and its wall time is the host clock between the calls. Throughput
/// and MFU divide the work by the GPU time (when steps completed), not by the host's time (how
/// fast the host enqueued them, which runs ahead until the launch queue is full): see
/// TimerThroughput. The first step starts at the Timer's first call (any start, phase or step). A *region*
/// is timed by a marker at its start and one at its stop (start/stop, or scope() for RAII); a
/// *phase* (phase()) is a region that ends where the next phase or the step ends, sharing that
/// marker, so k contiguous phases cost k + 1 markers per step instead of 2k + 1. A region's
/// sample for a step is the sum of its occurrences in that step (a per-layer region inside a loop
/// of layers adds up); a step in which it did not occur has no sample. An occurrence belongs to the
/// step in which it stops. Regions nest (a region started while another is open is its child,
/// recorded as `parent`) and may overlap; each is timed on its own.
///
/// Regions on other streams. `start(region, stream)` records both markers on `stream`; its time
/// is that stream's device time between them. The step marker is on the Timer's stream only, so a
/// step is resolved once its step marker *and* the stop markers of its other-stream regions have
/// completed; the step's GPU time does not include other-stream work unless the loop joins the
/// streams (cudaStreamWaitEvent) before step(). Shares of other-stream regions may overlap others.
///
/// Lazy resolution and bounded memory. Ended steps wait in a ring of at most `max_pending_steps`.
/// At every step() the Timer asks (`query`, never waits) whether the oldest pending step's markers
/// have completed; if so it reads the elapsed times, folds them into the window and the totals, and
/// releases the markers to the pool, then tries the next. Markers are recycled one by one, so the
/// pool stops growing once the loop is in steady state and a step allocates nothing after warm-up
/// (a log allocates its summary). Memory: the window (window × regions samples), the totals (one
/// 24 KiB histogram per region), and the pending ring. If more than `max_pending_steps` steps are
/// pending, the Timer waits for the oldest (counted as a host synchronization and warned about).
///
/// Levels. Each region has a level 0..2 (`timer_level`), as Megatron's `--timing-log-level`: a
/// region above the Timer's level is a no-op that costs one integer comparison (no lookup, no
/// marker, no clock read), for handles and names alike. The level can change between steps.
///
/// The Timer backend interface. A TimerBackend (CudaTimerBackend, HostTimerBackend in
/// backends/timer_backends.hpp, or a test fake) provides:
///   - `using stream_type`, `using marker_type` (a cheap copyable handle, default-constructible);
///     `static constexpr const char* name`;
///   - `stream_type stream() const`: the Timer's stream; `bool is_timer_stream(stream_type) const`;
///   - `double now() const`: host clock, seconds;
///   - `marker_type acquire()`: a marker from the pool, created only when none is free;
///     `void release(marker_type) noexcept`: back to the pool (never allocates);
///   - `void record(marker_type, stream_type)`: records it on a stream (never waits);
///   - `bool query(marker_type)`: whether the device has passed the record (never waits);
///   - `void wait(marker_type)`: blocks until it has (the only host synchronization);
///   - `double elapsed(marker_type a, marker_type b)`: seconds from a to b, both completed;
///   - `std::size_t markers_created() const`; `double timer_resolution() const`: seconds.
/// Errors are exceptions (CudaError from the CUDA backend).
///
/// Not thread-safe: one Timer per thread (per stream). Not for use inside CUDA graph capture.
///
/// Where the code is: this header is the public API. gauge::detail::TimerCore<Backend>
/// (gauge/detail/timer_core.hpp) records, resolves and releases the markers; the bookkeeping that
/// needs no markers (regions, the step in progress, folding resolved steps into the window and the
/// totals) is gauge::detail::TimerState (gauge/detail/timer_state.hpp), and summaries are built
/// from it in gauge/detail/timer_summarize.hpp; those two are no templates, compiled once per file
/// whatever the backends.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gauge/backends/timer_backends.hpp"
#include "gauge/core/error.hpp"
#include "gauge/core/timer_summary.hpp"
#include "gauge/detail/timer_core.hpp"
#include "gauge/detail/timer_state.hpp"

namespace gauge {

#if GAUGE_HAS_CUDA_TIMER_BACKEND
/// The Timer's default backend: CUDA events where the CUDA runtime is available.
using DefaultTimerBackend = CudaTimerBackend;
#else
/// The Timer's default backend: the host clock where the CUDA runtime is not available.
using DefaultTimerBackend = HostTimerBackend;
#endif

/// A registered region of a Timer: a cheap handle (no name lookup at start/stop). Valid only for
/// the Timer that returned it: another Timer's start, stop, scope or phase throws ConfigError (above
/// that Timer's level the call is a no-op, as any).
struct TimerRegion {
  std::uint32_t id = 0;             ///< index of the region in its Timer
  int level = timer_level::normal;  ///< its level (see `timer_level`)
  std::uint32_t timer = 0;          ///< the serial number of the Timer that returned it (0: none)
};

namespace detail {
/// A serial number for each Timer, so that a region handle names its Timer: consecutive from a
/// start drawn from the counter's own address and the clock, so that shared libraries built with
/// hidden symbols (each with its own counter) do not hand out the same numbers. Never 0.
inline std::uint32_t next_timer_serial() {
  static std::atomic<std::uint32_t> next{[] {
    std::uint64_t x = reinterpret_cast<std::uintptr_t>(&next) ^
                      static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    x ^= x >> 33, x *= 0xff51afd7ed558ccdULL, x ^= x >> 33;  // MurmurHash3's 64-bit finalizer
    return static_cast<std::uint32_t>(x);
  }()};
  std::uint32_t s = next.fetch_add(1, std::memory_order_relaxed);
  return s != 0 ? s : next.fetch_add(1, std::memory_order_relaxed);  // 0 means "no Timer"
}
/// The error of a region handle that another Timer (or no Timer) returned.
[[noreturn]] inline void throw_foreign_timer_handle(const std::string& timer, const TimerRegion& r) {
  throw ConfigError("Timer '" + timer + "': region handle " + std::to_string(r.id) +
                    " does not belong to this Timer (" +
                    (r.timer == 0 ? std::string("it was not returned by a Timer's region()")
                                  : "another Timer returned it") +
                    "): use the handle this Timer's region(name) returns");
}
}  // namespace detail

/// Called with a summary of the window every `TimerConfig::log_every` steps (timer.on_log(...)).
using TimerSink = std::function<void(const TimerSummary&)>;

/// A sink that prints `timer_console_line` to a C stream (stdout by default) and flushes it.
struct ConsoleSink {
  std::FILE* out = stdout;  ///< where the line goes
  /// Prints one line.
  void operator()(const TimerSummary& s) const {
    std::fprintf(out, "%s\n", detail::timer_console_line(s).c_str());
    std::fflush(out);
  }
};

/// Times named regions of a training loop on a stream; see the file comment for the model.
///
/// \tparam Backend CudaTimerBackend (default where CUDA is available), HostTimerBackend, or a
///   test backend (see the interface in the file comment).
///
/// Errors: misuse throws ConfigError naming the region or value (stop of a region never started,
/// start of one already open, an unknown level, a negative amount of work, a handle of another
/// size); a backend error (CudaError) propagates. Either way everything resolved before stays in
/// the summaries. Not copyable or movable (scopes point to it).
template <class Backend = DefaultTimerBackend>
class Timer {
 public:
  using stream_type = typename Backend::stream_type;  ///< the backend's stream
  using marker_type = typename Backend::marker_type;  ///< the backend's marker

  /// RAII region: stops its region when it goes out of scope (from scope()). A disabled region's
  /// scope does nothing. An error while stopping in the destructor cannot be thrown there: it is
  /// kept and thrown by the Timer's next step(), flush() or finish().
  class Scope {
   public:
    Scope(Scope&& o) noexcept : core_(o.core_), id_(o.id_), active_(o.active_) { o.active_ = false; }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    Scope& operator=(Scope&&) = delete;
    ~Scope() {
      if (active_) core_->stop_from_scope(id_);
    }
    /// Stops the region now (throws as Timer::stop); the destructor then does nothing.
    void stop() {
      if (!active_) return;
      active_ = false;
      core_->stop(id_);
    }

   private:
    friend class Timer;
    Scope(detail::TimerCore<Backend>* core, std::uint32_t id, bool active) : core_(core), id_(id), active_(active) {}
    detail::TimerCore<Backend>* core_;
    std::uint32_t id_;
    bool active_;
  };

  /// \param name the Timer's name in logs and reports (non-empty; ConfigError otherwise).
  /// \param backend where markers come from (e.g. `CudaTimerBackend(stream)`).
  /// \param config settings (validated: ConfigError naming the bad value).
  explicit Timer(std::string name, Backend backend = Backend{}, TimerConfig config = {})
      : core_(std::move(name), std::move(backend), std::move(config)) {}
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;
  Timer(Timer&&) = delete;
  Timer& operator=(Timer&&) = delete;

  /// Releases every marker it holds (no waiting; CUDA frees pending events once they complete).
  ~Timer() { core_.release_all(); }  // first, before the sinks and the backend go

  // ---- configuration ------------------------------------------------------------------------

  /// The settings (the level as last set).
  const TimerConfig& config() const { return core_.state().config(); }
  /// The current level: regions above it are no-ops.
  int level() const { return core_.state().level(); }
  /// Sets the level (-1 .. 2; see `timer_level`). ConfigError for another value, or while a region
  /// or phase is open (change it between steps, after step()).
  Timer& level(int level) {
    core_.state().set_level(level);
    return *this;
  }
  /// Sets the work step() counts when given none (e.g. a fixed batch).
  Timer& work(const StepWork& per_step) {
    default_work_ = per_step;
    return *this;
  }
  /// Adds a sink called every `log_every` resolved steps after warm-up with the summary.
  Timer& on_log(TimerSink sink) {
    if (!sink) throw ConfigError("Timer '" + core_.state().name() + "': on_log needs a callable sink");
    sinks_.push_back(std::move(sink));
    return *this;
  }
  /// The backend (e.g. a test's fake).
  Backend& backend() { return core_.backend(); }

  // ---- regions ------------------------------------------------------------------------------

  /// Registers a region (or finds the one of that name) and returns its handle. Registration
  /// allocates; do it before the loop or let the first steps (warm-up) do it.
  /// \throws ConfigError for an empty name, a level outside 0..2, or a name registered at another
  ///   level.
  TimerRegion region(std::string_view name, int level = timer_level::normal) {
    return {core_.find_or_register(name, level), level, serial_};
  }

  /// Starts `r` on the Timer's stream: one marker. No-op above the level.
  void start(TimerRegion r) {
    if (disabled(r.level)) return;  // a no-op whoever returned `r`: nothing is timed
    check_owner(r);
    core_.start(r.id, core_.stream());
  }
  /// Starts `r` on another stream: both its markers go there (see the file comment).
  void start(TimerRegion r, stream_type stream) {
    if (disabled(r.level)) return;  // a no-op whoever returned `r`: nothing is timed
    check_owner(r);
    core_.start(r.id, stream);
  }
  /// Starts the region `name` (registered at first use) on the Timer's stream. No-op above the
  /// level; otherwise a linear search of the names (use a handle in hot inner loops).
  void start(std::string_view name, int level = timer_level::normal) {
    if (disabled(level)) return detail::check_disabled_level(level, name);
    core_.start(core_.find_or_register(name, level), core_.stream());
  }
  /// Starts the region `name` on another stream.
  void start(std::string_view name, stream_type stream, int level = timer_level::normal) {
    if (disabled(level)) return detail::check_disabled_level(level, name);
    core_.start(core_.find_or_register(name, level), stream);
  }

  /// Stops `r`: one marker, on the stream it started on. No-op above the level.
  /// \throws ConfigError if `r` is not open (never started, or already stopped).
  void stop(TimerRegion r) {
    if (disabled(r.level)) return;  // a no-op whoever returned `r`: nothing is timed
    check_owner(r);
    core_.stop(r.id);
  }
  /// Stops the region `name`. Pass the level it was started with: above the Timer's level the call
  /// is a no-op before any lookup (a disabled start registered nothing). ConfigError if no such
  /// region is open.
  void stop(std::string_view name, int level = timer_level::normal) {
    if (disabled(level)) return detail::check_disabled_level(level, name);
    core_.stop(core_.state().find_started(name));
  }

  /// Starts `r` and returns a Scope that stops it (RAII). A disabled region's Scope is inert.
  [[nodiscard]] Scope scope(TimerRegion r) {
    if (disabled(r.level)) return Scope(&core_, r.id, false);
    check_owner(r);
    core_.start(r.id, core_.stream());
    return Scope(&core_, r.id, true);
  }
  /// As scope(TimerRegion) on another stream.
  [[nodiscard]] Scope scope(TimerRegion r, stream_type stream) {
    if (disabled(r.level)) return Scope(&core_, r.id, false);
    check_owner(r);
    core_.start(r.id, stream);
    return Scope(&core_, r.id, true);
  }
  /// As scope(TimerRegion) by name.
  [[nodiscard]] Scope scope(std::string_view name, int level = timer_level::normal) {
    if (disabled(level)) {
      detail::check_disabled_level(level, name);
      return Scope(&core_, 0, false);
    }
    const std::uint32_t id = core_.find_or_register(name, level);
    core_.start(id, core_.stream());
    return Scope(&core_, id, true);
  }

  /// Ends the open phase (if any) and starts phase `r` at one shared marker on the Timer's stream.
  /// The last phase of a step ends at step(). A region is a phase or a start/stop region, not
  /// both (ConfigError). A disabled phase is a no-op: the previous phase goes on.
  void phase(TimerRegion r) {
    if (disabled(r.level)) return;  // a no-op whoever returned `r`: nothing is timed
    check_owner(r);
    core_.phase(r.id);
  }
  /// phase() by name.
  void phase(std::string_view name, int level = timer_level::normal) {
    if (disabled(level)) return detail::check_disabled_level(level, name);
    core_.phase(core_.find_or_register(name, level));
  }

  // ---- steps --------------------------------------------------------------------------------

  /// Ends the step with the work set by work() (none by default). See step(const StepWork&).
  void step() { step(default_work_); }

  /// Ends the step: one marker on the Timer's stream (it also ends the open phase), the host clock
  /// read, then the oldest pending steps that completed are resolved (queries, no waiting). If more
  /// than `max_pending_steps` are pending, it waits for the oldest (counted). Logs to the sinks when
  /// a multiple of `log_every` steps after warm-up has been resolved.
  /// \throws ConfigError kept from a Scope's destructor; CudaError from the backend; whatever a
  ///   sink throws. The step is recorded before a sink can throw.
  void step(const StepWork& work) {
    core_.state().rethrow_deferred();
    core_.end_step(work);
    while (core_.pending_steps() > config().max_pending_steps) {
      core_.wait_for_front(/*forced=*/true);
      resolve_front();
    }
    poll();
  }

  // ---- results ------------------------------------------------------------------------------

  /// Resolves the pending steps whose markers completed, oldest first, without waiting; returns
  /// how many. step() calls it; call it yourself to resolve while the loop is idle.
  std::size_t poll() {
    std::size_t n = 0;
    while (core_.pending_steps() > 0 && core_.front_ready()) {
      resolve_front();
      ++n;
    }
    return n;
  }

  /// Waits for every ended step (one host synchronization on the last step's marker, plus one per
  /// other-stream region still running) and resolves them. Regions still open and the step in
  /// progress are not waited for.
  void flush() {
    core_.state().rethrow_deferred();
    poll();
    if (core_.pending_steps() == 0) return;
    core_.wait_for_back();
    while (core_.pending_steps() > 0) {
      core_.wait_for_front();
      resolve_front();
    }
  }

  /// The summary of the steps resolved so far (no waiting, nothing resolved): window, totals,
  /// regions, counters, warnings.
  TimerSummary summary() const { return core_.summary(); }

  /// flush(), then the final summary (`final` true); a warning names regions still open and says
  /// whether a step was in progress. The Timer stays usable.
  TimerSummary finish() {
    flush();
    core_.collect_resolved_trace();
    TimerSummary s = summary();
    detail::finish_timer_summary(core_.state(), s);
    return s;
  }

 private:
  /// Whether a region of `level` is above the Timer's level (its calls are no-ops).
  bool disabled(int level) const { return level > core_.state().level(); }
  /// Throws ConfigError unless this Timer returned `r` (a handle of another Timer would time one
  /// of this Timer's regions by its index).
  void check_owner(const TimerRegion& r) const {
    if (r.timer != serial_) detail::throw_foreign_timer_handle(core_.state().name(), r);
  }
  /// Resolves the oldest pending step (its markers completed) and logs to the sinks when due.
  void resolve_front() {
    if (!core_.resolve_front() || sinks_.empty()) return;
    const TimerSummary s = summary();
    for (const auto& sink : sinks_) sink(s);
  }

  detail::TimerCore<Backend> core_;  ///< the backend, the markers and the state
  std::uint32_t serial_ = detail::next_timer_serial();  ///< what this Timer's region handles carry
  StepWork default_work_;
  std::vector<TimerSink> sinks_;
};

}  // namespace gauge
