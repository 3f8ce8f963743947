// A kernel built as PTX only (CUDA_ARCHITECTURES 80-virtual): on an sm_90 device the driver must
// JIT-compile it. Used by the JIT test.
#include <cuda_runtime.h>

__global__ void gauge_test_ptx_only_kernel(float* x) {
  if (x) x[threadIdx.x] += 1.0f;
}

const void* gauge_test_ptx_kernel_address() { return reinterpret_cast<const void*>(&gauge_test_ptx_only_kernel); }

void gauge_test_launch_ptx_kernel(cudaStream_t s) { gauge_test_ptx_only_kernel<<<1, 32, 0, s>>>(nullptr); }
