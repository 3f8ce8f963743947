#pragma once
/// \file gauge/protocol/diagnosis.hpp
/// The diagnosis rules: one function per warning that the finished samples imply, each testable
/// alone, with its threshold named in `thresholds` below (the catalogue of every code, with its
/// meaning, is `warning_catalogue()` in gauge/core/warnings.hpp). Monitoring's own rules
/// (throttling, memory, JIT) are in gauge/protocol/monitoring.hpp; the protocol's in-run rules
/// (gate, warm-up, event overhead) where the protocol decides.
///
/// To add a rule: a code and its catalogue entry in core/warnings.hpp, a function here, its name
/// in `result_rules`, and a test.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gauge/core/peak_tables.hpp"
#include "gauge/core/peaks.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/core/warmup.hpp"
#include "gauge/core/warning_sink.hpp"
#include "gauge/core/warnings.hpp"
#include "gauge/detail/text.hpp"

namespace gauge::detail {

/// The thresholds of the diagnosis rules, with their reasons.
namespace thresholds {
/// Outliers are judged from this many samples on (fewer cannot show a tail).
inline constexpr std::size_t outliers_min_samples = 10;
/// More than this fraction of outliers (mild included) is worth saying.
inline constexpr double outliers_fraction = 0.05;
/// Drift compares the first and last thirds of the samples from this many samples on.
inline constexpr std::size_t drift_min_samples = 30;
/// A sample should span at least this many timer ticks (quantization then moves it ≤ 1 %).
inline constexpr double timer_resolution_ticks = 100;
/// The host backend takes enough steps per sample that a sample spans this many ticks of the host
/// clock (quantization then moves it <= 0.1 %), within measure.max_sample_time.
inline constexpr double host_ticks_per_sample = 1000;
/// A step on n > 1 threads whose process CPU time per step is below this multiple of its real
/// time warns `threads_not_parallel`: at least half of a second thread's time must overlap.
inline constexpr double threads_parallel_min = 1.5;
/// A step on several threads (Experiment::threads): waking the threads and waiting for them, once
/// per sample, is at most this fraction of the sample's time.
inline constexpr double thread_wake_fraction = 0.01;
/// The stream's events (or enqueuing) must see at least this fraction of the wall time...
inline constexpr double on_stream_fraction = 0.5;
/// ...after allowing this much host latency per wall round (launch and synchronize), seconds.
inline constexpr double on_stream_latency_per_round_s = 50e-6;
/// A device busy less than this fraction of the wall time is launch- or host-bound.
inline constexpr double launch_bound_busy_fraction = 0.5;
/// A throughput above this fraction of its ceiling peak (the theoretical peak at the maximum
/// clock, else the datasheet's) is more than the device can do: 1.0, since the theoretical peak
/// at the maximum clock is already above the achievable one (docs/benchmarks.md, gauge-peaks).
inline constexpr double above_peak_fraction = 1.0;
/// A step whose work happens only every Nth call: from this many samples on, samples above
/// `sparse_work_factor` x the median that number at most half of the samples and hold at least
/// `sparse_work_time_share` of the time: the median then reports the empty calls.
inline constexpr std::size_t sparse_work_min_samples = 20;
inline constexpr double sparse_work_factor = 5;
inline constexpr double sparse_work_time_share = 0.5;
/// `slow_first_step`: a first step of at least this many seconds and this many times the warmed
/// step (module loading alone costs milliseconds; autotuning and JIT, seconds).
inline constexpr double slow_first_step_s = 0.1;
inline constexpr double slow_first_step_ratio = 100;
/// `cpu_time_unresolved`: with a setup, a step time after warm-up below this many CPU-clock
/// readings' cost (gauge::process_cpu_read_cost) gets no process CPU time.
inline constexpr double cpu_time_resolution_reads = 10;
}  // namespace thresholds

/// What the protocol observed that the Result does not hold (wall rounds, build mode).
struct RunFacts {
  double wall_total_s = 0;       ///< host time of all wall rounds
  double wall_enqueue_s = 0;     ///< host time spent enqueuing in them
  double wall_event_span_s = 0;  ///< device time between the events around them
  std::size_t wall_steps = 0;    ///< steps in them
  bool debug_build = false;      ///< the step's translation unit was built without optimization/NDEBUG
  bool setup = false;            ///< an untimed setup ran before every step (wall rounds include it)
  /// Host timing: the process's involuntary context switches while measuring (preemptions; see
  /// detail::involuntary_context_switches), where they could be read.
  std::optional<long> preemptions;
};

/// `debug_build`: the measured code is not what ships.
inline void rule_debug_build(const Result&, const RunFacts& f, WarningSink& sink) {
  if (!f.debug_build) return;
  sink.add(warning_code::debug_build, Severity::warning,
           "this code was compiled without optimization or without NDEBUG: the step that was "
           "measured is not the one that ships. Build with -O2/-O3 -DNDEBUG (CMake: Release).");
}

/// `noise_target_not_met`: the median's confidence interval stayed wider than the target.
inline void rule_noise_target(const Result& r, const RunFacts&, WarningSink& sink) {
  const auto& m = r.config.measure;
  if (r.status != Status::ok || r.stopping.target_met) return;
  if (r.stopping.reason == "stream_effect") {
    sink.add(warning_code::noise_target_not_met, Severity::warning,
             fmt::format("the {:.0f} % confidence interval of the median is {} wide, the target was {:.3g} %: the "
                         "samples' own interval met it, but the medians of the {} streams differ (stream_effect), "
                         "which more samples do not narrow. More streams (measure.streams) or a wider target do.",
                         100 * m.confidence_level,
                         r.stopping.relative_ci_width ? fmt::format("{:.3g} %", 100 * *r.stopping.relative_ci_width) : "undefined",
                         100 * m.target_relative_ci_width, r.streams.count));
    return;
  }
  sink.add(warning_code::noise_target_not_met, Severity::warning,
           fmt::format("the {:.0f} % confidence interval of the median is {} wide after {} samples "
                   "in {}; the target was {:.3g} %. Raise measure.max_time or reduce noise.",
                   100 * m.confidence_level,
                   r.stopping.relative_ci_width ? fmt::format("{:.3g} %", 100 * *r.stopping.relative_ci_width) : "undefined",
                   r.gpu_samples_s.size(), human_time(r.stopping.measure_time_s), 100 * m.target_relative_ci_width));
}

/// `stream_effect`: the medians of the pool's streams spread wider than the samples' own interval
/// of the median: the step's time depends on the stream it runs on (the device's launch gap per
/// hardware queue), so the interval was widened to cover it (gauge/core/stream_effect.hpp).
inline void rule_stream_effect(const Result& r, const RunFacts&, WarningSink& sink) {
  const auto& st = r.streams;
  if (!st.relative_spread || !st.within_ci_low_s || !st.within_ci_high_s || !r.gpu_time.p50 || !(*r.gpu_time.p50 > 0)) return;
  const double within = (*st.within_ci_high_s - *st.within_ci_low_s) / *r.gpu_time.p50;
  if (!(*st.relative_spread > within) || !(*st.relative_spread > 1e-9)) return;  // not rounding
  double lo = 0, hi = 0;
  bool first = true;
  for (const auto& m : st.medians_s) {
    if (!m) continue;
    lo = first ? *m : std::min(lo, *m);
    hi = first ? *m : std::max(hi, *m);
    first = false;
  }
  sink.add(warning_code::stream_effect, Severity::info,
           fmt::format("the medians of the {} streams span {} to {} ({:.3g} %), wider than the samples' own {:.0f} % "
                       "interval of the median ({:.3g} %): the time depends on the stream (hardware queue) the step "
                       "runs on. The interval was widened to {} (the stream as a random effect); a loop on one stream "
                       "sees one of these values.",
                       st.count, human_time(lo), human_time(hi), 100 * *st.relative_spread, 100 * r.gpu_time.confidence_level,
                       100 * within, r.gpu_time.median_ci_relative_width
                                         ? fmt::format("{:.3g} %", 100 * *r.gpu_time.median_ci_relative_width)
                                         : std::string("undefined")));
}

/// `outliers`: Tukey's fences found severe outliers, or more than `thresholds::outliers_fraction`.
inline void rule_outliers(const Result& r, const RunFacts&, WarningSink& sink) {
  const auto& out = r.gpu_time.outliers;
  if (r.gpu_time.n < thresholds::outliers_min_samples) return;
  const double frac = static_cast<double>(out.total()) / static_cast<double>(r.gpu_time.n);
  if (out.high_severe + out.low_severe == 0 && frac <= thresholds::outliers_fraction) return;
  sink.add(warning_code::outliers, Severity::info,
           fmt::format("{} of {} {} samples are outliers by Tukey's fences ({} low, {} high; "
                   "{} severe): something else ran at times. The median and percentiles are "
                   "robust to them; the mean is not.",
                   out.total(), r.gpu_time.n, r.time_label, out.low_mild + out.low_severe,
                   out.high_mild + out.high_severe, out.low_severe + out.high_severe));
}

/// `drift_during_measurement`: the first and last thirds of the samples (in time order) disagree
/// by more than warmup.drift_tolerance (or twice the CI width). A step that kept changing after
/// warm-up (power capping after ~0.1 s of a heavy kernel, thermal throttling, a cache still
/// filling) makes them differ.
inline void rule_drift(const Result& r, const RunFacts&, WarningSink& sink) {
  const auto& x = r.gpu_samples_s;
  if (x.size() < thresholds::drift_min_samples) return;
  const std::size_t third = x.size() / 3;
  std::vector<double> head(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(third));
  std::vector<double> tail(x.end() - static_cast<std::ptrdiff_t>(third), x.end());
  const double mh = median_of(head), mt = median_of(tail);
  const double drift = mh > 0 ? (mt - mh) / mh : 0;
  const double limit = std::max(r.config.warmup.drift_tolerance, 2 * r.stopping.relative_ci_width.value_or(0));
  if (!(std::fabs(drift) > limit)) return;
  sink.add(warning_code::drift_during_measurement, Severity::warning,
           fmt::format("the median of the last third of the samples ({}) differs by {:+.3g} % from the first "
                   "third ({}), beyond {:.3g} %: the step was still changing while measured (clocks, "
                   "power capping, caches, or other work on the machine). Raise warmup.min_time, look at "
                   "telemetry, or measure on a quieter machine.",
                   human_time(mt), 100 * drift, human_time(mh), 100 * limit));
}

/// `below_timer_resolution`: one sample spans fewer than `thresholds::timer_resolution_ticks`.
inline void rule_timer_resolution(const Result& r, const RunFacts&, WarningSink& sink) {
  if (!r.gpu_time.p50) return;
  const double interval = *r.gpu_time.p50 * static_cast<double>(r.sampling.steps_per_sample);
  const double res = r.sampling.timer_resolution_s;
  if (!(res > 0) || interval >= thresholds::timer_resolution_ticks * res) return;
  sink.add(warning_code::below_timer_resolution, Severity::warning,
           fmt::format("one sample spans {}, less than {:.0f} times the timer's resolution ({}): "
                   "quantization alone moves a sample by up to {:.2g} %.",
                   human_time(interval), thresholds::timer_resolution_ticks, human_time(res),
                   100 * res / std::max(interval, 1e-15)));
}

/// `work_not_every_step`: a minority of the samples, far above the median, holds most of the time
/// (thresholds::sparse_work_*): the step's work may happen only every Nth call (a lazy flush,
/// gradient accumulation, a cache refilled every N calls), and the median per step then reports
/// the calls that did no work. The message gives the mean per step (the time per step the work
/// costs on average) and, where the slow samples recur at a regular interval, that interval. Not
/// given for host timing whose CPU time per sample shows the slow samples were time off the CPU,
/// nor, without it, where the slowest as many samples as the process's preemptions while
/// measuring (RunFacts::preemptions) leave fewer than 2 holding that share of the time.
inline void rule_work_not_every_step(const Result& r, const RunFacts& f, WarningSink& sink) {
  const auto& x = r.gpu_samples_s;
  if (x.size() < thresholds::sparse_work_min_samples || !r.gpu_time.p50 || !(*r.gpu_time.p50 > 0)) return;
  const double median = *r.gpu_time.p50, cut = thresholds::sparse_work_factor * median;
  double total = 0, heavy = 0;
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i < x.size(); ++i) {
    total += x[i];
    if (x[i] > cut) heavy += x[i], at.push_back(i);
  }
  if (at.size() < 2 || 2 * at.size() > x.size() || !(total > 0) || heavy < thresholds::sparse_work_time_share * total)
    return;
  const double mean = total / static_cast<double>(x.size());
  // Host timing has the process's CPU time too: where the slow samples' extra real time is not
  // matched by CPU time (less than a quarter of it, scaled down for a step that is itself mostly
  // off the CPU, never up for a multi-threaded one), the process was off the CPU (preempted, or
  // waiting), not doing skipped work: the outlier and noise rules report that, and this rule says
  // nothing. Host timing only (other backends' CPU time, were there any, says nothing of the device).
  // Only CPU time read per sample tells (read once per round, it averages the slow samples in).
  const bool host = r.sampling.method == "host", cpu_per_sample = r.cpu_samples_s.size() == x.size();
  if (host && cpu_per_sample && r.cpu_time.n >= 3 && r.cpu_time.mean && r.cpu_time.p50 && *r.cpu_time.p50 > 0) {
    const double parallelism = std::min(1.0, *r.cpu_time.p50 / median);
    const double extra_real = mean - median, extra_cpu = *r.cpu_time.mean - *r.cpu_time.p50;
    if (extra_cpu >= 0 && extra_cpu < 0.25 * parallelism * extra_real) return;
  } else if (host && f.preemptions && *f.preemptions >= 0) {
    // Otherwise a sample a preemption made slow holds at least one of the process's involuntary
    // context switches while measuring: the slowest that many may be time off the CPU. Without
    // them, 2 or more slow samples must still hold the share of the time, or nothing is said.
    std::vector<double> slow;
    for (std::size_t i : at) slow.push_back(x[i]);
    std::sort(slow.begin(), slow.end(), std::greater<>());
    const std::size_t off = std::min(slow.size(), static_cast<std::size_t>(*f.preemptions));
    double off_time = 0;
    for (std::size_t i = 0; i < off; ++i) off_time += slow[i];
    if (slow.size() - off < 2 || heavy - off_time < thresholds::sparse_work_time_share * (total - off_time)) return;
  }
  // The interval between slow samples: the most common gap, if it is at least half of the gaps
  // (a wall round between two gated rounds shifts the phase: the gap across it differs).
  std::vector<std::size_t> gaps;
  for (std::size_t i = 1; i < at.size(); ++i) gaps.push_back(at[i] - at[i - 1]);
  std::sort(gaps.begin(), gaps.end());
  std::size_t best = 0, best_count = 0;
  for (std::size_t i = 0; i < gaps.size();) {
    std::size_t j = i;
    while (j < gaps.size() && gaps[j] == gaps[i]) ++j;
    if (j - i > best_count) best = gaps[i], best_count = j - i;
    i = j;
  }
  const std::size_t k = std::max<std::size_t>(1, r.sampling.steps_per_sample);
  const std::string period =
      best_count * 2 >= gaps.size()
          ? fmt::format(" They recur every {} samples ({} steps): the work may happen every {}th call.", best, best * k, best * k)
          : std::string();
  std::string rate;
  if (r.work.bytes) rate = fmt::format(" From the mean: {:.4g} GB/s.", *r.work.bytes / mean * 1e-9);
  else if (r.work.flop) rate = fmt::format(" From the mean: {:.4g} TFLOP/s.", *r.work.flop / mean * 1e-12);
  sink.add(warning_code::work_not_every_step, Severity::warning,
           fmt::format("{} of {} samples ({:.1f} %) are above {:g} x the median ({}) and hold {:.0f} % of the time: the "
                       "median reports the calls that did little or no work. The mean per step is {} ({:.1f} x the "
                       "median).{}{} Make every call do the work, or take steps_per_sample >= the period.",
                       at.size(), x.size(), 100.0 * static_cast<double>(at.size()) / static_cast<double>(x.size()),
                       thresholds::sparse_work_factor, human_time(median), 100 * heavy / total, human_time(mean),
                       mean / median, period, rate));
}

