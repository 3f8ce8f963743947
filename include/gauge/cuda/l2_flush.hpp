#pragma once
/// \file gauge/cuda/l2_flush.hpp
/// Cold-cache support: overwrite a buffer of at least twice the L2 size before a step, so the
/// step finds none of its data in L2; reset persisting-L2 lines. The buffer is allocated once.

#include <cuda_runtime.h>

#include <cstddef>

#include "gauge/cuda/check.hpp"

namespace gauge {

/// A device buffer of 2 × the L2 size of the current device; `flush(stream)` enqueues a
/// cudaMemsetAsync over it (no kernel, so it also works in host-compiled code).
class L2Flush {
 public:
  L2Flush() = default;
  L2Flush(const L2Flush&) = delete;
  L2Flush& operator=(const L2Flush&) = delete;
  ~L2Flush() {
    if (buffer_) (void)cudaFree(buffer_);
  }

  /// Allocates the buffer for the current device (once). Throws CudaError.
  void prepare() {
    if (buffer_) return;
    int device = 0;
    GAUGE_CUDA_CHECK(cudaGetDevice(&device));
    int l2 = 0;
    GAUGE_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    bytes_ = 2 * static_cast<std::size_t>(l2 > 0 ? l2 : (64 << 20));
    GAUGE_CUDA_CHECK(cudaMalloc(&buffer_, bytes_));
  }

  /// Enqueues the flush on `stream`. Alternates the byte written so no write is elided.
  void flush(cudaStream_t stream) {
    prepare();
    value_ ^= 0x5a;
    GAUGE_CUDA_CHECK(cudaMemsetAsync(buffer_, value_, bytes_, stream));
  }

  /// Resets all persisting L2 lines to normal (cudaCtxResetPersistingL2Cache). Throws CudaError.
  static void reset_persisting_lines() { GAUGE_CUDA_CHECK(cudaCtxResetPersistingL2Cache()); }

  /// Bytes overwritten by one flush.
  std::size_t bytes() const { return bytes_; }

 private:
  void* buffer_ = nullptr;
  std::size_t bytes_ = 0;
  int value_ = 0;
};

}  // namespace gauge
