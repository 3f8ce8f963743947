// The suite runner on the H200 (issue 12), two checks in one run:
//  1. the triad sweep's bandwidth at >= 256 MiB per array against a back-to-back copy rate
//     measured in the same process: cudaMemcpyAsync device-to-device of the same size, `reps`
//     copies between two events, repeated, median (bytes moved = 2 × size: read + write);
//  2. the runner's overhead: total wall time minus the sum of the points' own run time
//     (Result::total_time_s), over the whole triad sweep 2^12 … 2^30 bytes × {float, double}.
//
//   bench_sweep [REPORT.json]      (default bench-sweep.json)
//
// Prints both tables; docs/benchmarks.md has the H200's numbers.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#define GAUGE_IMPLEMENTATION
#include <gauge/suite.hpp>
#include <gauge/report/read.hpp>  // nvcc's device pass skips the implementation: include what main() calls

#include "../examples/sweep_kernels.cuh"

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

template <class T>
void triad(gauge::Point& p) {
  const auto bytes = static_cast<std::size_t>(p.get_int64("bytes"));
  const std::size_t n = bytes / sizeof(T);
  T *a, *b, *c;
  check(cudaMalloc(&a, bytes), "cudaMalloc");
  check(cudaMalloc(&b, bytes), "cudaMalloc");
  check(cudaMalloc(&c, bytes), "cudaMalloc");
  cudaMemset(a, 0, bytes), cudaMemset(b, 0, bytes), cudaMemset(c, 0, bytes);
  p.bytes(3.0 * static_cast<double>(n * sizeof(T)));
  try {
    p.run([=](cudaStream_t s) { stream_triad<T><<<stream_blocks(n), 256, 0, s>>>(a, b, c, T(2), n); });
  } catch (...) {
    cudaFree(a), cudaFree(b), cudaFree(c);
    throw;
  }
  cudaFree(a), cudaFree(b), cudaFree(c);
}

/// Back-to-back device-to-device copies of `bytes`: median over `pairs` event pairs of `reps`
/// copies each; bytes per second counting read + write (2 × bytes per copy).
double memcpy_rate(std::size_t bytes, int reps = 20, int pairs = 15) {
  void *src, *dst;
  check(cudaMalloc(&src, bytes), "cudaMalloc");
  check(cudaMalloc(&dst, bytes), "cudaMalloc");
  check(cudaMemset(src, 1, bytes), "cudaMemset");
  cudaStream_t s;
  check(cudaStreamCreate(&s), "cudaStreamCreate");
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0), cudaEventCreate(&e1);
  for (int i = 0; i < 5; ++i) cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s);  // warm-up
  std::vector<double> per_copy;
  for (int k = 0; k < pairs; ++k) {
    cudaEventRecord(e0, s);
    for (int i = 0; i < reps; ++i) cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s);
    cudaEventRecord(e1, s);
    check(cudaEventSynchronize(e1), "cudaEventSynchronize");
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    per_copy.push_back(ms * 1e-3 / reps);
  }
  std::sort(per_copy.begin(), per_copy.end());
  cudaEventDestroy(e0), cudaEventDestroy(e1), cudaStreamDestroy(s), cudaFree(src), cudaFree(dst);
  return 2.0 * static_cast<double>(bytes) / per_copy[per_copy.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const std::string out = argc > 1 ? argv[1] : "bench-sweep.json";
  gauge::Registry registry;
  gauge::register_benchmark_types<float, double>(registry, "triad", "T", {"float", "double"},
                                                 [](auto t, gauge::Point& p) { triad<typename decltype(t)::type>(p); })
      .int64_axis("bytes", gauge::pow2(12, 30));
  gauge::RunOptions o;
  o.out = out;
  o.quiet = false;
  const auto points = gauge::plan_points(registry, o);
  const gauge::SuiteSummary s = gauge::run_suite(points, o);

  const auto report = gauge::read_report(out);
  std::printf("\n== triad bandwidth vs back-to-back cudaMemcpyAsync D2D (same run; GB/s = 1e9 B/s)\n");
  std::printf("%-8s %12s %14s %14s %8s %s\n", "T", "bytes", "triad GB/s", "memcpy GB/s", "ratio", "within 2 %");
  for (const auto& r : report.results) {
    const auto bytes = std::get<std::int64_t>(r.dimensions.at("bytes"));
    if (bytes < (256ll << 20) || !r.gpu_throughput.bytes_per_second) continue;
    const double triad_rate = *r.gpu_throughput.bytes_per_second;
    const double copy_rate = memcpy_rate(static_cast<std::size_t>(bytes));
    const double ratio = triad_rate / copy_rate;
    std::printf("%-8s %12lld %14.1f %14.1f %8.4f %s\n", std::get<std::string>(r.dimensions.at("T")).c_str(),
                static_cast<long long>(bytes), triad_rate / 1e9, copy_rate / 1e9, ratio,
                ratio >= 0.98 && ratio <= 1.02 ? "yes" : "NO");
  }
  const double overhead = s.wall_time_s - s.points_time_s;
  std::printf("\n== runner overhead\npoints %zu (ok %zu, failed %zu, skipped %zu)\nwall %.3f s, points' own run time %.3f s, "
              "runner %.3f s = %.2f %% (target <= 5 %%)\n",
              s.points, s.ok, s.failed, s.skipped, s.wall_time_s, s.points_time_s, overhead,
              100 * overhead / s.wall_time_s);
  return s.exit_code;
}
