#pragma once
/// \file gauge/core/interleaved_statistics.hpp
/// The statistics of an interleaved A/B run (gauge/core/interleaved.hpp): the block bootstrap of
/// ABBA pairs, the paired ratio B / A and the paired difference B − A with their percentile
/// intervals, and the verdict on the ratio. Standard library only, so they are tested anywhere;
/// the protocol's interleaved rounds (gauge/protocol/interleave.hpp) use them.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gauge/core/error.hpp"
#include "gauge/core/format.hpp"
#include "gauge/core/interleaved.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/core/two_sample.hpp"

namespace gauge {

namespace detail {

/// The block means of ABBA pairs and their percentile bootstrap (the resampling shared by
/// paired_ratio and paired_difference): `values` are per-pair values (already on the scale the
/// mean is taken on), checked by `check(j, value)`; each block is the mean of its two pairs; the
/// mean over blocks and the (1 ∓ level) / 2 quantiles of `resamples` bootstrap means over blocks,
/// drawn from std::mt19937_64(seed). Null with fewer than 2 blocks.
struct BlockBootstrap {
  double mean = 0, low = 0, high = 0;
  std::size_t blocks = 0;
};
template <class Check>
std::optional<BlockBootstrap> block_bootstrap(const char* what, const std::vector<double>& values, double level,
                                              std::size_t resamples, std::uint64_t seed, Check check) {
  check_level(what, level);
  if (resamples < 100) throw ConfigError(std::string(what) + ": resamples must be >= 100, got " + std::to_string(resamples));
  const std::size_t blocks = values.size() / 2;
  if (blocks < 2) return std::nullopt;
  std::vector<double> block(blocks);
  double sum = 0;
  for (std::size_t i = 0; i < blocks; ++i) {
    for (std::size_t j = 2 * i; j < 2 * i + 2; ++j) check(j, values[j]);
    block[i] = 0.5 * (values[2 * i] + values[2 * i + 1]);
    sum += block[i];
  }
  BlockBootstrap b;
  b.mean = sum / static_cast<double>(blocks);
  b.blocks = blocks;
  std::mt19937_64 gen(seed);
  std::vector<double> means(resamples);
  for (std::size_t r = 0; r < resamples; ++r) {
    double t = 0;
    for (std::size_t i = 0; i < blocks; ++i) t += block[static_cast<std::size_t>(uniform_index(gen, blocks))];
    means[r] = t / static_cast<double>(blocks);
  }
  std::sort(means.begin(), means.end());
  b.low = percentile_unchecked(means, 100.0 * (1.0 - level) / 2.0);
  b.high = percentile_unchecked(means, 100.0 * (1.0 + level) / 2.0);
  return b;
}

/// The paired ratio of `pair_ratios` (B / A per round pair, > 0, in ABBA order; a trailing pair
/// of an incomplete block is ignored): see PairedRatio. Null with fewer than 2 blocks.
/// \throws ConfigError for a ratio that is not finite and > 0, or an invalid level or resamples.
inline std::optional<stats::PairedRatio> paired_ratio(const std::vector<double>& pair_ratios, double level,
                                               std::size_t resamples, std::uint64_t seed) {
  std::vector<double> logs(pair_ratios.size());
  for (std::size_t j = 0; j < pair_ratios.size(); ++j) logs[j] = std::log(pair_ratios[j]);
  const auto b = block_bootstrap("paired_ratio", logs, level, resamples, seed, [&](std::size_t j, double) {
    if (!(std::isfinite(pair_ratios[j]) && pair_ratios[j] > 0))
      throw ConfigError("paired_ratio: pair " + std::to_string(j) + " has ratio " + format_number(pair_ratios[j]) +
                        ", not a finite ratio > 0");
  });
  if (!b) return std::nullopt;
  stats::PairedRatio p;
  p.estimate = std::exp(b->mean);
  p.low = std::exp(b->low);
  p.high = std::exp(b->high);
  p.level = level;
  p.pairs = 2 * b->blocks;
  p.blocks = b->blocks;
  p.resamples = resamples;
  p.seed = seed;
  return p;
}

/// The paired difference of `differences` (B − A per round pair, seconds, in ABBA order; a
/// trailing pair of an incomplete block is ignored): see PairedDifference. Null with fewer than 2
/// blocks. \throws ConfigError for a difference that is not finite, or an invalid level or resamples.
inline std::optional<stats::PairedDifference> paired_difference(const std::vector<double>& differences, double level,
                                                         std::size_t resamples, std::uint64_t seed) {
  const auto b = block_bootstrap("paired_difference", differences, level, resamples, seed, [](std::size_t j, double d) {
    if (!std::isfinite(d))
      throw ConfigError("paired_difference: pair " + std::to_string(j) + " has difference " + format_number(d) +
                        ", not a finite number of seconds");
  });
  if (!b) return std::nullopt;
  stats::PairedDifference d;
  d.estimate_s = b->mean;
  d.low_s = b->low;
  d.high_s = b->high;
  d.level = level;
  d.blocks = b->blocks;
  return d;
}

/// The start of paired_verdict's reason: "B/A 1.0123 [1.0011, 1.0240] at 95 % over 32 round pairs".
inline std::string paired_head(const stats::PairedRatio& p) {
  char tail[96];
  std::snprintf(tail, sizeof tail, "] at %g %% over %zu round pairs", 100 * p.level, p.pairs);
  return "B/A " + format_ratio(p.estimate) + " [" + format_ratio(p.low) + ", " + format_ratio(p.high) + tail;
}

/// The verdict on a paired ratio with threshold t (the rule at InterleavedOutcome::rule), and
/// the reason in words.
inline stats::PairedVerdict paired_verdict(const stats::PairedRatio& p, double t, std::string& reason) {
  const std::string head = paired_head(p);
  const std::string pct = format_number(100 * t) + " %";
  if (p.low >= 1 - t && p.high <= 1 + t) {
    reason = head + ": the interval lies within 1 ± " + pct;
    return stats::PairedVerdict::same;
  }
  if (p.low > 1 && p.estimate > 1 + t) {
    reason = head + ": B is slower: the interval lies above 1 and the estimate above 1 + " + pct;
    return stats::PairedVerdict::slower;
  }
  if (p.high < 1 && p.estimate < 1 - t) {
    reason = head + ": B is faster: the interval lies below 1 and the estimate below 1 - " + pct;
    return stats::PairedVerdict::faster;
  }
  if (p.low > 1 || p.high < 1)
    reason = head + ": a difference is shown, but the estimate is within 1 ± " + pct +
             " and the interval is not: more rounds (max_time) narrow it";
  else
    reason = head + ": the interval includes 1 and reaches beyond 1 ± " + pct +
             ": more rounds (max_time) narrow it";
  return stats::PairedVerdict::inconclusive;
}

}  // namespace detail
}  // namespace gauge
