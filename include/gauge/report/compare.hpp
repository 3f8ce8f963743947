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
#include "gauge/report/console.hpp"
#include "gauge/report/read.hpp"

namespace gauge {

/// Which per-step samples a comparison uses.
enum class Metric {
  gpu_time,   ///< `samples.gpu_time_per_step_s`: GPU time from CUDA events (host clock on the host backend)
  wall_time,  ///< `samples.wall_time_per_step_s`: wall time per step, one sample per wall round
};

/// Text name of a Metric ("gpu_time", "wall_time").
inline const char* to_string(Metric m) { return m == Metric::gpu_time ? "gpu_time" : "wall_time"; }

/// The outcome of comparing one experiment of two reports. With r = median(new) / median(base)
/// (time ratio: below 1 is faster), [lo, hi] its bootstrap confidence interval at level c,
/// p the two-sided Mann–Whitney p-value, alpha = 1 − c and t the noise threshold:
/// - `slower`: lo > 1 + t, p < alpha and U(base) < n_base n_new / 2 — slower by more than the
///   threshold with confidence c, and the U test rejects equal distributions in the same
///   direction (new values tend to be larger);
/// - `faster`: hi < 1 − t, p < alpha and U(base) > n_base n_new / 2 — faster by more than the
///   threshold, likewise;
/// - `same`: 1 − t <= lo and hi <= 1 + t — any difference is within the threshold, with
///   confidence c (an equivalence test by interval inclusion; a significant U test does not
///   change it: a real difference smaller than the noise threshold is "same");
/// - `inconclusive`: anything else (the interval straddles 1 ± t; or it lies beyond, but the U
///   test does not reject, or rejects in the other direction: the medians moved one way and the
///   bulk of the distribution the other), or a side failed, or a side has too few finite samples for a
///   distribution-free confidence interval of its median at level c (n <= 5 at 95 %).
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

/// A percentile-bootstrap confidence interval of a ratio of medians (candidate / base).
struct RatioInterval {
  double estimate = 0;        ///< median(candidate) / median(base) of the samples themselves
  double low = 0;             ///< lower bound: the (1 − level)/2 quantile of the bootstrap ratios
  double high = 0;            ///< upper bound: the (1 + level)/2 quantile
  double level = 0.95;        ///< confidence level
  std::size_t resamples = 0;  ///< bootstrap resamples B
  std::uint64_t seed = 0;     ///< generator seed
  /// How the interval is computed.
  static constexpr const char* method =
      "percentile bootstrap of median(new)/median(base), both samples resampled independently with "
      "replacement (Efron & Tibshirani 1993, ch. 13), medians and quantiles by linear interpolation "
      "(Hyndman-Fan type 7)";
};

/// A two-sided Mann–Whitney U test of two independent samples.
struct MannWhitney {
  /// U of the first sample: R1 − n1 (n1 + 1) / 2, the number of pairs (x, y) with x > y, ties
  /// counting 1/2 (scipy.stats.mannwhitneyu's statistic). Below n1 n2 / 2: x tends to be smaller.
  double u = 0;
  double p_value = 1;  ///< two-sided p-value, in [0, 1]
  /// Standardized statistic (max(U1, U2) − n1 n2 / 2 − 1/2) / sigma with the tie-corrected sigma;
  /// asymptotic method only.
  std::optional<double> z;
  std::string method;  ///< "exact" or "asymptotic"
  std::size_t n1 = 0;  ///< size of the first sample
  std::size_t n2 = 0;  ///< size of the second sample
};

/// How `mann_whitney_u` computes the p-value.
enum class MannWhitneyMethod {
  automatic,   ///< exact when both samples have at most 8 values and there are no ties, else asymptotic
  exact,       ///< the exact null distribution of U (no ties allowed; n1 n2 <= 10^6)
  asymptotic,  ///< the normal approximation with tie and continuity corrections
};

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
  std::optional<double> base_median_s;       ///< median of the base's samples, seconds per step
  std::optional<double> candidate_median_s;  ///< median of the new samples, seconds per step
  std::optional<RatioInterval> ratio;        ///< new / base, when both sides have samples
  std::optional<MannWhitney> mann_whitney;   ///< when both sides have samples
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
};

namespace detail::compare {

/// Throws ConfigError unless `x` is non-empty and every value is finite and > 0.
inline void check_positive_samples(const char* function, const char* which, const std::vector<double>& x) {
  if (x.empty()) throw ConfigError(std::string(function) + ": " + which + " is empty");
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!(std::isfinite(x[i]) && x[i] > 0))
      throw ConfigError(std::string(function) + ": " + which + "[" + std::to_string(i) + "] = " +
                        format_number(x[i]) + " is not a finite time > 0");
}

