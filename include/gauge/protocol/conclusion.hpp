#pragma once
/// \file gauge/protocol/conclusion.hpp
/// The end of a Protocol run: `finish_measuring` (kernel tracing, verification, the last agreement
/// of ranks) and `conclude` (statistics, the stream effect, throughput, peaks, GPM and the
/// diagnosis), with the records it fills. Part of gauge/protocol/protocol.hpp.

#include <algorithm>
#include <cstddef>
#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/gpm_assessment.hpp"
#include "gauge/core/peak_assessment.hpp"
#include "gauge/detail/fmt.hpp"

#include "gauge/core/config.hpp"
#include "gauge/core/error.hpp"
#include "gauge/core/peak_fractions.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/core/stream_effect.hpp"
#include "gauge/core/thinning.hpp"
#include "gauge/core/warmup.hpp"
#include "gauge/core/warning_sink.hpp"
#include "gauge/protocol/diagnosis.hpp"
#include "gauge/protocol/phases.hpp"
#include "gauge/protocol/seam.hpp"

namespace gauge::detail {

/// After the last measuring round: kernel tracing, verification, the last agreement of ranks.
inline void Protocol::finish_measuring(Result& r) {
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
inline Result& Protocol::conclude(Result& r) {
  WarningSink& sink = *sink_;
  monitor_.stop(r);
  r.sampling.setup_calls = setup_calls_;
  if (setup_calls_ > 0) r.sampling.setup_host_time_s = setup_time_s_ / static_cast<double>(setup_calls_);
  facts_.setup = has_setup_;
  if (host_timing_ && measuring_ && switches_at_measure_ >= 0) {
    const long now = detail::involuntary_context_switches();
    if (now >= switches_at_measure_) facts_.preemptions = now - switches_at_measure_;
  }
  if (prepared_) b_.finish();
  r.total_time_s = b_.now() - t_begin_;
  r.gpu_time = stats::summarize(r.gpu_samples_s, config_.measure.confidence_level, r.sampling.resolution_per_step());
  record_streams(r);
  record_clock(r);
  r.wall_time = stats::summarize(r.wall_samples_s, config_.measure.confidence_level);
  // With a setup, CPU time would be read around every step: below 10 readings' cost the step is
  // not resolved (the readings' jitter is of their cost's order), so start_measuring read none;
  // say why.
  if (host_timing_ && measuring_ && !cpu_rounds_) {
    const double read_cost = detail::process_cpu_read_cost();
    sink.add(warning_code::cpu_time_unresolved, Severity::info,
             fmt::format("process CPU time is not reported: with a setup gauge reads the CPU clock around every "
                         "step, a reading costs {} of CPU here, and the step ({} after warm-up) is below {:g} x "
                         "that. Without a setup the clock is read once per round.",
                         human_time(read_cost), human_time(estimate_), thresholds::cpu_time_resolution_reads));
    if (r.cpu_counters.status == "measured") {  // read around every setup as well: not resolved either
      r.cpu_counters.status = "unavailable";
      r.cpu_counters.reason = "the step is too short to resolve with the counters read around every setup "
                              "(cpu_time_unresolved)";
    }
  }
  if (r.cpu_counters.status == "measured") {
    if (cycles_samples_.empty()) {
      r.cpu_counters.status = "unavailable";
      r.cpu_counters.reason = counters_.error().empty() ? "no measured round was counted" : counters_.error();
    } else {
      r.cpu_counters.cycles_per_step = stats::summarize(cycles_samples_, config_.measure.confidence_level);
      r.cpu_counters.instructions_per_step = stats::summarize(instructions_samples_, config_.measure.confidence_level);
      if (counted_cycles_ > 0) r.cpu_counters.instructions_per_cycle = counted_instructions_ / counted_cycles_;
      r.cpu_counters.min_running_fraction = min_running_fraction_;
    }
  }
  if (!r.cpu_samples_s.empty()) r.cpu_time = stats::summarize(r.cpu_samples_s, config_.measure.confidence_level);
  // A step on n threads whose process CPU time per step is not clearly above its real time: the
  // threads took turns instead of running at once (fewer free cores than threads, a lock).
  if (b_.threads() > 1 && r.cpu_time.p50 && r.gpu_time.p50 && *r.gpu_time.p50 > 0) {
    const double parallel = *r.cpu_time.p50 / *r.gpu_time.p50;
    if (parallel < thresholds::threads_parallel_min)
      sink.add(warning_code::threads_not_parallel, Severity::warning,
               fmt::format("the step ran on {} threads, but its process CPU time per step ({}) is only {:.2f} x its "
                           "real time ({}): the threads took turns rather than running at once (fewer free cores "
                           "than threads, or a lock in the step), so the time per step is not that of {} calls at once",
                           b_.threads(), human_time(*r.cpu_time.p50), parallel, human_time(*r.gpu_time.p50),
                           b_.threads()));
  }
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
  facts_.debug_build = b_.debug_build();
  // The diagnosis and the telemetry's sample indices see every sample; the report then keeps at
  // most max_samples_in_report of them, whole rounds spread over the run (gauge/core/thinning.hpp).
  diagnose_result(r, facts_, sink);
  monitor_.summarize(r, sink);
  const std::size_t taken = r.gpu_samples_s.size();
  if (detail::thin_samples(r, config_.max_samples_in_report))
    sink.add(warning_code::samples_subsampled, Severity::info,
             fmt::format("the report stores {} of the {} GPU-time samples (max_samples_in_report = {}): {}; the summary "
                         "and the diagnosis are of all {}, and gauge-compare decides from the summaries",
                         r.gpu_samples_s.size(), taken, config_.max_samples_in_report,
                         r.sampling.round_samples.empty() ? "evenly spaced samples"
                                                          : fmt::format("{} whole rounds spread over the run",
                                                                        r.sampling.round_samples.size()),
                         taken));
  r.warnings = sink.warnings();
  whole_.reset();
  return r;
}


/// The result's peaks (gauge/core/peak_fractions.hpp): the device's attributes from the
/// backend, gauge-peaks' cache, the run's clocks. Call after the throughputs and the clock.
inline void Protocol::record_peaks(Result& r) const {
  detail::PeakInputs in;
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
  r.peaks = detail::assess_peaks(r.work, r.dimensions, r.gpu_throughput, r.wall_throughput, in);
}

/// How the backend flushes L2 for a cold cache (`sampling.cache_flush`), read once the flush was
/// prepared (warm-up ran it) and before the first measured round.
inline void Protocol::record_cache_flush(Result& r) {
  if (auto f = b_.cache_flush_record()) {
    r.sampling.cache_flush = std::move(f);
    return;
  }
  records::CacheFlushRecord f;
  f.method = "unknown";
  f.description = std::string("the ") + b_.name() + " backend does not describe its flush";
  r.sampling.cache_flush = f;
}

/// The result's `telemetry.gpm` (gauge/core/gpm.hpp): GPM's reading over the measured rounds and
/// its cross-check with the declared bytes (plus the flush's, with a cold cache) against the
/// memory peak of the fractions. Call after record_peaks.
inline void Protocol::record_gpm(Result& r) const {
  const auto& w = monitor_.gpm_window();
  if (!w.reading) {
    r.telemetry.gpm = detail::gpm_unavailable(w.reason);
    return;
  }
  detail::GpmInputs in;
  in.interval_s = w.end_s - w.start_s;
  in.steps = w.end_steps - w.start_steps;
  in.bytes_per_step = r.work.bytes;
  if (r.sampling.cache_flush && r.sampling.cache_flush->bytes)
    in.flush_bytes_per_step = static_cast<double>(*r.sampling.cache_flush->bytes);
  if (const peaks::Peak* p = detail::ceiling_peak(r.peaks.peaks, "memory_bandwidth", "")) {
    in.memory_peak_bytes_per_s = p->value;
    in.memory_peak_basis = p->basis;
  }
  r.telemetry.gpm = detail::assess_gpm(*w.reading, in);
  // An interleaved A/B run alternates both sides' rounds inside each side's interval.
  if (driven_ && r.telemetry.gpm.cross_check.rfind("not_checked", 0) != 0)
    r.telemetry.gpm.cross_check = "not_checked: an interleaved run (the interval holds the other side's rounds too)";
}

/// The per-stream medians of the GPU-time samples, and the interval of the median widened for
/// the stream effect (gauge/core/stream_effect.hpp). Call after summarize, before the samples
/// are cut to max_samples_in_report.
inline void Protocol::record_streams(Result& r) const {
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
  const auto w = stats::widen_for_streams(medians, st.samples, *g.p50, *g.median_ci, g.confidence_level);
  if (!w) return;
  st.cluster_variance_s2 = w->cluster_variance;
  st.excess_variance_s2 = w->excess_variance;
  st.t_quantile = w->t_quantile;
  st.widened = w->widened();
  g.median_ci->low = w->low;
  g.median_ci->high = w->high;
  if (*g.p50 != 0) g.median_ci_relative_width = detail::finite_or_nullopt((w->high - w->low) / *g.p50);
}

}  // namespace gauge::detail
