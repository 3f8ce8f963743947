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
/// Where the code is: the bookkeeping that does not depend on the backend (regions, the step in
/// progress, folding resolved steps into the window and the totals) is gauge::detail::TimerState
/// in gauge/detail/timer_state.hpp and summaries are built from it in
/// gauge/detail/timer_summarize.hpp, compiled once per file whatever the backends; Timer<Backend>
/// adds the markers, the streams and the backend's calls.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gauge/backends/timer_backends.hpp"
#include "gauge/core/error.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/core/timer_summary.hpp"
#include "gauge/core/warnings.hpp"
#include "gauge/detail/ring.hpp"
#include "gauge/detail/timer_state.hpp"
#include "gauge/detail/timer_summarize.hpp"

namespace gauge {

#if GAUGE_HAS_CUDA_TIMER_BACKEND
/// The Timer's default backend: CUDA events where the CUDA runtime is available.
using DefaultTimerBackend = CudaTimerBackend;
#else
/// The Timer's default backend: the host clock where the CUDA runtime is not available.
using DefaultTimerBackend = HostTimerBackend;
#endif

/// A registered region of a Timer: a cheap handle (no name lookup at start/stop). Valid only for
/// the Timer that returned it.
struct TimerRegion {
  std::uint32_t id = 0;             ///< index of the region in its Timer
  int level = timer_level::normal;  ///< its level (see `timer_level`)
};

/// Called with a summary of the window every `TimerConfig::log_every` steps (timer.on_log(...)).
using TimerSink = std::function<void(const TimerSummary&)>;

/// A sink that prints `timer_console_line` to a C stream (stdout by default) and flushes it.
struct ConsoleSink {
  std::FILE* out = stdout;  ///< where the line goes
  /// Prints one line.
  void operator()(const TimerSummary& s) const {
    std::fprintf(out, "%s\n", timer_console_line(s).c_str());
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
    Scope(Scope&& o) noexcept : timer_(o.timer_), id_(o.id_), active_(o.active_) { o.active_ = false; }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    Scope& operator=(Scope&&) = delete;
    ~Scope() {
      if (active_) timer_->stop_from_scope(id_);
    }
    /// Stops the region now (throws as Timer::stop); the destructor then does nothing.
    void stop() {
      if (!active_) return;
      active_ = false;
      timer_->stop_enabled(id_);
    }

   private:
    friend class Timer;
    Scope(Timer* t, std::uint32_t id, bool active) : timer_(t), id_(id), active_(active) {}
    Timer* timer_;
    std::uint32_t id_;
    bool active_;
  };

  /// \param name the Timer's name in logs and reports (non-empty; ConfigError otherwise).
  /// \param backend where markers come from (e.g. `CudaTimerBackend(stream)`).
  /// \param config settings (validated: ConfigError naming the bad value).
  explicit Timer(std::string name, Backend backend = Backend{}, TimerConfig config = {})
      : backend_(std::move(backend)), state_(std::move(name), std::move(config)) {
    pending_.reserve(state_.config().max_pending_steps + 1);
  }
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;
  Timer(Timer&&) = delete;
  Timer& operator=(Timer&&) = delete;

  /// Releases every marker it holds (no waiting; CUDA frees pending events once they complete).
  ~Timer() { release_all(); }

  // ---- configuration ------------------------------------------------------------------------

  /// The settings (the level as last set).
  const TimerConfig& config() const { return state_.config(); }
  /// The current level: regions above it are no-ops.
  int level() const { return state_.level(); }
  /// Sets the level (-1 .. 2; see `timer_level`). ConfigError for another value, or while a region
  /// or phase is open (change it between steps, after step()).
  Timer& level(int level) {
    state_.set_level(level);
    return *this;
  }
  /// Sets the work step() counts when given none (e.g. a fixed batch).
  Timer& work(const StepWork& per_step) {
    default_work_ = per_step;
    return *this;
  }
  /// Adds a sink called every `log_every` resolved steps after warm-up with the summary.
  Timer& on_log(TimerSink sink) {
    if (!sink) throw ConfigError("Timer '" + state_.name() + "': on_log needs a callable sink");
    sinks_.push_back(std::move(sink));
    return *this;
  }
  /// The backend (e.g. a test's fake).
  Backend& backend() { return backend_; }

  // ---- regions ------------------------------------------------------------------------------

