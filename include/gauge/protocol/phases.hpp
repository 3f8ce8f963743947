#pragma once
/// \file gauge/protocol/phases.hpp
/// `Protocol`, one run of the measurement protocol: its state, and its phases as run() calls them
/// and as an interleaved run drives them (begin, measure_round, end), with the outcomes of its
/// rounds. The steps of the recipe are member functions defined out of the class, by concept, in
/// gauge/protocol/rounds.hpp, calibration.hpp, measurement.hpp, tracing.hpp and conclusion.hpp:
/// include gauge/protocol/protocol.hpp, which includes them all.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "gauge/core/config.hpp"
#include "gauge/core/cpu_clock.hpp"
#include "gauge/core/cpu_counters.hpp"
#include "gauge/core/error.hpp"
#include "gauge/core/stop.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/warning_sink.hpp"
#include "gauge/detail/fmt.hpp"
#include "gauge/detail/nvtx.hpp"
#include "gauge/detail/sorted_runs.hpp"
#include "gauge/detail/kernel_tracer.hpp"
#include "gauge/protocol/clock.hpp"
#include "gauge/protocol/diagnosis.hpp"
#include "gauge/protocol/monitoring.hpp"
#include "gauge/protocol/seam.hpp"

namespace gauge::detail {

/// floor(a / b) for positive a, b, robust to the quotient landing a rounding error below an
/// integer (70e-6 / 10e-6 = 6.9999999999999991); at least 0.
inline std::size_t floor_ratio(double a, double b) {
  if (!(a > 0) || !(b > 0)) return 0;
  const double q = a / b;
  if (q >= 1e18) return static_cast<std::size_t>(1e18);
  return static_cast<std::size_t>(std::floor(q * (1 + 1e-12)));
}

/// Outcome of one timed round.
struct RoundOutcome {
  std::vector<double> per_step_s;  ///< one value per sample (batch time / steps per sample)
  bool timed_out = false;          ///< the gate gave up before the round was enqueued
  bool host_blocked_at_first_step = false;  ///< enqueuing the first step took ~the gate timeout
  double enqueue_s = 0;            ///< host time to enqueue the round
  std::size_t steps = 0;
  std::optional<records::SmClockReading> clock; ///< the round's mean SM clock (probe), when read
  /// Process CPU time per step over the round, less the setup's (host timing only), seconds.
  std::optional<double> cpu_per_step_s;
  /// The calling thread's cycles and instructions per step over the round, less the setup's
  /// (host timing, counters open), and the smallest running fraction of the group's two readings.
  std::optional<records::CpuCounterReading> counters_per_step;
};

/// Outcome of one wall-time round.
struct WallOutcome {
  double wall_s = 0;        ///< host time from before the first enqueue to after the synchronize
  double enqueue_s = 0;     ///< host time to enqueue the steps
  double event_span_s = 0;  ///< events around the round on the experiment's stream
  std::size_t steps = 0;
};

/// The measuring loop's state: kept between calls of measure() when rounds are driven from
/// outside (measure_round), so that each call continues where the last one stopped.
struct MeasureState {
  std::size_t k = 1;                // steps per sample
  bool graph_mode = false;
  std::size_t steps_per_round = 1;
  double t0 = 0;                    // host clock when measuring began
  // The samples as sorted runs: the rule's order statistics are exact (those of all samples
  // sorted) at a cost per round that does not grow with the samples already taken.
  detail::SortedRuns order;
  std::vector<detail::SortedRuns> by_stream;  // the same samples, per stream of the pool
  std::vector<std::size_t> counts;
  std::vector<double> medians;
  std::size_t hint_n = 0, hint_l = 0;  // the last rule check's n and lower rank of the CI
};

/// One run of the protocol: the per-run state lives here, not in the user-facing builder.
class Protocol {
 public:
  Protocol(const ExperimentSpec& spec, ProtocolBackend& backend)
      : spec_(spec), config_(spec.config), b_(backend), monitor_(spec, backend) {}


  /// Runs the protocol and returns the result: begin(), the measuring rounds until the stopping
  /// rule says stop, then the end (verification, statistics, diagnosis). Never throws for a
  /// failing step or backend: the result is then `failed` with the error, and whatever was
  /// measured before is kept. Throws ConfigError only for an invalid configuration (before
  /// anything runs).
  Result run() {
    Result r;
    begin(r);
    if (r.status == Status::ok) guarded(r, [&] {
      measure(r, *sink_);
      finish_measuring(r);
    });
    fail_if_interrupted(r);
    conclude(r);
    return r;
  }

