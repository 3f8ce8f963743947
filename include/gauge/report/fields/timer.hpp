#pragma once
/// \file gauge/report/fields/timer.hpp
/// The descriptions (gauge/report/fields.hpp) of a Timer's summary: its configuration, counters,
/// throughput, the windows and totals of its steps and regions, and its kernel trace.

#include <nlohmann/json.hpp>

#include <cmath>
#include <string>

#include "gauge/core/timer_summary.hpp"
#include "gauge/report/serial.hpp"
#include "gauge/report/fields/measurement.hpp"

namespace gauge {

namespace serial {

// ---- a Timer's summary -------------------------------------------------------------------------

/// TotalSummary → {"n", "sum", "min", "mean", "stddev", "max", "p50", "p90", "p99",
/// "percentile_method"}.
GAUGE_SERIAL_DESCRIPTION(stats::TotalSummary, "total_summary", NoFlags) {
  GAUGE_SERIAL_FIELDS(n, sum, min, mean, stddev, max, p50, p90, p99);
  v.constant("percentile_method", stats::TotalSummary::percentile_method);
}

/// One item's rate of a Throughput under its own key (`tokens_per_s`): null when absent.
template <class V, class C>
void item_rate(V& v, C& x, const char* key, const char* item) {
  v.computed(
      key, json_number | json_null, x,
      [item](const Throughput& t) -> nlohmann::json {
        const auto rate = t.item_per_second(item);
        if (!rate || !std::isfinite(*rate)) return nullptr;
        return *rate;
      },
      [item](const nlohmann::json& j, Throughput& t) {
        if (j.is_null()) return;
        if (!j.is_number()) wrong_type("a number or null", j);
        t.items_per_second[item] = j.get<double>();
      });
}

/// TimerThroughput → {"tokens_per_s", "samples_per_s", "flop_per_s", "bytes_per_s", "mfu"}: the
/// Throughput of the experiments' keys, with the Timer's two items under their own keys (as
/// written since schema 1.1).
GAUGE_SERIAL_DESCRIPTION(records::TimerThroughput, "timer_throughput", NoFlags) {
  item_rate(v, x, "tokens_per_s", "tokens");
  item_rate(v, x, "samples_per_s", "samples");
  v("flop_per_s", x.flop_per_second);
  v("bytes_per_s", x.bytes_per_second);
  v("mfu", x.mfu);
}

/// TimerConfig → every setting, defaults included; `peak_source` is null without a peak and
/// "user (no source given)" for a peak without a source.
GAUGE_SERIAL_DESCRIPTION(TimerConfig, "timer_config", NoFlags) {
  GAUGE_SERIAL_FIELDS(warmup_steps, window, log_every, level, max_pending_steps, confidence_level,
                      peak_flop_per_s);
  v("trace_kernels", x.trace_kernels, since_1_4);
  v.computed(
      "peak_source", json_string | json_null, x,
      [](const TimerConfig& c) -> nlohmann::json {
        if (!c.peak_flop_per_s) return nullptr;
        return c.peak_source.empty() ? std::string("user (no source given)") : c.peak_source;
      },
      [](const nlohmann::json& j, TimerConfig& c) {
        if (!j.is_null() && !j.is_string()) wrong_type("a string or null", j);
        c.peak_source = j.is_null() ? std::string() : j.get<std::string>();
      });
}

/// TimerCounters → every counter by name.
GAUGE_SERIAL_DESCRIBE(records::TimerCounters, "timer_counters", steps, resolved_steps, warmup_steps, pending_steps,
    failed_steps, region_boundaries, markers_recorded, queries, host_synchronizations, forced_waits,
    markers_created, markers_created_after_warmup)

/// TimerRegionWindow → {"steps", "occurrences", "time_per_step_s" (a Summary), "share_of_step",
/// "start_offset_s" (schema 1.8)}.
GAUGE_SERIAL_DESCRIPTION(records::TimerRegionWindow, "timer_region_window", NoFlags) {
  GAUGE_SERIAL_FIELDS(steps, occurrences, time_per_step_s, share_of_step);
  v("start_offset_s", x.start_offset_s, since_1_8);
}

/// TimerRegionTotal → {"steps", "occurrences", "time_per_step_s" (a TotalSummary), "share_of_step"}.
GAUGE_SERIAL_DESCRIBE(records::TimerRegionTotal, "timer_region_total", steps, occurrences, time_per_step_s,
    share_of_step)

/// TimerRegionSummary → {"name", "kind", "parent" (null at the top level), "stream", "level",
/// "window", "total"}.
GAUGE_SERIAL_DESCRIPTION(records::TimerRegionSummary, "timer_region", NoFlags) {
  GAUGE_SERIAL_FIELDS(name, kind);
  v("parent", x.parent, empty_as_null);
  GAUGE_SERIAL_FIELDS(stream, level, window, total);
}

/// The keys a Timer's window and its totals share: "gpu_time_per_step_s", "wall_time_per_step_s"
/// (the time per step on each clock) and "throughput".
template <class V, class C>
void step_time_fields(V& v, C& x) {
  v("gpu_time_per_step_s", x.gpu_time_s);
  v("wall_time_per_step_s", x.wall_time_s);
  v("throughput", x.throughput);
}

/// TimerStepWindow → {"steps", "first_step", "last_step", "gpu_time_per_step_s",
/// "wall_time_per_step_s" (Summaries), "throughput"}.
GAUGE_SERIAL_DESCRIPTION(records::TimerStepWindow, "timer_window", NoFlags) {
  GAUGE_SERIAL_FIELDS(steps, first_step, last_step);
  step_time_fields(v, x);
}

/// TimerStepTotal → {"steps", "gpu_time_per_step_s", "wall_time_per_step_s" (TotalSummaries),
/// "throughput"}.
GAUGE_SERIAL_DESCRIPTION(records::TimerStepTotal, "timer_total", NoFlags) {
  v("steps", x.steps);
  step_time_fields(v, x);
}

/// TimerRegionKernels → one region's kernels in the Timer's sampled step (schema 1.4).
GAUGE_SERIAL_DESCRIBE(records::TimerRegionKernels, "timer_region_kernels", region, kernel_time_s, kernels)

/// TimerKernelTrace → the kernels of the Timer's sampled step, per region (schema 1.4).
GAUGE_SERIAL_DESCRIBE(records::TimerKernelTrace, "timer_kernel_trace", status, reason, tool, step, step_gpu_time_s,
    kernel_time_s, device_period_s, busy_s, gaps_s, closure, records, attributed_records, regions)

/// TimerSummary → one entry of the report's `timers` list.
GAUGE_SERIAL_DESCRIPTION(TimerSummary, "timer", NoFlags) {
  GAUGE_SERIAL_FIELDS(name, backend, final, config, timer_resolution_s, counters, window, total, regions, warnings);
  v("kernel_trace", x.kernel_trace, since_1_4);
}

}  // namespace serial
}  // namespace gauge
