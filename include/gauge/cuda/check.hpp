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

/// A CUDA device UUID in nvidia-smi's spelling: "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx".
inline std::string uuid_string(const cudaUUID_t& u) {
  static const char* hex = "0123456789abcdef";
  std::string s = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    auto b = static_cast<unsigned char>(u.bytes[i]);
    s += hex[b >> 4];
    s += hex[b & 15];
  }
  return s;
}

}  // namespace gauge::detail

/// Evaluates a CUDA runtime call and throws gauge::CudaError (call text, device, error string)
/// when it does not return cudaSuccess.
#define GAUGE_CUDA_CHECK(call) ::gauge::detail::cuda_check((call), #call)
