#pragma once
// STREAM-style kernels for examples/sweep.cu and bench/bench_sweep.cu: copy (b = a) and triad
// (a = b + s·c) over n elements of T, with 16-byte vector accesses (float4, double2; other types
// element by element) in a grid-stride loop unrolled 4 times, so that enough loads are in flight to
// reach the memory's bandwidth. Arrays from cudaMalloc (256-byte aligned).

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstddef>

/// The 16-byte vector of T, and how many T it holds (1: T itself, no vector).
template <class T> struct Vec16 { using type = T; static constexpr int lanes = 1; };
template <> struct Vec16<float> { using type = float4; static constexpr int lanes = 4; };
template <> struct Vec16<double> { using type = double2; static constexpr int lanes = 2; };

template <class T> __device__ __forceinline__ T triad_op(T b, T c, T s) { return b + s * c; }
__device__ __forceinline__ float4 triad_op(float4 b, float4 c, float s) {
  return make_float4(b.x + s * c.x, b.y + s * c.y, b.z + s * c.z, b.w + s * c.w);
}
__device__ __forceinline__ double2 triad_op(double2 b, double2 c, double s) {
  return make_double2(b.x + s * c.x, b.y + s * c.y);
}

template <class T>
__global__ void stream_copy(const T* __restrict__ a, T* __restrict__ b, std::size_t n) {
  using V = typename Vec16<T>::type;
  const std::size_t nv = n / Vec16<T>::lanes, stride = std::size_t(gridDim.x) * blockDim.x;
  const V* av = reinterpret_cast<const V*>(a);
  V* bv = reinterpret_cast<V*>(b);
  std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  for (; i + 3 * stride < nv; i += 4 * stride) {
    const V x0 = av[i], x1 = av[i + stride], x2 = av[i + 2 * stride], x3 = av[i + 3 * stride];
    bv[i] = x0, bv[i + stride] = x1, bv[i + 2 * stride] = x2, bv[i + 3 * stride] = x3;
  }
  for (; i < nv; i += stride) bv[i] = av[i];
  for (std::size_t j = nv * Vec16<T>::lanes + blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; j < n; j += stride) b[j] = a[j];
}

template <class T>
__global__ void stream_triad(T* __restrict__ a, const T* __restrict__ b, const T* __restrict__ c, T s, std::size_t n) {
  using V = typename Vec16<T>::type;
  const std::size_t nv = n / Vec16<T>::lanes, stride = std::size_t(gridDim.x) * blockDim.x;
  V* av = reinterpret_cast<V*>(a);
  const V* bv = reinterpret_cast<const V*>(b);
  const V* cv = reinterpret_cast<const V*>(c);
  std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  for (; i + 3 * stride < nv; i += 4 * stride) {
    const V b0 = bv[i], b1 = bv[i + stride], b2 = bv[i + 2 * stride], b3 = bv[i + 3 * stride];
    const V c0 = cv[i], c1 = cv[i + stride], c2 = cv[i + 2 * stride], c3 = cv[i + 3 * stride];
    av[i] = triad_op(b0, c0, s), av[i + stride] = triad_op(b1, c1, s);
    av[i + 2 * stride] = triad_op(b2, c2, s), av[i + 3 * stride] = triad_op(b3, c3, s);
  }
  for (; i < nv; i += stride) av[i] = triad_op(bv[i], cv[i], s);
  for (std::size_t j = nv * Vec16<T>::lanes + blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; j < n; j += stride)
    a[j] = triad_op(b[j], c[j], s);
}

/// Blocks for n elements at 256 threads per block: at most 8 per SM on 132 SMs (one full wave at
/// 2048 threads per SM; the loops stride over the rest).
inline unsigned stream_blocks(std::size_t n) {
  const std::size_t blocks = (n + 255) / 256;
  return static_cast<unsigned>(blocks < 132 * 8 ? (blocks ? blocks : 1) : 132 * 8);
}
