#pragma once
/// \file gauge/report/compare.hpp
/// Comparison of two reports (seed: "report enough of the distribution that a reader can judge
/// whether a change is real").
///
/// Experiments are matched by name and dimensions. For each pair, on the stored per-step samples
/// (GPU time by default):
/// - the ratio of medians new / base with a percentile-bootstrap confidence interval
///   (`bootstrap_median_ratio`, Efron & Tibshirani 1993), seeded so that a comparison is
///   reproducible;
/// - a two-sided Mann–Whitney U test (`mann_whitney_u`, Mann & Whitney 1947);
/// - a verdict, `faster` / `slower` / `same` / `inconclusive`, against a noise threshold
///   (the rule is stated at `Verdict`).
/// Differences of environment that can change the numbers without a change of code (another
/// GPU, driver, clocks, measurement method) are listed, and mark the comparison as not
/// comparable. Text, Markdown and JSON renderings are provided for `gauge-compare`.

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <type_traits>
#include <variant>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/dimensions.hpp"
#include "gauge/core/environment.hpp"
#include "gauge/core/error.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/core/stream_effect.hpp"
#include "gauge/core/timer_summary.hpp"
#include "gauge/core/two_sample.hpp"
#include "gauge/report/console.hpp"
#include "gauge/report/escape.hpp"
#include "gauge/report/read.hpp"

namespace gauge {

/// Which per-step samples a comparison uses.
enum class Metric {
  gpu_time,   ///< `samples.gpu_time_per_step_s`: GPU time from CUDA events (host clock on the host backend)
  wall_time,  ///< `samples.wall_time_per_step_s`: wall time per step, one sample per wall round
};

/// Text name of a Metric ("gpu_time", "wall_time").
inline const char* to_string(Metric m) { return m == Metric::gpu_time ? "gpu_time" : "wall_time"; }

/// The outcome of comparing one experiment of two reports. The rule looks at the whole
/// distribution of per-step times, not only at its middle (c: the confidence level, alpha = 1 − c,
/// t: the noise threshold; ratios are new / base, below 1 is faster):
/// 1. *Statistics.* The ratios of the median, the mean, p90 (when both sides have >= 100
///    samples) and p99 (>= 1000 samples: at least 10 values beyond the percentile) are estimated
///    with percentile-bootstrap intervals from one joint bootstrap (`bootstrap_ratios`). Each
///    interval is at level 1 − alpha / k for the k statistics that decide (Bonferroni), so that
///    the family of intervals holds at level c. GPU-time intervals are then widened by each
///    side's stream effect (`Result::streams`, gauge/core/stream_effect.hpp): the bootstrap sees
///    one draw of the streams' effect, a rerun draws another.
/// 2. *Modes.* Each side is checked for two modes (`find_modes`; their medians must be more than
///    two ticks of the timer apart). When either side is bimodal, its median jumps between the
///    modes as their weights move a little, so the median does not decide; the modes of both
///    sides are reported and compared instead (`bimodal`).
/// 3. *Verdict.* `slower` when the interval of some deciding statistic lies entirely above
///    1 + t (a slow minority shows in the mean and p90/p99 while the median stays put);
///    `faster` when some interval lies entirely below 1 − t and none above; `same` when every
///    median's interval lies within [1 − t, 1 + t] and the estimates of the mean, p90 and p99 do
///    too (their intervals decide `slower` and `faster`, but one descheduled sample widens them
///    beyond any threshold: a tail is never shown equal, only not shown different) *and* the
///    distributions do not differ
///    materially: the two-sided Mann–Whitney U test (a distribution test) does not reject at
///    alpha, or no decile p10…p90 of new / base lies outside 1 ± t (a real shift smaller than
///    t stays `same`), or both sides have the same two modes (each mode's median within 1 ± t:
///    only their weights moved, which the mean and tails price); otherwise `inconclusive`, with
///    the reason.
/// 4. *Without samples.* When a side stored no samples but its summary has the median's
///    distribution-free interval, the median's ratio interval is [lo_new / hi_base, hi_new /
///    lo_base] (coverage >= 1 − 2 (1 − c_summary), conservative); the summary's mean, p90 and p99
///    only veto `same` (no interval without samples). `from_summary` says so.
/// A side that failed, or that has fewer finite samples than a distribution-free interval of
/// its median at level c needs (n <= 5 at 95 %) and no summary, is `inconclusive`.
enum class Verdict { faster, slower, same, inconclusive };

/// Text name of a Verdict ("faster", "slower", "same", "inconclusive").
inline const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::faster: return "faster";
    case Verdict::slower: return "slower";
    case Verdict::same: return "same";
    case Verdict::inconclusive: return "inconclusive";
  }
  return "?";
}

/// Settings of a comparison. Defaults are written into every comparison's output.
struct CompareOptions {
  /// Noise threshold t on the ratio of medians, as a fraction (0.02 = 2 %): changes inside
  /// 1 ± t count as "same". 2 %: twice the run-to-run spread of a steady GEMM's median on an
  /// H200 and four times gauge's default stopping width (0.5 %).
  double threshold = 0.02;
  /// Confidence level c of the interval; the U test's significance level is 1 − c.
  double confidence_level = 0.95;
  /// Bootstrap resamples B. Efron & Tibshirani (1993, ch. 19) advise B of 1000 or more for a
  /// percentile interval; 2000 keeps the Monte Carlo error of a 2.5 % bound near 0.35 %.
  std::size_t resamples = 2000;
  /// Seed of the bootstrap's generator (std::mt19937_64): the same inputs and seed give the same
  /// interval on every platform.
  std::uint64_t seed = 20261130;
  /// Which samples to compare.
  Metric metric = Metric::gpu_time;
  /// Dimensions left out when matching experiments (e.g. {"dtype"} to compare bf16 against fp32);
  /// their differences are listed.
  std::set<std::string> ignored_dimensions;
  /// A relative difference of the mean SM clock during measurement (telemetry) above this
  /// invalidates a comparison (0.05 = 5 %).
  double clock_tolerance = 0.05;
};

/// Throws ConfigError naming the first invalid option and its value.
inline void validate(const CompareOptions& o) {
  if (!(o.threshold > 0 && o.threshold < 1))
    throw ConfigError("compare: threshold must be a fraction in (0, 1) (0.02 = 2 %), got " + detail::format_number(o.threshold));
  if (!(o.confidence_level > 0 && o.confidence_level < 1))
    throw ConfigError("compare: confidence_level must be in (0, 1), got " + detail::format_number(o.confidence_level));
  if (o.resamples < 100)
    throw ConfigError("compare: resamples must be >= 100 (the percentile interval needs its tails), got " +
                      std::to_string(o.resamples));
  if (!(o.clock_tolerance > 0) || !std::isfinite(o.clock_tolerance))
    throw ConfigError("compare: clock_tolerance must be > 0, got " + detail::format_number(o.clock_tolerance));
}

/// One difference between two environments, or between the settings of two matched experiments.
struct EnvironmentDifference {
  std::string what;       ///< e.g. "CUDA driver", "GPU 0 name", "gemm: backend"
  std::string base;       ///< the base's value, as text ("-" when absent)
  std::string candidate;  ///< the new report's value
  /// True when this difference alone can change the numbers without a change of code (another
  /// GPU, driver, runtime, clocks, measurement method, environment variable that changes results):
  /// the comparison then measures the environment as much as the code.
  bool invalidates = false;
};