/// Uniform integer in [0, n), 1 <= n < 2^64, from 64-bit draws: Lemire's multiply-shift with
/// rejection (Lemire 2019, "Fast Random Integer Generation in an Interval", ACM TOMACS 29(1)),
/// unbiased. Unlike std::uniform_int_distribution, whose algorithm each standard library chooses,
/// this gives the same sequence everywhere for a given std::mt19937_64 (whose output the C++
/// standard fixes).
inline std::uint64_t uniform_index(std::mt19937_64& gen, std::uint64_t n) {
  __extension__ typedef unsigned __int128 u128;  // GCC and Clang
  u128 m = static_cast<u128>(gen()) * n;
  auto low = static_cast<std::uint64_t>(m);
  if (low < n) {
    const std::uint64_t threshold = (0 - n) % n;  // 2^64 mod n
    while (low < threshold) {
      m = static_cast<u128>(gen()) * n;
      low = static_cast<std::uint64_t>(m);
    }
  }
  return static_cast<std::uint64_t>(m >> 64);
}

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

/// Type-7 median of a bootstrap resample of ascending `sorted` (n draws with replacement). The
/// resample's order statistics are those of the drawn indices, so it counts the draws per index
/// (`counts`, resized to n) and walks to the middle: O(n), no comparisons.
inline double resample_median_sorted(const std::vector<double>& sorted, std::mt19937_64& gen,
                                     std::vector<std::uint32_t>& counts) {
  const std::size_t n = sorted.size();
  counts.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) ++counts[static_cast<std::size_t>(uniform_index(gen, n))];
  const std::size_t mid = (n - 1) / 2;  // 0-based rank of the (lower) middle value
  std::size_t seen = 0, j = 0;
  while (seen + counts[j] <= mid) seen += counts[j++];
  const double a = sorted[j];
  if (n % 2 == 1) return a;
  std::size_t k = j;
  if (seen + counts[k] <= mid + 1) {  // the upper middle value is the next drawn index
    seen += counts[k++];
    while (counts[k] == 0) ++k;
  }
  return lerp(a, sorted[k], 0.5);
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

/// Percentile-bootstrap confidence interval of the ratio of medians median(candidate) /
/// median(base) (Efron & Tibshirani 1993, *An Introduction to the Bootstrap*, ch. 13, the
/// percentile interval; two-sample bootstrap, ch. 8). Each of B replicates draws n_base values
/// from `base` and n_candidate from `candidate`, uniformly with replacement and independently
/// (base first, then candidate, from one std::mt19937_64 seeded with `seed`; indices into the
/// sorted samples by Lemire's method), and takes the ratio of their type-7 medians; the bounds are
/// the type-7 quantiles (1 − level)/2 and (1 + level)/2 of the B ratios. O(B (n_base +
/// n_candidate)) time: at B = 2000, about 0.3 s for 10^4 samples a side and 3 s for 10^5.
///
/// \param base, candidate per-step times (any unit, the same for both), finite and > 0.
/// \param level confidence level in (0, 1).
/// \param resamples B >= 100.
/// \param seed generator seed: equal inputs and seed give an equal interval on every platform.
/// \throws ConfigError naming an empty sample, a sample value that is not finite and > 0 (with its
///   index), a level outside (0, 1) or B < 100.
inline RatioInterval bootstrap_median_ratio(const std::vector<double>& base, const std::vector<double>& candidate,
                                            double level = 0.95, std::size_t resamples = 2000,
                                            std::uint64_t seed = CompareOptions{}.seed) {
  detail::check_level("bootstrap_median_ratio", level);
  detail::compare::check_positive_samples("bootstrap_median_ratio", "base", base);
  detail::compare::check_positive_samples("bootstrap_median_ratio", "candidate", candidate);
  if (resamples < 100)
    throw ConfigError("bootstrap_median_ratio: resamples must be >= 100, got " + std::to_string(resamples));
  RatioInterval out;
  out.level = level;
  out.resamples = resamples;
  out.seed = seed;
  std::vector<double> a = base, b = candidate;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  out.estimate = detail::percentile_unchecked(b, 50) / detail::percentile_unchecked(a, 50);
  std::mt19937_64 gen(seed);
  std::vector<double> ratios(resamples);
  std::vector<std::uint32_t> counts;
  for (auto& r : ratios) {
    const double mb = detail::compare::resample_median_sorted(a, gen, counts);
    const double mc = detail::compare::resample_median_sorted(b, gen, counts);
    r = mc / mb;
  }
  std::sort(ratios.begin(), ratios.end());
  out.low = detail::percentile_unchecked(ratios, 100.0 * (1.0 - level) / 2.0);
  out.high = detail::percentile_unchecked(ratios, 100.0 * (1.0 + level) / 2.0);
  return out;
}

