#pragma once
/// \file gauge/core/running_statistics.hpp
/// Statistics over an unbounded stream of samples in fixed memory: exact running moments (n, sum,
/// mean, standard deviation, min, max) and percentiles from a log-bucketed histogram. The
/// companion of gauge/core/statistics.hpp (which summarizes a stored sample, `Summary`); the
/// Timer's totals use it. Standard library only.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

namespace gauge {
namespace stats {
/// A histogram of positive times in logarithmic buckets, for percentiles over an unbounded number
/// of samples in fixed memory (24 KiB). Bucket i >= 1 holds [lo·g^(i-1), lo·g^i) with lo = 1 ns
/// and g = 1.01 (1 % wide) up to 10^4 s; bucket 0 holds smaller values (zero included), the last
/// bucket larger ones. A quantile is the nearest-rank order statistic (Hyndman-Fan type 1) read
/// from the buckets: the geometric midpoint of its bucket, clamped to the exact [min, max]; so it
/// is within a factor sqrt(1.01) (0.5 %) of that order statistic, inside the covered range.
class LogHistogram {
 public:
  static constexpr double lowest = 1e-9;    ///< lower edge of bucket 1, seconds
  static constexpr double highest = 1e4;    ///< upper edge of the last regular bucket, seconds
  static constexpr double growth = 1.01;    ///< ratio of a bucket's upper to lower edge
  /// How quantiles are read (written into reports).
  static constexpr const char* method =
      "nearest rank (Hyndman-Fan type 1) on a log-bucketed histogram, buckets 1 % wide from 1 ns to "
      "1e4 s; the bucket's geometric midpoint clamped to [min, max], within 0.5 % of the order statistic";

  LogHistogram() : counts_(regular_buckets() + 2, 0) {}

  /// Adds one value (any finite value >= 0; the caller checks). O(1), no allocation.
  void add(double x) {
    ++counts_[bucket(x)];
    ++n_;
  }
  /// Number of values added.
  std::uint64_t count() const { return n_; }
  /// The q-th percentile (q in [0, 100]) by nearest rank k = max(1, ceil(q/100 · n)), clamped to
  /// [lo, hi] (the exact min and max, which the caller keeps); nullopt when empty.
  std::optional<double> percentile(double q, double lo, double hi) const {
    if (n_ == 0) return std::nullopt;
    const double nn = static_cast<double>(n_);
    std::uint64_t k = static_cast<std::uint64_t>(std::ceil(q / 100.0 * nn - 1e-9 * nn));
    k = std::clamp<std::uint64_t>(k, 1, n_);
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < counts_.size(); ++i) {
      seen += counts_[i];
      if (seen >= k) return std::clamp(midpoint(i, lo, hi), lo, hi);
    }
    return hi;
  }
  /// The bucket that holds `x` (exposed for tests): 0 below `lowest` (and for NaN), i for
  /// [lowest·growth^(i-1), lowest·growth^i), the last for `highest` and above. The edges are a
  /// table (lowest·growth^k, computed once), and so is the bucket of every cell of x's binary
  /// exponent and the top 7 bits of its mantissa (cells 2^-7 of an octave, narrower than a
  /// bucket): the cell gives the bucket of its lower end, and the edges decide from there. No
  /// log() per sample (the Timer adds several samples every step).
  static std::size_t bucket(double x) {
    if (!(x >= lowest)) return 0;
    const std::vector<double>& edge = edges();
    const std::size_t regular = edge.size() - 1;
    if (x >= highest) return regular + 1;
    std::size_t k = cells()[cell(x)];
    while (k + 1 < regular && x >= edge[k + 1]) ++k;
    return k + 1;  // x in [edge[k], edge[k + 1])
  }
  /// Number of 1 %-wide buckets between `lowest` and `highest`.
  static std::size_t regular_buckets() {
    return static_cast<std::size_t>(std::ceil(std::log(highest / lowest) / std::log(growth)));
  }

