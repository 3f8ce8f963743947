#pragma once
/// \file gauge/core/summary.hpp
/// The distribution summary's types (plain data): `Summary`, `ConfidenceInterval`, `Outliers`.
/// The functions that compute them are in gauge/core/statistics.hpp.

#include <cstddef>
#include <optional>

namespace gauge {
namespace stats {
/// A confidence interval of the population median built from two order statistics of the sample.
/// `low`/`high` are in the unit of the samples; ranks are 1-based positions in the ascending sample
/// (`low == sorted[lower_rank - 1]`, `high == sorted[upper_rank - 1]`,
/// `upper_rank == n + 1 - lower_rank`).
struct ConfidenceInterval {
  double low = 0.0;              ///< lower bound, unit of the samples: the order statistic x(lower_rank)
  double high = 0.0;             ///< upper bound, unit of the samples: the order statistic x(upper_rank)
  double level = 0.0;            ///< requested confidence level in (0, 1), e.g. 0.95
  double coverage = 0.0;         ///< achieved coverage P(l <= B <= n - l), B ~ Binomial(n, 1/2); >= level
  std::size_t lower_rank = 0;    ///< 1-based rank l of the lower order statistic
  std::size_t upper_rank = 0;    ///< 1-based rank u = n + 1 - l of the upper order statistic
};

/// Counts of Tukey outliers (Tukey 1977, *Exploratory Data Analysis*), by side and severity.
/// With Q1, Q3 the 25th/75th percentiles (type 7) and IQR = Q3 - Q1:
/// low severe: x < Q1 - 3 IQR; low mild: Q1 - 3 IQR <= x < Q1 - 1.5 IQR;
/// high mild: Q3 + 1.5 IQR < x <= Q3 + 3 IQR; high severe: x > Q3 + 3 IQR.
/// A sample exactly on a fence belongs to the inner side (is not an outlier / is only mild).
struct Outliers {
  std::size_t low_severe = 0;   ///< samples below Q1 - 3 IQR
  std::size_t low_mild = 0;     ///< samples in [Q1 - 3 IQR, Q1 - 1.5 IQR)
  std::size_t high_mild = 0;    ///< samples in (Q3 + 1.5 IQR, Q3 + 3 IQR]
  std::size_t high_severe = 0;  ///< samples above Q3 + 3 IQR
  /// Number of outliers of any kind: the sum of the four counts.
  std::size_t total() const noexcept { return low_severe + low_mild + high_mild + high_severe; }
};
}  // namespace stats

/// The distribution summary written into every report. All values are in the unit of the
/// samples, except `n` (a count), `cv` and `median_ci_relative_width` (dimensionless ratios) and
/// `confidence_level` (a probability).
///
/// Undefined values are std::nullopt, never NaN and never 0:
/// - n == 0: everything but `n`, `outliers` (all 0) and `confidence_level` is nullopt;
/// - n == 1: min, max, every percentile and mean are the sample; `mad` and `iqr` are 0 (by their
///   definitions: the one absolute deviation is 0, and p75 == p25); stddev, cv, median_ci and
///   median_ci_relative_width are nullopt;
/// - n >= 2: `stddev` is defined; `cv` is nullopt when mean == 0; `median_ci` is nullopt while
///   the sample is too small for `confidence_level` (n <= 5 at 0.95);
///   `median_ci_relative_width` is nullopt without a CI or when p50 == 0. A ratio that would
///   overflow (divisor subnormal) is nullopt too.
struct Summary {
  std::size_t n = 0;            ///< number of samples
  std::optional<double> min;    ///< smallest sample (== p0)
  std::optional<double> p1;     ///< 1st percentile, `percentile_method`
  std::optional<double> p5;     ///< 5th percentile
  std::optional<double> p10;    ///< 10th percentile
  std::optional<double> p25;    ///< 25th percentile (first quartile)
  std::optional<double> p50;    ///< 50th percentile (median)
  std::optional<double> p75;    ///< 75th percentile (third quartile)
  std::optional<double> p90;    ///< 90th percentile
  std::optional<double> p95;    ///< 95th percentile
  std::optional<double> p99;    ///< 99th percentile
  std::optional<double> max;    ///< largest sample (== p100)
  std::optional<double> mean;   ///< arithmetic mean (compensated two-pass)
  std::optional<double> stddev; ///< sample standard deviation (ddof = 1), `np.std(x, ddof=1)`; n >= 2
  std::optional<double> cv;     ///< coefficient of variation stddev / mean (signed); nullopt if mean == 0
  /// Median absolute deviation from the median, unscaled: median(|x - p50|), as
  /// `scipy.stats.median_abs_deviation(x)` (scale = 1; multiply by 1.4826 for a normal sigma).
  std::optional<double> mad;
  std::optional<double> iqr;    ///< interquartile range p75 - p25
  std::optional<stats::ConfidenceInterval> median_ci; ///< `median_confidence_interval` at `confidence_level`
  std::optional<double> median_ci_relative_width;  ///< (high - low) / p50; nullopt if no CI or p50 == 0
  stats::Outliers outliers;          ///< `tukey_outliers` (all 0 for n == 0)
  double confidence_level = 0.95;    ///< the level requested for `median_ci`
  /// How the percentiles (and p50, IQR, MAD's medians, the Tukey quartiles) are computed.
  static constexpr const char* percentile_method =
      "linear interpolation (Hyndman-Fan type 7, NumPy default)";
  /// How `median_ci` is computed.
  static constexpr const char* median_ci_method =
      "distribution-free order statistics x(l), x(n+1-l), narrowest with exact Binomial(n, 1/2) "
      "coverage >= level (Conover 1999; Hahn & Meeker 1991)";
  /// How `outliers` are counted.
  static constexpr const char* outlier_method =
      "Tukey fences (1.5 IQR mild, 3 IQR severe), the IQR at least the clock's tick per step";
};

}  // namespace gauge
