#pragma once
/// \file gauge/detail/timer_core.hpp
/// gauge::detail::TimerCore<Backend>: what gauge::Timer does with its backend's markers, and the
/// only place that calls the backend. It records a marker per region boundary and per step
/// (acquired from the backend's pool), keeps the markers of the open regions, of the stopped
/// region occurrences and of the ended steps, asks whether the oldest ended step's markers
/// completed (never waits) or waits for them, reads their elapsed times, releases them to the pool,
/// and hands the times to its TimerState (gauge/detail/timer_state.hpp), which does the
/// bookkeeping that needs no markers. gauge::Timer (gauge/timer.hpp) decides when to resolve, when
/// to wait and when to log.

#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gauge/core/timer_summary.hpp"
#include "gauge/detail/kernel_tracer.hpp"
#include "gauge/detail/ring.hpp"
#include "gauge/detail/timer_state.hpp"
#include "gauge/detail/timer_summarize.hpp"
#include "gauge/detail/timer_trace.hpp"

namespace gauge::detail {

/// A Timer's markers on `Backend` (the TimerBackend interface in gauge/timer.hpp) and its
/// TimerState. Not copyable or movable. Misuse throws ConfigError (from TimerState) before any
/// backend call.
template <class Backend>
class TimerCore {
 public:
  using stream_type = typename Backend::stream_type;
  using marker_type = typename Backend::marker_type;

  /// \throws ConfigError for an empty name or invalid settings (TimerState).
  TimerCore(std::string name, Backend backend, TimerConfig config)
      : backend_(std::move(backend)), state_(std::move(name), std::move(config)) {
    pending_.reserve(state_.config().max_pending_steps + 1);
  }
  TimerCore(const TimerCore&) = delete;
  TimerCore& operator=(const TimerCore&) = delete;
  TimerCore(TimerCore&&) = delete;
  TimerCore& operator=(TimerCore&&) = delete;
  ~TimerCore() { release_all(); }

  Backend& backend() { return backend_; }
  TimerState& state() { return state_; }
  const TimerState& state() const { return state_; }
  /// The Timer's stream.
  stream_type stream() const { return backend_.stream(); }

  // ---- regions and steps ----------------------------------------------------------------------

  /// The region `name` used at `level`, registered at first use (TimerState::find_for_use).
  std::uint32_t find_or_register(std::string_view name, int level) {
    const std::uint32_t id = state_.find_for_use(name, level);
    if (id != no_region) return id;
    // The region's slot first: a region is never registered without one.
    if (marks_.size() == state_.region_count()) marks_.emplace_back();
    return state_.add_region(name, level);
  }

  /// Starts region `id` on stream `s`: one marker (the first call also starts the first step).
  void start(std::uint32_t id, stream_type s) {
    state_.check_start(id);
    begin_if_needed();
    const marker_type m = record_new(s);
    open_region(id, m, s, !backend_.is_timer_stream(s));
    if (tracing_) trace_->push(id + 1);
  }
  /// Stops region `id`: one marker, on the stream it started on.
  void stop(std::uint32_t id) {
    state_.check_stop(id);
    const marker_type m = record_new(marks_[id].stream);
    close_region(id, m, true);
    if (trace_) trace_->pop(id + 1);  // also a region the traced step left open, stopped later
  }
  /// stop() from a Scope's destructor: an error is kept for the next step(), flush() or finish().
  void stop_from_scope(std::uint32_t id) noexcept {
    try {
      stop(id);
    } catch (const std::exception& e) {
      state_.defer_error(e.what());
    }
  }
  /// Ends the open phase and starts phase `id` at one marker on the Timer's stream.
  void phase(std::uint32_t id) {
    state_.check_phase(id);
    begin_if_needed();
    const marker_type m = record_new(backend_.stream());
    if (state_.open_phase() != no_region) end_phase(m);  // at most one phase is open: the current one
    open_region(id, m, backend_.stream(), false);
    state_.set_open_phase(id);
    if (tracing_) trace_->push(id + 1);
  }
  /// Ends the step at one marker on the Timer's stream (it also ends the open phase) and the host
  /// clock; the step joins the pending ones.
  void end_step(const StepWork& work) {
    begin_if_needed();
    const marker_type m = record_new(backend_.stream());
    const double now = host_time_of(m);
    if (state_.open_phase() != no_region) end_phase(m);
    PendingStep ps;
    ps.step = state_.end_step(work, now);
    ps.start = step_start_;
    ps.end = m;
    step_start_ = m;
    pending_.push_back(ps);
    if (tracing_) {
      // The next step's work, as a whole, tells where the traced step ends on the device clock.
      trace_->pop(0);
      trace_->push(TimerTraceSession::next_step);
      tracing_ = false;
      marking_next_ = true;
      traced_step_ = ps.step.index;
    } else if (marking_next_) {
      trace_->pop(TimerTraceSession::next_step);
      marking_next_ = false;
    }
    maybe_start_trace();
  }

