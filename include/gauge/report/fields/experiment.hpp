#pragma once
/// \file gauge/report/fields/experiment.hpp
/// The descriptions (gauge/report/fields.hpp) of one experiment (`Result` and its records:
/// warm-up, sampling, streams, clock, stopping) and of the environment it ran in (NVML, tools,
/// CUDA).

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <utility>

#include "gauge/core/dimensions.hpp"
#include "gauge/core/environment.hpp"
#include "gauge/core/result.hpp"
#include "gauge/report/host_json.hpp"
#include "gauge/report/serial.hpp"
#include "gauge/report/fields/measurement.hpp"

namespace gauge {

namespace serial {

// ---- one experiment ----------------------------------------------------------------------------

/// WarmupRound → {"start_s", "steps", "time_per_step_s"} (a null time reads as NaN).
GAUGE_SERIAL_DESCRIPTION(records::WarmupRound, "warmup_round", NoFlags) {
  v("start_s", x.start_s, nan_as_null);
  v("steps", x.steps);
  v("time_per_step_s", x.time_per_step_s, nan_as_null);
}

/// DeviceRecord → {"ordinal", "name", "uuid", "pci_bus_id", "memory_bandwidth_bytes_per_s" (schema 1.5)}.
GAUGE_SERIAL_DESCRIPTION(records::DeviceRecord, "device_record", NoFlags) {
  GAUGE_SERIAL_FIELDS(ordinal, name, uuid, pci_bus_id);
  v("memory_bandwidth_bytes_per_s", x.memory_bandwidth_bytes_per_s, since_1_5);
}

/// WarmupRecord → {"first_step_time_s", "steps", "time_s", "converged", "relative_drift",
/// "reason", "curve"}.
GAUGE_SERIAL_DESCRIPTION(records::WarmupRecord, "warmup_record", NoFlags) {
  GAUGE_SERIAL_FIELDS(first_step_time_s, steps);
  v("time_s", x.time_s, nan_as_null);
  v("converged", x.converged);
  v("relative_drift", x.relative_drift, nan_as_null);
  GAUGE_SERIAL_FIELDS(reason, curve);
}

/// CacheFlushRecord → `sampling.cache_flush` (schema 1.6): how a cold cache was made.
GAUGE_SERIAL_DESCRIBE(records::CacheFlushRecord, "cache_flush", method, description, bytes, l2_cache_bytes,
    outside_timed_interval, persisting_l2_set_aside_bytes, persisting_lines_reset)

/// SamplingRecord → how the samples were taken; `granularity` ("per_step" when k = 1, else
/// "per_batch") is derived from `steps_per_sample` and checked when read.
GAUGE_SERIAL_DESCRIPTION(records::SamplingRecord, "sampling", NoFlags) {
  GAUGE_SERIAL_FIELDS(method, steps_per_sample);
  v.computed(
      "granularity", json_string, x,
      [](const records::SamplingRecord& r) -> nlohmann::json { return r.steps_per_sample == 1 ? "per_step" : "per_batch"; },
      [](const nlohmann::json& j, records::SamplingRecord&) { detail::read_name(j, {"per_step", "per_batch"}); });
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
GAUGE_SERIAL_DESCRIPTION(records::StreamsRecord, "streams", NoFlags) {
  GAUGE_SERIAL_FIELDS(scope, count, samples);
  v("medians_s", x.medians_s);
  GAUGE_SERIAL_FIELDS(relative_spread, within_ci_low_s, within_ci_high_s, cluster_variance_s2, excess_variance_s2,
                      t_quantile, widened);
}

/// CpuCountersRecord → {"status", "reason", "cycles_per_step", "instructions_per_step",
/// "instructions_per_cycle", "min_running_fraction"} (schema 1.7).
GAUGE_SERIAL_DESCRIPTION(records::CpuCountersRecord, "cpu_counters", NoFlags) {
  v("status", x.status);
  v("reason", x.reason);
  GAUGE_SERIAL_FIELDS(cycles_per_step, instructions_per_step, instructions_per_cycle, min_running_fraction);
}

/// ClockRecord → the SM clock of the measured rounds and the cycles per step (schema 1.5).
GAUGE_SERIAL_DESCRIPTION(records::ClockRecord, "clock", NoFlags) {
  v("source", x.source);
  v("round_sm_clock_mhz", x.round_sm_clock_mhz);
  GAUGE_SERIAL_FIELDS(sm_clock_mhz, relative_spread, sm_spread, telemetry_sm_clock_mhz, memory_clock_mhz);
  v("cycles_per_step", x.cycles);
}

/// StoppingRecord → {"reason", "measure_time_s", "relative_ci_width", "target_relative_ci_width",
/// "target_met"}.
GAUGE_SERIAL_DESCRIPTION(records::StoppingRecord, "stopping", NoFlags) {
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
    v("cpu_time_s", x.cpu_time, since_1_7);
    v("cpu_counters", x.cpu_counters, since_1_7);
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
      g("cpu_time_per_step_s", x.cpu_samples_s, nan_as_null, since_1_7);
    });
    v("total_time_s", x.total_time_s, nan_as_null);
  }
  static void after_read(const nlohmann::json& j, Result& r) {
    // Process CPU time is never negative (the schema's minimum 0 says the same).
    for (std::size_t i = 0; i < r.cpu_samples_s.size(); ++i)
      if (r.cpu_samples_s[i] < 0)
        throw FieldError("samples.cpu_time_per_step_s[" + std::to_string(i) + "]",
                         fmt::format("a CPU time per step is >= 0, got {}", r.cpu_samples_s[i]));
    if (j.contains("time_label") && j.contains("time_clock")) return;
    const auto names = gauge::detail::legacy_time_names(r.backend);
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
GAUGE_SERIAL_DESCRIBE(env::NvmlGpuInfo, "nvml_gpu", index, matched_by, name, uuid, pci_bus_id, pstate,
    sm_clock_mhz, sm_clock_max_mhz, sm_clock_application_mhz, sm_clock_default_application_mhz,
    memory_clock_mhz, memory_clock_max_mhz, memory_clock_application_mhz,
    memory_clock_default_application_mhz, clocks_locked, clocks_locked_evidence, temperature_c, power_draw_w,
    power_limit_w, memory_total_bytes, memory_used_bytes, ecc_enabled, persistence_mode, compute_mode,
    mig_enabled, pcie_generation, pcie_width, pcie_generation_max, pcie_width_max, clock_event_reasons,
    clock_event_reason_names, processes, unavailable)

/// NvmlInfo → {"available", "error", "driver_version", "device_count"}.
GAUGE_SERIAL_DESCRIBE(env::NvmlInfo, "nvml", available, error, driver_version, device_count)

/// ToolRecord → {"command", "exit_code", "output", "error", "seconds"}.
GAUGE_SERIAL_DESCRIBE(env::ToolRecord, "tool", command, exit_code, output, error, seconds)

/// CudaDeviceInfo → the device's properties (units in the keys); `compute_capability` is
/// "MAJOR.MINOR".
GAUGE_SERIAL_DESCRIPTION(env::CudaDeviceInfo, "cuda_device", NoFlags) {
  GAUGE_SERIAL_FIELDS(ordinal, name, uuid, pci_bus_id);
  v.computed(
      "compute_capability", json_string, x,
      [](const env::CudaDeviceInfo& d) -> nlohmann::json {
        return std::to_string(d.compute_capability_major) + "." + std::to_string(d.compute_capability_minor);
      },
      [](const nlohmann::json& j, env::CudaDeviceInfo& d) {
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
GAUGE_SERIAL_DESCRIBE(env::CudaInfo, "cuda", runtime_version, driver_version, device_count, error, devices)

/// Environment → {"gauge_version", "host", "compiler", "environment_variables" ({name: value or
/// null}), "cuda", "nvml", "tools" ({name: record}), "warnings"}.
GAUGE_SERIAL_DESCRIPTION(Environment, "environment", NoFlags) {
  GAUGE_SERIAL_FIELDS(gauge_version, host, compiler, environment_variables, cuda);
  v("nvml", x.nvml, since_1_1);
  v("tools", x.tools, since_1_1);
  v("warnings", x.warnings);
}

}  // namespace serial
}  // namespace gauge