/// Whether the device was busy with work the stream's events did not see: neither the events
/// nor enqueuing account for the wall time of the wall rounds.
inline bool work_not_on_stream_detected(const Result& r, const RunFacts& f) {
  if (f.wall_steps == 0 || !(f.wall_total_s > 0)) return false;
  const double allowance = thresholds::on_stream_latency_per_round_s * static_cast<double>(r.sampling.wall_rounds);
  const double hidden = f.wall_total_s - std::max(f.wall_event_span_s, f.wall_enqueue_s);
  return f.wall_event_span_s < thresholds::on_stream_fraction * f.wall_total_s &&
         f.wall_enqueue_s < thresholds::on_stream_fraction * f.wall_total_s && hidden > allowance;
}

/// `work_not_on_stream`: see work_not_on_stream_detected().
inline void rule_work_not_on_stream(const Result& r, const RunFacts& f, WarningSink& sink) {
  if (f.setup || !work_not_on_stream_detected(r, f)) return;  // wall rounds include the setup
  sink.add(warning_code::work_not_on_stream, Severity::error,
           fmt::format("the events on the experiment's stream saw {} of the {} of wall time "
                   "({:.3g} %), while enqueuing took {}: the device was busy with work the "
                   "stream's events did not see. Launch the step's work on the stream "
                   "passed to it; its {} is not trustworthy.",
                   human_time(f.wall_event_span_s), human_time(f.wall_total_s),
                   100 * f.wall_event_span_s / f.wall_total_s, human_time(f.wall_enqueue_s), r.time_label));
}