 private:
  /// The cell of a positive normal x in [lowest, highest): its biased binary exponent (from
  /// lowest's) and the top 7 bits of its mantissa.
  static std::size_t cell(double x) {
    std::uint64_t bits = 0, low = 0;
    std::memcpy(&bits, &x, sizeof x);
    const double l = lowest;
    std::memcpy(&low, &l, sizeof l);
    return static_cast<std::size_t>(((bits >> 52) - (low >> 52)) << 7 | ((bits >> 45) & 0x7f));
  }
  /// Per cell, the bucket (index k of edges()) of the cell's lowest value, or of `lowest` for the
  /// first cell's values below it: at most x's own, and a step or two below it.
  static const std::vector<std::uint16_t>& cells() {
    static const std::vector<std::uint16_t> c = [] {
      const std::vector<double>& edge = edges();
      std::uint64_t low = 0;
      const double l = lowest;
      std::memcpy(&low, &l, sizeof l);
      std::vector<std::uint16_t> v(cell(std::nextafter(highest, 0.0)) + 1);
      for (std::size_t i = 0; i < v.size(); ++i) {
        std::uint64_t bits = ((low >> 52) + (i >> 7)) << 52 | static_cast<std::uint64_t>(i & 0x7f) << 45;
        double start = 0;
        std::memcpy(&start, &bits, sizeof start);
        const auto above = std::upper_bound(edge.begin(), edge.end() - 1, start);
        v[i] = static_cast<std::uint16_t>(above == edge.begin() ? 0 : above - edge.begin() - 1);
      }
      return v;
    }();
    return c;
  }
  /// lowest·growth^k for k = 0 … regular_buckets() (the last at or above `highest`).
  static const std::vector<double>& edges() {
    static const std::vector<double> e = [] {
      std::vector<double> v(regular_buckets() + 1);
      for (std::size_t k = 0; k < v.size(); ++k) v[k] = lowest * std::pow(growth, static_cast<double>(k));
      return v;
    }();
    return e;
  }
  static double midpoint(std::size_t i, double lo, double hi) {
    if (i == 0) return lo;
    if (i == regular_buckets() + 1) return hi;
    return lowest * std::pow(growth, static_cast<double>(i - 1) + 0.5);
  }
  std::vector<std::uint64_t> counts_;
  std::uint64_t n_ = 0;
};

/// Statistics over every sample of an unbounded stream in fixed memory (see `TotalSummary`).
/// Unit of the samples (seconds here); values are finite and >= 0.
struct TotalSummary {
  std::size_t n = 0;             ///< number of samples
  std::optional<double> sum;     ///< sum of the samples (Neumaier-compensated)
  std::optional<double> min;     ///< smallest sample, exact
  std::optional<double> mean;    ///< arithmetic mean, exact (Welford)
  std::optional<double> stddev;  ///< sample standard deviation (ddof = 1), exact (Welford); n >= 2
  std::optional<double> max;     ///< largest sample, exact
  std::optional<double> p50;     ///< median from the histogram, `percentile_method`
  std::optional<double> p90;     ///< 90th percentile from the histogram
  std::optional<double> p99;     ///< 99th percentile from the histogram
  /// How p50, p90 and p99 are computed.
  static constexpr const char* percentile_method = LogHistogram::method;
};

/// Running moments and a histogram of a stream of samples; O(1) per sample, no allocation
/// after construction.
class RunningStats {
 public:
  /// Adds a finite sample >= 0 (the caller checks).
  void add(double x) {
    ++n_;
    // Neumaier-compensated sum.
    const double t = sum_ + x;
    comp_ += std::fabs(sum_) >= std::fabs(x) ? (sum_ - t) + x : (x - t) + sum_;
    sum_ = t;
    // Welford (Knuth, TAOCP vol. 2, 4.2.2).
    const double delta = x - mean_;
    mean_ += delta / static_cast<double>(n_);
    m2_ += delta * (x - mean_);
    min_ = n_ == 1 ? x : std::min(min_, x);
    max_ = n_ == 1 ? x : std::max(max_, x);
    hist_.add(x);
  }
  /// Number of samples.
  std::size_t n() const { return n_; }
  /// Compensated sum (0 when empty).
  double sum() const { return sum_ + comp_; }
  /// The summary; nullopt where undefined (n == 0; stddev for n < 2).
  TotalSummary summary() const {
    TotalSummary s;
    s.n = n_;
    if (n_ == 0) return s;
    s.sum = sum();
    s.min = min_;
    s.max = max_;
    s.mean = mean_;
    if (n_ >= 2) s.stddev = std::sqrt(std::max(0.0, m2_ / static_cast<double>(n_ - 1)));
    s.p50 = hist_.percentile(50, min_, max_);
    s.p90 = hist_.percentile(90, min_, max_);
    s.p99 = hist_.percentile(99, min_, max_);
    return s;
  }

 private:
  std::size_t n_ = 0;
  double sum_ = 0, comp_ = 0, mean_ = 0, m2_ = 0, min_ = 0, max_ = 0;
  LogHistogram hist_;
};
}  // namespace stats

}  // namespace gauge
