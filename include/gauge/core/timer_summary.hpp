#pragma once
/// \file gauge/core/timer_summary.hpp
/// What a gauge::Timer (timer.hpp) reports, and the bounded-memory statistics behind it: the
/// work of a training step, the Timer's configuration with its defaults, the rolling window and
/// the running totals, and the summary types that the report (report/timer_json.hpp) writes.
/// The standard library and {fmt} only (core layer): no CUDA header.
///
/// Two views of every per-step time, each with bounded memory however long the loop runs:
/// - the *window*: the last `TimerConfig::window` resolved steps, kept exactly, summarized by
///   `gauge::stats::summarize` (percentiles by Hyndman-Fan type 7, as DESIGN.md asks);
/// - the *total*: every step after warm-up, as exact running moments (n, sum, mean, standard
///   deviation, min, max) plus percentiles from a log-bucketed histogram (`LogHistogram`), whose
///   values are within 0.5 % of an order statistic (the method is written into the report).

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/error.hpp"
#include "gauge/core/format.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/running_statistics.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/core/warnings.hpp"
#include "gauge/core/work.hpp"

namespace gauge {

/// Region levels, as Megatron-LM's `--timing-log-level` (megatron/core/timers.py): a region
/// registered at a level above the Timer's level is a no-op. 0: the coarsest regions (always
/// timed unless the Timer is off), 1: the usual regions (forward, backward, optimizer; the
/// default), 2: fine regions (per layer, communication). The Timer's level may also be -1: only
/// the step itself is timed.
namespace timer_level {
inline constexpr int off = -1;     ///< Timer level: regions are all no-ops; steps are still timed
inline constexpr int coarse = 0;   ///< region level 0
inline constexpr int normal = 1;   ///< region level 1 (default of regions and of the Timer)
inline constexpr int detailed = 2; ///< region level 2
inline constexpr int max = 2;      ///< the highest valid level
}  // namespace timer_level

/// The Timer's settings, with their defaults and the reasons for them; written, defaults included,
/// into every summary. Validated by `validate(const TimerConfig&)`.
struct TimerConfig {
  /// Steps excluded from every summary at the start: the first steps carry the five warm-up
  /// effects of the seed (module loading, JIT, autotuning, allocator growth, cache creation) and
  /// the Timer's own pool growth. 20 steps are cheap to drop from a loop of thousands.
  std::size_t warmup_steps = 20;
  /// Steps in the rolling window. 200 samples put p99 between the two largest order statistics
  /// (type 7: index 197.01 of 0..199) and keep a summary's sort under ~10 µs per region.
  std::size_t window = 200;
  /// Log to the sinks (`Timer::on_log`) every this many resolved steps after warm-up; 0: never.
  /// 100 by default (it was 0, so a registered sink never ran): without a sink nothing is computed
  /// at these steps; at level 2 with `trace_kernels` one step in this many is traced.
  std::size_t log_every = 100;
  /// Regions registered at a level above this are no-ops (see `timer_level`). -1 .. 2.
  int level = timer_level::normal;
  /// Most steps recorded and not yet resolved. The host may run ahead of the device by up to
  /// the CUDA launch queue (about a thousand operations): 256 steps of 4 operations. Beyond it the
  /// Timer waits for the oldest step (a host synchronization, counted and warned about).
  std::size_t max_pending_steps = 256;
  /// Level of the distribution-free confidence interval of the window's medians.
  double confidence_level = 0.95;
  /// Peak FLOP/s that model-FLOPs utilization (MFU) divides by; absent: no MFU. The user gives
  /// it (gauge does not measure it) and says where it comes from in `peak_source`.
  std::optional<double> peak_flop_per_s;
  /// Where `peak_flop_per_s` comes from, e.g. "NVIDIA H200 datasheet, dense BF16 tensor core".
  std::string peak_source;
  /// Kernel tracing (CUPTI, gauge/env/cupti.hpp) of one sampled step every `log_every` steps, at
  /// level 2 (timer_level::detailed): the kernels, memcpys and memsets each region launched, by
  /// name, with their durations (TimerSummary::kernel_trace). Needs log_every > 0 and gauge's
  /// compiled part (GAUGE_IMPLEMENTATION) in the program. Adds no host synchronization: the
  /// records are collected once the sampled step has resolved.
  bool trace_kernels = false;
};

/// Throws ConfigError naming the setting and its value unless `c` is valid: window >= 1,
/// max_pending_steps >= 1, level in [-1, 2], confidence_level in (0, 1), peak_flop_per_s finite
/// and > 0 when given.
inline void validate(const TimerConfig& c) {
  if (c.window < 1) throw ConfigError("TimerConfig.window must be >= 1 step, got 0");
  if (c.max_pending_steps < 1) throw ConfigError("TimerConfig.max_pending_steps must be >= 1, got 0");
  if (c.level < timer_level::off || c.level > timer_level::max)
    throw ConfigError("TimerConfig.level must be in [-1, 2], got " + std::to_string(c.level));
  if (!(c.confidence_level > 0 && c.confidence_level < 1))
    throw ConfigError("TimerConfig.confidence_level must be in (0, 1), got " +
                      detail::format_number(c.confidence_level));
  if (c.trace_kernels && c.log_every == 0)
    throw ConfigError("TimerConfig.trace_kernels samples one step every log_every steps: set log_every > 0 (it is 0)");
  if (c.peak_flop_per_s && !(std::isfinite(*c.peak_flop_per_s) && *c.peak_flop_per_s > 0))
    throw ConfigError("TimerConfig.peak_flop_per_s must be a finite number > 0, got " +
                      detail::format_number(*c.peak_flop_per_s));
}

namespace records {
/// Throughput of a set of steps: their summed work over their summed step time on the device
/// clock (`gpu_time_s`: from the boundary before the first step to the boundary after the last,
/// device idle time included), and MFU. The core's Throughput (FLOP/s, bytes/s, and the items
/// "tokens" and "samples" per second) plus MFU. Why not the host clock between step() calls: a
/// host that runs ahead enqueues steps faster than they complete until the launch queue is full
/// (seen on an H200: 281 us of host time per step against 318 us on the device over the first 300
/// steps, the host 43 steps ahead), so host time overstates throughput for hundreds of steps; the
/// step boundaries on the device clock say when steps completed, whichever side is the bottleneck.
struct TimerThroughput : Throughput {
  /// Model-FLOPs utilization: flop_per_second / TimerConfig::peak_flop_per_s (a fraction, not %);
  /// absent without a peak or without FLOP.
  std::optional<double> mfu;
};
}  // namespace records

namespace detail {
/// Sums of the work of a set of steps; a kind of work counts only if every step declared it.
struct WorkSums {
  double tokens = 0, samples = 0, flop = 0, bytes = 0;  ///< summed work
  std::size_t steps = 0;                                 ///< steps added
  std::size_t with_tokens = 0, with_samples = 0, with_flop = 0, with_bytes = 0;  ///< steps declaring each
  /// Adds one step's work.
  void add(const StepWork& w) {
    ++steps;
    accumulate(tokens, with_tokens, w.tokens());
    accumulate(samples, with_samples, w.samples());
    accumulate(flop, with_flop, w.flop());
    accumulate(bytes, with_bytes, w.bytes());
  }