  // ---- the phases, for rounds driven from outside (gauge/protocol/interleave.hpp) -------------
  // run() is begin(), measure() (which loops over rounds), finish_measuring() and conclude();
  // an interleaved A/B run calls begin(), then measure_round() as often as it decides, then end().

  /// Throws ConfigError naming the first invalid setting (nothing has run).
  void check() const {
    if (spec_.name.empty()) throw ConfigError("experiment name must not be empty");
    validate(config_);
    if (b_.has_setup() && config_.measure.gpu_timing == GpuTiming::graph)
      throw ConfigError("an untimed setup (Experiment::setup) cannot be combined with gpu_timing = graph: a graph "
                        "replays its steps without the setup between them");
  }

  /// Prepares, chooses the method, starts monitoring, warms up and chooses k: ready to measure.
  /// A failure is recorded in `r` (status `failed`); throws ConfigError only, as check().
  void begin(Result& r) {
    r.name = spec_.name;
    r.dimensions = spec_.dimensions;
    r.work = spec_.work;
    r.config = config_;
    r.backend = b_.name();
    r.time_label = b_.time_label();
    r.time_clock = b_.time_clock();
    check();
    has_setup_ = b_.has_setup();
    // The codes GAUGE_SILENCE silences are recorded with the configuration, so the report says
    // what was silenced however it was asked for.
    for (const auto& code : detail::silenced_by_environment()) r.config.silenced_warnings.insert(code);
    sink_.emplace(r.config.silenced_warnings);
    WarningSink& sink = *sink_;
    label_ = spec_.name;
    for (const auto& [key, value] : spec_.dimensions) label_ += " " + key + "=" + to_string(value);
    whole_.emplace(label_);
    t_begin_ = b_.now();
    phase_ = "prepare";
    guarded(r, [&] {
      r.device = b_.prepare(config_);
      prepared_ = true;
      streams_ = std::max<std::size_t>(1, b_.stream_count());
      r.streams.count = streams_;
      r.streams.scope = b_.caller_stream() ? "caller's stream" : streams_ > 1 ? "stream pool" : "one stream";
      r.sampling.timer_resolution_s = b_.timer_resolution();
      choose_method(r, sink);
      monitor_.start(r, sink, t_begin_);
      phase_ = "warm-up";
      r.telemetry.warmup_start_s = b_.now() - t_begin_;
      {
        NvtxRange range(label_ + " warm-up");
        warm_up(r, sink);
      }
      phase_ = "calibration";
      choose_steps_per_sample(r, sink);
      if (cold()) record_cache_flush(r);
      phase_ = "measurement";
      monitor_.mark_measure_start(r, step_index_);
    });
  }

  /// Every step has its own event pair (cold cache or a setup): k is 1 and cannot be changed.
  bool per_step_pairs() const { return cold() || has_setup_; }

  /// Replaces the k chosen by begin() (an interleaved run measures both sides with one k), and
  /// says why in `sampling.steps_per_sample_reason`; in graph mode the graph is captured again.
  /// Call between begin() and the first measure_round(). A failure is recorded in `r`.
  void use_steps_per_sample(Result& r, std::size_t k, const std::string& why) {
    auto& s = r.sampling;
    if (r.status != Status::ok || k == s.steps_per_sample || k == 0) return;
    s.steps_per_sample_reason += fmt::format("; k = {} instead of {}: {}", k, s.steps_per_sample, why);
    s.steps_per_sample = k;
    if (config_.measure.gpu_timing == GpuTiming::graph) guarded(r, [&] { prepare_graph(r); });
  }

  /// One measuring round and its wall round, with the bookkeeping of run()'s loop; the side's own
  /// stopping rule does not end it (the caller decides), except at measure.max_samples. Returns
  /// false when no round was recorded: the step failed (`r` says so) or max_samples was reached.
  bool measure_round(Result& r) {
    if (r.status != Status::ok) return false;
    driven_ = true;
    const std::size_t before = r.sampling.rounds;
    guarded(r, [&] { measure(r, *sink_); });
    return r.status == Status::ok && r.sampling.rounds > before;
  }

