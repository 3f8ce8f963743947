#pragma once
/// \file gauge/core/stream_effect.hpp
/// The stream as a random effect (issue "Honest intervals"). On a GPU the device's launch gap
/// depends on the stream (its hardware queue) a kernel is issued to: stable for one stream, up to
/// ~0.16 µs apart between streams on an H200. A run that measures on one stream draws one value of
/// that effect, and an interval computed from that stream's samples cannot see it. gauge
/// therefore measures its rounds on a pool of streams and widens the distribution-free interval
/// of the median by the between-stream excess of a cluster-robust variance:
///
///   N = Σ n_s samples on S streams (those with samples), stream medians m_s, weights w_s = n_s/N,
///   m̄ = Σ w_s m_s,
///   V_CR = S/(S−1) · Σ w_s² (m_s − m̄)²      (cluster-robust variance of the weighted mean of the
///                                            stream medians, CR1 small-sample factor; Cameron &
///                                            Miller 2015, "A Practitioner's Guide to
///                                            Cluster-Robust Inference", J. Human Resources 50(2))
///   se_w = (high − low) / (2 z),  z = Φ⁻¹((1 + coverage) / 2) of the distribution-free interval
///   excess = max(0, V_CR − se_w²)            (the variance the samples' own interval misses
///                                            (0 when its root is below 1e-9 of the median:
///                                            rounding); method of moments, as DerSimonian & Laird 1986,
///                                            Controlled Clinical Trials 7:177–188)
///   low' = p50 − sqrt((p50 − low)² + t² · excess),  high' = p50 + sqrt((high − p50)² + t² · excess),
///   t = the Student-t quantile (1 + level)/2 with S − 1 degrees of freedom (few clusters:
///       Cameron & Miller 2015, §VI).
///
/// With no stream effect the stream medians agree up to sampling noise, V_CR ≈ se_w², and the
/// interval is the distribution-free one (exactly, whenever V_CR ≤ se_w²).
/// Standard library only.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "gauge/core/summary.hpp"

namespace gauge {

namespace detail {

/// ln Γ(x) for x > 0 (std::lgamma; a function so that tests can name it).
inline double log_gamma(double x) { return std::lgamma(x); }

/// The regularized incomplete beta function I_x(a, b), a, b > 0, x in [0, 1], by its continued
/// fraction (modified Lentz; the fraction converges for x < (a + 1) / (a + b + 2), otherwise the
/// symmetry I_x(a, b) = 1 − I_{1−x}(b, a) is used). Relative accuracy ~1e-14.
inline double incomplete_beta(double a, double b, double x) {
  if (!(x > 0)) return 0;
  if (!(x < 1)) return 1;
  if (x > (a + 1) / (a + b + 2)) return 1 - incomplete_beta(b, a, 1 - x);
  const double front = std::exp(a * std::log(x) + b * std::log1p(-x) - (log_gamma(a) + log_gamma(b) - log_gamma(a + b))) / a;
  const double tiny = 1e-300;
  double f = 1, c = 1, d = 0;
  for (int i = 0; i <= 400; ++i) {
    const int m = i / 2;
    double numerator;
    if (i == 0) numerator = 1;
    else if (i % 2 == 0) numerator = (m * (b - m) * x) / ((a + 2.0 * m - 1) * (a + 2.0 * m));
    else numerator = -((a + m) * (a + b + m) * x) / ((a + 2.0 * m) * (a + 2.0 * m + 1));
    d = 1 + numerator * d;
    if (std::fabs(d) < tiny) d = tiny;
    d = 1 / d;
    c = 1 + numerator / c;
    if (std::fabs(c) < tiny) c = tiny;
    const double cd = c * d;
    f *= cd;
    if (std::fabs(1 - cd) < 1e-15) return front * (f - 1);
  }
  return front * (f - 1);
}

/// P(T <= t) for Student's t with `df` > 0 degrees of freedom.
inline double student_t_cdf(double t, double df) {
  const double tail = 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t));
  return t >= 0 ? 1 - tail : tail;
}

