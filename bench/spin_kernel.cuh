#pragma once
// The ground-truth kernel of gauge's benchmarks (bench_method, bench_streams, bench_kernels): it
// busy-waits T ns on %globaltimer (the device's nanosecond clock, PTX ISA "Special Registers:
// %globaltimer") and stamps its own start and end, so its span is known without events.

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include <gauge/cuda/check.hpp>
#include <gauge/cuda/gate.hpp>

namespace bench {

__device__ __forceinline__ std::uint64_t globaltimer() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/// Spins `ns` nanoseconds; with `stamps`, thread 0 writes its start to stamps[2 slot] and its end
/// to stamps[2 slot + 1] (ns on %globaltimer).
__global__ void spin_kernel(std::uint64_t ns, std::uint64_t* stamps, int slot) {
  const std::uint64_t start = globaltimer();
  std::uint64_t now = start;
  while (now - start < ns) now = globaltimer();
  if (stamps && threadIdx.x == 0) {
    stamps[2 * slot] = start;
    stamps[2 * slot + 1] = now;
  }
}

/// Spins `cycles` SM clock cycles (%clock64): no timer tick in its length, so two such kernels
/// differ by exactly their cycle difference over the SM clock (the clock probe reads it).
__global__ void spin_cycles_kernel(std::uint64_t cycles) {
  const long long start = clock64();
  while (static_cast<std::uint64_t>(clock64() - start) < cycles) {
  }
}

/// Median (mean of the two middle values for even n); 0 for no values.
inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// The stamped truth of 200 spin kernels of `ns` queued behind gauge's launch gate on `s`, so
/// they run back to back: the median span (end − start) and the median period (start[i+1] −
/// start[i]: span + the device's launch gap), seconds, and the mean span (the stamps tick in
/// steps of the timer's update period, so a median is one of those steps; the mean over kernels
/// started at random phases of the tick is not). `stamps` holds 400 values.
struct Truth {
  double span_s = 0, floor_s = 0, span_mean_s = 0;
};
inline Truth stamped_truth(cudaStream_t s, std::uint64_t ns, std::uint64_t* stamps, gauge::backend_parts::LaunchGate& gate) {
  const int n = 200;
  gate.close(s, std::chrono::seconds(1));
  for (int i = 0; i < n; ++i) spin_kernel<<<1, 32, 0, s>>>(ns, stamps, i);
  gate.open();
  GAUGE_CUDA_CHECK(cudaStreamSynchronize(s));
  std::vector<std::uint64_t> h(2 * n);
  GAUGE_CUDA_CHECK(cudaMemcpy(h.data(), stamps, h.size() * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
  std::vector<double> spans, periods;
  for (int i = 0; i < n; ++i) spans.push_back(double(h[2 * i + 1] - h[2 * i]) * 1e-9);
  for (int i = 0; i + 1 < n; ++i) periods.push_back(double(h[2 * (i + 1)] - h[2 * i]) * 1e-9);
  double sum = 0;
  for (double x : spans) sum += x;
  return {median(spans), median(periods), sum / static_cast<double>(spans.size())};
}

/// stamped_truth on a new non-blocking stream, after one repetition that warms up.
inline Truth ground_truth(std::uint64_t ns) {
  std::uint64_t* stamps = nullptr;
  GAUGE_CUDA_CHECK(cudaMalloc(&stamps, 400 * sizeof(std::uint64_t)));
  cudaStream_t s;
  GAUGE_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  gauge::backend_parts::LaunchGate gate;
  stamped_truth(s, ns, stamps, gate);
  const Truth t = stamped_truth(s, ns, stamps, gate);
  cudaFree(stamps);
  cudaStreamDestroy(s);
  return t;
}

}  // namespace bench
