#pragma once
/// \file gauge/report/compare/results.hpp
/// One experiment of two reports (gauge/report/compare.hpp): the SM clock's part in the verdict
/// (ClockNormalization's rule and the clock comparison, in detail::comparing) and `compare_results`.

#include "gauge/detail/fmt.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/cycles.hpp"
#include "gauge/core/error.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/two_sample.hpp"
#include "gauge/core/verdict.hpp"
#include "gauge/report/compare/samples.hpp"
#include "gauge/report/compare/summaries.hpp"

namespace gauge {

namespace detail::comparing {

/// Warning codes that say a result's samples are not one steady state (its time drifted, warm-up
/// did not finish, work is skipped on some steps, memory grew): a verdict against such a side is
/// weaker than its interval says (issue "Every user's first day", #2: a drifting baseline was used
/// without a word). noise_target_not_met and the clock warnings are not here: the interval and the
/// clock normalization already carry them.
inline constexpr const char* unsteady_codes[] = {"drift_during_measurement", "warmup_not_converged", "work_not_every_step",
                                                 "memory_grew_during_measurement"};

/// At most `max` bytes of `s`, cut after a word where one ends in its last 60 bytes (else at a
/// UTF-8 character boundary), "..." added where cut.
inline std::string clipped(const std::string& s, std::size_t max = 200) {
  if (s.size() <= max) return s;
  std::size_t n = max;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xc0) == 0x80) --n;
  const std::size_t space = s.rfind(' ', n);
  if (space != std::string::npos && space + 60 >= n && space > 0) n = space;
  return s.substr(0, n) + "...";
}

/// The note naming the unsteady warnings (unsteady_codes) of one side's runs, "" when none: "the
/// base result carries drift_during_measurement (run 2: <its message>), ...: its samples are not
/// one steady state, ...". Each code once per run, each with its own message (at most 200 bytes;
/// none when empty); `side` is "base" or "new".
inline std::string unsteady_note(const std::vector<const Result*>& runs, const char* side) {
  std::string listed;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    std::vector<std::string> seen;
    for (const auto& w : runs[i]->warnings)
      for (const char* code : unsteady_codes)
        if (w.code == code && std::find(seen.begin(), seen.end(), w.code) == seen.end()) {
          seen.push_back(w.code);
          std::string detail;
          if (runs.size() > 1) detail = fmt::format("run {}", i + 1);
          if (!w.message.empty()) detail += (detail.empty() ? "" : ": ") + clipped(w.message);
          listed += (listed.empty() ? "" : ", ") + w.code + (detail.empty() ? std::string() : " (" + detail + ")");
        }
  }
  if (listed.empty()) return {};
  return fmt::format("the {} result carries {}: its samples are not one steady state, so this verdict is weaker than "
                     "its interval says; measure the {} side again",
                     side, listed, side);
}

/// Whether `note` is one of unsteady_note's.
inline bool is_unsteady_note(const std::string& note) {
  return note.rfind("the base result carries ", 0) == 0 || note.rfind("the new result carries ", 0) == 0;
}

/// The result's mean SM clock over its measured rounds and the clock's source, where it has one.
inline std::optional<std::pair<double, std::string>> result_clock(const Result& r) {
  if (r.clock.source == "none" || !r.clock.sm_clock_mhz || !(*r.clock.sm_clock_mhz > 0)) return std::nullopt;
  return std::make_pair(*r.clock.sm_clock_mhz, r.clock.source);
}

/// ClockNormalization's automatic rule for one result: whether its work scales with the SM
/// clock, and why (the text names the numbers).
inline std::pair<bool, std::string> scales_with_clock(const Result& r, const CompareOptions& o) {
  if (o.metric == Metric::wall_time) return {false, "wall time includes the host's part, which the SM clock does not set"};
  if (o.metric == Metric::cpu_time) return {false, "process CPU time is the host's, which the SM clock does not set"};
  if (!r.work.flop || !(*r.work.flop > 0))
    return {false, "the step declares no FLOP, so nothing says its time follows the SM clock"};
  if (!r.work.bytes || !(*r.work.bytes > 0)) return {true, "the step declares FLOP and no bytes: compute-bound"};
  std::optional<double> median = r.gpu_time.p50;
  if (!median) {
    std::vector<double> v = finite(r.gpu_samples_s);
    if (!v.empty()) median = median_in_place(v);
  }
  const std::optional<double> bandwidth =
      o.memory_bandwidth_bytes_per_s ? o.memory_bandwidth_bytes_per_s : r.device.memory_bandwidth_bytes_per_s;
  if (!bandwidth || !(*bandwidth > 0) || !median || !(*median > 0))
    return {false, "the step declares bytes and the device's memory bandwidth is unknown: it may be memory-bound"};
  const double fraction = *r.work.bytes / *median / *bandwidth;
  if (fraction < 0.5)
    return {true, fmt::format("its memory traffic is {:.1f} % of the memory bandwidth ({:.0f} GB/s): compute-bound", 100 * fraction,
                              *bandwidth / 1e9)};
  return {false, fmt::format("its memory traffic is {:.1f} % of the memory bandwidth ({:.0f} GB/s): memory-bound, and the "
                             "memory clock is another domain", 100 * fraction, *bandwidth / 1e9)};
}