  /// Registers a region (or finds the one of that name) and returns its handle. Registration
  /// allocates; do it before the loop or let the first steps (warm-up) do it.
  /// \throws ConfigError for an empty name, a level outside 0..2, or a name registered at another
  ///   level.
  TimerRegion region(std::string_view name, int level = timer_level::normal) {
    return {find_or_register(name, level), level};
  }

  /// Starts `r` on the Timer's stream: one marker. No-op above the level.
  void start(TimerRegion r) {
    if (r.level > state_.level()) return;
    start_enabled(r.id, backend_.stream());
  }
  /// Starts `r` on another stream: both its markers go there (see the file comment).
  void start(TimerRegion r, stream_type stream) {
    if (r.level > state_.level()) return;
    start_enabled(r.id, stream);
  }
  /// Starts the region `name` (registered at first use) on the Timer's stream. No-op above the
  /// level; otherwise a linear search of the names (use a handle in hot inner loops).
  void start(std::string_view name, int level = timer_level::normal) {
    if (level > state_.level()) return detail::check_disabled_level(level, name);
    start_enabled(find_or_register(name, level), backend_.stream());
  }
  /// Starts the region `name` on another stream.
  void start(std::string_view name, stream_type stream, int level = timer_level::normal) {
    if (level > state_.level()) return detail::check_disabled_level(level, name);
    start_enabled(find_or_register(name, level), stream);
  }

  /// Stops `r`: one marker, on the stream it started on. No-op above the level.
  /// \throws ConfigError if `r` is not open (never started, or already stopped).
  void stop(TimerRegion r) {
    if (r.level > state_.level()) return;
    stop_enabled(r.id);
  }
  /// Stops the region `name`. Pass the level it was started with: above the Timer's level the call
  /// is a no-op before any lookup (a disabled start registered nothing). ConfigError if no such
  /// region is open.
  void stop(std::string_view name, int level = timer_level::normal) {
    if (level > state_.level()) return detail::check_disabled_level(level, name);
    stop_enabled(state_.find_started(name));
  }

  /// Starts `r` and returns a Scope that stops it (RAII). A disabled region's Scope is inert.
  [[nodiscard]] Scope scope(TimerRegion r) {
    if (r.level > state_.level()) return Scope(this, r.id, false);
    start_enabled(r.id, backend_.stream());
    return Scope(this, r.id, true);
  }
  /// As scope(TimerRegion) on another stream.
  [[nodiscard]] Scope scope(TimerRegion r, stream_type stream) {
    if (r.level > state_.level()) return Scope(this, r.id, false);
    start_enabled(r.id, stream);
    return Scope(this, r.id, true);
  }
  /// As scope(TimerRegion) by name.
  [[nodiscard]] Scope scope(std::string_view name, int level = timer_level::normal) {
    if (level > state_.level()) {
      detail::check_disabled_level(level, name);
      return Scope(this, 0, false);
    }
    const std::uint32_t id = find_or_register(name, level);
    start_enabled(id, backend_.stream());
    return Scope(this, id, true);
  }

  /// Ends the open phase (if any) and starts phase `r` at one shared marker on the Timer's stream.
  /// The last phase of a step ends at step(). A region is a phase or a start/stop region, not
  /// both (ConfigError). A disabled phase is a no-op: the previous phase goes on.
  void phase(TimerRegion r) {
    if (r.level > state_.level()) return;
    phase_enabled(r.id);
  }
  /// phase() by name.
  void phase(std::string_view name, int level = timer_level::normal) {
    if (level > state_.level()) return detail::check_disabled_level(level, name);
    phase_enabled(find_or_register(name, level));
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
    state_.rethrow_deferred();
    begin_if_needed();
    const marker_type m = record_new(backend_.stream());
    const double now = backend_.now();
    if (state_.open_phase() != detail::no_region) end_phase(m);
    PendingStep ps;
    ps.step = state_.end_step(work, now);
    ps.start = step_start_;
    ps.end = m;
    step_start_ = m;
    pending_.push_back(ps);
    while (pending_.size() > state_.config().max_pending_steps) {
      if (!ready(pending_.front())) wait_for(pending_.front());
      ++state_.counters().forced_waits;
      resolve_front();
    }
    poll();
  }

  // ---- results ------------------------------------------------------------------------------