  // ---- resolution -----------------------------------------------------------------------------

  /// Ended steps not resolved yet.
  std::size_t pending_steps() const { return pending_.size(); }
  /// Whether the oldest pending step's markers completed (queries, never waits).
  bool front_ready() { return ready(pending_.front()); }
  /// Waits for the oldest pending step unless it completed; `forced` counts it as a forced wait.
  void wait_for_front(bool forced = false) {
    if (!ready(pending_.front())) wait_for(pending_.front());
    if (forced) ++state_.counters().forced_waits;
  }
  /// Waits for the newest pending step's markers (one host synchronization, plus one per
  /// other-stream region still running).
  void wait_for_back() { wait_for(pending_.back()); }

  /// Reads the oldest pending step's times (its markers completed), releases its markers, pops
  /// it, and folds the times into the state. If reading fails, the step is dropped (counted,
  /// warned about) and the error rethrown; everything resolved before is kept.
  /// \returns whether a log is due (a multiple of `log_every` steps after warm-up).
  bool resolve_front() {
    const PendingStep ps = pending_.front();
    std::vector<double>& times = state_.scratch();
    std::vector<double>& offsets = offsets_;
    times.clear();
    offsets.assign(ps.step.intervals, std::numeric_limits<double>::quiet_NaN());
    double gpu = 0;
    std::exception_ptr error;
    try {
      gpu = backend_.elapsed(ps.start, ps.end);
      // Markers whose offset in the step is known: the step's start, and the stops of the intervals
      // whose offsets were read. A phase starts on the marker where the previous one stopped, so
      // its offset costs no read of the backend (the last 8 are searched).
      known_.clear();
      known_.push_back({ps.start, 0.0});
      for (std::size_t k = 0; k < ps.step.intervals; ++k) {
        const Interval& iv = intervals_[k];
        times.push_back(backend_.elapsed(iv.start, iv.stop));
        // Where in the step the region began (its first occurrence): when a rank arrived at it,
        // which names the straggler of a collective (gauge::mpi::TimerAcrossRanks).
        if (state_.first_in_step(iv.region, ps.step.index)) {
          std::optional<double> at;
          for (std::size_t j = known_.size(); j-- > 0 && known_.size() - j <= 8 && !at;)
            if (known_[j].first == iv.start) at = known_[j].second;
          if (!at && iv.start == ps.start) at = 0.0;
          offsets[k] = at ? *at : backend_.elapsed(ps.start, iv.start);
          known_.push_back({iv.stop, offsets[k] + times.back()});
        }
      }
      state_.check_finite(ps.step.index, gpu);
    } catch (...) {
      error = std::current_exception();
    }
    if (trace_ && traced_step_ == ps.step.index) traced_gpu_ = error ? 0.0 : gpu;
    // Collected once the step after the traced one has resolved: every record of both is complete.
    if (trace_ && traced_step_ && ps.step.index == *traced_step_ + 1) collect_trace(true);
    // Fold the times into the regions' per-step sums (needs the intervals before they are popped).
    if (!error)
      for (std::size_t k = 0; k < ps.step.intervals; ++k) state_.accumulate(intervals_[k].region, times[k], offsets[k]);
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
      case TimerFold::warmed_up:
        state_.set_pool_at_warm(backend_.markers_created());
        return false;
      case TimerFold::log_due:
        return true;
      case TimerFold::warmup:
      case TimerFold::measured:
        break;
    }
    return false;
  }

  /// The summary of the steps resolved so far (no waiting).
  TimerSummary summary() const {
    TimerSummary s = summarize_timer(state_, {Backend::name, backend_.timer_resolution(), backend_.markers_created(),
                                              pending_.size()});
    s.kernel_trace = last_trace_;
    return s;
  }

  /// Releases every marker it holds (no waiting). A second call releases nothing.
  void release_all() noexcept {
    tracing_ = false;
    marking_next_ = false;
    traced_step_.reset();
    trace_.reset();
    for (std::size_t i = 0; i < pending_.size(); ++i) backend_.release(pending_[i].start);
    while (!intervals_.empty()) {
      backend_.release(intervals_.front().start);
      if (intervals_.front().owns_stop) backend_.release(intervals_.front().stop);
      intervals_.pop_front();
    }
    for (std::uint32_t id = 0; id < state_.region_count() && id < marks_.size(); ++id)
      if (state_.regions()[id].open) backend_.release(marks_[id].start);
    marks_.clear();  // released: not again
    if (started_) backend_.release(step_start_);
    while (!pending_.empty()) pending_.pop_front();
    started_ = false;
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
    TimerStepRecord step;
    marker_type start{}, end{};
  };

