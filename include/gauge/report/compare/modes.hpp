#pragma once
/// \file gauge/report/compare/modes.hpp
/// The modes of a comparison (rule 2 at `Verdict`, gauge/report/compare/types.hpp), in
/// detail::comparing: whether two groups are separate modes, whether two sides have the same
/// modes, and whether the median or a tail (p90, p99) reads the modes' weights rather than the
/// step, so that it does not decide.

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gauge/core/format.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/core/two_sample.hpp"
#include "gauge/detail/fmt.hpp"
#include "gauge/report/compare/types.hpp"

namespace gauge {

namespace detail::comparing {

/// "median +30.00 % [+29.1, +30.9]"-style text of a ratio.
inline std::string statistic_text(const stats::StatisticRatio& s) {
  if (s.interval.resamples == 0) return fmt::format("{} {}", to_string(s.statistic), format_ratio(s.interval.estimate));
  return fmt::format("{} {} [{}, {}]", to_string(s.statistic), format_ratio(s.interval.estimate),
                     format_ratio(s.interval.low), format_ratio(s.interval.high));
}

/// "1.000 ms (52 %) and 1.250 ms (48 %)": the two modes of a split.
inline std::string modes_text(const stats::Modes& m) {
  return fmt::format("{} ({:.0f} %) and {} ({:.0f} %)", format_time(m.lower.median), 100 * m.lower.weight,
                     format_time(m.upper.median), 100 * m.upper.weight);
}

/// Keeps `m` bimodal only when its two groups are apart relative to their own spread: Ashman's
/// D = sqrt(2) |m_upper − m_lower| / sqrt(s_lower² + s_upper²) > 2 (Ashman, Bird & Zepf 1994,
/// "Detecting bimodality in astronomical datasets", AJ 108, 2348), with each group's robust
/// spread s = IQR / 1.349 (type-7 quartiles). A heavy tail split off a body is wide, so it is a
/// tail, not a mode; two clock states of a GPU are two narrow groups.
inline void separated_modes(stats::Modes& m, const std::vector<double>& sorted) {
  if (!m.bimodal || m.lower.n == 0 || m.lower.n >= sorted.size()) return;
  const std::vector<double> lo(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(m.lower.n));
  const std::vector<double> hi(sorted.begin() + static_cast<std::ptrdiff_t>(m.lower.n), sorted.end());
  auto spread = [](const std::vector<double>& g) { return (percentile_unchecked(g, 75) - percentile_unchecked(g, 25)) / 1.349; };
  const double sl = spread(lo), su = spread(hi);
  const double denominator = std::sqrt(sl * sl + su * su);
  const double d = denominator > 0 ? std::sqrt(2.0) * std::fabs(m.upper.median - m.lower.median) / denominator
                                   : std::numeric_limits<double>::infinity();
  if (!(d > 2)) m.bimodal = false;
}

/// Whether two bimodal sides have the same two modes: each mode's median within 1 ± t.
inline bool same_modes(const stats::Modes& a, const stats::Modes& b, double t) {
  return a.bimodal && b.bimodal && std::fabs(b.lower.median / a.lower.median - 1) <= t &&
         std::fabs(b.upper.median / a.upper.median - 1) <= t;
}

/// Whether the quantile `q` (0..1) of ascending `sorted` is steady against a shift of `share` of
/// the steps' weight: the type-7 quantiles at q ± share are within 1 + t of each other.
inline bool quantile_steady(const std::vector<double>& sorted, double q, double share, double t) {
  const double lo = percentile_unchecked(sorted, 100 * (q - share)), hi = percentile_unchecked(sorted, 100 * (q + share));
  return lo > 0 && hi / lo - 1 <= t;
}

/// Whether the median of ascending `sorted` is steady against a shift of `share` of the steps'
/// weight (e.g. between two modes): the quantiles at 0.5 ± share are within 1 + t of each other
/// (type 7), so moving that share of the steps across the median moves it by at most t.
inline bool median_steady(const std::vector<double>& sorted, double share, double t) {
  return quantile_steady(sorted, 0.5, share, t);
}

/// Whether the tail quantile `q` spans a gap on some side: its quantiles at q ± (1 − q) / 2 lie
/// more than t apart there (half the tail's own weight of steps changing mode moves it by more).
inline bool tail_unsteady(const std::vector<double>& sa, const std::vector<double>& sb, double q, double t) {
  const double share = (1 - q) / 2;
  return !quantile_steady(sa, q, share, t) || !quantile_steady(sb, q, share, t);
}

/// Whether the slow steps beyond an unsteady tail `q` are ones both sides take: for each side
/// whose quantiles at q ± (1 − q) / 2 lie more than t apart, the other side's slowest step is at
/// least the first side's quantile at q + (1 − q) / 4, less t. A slow minority only one side has
/// (new, or gone) is not taken (1 % of 1000 steps at 1.3× or 4× the body: 4 pairs in 5); two
/// samples of one continuous tail take each other's (simulated: 1 and 2 pairs in 400 did not).
inline bool slow_minority_shared(const std::vector<double>& sa, const std::vector<double>& sb, double q, double t) {
  const double share = (1 - q) / 2;
  const auto taken_by = [&](const std::vector<double>& x, const std::vector<double>& y) {
    if (quantile_steady(x, q, share, t)) return true;
    return !y.empty() && y.back() >= percentile_unchecked(x, 100 * (q + share / 2)) / (1 + t);
  };
  return taken_by(sa, sb) && taken_by(sb, sa);
}

/// Whether the tail quantile `q` (0.90 for p90, 0.99 for p99) of a pair with a bimodal side reads
/// the weight of a slow mode rather than its speed (rule 2 at `Verdict`): on a side, the
/// quantiles at q ± (1 − q) / 2 lie more than t apart (half the tail's own weight of steps
/// changing mode carries it across a gap), the two sides' tails differ by more than t, and each
/// side's tail value is one the other side's steps also take: at least max(5, (1 − q) / 4 of its
/// steps) lie within 1 ± t of it. A slow mode that only changed weight moves such a tail; a slow
/// mode that is new, or moved, has no steps near it on the other side, and its tail decides.
/// An adversarial review's case: 1.00 and 1.10 ms with the slow mode at 5-15 % of the steps put
/// p90 in either mode, and identical code read slower or faster 13 % of the time. Tails that
/// agree still decide: the mean would read the run-to-run drift of the slow mode's weight. Tails
/// and values are compared after the body's move `r` (new / base; the caller passes the ratio
/// of medians where the median decides, else 1): a step 2.5 % faster in both clock states read
/// `slower` by p90 7 times in 100 otherwise (its slow state's weight moved from 5 to 13 %).
inline bool tail_jumps(const compare::ExperimentComparison& c, const std::vector<double>& sa, const std::vector<double>& sb,
                       double q, double t, double r = 1) {
  if (!c.bimodal || sa.size() < 2 || sb.size() < 2) return false;
  if (!tail_unsteady(sa, sb, q, t)) return false;
  if (!(r > 0) || !std::isfinite(r)) r = 1;
  const double va = percentile_unchecked(sa, 100 * q), vb = percentile_unchecked(sb, 100 * q);
  if (!(va > 0 && vb > 0) || std::fabs(vb / (va * r) - 1) <= t) return false;
  const auto taken = [&](double v, const std::vector<double>& x) {
    const auto lo = std::lower_bound(x.begin(), x.end(), v / (1 + t)), hi = std::upper_bound(x.begin(), x.end(), v * (1 + t));
    const double need = std::max(5.0, std::ceil((1 - q) / 4 * static_cast<double>(x.size())));
    return v > 0 && static_cast<double>(hi - lo) >= need;
  };
  return taken(va * r, sb) && taken(vb / r, sa);
}

/// The weight shifts the median must withstand (rule 2 at `Verdict`): to decide, a quarter of
/// the steps; to veto a verdict it does not decide, a tenth (two GPU clock states trade a few
/// points of weight from run to run).
inline constexpr double median_decides_share = 0.25, median_vetoes_share = 0.10;

/// Whether the median of a comparison with a bimodal side cannot decide (rule 2 at `Verdict`):
/// a bimodal side whose median is not steady against a quarter of its steps changing mode, or
/// two sides with the same two modes whose medians lie in different ones (the weights flipped:
/// the median reads the flip, not the step).
inline bool median_jumps(const compare::ExperimentComparison& c, const std::vector<double>& sa, const std::vector<double>& sb,
                         double t) {
  if (!c.bimodal || !c.base_modes || !c.candidate_modes) return false;
  const stats::Modes &a = *c.base_modes, &b = *c.candidate_modes;
  if ((a.bimodal && !median_steady(sa, median_decides_share, t)) || (b.bimodal && !median_steady(sb, median_decides_share, t)))
    return true;
  if (!same_modes(a, b, t)) return false;
  const auto in_lower = [](const stats::Modes& m, const std::vector<double>& x) { return percentile_unchecked(x, 50) <= m.lower.high; };
  return in_lower(a, sa) != in_lower(b, sb);
}

/// How a comparison from the summaries (rule 4 at `Verdict`) computes its intervals.
inline constexpr const char* summary_interval_method =
    "from the stored summaries: the median's ratio interval is [new low / base high, new high / base low] of the "
    "sides' distribution-free intervals of the median (coverage >= 1 - (1 - level_base) - (1 - level_new), "
    "Bonferroni), the mean, p90 and p99 as point ratios (low = high: no interval without samples)";

/// What compare_summaries says when it decides from the summaries (rule 4 at `Verdict`): why it
/// does, and what would decide where it cannot. The defaults are an experiment's (store samples);
/// a Timer's rows, which can store none, pass `timer_summary_advice` (compare_timers).
struct SummaryAdvice {
  const char* why = "a side stored no samples";
  const char* tails_untested = "tails not tested: store samples to test them";
  const char* sharper = "store samples for a sharper comparison";
  const char* decide = "store samples (max_samples_in_report) to decide";
  /// Where a stored interval is below the level asked.
  const char* level = "measure at the level asked (Config::measure.confidence_level) or compare at the stored one "
                      "(--confidence)";
};

/// A Timer's advice: it keeps no per-step samples; a longer window or an Experiment decide.
inline constexpr SummaryAdvice timer_summary_advice{
    "a Timer keeps no per-step samples", "tails not tested",
    "more steps in the window (up to TimerConfig::window) narrow the interval",
    "time it as an Experiment (samples kept) to decide",
    "summarize at the level asked (TimerConfig::confidence_level) or compare at the stored one (--confidence)"};

}  // namespace detail::comparing

}  // namespace gauge