/// Whether to decide on cycles for these runs of both sides (ClockNormalization), with the
/// ClockComparison filled in where both sides have a clock (nullopt otherwise).
inline std::pair<bool, std::optional<compare::ClockComparison>> clock_decision(const std::vector<const Result*>& base,
                                                                       const std::vector<const Result*>& candidate,
                                                                       const CompareOptions& o) {
  compare::ClockComparison cc;
  bool probe = true;
  double fa = 0, fb = 0;
  for (const Result* r : base) {
    const auto k = result_clock(*r);
    if (!k || detail::cycle_samples(*r).empty()) return {false, std::nullopt};
    fa += k->first / static_cast<double>(base.size());
    probe = probe && k->second == "probe";
  }
  for (const Result* r : candidate) {
    const auto k = result_clock(*r);
    if (!k || detail::cycle_samples(*r).empty()) return {false, std::nullopt};
    fb += k->first / static_cast<double>(candidate.size());
    probe = probe && k->second == "probe";
  }
  cc.source = probe ? "probe" : "telemetry";
  cc.base_sm_clock_mhz = fa;
  cc.candidate_sm_clock_mhz = fb;
  cc.relative_difference = fb / fa - 1;
  if (o.clock_normalization == compare::ClockNormalization::sm_cycles) {
    cc.scales_with_clock = o.metric == Metric::gpu_time;
    cc.rule = cc.scales_with_clock ? "cycles asked for (--clock-normalization cycles)" : "wall time is not normalized";
  } else if (o.clock_normalization == compare::ClockNormalization::time) {
    cc.scales_with_clock = false;
    cc.rule = "time asked for (--clock-normalization time)";
  } else {
    const auto [yes, why] = scales_with_clock(*base.front(), o);
    cc.scales_with_clock = yes;
    cc.rule = why;
  }
  return {cc.scales_with_clock, cc};
}

/// "the SM clock: 1497 MHz base, 1510 MHz new (+0.87 %, probe)".
inline std::string clock_text(const compare::ClockComparison& k) {
  return fmt::format("SM clock {:.0f} MHz base, {:.0f} MHz new ({:+.2f} %, {})", k.base_sm_clock_mhz, k.candidate_sm_clock_mhz,
                     100 * k.relative_difference, k.source);
}

/// Completes a comparison decided on one quantity with the other one's median ratio and the clock
/// comparison: `ratio` becomes the time ratio (always shown), `clock_normalized_ratio` the cycles
/// ratio; the reason says whether the clock explains the difference.
inline void attach_clock(compare::ExperimentComparison& c, const std::optional<compare::ClockComparison>& cc, bool cycles,
                         const std::optional<stats::RatioInterval>& time_ratio, const std::optional<stats::RatioInterval>& cycles_ratio,
                         double t) {
  if (!cc) return;
  c.clock = cc;
  c.decided_on = cycles ? "cycles" : "time";
  if (time_ratio) c.ratio = time_ratio;
  c.clock_normalized_ratio = cycles_ratio;
  auto within = [&](const stats::RatioInterval& i) { return i.low >= 1 - t && i.high <= 1 + t; };
  if (time_ratio && cycles_ratio && !within(*time_ratio) && within(*cycles_ratio)) {
    c.clock->explains_difference = true;
    c.notes.push_back(fmt::format("the SM clock explains the time difference: time {:.4f} [{:.4f}, {:.4f}], cycles {:.4f} "
                                  "[{:.4f}, {:.4f}] ({}): machine state, not a change of code",
                                  time_ratio->estimate, time_ratio->low, time_ratio->high, cycles_ratio->estimate,
                                  cycles_ratio->low, cycles_ratio->high, clock_text(*cc)));
  }
  c.notes.push_back(fmt::format("{}; decided on {} ({})", clock_text(*cc), c.decided_on, cc->rule));
  // Decided on cycles, a difference of the mean clock is what the normalization takes out.
  if (cycles)
    for (auto& d : c.differences)
      if (d.what.find("mean SM clock") != std::string::npos && d.invalidates) {
        d.invalidates = false;
        d.what += " (decided on SM cycles, which take the clock out)";
      }
}

}  // namespace detail::comparing

