#pragma once
/// \file gauge/core/environment.hpp
/// The environment a report was measured in (seed: "Capture the environment alongside the
/// numbers, since driver, clock state, and topology all shift results without changing the code").
/// Plain data; detection lives in gauge/env/, serialization in gauge/report/json.hpp.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/host_info.hpp"
#include "gauge/core/warnings.hpp"

namespace gauge {

/// One CUDA device as the CUDA runtime describes it.
struct CudaDeviceInfo {
  int ordinal = 0;                            ///< CUDA ordinal in this process
  std::string name;                           ///< e.g. "NVIDIA H200"
  std::optional<std::string> uuid;            ///< "GPU-xxxxxxxx-…" (matches nvidia-smi)
  std::optional<std::string> pci_bus_id;      ///< "0000:19:00.0"
  int compute_capability_major = 0;           ///< e.g. 9
  int compute_capability_minor = 0;           ///< e.g. 0
  int multiprocessors = 0;                    ///< streaming multiprocessors (SMs)
  std::uint64_t total_memory_bytes = 0;       ///< global memory, bytes
  std::uint64_t l2_cache_bytes = 0;           ///< L2 cache, bytes
  std::uint64_t persisting_l2_max_bytes = 0;  ///< largest persisting-L2 carve-out, bytes
  std::optional<double> sm_clock_max_mhz;     ///< peak SM clock (cudaDevAttrClockRate), MHz
  std::optional<double> memory_clock_max_mhz; ///< peak memory clock (cudaDevAttrMemoryClockRate), MHz
  std::optional<int> memory_bus_width_bits;   ///< memory bus width, bits
  std::uint64_t shared_memory_per_block_optin_bytes = 0;  ///< opt-in shared memory per block
  int max_threads_per_multiprocessor = 0;     ///< resident threads per SM
  bool ecc_enabled = false;                   ///< ECC on (runtime's view)
  bool integrated = false;                    ///< integrated (shares host memory)
};

/// What the CUDA runtime says about this machine.
struct CudaInfo {
  std::optional<int> runtime_version;   ///< cudaRuntimeGetVersion, e.g. 13000 for 13.0
  std::optional<int> driver_version;    ///< cudaDriverGetVersion (highest CUDA the driver supports)
  int device_count = 0;                 ///< visible devices
  std::optional<std::string> error;     ///< why no device is usable (e.g. "no CUDA-capable device")
  std::vector<CudaDeviceInfo> devices;  ///< every visible device
};

/// The environment, captured once per report.
struct Environment {
  std::string gauge_version;            ///< gauge's version
  HostInfo host;                        ///< CPU, memory, NUMA, OS, container/WSL/VM
  CompilerInfo compiler;                ///< compiler of the translation unit that captured it
  /// Environment variables that change results (name → value, or null when unset).
  std::vector<std::pair<std::string, std::optional<std::string>>> environment_variables;
  CudaInfo cuda;                        ///< CUDA runtime, driver, devices
  std::vector<Warning> warnings;        ///< warnings about the environment (governor, no GPU, …)
};

}  // namespace gauge