/// `launch_bound`: the device is busy less than `thresholds::launch_bound_busy_fraction` of the
/// wall time (and not because the work is on another stream).
inline void rule_launch_bound(const Result& r, const RunFacts& f, WarningSink& sink) {
  if (f.setup || work_not_on_stream_detected(r, f) || !r.gpu_busy_fraction || r.sampling.method == "host") return;
  if (*r.gpu_busy_fraction >= thresholds::launch_bound_busy_fraction) return;
  sink.add(warning_code::launch_bound, Severity::warning,
           fmt::format("the GPU is busy only {:.3g} % of the wall time: a step takes {} on the GPU "
                   "but {} of wall time, so the host (launch latency, host work) sets the pace. "
                   "Wall-time throughput is the number that holds end to end.",
                   100 * *r.gpu_busy_fraction, human_time(*r.gpu_time.p50), human_time(*r.wall_time.p50)));
}

/// `above_memory_peak`: the GPU bytes/s exceed the memory ceiling (gauge/core/peaks.hpp
/// ceiling_peak) by more than `thresholds::above_peak_fraction`: the working set came from a
/// cache. Names the declared bytes per step against the L2 size, and the fix.
inline void rule_above_memory_peak(const Result& r, const RunFacts&, WarningSink& sink) {
  const auto& rate = r.gpu_throughput.bytes_per_second;
  const peaks::Peak* peak = detail::ceiling_peak(r.peaks.peaks, "memory_bandwidth", "");
  if (!rate || !peak || !(peak->value > 0) || !(*rate > thresholds::above_peak_fraction * peak->value)) return;
  std::string cache;
  const auto l2 = r.peaks.l2_cache_bytes;
  const double ws = r.work.bytes.value_or(0);
  if (l2 && ws > 0)
    cache = fmt::format("the step declares {:.4g} MiB per step against an L2 of {:.4g} MiB{}", ws / 1048576.0,
                        static_cast<double>(*l2) / 1048576.0,
                        ws <= 2.0 * static_cast<double>(*l2) ? ", so its working set can stay in L2: this is L2 bandwidth" : "");
  else if (l2)
    cache = fmt::format("the L2 holds {:.4g} MiB", static_cast<double>(*l2) / 1048576.0);
  const bool cold = r.sampling.cache == "cold";
  sink.add(warning_code::above_memory_peak, Severity::warning,
           fmt::format("{} reads {:.4g} GB/s, {:.3g} % of the memory peak {:.4g} GB/s ({}: {}){}{}. {}", r.time_label,
                       *rate / 1e9, 100 * *rate / peak->value, peak->value / 1e9, peak->basis, peak->source,
                       cache.empty() ? "" : "; ", cache,
                       cold ? "The cache was cold: check the bytes counted per step (counted twice?)."
                            : "Measure memory bandwidth with a cold cache (Experiment::cold_cache()), or a working set "
                              "of several times the L2."));
}