/// The comparison of one experiment present in both reports.
struct ExperimentComparison {
  std::string name;                  ///< experiment name
  std::string label;                 ///< name, plus the dimensions that tell same-named experiments apart
  Dimensions dimensions;             ///< the base's dimensions
  /// Ignored dimensions whose values differ, as "key: base → new" (see CompareOptions::ignored_dimensions).
  std::vector<std::string> dimension_differences;
  Metric metric = Metric::gpu_time;  ///< which samples were compared
  std::size_t base_n = 0;            ///< finite samples of the base
  std::size_t candidate_n = 0;       ///< finite samples of the new report
  std::optional<double> base_median_s;       ///< median of the base's samples (or summary), seconds per step
  std::optional<double> candidate_median_s;  ///< median of the new samples (or summary), seconds per step
  /// The median's ratio new / base with its interval (the entry of `statistics` for the median).
  std::optional<RatioInterval> ratio;
  /// Every statistic's ratio with its interval, in the order median, mean, p90, p99 (those the
  /// sample sizes allow); from summaries: the median with an interval, the others point estimates
  /// only (low == high == estimate, `resamples` 0).
  std::vector<StatisticRatio> statistics;
  /// The statistics that decided the verdict (the median is left out when a side is bimodal).
  std::vector<Statistic> deciding;
  std::optional<MannWhitney> mann_whitney;   ///< when both sides have samples
  /// The largest |decile ratio − 1| over p10…p90 (the shift of the distribution's body), with
  /// the decile's percentile; when both sides have samples.
  std::optional<std::pair<int, double>> largest_decile_shift;
  bool bimodal = false;                      ///< a side has two modes (`base_modes`, `candidate_modes`)
  std::optional<Modes> base_modes;           ///< two-group split of the base's samples
  std::optional<Modes> candidate_modes;      ///< two-group split of the new samples
  bool from_summary = false;                 ///< a side had no samples: compared from the summaries
  /// The stream effect's relative variance (base + new: each side's `streams.excess_variance_s2`
  /// / median²) by which every interval was widened on the log scale (Student t with the fewer
  /// streams − 1 degrees of freedom; gauge/core/stream_effect.hpp); null when neither side has one.
  std::optional<double> stream_variance;
  /// t · sqrt(stream_variance): the half-width (relative, log scale) the stream effect alone adds
  /// to every interval; `same` needs it within the threshold.
  std::optional<double> stream_half_width;
  Verdict verdict = Verdict::inconclusive;   ///< see Verdict for the rule
  std::string reason;                        ///< the verdict in words, with the numbers
  bool base_failed = false;                  ///< the base experiment failed
  bool candidate_failed = false;             ///< the new experiment failed
  std::vector<EnvironmentDifference> differences;  ///< device, backend, method, work, clocks

  /// Slower, or the new experiment failed where the base did not.
  bool regression() const { return verdict == Verdict::slower || (candidate_failed && !base_failed); }
  /// No difference that invalidates the comparison.
  bool comparable() const {
    return std::none_of(differences.begin(), differences.end(), [](const auto& d) { return d.invalidates; });
  }
};

/// The comparison of two reports.
struct Comparison {
  CompareOptions options;            ///< the settings used
  std::string base_source;           ///< the base report's path
  std::string candidate_source;      ///< the new report's path
  std::vector<EnvironmentDifference> environment_differences;  ///< report-wide differences
  std::vector<ExperimentComparison> experiments;               ///< matched experiments, in the base's order
  std::vector<std::string> only_in_base;       ///< labels of experiments with no match in the new report
  std::vector<std::string> only_in_candidate;  ///< labels of experiments with no match in the base
  /// Hints about unmatched experiments, e.g. "gemm: the new report has one of that name whose
  /// dtype differs (bf16 → fp32); --ignore-dimension dtype compares them".
  std::vector<std::string> notes;

  /// True when some matched experiment is a regression (see ExperimentComparison::regression), or
  /// an experiment of the base is missing from the new report (a benchmark that crashed or was
  /// removed must not pass a gate).
  bool any_regression() const {
    return !only_in_base.empty() ||
           std::any_of(experiments.begin(), experiments.end(), [](const auto& e) { return e.regression(); });
  }
  /// True when no difference (report-wide or per experiment) invalidates the comparison.
  bool comparable() const {
    return std::none_of(environment_differences.begin(), environment_differences.end(),
                        [](const auto& d) { return d.invalidates; }) &&
           std::all_of(experiments.begin(), experiments.end(), [](const auto& e) { return e.comparable(); });
  }
  /// True when some matched experiment is `inconclusive`, or no experiment was compared at all.
  bool any_inconclusive() const {
    return experiments.empty() ||
           std::any_of(experiments.begin(), experiments.end(), [](const auto& e) { return e.verdict == Verdict::inconclusive; });
  }
};

/// The outcome of a comparison used as a gate (e.g. in CI), in order of precedence.
enum class GateOutcome {
  pass,            ///< every experiment `same` or `faster`, comparable            (gauge-compare exit 0)
  regression,      ///< some experiment slower, failed, or missing from the new one (exit 1)
  not_comparable,  ///< a difference of environment or method invalidates it       (exit 3)
  inconclusive,    ///< some experiment inconclusive, or none compared             (exit 4)
};

/// Text name of a GateOutcome ("pass", "regression", "not_comparable", "inconclusive").
inline const char* to_string(GateOutcome g) {
  switch (g) {
    case GateOutcome::pass: return "pass";
    case GateOutcome::regression: return "regression";
    case GateOutcome::not_comparable: return "not_comparable";
    case GateOutcome::inconclusive: return "inconclusive";
  }
  return "?";
}

/// The gate's outcome: `regression` first (a regression fails whatever else holds), then
/// `not_comparable` unless `allow_not_comparable`, then `inconclusive` unless
/// `allow_inconclusive`, else `pass`. Neither "cannot compare" nor "cannot tell" passes a gate by
/// default: a gate that passes without evidence can wave any regression through.
inline GateOutcome gate(const Comparison& c, bool allow_not_comparable = false, bool allow_inconclusive = false) {
  if (c.any_regression()) return GateOutcome::regression;
  if (!allow_not_comparable && !c.comparable()) return GateOutcome::not_comparable;
  if (!allow_inconclusive && c.any_inconclusive()) return GateOutcome::inconclusive;
  return GateOutcome::pass;
}

namespace detail::compare {

/// Type-7 median of `v` (reordered in place), n >= 1.
inline double median_in_place(std::vector<double>& v) {
  const std::size_t n = v.size();
  const std::size_t mid = (n - 1) / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double a = v[mid];
  if (n % 2 == 1) return a;
  const double b = *std::min_element(v.begin() + static_cast<std::ptrdiff_t>(mid + 1), v.end());
  return lerp(a, b, 0.5);
}

/// The finite values of `x`.
inline std::vector<double> finite(const std::vector<double>& x) {
  std::vector<double> out;
  out.reserve(x.size());
  for (double v : x)
    if (std::isfinite(v)) out.push_back(v);
  return out;
}

/// Smallest n whose distribution-free CI of the median reaches `level`: 1 − 2^(1−n) >= level.
inline std::size_t min_samples_for_ci(double level) {
  std::size_t n = 2;
  while (median_ci_coverage(1, n) < level) ++n;
  return n;
}

/// "0.1 %"-style percentage with a sign, of a fraction.
inline std::string signed_percent(double fraction) { return fmt::format("{:+.2f} %", 100 * fraction); }

/// A p-value for reading: 4 significant digits, or "< 1e-300".
inline std::string format_p(double p) {
  if (p < 1e-300) return "< 1e-300";
  return fmt::format("{:.3g}", p);
}

}  // namespace detail::compare