  /// The host clock at marker `m`, just recorded: the backend's own record of it where it keeps one
  /// (the host backend's marker is a reading of now()), else a reading of now().
  template <class B = Backend>
  auto host_time_of(marker_type m) -> decltype(std::declval<const B&>().host_time(m)) {
    return backend_.host_time(m);
  }
  template <class... Ignored>
  double host_time_of(marker_type, Ignored...) {
    return backend_.now();
  }

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
  /// Collects the traced step's records into last_trace_ and ends the session. `with_next`: the
  /// step after it has resolved too (its first activity marks where the traced step ended).
  void collect_trace(bool with_next) {
    if (marking_next_) {
      trace_->pop(TimerTraceSession::next_step);
      marking_next_ = false;
    }
    std::vector<std::string> names;
    for (const auto& r : state_.regions()) names.push_back(r.name);
    last_trace_ = trace_->collect(names, traced_gpu_, with_next);
    last_trace_->step = traced_step_;
    trace_.reset();
    traced_step_.reset();
  }

 public:
  /// finish(): a traced step that resolved but whose next step never ended is collected alone;
  /// a step still being traced (not ended) is abandoned, so CUPTI is left as it was found.
  void collect_resolved_trace() {
    if (!trace_) return;
    if (traced_step_ && !tracing_ && pending_.empty()) {
      collect_trace(false);
    } else if (tracing_) {
      tracing_ = false;
      trace_.reset();
    }
  }

 private:
  void end_phase(marker_type m) {
    const std::uint32_t id = state_.open_phase();
    close_region(id, m, false);
    if (trace_) trace_->pop(id + 1);
  }

  /// At a step boundary: starts tracing the next step when TimerConfig::trace_kernels asks for
  /// one every log_every steps, at level 2, after warm-up, and no traced step awaits collection.
  void maybe_start_trace() {
    const TimerConfig& c = state_.config();
    if (!c.trace_kernels || c.log_every == 0 || state_.level() < timer_level::detailed || trace_ || !state_.warm()) return;
    if (++steps_since_trace_ < c.log_every) return;
    steps_since_trace_ = 0;
    auto not_traced = [&](std::string status, std::string reason) {
      records::TimerKernelTrace t;
      t.status = std::move(status);
      t.reason = std::move(reason);
      last_trace_ = std::move(t);
    };
    if (std::string_view(Backend::name) == "host") return not_traced("unavailable", "the host backend runs no GPU kernels");
    TimerTraceFactory make = timer_trace_factory();
    if (!make) return not_traced("unavailable", tracing_not_compiled_in());
    trace_ = make();
    const std::string why = trace_->start();
    if (!why.empty()) {
      trace_.reset();
      const std::string disabled = "disabled: ";
      if (why.rfind(disabled, 0) == 0) return not_traced("disabled", why.substr(disabled.size()));
      return not_traced("unavailable", why);
    }
    tracing_ = true;
    trace_->push(0);
    // Regions already open (started in an earlier step) hold the traced step's work too.
    const auto& regions = state_.regions();
    for (std::uint32_t id = 0; id < regions.size(); ++id)
      if (regions[id].open && id != state_.open_phase()) trace_->push(id + 1);
  }

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

  Backend backend_;
  TimerState state_;
  std::vector<OpenMark> marks_;  ///< by region id
  bool started_ = false;         ///< the first step has started (step_start_ holds a marker)
  marker_type step_start_{};     ///< the marker that started the step in progress
  Ring<Interval> intervals_;     ///< stopped occurrences of the pending steps and the current one, in order
  std::vector<double> offsets_;  ///< resolve_front's start offsets, per interval of the step
  std::vector<std::pair<marker_type, double>> known_;  ///< resolve_front's markers of known offset
  Ring<PendingStep> pending_;    ///< ended steps, oldest first
  // Kernel tracing (TimerConfig::trace_kernels).
  std::unique_ptr<TimerTraceSession> trace_;    ///< the session of the step traced or awaiting collection
  bool tracing_ = false;                        ///< the step in progress is traced
  bool marking_next_ = false;                   ///< the step in progress is the one after the traced step
  double traced_gpu_ = 0;                       ///< the traced step's time from the markers, once resolved
  std::optional<std::size_t> traced_step_;      ///< the ended traced step, until it resolves
  std::size_t steps_since_trace_ = 0;           ///< steps ended after warm-up since the last sample
  std::optional<records::TimerKernelTrace> last_trace_; ///< the last sampled step's trace
};

}  // namespace gauge::detail