 private:
  static void accumulate(double& sum, std::size_t& with, const std::optional<double>& v) {
    if (!v) return;
    sum += *v;
    ++with;
  }
};

/// Throughput of `work` done in `seconds` (a step time sum); MFU against `peak_flop_per_s`.
/// A rate is reported only when every step declared that kind of work and seconds > 0.
inline records::TimerThroughput timer_throughput(const WorkSums& work, double seconds,
                                        const std::optional<double>& peak_flop_per_s) {
  records::TimerThroughput t;
  if (!(seconds > 0) || !std::isfinite(seconds) || work.steps == 0) return t;
  auto rate = [&](double sum, std::size_t with) -> std::optional<double> {
    if (with != work.steps) return std::nullopt;
    return finite_or_nullopt(sum / seconds);
  };
  t.flop_per_second = rate(work.flop, work.with_flop);
  t.bytes_per_second = rate(work.bytes, work.with_bytes);
  if (const auto r = rate(work.tokens, work.with_tokens)) t.items_per_second["tokens"] = *r;
  if (const auto r = rate(work.samples, work.with_samples)) t.items_per_second["samples"] = *r;
  if (t.flop_per_second && peak_flop_per_s && *peak_flop_per_s > 0) t.mfu = *t.flop_per_second / *peak_flop_per_s;
  return t;
}
}  // namespace detail

namespace records {
/// One region over the rolling window: its time per step (the sum of its occurrences in a step),
/// over the steps of the window in which it occurred.
struct TimerRegionWindow {
  std::size_t steps = 0;        ///< steps of the window in which the region occurred
  std::size_t occurrences = 0;  ///< start/stop pairs in those steps
  Summary time_per_step_s;      ///< distribution of the region's time per step, seconds
  /// Sum of the region's time / sum of the GPU time of every step of the window (a step where the
  /// region did not occur adds 0). Nested regions are also inside their parent's share, so shares
  /// need not add up to 1; a region on another stream may overlap others.
  std::optional<double> share_of_step;
  /// Median over those steps of the seconds from the step's start boundary to the region's first
  /// start in it (negative where that occurrence began in an earlier step): where in the step the
  /// region begins, e.g. when a rank arrives at a collective (schema 1.8). None without a step.
  std::optional<double> start_offset_s;
};

/// One region over every step after warm-up (bounded memory, see `TotalSummary`).
struct TimerRegionTotal {
  std::size_t steps = 0;        ///< steps in which the region occurred
  std::size_t occurrences = 0;  ///< start/stop pairs
  stats::TotalSummary time_per_step_s; ///< the region's time per step, seconds
  std::optional<double> share_of_step;  ///< as TimerRegionWindow::share_of_step, over all steps
};

/// A region's summary: identity, then window and total.
struct TimerRegionSummary {
  std::string name;    ///< the region's name
  std::string kind;    ///< "region" (start/stop, scope) or "phase" (phase(): shares boundary events)
  std::string parent;  ///< the innermost open region when it first started; "" at the top level
  std::string stream;  ///< "timer" (the Timer's stream) or "other" (first started on another stream)
  int level = timer_level::normal;  ///< its level (see `timer_level`)
  TimerRegionWindow window;         ///< over the rolling window
  TimerRegionTotal total;           ///< over every step after warm-up
};

/// The steps over the rolling window.
struct TimerStepWindow {
  std::size_t steps = 0;                ///< steps in the window (<= TimerConfig::window)
  std::optional<std::size_t> first_step;  ///< index of its first step (0-based, warm-up counted)
  std::optional<std::size_t> last_step;   ///< index of its last step
  /// GPU time per step: device time between the events of consecutive step boundaries on the
  /// Timer's stream (device idle time between steps included), seconds.
  Summary gpu_time_s;
  /// Wall time per step: host steady clock between consecutive step() calls, seconds: how fast
  /// the host enqueues. It equals the step time only while the host's lead over the device stays
  /// constant (a full launch queue, or a synchronizing loop); single steps jitter.
  Summary wall_time_s;
  TimerThroughput throughput;           ///< summed work / summed GPU time of the window's steps
};

/// The steps after warm-up, all of them (bounded memory).
struct TimerStepTotal {
  std::size_t steps = 0;         ///< steps summarized
  stats::TotalSummary gpu_time_s; ///< GPU time per step, seconds
  stats::TotalSummary wall_time_s; ///< wall time per step, seconds
  TimerThroughput throughput;    ///< summed work / summed GPU time of the steps
};

/// What the Timer did, counted (the costs it promises to keep low are visible here).
struct TimerCounters {
  std::size_t steps = 0;                  ///< step boundaries (calls of step())
  std::size_t resolved_steps = 0;         ///< steps whose times were read (warm-up included)
  std::size_t warmup_steps = 0;           ///< resolved steps excluded as warm-up
  std::size_t pending_steps = 0;          ///< steps ended but not yet resolved
  std::size_t failed_steps = 0;           ///< steps whose resolution failed (times dropped)
  std::size_t region_boundaries = 0;      ///< timed region starts and stops (phase switches count 2)
  std::size_t markers_recorded = 0;       ///< events recorded (regions, phases and steps)
  std::size_t queries = 0;                ///< non-blocking completion queries
  std::size_t host_synchronizations = 0;  ///< host waits on a marker (flush, finish, forced waits)
  std::size_t forced_waits = 0;           ///< waits forced by max_pending_steps
  std::size_t markers_created = 0;        ///< markers the backend's pool created (allocations)
  std::size_t markers_created_after_warmup = 0;  ///< of which after the warm-up steps
};

/// A Timer's state: configuration, counters, step and region summaries, warnings. `final` is
/// true for the summary of finish() (everything recorded was resolved).
/// The kernels one region of the sampled step launched (TimerKernelTrace).
struct TimerRegionKernels {
  /// The region's name; "(outside regions)" for work the step launched outside every region. A
  /// kernel counts for the innermost region open when it was launched.
  std::string region;
  double kernel_time_s = 0;            ///< sum of its activities' durations in the step, seconds
  std::vector<TracedKernel> kernels;   ///< by time, largest first; launches_per_step = launches in the step
};

/// The kernels inside one sampled step of a Timer (TimerConfig::trace_kernels), per region.
struct TimerKernelTrace {
  std::string status = "not run";  ///< "traced", "unavailable" or "disabled" (as KernelTraceRecord)
  std::string reason;              ///< why not traced; empty when traced
  std::string tool;                ///< the CUPTI used
  std::optional<std::size_t> step;              ///< the traced step's index (0-based)
  std::optional<double> step_gpu_time_s;        ///< its time from the Timer's markers, seconds
  std::optional<double> kernel_time_s;          ///< sum of the durations of every activity it launched
  /// From the step's first activity to the next step's first, on CUPTI's clock (launch gaps
  /// included), seconds; absent when the next step was not traced.
  std::optional<double> device_period_s;
  std::optional<double> busy_s;                 ///< length of the union of the step's activities
  std::optional<double> gaps_s;                 ///< device_period_s − busy_s
  /// (kernel_time_s + gaps_s) / step_gpu_time_s − 1: how well the kernels and gaps on CUPTI's
  /// clock add up to the step's time from the Timer's markers.
  std::optional<double> closure;
  std::size_t records = 0;                      ///< activity records received while tracing
  std::size_t attributed_records = 0;           ///< of them, launched inside the sampled step
  std::vector<TimerRegionKernels> regions;      ///< regions with work, in order of registration, then outside
};
}  // namespace records

struct TimerSummary {
  std::string name;     ///< the Timer's name
  std::string backend;  ///< the backend's name ("cuda", "host", ...)
  TimerConfig config;   ///< every setting, defaults included
  bool final = false;   ///< taken by finish(): every ended step resolved
  std::optional<double> timer_resolution_s;  ///< resolution of the backend's markers, seconds
  records::TimerCounters counters;
  records::TimerStepWindow window;
  records::TimerStepTotal total;
  std::vector<records::TimerRegionSummary> regions; ///< in order of registration
  std::vector<Warning> warnings;
  /// The last sampled step's kernels (TimerConfig::trace_kernels at level 2); empty otherwise.
  std::optional<records::TimerKernelTrace> kernel_trace;
};

namespace detail {
/// "12.3 ms" with a unit chosen for reading; "-" when absent (see core/format.hpp).
inline std::string timer_time(const std::optional<double>& s) { return format_time(s); }
/// "2.69 M" with an SI prefix; "-" when absent (see core/format.hpp).
inline std::string timer_rate(const std::optional<double>& v, const char* unit) { return format_rate(v, unit); }

/// The one-line console summary of the window (no newline):
/// `timer train step 1200 | step 1.52 ms p99 1.6 ms | forward 0.5 ms 33 % | ... | 2.69 Mtokens/s
/// (mean step) | MFU 41.2 % | pending 3, host syncs 0`. Region times are medians of the window;
/// shares are TimerRegionWindow::share_of_step; throughput is the window's work over its time, i.e.
/// over the mean step, not the median shown (tokens/s, else samples/s, else FLOP/s).
inline std::string timer_console_line(const TimerSummary& s) {
  std::string line = "timer " + s.name + " step " +
                     (s.window.last_step ? std::to_string(*s.window.last_step) : std::string("-"));
  line += " | step " + detail::timer_time(s.window.gpu_time_s.p50) + " p99 " +
          detail::timer_time(s.window.gpu_time_s.p99);
  for (const auto& r : s.regions) {
    if (r.window.steps == 0) continue;
    const std::string share =
        r.window.share_of_step ? detail::format_general(100 * *r.window.share_of_step, 3) + " %" : std::string("-");
    line += " | " + r.name + " " + detail::timer_time(r.window.time_per_step_s.p50) + " " + share;
  }
  // The rate is work over the window's time (its mean step), not over the median shown above.
  const auto& t = s.window.throughput;
  std::string rate;
  if (t.item_per_second("tokens")) rate = detail::timer_rate(t.item_per_second("tokens"), "tokens/s");
  else if (t.item_per_second("samples")) rate = detail::timer_rate(t.item_per_second("samples"), "samples/s");
  else if (t.flop_per_second) rate = detail::timer_rate(t.flop_per_second, "FLOP/s");
  if (!rate.empty()) line += " | " + rate + " (mean step)";
  if (t.mfu) line += " | MFU " + detail::format_general(100 * *t.mfu, 3) + " %";
  line += " | pending " + std::to_string(s.counters.pending_steps) + ", host syncs " +
          std::to_string(s.counters.host_synchronizations);
  return line;
}

/// A Timer's lines in a report's console summary (each ends with a newline): the totals over every
/// step after warm-up (median and p99 time per step from the histogram, named by the backend:
/// GPU time, or real time for the host backend, mean wall time, each
/// region's median and share of the step, throughput and MFU, timing markers per region boundary and host
/// synchronizations), then every warning as "[severity] timer NAME: code: message".
inline std::string timer_summary_text(const TimerSummary& s) {
  const auto& t = s.total;
  std::string line = "timer " + s.name + ": " + std::to_string(t.steps) + " steps after " +
                     std::to_string(s.counters.warmup_steps) + " warm-up | step median " +
                     detail::timer_time(t.gpu_time_s.p50) + ", p99 " + detail::timer_time(t.gpu_time_s.p99) +
                     " (" + legacy_time_names(s.backend).first + "); wall " + detail::timer_time(t.wall_time_s.mean) +
                     " per step (mean)";
  for (const auto& r : s.regions) {
    if (r.total.steps == 0) continue;
    const std::string share =
        r.total.share_of_step ? detail::format_general(100 * *r.total.share_of_step, 3) + " %" : std::string("-");
    line += " | " + r.name + " " + detail::timer_time(r.total.time_per_step_s.p50) + " " + share;
  }
  for (const auto& [item, rate] : t.throughput.items_per_second)
    line += " | " + detail::timer_rate(rate, (item + "/s").c_str());
  if (t.throughput.flop_per_second) line += " | " + detail::timer_rate(t.throughput.flop_per_second, "FLOP/s");
  if (t.throughput.mfu) line += " | MFU " + detail::format_general(100 * *t.throughput.mfu, 3) + " %";
  const std::size_t boundaries = s.counters.region_boundaries + s.counters.steps;
  line += " | " +
          detail::format_general(
              boundaries ? static_cast<double>(s.counters.markers_recorded) / static_cast<double>(boundaries) : 0.0, 3) +
          " timing markers per region boundary, " + std::to_string(s.counters.host_synchronizations) + " host syncs\n";
  if (s.kernel_trace) {
    const auto& k = *s.kernel_trace;
    if (k.status != "traced") {
      line += "timer " + s.name + " kernels: not traced (" + k.status + "): " + k.reason + "\n";
    } else {
      line += "timer " + s.name + " kernels of step " + std::to_string(k.step.value_or(0)) + " (" +
              detail::timer_time(k.step_gpu_time_s) + "; kernels " + detail::timer_time(k.kernel_time_s) + ", gaps " +
              detail::timer_time(k.gaps_s) + ", kernels + gaps = " +
              (k.closure ? detail::format_general(100 * (1 + *k.closure), 4) + " %" : std::string("-")) +
              " of the step):\n";
      for (const auto& r : k.regions) {
        line += "  " + r.region + " " + detail::timer_time(r.kernel_time_s) + ":";
        for (std::size_t i = 0; i < r.kernels.size() && i < 5; ++i)
          line += (i ? ", " : " ") + r.kernels[i].name.substr(0, 60) + " x" + std::to_string(r.kernels[i].launches) + " " +
                  detail::timer_time(r.kernels[i].time_per_step_s);
        if (r.kernels.size() > 5) line += ", ... " + std::to_string(r.kernels.size() - 5) + " more";
        line += "\n";
      }
    }
  }
  for (const auto& w : s.warnings)
    line += "[" + std::string(to_string(w.severity)) + "] timer " + s.name + ": " + w.code + ": " + w.message + "\n";
  return line;
}
}  // namespace detail

}  // namespace gauge