/// Two-sided Mann–Whitney U test (Mann & Whitney 1947, "On a Test of Whether one of Two Random
/// Variables is Stochastically Larger than the Other", Ann. Math. Statist. 18(1)) of the null
/// hypothesis that a value from `x` is as likely to be below as above a value from `y`.
///
/// U1 = R1 − n1 (n1 + 1) / 2 with R1 the sum of the midranks of `x` in the pooled sample; U2 =
/// n1 n2 − U1. Asymptotic p-value: 2 · P(Z >= z), z = (max(U1, U2) − n1 n2 / 2 − 1/2) / sigma,
/// sigma^2 = n1 n2 / 12 · ((n + 1) − sum(t^3 − t) / (n (n − 1))) over tie groups of size t (tie
/// correction, e.g. Lehmann 1975, *Nonparametrics*), with the continuity correction 1/2; exact
/// p-value: 2 · P(U >= max(U1, U2)) under the null distribution of U (Mann & Whitney's recurrence),
/// both capped at 1. The same as `scipy.stats.mannwhitneyu(x, y, alternative="two-sided",
/// method=...)`; automatic differs from SciPy's "auto" only in using the exact method when
/// *both* samples have at most 8 values (SciPy: either).
///
/// \param x, y samples of any unit, finite; n1, n2 >= 1.
/// \throws ConfigError for an empty sample, a non-finite value (naming it), or `exact` with ties
///   or with n1 n2 > 10^6.
inline MannWhitney mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y,
                                  MannWhitneyMethod method = MannWhitneyMethod::automatic) {
  const std::size_t n1 = x.size(), n2 = y.size();
  if (n1 == 0 || n2 == 0) throw ConfigError("mann_whitney_u: a sample is empty (n1 = " + std::to_string(n1) + ", n2 = " + std::to_string(n2) + ")");
  const std::size_t n = n1 + n2;
  std::vector<std::pair<double, std::size_t>> pooled(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double v = i < n1 ? x[i] : y[i - n1];
    if (!std::isfinite(v))
      throw ConfigError(std::string("mann_whitney_u: ") + (i < n1 ? "x[" + std::to_string(i) : "y[" + std::to_string(i - n1)) +
                        "] = " + detail::format_number(v) + " is not finite");
    pooled[i] = {v, i};
  }
  std::sort(pooled.begin(), pooled.end());
  double r1 = 0;         // sum of the midranks of x
  double tie_term = 0;   // sum of t^3 - t over tie groups
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j + 1 < n && pooled[j + 1].first == pooled[i].first) ++j;
    const double midrank = 0.5 * (static_cast<double>(i + 1) + static_cast<double>(j + 1));
    const double t = static_cast<double>(j - i + 1);
    tie_term += t * t * t - t;
    for (std::size_t k = i; k <= j; ++k)
      if (pooled[k].second < n1) r1 += midrank;
    i = j + 1;
  }
  const double nn1 = static_cast<double>(n1), nn2 = static_cast<double>(n2), nn = static_cast<double>(n);
  MannWhitney out;
  out.n1 = n1;
  out.n2 = n2;
  out.u = r1 - nn1 * (nn1 + 1) / 2;
  const double u_max = std::max(out.u, nn1 * nn2 - out.u);
  const bool ties = tie_term > 0;
  bool exact = method == MannWhitneyMethod::exact;
  if (method == MannWhitneyMethod::automatic) exact = n1 <= 8 && n2 <= 8 && !ties;
  if (exact) {
    if (ties) throw ConfigError("mann_whitney_u: the exact method needs samples without ties");
    if (nn1 * nn2 > 1e6) throw ConfigError("mann_whitney_u: the exact method is limited to n1 n2 <= 1e6");
    // counts[i][j][u]: arrangements of i x-values and j y-values with U = u (U counts pairs x > y):
    // f(i, j, u) = f(i - 1, j, u - j) + f(i, j - 1, u)  (the largest value is an x, or a y).
    const std::size_t m = n1, k = n2;
    std::vector<std::vector<double>> prev(k + 1), cur(k + 1);
    for (std::size_t j = 0; j <= k; ++j) prev[j] = {1.0};  // i = 0: one arrangement, U = 0
    for (std::size_t i = 1; i <= m; ++i) {
      cur[0] = {1.0};
      for (std::size_t j = 1; j <= k; ++j) {
        std::vector<double> f(i * j + 1, 0.0);
        for (std::size_t u = 0; u < prev[j].size(); ++u) f[u + j] += prev[j][u];
        for (std::size_t u = 0; u < cur[j - 1].size(); ++u) f[u] += cur[j - 1][u];
        cur[j] = std::move(f);
      }
      std::swap(prev, cur);
    }
    const std::vector<double>& f = prev[k];
    double total = 0, tail = 0;
    const auto u0 = static_cast<std::size_t>(std::llround(u_max));
    for (std::size_t u = 0; u < f.size(); ++u) {
      total += f[u];
      if (u >= u0) tail += f[u];
    }
    out.method = "exact";
    out.p_value = std::min(1.0, 2.0 * tail / total);
    return out;
  }
  out.method = "asymptotic";
  const double sigma = std::sqrt(nn1 * nn2 / 12.0 * ((nn + 1) - tie_term / (nn * (nn - 1))));
  if (!(sigma > 0)) {  // every value tied: no evidence of a difference
    out.p_value = 1.0;
    return out;
  }
  const double z = (u_max - nn1 * nn2 / 2 - 0.5) / sigma;
  out.z = z;
  out.p_value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));  // 2 * P(Z >= z)
  return out;
}

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
  const double level = options.confidence_level;
  const double t = options.threshold;
  const std::size_t needed = min_samples_for_ci(level);
  if (!a.empty()) {
    std::vector<double> tmp = a;
    c.base_median_s = median_in_place(tmp);
  }
  if (!b.empty()) {
    std::vector<double> tmp = b;
    c.candidate_median_s = median_in_place(tmp);
  }
  auto positive = [](const std::vector<double>& v) {
    return std::all_of(v.begin(), v.end(), [](double x) { return x > 0; });
  };
  if (!a.empty() && !b.empty() && positive(a) && positive(b)) {
    c.ratio = bootstrap_median_ratio(a, b, level, options.resamples, options.seed);
    c.mann_whitney = mann_whitney_u(a, b);
  }

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
  if (a.size() < needed || b.size() < needed) {
    c.verdict = Verdict::inconclusive;
    c.reason = fmt::format("too few samples: n = {} (base) and {} (new); {} or more per side give a distribution-free "
                           "{:g} % confidence interval of the median",
                           a.size(), b.size(), needed, 100 * level);
    return c;
  }
  if (!c.ratio) {
    c.verdict = Verdict::inconclusive;
    c.reason = "a sample is not positive: the ratio of medians is undefined";
    return c;
  }
  const auto& r = *c.ratio;
  const auto& u = *c.mann_whitney;
  const double alpha = 1 - level;
  const double half = static_cast<double>(a.size()) * static_cast<double>(b.size()) / 2;
  const bool new_larger = u.u < half;   // base values tend to be below the new ones
  const bool new_smaller = u.u > half;
  const std::string interval = fmt::format("new/base {:.4f} [{:.4f}, {:.4f}] at {:g} %", r.estimate, r.low, r.high, 100 * level);
  const std::string test = fmt::format("Mann-Whitney p = {}", format_p(u.p_value));
  if (r.low > 1 + t && u.p_value < alpha && new_larger) {
    c.verdict = Verdict::slower;
    c.reason = fmt::format("{}: the whole interval is above 1 + {:g} % and {} < {:g}", interval, 100 * t, test, alpha);
  } else if (r.high < 1 - t && u.p_value < alpha && new_smaller) {
    c.verdict = Verdict::faster;
    c.reason = fmt::format("{}: the whole interval is below 1 - {:g} % ({:.3g}x speedup) and {} < {:g}", interval, 100 * t,
                           1 / r.estimate, test, alpha);
  } else if (r.low >= 1 - t && r.high <= 1 + t) {
    c.verdict = Verdict::same;
    c.reason = fmt::format("{}: the whole interval is within 1 ± {:g} % ({})", interval, 100 * t, test);
  } else {
    c.verdict = Verdict::inconclusive;
    if ((r.low > 1 + t || r.high < 1 - t) && u.p_value < alpha)
      c.reason = fmt::format("{} is beyond 1 ± {:g} %, but the U test ({}) finds the new samples stochastically {}: "
                             "the median moved one way, the bulk of the distribution the other; look at the plots",
                             interval, 100 * t, test, new_larger ? "larger" : "smaller");
    else if (r.low > 1 + t || r.high < 1 - t)
      c.reason = fmt::format("{} is beyond 1 ± {:g} %, but {} >= {:g}", interval, 100 * t, test, alpha);
    else
      c.reason = fmt::format("{} straddles a bound of 1 ± {:g} %: more samples or a quieter machine would decide ({})",
                             interval, 100 * t, test);
  }
  return c;
}

