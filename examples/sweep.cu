// A sweep with gauge's suites: STREAM-style copy and triad over sizes 2^12 … 2^30 bytes × types,
// and a cuBLAS GEMM over sizes × dtypes, each point an Experiment in one report.
//
//   sweep [--list] [--filter REGEX] [--axis 'bytes=2^[20:30:2]'] [--device N|all] [--out FILE]
//         [--format console|markdown|csv|json] [--min-time S] [--max-time S] [--target-ci X]
//         [--cold] [--graph] [--profile] [--quiet] [--help] [--version]
//
// Exit status: 0 every point ran (or was skipped), 1 a point failed, 2 bad usage. The whole
// command line is gauge's runner (GAUGE_MAIN): see docs/suite.md.

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#define GAUGE_IMPLEMENTATION  // this file compiles gauge's implementation and the runner (once per program)
#include <gauge/suite.hpp>

#include "sweep_kernels.cuh"

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

/// `count` device buffers of `bytes` each, freed at scope exit; a point that does not fit skips.
struct Buffers {
  void* p[3] = {nullptr, nullptr, nullptr};
  int count = 0;
  Buffers(int n, std::size_t bytes) : count(n) {
    for (int i = 0; i < n; ++i) check(cudaMalloc(&p[i], bytes), "cudaMalloc");
    for (int i = 0; i < n; ++i) check(cudaMemset(p[i], 0, bytes), "cudaMemset");
  }
  ~Buffers() {
    for (int i = 0; i < count; ++i) cudaFree(p[i]);
  }
  template <class T>
  T* get(int i) const { return static_cast<T*>(p[i]); }
};

/// Skips the point when `arrays` buffers of `bytes` would not fit in free device memory.
bool fits(gauge::Point& p, int arrays, std::size_t bytes) {
  std::size_t free_bytes = 0, total = 0;
  check(cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo");
  if (arrays * bytes + (256u << 20) > free_bytes) {
    p.skip(std::to_string(arrays) + " arrays of " + std::to_string(bytes) + " bytes do not fit in " +
           std::to_string(free_bytes) + " free bytes");
    return false;
  }
  return true;
}

/// copy: b = a, over `bytes` bytes per array (2 × bytes moved per step).
template <class T>
void copy(gauge::Point& p) {
  const auto bytes = static_cast<std::size_t>(p.get_int64("bytes"));
  if (!fits(p, 2, bytes)) return;
  const std::size_t n = bytes / sizeof(T);
  Buffers buf(2, bytes);
  const T* a = buf.get<T>(0);
  T* b = buf.get<T>(1);
  p.bytes(2.0 * static_cast<double>(n * sizeof(T)));
  p.run([=](cudaStream_t s) { stream_copy<T><<<stream_blocks<T>(n), 256, 0, s>>>(a, b, n); });
}

/// triad: a = b + s·c, over `bytes` bytes per array (3 × bytes moved per step).
template <class T>
void triad(gauge::Point& p) {
  const auto bytes = static_cast<std::size_t>(p.get_int64("bytes"));
  if (!fits(p, 3, bytes)) return;
  const std::size_t n = bytes / sizeof(T);
  Buffers buf(3, bytes);
  T* a = buf.get<T>(0);
  const T* b = buf.get<T>(1);
  const T* c = buf.get<T>(2);
  p.bytes(3.0 * static_cast<double>(n * sizeof(T)));
  p.run([=](cudaStream_t s) { stream_triad<T><<<stream_blocks<T>(n), 256, 0, s>>>(a, b, c, T(2), n); });
}

/// A cuBLAS GEMM, C (N×N) = A·B, fp32 accumulation, 2·N³ FLOP per step.
void gemm(gauge::Point& p) {
  const int n = static_cast<int>(p.get_int64("N"));
  const std::string& dtype = p.get_string("dtype");
  const cudaDataType t = dtype == "fp32" ? CUDA_R_32F : dtype == "fp16" ? CUDA_R_16F : CUDA_R_16BF;
  const std::size_t element = dtype == "fp32" ? 4 : 2;
  const std::size_t bytes = std::size_t(n) * n * element;
  if (!fits(p, 3, bytes)) return;
  Buffers buf(3, bytes);
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasCreate failed");
  struct Destroy {
    cublasHandle_t h;
    ~Destroy() { cublasDestroy(h); }
  } destroy{handle};
  const float alpha = 1, beta = 0;
  void *a = buf.p[0], *b = buf.p[1], *c = buf.p[2];
  p.flop(2.0 * n * double(n) * n);
  p.run([=](cudaStream_t s) {
    cublasSetStream(handle, s);
    const cublasStatus_t st = cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a, t, n, b, t, n, &beta, c,
                                           t, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    if (st != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasGemmEx failed: " + std::to_string(int(st)));
  });
}

}  // namespace

GAUGE_BENCHMARK_TEMPLATE(copy, "T", float, double).int64_axis("bytes", gauge::pow2(12, 30));
GAUGE_BENCHMARK_TEMPLATE(triad, "T", float, double).int64_axis("bytes", gauge::pow2(12, 30));
GAUGE_BENCHMARK(gemm).int64_axis("N", gauge::pow2(10, 13)).string_axis("dtype", {"fp32", "fp16", "bf16"});

GAUGE_MAIN()
