#pragma once
// A report that uses every feature of the format, with every value set by hand (no measurement):
// every Config setting away from its default, telemetry (summary and series), memory, kernels,
// NVML and tools in the environment, a failed experiment, warnings, and a Timer summary with
// regions, window and totals. tests/test_serial.cpp writes it, reads it back and checks the
// values against the numbers below; tests/write_reports.cpp writes it for the schema tests.

#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "gauge/core/environment.hpp"
#include "gauge/core/gpm_assessment.hpp"
#include "gauge/core/peak_assessment.hpp"
#include "gauge/core/peak_fractions.hpp"
#include "gauge/core/peaks.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/core/timer_summary.hpp"
#include "gauge/version.hpp"

namespace gauge::testing {

/// Every setting away from its default (see core/config.hpp for the defaults).
inline Config full_config() {
  using namespace std::chrono_literals;
  Config c;
  // min_steps, min_time, max_steps, max_time, round_time, window, drift_tolerance
  c.warmup = {11, 21ms, 999, 2500ms, 3ms, 4, 0.03};
  // min_samples, max_samples, min_time, max_time, target_relative_ci_width, confidence_level,
  // round_time, max_steps_per_round, steps_per_sample, event_overhead_budget, max_sample_time,
  // gate_timeout, wall_round_fraction, cache, gpu_timing
  c.measure = {12, 5000, 41ms, 7s, 0.01, 0.99, 9ms, 256, 4, 75ns, 20ms, 400ms, 0.5, CacheState::cold, GpuTiming::graph};
  c.device = 1;
  c.silenced_warnings = {"outliers", "clocks_not_locked"};
  c.max_samples_in_report = 1000;
  c.telemetry_interval = 15ms;
  c.memory_growth_tolerance_bytes = 1ull << 40;  // above 2^32: needs 64 bits
  c.sm_clock_warning_fraction = 0.8;
  c.trace_kernels = true;
  return c;
}

/// H200-like attributes for the peaks of the full report (schema 1.5).
inline peaks::DeviceAttributes full_device_attributes() {
  peaks::DeviceAttributes a;
  a.name = "NVIDIA H200";
  a.compute_capability_major = 9;
  a.multiprocessors = 132;
  a.sm_clock_max_mhz = 1980;
  a.memory_clock_max_mhz = 3201;
  a.memory_bus_width_bits = 6144;
  a.l2_cache_bytes = 60ull << 20;
  return a;
}

/// An ok GPU experiment with telemetry, memory, kernels and warnings.
inline Result full_result() {
  Result r;
  r.name = "gemm";
  r.dimensions = {{"M", std::int64_t{8192}}, {"dtype", std::string("bf16")}, {"scale", 0.5}, {"transposed", true}};
  r.work.flop = 1099511627776.0;
  r.work.bytes = 402653184.0;
  r.work.items = {{"tokens", 8192.0}};
  r.config = full_config();
  r.backend = "cuda";
  r.repetition = 2;  // the third repetition of its point (--repetitions, schema 1.5)
  r.time_label = "GPU time";
  r.time_clock = "CUDA events";
  r.device = {1, "NVIDIA H200", std::string("GPU-f6fb3145-6909-9d20-6108-bb12b7c2bdc3"), std::string("0000:19:00.0"), 4.8144e12};
  r.warmup.first_step_time_s = 0.089;
  r.warmup.steps = 40;
  r.warmup.time_s = 0.25;
  r.warmup.converged = true;
  r.warmup.relative_drift = 0.004;
  r.warmup.reason = "medians of the last 4 rounds within 3 %";
  r.warmup.curve = {{0.0, 1, 0.089}, {0.09, 20, 0.0017}, {0.13, 19, std::numeric_limits<double>::quiet_NaN()}};
  // method, steps_per_sample, event_overhead_s, steps_per_sample_reason, cache, rounds,
  // discarded_rounds, steps, calibration_steps, wall_rounds, wall_steps, timer_resolution_s,
  // round_start_s, round_end_s, round_samples, round_stream, setup_calls, setup_host_time_s, cache_flush
  r.sampling = {"graph", 4, 2e-6, "k = 4 from the configuration", "cold", 2, 1, 24, 8, 2, 6, 5e-7,
                {0.3, 0.35}, {0.34, 0.39}, {3, 3}, {0, 1}, 40, 1.5e-6,
                // the cold cache's flush (schema 1.6)
                records::CacheFlushRecord{"read", "read of 282066944 bytes by ld.global.cg, 2 x L2 size 141033472 bytes",
                                 282066944ull, 141033472ull, true, 0ull, true}};
  r.streams.scope = "stream pool";
  r.streams.count = 2;
  r.streams.samples = {3, 2};
  r.streams.medians_s = {1.62e-3, std::nullopt};
  r.streams.relative_spread = 0.012;
  r.streams.within_ci_low_s = 1.6e-3;
  r.streams.within_ci_high_s = 1.65e-3;
  r.streams.cluster_variance_s2 = 1e-12;
  r.streams.excess_variance_s2 = 4e-13;
  r.streams.t_quantile = 12.706;
  r.streams.widened = true;
  r.stopping.reason = "max_time";
  r.stopping.measure_time_s = 0.1;
  r.stopping.relative_ci_width = 0.02;
  r.stopping.target_relative_ci_width = 0.01;
  r.stopping.target_met = false;
  r.gpu_samples_s = {1.6e-3, 1.61e-3, 1.62e-3, 1.63e-3, std::numeric_limits<double>::quiet_NaN(), 1.65e-3};
  r.wall_samples_s = {1.7e-3, 1.72e-3};
  r.gpu_time = stats::summarize({1.6e-3, 1.61e-3, 1.62e-3, 1.63e-3, 1.65e-3}, 0.99);
  r.wall_time = stats::summarize(r.wall_samples_s, 0.99);
  r.gpu_throughput.flop_per_second = 6.8e14;
  r.gpu_throughput.bytes_per_second = 2.5e11;
  r.gpu_throughput.items_per_second = {{"tokens", 5.0e6}};
  r.wall_throughput.flop_per_second = 6.4e14;
  r.host_overhead_per_step_s = 9e-5;
  r.gpu_busy_fraction = 0.95;
  auto& t = r.telemetry;
  t.available = true;
  t.interval_s = 0.015;
  t.warmup_start_s = 0.01;
  t.measure_start_s = 0.3;
  t.measure_end_s = 0.4;
  t.sm_clock_mhz = {1500.0, 1700.0, 1980.0};
  t.memory_clock_mhz = {3201.0, 3201.0, 3201.0};
  t.power_w = {400.0, 550.0, 700.0};
  t.temperature_c = {40.0, 45.0, std::nullopt};
  t.sm_clock_max_mhz = 1980.0;
  t.throttle_reasons_seen = 0x80000000000ull;  // above 2^32
  t.throttle_reason_names = {"sw_power_cap"};
  t.throttled_samples = {1, 3};
  records::TelemetrySample a;
  a.t_s = 0.3;
  a.sm_clock_mhz = 1500.0;
  a.memory_clock_mhz = 3201.0;
  a.power_w = 700.0;
  a.temperature_c = 44.0;
  a.clock_event_reasons = 4;
  a.process_memory_bytes = 5ull << 30;
  records::TelemetrySample b; // a reading where NVML gave nothing but the time
  b.t_s = 0.315;
  t.series = {a, b};
  // GPM over the measured rounds (schema 1.6): one metric refused, the cross-check done.
  detail::GpmReading gpm;
  gpm.dram_bw_util_pct = 62.5;
  gpm.sm_util_pct = 97.0;
  gpm.unavailable = {{"sm_occupancy", "Not Supported"}};
  detail::GpmInputs gin;
  gin.interval_s = 1.0;
  gin.steps = 300;
  gin.bytes_per_step = 1e9;
  gin.flush_bytes_per_step = 282066944.0;
  gin.memory_peak_bytes_per_s = 4.8e12;
  gin.memory_peak_basis = "theoretical";
  t.gpm = detail::assess_gpm(gpm, gin);
  auto& m = r.memory;
  m.device_total_bytes = 150109880320ull;
  m.device_used_peak_bytes = 6ull << 30;
  m.device_used_at_measure_start_bytes = 5ull << 30;
  m.device_used_at_measure_end_bytes = 5ull << 30;
  m.process_peak_bytes = 5ull << 30;
  m.other_processes_bytes = 1ull << 20;
  m.pool_used_high_bytes = 1ull << 30;
  m.pool_reserved_high_bytes = 2ull << 30;
  m.allocator_peak_bytes = {{"torch", 3ull << 30}};
  m.host_rss_peak_bytes = 900ull << 20;
  m.host_rss_at_measure_start_bytes = 800ull << 20;
  m.host_rss_at_measure_end_bytes = 810ull << 20;
  m.host_memory_total_bytes = 2ull << 40;
  m.peak_bytes = 6ull << 30;
  m.peak_source = "cudaMemGetInfo minus other processes";
  m.device_growth_bytes = -(1ll << 20);
  m.host_rss_growth_bytes = 10ll << 20;
  m.grew_during_measurement = true;
  m.fits = false;
  m.fits_reason = "host RSS grew by 10 MiB";
  r.kernels = {{"gauge::gate_kernel", 90, 90, 90, false}, {"my_kernel", 0, 80, 90, true}};
  records::KernelTraceRecord kt;
  kt.status = "traced";
  kt.tool = "CUPTI API version 130001 (libcupti.so)";
  kt.attribution = "external correlation";
  kt.steps = 24;
  kt.steps_per_unit = 4;
  kt.records = 50;
  kt.attributed_records = 48;
  kt.dropped_records = 5000000000ull;  // above 2^32
  kt.period_s = 1.62e-3;
  kt.untraced_period_s = 1.6e-3;
  kt.tracing_overhead = 0.0125;
  kt.device_period_s = 1.619e-3;
  kt.kernel_time_per_step_s = 1.5e-3;
  kt.busy_per_step_s = 1.5e-3;
  kt.gaps_per_step_s = 1.19e-4;
  kt.busy_fraction = 0.9265;
  kt.closure = -6.2e-4;
  records::TracedKernel gemm_kernel;
  gemm_kernel.name = "sm90_xmma_gemm_bf16bf16_bf16f32";
  gemm_kernel.kind = "kernel";
  gemm_kernel.launches = 24;
  gemm_kernel.launches_per_step = 1;
  gemm_kernel.median_s = 1.49e-3;
  gemm_kernel.p99_s = 1.52e-3;
  gemm_kernel.min_s = 1.48e-3;
  gemm_kernel.max_s = 1.53e-3;
  gemm_kernel.time_per_step_s = 1.495e-3;
  gemm_kernel.share_of_step = 0.923;
  gemm_kernel.grid = {132, 1, 1};
  gemm_kernel.block = {384, 1, 1};
  gemm_kernel.registers_per_thread = 168;
  gemm_kernel.static_shared_bytes = 0;
  gemm_kernel.dynamic_shared_bytes = 232448;
  gemm_kernel.streams = {13, 14};
  records::TracedKernel copy;
  copy.name = "memcpy DtoD";
  copy.kind = "memcpy";
  copy.launches = 24;
  copy.launches_per_step = 1;
  copy.median_s = 5e-6;
  copy.p99_s = 6e-6;
  copy.min_s = 4e-6;
  copy.max_s = 7e-6;
  copy.time_per_step_s = 5e-6;
  copy.bytes = 1ull << 33;  // above 2^32
  copy.streams = {13};
  kt.kernels = {gemm_kernel, copy};
  kt.sample_step = {{"sm90_xmma_gemm_bf16bf16_bf16f32", "kernel", 13, 0.0, 1.49e-3}, {"memcpy DtoD", "memcpy", 13, 1.5e-3, 1.505e-3}};
  r.kernel_trace = kt;
  {
    detail::PeakInputs in;
    in.device = full_device_attributes();
    in.run_sm_clock_mhz = 1500;
    in.run_memory_clock_mhz = 3201;
    in.gpu_busy_fraction = 0.99;
    peaks::Peak measured;
    measured.quantity = "compute";
    measured.dtype = "bf16";
    measured.unit = "FLOP/s";
    measured.basis = "measured";
    measured.clock_basis = "as_measured";
    measured.clock_mhz = 1530;
    measured.value = 7.2e14;
    measured.source = "gauge-peaks: cublasGemmEx bf16 8192^3";
    in.measured = {measured};
    Work w;
    w.flop = 1.1e12;
    w.bytes = 4.0e8;
    Throughput rate;
    rate.flop_per_second = 6.7e14;
    rate.bytes_per_second = 2.4e11;
    r.peaks = detail::assess_peaks(w, {{"dtype", std::string("bf16")}}, rate, rate, in);
  }
  r.warnings = {{"jit_compiled", Severity::warning, "my_kernel was compiled from PTX 8.0 by the driver"},
                {"noise_target_not_met", Severity::info, "CI width 2 % > 1 %"}};
  r.total_time_s = 0.5;
  return r;
}

/// A failed experiment on the host backend, with a null error-free field or two.
inline Result failed_host_result() {
  Result r;
  r.name = "broken";
  r.backend = "host";
  r.time_label = "real time";
  r.time_clock = "host steady clock";
  r.device = {-1, "host CPU", std::nullopt, std::nullopt, std::nullopt};
  r.status = Status::failed;
  r.error = "measurement (step 3): cuBLAS said no";
  r.stopping.reason = "failed";
  r.telemetry.unavailable_reason = "the host backend has no telemetry";
  r.telemetry.gpm = detail::gpm_unavailable("the host backend has no telemetry");
  r.warnings = {{"step_failed", Severity::error, "the step threw"}};
  r.total_time_s = std::numeric_limits<double>::quiet_NaN();
  return r;
}

/// An environment with a GPU, its NVML record and the tools.
inline Environment full_environment() {
  Environment env;
  env.gauge_version = version_string;
  env.host.cpu.model_name = "Test CPU";
  env.host.cpu.sockets = 2;
  env.host.cpu.logical_cpus = 64;
  env.host.cpu.max_frequency_mhz = 3800.0;
  env.host.cpu.governor = "performance";
  env.host.cpu.distinct_governors = {"performance"};
  env.host.memory.total_bytes = 2ull << 40;
  env.host.numa_nodes = {{0, std::string("0-31"), {0, 1, 2}, 1ull << 40}, {1, std::nullopt, {}, std::nullopt}};
  env.host.os.pretty_name = "Debian GNU/Linux 12 (bookworm)";
  env.host.os.kernel_release = "6.1.0";
  env.host.virtualization.container = "docker";
  env.host.virtualization.container_evidence = "/.dockerenv exists";
  env.host.notes = {"a note"};
  env.compiler.id = "gcc";
  env.compiler.version = "12.2.0";
  env.compiler.cuda_compiler = "nvcc";
  env.compiler.cuda_compiler_version = "13.0.88";
  env.compiler.standard_library = "libstdc++ 20230528";
  env.compiler.cplusplus = 201703;
  env.compiler.ndebug = true;
  env.compiler.optimized = true;
  env.environment_variables = {{"CUDA_LAUNCH_BLOCKING", std::nullopt}, {"CUDA_VISIBLE_DEVICES", std::string("1")}};
  env.cuda.runtime_version = 13000;
  env.cuda.driver_version = 13000;
  env.cuda.device_count = 1;
  env::CudaDeviceInfo d;
  d.ordinal = 0;
  d.name = "NVIDIA H200";
  d.uuid = "GPU-f6fb3145-6909-9d20-6108-bb12b7c2bdc3";
  d.pci_bus_id = "0000:19:00.0";
  d.compute_capability_major = 9;
  d.compute_capability_minor = 0;
  d.multiprocessors = 132;
  d.total_memory_bytes = 150109880320ull;
  d.l2_cache_bytes = 62914560;
  d.persisting_l2_max_bytes = 51904512;
  d.sm_clock_max_mhz = 1980.0;
  d.memory_clock_max_mhz = 3201.0;
  d.memory_bus_width_bits = 6144;
  d.shared_memory_per_block_optin_bytes = 232448;
  d.max_threads_per_multiprocessor = 2048;
  d.ecc_enabled = true;
  d.numa_node = 0;
  d.local_cpulist = "0-31";
  env::NvmlGpuInfo n;
  n.index = 3;
  n.matched_by = "uuid";
  n.name = "NVIDIA H200";
  n.uuid = d.uuid;
  n.pci_bus_id = "00000000:19:00.0";
  n.pstate = 0;
  n.sm_clock_mhz = 1980.0;
  n.sm_clock_max_mhz = 1980.0;
  n.memory_clock_mhz = 3201.0;
  n.clocks_locked = true;
  n.clocks_locked_evidence = "application clocks set";
  n.power_limit_w = 700.0;
  n.memory_total_bytes = 150109880320ull;
  n.ecc_enabled = true;
  n.compute_mode = "default";
  n.mig_enabled = false;
  n.pcie_generation = 5;
  n.pcie_width = 16;
  n.clock_event_reasons = 0x8000000000000001ull;  // the top bit set: must not be written negative
  n.clock_event_reason_names = {"gpu_idle"};
  n.processes = {{4242u, 5ull << 30}};
  n.unavailable = {{"power_draw_w", "Not Supported"}};
  d.nvml = n;
  d.peaks = peaks::device_peaks(full_device_attributes());
  d.peaks->measured_source = "/root/.cache/gauge/peaks/GPU-0.json";
  env.cuda.devices = {d};
  env.nvml.available = true;
  env.nvml.driver_version = "580.159.04";
  env.nvml.device_count = 8;
  env.tools = {{"ncu", {"ncu --version", 0, std::string("Version 2025.3.1.0"), std::nullopt, 0.02}},
               {"nsys", {"nsys --version", std::nullopt, std::nullopt, std::string("nsys not found in PATH"), 0.0}}};
  env.warnings = {{"cpu_governor_not_performance", Severity::warning, "governor is powersave"}};
  return env;
}

/// A Timer's final summary with two regions (one nested), window and totals.
inline TimerSummary full_timer() {
  TimerSummary s;
  s.name = "train";
  s.backend = "cuda";
  s.final = true;
  // warmup_steps, window, log_every, level, max_pending_steps, confidence_level, peak_flop_per_s,
  // peak_source
  s.config = {5, 50, 10, 2, 64, 0.9, 989e12, "NVIDIA H200 datasheet, dense BF16"};
  s.timer_resolution_s = 5e-7;
  s.counters = {120, 118, 5, 2, 1, 480, 600, 900, 1, 0, 24, 0};
  s.window.steps = 3;
  s.window.first_step = 115;
  s.window.last_step = 117;
  s.window.gpu_time_s = stats::summarize({3e-3, 3.1e-3, 3.2e-3}, 0.9);
  s.window.wall_time_s = stats::summarize({3.05e-3, 3.1e-3, 3.3e-3}, 0.9);
  s.window.throughput.items_per_second = {{"tokens", 2.6e6}, {"samples", 640.0}};
  s.window.throughput.flop_per_second = 4.0e14;
  s.window.throughput.mfu = 0.4;
  s.total.steps = 113;
  s.total.gpu_time_s = {113, 0.35, 2.9e-3, 3.1e-3, 1e-4, 3.4e-3, 3.1e-3, 3.2e-3, 3.35e-3};
  s.total.wall_time_s = {113, 0.36, 3e-3, 3.2e-3, 1.1e-4, 3.5e-3, 3.2e-3, 3.3e-3, 3.45e-3};
  s.total.throughput.items_per_second["tokens"] = 2.5e6;
  records::TimerRegionSummary fwd;
  fwd.name = "forward";
  fwd.kind = "phase";
  fwd.stream = "timer";
  fwd.level = 1;
  fwd.window = {3, 3, stats::summarize({1e-3, 1.1e-3, 1.2e-3}, 0.9), 0.35, 0.0};
  fwd.total = {113, 113, {113, 0.12, 1e-3, 1.05e-3, 5e-5, 1.3e-3, 1.05e-3, 1.1e-3, 1.25e-3}, 0.34};
  records::TimerRegionSummary attn;
  attn.name = "attention";
  attn.kind = "region";
  attn.parent = "forward";
  attn.stream = "other";
  attn.level = 2;
  attn.window = {2, 4, stats::summarize({4e-4, 5e-4}, 0.9), std::nullopt, 2.5e-4};
  s.regions = {fwd, attn};
  s.warnings = {{"timer_unresolved_steps", Severity::info, "2 steps pending"}};
  s.config.trace_kernels = true;
  records::TimerKernelTrace kt;
  kt.status = "traced";
  kt.tool = "CUPTI API version 130001 (libcupti.so)";
  kt.step = 110;
  kt.step_gpu_time_s = 3.1e-3;
  kt.kernel_time_s = 2.9e-3;
  kt.device_period_s = 3.11e-3;
  kt.busy_s = 2.9e-3;
  kt.gaps_s = 2.1e-4;
  kt.closure = 0.0;
  kt.records = 40;
  kt.attributed_records = 12;
  records::TracedKernel gemm;
  gemm.name = "sm90_xmma_gemm";
  gemm.kind = "kernel";
  gemm.launches = 3;
  gemm.launches_per_step = 3;
  gemm.median_s = 8e-4;
  gemm.time_per_step_s = 2.4e-3;
  gemm.share_of_step = 0.774;
  gemm.grid = {132, 1, 1};
  gemm.block = {384, 1, 1};
  gemm.streams = {7};
  kt.regions = {{"forward", 2.4e-3, {gemm}}, {"(outside regions)", 5e-4, {}}};
  s.kernel_trace = kt;
  return s;
}

}  // namespace gauge::testing
