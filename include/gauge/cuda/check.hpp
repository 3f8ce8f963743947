#pragma once
/// \file gauge/cuda/check.hpp
/// Error checking for CUDA runtime calls: a failing call throws gauge::CudaError naming the
/// call, the current device and `cudaGetErrorString`.

#include <cuda_runtime.h>

#include <string>

#include "gauge/core/error.hpp"

namespace gauge::detail {

/// Throws CudaError for `code` unless it is cudaSuccess. `call` is the call's source text.
/// Clears the (non-sticky) error state so later calls are not blamed for this one.
inline void cuda_check(cudaError_t code, const char* call) {
  if (code == cudaSuccess) return;
  int device = -1;
  if (cudaGetDevice(&device) != cudaSuccess) device = -1;
  (void)cudaGetLastError();
  throw CudaError(call, device, static_cast<int>(code), cudaGetErrorString(code));
}

}  // namespace gauge::detail

/// Evaluates a CUDA runtime call and throws gauge::CudaError (call text, device, error string)
/// when it does not return cudaSuccess.
#define GAUGE_CUDA_CHECK(call) ::gauge::detail::cuda_check((call), #call)
