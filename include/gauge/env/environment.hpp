#pragma once
/// \file gauge/env/environment.hpp
/// Captures the whole environment once per report, with the warnings it implies.

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include "gauge/core/environment.hpp"
#include "gauge/core/warning_sink.hpp"
#include "gauge/core/warnings.hpp"
#include "gauge/detail/cuda_available.hpp"
#if GAUGE_HAS_CUDA_RUNTIME
#include "gauge/env/cuda.hpp"
#endif
#include "gauge/env/host.hpp"
#include "gauge/env/nvml.hpp"
#include "gauge/env/tools.hpp"
#include "gauge/version.hpp"

namespace gauge {
namespace env {
/// What capture_environment reads, and from where (tests point every source at a fake).
struct EnvironmentOptions {
  std::filesystem::path root = "/";        ///< where /proc, /sys and /etc are read
  /// NVML to use; null = the process-wide `nvml::Library::shared()` (dlopen of libnvidia-ml.so.1).
  std::shared_ptr<detail::nvml::Library> nvml;
  bool run_tools = true;                   ///< run nvidia-smi, ncu, nsys
  /// Each tool's time limit. nvidia-smi needs about a second on a busy machine.
  std::chrono::milliseconds tool_timeout = std::chrono::seconds(5);
  /// Where the tools are looked up; default $PATH plus /usr/local/cuda/bin.
  std::optional<std::string> tool_path;
  bool query_cuda = true;                  ///< ask the CUDA runtime (tests turn it off)
};
}  // namespace env

namespace detail {
inline std::optional<std::string> read_trimmed(const std::filesystem::path& p) {
  std::ifstream in(p);
  if (!in) return std::nullopt;
  std::string s;
  std::getline(in, s);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

/// Fills each CUDA device's NUMA node and local CPUs from `root`/sys/bus/pci/devices/<bus id>/
/// (numa_node, local_cpulist). Never throws.
inline void attach_pci_locality(Environment& env, const std::filesystem::path& root) {
  for (auto& d : env.cuda.devices) {
    if (!d.pci_bus_id) continue;
    const auto dir = root / "sys/bus/pci/devices" / nvml::detail::normalize_bus_id(*d.pci_bus_id);
    if (auto v = detail::read_trimmed(dir / "numa_node")) {
      try {
        d.numa_node = std::stoi(*v);
      } catch (...) {
      }
    }
    d.local_cpulist = detail::read_trimmed(dir / "local_cpulist");
  }
}

/// Adds the warnings the environment implies: no GPU (where the program has the CUDA runtime: a
/// host-only build, which the console's first line names, chose the host), CPU governor, clocks
/// not locked, lazy module loading. Codes in GAUGE_SILENCE are dropped.
inline void add_environment_warnings(Environment& env) {
  WarningSink sink;
  if (env.cuda.devices.empty() && (env.cuda.runtime_version || env.cuda.driver_version)) {
    sink.add(warning_code::no_gpu, Severity::info,
             "no CUDA device is usable (" + env.cuda.error.value_or("0 devices") +
                 "): only host-backend experiments can run here.");
  }
  if (env.host.cpu.governor || !env.host.cpu.distinct_governors.empty()) {
    if (!env.host.governor_is_performance()) {
      sink.add(warning_code::cpu_governor_not_performance, Severity::warning,
               "the CPU frequency governor is '" + env.host.cpu.governor.value_or("mixed") +
                   "', not 'performance': host-side time (launch latency, wall time) can vary as the CPU "
                   "clock changes. `cpupower frequency-set -g performance` makes wall times steadier.");
    }
  }
  for (const auto& d : env.cuda.devices) {
    if (d.nvml && d.nvml->clocks_locked && !*d.nvml->clocks_locked) {
      sink.add(warning_code::clocks_not_locked, Severity::info,
               "GPU " + std::to_string(d.ordinal) + " runs with unlocked clocks (" +
                   d.nvml->clocks_locked_evidence.value_or("") +
                   "): boost and power management move them, so compare sampled clocks (telemetry) along "
                   "with times. Locking reduces noise but changes the operating regime.");
    }
  }
  std::string loading;
  for (const auto& [k, v] : env.environment_variables)
    if (k == "CUDA_MODULE_LOADING" && v) loading = *v;
  if (!env.cuda.devices.empty() && loading != "EAGER") {
    sink.add(warning_code::lazy_module_loading, Severity::info,
             std::string("CUDA_MODULE_LOADING is ") + (loading.empty() ? "unset (lazy by default since CUDA 12.2)" : "'" + loading + "'") +
                 ": a kernel's module loads at its first launch, which warm-up absorbs (the first step's time "
                 "shows it).");
  }
  for (const auto& w : sink.warnings()) env.warnings.push_back(w);
}
}  // namespace detail

/// Captures host, compiler, relevant environment variables, CUDA, NVML (each GPU matched by UUID
/// or PCI bus id), the GPU's NUMA node, and the seed's tools. Never throws for missing data.
inline Environment capture_environment(const env::EnvironmentOptions& options) {
  Environment env;
  env.gauge_version = version_string;
  env.host = detail::detect_host(options.root);
  env.compiler = detail::compiler_info();
  env.environment_variables = detail::relevant_environment_variables();
  if (options.query_cuda) {
#if GAUGE_HAS_CUDA_RUNTIME
    env.cuda = detail::detect_cuda();
#else
    env.cuda.error = "built without the CUDA runtime (GAUGE_NO_CUDA, or no cuda_runtime.h)";
#endif
  } else {
    env.cuda.error = "not queried";
  }
  detail::attach_pci_locality(env, options.root);
  auto lib = options.nvml ? options.nvml : detail::nvml::Library::shared();
  detail::nvml::describe_gpus(*lib, env);
  if (options.run_tools) {
    std::string path = options.tool_path.value_or(std::string(std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin") +
                                                  ":/usr/local/cuda/bin");
    env.tools = detail::capture_tools(options.tool_timeout, path);
  }
  detail::add_environment_warnings(env);
  return env;
}

/// capture_environment with every default, reading the live system under `root`.
inline Environment capture_environment(const std::filesystem::path& root = "/") {
  env::EnvironmentOptions o;
  o.root = root;
  return capture_environment(o);
}

}  // namespace gauge
