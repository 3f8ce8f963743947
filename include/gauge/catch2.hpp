#pragma once
/// \file gauge/catch2.hpp
/// Catch2 matchers for performance checks in unit tests (design card: "a Catch2 test runs an
/// Experiment and checks it against a stored baseline report ... or a throughput floor").
///
/// \code
///   #include <gauge/catch2.hpp>
///   using namespace gauge::catch2;
///   const gauge::Result base = baseline("tests/baselines/gemm.json", "gemm");
///   const gauge::Result now = experiment.run();
///   REQUIRE_THAT(now, no_slower_than(base, 0.03));                 // 3 %, 95 % confidence
///   REQUIRE_THAT(now, throughput_at_least(600e12, "flop"));        // 600 TFLOP/s
/// \endcode
///
/// Works with Catch2 v3 and with Catch2 v2 (the single header of Debian's `catch2` package):
/// include Catch2 first, or let this header include it (v3 where installed, else v2).

#if defined(CATCH_VERSION_MAJOR) && CATCH_VERSION_MAJOR >= 3
#include <catch2/matchers/catch_matchers.hpp>
#define GAUGE_CATCH2_MAJOR 3
#elif defined(CATCH_VERSION_MAJOR) || defined(TWOBLUECUBES_SINGLE_INCLUDE_CATCH_HPP_INCLUDED)
#define GAUGE_CATCH2_MAJOR 2
#elif __has_include(<catch2/catch_test_macros.hpp>)
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers.hpp>
#define GAUGE_CATCH2_MAJOR 3
#elif __has_include(<catch2/catch.hpp>)
#include <catch2/catch.hpp>
#define GAUGE_CATCH2_MAJOR 2
#else
#error "gauge/catch2.hpp needs Catch2 v2 or v3: install it (Debian: apt install catch2) or include it first"
#endif

#include "gauge/detail/fmt.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/dimensions.hpp"
#include "gauge/core/error.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/report/compare.hpp"
#include "gauge/report/console.hpp"
#include "gauge/report/checks.hpp"
#include "gauge/report/export_line.hpp"
#include "gauge/report/read.hpp"