/// Compares two reports: matches experiments by name and dimensions (those in
/// `options.ignored_dimensions` left out; repeated keys are matched in order), compares each pair
/// with compare_results, and lists environment differences and unmatched experiments.
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
  return out;
}

namespace detail::compare {

/// The verdict rule and methods in one paragraph, for the renderings.
inline std::string rule_text(const CompareOptions& o) {
  return fmt::format(
      "Verdict: new/base is the ratio of median {} per step; its {:g} % interval is a percentile bootstrap "
      "({} resamples, seed {}; Efron & Tibshirani 1993); p is a two-sided Mann-Whitney U test (Mann & Whitney 1947). "
      "slower: interval above 1 + {:g} % and p < {:g} with the new samples stochastically larger; faster: interval "
      "below 1 - {:g} % and p < {:g} with them smaller; same: interval within 1 ± {:g} %; otherwise inconclusive.",
      o.metric == Metric::gpu_time ? "GPU time (CPU time for host-backend results)" : "wall time",
      100 * o.confidence_level, o.resamples, o.seed,
      100 * o.threshold, 1 - o.confidence_level, 100 * o.threshold, 1 - o.confidence_level, 100 * o.threshold);
}

inline std::string ratio_text(const ExperimentComparison& e) {
  if (!e.ratio) return "-";
  return fmt::format("{:.4f} [{:.4f}, {:.4f}]", e.ratio->estimate, e.ratio->low, e.ratio->high);
}
inline std::string change_text(const ExperimentComparison& e) {
  return e.ratio ? signed_percent(e.ratio->estimate - 1) : "-";
}
inline std::string p_text(const ExperimentComparison& e) {
  return e.mann_whitney ? format_p(e.mann_whitney->p_value) : "-";
}
/// Escapes '|' for a Markdown table cell.
inline std::string md_cell(std::string s) {
  std::string out;
  for (char ch : s) {
    if (ch == '|') out += "\\|";
    else if (ch == '\n') out += ' ';
    else out += ch;
  }
  return out;
}

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
  out += fmt::format("{:<{}}  {:>11}  {:>11}  {:<27}  {:>9}  {:>9}  {}\n", "experiment", width, "base median", "new median",
                     ci_head, "change", "p (U)", "verdict");
  for (const auto& e : c.experiments) {
    out += fmt::format("{:<{}}  {:>11}  {:>11}  {:<27}  {:>9}  {:>9}  {}\n", e.label, width,
                       detail::format_time(e.base_median_s), detail::format_time(e.candidate_median_s), ratio_text(e),
                       change_text(e), p_text(e), to_string(e.verdict));
  }
  for (const auto& e : c.experiments) {
    out += fmt::format("  {}: {}: {}\n", e.label, to_string(e.verdict), e.reason);
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
                       detail::format_time(e.candidate_median_s), ratio_text(e), change_text(e), p_text(e), to_string(e.verdict));
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
  for (const auto& [k, v] : e.dimensions) std::visit([&](const auto& x) { dims[k] = x; }, v);
  nlohmann::json ratio = nullptr, mw = nullptr;
  if (e.ratio)
    ratio = {{"estimate", e.ratio->estimate}, {"low", e.ratio->low},         {"high", e.ratio->high},
             {"level", e.ratio->level},       {"resamples", e.ratio->resamples}, {"seed", e.ratio->seed},
             {"method", RatioInterval::method}};
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
      {"schema_version", "1.0.0"},
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
      {"environment_differences", c.environment_differences},
      {"experiments", c.experiments},
      {"only_in_base", c.only_in_base},
      {"only_in_new", c.only_in_candidate},
      {"notes", c.notes},
      {"rule", detail::compare::rule_text(o)},
  };
}

}  // namespace gauge