/// `above_compute_peak`: the GPU FLOP/s exceed the dense peak of the declared type (the `dtype`
/// dimension) by more than `thresholds::above_peak_fraction`.
inline void rule_above_compute_peak(const Result& r, const RunFacts&, WarningSink& sink) {
  const auto& rate = r.gpu_throughput.flop_per_second;
  if (!rate || !r.peaks.dtype) return;
  const peaks::Peak* peak = detail::ceiling_peak(r.peaks.peaks, "compute", *r.peaks.dtype);
  if (!peak || !(peak->value > 0) || !(*rate > thresholds::above_peak_fraction * peak->value)) return;
  sink.add(warning_code::above_compute_peak, Severity::warning,
           fmt::format("{} gives {:.4g} TFLOP/s, {:.3g} % of the dense {} peak {:.4g} TFLOP/s ({}: {}): more than the "
                       "device can do. Likely: the FLOP per step are counted twice (2·M·N·K already counts the FMA as "
                       "two), the declared dtype is not the one computed (a lower-precision path: fp8 or tf32), or the "
                       "kernel exploits sparsity (the sparse peak is twice the dense one).",
                       r.time_label, *rate / 1e12, 100 * *rate / peak->value, *r.peaks.dtype, peak->value / 1e12,
                       peak->basis, peak->source));
}