namespace detail::compare {

/// "K=8192, dtype=bf16" for the given keys of `dims` (all keys when `keys` is empty).
inline std::string dimensions_text(const Dimensions& dims, const std::set<std::string>& keys = {}) {
  std::string out;
  for (const auto& [k, v] : dims) {
    if (!keys.empty() && !keys.count(k)) continue;
    out += (out.empty() ? "" : ", ") + k + "=" + gauge::to_string(v);
  }
  return out;
}

/// The dimensions used to match experiments: all but the ignored ones.
inline Dimensions matching_key(const Dimensions& dims, const std::set<std::string>& ignored) {
  Dimensions key;
  for (const auto& [k, v] : dims)
    if (!ignored.count(k)) key.emplace(k, v);
  return key;
}

/// "13.0" from 13000 (a CUDA version number), "-" when absent.
inline std::string cuda_version_text(const std::optional<int>& v) {
  return v ? fmt::format("{}.{}", *v / 1000, (*v % 1000) / 10) : std::string("-");
}

/// The optional value as text, "-" when absent.
template <class T>
std::string text_of(const std::optional<T>& v) {
  if (!v) return "-";
  if constexpr (std::is_same_v<T, std::string>) return *v;
  else if constexpr (std::is_floating_point_v<T>) return fmt::format("{:g}", *v);
  else return std::to_string(*v);
}

/// Mean SM clock of the experiment during measurement, MHz, from its telemetry when it has one:
/// `telemetry.sm_clock_mhz.mean`, else the median of the readings of `telemetry.series`.
inline std::optional<double> measured_sm_clock_mhz(const TelemetryRecord& telemetry) {
  if (telemetry.sm_clock_mhz.mean && std::isfinite(*telemetry.sm_clock_mhz.mean)) return telemetry.sm_clock_mhz.mean;
  std::vector<double> v;
  for (const auto& x : telemetry.series)
    if (x.sm_clock_mhz && std::isfinite(*x.sm_clock_mhz)) v.push_back(*x.sm_clock_mhz);
  if (v.empty()) return std::nullopt;
  return median_in_place(v);
}

/// Adds a difference when the texts differ.
inline void differ(std::vector<EnvironmentDifference>& out, std::string what, const std::string& a,
                   const std::string& b, bool invalidates) {
  if (a != b) out.push_back({std::move(what), a, b, invalidates});
}

/// Differences between the settings of two matched experiments (and their telemetry).
inline std::vector<EnvironmentDifference> result_differences(const Result& a, const Result& b, double clock_tolerance) {
  std::vector<EnvironmentDifference> d;
  differ(d, "backend", a.backend, b.backend, true);
  differ(d, "device", a.device.name, b.device.name, true);
  if (a.device.name == b.device.name && a.device.uuid && b.device.uuid)
    differ(d, "device UUID (another board of the same model)", *a.device.uuid, *b.device.uuid, false);
  differ(d, "cache", a.sampling.cache, b.sampling.cache, true);
  differ(d, "sampling method", a.sampling.method, b.sampling.method, true);
  differ(d, "steps per sample (k)", std::to_string(a.sampling.steps_per_sample), std::to_string(b.sampling.steps_per_sample), false);
  differ(d, "work: FLOP per step", text_of(a.work.flop), text_of(b.work.flop), false);
  differ(d, "work: bytes per step", text_of(a.work.bytes), text_of(b.work.bytes), false);
  const bool a_unlocked = a.has_warning(warning_code::clocks_not_locked);
  const bool b_unlocked = b.has_warning(warning_code::clocks_not_locked);
  differ(d, "clocks", a_unlocked ? "not locked" : "locked or unknown", b_unlocked ? "not locked" : "locked or unknown", true);
  const auto ca = measured_sm_clock_mhz(a.telemetry), cb = measured_sm_clock_mhz(b.telemetry);
  if (ca && cb && *ca > 0 && std::fabs(*cb / *ca - 1) > clock_tolerance)
    d.push_back({fmt::format("mean SM clock while measuring (differs by more than {:g} %)", 100 * clock_tolerance),
                 fmt::format("{:.0f} MHz", *ca), fmt::format("{:.0f} MHz", *cb), true});
  std::string only_b;
  for (const auto& w : b.warnings)
    if (w.severity != Severity::info && !a.has_warning(w.code)) only_b += (only_b.empty() ? "" : ", ") + w.code;
  if (!only_b.empty()) d.push_back({"warnings only in the new report", "-", only_b, false});
  return d;
}

/// Label of an experiment for lists: "name [dims]".
inline std::string full_label(const Result& r) {
  const std::string dims = dimensions_text(r.dimensions);
  return dims.empty() ? r.name : r.name + " [" + dims + "]";
}

}  // namespace detail::compare

/// Differences between two environments that matter to a comparison. Invalidating: CUDA driver
/// and runtime versions, the NVML driver version, each GPU's model, compute capability, SM
/// count, maximum SM and memory clocks, ECC mode and clock locking (NVML), and the environment
/// variables recorded because they change results (CUDA_LAUNCH_BLOCKING, NVIDIA_TF32_OVERRIDE …).
/// Informational: GPU count, another board of the same model (UUID), host CPU model and
/// governor, compiler, gauge version.
/// NVML's driver version and clock locking are compared where both reports have them (schema
/// 1.1 and later).
///
/// \param base, candidate the environments.
inline std::vector<EnvironmentDifference> environment_differences(const Environment& base, const Environment& candidate) {
  using namespace detail::compare;
  std::vector<EnvironmentDifference> d;
  differ(d, "CUDA driver (highest CUDA version it supports)", cuda_version_text(base.cuda.driver_version),
         cuda_version_text(candidate.cuda.driver_version), true);
  differ(d, "CUDA runtime", cuda_version_text(base.cuda.runtime_version), cuda_version_text(candidate.cuda.runtime_version), true);
  differ(d, "NVIDIA driver", text_of(base.nvml.driver_version), text_of(candidate.nvml.driver_version), true);
  differ(d, "GPU count", std::to_string(base.cuda.devices.size()), std::to_string(candidate.cuda.devices.size()), false);
  const std::size_t common = std::min(base.cuda.devices.size(), candidate.cuda.devices.size());
  for (std::size_t i = 0; i < common; ++i) {
    const auto& a = base.cuda.devices[i];
    const auto& b = candidate.cuda.devices[i];
    const std::string g = "GPU " + std::to_string(i) + " ";
    differ(d, g + "model", a.name, b.name, true);
    differ(d, g + "compute capability", fmt::format("{}.{}", a.compute_capability_major, a.compute_capability_minor),
           fmt::format("{}.{}", b.compute_capability_major, b.compute_capability_minor), true);
    differ(d, g + "SMs", std::to_string(a.multiprocessors), std::to_string(b.multiprocessors), true);
    differ(d, g + "maximum SM clock (MHz)", text_of(a.sm_clock_max_mhz), text_of(b.sm_clock_max_mhz), true);
    differ(d, g + "maximum memory clock (MHz)", text_of(a.memory_clock_max_mhz), text_of(b.memory_clock_max_mhz), true);
    differ(d, g + "ECC", a.ecc_enabled ? "on" : "off", b.ecc_enabled ? "on" : "off", true);
    if (a.name == b.name && a.uuid && b.uuid) differ(d, g + "UUID (another board of the same model)", *a.uuid, *b.uuid, false);
    if (a.nvml && b.nvml && a.nvml->clocks_locked && b.nvml->clocks_locked)
      differ(d, g + "clocks locked", *a.nvml->clocks_locked ? "true" : "false", *b.nvml->clocks_locked ? "true" : "false",
             true);
  }
  std::map<std::string, std::optional<std::string>> va(base.environment_variables.begin(), base.environment_variables.end());
  std::map<std::string, std::optional<std::string>> vb(candidate.environment_variables.begin(), candidate.environment_variables.end());
  for (const auto& [name, value] : va) {
    const auto it = vb.find(name);
    if (it != vb.end()) differ(d, "environment variable " + name, text_of(value), text_of(it->second), true);
  }
  differ(d, "host CPU", text_of(base.host.cpu.model_name), text_of(candidate.host.cpu.model_name), false);
  differ(d, "CPU governor", text_of(base.host.cpu.governor), text_of(candidate.host.cpu.governor), false);
  differ(d, "compiler", base.compiler.id + " " + base.compiler.version, candidate.compiler.id + " " + candidate.compiler.version, false);
  differ(d, "optimized build", base.compiler.optimized ? "yes" : "no", candidate.compiler.optimized ? "yes" : "no", false);
  differ(d, "gauge version", base.gauge_version, candidate.gauge_version, false);
  return d;
}

