#pragma once
/// \file gauge/core/statistics.hpp
/// Distribution statistics of benchmark samples: percentiles (Hyndman & Fan type 7), a
/// distribution-free confidence interval of the median, Tukey's outlier fences, and the
/// `Summary` written into every report. Standard library only; header-only; thread-safe (no
/// global state: no `std::lgamma`, whose `signgam` is a data race in glibc).
///
/// Every function that takes `sorted` checks, in O(n), that it is finite and ascending, and throws
/// `gauge::ConfigError` naming the first offending index otherwise.

#include "gauge/core/error.hpp"
#include "gauge/core/summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <charconv>
#include <optional>
#include <string>
#include <vector>

namespace gauge {

namespace detail {

/// Formats `v` with the fewest significant digits (15 to 17) that read back as `v`; "nan", "inf".
/// Written and read back in the classic locale: '.' as the decimal point and no digit grouping,
/// whatever the global C++ locale or the C locale is.
inline std::string format_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // std::to_chars with a precision writes what printf's %.<digits>g writes in the "C" locale, and
  // std::from_chars reads as strtod does there (C++17 [charconv]): no locale, and no iostreams to
  // compile in every file.
  char buf[32];
  std::string text;
  for (int digits = 15; digits <= 17; ++digits) {
    const auto w = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, digits);
    text.assign(buf, w.ptr);
    double back = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), back);
    if (r.ec == std::errc() && back == v) break;
  }
  return text;
}

/// Throws ConfigError unless `level` is finite and in the open interval (0, 1).
inline void check_level(const char* function, double level) {
  if (!(level > 0.0 && level < 1.0)) {
    throw ConfigError(std::string(function) + ": level = " + format_number(level) +
                      " is outside (0, 1)");
  }
}

/// Throws ConfigError unless every element of `sorted` is finite and `sorted` is ascending
/// (non-decreasing). The message names the first offending index and its value.
inline void check_sorted(const char* function, const std::vector<double>& sorted) {
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    if (!std::isfinite(sorted[i])) {
      throw ConfigError(std::string(function) + ": sorted[" + std::to_string(i) +
                        "] = " + format_number(sorted[i]) + " is not finite");
    }
    if (i > 0 && sorted[i] < sorted[i - 1]) {
      throw ConfigError(std::string(function) + ": sorted is not ascending: sorted[" +
                        std::to_string(i) + "] = " + format_number(sorted[i]) + " < sorted[" +
                        std::to_string(i - 1) + "] = " + format_number(sorted[i - 1]));
    }
  }
}

/// NumPy's `_lerp` (numpy/lib/function_base.py, 1.22+): a + (b - a) t for t < 0.5, else
/// b - (b - a)(1 - t), which is exact at both ends and monotone. Falls back to a (1 - t) + b t
/// when b - a overflows, so the result is finite for finite a, b.
inline double lerp(double a, double b, double t) noexcept {
  const double diff = b - a;
  if (!std::isfinite(diff)) return a * (1.0 - t) + b * t;
  return t < 0.5 ? a + diff * t : b - diff * (1.0 - t);
}

/// Type-7 percentile of non-empty ascending `sorted`, q in [0, 100] already checked.
/// Same operations as `np.percentile(x, q)` (NumPy 1.22+): virtual index h = (n - 1) (q / 100),
/// value lerp(x[floor h], x[floor h + 1], h - floor h); x[n - 1] when h >= n - 1.
inline double percentile_unchecked(const std::vector<double>& sorted, double q) noexcept {
  const std::size_t n = sorted.size();
  const double h = static_cast<double>(n - 1) * (q / 100.0);
  if (h >= static_cast<double>(n - 1)) return sorted[n - 1];
  if (h <= 0.0) return sorted[0];
  const double below = std::floor(h);
  const auto i = static_cast<std::size_t>(below);
  return lerp(sorted[i], sorted[i + 1], h - below);
}

/// ln(2 pi).
inline constexpr double ln_2pi = 1.8378770664093454835606594728112353;