/// `gpm_bandwidth_mismatch`: the declared DRAM bytes per second over GPM's interval and GPM's DRAM
/// bandwidth differ by more than gpm_mismatch_factor (the record's `cross_check`, gauge/core/gpm.hpp).
inline void rule_gpm_bandwidth(const Result& r, const RunFacts&, WarningSink& sink) {
  const records::GpmRecord& g = r.telemetry.gpm;
  const bool above = g.cross_check == "declared_above_gpm", below = g.cross_check == "declared_below_gpm";
  if ((!above && !below) || !g.declared_bytes_per_s || !g.gpm_bytes_per_s || !g.dram_bw_util_pct) return;
  const bool cold = r.sampling.cache == "cold";
  // Declared below DRAM's bytes is a note: a compute-bound kernel re-reads its tiles from DRAM.
  sink.add(warning_code::gpm_bandwidth_mismatch, above ? Severity::warning : Severity::info,
           fmt::format("over the {:.3g} s of the measured rounds the step's declared bytes give {:.4g} GB/s{}, but NVML GPM "
                       "measured {:.4g} GB/s of DRAM traffic (DRAM_BW_UTIL {:.3g} % of {:.4g} GB/s, {}): {}x {}. {}",
                       g.interval_s.value_or(0), *g.declared_bytes_per_s / 1e9,
                       g.flush_bytes_per_step ? " (the L2 flush's bytes included)" : "", *g.gpm_bytes_per_s / 1e9,
                       *g.dram_bw_util_pct, g.memory_peak_bytes_per_s.value_or(0) / 1e9, g.memory_peak_basis,
                       g.declared_to_gpm_ratio ? fmt::format("{:.3g}", *g.declared_to_gpm_ratio) : std::string("more than 2"),
                       above ? "more than DRAM delivered" : "less than DRAM delivered",
                       above ? (cold ? "With a cold cache the bytes per step are likely counted twice, or the step "
                                       "re-reads data that L2 holds within the step."
                                     : "A hot cache (L2) served much of the working set, so the bytes per second are not "
                                       "DRAM bandwidth; measure with a cold cache (Experiment::cold_cache()) or count the "
                                       "bytes that reach DRAM.")
                             : "The step moves more bytes than it declares: normal for a compute-bound kernel that "
                               "reads its tiles from DRAM more than once; otherwise a buffer not counted, writes counted "
                               "once instead of read + write, or other work on the GPU in the interval (GPM counts the "
                               "whole device)."));
}