  /// Resolves the pending steps whose markers completed, oldest first, without waiting; returns
  /// how many. step() calls it; call it yourself to resolve while the loop is idle.
  std::size_t poll() {
    std::size_t n = 0;
    while (!pending_.empty() && ready(pending_.front())) {
      resolve_front();
      ++n;
    }
    return n;
  }

  /// Waits for every ended step (one host synchronization on the last step's marker, plus one per
  /// other-stream region still running) and resolves them. Regions still open and the step in
  /// progress are not waited for.
  void flush() {
    state_.rethrow_deferred();
    poll();
    if (pending_.empty()) return;
    wait_for(pending_.back());
    while (!pending_.empty()) {
      if (!ready(pending_.front())) wait_for(pending_.front());
      resolve_front();
    }
  }

  /// The summary of the steps resolved so far (no waiting, nothing resolved): window, totals,
  /// regions, counters, warnings.
  TimerSummary summary() const {
    return detail::summarize_timer(state_, {Backend::name, backend_.timer_resolution(), backend_.markers_created(),
                                            pending_.size()});
  }

  /// flush(), then the final summary (`final` true); a warning names regions still open and says
  /// whether a step was in progress. The Timer stays usable.
  TimerSummary finish() {
    flush();
    TimerSummary s = summary();
    detail::finish_timer_summary(state_, s);
    return s;
  }

 private:
  /// The start marker and the stream of a region's open occurrence (by region id).
  struct OpenMark {
    marker_type start{};
    stream_type stream{};
  };
  /// A stopped region occurrence of an ended or current step. A phase's stop marker is the next
  /// phase's start or the step marker: owned by those (`owns_stop` false).
  struct Interval {
    std::uint32_t region = 0;
    marker_type start{}, stop{};
    bool owns_stop = true;
    bool foreign = false;
  };
  /// An ended step waiting to be resolved: what step() knew, and the markers that bound it.
  struct PendingStep {
    detail::TimerStepRecord step;
    marker_type start{}, end{};
  };

  // ---- registration ---------------------------------------------------------------------------

  std::uint32_t find_or_register(std::string_view name, int level) {
    const std::uint32_t id = state_.find_for_use(name, level);
    if (id != detail::no_region) return id;
    // The region's slot first: a region is never registered without one.
    if (marks_.size() == state_.region_count()) marks_.emplace_back();
    return state_.add_region(name, level);
  }

  // ---- recording --------------------------------------------------------------------------------

  void begin_if_needed() {
    if (started_) return;
    step_start_ = record_new(backend_.stream());
    state_.begin(backend_.now());
    started_ = true;
    if (state_.warm()) state_.set_pool_at_warm(backend_.markers_created());
  }
  /// Acquires a marker and records it on `s`; releases it again if recording throws.
  marker_type record_new(stream_type s) {
    const marker_type m = backend_.acquire();
    try {
      backend_.record(m, s);
    } catch (...) {
      backend_.release(m);
      throw;
    }
    ++state_.counters().markers_recorded;
    return m;
  }
  void open_region(std::uint32_t id, marker_type m, stream_type s, bool foreign) {
    marks_[id].start = m;
    marks_[id].stream = s;
    state_.open_region(id, foreign);
  }
  void close_region(std::uint32_t id, marker_type stop, bool owns_stop) {
    Interval iv;
    iv.region = id;
    iv.start = marks_[id].start;
    iv.stop = stop;
    iv.owns_stop = owns_stop;
    iv.foreign = state_.foreign(id);
    intervals_.push_back(iv);
    state_.close_region(id);
  }
  void start_enabled(std::uint32_t id, stream_type s) {
    state_.check_start(id);
    begin_if_needed();
    const marker_type m = record_new(s);
    open_region(id, m, s, !backend_.is_timer_stream(s));
  }
  void stop_enabled(std::uint32_t id) {
    state_.check_stop(id);
    const marker_type m = record_new(marks_[id].stream);
    close_region(id, m, true);
  }
  void stop_from_scope(std::uint32_t id) noexcept {
    try {
      stop_enabled(id);
    } catch (const std::exception& e) {
      state_.defer_error(e.what());
    }
  }
  void phase_enabled(std::uint32_t id) {
    state_.check_phase(id);
    begin_if_needed();
    const marker_type m = record_new(backend_.stream());
    if (state_.open_phase() != detail::no_region) end_phase(m);  // at most one phase is open: the current one
    open_region(id, m, backend_.stream(), false);
    state_.set_open_phase(id);
  }
  void end_phase(marker_type m) { close_region(state_.open_phase(), m, false); }