namespace detail::compare {

/// Type-7 median of a copy of `v` (n >= 1).
inline double sorted_median(std::vector<double> v) { return median_in_place(v); }

/// "median +30.00 % [+29.1, +30.9]"-style text of a ratio.
inline std::string statistic_text(const StatisticRatio& s) {
  if (s.interval.resamples == 0) return fmt::format("{} {:.4f}", to_string(s.statistic), s.interval.estimate);
  return fmt::format("{} {:.4f} [{:.4f}, {:.4f}]", to_string(s.statistic), s.interval.estimate, s.interval.low,
                     s.interval.high);
}

/// "1.000 ms (52 %) and 1.250 ms (48 %)": the two modes of a split.
inline std::string modes_text(const Modes& m) {
  return fmt::format("{} ({:.0f} %) and {} ({:.0f} %)", format_time(m.lower.median), 100 * m.lower.weight,
                     format_time(m.upper.median), 100 * m.upper.weight);
}

/// Verdict from both sides' summaries when a side stored no samples (rule 4 at `Verdict`); false
/// when a summary lacks the median's interval.
inline bool compare_summaries(ExperimentComparison& c, const Summary& sa, const Summary& sb, const CompareOptions& o) {
  if (!sa.median_ci || !sb.median_ci || !sa.p50 || !sb.p50 || !(sa.median_ci->low > 0) || !(sb.median_ci->low > 0))
    return false;
  const double t = o.threshold;
  c.from_summary = true;
  c.base_median_s = sa.p50;
  c.candidate_median_s = sb.p50;
  StatisticRatio med;
  med.statistic = Statistic::median;
  med.interval.estimate = *sb.p50 / *sa.p50;
  med.interval.low = sb.median_ci->low / sa.median_ci->high;
  med.interval.high = sb.median_ci->high / sa.median_ci->low;
  med.interval.level = std::max(0.0, 1 - (1 - sa.median_ci->level) - (1 - sb.median_ci->level));
  c.ratio = med.interval;
  c.statistics.push_back(med);
  c.deciding = {Statistic::median};
  std::string moved;
  auto point = [&](Statistic st, const std::optional<double>& x, const std::optional<double>& y) {
    if (!x || !y || !(*x > 0)) return;
    StatisticRatio r;
    r.statistic = st;
    r.interval.estimate = r.interval.low = r.interval.high = *y / *x;
    c.statistics.push_back(r);
    if (r.interval.estimate > 1 + t || r.interval.estimate < 1 - t)
      moved += (moved.empty() ? "" : ", ") + statistic_text(r);
  };
  point(Statistic::mean, sa.mean, sb.mean);
  point(Statistic::p90, sa.p90, sb.p90);
  point(Statistic::p99, sa.p99, sb.p99);
  const auto& r = med.interval;
  const std::string head = fmt::format("from the summaries (a side stored no samples): median new/base {:.4f} [{:.4f}, {:.4f}] "
                                       "at >= {:g} %", r.estimate, r.low, r.high, 100 * r.level);
  if (r.low > 1 + t) {
    c.verdict = Verdict::slower;
    c.reason = fmt::format("{}: the whole interval is above 1 + {:g} %", head, 100 * t);
  } else if (r.high < 1 - t && moved.empty()) {
    c.verdict = Verdict::faster;
    c.reason = fmt::format("{}: the whole interval is below 1 - {:g} %", head, 100 * t);
  } else if (r.low >= 1 - t && r.high <= 1 + t && moved.empty()) {
    c.verdict = Verdict::same;
    c.reason = fmt::format("{}: within 1 ± {:g} %, and the mean, p90 and p99 moved less than that (tails not tested: "
                           "store samples to test them)", head, 100 * t);
  } else {
    c.verdict = Verdict::inconclusive;
    c.reason = moved.empty()
                   ? fmt::format("{} straddles a bound of 1 ± {:g} %; store samples for a sharper comparison", head, 100 * t)
                   : fmt::format("{}; but {} moved beyond 1 ± {:g} %, with no interval without samples: store samples "
                                 "(max_samples_in_report) to decide", head, moved, 100 * t);
  }
  return true;
}

/// A side's stream effect as a relative variance of its median (0 when none), and its streams.
inline double relative_stream_variance(const Result& r) {
  const auto& st = r.streams;
  if (!st.excess_variance_s2 || !(*st.excess_variance_s2 > 0) || !r.gpu_time.p50 || !(*r.gpu_time.p50 > 0) || st.count < 2) return 0;
  return *st.excess_variance_s2 / (*r.gpu_time.p50 * *r.gpu_time.p50);
}

/// Widens every ratio's bootstrap interval by both sides' stream effect: the bootstrap resamples
/// samples, which shares one draw of each stream's effect; a rerun draws new streams, shifting the
/// whole distribution (gauge/core/stream_effect.hpp). On the log scale each bound moves out to
/// sqrt(d² + t² (v_base + v_new)), t the Student-t quantile (1 + level)/2 with the fewer streams − 1
/// degrees of freedom among the sides that have an effect.
inline void widen_for_stream_effect(ExperimentComparison& c, const Result& base, const Result& candidate, double level) {
  const double va = relative_stream_variance(base), vb = relative_stream_variance(candidate);
  if (!(va + vb > 0)) return;
  std::size_t streams = 0;
  if (va > 0) streams = base.streams.count;
  if (vb > 0) streams = streams ? std::min(streams, candidate.streams.count) : candidate.streams.count;
  const double t = detail::student_t_quantile((1 + level) / 2, static_cast<double>(streams - 1));
  const double add = t * t * (va + vb);
  for (auto& s : c.statistics) {
    auto& i = s.interval;
    if (!(i.estimate > 0 && i.low > 0 && i.high > 0)) continue;
    const double dl = std::log(i.estimate / i.low), dh = std::log(i.high / i.estimate);
    i.low = i.estimate * std::exp(-std::sqrt(dl * dl + add));
    i.high = i.estimate * std::exp(std::sqrt(dh * dh + add));
  }
  c.stream_variance = va + vb;
  c.stream_half_width = t * std::sqrt(va + vb);
}

/// The verdict from both sides' finite, positive samples (rules 1–3 at `Verdict`).
inline void compare_samples(ExperimentComparison& c, const std::vector<double>& a, const std::vector<double>& b,
                            const Result& base, const Result& candidate, const CompareOptions& o) {
  const double t = o.threshold, alpha = 1 - o.confidence_level;
  // Modes, with two ticks of each side's timer (per step) as the least separation.
  std::vector<double> sa = a, sb = b;
  std::sort(sa.begin(), sa.end());
  std::sort(sb.begin(), sb.end());
  c.base_modes = find_modes(sa, 2 * base.sampling.resolution_per_step());
  c.candidate_modes = find_modes(sb, 2 * candidate.sampling.resolution_per_step());
  c.bimodal = c.base_modes->bimodal || c.candidate_modes->bimodal;
  // Statistics: the sample sizes decide which tails have >= 10 values beyond them.
  const std::size_t n = std::min(a.size(), b.size());
  std::vector<Statistic> stats = {Statistic::median, Statistic::mean};
  if (n >= 100) stats.push_back(Statistic::p90);
  if (n >= 1000) stats.push_back(Statistic::p99);
  for (Statistic st : stats)
    if (!(st == Statistic::median && c.bimodal)) c.deciding.push_back(st);
  const double each = 1 - alpha / static_cast<double>(c.deciding.size());
  c.statistics = bootstrap_ratios(a, b, stats, each, o.resamples, o.seed);
  if (o.metric == Metric::gpu_time) widen_for_stream_effect(c, base, candidate, each);
  c.ratio = c.statistics.front().interval;
  c.mann_whitney = mann_whitney_u(a, b);
  int worst = 10;
  double shift = 0;
  for (int d = 10; d <= 90; d += 10) {
    const double r = percentile_unchecked(sb, d) / percentile_unchecked(sa, d);
    if (std::fabs(r - 1) > std::fabs(shift)) shift = r - 1, worst = d;
  }
  c.largest_decile_shift = std::make_pair(worst, shift);

  std::string above, below, undecided;
  for (const auto& s : c.statistics) {
    if (std::find(c.deciding.begin(), c.deciding.end(), s.statistic) == c.deciding.end()) continue;
    const auto& i = s.interval;
    auto add = [&](std::string& list) { list += (list.empty() ? "" : ", ") + statistic_text(s); };
    if (i.low > 1 + t) add(above);
    else if (i.high < 1 - t) add(below);
    else if (s.statistic == Statistic::median ? (i.low < 1 - t || i.high > 1 + t) : (i.estimate < 1 - t || i.estimate > 1 + t))
      add(undecided);  // else within 1 ± t (the mean and the tails: their estimates; see Verdict)
  }
  const std::string level = fmt::format("intervals at {:.4g} % each, {:g} % together", 100 * each, 100 * o.confidence_level);
  const std::string test = fmt::format("Mann-Whitney p = {}", format_p(c.mann_whitney->p_value));
  // Both sides have the same two modes (each mode's median within 1 ± t): a shift of weight
  // between them moves the median and the deciles near the gap, but its cost shows in the mean
  // and the tails, which decide.
  const bool modes_match = c.base_modes->bimodal && c.candidate_modes->bimodal &&
                           std::fabs(c.candidate_modes->lower.median / c.base_modes->lower.median - 1) <= t &&
                           std::fabs(c.candidate_modes->upper.median / c.base_modes->upper.median - 1) <= t;
  std::string modes;
  if (c.bimodal) {
    modes = "bimodal: ";
    if (c.base_modes->bimodal) modes += "base modes " + modes_text(*c.base_modes);
    if (c.candidate_modes->bimodal)
      modes += std::string(c.base_modes->bimodal ? "; " : "") + "new modes " + modes_text(*c.candidate_modes);
    if (c.base_modes->bimodal && c.candidate_modes->bimodal)
      modes += fmt::format(" (mode ratios {:.4f} and {:.4f})", c.candidate_modes->lower.median / c.base_modes->lower.median,
                           c.candidate_modes->upper.median / c.base_modes->upper.median);
    modes += "; the median jumps between the modes, so it does not decide; ";
  }
  if (!above.empty()) {
    c.verdict = Verdict::slower;
    c.reason = fmt::format("{}{} above 1 + {:g} % ({}){}", modes, above, 100 * t, level,
                           below.empty() ? "" : "; faster at " + below);
  } else if (!below.empty()) {
    c.verdict = Verdict::faster;
    c.reason = fmt::format("{}{} below 1 - {:g} % ({})", modes, below, 100 * t, level);
  } else if (!undecided.empty()) {
    c.verdict = Verdict::inconclusive;
    c.reason = fmt::format("{}{} straddles a bound of 1 ± {:g} % ({}): more samples or a quieter machine would decide",
                           modes, undecided, 100 * t, level);
  } else if (c.mann_whitney->p_value < alpha && std::fabs(shift) > t && c.bimodal && !modes_match) {
    c.verdict = Verdict::inconclusive;
    c.reason = fmt::format("{}the mean and tails are within 1 ± {:g} % ({}), but the modes differ and the distributions "
                           "too ({} < {:g}; p{} moved {:+.2f} %): a mode appeared, vanished or moved; look at the plots",
                           modes, 100 * t, level, test, alpha, worst, 100 * shift);
  } else if (c.mann_whitney->p_value < alpha && std::fabs(shift) > t && !c.bimodal) {
    c.verdict = Verdict::inconclusive;
    c.reason = fmt::format("{}the median, mean and tails are within 1 ± {:g} %, but the distributions differ ({} < {:g}) "
                           "and their p{} moved {:+.2f} %: part of the steps changed; look at the plots",
                           modes, 100 * t, test, alpha, worst, 100 * shift);
  } else if (c.stream_half_width && !(*c.stream_half_width <= t)) {
    c.verdict = Verdict::inconclusive;
    c.reason = fmt::format("{}the estimates are within 1 ± {:g} %, but the streams' effect alone makes every interval "
                           "±{:.3g} % wide: no run on these streams can show the two equal within the threshold",
                           modes, 100 * t, 100 * *c.stream_half_width);
  } else {
    c.verdict = Verdict::same;
    std::string all;
    for (const auto& s : c.statistics)
      if (std::find(c.deciding.begin(), c.deciding.end(), s.statistic) != c.deciding.end())
        all += (all.empty() ? "" : ", ") + statistic_text(s);
    c.reason = fmt::format("{}{}: within 1 ± {:g} % ({}; {}){}", modes, all, 100 * t, level, test,
                           modes_match && c.mann_whitney->p_value < alpha
                               ? fmt::format("; the same modes, their weights moved ({:.0f} % → {:.0f} % in the lower one)",
                                             100 * c.base_modes->lower.weight, 100 * c.candidate_modes->lower.weight)
                               : "");
  }
}

}  // namespace detail::compare

