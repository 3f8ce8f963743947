#pragma once
/// \file gauge/core/two_sample.hpp
/// Two-sample statistics of per-step times, standard library only: bootstrap confidence
/// intervals of ratios new / base of several statistics (median, mean, p90, p99) from one joint
/// percentile bootstrap, the Mann–Whitney U test, and the detection of two modes in a sample.
/// `gauge/report/compare.hpp` builds its verdicts on them; they are public so that a test can
/// call them on its own samples.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/error.hpp"
#include "gauge/core/statistics.hpp"

namespace gauge {
namespace stats {
/// A statistic of a sample of per-step times that a comparison looks at.
enum class Statistic {
  median,  ///< type-7 50th percentile
  mean,    ///< arithmetic mean
  p90,     ///< type-7 90th percentile
  p99,     ///< type-7 99th percentile
};

/// Text name of a Statistic ("median", "mean", "p90", "p99").
inline const char* to_string(Statistic s) {
  switch (s) {
    case Statistic::median: return "median";
    case Statistic::mean: return "mean";
    case Statistic::p90: return "p90";
    case Statistic::p99: return "p99";
  }
  return "?";
}
}  // namespace stats
using stats::to_string;  // gauge::to_string names every enum of gauge

namespace stats {
/// A percentile-bootstrap confidence interval of a ratio of one statistic (candidate / base).
struct RatioInterval {
  double estimate = 0;        ///< statistic(candidate) / statistic(base) of the samples themselves
  double low = 0;             ///< lower bound: the (1 − level)/2 quantile of the bootstrap ratios
  double high = 0;            ///< upper bound: the (1 + level)/2 quantile
  double level = 0.95;        ///< confidence level
  std::size_t resamples = 0;  ///< bootstrap resamples B
  std::uint64_t seed = 0;     ///< generator seed
  /// How the interval is computed.
  static constexpr const char* method =
      "percentile bootstrap of statistic(new)/statistic(base), both samples resampled independently with "
      "replacement (Efron & Tibshirani 1993, ch. 13), medians and quantiles by linear interpolation "
      "(Hyndman-Fan type 7)";
};

/// The interval of one statistic's ratio, from `bootstrap_ratios`.
struct StatisticRatio {
  Statistic statistic = Statistic::median;  ///< which statistic
  RatioInterval interval;                   ///< new / base with its interval
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

/// One of two modes of a sample (see `find_modes`).
struct Mode {
  double median = 0;     ///< type-7 median of the mode's values
  double weight = 0;     ///< its share of the sample, in (0, 1)
  std::size_t n = 0;     ///< its number of values
  double low = 0;        ///< its smallest value
  double high = 0;       ///< its largest value
};

/// The split of a sample into two groups and whether they are two separate modes.
struct Modes {
  /// True when the sample has two modes: each holds at least `min_weight` of the values, their
  /// medians are more than `min_separation` apart, and fewer than `max_middle_fraction` of all
  /// values lie in the middle half between the two medians.
  bool bimodal = false;
  Mode lower;                    ///< the group of smaller values
  Mode upper;                    ///< the group of larger values
  double middle_fraction = 1;    ///< share of all values in the middle half between the medians
  static constexpr double min_weight = 0.10;           ///< a smaller group is a tail, not a mode
  static constexpr double max_middle_fraction = 0.10;  ///< a fuller middle is one broad mode
  /// How the groups are found.
  static constexpr const char* method =
      "two groups split where the between-group variance is largest (Otsu 1979, exact over the sorted sample); "
      "two modes when each group holds >= 10 % of the values and < 10 % of all values lie in the middle half "
      "between the groups' medians";
};
}  // namespace stats

namespace detail {

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

/// The percentile (0–100) a quantile Statistic stands for; -1 for the mean.
inline double percentile_of(stats::Statistic s) {
  switch (s) {
    case stats::Statistic::median: return 50;
    case stats::Statistic::p90: return 90;
    case stats::Statistic::p99: return 99;
    case stats::Statistic::mean: break;
  }
  return -1;
}

/// The statistic of ascending `sorted` (n >= 1).
inline double statistic_sorted(const std::vector<double>& sorted, stats::Statistic s) {
  if (s != stats::Statistic::mean) return percentile_unchecked(sorted, percentile_of(s));
  double sum = 0;
  for (double v : sorted) sum += v;
  return sum / static_cast<double>(sorted.size());
}

/// Draws a bootstrap resample of ascending `sorted` (n indices with replacement) as counts per
/// index, and writes each requested statistic of the resample into `out`. The resample's order
/// statistics are those of the drawn indices, so a type-7 quantile is read by walking the counts:
/// O(n), no comparisons.
inline void resample_statistics_sorted(const std::vector<double>& sorted, std::mt19937_64& gen,
                                       std::vector<std::uint32_t>& counts, const std::vector<stats::Statistic>& stats,
                                       std::vector<double>& out) {
  const std::size_t n = sorted.size();
  counts.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) ++counts[static_cast<std::size_t>(uniform_index(gen, n))];
  out.assign(stats.size(), 0);
  // The value of 0-based rank r of the resample: the index j whose cumulative count passes r.
  auto at_rank = [&](std::size_t r, std::size_t& j, std::size_t& seen) {
    while (seen + counts[j] <= r) seen += counts[j++];
    return sorted[j];
  };
  for (std::size_t s = 0; s < stats.size(); ++s) {
    if (stats[s] == stats::Statistic::mean) {
      double sum = 0;
      for (std::size_t j = 0; j < n; ++j) sum += counts[j] * sorted[j];
      out[s] = sum / static_cast<double>(n);
      continue;
    }
    const double h = static_cast<double>(n - 1) * (percentile_of(stats[s]) / 100.0);
    const double below = std::floor(h);
    const auto r = static_cast<std::size_t>(below);
    std::size_t j = 0, seen = 0;
    const double a = at_rank(r, j, seen);
    if (r + 1 >= n || h == below) {
      out[s] = a;
      continue;
    }
    out[s] = lerp(a, at_rank(r + 1, j, seen), h - below);
  }
}

/// bootstrap_ratios, its errors named after `function`.
inline std::vector<stats::StatisticRatio> bootstrap_ratios_as(const char* function, const std::vector<double>& base,
                                                       const std::vector<double>& candidate,
                                                       const std::vector<stats::Statistic>& statistics, double level,
                                                       std::size_t resamples, std::uint64_t seed) {
  const std::string name = function;
  check_level(function, level);
  check_positive_samples(function, "base", base);
  check_positive_samples(function, "candidate", candidate);
  if (statistics.empty()) throw ConfigError(name + ": no statistic requested");
  if (resamples < 100) throw ConfigError(name + ": resamples must be >= 100, got " + std::to_string(resamples));
  std::vector<double> a = base, b = candidate;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  const std::size_t k = statistics.size();
  std::vector<std::vector<double>> ratios(k, std::vector<double>(resamples));
  std::mt19937_64 gen(seed);
  std::vector<std::uint32_t> counts;
  std::vector<double> sa, sb;
  for (std::size_t r = 0; r < resamples; ++r) {
    resample_statistics_sorted(a, gen, counts, statistics, sa);
    resample_statistics_sorted(b, gen, counts, statistics, sb);
    for (std::size_t s = 0; s < k; ++s) ratios[s][r] = sb[s] / sa[s];
  }
  std::vector<stats::StatisticRatio> out(k);
  for (std::size_t s = 0; s < k; ++s) {
    auto& v = ratios[s];
    std::sort(v.begin(), v.end());
    out[s].statistic = statistics[s];
    stats::RatioInterval& i = out[s].interval;
    i.estimate = statistic_sorted(b, statistics[s]) / statistic_sorted(a, statistics[s]);
    i.low = percentile_unchecked(v, 100.0 * (1.0 - level) / 2.0);
    i.high = percentile_unchecked(v, 100.0 * (1.0 + level) / 2.0);
    i.level = level;
    i.resamples = resamples;
    i.seed = seed;
  }
  return out;
}
}  // namespace detail

namespace stats {
/// Percentile-bootstrap confidence intervals of the ratios statistic(candidate) /
/// statistic(base) of several statistics at once (Efron & Tibshirani 1993, *An Introduction to
/// the Bootstrap*, ch. 13, the percentile interval; two-sample bootstrap, ch. 8). Each of B
/// replicates draws n_base values from `base` and n_candidate from `candidate`, uniformly with
/// replacement and independently (base first, then candidate, from one std::mt19937_64 seeded
/// with `seed`; indices into the sorted samples by Lemire's method), and takes the ratio of each
/// statistic (type-7 quantiles; the mean); the bounds are the type-7 quantiles (1 − level)/2 and
/// (1 + level)/2 of the B ratios of each statistic. The replicates are shared by all statistics,
/// so the median's interval equals `bootstrap_median_ratio`'s for the same inputs and seed.
/// O(B (n_base + n_candidate)) time: at B = 2000, about 0.3 s for 10^4 samples a side.
///
/// \param base, candidate per-step times (any unit, the same for both), finite and > 0.
/// \param statistics which ratios, in the order of the result; not empty.
/// \param level confidence level of each interval, in (0, 1).
/// \param resamples B >= 100.
/// \param seed generator seed: equal inputs and seed give equal intervals on every platform.
/// \throws ConfigError naming an empty sample, a sample value that is not finite and > 0 (with its
///   index), no statistic, a level outside (0, 1) or B < 100.
inline std::vector<StatisticRatio> bootstrap_ratios(const std::vector<double>& base, const std::vector<double>& candidate,
                                                    const std::vector<Statistic>& statistics, double level = 0.95,
                                                    std::size_t resamples = 2000, std::uint64_t seed = 20261130) {
  return detail::bootstrap_ratios_as("bootstrap_ratios", base, candidate, statistics, level, resamples, seed);
}

/// The percentile-bootstrap confidence interval of median(candidate) / median(base):
/// `bootstrap_ratios(base, candidate, {Statistic::median}, ...)`. About 3 s for 10^5 samples a
/// side at B = 2000.
/// \throws ConfigError as bootstrap_ratios.
inline RatioInterval bootstrap_median_ratio(const std::vector<double>& base, const std::vector<double>& candidate,
                                            double level = 0.95, std::size_t resamples = 2000,
                                            std::uint64_t seed = 20261130) {
  return detail::bootstrap_ratios_as("bootstrap_median_ratio", base, candidate, {Statistic::median}, level, resamples, seed)
      .front()
      .interval;
}

/// Splits ascending `sorted` into two groups and says whether they are two modes (rule and
/// method at `Modes`): the split point maximizes the between-group variance w0 w1 (m0 − m1)^2
/// over the splits between distinct values that leave each group at least `Modes::min_weight`
/// of the values (Otsu 1979, "A Threshold Selection Method from Gray-Level Histograms", IEEE
/// SMC 9(1), the exact one-dimensional two-means split). A sample of fewer than 20 values, or
/// with no admissible split, is not bimodal (its groups are then empty).
///
/// \param sorted ascending finite values (e.g. per-step times).
/// \param min_separation the two medians must be more than this apart to count as modes (e.g.
///   two ticks of the clock that measured the sample, so that quantization is not a mode).
/// \throws ConfigError if `sorted` is not ascending or holds a non-finite value.
inline Modes find_modes(const std::vector<double>& sorted, double min_separation = 0) {
  detail::check_sorted("find_modes", sorted);
  Modes m;
  const std::size_t n = sorted.size();
  if (n < 20) return m;
  const auto min_n = static_cast<std::size_t>(std::ceil(Modes::min_weight * static_cast<double>(n)));
  // Prefix sums relative to the first value, for precision, and in units of the range, so that
  // neither 1e306 s nor 1e-300 s overflows or underflows the between-group variance.
  const double x0 = sorted[0], range = sorted[n - 1] - sorted[0];
  if (!(range > 0) || !std::isfinite(range)) return m;
  double total = 0;
  for (double v : sorted) total += (v - x0) / range;
  double prefix = 0, best = -1;
  std::size_t split = 0;
  for (std::size_t k = 1; k < n; ++k) {
    prefix += (sorted[k - 1] - x0) / range;
    if (k < min_n || n - k < min_n || !(sorted[k - 1] < sorted[k])) continue;
    const double w0 = static_cast<double>(k), w1 = static_cast<double>(n - k);
    const double d = prefix / w0 - (total - prefix) / w1;
    const double between = w0 * w1 * d * d;
    if (between > best) {
      best = between;
      split = k;
    }
  }
  if (split == 0) return m;
  auto mode = [&](std::size_t from, std::size_t to) {
    Mode g;
    g.n = to - from;
    g.weight = static_cast<double>(g.n) / static_cast<double>(n);
    g.low = sorted[from];
    g.high = sorted[to - 1];
    const double h = static_cast<double>(g.n - 1) * 0.5;
    const auto i = from + static_cast<std::size_t>(std::floor(h));
    g.median = g.n % 2 == 1 ? sorted[i] : detail::lerp(sorted[i], sorted[i + 1], 0.5);
    return g;
  };
  m.lower = mode(0, split);
  m.upper = mode(split, n);
  const double gap = m.upper.median - m.lower.median;
  const double lo = m.lower.median + gap / 4, hi = m.upper.median - gap / 4;
  const auto in_middle = std::upper_bound(sorted.begin(), sorted.end(), hi) - std::lower_bound(sorted.begin(), sorted.end(), lo);
  m.middle_fraction = gap > 0 ? static_cast<double>(in_middle) / static_cast<double>(n) : 1.0;
  m.bimodal = gap > min_separation && gap > 0 && m.middle_fraction < Modes::max_middle_fraction;
  return m;
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
  if (n1 == 0 || n2 == 0)
    throw ConfigError("mann_whitney_u: a sample is empty (n1 = " + std::to_string(n1) + ", n2 = " + std::to_string(n2) + ")");
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
  double r1 = 0;        // sum of the midranks of x
  double tie_term = 0;  // sum of t^3 - t over tie groups
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
}  // namespace stats

}  // namespace gauge
