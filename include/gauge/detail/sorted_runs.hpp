#pragma once
/// \file gauge/detail/sorted_runs.hpp
/// Exact order statistics of a growing set of samples without sorting all of them again each time:
/// what the stopping rule checks after every round (the median and its distribution-free
/// confidence interval, gauge/core/statistics.hpp). Copying and sorting every sample each round
/// cost O(n log n) per round: a 50 ns host step measured for 20 s fell from 423 k to 21 k steps/s
/// (issue 11; bench/bench_stopping.cpp). Here the samples are kept as a few sorted runs whose sizes
/// at least double from the newest to the oldest (a log-structured merge): a round's samples are
/// sorted once and merged O(log n) times over the run, and a query of any rank costs
/// O(runs x 64 x log n), independent of how many samples came before.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/error.hpp"
#include "gauge/core/statistics.hpp"

namespace gauge::detail {

/// Samples as sorted runs; order statistics of all of them, exact (equal to the same index of all
/// samples sorted).
class SortedRuns {
 public:
  /// Adds samples (any order). Amortized O(m log m + m log n) for m samples.
  /// \throws ConfigError naming the first sample that is not finite (as median_confidence_interval).
  void add(std::vector<double> samples) {
    if (samples.empty()) return;
    for (std::size_t i = 0; i < samples.size(); ++i)
      if (!std::isfinite(samples[i]))
        throw ConfigError("stopping rule: sample " + std::to_string(size_ + i) + " = " + format_number(samples[i]) +
                          " is not finite");
    std::sort(samples.begin(), samples.end());
    size_ += samples.size();
    runs_.push_back(std::move(samples));
    // Keep each run at least twice the size of the next newer one: at most log2(n) + 1 runs.
    while (runs_.size() >= 2 && runs_[runs_.size() - 2].size() < 2 * runs_.back().size()) {
      std::vector<double>& older = runs_[runs_.size() - 2];
      const std::vector<double>& newer = runs_.back();
      std::vector<double> merged;
      merged.reserve(older.size() + newer.size());
      std::merge(older.begin(), older.end(), newer.begin(), newer.end(), std::back_inserter(merged));
      runs_.pop_back();
      runs_.back() = std::move(merged);
    }
  }
  /// How many samples were added.
  std::size_t size() const noexcept { return size_; }
  /// How many sorted runs hold them (at most log2(size) + 1).
  std::size_t runs() const noexcept { return runs_.size(); }

  /// The sample of 0-based rank `k` (< size()) in ascending order. Binary search over the order
  /// of doubles (their bits as ordered integers) between the smallest and the largest sample:
  /// at most 64 steps, each counting the samples <= a value in every run.
  double at(std::size_t k) const {
    double lowest = runs_.front().front(), highest = runs_.front().back();
    for (const auto& r : runs_) {
      lowest = std::min(lowest, r.front());
      highest = std::max(highest, r.back());
    }
    std::uint64_t lo = key(lowest), hi = key(highest);  // the answer's key is in [lo, hi]
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (count_at_most(value(mid)) > k) hi = mid;
      else lo = mid + 1;
    }
    return value(lo);
  }

  /// Type-7 percentile (as percentile_sorted) of the samples, q in [0, 100], size() >= 1.
  double percentile(double q) const {
    const std::size_t n = size_;
    const double h = static_cast<double>(n - 1) * (q / 100.0);
    if (h >= static_cast<double>(n - 1)) return at(n - 1);
    if (h <= 0.0) return at(0);
    const double below = std::floor(h);
    const auto i = static_cast<std::size_t>(below);
    return lerp(at(i), at(i + 1), h - below);
  }

  /// The distribution-free confidence interval of the median at `level`, equal to
  /// median_confidence_interval of the samples sorted; nullopt where that gives none.
  /// `hint_n` samples with lower rank `hint_l` (an earlier result, or 0 and 0) speed up finding
  /// the rank (median_ci_lower_rank), not its value.
  std::optional<stats::ConfidenceInterval> median_ci(double level, std::size_t hint_n = 0, std::size_t hint_l = 0) const {
    const std::size_t l = median_ci_lower_rank(size_, level, hint_n, hint_l);
    if (l == 0) return std::nullopt;
    stats::ConfidenceInterval ci;
    ci.lower_rank = l;
    ci.upper_rank = size_ + 1 - l;
    ci.low = at(ci.lower_rank - 1);
    ci.high = at(ci.upper_rank - 1);
    ci.level = level;
    ci.coverage = median_ci_coverage(l, size_);
    return ci;
  }

 private:
  static std::uint64_t key(double x) noexcept {
    std::uint64_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    return (bits >> 63) != 0 ? ~bits : bits | (std::uint64_t{1} << 63);
  }
  static double value(std::uint64_t key) noexcept {
    const std::uint64_t bits = (key >> 63) != 0 ? key & ~(std::uint64_t{1} << 63) : ~key;
    double x;
    std::memcpy(&x, &bits, sizeof x);
    return x;
  }
  std::size_t count_at_most(double x) const {
    std::size_t c = 0;
    for (const auto& r : runs_) c += static_cast<std::size_t>(std::upper_bound(r.begin(), r.end(), x) - r.begin());
    return c;
  }

  std::vector<std::vector<double>> runs_;  // oldest (largest) first
  std::size_t size_ = 0;
};

}  // namespace gauge::detail
