#pragma once
/// \file gauge/core/warnings.hpp
/// Warnings: what might be wrong with a number. Each has a stable code, a severity and a sentence
/// with the numbers and, where there is one, the fix.

#include <string>
#include <utility>

#include "gauge/detail/enum_names.hpp"

namespace gauge {

/// How much a warning should worry the reader.
enum class Severity {
  info,     ///< context the reader should know (clocks not locked, lazy loading)
  warning,  ///< the number may be off; read the sentence before trusting it
  error,    ///< the number is likely wrong (work not on the stream, step failed)
};

/// Text name of a Severity ("info", "warning", "error").
inline const char* to_string(Severity s) {
  static constexpr detail::EnumName<Severity> names[] = {
      {Severity::info, "info"}, {Severity::warning, "warning"}, {Severity::error, "error"}};
  return detail::name_of(names, s);
}

/// The stable warning codes gauge emits, Experiment's and the Timer's (DESIGN.md, "Warnings are
/// the product"); each is in `warning_catalogue` with its severity, meaning and threshold.
namespace warning_code {
inline constexpr const char* warmup_not_converged = "warmup_not_converged";
/// The first step took far longer than the warmed one (autotuning, JIT): warm-up's budget counted from after it.
inline constexpr const char* slow_first_step = "slow_first_step";
/// Process CPU time is left out: with a setup it is read around every step, and the step is too
/// short for the clock reading's own cost.
inline constexpr const char* cpu_time_unresolved = "cpu_time_unresolved";
inline constexpr const char* noise_target_not_met = "noise_target_not_met";
inline constexpr const char* stream_effect = "stream_effect";
inline constexpr const char* outliers = "outliers";
inline constexpr const char* launch_bound = "launch_bound";
inline constexpr const char* work_not_on_stream = "work_not_on_stream";
inline constexpr const char* below_timer_resolution = "below_timer_resolution";
inline constexpr const char* gate_timeout = "gate_timeout";
inline constexpr const char* gate_unavailable = "gate_unavailable";
inline constexpr const char* event_overhead = "event_overhead";
inline constexpr const char* debug_build = "debug_build";
inline constexpr const char* cpu_governor_not_performance = "cpu_governor_not_performance";
inline constexpr const char* no_gpu = "no_gpu";
inline constexpr const char* lazy_module_loading = "lazy_module_loading";
inline constexpr const char* clocks_not_locked = "clocks_not_locked";
inline constexpr const char* throttling = "throttling";
inline constexpr const char* sm_clock_below_max = "sm_clock_below_max";
inline constexpr const char* jit_compiled = "jit_compiled";
inline constexpr const char* other_processes_on_gpu = "other_processes_on_gpu";
inline constexpr const char* memory_grew_during_measurement = "memory_grew_during_measurement";
inline constexpr const char* may_not_fit = "may_not_fit";
inline constexpr const char* telemetry_unavailable = "telemetry_unavailable";
inline constexpr const char* drift_during_measurement = "drift_during_measurement";
inline constexpr const char* samples_subsampled = "samples_subsampled";
inline constexpr const char* work_not_every_step = "work_not_every_step";
inline constexpr const char* steps_per_sample_ignored = "steps_per_sample_ignored";
/// A step on several threads is too short for them: waking them and waiting is > 5 % of a sample.
inline constexpr const char* thread_wake_overhead = "thread_wake_overhead";
/// A step on several threads whose threads did not run at once (CPU time per step ≈ real time).
inline constexpr const char* threads_not_parallel = "threads_not_parallel";
inline constexpr const char* unknown_silenced_code = "unknown_silenced_code";
/// Config::trace_kernels was asked, but CUPTI is absent or failed (the report's kernel_trace says why).
inline constexpr const char* kernel_trace_unavailable = "kernel_trace_unavailable";
/// Config::trace_kernels was asked while another CUPTI client (ncu, nsys) is attached: not traced.
inline constexpr const char* profiler_attached = "profiler_attached";
/// A throughput above the device's memory peak: a hot cache (L2) served the working set (schema 1.5).
inline constexpr const char* above_memory_peak = "above_memory_peak";
/// A FLOP rate above the compute peak of the declared type: work counted twice, wrong type, sparsity.
inline constexpr const char* above_compute_peak = "above_compute_peak";
/// The declared bytes per second and NVML GPM's DRAM bandwidth over the measured rounds differ by
/// more than 2x (schema 1.6; gauge/core/gpm.hpp).
inline constexpr const char* gpm_bandwidth_mismatch = "gpm_bandwidth_mismatch";
/// In a comparison: a speed-up beyond 10x; check that the new step still does its work
/// (gauge/report/speedup_check.hpp).
inline constexpr const char* implausible_speedup = "implausible_speedup";
// The Timer's codes (gauge/timer.hpp).
/// More steps were pending than `TimerConfig::max_pending_steps`: the Timer waited on the host.
inline constexpr const char* timer_forced_wait = "timer_forced_wait";
/// Steps recorded but not yet resolved are not in the summary (summary() without flush()).
inline constexpr const char* timer_unresolved_steps = "timer_unresolved_steps";
/// Regions still open, or a step not yet ended by step(), when the final summary was taken.
inline constexpr const char* timer_unfinished = "timer_unfinished";
/// The event pool grew after warm-up: steady-state steps created CUDA events (allocated).
inline constexpr const char* timer_pool_grew_after_warmup = "timer_pool_grew_after_warmup";
/// More distinct region names than `timer_many_regions_limit`: names built from changing values
/// (a step index, a shape) make a region per value, each with its own window and summary.
inline constexpr const char* timer_many_regions = "timer_many_regions";
/// Resolving a step failed (e.g. a CUDA error): that step's times were dropped.
inline constexpr const char* timer_resolution_failed = "timer_resolution_failed";
}  // namespace warning_code

/// One warning attached to a result or to the report's environment.
struct Warning {
  std::string code;      ///< stable machine-readable code, e.g. "noise_target_not_met"
  Severity severity = Severity::warning;
  std::string message;   ///< one sentence with the numbers, and the fix where there is one
};


/// One entry of the warning catalogue: a code gauge can emit, how much it should worry the
/// reader, what it means, and the threshold that triggers it. docs/method.md's table of warnings is
/// tested against this list (tests/test_warnings.cpp).
struct WarningInfo {
  const char* code;       ///< the stable code (a `warning_code::` constant)
  Severity severity;      ///< the severity it is emitted with (the most severe, if several)
  const char* meaning;    ///< what it says about the numbers
  const char* threshold;  ///< what triggers it (settings in Config, thresholds in gauge/protocol/diagnosis.hpp)
};

/// Every warning code gauge emits (Experiment, environment, Timer), in the order of docs/method.md's table.
inline constexpr WarningInfo warning_catalogue[] = {
    {warning_code::warmup_not_converged, Severity::warning, "warm-up hit its cap before the step time stopped drifting",
     "warmup.max_time / warmup.max_steps reached before warmup.drift_tolerance was met"},
    {warning_code::slow_first_step, Severity::info,
     "the first step took far longer than the warmed one (module loading, JIT, autotuning); it is in no sample, and "
     "warm-up's budget counted from after it",
     "warmup.first_step_time_s >= 0.1 s and >= 100 x the warmed per-step time"},
    {warning_code::cpu_time_unresolved, Severity::info,
     "process CPU time is not reported: with a setup it is read around every step, and the step is shorter than the "
     "clock reading's cost can resolve",
     "host timing with a setup, time per step after warm-up < 10 x the cost of one CPU-clock reading"},
    {warning_code::noise_target_not_met, Severity::warning, "the median's confidence interval is wider than asked",
     "relative CI width > measure.target_relative_ci_width at measure.max_time"},
    {warning_code::stream_effect, Severity::info,
     "the time depends on the stream the step runs on; the interval was widened to cover it",
     "(max − min) of the streams' medians > the samples' own CI width of the median"},
    {warning_code::outliers, Severity::info, "samples beyond Tukey's fences: something else ran at times",
     "any severe outlier, or more than 5 % outliers, from 10 samples on"},
    {warning_code::drift_during_measurement, Severity::warning, "the first and last thirds of the samples disagree",
     "abs(median(last third) / median(first third) − 1) > max(warmup.drift_tolerance, 2 × CI width), from 30 samples on"},
    {warning_code::work_not_every_step, Severity::warning,
     "a minority of the samples, far above the median, holds most of the time: the work (or a wait, e.g. a sleep or a lock) may happen only every Nth call, "
     "and the median reports the calls that did none",
     "from 20 samples on: samples > 5 x the median are at most half of them and hold >= 50 % of the time; on host "
     "timing not where CPU time per sample shows them off the CPU, nor, without it, where fewer than 2 holding that "
     "share remain once the slowest as many as the process's involuntary context switches are set aside"},
    {warning_code::steps_per_sample_ignored, Severity::warning,
     "measure.steps_per_sample was set above 1 but every step needs its own event pair (an untimed setup, a cold cache)",
     "measure.steps_per_sample > 1 with Experiment::setup or a cold cache"},
    {warning_code::thread_wake_overhead, Severity::warning,
     "the step runs on several threads and is too short for them: waking the threads and waiting for them is more than "
     "5 % of a sample even at the most steps per sample, and the time per step includes it",
     "Experiment::threads(n > 1): the wake-up's measured cost / (steps per sample x time per step) > 0.05"},
    {warning_code::threads_not_parallel, Severity::warning,
     "the step ran on several threads, but its process CPU time per step is not clearly above its real time: the "
     "threads took turns rather than running at once (fewer free cores than threads, or a lock in the step)",
     "Experiment::threads(n > 1): median CPU time per step / median real time per step < 1.5"},
    {warning_code::samples_subsampled, Severity::info,
     "the report stores a subsample of the GPU-time samples (whole rounds spread over the run); the summary and the "
     "diagnosis are of all of them, and comparisons decide from the summaries",
     "GPU-time samples taken > max_samples_in_report"},
    {warning_code::above_memory_peak, Severity::warning,
     "the bytes per second exceed the device's memory peak: a cache (L2) served the working set",
     "GPU bytes/s > above_peak_fraction (1.0) x the theoretical memory peak at the maximum clock (else the datasheet's)"},
    {warning_code::above_compute_peak, Severity::warning,
     "the FLOP per second exceed the compute peak of the declared dtype: FLOP counted twice, the wrong type, or a sparse peak",
     "GPU FLOP/s > above_peak_fraction (1.0) x the dense peak of the dtype dimension at the maximum clock (else the datasheet's)"},
    {warning_code::gpm_bandwidth_mismatch, Severity::warning,
     "the declared bytes per second and the DRAM bandwidth NVML GPM measured disagree: L2 served the bytes, or they are "
     "miscounted; declaring fewer than DRAM moved is a note of severity info (a GEMM re-reads its tiles)",
     "declared DRAM bytes/s over the GPM interval / GPM's (DRAM_BW_UTIL x memory peak) > gpm_mismatch_factor (2), or < 1/2 "
     "(info), with at least 1 s of measured rounds"},
    {warning_code::implausible_speedup, Severity::warning,
     "a comparison found a speed-up beyond 10x: check that the new step still does its work",
     "median(base) / median(new) > implausible_speedup_ratio (10)"},
    {warning_code::below_timer_resolution, Severity::warning, "one sample spans too few timer ticks",
     "sample time < 100 × the timer's resolution"},
    {warning_code::work_not_on_stream, Severity::error, "the device was busy with work the stream's events did not see",
     "events and enqueuing each < 50 % of wall time, with > 50 us per wall round unexplained"},
    {warning_code::launch_bound, Severity::warning, "the host sets the pace: the device idles between steps",
     "GPU busy fraction < 50 %"},
    {warning_code::gate_timeout, Severity::warning, "the launch gate timed out (the step synchronizes the host, or the queue was full)",
     "measure.gate_timeout"},
    {warning_code::gate_unavailable, Severity::info, "no launch gate: the step's file was not compiled by nvcc",
     "CudaBackend used from a host-compiled translation unit"},
    {warning_code::event_overhead, Severity::info, "each sample still includes some event overhead",
     "k capped by measure.max_sample_time with overhead > 0.1 % of the step"},
    {warning_code::debug_build, Severity::warning, "the step was compiled without optimization or without NDEBUG",
     "!defined(NDEBUG) or !defined(__OPTIMIZE__) where run() is called"},
    {warning_code::throttling, Severity::warning, "the GPU was throttled during measurement",
     "any NVML clock event reason other than idle or application clocks"},
    {warning_code::sm_clock_below_max, Severity::warning, "the SM clock ran below its maximum",
     "mean SM clock < sm_clock_warning_fraction × maximum"},
    {warning_code::jit_compiled, Severity::warning, "a named kernel was JIT-compiled from PTX for this GPU",
     "no native SASS for the device in the kernel's binary"},
    {warning_code::other_processes_on_gpu, Severity::warning, "other processes had a context on the GPU",
     "any other process in NVML's compute process list"},
    {warning_code::memory_grew_during_measurement, Severity::warning, "device or host memory grew while measuring",
     "growth > memory_growth_tolerance_bytes"},
    {warning_code::may_not_fit, Severity::warning, "the workload may not fit in memory",
     "peak > 95 % of device memory, host RSS > 90 % of host memory, or growth"},
    {warning_code::telemetry_unavailable, Severity::info, "no GPU telemetry (NVML) during the run", "NVML absent or device unknown"},
    {warning_code::clocks_not_locked, Severity::info, "GPU clocks are not locked: results follow the boost state",
     "NVML application/locked clocks not set"},
    {warning_code::lazy_module_loading, Severity::info, "CUDA loads kernels lazily (first launches pay for it)",
     "CUDA_MODULE_LOADING=LAZY or the driver's default"},
    {warning_code::cpu_governor_not_performance, Severity::warning, "the CPU frequency governor is not 'performance'",
     "any CPU's scaling_governor != performance"},
    {warning_code::no_gpu, Severity::info, "no CUDA device was found", "cudaGetDeviceCount == 0 or an error, in a program built with the CUDA runtime"},
    {warning_code::kernel_trace_unavailable, Severity::info, "kernel tracing was asked but did not run (no CUPTI, or it failed)",
     "trace_kernels with libcupti absent, a host backend, or no record tied to the step"},
    {warning_code::profiler_attached, Severity::warning,
     "a profiler (another CUPTI client) is attached: the run is the profiler's, and kernel tracing was disabled",
     "trace_kernels with CUDA_INJECTION64_PATH set or cuptiSubscribe refused (multiple subscribers)"},
    {warning_code::unknown_silenced_code, Severity::warning,
     "a silenced code (GAUGE_SILENCE or silenced_warnings) is no code gauge emits: a typo silences nothing",
     "a silenced code not in this catalogue"},
    {warning_code::timer_forced_wait, Severity::warning, "the Timer had to wait on the host (too many pending steps)",
     "pending steps > TimerConfig::max_pending_steps"},
    {warning_code::timer_unresolved_steps, Severity::info, "steps not yet resolved are not in the summary", "summary() before flush()"},
    {warning_code::timer_unfinished, Severity::info, "regions were open, or a step not ended, at finish()", "open regions at finish()"},
    {warning_code::timer_pool_grew_after_warmup, Severity::info, "the Timer's event pool grew after warm-up (allocations per step)",
     "events created after TimerConfig::warmup_steps"},
    {warning_code::timer_many_regions, Severity::warning, "a Timer has very many distinct region names (names built from changing values?)",
     "more than 1000 regions"},
    {warning_code::timer_resolution_failed, Severity::error, "resolving a step failed; its times were dropped", "an error while resolving"},
};

namespace detail {
/// The catalogue entry of `code`; nullptr for a code gauge does not emit.
inline const WarningInfo* find_warning_info(const std::string& code) {
  for (const auto& w : warning_catalogue)
    if (code == w.code) return &w;
  return nullptr;
}
}  // namespace detail

/// A warning with the catalogue's severity for `code` (one source for every emitter: Experiment,
/// environment, Timer). `code` must be a catalogue code (a `warning_code::` constant); an unknown
/// code gets Severity::warning, so a misspelt code is still shown, and the catalogue test
/// (tests/test_warnings.cpp) keeps the emitters' codes in the catalogue.
inline Warning make_warning(const std::string& code, std::string message) {
  const WarningInfo* info = detail::find_warning_info(code);
  return Warning{code, info ? info->severity : Severity::warning, std::move(message)};
}

}  // namespace gauge