/// Stirling's error ln(m!) - [(m + 1/2) ln m - m + ln(2 pi) / 2] for an integer m >= 1
/// (Loader 2000, "Fast and Accurate Computation of Binomial Probabilities"; R's `stirlerr`).
/// m <= 15: from m! computed exactly in double; else the asymptotic series.
inline double stirling_error(double m) noexcept {
  if (m <= 15.0) {
    double factorial = 1.0;  // exact: 15! < 2^53
    for (double i = 2.0; i <= m; i += 1.0) factorial *= i;
    return std::log(factorial) - ((m + 0.5) * std::log(m) - m + 0.5 * ln_2pi);
  }
  constexpr double s0 = 1.0 / 12.0, s1 = 1.0 / 360.0, s2 = 1.0 / 1260.0, s3 = 1.0 / 1680.0,
                   s4 = 1.0 / 1188.0;
  const double mm = m * m;
  if (m > 500.0) return (s0 - s1 / mm) / m;
  if (m > 80.0) return (s0 - (s1 - s2 / mm) / mm) / m;
  if (m > 35.0) return (s0 - (s1 - (s2 - s3 / mm) / mm) / mm) / m;
  return (s0 - (s1 - (s2 - (s3 - s4 / mm) / mm) / mm) / mm) / m;
}

/// Loader's deviance term bd0(x, np) = x ln(x / np) + np - x, by a series when x is near np
/// (Loader 2000; R's `bd0`). x, np > 0.
inline double deviance_term(double x, double np) noexcept {
  if (std::fabs(x - np) < 0.1 * (x + np)) {
    double v = (x - np) / (x + np);
    double s = (x - np) * v;
    double ej = 2.0 * x * v;
    v *= v;
    for (int j = 1; j < 1000; ++j) {
      ej *= v;
      const double s1 = s + ej / static_cast<double>(2 * j + 1);
      if (s1 == s) return s1;
      s = s1;
    }
    return s;
  }
  return x * std::log(x / np) + np - x;
}

/// ln P(B = k) for B ~ Binomial(n, 1/2), 0 <= k <= n, n >= 1: Loader's saddle-point form
/// (Loader 2000; R's `dbinom_raw`), accurate to a few ulp and free of the cancellation of
/// lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1) at large n.
inline double log_binomial_half_pmf(std::size_t k, std::size_t n) noexcept {
  const double nn = static_cast<double>(n);
  if (k == 0 || k == n) return -nn * std::log(2.0);
  const double kk = static_cast<double>(k);
  const double half = 0.5 * nn;
  const double lc = stirling_error(nn) - stirling_error(kk) - stirling_error(nn - kk) -
                    deviance_term(kk, half) - deviance_term(nn - kk, half);
  const double lf = ln_2pi + std::log(kk) + std::log1p(-kk / nn);
  return lc - 0.5 * lf;
}

/// P(B <= k) for B ~ Binomial(n, 1/2), requires 2k < n. Exact summation of the pmf from k down:
/// pmf(j - 1) = pmf(j) j / (n - j + 1); the ratios fall below 1 and keep falling, so the sum stops
/// once the geometric bound on the rest, term r / (1 - r), is below 1e-17 of the sum.
/// Cost O(min(k, sqrt(n) * 10)).
inline double binomial_half_lower_tail(std::size_t k, std::size_t n) noexcept {
  const double nn = static_cast<double>(n);
  double term = 1.0;
  double sum = 1.0;
  for (std::size_t j = k; j > 0; --j) {
    const double jj = static_cast<double>(j);
    const double r = jj / (nn - jj + 1.0);
    term *= r;
    sum += term;
    if (term * r < 1e-17 * sum * (1.0 - r)) break;
  }
  return std::exp(log_binomial_half_pmf(k, n)) * sum;
}

/// Coverage P(l <= B <= n - l) = 1 - 2 P(B <= l - 1) of [x(l), x(n + 1 - l)], 1 <= l <= n / 2.
inline double median_ci_coverage(std::size_t l, std::size_t n) noexcept {
  return 1.0 - 2.0 * binomial_half_lower_tail(l - 1, n);
}

