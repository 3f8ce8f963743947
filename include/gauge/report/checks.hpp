#pragma once
/// \file gauge/report/checks.hpp
/// The rules of gauge's test checks, without a test framework: "no slower than a baseline" and
/// "throughput at least a floor". The Catch2 matchers (gauge/catch2.hpp) and the Python package's
/// pytest checks (python/gauge/testing.py) both decide through these functions, so a C++ test and a
/// Python test of the same result and baseline give the same answer with the same words.

#include "gauge/detail/fmt.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/error.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/report/compare.hpp"
#include "gauge/report/console.hpp"

namespace gauge::detail::checks {

/// A check's answer: whether it holds, and the numbers (or the reason it cannot decide) in words.
struct Outcome {
  bool ok = false;
  std::string text;
};

/// The finite samples of `r` for `metric`.
inline std::vector<double> samples_of(const Result& r, Metric metric) {
  return comparing::finite(compare::metric_samples(r, metric));
}

/// What the samples of `r` for `metric` are: its `time_label` ("GPU time", "real time"), "wall time" or "process CPU time".
inline std::string metric_words(Metric m, const Result& r) {
  return m == Metric::gpu_time ? r.time_label : m == Metric::wall_time ? "wall time" : "process CPU time";
}

/// "1.2 TFLOP/s", "3.4 GB/s" or "5 tokens/s" for a rate of `quantity` ("flop", "bytes", an item).
inline std::string rate_text(double v, const std::string& quantity) {
  const std::string unit = quantity == "flop" ? "FLOP/s" : quantity == "bytes" ? "B/s" : quantity + "/s";
  return format_rate(v, unit.c_str());
}

/// \throws ConfigError for a negative or non-finite tolerance, an empty list of baseline runs, or
///   runs that are not all of one experiment name.
/// The failing part of no_slower_than's text: the statistics whose whole interval lies above
/// 1 + t ("median above 1 + 3 % (slower)"), then those whose interval only reaches above it
/// ("p90: its interval's upper end is above 1 + 3 % (cannot confirm: ...)"), after the median or
/// mean of an inconclusive bimodal pair (`moved`), which do not decide. `t_percent` in percent.
inline std::string above_text(const std::string& above, const std::string& reaching, double t_percent,
                              const std::string& moved = {}) {
  std::string text;
  if (!moved.empty())
    text = fmt::format("{} above 1 + {:g} % where the comparison is inconclusive (two modes: the steps moved between them, "
                       "or a mode moved)",
                       moved, t_percent);
  if (!above.empty()) text += fmt::format("{}{} above 1 + {:g} % (slower)", text.empty() ? "" : "; ", above, t_percent);
  if (!reaching.empty())
    text += fmt::format("{}{}: {} above 1 + {:g} % (cannot confirm: more samples or a quieter machine)",
                        text.empty() ? "" : "; ", reaching,
                        reaching.find(',') == std::string::npos ? "its interval's upper end is" : "their intervals' upper ends are",
                        t_percent);
  return text;
}

inline void validate_no_slower_than(const std::vector<Result>& baselines, double tolerance) {
  if (!(tolerance >= 0) || !std::isfinite(tolerance))
    throw ConfigError("no_slower_than: tolerance must be a finite fraction >= 0 (0.03 = 3 %), got " + format_number(tolerance));
  if (baselines.empty()) throw ConfigError("no_slower_than: no baseline runs given");
  for (const auto& b : baselines)
    if (b.name != baselines.front().name)
      throw ConfigError("no_slower_than: the baseline runs are of different experiments (\"" + baselines.front().name +
                        "\" and \"" + b.name + "\")");
}

/// \throws ConfigError for a negative or non-finite throughput floor.
inline void validate_throughput_floor(double per_second) {
  if (!(per_second >= 0) || !std::isfinite(per_second))
    throw ConfigError("throughput_at_least: the floor must be finite and >= 0, got " + format_number(per_second));
}

/// "No slower than the baseline by more than `tolerance`" (the rule of gauge::catch2::NoSlowerThan,
/// which documents it): ok when every deciding statistic of `compare_runs(baselines, {result})`
/// (the median, p90, p99 as the samples allow; the mean only where nothing else decides) has its
/// interval's upper bound <= 1 + tolerance, so that it never passes what gauge-compare at the same
/// threshold calls slower. Not ok, saying why, when a
/// side failed, ran on another device or backend (unless `allow_other_device`), or nothing decides.
/// `baselines` must pass validate_no_slower_than.
inline Outcome no_slower_than(const std::vector<Result>& baselines, const Result& result, double tolerance,
                              const CompareOptions& options, bool allow_other_device) {
  auto fail = [](std::string why) { return Outcome{false, std::move(why)}; };
  const Metric m = options.metric;
  if (result.status == Status::failed) return fail("the experiment failed: " + result.error.value_or("unknown error"));
  for (std::size_t k = 0; k < baselines.size(); ++k) {
    const Result& b = baselines[k];
    const std::string which = baselines.size() == 1 ? "the baseline" : fmt::format("baseline run {}", k + 1);
    if (b.status == Status::failed) return fail(which + " failed: " + b.error.value_or("unknown error"));
    if (!allow_other_device && (result.backend != b.backend || result.device.name != b.device.name))
      return fail(which + " ran on " + b.device.name + " (" + b.backend + "), this result on " + result.device.name + " (" +
                  result.backend + "); allow_other_device() to compare anyway");
  }
  // The whole distribution, as gauge-compare sees it: median, mean, p90 and p99 (as the sample
  // sizes allow; the median not when it jumps between a side's two modes), each interval at level 1 - alpha / k.
  // Several baseline runs: the run-level median interval (compare_runs is compare_results for one).
  std::vector<const Result*> runs;
  for (const auto& b : baselines) runs.push_back(&b);
  // The comparison at the tolerance as its threshold, as gauge-compare --threshold would run it: the
  // modes (more than t apart) and which statistics decide follow t too.
  CompareOptions at_tolerance = options;
  if (tolerance > 0 && tolerance < 1) at_tolerance.threshold = tolerance;
  const compare::ExperimentComparison e = compare::compare_runs(runs, {&result}, at_tolerance);
  if (e.deciding.empty()) return fail(e.reason);
  std::string detail_text, above, reaching, moved;
  bool ok = true;
  std::size_t checked = 0;
  for (const auto& s : e.statistics) {
    // Every statistic the comparison decides on is checked. The mean decides only where nothing
    // else can (a bimodal side with under 100 samples: no median, no p90); one descheduled sample
    // moves it, but without it such a side would pass unchecked however slow it is.
    // A bimodal pair the comparison calls inconclusive (the median jumps or vetoed, a mode moved):
    // the median and the mean are checked too, since the comparison could not tell (a mode that
    // got 15 % slower behind an unchanged one moves neither the median nor p90, but the mean).
    const bool deciding = std::find(e.deciding.begin(), e.deciding.end(), s.statistic) != e.deciding.end();
    const bool undecided = !deciding && e.bimodal && e.verdict == Verdict::inconclusive &&
                           (s.statistic == stats::Statistic::median || s.statistic == stats::Statistic::mean);
    if (!deciding && !undecided) continue;
    if (deciding) ++checked;
    const auto& i = s.interval;
    detail_text += fmt::format("{}{} {:.4f} [{:.4f}, {:.4f}]", detail_text.empty() ? "" : ", ", to_string(s.statistic),
                               i.estimate, i.low, i.high);
    if (!(i.high <= 1 + tolerance)) {  // a bound that is not a number (an overflowed mean) confirms nothing
      ok = false;
      // Slower where the whole interval is above the bound; else only its upper end reaches it; a
      // statistic that does not decide is named apart (the comparison could not tell).
      std::string& list = undecided ? moved : i.low > 1 + tolerance ? above : reaching;
      list += (list.empty() ? "" : ", ") + std::string(to_string(s.statistic));
    }
  }
  if (checked == 0)  // never vacuously true: with nothing to decide on, the check fails, saying so
    return fail(fmt::format("nothing decides: no deciding statistic has an interval ({} vs {} samples)",
                            samples_of(baselines.front(), m).size(), samples_of(result, m).size()));
  // The clocks: by how much they differ, and which ratio decided (SM cycles where the work
  // scales with the clock, gauge/report/compare.hpp's ClockNormalization).
  std::string clock_text;
  if (e.clock)
    clock_text = fmt::format("; SM clock {:.0f} → {:.0f} MHz ({:+.2f} %), decided on {}{}", e.clock->base_sm_clock_mhz,
                             e.clock->candidate_sm_clock_mhz, 100 * e.clock->relative_difference, e.decided_on,
                             e.ratio && e.decided_on == "cycles"
                                 ? fmt::format(" (time ratio {:.4f} [{:.4f}, {:.4f}])", e.ratio->estimate, e.ratio->low, e.ratio->high)
                                 : std::string());
  std::string runs_text;  // several baseline runs: what the baseline's median is, and their spread
  if (runs.size() > 1) runs_text = fmt::format(", geometric mean of {} runs", runs.size());
  if (e.run_variation)
    detail_text += fmt::format(" (runs as a random effect: run-to-run SD {:.2f} %, {:g} degrees of freedom)",
                               100 * e.run_variation->relative_sd, e.run_variation->degrees_of_freedom);
  std::string text = fmt::format("{} {} vs {} (baseline{}, medians); new/base {}{}{}: {}", metric_words(m, result),
                                 format_time(e.candidate_median_s), format_time(e.base_median_s), runs_text, detail_text,
                                 !e.bimodal ? ""
                                 : std::find(e.deciding.begin(), e.deciding.end(), stats::Statistic::median) == e.deciding.end()
                                     ? " (bimodal: the median does not decide)"
                                     : " (bimodal: the median is steady and decides)",
                                 clock_text,
                                 ok ? fmt::format("every upper bound <= 1 + {:g} %", 100 * tolerance)
                                    : above_text(above, reaching, 100 * tolerance, moved));
  // A side whose samples are not one steady state (a drifting baseline, say) is named, pass or fail.
  for (const auto& note : e.notes)
    if (detail::comparing::is_unsteady_note(note)) text += "; " + note;
  return Outcome{ok, std::move(text)};
}

/// "Throughput of `quantity` at least `floor` per second at confidence `level`" (the rule of
/// gauge::catch2::ThroughputAtLeast, which documents it): with w the declared work per step and
/// [lo, hi] the distribution-free interval of the median time per step of `metric`'s samples, ok
/// when w / hi >= floor.
inline Outcome throughput_at_least(const Result& result, double floor, const std::string& quantity, double level,
                                   Metric metric) {
  auto fail = [](std::string why) { return Outcome{false, std::move(why)}; };
  if (result.status == Status::failed) return fail("the experiment failed: " + result.error.value_or("unknown error"));
  std::optional<double> work;
  if (quantity == "flop") work = result.work.flop;
  else if (quantity == "bytes") work = result.work.bytes;
  else if (const auto it = result.work.items.find(quantity); it != result.work.items.end()) work = it->second;
  if (!work) return fail("the experiment declares no \"" + quantity + "\" work per step");
  auto s = samples_of(result, metric);
  std::sort(s.begin(), s.end());
  const auto ci = stats::median_confidence_interval(s, level);
  if (!ci || !(ci->high > 0))
    return fail(fmt::format("too few samples for a {:g} % interval of the median: n = {}", 100 * level, s.size()));
  const double low_rate = *work / ci->high;
  const double rate = *work / stats::percentile_sorted(s, 50);
  const bool ok = low_rate >= floor;
  return Outcome{ok, fmt::format("{} (lower bound {}, from the {} per step's median CI) {} the floor", rate_text(rate, quantity),
                                 rate_text(low_rate, quantity), metric_words(metric, result), ok ? "meets" : "is below")};
}

}  // namespace gauge::detail::checks
