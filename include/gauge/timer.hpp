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

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <limits>
#include <optional>
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

namespace detail {

/// Throws ConfigError unless `level` is a valid region level (0..2).
inline void check_region_level(int level, std::string_view name) {
  if (level < timer_level::coarse || level > timer_level::max)
    throw ConfigError("region '" + std::string(name) + "': level " + std::to_string(level) +
                      " is not a region level (0 coarse, 1 normal, 2 detailed)");
}

}  // namespace detail

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
      : name_(std::move(name)), backend_(std::move(backend)), config_(std::move(config)) {
    if (name_.empty()) throw ConfigError("Timer name must not be empty");
    validate(config_);
    level_ = config_.level;
    pending_.reserve(config_.max_pending_steps + 1);
    step_window_.reserve(config_.window);
    if (config_.warmup_steps == 0) warm_ = true;
  }
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;
  Timer(Timer&&) = delete;
  Timer& operator=(Timer&&) = delete;

  /// Releases every marker it holds (no waiting; CUDA frees pending events once they complete).
  ~Timer() { release_all(); }

  // ---- configuration ------------------------------------------------------------------------

  /// The settings (the level as last set).
  const TimerConfig& config() const { return config_; }
  /// The current level: regions above it are no-ops.
  int level() const { return level_; }
  /// Sets the level (-1 .. 2; see `timer_level`). ConfigError for another value, or while a region
  /// or phase is open (change it between steps, after step()).
  Timer& level(int level) {
    if (level < timer_level::off || level > timer_level::max)
      throw ConfigError("Timer '" + name_ + "': level " + std::to_string(level) + " is not in [-1, 2]");
    if (!open_stack_.empty())
      throw ConfigError("Timer '" + name_ + "': the level cannot change while region '" +
                        regions_[open_stack_.back()].name + "' is open; change it after step()");
    level_ = level;
    config_.level = level;
    return *this;
  }
  /// Sets the work step() counts when given none (e.g. a fixed batch).
  Timer& work(const StepWork& per_step) {
    default_work_ = per_step;
    return *this;
  }
  /// Adds a sink called every `log_every` resolved steps after warm-up with the summary.
  Timer& on_log(TimerSink sink) {
    if (!sink) throw ConfigError("Timer '" + name_ + "': on_log needs a callable sink");
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
    if (r.level > level_) return;
    start_enabled(r.id, backend_.stream());
  }
  /// Starts `r` on another stream: both its markers go there (see the file comment).
  void start(TimerRegion r, stream_type stream) {
    if (r.level > level_) return;
    start_enabled(r.id, stream);
  }
  /// Starts the region `name` (registered at first use) on the Timer's stream. No-op above the
  /// level; otherwise a linear search of the names (use a handle in hot inner loops).
  void start(std::string_view name, int level = timer_level::normal) {
    if (level > level_) return check_disabled_level(level, name);
    start_enabled(find_or_register(name, level), backend_.stream());
  }
  /// Starts the region `name` on another stream.
  void start(std::string_view name, stream_type stream, int level = timer_level::normal) {
    if (level > level_) return check_disabled_level(level, name);
    start_enabled(find_or_register(name, level), stream);
  }

  /// Stops `r`: one marker, on the stream it started on. No-op above the level.
  /// \throws ConfigError if `r` is not open (never started, or already stopped).
  void stop(TimerRegion r) {
    if (r.level > level_) return;
    stop_enabled(r.id);
  }
  /// Stops the region `name`. Pass the level it was started with: above the Timer's level the call
  /// is a no-op before any lookup (a disabled start registered nothing). ConfigError if no such
  /// region is open.
  void stop(std::string_view name, int level = timer_level::normal) {
    if (level > level_) return check_disabled_level(level, name);
    const std::uint32_t id = find(name);
    if (id == none) throw ConfigError("Timer '" + name_ + "': stop of region '" + std::string(name) + "', which was never started");
    stop_enabled(id);
  }

  /// Starts `r` and returns a Scope that stops it (RAII). A disabled region's Scope is inert.
  [[nodiscard]] Scope scope(TimerRegion r) {
    if (r.level > level_) return Scope(this, r.id, false);
    start_enabled(r.id, backend_.stream());
    return Scope(this, r.id, true);
  }
  /// As scope(TimerRegion) on another stream.
  [[nodiscard]] Scope scope(TimerRegion r, stream_type stream) {
    if (r.level > level_) return Scope(this, r.id, false);
    start_enabled(r.id, stream);
    return Scope(this, r.id, true);
  }
  /// As scope(TimerRegion) by name.
  [[nodiscard]] Scope scope(std::string_view name, int level = timer_level::normal) {
    if (level > level_) {
      check_disabled_level(level, name);
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
    if (r.level > level_) return;
    phase_enabled(r.id);
  }
  /// phase() by name.
  void phase(std::string_view name, int level = timer_level::normal) {
    if (level > level_) return check_disabled_level(level, name);
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
    rethrow_deferred();
    begin_if_needed();
    const marker_type m = record_new(backend_.stream());
    const double now = backend_.now();
    if (open_phase_ != none) end_phase(m);
    PendingStep ps;
    ps.index = steps_++;
    ps.start = step_start_;
    ps.end = m;
    ps.wall_s = now - last_step_host_;
    ps.work = work;
    ps.intervals = cur_intervals_;
    ps.foreign = cur_foreign_;
    cur_intervals_ = cur_foreign_ = 0;
    step_start_ = m;
    last_step_host_ = now;
    pending_.push_back(ps);
    while (pending_.size() > config_.max_pending_steps) {
      if (!ready(pending_.front())) wait_for(pending_.front());
      ++counters_.forced_waits;
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
    rethrow_deferred();
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
    TimerSummary s;
    s.name = name_;
    s.backend = Backend::name;
    s.config = config_;
    s.timer_resolution_s = backend_.timer_resolution();
    s.counters = counters_;
    s.counters.steps = steps_;
    s.counters.pending_steps = pending_.size();
    s.counters.markers_created = backend_.markers_created();
    if (pool_at_warm_) s.counters.markers_created_after_warmup = backend_.markers_created() - *pool_at_warm_;
    summarize_steps(s);
    summarize_regions(s);
    add_warnings(s);
    return s;
  }

  /// flush(), then the final summary (`final` true); a warning names regions still open and says
  /// whether a step was in progress. The Timer stays usable.
  TimerSummary finish() {
    flush();
    TimerSummary s = summary();
    s.final = true;
    std::string open;
    for (std::uint32_t id : open_stack_) open += (open.empty() ? "'" : ", '") + regions_[id].name + "'";
    if (!open.empty() || cur_intervals_ > 0) {
      s.warnings.push_back(
          {warning_code::timer_unfinished, Severity::info,
           (open.empty() ? std::string() : "regions still open at finish(): " + open + "; ") +
               (cur_intervals_ > 0 ? std::to_string(cur_intervals_) +
                                         " region occurrence(s) of a step not ended by step() are not counted"
                                   : std::string("they are not counted")) +
               "."});
    }
    return s;
  }

 private:
  static constexpr std::uint32_t none = std::numeric_limits<std::uint32_t>::max();
  enum class Kind : unsigned char { unused, region, phase };

  struct WindowEntry {
    std::size_t step = 0;
    double value = 0;
    std::size_t count = 0;
  };
  struct StepEntry {
    std::size_t step = 0;
    double gpu_s = 0, wall_s = 0;
    StepWork work;
  };
  struct RegionState {
    std::string name;
    int level = timer_level::normal;
    Kind kind = Kind::unused;
    std::uint32_t parent = none;
    bool seen = false;
    bool first_foreign = false;
    bool open = false;
    bool foreign = false;
    marker_type start{};
    stream_type stream{};
    double accum = 0;
    std::size_t accum_count = 0;
    detail::Ring<WindowEntry> window;
    RunningStats total;
    std::size_t total_steps = 0, total_occurrences = 0;
  };
  struct Interval {
    std::uint32_t region = 0;
    marker_type start{}, stop{};
    bool owns_stop = true;
    bool foreign = false;
  };
  struct PendingStep {
    std::size_t index = 0;
    marker_type start{}, end{};
    double wall_s = 0;
    StepWork work;
    std::size_t intervals = 0;
    std::size_t foreign = 0;
  };

  // ---- registration ---------------------------------------------------------------------------

  std::uint32_t find(std::string_view name) const {
    for (std::size_t i = 0; i < regions_.size(); ++i)
      if (regions_[i].name == name) return static_cast<std::uint32_t>(i);
    return none;
  }
  std::uint32_t find_or_register(std::string_view name, int level) {
    detail::check_region_level(level, name);
    const std::uint32_t id = find(name);
    if (id != none) {
      if (regions_[id].level != level)
        throw ConfigError("Timer '" + name_ + "': region '" + std::string(name) + "' was registered at level " +
                          std::to_string(regions_[id].level) + " and is used at level " + std::to_string(level));
      return id;
    }
    if (name.empty()) throw ConfigError("Timer '" + name_ + "': a region name must not be empty");
    RegionState r;
    r.name = std::string(name);
    r.level = level;
    r.window.reserve(config_.window);
    regions_.push_back(std::move(r));
    open_stack_.reserve(regions_.size());
    touched_.reserve(regions_.size());
    return static_cast<std::uint32_t>(regions_.size() - 1);
  }
  void check_disabled_level(int level, std::string_view name) const {
    if (level > timer_level::max) detail::check_region_level(level, name);
  }
  RegionState& region_of(std::uint32_t id) {
    if (id >= regions_.size())
      throw ConfigError("Timer '" + name_ + "': region handle " + std::to_string(id) +
                        " does not belong to this Timer (it has " + std::to_string(regions_.size()) + " regions)");
    return regions_[id];
  }
  void set_kind(RegionState& r, Kind k) {
    if (r.kind == Kind::unused) r.kind = k;
    if (r.kind != k)
      throw ConfigError("Timer '" + name_ + "': region '" + r.name + "' is a " +
                        (r.kind == Kind::phase ? "phase (use phase())" : "start/stop region (use start/stop or scope)") +
                        " and cannot also be a " + (k == Kind::phase ? "phase" : "start/stop region"));
  }

  // ---- recording --------------------------------------------------------------------------------

  void begin_if_needed() {
    if (started_) return;
    step_start_ = record_new(backend_.stream());
    last_step_host_ = backend_.now();
    started_ = true;
    if (warm_) pool_at_warm_ = backend_.markers_created();
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
    ++counters_.markers_recorded;
    return m;
  }
  void open_region(std::uint32_t id, RegionState& r, marker_type m, stream_type s, bool foreign) {
    r.open = true;
    r.start = m;
    r.stream = s;
    r.foreign = foreign;
    if (!r.seen) {
      r.seen = true;
      r.parent = open_stack_.empty() ? none : open_stack_.back();
      r.first_foreign = foreign;
    }
    open_stack_.push_back(id);
    ++counters_.region_boundaries;
  }
  void close_region(std::uint32_t id, RegionState& r, marker_type stop, bool owns_stop) {
    Interval iv;
    iv.region = id;
    iv.start = r.start;
    iv.stop = stop;
    iv.owns_stop = owns_stop;
    iv.foreign = r.foreign;
    intervals_.push_back(iv);
    ++cur_intervals_;
    if (r.foreign) ++cur_foreign_;
    r.open = false;
    for (std::size_t i = open_stack_.size(); i-- > 0;) {
      if (open_stack_[i] == id) {
        open_stack_.erase(open_stack_.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
    }
    if (open_phase_ == id) open_phase_ = none;
    ++counters_.region_boundaries;
  }
  void start_enabled(std::uint32_t id, stream_type s) {
    RegionState& r = region_of(id);
    if (r.open) throw ConfigError("Timer '" + name_ + "': start of region '" + r.name + "', which is already started");
    set_kind(r, Kind::region);
    begin_if_needed();
    const marker_type m = record_new(s);
    open_region(id, r, m, s, !backend_.is_timer_stream(s));
  }
  void stop_enabled(std::uint32_t id) {
    RegionState& r = region_of(id);
    if (!r.open)
      throw ConfigError("Timer '" + name_ + "': stop of region '" + r.name + "', which was not started (or was already stopped)");
    const marker_type m = record_new(r.stream);
    close_region(id, r, m, true);
  }
  void stop_from_scope(std::uint32_t id) noexcept {
    try {
      stop_enabled(id);
    } catch (const std::exception& e) {
      try {
        if (deferred_error_.empty()) deferred_error_ = std::string("at the end of a scope: ") + e.what();
      } catch (...) {
      }
    }
  }
  void phase_enabled(std::uint32_t id) {
    RegionState& r = region_of(id);
    set_kind(r, Kind::phase);
    begin_if_needed();
    const marker_type m = record_new(backend_.stream());
    if (open_phase_ != none) end_phase(m);  // at most one phase is open: the current one
    open_region(id, r, m, backend_.stream(), false);
    open_phase_ = id;
  }
  void end_phase(marker_type m) {
    const std::uint32_t id = open_phase_;
    close_region(id, regions_[id], m, false);
  }

  void rethrow_deferred() {
    if (deferred_error_.empty()) return;
    std::string e;
    e.swap(deferred_error_);
    throw ConfigError("Timer '" + name_ + "': " + e);
  }

  // ---- resolution -------------------------------------------------------------------------------

  bool ready(const PendingStep& ps) {
    ++counters_.queries;
    if (!backend_.query(ps.end)) return false;
    if (ps.foreign == 0) return true;
    for (std::size_t k = 0; k < ps.intervals; ++k) {
      const Interval& iv = intervals_[k];
      if (!iv.foreign) continue;
      ++counters_.queries;
      if (!backend_.query(iv.stop)) return false;
    }
    return true;
  }
  /// Waits for `ps`'s step marker and its other-stream stops (each a host synchronization).
  void wait_for(const PendingStep& ps) {
    backend_.wait(ps.end);
    ++counters_.host_synchronizations;
    if (ps.foreign == 0) return;
    // `ps` is pending_.front() or pending_.back(); find where its intervals start.
    std::size_t first = 0;
    for (std::size_t i = 0; i < pending_.size() && &pending_[i] != &ps; ++i) first += pending_[i].intervals;
    for (std::size_t k = first; k < first + ps.intervals; ++k) {
      const Interval& iv = intervals_[k];
      if (!iv.foreign) continue;
      ++counters_.queries;
      if (backend_.query(iv.stop)) continue;
      backend_.wait(iv.stop);
      ++counters_.host_synchronizations;
    }
  }
  /// Reads the front step's times, releases its markers, pops it, and (after warm-up) folds the
  /// times into the window and totals. If reading fails, the step is dropped (counted, warned
  /// about) and the error rethrown; everything resolved before is kept.
  void resolve_front() {
    const PendingStep ps = pending_.front();
    scratch_.clear();
    double gpu = 0;
    std::exception_ptr error;
    try {
      gpu = backend_.elapsed(ps.start, ps.end);
      for (std::size_t k = 0; k < ps.intervals; ++k) {
        const Interval& iv = intervals_[k];
        scratch_.push_back(backend_.elapsed(iv.start, iv.stop));
      }
      if (!std::isfinite(gpu)) throw Error("elapsed time of step " + std::to_string(ps.index) + " is not finite");
      for (double x : scratch_)
        if (!std::isfinite(x)) throw Error("elapsed time of a region in step " + std::to_string(ps.index) + " is not finite");
    } catch (...) {
      error = std::current_exception();
    }
    // Fold the times into the regions' per-step sums (needs the intervals before they are popped).
    if (!error) {
      for (std::size_t k = 0; k < ps.intervals; ++k) {
        RegionState& r = regions_[intervals_[k].region];
        if (r.accum_count == 0) touched_.push_back(intervals_[k].region);
        r.accum += scratch_[k];
        ++r.accum_count;
      }
    }
    for (std::size_t k = 0; k < ps.intervals; ++k) {
      const Interval& iv = intervals_.front();
      backend_.release(iv.start);
      if (iv.owns_stop) backend_.release(iv.stop);
      intervals_.pop_front();
    }
    backend_.release(ps.start);
    pending_.pop_front();
    if (error) {
      ++counters_.failed_steps;
      clear_touched();
      try {
        std::rethrow_exception(error);
      } catch (const std::exception& e) {
        last_error_ = "step " + std::to_string(ps.index) + ": " + e.what();
      } catch (...) {
        last_error_ = "step " + std::to_string(ps.index) + ": unknown error";
      }
      std::rethrow_exception(error);
    }
    ++counters_.resolved_steps;
    commit(ps, gpu);
  }

  void clear_touched() {
    for (std::uint32_t id : touched_) {
      regions_[id].accum = 0;
      regions_[id].accum_count = 0;
    }
    touched_.clear();
  }

  void commit(const PendingStep& ps, double gpu) {
    if (ps.index < config_.warmup_steps) {
      ++counters_.warmup_steps;
      clear_touched();
      if (ps.index + 1 == config_.warmup_steps) {
        warm_ = true;
        pool_at_warm_ = backend_.markers_created();
      }
      return;
    }
    if (step_window_.size() == config_.window) step_window_.pop_front();
    StepEntry e;
    e.step = ps.index;
    e.gpu_s = gpu;
    e.wall_s = ps.wall_s;
    e.work = ps.work;
    step_window_.push_back(e);
    gpu_total_.add(std::max(0.0, gpu));
    wall_total_.add(std::max(0.0, ps.wall_s));
    work_total_.add(ps.work);
    for (std::uint32_t id : touched_) {
      RegionState& r = regions_[id];
      if (r.window.size() == config_.window) r.window.pop_front();
      r.window.push_back({ps.index, r.accum, r.accum_count});
      r.total.add(std::max(0.0, r.accum));
      ++r.total_steps;
      r.total_occurrences += r.accum_count;
      r.accum = 0;
      r.accum_count = 0;
    }
    touched_.clear();
    ++measured_steps_;
    if (config_.log_every > 0 && measured_steps_ % config_.log_every == 0 && !sinks_.empty()) {
      const TimerSummary s = summary();
      for (const auto& sink : sinks_) sink(s);
    }
  }

  // ---- summaries ----------------------------------------------------------------------------------

  void summarize_steps(TimerSummary& s) const {
    auto& w = s.window;
    std::vector<double> gpu, wall;
    gpu.reserve(step_window_.size());
    wall.reserve(step_window_.size());
    WorkSums work;
    double gpu_sum = 0;
    for (std::size_t i = 0; i < step_window_.size(); ++i) {
      const StepEntry& e = step_window_[i];
      gpu.push_back(e.gpu_s);
      wall.push_back(e.wall_s);
      work.add(e.work);
      gpu_sum += e.gpu_s;
    }
    w.steps = step_window_.size();
    if (w.steps > 0) {
      w.first_step = step_window_.front().step;
      w.last_step = step_window_.back().step;
    }
    w.gpu_time_s = gauge::summarize(std::move(gpu), config_.confidence_level);
    w.wall_time_s = gauge::summarize(std::move(wall), config_.confidence_level);
    w.throughput = timer_throughput(work, gpu_sum, config_.peak_flop_per_s);
    auto& t = s.total;
    t.steps = gpu_total_.n();
    t.gpu_time_s = gpu_total_.summary();
    t.wall_time_s = wall_total_.summary();
    t.throughput = timer_throughput(work_total_, gpu_total_.sum(), config_.peak_flop_per_s);
  }

  void summarize_regions(TimerSummary& s) const {
    double window_gpu = 0;
    for (std::size_t i = 0; i < step_window_.size(); ++i) window_gpu += step_window_[i].gpu_s;
    const std::size_t first = step_window_.empty() ? 0 : step_window_.front().step;
    const double total_gpu = gpu_total_.sum();
    for (const RegionState& r : regions_) {
      TimerRegionSummary out;
      out.name = r.name;
      out.kind = r.kind == Kind::phase ? "phase" : "region";
      out.parent = r.parent == none ? std::string() : regions_[r.parent].name;
      out.stream = r.first_foreign ? "other" : "timer";
      out.level = r.level;
      std::vector<double> values;
      values.reserve(r.window.size());
      double sum = 0;
      for (std::size_t i = 0; i < r.window.size(); ++i) {
        const WindowEntry& e = r.window[i];
        if (step_window_.empty() || e.step < first) continue;
        values.push_back(e.value);
        sum += e.value;
        out.window.occurrences += e.count;
      }
      out.window.steps = values.size();
      out.window.time_per_step_s = gauge::summarize(std::move(values), config_.confidence_level);
      if (out.window.steps > 0 && window_gpu > 0) out.window.share_of_step = detail::finite_or_nullopt(sum / window_gpu);
      out.total.steps = r.total_steps;
      out.total.occurrences = r.total_occurrences;
      out.total.time_per_step_s = r.total.summary();
      if (r.total_steps > 0 && total_gpu > 0) out.total.share_of_step = detail::finite_or_nullopt(r.total.sum() / total_gpu);
      s.regions.push_back(std::move(out));
    }
  }

  void add_warnings(TimerSummary& s) const {
    char buf[512];
    if (counters_.forced_waits > 0) {
      std::snprintf(buf, sizeof buf,
                    "%zu step(s) waited on the host because more than max_pending_steps = %zu steps were pending: "
                    "the host ran that far ahead of the device. Raise max_pending_steps to keep the loop free of "
                    "host synchronizations.",
                    counters_.forced_waits, config_.max_pending_steps);
      s.warnings.push_back({warning_code::timer_forced_wait, Severity::warning, buf});
    }
    if (!pending_.empty()) {
      std::snprintf(buf, sizeof buf,
                    "%zu ended step(s) had not completed on the device yet and are not in this summary; "
                    "finish() or flush() waits for them.",
                    pending_.size());
      s.warnings.push_back({warning_code::timer_unresolved_steps, Severity::info, buf});
    }
    if (pool_at_warm_ && backend_.markers_created() > *pool_at_warm_) {
      std::snprintf(buf, sizeof buf,
                    "the marker pool grew by %zu after the %zu warm-up steps (to %zu): steady-state steps "
                    "allocated. More regions appeared, or the host ran further ahead; raise warmup_steps.",
                    backend_.markers_created() - *pool_at_warm_, config_.warmup_steps, backend_.markers_created());
      s.warnings.push_back({warning_code::timer_pool_grew_after_warmup, Severity::info, buf});
    }
    if (counters_.failed_steps > 0) {
      s.warnings.push_back({warning_code::timer_resolution_failed, Severity::error,
                            std::to_string(counters_.failed_steps) +
                                " step(s) could not be resolved and were dropped; the last error: " + last_error_});
    }
  }

  void release_all() noexcept {
    for (std::size_t i = 0; i < pending_.size(); ++i) backend_.release(pending_[i].start);
    while (!intervals_.empty()) {
      backend_.release(intervals_.front().start);
      if (intervals_.front().owns_stop) backend_.release(intervals_.front().stop);
      intervals_.pop_front();
    }
    for (auto& r : regions_) {
      if (r.open) backend_.release(r.start);
      r.open = false;
    }
    if (started_) backend_.release(step_start_);
    while (!pending_.empty()) pending_.pop_front();
    started_ = false;
  }

  std::string name_;
  Backend backend_;
  TimerConfig config_;
  int level_ = timer_level::normal;
  StepWork default_work_;
  std::vector<TimerSink> sinks_;

  std::vector<RegionState> regions_;
  std::vector<std::uint32_t> open_stack_;
  std::uint32_t open_phase_ = none;

  bool started_ = false;
  marker_type step_start_{};
  double last_step_host_ = 0;
  std::size_t steps_ = 0;
  std::size_t cur_intervals_ = 0, cur_foreign_ = 0;
  detail::Ring<Interval> intervals_;
  detail::Ring<PendingStep> pending_;

  detail::Ring<StepEntry> step_window_;
  RunningStats gpu_total_, wall_total_;
  WorkSums work_total_;
  std::size_t measured_steps_ = 0;
  bool warm_ = false;
  std::optional<std::size_t> pool_at_warm_;

  std::vector<double> scratch_;
  std::vector<std::uint32_t> touched_;
  TimerCounters counters_;
  std::string deferred_error_;
  std::string last_error_;
};

}  // namespace gauge
