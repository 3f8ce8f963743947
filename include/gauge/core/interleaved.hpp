#pragma once
/// \file gauge/core/interleaved.hpp
/// The result of an interleaved A/B run (gauge/interleave.hpp): two experiments measured in
/// alternating rounds of one process, in ABBA order, and the paired ratio B / A of their round
/// medians with its bootstrap interval and a verdict. Standard library only. The statistic and
/// the verdict rule are in gauge/core/interleaved_statistics.hpp (compiled with the protocol; tested
/// anywhere), so that a file that only declares an interleaved run does not parse them.
///
/// Why interleave (DESIGN.md, "Comparing"): two experiments measured one after the other differ
/// by whatever drifted between them (the SM clock of a power-capped GPU, its temperature), which
/// no interval over one run's samples covers. Measured in alternating rounds, A and B see the
/// same drift; in ABBA order (A B, then B A) a drift linear in time adds +d to the first pair's
/// log ratio and −d to the second's, so it cancels within every block of two pairs.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gauge/core/config.hpp"
#include "gauge/core/error.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/verdict.hpp"

namespace gauge {
namespace stats {
/// The verdict of an interleaved run on B / A (the rule is at InterleavedOutcome::rule): the
/// comparison's own `Verdict` (gauge/core/verdict.hpp), the same four answers with the same
/// threshold semantics; the name is kept for programs written against the earlier enum.
using PairedVerdict = Verdict;
}  // namespace stats

/// Settings of an interleaved run. The defaults are written into every report.
struct InterleaveConfig {
  /// Noise threshold t on B / A, as a fraction (0.02 = 2 %): the comparison's default
  /// (CompareOptions::threshold), for the same reason.
  double threshold = 0.02;
  /// Confidence level of the paired ratio's interval.
  double confidence_level = 0.95;
  /// Stop when (high − low) / estimate of the paired ratio is at most this: the width an
  /// experiment's own median must reach (MeasureConfig::target_relative_ci_width).
  double target_relative_ci_width = 0.005;
  /// Fewest round pairs before the stopping rule is consulted (even: whole ABBA blocks). 32 pairs
  /// are 16 blocks: the percentile interval of a mean over n blocks is too narrow for small n
  /// (its half-width is about 1.96 s sqrt((n − 1) / n) / sqrt(n) where Student's t_(n−1) quantile
  /// is due), so a nominal 95 % covers 89 % with 8 blocks, 92 % with 16 and 94 % with 32. More
  /// pairs are taken while a side's pool has more streams than pairs (every stream is measured by
  /// both sides) or its measure.min_samples / min_time are not met.
  std::size_t min_pairs = 32;
  /// Most measuring time of the interleaved rounds, both sides together: twice an experiment's
  /// own default (MeasureConfig::max_time), as two experiments share it. Warm-up is extra.
  Nanoseconds max_time = std::chrono::seconds(20);
  /// Bootstrap resamples (>= 100): the comparison's default (CompareOptions::resamples).
  std::size_t resamples = 2000;
  /// Seed of the bootstrap's generator (std::mt19937_64): the comparison's default.
  std::uint64_t seed = 20261130;
};

/// Throws ConfigError naming the first invalid setting and its value. Compiled with the protocol
/// (gauge/implementation/protocol.hpp).
void validate(const InterleaveConfig& c);

namespace stats {
/// The paired ratio B / A of an interleaved run, with its percentile-bootstrap interval.
///
/// Per round pair j (A's j-th measuring round and B's j-th), the ratio of the rounds' medians
/// median(B_j) / median(A_j) (seconds per step over seconds per step). Pairs 2i and 2i + 1 form
/// ABBA block i; the block's value is the mean of its two pairs' log ratios, in which a linear
/// drift cancels. The estimate is exp(mean over blocks) (the geometric mean of the pair ratios):
/// the mean, not the median, because the cancellation is a property of the sum (the median of
/// values alternating δ + d, δ − d does not cancel d); robustness to a slow step comes from the
/// round medians. The interval is the percentile bootstrap over blocks (Efron & Tibshirani 1993,
/// *An Introduction to the Bootstrap*, ch. 13; blocks as the resampling unit, as in a block
/// bootstrap, Künsch 1989: resampling single pairs would count the drift ±d as noise).
struct PairedRatio {
  double estimate = 1;          ///< exp(mean log(median B / median A)) over whole ABBA blocks
  double low = 1;               ///< lower bound: the (1 − level) / 2 quantile of the bootstrap means
  double high = 1;              ///< upper bound: the (1 + level) / 2 quantile
  double level = 0.95;          ///< confidence level
  std::size_t pairs = 0;        ///< round pairs used (2 per block)
  std::size_t blocks = 0;       ///< ABBA blocks (the bootstrap's resampling unit)
  std::size_t resamples = 0;    ///< bootstrap resamples
  std::uint64_t seed = 0;       ///< the generator's seed (std::mt19937_64)
  /// (high − low) / estimate: what the stopping rule compares with the target.
  double relative_width() const { return estimate > 0 ? (high - low) / estimate : 0; }
};

/// The paired difference B − A of the round medians, seconds per step: the estimate is the mean
/// over whole ABBA blocks of the mean of the block's two pair differences (a linear drift cancels
/// as in PairedRatio), the interval the percentile bootstrap over blocks with the same seed. Where
/// both steps pay the same fixed cost per step (the launch gap between back-to-back kernels, which
/// events time as part of the period), the difference is free of it, while the ratio is not: a
/// kernel 1 % longer is a period less than 1 % longer. So the difference is what compares with the
/// kernels' own spans (their %globaltimer stamps), the ratio with their periods.
struct PairedDifference {
  double estimate_s = 0;     ///< mean over blocks of (median B − median A), seconds per step
  double low_s = 0;          ///< lower bound: the (1 − level) / 2 quantile of the bootstrap means
  double high_s = 0;         ///< upper bound: the (1 + level) / 2 quantile
  double level = 0.95;       ///< confidence level
  std::size_t blocks = 0;    ///< ABBA blocks (the bootstrap's resampling unit)
};
}  // namespace stats

namespace records {
/// What an interleaved run concluded, beside the two results.
struct InterleavedOutcome {
  /// The paired ratio; null with fewer than two whole ABBA blocks (4 round pairs).
  std::optional<stats::PairedRatio> ratio;
  stats::PairedVerdict verdict = stats::PairedVerdict::inconclusive; ///< see `rule`
  std::string reason;          ///< the verdict in words, with the numbers
  std::string order = "ABBA";  ///< the order of the rounds: A B B A, repeated
  /// Why the interleaved rounds stopped: noise_target_met (the paired ratio's interval reached
  /// the target), max_time, max_samples (a side reached measure.max_samples), failed (a side
  /// failed) or, empty, when no round was measured.
  std::string stopping_reason;
  double measure_time_s = 0;  ///< host time of the interleaved rounds, seconds
  /// Every round pair's median(B) / median(A), in order (whole blocks only).
  std::vector<double> pair_ratios;
  /// The paired difference B − A (PairedDifference); null with fewer than two whole ABBA blocks.
  std::optional<stats::PairedDifference> difference;
  /// Every round pair's median(B) − median(A), seconds per step, in order (whole blocks only).
  std::vector<double> pair_differences_s;
  InterleaveConfig config;  ///< the settings used
  /// The method, as written into the report.
  static constexpr const char* rule =
      "ABBA rounds; per round pair the ratio of the rounds' medians B/A; estimate exp(mean of log ratios) over whole "
      "ABBA blocks; percentile bootstrap over blocks (Efron & Tibshirani 1993), seeded; t = threshold: same when the "
      "interval lies within [1 - t, 1 + t]; slower when it lies above 1 and the estimate above 1 + t; faster when it "
      "lies below 1 and the estimate below 1 - t; otherwise inconclusive (also when a side failed or carries an "
      "error warning)";
};
}  // namespace records

/// The outcome of gauge::interleave(a, b).run(): both experiments' complete results (each with
/// the statistics of its own rounds) and the paired ratio B / A with its verdict.
struct InterleavedResult : records::InterleavedOutcome {
  Result a;  ///< experiment A (the base): status, statistics and warnings over its own rounds
  Result b;  ///< experiment B (the candidate)
};

namespace records {
/// An interleaved run in a report (`interleaved`, schema 1.5): its outcome, with A and B as
/// indices into the report's `experiments`.
struct InterleavedRecord : InterleavedOutcome {
  std::size_t a = 0;  ///< index of A's result in `experiments`
  std::size_t b = 0;  ///< index of B's result in `experiments`
};
}  // namespace records

}  // namespace gauge
