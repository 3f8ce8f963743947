#pragma once
/// \file gauge/report/compare/summaries.hpp
/// The verdict of one experiment from both sides' summaries, where a side stored no samples or a
/// subsample of them (rule 4 at `Verdict`), in detail::comparing; part of gauge/report/compare.hpp.

#include "gauge/detail/fmt.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "gauge/core/statistics.hpp"
#include "gauge/core/summary.hpp"
#include "gauge/core/two_sample.hpp"
#include "gauge/core/verdict.hpp"
#include "gauge/report/compare/modes.hpp"
#include "gauge/report/compare/types.hpp"

namespace gauge::detail::comparing {

/// Verdict from both sides' summaries when a side stored no samples, or only a subsample of them
/// (rule 4 at `Verdict`; `advice.why` says which, e.g. "a side stored no samples", and its other
/// texts what would decide); false when a summary lacks the median's interval.
inline bool compare_summaries(compare::ExperimentComparison& c, const Summary& sa, const Summary& sb, const CompareOptions& o,
                              const SummaryAdvice& advice = {}) {
  // A summary of no samples has no median, whatever else it claims.
  if (sa.n == 0 || sb.n == 0) return false;
  if (!sa.median_ci || !sb.median_ci || !sa.p50 || !sb.p50 || !(sa.median_ci->low > 0) || !(sb.median_ci->low > 0))
    return false;
  const double t = o.threshold;
  c.from_summary = true;
  c.base_median_s = sa.p50;
  c.candidate_median_s = sb.p50;
  stats::StatisticRatio med;
  med.statistic = stats::Statistic::median;
  med.interval.estimate = *sb.p50 / *sa.p50;
  med.interval.low = sb.median_ci->low / sa.median_ci->high;
  med.interval.high = sb.median_ci->high / sa.median_ci->low;
  med.interval.level = std::max(0.0, 1 - (1 - sa.median_ci->level) - (1 - sb.median_ci->level));
  c.ratio = med.interval;
  c.statistics.push_back(med);
  c.deciding = {stats::Statistic::median};
  std::string moved;
  auto point = [&](stats::Statistic st, const std::optional<double>& x, const std::optional<double>& y) {
    if (!x || !y || !(*x > 0)) return;
    stats::StatisticRatio r;
    r.statistic = st;
    r.interval.estimate = r.interval.low = r.interval.high = *y / *x;
    c.statistics.push_back(r);
    if (r.interval.estimate > 1 + t || r.interval.estimate < 1 - t)
      moved += (moved.empty() ? "" : ", ") + statistic_text(r);
  };
  point(stats::Statistic::mean, sa.mean, sb.mean);
  point(stats::Statistic::p90, sa.p90, sb.p90);
  point(stats::Statistic::p99, sa.p99, sb.p99);
  const auto& r = med.interval;
  const std::string head = fmt::format("from the summaries ({}): median new/base {:.4f} [{:.4f}, {:.4f}] "
                                       "at >= {:g} %", advice.why, r.estimate, r.low, r.high, 100 * r.level);
  // Each side's stored interval must be at the level asked (--confidence): two at 95 % cannot
  // support a verdict at 99 %. What the interval shows at its own level is said, not claimed.
  const bool base_short = sa.median_ci->level < o.confidence_level - 1e-9;
  const bool new_short = sb.median_ci->level < o.confidence_level - 1e-9;
  if (base_short || new_short) {
    c.verdict = Verdict::inconclusive;
    const std::string levels =
        base_short && new_short
            ? fmt::format("both sides' stored intervals of the median are at {:g} % and {:g} %", 100 * sa.median_ci->level,
                          100 * sb.median_ci->level)
            : fmt::format("the {} side's stored interval of the median is at {:g} %", base_short ? "base" : "new",
                          100 * (base_short ? sa.median_ci : sb.median_ci)->level);
    const std::string shows = r.low > 1 + t   ? fmt::format(" (at that level it lies above 1 + {:g} %: slower)", 100 * t)
                              : r.high < 1 - t ? fmt::format(" (at that level it lies below 1 - {:g} %)", 100 * t)
                                               : std::string();
    c.reason = fmt::format("{}{}: {}, below the {:g} % asked{}; {}", head, shows, levels, 100 * o.confidence_level,
                           moved.empty() ? "" : "; " + moved + " moved beyond 1 ± " + fmt::format("{:g}", 100 * t) + " %",
                           advice.level);
  } else if (r.low > 1 + t) {
    c.verdict = Verdict::slower;
    c.reason = fmt::format("{}: the whole interval is above 1 + {:g} %", head, 100 * t);
  } else if (r.high < 1 - t && moved.empty()) {
    c.verdict = Verdict::faster;
    c.reason = fmt::format("{}: the whole interval is below 1 - {:g} %", head, 100 * t);
  } else if (r.low >= 1 - t && r.high <= 1 + t && moved.empty()) {
    c.verdict = Verdict::same;
    c.reason = fmt::format("{}: within 1 ± {:g} %, and the mean, p90 and p99 moved less than that ({})", head, 100 * t,
                           advice.tails_untested);
  } else {
    c.verdict = Verdict::inconclusive;
    c.reason = moved.empty()
                   ? fmt::format("{} straddles a bound of 1 ± {:g} %; {}", head, 100 * t, advice.sharper)
                   : fmt::format("{}; but {} moved beyond 1 ± {:g} %, with no interval without samples: {}", head, moved,
                                 100 * t, advice.decide);
  }
  return true;
}

}  // namespace gauge::detail::comparing
