#pragma once
/// \file gauge/report/compare/samples.hpp
/// The statistics behind one experiment's verdict (gauge/report/compare.hpp), in detail::comparing:
/// the widening of every interval by the stream and round effects, p-values, and
/// `compare_samples`, the verdict from both sides' samples (rules 1–3 at `Verdict`); the verdict
/// from the summaries is gauge/report/compare/summaries.hpp.

#include "gauge/detail/fmt.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/format.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/core/stream_effect.hpp"
#include "gauge/core/two_sample.hpp"
#include "gauge/core/verdict.hpp"
#include "gauge/report/compare/differences.hpp"
#include "gauge/report/compare/modes.hpp"

namespace gauge {

namespace detail::comparing {

/// Type-7 median of a copy of `v` (n >= 1).
inline double sorted_median(std::vector<double> v) { return median_in_place(v); }

/// A side's stream effect as a relative variance of its median (0 when none), and its streams.
inline double relative_stream_variance(const Result& r) {
  const auto& st = r.streams;
  if (!st.excess_variance_s2 || !(*st.excess_variance_s2 > 0) || !r.gpu_time.p50 || !(*r.gpu_time.p50 > 0) || st.count < 2) return 0;
  return *st.excess_variance_s2 / (*r.gpu_time.p50 * *r.gpu_time.p50);
}

/// Widens one interval on the log scale by the relative variance `add` (bounds move out to
/// sqrt(d² + add)).
inline void widen_interval(stats::RatioInterval& i, double add) {
  if (!(add > 0) || !(i.estimate > 0 && i.low > 0 && i.high > 0)) return;
  const double dl = std::log(i.estimate / i.low), dh = std::log(i.high / i.estimate);
  i.low = i.estimate * std::exp(-std::sqrt(dl * dl + add));
  i.high = i.estimate * std::exp(std::sqrt(dh * dh + add));
}

/// The stream effect's widening t² (v_base + v_new) at `level` (0 when neither side has one).
inline double stream_widening(const Result& base, const Result& candidate, double level) {
  const double va = relative_stream_variance(base), vb = relative_stream_variance(candidate);
  if (!(va + vb > 0)) return 0;
  std::size_t streams = 0;
  if (va > 0) streams = base.streams.count;
  if (vb > 0) streams = streams ? std::min(streams, candidate.streams.count) : candidate.streams.count;
  const double t = detail::student_t_quantile((1 + level) / 2, static_cast<double>(streams - 1));
  return t * t * (va + vb);
}

/// The round effect of one side: the rounds of a run are clusters of its samples in time (the
/// background load, the thermal state and the clock move between them), so, as the streams are
/// (gauge/core/stream_effect.hpp), the cluster-robust variance of the round medians beyond the
/// samples' own interval is a variance the bootstrap misses. Noise that drifts over many rounds
/// (a shared CPU's load, a power-capped clock) makes neighbouring rounds alike, and then single
/// rounds understate it; so the rounds are also grouped into blocks of 2, 4, 8, … consecutive
/// rounds (the blocking method of Flyvbjerg & Petersen 1989, "Error estimates on averages of
/// correlated data", J. Chem. Phys. 91, 461), while at least `min_blocks` (8) blocks remain, and the
/// level whose widening t² × excess is largest is kept: an estimate that grows with the block size
/// is correlation that a shorter block hid. Returns the excess relative to the median² and the
/// number of blocks of that level (the Student t's clusters), or {0, 0} where `samples` (in the
/// order taken) does not match the result's rounds or there are fewer than 2.
inline std::pair<double, std::size_t> relative_round_variance(const Result& r, const std::vector<double>& samples, double level) {
  constexpr std::size_t min_blocks = 8;
  const auto& rs = r.sampling.round_samples;
  std::size_t total = 0;
  for (std::size_t n : rs) total += n;
  if (rs.size() < 2 || total != samples.size()) return {0, 0};
  std::vector<std::pair<std::size_t, std::size_t>> rounds;  // [begin, end) of each non-empty round, in order
  std::size_t at = 0;
  for (std::size_t n : rs) {
    if (n > 0) rounds.emplace_back(at, at + n);
    at += n;
  }
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  const auto ci = stats::median_confidence_interval(sorted, level);
  const double m = percentile_unchecked(sorted, 50);
  if (!ci || !(m > 0) || rounds.size() < 2) return {0, 0};
  double best_widening = 0, best_excess = 0;
  std::size_t best_blocks = rounds.size();
  for (std::size_t size = 1; size == 1 || rounds.size() / size >= min_blocks; size *= 2) {
    const std::size_t blocks = rounds.size() / size;  // the last block takes the rounds left over
    if (blocks < 2) break;
    std::vector<double> medians;
    std::vector<std::size_t> counts;
    for (std::size_t j = 0; j < blocks; ++j) {
      const std::size_t first = rounds[j * size].first;
      const std::size_t last = j + 1 == blocks ? rounds.back().second : rounds[(j + 1) * size - 1].second;
      std::vector<double> v(samples.begin() + static_cast<std::ptrdiff_t>(first), samples.begin() + static_cast<std::ptrdiff_t>(last));
      counts.push_back(v.size());
      medians.push_back(median_in_place(v));
    }
    const auto w = stats::widen_for_streams(medians, counts, m, *ci, level);
    if (!w || !(w->excess_variance > 0)) continue;
    const double widening = w->t_quantile * w->t_quantile * w->excess_variance;
    if (widening > best_widening) best_widening = widening, best_excess = w->excess_variance, best_blocks = blocks;
  }
  if (!(best_excess > 0)) return {0, rounds.size()};
  return {best_excess / (m * m), best_blocks};
}

/// Widens every ratio's bootstrap interval by both sides' stream effect: the bootstrap resamples
/// samples, which shares one draw of each stream's effect; a rerun draws new streams, shifting the
/// whole distribution (gauge/core/stream_effect.hpp). On the log scale each bound moves out to
/// sqrt(d² + t² (v_base + v_new)), t the Student-t quantile (1 + level)/2 with the fewer streams − 1
/// degrees of freedom among the sides that have an effect.
inline void widen_for_stream_effect(compare::ExperimentComparison& c, const Result& base, const Result& candidate, double level,
                                    const std::vector<double>& a = {}, const std::vector<double>& b = {}) {
  double va = relative_stream_variance(base), vb = relative_stream_variance(candidate);
  std::size_t streams = 0;
  if (va > 0) streams = base.streams.count;
  if (vb > 0) streams = streams ? std::min(streams, candidate.streams.count) : candidate.streams.count;
  // The rounds, where they say more than the streams (every round ran on one stream, so the round
  // effect holds the stream effect): the larger variance with its clusters.
  const auto ra = relative_round_variance(base, a, level), rb = relative_round_variance(candidate, b, level);
  if (ra.first + rb.first > va + vb) {
    va = ra.first;
    vb = rb.first;
    streams = std::min(ra.second ? ra.second : rb.second, rb.second ? rb.second : ra.second);
    c.notes.push_back(fmt::format("rounds as clusters: the medians of blocks of consecutive rounds vary beyond the samples' "
                                  "own interval (relative sd {:.3f} % base, {:.3f} % new), which widens every interval "
                                  "(Student t, {} blocks)",
                                  100 * std::sqrt(va), 100 * std::sqrt(vb), streams));
  }
  if (!(va + vb > 0) || streams < 2) return;
  const double t = detail::student_t_quantile((1 + level) / 2, static_cast<double>(streams - 1));
  const double add = t * t * (va + vb);
  for (auto& s : c.statistics) {
    auto& i = s.interval;
    if (!(i.estimate > 0 && i.low > 0 && i.high > 0)) continue;
    const double dl = std::log(i.estimate / i.low), dh = std::log(i.high / i.estimate);
    i.low = i.estimate * std::exp(-std::sqrt(dl * dl + add));
    i.high = i.estimate * std::exp(std::sqrt(dh * dh + add));
  }
  c.stream_variance = va + vb;
  c.stream_half_width = t * std::sqrt(va + vb);
}

/// Two-sided p-value of "ratio = 1" from an interval at `level`, normal on the log scale: the
/// half-width on the side of 1 is z_{(1+level)/2} standard errors.
inline double p_value_of(const stats::RatioInterval& i, double level) {
  if (!(i.estimate > 0 && i.low > 0 && i.high > 0)) return 1;
  const double d = std::log(i.estimate);
  const double half = d >= 0 ? std::log(i.estimate / i.low) : std::log(i.high / i.estimate);
  if (!(half > 0)) return d == 0 ? 1 : 0;
  const double se = half / detail::normal_quantile((1 + level) / 2);
  return std::erfc(std::fabs(d) / se / std::sqrt(2.0));
}

/// The verdict from both sides' finite, positive samples (rules 1–3 at `Verdict`). `unit` scales
/// one timer tick into the samples' unit (1 for seconds; the clock in Hz for cycles).
inline void compare_samples(compare::ExperimentComparison& c, const std::vector<double>& a, const std::vector<double>& b,
                            const Result& base, const Result& candidate, const CompareOptions& o,
                            double unit_a = 1, double unit_b = 1) {
  const double t = o.threshold, alpha = 1 - o.confidence_level;
  // Per-step distributions compare only at the same steps per sample (a sample of k is their mean).
  const bool same_k = base.sampling.steps_per_sample == candidate.sampling.steps_per_sample;
  // Modes: their medians must be more than two ticks of each side's timer and t × the median
  // apart; modes closer than the threshold cannot move the median by a material amount.
  std::vector<double> sa = a, sb = b;
  std::sort(sa.begin(), sa.end());
  std::sort(sb.begin(), sb.end());
  if (same_k) {
    c.base_modes = stats::find_modes(sa, std::max(2 * base.sampling.resolution_per_step() * unit_a, t * sorted_median(sa)));
    c.candidate_modes = stats::find_modes(sb, std::max(2 * candidate.sampling.resolution_per_step() * unit_b, t * sorted_median(sb)));
    separated_modes(*c.base_modes, sa);
    separated_modes(*c.candidate_modes, sb);
    c.bimodal = c.base_modes->bimodal || c.candidate_modes->bimodal;
  }
  // Statistics: the sample sizes decide which tails have >= 10 values beyond them. The mean is
  // shown, never decides (background load moves the mean of a heavy-tailed sample); p90 decides
  // where both sides took the same steps per sample (a slow minority of steps), p99 only on a GPU
  // (on the host backend the last percent is the OS's scheduling, not the step's).
  const std::size_t n = std::min(a.size(), b.size());
  std::vector<stats::Statistic> stats = {stats::Statistic::median, stats::Statistic::mean};
  if (n >= 100) stats.push_back(stats::Statistic::p90);
  if (n >= 1000) stats.push_back(stats::Statistic::p99);
  const bool host = base.backend == "host" || candidate.backend == "host";
  const bool tails_decide = same_k && !host;
  const bool jumps = median_jumps(c, sa, sb, t);
  // A tail in the gap of a slow mode both sides have reads the mode's weight, not the step ...
  // ... compared after the body's move, where the median decides.
  const double body = jumps ? 1 : percentile_unchecked(sb, 50) / percentile_unchecked(sa, 50);
  const bool p90_jumps = n >= 100 && tail_jumps(c, sa, sb, 0.90, t, body);
  const bool p99_jumps = n >= 1000 && tails_decide && tail_jumps(c, sa, sb, 0.99, t, body);
  for (stats::Statistic st : stats) {
    if (st == stats::Statistic::mean) continue;
    if (st == stats::Statistic::median && jumps) continue;
    if (st == stats::Statistic::p90 && !same_k) continue;
    if (st == stats::Statistic::p99 && !tails_decide) continue;
    c.deciding.push_back(st);
  }
  // ... so it does not decide, and the mean, which prices a change of that weight, decides instead.
  const auto deciding = [&](stats::Statistic st) { return std::find(c.deciding.begin(), c.deciding.end(), st); };
  const auto add_mean = [&] {
    if (deciding(stats::Statistic::mean) == c.deciding.end()) c.deciding.push_back(stats::Statistic::mean);
  };
  const auto drop = [&](stats::Statistic st, bool tail_jumps_) {
    const auto it = deciding(st);
    if (!tail_jumps_ || it == c.deciding.end()) return false;
    c.deciding.erase(it);
    add_mean();
    return true;
  };
  bool p99_dropped = drop(stats::Statistic::p99, p99_jumps), p90_dropped = drop(stats::Statistic::p90, p90_jumps);
  // A bimodal side without p90: only the mean prices the slow mode, so it decides here.
  if (c.bimodal && n < 100) c.deciding.push_back(stats::Statistic::mean);
  if (c.deciding.empty()) c.deciding.push_back(stats::Statistic::mean);
  if (!same_k)
    c.notes.push_back(fmt::format("steps per sample differ ({} base, {} new): only the medians are compared, not the "
                                  "distributions (a sample of k steps is their mean)",
                                  base.sampling.steps_per_sample, candidate.sampling.steps_per_sample));
  // Intervals at 1 − alpha / k each for the k deciding statistics (Bonferroni); again if k grows.
  double each = 0;
  std::size_t k = 0;
  const std::size_t notes_before = c.notes.size();
  const auto intervals = [&] {
    c.notes.resize(notes_before);
    k = c.deciding.size();
    each = 1 - alpha / static_cast<double>(k);
    c.statistics = stats::bootstrap_ratios(a, b, stats, each, o.resamples, o.seed);
    if (o.metric == Metric::gpu_time) widen_for_stream_effect(c, base, candidate, each, a, b);
    // Known run-to-run spread (one run per side): each side's median moves by it between runs.
    if (o.run_spread > 0) {
      const double z = detail::normal_quantile((1 + each) / 2);
      for (auto& st : c.statistics) widen_interval(st.interval, 2 * z * z * o.run_spread * o.run_spread);
    }
  };
  intervals();
  // A tail at a gap's edge on a side (a slow mode of ~10 % of the steps for p90) has an interval
  // across the gap, 1 and 1 ± t: it confirms nothing, and the mean decides in its place (rule 2).
  // p99 needs no mode found (a continuous tail, a slow minority of ~1 %): where both sides take
  // such steps it gives way to the mean, `inconclusive` where that moved significantly beyond
  // 1 ± t unconfirmed; where one side has them, p99 stays, `inconclusive` beyond 1 ± t unconfirmed.
  bool tail_spans = false, minority_shared = false, p99_one_sided = false;
  const auto ratio_of = [&](stats::Statistic st) {
    return std::find_if(c.statistics.begin(), c.statistics.end(), [&](const auto& x) { return x.statistic == st; });
  };
  const auto spans = [&](stats::Statistic st, double q) {
    if (!(c.bimodal || st == stats::Statistic::p99) || !tail_unsteady(sa, sb, q, t)) return false;
    const auto s = ratio_of(st), mean = ratio_of(stats::Statistic::mean);
    if (s == c.statistics.end() || mean == c.statistics.end()) return false;
    // Across 1 and beyond 1 ± t; without modes found, across 1 + t or 1 − t (it may exclude 1).
    const auto& i = s->interval;
    const bool across = c.bimodal ? i.low < 1 && i.high > 1 && (i.low < 1 - t || i.high > 1 + t)
                                  : (i.low < 1 + t && i.high > 1 + t) || (i.low < 1 - t && i.high > 1 - t);
    if (!across) return false;
    const auto& m = mean->interval;  // a mean that overflowed decides nothing
    if (!std::isfinite(m.low) || !std::isfinite(m.high) || !std::isfinite(m.estimate)) return false;
    if (!c.bimodal && !(minority_shared = slow_minority_shared(sa, sb, q, t))) {
      if ((p99_one_sided = deciding(st) != c.deciding.end())) add_mean();  // beside p99: a minority's weight shows there
      return false;
    }
    if (!drop(st, true)) return false;
    return tail_spans = true;
  };
  const bool p90_jumps_dropped = p90_dropped, p99_jumps_dropped = p99_dropped;
  if (spans(stats::Statistic::p99, 0.99)) p99_dropped = true;
  if (spans(stats::Statistic::p90, 0.90)) p90_dropped = true;
  if (c.deciding.size() > k) intervals();  // the mean joined a one-sided p99
  c.ratio = c.statistics.front().interval;
  c.mann_whitney = stats::mann_whitney_u(a, b);
  int worst = 10;
  double shift = 0;
  for (int d = 10; d <= 90; d += 10) {
    const double r = percentile_unchecked(sb, d) / percentile_unchecked(sa, d);
    if (std::fabs(r - 1) > std::fabs(shift)) shift = r - 1, worst = d;
  }
  c.largest_decile_shift = std::make_pair(worst, shift);

  // Each deciding statistic: slower when its interval excludes 1 and its estimate exceeds 1 + t
  // (significant and material; the rule of airspeed velocity's `asv compare`), faster likewise;
  // the median's interval must lie within 1 ± t for `same`.
  std::string above, below, undecided;
  double p_min = 1;
  const stats::StatisticRatio* decided = nullptr;
  for (const auto& s : c.statistics) {
    if (std::find(c.deciding.begin(), c.deciding.end(), s.statistic) == c.deciding.end()) continue;
    const auto& i = s.interval;
    p_min = std::min(p_min, p_value_of(i, each));
    auto add = [&](std::string& list) { list += (list.empty() ? "" : ", ") + statistic_text(s); };
    // A tail (p90, p99) decides only when its whole interval lies beyond 1 ± t: background load
    // moves a tail between runs by more than it moves the median, so "significant" is not enough.
    const bool median = s.statistic == stats::Statistic::median;
    // The mean in place of a tail between the modes: an interval across 1 ± t cannot tell.
    // In place of a tail whose interval spanned a gap, a mean that moved beyond 1 ± t without
    // confirming it cannot tell either.
    const bool for_tail = s.statistic == stats::Statistic::mean && (p90_jumps_dropped || p99_jumps_dropped);
    const bool beyond = i.estimate < 1 - t || i.estimate > 1 + t;
    const bool for_span = s.statistic == stats::Statistic::mean && (tail_spans || p99_one_sided) && !for_tail &&
                          beyond && (!minority_shared || i.low > 1 || i.high < 1);
    const bool one_sided = s.statistic == stats::Statistic::p99 && p99_one_sided && beyond;
    if (median ? (i.low > 1 && i.estimate > 1 + t) : i.low > 1 + t) {
      add(above);
      if (!decided || median) decided = &s;
    } else if (median ? (i.high < 1 && i.estimate < 1 - t) : i.high < 1 - t) {
      add(below);
      if (!decided) decided = &s;
    } else if (((median || for_tail) && (i.low < 1 - t || i.high > 1 + t)) || for_span || one_sided) {
      add(undecided);
    }
  }
  c.p_value = std::min(1.0, p_min * static_cast<double>(c.deciding.size()));
  if (!decided)
    for (const auto& s : c.statistics)
      if (!decided && s.statistic == c.deciding.front()) decided = &s;
  c.headline = decided ? *decided : c.statistics.front();
  const std::string level = fmt::format("intervals at {:.4g} % each, {:g} % together", 100 * each, 100 * o.confidence_level);
  const std::string test = fmt::format("Mann-Whitney p = {}", format_p(c.mann_whitney->p_value));
  // Both sides have the same two modes (each mode's median within 1 ± t): a shift of weight
  // between them moves the median and the deciles near the gap, but its cost shows in the mean
  // and the tails, which decide.
  const bool modes_match = c.base_modes && c.candidate_modes && same_modes(*c.base_modes, *c.candidate_modes, t);
  std::string modes;
  if (c.bimodal) {
    modes = "bimodal: ";
    if (c.base_modes->bimodal) modes += "base modes " + modes_text(*c.base_modes);
    if (c.candidate_modes->bimodal)
      modes += std::string(c.base_modes->bimodal ? "; " : "") + "new modes " + modes_text(*c.candidate_modes);
    if (c.base_modes->bimodal && c.candidate_modes->bimodal)
      modes += fmt::format(" (mode ratios {:.4f} and {:.4f})", c.candidate_modes->lower.median / c.base_modes->lower.median,
                           c.candidate_modes->upper.median / c.base_modes->upper.median);
    modes += jumps ? "; the median jumps between the modes, so it does not decide; "
                   : fmt::format("; the middle half of the steps spans <= {:g} % on each bimodal side, so the median is "
                                 "steady and decides; ", 100 * t);
    if (p90_jumps_dropped || p99_jumps_dropped)
      modes += fmt::format("{} in the gap of a slow mode whose steps both sides take (its weight moved, not its speed), "
                           "so {} not decide and the mean does; ",
                           p90_jumps_dropped && p99_jumps_dropped ? "p90 and p99 lie" : p90_jumps_dropped ? "p90 lies" : "p99 lies",
                           p90_jumps_dropped && p99_jumps_dropped ? "they do" : "it does");
    if (tail_spans)
      modes += fmt::format("{} at the edge of a gap between modes (its interval reaches across it), so it does not decide "
                           "and the mean does; ",
                           p90_dropped && !p90_jumps_dropped ? "p90 sits" : "p99 sits");
  }
  if (tail_spans && !c.bimodal)
    modes = fmt::format("p99 sits among a tail or a slow minority of steps both sides take (its interval reaches across "
                        "1 ± {:g} %), so it does not decide and the mean does; ", 100 * t);
  else if (p99_one_sided)
    modes = fmt::format("p99 sits at the edge of slow steps only one side has (its interval reaches across 1 ± {:g} %), "
                        "so it cannot confirm what it reads; ", 100 * t);
  // Where the median jumps it does not decide; but where it is steady against a tenth of the
  // steps changing mode on each bimodal side, a median whose whole interval moved beyond 1 ± t
  // vetoes `faster` against it (the body moved one way and a tail the other: a tail alone must
  // not call faster what is slower in its median), and `same`; where both sides have the same
  // two modes (their weights flipped), `same` only if the mean's whole interval moved beyond
  // 1 ± t the same way: two clock states trading a third of the steps move the median across
  // the gap but the mean by little (an adversarial review's 65/35 against 35/65).
  std::string moved_up, moved_down;
  if (jumps && !(c.base_modes->bimodal && !median_steady(sa, median_vetoes_share, t)) &&
      !(c.candidate_modes->bimodal && !median_steady(sb, median_vetoes_share, t)))
    for (const auto& s : c.statistics) {
      if (s.statistic != stats::Statistic::median) continue;
      if (s.interval.low > 1 + t) moved_up = statistic_text(s);
      else if (s.interval.high < 1 - t) moved_down = statistic_text(s);
    }
  const stats::StatisticRatio* mean_ratio = nullptr;
  for (const auto& s : c.statistics)
    if (s.statistic == stats::Statistic::mean) mean_ratio = &s;
  const bool mean_up = mean_ratio && mean_ratio->interval.low > 1 + t, mean_down = mean_ratio && mean_ratio->interval.high < 1 - t;
  const bool veto_same = (!moved_up.empty() && (!modes_match || mean_up)) || (!moved_down.empty() && (!modes_match || mean_down));
  if (!above.empty()) {
    c.verdict = Verdict::slower;
    c.reason = fmt::format("{}{} above 1 + {:g} % ({}){}", modes, above, 100 * t, level,
                           below.empty() ? "" : "; faster at " + below);
  } else if (!below.empty() && !moved_up.empty()) {
    c.verdict = Verdict::inconclusive;
    c.reason = fmt::format("{}{} below 1 - {:g} %, but {} above 1 + {:g} % ({}): the distribution changed shape, "
                           "faster in one part and slower in another; look at the plots",
                           modes, below, 100 * t, moved_up, 100 * t, level);
  } else if (!below.empty()) {
    c.verdict = Verdict::faster;
    c.reason = fmt::format("{}{} below 1 - {:g} % ({})", modes, below, 100 * t, level);
  } else if (!undecided.empty()) {
    c.verdict = Verdict::inconclusive;
    c.reason = fmt::format("{}{} straddles a bound of 1 ± {:g} % ({}): more samples or a quieter machine would decide",
                           modes, undecided, 100 * t, level);
  } else if (veto_same) {
    c.verdict = Verdict::inconclusive;
    c.reason = fmt::format("{}the deciding statistics are within 1 ± {:g} %, but {}{} moved beyond it ({}){}: the steps moved "
                           "between the modes; look at the plots",
                           modes, 100 * t, moved_up.empty() ? moved_down : moved_up,
                           modes_match && mean_ratio ? " and " + statistic_text(*mean_ratio) : std::string(), level,
                           modes_match ? fmt::format(" (the same modes, {:.0f} % → {:.0f} % in the lower one)",
                                                     100 * c.base_modes->lower.weight, 100 * c.candidate_modes->lower.weight)
                                       : "");
  } else if (same_k && c.mann_whitney->p_value < alpha && std::fabs(shift) > t && c.bimodal && !modes_match &&
             !p90_jumps_dropped && !p99_jumps_dropped) {
    c.verdict = Verdict::inconclusive;
    c.reason = fmt::format("{}the mean and tails are within 1 ± {:g} % ({}), but the modes differ and the distributions "
                           "too ({} < {:g}; p{} moved {:+.2f} %): a mode appeared, vanished or moved; look at the plots",
                           modes, 100 * t, level, test, alpha, worst, 100 * shift);
  } else if (same_k && tails_decide && c.mann_whitney->p_value < alpha && std::fabs(shift) > t && !c.bimodal) {
    c.verdict = Verdict::inconclusive;
    c.reason = fmt::format("{}the median, mean and tails are within 1 ± {:g} %, but the distributions differ ({} < {:g}) "
                           "and their p{} moved {:+.2f} %: part of the steps changed; look at the plots",
                           modes, 100 * t, test, alpha, worst, 100 * shift);
  } else if (c.stream_half_width && !(*c.stream_half_width <= t)) {
    c.verdict = Verdict::inconclusive;
    c.reason = fmt::format("{}the estimates are within 1 ± {:g} %, but the streams' effect alone makes every interval "
                           "±{:.3g} % wide: no run on these streams can show the two equal within the threshold",
                           modes, 100 * t, 100 * *c.stream_half_width);
  } else {
    c.verdict = Verdict::same;
    // Within 1 ± t: the deciding statistics whose interval lies there; the others named apart.
    std::string all, open;
    for (const auto& s : c.statistics)
      if (std::find(c.deciding.begin(), c.deciding.end(), s.statistic) != c.deciding.end()) {
        std::string& list = s.interval.low >= 1 - t && s.interval.high <= 1 + t ? all : open;
        list += (list.empty() ? "" : ", ") + statistic_text(s);
      }
    if (all.empty()) all = "the deciding statistics' estimates";
    // A small p beside "same" reads as a contradiction (a new user's friction): say what it means.
    const std::string small_p = c.mann_whitney->p_value < alpha && !modes_match
                                    ? fmt::format(" < {:g}: the distributions differ, by less than the {:g} % that counts",
                                                  alpha, 100 * t)
                                    : "";
    c.reason = fmt::format("{}{}: within 1 ± {:g} % ({}; {}{}){}{}", modes, all, 100 * t, level, test, small_p,
                           open.empty() ? "" : "; " + open + ": not shown different (the interval reaches beyond the bound)",
                           modes_match && c.mann_whitney->p_value < alpha
                               ? fmt::format("; the same modes, their weights moved ({:.0f} % → {:.0f} % in the lower one)",
                                             100 * c.base_modes->lower.weight, 100 * c.candidate_modes->lower.weight)
                               : "");
  }
}

}  // namespace detail::comparing

}  // namespace gauge
