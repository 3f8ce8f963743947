// The suite runner on the H200 (issue 12), two checks in one run:
//  1. the triad sweep's bandwidth at >= 256 MiB per array against back-to-back rates measured in
//     the same process, `reps` launches between two events, repeated, median: the same triad
//     kernel (is gauge's number the kernel's?) and cudaMemcpyAsync device-to-device of the same
//     size (bytes moved = 2 × size: read + write; how close the triad kernel gets to a copy);
//  2. the runner's overhead: total wall time minus the sum of the points' own run time
//     (Result::total_time_s), over the whole triad sweep 2^12 … 2^30 bytes × {float, double}. The
//     arrays are allocated once, before the sweep, so a point's body does nothing but declare.
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

/// Three arrays of 1 GiB, allocated once (the largest point's size) and shared by every point.
void* arrays[3] = {nullptr, nullptr, nullptr};
constexpr std::size_t max_bytes = std::size_t(1) << 30;

template <class T>
void triad(gauge::Point& p) {
  const auto bytes = static_cast<std::size_t>(p.get_int64("bytes"));
  const std::size_t n = bytes / sizeof(T);
  T* a = static_cast<T*>(arrays[0]);
  const T* b = static_cast<const T*>(arrays[1]);
  const T* c = static_cast<const T*>(arrays[2]);
  p.bytes(3.0 * static_cast<double>(n * sizeof(T)));
  p.run([=](cudaStream_t s) { stream_triad<T><<<stream_blocks<T>(n), 256, 0, s>>>(a, b, c, T(2), n); });
}

