#pragma once
/// \file gauge/report/fields.hpp
/// The description of every type in a gauge report, once (see gauge/report/serial.hpp): writing
/// (`to_json`), reading (`from_json`, gauge/report/read.hpp) and the schema's coverage
/// (schema/gauge-report.schema.json, checked by the tests against `serial::collect_schema`) all
/// come from here. Units are in the key names: seconds (`_s`), bytes, MHz, W, °C; undefined or
/// non-finite numbers are `null`.
///
/// To add a key: add the member to its struct, a line here (with `since_1_N` for the schema
/// version that adds it, and bump `report_schema_version`'s minor version), and the key to the
/// schema; the tests fail until all three agree.

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/config.hpp"
#include "gauge/core/dimensions.hpp"
#include "gauge/core/environment.hpp"
#include "gauge/core/interleaved.hpp"
#include "gauge/core/kernel_trace.hpp"
#include "gauge/core/peak_fractions.hpp"
#include "gauge/core/peaks.hpp"
#include "gauge/core/ranks.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/skipped.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/core/telemetry.hpp"
#include "gauge/core/timer_summary.hpp"
#include "gauge/core/warmup.hpp"
#include "gauge/core/warnings.hpp"
#include "gauge/core/work.hpp"
#include "gauge/report/host_json.hpp"
#include "gauge/report/serial.hpp"

