#pragma once
/// \file gauge/env/environment.hpp
/// Captures the whole environment once per report, with the warnings it implies.

#include <cuda_runtime.h>

#include <filesystem>
#include <string>

#include "gauge/core/environment.hpp"
#include "gauge/env/cuda.hpp"
#include "gauge/env/host.hpp"
#include "gauge/version.hpp"

namespace gauge {

/// Captures host, compiler, relevant environment variables and CUDA. `root` is where /proc,
/// /sys and /etc are read from (tests pass a fake tree). Never throws for missing data.
inline Environment capture_environment(const std::filesystem::path& root = "/") {
  Environment env;
  env.gauge_version = version_string;
  env.host = detect_host(root);
  env.compiler = compiler_info();
  env.environment_variables = relevant_environment_variables();
  env.cuda = detect_cuda();
  if (env.cuda.devices.empty()) {
    env.warnings.push_back(Warning{warning_code::no_gpu, Severity::info,
                                   "no CUDA device is usable (" + env.cuda.error.value_or("0 devices") +
                                       "): only host-backend experiments can run here."});
  }
  if (!env.host.cpu.governor && env.host.cpu.distinct_governors.empty()) {
    // Unknown governor (no cpufreq in this VM/container): nothing to warn about.
  } else if (!env.host.governor_is_performance()) {
    env.warnings.push_back(Warning{
        warning_code::cpu_governor_not_performance, Severity::warning,
        "the CPU frequency governor is '" + env.host.cpu.governor.value_or("mixed") +
            "', not 'performance': host-side time (launch latency, wall time) can vary as the CPU "
            "clock changes. Set it with `cpupower frequency-set -g performance` for stable wall times."});
  }
  return env;
}

}  // namespace gauge