/// The quantile p in (0, 1) of Student's t with `df` > 0 degrees of freedom (bisection on the
/// CDF to ~1e-12 relative; as `scipy.stats.t.ppf(p, df)`). Throws std::invalid_argument.
inline double student_t_quantile(double p, double df) {
  if (!(p > 0 && p < 1)) throw std::invalid_argument("student_t_quantile: p must be in (0, 1), got " + std::to_string(p));
  if (!(df > 0)) throw std::invalid_argument("student_t_quantile: df must be > 0, got " + std::to_string(df));
  if (p == 0.5) return 0;
  if (p < 0.5) return -student_t_quantile(1 - p, df);
  double lo = 0, hi = 1;
  while (student_t_cdf(hi, df) < p && hi < 1e300) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-13 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (student_t_cdf(mid, df) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

/// The quantile p in (0, 1) of the standard normal distribution (bisection on
/// Φ(x) = erfc(−x/√2)/2; as `scipy.stats.norm.ppf(p)`). Throws std::invalid_argument.
inline double normal_quantile(double p) {
  if (!(p > 0 && p < 1)) throw std::invalid_argument("normal_quantile: p must be in (0, 1), got " + std::to_string(p));
  if (p < 0.5) return -normal_quantile(1 - p);
  double lo = 0, hi = 40;
  for (int i = 0; i < 200 && hi - lo > 1e-14; ++i) {
    const double mid = 0.5 * (lo + hi);
    (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace detail

namespace stats {
/// The between-stream part of an interval of the median (see the file comment for the method).
struct StreamWidening {
  std::size_t streams = 0;      ///< S: streams with at least one sample
  double weighted_mean_s = 0;   ///< m̄ = Σ w_s m_s, seconds
  double cluster_variance = 0;  ///< V_CR, seconds²
  double within_variance = 0;   ///< se_w², seconds² (from the distribution-free interval)
  double excess_variance = 0;   ///< max(0, V_CR − se_w²), seconds²
  double t_quantile = 0;        ///< Student-t quantile (1 + level)/2 with S − 1 degrees of freedom
  double low = 0;               ///< widened lower bound, seconds
  double high = 0;              ///< widened upper bound, seconds
  /// True when the excess is > 0, so (low, high) are wider than the distribution-free interval.
  bool widened() const { return excess_variance > 0; }
};

/// Widens `within` (the distribution-free interval of the pooled median `median`) by the
/// between-stream excess of the stream medians `medians` (seconds) with sample counts `counts`
/// (same length; streams with 0 samples are ignored), at confidence `level` in (0, 1).
/// Returns nullopt with fewer than 2 streams that have samples (no between-stream estimate).
/// Throws std::invalid_argument when the lengths differ or a median with samples is not finite.
inline std::optional<StreamWidening> widen_for_streams(const std::vector<double>& medians, const std::vector<std::size_t>& counts,
                                                       double median, const ConfidenceInterval& within, double level) {
  if (medians.size() != counts.size())
    throw std::invalid_argument("widen_for_streams: " + std::to_string(medians.size()) + " stream medians but " +
                                std::to_string(counts.size()) + " sample counts");
  StreamWidening w;
  double n = 0;
  for (std::size_t i = 0; i < medians.size(); ++i) {
    if (counts[i] == 0) continue;
    if (!std::isfinite(medians[i]))
      throw std::invalid_argument("widen_for_streams: the median of stream " + std::to_string(i) + " is not finite");
    ++w.streams;
    n += static_cast<double>(counts[i]);
  }
  if (w.streams < 2) return std::nullopt;
  for (std::size_t i = 0; i < medians.size(); ++i)
    if (counts[i] > 0) w.weighted_mean_s += static_cast<double>(counts[i]) / n * medians[i];
  double sum = 0;
  for (std::size_t i = 0; i < medians.size(); ++i) {
    if (counts[i] == 0) continue;
    const double wi = static_cast<double>(counts[i]) / n, d = medians[i] - w.weighted_mean_s;
    sum += wi * wi * d * d;
  }
  const double s = static_cast<double>(w.streams);
  w.cluster_variance = s / (s - 1) * sum;
  const double coverage = within.coverage > 0 && within.coverage < 1 ? within.coverage : level;
  const double z = detail::normal_quantile((1 + coverage) / 2);
  const double se_w = (within.high - within.low) / (2 * z);
  w.within_variance = se_w * se_w;
  w.excess_variance = std::max(0.0, w.cluster_variance - w.within_variance);
  // Below a part per billion of the median the "effect" is rounding in the timestamps.
  if (std::sqrt(w.excess_variance) <= 1e-9 * std::fabs(median)) w.excess_variance = 0;
  w.t_quantile = detail::student_t_quantile((1 + level) / 2, s - 1);
  const double extra = w.t_quantile * w.t_quantile * w.excess_variance;
  w.low = w.widened() ? median - std::sqrt((median - within.low) * (median - within.low) + extra) : within.low;
  w.high = w.widened() ? median + std::sqrt((within.high - median) * (within.high - median) + extra) : within.high;
  return w;
}
}  // namespace stats

}  // namespace gauge