/// Compares one experiment of two reports (no matching, no environment): the samples of
/// `options.metric`, the ratio of medians with its bootstrap interval, the U test, the verdict
/// (rule at `Verdict`) and the differences of settings between the two results.
///
/// \throws ConfigError for invalid options (see validate(CompareOptions)).
inline ExperimentComparison compare_results(const Result& base, const Result& candidate, const CompareOptions& options = {}) {
  using namespace detail::compare;
  validate(options);
  ExperimentComparison c;
  c.name = base.name;
  c.label = base.name;
  c.dimensions = base.dimensions;
  c.metric = options.metric;
  c.base_failed = base.status == Status::failed;
  c.candidate_failed = candidate.status == Status::failed;
  for (const auto& key : options.ignored_dimensions) {
    const auto a = base.dimensions.find(key);
    const auto b = candidate.dimensions.find(key);
    const std::string ta = a == base.dimensions.end() ? "-" : gauge::to_string(a->second);
    const std::string tb = b == candidate.dimensions.end() ? "-" : gauge::to_string(b->second);
    if (ta != tb) c.dimension_differences.push_back(key + ": " + ta + " → " + tb);
  }
  c.differences = result_differences(base, candidate, options.clock_tolerance);
  const bool gpu = options.metric == Metric::gpu_time;
  const std::vector<double> a = finite(gpu ? base.gpu_samples_s : base.wall_samples_s);
  const std::vector<double> b = finite(gpu ? candidate.gpu_samples_s : candidate.wall_samples_s);
  c.base_n = a.size();
  c.candidate_n = b.size();
  if (c.base_failed || c.candidate_failed) {
    c.verdict = Verdict::inconclusive;
    c.reason = std::string(c.base_failed && c.candidate_failed ? "both experiments failed"
                           : c.base_failed                    ? "the base experiment failed"
                                                              : "the new experiment failed") +
               (candidate.error && c.candidate_failed ? ": " + *candidate.error
                : base.error && c.base_failed       ? ": " + *base.error
                                                    : std::string());
    return c;
  }
  // A result whose own diagnosis says its time is likely wrong (severity error, e.g.
  // work_not_on_stream) cannot support a verdict either way.
  auto errors = [](const Result& r) {
    std::string codes;
    for (const auto& w : r.warnings)
      if (w.severity == Severity::error) codes += (codes.empty() ? "" : ", ") + w.code;
    return codes;
  };
  const std::string base_errors = errors(base), candidate_errors = errors(candidate);
  if (!base_errors.empty() || !candidate_errors.empty()) {
    c.verdict = Verdict::inconclusive;
    c.reason = fmt::format("{}: the {} time is likely wrong, so no verdict",
                           !candidate_errors.empty() ? "the new result carries an error warning (" + candidate_errors + ")"
                                                     : "the base result carries an error warning (" + base_errors + ")",
                           !candidate_errors.empty() ? "new" : "base");
    return c;
  }
  const double level = options.confidence_level;
  const std::size_t needed = min_samples_for_ci(level);
  if (a.size() < needed || b.size() < needed) {
    const Summary& sa = gpu ? base.gpu_time : base.wall_time;
    const Summary& sb = gpu ? candidate.gpu_time : candidate.wall_time;
    if (compare_summaries(c, sa, sb, options)) return c;
    c.verdict = Verdict::inconclusive;
    c.reason = fmt::format("too few samples: n = {} (base) and {} (new); {} or more per side give a distribution-free "
                           "{:g} % confidence interval of the median, and no summary with one was stored",
                           a.size(), b.size(), needed, 100 * level);
    if (!a.empty()) c.base_median_s = sorted_median(a);
    if (!b.empty()) c.candidate_median_s = sorted_median(b);
    return c;
  }
  c.base_median_s = sorted_median(a);
  c.candidate_median_s = sorted_median(b);
  auto positive = [](const std::vector<double>& v) {
    return std::all_of(v.begin(), v.end(), [](double x) { return x > 0; });
  };
  if (!positive(a) || !positive(b)) {
    c.verdict = Verdict::inconclusive;
    c.reason = "a sample is not a time > 0: ratios of its statistics are undefined";
    return c;
  }
  compare_samples(c, a, b, base, candidate, options);
  return c;
}

