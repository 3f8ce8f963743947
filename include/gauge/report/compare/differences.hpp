#pragma once
/// \file gauge/report/compare/differences.hpp
/// Helpers the comparison (gauge/report/compare.hpp) shares, in detail::comparing: the median and
/// finite values of samples, signed percentages and p-values as text, the matching of experiments
/// by their dimensions, and the differences of settings between two results; and
/// `environment_differences`, the differences of two environments that can change the numbers
/// without a change of code.

#include "gauge/detail/fmt.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "gauge/core/dimensions.hpp"
#include "gauge/core/environment.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/report/compare/types.hpp"

namespace gauge {

namespace detail::comparing {

/// Type-7 median of `v` (reordered in place), n >= 1.
inline double median_in_place(std::vector<double>& v) {
  const std::size_t n = v.size();
  const std::size_t mid = (n - 1) / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double a = v[mid];
  if (n % 2 == 1) return a;
  const double b = *std::min_element(v.begin() + static_cast<std::ptrdiff_t>(mid + 1), v.end());
  return lerp(a, b, 0.5);
}

/// The finite values of `x`.
inline std::vector<double> finite(const std::vector<double>& x) {
  std::vector<double> out;
  out.reserve(x.size());
  for (double v : x)
    if (std::isfinite(v)) out.push_back(v);
  return out;
}

/// Smallest n whose distribution-free CI of the median reaches `level`: 1 − 2^(1−n) >= level.
inline std::size_t min_samples_for_ci(double level) {
  std::size_t n = 2;
  while (median_ci_coverage(1, n) < level) ++n;
  return n;
}

/// "0.1 %"-style percentage with a sign, of a fraction.
inline std::string signed_percent(double fraction) { return fmt::format("{:+.2f} %", 100 * fraction); }

/// A p-value for reading: 4 significant digits, or "< 1e-300".
inline std::string format_p(double p) {
  if (p < 1e-300) return "< 1e-300";
  return fmt::format("{:.3g}", p);
}

}  // namespace detail::comparing

namespace detail::comparing {

/// The dimensions used to match experiments: all but the ignored ones.
inline Dimensions matching_key(const Dimensions& dims, const std::set<std::string>& ignored) {
  Dimensions key;
  for (const auto& [k, v] : dims)
    if (!ignored.count(k)) key.emplace(k, v);
  return key;
}

/// "13.0" from 13000 (a CUDA version number), "-" when absent.
inline std::string cuda_version_text(const std::optional<int>& v) {
  return v ? fmt::format("{}.{}", *v / 1000, (*v % 1000) / 10) : std::string("-");
}

/// The optional value as text, "-" when absent.
template <class T>
std::string text_of(const std::optional<T>& v) {
  if (!v) return "-";
  if constexpr (std::is_same_v<T, std::string>) return *v;
  else if constexpr (std::is_floating_point_v<T>) return fmt::format("{:g}", *v);
  else return std::to_string(*v);
}

/// Mean SM clock of the experiment during measurement, MHz, from its telemetry when it has one:
/// `telemetry.sm_clock_mhz.mean`, else the median of the readings of `telemetry.series`.
inline std::optional<double> measured_sm_clock_mhz(const records::TelemetryRecord& telemetry) {
  if (telemetry.sm_clock_mhz.mean && std::isfinite(*telemetry.sm_clock_mhz.mean)) return telemetry.sm_clock_mhz.mean;
  std::vector<double> v;
  for (const auto& x : telemetry.series)
    if (x.sm_clock_mhz && std::isfinite(*x.sm_clock_mhz)) v.push_back(*x.sm_clock_mhz);
  if (v.empty()) return std::nullopt;
  return median_in_place(v);
}

/// Adds a difference when the texts differ.
inline void differ(std::vector<compare::EnvironmentDifference>& out, std::string what, const std::string& a,
                   const std::string& b, bool invalidates) {
  if (a != b) out.push_back({std::move(what), a, b, invalidates});
}

/// Differences between the settings of two matched experiments (and their telemetry).
inline std::vector<compare::EnvironmentDifference> result_differences(const Result& a, const Result& b, double clock_tolerance) {
  std::vector<compare::EnvironmentDifference> d;
  differ(d, "backend", a.backend, b.backend, true);
  differ(d, "device", a.device.name, b.device.name, true);
  if (a.device.name == b.device.name && a.device.uuid && b.device.uuid)
    differ(d, "device UUID (another board of the same model)", *a.device.uuid, *b.device.uuid, false);
  differ(d, "cache", a.sampling.cache, b.sampling.cache, true);
  differ(d, "sampling method", a.sampling.method, b.sampling.method, true);
  differ(d, "steps per sample (k)", std::to_string(a.sampling.steps_per_sample), std::to_string(b.sampling.steps_per_sample), false);
  differ(d, "work: FLOP per step", text_of(a.work.flop), text_of(b.work.flop), false);
  differ(d, "work: bytes per step", text_of(a.work.bytes), text_of(b.work.bytes), false);
  const bool a_unlocked = a.has_warning(warning_code::clocks_not_locked);
  const bool b_unlocked = b.has_warning(warning_code::clocks_not_locked);
  differ(d, "clocks", a_unlocked ? "not locked" : "locked or unknown", b_unlocked ? "not locked" : "locked or unknown", true);
  const auto ca = measured_sm_clock_mhz(a.telemetry), cb = measured_sm_clock_mhz(b.telemetry);
  if (ca && cb && *ca > 0 && std::fabs(*cb / *ca - 1) > clock_tolerance)
    d.push_back({fmt::format("mean SM clock while measuring (differs by more than {:g} %)", 100 * clock_tolerance),
                 fmt::format("{:.0f} MHz", *ca), fmt::format("{:.0f} MHz", *cb), true});
  std::string only_b;
  for (const auto& w : b.warnings)
    if (w.severity != Severity::info && !a.has_warning(w.code)) only_b += (only_b.empty() ? "" : ", ") + w.code;
  if (!only_b.empty()) d.push_back({"warnings only in the new report", "-", only_b, false});
  return d;
}

/// Label of an experiment for lists: "name/k=v/..." (detail::point_label), the axes `axes`
/// declares for its name (a report's `axes`) first.
inline std::string full_label(const Result& r, const std::map<std::string, std::vector<std::string>>& axes = {}) {
  static const std::vector<std::string> undeclared;
  const auto declared = axes.find(r.name);
  return detail::point_label(r.name, r.dimensions, declared == axes.end() ? undeclared : declared->second);
}

}  // namespace detail::comparing

namespace compare {
/// Differences between two environments that matter to a comparison. Invalidating: CUDA driver
/// and runtime versions, the NVML driver version, each GPU's model, compute capability, SM
/// count, maximum SM and memory clocks, ECC mode and clock locking (NVML), and the environment
/// variables recorded because they change results (CUDA_LAUNCH_BLOCKING, NVIDIA_TF32_OVERRIDE …).
/// Informational: GPU count, another board of the same model (UUID), compiler, gauge version; the
/// host CPU model, logical CPU count and governor, except where neither report has a GPU (the host
/// backend: the CPU is then the device, and a change of them invalidates).
/// NVML's driver version and clock locking are compared where both reports have them (schema
/// 1.1 and later).
///
/// \param base, candidate the environments.
inline std::vector<EnvironmentDifference> environment_differences(const Environment& base, const Environment& candidate) {
  using namespace detail::comparing;
  std::vector<EnvironmentDifference> d;
  differ(d, "CUDA driver (highest CUDA version it supports)", cuda_version_text(base.cuda.driver_version),
         cuda_version_text(candidate.cuda.driver_version), true);
  differ(d, "CUDA runtime", cuda_version_text(base.cuda.runtime_version), cuda_version_text(candidate.cuda.runtime_version), true);
  differ(d, "NVIDIA driver", text_of(base.nvml.driver_version), text_of(candidate.nvml.driver_version), true);
  differ(d, "GPU count", std::to_string(base.cuda.devices.size()), std::to_string(candidate.cuda.devices.size()), false);
  const std::size_t common = std::min(base.cuda.devices.size(), candidate.cuda.devices.size());
  for (std::size_t i = 0; i < common; ++i) {
    const auto& a = base.cuda.devices[i];
    const auto& b = candidate.cuda.devices[i];
    const std::string g = "GPU " + std::to_string(i) + " ";
    differ(d, g + "model", a.name, b.name, true);
    differ(d, g + "compute capability", fmt::format("{}.{}", a.compute_capability_major, a.compute_capability_minor),
           fmt::format("{}.{}", b.compute_capability_major, b.compute_capability_minor), true);
    differ(d, g + "SMs", std::to_string(a.multiprocessors), std::to_string(b.multiprocessors), true);
    differ(d, g + "maximum SM clock (MHz)", text_of(a.sm_clock_max_mhz), text_of(b.sm_clock_max_mhz), true);
    differ(d, g + "maximum memory clock (MHz)", text_of(a.memory_clock_max_mhz), text_of(b.memory_clock_max_mhz), true);
    differ(d, g + "ECC", a.ecc_enabled ? "on" : "off", b.ecc_enabled ? "on" : "off", true);
    if (a.name == b.name && a.uuid && b.uuid) differ(d, g + "UUID (another board of the same model)", *a.uuid, *b.uuid, false);
    if (a.nvml && b.nvml && a.nvml->clocks_locked && b.nvml->clocks_locked)
      differ(d, g + "clocks locked", *a.nvml->clocks_locked ? "true" : "false", *b.nvml->clocks_locked ? "true" : "false",
             true);
  }
  std::map<std::string, std::optional<std::string>> va(base.environment_variables.begin(), base.environment_variables.end());
  std::map<std::string, std::optional<std::string>> vb(candidate.environment_variables.begin(), candidate.environment_variables.end());
  for (const auto& [name, value] : va) {
    const auto it = vb.find(name);
    if (it != vb.end()) differ(d, "environment variable " + name, text_of(value), text_of(it->second), true);
  }
  // Without a GPU (the host backend) the CPU is the device: its model, core count and governor
  // change the numbers as another GPU would.
  const bool host_device = base.cuda.devices.empty() && candidate.cuda.devices.empty();
  differ(d, "host CPU", text_of(base.host.cpu.model_name), text_of(candidate.host.cpu.model_name), host_device);
  differ(d, "logical CPUs", text_of(base.host.cpu.logical_cpus), text_of(candidate.host.cpu.logical_cpus), host_device);
  differ(d, "CPU governor", text_of(base.host.cpu.governor), text_of(candidate.host.cpu.governor), host_device);
  differ(d, "compiler", base.compiler.id + " " + base.compiler.version, candidate.compiler.id + " " + candidate.compiler.version, false);
  differ(d, "optimized build", base.compiler.optimized ? "yes" : "no", candidate.compiler.optimized ? "yes" : "no", false);
  differ(d, "gauge version", base.gauge_version, candidate.gauge_version, false);
  return d;
}
}  // namespace compare

}  // namespace gauge
