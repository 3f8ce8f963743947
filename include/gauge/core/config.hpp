#pragma once
/// \file gauge/core/config.hpp
/// Every setting of the measurement protocol, with its default and the reason for it. The whole
/// configuration, defaults included, is written into every result.
///
/// Time is `std::chrono` here (so `500ms` cannot be mistaken for seconds) and seconds in JSON.

#include <chrono>
#include <cmath>
#include <cstddef>
#include <set>
#include <string>

#include "gauge/core/error.hpp"
#include "gauge/detail/enum_names.hpp"

namespace gauge {

/// Nanoseconds as the duration type of every time setting.
using Nanoseconds = std::chrono::nanoseconds;

/// State of the caches when a step starts.
enum class CacheState {
  hot,   ///< steps run back to back over the same data (default): what a loop in production sees
  cold,  ///< an L2 flush of at least the L2 size runs before every step, outside the timed interval
};

/// How the GPU time of a step is taken.
enum class GpuTiming {
  automatic,  ///< gated rounds with k steps per event pair, k chosen from the step's duration
  ungated,    ///< no gate (the user declared that the step synchronizes the host)
  graph,      ///< k steps captured in a CUDA graph, graph replays timed
};

/// Text name of a CacheState ("hot", "cold").
inline const char* to_string(CacheState c) { return c == CacheState::hot ? "hot" : "cold"; }
/// Text name of a GpuTiming ("automatic", "ungated", "graph").
inline const char* to_string(GpuTiming t) {
  static constexpr detail::EnumName<GpuTiming> names[] = {
      {GpuTiming::automatic, "automatic"}, {GpuTiming::ungated, "ungated"}, {GpuTiming::graph, "graph"}};
  return detail::name_of(names, t);
}

/// Warm-up: run steps until the five effects of the seed (lazy module loading, JIT compilation,
/// autotuning, allocator growth, cache creation) are spent and the clocks have ramped.
///
/// Rule ("steady state"): warm-up runs in rounds of about `round_time`. It ends when at least
/// `min_steps` steps and `min_time` have passed and the medians of the per-step times of the last
/// `window` rounds and of the `window` rounds before them differ by at most `drift_tolerance`
/// (relative to the last window's median). It is capped by `max_steps` and `max_time`; a capped
/// warm-up is reported with `converged: false` and the warning `warmup_not_converged`. The first
/// step runs alone before the rounds (Result::warmup.first_step_time_s); `min_time` and `max_time`
/// count from after it, so a first call of seconds (autotuning, JIT) does not spend the budget.
struct WarmupConfig {
  std::size_t min_steps = 10;          ///< at least this many steps (cheap; covers first-call costs)
  Nanoseconds min_time = std::chrono::milliseconds(20);  ///< and at least this long
  std::size_t max_steps = 1000000;     ///< cap on warm-up steps
  Nanoseconds max_time = std::chrono::seconds(3);  ///< cap on warm-up time (a clock ramp is ~0.2 s)
  Nanoseconds round_time = std::chrono::milliseconds(2);  ///< target length of one warm-up round
  std::size_t window = 5;              ///< rounds per comparison window
  double drift_tolerance = 0.02;       ///< largest relative change between windows that is steady
};

/// Measurement and stopping.
///
/// Stopping rule: stop when at least `min_samples` samples and `min_time` are reached and the
/// distribution-free confidence interval of the median (at `confidence_level`) is narrower than
/// `target_relative_ci_width` of the median; or at `max_time` / `max_samples` (then the warning
/// `noise_target_not_met` says by how much the target was missed).
struct MeasureConfig {
  /// Fewest samples. 10 gives a distribution-free 95 % CI of the median from the 2nd and 9th
  /// order statistics (coverage 97.9 %); each sample may average k steps (see steps_per_sample).
  std::size_t min_samples = 10;
  std::size_t max_samples = 100000;    ///< most samples kept (bounds memory: 8 bytes each)
  Nanoseconds min_time = std::chrono::milliseconds(40);  ///< least measuring time
  Nanoseconds max_time = std::chrono::seconds(10);       ///< most measuring time
  double target_relative_ci_width = 0.005;  ///< stop when (CI high − low) / median <= this
  double confidence_level = 0.95;      ///< level of the confidence interval of the median
  Nanoseconds round_time = std::chrono::milliseconds(10);  ///< target length of one gated round
  /// Most steps enqueued behind one gate: the launch queue of a stream holds about a thousand
  /// launches; past it the host blocks behind the gate (then the gate times out and gauge halves
  /// the round).
  std::size_t max_steps_per_round = 512;
  /// Steps per event pair (the sample's granularity): 0 = choose automatically from the step's
  /// duration so that the event overhead per step is at most `event_overhead_budget`.
  std::size_t steps_per_sample = 0;
  /// Largest event overhead per step tolerated when choosing k automatically. An event recorded
  /// between kernels adds ~2 µs of device time on an H200 (issue 3), so k ≈ 2 µs / budget.
  Nanoseconds event_overhead_budget = std::chrono::nanoseconds(50);
  /// Longest batch of k steps between two events when choosing k automatically (keeps enough
  /// samples for a distribution when steps are long).
  Nanoseconds max_sample_time = std::chrono::milliseconds(25);
  /// How long the gate holds the stream before giving up (a step that synchronizes the host
  /// would otherwise deadlock behind it). A timed-out round is discarded.
  Nanoseconds gate_timeout = std::chrono::milliseconds(500);
  /// Wall-time rounds: one pipelined round of steps with one synchronize at its end (the seed's
  /// first snippet) after every gated round, with `wall_round_fraction` of its steps (at least 1).
  double wall_round_fraction = 0.25;
  CacheState cache = CacheState::hot;  ///< hot (default) or cold (L2 flushed before every step)
  GpuTiming gpu_timing = GpuTiming::automatic;  ///< see GpuTiming
  /// Streams in the measuring pool: rounds rotate over this many streams (all warmed before
  /// measuring), and the confidence interval of the median covers the effect of the stream on the
  /// step's time (gauge/core/stream_effect.hpp). On an H200 the device's launch gap differs by up
  /// to ~0.16 µs between streams (the hardware queue each is mapped to). The CUDA backend keeps
  /// one pool per device for the process, reused by every experiment, so runs in a process
  /// measure on the same streams. 1 = one stream (the interval then covers that stream only).
  /// Ignored when the experiment measures on the caller's stream (`Experiment::stream`) or the
  /// backend has no streams (host). 1..64.
  std::size_t streams = 8;
};

/// The complete configuration of one experiment.
struct Config {
  WarmupConfig warmup;
  MeasureConfig measure;
  int device = -1;                     ///< CUDA device ordinal; -1 = the caller's current device
  std::set<std::string> silenced_warnings;  ///< warning codes not to report (also GAUGE_SILENCE)
  std::size_t max_samples_in_report = 100000;  ///< per-step samples written to the report
  /// Period of the background telemetry sampler (NVML); 0 = read only at round boundaries.
  /// 20 ms resolves a clock ramp (~0.2 s) and costs well under 1 % of a host core.
  Nanoseconds telemetry_interval = std::chrono::milliseconds(20);
  /// Growth of device memory in use (or host RSS) across the measured region beyond this warns
  /// `memory_grew_during_measurement` (a leak, or an allocator still growing after warm-up).
  std::uint64_t memory_growth_tolerance_bytes = 16ull << 20;
  /// A mean SM clock below this fraction of the maximum during measurement warns `sm_clock_below_max`.
  double sm_clock_warning_fraction = 0.9;
  /// Kernel tracing (CUPTI's Activity API, gauge/env/cupti.hpp): after measuring, run a round
  /// traced between two untraced ones on the pool's first stream, and record what ran inside the step
  /// (the report's `kernel_trace`, gauge/core/kernel_trace.hpp). Off by default; without CUPTI,
  /// or with another CUPTI client attached (ncu, nsys), the report says why it did not trace.
  bool trace_kernels = false;