  // ---- resolution -------------------------------------------------------------------------------

  bool ready(const PendingStep& ps) {
    ++state_.counters().queries;
    if (!backend_.query(ps.end)) return false;
    if (ps.step.foreign == 0) return true;
    for (std::size_t k = 0; k < ps.step.intervals; ++k) {
      const Interval& iv = intervals_[k];
      if (!iv.foreign) continue;
      ++state_.counters().queries;
      if (!backend_.query(iv.stop)) return false;
    }
    return true;
  }
  /// Waits for `ps`'s step marker and its other-stream stops (each a host synchronization).
  void wait_for(const PendingStep& ps) {
    backend_.wait(ps.end);
    ++state_.counters().host_synchronizations;
    if (ps.step.foreign == 0) return;
    // `ps` is pending_.front() or pending_.back(); find where its intervals start.
    std::size_t first = 0;
    for (std::size_t i = 0; i < pending_.size() && &pending_[i] != &ps; ++i) first += pending_[i].step.intervals;
    for (std::size_t k = first; k < first + ps.step.intervals; ++k) {
      const Interval& iv = intervals_[k];
      if (!iv.foreign) continue;
      ++state_.counters().queries;
      if (backend_.query(iv.stop)) continue;
      backend_.wait(iv.stop);
      ++state_.counters().host_synchronizations;
    }
  }
  /// Reads the front step's times, releases its markers, pops it, and (after warm-up) folds the
  /// times into the window and totals. If reading fails, the step is dropped (counted, warned
  /// about) and the error rethrown; everything resolved before is kept.
  void resolve_front() {
    const PendingStep ps = pending_.front();
    std::vector<double>& times = state_.scratch();
    times.clear();
    double gpu = 0;
    std::exception_ptr error;
    try {
      gpu = backend_.elapsed(ps.start, ps.end);
      for (std::size_t k = 0; k < ps.step.intervals; ++k) {
        const Interval& iv = intervals_[k];
        times.push_back(backend_.elapsed(iv.start, iv.stop));
      }
      state_.check_finite(ps.step.index, gpu);
    } catch (...) {
      error = std::current_exception();
    }
    // Fold the times into the regions' per-step sums (needs the intervals before they are popped).
    if (!error)
      for (std::size_t k = 0; k < ps.step.intervals; ++k) state_.accumulate(intervals_[k].region, times[k]);
    for (std::size_t k = 0; k < ps.step.intervals; ++k) {
      const Interval& iv = intervals_.front();
      backend_.release(iv.start);
      if (iv.owns_stop) backend_.release(iv.stop);
      intervals_.pop_front();
    }
    backend_.release(ps.start);
    pending_.pop_front();
    if (error) state_.fail_step(ps.step.index, error);
    switch (state_.fold(ps.step, gpu)) {
      case detail::TimerFold::warmed_up:
        state_.set_pool_at_warm(backend_.markers_created());
        break;
      case detail::TimerFold::log_due:
        if (!sinks_.empty()) {
          const TimerSummary s = summary();
          for (const auto& sink : sinks_) sink(s);
        }
        break;
      case detail::TimerFold::warmup:
      case detail::TimerFold::measured:
        break;
    }
  }

  void release_all() noexcept {
    for (std::size_t i = 0; i < pending_.size(); ++i) backend_.release(pending_[i].start);
    while (!intervals_.empty()) {
      backend_.release(intervals_.front().start);
      if (intervals_.front().owns_stop) backend_.release(intervals_.front().stop);
      intervals_.pop_front();
    }
    for (std::uint32_t id = 0; id < state_.region_count(); ++id)
      if (state_.regions()[id].open) backend_.release(marks_[id].start);
    if (started_) backend_.release(step_start_);
    while (!pending_.empty()) pending_.pop_front();
    started_ = false;
  }

  Backend backend_;
  detail::TimerState state_;
  StepWork default_work_;
  std::vector<TimerSink> sinks_;

  std::vector<OpenMark> marks_;  ///< by region id
  bool started_ = false;
  marker_type step_start_{};
  detail::Ring<Interval> intervals_;
  detail::Ring<PendingStep> pending_;
};

}  // namespace gauge
