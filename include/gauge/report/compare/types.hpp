#pragma once
/// \file gauge/report/compare/types.hpp
/// The types and settings of a comparison (gauge/report/compare.hpp): the Metric compared, the
/// verdict's rule, ClockNormalization and Multiplicity, CompareOptions and its validation, the
/// outcome of one experiment (ExperimentComparison) and of two reports (Comparison), and the gate
/// over them (GateOutcome, `gate`).

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/dimensions.hpp"
#include "gauge/core/error.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/core/two_sample.hpp"
#include "gauge/core/verdict.hpp"

namespace gauge {

/// Which per-step samples a comparison uses.
enum class Metric {
  /// `samples.gpu_time_per_step_s`: the per-step samples, as the result's `time_label` says: GPU
  /// time from CUDA events, or real time from the steady clock on the host backend.
  gpu_time,
  wall_time,  ///< `samples.wall_time_per_step_s`: wall time per step, one sample per wall round
  /// `samples.cpu_time_per_step_s`: process CPU time per step, one sample per measured round
  /// (host timing only; gauge/core/cpu_clock.hpp). Schema 1.7.
  cpu_time,
};

/// Text name of a Metric ("gpu_time", "wall_time", "cpu_time").
inline const char* to_string(Metric m) {
  return m == Metric::gpu_time ? "gpu_time" : m == Metric::wall_time ? "wall_time" : "cpu_time";
}

namespace compare {
/// The samples of `r` that `m` names (Result::gpu_samples_s, wall_samples_s or cpu_samples_s).
inline const std::vector<double>& metric_samples(const Result& r, Metric m) {
  return m == Metric::gpu_time ? r.gpu_samples_s : m == Metric::wall_time ? r.wall_samples_s : r.cpu_samples_s;
}
/// The summary of `r` that `m` names (Result::gpu_time, wall_time or cpu_time).
inline const Summary& metric_summary(const Result& r, Metric m) {
  return m == Metric::gpu_time ? r.gpu_time : m == Metric::wall_time ? r.wall_time : r.cpu_time;
}

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
//    sides are reported and compared instead (`bimodal`). Unless the median is steady on every
//    bimodal side: the middle half of its steps (Q25 to Q75) spans at most t, so a quarter of
//    the steps would have to change mode to move it by t; then it decides (a slow tenth of
//    descheduled steps in the base does not hide a +10 % change of the rest). Not where both
//    sides have the same two modes and their medians lie in different ones (the weights
//    flipped). A median steady against a tenth of the steps (Q40 to Q60 within t) whose whole
//    interval moved beyond 1 ± t vetoes `faster` against it, and `same` (where both sides have
//    the same two modes, only with the mean's whole interval beyond 1 ± t the same way):
//    inconclusive (the distribution changed shape). Likewise a tail: p90 (or p99) of a pair
//    with a bimodal side does not decide where it sits in the gap of a slow mode both sides
//    have: on a side the quantiles at q ± (1 − q) / 2 are more than t apart, the two tails
//    differ by more than t, and each side's tail value is taken by at least max(5, (1 − q) / 4)
//    of the other side's steps
//    (within 1 ± t), all after the body's move (the ratio of medians, where the median
//    decides). Only the slow mode's weight moved; the mean, which prices that weight,
//    decides in its place (an interval across 1 ± t: inconclusive). A tail that spans a gap on
//    a side and whose interval lies across 1 and beyond 1 ± t (p90 at the edge of a slow mode
//    of ~10 % of the steps) confirms nothing: the mean decides in its place too, unless its
//    interval is not finite (a mean that moved beyond 1 ± t there without confirming it:
//    inconclusive). p99 needs no mode found for this: where it spans on a side (a continuous
//    tail, or a slow minority of ~1 % of the steps, too few for a mode) and its interval lies
//    across 1 + t or 1 − t, then where both sides take such slow steps (the other side's
//    slowest step is at least the spanning side's Q(0.9925) / (1 + t)) the mean decides in its
//    place, inconclusive where its interval excludes 1 with the estimate beyond 1 ± t but does
//    not lie beyond; where only one side has them, p99 stays, the mean decides beside it, and
//    an estimate of either beyond 1 ± t that its interval does not confirm is inconclusive.
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
//    only veto `same` (no interval without samples). `from_summary` says so. Each side's stored
//    interval must be at the confidence level asked at least, else `inconclusive`.
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
}  // namespace compare
using compare::to_string;  // gauge::to_string names every enum of gauge

namespace compare {
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
}  // namespace compare
using compare::to_string;  // gauge::to_string names every enum of gauge

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
  compare::ClockNormalization clock_normalization = compare::ClockNormalization::automatic;
  /// The workload's known run-to-run spread: the relative standard deviation of a run's median
  /// between separate runs (0.01 = 1 %), e.g. the `run_variation.relative_sd` an earlier
  /// comparison of several reports per side printed. With one report per side it widens the
  /// interval by sqrt(2) × this × z; 0 (default): unknown, and the interval covers the noise
  /// within each run only (the comparison says so).
  double run_spread = 0;
  /// False-verdict control over the experiments of one comparison.
  compare::Multiplicity multiplicity = compare::Multiplicity::fdr;
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

namespace compare {
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
  std::optional<stats::RatioInterval> ratio;
  /// Every statistic's ratio with its interval, in the order median, mean, p90, p99 (those the
  /// sample sizes allow); from summaries: the median with an interval, the others point estimates
  /// only (low == high == estimate, `resamples` 0).
  std::vector<stats::StatisticRatio> statistics;
  /// The statistics that decided the verdict (the median is left out when a side is bimodal).
  std::vector<stats::Statistic> deciding;
  std::optional<stats::MannWhitney> mann_whitney; ///< when both sides have samples
  /// The largest |decile ratio − 1| over p10…p90 (the shift of the distribution's body), with
  /// the decile's percentile; when both sides have samples.
  std::optional<std::pair<int, double>> largest_decile_shift;
  bool bimodal = false;                      ///< a side has two modes (`base_modes`, `candidate_modes`)
  std::optional<stats::Modes> base_modes;    ///< two-group split of the base's samples
  std::optional<stats::Modes> candidate_modes; ///< two-group split of the new samples
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
  std::optional<stats::RatioInterval> clock_normalized_ratio;
  std::optional<ClockComparison> clock;     ///< both sides' clocks, where known
  std::optional<RunVariation> run_variation;  ///< with several runs on a side
  /// Two-sided p-value of "no change" of the deciding estimate (normal on the log scale from its
  /// interval; Student t across runs), Bonferroni over the deciding statistics; for the
  /// multiplicity rule over experiments.
  std::optional<double> p_value;
  /// The estimate that decided, with its interval (the headline change is its estimate − 1).
  std::optional<stats::StatisticRatio> headline;
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
}  // namespace compare

/// The comparison of two reports.
struct Comparison {
  CompareOptions options;            ///< the settings used
  std::string base_source;           ///< the base report's path
  std::string candidate_source;      ///< the new report's path
  std::vector<compare::EnvironmentDifference> environment_differences; ///< report-wide differences
  std::vector<compare::ExperimentComparison> experiments;      ///< matched experiments, in the base's order
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

namespace compare {
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
}  // namespace compare
using compare::to_string;  // gauge::to_string names every enum of gauge

namespace compare {
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
}  // namespace compare

}  // namespace gauge