namespace gauge::catch2 {

namespace detail {
#if GAUGE_CATCH2_MAJOR >= 3
/// Catch2's typed matcher base (v3: Catch::Matchers::MatcherBase).
template <class T>
using MatcherBase = Catch::Matchers::MatcherBase<T>;
#else
/// Catch2's typed matcher base (v2: Catch::MatcherBase).
template <class T>
using MatcherBase = Catch::MatcherBase<T>;
#endif

}  // namespace detail

/// The one result named `name` in the report at `path` (a baseline stored with the tests).
/// \throws ReportError when the report cannot be read (see read_report) or does not hold exactly
///   one experiment of that name.
inline Result baseline(const std::filesystem::path& path, const std::string& name) {
  return read_report(path).at(name);
}

/// The result named `name` with exactly these dimensions in the report at `path`.
/// \throws ReportError when the report cannot be read or holds no such experiment.
inline Result baseline(const std::filesystem::path& path, const std::string& name, const Dimensions& dimensions) {
  const StoredReport report = read_report(path);
  const Result* r = report.find(name, dimensions);
  if (!r)
    throw ReportError(path.string() + ": no experiment \"" +
                      gauge::detail::point_label(name, dimensions, report.axes.count(name) ? report.axes.at(name) : std::vector<std::string>{}) +
                      "\"");
  return *r;
}

/// The results named `name` in several reports, one per report and in the order given: the
/// baseline as several runs (separate processes), for `no_slower_than(baselines(...), tolerance)`,
/// which then prices the run-to-run variation (the run as a random effect, `compare_runs`).
/// \throws ReportError when a report cannot be read or does not hold exactly one experiment of
///   that name; ConfigError for an empty list of paths.
inline std::vector<Result> baselines(const std::vector<std::filesystem::path>& paths, const std::string& name) {
  if (paths.empty()) throw ConfigError("baselines: no report paths given (one report per run of the baseline)");
  std::vector<Result> runs;
  runs.reserve(paths.size());
  for (const auto& p : paths) runs.push_back(baseline(p, name));
  return runs;
}

/// Matches a Result that is no slower than a baseline by more than a tolerance, at a confidence
/// level, over the whole distribution: the ratios result / baseline of the median, p90 (both
/// sides >= 100 samples) and p99 (>= 1000) of the per-step samples get percentile-bootstrap
/// intervals (`compare_results`, each at level 1 − (1 − level) / k with k counting the mean too:
/// conservative; the median does not decide when it can jump between a side's two modes), and it matches when every
/// upper bound is <= 1 + tolerance — the data show, with that confidence, that neither the typical
/// step nor the slow tail is more than `tolerance` slower. The mean is checked only where
/// `gauge-compare` decides on it too (a bimodal side with under 100 samples: nothing else prices
/// the slow mode); with no deciding statistic at all it does not match. The comparison runs at the
/// tolerance as its threshold (a tolerance in (0, 1); else at CompareOptions' default), as
/// `gauge-compare --threshold` would; a bimodal pair it calls inconclusive has its median and mean
/// checked too. It does not match when an interval
/// reaches beyond (slower, or too noisy to tell: the description says which), when either side
/// failed, carries an error warning or has too few samples for a distribution-free CI of its
/// median (n <= 5 at 95 %), or when the two ran on different devices or backends (unless
/// allow_other_device()).
///
/// With several baseline runs (`baselines(paths, name)`: separate processes, as the issue "Same
/// code, same verdict" asks), the check is `compare_runs`'s: every run's median is one observation
/// of its side, the run is a random effect, and the one interval is a Student t interval of the
/// ratio of geometric-mean medians with runs − 1 degrees of freedom (the tested result counts as
/// one run), so a baseline whose runs spread widely cannot confirm a tight tolerance.
///
/// Stricter than `gauge-compare --fail-on-regression`, which fails only when a slowdown is shown
/// (lo > 1 + threshold): a unit test asserts that performance is confirmed, a CI gate that a
/// regression is.
class NoSlowerThan : public detail::MatcherBase<Result> {
 public:
  /// \param baseline the reference result (e.g. from `baseline(path, name)`).
  /// \param tolerance allowed slowdown as a fraction (0.03 = 3 %), finite and >= 0.
  /// \throws ConfigError for a negative or non-finite tolerance.
  NoSlowerThan(Result baseline, double tolerance) : NoSlowerThan(std::vector<Result>{std::move(baseline)}, tolerance) {}
  /// \param baselines the reference as several runs of one experiment (same name), each from its
  ///   own process: `baselines(paths, name)`.
  /// \param tolerance allowed slowdown as a fraction (0.03 = 3 %), finite and >= 0.
  /// \throws ConfigError for a negative or non-finite tolerance, an empty list, or runs that are not
  ///   all of one experiment name.
  NoSlowerThan(std::vector<Result> baselines, double tolerance) : baselines_(std::move(baselines)), tolerance_(tolerance) {
    gauge::detail::checks::validate_no_slower_than(baselines_, tolerance_);
  }
  /// Confidence level of the interval, in (0, 1) (default 0.95). ConfigError otherwise.
  NoSlowerThan& at_confidence(double level) {
    gauge::detail::check_level("no_slower_than", level);
    options_.confidence_level = level;
    return *this;
  }
  /// Which samples to compare (default GPU time per step).
  NoSlowerThan& on(Metric metric) {
    options_.metric = metric;
    return *this;
  }
  /// Bootstrap seed and resamples (defaults of CompareOptions). ConfigError for fewer than 100.
  NoSlowerThan& bootstrap(std::uint64_t seed, std::size_t resamples = CompareOptions{}.resamples) {
    options_.seed = seed;
    options_.resamples = resamples;
    validate(options_);
    return *this;
  }
  /// Accept a baseline measured on another device or backend (the check is then about the code
  /// and the device together).
  NoSlowerThan& allow_other_device(bool allow = true) {
    allow_other_device_ = allow;
    return *this;
  }

  /// True when the result is confirmed no slower than the baseline by more than the tolerance
  /// (gauge::detail::checks::no_slower_than, the rule the Python package's checks share).
  bool match(const Result& result) const override {
    auto outcome = gauge::detail::checks::no_slower_than(baselines_, result, tolerance_, options_, allow_other_device_);
    outcome_ = std::move(outcome.text);
    matched_ = outcome.ok;
    this->m_cachedToString.clear();  // Catch2 caches describe(): a matcher used twice tells each outcome
    return outcome.ok;
  }

  /// "is no slower than baseline "gemm" by more than 3 % at 95 % confidence: confirmed: <the
  /// numbers>" (or "NOT confirmed: ..." with what failed: slower, or cannot confirm).
  std::string describe() const override {
    const std::string runs = baselines_.size() == 1 ? std::string() : fmt::format(" ({} runs)", baselines_.size());
    return fmt::format("is no slower than baseline \"{}\"{} by more than {:g} % at {:g} % confidence{}{}", baselines_.front().name,
                       runs, 100 * tolerance_, 100 * options_.confidence_level,
                       outcome_.empty() ? "" : matched_ ? ": confirmed: " : ": NOT confirmed: ", outcome_);
  }

