#pragma once
/// \file gauge/core/warnings.hpp
/// Warnings: what might be wrong with a number. Each has a stable code, a severity and a sentence
/// with the numbers and, where there is one, the fix.

#include <string>

namespace gauge {

/// How much a warning should worry the reader.
enum class Severity {
  info,     ///< context the reader should know (clocks not locked, lazy loading)
  warning,  ///< the number may be off; read the sentence before trusting it
  error,    ///< the number is likely wrong (work not on the stream, step failed)
};

/// Text name of a Severity ("info", "warning", "error").
inline const char* to_string(Severity s) {
  switch (s) {
    case Severity::info: return "info";
    case Severity::warning: return "warning";
    case Severity::error: return "error";
  }
  return "?";
}

/// The stable warning codes gauge emits (DESIGN.md, "Warnings are the product").
namespace warning_code {
inline constexpr const char* warmup_not_converged = "warmup_not_converged";
inline constexpr const char* noise_target_not_met = "noise_target_not_met";
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
inline constexpr const char* verification_failed = "verification_failed";
inline constexpr const char* throttling = "throttling";
inline constexpr const char* sm_clock_below_max = "sm_clock_below_max";
inline constexpr const char* jit_compiled = "jit_compiled";
inline constexpr const char* other_processes_on_gpu = "other_processes_on_gpu";
inline constexpr const char* memory_grew_during_measurement = "memory_grew_during_measurement";
inline constexpr const char* may_not_fit = "may_not_fit";
inline constexpr const char* telemetry_unavailable = "telemetry_unavailable";
inline constexpr const char* drift_during_measurement = "drift_during_measurement";
}  // namespace warning_code

/// One warning attached to a result or to the report's environment.
struct Warning {
  std::string code;      ///< stable machine-readable code, e.g. "noise_target_not_met"
  Severity severity = Severity::warning;
  std::string message;   ///< one sentence with the numbers, and the fix where there is one
};

}  // namespace gauge