namespace gauge {

namespace serial {

// ---- enums written by name ---------------------------------------------------------------------

template <>
struct EnumValues<CacheState> {
  static constexpr CacheState values[] = {CacheState::hot, CacheState::cold};
};
template <>
struct EnumValues<GpuTiming> {
  static constexpr GpuTiming values[] = {GpuTiming::automatic, GpuTiming::ungated, GpuTiming::graph};
};
template <>
struct EnumValues<Status> {
  static constexpr Status values[] = {Status::ok, Status::failed};
};
template <>
struct EnumValues<PairedVerdict> {
  static constexpr PairedVerdict values[] = {PairedVerdict::faster, PairedVerdict::slower, PairedVerdict::same,
                                             PairedVerdict::inconclusive};
};
template <>
struct EnumValues<Severity> {
  static constexpr Severity values[] = {Severity::info, Severity::warning, Severity::error};
};

// ---- statistics, work, warnings ----------------------------------------------------------------

/// Work → {"flop_per_step", "bytes_per_step", "items_per_step": {name: count}}.
GAUGE_SERIAL_DESCRIPTION(Work, "work", NoFlags) {
  v("flop_per_step", x.flop);
  v("bytes_per_step", x.bytes);
  v("items_per_step", x.items);
}

/// Throughput → {"flop_per_s", "bytes_per_s", "items_per_s": {name: rate or null}}.
GAUGE_SERIAL_DESCRIPTION(Throughput, "throughput", NoFlags) {
  v("flop_per_s", x.flop_per_second);
  v("bytes_per_s", x.bytes_per_second);
  v("items_per_s", x.items_per_second, null_dropped);
}

/// Warning → {"code", "severity" (info, warning, error), "message"}.
GAUGE_SERIAL_DESCRIBE(Warning, "warning", code, severity, message)

/// ConfidenceInterval → {"low", "high", "level", "coverage", "lower_rank", "upper_rank"}.
GAUGE_SERIAL_DESCRIBE(ConfidenceInterval, "confidence_interval", low, high, level, coverage, lower_rank,
    upper_rank)

/// Outliers → {"low_severe", "low_mild", "high_mild", "high_severe"}.
GAUGE_SERIAL_DESCRIBE(Outliers, "outliers", low_severe, low_mild, high_mild, high_severe)

/// Summary → every statistic by name (null where undefined), plus the methods used (constants of
/// this gauge: checked to be strings when read, otherwise ignored).
GAUGE_SERIAL_DESCRIPTION(Summary, "summary", NoFlags) {
  GAUGE_SERIAL_FIELDS(n, min, p1, p5, p10, p25, p50, p75, p90, p95, p99, max, mean, stddev, cv, mad, iqr,
                      median_ci, median_ci_relative_width, confidence_level, outliers);
  v.constant("percentile_method", Summary::percentile_method);
  v.constant("median_ci_method", Summary::median_ci_method);
  v.constant("outlier_method", Summary::outlier_method);
}

// ---- configuration -----------------------------------------------------------------------------

/// WarmupConfig → every setting, durations in seconds.
GAUGE_SERIAL_DESCRIPTION(WarmupConfig, "warmup_config", NoFlags) {
  v("min_steps", x.min_steps);
  v("min_time_s", x.min_time);
  v("max_steps", x.max_steps);
  v("max_time_s", x.max_time);
  v("round_time_s", x.round_time);
  GAUGE_SERIAL_FIELDS(window, drift_tolerance);
}

/// MeasureConfig → every setting, durations in seconds, enums by name.
GAUGE_SERIAL_DESCRIPTION(MeasureConfig, "measure_config", NoFlags) {
  GAUGE_SERIAL_FIELDS(min_samples, max_samples);
  v("min_time_s", x.min_time);
  v("max_time_s", x.max_time);
  GAUGE_SERIAL_FIELDS(target_relative_ci_width, confidence_level);
  v("round_time_s", x.round_time);
  GAUGE_SERIAL_FIELDS(max_steps_per_round, steps_per_sample);
  v("event_overhead_budget_s", x.event_overhead_budget);
  v("max_sample_time_s", x.max_sample_time);
  v("gate_timeout_s", x.gate_timeout);
  GAUGE_SERIAL_FIELDS(wall_round_fraction, cache, gpu_timing);
  v("streams", x.streams, since_1_3);
}

/// Config → every setting, defaults included. Read back, durations are rounded to the nearest
/// nanosecond; the configuration is not validated (a report records what was used).
GAUGE_SERIAL_DESCRIPTION(Config, "config", NoFlags) {
  GAUGE_SERIAL_FIELDS(warmup, measure, device, silenced_warnings, max_samples_in_report);
  v("telemetry_interval_s", x.telemetry_interval, since_1_2);
  v("memory_growth_tolerance_bytes", x.memory_growth_tolerance_bytes, since_1_2);
  v("sm_clock_warning_fraction", x.sm_clock_warning_fraction, since_1_2);
  v("trace_kernels", x.trace_kernels, since_1_4);
}

// ---- telemetry, memory, kernels ----------------------------------------------------------------

/// TelemetryStat → {"min", "mean", "max"}.
GAUGE_SERIAL_DESCRIBE(TelemetryStat, "telemetry_stat", min, mean, max)

/// One reading of the telemetry series (written as parallel arrays, one per key).
GAUGE_SERIAL_DESCRIPTION(TelemetrySample, "telemetry_sample", AllKeysOptional) {
  v("t_s", x.t_s, nan_as_null);
  GAUGE_SERIAL_FIELDS(sm_clock_mhz, memory_clock_mhz, power_w, temperature_c, clock_event_reasons,
                      process_memory_bytes);
}

/// GpmRecord → `telemetry.gpm` (schema 1.6; gauge/core/gpm.hpp): the metrics in percent, the
/// cross-check in bytes/s, and what they mean and the rule (constants of this gauge: checked to be
/// strings when read, otherwise ignored).
GAUGE_SERIAL_DESCRIPTION(GpmRecord, "gpm", NoFlags) {
  GAUGE_SERIAL_FIELDS(status, reason, interval_s, dram_bw_util_pct, sm_util_pct, sm_occupancy_pct, unavailable_metrics,
                      steps, flush_bytes_per_step, declared_bytes_per_s, memory_peak_bytes_per_s, memory_peak_basis,
                      gpm_bytes_per_s, declared_to_gpm_ratio, cross_check);
  v.constant("meaning", GpmRecord::meaning);
  v.constant("rule", GpmRecord::rule);
}

/// TelemetryRecord → the summary over the measured region, and `series` as parallel arrays.
/// No key is required: partial records (from tools or older writers) read, the rest default; a
/// report older than schema 1.6 has no `gpm`, and reads as GPM "unavailable" with that reason.
template <>
struct Fields<TelemetryRecord> : AllKeysOptional {
  static constexpr const char* name = "telemetry";
  template <class V, class C>
  static void describe(V& v, C& x) {
    GAUGE_SERIAL_FIELDS(available, unavailable_reason, interval_s);
    v("warmup_start_s", x.warmup_start_s, nan_as_null);
    v("measure_start_s", x.measure_start_s, nan_as_null);
    v("measure_end_s", x.measure_end_s, nan_as_null);
    GAUGE_SERIAL_FIELDS(sm_clock_mhz, memory_clock_mhz, power_w, temperature_c, sm_clock_max_mhz,
                        throttle_reasons_seen, throttle_reason_names, throttled_samples);
    v("series", x.series, as_columns);
    v("gpm", x.gpm, since_1_6);
  }
  static void after_read(const nlohmann::json& j, TelemetryRecord& t) {
    if (!j.contains("gpm")) t.gpm = gpm_unavailable("not recorded (a report older than schema 1.6)");
  }
};

/// MemoryRecord → bytes everywhere, null where unknown. No key is required (as telemetry).
GAUGE_SERIAL_DESCRIBE_AS(MemoryRecord, "memory", AllKeysOptional, peak_bytes, peak_source,
    device_total_bytes, device_used_peak_bytes, device_used_at_measure_start_bytes,
    device_used_at_measure_end_bytes, process_peak_bytes, other_processes_bytes, pool_used_high_bytes,
    pool_reserved_high_bytes, allocator_peak_bytes, host_rss_peak_bytes, host_rss_at_measure_start_bytes,
    host_rss_at_measure_end_bytes, host_memory_total_bytes, device_growth_bytes, host_rss_growth_bytes,
    grew_during_measurement, fits, fits_reason)

/// KernelBinaryRecord → {"name", "binary_version", "ptx_version", "device_version", "jit_compiled"}.
GAUGE_SERIAL_DESCRIBE(KernelBinaryRecord, "kernel", name, binary_version, ptx_version, device_version,
    jit_compiled)

/// TracedKernel → one name's activities in the traced round (schema 1.4): durations in seconds.
GAUGE_SERIAL_DESCRIBE(TracedKernel, "traced_kernel", name, kind, launches, launches_per_step, median_s, p99_s,
    min_s, max_s, time_per_step_s, share_of_step, grid, block, registers_per_thread, static_shared_bytes,
    dynamic_shared_bytes, bytes, streams)

/// TraceSpan → one activity of the sample step, times from the step's first start (schema 1.4).
GAUGE_SERIAL_DESCRIBE(TraceSpan, "trace_span", name, kind, stream_id, start_s, end_s)

/// KernelTraceRecord → the report's `kernel_trace` (schema 1.4; gauge/core/kernel_trace.hpp).
GAUGE_SERIAL_DESCRIBE(KernelTraceRecord, "kernel_trace", status, reason, tool, attribution, steps, steps_per_unit,
    records, attributed_records, dropped_records, period_s, untraced_period_s, tracing_overhead, device_period_s,
    kernel_time_per_step_s, busy_per_step_s, gaps_per_step_s, busy_fraction, closure, kernels, sample_step)

// ---- peaks (schema 1.5; gauge/core/peaks.hpp, gauge/core/peak_fractions.hpp) ------------------

/// Peak → {"quantity", "dtype", "unit", "basis", "clock_basis", "clock_mhz", "value", "source"}.
GAUGE_SERIAL_DESCRIBE(Peak, "peak", quantity, dtype, unit, basis, clock_basis, clock_mhz, value, source)

/// DevicePeaks → {"peaks", "l2_cache_bytes", "unknown", "measured_source"}.
GAUGE_SERIAL_DESCRIBE(DevicePeaks, "device_peaks", peaks, l2_cache_bytes, unknown, measured_source)

/// PeakFraction → one throughput against one peak.
GAUGE_SERIAL_DESCRIBE(PeakFraction, "peak_fraction", throughput, quantity, dtype, basis, clock_basis, peak, rate,
    fraction)

/// RooflineRecord → {"arithmetic_intensity", "ridge_point" (FLOP/byte), "basis", "bound"}.
GAUGE_SERIAL_DESCRIBE(RooflineRecord, "roofline", arithmetic_intensity, ridge_point, basis, bound)

/// PeaksRecord → the result's `peaks`.
GAUGE_SERIAL_DESCRIBE(PeaksRecord, "peaks", status, reason, dtype, l2_cache_bytes, peaks, fractions, roofline)

// ---- one experiment ----------------------------------------------------------------------------

/// WarmupRound → {"start_s", "steps", "time_per_step_s"} (a null time reads as NaN).
GAUGE_SERIAL_DESCRIPTION(WarmupRound, "warmup_round", NoFlags) {
  v("start_s", x.start_s, nan_as_null);
  v("steps", x.steps);
  v("time_per_step_s", x.time_per_step_s, nan_as_null);
}

/// DeviceRecord → {"ordinal", "name", "uuid", "pci_bus_id", "memory_bandwidth_bytes_per_s" (schema 1.5)}.
GAUGE_SERIAL_DESCRIPTION(DeviceRecord, "device_record", NoFlags) {
  GAUGE_SERIAL_FIELDS(ordinal, name, uuid, pci_bus_id);
  v("memory_bandwidth_bytes_per_s", x.memory_bandwidth_bytes_per_s, since_1_5);
}

/// WarmupRecord → {"first_step_time_s", "steps", "time_s", "converged", "relative_drift",
/// "reason", "curve"}.
GAUGE_SERIAL_DESCRIPTION(WarmupRecord, "warmup_record", NoFlags) {
  GAUGE_SERIAL_FIELDS(first_step_time_s, steps);
  v("time_s", x.time_s, nan_as_null);
  v("converged", x.converged);
  v("relative_drift", x.relative_drift, nan_as_null);
  GAUGE_SERIAL_FIELDS(reason, curve);
}

/// CacheFlushRecord → `sampling.cache_flush` (schema 1.6): how a cold cache was made.
GAUGE_SERIAL_DESCRIBE(CacheFlushRecord, "cache_flush", method, description, bytes, l2_cache_bytes,
    outside_timed_interval, persisting_l2_set_aside_bytes, persisting_lines_reset)

/// SamplingRecord → how the samples were taken; `granularity` ("per_step" when k = 1, else
/// "per_batch") is derived from `steps_per_sample` and checked when read.
GAUGE_SERIAL_DESCRIPTION(SamplingRecord, "sampling", NoFlags) {
  GAUGE_SERIAL_FIELDS(method, steps_per_sample);
  v.computed(
      "granularity", json_string, x,
      [](const SamplingRecord& r) -> nlohmann::json { return r.steps_per_sample == 1 ? "per_step" : "per_batch"; },
      [](const nlohmann::json& j, SamplingRecord&) { detail::read_name(j, {"per_step", "per_batch"}); });
  GAUGE_SERIAL_FIELDS(steps_per_sample_reason, event_overhead_s);
  v("cache", x.cache, names_of<CacheState>);
  GAUGE_SERIAL_FIELDS(rounds, discarded_rounds, steps, calibration_steps, wall_rounds, wall_steps);
  v("timer_resolution_s", x.timer_resolution_s, nan_as_null);
  v("round_start_s", x.round_start_s, nan_as_null, since_1_1);
  v("round_end_s", x.round_end_s, nan_as_null, since_1_1);
  v("round_samples", x.round_samples, since_1_1);
  v("round_stream", x.round_stream, since_1_3);
  v("setup_calls", x.setup_calls, since_1_3);
  v("setup_host_time_s", x.setup_host_time_s, since_1_3);
  v("cache_flush", x.cache_flush, since_1_6);
}

/// StreamsRecord → the streams measured on and the stream effect (schema 1.3).
GAUGE_SERIAL_DESCRIPTION(StreamsRecord, "streams", NoFlags) {
  GAUGE_SERIAL_FIELDS(scope, count, samples);
  v("medians_s", x.medians_s);
  GAUGE_SERIAL_FIELDS(relative_spread, within_ci_low_s, within_ci_high_s, cluster_variance_s2, excess_variance_s2,
                      t_quantile, widened);
}

/// ClockRecord → the SM clock of the measured rounds and the cycles per step (schema 1.5).
GAUGE_SERIAL_DESCRIPTION(ClockRecord, "clock", NoFlags) {
  v("source", x.source);
  v("round_sm_clock_mhz", x.round_sm_clock_mhz);
  GAUGE_SERIAL_FIELDS(sm_clock_mhz, relative_spread, sm_spread, telemetry_sm_clock_mhz, memory_clock_mhz);
  v("cycles_per_step", x.cycles);
}

/// StoppingRecord → {"reason", "measure_time_s", "relative_ci_width", "target_relative_ci_width",
/// "target_met"}.
GAUGE_SERIAL_DESCRIPTION(StoppingRecord, "stopping", NoFlags) {
  v("reason", x.reason);
  v("measure_time_s", x.measure_time_s, nan_as_null);
  v("relative_ci_width", x.relative_ci_width);
  v("target_relative_ci_width", x.target_relative_ci_width, nan_as_null);
  v("target_met", x.target_met);
}

/// Result → one entry of the report's `experiments` list. A report older than schema 1.2 has no
/// `time_label` and `time_clock`: they are derived from `backend` (legacy_time_names).
template <>
struct Fields<Result> {
  static constexpr const char* name = "experiment";
  template <class V, class C>
  static void describe(V& v, C& x) {
    GAUGE_SERIAL_FIELDS(name, status, error, backend);
    v("repetition", x.repetition, since_1_5);
    v("time_label", x.time_label, since_1_2);
    v("time_clock", x.time_clock, since_1_2);
    GAUGE_SERIAL_FIELDS(device, dimensions, work, config, warmup, sampling, stopping);
    v("streams", x.streams, since_1_3);
    v("clock", x.clock, since_1_5);
    v("gpu_time_s", x.gpu_time);
    v("wall_time_s", x.wall_time);
    v.group("throughput", [&](auto& g) {
      g("gpu", x.gpu_throughput);
      g("wall", x.wall_throughput);
    });
    GAUGE_SERIAL_FIELDS(host_overhead_per_step_s, gpu_busy_fraction);
    v("telemetry", x.telemetry, since_1_1);
    v("memory", x.memory, since_1_1);
    v("kernels", x.kernels, since_1_1);
    v("kernel_trace", x.kernel_trace, since_1_4);
    v("peaks", x.peaks, since_1_5);
    v("warnings", x.warnings);
    v.group("samples", [&](auto& g) {
      g("gpu_time_per_step_s", x.gpu_samples_s, nan_as_null);
      g("wall_time_per_step_s", x.wall_samples_s, nan_as_null);
    });
    v("total_time_s", x.total_time_s, nan_as_null);
  }
  static void after_read(const nlohmann::json& j, Result& r) {
    if (j.contains("time_label") && j.contains("time_clock")) return;
    const auto names = legacy_time_names(r.backend);
    if (!j.contains("time_label")) r.time_label = names.first;
    if (!j.contains("time_clock")) r.time_clock = names.second;
  }
};

// ---- the environment ---------------------------------------------------------------------------

/// A process on a GPU (NVML) → {"pid", "used_memory_bytes"}.
template <>
struct Fields<std::pair<unsigned, std::uint64_t>> {
  static constexpr const char* name = "nvml_process";
  template <class V, class C>
  static void describe(V& v, C& x) {
    v("pid", x.first);
    v("used_memory_bytes", x.second);
  }
};

/// NvmlGpuInfo → every field by name (units in the keys), null where NVML refused, and
/// `unavailable`: {field: NVML error}.
GAUGE_SERIAL_DESCRIBE(NvmlGpuInfo, "nvml_gpu", index, matched_by, name, uuid, pci_bus_id, pstate,
    sm_clock_mhz, sm_clock_max_mhz, sm_clock_application_mhz, sm_clock_default_application_mhz,
    memory_clock_mhz, memory_clock_max_mhz, memory_clock_application_mhz,
    memory_clock_default_application_mhz, clocks_locked, clocks_locked_evidence, temperature_c, power_draw_w,
    power_limit_w, memory_total_bytes, memory_used_bytes, ecc_enabled, persistence_mode, compute_mode,
    mig_enabled, pcie_generation, pcie_width, pcie_generation_max, pcie_width_max, clock_event_reasons,
    clock_event_reason_names, processes, unavailable)

/// NvmlInfo → {"available", "error", "driver_version", "device_count"}.
GAUGE_SERIAL_DESCRIBE(NvmlInfo, "nvml", available, error, driver_version, device_count)

/// ToolRecord → {"command", "exit_code", "output", "error", "seconds"}.
GAUGE_SERIAL_DESCRIBE(ToolRecord, "tool", command, exit_code, output, error, seconds)

/// CudaDeviceInfo → the device's properties (units in the keys); `compute_capability` is
/// "MAJOR.MINOR".
GAUGE_SERIAL_DESCRIPTION(CudaDeviceInfo, "cuda_device", NoFlags) {
  GAUGE_SERIAL_FIELDS(ordinal, name, uuid, pci_bus_id);
  v.computed(
      "compute_capability", json_string, x,
      [](const CudaDeviceInfo& d) -> nlohmann::json {
        return std::to_string(d.compute_capability_major) + "." + std::to_string(d.compute_capability_minor);
      },
      [](const nlohmann::json& j, CudaDeviceInfo& d) {
        if (!j.is_string()) wrong_type("a string", j);
        const std::string cc = j.get<std::string>();
        const auto dot = cc.find('.');
        if (dot == std::string::npos || dot == 0 || dot + 1 == cc.size() || dot > 4 || cc.size() - dot > 5 ||
            cc.find_first_not_of("0123456789.") != std::string::npos || cc.find('.', dot + 1) != std::string::npos)
          throw FieldError("", "\"" + cc + "\" is not MAJOR.MINOR");
        d.compute_capability_major = std::stoi(cc.substr(0, dot));
        d.compute_capability_minor = std::stoi(cc.substr(dot + 1));
      });
  GAUGE_SERIAL_FIELDS(multiprocessors, total_memory_bytes, l2_cache_bytes, persisting_l2_max_bytes,
                      sm_clock_max_mhz, memory_clock_max_mhz, memory_bus_width_bits,
                      shared_memory_per_block_optin_bytes, max_threads_per_multiprocessor, ecc_enabled,
                      integrated);
  v("numa_node", x.numa_node, since_1_1);
  v("local_cpulist", x.local_cpulist, since_1_1);
  v("nvml", x.nvml, since_1_1);
  v("peaks", x.peaks, since_1_5);
}

/// CudaInfo → {"runtime_version", "driver_version", "device_count", "error", "devices"}.
GAUGE_SERIAL_DESCRIBE(CudaInfo, "cuda", runtime_version, driver_version, device_count, error, devices)

/// Environment → {"gauge_version", "host", "compiler", "environment_variables" ({name: value or
/// null}), "cuda", "nvml", "tools" ({name: record}), "warnings"}.
GAUGE_SERIAL_DESCRIPTION(Environment, "environment", NoFlags) {
  GAUGE_SERIAL_FIELDS(gauge_version, host, compiler, environment_variables, cuda);
  v("nvml", x.nvml, since_1_1);
  v("tools", x.tools, since_1_1);
  v("warnings", x.warnings);
}

// ---- a Timer's summary -------------------------------------------------------------------------

/// TotalSummary → {"n", "sum", "min", "mean", "stddev", "max", "p50", "p90", "p99",
/// "percentile_method"}.
GAUGE_SERIAL_DESCRIPTION(TotalSummary, "total_summary", NoFlags) {
  GAUGE_SERIAL_FIELDS(n, sum, min, mean, stddev, max, p50, p90, p99);
  v.constant("percentile_method", TotalSummary::percentile_method);
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
GAUGE_SERIAL_DESCRIPTION(TimerThroughput, "timer_throughput", NoFlags) {
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
GAUGE_SERIAL_DESCRIBE(TimerCounters, "timer_counters", steps, resolved_steps, warmup_steps, pending_steps,
    failed_steps, region_boundaries, markers_recorded, queries, host_synchronizations, forced_waits,
    markers_created, markers_created_after_warmup)

/// TimerRegionWindow → {"steps", "occurrences", "time_per_step_s" (a Summary), "share_of_step"}.
GAUGE_SERIAL_DESCRIBE(TimerRegionWindow, "timer_region_window", steps, occurrences, time_per_step_s,
    share_of_step)

/// TimerRegionTotal → {"steps", "occurrences", "time_per_step_s" (a TotalSummary), "share_of_step"}.
GAUGE_SERIAL_DESCRIBE(TimerRegionTotal, "timer_region_total", steps, occurrences, time_per_step_s,
    share_of_step)

/// TimerRegionSummary → {"name", "kind", "parent" (null at the top level), "stream", "level",
/// "window", "total"}.
GAUGE_SERIAL_DESCRIPTION(TimerRegionSummary, "timer_region", NoFlags) {
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
GAUGE_SERIAL_DESCRIPTION(TimerStepWindow, "timer_window", NoFlags) {
  GAUGE_SERIAL_FIELDS(steps, first_step, last_step);
  step_time_fields(v, x);
}

/// TimerStepTotal → {"steps", "gpu_time_per_step_s", "wall_time_per_step_s" (TotalSummaries),
/// "throughput"}.
GAUGE_SERIAL_DESCRIPTION(TimerStepTotal, "timer_total", NoFlags) {
  v("steps", x.steps);
  step_time_fields(v, x);
}

/// TimerRegionKernels → one region's kernels in the Timer's sampled step (schema 1.4).
GAUGE_SERIAL_DESCRIBE(TimerRegionKernels, "timer_region_kernels", region, kernel_time_s, kernels)

/// TimerKernelTrace → the kernels of the Timer's sampled step, per region (schema 1.4).
GAUGE_SERIAL_DESCRIBE(TimerKernelTrace, "timer_kernel_trace", status, reason, tool, step, step_gpu_time_s,
    kernel_time_s, device_period_s, busy_s, gaps_s, closure, records, attributed_records, regions)

/// TimerSummary → one entry of the report's `timers` list.
GAUGE_SERIAL_DESCRIPTION(TimerSummary, "timer", NoFlags) {
  GAUGE_SERIAL_FIELDS(name, backend, final, config, timer_resolution_s, counters, window, total, regions, warnings);
  v("kernel_trace", x.kernel_trace, since_1_4);
}

// ---- skipped points (suites) --------------------------------------------------------------------

/// SkippedPoint → {"name", "dimensions", "reason"}.
GAUGE_SERIAL_DESCRIBE(SkippedPoint, "skipped_point", name, dimensions, reason)

// ---- many ranks (gauge/mpi.hpp) ------------------------------------------------------------------

/// RankRecord → one entry of `ranks.ranks`.
GAUGE_SERIAL_DESCRIBE(RankRecord, "rank", rank, host, process_id, gpu_name, gpu_uuid, gpu_pci_bus_id, numa_node,
    status, error)
/// CrossRankStatistics → `ranks.experiments[i].statistics` (seconds; skew is a ratio).
GAUGE_SERIAL_DESCRIPTION(CrossRankStatistics, "cross_rank_statistics", NoFlags) {
  v("medians_s", x.medians_s);
  v("min_median_s", x.min_median_s);
  v("median_median_s", x.median_median_s);
  v("max_median_s", x.max_median_s);
  v("skew", x.skew);
  v("straggler_rank", x.straggler_rank);
  v("fastest_rank", x.fastest_rank);
}
/// RankExperiment → one entry of `ranks.experiments`.
GAUGE_SERIAL_DESCRIBE(RankExperiment, "rank_experiment", name, dimensions, statistics, results)
/// RankedValue → {"min", "max", "min_rank", "max_rank"}.
GAUGE_SERIAL_DESCRIBE(RankedValue, "ranked_value", min, max, min_rank, max_rank)
/// RankedRegion → {"name", "time_per_step_s"}.
GAUGE_SERIAL_DESCRIBE(RankedRegion, "ranked_region", name, time_per_step_s)
/// TimerRanksWindow → one entry of `ranks.timers`.
GAUGE_SERIAL_DESCRIPTION(TimerRanksWindow, "timer_ranks_window", NoFlags) {
  GAUGE_SERIAL_FIELDS(timer, steps, ranks);
  v("step_time_s", x.step_time_s);
  v("regions", x.regions);
}
/// RanksRecord → the report's `ranks` object (schema 1.4).
GAUGE_SERIAL_DESCRIBE(RanksRecord, "ranks", mode, size, nodes, agreement_timeout_s, ranks, experiments, timers, error,
    unresponsive_ranks)

// ---- interleaved A/B runs (gauge/interleave.hpp) --------------------------------------------------

/// InterleaveConfig → every setting, max_time in seconds (schema 1.5).
GAUGE_SERIAL_DESCRIPTION(InterleaveConfig, "interleave_config", NoFlags) {
  GAUGE_SERIAL_FIELDS(threshold, confidence_level, target_relative_ci_width, min_pairs);
  v("max_time_s", x.max_time);
  GAUGE_SERIAL_FIELDS(resamples, seed);
}

/// PairedRatio → {"estimate", "low", "high", "level", "pairs", "blocks", "resamples", "seed"} (schema 1.5).
GAUGE_SERIAL_DESCRIBE(PairedRatio, "paired_ratio", estimate, low, high, level, pairs, blocks, resamples, seed)

/// PairedDifference → {"estimate_s", "low_s", "high_s", "level", "blocks"} (schema 1.6).
GAUGE_SERIAL_DESCRIBE(PairedDifference, "paired_difference", estimate_s, low_s, high_s, level, blocks)

/// InterleavedRecord → one entry of the report's `interleaved` list (schema 1.5): A and B as
/// indices into `experiments`, the paired ratio B / A (null with too few pairs), the verdict, and
/// the rule (a constant of this gauge: checked to be a string when read, otherwise ignored).
GAUGE_SERIAL_DESCRIPTION(InterleavedRecord, "interleaved", NoFlags) {
  GAUGE_SERIAL_FIELDS(a, b, ratio, verdict, reason, order, stopping_reason);
  v("measure_time_s", x.measure_time_s, nan_as_null);
  GAUGE_SERIAL_FIELDS(pair_ratios, config);
  v("difference", x.difference, since_1_6);
  v("pair_differences_s", x.pair_differences_s, since_1_6);
  v.constant("rule", InterleavedOutcome::rule);
}

// ---- the report ------------------------------------------------------------------------------

/// The top level of a report: {"schema", "schema_version", "gauge_version", "created_utc",
/// "environment", "experiments", "timers", "skipped"}, for any `C` with those members (`results`
/// for the experiments): gauge::StoredReport when read, ReportView when written.
struct ReportFields {
  static constexpr const char* name = "report";
  template <class V, class C>
  static void describe(V& v, C& x) {
    GAUGE_SERIAL_FIELDS(schema, schema_version, gauge_version, created_utc, environment);
    v("experiments", x.results);
    v("timers", x.timers, since_1_1);
    v("skipped", x.skipped, since_1_3);
    v("ranks", x.ranks, since_1_4);
    v("interleaved", x.interleaved, since_1_5);
  }
};

/// What report_json writes: the top level by reference (nothing is copied).
struct ReportView {
  std::string schema;                     ///< "gauge.report"
  std::string schema_version;             ///< report_schema_version
  std::string gauge_version;              ///< version_string
  std::string created_utc;                ///< ISO 8601 UTC
  const Environment& environment;         ///< measured once
  const std::vector<Result>& results;     ///< the experiments, in order
  const std::vector<TimerSummary>& timers;  ///< Timer summaries, in order
  const std::vector<SkippedPoint>& skipped;  ///< points of a sweep that were skipped, in order
  const std::optional<RanksRecord>& ranks;  ///< many ranks (gauge/mpi.hpp); null for one process
  const std::vector<InterleavedRecord>& interleaved;  ///< interleaved A/B runs, in order
};
template <>
struct Fields<ReportView> : ReportFields {};

}  // namespace serial
}  // namespace gauge
