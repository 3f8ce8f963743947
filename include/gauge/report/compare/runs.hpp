#pragma once
/// \file gauge/report/compare/runs.hpp
/// Several runs of one experiment per side (gauge/report/compare.hpp): each run's median as one
/// observation of its side, the run a random effect (RunVariation; the run-level sides and ratio in
/// detail::comparing), and `compare_runs`.

#include "gauge/detail/fmt.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/cycles.hpp"
#include "gauge/core/error.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/core/stream_effect.hpp"
#include "gauge/core/two_sample.hpp"
#include "gauge/core/verdict.hpp"
#include "gauge/report/compare/results.hpp"

namespace gauge {

namespace detail::comparing {

/// One side's runs at the run level: log(median) of each run and the variance of that median
/// within its run (relative: its distribution-free interval's half-width / z, squared, plus the
/// run's stream effect).
struct RunSide {
  std::vector<double> medians;  ///< each run's median (seconds or cycles)
  std::vector<double> logs;     ///< their logarithms
  double within = 0;            ///< mean within-run relative variance of a run's median
};

/// The run-level side of `runs`, on cycles or time; nullopt (with `why`) when a run has too few
/// samples for an interval of its median.
inline std::optional<RunSide> run_side(const std::vector<const Result*>& runs, bool cycles, const CompareOptions& o,
                                       std::string& why) {
  RunSide side;
  const double z = detail::normal_quantile((1 + o.confidence_level) / 2);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const Result& r = *runs[i];
    std::vector<double> v = cycles ? detail::cycle_samples(r) : finite(compare::metric_samples(r, o.metric));
    v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !(x > 0); }), v.end());
    // The rounds (blocks of them) in the order taken, where every sample survived the filter.
    const double rounds = o.metric == Metric::gpu_time || cycles ? relative_round_variance(r, v, o.confidence_level).first : 0;
    std::sort(v.begin(), v.end());
    const auto ci = v.size() >= min_samples_for_ci(o.confidence_level) ? stats::median_confidence_interval(v, o.confidence_level)
                                                                         : std::nullopt;
    if (!ci || !(ci->low > 0)) {
      why = fmt::format("run {} has {} positive samples, too few for an interval of its median", i + 1, v.size());
      return std::nullopt;
    }
    const double m = percentile_unchecked(v, 50);
    const double se = (std::log(ci->high) - std::log(ci->low)) / (2 * z);
    side.medians.push_back(m);
    side.logs.push_back(std::log(m));
    const double streams = o.metric == Metric::gpu_time ? relative_stream_variance(r) : 0;
    side.within += (se * se + std::max(streams, rounds)) / static_cast<double>(runs.size());
  }
  return side;
}

/// The ratio new / base of the runs' geometric-mean medians with its interval (RunVariation's
/// method) and the variation behind it; needs base runs + new runs >= 3.
inline std::pair<stats::RatioInterval, compare::RunVariation> run_level_ratio(const RunSide& a, const RunSide& b, double level) {
  compare::RunVariation v;
  v.base_medians = a.medians;
  v.candidate_medians = b.medians;
  auto mean = [](const std::vector<double>& x) {
    double s = 0;
    for (double y : x) s += y;
    return s / static_cast<double>(x.size());
  };
  const double ma = mean(a.logs), mb = mean(b.logs);
  double ss = 0;
  for (double x : a.logs) ss += (x - ma) * (x - ma);
  for (double x : b.logs) ss += (x - mb) * (x - mb);
  const double ra = static_cast<double>(a.logs.size()), rb = static_cast<double>(b.logs.size());
  v.degrees_of_freedom = ra + rb - 2;
  const double s2 = ss / v.degrees_of_freedom;
  v.relative_sd = std::sqrt(s2);
  v.between_variance = s2 * (1 / ra + 1 / rb);
  v.within_variance = a.within / ra + b.within / rb;
  v.t_quantile = detail::student_t_quantile((1 + level) / 2, v.degrees_of_freedom);
  const double var = std::max(v.between_variance, v.within_variance);
  stats::RatioInterval i;
  i.estimate = std::exp(mb - ma);
  i.low = std::exp(mb - ma - v.t_quantile * std::sqrt(var));
  i.high = std::exp(mb - ma + v.t_quantile * std::sqrt(var));
  i.level = level;
  return {i, v};
}

}  // namespace detail::comparing