namespace detail::compare {

/// A Timer's window summary as a Result without samples, for compare_results (which then
/// compares the summaries' median intervals: a Timer keeps no per-step samples).
inline Result timer_row(const std::string& label, const std::string& backend, const Summary& s) {
  Result r;
  r.name = label;
  r.backend = backend;
  r.time_label = backend == "host" ? "CPU time" : "GPU time";
  r.gpu_time = s;
  return r;
}

/// Appends the comparison of the Timers of both reports, matched by name, then their steps and
/// regions (by name): rows "timer:<timer>/step" (the window's GPU time per step) and
/// "timer:<timer>/<region>" (the region's time per step over the window). Unmatched Timers and
/// regions are listed as only in one report, like experiments.
inline void compare_timers(Comparison& out, const StoredReport& base, const StoredReport& candidate,
                           const CompareOptions& options) {
  for (const TimerSummary& a : base.timers) {
    const auto b = std::find_if(candidate.timers.begin(), candidate.timers.end(),
                                [&](const TimerSummary& t) { return t.name == a.name; });
    const std::string prefix = "timer:" + a.name + "/";
    if (b == candidate.timers.end()) {
      out.only_in_base.push_back(prefix + "step");
      continue;
    }
    auto add = [&](const std::string& label, const Summary& x, const Summary& y) {
      ExperimentComparison e = compare_results(timer_row(label, a.backend, x), timer_row(label, b->backend, y), options);
      e.differences.clear();  // a Timer records no device or method of its own: the environment's differences apply
      out.experiments.push_back(std::move(e));
    };
    add(prefix + "step", a.window.gpu_time_s, b->window.gpu_time_s);
    for (const TimerRegionSummary& ra : a.regions) {
      const auto rb = std::find_if(b->regions.begin(), b->regions.end(),
                                   [&](const TimerRegionSummary& r) { return r.name == ra.name; });
      if (rb == b->regions.end()) out.only_in_base.push_back(prefix + ra.name);
      else add(prefix + ra.name, ra.window.time_per_step_s, rb->window.time_per_step_s);
    }
    for (const TimerRegionSummary& rb : b->regions)
      if (std::none_of(a.regions.begin(), a.regions.end(), [&](const TimerRegionSummary& r) { return r.name == rb.name; }))
        out.only_in_candidate.push_back(prefix + rb.name);
  }
  for (const TimerSummary& b : candidate.timers)
    if (std::none_of(base.timers.begin(), base.timers.end(), [&](const TimerSummary& t) { return t.name == b.name; }))
      out.only_in_candidate.push_back("timer:" + b.name + "/step");
}

}  // namespace detail::compare

/// Compares two reports: matches experiments by name and dimensions (those in
/// `options.ignored_dimensions` left out; repeated keys are matched in order), compares each pair
/// with compare_results, and lists environment differences and unmatched experiments. Timers are
/// matched by name and compared per step and per region from their window summaries (rows
/// "timer:<timer>/step", "timer:<timer>/<region>"; see detail::compare::compare_timers).
///
/// \param base the reference report; \param candidate the new one.
/// \throws ConfigError for invalid options.
inline Comparison compare_reports(const StoredReport& base, const StoredReport& candidate, const CompareOptions& options = {}) {
  using namespace detail::compare;
  validate(options);
  Comparison out;
  out.options = options;
  out.base_source = base.source;
  out.candidate_source = candidate.source;
  out.environment_differences = environment_differences(base.environment, candidate.environment);
  std::vector<bool> used(candidate.results.size(), false);
  std::vector<const Result*> matched_base;
  for (std::size_t i = 0; i < base.results.size(); ++i) {
    const Result& a = base.results[i];
    const Dimensions key = matching_key(a.dimensions, options.ignored_dimensions);
    std::size_t j = 0;
    for (; j < candidate.results.size(); ++j)
      if (!used[j] && candidate.results[j].name == a.name &&
          matching_key(candidate.results[j].dimensions, options.ignored_dimensions) == key)
        break;
    if (j == candidate.results.size()) {
      out.only_in_base.push_back(full_label(a));
      continue;
    }
    used[j] = true;
    out.experiments.push_back(compare_results(a, candidate.results[j], options));
    matched_base.push_back(&a);
  }
  for (std::size_t j = 0; j < candidate.results.size(); ++j)
    if (!used[j]) out.only_in_candidate.push_back(full_label(candidate.results[j]));
  // Hints: an unmatched pair of the same name differs in some dimensions.
  std::set<std::string> hinted;
  for (const Result& a : base.results) {
    if (hinted.count(a.name) || base.find(a.name, a.dimensions) != &a) continue;
    bool matched = false;
    for (const auto& e : out.experiments) matched = matched || (e.name == a.name && e.dimensions == a.dimensions);
    if (matched) continue;
    for (std::size_t j = 0; j < candidate.results.size(); ++j) {
      const Result& b = candidate.results[j];
      if (used[j] || b.name != a.name) continue;
      std::set<std::string> keys;
      std::string changes;
      for (const auto& [k, v] : a.dimensions) {
        const auto it = b.dimensions.find(k);
        if (it == b.dimensions.end() || !(it->second == v)) {
          keys.insert(k);
          changes += (changes.empty() ? "" : ", ") + k + ": " + gauge::to_string(v) + " → " +
                     (it == b.dimensions.end() ? std::string("-") : gauge::to_string(it->second));
        }
      }
      for (const auto& [k, v] : b.dimensions)
        if (!a.dimensions.count(k)) {
          keys.insert(k);
          changes += (changes.empty() ? "" : ", ") + k + ": - → " + gauge::to_string(v);
        }
      std::string flags;
      for (const auto& k : keys) flags += " --ignore-dimension " + k;
      out.notes.push_back(a.name + ": unmatched; the new report has an experiment of that name whose dimensions differ (" +
                          changes + "):" + flags + " compares them");
      hinted.insert(a.name);
      break;
    }
  }
  // Labels: the name alone, unless other matched experiments share it; then the dimensions that
  // tell them apart.
  for (std::size_t i = 0; i < out.experiments.size(); ++i) {
    std::set<std::string> varying;
    for (std::size_t j = 0; j < out.experiments.size(); ++j) {
      if (j == i || matched_base[j]->name != matched_base[i]->name) continue;
      for (const auto& [k, v] : matched_base[i]->dimensions) {
        const auto it = matched_base[j]->dimensions.find(k);
        if (it == matched_base[j]->dimensions.end() || !(it->second == v)) varying.insert(k);
      }
      for (const auto& [k, v] : matched_base[j]->dimensions)
        if (!matched_base[i]->dimensions.count(k)) varying.insert(k);
    }
    if (!varying.empty())
      out.experiments[i].label = matched_base[i]->name + " [" + dimensions_text(matched_base[i]->dimensions, varying) + "]";
  }
  compare_timers(out, base, candidate, options);
  return out;
}

