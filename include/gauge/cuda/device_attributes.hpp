#pragma once
/// \file gauge/cuda/device_attributes.hpp
/// The attributes the device's peaks are computed from (gauge/core/peaks.hpp), read with
/// cudaDeviceGetAttribute: CUDA 13 removed cudaDeviceProp::clockRate and memoryClockRate, while
/// cudaDevAttrClockRate and cudaDevAttrMemoryClockRate (kHz) remain.

#include <cuda_runtime.h>

#include <cstdint>

#include "gauge/core/peaks.hpp"

namespace gauge {

namespace detail {
/// The peak-relevant attributes of CUDA device `device`. Never throws: an attribute the runtime
/// refuses stays empty (0 for the SM count and L2), and the error is cleared.
inline peaks::DeviceAttributes read_device_attributes(int device) {
  peaks::DeviceAttributes a;
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, device) == cudaSuccess) a.name = p.name;
  int v = 0;
  if (cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess) a.compute_capability_major = v;
  if (cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMinor, device) == cudaSuccess) a.compute_capability_minor = v;
  if (cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, device) == cudaSuccess) a.multiprocessors = v;
  if (cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, device) == cudaSuccess && v > 0) a.sm_clock_max_mhz = v / 1000.0;
  if (cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, device) == cudaSuccess && v > 0) a.memory_clock_max_mhz = v / 1000.0;
  if (cudaDeviceGetAttribute(&v, cudaDevAttrGlobalMemoryBusWidth, device) == cudaSuccess && v > 0) a.memory_bus_width_bits = v;
  if (cudaDeviceGetAttribute(&v, cudaDevAttrL2CacheSize, device) == cudaSuccess && v > 0) a.l2_cache_bytes = static_cast<std::uint64_t>(v);
  (void)cudaGetLastError();
  return a;
}
}  // namespace detail

}  // namespace gauge
