#pragma once
/// \file gauge/version.hpp
/// gauge's version (semantic versioning) and the report schema it writes.

#define GAUGE_VERSION_MAJOR 0
#define GAUGE_VERSION_MINOR 2
#define GAUGE_VERSION_PATCH 0

namespace gauge {

/// gauge's version as "MAJOR.MINOR.PATCH" (semantic versioning 2.0.0).
inline constexpr const char* version_string = "0.2.0";

/// Name of the JSON report format, written as the report's `schema` key.
inline constexpr const char* report_schema_name = "gauge.report";

/// Version of the JSON report format (semantic versioning: a new major version removes or renames
/// keys; a new minor version only adds keys). Written as the report's `schema_version` key.
/// 1.0.0: first release. 1.1.0 adds `telemetry`, `memory`, `kernels` and `sampling.round_*` to
/// experiments, `nvml`, `tools` and GPU locality to the environment, and the `timers` list.
/// 1.2.0 adds `time_label` and `time_clock` to experiments (what the per-step samples are:
/// "GPU time" from CUDA events, "CPU time" from the host clock: "real time" since 1.7.0), the settings
/// `telemetry_interval_s`, `memory_growth_tolerance_bytes` and `sm_clock_warning_fraction` to
/// `config`, and describes telemetry, memory, kernels, NVML, tools and timers in the schema.
/// 1.3.0 adds the `skipped` list (points of a benchmark sweep, gauge/suite, that were skipped,
/// with the reason), `streams` to each result (the streams measured on and the stream effect),
/// `sampling.round_stream` and `config.measure.streams`.
/// 1.4.0 adds `kernel_trace` to each result (what ran inside the step, from CUPTI; null when not
/// asked) and `config.trace_kernels`.
/// It also adds `ranks` (null for one process): a run over many MPI ranks (gauge/mpi.hpp) with
/// every rank's host, GPU and status, per-rank results and cross-rank statistics of each
/// experiment, and the Timers' windows across ranks.
/// 1.5.0 adds `repetition` to each result (which repetition of its point it is, 0-based, when the
/// suite runner ran every point several times with `--repetitions N`; null otherwise), `clock`
/// (the SM clock of every measured round and the cycles per step) and the device's
/// `memory_bandwidth_bytes_per_s`.
/// 1.5.0 also adds `interleaved`: interleaved A/B runs (gauge/interleave.hpp), each with its two
/// results' indices in `experiments`, the paired ratio B / A of their round medians with its
/// bootstrap interval, the verdict, the rule and the settings.
/// 1.6.0 adds `sampling.cache_flush` (with a cold cache: how L2 was flushed, its bytes, whether
/// its time is outside the timed interval, the persisting-L2 set-aside found and the reset of
/// persisting lines) and `telemetry.gpm` (NVML GPM over the measured rounds: DRAM bandwidth
/// utilization, SM utilization and occupancy, and their cross-check with the declared bytes; or
/// why GPM is unavailable).
/// 1.7.0 adds `cpu_time_s` and `samples.cpu_time_per_step_s` to each result (process CPU time per
/// step, host timing), and `median` (= p50) to every summary; the host backend's `time_label`
/// becomes "real time" (it was "CPU time" for the same steady-clock samples).
/// 1.8.0 adds each Timer region window's `start_offset_s` (where in the step the region begins)
/// and, in `ranks.timers`, each region's `start_offset_s` across ranks with its `straggler_rank`
/// and `straggler_by` (the rank that arrives last at a collective, not the one that waits).
/// 1.9.0 adds `axes`: each benchmark's axes in their declared order (the suite runner's), so
/// that a table of the report has the columns the runner printed.
inline constexpr const char* report_schema_version = "1.9.0";

}  // namespace gauge