  /// Ends a run driven by measure_round(): the stopping record (its reason `stop_reason`), kernel
  /// tracing, verification, then statistics and diagnosis as run() does. A `stop_reason` of
  /// "interrupted" (a stop request ended the rounds) fails the result as run() does, its samples kept.
  void end(Result& r, const std::string& stop_reason) {
    driven_ = true;
    stop_request_ = stop_reason;
    if (r.status == Status::ok) guarded(r, [&] {
      measure(r, *sink_);
      finish_measuring(r);
    });
    fail_if_interrupted(r);
    conclude(r);
  }

 private:
  // ---- helpers -----------------------------------------------------------------------------

  /// Runs `f`; an exception from the step, the backend or the protocol fails `r` with its
  /// message (the phase and step in front) and returns false.
  template <class F>
  bool guarded(Result& r, F&& f) {
    try {
      f();
      return true;
    } catch (const std::exception& e) {
      fail_result(r, e.what());
    } catch (const char* e) {
      fail_result(r, std::string("an exception of type const char*: ") + (e ? e : "(null)"));
    } catch (const std::string& e) {
      fail_result(r, "an exception of type std::string: " + e);
    } catch (...) {
      fail_result(r, "an exception not derived from std::exception");
    }
    return false;
  }

  // The end of a run (gauge/protocol/conclusion.hpp).
  void finish_measuring(Result& r);
  Result& conclude(Result& r);
  void record_peaks(Result& r) const;
  void record_cache_flush(Result& r);
  void record_gpm(Result& r) const;
  void record_streams(Result& r) const;

  /// A result measured until a stop request (stopping reason "interrupted"), not to the stopping
  /// rule: kept, but never a number to trust, so `failed` with the reason (and the signal).
  static void fail_if_interrupted(Result& r) {
    if (r.status != Status::ok || r.stopping.reason != "interrupted") return;
    r.status = Status::failed;
    const int signal = detail::stop_signal();
    r.error = "interrupted: a stop was requested" + (signal ? " (" + detail::signal_name(signal) + ")" : std::string()) +
              " before the stopping rule was met; the samples measured until then are kept";
  }

  void fail_result(Result& r, const std::string& what) {
    r.status = Status::failed;
    std::string where;
    if (batch_first_ && batch_first_ < step_index_)
      where = " (steps " + std::to_string(batch_first_) + "-" + std::to_string(step_index_) + ", one batch on " +
              std::to_string(b_.threads()) + " threads)";
    else if (step_index_)
      where = " (step " + std::to_string(step_index_) + ")";
    r.error = phase_ + where + ": " + what;
    if (r.stopping.reason.empty()) r.stopping.reason = "failed";
    if (spec_.coordinator) spec_.coordinator->abandon(*r.error);
  }

  void call_step() {
    ++step_index_;
    if (tracer_) {
      TracedUnit unit(*this);
      b_.call_step();
    } else {
      b_.call_step();
    }
  }

  void launch_graph() {
    if (tracer_) {
      TracedUnit unit(*this);
      b_.launch_graph();
    } else {
      b_.launch_graph();
    }
  }

  /// One launch of the step (or graph replay) in the traced round, bracketed by its external
  /// correlation id, popped also when the step throws.
  struct TracedUnit {
    explicit TracedUnit(Protocol& p) : p_(p) { p_.tracer_->push(p_.trace_base_ + p_.trace_units_); }
    ~TracedUnit() {
      p_.tracer_->pop();
      ++p_.trace_units_;
    }
    Protocol& p_;
  };

  // Kernel tracing (gauge/protocol/tracing.hpp).
  void trace_kernels(Result& r, WarningSink& sink);

  /// Tracing sessions in this process: each one's external ids are its own.
  static std::uint32_t& trace_sessions() {
    static std::uint32_t n = 0;
    return n;
  }

  /// The untimed setup before a step (Experiment::setup), its host time counted.
  void call_setup() {
    const double cpu0 = cpu_rounds_ ? detail::process_cpu_seconds() : 0.0;
    const auto k0 = cpu_rounds_ && counters_.is_open() ? counters_.read() : std::nullopt;
    const double t0 = b_.now();
    try {
      b_.call_setup();
    } catch (const std::exception& e) {
      throw Error(std::string("setup: ") + e.what());
    }
    setup_time_s_ += b_.now() - t0;
    if (k0)
      if (const auto k1 = counters_.read()) {
        setup_counts_.cycles += k1->cycles - k0->cycles;
        setup_counts_.instructions += k1->instructions - k0->instructions;
      }
    if (cpu_rounds_) setup_cpu_s_ += detail::process_cpu_seconds() - cpu0;
    ++setup_calls_;
  }

