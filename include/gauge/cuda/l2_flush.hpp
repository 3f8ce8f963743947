#pragma once
/// \file gauge/cuda/l2_flush.hpp
/// Cold-cache support: before a step, push everything out of L2 so the step finds none of its
/// data there, and leave nothing in L2 that the step would pay for.
///
/// How (issue "Speed of light"): the flush *reads* a buffer of 2 × the L2 size with a kernel
/// (16-byte loads that bypass L1, `ld.global.cg`, folded into one word that is stored only when it
/// equals an impossible value, so no load is elided and nothing is written). Reading replaces every
/// line of L2 with a clean line of the buffer; a dirty line (the step's own output of the previous
/// step) is written back *during the flush*, outside the timed interval. A write flush (the old
/// cudaMemsetAsync over the buffer) left up to a whole L2 of dirty lines, whose write-back the next
/// step then paid: on the H200 a read-only step over 3/4 of the L2 read about 25 % slower after it
/// than after a flush that leaves no dirty lines (bench/bench_l2_flush.cu, docs/benchmarks.md).
/// Persisting lines (an access-policy window's set-aside) are reset with
/// cudaCtxResetPersistingL2Cache before every cold round (reset_persisting_lines).
///
/// The read kernel needs nvcc: in a translation unit compiled by a host compiler the flush falls
/// back to the memset (writes, so the next step pays for write-backs) and `method()` says so. The
/// type lives in the compile-mode namespace (gauge/detail/compile_mode.hpp), as the launch gate.

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "gauge/cuda/check.hpp"
#include "gauge/detail/compile_mode.hpp"

GAUGE_BEGIN_BACKEND_PARTS_COMPILE_MODE_NAMESPACE

namespace flush_kernels {
#if defined(__CUDACC__)
/// Reads `n` uint4 of `data` (grid-stride, L2 only) and stores their XOR to `*sink` only when it
/// equals `never` (which the caller chooses so that it cannot occur): loads kept, nothing written.
template <int = 0>  // a template: vague linkage, so two .cu files that include this header link
__global__ void read_flush_kernel(const uint4* __restrict__ data, std::size_t n, unsigned* sink, unsigned never) {
  unsigned acc = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const uint4 v = __ldcg(data + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == never) *sink = acc;
}
#endif
}  // namespace flush_kernels

/// A device buffer of 2 × the L2 size of the current device; `flush(stream)` reads it (nvcc) or
/// overwrites it (host compiler), see the file comment.
class L2Flush {
 public:
  /// True when the flush reads (this translation unit was compiled by nvcc).
#if defined(__CUDACC__)
  static constexpr bool reads = true;
#else
  static constexpr bool reads = false;
#endif

  L2Flush() = default;
  L2Flush(const L2Flush&) = delete;
  L2Flush& operator=(const L2Flush&) = delete;
  ~L2Flush() {
    if (buffer_) (void)cudaFree(buffer_);
  }

  /// Allocates the buffer for the current device (once) and fills it with zeros (so the XOR
  /// of any read is 0, never the sink's value 1). Throws CudaError.
  void prepare() {
    if (buffer_) return;
    int device = 0;
    GAUGE_CUDA_CHECK(cudaGetDevice(&device));
    int l2 = 0;
    GAUGE_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    int sms = 0;
    GAUGE_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    sms_ = sms > 0 ? sms : 1;
    l2_bytes_ = l2 > 0 ? static_cast<std::size_t>(l2) : 0;
    bytes_ = 2 * static_cast<std::size_t>(l2 > 0 ? l2 : (64 << 20));
    bytes_ = (bytes_ + 15) / 16 * 16;
    GAUGE_CUDA_CHECK(cudaMalloc(&buffer_, bytes_ + 16));  // + the sink word
    GAUGE_CUDA_CHECK(cudaMemset(buffer_, 0, bytes_ + 16));
    GAUGE_CUDA_CHECK(cudaDeviceSynchronize());
  }

  /// Enqueues the flush on `stream`: the read kernel (nvcc), else a memset that alternates the
  /// byte written so no write is elided. Throws CudaError.
  void flush(cudaStream_t stream) {
    prepare();
#if defined(__CUDACC__)
    auto* data = static_cast<const uint4*>(buffer_);
    auto* sink = reinterpret_cast<unsigned*>(static_cast<char*>(buffer_) + bytes_);
    flush_kernels::read_flush_kernel<0><<<4 * static_cast<unsigned>(sms_), 512, 0, stream>>>(data, bytes_ / 16, sink, 1u);
    GAUGE_CUDA_CHECK(cudaGetLastError());
#else
    value_ ^= 0x5a;
    GAUGE_CUDA_CHECK(cudaMemsetAsync(buffer_, value_, bytes_, stream));
#endif
  }

  /// Resets all persisting L2 lines to normal (cudaCtxResetPersistingL2Cache). Throws CudaError.
  static void reset_persisting_lines() { GAUGE_CUDA_CHECK(cudaCtxResetPersistingL2Cache()); }

  /// Bytes one flush reads (or overwrites); 0 before prepare().
  std::size_t bytes() const { return bytes_; }
  /// The device's L2 size the buffer was sized from, bytes (0: not reported, 64 MiB assumed).
  std::size_t l2_bytes() const { return l2_bytes_; }

  /// The flush with its numbers, for the report (`sampling.cache_flush.description`), e.g. "read
  /// of 100663296 bytes by ld.global.cg (16-byte loads that bypass L1), 2 x L2 size 50331648
  /// bytes: every line replaced by a clean one, no dirty lines left". Call after prepare().
  std::string description() const {
    const std::string size = std::to_string(bytes_) + " bytes";
    const std::string l2 = l2_bytes_ ? "2 x L2 size " + std::to_string(l2_bytes_) + " bytes"
                                     : "2 x 64 MiB (the device reports no L2 size)";
    return reads ? "read of " + size + " by ld.global.cg (16-byte loads that bypass L1), " + l2 +
                       ": every line replaced by a clean one, no dirty lines left"
                 : "cudaMemsetAsync of " + size + ", " + l2 +
                       ": writes (no nvcc for the read kernel), so dirty lines are written back during the next step";
  }

  /// How the flush works in this translation unit, in words (for reports and benchmarks).
  static const char* method() {
    return reads ? "read of 2 x L2 (ld.global.cg, no dirty lines left)"
                 : "cudaMemsetAsync of 2 x L2 (writes: dirty lines are written back during the next step)";
  }

 private:
  void* buffer_ = nullptr;
  std::size_t bytes_ = 0;
  std::size_t l2_bytes_ = 0;
  int sms_ = 1;
  int value_ = 0;
};

GAUGE_END_BACKEND_PARTS_COMPILE_MODE_NAMESPACE
