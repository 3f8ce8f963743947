#pragma once
/// \file gauge/protocol/protocol.hpp
/// The measurement protocol of DESIGN.md as a recipe: one `Protocol` object per `run()`, holding
/// that run's state, whose `run()` reads as its steps: prepare, choose the method, start
/// monitoring, warm up, calibrate k, measure, verify, then summarize and diagnose. Compiled
/// once per program (gauge/implementation.hpp); include it directly only to test its parts.
///
/// Parts a reader finds by name: monitoring (telemetry, memory, kernels) in
/// gauge/protocol/monitoring.hpp; the diagnosis rules, one function per warning, in
/// gauge/protocol/diagnosis.hpp; kernel tracing (`trace_kernels`, after measuring) here, over
/// gauge/env/cupti.hpp and gauge/core/kernel_trace_summary.hpp.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/config.hpp"
#include "gauge/core/kernel_trace_summary.hpp"
#include "gauge/core/peak_fractions.hpp"
#include "gauge/core/error.hpp"
#include "gauge/core/format.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/core/stream_effect.hpp"
#include "gauge/core/warmup.hpp"
#include "gauge/detail/nvtx.hpp"
#include "gauge/detail/sorted_runs.hpp"
#include "gauge/detail/text.hpp"
#include "gauge/env/cupti.hpp"
#include "gauge/core/warning_sink.hpp"
#include "gauge/core/warnings.hpp"
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
  std::optional<SmClockReading> clock;  ///< the round's mean SM clock (probe), when read
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
    for (const auto& code : silenced_by_environment()) r.config.silenced_warnings.insert(code);
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
  /// tracing, verification, then statistics and diagnosis as run() does.
  void end(Result& r, const std::string& stop_reason) {
    driven_ = true;
    stop_request_ = stop_reason;
    if (r.status == Status::ok) guarded(r, [&] {
      measure(r, *sink_);
      finish_measuring(r);
    });
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

  /// After the last measuring round: kernel tracing, verification, the last agreement of ranks.
  void finish_measuring(Result& r) {
    monitor_.mark_measure_end(r, step_index_);
    if (config_.trace_kernels) {
      phase_ = "kernel tracing";
      trace_kernels(r, *sink_);
    }
    if (spec_.verify) {
      phase_ = "verification";
      b_.synchronize();
      if (!spec_.verify()) throw Error("verification failed: the step's output is not what verify() expects");
    }
    if (spec_.coordinator) spec_.coordinator->finish();
  }

  /// Stops monitoring, releases the backend, and computes the statistics, the stream effect,
  /// throughput and the diagnosis: the result as returned.
  Result& conclude(Result& r) {
    WarningSink& sink = *sink_;
    monitor_.stop(r);
    r.sampling.setup_calls = setup_calls_;
    if (setup_calls_ > 0) r.sampling.setup_host_time_s = setup_time_s_ / static_cast<double>(setup_calls_);
    facts_.setup = has_setup_;
    if (prepared_) b_.finish();
    r.total_time_s = b_.now() - t_begin_;
    r.gpu_time = summarize(r.gpu_samples_s, config_.measure.confidence_level, r.sampling.resolution_per_step());
    record_streams(r);
    record_clock(r);
    r.wall_time = summarize(r.wall_samples_s, config_.measure.confidence_level);
    r.gpu_throughput = throughput(r.work, r.gpu_time.p50);
    r.wall_throughput = throughput(r.work, r.wall_time.p50);
    // Host overhead and busy fraction compare device time with wall time: meaningless where the
    // "device" is the host itself (host backend), so they stay null there.
    // With a setup, wall rounds time setup + step, so the comparison says nothing either.
    if (r.gpu_time.p50 && r.wall_time.p50 && r.sampling.method != "host" && !has_setup_) {
      r.host_overhead_per_step_s = *r.wall_time.p50 - *r.gpu_time.p50;
      if (*r.wall_time.p50 > 0) r.gpu_busy_fraction = std::min(1.0, *r.gpu_time.p50 / *r.wall_time.p50);
    }
    record_peaks(r);
    record_gpm(r);
    if (r.gpu_samples_s.size() > config_.max_samples_in_report) r.gpu_samples_s.resize(config_.max_samples_in_report);
    facts_.debug_build = b_.debug_build();
    diagnose_result(r, facts_, sink);
    monitor_.summarize(r, sink);
    r.warnings = sink.warnings();
    whole_.reset();
    return r;
  }


  /// The result's peaks (gauge/core/peak_fractions.hpp): the device's attributes from the
  /// backend, gauge-peaks' cache, the run's clocks. Call after the throughputs and the clock.
  void record_peaks(Result& r) const {
    PeakInputs in;
    try {
      in.device = b_.device_attributes();
    } catch (const std::exception& e) {
      in.no_device_reason = std::string("device attributes unreadable: ") + e.what();
    }
    if (!in.device && in.no_device_reason.empty())
      in.no_device_reason = std::string("the ") + b_.name() + " backend knows no device peaks";
    if (in.device) in.measured = read_measured_peaks(r.device.uuid, in.measured_source);
    in.run_sm_clock_mhz = r.clock.sm_clock_mhz;
    in.run_memory_clock_mhz = r.clock.memory_clock_mhz;
    in.gpu_busy_fraction = r.gpu_busy_fraction;
    in.launch_bound_busy_fraction = thresholds::launch_bound_busy_fraction;
    r.peaks = assess_peaks(r.work, r.dimensions, r.gpu_throughput, r.wall_throughput, in);
  }

  /// How the backend flushes L2 for a cold cache (`sampling.cache_flush`), read once the flush was
  /// prepared (warm-up ran it) and before the first measured round.
  void record_cache_flush(Result& r) {
    if (auto f = b_.cache_flush_record()) {
      r.sampling.cache_flush = std::move(f);
      return;
    }
    CacheFlushRecord f;
    f.method = "unknown";
    f.description = std::string("the ") + b_.name() + " backend does not describe its flush";
    r.sampling.cache_flush = f;
  }

  /// The result's `telemetry.gpm` (gauge/core/gpm.hpp): GPM's reading over the measured rounds and
  /// its cross-check with the declared bytes (plus the flush's, with a cold cache) against the
  /// memory peak of the fractions. Call after record_peaks.
  void record_gpm(Result& r) const {
    const auto& w = monitor_.gpm_window();
    if (!w.reading) {
      r.telemetry.gpm = gpm_unavailable(w.reason);
      return;
    }
    GpmInputs in;
    in.interval_s = w.end_s - w.start_s;
    in.steps = w.end_steps - w.start_steps;
    in.bytes_per_step = r.work.bytes;
    if (r.sampling.cache_flush && r.sampling.cache_flush->bytes)
      in.flush_bytes_per_step = static_cast<double>(*r.sampling.cache_flush->bytes);
    if (const Peak* p = ceiling_peak(r.peaks.peaks, "memory_bandwidth", "")) {
      in.memory_peak_bytes_per_s = p->value;
      in.memory_peak_basis = p->basis;
    }
    r.telemetry.gpm = assess_gpm(*w.reading, in);
    // An interleaved A/B run alternates both sides' rounds inside each side's interval.
    if (driven_ && r.telemetry.gpm.cross_check.rfind("not_checked", 0) != 0)
      r.telemetry.gpm.cross_check = "not_checked: an interleaved run (the interval holds the other side's rounds too)";
  }

  /// The per-stream medians of the GPU-time samples, and the interval of the median widened for
  /// the stream effect (gauge/core/stream_effect.hpp). Call after summarize, before the samples
  /// are cut to max_samples_in_report.
  void record_streams(Result& r) const {
    auto& st = r.streams;
    const auto& s = r.sampling;
    std::vector<std::vector<double>> by_stream(st.count);
    std::size_t at = 0;
    for (std::size_t i = 0; i < s.round_samples.size() && i < s.round_stream.size(); ++i) {
      auto& into = by_stream[s.round_stream[i] % st.count];
      for (std::size_t j = 0; j < s.round_samples[i] && at < r.gpu_samples_s.size(); ++j) into.push_back(r.gpu_samples_s[at++]);
    }
    std::vector<double> medians(st.count, 0.0);
    st.samples.assign(st.count, 0);
    st.medians_s.assign(st.count, std::nullopt);
    double lo = 0, hi = 0;
    std::size_t with = 0;
    for (std::size_t i = 0; i < st.count; ++i) {
      st.samples[i] = by_stream[i].size();
      if (by_stream[i].empty()) continue;
      medians[i] = median_of(by_stream[i]);
      st.medians_s[i] = medians[i];
      lo = with == 0 ? medians[i] : std::min(lo, medians[i]);
      hi = with == 0 ? medians[i] : std::max(hi, medians[i]);
      ++with;
    }
    auto& g = r.gpu_time;
    if (with >= 2 && g.p50 && *g.p50 > 0) st.relative_spread = (hi - lo) / *g.p50;
    if (!g.median_ci || !g.p50) return;
    st.within_ci_low_s = g.median_ci->low;
    st.within_ci_high_s = g.median_ci->high;
    const auto w = widen_for_streams(medians, st.samples, *g.p50, *g.median_ci, g.confidence_level);
    if (!w) return;
    st.cluster_variance_s2 = w->cluster_variance;
    st.excess_variance_s2 = w->excess_variance;
    st.t_quantile = w->t_quantile;
    st.widened = w->widened();
    g.median_ci->low = w->low;
    g.median_ci->high = w->high;
    if (*g.p50 != 0) g.median_ci_relative_width = detail::finite_or_nullopt((w->high - w->low) / *g.p50);
  }

  void fail_result(Result& r, const std::string& what) {
    r.status = Status::failed;
    r.error = phase_ + (step_index_ ? " (step " + std::to_string(step_index_) + ")" : std::string()) + ": " + what;
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

  // ---- kernel tracing -------------------------------------------------------------------------

  /// After measuring (Config::trace_kernels): an untraced round, a traced round and another
  /// untraced round of the same size on the pool's first stream, and the report's `kernel_trace`
  /// from the activity records of the traced one (gauge/core/kernel_trace.hpp); the untraced
  /// period is the mean of the rounds around it, so a clock that drifts (a power-capped GPU)
  /// does not read as tracing overhead. Tracing that cannot run is recorded with the reason and
  /// a warning; it never fails the run.
  void trace_kernels(Result& r, WarningSink& sink) {
    KernelTraceRecord t;
    auto give_up = [&](const std::string& status, const std::string& reason) {
      t.status = status;
      t.reason = reason;
      if (status == "disabled")
        sink.add(warning_code::profiler_attached, Severity::warning,
                 "kernel tracing was asked but is disabled: " + reason +
                     ". Two CUPTI clients in one process disturb each other; the numbers are the profiler's run.");
      else
        sink.add(warning_code::kernel_trace_unavailable, Severity::info, "kernel tracing was asked but did not run: " + reason);
      r.kernel_trace = t;
    };
    if (!b_.has_kernels()) return give_up("unavailable", std::string("the ") + b_.name() + " backend runs no GPU kernels");
    cupti::Library& lib = cupti::Library::active();
    if (!lib.available()) return give_up("unavailable", lib.error());
    t.tool = lib.description();
    if (const std::string other = cupti::other_client(lib); !other.empty()) return give_up("disabled", other);

    const auto& s = r.sampling;
    const bool graph_mode = config_.measure.gpu_timing == GpuTiming::graph;
    const std::size_t k = std::max<std::size_t>(1, s.steps_per_sample);
    // The size of a measured round, at least 20 steps where they take under 0.25 s (a few steps
    // of a long step read one clock state of a power-capped GPU: on an H200, 3 traced steps of a
    // 1.6 ms GEMM ran 13 % faster than the median), at least 3 launches (two spans), at most 2000.
    std::size_t steps = s.rounds ? s.steps / s.rounds : k;
    const std::size_t in_quarter_second = estimate_ > 0 ? floor_ratio(0.25, estimate_) : 20;
    steps = std::max(steps, std::min<std::size_t>(20, in_quarter_second));
    steps = std::clamp<std::size_t>(steps, 3 * k, std::max<std::size_t>(3 * k, 2000));
    steps = std::max(3 * k, steps / k * k);
    b_.select_stream(0);
    const auto untraced = timed_round(steps, k, graph_mode);
    cupti::Tracer tracer(lib);
    if (const std::string why = tracer.start(); !why.empty()) return give_up("unavailable", why);
    trace_base_ = (std::uint64_t{++trace_sessions()} << 32);
    trace_units_ = 0;
    tracer_ = &tracer;
    RoundOutcome traced;
    try {
      traced = timed_round(steps, k, graph_mode);
    } catch (...) {
      tracer_ = nullptr;
      tracer.stop();
      throw;
    }
    tracer_ = nullptr;
    cupti::Collected c = tracer.stop();
    const auto untraced_after = timed_round(steps, k, graph_mode);
    if (untraced.timed_out || traced.timed_out || untraced_after.timed_out)
      return give_up("unavailable", "the launch gate timed out in the traced rounds (the step synchronizes the host)");
    if (!c.error.empty()) return give_up("unavailable", "CUPTI failed while tracing: " + c.error);
    if (c.external.empty() && (has_setup_ || cold()))
      return give_up("unavailable",
                     "CUPTI delivered no external correlation records, and with " +
                         std::string(has_setup_ ? "a setup" : "a cold cache (an L2 flush)") +
                         " between steps the records cannot be tied to the step by launch order");
    // Tie each record to the launch that made it.
    const std::uint64_t units = trace_units_;
    std::vector<Activity> acts;
    acts.reserve(c.activities.size());
    const bool external = !c.external.empty();
    for (auto& a : c.activities) {
      if (external) {
        auto it = c.external.find(a.correlation_id);
        if (it != c.external.end() && it->second >= trace_base_ && it->second - trace_base_ < units)
          a.unit = it->second - trace_base_;
      } else if (a.name.rfind("gauge::", 0) == 0) {
        continue;  // launch order: gauge's own gate and flush are not the step's
      }
      acts.push_back(std::move(a));
    }
    auto mean = [](const std::vector<double>& v) {
      double sum = 0;
      for (double x : v) sum += x;
      return v.empty() ? std::optional<double>() : std::optional<double>(sum / static_cast<double>(v.size()));
    };
    const std::size_t per_unit = graph_mode ? k : 1;
    t = summarize_trace(std::move(acts), std::max<std::uint64_t>(1, units), per_unit, mean(traced.per_step_s));
    t.tool = lib.description();
    t.dropped_records = c.dropped;
    const auto before = mean(untraced.per_step_s), after = mean(untraced_after.per_step_s);
    if (before && after) t.untraced_period_s = 0.5 * (*before + *after);
    if (t.period_s && t.untraced_period_s && *t.untraced_period_s > 0)
      t.tracing_overhead = *t.period_s / *t.untraced_period_s - 1;
    if (t.attributed_records == 0) {
      t.status = "unavailable";
      t.reason = c.activities.empty() ? "CUPTI delivered no kernel, memcpy or memset records"
                                      : "no record could be tied to a launch of the step";
      sink.add(warning_code::kernel_trace_unavailable, Severity::info, "kernel tracing ran but " + t.reason);
    }
    r.kernel_trace = std::move(t);
  }

  /// Tracing sessions in this process: each one's external ids are its own.
  static std::uint32_t& trace_sessions() {
    static std::uint32_t n = 0;
    return n;
  }

  /// The untimed setup before a step (Experiment::setup), its host time counted.
  void call_setup() {
    const double t0 = b_.now();
    try {
      b_.call_setup();
    } catch (const std::exception& e) {
      throw Error(std::string("setup: ") + e.what());
    }
    setup_time_s_ += b_.now() - t0;
    ++setup_calls_;
  }

  bool cold() const { return config_.measure.cache == CacheState::cold; }

  void choose_method(Result& r, WarningSink& sink) {
    const auto& m = config_.measure;
    r.sampling.cache = to_string(m.cache);

    if (cold() && !b_.flush_supported())
      throw ConfigError(std::string("cache = cold is not supported by the ") + b_.name() + " backend");
    if (m.gpu_timing == GpuTiming::graph) {
      if (!b_.graph_supported())
        throw ConfigError(std::string("gpu_timing = graph is not supported by the ") + b_.name() + " backend");
      if (cold()) throw ConfigError("gpu_timing = graph cannot be combined with cache = cold");
      r.sampling.method = "graph";
      gated_ = b_.gate_support() == GateSupport::available;
      return;
    }
    switch (b_.gate_support()) {
      case GateSupport::not_needed:
        r.sampling.method = "host";
        gated_ = false;
        break;
      case GateSupport::available:
        gated_ = m.gpu_timing == GpuTiming::automatic;
        r.sampling.method = gated_ ? "gated" : "ungated";
        break;
      case GateSupport::unavailable:
        gated_ = false;
        r.sampling.method = "ungated";
        if (m.gpu_timing == GpuTiming::automatic)
          sink.add(warning_code::gate_unavailable, Severity::info,
                   "the launch gate needs a translation unit compiled by nvcc; this one was not, so "
                   "short steps may include host launch latency. Include gauge from a .cu file.");
        break;
    }
  }

  /// One timed round of about `steps` steps, `k` steps per sample (a multiple of k is run).
  /// In graph mode k must equal the captured graph's size: each sample is one graph replay.
  /// Gated when the method allows; in cold mode every step gets a flush and its own event pair.
  RoundOutcome timed_round(std::size_t steps, std::size_t k, bool graph_mode) {
    RoundOutcome out;
    const auto& m = config_.measure;
    const std::size_t batches = std::max<std::size_t>(1, steps / k);
    out.steps = batches * k;
    b_.reset_markers();
    if (cold()) reset_persisting_l2();
    if (gated_) b_.gate_close(m.gate_timeout);
    const bool probe = b_.has_clock_probe();
    if (probe) b_.clock_probe_start();  // before the first event: outside every sample
    const double t0 = b_.now();
    std::vector<std::pair<std::size_t, std::size_t>> pairs;
    pairs.reserve(per_step_pairs() ? out.steps : batches);
    double first_step_enqueue = 0;
    if (per_step_pairs()) {
      for (std::size_t i = 0; i < out.steps; ++i) {
        if (cold()) b_.flush_cache();
        if (has_setup_) call_setup();
        const std::size_t a = b_.record();
        call_step();
        pairs.emplace_back(a, b_.record());
        if (i == 0) first_step_enqueue = b_.now() - t0;
      }
    } else {
      std::size_t prev = b_.record();
      for (std::size_t b = 0; b < batches; ++b) {
        if (graph_mode) {
          launch_graph();
          step_index_ += k;
          if (b == 0) first_step_enqueue = b_.now() - t0;
        } else {
          for (std::size_t i = 0; i < k; ++i) {
            call_step();
            if (b == 0 && i == 0) first_step_enqueue = b_.now() - t0;
          }
        }
        const std::size_t next = b_.record();
        pairs.emplace_back(prev, next);
        prev = next;
      }
    }
    out.enqueue_s = b_.now() - t0;
    if (probe) b_.clock_probe_stop();  // after the last event
    if (gated_) b_.gate_open();
    monitor_.observe_memory();  // while the round runs: transient allocations are still held
    b_.synchronize();
    monitor_.observe_memory();
    monitor_.round_boundary();
    if (gated_ && b_.gate_timed_out()) {
      out.timed_out = true;
      out.host_blocked_at_first_step = first_step_enqueue >= 0.9 * to_seconds(m.gate_timeout);
      return out;
    }
    if (probe) out.clock = b_.clock_probe_read();
    const double per_sample = static_cast<double>(per_step_pairs() ? 1 : k);
    out.per_step_s.reserve(pairs.size());
    for (const auto& [a, b] : pairs) out.per_step_s.push_back(b_.elapsed(a, b) / per_sample);
    return out;
  }

  void reset_persisting_l2() { b_.reset_persisting_l2(); }

  /// Handles a timed-out gated round: a host-synchronizing step falls back to ungated timing;
  /// a full launch queue halves the round.
  void on_gate_timeout(const RoundOutcome& o, std::size_t& steps_per_round, std::size_t k,
                       Result& r, WarningSink& sink) {
    ++r.sampling.discarded_rounds;
    const double timeout = to_seconds(config_.measure.gate_timeout);
    if (o.host_blocked_at_first_step || steps_per_round <= k) {
      gated_ = false;
      r.sampling.method = "ungated";
      sink.add(warning_code::gate_timeout, Severity::warning,
               fmt::format("the launch gate timed out after {}: the step seems to synchronize the "
                               "host, so gauge fell back to ungated timing, which includes host launch "
                               "latency for short steps. Likely causes: cudaMalloc/cudaFree (or a library "
                               "that allocates) inside the step, cudaDeviceSynchronize or "
                               "cudaStreamSynchronize, a blocking cudaMemcpy to or from pageable host "
                               "memory, or reading a device value on the host. Move allocations out of the "
                               "step (or use cudaMallocAsync on the step's stream), or declare it with "
                               ".synchronizes_host() to skip the gate (and this {} wait).",
                               human_time(timeout), human_time(timeout)));
    } else {
      steps_per_round = std::max(k, (steps_per_round / 2) / k * k);
      sink.add(warning_code::gate_timeout, Severity::info,
               fmt::format("the launch gate timed out after {} while {} steps were enqueued (the "
                               "launch queue was full); rounds were shortened to {} steps and the "
                               "timed-out round discarded.",
                               human_time(timeout), o.steps, steps_per_round));
    }
  }

  // ---- warm-up --------------------------------------------------------------------------------

  void warm_up(Result& r, WarningSink& sink) {
    const auto& w = config_.warmup;
    auto& rec = r.warmup;
    const double t0 = b_.now();
    double first_host_s = 0;
    // The very first step alone, ungated: module loading, JIT and autotuning land here.
    {
      b_.reset_markers();
      if (cold()) b_.flush_cache();
      const double host_start = b_.now();
      if (has_setup_) call_setup();
      const std::size_t a = b_.record();
      call_step();
      const std::size_t b = b_.record();
      b_.synchronize();
      first_host_s = b_.now() - host_start;  // with the setup: what each step of a round will cost
      rec.first_step_time_s = b_.elapsed(a, b);
      rec.curve.push_back(WarmupRound{0.0, 1, *rec.first_step_time_s});
      rec.steps = 1;
    }
    // Rounds are sized by the step's time, or with a setup by the host's round trip of setup and
    // step (a 200 ms setup before a 1 µs step must not make a first round of 512 steps).
    double estimate = std::max({*rec.first_step_time_s, has_setup_ ? first_host_s : 0.0, 1e-9});
    double gpu_estimate = estimate;
    std::size_t max_round = config_.measure.max_steps_per_round;
    while (true) {
      const double elapsed = b_.now() - t0;
      const SteadyVerdict v = steady_state(rec.curve, w);
      rec.relative_drift = v.relative_drift;
      rec.reason = v.reason;
      // Every stream of the pool is warmed (one round each at least) before measuring.
      const bool minimums = rec.steps >= w.min_steps && elapsed >= to_seconds(w.min_time) && rec.curve.size() > streams_;
      const bool steady = minimums && v.steady;
      const bool capped = rec.steps >= w.max_steps || elapsed >= to_seconds(w.max_time);
      // Collective mode: every rank ends warm-up at the same round (all steady, or one capped).
      const bool end = spec_.coordinator ? spec_.coordinator->end_warmup(steady, capped) : steady || capped;
      if (!end) {
        // go on warming up
      } else if (steady) {
        rec.converged = true;
        break;
      } else if (!capped) {
        // Another rank reached its warm-up cap before this one was steady.
        rec.converged = false;
        rec.reason = fmt::format("ended with the other ranks (one reached its warm-up cap) after {} steps and {}: ",
                                 rec.steps, human_time(elapsed)) + v.reason;
        break;
      } else {
        rec.converged = false;
        rec.reason = fmt::format("capped after {} steps and {}: ", rec.steps,
                                     human_time(elapsed)) + v.reason;
        break;
      }
      // A round spans at least timer_resolution_ticks ticks of the clock, so that a coarse clock
      // (a host clock of 1 ms) still gives a per-step time within 1 %.
      const double round_time = std::max(to_seconds(w.round_time), thresholds::timer_resolution_ticks * b_.timer_resolution());
      std::size_t n = floor_ratio(round_time, estimate);
      n = std::clamp<std::size_t>(n, 1, max_round);
      n = std::min(n, w.max_steps - rec.steps);
      if (spec_.coordinator) n = spec_.coordinator->round_steps(n);
      const double start = b_.now() - t0;
      b_.select_stream(warmup_rounds_++ % streams_);
      RoundOutcome o = timed_round(n, n, false);
      const double host_per_step = (b_.now() - t0 - start) / static_cast<double>(o.steps);
      rec.steps += o.steps;
      if (o.timed_out) {
        on_gate_timeout(o, max_round, 1, r, sink);
        continue;
      }
      double per_step = 0;
      for (double s : o.per_step_s) per_step += s;
      per_step /= static_cast<double>(o.per_step_s.size());
      rec.curve.push_back(WarmupRound{start, o.steps, per_step});
      if (per_step > 0) gpu_estimate = per_step;
      // Rounds are sized by the GPU time per step, unless the host's round trip per step is more
      // than twice that (launch-bound, or work the events do not see): then by the round trip,
      // so such a step cannot make rounds far longer than round_time.
      estimate = host_per_step > 2 * gpu_estimate ? host_per_step : gpu_estimate;
    }
    rec.time_s = b_.now() - t0;
    estimate_ = gpu_estimate;
    sizing_estimate_ = estimate;
    max_round_ = max_round;
    if (!rec.converged) {
      sink.add(warning_code::warmup_not_converged, Severity::warning,
               "warm-up did not reach steady state: " + rec.reason +
                   ". The first samples may still be drifting; raise warmup.max_time, or check the "
                   "clocks and throttling in the environment.");
    }
  }

  void capture_graph(std::size_t k) {
    b_.capture(k);
    step_index_ += k;
    graph_k_ = k;
  }

  // ---- steps per sample ------------------------------------------------------------------------

  /// Chooses k (steps per event pair). The extra device cost of an event between steps is
  /// measured: r steps with an event after each versus the same r steps with one event pair.
  void choose_steps_per_sample(Result& r, WarningSink& sink) {
    const auto& m = config_.measure;
    auto& s = r.sampling;
    const double T = estimate_;
    b_.select_stream(0);
    if (per_step_pairs()) {
      s.steps_per_sample = 1;
      s.steps_per_sample_reason =
          cold() ? "cold cache: the flush must sit between steps, so every step has its own event pair"
                 : "an untimed setup runs before every step, outside its event pair, so every step has its own event pair";
      return;
    }
    if (m.steps_per_sample > 0) {
      // A sample must fit in measure.max_time (one sample of 1e8 steps, or SIZE_MAX, would run
      // far past it, or never end): at most max_time / (time per step) steps.
      const double per_step = std::max({T, sizing_estimate_, 1e-12});  // device or host round trip
      const std::size_t k_cap = std::max<std::size_t>(1, floor_ratio(to_seconds(m.max_time), per_step));
      s.steps_per_sample = std::min(m.steps_per_sample, k_cap);
      s.steps_per_sample_reason =
          s.steps_per_sample == m.steps_per_sample
              ? std::string("set by measure.steps_per_sample")
              : fmt::format("measure.steps_per_sample = {} capped to {} so that one sample ({} per step) fits in "
                            "measure.max_time {}",
                            m.steps_per_sample, s.steps_per_sample, human_time(per_step),
                            human_time(to_seconds(m.max_time)));
    } else if (b_.gate_support() == GateSupport::not_needed) {
      // Host clock: markers cost no device time, but the clock ticks. Enough steps per sample
      // that one tick is at most 1 / host_ticks_per_sample of a sample, capped by max_sample_time.
      const double tick = r.sampling.timer_resolution_s;
      const double step = std::max(T, 1e-12);
      const auto k_tick = tick > 0 ? static_cast<std::size_t>(std::ceil(thresholds::host_ticks_per_sample * tick / step)) : 1;
      std::size_t k_cap = floor_ratio(to_seconds(m.max_sample_time), step);
      k_cap = std::clamp<std::size_t>(k_cap, 1, max_round_);
      const std::size_t k = std::clamp<std::size_t>(k_tick, 1, k_cap);
      s.steps_per_sample = k;
      s.steps_per_sample_reason = fmt::format(
          "host clock: one tick ({}) is {:.3g} % of a step ({}); k = {} makes it {:.3g} % of a sample{}", human_time(tick),
          100 * tick / step, human_time(step), k, 100 * tick / (step * static_cast<double>(k)),
          k < k_tick ? fmt::format(", capped by max_sample_time {}", human_time(to_seconds(m.max_sample_time))) : "");
    } else {
      // Calibrate the event cost with one round of r steps each way, r sized like a warm-up round
      // (at least 8 steps, at most half the round limit).
      std::size_t rr = floor_ratio(to_seconds(config_.warmup.round_time), std::max(sizing_estimate_, 1e-12));
      rr = std::clamp<std::size_t>(rr, 8, std::max<std::size_t>(8, max_round_ / 2));
      if (spec_.coordinator) rr = spec_.coordinator->round_steps(rr);
      double per_event = 0;
      double per_batch = 0;
      bool ok = true;
      {
        auto with = timed_round(rr, 1, false);
        auto without = timed_round(rr, rr, false);
        s.calibration_steps += with.steps + without.steps;
        if (with.timed_out || without.timed_out) {
          ok = false;
          if (with.timed_out) on_gate_timeout(with, max_round_, 1, r, sink);
          else on_gate_timeout(without, max_round_, 1, r, sink);
        }
        if (ok) {
          for (double x : with.per_step_s) per_event += x;
          per_event /= static_cast<double>(with.per_step_s.size());
          per_batch = without.per_step_s.empty() ? 0 : without.per_step_s[0];
        }
      }
      const double cost = ok ? std::max(0.0, per_event - per_batch) : 0.0;
      if (ok) s.event_overhead_s = cost;
      const double budget = to_seconds(m.event_overhead_budget);
      std::size_t k_event = static_cast<std::size_t>(std::ceil(cost / budget * (1 - 1e-12)));
      std::size_t k_cap = floor_ratio(to_seconds(m.max_sample_time), std::max(T, 1e-12));
      k_cap = std::clamp<std::size_t>(k_cap, 1, max_round_);
      std::size_t k = std::clamp<std::size_t>(k_event, 1, k_cap);
      s.steps_per_sample = k;
      s.steps_per_sample_reason = fmt::format(
          "an event between steps costs {} of device time (measured over {} steps); k = {} keeps it "
          "at {} per step (budget {}{})",
          human_time(cost), rr, k, human_time(cost / static_cast<double>(k)),
          human_time(budget),
          k < k_event ? fmt::format(", capped by max_sample_time {}",
                                        human_time(to_seconds(m.max_sample_time)))
                      : "");
      if (k < k_event && cost / static_cast<double>(k) > 0.001 * T) {
        sink.add(warning_code::event_overhead, Severity::info,
                 fmt::format("each sample includes ~{} of event overhead per step ({:.2g} % of the step): "
                                 "k = {} steps per event pair was capped by measure.max_sample_time.",
                                 human_time(cost / static_cast<double>(k)),
                                 100 * cost / static_cast<double>(k) / T, k));
      }
    }
    if (spec_.coordinator) {
      const std::size_t k_here = s.steps_per_sample;
      s.steps_per_sample = spec_.coordinator->steps_per_sample(k_here);
      if (s.steps_per_sample != k_here)
        s.steps_per_sample_reason += fmt::format("; k = {} agreed across ranks (the maximum; this rank chose {})",
                                                 s.steps_per_sample, k_here);
    }
    if (m.gpu_timing == GpuTiming::graph) prepare_graph(r);
  }

  /// Captures k steps; replays the graph a few times untimed so its upload is not measured.
  void prepare_graph(Result& r) {
    auto& s = r.sampling;
    capture_graph(s.steps_per_sample);
    for (int i = 0; i < 3; ++i) {
      b_.launch_graph();
      step_index_ += graph_k_;
      s.calibration_steps += graph_k_;
    }
    b_.synchronize();
  }

  // ---- measurement ------------------------------------------------------------------------------


  void start_measuring(Result& r) {
    const auto& m = config_.measure;
    MeasureState& st = measuring_.emplace();
    const std::size_t k = st.k = r.sampling.steps_per_sample;
    st.graph_mode = m.gpu_timing == GpuTiming::graph;
    const double T = std::max(estimate_, 1e-12);
    // With a pool, rounds are shorter (at most min_time / (streams × (1 + wall_round_fraction)),
    // and at least a quarter of round_time) so that every stream, with its wall round, is
    // measured within about min_time.
    double round_time = to_seconds(m.round_time);
    if (streams_ > 1)
      round_time = std::min(round_time, std::max(to_seconds(m.min_time) / (static_cast<double>(streams_) * (1 + m.wall_round_fraction)),
                                                 round_time / 4));
    std::size_t steps_per_round = floor_ratio(round_time, std::max(T, sizing_estimate_));
    steps_per_round = std::clamp<std::size_t>(steps_per_round, k, std::max(k, max_round_));
    st.steps_per_round = std::max(k, steps_per_round / k * k);
    st.t0 = b_.now();
    st.by_stream.resize(streams_);
    st.counts.assign(streams_, 0);
    st.medians.assign(streams_, 0.0);
    check_level("stopping rule", m.confidence_level);
  }

  void measure(Result& r, WarningSink& sink) {
    const auto& m = config_.measure;
    auto& s = r.sampling;
    if (!measuring_) start_measuring(r);
    auto& [k, graph_mode, steps_per_round, t0, order, by_stream, counts, medians, hint_n, hint_l] = *measuring_;
    auto& samples = r.gpu_samples_s;
    while (true) {
      const double elapsed = b_.now() - t0;
      r.stopping.measure_time_s = elapsed;
      // Stopping rule.
      // The interval is the samples' own (distribution-free) one, widened by the between-stream
      // effect once every stream of the pool has been measured (gauge/core/stream_effect.hpp).
      std::optional<double> width, within_width;
      if (order.size() < samples.size()) {
        const std::size_t first = order.size();
        order.add(std::vector<double>(samples.begin() + static_cast<std::ptrdiff_t>(first), samples.end()));
        const std::size_t stream = s.round_stream.empty() ? 0 : s.round_stream.back();
        by_stream[stream].add(std::vector<double>(samples.begin() + static_cast<std::ptrdiff_t>(first), samples.end()));
        counts[stream] = by_stream[stream].size();
        medians[stream] = by_stream[stream].percentile(50);
      }
      const bool all_streams = s.rounds >= streams_;
      if (samples.size() >= 1) {
        const auto ci = order.median_ci(m.confidence_level, hint_n, hint_l);
        if (ci) hint_n = order.size(), hint_l = ci->lower_rank;
        const double med = order.percentile(50);
        if (ci && med > 0) {
          within_width = width = (ci->high - ci->low) / med;
          if (streams_ > 1) {
            const auto wide = all_streams ? widen_for_streams(medians, counts, med, *ci, m.confidence_level) : std::nullopt;
            width = wide ? std::optional<double>((wide->high - wide->low) / med) : std::nullopt;
          }
        }
      }
      r.stopping.relative_ci_width = width;
      r.stopping.target_relative_ci_width = m.target_relative_ci_width;
      r.stopping.target_met = width && *width <= m.target_relative_ci_width;
      if (spec_.on_round && !samples.empty()) spec_.on_round(order.percentile(50), samples.size());
      const bool minimums = samples.size() >= m.min_samples && elapsed >= to_seconds(m.min_time) &&
                            s.wall_rounds >= 1 && all_streams;
      std::string stop;  // why this rank would stop now ("": go on), in the order of the rules
      if (minimums && r.stopping.target_met) stop = "noise_target_met";
      // Every stream was measured twice, and the samples' own interval is narrow enough, or each
      // stream's own median is known to the target (when the streams form two groups, the pooled
      // median can sit in the gap between them, and its own interval spans the gap): what keeps
      // the interval wider is the stream effect, which more samples do not narrow.
      if (stop.empty() && minimums && streams_ > 1 && s.rounds >= 2 * streams_) {
        bool known = within_width && *within_width <= m.target_relative_ci_width;
        if (!known) {
          known = true;
          for (std::size_t i = 0; i < streams_ && known; ++i) {
            const auto ci = by_stream[i].size() ? by_stream[i].median_ci(m.confidence_level) : std::nullopt;
            known = ci && medians[i] > 0 && (ci->high - ci->low) / medians[i] <= m.target_relative_ci_width;
          }
        }
        if (known) stop = "stream_effect";
      }
      if (stop.empty() && samples.size() >= m.max_samples) stop = "max_samples";
      if (stop.empty() && elapsed >= to_seconds(m.max_time) && s.wall_rounds >= 1 && !samples.empty()) stop = "max_time";
      if (spec_.coordinator) stop = spec_.coordinator->stop(stop);
      // Rounds driven from outside (measure_round): the caller decides when to stop (end()); on
      // its own this side stops only at max_samples.
      if (driven_) stop = !stop_request_.empty() ? stop_request_ : stop == "max_samples" ? stop : std::string();
      if (!stop.empty()) {
        r.stopping.reason = stop;
        break;
      }
      // A gated round for GPU time.
      std::size_t steps = steps_per_round;
      const std::size_t samples_left = m.max_samples - samples.size();
      const std::size_t per_sample = per_step_pairs() ? 1 : k;
      const std::size_t room = samples_left > std::numeric_limits<std::size_t>::max() / per_sample
                                   ? std::numeric_limits<std::size_t>::max()
                                   : samples_left * per_sample;  // no overflow for huge max_samples
      steps = std::max(k, std::min(steps, room) / k * k);
      if (spec_.coordinator) steps = spec_.coordinator->round_steps(steps);
      const double round_start = b_.now() - t_begin_;
      const std::size_t stream = measure_rounds_++ % streams_;
      b_.select_stream(stream);
      NvtxRange range(label_ + " round " + std::to_string(measure_rounds_) + " stream " + std::to_string(stream));
      auto o = timed_round(steps, k, graph_mode);
      // Collective mode: each sample becomes the slowest rank's (this rank's own are kept by the
      // coordinator); a round some rank could not time is discarded by every rank.
      const bool combined = !spec_.coordinator || spec_.coordinator->combine_round(o.per_step_s, o.timed_out);
      if (o.timed_out) {
        on_gate_timeout(o, steps_per_round, k, r, sink);
        continue;
      }
      if (!combined) {
        ++s.discarded_rounds;
        continue;
      }
      s.round_start_s.push_back(round_start);
      s.round_end_s.push_back(b_.now() - t_begin_);
      s.round_samples.push_back(o.per_step_s.size());
      s.round_stream.push_back(stream);
      r.clock.round_sm_clock_mhz.push_back(o.clock ? std::optional<double>(o.clock->sm_clock_mhz) : std::nullopt);
      if (o.clock) r.clock.sm_spread = std::max(r.clock.sm_spread.value_or(0.0), o.clock->sm_spread);
      ++s.rounds;
      s.steps += o.steps;
      for (double x : o.per_step_s) samples.push_back(x);
      // A wall-time round: pipelined steps, one synchronize at the end (the seed's first snippet).
      std::size_t n_wall = static_cast<std::size_t>(std::llround(static_cast<double>(steps) * m.wall_round_fraction));
      n_wall = std::max<std::size_t>(1, n_wall);
      if (graph_mode) n_wall = std::max<std::size_t>(1, n_wall / k);
      auto w = wall_round(n_wall, graph_mode);
      const std::size_t wall_steps = graph_mode ? n_wall * k : n_wall;
      ++s.wall_rounds;
      s.wall_steps += wall_steps;
      r.wall_samples_s.push_back(w.wall_s / static_cast<double>(wall_steps));
      facts_.wall_total_s += w.wall_s;
      facts_.wall_enqueue_s += w.enqueue_s;
      facts_.wall_event_span_s += w.event_span_s;
      facts_.wall_steps += wall_steps;
      if (driven_) return;  // one round per measure_round()
    }
    (void)sink;
  }

  WallOutcome wall_round(std::size_t n, bool graph_mode) {
    WallOutcome w;
    b_.reset_markers();
    b_.synchronize();
    const double t0 = b_.now();
    const std::size_t a = b_.record();
    for (std::size_t i = 0; i < n; ++i) {
      if (cold()) b_.flush_cache();
      if (has_setup_) call_setup();
      if (graph_mode) {
        b_.launch_graph();
        step_index_ += graph_k_;
      } else {
        call_step();
      }
    }
    const std::size_t b = b_.record();
    w.enqueue_s = b_.now() - t0;
    b_.synchronize();
    w.wall_s = b_.now() - t0;
    w.event_span_s = b_.elapsed(a, b);
    w.steps = n;
    return w;
  }

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
  std::size_t warmup_rounds_ = 0;    // warm-up rounds run (they rotate over the pool)
  std::size_t measure_rounds_ = 0;   // measuring rounds started (they rotate over the pool)
  cupti::Tracer* tracer_ = nullptr;  // set during the traced round only
  std::uint64_t trace_base_ = 0;     // this session's external correlation ids start here
  std::uint64_t trace_units_ = 0;    // launches of the step in the traced round so far
};

}  // namespace gauge::detail