  bool cold() const { return config_.measure.cache == CacheState::cold; }

  // The timing method and the timed round (gauge/protocol/rounds.hpp).
  void choose_method(Result& r, WarningSink& sink);
  RoundOutcome timed_round(std::size_t steps, std::size_t k, bool graph_mode);
  void on_gate_timeout(const RoundOutcome& o, std::size_t& steps_per_round, std::size_t k,
                       Result& r, WarningSink& sink);

  void reset_persisting_l2() { b_.reset_persisting_l2(); }

  // Warm-up and steps per sample (gauge/protocol/calibration.hpp).
  void warm_up(Result& r, WarningSink& sink);
  void choose_steps_per_sample(Result& r, WarningSink& sink);
  void prepare_graph(Result& r);

  /// k steps on the backend's threads at once (threads() > 1): one wake-up and one wait for the
  /// batch. A failure inside it names the batch's steps.
  void call_steps(std::size_t k) {
    batch_first_ = step_index_ + 1;
    step_index_ += k;
    b_.call_steps(k);
    batch_first_ = 0;
  }
  /// Whether rounds run steps in batches (call_steps): several threads, no tracer.
  bool batched() const { return b_.threads() > 1 && !tracer_; }

  void capture_graph(std::size_t k) {
    b_.capture(k);
    step_index_ += k;
    graph_k_ = k;
  }

  // The measuring loop (gauge/protocol/measurement.hpp).
  void start_measuring(Result& r);
  void measure(Result& r, WarningSink& sink);
  WallOutcome wall_round(std::size_t n, bool graph_mode);

  const ExperimentSpec& spec_;
  const Config& config_;
  ProtocolBackend& b_;
  Monitor monitor_;
  RunFacts facts_;

  std::optional<WarningSink> sink_;  // from begin()
  std::optional<NvtxRange> whole_;   // the whole run, begin() to conclude()
  bool prepared_ = false;            // the backend was prepared (finish it)
  std::optional<MeasureState> measuring_;  // from the first measuring round
  bool driven_ = false;              // rounds driven from outside (measure_round)
  std::string stop_request_;         // the stopping reason end() was given

  std::string phase_;
  std::size_t step_index_ = 0;
  std::size_t batch_first_ = 0;  // the first step of the batch running (call_steps), else 0
  bool gated_ = false;
  double estimate_ = 0;          // GPU time per step at the end of warm-up, seconds
  double sizing_estimate_ = 0;   // max(GPU, host round trip) per step: sizes the rounds
  std::size_t max_round_ = 0;
  std::size_t graph_k_ = 1;
  double t_begin_ = 0;  // host clock at run() start, seconds
  std::string label_;                // name and dimensions, for the NVTX ranges
  std::size_t streams_ = 1;          // streams in the backend's pool
  bool has_setup_ = false;           // Experiment::setup runs before every step
  std::size_t setup_calls_ = 0;
  double setup_time_s_ = 0;          // host time of all setup calls
  double setup_cpu_s_ = 0;           // process CPU time of all setup calls (host timing only)
  bool host_timing_ = false;         // the "host" method: rounds can record process CPU time
  bool cpu_rounds_ = false;          // measured rounds (and their setups) read CPU time and counters
  long switches_at_measure_ = -1;    // host timing: the process's involuntary context switches then
  env::CpuCounters counters_;        // host timing: the calling thread's cycles and instructions
  records::CpuCounterReading setup_counts_; // their counts in all setup calls
  std::vector<double> cycles_samples_, instructions_samples_;  // per step, one per measured round
  double counted_cycles_ = 0, counted_instructions_ = 0, min_running_fraction_ = 1;  // over the rounds
  std::size_t warmup_rounds_ = 0;    // warm-up rounds run (they rotate over the pool)
  std::size_t measure_rounds_ = 0;   // measuring rounds started (they rotate over the pool)
  KernelTracer* tracer_ = nullptr;   // set during the traced round only
  std::uint64_t trace_base_ = 0;     // this session's external correlation ids start here
  std::uint64_t trace_units_ = 0;    // launches of the step in the traced round so far
};

}  // namespace gauge::detail