namespace compare {
/// Compares the runs of one experiment: `base` and `candidate` hold one result per run (the same
/// name and dimensions, from several reports per side or the suite runner's repetitions). With one
/// run per side this is compare_results. With more, every run's median is one observation of its
/// side and the run is a random effect (RunVariation): the ratio of the geometric means of the
/// run medians, with a Student-t interval whose variance is the pooled between-run variance
/// (never below the runs' own interval widths); the verdict rule is Verdict's on that interval
/// (slower: it excludes 1 and the estimate exceeds 1 + t; same: it lies within 1 ± t). Cycles
/// or time decide by ClockNormalization, over all runs. The first run of each side gives the
/// settings' differences and the distribution figures shown beside.
///
/// \throws ConfigError for invalid options or an empty side.
inline ExperimentComparison compare_runs(const std::vector<const Result*>& base, const std::vector<const Result*>& candidate,
                                         const CompareOptions& options = {}) {
  using namespace detail::comparing;
  validate(options);
  if (base.empty() || candidate.empty() || std::count(base.begin(), base.end(), nullptr) || std::count(candidate.begin(), candidate.end(), nullptr))
    throw ConfigError("compare_runs: each side needs at least one result");
  ExperimentComparison c = compare_results(*base.front(), *candidate.front(), options);
  if (base.size() == 1 && candidate.size() == 1) return c;
  c.base_runs = base.size();
  c.candidate_runs = candidate.size();
  c.notes.erase(std::remove_if(c.notes.begin(), c.notes.end(), [](const std::string& n) { return n.rfind("one run per side", 0) == 0; }),
                c.notes.end());
  // A failed run, or one whose diagnosis says its time is wrong, decides as in compare_results.
  auto first_bad = [](const std::vector<const Result*>& runs) -> const Result* {
    for (const Result* r : runs) {
      if (r->status == Status::failed) return r;
      for (const auto& w : r->warnings)
        if (w.severity == Severity::error) return r;
    }
    return nullptr;
  };
  if (const Result* bad_b = first_bad(candidate)) {
    if (bad_b != candidate.front()) c = compare_results(*base.front(), *bad_b, options);
    c.base_runs = base.size();
    c.candidate_runs = candidate.size();
    return c;
  }
  if (const Result* bad_a = first_bad(base)) {
    if (bad_a != base.front()) c = compare_results(*bad_a, *candidate.front(), options);
    c.base_runs = base.size();
    c.candidate_runs = candidate.size();
    return c;
  }
  // The unsteady warnings of every run, not only the first ones compare_results saw.
  c.notes.erase(std::remove_if(c.notes.begin(), c.notes.end(), is_unsteady_note), c.notes.end());
  for (const auto& [runs, side] : {std::make_pair(&base, "base"), std::make_pair(&candidate, "new")})
    if (std::string note = unsteady_note(*runs, side); !note.empty()) c.notes.push_back(std::move(note));
  for (std::size_t i = 1; i < base.size(); ++i)
    for (auto d : result_differences(*base.front(), *base[i], options.clock_tolerance))
      if (d.invalidates) c.differences.push_back({"base run " + std::to_string(i + 1) + ": " + d.what, d.base, d.candidate, true});
  for (std::size_t i = 1; i < candidate.size(); ++i)
    for (auto d : result_differences(*candidate.front(), *candidate[i], options.clock_tolerance))
      if (d.invalidates) c.differences.push_back({"new run " + std::to_string(i + 1) + ": " + d.what, d.base, d.candidate, true});
  // Process CPU time is recorded by host timing only: a run without it is named, as one run per side is.
  if (options.metric == Metric::cpu_time) {
    for (const auto* side : {&base, &candidate})
      for (std::size_t i = 0; i < side->size(); ++i) {
        const Result& r = *(*side)[i];
        if (r.cpu_samples_s.empty() && r.cpu_time.n == 0) {
          c.verdict = Verdict::inconclusive;
          c.reason = fmt::format("no process CPU time in {} run {}: it is recorded by host timing only (the host "
                                 "backend, schema 1.7 and later)", side == &base ? "base" : "new", i + 1);
          return c;
        }
      }
  }
  const auto [cycles, cc] = clock_decision(base, candidate, options);
  std::string why;
  const auto ta = run_side(base, false, options, why), tb = ta ? run_side(candidate, false, options, why) : std::nullopt;
  if (!ta || !tb) {
    c.verdict = Verdict::inconclusive;
    c.reason = (ta ? "new side: " : "base side: ") + why;
    return c;
  }
  const auto time = run_level_ratio(*ta, *tb, options.confidence_level);
  std::optional<std::pair<stats::RatioInterval, RunVariation>> cyc;
  if (cc) {
    std::string ignored;
    const auto ca = run_side(base, true, options, ignored), cb = ca ? run_side(candidate, true, options, ignored) : std::nullopt;
    if (ca && cb) cyc = run_level_ratio(*ca, *cb, options.confidence_level);
  }
  const auto& decided = cycles && cyc ? *cyc : time;
  const stats::RatioInterval& i = decided.first;
  const double t = options.threshold;
  // The distribution figures of the first runs stay as shown; the verdict is the run level's.
  c.statistics = {stats::StatisticRatio{stats::Statistic::median, i}};
  c.deciding = {stats::Statistic::median};
  c.mann_whitney.reset();
  c.largest_decile_shift.reset();
  c.bimodal = false;
  c.base_modes.reset();
  c.candidate_modes.reset();
  c.stream_variance.reset();
  c.stream_half_width.reset();
  c.run_variation = decided.second;
  c.headline = c.statistics.front();
  c.base_median_s = std::exp(std::accumulate(ta->logs.begin(), ta->logs.end(), 0.0) / static_cast<double>(ta->logs.size()));
  c.candidate_median_s = std::exp(std::accumulate(tb->logs.begin(), tb->logs.end(), 0.0) / static_cast<double>(tb->logs.size()));
  c.ratio = time.first;
  // The sample counts of every run, and no note that described the first runs only.
  auto samples_of = [&](const std::vector<const Result*>& runs) {
    std::size_t n = 0;
    for (const Result* r : runs) n += finite(metric_samples(*r, options.metric)).size();
    return n;
  };
  c.base_n = samples_of(base);
  c.candidate_n = samples_of(candidate);
  c.notes.erase(std::remove_if(c.notes.begin(), c.notes.end(),
                               [](const std::string& n) { return n.rfind("rounds as clusters", 0) == 0; }),
                c.notes.end());
  c.clock.reset();
  c.clock_normalized_ratio.reset();
  c.decided_on = "time";
  c.notes.erase(std::remove_if(c.notes.begin(), c.notes.end(),
                               [](const std::string& n) { return n.find("SM clock") != std::string::npos; }),
                c.notes.end());
  attach_clock(c, cc, cycles && cyc, time.first, cyc ? std::optional<stats::RatioInterval>(cyc->first) : std::nullopt, t);
  const auto& v = decided.second;
  const double d = std::log(i.estimate), se = std::sqrt(std::max(v.between_variance, v.within_variance));
  c.p_value = se > 0 ? 2 * (1 - detail::student_t_cdf(std::fabs(d) / se, v.degrees_of_freedom)) : (d == 0 ? 1.0 : 0.0);
  // Which variance set the interval's width (its standard error is the larger): a new user saw
  // "run-to-run SD 0.51 %" beside an interval of +-9 % and could not tell why (the runs' own
  // intervals, wide in --quick runs, set it).
  const double between_se = std::sqrt(v.between_variance), within_se = std::sqrt(v.within_variance);
  const std::string width =
      v.within_variance > v.between_variance
          ? fmt::format("the width is set by the runs' own intervals (standard error {:.2f} %), not by their spread ({:.2f} %)",
                        100 * within_se, 100 * between_se)
          : fmt::format("the width is set by the spread between runs (standard error {:.2f} %)", 100 * between_se);
  const std::string what = fmt::format("median {} over {} + {} runs {:+.2f} % [{:+.2f}, {:+.2f}] (runs as a random effect: "
                                       "run-to-run SD {:.2f} %, t = {:.3f} with {:g} degrees of freedom, at {:g} %; {})",
                                       c.decided_on == "cycles" ? "SM cycles" : "time", base.size(), candidate.size(),
                                       100 * (i.estimate - 1), 100 * (i.low - 1), 100 * (i.high - 1), 100 * v.relative_sd,
                                       v.t_quantile, v.degrees_of_freedom, 100 * options.confidence_level, width);
  if (i.low > 1 && i.estimate > 1 + t) {
    c.verdict = Verdict::slower;
    c.reason = fmt::format("{}: above 1 + {:g} % and the interval excludes 1", what, 100 * t);
  } else if (i.high < 1 && i.estimate < 1 - t) {
    c.verdict = Verdict::faster;
    c.reason = fmt::format("{}: below 1 - {:g} % and the interval excludes 1", what, 100 * t);
  } else if (i.low >= 1 - t && i.high <= 1 + t) {
    c.verdict = Verdict::same;
    c.reason = fmt::format("{}: within 1 ± {:g} %", what, 100 * t);
  } else {
    c.verdict = Verdict::inconclusive;
    c.reason = fmt::format("{}: straddles a bound of 1 ± {:g} %: more runs per side, or a steadier machine, would decide", what,
                           100 * t);
  }
  return c;
}
}  // namespace compare

}  // namespace gauge
