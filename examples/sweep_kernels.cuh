#pragma once
// STREAM-style kernels for examples/sweep.cu and bench/bench_sweep.cu: copy (b = a) and triad
// (a = b + s·c), grid-stride loops over n elements of T.

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstddef>

template <class T>
__global__ void stream_copy(const T* __restrict__ a, T* __restrict__ b, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    b[i] = a[i];
}

template <class T>
__global__ void stream_triad(T* __restrict__ a, const T* __restrict__ b, const T* __restrict__ c, T s, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    a[i] = b[i] + s * c[i];
}

/// Blocks for n elements at 256 threads per block, at most 4 waves of 132 SMs × 8 blocks.
inline unsigned stream_blocks(std::size_t n) {
  const std::size_t blocks = (n + 255) / 256;
  return static_cast<unsigned>(blocks < 132 * 8 * 4 ? (blocks ? blocks : 1) : 132 * 8 * 4);
}