namespace detail::compare {

/// The verdict rule and methods in one paragraph, for the renderings.
inline std::string rule_text(const CompareOptions& o) {
  return fmt::format(
      "Verdict: ratios new/base of the median, mean, p90 (n >= 100) and p99 (n >= 1000) of {} per step, each with a "
      "percentile-bootstrap interval ({} resamples, seed {}; Efron & Tibshirani 1993) at {:g} % together (Bonferroni), "
      "widened by each side's stream effect (between-stream variance of the median, Student t); "
      "the median does not decide when a side is bimodal (two modes: Otsu split, each >= 10 %, empty middle). "
      "slower: some interval above 1 + {:g} %; faster: some below 1 - {:g} % and none above; same: the median's interval "
      "and the other estimates within 1 ± {:g} % "
      "and no decile moved beyond it with a two-sided Mann-Whitney U test (Mann & Whitney 1947) at p < {:g}, unless "
      "both sides have the same two modes; "
      "otherwise inconclusive. Without samples: the summaries' median intervals.",
      o.metric == Metric::gpu_time ? "GPU time (CPU time for host-backend results)" : "wall time", o.resamples, o.seed,
      100 * o.confidence_level, 100 * o.threshold, 100 * o.threshold, 100 * o.threshold, 1 - o.confidence_level);
}

/// The verdict with "(bimodal)" or "(summary)" when it applies.
inline std::string verdict_text(const ExperimentComparison& e) {
  std::string v = to_string(e.verdict);
  if (e.bimodal) v += " (bimodal)";
  if (e.from_summary) v += " (summary)";
  return v;
}

/// The statistic the table shows: the median, or the first deciding one when the median does
/// not decide (a bimodal side: its median jumps between modes and must not be read as a change).
inline const StatisticRatio* shown_statistic(const ExperimentComparison& e) {
  if (e.statistics.empty()) return nullptr;
  if (e.deciding.empty() || e.deciding.front() == Statistic::median || e.statistics.front().statistic != Statistic::median)
    return &e.statistics.front();
  for (const auto& s : e.statistics)
    if (s.statistic == e.deciding.front()) return &s;
  return &e.statistics.front();
}
inline std::string ratio_text(const ExperimentComparison& e) {
  const StatisticRatio* s = shown_statistic(e);
  if (!s) return "-";
  const std::string name = s->statistic == Statistic::median ? "" : std::string(to_string(s->statistic)) + " ";
  return fmt::format("{}{:.4f} [{:.4f}, {:.4f}]", name, s->interval.estimate, s->interval.low, s->interval.high);
}
inline std::string change_text(const ExperimentComparison& e) {
  const StatisticRatio* s = shown_statistic(e);
  return s ? signed_percent(s->interval.estimate - 1) : "-";
}
inline std::string p_text(const ExperimentComparison& e) {
  return e.mann_whitney ? format_p(e.mann_whitney->p_value) : "-";
}
/// Text for a Markdown table cell: control characters visible, '\\' and '|' escaped
/// (detail::escape::markdown_cell).
inline std::string md_cell(const std::string& s) { return detail::escape::markdown_cell(s); }

}  // namespace detail::compare

/// The comparison as text for a terminal: sources, settings, one line per experiment (medians,
/// ratio with its interval, change, p-value, verdict), the reasons, differences, unmatched
/// experiments and the verdict rule. Ends with a newline.
inline std::string to_text(const Comparison& c) {
  using namespace detail::compare;
  std::string out = fmt::format("base: {}\nnew:  {}\n", c.base_source, c.candidate_source);
  const std::string ci_head = fmt::format("new/base [{:g} % CI]", 100 * c.options.confidence_level);
  std::size_t width = 10;
  for (const auto& e : c.experiments) width = std::max(width, e.label.size());
  out += fmt::format("{:<{}}  {:>11}  {:>11}  {:<30}  {:>9}  {:>9}  {}\n", "experiment", width, "base median", "new median",
                     ci_head, "change", "p (U)", "verdict");
  for (const auto& e : c.experiments) {
    out += fmt::format("{:<{}}  {:>11}  {:>11}  {:<30}  {:>9}  {:>9}  {}\n", detail::escape::visible(e.label), width,
                       detail::format_time(e.base_median_s), detail::format_time(e.candidate_median_s), ratio_text(e),
                       change_text(e), p_text(e), verdict_text(e));
  }
  for (const auto& e : c.experiments) {
    out += fmt::format("  {}: {}: {}\n", detail::escape::visible(e.label), verdict_text(e), detail::escape::visible(e.reason));
    for (const auto& dd : e.dimension_differences) out += fmt::format("    ignored dimension {}\n", dd);
  }
  bool any_invalid = !c.comparable();
  if (any_invalid) out += "NOT COMPARABLE: differences that can change the numbers without a change of code:\n";
  for (const auto& d : c.environment_differences)
    if (d.invalidates) out += fmt::format("  ! {}: {} → {}\n", d.what, d.base, d.candidate);
  for (const auto& e : c.experiments)
    for (const auto& d : e.differences)
      if (d.invalidates) out += fmt::format("  ! {}: {}: {} → {}\n", e.label, d.what, d.base, d.candidate);
  std::string notes;
  for (const auto& d : c.environment_differences)
    if (!d.invalidates) notes += fmt::format("  {}: {} → {}\n", d.what, d.base, d.candidate);
  for (const auto& e : c.experiments)
    for (const auto& d : e.differences)
      if (!d.invalidates) notes += fmt::format("  {}: {}: {} → {}\n", e.label, d.what, d.base, d.candidate);
  if (!notes.empty()) out += "other differences:\n" + notes;
  if (!any_invalid) out += "environment: no difference that invalidates the comparison\n";
  for (const auto& l : c.only_in_base) out += "only in base: " + l + "\n";
  for (const auto& l : c.only_in_candidate) out += "only in new:  " + l + "\n";
  for (const auto& n : c.notes) out += "note: " + n + "\n";
  out += rule_text(c.options) + "\n";
  return out;
}

