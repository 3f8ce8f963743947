// Compile-time benchmark, program C: one .cu file with one CUDA experiment and the report.
#define GAUGE_IMPLEMENTATION
#include <gauge/gauge.hpp>

#include <cstdio>

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int main(int argc, char** argv) {
  gauge::Report report(argc > 1 ? argv[1] : "saxpy-report.json");
  const int n = 1 << 24;
  float *x = nullptr, *y = nullptr;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  auto exp = gauge::Experiment("saxpy", [&](cudaStream_t s) { saxpy<<<(n + 255) / 256, 256, 0, s>>>(n, 2.0f, x, y); });
  exp.dimension("n", n).bytes(3.0 * n * sizeof(float)).flop(2.0 * n);
  report.add(exp.run());
  report.write();
  std::fputs(report.summary().c_str(), stdout);
  cudaFree(x);
  cudaFree(y);
}