/// The rate of `launch(stream)` run back to back on a new stream: `bytes_moved` per launch over
/// its time, the median over `pairs` event pairs of `reps` launches (after 5 untimed ones).
template <class Launch>
double back_to_back_rate(Launch launch, double bytes_moved, int reps = 20, int pairs = 15) {
  cudaStream_t s;
  cudaEvent_t e0, e1;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  check(cudaEventCreate(&e0), "cudaEventCreate");
  check(cudaEventCreate(&e1), "cudaEventCreate");
  for (int i = 0; i < 5; ++i) launch(s);  // warm-up
  std::vector<double> per;
  for (int p = 0; p < pairs; ++p) {
    check(cudaEventRecord(e0, s), "cudaEventRecord");
    for (int i = 0; i < reps; ++i) launch(s);
    check(cudaEventRecord(e1, s), "cudaEventRecord");
    check(cudaEventSynchronize(e1), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime");
    per.push_back(ms * 1e-3 / reps);
  }
  cudaEventDestroy(e0), cudaEventDestroy(e1), cudaStreamDestroy(s);
  std::sort(per.begin(), per.end());
  return bytes_moved / per[per.size() / 2];
}

/// The same triad kernel back to back: bytes per second (3 × bytes per launch).
template <class T>
double triad_rate(std::size_t bytes) {
  const std::size_t n = bytes / sizeof(T);
  T* a = static_cast<T*>(arrays[0]);
  const T* b = static_cast<const T*>(arrays[1]);
  const T* c = static_cast<const T*>(arrays[2]);
  return back_to_back_rate([=](cudaStream_t s) { stream_triad<T><<<stream_blocks<T>(n), 256, 0, s>>>(a, b, c, T(2), n); },
                           3.0 * static_cast<double>(bytes));
}

/// The STREAM copy kernel (b = a) back to back: bytes per second (2 × bytes per launch: read + write).
template <class T>
double copy_kernel_rate(std::size_t bytes) {
  const std::size_t n = bytes / sizeof(T);
  const T* a = static_cast<const T*>(arrays[1]);
  T* b = static_cast<T*>(arrays[0]);
  return back_to_back_rate([=](cudaStream_t s) { stream_copy<T><<<stream_blocks<T>(n), 256, 0, s>>>(a, b, n); },
                           2.0 * static_cast<double>(bytes));
}

/// cudaMemcpyAsync device-to-device of `bytes` back to back: bytes per second (2 × bytes per copy).
double memcpy_rate(std::size_t bytes) {
  void *src, *dst;
  check(cudaMalloc(&src, bytes), "cudaMalloc");
  check(cudaMalloc(&dst, bytes), "cudaMalloc");
  check(cudaMemset(src, 1, bytes), "cudaMemset");
  const double rate = back_to_back_rate(
      [=](cudaStream_t s) { check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync"); },
      2.0 * static_cast<double>(bytes));
  cudaFree(src), cudaFree(dst);
  return rate;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string out = argc > 1 ? argv[1] : "bench-sweep.json";
  gauge::suite::Registry registry;
  gauge::suite::register_benchmark_types<float, double>(registry, "triad", "T", {"float", "double"},
                                                 [](auto t, gauge::Point& p) { triad<typename decltype(t)::type>(p); })
      .int64_axis("bytes", gauge::pow2(12, 30));
  for (void*& p : arrays) {
    check(cudaMalloc(&p, max_bytes), "cudaMalloc");
    check(cudaMemset(p, 0, max_bytes), "cudaMemset");
  }
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  gauge::suite::RunOptions o;
  o.out = out;
  o.quiet = false;
  const auto points = gauge::suite::plan_points(registry, o);
  const gauge::suite::SuiteSummary s = gauge::suite::run_suite(points, o);

  const auto report = gauge::read_report(out);
  std::printf("\n== triad bandwidth: gauge vs the same kernel back to back, and vs cudaMemcpyAsync D2D back to back "
              "(same run; GB/s = 1e9 B/s)\n");
  std::printf("%-8s %12s %12s %18s %8s %10s %17s %8s %10s %14s %8s %10s\n", "T", "bytes", "gauge GB/s", "triad b2b GB/s",
              "ratio", "within 2 %", "copy kernel GB/s", "ratio", "within 2 %", "memcpy GB/s", "ratio", "within 2 %");
  for (const auto& r : report.results) {
    const auto bytes = std::get<std::int64_t>(r.dimensions.at("bytes"));
    if (bytes < (256ll << 20) || !r.gpu_throughput.bytes_per_second) continue;
    const std::string& t = std::get<std::string>(r.dimensions.at("T"));
    const double gauge_rate = *r.gpu_throughput.bytes_per_second;
    const double same_kernel = t == "float" ? triad_rate<float>(static_cast<std::size_t>(bytes))
                                            : triad_rate<double>(static_cast<std::size_t>(bytes));
    const double copy_kernel = t == "float" ? copy_kernel_rate<float>(static_cast<std::size_t>(bytes))
                                            : copy_kernel_rate<double>(static_cast<std::size_t>(bytes));
    const double copy_rate = memcpy_rate(static_cast<std::size_t>(bytes));
    const double r1 = gauge_rate / same_kernel, r3 = gauge_rate / copy_kernel, r2 = gauge_rate / copy_rate;
    auto within = [](double r) { return r >= 0.98 && r <= 1.02 ? "yes" : "NO"; };
    std::printf("%-8s %12lld %12.1f %18.1f %8.4f %10s %17.1f %8.4f %10s %14.1f %8.4f %10s\n", t.c_str(),
                static_cast<long long>(bytes), gauge_rate / 1e9, same_kernel / 1e9, r1, within(r1), copy_kernel / 1e9, r3,
                within(r3), copy_rate / 1e9, r2, within(r2));
  }
  const double overhead = s.wall_time_s - s.points_time_s;
  std::printf("\n== runner overhead\npoints %zu (ok %zu, failed %zu, skipped %zu)\nwall %.3f s, points' own run time %.3f s, "
              "runner %.3f s = %.2f %% (target <= 5 %%)\n",
              s.points, s.ok, s.failed, s.skipped, s.wall_time_s, s.points_time_s, overhead,
              100 * overhead / s.wall_time_s);
  return s.exit_code;
}