/// `unknown_silenced_code`: a silenced code (Config::silenced_warnings, which run() completes with
/// GAUGE_SILENCE's codes) that is not in `warning_catalogue`, so it silences nothing.
inline void rule_unknown_silenced(const Result& r, const RunFacts&, WarningSink& sink) {
  std::string unknown;
  for (const auto& code : r.config.silenced_warnings) {
    bool known = false;
    for (const auto& w : warning_catalogue) known = known || code == w.code;
    if (!known) unknown += (unknown.empty() ? "'" : ", '") + code + "'";
  }
  if (unknown.empty()) return;
  sink.add(warning_code::unknown_silenced_code, Severity::warning,
           fmt::format("silenced {} {}, which gauge never emits: a typo silences nothing. The codes are in "
                       "gauge::warning_catalogue and docs/method.md's table of warnings.",
                       unknown.find(',') == std::string::npos ? "code" : "codes", unknown));
}

/// A diagnosis rule over a finished result.
using ResultRule = void (*)(const Result&, const RunFacts&, WarningSink&);

/// The rules diagnose_result() applies, in order.
inline const std::vector<ResultRule>& result_rules() {
  static const std::vector<ResultRule> rules = {rule_noise_target,     rule_stream_effect,      rule_outliers,    rule_drift,
                                                rule_timer_resolution, rule_work_not_on_stream, rule_launch_bound,
                                                rule_above_memory_peak, rule_above_compute_peak, rule_gpm_bandwidth,
                                                rule_work_not_every_step};
  return rules;
}

/// Applies every rule to a finished result (its statistics computed). A failed result without
/// samples gets only the build-mode and silenced-code rules.
inline void diagnose_result(const Result& r, const RunFacts& f, WarningSink& sink) {
  rule_debug_build(r, f, sink);
  rule_unknown_silenced(r, f, sink);
  if (r.status != Status::ok && r.gpu_samples_s.empty()) return;
  for (ResultRule rule : result_rules()) rule(r, f, sink);
}

}  // namespace gauge::detail
