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
#include "gauge/core/peaks.hpp"
#include "gauge/core/warnings.hpp"

namespace gauge {
namespace env {
/// One GPU as NVML describes it (loaded at run time). Every field NVML could not give is empty
/// and `unavailable` names it with NVML's error string (e.g. "Not Supported").
struct NvmlGpuInfo {
  unsigned index = 0;                           ///< NVML index (may differ from the CUDA ordinal)
  std::string matched_by;                       ///< "uuid" or "pci_bus_id" (how it was matched to CUDA)
  std::optional<std::string> name;              ///< e.g. "NVIDIA H200"
  std::optional<std::string> uuid;              ///< "GPU-…"
  std::optional<std::string> pci_bus_id;        ///< "00000000:19:00.0"
  std::optional<int> pstate;                    ///< performance state P0…P15
  std::optional<double> sm_clock_mhz;           ///< current SM clock, MHz
  std::optional<double> sm_clock_max_mhz;       ///< maximum SM clock, MHz
  std::optional<double> sm_clock_application_mhz;  ///< application SM clock, MHz
  std::optional<double> sm_clock_default_application_mhz;  ///< default application SM clock, MHz
  std::optional<double> memory_clock_mhz;       ///< current memory clock, MHz
  std::optional<double> memory_clock_max_mhz;   ///< maximum memory clock, MHz
  std::optional<double> memory_clock_application_mhz;  ///< application memory clock, MHz
  std::optional<double> memory_clock_default_application_mhz;  ///< default application memory clock
  std::optional<bool> clocks_locked;            ///< clocks pinned (application clocks changed, or
                                                ///< the "applications clocks setting" reason is set)
  std::optional<std::string> clocks_locked_evidence;  ///< what said so
  std::optional<double> temperature_c;          ///< GPU temperature, °C
  std::optional<double> power_draw_w;           ///< power draw, W
  std::optional<double> power_limit_w;          ///< enforced power limit, W
  std::optional<std::uint64_t> memory_total_bytes;  ///< bytes
  std::optional<std::uint64_t> memory_used_bytes;   ///< bytes
  std::optional<bool> ecc_enabled;              ///< current ECC mode
  std::optional<bool> persistence_mode;         ///< persistence mode on
  std::optional<std::string> compute_mode;      ///< "default", "exclusive_process", "prohibited"
  std::optional<bool> mig_enabled;              ///< MIG mode on
  std::optional<unsigned> pcie_generation;      ///< current PCIe link generation
  std::optional<unsigned> pcie_width;           ///< current PCIe link width (lanes)
  std::optional<unsigned> pcie_generation_max;  ///< maximum PCIe link generation
  std::optional<unsigned> pcie_width_max;       ///< maximum PCIe link width
  std::optional<std::uint64_t> clock_event_reasons;  ///< current clock event (throttle) reason bits
  std::vector<std::string> clock_event_reason_names; ///< their names
  /// Processes with a compute context on this GPU: pid → used GPU memory in bytes.
  std::vector<std::pair<unsigned, std::uint64_t>> processes;
  std::vector<std::pair<std::string, std::string>> unavailable;  ///< field → NVML error
};

/// NVML as a whole: loaded or not, and why.
struct NvmlInfo {
  bool available = false;                     ///< libnvidia-ml.so.1 loaded and initialized
  std::optional<std::string> error;           ///< why not
  std::optional<std::string> driver_version;  ///< e.g. "580.159.04"
  std::optional<unsigned> device_count;       ///< GPUs NVML sees (all of them, not only CUDA-visible)
};

/// A command-line tool's answer (seed: nvidia-smi query, ncu --version, nsys --version).
struct ToolRecord {
  std::string command;                   ///< the command line run
  std::optional<int> exit_code;          ///< exit status; empty when it did not finish
  std::optional<std::string> output;     ///< standard output (trimmed), when it ran
  std::optional<std::string> error;      ///< why there is no answer: not found, timed out, failed
  double seconds = 0;                    ///< how long it took
};

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
  std::optional<int> numa_node;               ///< the GPU's NUMA node (sysfs; -1 = none reported)
  std::optional<std::string> local_cpulist;   ///< CPUs local to the GPU (sysfs local_cpulist)
  std::optional<NvmlGpuInfo> nvml;            ///< NVML's record of this GPU, matched by UUID or bus id
  /// The device's peaks with their provenance (schema 1.5; gauge/core/peaks.hpp): theoretical at
  /// the maximum clocks, the datasheet's, and gauge-peaks' measured ones where cached.
  std::optional<peaks::DevicePeaks> peaks;
};

/// What the CUDA runtime says about this machine.
struct CudaInfo {
  std::optional<int> runtime_version;   ///< cudaRuntimeGetVersion, e.g. 13000 for 13.0
  std::optional<int> driver_version;    ///< cudaDriverGetVersion (highest CUDA the driver supports)
  int device_count = 0;                 ///< visible devices
  std::optional<std::string> error;     ///< why no device is usable (e.g. "no CUDA-capable device")
  std::vector<CudaDeviceInfo> devices;  ///< every visible device
};
}  // namespace env

/// The environment, captured once per report.
struct Environment {
  std::string gauge_version;            ///< gauge's version
  env::HostInfo host;                   ///< CPU, memory, NUMA, OS, container/WSL/VM
  env::CompilerInfo compiler;           ///< compiler of the translation unit that captured it
  /// Environment variables that change results (name → value, or null when unset).
  std::vector<std::pair<std::string, std::optional<std::string>>> environment_variables;
  env::CudaInfo cuda;                   ///< CUDA runtime, driver, devices (with NVML records)
  env::NvmlInfo nvml;                   ///< NVML loaded or not, driver version
  /// Tools, by name: "nvidia_smi" (the seed's --query-gpu line), "ncu", "nsys".
  std::vector<std::pair<std::string, env::ToolRecord>> tools;
  std::vector<Warning> warnings;        ///< warnings about the environment (governor, no GPU, …)
};

}  // namespace gauge
