#pragma once
/// \file gauge/cuda/jit.hpp
/// Did the driver have to JIT-compile a kernel from PTX? (seed: "if the binary ships portable PTX
/// instead of architecture-exact machine code, the driver compiles it to native instructions on
/// first use, which is slow").

#include <cuda_runtime.h>

#include <string>

#include "gauge/core/telemetry.hpp"
#include "gauge/cuda/check.hpp"

namespace gauge::backend_parts {

/// Reads `func`'s binary and PTX versions (cudaFuncGetAttributes) and compares them with
/// `device`'s compute capability. Heuristic: the kernel was JIT-compiled when the PTX it came
/// from targets an older major architecture than the device (a cubin is only compatible within
/// one major architecture, so such code cannot have shipped as native machine code, except for
/// the rare `-gencode arch=compute_8x,code=sm_90` build, which this misreads as JIT).
/// Throws CudaError if the attributes cannot be read.
inline records::KernelBinaryRecord kernel_binary(const void* func, const std::string& name, int device) {
  cudaFuncAttributes attr{};
  GAUGE_CUDA_CHECK(cudaFuncGetAttributes(&attr, func));
  int major = 0, minor = 0;
  GAUGE_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  GAUGE_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  records::KernelBinaryRecord k;
  k.name = name;
  k.binary_version = attr.binaryVersion;
  k.ptx_version = attr.ptxVersion;
  k.device_version = major * 10 + minor;
  k.jit_compiled = attr.ptxVersion > 0 && attr.ptxVersion / 10 < major;
  return k;
}

}  // namespace gauge::backend_parts