namespace detail::comparing {
/// compare_results, with what a comparison from the summaries advises (an experiment's by default;
/// compare_timers passes a Timer's).
inline compare::ExperimentComparison compare_results_advised(const Result& base, const Result& candidate,
                                                             const CompareOptions& options, const SummaryAdvice& advice) {
  validate(options);
  compare::ExperimentComparison c;
  c.name = base.name;
  c.label = base.name;
  c.dimensions = base.dimensions;
  c.metric = options.metric;
  c.base_failed = base.status == Status::failed;
  c.candidate_failed = candidate.status == Status::failed;
  for (const auto& key : options.ignored_dimensions) {
    const auto a = base.dimensions.find(key);
    const auto b = candidate.dimensions.find(key);
    const std::string ta = a == base.dimensions.end() ? "-" : gauge::to_string(a->second);
    const std::string tb = b == candidate.dimensions.end() ? "-" : gauge::to_string(b->second);
    if (ta != tb) c.dimension_differences.push_back(key + ": " + ta + " → " + tb);
  }
  c.differences = result_differences(base, candidate, options.clock_tolerance);
  const std::vector<double> a = finite(compare::metric_samples(base, options.metric));
  const std::vector<double> b = finite(compare::metric_samples(candidate, options.metric));
  c.base_n = a.size();
  c.candidate_n = b.size();
  if (c.base_failed || c.candidate_failed) {
    c.verdict = Verdict::inconclusive;
    c.reason = std::string(c.base_failed && c.candidate_failed ? "both experiments failed"
                           : c.base_failed                    ? "the base experiment failed"
                                                              : "the new experiment failed") +
               (candidate.error && c.candidate_failed ? ": " + *candidate.error
                : base.error && c.base_failed       ? ": " + *base.error
                                                    : std::string());
    return c;
  }
  // A result whose own diagnosis says its time is likely wrong (severity error, e.g.
  // work_not_on_stream) cannot support a verdict either way.
  auto errors = [](const Result& r) {
    std::string codes;
    for (const auto& w : r.warnings)
      if (w.severity == Severity::error) codes += (codes.empty() ? "" : ", ") + w.code;
    return codes;
  };
  const std::string base_errors = errors(base), candidate_errors = errors(candidate);
  if (!base_errors.empty() || !candidate_errors.empty()) {
    c.verdict = Verdict::inconclusive;
    c.reason = fmt::format("{}: the {} time is likely wrong, so no verdict",
                           !candidate_errors.empty() ? "the new result carries an error warning (" + candidate_errors + ")"
                                                     : "the base result carries an error warning (" + base_errors + ")",
                           !candidate_errors.empty() ? "new" : "base");
    return c;
  }
  for (const auto& [runs, side] : {std::make_pair(std::vector<const Result*>{&base}, "base"),
                                  std::make_pair(std::vector<const Result*>{&candidate}, "new")})
    if (std::string note = unsteady_note(runs, side); !note.empty()) c.notes.push_back(std::move(note));
  const double level = options.confidence_level;
  const std::size_t needed = min_samples_for_ci(level);
  const Summary& sa = compare::metric_summary(base, options.metric);
  const Summary& sb = compare::metric_summary(candidate, options.metric);
  // A side that stored a subsample of its samples (max_samples_in_report; its summary counts more
  // than it stored): its summary is of all of them, so both sides are compared from the summaries.
  const bool subsample = sa.n > a.size() || sb.n > b.size();
  if (subsample && a.size() >= needed && b.size() >= needed &&
      compare_summaries(c, sa, sb, options, SummaryAdvice{"a side stored a subsample of its samples"})) {
    c.notes.push_back(fmt::format("compared from the summaries: the reports store {} of {} (base) and {} of {} (new) "
                                  "samples (max_samples_in_report)", a.size(), sa.n, b.size(), sb.n));
    return c;
  }
  if (options.metric == Metric::cpu_time && (sa.n == 0 || sb.n == 0) && (a.empty() || b.empty())) {
    c.verdict = Verdict::inconclusive;
    c.reason = fmt::format("no process CPU time in the {} result: it is recorded by host timing only (the host "
                           "backend, schema 1.7 and later)", sa.n == 0 && a.empty() ? "base" : "new");
    return c;
  }
  if (a.size() < needed || b.size() < needed) {
    if (compare_summaries(c, sa, sb, options, advice)) return c;
    c.verdict = Verdict::inconclusive;
    c.reason = fmt::format("too few samples: n = {} (base) and {} (new); {} or more per side give a distribution-free "
                           "{:g} % confidence interval of the median, and no summary with one was stored",
                           a.size(), b.size(), needed, 100 * level);
    if (!a.empty()) c.base_median_s = sorted_median(a);
    if (!b.empty()) c.candidate_median_s = sorted_median(b);
    return c;
  }
  c.base_median_s = sorted_median(a);
  c.candidate_median_s = sorted_median(b);
  auto positive = [](const std::vector<double>& v) {
    return std::all_of(v.begin(), v.end(), [](double x) { return x > 0; });
  };
  if (!positive(a) || !positive(b)) {
    c.verdict = Verdict::inconclusive;
    c.reason = "a sample is not a time > 0: ratios of its statistics are undefined";
    return c;
  }
  // Cycles or time (ClockNormalization); the other quantity's median ratio is shown beside.
  const auto [cycles, cc] = clock_decision({&base}, {&candidate}, options);
  if (!cycles) {
    compare_samples(c, a, b, base, candidate, options);
    std::optional<stats::RatioInterval> cr;
    if (cc) {
      const double each = 1 - (1 - options.confidence_level) / static_cast<double>(c.deciding.size());
      stats::RatioInterval i = stats::bootstrap_median_ratio(detail::cycle_samples(base), detail::cycle_samples(candidate), each, options.resamples, options.seed);
      widen_interval(i, stream_widening(base, candidate, each));
      cr = i;
    }
    attach_clock(c, cc, false, c.ratio, cr, options.threshold);
  } else {
    const auto ca = detail::cycle_samples(base), cb = detail::cycle_samples(candidate);
    compare_samples(c, ca, cb, base, candidate, options, cc->base_sm_clock_mhz * 1e6, cc->candidate_sm_clock_mhz * 1e6);
    const double each = 1 - (1 - options.confidence_level) / static_cast<double>(c.deciding.size());
    stats::RatioInterval ti = stats::bootstrap_median_ratio(a, b, each, options.resamples, options.seed);
    widen_interval(ti, stream_widening(base, candidate, each));
    attach_clock(c, cc, true, ti, c.statistics.front().interval, options.threshold);
  }
  // A known run-to-run spread widened every interval (compare_samples); where that leaves the
  // direction open, say so plainly.
  if (options.run_spread > 0 && c.verdict == Verdict::inconclusive && c.headline &&
      std::fabs(c.headline->interval.estimate - 1) > options.threshold) {
    c.reason = fmt::format("one run per side, and this workload's run-to-run spread ({:.2f} % per run, --run-spread) could "
                           "make a difference of {:+.2f} % by chance: no direction is claimed; compare several reports per "
                           "side ({})",
                           100 * options.run_spread, 100 * (c.headline->interval.estimate - 1), c.reason);
  } else if (options.run_spread == 0 && c.base_runs == 1 && c.candidate_runs == 1) {
    c.notes.push_back("one run per side: the interval covers the noise within each run, not between runs (process, "
                      "thermal state, the clock); give several reports per side (a1 a2 a3 -- b1 b2 b3) or --run-spread");
  }
  return c;
}
}  // namespace detail::comparing

/// Compares one experiment of two reports (no matching, no environment): the samples of
/// `options.metric`, the ratio of medians with its bootstrap interval, the U test, the verdict
/// (rule at `Verdict`) and the differences of settings between the two results.
///
/// \throws ConfigError for invalid options (see validate(CompareOptions)).
inline compare::ExperimentComparison compare_results(const Result& base, const Result& candidate, const CompareOptions& options = {}) {
  return detail::comparing::compare_results_advised(base, candidate, options, {});
}

}  // namespace gauge
