#pragma once
/// \file gauge/report/compare/reports.hpp
/// Whole reports (gauge/report/compare.hpp): the rows of their Timers, the device's memory
/// bandwidth from an environment, the multiplicity rule over the experiments and the grouping of
/// results into runs (in detail::comparing), and `compare_reports`, of several reports per side or
/// of two.

#include "gauge/detail/fmt.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <set>
#include <tuple>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/dimensions.hpp"
#include "gauge/core/environment.hpp"
#include "gauge/core/error.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/timer_summary.hpp"
#include "gauge/core/two_sample.hpp"
#include "gauge/core/verdict.hpp"
#include "gauge/report/labels.hpp"
#include "gauge/report/read.hpp"
#include "gauge/report/speedup_check.hpp"
#include "gauge/report/compare/runs.hpp"

namespace gauge {

namespace detail::comparing {

/// A Timer's window summary as a Result without samples, for compare_results (which then
/// compares the summaries' median intervals: a Timer keeps no per-step samples). `wall` is the
/// step's wall time (the step row; a region has none of its own).
inline Result timer_row(const std::string& label, const std::string& backend, const Summary& s, const Summary& wall = {}) {
  Result r;
  r.name = label;
  r.backend = backend;
  r.time_label = backend == "host" ? "real time" : "GPU time";
  r.gpu_time = s;
  r.wall_time = wall;
  return r;
}

/// Why a Timer row cannot be compared on `options.metric` from summaries `x` and `y`, or empty:
/// a Timer records no process CPU time, a region no wall time of its own, and a window with too
/// few steps after warm-up no interval of its median (the advice for experiments, "store samples",
/// would not help a Timer).
inline std::string timer_row_problem(const CompareOptions& options, bool region, const Summary& x, const Summary& y) {
  if (options.metric == Metric::cpu_time)
    return "a Timer records no process CPU time: compare its rows on GPU time (real time on the host) or the step's wall time";
  if (options.metric == Metric::wall_time && region)
    return "a Timer region has no wall time of its own: the step row has the Timer's wall time per step";
  const std::size_t needed = min_samples_for_ci(options.confidence_level);
  if (x.n < needed || y.n < needed)
    return fmt::format("the Timers' windows hold {} (base) and {} (new) steps after warm-up; {} or more per side give a "
                       "{:g} % interval of the median: run more steps", x.n, y.n, needed, 100 * options.confidence_level);
  return {};
}

/// Appends the comparison of the Timers of both reports, matched by name, then their steps and
/// regions (by name): rows "timer:<timer>/step" (the window's GPU time per step) and
/// "timer:<timer>/<region>" (the region's time per step over the window). Unmatched Timers and
/// regions are listed as only in one report, like experiments.
inline void compare_timers(Comparison& out, const StoredReport& base, const StoredReport& candidate,
                           const CompareOptions& options) {
  for (const TimerSummary& a : base.timers) {
    const auto b = std::find_if(candidate.timers.begin(), candidate.timers.end(),
                                [&](const TimerSummary& t) { return t.name == a.name; });
    const std::string prefix = "timer:" + a.name + "/";
    if (b == candidate.timers.end()) {
      out.only_in_base.push_back(prefix + "step");
      continue;
    }
    // A row: the time per step `x` (base) and `y` (new); the step row also its wall time (`wx`,
    // `wy`), a region's row none (null).
    auto add = [&](const std::string& label, const Summary& x, const Summary& y, const Summary* wx, const Summary* wy) {
      const Summary none;
      const Summary& wall_x = wx ? *wx : none;
      const Summary& wall_y = wy ? *wy : none;
      const bool wall = options.metric == Metric::wall_time;
      compare::ExperimentComparison e =
          // A Timer keeps no per-step samples: its rows advise what a Timer can do instead.
          compare_results_advised(timer_row(label, a.backend, x, wall_x), timer_row(label, b->backend, y, wall_y), options,
                                  timer_summary_advice);
      e.differences.clear();  // a Timer records no device or method of its own: the environment's differences apply
      if (std::string problem = timer_row_problem(options, !wx, wall ? wall_x : x, wall ? wall_y : y); !problem.empty()) {
        e.verdict = Verdict::inconclusive;  // what compare_results says too, with an experiment's advice
        e.reason = std::move(problem);
      }
      out.experiments.push_back(std::move(e));
    };
    add(prefix + "step", a.window.gpu_time_s, b->window.gpu_time_s, &a.window.wall_time_s, &b->window.wall_time_s);
    for (const records::TimerRegionSummary& ra : a.regions) {
      const auto rb = std::find_if(b->regions.begin(), b->regions.end(),
                                   [&](const records::TimerRegionSummary& r) { return r.name == ra.name; });
      if (rb == b->regions.end()) out.only_in_base.push_back(prefix + ra.name);
      else add(prefix + ra.name, ra.window.time_per_step_s, rb->window.time_per_step_s, nullptr, nullptr);
    }
    for (const records::TimerRegionSummary& rb : b->regions)
      if (std::none_of(a.regions.begin(), a.regions.end(), [&](const records::TimerRegionSummary& r) { return r.name == rb.name; }))
        out.only_in_candidate.push_back(prefix + rb.name);
  }
  for (const TimerSummary& b : candidate.timers)
    if (std::none_of(base.timers.begin(), base.timers.end(), [&](const TimerSummary& t) { return t.name == b.name; }))
      out.only_in_candidate.push_back("timer:" + b.name + "/step");
}

}  // namespace detail::comparing

namespace detail::comparing {

/// The device's memory bandwidth from an environment, bytes/s: 2 (double data rate) × the peak
/// memory clock × the bus width / 8, of GPU `ordinal` (or the first); nullopt when unknown.
inline std::optional<double> memory_bandwidth(const Environment& env, int ordinal) {
  const env::CudaDeviceInfo* d = nullptr;
  for (const auto& x : env.cuda.devices)
    if (x.ordinal == ordinal) d = &x;
  if (!d && !env.cuda.devices.empty()) d = &env.cuda.devices.front();
  if (!d || !d->memory_clock_max_mhz || !d->memory_bus_width_bits || !(*d->memory_clock_max_mhz > 0) || *d->memory_bus_width_bits <= 0)
    return std::nullopt;
  return 2.0 * *d->memory_clock_max_mhz * 1e6 * static_cast<double>(*d->memory_bus_width_bits) / 8.0;
}

/// Applies the multiplicity rule over the experiments: a `faster` or `slower` whose p-value does
/// not pass Benjamini–Hochberg's step-up (FDR) or Holm's step-down (FWER) at 1 − c becomes `same`
/// when its median's interval lies within 1 ± t, else `inconclusive`, with the reason.
inline void apply_multiplicity(Comparison& out, const CompareOptions& o) {
  std::vector<std::size_t> tested;
  for (std::size_t i = 0; i < out.experiments.size(); ++i)
    if (out.experiments[i].p_value) tested.push_back(i);
  const std::size_t m = tested.size();
  if (m < 2 || o.multiplicity == compare::Multiplicity::none) {
    out.multiplicity_rule = m < 2 ? "" : fmt::format("none: each of {} experiments at {:g} % on its own", m, 100 * o.confidence_level);
    return;
  }
  const double alpha = 1 - o.confidence_level;
  std::sort(tested.begin(), tested.end(),
            [&](std::size_t a, std::size_t b) { return *out.experiments[a].p_value < *out.experiments[b].p_value; });
  std::vector<bool> significant(out.experiments.size(), false);
  if (o.multiplicity == compare::Multiplicity::fdr) {
    std::size_t k = 0;  // the largest rank whose p <= rank alpha / m
    for (std::size_t r = 1; r <= m; ++r)
      if (*out.experiments[tested[r - 1]].p_value <= static_cast<double>(r) * alpha / static_cast<double>(m)) k = r;
    for (std::size_t r = 0; r < k; ++r) significant[tested[r]] = true;
    out.multiplicity_rule = fmt::format("Benjamini-Hochberg false-discovery rate {:g} % over {} experiments", 100 * alpha, m);
  } else {
    for (std::size_t r = 0; r < m; ++r) {
      if (*out.experiments[tested[r]].p_value > alpha / static_cast<double>(m - r)) break;
      significant[tested[r]] = true;
    }
    out.multiplicity_rule = fmt::format("Holm family-wise error rate {:g} % over {} experiments", 100 * alpha, m);
  }
  for (std::size_t i : tested) {
    auto& e = out.experiments[i];
    if (significant[i] || (e.verdict != Verdict::slower && e.verdict != Verdict::faster)) continue;
    const auto& med = e.statistics.empty() ? e.ratio : std::optional<stats::RatioInterval>(e.statistics.front().interval);
    const bool within = med && med->low >= 1 - o.threshold && med->high <= 1 + o.threshold;
    e.reason = fmt::format("{} (p = {}) does not hold under the {}: {}", to_string(e.verdict), format_p(*e.p_value),
                           out.multiplicity_rule, e.reason);
    e.verdict = within ? Verdict::same : Verdict::inconclusive;
  }
}

/// Results of `reports` grouped by name and matching key, in order of first appearance: each
/// group is one experiment's runs on that side.
inline std::vector<std::vector<const Result*>> group_runs(const std::vector<StoredReport>& reports,
                                                         const std::set<std::string>& ignored) {
  std::vector<std::vector<const Result*>> groups;
  for (const auto& rep : reports)
    for (const auto& r : rep.results) {
      const Dimensions key = matching_key(r.dimensions, ignored);
      auto it = std::find_if(groups.begin(), groups.end(), [&](const std::vector<const Result*>& g) {
        return g.front()->name == r.name && matching_key(g.front()->dimensions, ignored) == key;
      });
      if (it == groups.end()) groups.push_back({&r});
      else it->push_back(&r);
    }
  return groups;
}

}  // namespace detail::comparing

/// Compares several reports per side (each a run of the same benchmarks, e.g. from separate
/// processes): experiments are matched by name and dimensions (those in
/// `options.ignored_dimensions` left out); all results of one name and dimensions on one side,
/// across its reports (and the repetitions within one), are that experiment's runs, compared by
/// compare_runs; then the multiplicity rule (Multiplicity) over all experiments. Environment
/// differences: between the first report of each side, and between every report of a side and
/// its first (a side whose runs differ among themselves is not comparable either). Timers are
/// compared from the first report of each side (detail::comparing::compare_timers).
///
/// \throws ConfigError for invalid options or an empty side.
inline Comparison compare_reports(const std::vector<StoredReport>& base, const std::vector<StoredReport>& candidate,
                                  const CompareOptions& options = {}) {
  using namespace detail::comparing;
  validate(options);
  if (base.empty() || candidate.empty()) throw ConfigError("compare_reports: each side needs at least one report");
  Comparison out;
  out.options = options;
  out.base_source = base.front().source;
  out.candidate_source = candidate.front().source;
  for (const auto& r : base) out.base_sources.push_back(r.source);
  for (const auto& r : candidate) out.candidate_sources.push_back(r.source);
  out.environment_differences = compare::environment_differences(base.front().environment, candidate.front().environment);
  auto within_side = [&](const std::vector<StoredReport>& side, const char* which) {
    for (std::size_t i = 1; i < side.size(); ++i)
      for (auto d : compare::environment_differences(side.front().environment, side[i].environment))
        if (d.invalidates)
          out.environment_differences.push_back({std::string(which) + " report " + std::to_string(i + 1) + ": " + d.what, d.base, d.candidate, true});
  };
  within_side(base, "base");
  within_side(candidate, "new");
  // One report holding an experiment twice under the same repetition (or none): its results are
  // that experiment's runs, never paired by position with the other side's; the note says so.
  // An experiment is its name and dimensions (not its label: "k/x=1" may name two).
  auto duplicated = [&](const std::vector<StoredReport>& side, const char* which) {
    for (const auto& rep : side) {
      std::set<std::tuple<std::string, Dimensions, long long>> seen;
      std::set<std::pair<std::string, Dimensions>> named;
      for (const auto& r : rep.results) {
        const std::string label = full_label(r, rep.axes);
        const long long k = r.repetition ? static_cast<long long>(*r.repetition) : -1;
        if (!seen.insert({r.name, r.dimensions, k}).second && named.insert({r.name, r.dimensions}).second)
          out.notes.push_back(label + ": more than once in the " + which + " report " + rep.source +
                              (k < 0 ? "" : " (repetition " + std::to_string(k) + ")") +
                              ": its results there are compared as runs of one experiment, not matched by position "
                              "(give them different names or dimensions if they are different experiments)");
      }
    }
  };
  duplicated(base, "base");
  duplicated(candidate, "new");
  const auto groups_a = group_runs(base, options.ignored_dimensions);
  const auto groups_b = group_runs(candidate, options.ignored_dimensions);
  std::vector<bool> used(groups_b.size(), false);
  std::vector<const Result*> matched_base;
  for (const auto& ga : groups_a) {
    const Result& a = *ga.front();
    const Dimensions key = matching_key(a.dimensions, options.ignored_dimensions);
    std::size_t j = 0;
    for (; j < groups_b.size(); ++j)
      if (!used[j] && groups_b[j].front()->name == a.name && matching_key(groups_b[j].front()->dimensions, options.ignored_dimensions) == key)
        break;
    if (j == groups_b.size()) {
      out.only_in_base.push_back(full_label(a, base.front().axes));
      continue;
    }
    used[j] = true;
    CompareOptions o = options;
    if (!o.memory_bandwidth_bytes_per_s) o.memory_bandwidth_bytes_per_s = memory_bandwidth(base.front().environment, a.device.ordinal);
    out.experiments.push_back(compare::compare_runs(ga, groups_b[j], o));
    matched_base.push_back(&a);
  }
  for (std::size_t j = 0; j < groups_b.size(); ++j)
    if (!used[j]) out.only_in_candidate.push_back(full_label(*groups_b[j].front(), candidate.front().axes));
  // Hints: an unmatched pair of the same name differs in some dimensions.
  std::set<std::string> hinted;
  for (const auto& ga : groups_a) {
    const Result& a = *ga.front();
    if (hinted.count(a.name)) continue;
    bool matched = false;
    for (const auto& e : out.experiments) matched = matched || (e.name == a.name && e.dimensions == a.dimensions);
    if (matched) continue;
    for (std::size_t j = 0; j < groups_b.size(); ++j) {
      const Result& b = *groups_b[j].front();
      if (used[j] || b.name != a.name) continue;
      std::set<std::string> keys;
      std::string changes;
      for (const auto& [k, v] : a.dimensions) {
        const auto it = b.dimensions.find(k);
        if (it == b.dimensions.end() || !(it->second == v)) {
          keys.insert(k);
          changes += (changes.empty() ? "" : ", ") + k + ": " + gauge::to_string(v) + " → " +
                     (it == b.dimensions.end() ? std::string("-") : gauge::to_string(it->second));
        }
      }
      for (const auto& [k, v] : b.dimensions)
        if (!a.dimensions.count(k)) {
          keys.insert(k);
          changes += (changes.empty() ? "" : ", ") + k + ": - → " + gauge::to_string(v);
        }
      std::string flags;
      for (const auto& k : keys) flags += " --ignore-dimension " + k;
      out.notes.push_back(a.name + ": unmatched; the new report has an experiment of that name whose dimensions differ (" +
                          changes + "):" + flags + " compares them");
      hinted.insert(a.name);
      break;
    }
  }
  // Labels: the name alone, unless other results of either side share it; then the dimensions that
  // tell them apart among all of them (so that a label names one point of the reports, as
  // --interleave takes it), declared axes first.
  {
    // One per experiment compared (the first entries); the base report's declared order (`axes`).
    std::vector<const Result*> all = matched_base;
    for (const auto* side : {&base, &candidate})
      for (const auto& rep : *side)
        for (const auto& r : rep.results) all.push_back(&r);
    const std::vector<std::string> labels = detail::distinguishing_labels(all, base.front().axes, options.ignored_dimensions);
    for (std::size_t i = 0; i < out.experiments.size(); ++i)
      if (labels[i] != matched_base[i]->name) out.experiments[i].label = labels[i];
  }
  apply_multiplicity(out, options);
  // A speed-up beyond 10x: check that the step still does its work (issue "Speed of light").
  for (auto& e : out.experiments)
    if (e.base_median_s && e.candidate_median_s && std::isfinite(*e.base_median_s) && std::isfinite(*e.candidate_median_s) &&
        *e.base_median_s >= 0 && *e.candidate_median_s >= 0)
      if (const auto w = detail::implausible_speedup_warning(*e.base_median_s, *e.candidate_median_s, e.label))
        e.notes.push_back(w->code + ": " + w->message);
  compare_timers(out, base.front(), candidate.front(), options);
  if ((base.size() > 1 || candidate.size() > 1) && (!base.front().timers.empty() || !candidate.front().timers.empty()))
    out.notes.push_back("Timers: compared from the first report of each side (" + base.front().source + ", " +
                        candidate.front().source + "); a Timer's runs are not pooled");
  return out;
}

/// Compares two reports: compare_reports({base}, {candidate}, options). An experiment that
/// appears several times in one report (the suite runner's `--repetitions`) has that many runs.
///
/// \param base the reference report; \param candidate the new one.
/// \throws ConfigError for invalid options.
inline Comparison compare_reports(const StoredReport& base, const StoredReport& candidate, const CompareOptions& options = {}) {
  return compare_reports(std::vector<StoredReport>{base}, std::vector<StoredReport>{candidate}, options);
}

}  // namespace gauge