/// The comparison as GitHub-flavoured Markdown: a table of experiments, then the differences,
/// unmatched experiments and the verdict rule. Ends with a newline.
inline std::string to_markdown(const Comparison& c) {
  using namespace detail::compare;
  std::string out = fmt::format("**base** `{}` → **new** `{}`\n\n", md_cell(c.base_source), md_cell(c.candidate_source));
  out += fmt::format("| experiment | base median | new median | new/base [{:g} % CI] | change | p (U test) | verdict |\n",
                     100 * c.options.confidence_level);
  out += "|---|---:|---:|---|---:|---:|---|\n";
  for (const auto& e : c.experiments)
    out += fmt::format("| {} | {} | {} | {} | {} | {} | **{}** |\n", md_cell(e.label), detail::format_time(e.base_median_s),
                       detail::format_time(e.candidate_median_s), ratio_text(e), change_text(e), p_text(e), verdict_text(e));
  out += "\n";
  for (const auto& e : c.experiments) {
    out += fmt::format("- {}: {}\n", md_cell(e.label), md_cell(e.reason));
    for (const auto& dd : e.dimension_differences) out += fmt::format("  - ignored dimension {}\n", md_cell(dd));
  }
  std::string invalid, other;
  for (const auto& d : c.environment_differences)
    (d.invalidates ? invalid : other) += fmt::format("- {}: `{}` → `{}`\n", md_cell(d.what), md_cell(d.base), md_cell(d.candidate));
  for (const auto& e : c.experiments)
    for (const auto& d : e.differences)
      (d.invalidates ? invalid : other) +=
          fmt::format("- {}: {}: `{}` → `{}`\n", md_cell(e.label), md_cell(d.what), md_cell(d.base), md_cell(d.candidate));
  if (!invalid.empty()) out += "\n**Not comparable**: differences that can change the numbers without a change of code:\n\n" + invalid;
  else out += "\nEnvironment: no difference that invalidates the comparison.\n";
  if (!other.empty()) out += "\nOther differences:\n\n" + other;
  if (!c.only_in_base.empty() || !c.only_in_candidate.empty()) out += "\n";
  for (const auto& l : c.only_in_base) out += "- only in base: " + md_cell(l) + "\n";
  for (const auto& l : c.only_in_candidate) out += "- only in new: " + md_cell(l) + "\n";
  for (const auto& n : c.notes) out += "- note: " + md_cell(n) + "\n";
  out += "\n" + rule_text(c.options) + "\n";
  return out;
}

/// EnvironmentDifference → {"what", "base", "new", "invalidates"}.
inline void to_json(nlohmann::json& j, const EnvironmentDifference& d) {
  j = nlohmann::json{{"what", d.what}, {"base", d.base}, {"new", d.candidate}, {"invalidates", d.invalidates}};
}

/// ExperimentComparison → every field; times in seconds (`_s`), null where undefined.
inline void to_json(nlohmann::json& j, const ExperimentComparison& e) {
  auto opt = [](const std::optional<double>& v) { return v && std::isfinite(*v) ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  nlohmann::json dims = nlohmann::json::object();
  for (const auto& kv : e.dimensions) {
    const std::string& key = kv.first;
    std::visit([&](const auto& x) { dims[key] = x; }, kv.second);
  }
  auto interval = [](const RatioInterval& r) {
    return nlohmann::json{{"estimate", r.estimate}, {"low", r.low},         {"high", r.high},
                          {"level", r.level},       {"resamples", r.resamples}, {"seed", r.seed},
                          {"method", RatioInterval::method}};
  };
  auto modes = [](const std::optional<Modes>& m) {
    if (!m) return nlohmann::json(nullptr);
    auto one = [](const Mode& x) {
      return nlohmann::json{{"median_s", x.median}, {"weight", x.weight}, {"n", x.n}, {"low_s", x.low}, {"high_s", x.high}};
    };
    return nlohmann::json{{"bimodal", m->bimodal}, {"lower", one(m->lower)}, {"upper", one(m->upper)},
                          {"middle_fraction", m->middle_fraction}, {"method", Modes::method}};
  };
  nlohmann::json ratio = nullptr, mw = nullptr, stats = nlohmann::json::array(), deciding = nlohmann::json::array();
  if (e.ratio) ratio = interval(*e.ratio);
  for (const auto& st : e.statistics) {
    nlohmann::json one = interval(st.interval);
    one["statistic"] = to_string(st.statistic);
    stats.push_back(std::move(one));
  }
  for (Statistic st : e.deciding) deciding.push_back(to_string(st));
  nlohmann::json shift = nullptr;
  if (e.largest_decile_shift) shift = {{"percentile", e.largest_decile_shift->first}, {"change", e.largest_decile_shift->second}};
  if (e.mann_whitney)
    mw = {{"u", e.mann_whitney->u}, {"p_value", e.mann_whitney->p_value}, {"z", opt(e.mann_whitney->z)},
          {"method", e.mann_whitney->method}, {"n1", e.mann_whitney->n1}, {"n2", e.mann_whitney->n2}};
  j = nlohmann::json{{"name", e.name},
                     {"label", e.label},
                     {"dimensions", dims},
                     {"dimension_differences", e.dimension_differences},
                     {"metric", to_string(e.metric)},
                     {"base_n", e.base_n},
                     {"new_n", e.candidate_n},
                     {"base_median_s", opt(e.base_median_s)},
                     {"new_median_s", opt(e.candidate_median_s)},
                     {"ratio", ratio},
                     {"statistics", stats},
                     {"deciding", deciding},
                     {"largest_decile_shift", shift},
                     {"bimodal", e.bimodal},
                     {"base_modes", modes(e.base_modes)},
                     {"new_modes", modes(e.candidate_modes)},
                     {"from_summary", e.from_summary},
                     {"stream_variance", opt(e.stream_variance)},
                     {"stream_half_width", opt(e.stream_half_width)},
                     {"mann_whitney", mw},
                     {"verdict", to_string(e.verdict)},
                     {"reason", e.reason},
                     {"base_failed", e.base_failed},
                     {"new_failed", e.candidate_failed},
                     {"regression", e.regression()},
                     {"comparable", e.comparable()},
                     {"differences", e.differences}};
}

/// Comparison → {"schema": "gauge.comparison", "options", "base", "new", "comparable",
/// "any_regression", "environment_differences", "experiments", "only_in_base", "only_in_new", "rule"}.
inline void to_json(nlohmann::json& j, const Comparison& c) {
  const auto& o = c.options;
  j = nlohmann::json{
      {"schema", "gauge.comparison"},
      {"schema_version", "1.2.0"},
      {"options",
       {{"threshold", o.threshold},
        {"confidence_level", o.confidence_level},
        {"resamples", o.resamples},
        {"seed", o.seed},
        {"metric", to_string(o.metric)},
        {"ignored_dimensions", o.ignored_dimensions},
        {"clock_tolerance", o.clock_tolerance}}},
      {"base", c.base_source},
      {"new", c.candidate_source},
      {"comparable", c.comparable()},
      {"any_regression", c.any_regression()},
      {"any_inconclusive", c.any_inconclusive()},
      {"environment_differences", c.environment_differences},
      {"experiments", c.experiments},
      {"only_in_base", c.only_in_base},
      {"only_in_new", c.only_in_candidate},
      {"notes", c.notes},
      {"rule", detail::compare::rule_text(o)},
  };
}

}  // namespace gauge
