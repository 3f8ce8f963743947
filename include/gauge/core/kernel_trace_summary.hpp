#pragma once
/// \file gauge/core/kernel_trace_summary.hpp
/// `summarize_trace`: the report's `kernel_trace` section from the activity records of one traced
/// round (the model is in gauge/core/kernel_trace.hpp). Pure: tested with records written by hand.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/error.hpp"
#include "gauge/core/kernel_trace.hpp"
#include "gauge/core/statistics.hpp"

namespace gauge {

namespace detail {

/// Length of the union of [start, end) intervals, ns. Sorts `iv` in place.
inline std::uint64_t union_length(std::vector<std::pair<std::uint64_t, std::uint64_t>>& iv) {
  std::sort(iv.begin(), iv.end());
  std::uint64_t total = 0, cur_start = 0, cur_end = 0;
  bool open = false;
  for (const auto& [s, e] : iv) {
    if (!open || s > cur_end) {
      if (open) total += cur_end - cur_start;
      cur_start = s;
      cur_end = e;
      open = true;
    } else {
      cur_end = std::max(cur_end, e);
    }
  }
  if (open) total += cur_end - cur_start;
  return total;
}

}  // namespace detail

/// Summarizes the activities of one traced round.
///
/// \param activities every record received while tracing; those with `unit` set were launched by
///   unit `*unit` of the round (0-based, < `units`). When none has a unit (external correlation
///   unavailable) and the count is a multiple of `units`, they are attributed in start order, an
///   equal number per unit ("launch order"); otherwise none is attributed.
/// \param units launches of the step (or graph replays) in the traced round, >= 1.
/// \param steps_per_unit steps per unit (k for graph replays, else 1), >= 1.
/// \param period_s the traced round's period per step from events, seconds (> 0), or nullopt.
/// \return the record, `status` "traced". Durations in seconds; per-step figures divide by
///   units × steps_per_unit.
/// \throws ConfigError if units or steps_per_unit is 0, or a record has end < start or unit >= units.
inline records::KernelTraceRecord summarize_trace(std::vector<records::Activity> activities, std::size_t units,
                                         std::size_t steps_per_unit, std::optional<double> period_s) {
  if (units == 0) throw ConfigError("summarize_trace: units must be >= 1, got 0");
  if (steps_per_unit == 0) throw ConfigError("summarize_trace: steps_per_unit must be >= 1, got 0");
  for (const auto& a : activities) {
    if (a.end_ns < a.start_ns)
      throw ConfigError("summarize_trace: activity '" + a.name + "' ends (" + std::to_string(a.end_ns) +
                        " ns) before it starts (" + std::to_string(a.start_ns) + " ns)");
    if (a.unit && *a.unit >= units)
      throw ConfigError("summarize_trace: activity '" + a.name + "' has unit " + std::to_string(*a.unit) +
                        ", outside the round's " + std::to_string(units) + " units");
  }
  records::KernelTraceRecord t;
  t.status = "traced";
  t.steps = units * steps_per_unit;
  t.steps_per_unit = steps_per_unit;
  t.records = activities.size();
  if (period_s && *period_s > 0) t.period_s = period_s;

  const bool any_unit = std::any_of(activities.begin(), activities.end(), [](const records::Activity& a) { return a.unit.has_value(); });
  if (any_unit) {
    t.attribution = "external correlation";
  } else if (!activities.empty() && activities.size() % units == 0) {
    t.attribution = "launch order";
    std::stable_sort(activities.begin(), activities.end(),
                     [](const records::Activity& a, const records::Activity& b) { return a.start_ns < b.start_ns; });
    const std::size_t per = activities.size() / units;
    for (std::size_t i = 0; i < activities.size(); ++i) activities[i].unit = i / per;
  }
  std::vector<std::vector<const records::Activity*>> by_unit(units);
  for (const auto& a : activities)
    if (a.unit) by_unit[*a.unit].push_back(&a);
  for (const auto& u : by_unit) t.attributed_records += u.size();
  if (t.attributed_records == 0) return t;

  const double steps = static_cast<double>(t.steps);
  // Per name, in order of first appearance.
  std::map<std::string, std::size_t> index;
  std::vector<std::vector<double>> durations;
  double total_ns = 0;
  for (const auto& u : by_unit)
    for (const records::Activity* a : u) {
      auto [it, fresh] = index.emplace(a->name, t.kernels.size());
      if (fresh) {
        records::TracedKernel k;
        k.name = a->name;
        k.kind = to_string(a->kind);
        if (a->kind == records::ActivityKind::kernel) {
          k.grid = {a->grid[0], a->grid[1], a->grid[2]};
          k.block = {a->block[0], a->block[1], a->block[2]};
          k.registers_per_thread = a->registers_per_thread;
          k.static_shared_bytes = a->static_shared_bytes;
          k.dynamic_shared_bytes = a->dynamic_shared_bytes;
        } else {
          k.bytes = a->bytes;
        }
        t.kernels.push_back(std::move(k));
        durations.emplace_back();
      }
      records::TracedKernel& k = t.kernels[it->second];
      ++k.launches;
      if (std::find(k.streams.begin(), k.streams.end(), a->stream_id) == k.streams.end()) k.streams.push_back(a->stream_id);
      const double d = static_cast<double>(a->end_ns - a->start_ns);
      durations[it->second].push_back(d * 1e-9);
      total_ns += d;
    }
  for (std::size_t i = 0; i < t.kernels.size(); ++i) {
    auto& k = t.kernels[i];
    auto& d = durations[i];
    std::sort(d.begin(), d.end());
    k.launches_per_step = static_cast<double>(k.launches) / steps;
    k.median_s = stats::percentile_sorted(d, 50);
    k.p99_s = stats::percentile_sorted(d, 99);
    k.min_s = d.front();
    k.max_s = d.back();
    double sum = 0;
    for (double x : d) sum += x;
    k.time_per_step_s = sum / steps;
    if (t.period_s) k.share_of_step = k.time_per_step_s / *t.period_s;
  }
  std::stable_sort(t.kernels.begin(), t.kernels.end(),
                   [](const records::TracedKernel& a, const records::TracedKernel& b) { return a.time_per_step_s > b.time_per_step_s; });
  t.kernel_time_per_step_s = total_ns * 1e-9 / steps;

  // Busy (union) and span per unit; spans need the next unit's first start.
  std::vector<std::optional<std::uint64_t>> first(units);
  std::vector<std::uint64_t> busy(units, 0);
  for (std::size_t u = 0; u < units; ++u) {
    if (by_unit[u].empty()) continue;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> iv;
    std::uint64_t f = by_unit[u].front()->start_ns;
    for (const records::Activity* a : by_unit[u]) {
      iv.emplace_back(a->start_ns, a->end_ns);
      f = std::min(f, a->start_ns);
    }
    first[u] = f;
    busy[u] = detail::union_length(iv);
  }
  double span_sum = 0, busy_sum = 0;
  std::size_t spans = 0;
  for (std::size_t u = 0; u + 1 < units; ++u) {
    if (!first[u] || !first[u + 1] || *first[u + 1] < *first[u]) continue;
    span_sum += static_cast<double>(*first[u + 1] - *first[u]);
    busy_sum += static_cast<double>(busy[u]);
    ++spans;
  }
  const double spu = static_cast<double>(steps_per_unit);
  if (spans > 0) {
    t.device_period_s = span_sum / static_cast<double>(spans) * 1e-9 / spu;
    t.busy_per_step_s = busy_sum / static_cast<double>(spans) * 1e-9 / spu;
    t.gaps_per_step_s = *t.device_period_s - *t.busy_per_step_s;
    if (*t.device_period_s > 0) t.busy_fraction = *t.busy_per_step_s / *t.device_period_s;
    if (t.period_s) t.closure = (*t.kernel_time_per_step_s + *t.gaps_per_step_s) / *t.period_s - 1;
  } else if (units == 1 && first[0]) {
    t.busy_per_step_s = static_cast<double>(busy[0]) * 1e-9 / spu;
  }

  // The sample step: the middle unit that has activities.
  std::size_t sample = units / 2;
  while (sample < units && by_unit[sample].empty()) ++sample;
  if (sample == units) sample = 0;
  while (sample < units && by_unit[sample].empty()) ++sample;
  if (sample < units) {
    std::vector<const records::Activity*> acts = by_unit[sample];
    std::stable_sort(acts.begin(), acts.end(), [](const records::Activity* a, const records::Activity* b) { return a->start_ns < b->start_ns; });
    const std::uint64_t origin = *first[sample];
    for (const records::Activity* a : acts)
      t.sample_step.push_back(records::TraceSpan{a->name, to_string(a->kind), a->stream_id,
                                        static_cast<double>(a->start_ns - origin) * 1e-9,
                                        static_cast<double>(a->end_ns - origin) * 1e-9});
  }
  return t;
}

}  // namespace gauge
