#pragma once
/// \file gauge/detail/timer_summarize.hpp
/// Builds gauge::Timer's summaries (TimerSummary) from its backend-independent state
/// (gauge::detail::TimerState): the steps and the regions over the rolling window and in total,
/// the counters, and the warnings. No template: compiled once per translation unit, whatever the
/// backends the Timers in it use; the Timer passes what it reads from its backend.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/statistics.hpp"
#include "gauge/core/timer_summary.hpp"
#include "gauge/core/warnings.hpp"
#include "gauge/detail/timer_state.hpp"

namespace gauge::detail {

/// What a summary reads from the Timer's backend and its queue, read once per summary.
struct TimerSnapshot {
  const char* backend = "";         ///< the backend's `name`
  double timer_resolution_s = 0;    ///< its `timer_resolution()`
  std::size_t markers_created = 0;  ///< its `markers_created()`
  std::size_t pending_steps = 0;    ///< ended steps not resolved yet
};

/// The steps over the window and in total: GPU and wall time per step, throughput.
inline void summarize_timer_steps(const TimerState& state, TimerSummary& s) {
  const TimerConfig& config = state.config();
  const TimerHistory& h = state.history();
  auto& w = s.window;
  std::vector<double> gpu, wall;
  gpu.reserve(h.window.size());
  wall.reserve(h.window.size());
  WorkSums work;
  double gpu_sum = 0;
  for (std::size_t i = 0; i < h.window.size(); ++i) {
    const TimerStepEntry& e = h.window[i];
    gpu.push_back(e.gpu_s);
    wall.push_back(e.wall_s);
    work.add(e.work);
    gpu_sum += e.gpu_s;
  }
  w.steps = h.window.size();
  if (w.steps > 0) {
    w.first_step = h.window.front().step;
    w.last_step = h.window.back().step;
  }
  w.gpu_time_s = gauge::stats::summarize(std::move(gpu), config.confidence_level);
  w.wall_time_s = gauge::stats::summarize(std::move(wall), config.confidence_level);
  w.throughput = timer_throughput(work, gpu_sum, config.peak_flop_per_s);
  auto& t = s.total;
  t.steps = h.gpu_total.n();
  t.gpu_time_s = h.gpu_total.summary();
  t.wall_time_s = h.wall_total.summary();
  t.throughput = timer_throughput(h.work_total, h.gpu_total.sum(), config.peak_flop_per_s);
}

/// Every region over the window (its samples in the window's steps) and in total, with its share
/// of the step's GPU time.
inline void summarize_timer_regions(const TimerState& state, TimerSummary& s) {
  const TimerHistory& h = state.history();
  const std::vector<TimerRegionState>& regions = state.regions();
  double window_gpu = 0;
  for (std::size_t i = 0; i < h.window.size(); ++i) window_gpu += h.window[i].gpu_s;
  const std::size_t first = h.window.empty() ? 0 : h.window.front().step;
  const double total_gpu = h.gpu_total.sum();
  for (const TimerRegionState& r : regions) {
    records::TimerRegionSummary out;
    out.name = r.name;
    out.kind = r.kind == TimerRegionKind::phase ? "phase" : "region";
    out.parent = r.parent == no_region ? std::string() : regions[r.parent].name;
    out.stream = r.first_foreign ? "other" : "timer";
    out.level = r.level;
    std::vector<double> values, offsets;
    values.reserve(r.window.size());
    double sum = 0;
    for (std::size_t i = 0; i < r.window.size(); ++i) {
      const TimerWindowEntry& e = r.window[i];
      if (h.window.empty() || e.step < first) continue;
      values.push_back(e.value);
      if (std::isfinite(e.start_offset)) offsets.push_back(e.start_offset);
      sum += e.value;
      out.window.occurrences += e.count;
    }
    if (!offsets.empty()) {
      std::sort(offsets.begin(), offsets.end());
      out.window.start_offset_s = stats::percentile_sorted(offsets, 50);
    }
    out.window.steps = values.size();
    out.window.time_per_step_s = gauge::stats::summarize(std::move(values), state.config().confidence_level);
    if (out.window.steps > 0 && window_gpu > 0) out.window.share_of_step = finite_or_nullopt(sum / window_gpu);
    out.total.steps = r.total_steps;
    out.total.occurrences = r.total_occurrences;
    out.total.time_per_step_s = r.total.summary();
    if (r.total_steps > 0 && total_gpu > 0) out.total.share_of_step = finite_or_nullopt(r.total.sum() / total_gpu);
    s.regions.push_back(std::move(out));
  }
}

/// More distinct region names than this in one Timer gets `timer_many_regions`.
inline constexpr std::size_t timer_many_regions_limit = 1000;

/// The warnings of a summary: forced waits, unresolved steps, a pool that grew after warm-up,
/// very many region names, steps that could not be resolved.
inline void add_timer_warnings(const TimerState& state, const TimerSnapshot& now, TimerSummary& s) {
  const records::TimerCounters& counters = state.counters();
  const std::optional<std::size_t>& pool_at_warm = state.pool_at_warm();
  char buf[512];
  if (counters.forced_waits > 0) {
    std::snprintf(buf, sizeof buf,
                  "%zu step(s) waited on the host because more than max_pending_steps = %zu steps were pending: "
                  "the host ran that far ahead of the device. Raise max_pending_steps to keep the loop free of "
                  "host synchronizations.",
                  counters.forced_waits, state.config().max_pending_steps);
    s.warnings.push_back(make_warning(warning_code::timer_forced_wait, buf));
  }
  if (now.pending_steps > 0) {
    std::snprintf(buf, sizeof buf,
                  "%zu ended step(s) had not completed on the device yet and are not in this summary; "
                  "finish() or flush() waits for them.",
                  now.pending_steps);
    s.warnings.push_back(make_warning(warning_code::timer_unresolved_steps, buf));
  }
  if (pool_at_warm && now.markers_created > *pool_at_warm) {
    std::snprintf(buf, sizeof buf,
                  "the marker pool grew by %zu after the %zu warm-up steps (to %zu): steady-state steps "
                  "allocated. More regions appeared, or the host ran further ahead; raise warmup_steps.",
                  now.markers_created - *pool_at_warm, state.config().warmup_steps, now.markers_created);
    s.warnings.push_back(make_warning(warning_code::timer_pool_grew_after_warmup, buf));
  }
  if (state.region_count() > timer_many_regions_limit) {
    std::snprintf(buf, sizeof buf,
                  "%zu distinct region names (more than %zu): each is a region of its own, with its own window "
                  "and summary line, and costs memory and time per step. Names should be few and fixed; a name "
                  "built from a changing value (a step index, a shape) makes one region per value.",
                  state.region_count(), timer_many_regions_limit);
    s.warnings.push_back(make_warning(warning_code::timer_many_regions, buf));
  }
  if (counters.failed_steps > 0) {
    s.warnings.push_back(make_warning(warning_code::timer_resolution_failed,
                                     std::to_string(counters.failed_steps) +
                                         " step(s) could not be resolved and were dropped; the last error: " +
                                         state.last_error()));
  }
}

/// The summary of the steps resolved so far (Timer::summary()).
inline TimerSummary summarize_timer(const TimerState& state, const TimerSnapshot& now) {
  TimerSummary s;
  s.name = state.name();
  s.backend = now.backend;
  s.config = state.config();
  s.timer_resolution_s = now.timer_resolution_s;
  s.counters = state.counters();
  s.counters.steps = state.steps();
  s.counters.pending_steps = now.pending_steps;
  s.counters.markers_created = now.markers_created;
  if (state.pool_at_warm()) s.counters.markers_created_after_warmup = now.markers_created - *state.pool_at_warm();
  summarize_timer_steps(state, s);
  summarize_timer_regions(state, s);
  add_timer_warnings(state, now, s);
  return s;
}

/// Makes `s` the final summary (Timer::finish()): `final`, and a warning naming the regions still
/// open and counting the occurrences of a step not ended by step().
inline void finish_timer_summary(const TimerState& state, TimerSummary& s) {
  s.final = true;
  std::string open;
  for (std::uint32_t id : state.open_regions()) open += (open.empty() ? "'" : ", '") + state.regions()[id].name + "'";
  const std::size_t unended = state.unended_intervals();
  if (!open.empty() || unended > 0) {
    s.warnings.push_back(make_warning(
        warning_code::timer_unfinished,
        (open.empty() ? std::string() : "regions still open at finish(): " + open + "; ") +
            (unended > 0 ? std::to_string(unended) + " region occurrence(s) of a step not ended by step() are not counted"
                         : std::string("they are not counted")) +
            "."));
  }
}

}  // namespace gauge::detail
