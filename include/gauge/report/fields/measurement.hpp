#pragma once
/// \file gauge/report/fields/measurement.hpp
/// The descriptions (gauge/report/fields.hpp) of what an experiment's record is made of: the enums
/// written by name, statistics, work and warnings, the configuration, telemetry, memory and
/// kernels, and the peaks.

#include <cmath>

#include <nlohmann/json.hpp>

#include "gauge/detail/fmt.hpp"

#include "gauge/core/config.hpp"
#include "gauge/core/interleaved.hpp"
#include "gauge/core/kernel_trace.hpp"
#include "gauge/core/peak_fractions.hpp"
#include "gauge/core/peaks.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/core/telemetry.hpp"
#include "gauge/core/warnings.hpp"
#include "gauge/core/work.hpp"
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
struct EnumValues<stats::PairedVerdict> {
  static constexpr stats::PairedVerdict values[] = {stats::PairedVerdict::faster, stats::PairedVerdict::slower, stats::PairedVerdict::same,
                                             stats::PairedVerdict::inconclusive};
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
GAUGE_SERIAL_DESCRIBE(stats::ConfidenceInterval, "confidence_interval", low, high, level, coverage, lower_rank,
    upper_rank)

/// Outliers → {"low_severe", "low_mild", "high_mild", "high_severe"}.
GAUGE_SERIAL_DESCRIBE(stats::Outliers, "outliers", low_severe, low_mild, high_mild, high_severe)

/// Summary → every statistic by name (null where undefined), plus the methods used (constants of
/// this gauge: checked to be strings when read, otherwise ignored).
GAUGE_SERIAL_DESCRIPTION(Summary, "summary", NoFlags) {
  GAUGE_SERIAL_FIELDS(n, min, p1, p5, p10, p25, p50, p75, p90, p95, p99, max, mean, stddev, cv, mad, iqr,
                      median_ci, median_ci_relative_width, confidence_level, outliers);
  // `median` repeats p50 under the name most readers look for (schema 1.7); read, it must agree
  // with p50 (both null, or equal within 1e-12 relative: a writer that rounds rounds both alike).
  v.computed(
      "median", json_number | json_null, x, [](const Summary& m) -> nlohmann::json {
        return m.p50 && std::isfinite(*m.p50) ? nlohmann::json(*m.p50) : nlohmann::json(nullptr);
      },
      [](const nlohmann::json& j, Summary& m) {
        if (!j.is_null() && !j.is_number()) wrong_type("a number or null", j);
        if (j.is_null()) {
          if (m.p50) throw FieldError("", "median is null but p50 is not (they are one statistic)");
        } else if (!m.p50) {
          throw FieldError("", fmt::format("median is {} but p50 is null (they are one statistic)", j.get<double>()));
        } else if (std::fabs(j.get<double>() - *m.p50) > 1e-12 * std::fabs(*m.p50)) {
          throw FieldError("", fmt::format("median {} differs from p50 {} (they are one statistic)", j.get<double>(), *m.p50));
        }
      },
      since_1_7);
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
GAUGE_SERIAL_DESCRIBE(records::TelemetryStat, "telemetry_stat", min, mean, max)

/// One reading of the telemetry series (written as parallel arrays, one per key).
GAUGE_SERIAL_DESCRIPTION(records::TelemetrySample, "telemetry_sample", AllKeysOptional) {
  v("t_s", x.t_s, nan_as_null);
  GAUGE_SERIAL_FIELDS(sm_clock_mhz, memory_clock_mhz, power_w, temperature_c, clock_event_reasons,
                      process_memory_bytes);
}

/// GpmRecord → `telemetry.gpm` (schema 1.6; gauge/core/gpm.hpp): the metrics in percent, the
/// cross-check in bytes/s, and what they mean and the rule (constants of this gauge: checked to be
/// strings when read, otherwise ignored).
GAUGE_SERIAL_DESCRIPTION(records::GpmRecord, "gpm", NoFlags) {
  GAUGE_SERIAL_FIELDS(status, reason, interval_s, dram_bw_util_pct, sm_util_pct, sm_occupancy_pct, unavailable_metrics,
                      steps, flush_bytes_per_step, declared_bytes_per_s, memory_peak_bytes_per_s, memory_peak_basis,
                      gpm_bytes_per_s, declared_to_gpm_ratio, cross_check);
  v.constant("meaning", records::GpmRecord::meaning);
  v.constant("rule", records::GpmRecord::rule);
}

/// TelemetryRecord → the summary over the measured region, and `series` as parallel arrays.
/// No key is required: partial records (from tools or older writers) read, the rest default; a
/// report older than schema 1.6 has no `gpm`, and reads as GPM "unavailable" with that reason.
template <>
struct Fields<records::TelemetryRecord> : AllKeysOptional {
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
  static void after_read(const nlohmann::json& j, records::TelemetryRecord& t) {
    if (!j.contains("gpm")) t.gpm = gauge::detail::gpm_unavailable("not recorded (a report older than schema 1.6)");
  }
};

/// MemoryRecord → bytes everywhere, null where unknown. No key is required (as telemetry).
GAUGE_SERIAL_DESCRIBE_AS(records::MemoryRecord, "memory", AllKeysOptional, peak_bytes, peak_source,
    device_total_bytes, device_used_peak_bytes, device_used_at_measure_start_bytes,
    device_used_at_measure_end_bytes, process_peak_bytes, other_processes_bytes, pool_used_high_bytes,
    pool_reserved_high_bytes, allocator_peak_bytes, host_rss_peak_bytes, host_rss_at_measure_start_bytes,
    host_rss_at_measure_end_bytes, host_memory_total_bytes, device_growth_bytes, host_rss_growth_bytes,
    grew_during_measurement, fits, fits_reason)

/// KernelBinaryRecord → {"name", "binary_version", "ptx_version", "device_version", "jit_compiled"}.
GAUGE_SERIAL_DESCRIBE(records::KernelBinaryRecord, "kernel", name, binary_version, ptx_version, device_version,
    jit_compiled)

/// TracedKernel → one name's activities in the traced round (schema 1.4): durations in seconds.
GAUGE_SERIAL_DESCRIBE(records::TracedKernel, "traced_kernel", name, kind, launches, launches_per_step, median_s, p99_s,
    min_s, max_s, time_per_step_s, share_of_step, grid, block, registers_per_thread, static_shared_bytes,
    dynamic_shared_bytes, bytes, streams)

/// TraceSpan → one activity of the sample step, times from the step's first start (schema 1.4).
GAUGE_SERIAL_DESCRIBE(records::TraceSpan, "trace_span", name, kind, stream_id, start_s, end_s)

/// KernelTraceRecord → the report's `kernel_trace` (schema 1.4; gauge/core/kernel_trace.hpp).
GAUGE_SERIAL_DESCRIBE(records::KernelTraceRecord, "kernel_trace", status, reason, tool, attribution, steps, steps_per_unit,
    records, attributed_records, dropped_records, period_s, untraced_period_s, tracing_overhead, device_period_s,
    kernel_time_per_step_s, busy_per_step_s, gaps_per_step_s, busy_fraction, closure, kernels, sample_step)

// ---- peaks (schema 1.5; gauge/core/peaks.hpp, gauge/core/peak_fractions.hpp) ------------------

/// Peak → {"quantity", "dtype", "unit", "basis", "clock_basis", "clock_mhz", "value", "source"}.
GAUGE_SERIAL_DESCRIBE(peaks::Peak, "peak", quantity, dtype, unit, basis, clock_basis, clock_mhz, value, source)

/// DevicePeaks → {"peaks", "l2_cache_bytes", "unknown", "measured_source"}.
GAUGE_SERIAL_DESCRIBE(peaks::DevicePeaks, "device_peaks", peaks, l2_cache_bytes, unknown, measured_source)

/// PeakFraction → one throughput against one peak.
GAUGE_SERIAL_DESCRIBE(records::PeakFraction, "peak_fraction", throughput, quantity, dtype, basis, clock_basis, peak, rate,
    fraction)

/// RooflineRecord → {"arithmetic_intensity", "ridge_point" (FLOP/byte), "basis", "bound"}.
GAUGE_SERIAL_DESCRIBE(records::RooflineRecord, "roofline", arithmetic_intensity, ridge_point, basis, bound)

/// PeaksRecord → the result's `peaks`.
GAUGE_SERIAL_DESCRIBE(records::PeaksRecord, "peaks", status, reason, dtype, l2_cache_bytes, peaks, fractions, roofline)

}  // namespace serial
}  // namespace gauge