/// The lower rank l of the distribution-free confidence interval of the median of n samples at
/// `level`: the largest l in [1, n / 2] whose coverage (median_ci_coverage) still reaches `level`;
/// 0 when n < 2 or even l = 1 does not reach it. The coverage falls as l grows.
///
/// Without a hint: a binary search, O(log n) coverage evaluations of O(sqrt n) each. With the rank
/// `hint_l` found for `hint_n` samples: n / 2 - l grows like sqrt(n), so l is estimated as
/// n / 2 - (hint_n / 2 - hint_l) sqrt(n / hint_n) and then stepped to the exact rank, which is
/// verified (coverage at l reaches `level`, at l + 1 it does not): usually 2 or 3 evaluations.
/// The result is the same with or without a hint.
inline std::size_t median_ci_lower_rank(std::size_t n, double level, std::size_t hint_n = 0,
                                        std::size_t hint_l = 0) {
  if (n < 2) return 0;
  if (median_ci_coverage(1, n) < level) return 0;
  std::size_t lo = 1;  // reaches level
  std::size_t hi = n / 2;
  if (hint_n >= 2 && hint_l >= 1 && 2 * hint_l <= hint_n) {
    const double spread = (0.5 * static_cast<double>(hint_n) - static_cast<double>(hint_l)) *
                          std::sqrt(static_cast<double>(n) / static_cast<double>(hint_n));
    const double estimate = std::floor(0.5 * static_cast<double>(n) - spread);
    std::size_t l = estimate < 1 ? 1 : std::min(hi, static_cast<std::size_t>(estimate));
    // Step to the exact rank: at most a few steps from a good estimate, else fall back to the
    // binary search over the part of [1, n / 2] the steps have ruled out.
    for (int steps = 0; steps < 8; ++steps) {
      if (median_ci_coverage(l, n) >= level) {
        lo = l;
        if (l == hi || median_ci_coverage(l + 1, n) < level) return l;
        ++l;
      } else {
        hi = l - 1;  // l >= 2 here: l = 1 reaches level
        --l;
      }
    }
  }
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo + 1) / 2;
    if (median_ci_coverage(mid, n) >= level) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

/// median_confidence_interval without the checks of `sorted` and `level`.
inline std::optional<stats::ConfidenceInterval> median_ci_unchecked(const std::vector<double>& sorted,
                                                             double level) {
  const std::size_t n = sorted.size();
  const std::size_t lo = median_ci_lower_rank(n, level);
  if (lo == 0) return std::nullopt;
  stats::ConfidenceInterval ci;
  ci.lower_rank = lo;
  ci.upper_rank = n + 1 - lo;
  ci.low = sorted[ci.lower_rank - 1];
  ci.high = sorted[ci.upper_rank - 1];
  ci.level = level;
  ci.coverage = median_ci_coverage(lo, n);
  return ci;
}

/// tukey_outliers given the already computed quartiles q1 <= q3 of `sorted`; the IQR is taken
/// as at least `resolution` (the clock's tick per sample).
inline stats::Outliers tukey_outliers_from_quartiles(const std::vector<double>& sorted, double q1,
                                              double q3, double resolution = 0) noexcept {
  const double iqr = std::max(q3 - q1, resolution > 0 ? resolution : 0.0);
  const double low_severe_fence = q1 - 3.0 * iqr;
  const double low_mild_fence = q1 - 1.5 * iqr;
  const double high_mild_fence = q3 + 1.5 * iqr;
  const double high_severe_fence = q3 + 3.0 * iqr;
  stats::Outliers out;
  for (const double x : sorted) {
    if (x < low_severe_fence) {
      ++out.low_severe;
    } else if (x < low_mild_fence) {
      ++out.low_mild;
    } else if (x > high_severe_fence) {
      ++out.high_severe;
    } else if (x > high_mild_fence) {
      ++out.high_mild;
    }
  }
  return out;
}

/// Sum with Neumaier's compensation (improved Kahan-Babuska): error O(eps), not O(n eps).
template <class F>
double compensated_sum(const std::vector<double>& values, F&& transform) noexcept {
  double sum = 0.0;
  double compensation = 0.0;
  for (const double v : values) {
    const double x = transform(v);
    const double t = sum + x;
    if (std::fabs(sum) >= std::fabs(x)) {
      compensation += (sum - t) + x;
    } else {
      compensation += (x - t) + sum;
    }
    sum = t;
  }
  return sum + compensation;
}

/// `std::optional` of `v` when finite, else nullopt (a ratio that overflowed is not reportable).
inline std::optional<double> finite_or_nullopt(double v) {
  if (std::isfinite(v)) return v;
  return std::nullopt;
}

}  // namespace detail

