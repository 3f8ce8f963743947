#pragma once
// The ReLU kernels of the MLP in examples/training_loop.cu, shared with the workload of
// bench/bench_timer.cu (which times the same MLP-shaped step). bf16 activations, grid-stride loops.

#include <cuda_bf16.h>

#include <cstddef>

namespace mlp_kernels {

/// A = max(Z, 0), in place on x.
__global__ void relu(__nv_bfloat16* x, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    x[i] = __float2bfloat16(fmaxf(__bfloat162float(x[i]), 0.0f));
}

/// dZ = dA where A > 0, else 0 (in place on dA).
__global__ void relu_backward(__nv_bfloat16* da, const __nv_bfloat16* a, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    if (!(__bfloat162float(a[i]) > 0.0f)) da[i] = __float2bfloat16(0.0f);
}

}  // namespace mlp_kernels