  /// The quick settings (the runner's --quick): at most 1 s of warm-up and 1 s of measuring, and
  /// a 2 % target width of the median's interval instead of 0.5 %. The defaults (3 s + 10 s, 0.5 %)
  /// cost up to ~13 s per experiment where the target is not met (a shared CPU often misses
  /// 0.5 %); quick ones up to ~2 s, with a wider interval the report states. `exp.config(gauge::Config::quick())`.
  static Config quick() {
    Config c;
    c.warmup.max_time = std::chrono::seconds(1);
    c.measure.max_time = std::chrono::seconds(1);
    c.measure.target_relative_ci_width = 0.02;
    return c;
  }
};

/// Throws ConfigError naming the first invalid setting of `c` and its value.
inline void validate(const Config& c) {
  auto fail = [](const std::string& what) { throw ConfigError("invalid configuration: " + what); };
  auto ns = [](Nanoseconds d) { return std::to_string(d.count()) + " ns"; };
  const auto& w = c.warmup;
  const auto& m = c.measure;
  if (w.min_time.count() < 0) fail("warmup.min_time must be >= 0, got " + ns(w.min_time));
  if (w.max_time < w.min_time) fail("warmup.max_time (" + ns(w.max_time) + ") < warmup.min_time (" + ns(w.min_time) + ")");
  if (w.max_steps < w.min_steps) fail("warmup.max_steps (" + std::to_string(w.max_steps) + ") < warmup.min_steps (" + std::to_string(w.min_steps) + ")");
  if (w.round_time.count() <= 0) fail("warmup.round_time must be > 0, got " + ns(w.round_time));
  if (w.window < 1) fail("warmup.window must be >= 1, got 0");
  if (!(w.drift_tolerance > 0) || !std::isfinite(w.drift_tolerance)) fail("warmup.drift_tolerance must be > 0, got " + std::to_string(w.drift_tolerance));
  if (m.min_samples < 1) fail("measure.min_samples must be >= 1, got 0");
  if (m.max_samples < m.min_samples) fail("measure.max_samples (" + std::to_string(m.max_samples) + ") < measure.min_samples (" + std::to_string(m.min_samples) + ")");
  if (m.min_time.count() < 0) fail("measure.min_time must be >= 0, got " + ns(m.min_time));
  if (m.max_time < m.min_time) fail("measure.max_time (" + ns(m.max_time) + ") < measure.min_time (" + ns(m.min_time) + ")");
  if (!(m.target_relative_ci_width > 0) || !std::isfinite(m.target_relative_ci_width)) fail("measure.target_relative_ci_width must be > 0, got " + std::to_string(m.target_relative_ci_width));
  if (!(m.confidence_level > 0 && m.confidence_level < 1)) fail("measure.confidence_level must be in (0, 1), got " + std::to_string(m.confidence_level));
  if (m.round_time.count() <= 0) fail("measure.round_time must be > 0, got " + ns(m.round_time));
  if (m.max_steps_per_round < 1) fail("measure.max_steps_per_round must be >= 1, got 0");
  if (m.steps_per_sample > m.max_steps_per_round) fail("measure.steps_per_sample (" + std::to_string(m.steps_per_sample) + ") > measure.max_steps_per_round (" + std::to_string(m.max_steps_per_round) + ")");
  if (m.event_overhead_budget.count() <= 0) fail("measure.event_overhead_budget must be > 0, got " + ns(m.event_overhead_budget));
  if (m.max_sample_time.count() <= 0) fail("measure.max_sample_time must be > 0, got " + ns(m.max_sample_time));
  if (m.gate_timeout.count() <= 0) fail("measure.gate_timeout must be > 0, got " + ns(m.gate_timeout));
  if (!(m.wall_round_fraction > 0 && m.wall_round_fraction <= 1)) fail("measure.wall_round_fraction must be in (0, 1], got " + std::to_string(m.wall_round_fraction));
  if (m.streams < 1 || m.streams > 64) fail("measure.streams must be in [1, 64], got " + std::to_string(m.streams));
  if (c.device < -1) fail("device must be >= -1, got " + std::to_string(c.device));
  if (c.telemetry_interval.count() < 0) fail("telemetry_interval must be >= 0, got " + ns(c.telemetry_interval));
  if (!(c.sm_clock_warning_fraction >= 0 && c.sm_clock_warning_fraction <= 1))
    fail("sm_clock_warning_fraction must be in [0, 1], got " + std::to_string(c.sm_clock_warning_fraction));
}

/// Seconds of a std::chrono duration, as a double.
template <class Rep, class Period>
double to_seconds(std::chrono::duration<Rep, Period> d) {
  return std::chrono::duration<double>(d).count();
}

}  // namespace gauge

#if defined(GAUGE_LINKS_TRACING) && !defined(__CUDA_ARCH__)
namespace gauge::detail {
/// Registers kernel tracing's factories (the protocol's and the Timer's); defined in kernel
/// tracing's compiled part (gauge/implementation/tracing.hpp), which CMake's gauge::tracing links
/// as a static library. A library's file is linked only where something names it, so every file
/// that configures an experiment or a Timer names it here; its start-up runs it as well.
bool register_kernel_tracing();
/// Set at start-up: true once kernel tracing is registered.
inline const bool kernel_tracing_linked = register_kernel_tracing();
}  // namespace gauge::detail
#endif