namespace stats {
/// Percentile of ascending-sorted data by linear interpolation between order statistics:
/// Hyndman & Fan (1996), "Sample Quantiles in Statistical Packages", definition 7; NumPy's default
/// `linear` method. Reproduces `np.percentile(x, q)` (NumPy >= 1.22) bit for bit.
///
/// \param sorted n >= 1 finite samples in ascending order, any unit.
/// \param q percentile in [0, 100] (percent, not a fraction): 0 gives the minimum, 100 the
///   maximum, 50 the median (for even n, the mean of the two middle values up to rounding).
/// \return a value in [sorted.front(), sorted.back()], unit of the samples.
/// \throws ConfigError if `sorted` is empty, not finite or not ascending (naming the index), or if
///   q is not a finite number in [0, 100] (naming q's value). O(n) for the checks.
inline double percentile_sorted(const std::vector<double>& sorted, double q) {
  if (!(q >= 0.0 && q <= 100.0)) {
    throw ConfigError("percentile_sorted: q = " + detail::format_number(q) +
                      " is outside [0, 100]");
  }
  if (sorted.empty()) throw ConfigError("percentile_sorted: sorted is empty (n = 0)");
  detail::check_sorted("percentile_sorted", sorted);
  return detail::percentile_unchecked(sorted, q);
}

/// Distribution-free confidence interval of the population median from two order statistics
/// (Conover 1999, *Practical Nonparametric Statistics*, 3rd ed., confidence interval for a
/// quantile; Hahn & Meeker 1991, *Statistical Intervals*). For i.i.d. samples of any continuous
/// distribution, the number B of samples below the median is Binomial(n, 1/2), so
/// [x(l), x(u)] with u = n + 1 - l covers the median with probability P(l <= B < u)
/// = 1 - 2 P(B <= l - 1). The narrowest symmetric pair whose coverage is >= `level` is chosen
/// (the largest such l).
///
/// The binomial probabilities are computed exactly (no normal approximation, for every n):
/// each pmf term by Loader's saddle-point formula (Loader 2000, as in R's `dbinom`), the lower
/// tail by summing pmf terms with the ratio recurrence, and l by bisection; relative error of
/// `coverage` about 1e-13 and cost O(sqrt(n) log n), well under a millisecond at n = 1e6.
///
/// \param sorted n finite samples in ascending order, any unit.
/// \param level requested confidence level in (0, 1), e.g. 0.95.
/// \return the interval (bounds in the unit of the samples, ranks 1-based, achieved coverage), or
///   nullopt when even [x(1), x(n)] (coverage 1 - 2^(1-n)) does not reach `level`: n < 2 always,
///   n <= 5 at level 0.95, n <= 7 at 0.99.
/// \throws ConfigError if `level` is not in (0, 1) or `sorted` is not finite and ascending.
inline std::optional<ConfidenceInterval> median_confidence_interval(
    const std::vector<double>& sorted, double level) {
  detail::check_level("median_confidence_interval", level);
  detail::check_sorted("median_confidence_interval", sorted);
  return detail::median_ci_unchecked(sorted, level);
}

/// Tukey's fences (Tukey 1977, *Exploratory Data Analysis*), with Q1 and Q3 by
/// `percentile_sorted` (type 7, not Tukey's hinges): see `Outliers` for the exact intervals.
/// The IQR is taken as at least `resolution`, the tick of the clock that measured the samples:
/// a step that falls between two ticks reads as one tick or the next, so quantized samples (90 %
/// at 10 us and 10 % at 11 us from a 1 us clock: IQR 0) are not outliers. With resolution 0 and
/// IQR == 0 (more than half the samples tie), every sample != Q1 is a severe outlier.
///
/// \param sorted n finite samples in ascending order, any unit; n == 0 gives all counts 0.
/// \param resolution the clock's tick in the samples' unit (per sample), >= 0; 0 when unknown.
/// \return the counts of mild and severe outliers on each side.
/// \throws ConfigError if `sorted` is not finite and ascending (naming the index).
inline Outliers tukey_outliers(const std::vector<double>& sorted, double resolution = 0) {
  detail::check_sorted("tukey_outliers", sorted);
  if (sorted.empty()) return {};
  return detail::tukey_outliers_from_quartiles(sorted, detail::percentile_unchecked(sorted, 25.0),
                                               detail::percentile_unchecked(sorted, 75.0), resolution);
}

/// Summarizes samples of any order (copied and sorted; O(n log n) time, O(n) extra memory).
/// Percentiles by `percentile_sorted`, the median CI by `median_confidence_interval`, outliers
/// by `tukey_outliers`; mean and stddev by a compensated two-pass algorithm (Neumaier sums of x,
/// then of x - mean and (x - mean)^2 with the Bjorck correction (sum(x - mean))^2 / n; Chan, Golub
/// & LeVeque 1983), on the samples scaled by a power of two so nothing overflows.
///
/// \param samples n >= 0 finite samples, any unit (e.g. seconds per iteration), any order.
/// \param confidence_level the level of the median CI, in (0, 1).
/// \param resolution the tick of the clock behind the samples, per sample, in their unit (>= 0;
///   0 when unknown): the outlier fences' IQR is at least this (see `tukey_outliers`).
/// \return the summary; see `Summary` for which fields are nullopt.
/// \throws ConfigError if `confidence_level` is not in (0, 1) (naming its value), if a sample is
///   NaN or infinite (naming its index in `samples` and its value), or if max - min overflows a
///   double (the IQR, MAD and CI width would not be representable).
inline Summary summarize(std::vector<double> samples, double confidence_level = 0.95, double resolution = 0) {
  detail::check_level("summarize", confidence_level);
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (!std::isfinite(samples[i])) {
      throw ConfigError("summarize: samples[" + std::to_string(i) + "] = " +
                        detail::format_number(samples[i]) + " is not finite");
    }
  }
  Summary s;
  s.n = samples.size();
  s.confidence_level = confidence_level;
  if (samples.empty()) return s;