 private:
  std::vector<Result> baselines_;  ///< one or more runs of the baseline, never empty
  double tolerance_;
  CompareOptions options_;
  bool allow_other_device_ = false;
  mutable std::string outcome_;  // set by match(), shown by describe() (Catch2 calls it after match)
  mutable bool matched_ = false;  // what match() returned
};

/// Matches a Result whose throughput is at least a floor at a confidence level: with w the work per
/// step of `quantity` ("flop", "bytes" or an item name such as "tokens") and [lo, hi] the
/// distribution-free confidence interval of the median time per step (median_confidence_interval:
/// Conover 1999) of the chosen samples, it matches when w / hi >= floor. It does not match when
/// the result failed, declares no such work, or has too few samples for the interval (n <= 5 at
/// 95 %).
///
/// The samples are the per-step GPU times by default (real times on the host backend): there are
/// many of them. `.on(Metric::wall_time)` uses the wall time per step instead, the seed's
/// end-to-end "useful work / wall time", from one sample per wall round — far fewer (often 10 to
/// 20), so its interval is wider and short runs may have too few.
class ThroughputAtLeast : public detail::MatcherBase<Result> {
 public:
  /// \param per_second the floor, in `quantity` per second (FLOP/s, bytes/s, items/s), finite and >= 0.
  /// \param quantity "flop", "bytes" or the name of an item declared with Experiment::items.
  /// \throws ConfigError for a negative or non-finite floor.
  ThroughputAtLeast(double per_second, std::string quantity) : floor_(per_second), quantity_(std::move(quantity)) {
    gauge::detail::checks::validate_throughput_floor(per_second);
  }
  /// Confidence level of the interval of the median, in (0, 1) (default 0.95). ConfigError otherwise.
  ThroughputAtLeast& at_confidence(double level) {
    gauge::detail::check_level("throughput_at_least", level);
    level_ = level;
    return *this;
  }
  /// Which time per step the throughput is computed from (default GPU time).
  ThroughputAtLeast& on(Metric metric) {
    metric_ = metric;
    return *this;
  }

  /// True when work / (upper bound of the median time's CI) >= the floor
  /// (gauge::detail::checks::throughput_at_least).
  bool match(const Result& result) const override {
    auto outcome = gauge::detail::checks::throughput_at_least(result, floor_, quantity_, level_, metric_);
    outcome_ = std::move(outcome.text);
    this->m_cachedToString.clear();
    return outcome.ok;
  }

  /// "has throughput at least 600 TFLOP/s at 95 % confidence: <the numbers>".
  std::string describe() const override {
    return fmt::format("has throughput at least {} at {:g} % confidence{}{}", rate_text(floor_), 100 * level_,
                       outcome_.empty() ? "" : ": ", outcome_);
  }

 private:
  std::string rate_text(double v) const { return gauge::detail::checks::rate_text(v, quantity_); }

  double floor_;
  std::string quantity_;
  double level_ = 0.95;
  Metric metric_ = Metric::gpu_time;
  mutable std::string outcome_;
};

/// `NoSlowerThan(baseline, tolerance).at_confidence(confidence)`: "no slower than the baseline by
/// more than `tolerance` (a fraction: 0.03 = 3 %) at `confidence`".
inline NoSlowerThan no_slower_than(const Result& baseline, double tolerance = 0.03, double confidence = 0.95) {
  NoSlowerThan m(baseline, tolerance);
  m.at_confidence(confidence);
  return m;
}

/// The same against a baseline of several runs (`baselines(paths, name)`): the run-to-run
/// variation is priced (see NoSlowerThan). \throws ConfigError as NoSlowerThan's constructor.
inline NoSlowerThan no_slower_than(std::vector<Result> baselines, double tolerance = 0.03, double confidence = 0.95) {
  NoSlowerThan m(std::move(baselines), tolerance);
  m.at_confidence(confidence);
  return m;
}

/// `ThroughputAtLeast(per_second, quantity)`: "throughput of `quantity` ("flop", "bytes" or an
/// item name) at least `per_second` per second, at 95 % confidence".
inline ThroughputAtLeast throughput_at_least(double per_second, std::string quantity = "flop") {
  return ThroughputAtLeast(per_second, std::move(quantity));
}

}  // namespace gauge::catch2

namespace Catch {
/// Prints a Result in Catch2's failure messages: the registered export format `line`
/// (gauge/report/export_line.hpp): name, dimensions, status, n and medians.
template <>
struct StringMaker<gauge::Result> {
  /// "gemm/M=8192/dtype=bf16: ok, GPU time median 1.616 ms (n = 98), wall time median 1.629 ms (n = 14)"
  /// (the result's `time_label`: "real time" on the host backend).
  static std::string convert(const gauge::Result& r) { return gauge::detail::export_::result_line(r); }
};
}  // namespace Catch
