#pragma once
/// \file gauge/core/kernel_trace.hpp
/// Kernel-level truth (DESIGN.md, "Kernel-level truth"): what ran inside a step and for how long,
/// from activity records on the device clock (CUPTI's Activity API, gauge/env/cupti.hpp), beside
/// the step's period from events. Plain data; the figures come from `summarize_trace`
/// (gauge/core/kernel_trace_summary.hpp), which the tests check with records written by hand.
///
/// The model. A traced round runs `units` launches of the step (one step each; one graph replay
/// of k steps each in graph mode) back to back on one stream. Each activity (kernel, memcpy,
/// memset) the step launched is attributed to the unit that launched it by CUPTI's external
/// correlation: gauge pushes the unit's index before calling the step and pops it after, and CUPTI
/// ties every API call made in between, and the work it launched, to that index. Work launched
/// outside the step (gauge's gate and cache flush, the setup, other threads) is not attributed
/// and is only counted.
///
/// Per unit u: `busy_u` is the length of the union of its activities' [start, end) intervals;
/// `span_u` is the time from the first start of unit u to the first start of unit u + 1 (the
/// step's period on the device clock, launch gap included). Over units 0..units−2:
/// `gaps = mean(span − busy)`, so `busy_per_step + gaps_per_step = device_period` exactly, and
/// `kernel_time_per_step + gaps_per_step` equals the event period to within the clocks'
/// agreement when activities do not overlap (`closure`).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>


namespace gauge {
namespace records {
/// What kind of device work an activity record is.
enum class ActivityKind { kernel, memcpy, memset };

/// Text name of an ActivityKind ("kernel", "memcpy", "memset").
inline const char* to_string(ActivityKind k) {
  switch (k) {
    case ActivityKind::kernel: return "kernel";
    case ActivityKind::memcpy: return "memcpy";
    case ActivityKind::memset: return "memset";
  }
  return "kernel";
}
}  // namespace records
using records::to_string;  // gauge::to_string names every enum of gauge

namespace records {
/// One activity record: a kernel, memcpy or memset as the device ran it. Times are nanoseconds
/// on CUPTI's clock (cuptiGetTimestamp), for differences only.
struct Activity {
  ActivityKind kind = ActivityKind::kernel;
  std::string name;               ///< demangled kernel name; "memcpy DtoD", "memset" for the others
  std::uint64_t start_ns = 0;     ///< device start, ns
  std::uint64_t end_ns = 0;       ///< device end, ns (>= start_ns)
  std::uint32_t stream_id = 0;    ///< CUPTI's stream id
  std::uint32_t correlation_id = 0;  ///< ties the record to the API call that launched it
  std::optional<std::uint64_t> unit;  ///< the traced unit (step or replay) that launched it, if known
  // Kernels only (0 for memcpy and memset):
  int grid[3] = {0, 0, 0};
  int block[3] = {0, 0, 0};
  unsigned registers_per_thread = 0;
  int static_shared_bytes = 0;
  int dynamic_shared_bytes = 0;
  std::uint64_t bytes = 0;        ///< memcpy / memset only
};

/// One name's activities in the traced round (a row of the console's kernel table).
struct TracedKernel {
  std::string name;
  std::string kind;                    ///< "kernel", "memcpy" or "memset"
  std::size_t launches = 0;            ///< in the traced round
  double launches_per_step = 0;        ///< launches / steps traced
  std::optional<double> median_s;      ///< median duration of one launch, seconds
  std::optional<double> p99_s;         ///< 99th percentile (Hyndman–Fan 7) of one launch's duration
  std::optional<double> min_s, max_s;
  double time_per_step_s = 0;          ///< sum of its durations / steps traced
  std::optional<double> share_of_step; ///< time_per_step_s / the step's period (events)
  std::vector<int> grid;               ///< of its first launch (kernels; empty otherwise)
  std::vector<int> block;
  unsigned registers_per_thread = 0;
  int static_shared_bytes = 0;
  int dynamic_shared_bytes = 0;
  std::uint64_t bytes = 0;             ///< memcpy / memset: bytes of its first launch
  std::vector<std::uint32_t> streams;  ///< CUPTI stream ids it ran on
};

/// One activity of the sample step drawn by `gauge-plot trace`, relative to the step's start.
struct TraceSpan {
  std::string name;
  std::string kind;
  std::uint32_t stream_id = 0;
  double start_s = 0;  ///< from the first start of the step, seconds
  double end_s = 0;
};

/// The report's `kernel_trace` section (schema 1.4): what ran inside the step.
struct KernelTraceRecord {
  /// "traced"; "unavailable" (no CUPTI, or CUPTI failed: see `reason`); "disabled" (another
  /// CUPTI client such as ncu or nsys is attached); "not run" (the run failed before tracing).
  std::string status = "not run";
  std::string reason;                        ///< why not traced; empty when traced
  std::string tool;                          ///< e.g. "CUPTI 13.0 (API version 130001)"
  std::string attribution;                   ///< "external correlation", "launch order" or ""
  std::size_t steps = 0;                     ///< steps in the traced round
  std::size_t steps_per_unit = 1;            ///< k in graph mode (a replay), else 1
  std::size_t records = 0;                   ///< activity records received
  std::size_t attributed_records = 0;        ///< of them, launched by the step
  std::uint64_t dropped_records = 0;         ///< records CUPTI reported dropped (buffers full)
  std::optional<double> period_s;            ///< step period in the traced round (events), seconds
  std::optional<double> untraced_period_s;   ///< the same, mean of the untraced rounds just before and after
  std::optional<double> tracing_overhead;    ///< period_s / untraced_period_s − 1
  std::optional<double> device_period_s;     ///< mean span between steps' first starts (CUPTI clock)
  std::optional<double> kernel_time_per_step_s;  ///< sum of all attributed durations / steps
  std::optional<double> busy_per_step_s;     ///< mean union of a step's activities, seconds
  std::optional<double> gaps_per_step_s;     ///< device_period_s − busy_per_step_s
  std::optional<double> busy_fraction;       ///< busy_per_step_s / device_period_s ("GPU busy within the step")
  /// (kernel_time_per_step_s + gaps_per_step_s) / period_s − 1: how well the kernels and gaps add
  /// up to the period that events measured (0 when activities do not overlap and the clocks agree).
  std::optional<double> closure;
  std::vector<TracedKernel> kernels;         ///< by time per step, largest first
  std::vector<TraceSpan> sample_step;        ///< the activities of one step (the middle one)
};
}  // namespace records

}  // namespace gauge
