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

#include "gauge/detail/fmt.hpp"
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
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
#include "gauge/core/verdict.hpp"
#include "gauge/core/cycles.hpp"
#include "gauge/report/console.hpp"
#include "gauge/report/escape.hpp"
#include "gauge/report/read.hpp"
#include "gauge/report/speedup_check.hpp"

namespace gauge {

/// Which per-step samples a comparison uses.
enum class Metric {
  gpu_time,   ///< `samples.gpu_time_per_step_s`: GPU time from CUDA events (host clock on the host backend)
  wall_time,  ///< `samples.wall_time_per_step_s`: wall time per step, one sample per wall round
};

/// Text name of a Metric ("gpu_time", "wall_time").
inline const char* to_string(Metric m) { return m == Metric::gpu_time ? "gpu_time" : "wall_time"; }

// The rule of `Verdict` (gauge/core/verdict.hpp), the outcome of comparing one experiment of two
// reports. The rule looks at the whole distribution of per-step times, not only at its middle (c: the confidence level, alpha = 1 − c,
// t: the noise threshold; ratios are new / base, below 1 is faster):
// 1. *Statistics.* The ratios of the median, the mean, p90 (when both sides have >= 100
//    samples) and p99 (>= 1000 samples: at least 10 values beyond the percentile) are estimated
//    with percentile-bootstrap intervals from one joint bootstrap (`bootstrap_ratios`). Each
//    interval is at level 1 − alpha / k for the k statistics that decide (Bonferroni), so that
//    the family of intervals holds at level c. GPU-time intervals are then widened by each
//    side's stream effect (`Result::streams`, gauge/core/stream_effect.hpp): the bootstrap sees
//    one draw of the streams' effect, a rerun draws another.
// 2. *Modes.* Each side is checked for two modes (`find_modes`; their medians must be more than
//    two ticks of the timer apart). When either side is bimodal, its median jumps between the
//    modes as their weights move a little, so the median does not decide; the modes of both
//    sides are reported and compared instead (`bimodal`).
// 3. *Verdict.* `slower` when the interval of some deciding statistic lies entirely above
//    1 + t (a slow minority shows in the mean and p90/p99 while the median stays put);
//    `faster` when some interval lies entirely below 1 − t and none above; `same` when every
//    median's interval lies within [1 − t, 1 + t] and the estimates of the mean, p90 and p99 do
//    too (their intervals decide `slower` and `faster`, but one descheduled sample widens them
//    beyond any threshold: a tail is never shown equal, only not shown different) *and* the
//    distributions do not differ
//    materially: the two-sided Mann–Whitney U test (a distribution test) does not reject at
//    alpha, or no decile p10…p90 of new / base lies outside 1 ± t (a real shift smaller than
//    t stays `same`), or both sides have the same two modes (each mode's median within 1 ± t:
//    only their weights moved, which the mean and tails price); otherwise `inconclusive`, with
//    the reason.
// 4. *Without samples.* When a side stored no samples but its summary has the median's
//    distribution-free interval, the median's ratio interval is [lo_new / hi_base, hi_new /
//    lo_base] (coverage >= 1 − 2 (1 − c_summary), conservative); the summary's mean, p90 and p99
//    only veto `same` (no interval without samples). `from_summary` says so.
// A side that failed, or that has fewer finite samples than a distribution-free interval of
// its median at level c needs (n <= 5 at 95 %) and no summary, is `inconclusive`.
// (`enum class Verdict` itself is in gauge/core/verdict.hpp, shared with the interleaved A/B.)


/// Whether a comparison decides on SM cycles per step (GPU time × the round's SM clock,
/// gauge/core/clock.hpp) instead of time. The raw time ratio is always shown.
enum class ClockNormalization {
  /// Cycles where the work scales with the SM clock, by this rule: both sides measured their
  /// rounds' clock, the metric is GPU time, the step declares FLOP, and it is not memory-bound:
  /// it declares no bytes, or its bytes / median time is below half of the device's memory
  /// bandwidth (`CompareOptions::memory_bandwidth_bytes_per_s`; with bytes declared and the
  /// bandwidth unknown, time decides). A step that declares no work decides on time: a wait on a
  /// host flag, a copy or a sleep does not follow the SM clock.
  automatic,
  sm_cycles,  ///< always cycles, where both sides have a clock (else time, with a note)
  time,       ///< always time (the clocks are still compared and shown)
};

/// Text name of a ClockNormalization ("auto", "cycles", "time").
inline const char* to_string(ClockNormalization c) {
  return c == ClockNormalization::automatic ? "auto" : c == ClockNormalization::sm_cycles ? "cycles" : "time";
}

/// How a comparison of several experiments controls false verdicts over all of them.
enum class Multiplicity {
  /// Benjamini–Hochberg (1995) false-discovery rate at 1 − c over the experiments compared: a
  /// `faster` or `slower` stands only where its p-value passes the step-up rule.
  fdr,
  fwer,  ///< Holm (1979) family-wise error rate at 1 − c: stricter, for gates over few experiments
  none,  ///< each experiment at level c on its own
};

/// Text name of a Multiplicity ("fdr", "fwer", "none").
inline const char* to_string(Multiplicity m) {
  return m == Multiplicity::fdr ? "fdr" : m == Multiplicity::fwer ? "fwer" : "none";
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
  /// Whether the verdict decides on SM cycles or time (rule at ClockNormalization).
  ClockNormalization clock_normalization = ClockNormalization::automatic;
  /// The workload's known run-to-run spread: the relative standard deviation of a run's median
  /// between separate runs (0.01 = 1 %), e.g. the `run_variation.relative_sd` an earlier
  /// comparison of several reports per side printed. With one report per side it widens the
  /// interval by sqrt(2) × this × z; 0 (default): unknown, and the interval covers the noise
  /// within each run only (the comparison says so).
  double run_spread = 0;
  /// False-verdict control over the experiments of one comparison.
  Multiplicity multiplicity = Multiplicity::fdr;
  /// The device's memory bandwidth, bytes/s, for the automatic clock rule; unset, the base result's
  /// `device.memory_bandwidth_bytes_per_s` is used, else (reports before schema 1.5)
  /// compare_reports fills it from the base's environment (2 × memory clock × bus width / 8).
  std::optional<double> memory_bandwidth_bytes_per_s;
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
  if (!(o.run_spread >= 0 && o.run_spread < 1))
    throw ConfigError("compare: run_spread must be a fraction in [0, 1) (0.01 = 1 %), got " + detail::format_number(o.run_spread));
  if (o.memory_bandwidth_bytes_per_s && !(*o.memory_bandwidth_bytes_per_s > 0 && std::isfinite(*o.memory_bandwidth_bytes_per_s)))
    throw ConfigError("compare: memory_bandwidth_bytes_per_s must be > 0, got " +
                      detail::format_number(*o.memory_bandwidth_bytes_per_s));
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

/// The two sides' SM clocks and what they do to the ratio (issue 21, "Same code, same verdict").
struct ClockComparison {
  std::string source;  ///< "probe" when both sides probed their rounds, else "telemetry"
  double base_sm_clock_mhz = 0;       ///< the base's mean SM clock over its measured rounds (mean over runs)
  double candidate_sm_clock_mhz = 0;  ///< the new side's
  double relative_difference = 0;     ///< new / base − 1 of the clocks
  /// Whether the work is taken to scale with the SM clock (ClockNormalization's rule), and why.
  bool scales_with_clock = false;
  std::string rule;
  /// The time ratio lies beyond 1 ± t (or straddles a bound) while the cycles ratio lies within:
  /// the clock explains the difference (machine state, not code).
  bool explains_difference = false;
};

/// The between-run variation of a comparison of several reports per side: each run's median is
/// one observation of its side, and the run is a random effect (as the stream is within a run,
/// gauge/core/stream_effect.hpp). Ratios on the log scale; times in seconds or cycles.
struct RunVariation {
  std::vector<double> base_medians;       ///< each base run's median (of the deciding quantity)
  std::vector<double> candidate_medians;  ///< each new run's median
  /// Pooled standard deviation of log(run median) about each side's mean: the run-to-run spread
  /// of one run's median, relative (0.01 = 1 %); degrees of freedom runs − 2.
  double relative_sd = 0;
  double degrees_of_freedom = 0;   ///< base runs + new runs − 2
  double t_quantile = 0;           ///< Student-t quantile (1 + c)/2 at those degrees of freedom
  double between_variance = 0;     ///< relative_sd² (1/R_base + 1/R_new): the variance of the log ratio from runs
  double within_variance = 0;      ///< the runs' own median intervals' variance, averaged, / R (a floor)
  /// How the interval is computed.
  static constexpr const char* method =
      "log ratio of the geometric means of the runs' medians; variance max(s_p^2 (1/R_a + 1/R_b), within-run "
      "variance); Student t with R_a + R_b - 2 degrees of freedom (runs as a random effect)";
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
  std::size_t base_runs = 1;       ///< runs (results of this name and dimensions) on the base side
  std::size_t candidate_runs = 1;  ///< on the new side
  /// What the verdict decided on: "time" (the metric's samples) or "cycles" (SM cycles per step).
  std::string decided_on = "time";
  /// The median's ratio of SM cycles per step with its interval, where both sides have a clock
  /// (beside `ratio`, which is always the time ratio).
  std::optional<RatioInterval> clock_normalized_ratio;
  std::optional<ClockComparison> clock;     ///< both sides' clocks, where known
  std::optional<RunVariation> run_variation;  ///< with several runs on a side
  /// Two-sided p-value of "no change" of the deciding estimate (normal on the log scale from its
  /// interval; Student t across runs), Bonferroni over the deciding statistics; for the
  /// multiplicity rule over experiments.
  std::optional<double> p_value;
  /// The estimate that decided, with its interval (the headline change is its estimate − 1).
  std::optional<StatisticRatio> headline;
  std::vector<std::string> notes;  ///< what the reader should know beside the verdict
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
  /// The false-verdict control that was applied over the experiments, in words ("" with one).
  std::string multiplicity_rule;
  std::vector<std::string> base_sources;       ///< every base report's path (several runs per side)
  std::vector<std::string> candidate_sources;  ///< every new report's path

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
/// Informational: GPU count, another board of the same model (UUID), compiler, gauge version; the
/// host CPU model, logical CPU count and governor, except where neither report has a GPU (the host
/// backend: the CPU is then the device, and a change of them invalidates).
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
  // Without a GPU (the host backend) the CPU is the device: its model, core count and governor
  // change the numbers as another GPU would.
  const bool host_device = base.cuda.devices.empty() && candidate.cuda.devices.empty();
  differ(d, "host CPU", text_of(base.host.cpu.model_name), text_of(candidate.host.cpu.model_name), host_device);
  differ(d, "logical CPUs", text_of(base.host.cpu.logical_cpus), text_of(candidate.host.cpu.logical_cpus), host_device);
  differ(d, "CPU governor", text_of(base.host.cpu.governor), text_of(candidate.host.cpu.governor), host_device);
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
  // A summary of no samples has no median, whatever else it claims.
  if (sa.n == 0 || sb.n == 0) return false;
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
/// Widens one interval on the log scale by the relative variance `add` (bounds move out to
/// sqrt(d² + add)).
inline void widen_interval(RatioInterval& i, double add) {
  if (!(add > 0) || !(i.estimate > 0 && i.low > 0 && i.high > 0)) return;
  const double dl = std::log(i.estimate / i.low), dh = std::log(i.high / i.estimate);
  i.low = i.estimate * std::exp(-std::sqrt(dl * dl + add));
  i.high = i.estimate * std::exp(std::sqrt(dh * dh + add));
}

/// The stream effect's widening t² (v_base + v_new) at `level` (0 when neither side has one).
inline double stream_widening(const Result& base, const Result& candidate, double level) {
  const double va = relative_stream_variance(base), vb = relative_stream_variance(candidate);
  if (!(va + vb > 0)) return 0;
  std::size_t streams = 0;
  if (va > 0) streams = base.streams.count;
  if (vb > 0) streams = streams ? std::min(streams, candidate.streams.count) : candidate.streams.count;
  const double t = detail::student_t_quantile((1 + level) / 2, static_cast<double>(streams - 1));
  return t * t * (va + vb);
}

/// The round effect of one side: the rounds of a run are clusters of its samples in time (the
/// background load, the thermal state and the clock move between them), so, as the streams are
/// (gauge/core/stream_effect.hpp), the cluster-robust variance of the round medians beyond the
/// samples' own interval is a variance the bootstrap misses. Noise that drifts over many rounds
/// (a shared CPU's load, a power-capped clock) makes neighbouring rounds alike, and then single
/// rounds understate it; so the rounds are also grouped into blocks of 2, 4, 8, … consecutive
/// rounds (the blocking method of Flyvbjerg & Petersen 1989, "Error estimates on averages of
/// correlated data", J. Chem. Phys. 91, 461), while at least `min_blocks` (8) blocks remain, and the
/// level whose widening t² × excess is largest is kept: an estimate that grows with the block size
/// is correlation that a shorter block hid. Returns the excess relative to the median² and the
/// number of blocks of that level (the Student t's clusters), or {0, 0} where `samples` (in the
/// order taken) does not match the result's rounds or there are fewer than 2.
inline std::pair<double, std::size_t> relative_round_variance(const Result& r, const std::vector<double>& samples, double level) {
  constexpr std::size_t min_blocks = 8;
  const auto& rs = r.sampling.round_samples;
  std::size_t total = 0;
  for (std::size_t n : rs) total += n;
  if (rs.size() < 2 || total != samples.size()) return {0, 0};
  std::vector<std::pair<std::size_t, std::size_t>> rounds;  // [begin, end) of each non-empty round, in order
  std::size_t at = 0;
  for (std::size_t n : rs) {
    if (n > 0) rounds.emplace_back(at, at + n);
    at += n;
  }
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  const auto ci = median_confidence_interval(sorted, level);
  const double m = percentile_unchecked(sorted, 50);
  if (!ci || !(m > 0) || rounds.size() < 2) return {0, 0};
  double best_widening = 0, best_excess = 0;
  std::size_t best_blocks = rounds.size();
  for (std::size_t size = 1; size == 1 || rounds.size() / size >= min_blocks; size *= 2) {
    const std::size_t blocks = rounds.size() / size;  // the last block takes the rounds left over
    if (blocks < 2) break;
    std::vector<double> medians;
    std::vector<std::size_t> counts;
    for (std::size_t j = 0; j < blocks; ++j) {
      const std::size_t first = rounds[j * size].first;
      const std::size_t last = j + 1 == blocks ? rounds.back().second : rounds[(j + 1) * size - 1].second;
      std::vector<double> v(samples.begin() + static_cast<std::ptrdiff_t>(first), samples.begin() + static_cast<std::ptrdiff_t>(last));
      counts.push_back(v.size());
      medians.push_back(median_in_place(v));
    }
    const auto w = widen_for_streams(medians, counts, m, *ci, level);
    if (!w || !(w->excess_variance > 0)) continue;
    const double widening = w->t_quantile * w->t_quantile * w->excess_variance;
    if (widening > best_widening) best_widening = widening, best_excess = w->excess_variance, best_blocks = blocks;
  }
  if (!(best_excess > 0)) return {0, rounds.size()};
  return {best_excess / (m * m), best_blocks};
}

inline void widen_for_stream_effect(ExperimentComparison& c, const Result& base, const Result& candidate, double level,
                                    const std::vector<double>& a = {}, const std::vector<double>& b = {}) {
  double va = relative_stream_variance(base), vb = relative_stream_variance(candidate);
  std::size_t streams = 0;
  if (va > 0) streams = base.streams.count;
  if (vb > 0) streams = streams ? std::min(streams, candidate.streams.count) : candidate.streams.count;
  // The rounds, where they say more than the streams (every round ran on one stream, so the round
  // effect holds the stream effect): the larger variance with its clusters.
  const auto ra = relative_round_variance(base, a, level), rb = relative_round_variance(candidate, b, level);
  if (ra.first + rb.first > va + vb) {
    va = ra.first;
    vb = rb.first;
    streams = std::min(ra.second ? ra.second : rb.second, rb.second ? rb.second : ra.second);
    c.notes.push_back(fmt::format("rounds as clusters: the medians of blocks of consecutive rounds vary beyond the samples' "
                                  "own interval (relative sd {:.3f} % base, {:.3f} % new), which widens every interval "
                                  "(Student t, {} blocks)",
                                  100 * std::sqrt(va), 100 * std::sqrt(vb), streams));
  }
  if (!(va + vb > 0) || streams < 2) return;
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
/// Two-sided p-value of "ratio = 1" from an interval at `level`, normal on the log scale: the
/// half-width on the side of 1 is z_{(1+level)/2} standard errors.
inline double p_value_of(const RatioInterval& i, double level) {
  if (!(i.estimate > 0 && i.low > 0 && i.high > 0)) return 1;
  const double d = std::log(i.estimate);
  const double half = d >= 0 ? std::log(i.estimate / i.low) : std::log(i.high / i.estimate);
  if (!(half > 0)) return d == 0 ? 1 : 0;
  const double se = half / detail::normal_quantile((1 + level) / 2);
  return std::erfc(std::fabs(d) / se / std::sqrt(2.0));
}

/// Keeps `m` bimodal only when its two groups are apart relative to their own spread: Ashman's
/// D = sqrt(2) |m_upper − m_lower| / sqrt(s_lower² + s_upper²) > 2 (Ashman, Bird & Zepf 1994,
/// "Detecting bimodality in astronomical datasets", AJ 108, 2348), with each group's robust
/// spread s = IQR / 1.349 (type-7 quartiles). A heavy tail split off a body is wide, so it is a
/// tail, not a mode; two clock states of a GPU are two narrow groups.
inline void separated_modes(Modes& m, const std::vector<double>& sorted) {
  if (!m.bimodal || m.lower.n == 0 || m.lower.n >= sorted.size()) return;
  const std::vector<double> lo(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(m.lower.n));
  const std::vector<double> hi(sorted.begin() + static_cast<std::ptrdiff_t>(m.lower.n), sorted.end());
  auto spread = [](const std::vector<double>& g) { return (percentile_unchecked(g, 75) - percentile_unchecked(g, 25)) / 1.349; };
  const double sl = spread(lo), su = spread(hi);
  const double denominator = std::sqrt(sl * sl + su * su);
  const double d = denominator > 0 ? std::sqrt(2.0) * std::fabs(m.upper.median - m.lower.median) / denominator
                                   : std::numeric_limits<double>::infinity();
  if (!(d > 2)) m.bimodal = false;
}

/// The verdict from both sides' finite, positive samples (rules 1–3 at `Verdict`). `unit` scales
/// one timer tick into the samples' unit (1 for seconds; the clock in Hz for cycles).
inline void compare_samples(ExperimentComparison& c, const std::vector<double>& a, const std::vector<double>& b,
                            const Result& base, const Result& candidate, const CompareOptions& o,
                            double unit_a = 1, double unit_b = 1) {
  const double t = o.threshold, alpha = 1 - o.confidence_level;
  // Per-step distributions compare only where both sides sampled the same number of steps per
  // sample (a sample of k steps is their mean, whose spread shrinks with k).
  const bool same_k = base.sampling.steps_per_sample == candidate.sampling.steps_per_sample;
  // Modes: their medians must be more than two ticks of each side's timer and t × the median
  // apart; modes closer than the threshold cannot move the median by a material amount.
  std::vector<double> sa = a, sb = b;
  std::sort(sa.begin(), sa.end());
  std::sort(sb.begin(), sb.end());
  if (same_k) {
    c.base_modes = find_modes(sa, std::max(2 * base.sampling.resolution_per_step() * unit_a, t * sorted_median(sa)));
    c.candidate_modes = find_modes(sb, std::max(2 * candidate.sampling.resolution_per_step() * unit_b, t * sorted_median(sb)));
    separated_modes(*c.base_modes, sa);
    separated_modes(*c.candidate_modes, sb);
    c.bimodal = c.base_modes->bimodal || c.candidate_modes->bimodal;
  }
  // Statistics: the sample sizes decide which tails have >= 10 values beyond them. The mean is
  // shown, never decides (background load moves the mean of a heavy-tailed sample); p90 decides
  // where both sides took the same steps per sample (a slow minority of steps), p99 only on a GPU
  // (on the host backend the last percent is the OS's scheduling, not the step's).
  const std::size_t n = std::min(a.size(), b.size());
  std::vector<Statistic> stats = {Statistic::median, Statistic::mean};
  if (n >= 100) stats.push_back(Statistic::p90);
  if (n >= 1000) stats.push_back(Statistic::p99);
  const bool host = base.backend == "host" || candidate.backend == "host";
  const bool tails_decide = same_k && !host;
  for (Statistic st : stats) {
    if (st == Statistic::mean) continue;
    if (st == Statistic::median && c.bimodal) continue;
    if (st == Statistic::p90 && !same_k) continue;
    if (st == Statistic::p99 && !tails_decide) continue;
    c.deciding.push_back(st);
  }
  // A bimodal side with too few samples for p90: only the mean prices the slow mode (a slow
  // minority of 20 % of the steps leaves the median put), so it decides here, and only here.
  if (c.deciding.empty()) c.deciding.push_back(Statistic::mean);
  if (!same_k)
    c.notes.push_back(fmt::format("steps per sample differ ({} base, {} new): only the medians are compared, not the "
                                  "distributions (a sample of k steps is their mean)",
                                  base.sampling.steps_per_sample, candidate.sampling.steps_per_sample));
  const double each = 1 - alpha / static_cast<double>(c.deciding.size());
  c.statistics = bootstrap_ratios(a, b, stats, each, o.resamples, o.seed);
  if (o.metric == Metric::gpu_time) widen_for_stream_effect(c, base, candidate, each, a, b);
  // Known run-to-run spread (one run per side): each side's median moves by it between runs.
  if (o.run_spread > 0) {
    const double z = detail::normal_quantile((1 + each) / 2);
    for (auto& st : c.statistics) widen_interval(st.interval, 2 * z * z * o.run_spread * o.run_spread);
  }
  c.ratio = c.statistics.front().interval;
  c.mann_whitney = mann_whitney_u(a, b);
  int worst = 10;
  double shift = 0;
  for (int d = 10; d <= 90; d += 10) {
    const double r = percentile_unchecked(sb, d) / percentile_unchecked(sa, d);
    if (std::fabs(r - 1) > std::fabs(shift)) shift = r - 1, worst = d;
  }
  c.largest_decile_shift = std::make_pair(worst, shift);

  // Each deciding statistic: slower when its interval excludes 1 and its estimate exceeds 1 + t
  // (significant and material; the rule of airspeed velocity's `asv compare`), faster likewise;
  // the median's interval must lie within 1 ± t for `same`.
  std::string above, below, undecided;
  double p_min = 1;
  const StatisticRatio* decided = nullptr;
  for (const auto& s : c.statistics) {
    if (std::find(c.deciding.begin(), c.deciding.end(), s.statistic) == c.deciding.end()) continue;
    const auto& i = s.interval;
    p_min = std::min(p_min, p_value_of(i, each));
    auto add = [&](std::string& list) { list += (list.empty() ? "" : ", ") + statistic_text(s); };
    // A tail (p90, p99) decides only when its whole interval lies beyond 1 ± t: background load
    // moves a tail between runs by more than it moves the median, so "significant" is not enough.
    const bool median = s.statistic == Statistic::median;
    if (median ? (i.low > 1 && i.estimate > 1 + t) : i.low > 1 + t) {
      add(above);
      if (!decided || median) decided = &s;
    } else if (median ? (i.high < 1 && i.estimate < 1 - t) : i.high < 1 - t) {
      add(below);
      if (!decided) decided = &s;
    } else if (median && (i.low < 1 - t || i.high > 1 + t)) {
      add(undecided);
    }
  }
  c.p_value = std::min(1.0, p_min * static_cast<double>(c.deciding.size()));
  if (!decided)
    for (const auto& s : c.statistics)
      if (!decided && s.statistic == c.deciding.front()) decided = &s;
  c.headline = decided ? *decided : c.statistics.front();
  const std::string level = fmt::format("intervals at {:.4g} % each, {:g} % together", 100 * each, 100 * o.confidence_level);
  const std::string test = fmt::format("Mann-Whitney p = {}", format_p(c.mann_whitney->p_value));
  // Both sides have the same two modes (each mode's median within 1 ± t): a shift of weight
  // between them moves the median and the deciles near the gap, but its cost shows in the mean
  // and the tails, which decide.
  const bool modes_match = c.base_modes && c.candidate_modes && c.base_modes->bimodal && c.candidate_modes->bimodal &&
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
  } else if (same_k && c.mann_whitney->p_value < alpha && std::fabs(shift) > t && c.bimodal && !modes_match) {
    c.verdict = Verdict::inconclusive;
    c.reason = fmt::format("{}the mean and tails are within 1 ± {:g} % ({}), but the modes differ and the distributions "
                           "too ({} < {:g}; p{} moved {:+.2f} %): a mode appeared, vanished or moved; look at the plots",
                           modes, 100 * t, level, test, alpha, worst, 100 * shift);
  } else if (same_k && tails_decide && c.mann_whitney->p_value < alpha && std::fabs(shift) > t && !c.bimodal) {
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

/// The result's mean SM clock over its measured rounds and the clock's source, where it has one.
inline std::optional<std::pair<double, std::string>> result_clock(const Result& r) {
  if (r.clock.source == "none" || !r.clock.sm_clock_mhz || !(*r.clock.sm_clock_mhz > 0)) return std::nullopt;
  return std::make_pair(*r.clock.sm_clock_mhz, r.clock.source);
}

/// ClockNormalization's automatic rule for one result: whether its work scales with the SM
/// clock, and why (the text names the numbers).
inline std::pair<bool, std::string> scales_with_clock(const Result& r, const CompareOptions& o) {
  if (o.metric != Metric::gpu_time) return {false, "wall time includes the host's part, which the SM clock does not set"};
  if (!r.work.flop || !(*r.work.flop > 0))
    return {false, "the step declares no FLOP, so nothing says its time follows the SM clock"};
  if (!r.work.bytes || !(*r.work.bytes > 0)) return {true, "the step declares FLOP and no bytes: compute-bound"};
  std::optional<double> median = r.gpu_time.p50;
  if (!median) {
    std::vector<double> v = finite(r.gpu_samples_s);
    if (!v.empty()) median = median_in_place(v);
  }
  const std::optional<double> bandwidth =
      o.memory_bandwidth_bytes_per_s ? o.memory_bandwidth_bytes_per_s : r.device.memory_bandwidth_bytes_per_s;
  if (!bandwidth || !(*bandwidth > 0) || !median || !(*median > 0))
    return {false, "the step declares bytes and the device's memory bandwidth is unknown: it may be memory-bound"};
  const double fraction = *r.work.bytes / *median / *bandwidth;
  if (fraction < 0.5)
    return {true, fmt::format("its memory traffic is {:.1f} % of the memory bandwidth ({:.0f} GB/s): compute-bound", 100 * fraction,
                              *bandwidth / 1e9)};
  return {false, fmt::format("its memory traffic is {:.1f} % of the memory bandwidth ({:.0f} GB/s): memory-bound, and the "
                             "memory clock is another domain", 100 * fraction, *bandwidth / 1e9)};
}

/// Whether to decide on cycles for these runs of both sides (ClockNormalization), with the
/// ClockComparison filled in where both sides have a clock (nullopt otherwise).
inline std::pair<bool, std::optional<ClockComparison>> clock_decision(const std::vector<const Result*>& base,
                                                                       const std::vector<const Result*>& candidate,
                                                                       const CompareOptions& o) {
  ClockComparison cc;
  bool probe = true;
  double fa = 0, fb = 0;
  for (const Result* r : base) {
    const auto k = result_clock(*r);
    if (!k || detail::cycle_samples(*r).empty()) return {false, std::nullopt};
    fa += k->first / static_cast<double>(base.size());
    probe = probe && k->second == "probe";
  }
  for (const Result* r : candidate) {
    const auto k = result_clock(*r);
    if (!k || detail::cycle_samples(*r).empty()) return {false, std::nullopt};
    fb += k->first / static_cast<double>(candidate.size());
    probe = probe && k->second == "probe";
  }
  cc.source = probe ? "probe" : "telemetry";
  cc.base_sm_clock_mhz = fa;
  cc.candidate_sm_clock_mhz = fb;
  cc.relative_difference = fb / fa - 1;
  if (o.clock_normalization == ClockNormalization::sm_cycles) {
    cc.scales_with_clock = o.metric == Metric::gpu_time;
    cc.rule = cc.scales_with_clock ? "cycles asked for (--clock-normalization cycles)" : "wall time is not normalized";
  } else if (o.clock_normalization == ClockNormalization::time) {
    cc.scales_with_clock = false;
    cc.rule = "time asked for (--clock-normalization time)";
  } else {
    const auto [yes, why] = scales_with_clock(*base.front(), o);
    cc.scales_with_clock = yes;
    cc.rule = why;
  }
  return {cc.scales_with_clock, cc};
}

/// "the SM clock: 1497 MHz base, 1510 MHz new (+0.87 %, probe)".
inline std::string clock_text(const ClockComparison& k) {
  return fmt::format("SM clock {:.0f} MHz base, {:.0f} MHz new ({:+.2f} %, {})", k.base_sm_clock_mhz, k.candidate_sm_clock_mhz,
                     100 * k.relative_difference, k.source);
}

/// Completes a comparison decided on one quantity with the other one's median ratio and the clock
/// comparison: `ratio` becomes the time ratio (always shown), `clock_normalized_ratio` the cycles
/// ratio; the reason says whether the clock explains the difference.
inline void attach_clock(ExperimentComparison& c, const std::optional<ClockComparison>& cc, bool cycles,
                         const std::optional<RatioInterval>& time_ratio, const std::optional<RatioInterval>& cycles_ratio,
                         double t) {
  if (!cc) return;
  c.clock = cc;
  c.decided_on = cycles ? "cycles" : "time";
  if (time_ratio) c.ratio = time_ratio;
  c.clock_normalized_ratio = cycles_ratio;
  auto within = [&](const RatioInterval& i) { return i.low >= 1 - t && i.high <= 1 + t; };
  if (time_ratio && cycles_ratio && !within(*time_ratio) && within(*cycles_ratio)) {
    c.clock->explains_difference = true;
    c.notes.push_back(fmt::format("the SM clock explains the time difference: time {:.4f} [{:.4f}, {:.4f}], cycles {:.4f} "
                                  "[{:.4f}, {:.4f}] ({}): machine state, not a change of code",
                                  time_ratio->estimate, time_ratio->low, time_ratio->high, cycles_ratio->estimate,
                                  cycles_ratio->low, cycles_ratio->high, clock_text(*cc)));
  }
  c.notes.push_back(fmt::format("{}; decided on {} ({})", clock_text(*cc), c.decided_on, cc->rule));
  // Decided on cycles, a difference of the mean clock is what the normalization takes out.
  if (cycles)
    for (auto& d : c.differences)
      if (d.what.find("mean SM clock") != std::string::npos && d.invalidates) {
        d.invalidates = false;
        d.what += " (decided on SM cycles, which take the clock out)";
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
  // Cycles or time (ClockNormalization); the other quantity's median ratio is shown beside.
  const auto [cycles, cc] = clock_decision({&base}, {&candidate}, options);
  if (!cycles) {
    compare_samples(c, a, b, base, candidate, options);
    std::optional<RatioInterval> cr;
    if (cc) {
      const double each = 1 - (1 - options.confidence_level) / static_cast<double>(c.deciding.size());
      RatioInterval i = bootstrap_median_ratio(detail::cycle_samples(base), detail::cycle_samples(candidate), each, options.resamples, options.seed);
      widen_interval(i, stream_widening(base, candidate, each));
      cr = i;
    }
    attach_clock(c, cc, false, c.ratio, cr, options.threshold);
  } else {
    const auto ca = detail::cycle_samples(base), cb = detail::cycle_samples(candidate);
    compare_samples(c, ca, cb, base, candidate, options, cc->base_sm_clock_mhz * 1e6, cc->candidate_sm_clock_mhz * 1e6);
    const double each = 1 - (1 - options.confidence_level) / static_cast<double>(c.deciding.size());
    RatioInterval ti = bootstrap_median_ratio(a, b, each, options.resamples, options.seed);
    widen_interval(ti, stream_widening(base, candidate, each));
    attach_clock(c, cc, true, ti, c.statistics.front().interval, options.threshold);
  }
  // A known run-to-run spread widened every interval (compare_samples); where that leaves the
  // direction open, say so plainly.
  if (options.run_spread > 0 && c.verdict == Verdict::inconclusive && c.headline &&
      std::fabs(c.headline->interval.estimate - 1) > options.threshold) {
    c.reason = fmt::format("one run per side, and this workload's run-to-run spread ({:.2f} % per run, --run-spread) could "
                           "make a difference of {:+.2f} % by chance: no direction is claimed; compare several reports per "
                           "side ({})",
                           100 * options.run_spread, 100 * (c.headline->interval.estimate - 1), c.reason);
  } else if (options.run_spread == 0 && c.base_runs == 1 && c.candidate_runs == 1) {
    c.notes.push_back("one run per side: the interval covers the noise within each run, not between runs (process, "
                      "thermal state, the clock); give several reports per side (a1 a2 a3 -- b1 b2 b3) or --run-spread");
  }
  return c;
}

namespace detail::compare {

/// One side's runs at the run level: log(median) of each run and the variance of that median
/// within its run (relative: its distribution-free interval's half-width / z, squared, plus the
/// run's stream effect).
struct RunSide {
  std::vector<double> medians;  ///< each run's median (seconds or cycles)
  std::vector<double> logs;     ///< their logarithms
  double within = 0;            ///< mean within-run relative variance of a run's median
};

/// The run-level side of `runs`, on cycles or time; nullopt (with `why`) when a run has too few
/// samples for an interval of its median.
inline std::optional<RunSide> run_side(const std::vector<const Result*>& runs, bool cycles, const CompareOptions& o,
                                       std::string& why) {
  RunSide side;
  const double z = detail::normal_quantile((1 + o.confidence_level) / 2);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const Result& r = *runs[i];
    std::vector<double> v = cycles ? detail::cycle_samples(r) : finite(o.metric == Metric::gpu_time ? r.gpu_samples_s : r.wall_samples_s);
    v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !(x > 0); }), v.end());
    // The rounds (blocks of them) in the order taken, where every sample survived the filter.
    const double rounds = o.metric == Metric::gpu_time || cycles ? relative_round_variance(r, v, o.confidence_level).first : 0;
    std::sort(v.begin(), v.end());
    const auto ci = v.size() >= min_samples_for_ci(o.confidence_level) ? median_confidence_interval(v, o.confidence_level)
                                                                         : std::nullopt;
    if (!ci || !(ci->low > 0)) {
      why = fmt::format("run {} has {} positive samples, too few for an interval of its median", i + 1, v.size());
      return std::nullopt;
    }
    const double m = percentile_unchecked(v, 50);
    const double se = (std::log(ci->high) - std::log(ci->low)) / (2 * z);
    side.medians.push_back(m);
    side.logs.push_back(std::log(m));
    const double streams = o.metric == Metric::gpu_time ? relative_stream_variance(r) : 0;
    side.within += (se * se + std::max(streams, rounds)) / static_cast<double>(runs.size());
  }
  return side;
}

/// The ratio new / base of the runs' geometric-mean medians with its interval (RunVariation's
/// method) and the variation behind it; needs base runs + new runs >= 3.
inline std::pair<RatioInterval, RunVariation> run_level_ratio(const RunSide& a, const RunSide& b, double level) {
  RunVariation v;
  v.base_medians = a.medians;
  v.candidate_medians = b.medians;
  auto mean = [](const std::vector<double>& x) {
    double s = 0;
    for (double y : x) s += y;
    return s / static_cast<double>(x.size());
  };
  const double ma = mean(a.logs), mb = mean(b.logs);
  double ss = 0;
  for (double x : a.logs) ss += (x - ma) * (x - ma);
  for (double x : b.logs) ss += (x - mb) * (x - mb);
  const double ra = static_cast<double>(a.logs.size()), rb = static_cast<double>(b.logs.size());
  v.degrees_of_freedom = ra + rb - 2;
  const double s2 = ss / v.degrees_of_freedom;
  v.relative_sd = std::sqrt(s2);
  v.between_variance = s2 * (1 / ra + 1 / rb);
  v.within_variance = a.within / ra + b.within / rb;
  v.t_quantile = detail::student_t_quantile((1 + level) / 2, v.degrees_of_freedom);
  const double var = std::max(v.between_variance, v.within_variance);
  RatioInterval i;
  i.estimate = std::exp(mb - ma);
  i.low = std::exp(mb - ma - v.t_quantile * std::sqrt(var));
  i.high = std::exp(mb - ma + v.t_quantile * std::sqrt(var));
  i.level = level;
  return {i, v};
}

}  // namespace detail::compare

/// Compares the runs of one experiment: `base` and `candidate` hold one result per run (the same
/// name and dimensions, from several reports per side or the suite runner's repetitions). With one
/// run per side this is compare_results. With more, every run's median is one observation of its
/// side and the run is a random effect (RunVariation): the ratio of the geometric means of the
/// run medians, with a Student-t interval whose variance is the pooled between-run variance
/// (never below the runs' own interval widths); the verdict rule is Verdict's on that interval
/// (slower: it excludes 1 and the estimate exceeds 1 + t; same: it lies within 1 ± t). Cycles
/// or time decide by ClockNormalization, over all runs. The first run of each side gives the
/// settings' differences and the distribution figures shown beside.
///
/// \throws ConfigError for invalid options or an empty side.
inline ExperimentComparison compare_runs(const std::vector<const Result*>& base, const std::vector<const Result*>& candidate,
                                         const CompareOptions& options = {}) {
  using namespace detail::compare;
  validate(options);
  if (base.empty() || candidate.empty() || std::count(base.begin(), base.end(), nullptr) || std::count(candidate.begin(), candidate.end(), nullptr))
    throw ConfigError("compare_runs: each side needs at least one result");
  ExperimentComparison c = compare_results(*base.front(), *candidate.front(), options);
  if (base.size() == 1 && candidate.size() == 1) return c;
  c.base_runs = base.size();
  c.candidate_runs = candidate.size();
  c.notes.erase(std::remove_if(c.notes.begin(), c.notes.end(), [](const std::string& n) { return n.rfind("one run per side", 0) == 0; }),
                c.notes.end());
  // A failed run, or one whose diagnosis says its time is wrong, decides as in compare_results.
  auto first_bad = [](const std::vector<const Result*>& runs) -> const Result* {
    for (const Result* r : runs) {
      if (r->status == Status::failed) return r;
      for (const auto& w : r->warnings)
        if (w.severity == Severity::error) return r;
    }
    return nullptr;
  };
  if (const Result* bad_b = first_bad(candidate)) {
    if (bad_b != candidate.front()) c = compare_results(*base.front(), *bad_b, options);
    c.base_runs = base.size();
    c.candidate_runs = candidate.size();
    return c;
  }
  if (const Result* bad_a = first_bad(base)) {
    if (bad_a != base.front()) c = compare_results(*bad_a, *candidate.front(), options);
    c.base_runs = base.size();
    c.candidate_runs = candidate.size();
    return c;
  }
  for (std::size_t i = 1; i < base.size(); ++i)
    for (auto d : result_differences(*base.front(), *base[i], options.clock_tolerance))
      if (d.invalidates) c.differences.push_back({"base run " + std::to_string(i + 1) + ": " + d.what, d.base, d.candidate, true});
  for (std::size_t i = 1; i < candidate.size(); ++i)
    for (auto d : result_differences(*candidate.front(), *candidate[i], options.clock_tolerance))
      if (d.invalidates) c.differences.push_back({"new run " + std::to_string(i + 1) + ": " + d.what, d.base, d.candidate, true});
  const auto [cycles, cc] = clock_decision(base, candidate, options);
  std::string why;
  const auto ta = run_side(base, false, options, why), tb = ta ? run_side(candidate, false, options, why) : std::nullopt;
  if (!ta || !tb) {
    c.verdict = Verdict::inconclusive;
    c.reason = (ta ? "new side: " : "base side: ") + why;
    return c;
  }
  const auto time = run_level_ratio(*ta, *tb, options.confidence_level);
  std::optional<std::pair<RatioInterval, RunVariation>> cyc;
  if (cc) {
    std::string ignored;
    const auto ca = run_side(base, true, options, ignored), cb = ca ? run_side(candidate, true, options, ignored) : std::nullopt;
    if (ca && cb) cyc = run_level_ratio(*ca, *cb, options.confidence_level);
  }
  const auto& decided = cycles && cyc ? *cyc : time;
  const RatioInterval& i = decided.first;
  const double t = options.threshold;
  // The distribution figures of the first runs stay as shown; the verdict is the run level's.
  c.statistics = {StatisticRatio{Statistic::median, i}};
  c.deciding = {Statistic::median};
  c.mann_whitney.reset();
  c.largest_decile_shift.reset();
  c.bimodal = false;
  c.base_modes.reset();
  c.candidate_modes.reset();
  c.stream_variance.reset();
  c.stream_half_width.reset();
  c.run_variation = decided.second;
  c.headline = c.statistics.front();
  c.base_median_s = std::exp(std::accumulate(ta->logs.begin(), ta->logs.end(), 0.0) / static_cast<double>(ta->logs.size()));
  c.candidate_median_s = std::exp(std::accumulate(tb->logs.begin(), tb->logs.end(), 0.0) / static_cast<double>(tb->logs.size()));
  c.ratio = time.first;
  // The sample counts of every run, and no note that described the first runs only.
  auto samples_of = [&](const std::vector<const Result*>& runs) {
    std::size_t n = 0;
    for (const Result* r : runs) n += finite(options.metric == Metric::gpu_time ? r->gpu_samples_s : r->wall_samples_s).size();
    return n;
  };
  c.base_n = samples_of(base);
  c.candidate_n = samples_of(candidate);
  c.notes.erase(std::remove_if(c.notes.begin(), c.notes.end(),
                               [](const std::string& n) { return n.rfind("rounds as clusters", 0) == 0; }),
                c.notes.end());
  c.clock.reset();
  c.clock_normalized_ratio.reset();
  c.decided_on = "time";
  c.notes.erase(std::remove_if(c.notes.begin(), c.notes.end(),
                               [](const std::string& n) { return n.find("SM clock") != std::string::npos; }),
                c.notes.end());
  attach_clock(c, cc, cycles && cyc, time.first, cyc ? std::optional<RatioInterval>(cyc->first) : std::nullopt, t);
  const auto& v = decided.second;
  const double d = std::log(i.estimate), se = std::sqrt(std::max(v.between_variance, v.within_variance));
  c.p_value = se > 0 ? 2 * (1 - detail::student_t_cdf(std::fabs(d) / se, v.degrees_of_freedom)) : (d == 0 ? 1.0 : 0.0);
  const std::string what = fmt::format("median {} over {} + {} runs {:+.2f} % [{:+.2f}, {:+.2f}] (runs as a random effect: "
                                       "run-to-run SD {:.2f} %, t = {:.3f} with {:g} degrees of freedom, at {:g} %)",
                                       c.decided_on == "cycles" ? "SM cycles" : "time", base.size(), candidate.size(),
                                       100 * (i.estimate - 1), 100 * (i.low - 1), 100 * (i.high - 1), 100 * v.relative_sd,
                                       v.t_quantile, v.degrees_of_freedom, 100 * options.confidence_level);
  if (i.low > 1 && i.estimate > 1 + t) {
    c.verdict = Verdict::slower;
    c.reason = fmt::format("{}: above 1 + {:g} % and the interval excludes 1", what, 100 * t);
  } else if (i.high < 1 && i.estimate < 1 - t) {
    c.verdict = Verdict::faster;
    c.reason = fmt::format("{}: below 1 - {:g} % and the interval excludes 1", what, 100 * t);
  } else if (i.low >= 1 - t && i.high <= 1 + t) {
    c.verdict = Verdict::same;
    c.reason = fmt::format("{}: within 1 ± {:g} %", what, 100 * t);
  } else {
    c.verdict = Verdict::inconclusive;
    c.reason = fmt::format("{}: straddles a bound of 1 ± {:g} %: more runs per side, or a steadier machine, would decide", what,
                           100 * t);
  }
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

namespace detail::compare {

/// The device's memory bandwidth from an environment, bytes/s: 2 (double data rate) × the peak
/// memory clock × the bus width / 8, of GPU `ordinal` (or the first); nullopt when unknown.
inline std::optional<double> memory_bandwidth(const Environment& env, int ordinal) {
  const CudaDeviceInfo* d = nullptr;
  for (const auto& x : env.cuda.devices)
    if (x.ordinal == ordinal) d = &x;
  if (!d && !env.cuda.devices.empty()) d = &env.cuda.devices.front();
  if (!d || !d->memory_clock_max_mhz || !d->memory_bus_width_bits || !(*d->memory_clock_max_mhz > 0) || *d->memory_bus_width_bits <= 0)
    return std::nullopt;
  return 2.0 * *d->memory_clock_max_mhz * 1e6 * static_cast<double>(*d->memory_bus_width_bits) / 8.0;
}

/// Applies the multiplicity rule over the experiments: a `faster` or `slower` whose p-value does
/// not pass Benjamini–Hochberg's step-up (FDR) or Holm's step-down (FWER) at 1 − c becomes `same`
/// when its median's interval lies within 1 ± t, else `inconclusive`, with the reason.
inline void apply_multiplicity(Comparison& out, const CompareOptions& o) {
  std::vector<std::size_t> tested;
  for (std::size_t i = 0; i < out.experiments.size(); ++i)
    if (out.experiments[i].p_value) tested.push_back(i);
  const std::size_t m = tested.size();
  if (m < 2 || o.multiplicity == Multiplicity::none) {
    out.multiplicity_rule = m < 2 ? "" : fmt::format("none: each of {} experiments at {:g} % on its own", m, 100 * o.confidence_level);
    return;
  }
  const double alpha = 1 - o.confidence_level;
  std::sort(tested.begin(), tested.end(),
            [&](std::size_t a, std::size_t b) { return *out.experiments[a].p_value < *out.experiments[b].p_value; });
  std::vector<bool> significant(out.experiments.size(), false);
  if (o.multiplicity == Multiplicity::fdr) {
    std::size_t k = 0;  // the largest rank whose p <= rank alpha / m
    for (std::size_t r = 1; r <= m; ++r)
      if (*out.experiments[tested[r - 1]].p_value <= static_cast<double>(r) * alpha / static_cast<double>(m)) k = r;
    for (std::size_t r = 0; r < k; ++r) significant[tested[r]] = true;
    out.multiplicity_rule = fmt::format("Benjamini-Hochberg false-discovery rate {:g} % over {} experiments", 100 * alpha, m);
  } else {
    for (std::size_t r = 0; r < m; ++r) {
      if (*out.experiments[tested[r]].p_value > alpha / static_cast<double>(m - r)) break;
      significant[tested[r]] = true;
    }
    out.multiplicity_rule = fmt::format("Holm family-wise error rate {:g} % over {} experiments", 100 * alpha, m);
  }
  for (std::size_t i : tested) {
    auto& e = out.experiments[i];
    if (significant[i] || (e.verdict != Verdict::slower && e.verdict != Verdict::faster)) continue;
    const auto& med = e.statistics.empty() ? e.ratio : std::optional<RatioInterval>(e.statistics.front().interval);
    const bool within = med && med->low >= 1 - o.threshold && med->high <= 1 + o.threshold;
    e.reason = fmt::format("{} (p = {}) does not hold under the {}: {}", to_string(e.verdict), format_p(*e.p_value),
                           out.multiplicity_rule, e.reason);
    e.verdict = within ? Verdict::same : Verdict::inconclusive;
  }
}

/// Results of `reports` grouped by name and matching key, in order of first appearance: each
/// group is one experiment's runs on that side.
inline std::vector<std::vector<const Result*>> group_runs(const std::vector<StoredReport>& reports,
                                                         const std::set<std::string>& ignored) {
  std::vector<std::vector<const Result*>> groups;
  for (const auto& rep : reports)
    for (const auto& r : rep.results) {
      const Dimensions key = matching_key(r.dimensions, ignored);
      auto it = std::find_if(groups.begin(), groups.end(), [&](const std::vector<const Result*>& g) {
        return g.front()->name == r.name && matching_key(g.front()->dimensions, ignored) == key;
      });
      if (it == groups.end()) groups.push_back({&r});
      else it->push_back(&r);
    }
  return groups;
}

}  // namespace detail::compare

/// Compares several reports per side (each a run of the same benchmarks, e.g. from separate
/// processes): experiments are matched by name and dimensions (those in
/// `options.ignored_dimensions` left out); all results of one name and dimensions on one side,
/// across its reports (and the repetitions within one), are that experiment's runs, compared by
/// compare_runs; then the multiplicity rule (Multiplicity) over all experiments. Environment
/// differences: between the first report of each side, and between every report of a side and
/// its first (a side whose runs differ among themselves is not comparable either). Timers are
/// compared from the first report of each side (detail::compare::compare_timers).
///
/// \throws ConfigError for invalid options or an empty side.
inline Comparison compare_reports(const std::vector<StoredReport>& base, const std::vector<StoredReport>& candidate,
                                  const CompareOptions& options = {}) {
  using namespace detail::compare;
  validate(options);
  if (base.empty() || candidate.empty()) throw ConfigError("compare_reports: each side needs at least one report");
  Comparison out;
  out.options = options;
  out.base_source = base.front().source;
  out.candidate_source = candidate.front().source;
  for (const auto& r : base) out.base_sources.push_back(r.source);
  for (const auto& r : candidate) out.candidate_sources.push_back(r.source);
  out.environment_differences = environment_differences(base.front().environment, candidate.front().environment);
  auto within_side = [&](const std::vector<StoredReport>& side, const char* which) {
    for (std::size_t i = 1; i < side.size(); ++i)
      for (auto d : environment_differences(side.front().environment, side[i].environment))
        if (d.invalidates)
          out.environment_differences.push_back({std::string(which) + " report " + std::to_string(i + 1) + ": " + d.what, d.base, d.candidate, true});
  };
  within_side(base, "base");
  within_side(candidate, "new");
  const auto groups_a = group_runs(base, options.ignored_dimensions);
  const auto groups_b = group_runs(candidate, options.ignored_dimensions);
  std::vector<bool> used(groups_b.size(), false);
  std::vector<const Result*> matched_base;
  for (const auto& ga : groups_a) {
    const Result& a = *ga.front();
    const Dimensions key = matching_key(a.dimensions, options.ignored_dimensions);
    std::size_t j = 0;
    for (; j < groups_b.size(); ++j)
      if (!used[j] && groups_b[j].front()->name == a.name && matching_key(groups_b[j].front()->dimensions, options.ignored_dimensions) == key)
        break;
    if (j == groups_b.size()) {
      out.only_in_base.push_back(full_label(a));
      continue;
    }
    used[j] = true;
    CompareOptions o = options;
    if (!o.memory_bandwidth_bytes_per_s) o.memory_bandwidth_bytes_per_s = memory_bandwidth(base.front().environment, a.device.ordinal);
    out.experiments.push_back(compare_runs(ga, groups_b[j], o));
    matched_base.push_back(&a);
  }
  for (std::size_t j = 0; j < groups_b.size(); ++j)
    if (!used[j]) out.only_in_candidate.push_back(full_label(*groups_b[j].front()));
  // Hints: an unmatched pair of the same name differs in some dimensions.
  std::set<std::string> hinted;
  for (const auto& ga : groups_a) {
    const Result& a = *ga.front();
    if (hinted.count(a.name)) continue;
    bool matched = false;
    for (const auto& e : out.experiments) matched = matched || (e.name == a.name && e.dimensions == a.dimensions);
    if (matched) continue;
    for (std::size_t j = 0; j < groups_b.size(); ++j) {
      const Result& b = *groups_b[j].front();
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
  apply_multiplicity(out, options);
  // A speed-up beyond 10x: check that the step still does its work (issue "Speed of light").
  for (auto& e : out.experiments)
    if (e.base_median_s && e.candidate_median_s && std::isfinite(*e.base_median_s) && std::isfinite(*e.candidate_median_s) &&
        *e.base_median_s >= 0 && *e.candidate_median_s >= 0)
      if (const auto w = implausible_speedup_warning(*e.base_median_s, *e.candidate_median_s, e.label))
        e.notes.push_back(w->code + ": " + w->message);
  compare_timers(out, base.front(), candidate.front(), options);
  return out;
}

/// Compares two reports: compare_reports({base}, {candidate}, options). An experiment that
/// appears several times in one report (the suite runner's `--repetitions`) has that many runs.
///
/// \param base the reference report; \param candidate the new one.
/// \throws ConfigError for invalid options.
inline Comparison compare_reports(const StoredReport& base, const StoredReport& candidate, const CompareOptions& options = {}) {
  return compare_reports(std::vector<StoredReport>{base}, std::vector<StoredReport>{candidate}, options);
}

namespace detail::compare {

/// The verdict rule and methods in one paragraph, for the renderings.
inline std::string rule_text(const CompareOptions& o) {
  return fmt::format(
      "Verdict: the ratio new/base of the median of {} per step (of SM cycles per step where the work scales with the "
      "SM clock: --clock-normalization {}), of p90 (n >= 100) and, on a GPU, p99 (n >= 1000); the mean is shown, never "
      "decides (except for a bimodal side too small for p90: then it prices the slow mode). One run per side: percentile-bootstrap intervals ({} resamples, seed {}; Efron & Tibshirani 1993) at {:g} % "
      "together (Bonferroni), widened by each side's stream effect (Student t), by drift between its rounds (its single "
      "rounds, then blocks of 2, 4, ... consecutive rounds while at least 8 blocks remain, the largest widening kept: "
      "Flyvbjerg & Petersen 1989) and by --run-spread; the median does not "
      "decide when a side has two modes more than {:g} % apart and separated by their spread (Ashman's D > 2). Several runs per side: the run is a random effect (ratio "
      "of the runs' geometric-mean medians, pooled between-run variance, Student t with runs - 2 degrees of freedom). "
      "slower: the median's interval excludes 1 and its estimate is above 1 + {:g} %, or a tail's whole interval is above "
      "it; faster: likewise below 1 - {:g} %, and none slower; same: the median's interval within 1 ± {:g} % (and, with one run per side on a GPU, no decile moved beyond "
      "it with a two-sided Mann-Whitney U test at p < {:g}); otherwise inconclusive. Over several experiments: {}. "
      "Without samples: the summaries' median intervals.",
      o.metric == Metric::gpu_time ? "GPU time (CPU time for host-backend results)" : "wall time",
      to_string(o.clock_normalization), o.resamples, o.seed, 100 * o.confidence_level, 100 * o.threshold,
      100 * o.threshold, 100 * o.threshold, 100 * o.threshold, 1 - o.confidence_level,
      o.multiplicity == Multiplicity::fdr    ? "Benjamini-Hochberg false-discovery rate at 1 - c"
      : o.multiplicity == Multiplicity::fwer ? "Holm family-wise error rate at 1 - c"
                                             : "no multiplicity control");
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
  if (e.headline) return &*e.headline;
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
  std::string name = s->statistic == Statistic::median ? "" : std::string(to_string(s->statistic)) + " ";
  if (e.decided_on == "cycles") name = "cycles " + name;
  auto num = [](double x) { return std::fabs(x) >= 1e4 || (x != 0 && std::fabs(x) < 1e-3) ? fmt::format("{:.4e}", x) : fmt::format("{:.4f}", x); };
  return fmt::format("{}{} [{}, {}]", name, num(s->interval.estimate), num(s->interval.low), num(s->interval.high));
}
inline std::string change_text(const ExperimentComparison& e) {
  const StatisticRatio* s = shown_statistic(e);
  return s ? signed_percent(s->interval.estimate - 1) : "-";
}
inline std::string p_text(const ExperimentComparison& e) {
  // Over several runs per side the p-value is the run level's Student t, marked so.
  return e.mann_whitney ? format_p(e.mann_whitney->p_value)
         : e.p_value    ? format_p(*e.p_value) + (e.run_variation ? " t" : "")
                        : "-";
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
  auto sources = [](const std::string& first, const std::vector<std::string>& all) {
    return all.size() > 1 ? fmt::format("{} (+{} more: {} runs)", first, all.size() - 1, all.size()) : first;
  };
  std::string out = fmt::format("base: {}\nnew:  {}\n", sources(c.base_source, c.base_sources),
                                sources(c.candidate_source, c.candidate_sources));
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
    for (const auto& n : e.notes) out += fmt::format("    {}\n", detail::escape::visible(n));
  }
  if (!c.multiplicity_rule.empty()) out += "over the experiments: " + c.multiplicity_rule + "\n";
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
  auto runs = [](const std::vector<std::string>& all) { return all.size() > 1 ? fmt::format(" ({} runs)", all.size()) : std::string(); };
  std::string out = fmt::format("**base** `{}`{} → **new** `{}`{}\n\n", md_cell(c.base_source), runs(c.base_sources),
                                md_cell(c.candidate_source), runs(c.candidate_sources));
  out += fmt::format("| experiment | base median | new median | new/base [{:g} % CI] | change | p (U test) | verdict |\n",
                     100 * c.options.confidence_level);
  out += "|---|---:|---:|---|---:|---:|---|\n";
  if (c.experiments.empty()) out += "| (no experiment matched: see below) | | | | | | |\n";
  for (const auto& e : c.experiments)
    out += fmt::format("| {} | {} | {} | {} | {} | {} | **{}** |\n", detail::escape::markdown_name(e.label), detail::format_time(e.base_median_s),
                       detail::format_time(e.candidate_median_s), ratio_text(e), change_text(e), p_text(e), verdict_text(e));
  out += "\n";
  for (const auto& e : c.experiments) {
    out += fmt::format("- {}: {}\n", detail::escape::markdown_name(e.label), md_cell(e.reason));
    for (const auto& dd : e.dimension_differences) out += fmt::format("  - ignored dimension {}\n", md_cell(dd));
    for (const auto& n : e.notes) out += fmt::format("  - {}\n", md_cell(n));
  }
  if (!c.multiplicity_rule.empty()) out += "\nOver the experiments: " + md_cell(c.multiplicity_rule) + ".\n";
  std::string invalid, other;
  for (const auto& d : c.environment_differences)
    (d.invalidates ? invalid : other) += fmt::format("- {}: `{}` → `{}`\n", md_cell(d.what), md_cell(d.base), md_cell(d.candidate));
  for (const auto& e : c.experiments)
    for (const auto& d : e.differences)
      (d.invalidates ? invalid : other) +=
          fmt::format("- {}: {}: `{}` → `{}`\n", detail::escape::markdown_name(e.label), md_cell(d.what), md_cell(d.base), md_cell(d.candidate));
  if (!invalid.empty()) out += "\n**Not comparable**: differences that can change the numbers without a change of code:\n\n" + invalid;
  else out += "\nEnvironment: no difference that invalidates the comparison.\n";
  if (!other.empty()) out += "\nOther differences:\n\n" + other;
  if (!c.only_in_base.empty() || !c.only_in_candidate.empty()) out += "\n";
  for (const auto& l : c.only_in_base) out += "- only in base: " + detail::escape::markdown_name(l) + "\n";
  for (const auto& l : c.only_in_candidate) out += "- only in new: " + detail::escape::markdown_name(l) + "\n";
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
  // Over several runs per side the deciding intervals are the run level's (RunVariation::method).
  auto interval = [&e](const RatioInterval& r) {
    return nlohmann::json{{"estimate", r.estimate}, {"low", r.low},         {"high", r.high},
                          {"level", r.level},       {"resamples", r.resamples}, {"seed", r.seed},
                          {"method", e.run_variation ? RunVariation::method : RatioInterval::method}};
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
  nlohmann::json clock = nullptr, runs = nullptr, headline = nullptr;
  if (e.clock)
    clock = {{"source", e.clock->source},
             {"base_sm_clock_mhz", e.clock->base_sm_clock_mhz},
             {"new_sm_clock_mhz", e.clock->candidate_sm_clock_mhz},
             {"relative_difference", e.clock->relative_difference},
             {"scales_with_clock", e.clock->scales_with_clock},
             {"rule", e.clock->rule},
             {"explains_difference", e.clock->explains_difference}};
  if (e.run_variation)
    runs = {{"base_medians", e.run_variation->base_medians},
            {"new_medians", e.run_variation->candidate_medians},
            {"relative_sd", e.run_variation->relative_sd},
            {"degrees_of_freedom", e.run_variation->degrees_of_freedom},
            {"t_quantile", e.run_variation->t_quantile},
            {"between_variance", e.run_variation->between_variance},
            {"within_variance", e.run_variation->within_variance},
            {"method", RunVariation::method}};
  if (e.headline) {
    headline = interval(e.headline->interval);
    headline["statistic"] = to_string(e.headline->statistic);
  }
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
                     {"base_runs", e.base_runs},
                     {"new_runs", e.candidate_runs},
                     {"decided_on", e.decided_on},
                     {"clock_normalized_ratio", e.clock_normalized_ratio ? interval(*e.clock_normalized_ratio) : nlohmann::json(nullptr)},
                     {"clock", clock},
                     {"run_variation", runs},
                     {"p_value", opt(e.p_value)},
                     {"headline", headline},
                     {"notes", e.notes},
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
      {"schema_version", "1.3.0"},
      {"options",
       {{"threshold", o.threshold},
        {"confidence_level", o.confidence_level},
        {"resamples", o.resamples},
        {"seed", o.seed},
        {"metric", to_string(o.metric)},
        {"ignored_dimensions", o.ignored_dimensions},
        {"clock_tolerance", o.clock_tolerance},
        {"clock_normalization", to_string(o.clock_normalization)},
        {"run_spread", o.run_spread},
        {"multiplicity", to_string(o.multiplicity)}}},
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
      {"base_reports", c.base_sources},
      {"new_reports", c.candidate_sources},
      {"multiplicity_rule", c.multiplicity_rule},
      {"rule", detail::compare::rule_text(o)},
  };
}

}  // namespace gauge
