#pragma once
/// \file gauge/implementation/environment.hpp
/// The environment's compiled part: the environment a Report captures (with the measured peaks
/// of gauge-peaks' cache), the process's memory (/proc), NVML's driver version and telemetry
/// probe; CudaBackend's device, streams and events (gauge/implementation/cuda_device.hpp). Part of
/// gauge/implementation.hpp
/// (src/environment.cpp through CMake); host code only, and empty where the program links the
/// library CMake built (GAUGE_LINKS_IMPLEMENTATION).

#if !defined(__CUDA_ARCH__) && !defined(GAUGE_LINKS_IMPLEMENTATION)

#include <unistd.h>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/environment.hpp"
#include "gauge/env/environment.hpp"
#include "gauge/env/nvml.hpp"
#include "gauge/env/process.hpp"
#include "gauge/env/telemetry.hpp"
#include "gauge/protocol/seam.hpp"
#include "gauge/implementation/cuda_device.hpp"

namespace gauge::detail {

records::ProcessMemory read_host_process_memory() { return detail::read_process_memory(); }
bool reset_host_process_memory_peak() { return detail::reset_process_memory_peak(); }
std::optional<std::uint64_t> read_host_memory_total() { return detail::read_memory_total(); }
unsigned current_process_id() { return static_cast<unsigned>(::getpid()); }

/// NVML's driver version ("580.95.05"), or "" without NVML: the cache key beside the UUID.
std::string nvml_driver_version() {
  auto lib = nvml::Library::shared();
  char buf[96] = {0};
  const auto& a = lib->api();
  if (lib->ok() && a.system_get_driver_version && a.system_get_driver_version(buf, sizeof buf) == nvml::success) return buf;
  return "";
}

std::unique_ptr<env::TelemetryProbe> make_nvml_probe(const std::optional<std::string>& uuid,
                                                const std::optional<std::string>& pci_bus_id, std::string& reason) {
  auto lib = nvml::Library::shared();
  if (!lib->ok()) {
    reason = lib->error().value_or("NVML not available");
    return nullptr;
  }
  auto found = nvml::find_device(*lib, uuid, pci_bus_id);
  if (!found) {
    reason = "NVML has no device with UUID " + uuid.value_or("?") + " or bus id " + pci_bus_id.value_or("?");
    return nullptr;
  }
  return std::make_unique<env::NvmlProbe>(lib, found->first);
}

/// `env` with each CUDA device's measured peaks (gauge-peaks' cache) appended to its peaks.
Environment with_measured_peaks(Environment env) {
  for (auto& d : env.cuda.devices) {
    if (!d.peaks) continue;
    std::string source;
    auto measured = read_measured_peaks(d.uuid, source);
    d.peaks->measured_source = source;
    for (auto& p : measured) d.peaks->peaks.push_back(std::move(p));
  }
  return env;
}

Environment capture_report_environment(env::CompilerInfo compiler) {
  Environment env = capture_environment();
  env.compiler = std::move(compiler);
  return with_measured_peaks(std::move(env));
}

}  // namespace gauge::detail

#endif  // !defined(__CUDA_ARCH__) && !defined(GAUGE_LINKS_IMPLEMENTATION)
