#pragma once
/// \file gauge/env/cuda.hpp
/// CUDA part of the environment: runtime and driver versions and every visible device's
/// properties, from the CUDA runtime. Never throws: a missing driver or device is recorded.

#include <cuda_runtime.h>

#include <string>

#include "gauge/core/environment.hpp"
#include "gauge/core/peak_tables.hpp"
#include "gauge/cuda/check.hpp"
#include "gauge/cuda/device_attributes.hpp"

namespace gauge {

namespace detail {
/// Reads the CUDA runtime's view of the machine. Never throws; failures land in `error`.
inline env::CudaInfo detect_cuda() {
  env::CudaInfo info;
  int v = 0;
  if (cudaRuntimeGetVersion(&v) == cudaSuccess) info.runtime_version = v;
  if (cudaDriverGetVersion(&v) == cudaSuccess && v > 0) info.driver_version = v;
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    // Without a driver the runtime says "CUDA driver version is insufficient for CUDA runtime
    // version", which reads as an old driver: say that there is none, the runtime's words after.
    const bool no_driver = !info.driver_version && (e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice);
    info.error = no_driver ? std::string("no CUDA driver is installed (cudaDriverGetVersion reports none; "
                                         "cudaGetDeviceCount: ") + cudaGetErrorString(e) + ")"
                           : std::string("cudaGetDeviceCount: ") + cudaGetErrorString(e);
    (void)cudaGetLastError();
    return info;
  }
  info.device_count = count;
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, d) != cudaSuccess) {
      (void)cudaGetLastError();
      continue;
    }
    env::CudaDeviceInfo g;
    detail::set_device_identity(g, d, p);
    g.compute_capability_major = p.major;
    g.compute_capability_minor = p.minor;
    g.multiprocessors = p.multiProcessorCount;
    g.total_memory_bytes = p.totalGlobalMem;
    g.l2_cache_bytes = static_cast<std::uint64_t>(p.l2CacheSize);
    g.persisting_l2_max_bytes = static_cast<std::uint64_t>(p.persistingL2CacheMaxSize);
    g.shared_memory_per_block_optin_bytes = p.sharedMemPerBlockOptin;
    g.max_threads_per_multiprocessor = p.maxThreadsPerMultiProcessor;
    g.ecc_enabled = p.ECCEnabled != 0;
    g.integrated = p.integrated != 0;
    int a = 0;
    if (cudaDeviceGetAttribute(&a, cudaDevAttrClockRate, d) == cudaSuccess && a > 0) g.sm_clock_max_mhz = a / 1000.0;
    if (cudaDeviceGetAttribute(&a, cudaDevAttrMemoryClockRate, d) == cudaSuccess && a > 0) g.memory_clock_max_mhz = a / 1000.0;
    if (cudaDeviceGetAttribute(&a, cudaDevAttrGlobalMemoryBusWidth, d) == cudaSuccess && a > 0) g.memory_bus_width_bits = a;
    (void)cudaGetLastError();
    g.peaks = peaks::device_peaks(read_device_attributes(d)); // measured ones: Report adds them from the cache
    info.devices.push_back(g);
  }
  return info;
}
}  // namespace detail

}  // namespace gauge