  std::sort(samples.begin(), samples.end());
  const std::vector<double>& x = samples;
  const std::size_t n = x.size();
  if (!std::isfinite(x.back() - x.front())) {
    throw ConfigError("summarize: samples span [" + detail::format_number(x.front()) + ", " +
                      detail::format_number(x.back()) + "], whose width overflows a double");
  }

  const auto pct = [&x](double q) { return detail::percentile_unchecked(x, q); };
  s.min = x.front();
  s.p1 = pct(1.0);
  s.p5 = pct(5.0);
  s.p10 = pct(10.0);
  s.p25 = pct(25.0);
  s.p50 = pct(50.0);
  s.p75 = pct(75.0);
  s.p90 = pct(90.0);
  s.p95 = pct(95.0);
  s.p99 = pct(99.0);
  s.max = x.back();
  s.iqr = *s.p75 - *s.p25;

  // Mean and variance on x * 2^-e, with 2^e >= max |x|: exact scaling, no overflow of the sums.
  const double largest = std::max(std::fabs(x.front()), std::fabs(x.back()));
  int exponent = 0;
  if (largest > 0.0) std::frexp(largest, &exponent);
  const double nn = static_cast<double>(n);
  const auto scaled = [exponent](double v) { return std::ldexp(v, -exponent); };
  double mean_scaled = detail::compensated_sum(x, scaled) / nn;
  const double residual =
      detail::compensated_sum(x, [&](double v) { return scaled(v) - mean_scaled; });
  mean_scaled += residual / nn;
  s.mean = std::ldexp(mean_scaled, exponent);
  if (n >= 2) {
    const double dev_sum =
        detail::compensated_sum(x, [&](double v) { return scaled(v) - mean_scaled; });
    const double sq_sum = detail::compensated_sum(x, [&](double v) {
      const double d = scaled(v) - mean_scaled;
      return d * d;
    });
    const double variance = std::max(0.0, (sq_sum - dev_sum * dev_sum / nn) / (nn - 1.0));
    s.stddev = std::ldexp(std::sqrt(variance), exponent);
    if (*s.mean != 0.0) s.cv = detail::finite_or_nullopt(*s.stddev / *s.mean);
  }

  // MAD: median of |x - p50| (the same type-7 median), by selection.
  {
    std::vector<double> dev(n);
    for (std::size_t i = 0; i < n; ++i) dev[i] = std::fabs(x[i] - *s.p50);
    const double h = static_cast<double>(n - 1) * 0.5;
    const double below = std::floor(h);
    const auto i = static_cast<std::size_t>(below);
    std::nth_element(dev.begin(), dev.begin() + static_cast<std::ptrdiff_t>(i), dev.end());
    const double a = dev[i];
    if (h > below) {
      const double b = *std::min_element(dev.begin() + static_cast<std::ptrdiff_t>(i + 1), dev.end());
      s.mad = detail::lerp(a, b, h - below);
    } else {
      s.mad = a;
    }
  }

  s.median_ci = detail::median_ci_unchecked(x, confidence_level);
  if (s.median_ci && *s.p50 != 0.0) {
    s.median_ci_relative_width =
        detail::finite_or_nullopt((s.median_ci->high - s.median_ci->low) / *s.p50);
  }
  s.outliers = detail::tukey_outliers_from_quartiles(x, *s.p25, *s.p75, std::isfinite(resolution) ? resolution : 0.0);
  return s;
}
}  // namespace stats

}  // namespace gauge
