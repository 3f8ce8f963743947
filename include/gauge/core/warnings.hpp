#pragma once
/// \file gauge/core/warnings.hpp
/// Warnings: what might be wrong with a number. Each has a stable code, a severity and a sentence
/// with the numbers and, where there is one, the fix.

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

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

/// Warning codes silenced by the environment variable GAUGE_SILENCE (comma-separated codes).
inline std::set<std::string> silenced_by_environment() {
  std::set<std::string> codes;
  const char* v = std::getenv("GAUGE_SILENCE");
  if (!v) return codes;
  std::string s(v);
  std::size_t start = 0;
  while (start <= s.size()) {
    std::size_t end = s.find(',', start);
    if (end == std::string::npos) end = s.size();
    std::string code = s.substr(start, end - start);
    code.erase(std::remove_if(code.begin(), code.end(), [](char ch) { return ch == ' '; }), code.end());
    if (!code.empty()) codes.insert(code);
    start = end + 1;
  }
  return codes;
}

/// Collects warnings, dropping the silenced codes (config plus GAUGE_SILENCE) and duplicates.
class WarningSink {
 public:
  /// \param silenced codes not to report.
  explicit WarningSink(std::set<std::string> silenced = {}) : silenced_(std::move(silenced)) {
    for (const auto& c : silenced_by_environment()) silenced_.insert(c);
  }
  /// Adds a warning unless its code is silenced or already present.
  void add(std::string code, Severity severity, std::string message) {
    if (silenced_.count(code)) return;
    for (const auto& w : warnings_)
      if (w.code == code) return;
    warnings_.push_back(Warning{std::move(code), severity, std::move(message)});
  }
  /// The warnings collected so far, in the order added.
  const std::vector<Warning>& warnings() const { return warnings_; }
  /// True when a warning with this code was added.
  bool has(const std::string& code) const {
    return std::any_of(warnings_.begin(), warnings_.end(), [&](const Warning& w) { return w.code == code; });
  }

 private:
  std::set<std::string> silenced_;
  std::vector<Warning> warnings_;
};

}  // namespace gauge
