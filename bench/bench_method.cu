// Benchmark of gauge's measurement method against ground truth (issue 3).
//
// Ground truth: a kernel that busy-waits T ns on %globaltimer and stamps its own start and end.
// For each T in {2, 10, 100, 1000} us it reports:
//   - span: the kernel's own end - start (median of 200 back-to-back launches behind a gate);
//   - floor: the back-to-back period (start[i+1] - start[i]), i.e. span + device launch gap;
//   - gauge: the median GPU time per step of 5 separate Experiment runs at the default
//     configuration, the spread of those 5 medians, and each run's wall time (time to result);
//   - naive: one event pair and a synchronize per call (200 calls), median.
// Plus a 1 GiB device-to-device copy: gauge's bandwidth vs the back-to-back rate of 20 copies.
//
//   bench_method [--out FILE.json] [--runs 5]

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#define GAUGE_IMPLEMENTATION  // this file compiles gauge's implementation (once per program)
#include <gauge/gauge.hpp>
// What this file uses beyond gauge.hpp (GAUGE_IMPLEMENTATION declares nothing in nvcc's device pass).
#include <gauge/env/environment.hpp>
#include <gauge/report/console.hpp>
#include <gauge/report/json.hpp>

#include "spin_kernel.cuh"

namespace {

using bench::ground_truth;
using bench::median;
using bench::spin_kernel;
using bench::Truth;

/// One event pair and a synchronize around every call.
double naive_event_pair(std::uint64_t ns) {
  cudaEvent_t a, b;
  GAUGE_CUDA_CHECK(cudaEventCreate(&a));
  GAUGE_CUDA_CHECK(cudaEventCreate(&b));
  std::vector<double> t;
  for (int i = 0; i < 210; ++i) {
    GAUGE_CUDA_CHECK(cudaEventRecord(a));
    spin_kernel<<<1, 32>>>(ns, nullptr, 0);
    GAUGE_CUDA_CHECK(cudaEventRecord(b));
    GAUGE_CUDA_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    GAUGE_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    if (i >= 10) t.push_back(ms * 1e-3);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return median(t);
}

}  // namespace

int main(int argc, char** argv) {
  std::string out = "bench_method.json";
  int runs = 5;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
    else if (!std::strcmp(argv[i], "--runs") && i + 1 < argc) runs = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: bench_method [--out FILE.json] [--runs N]\n");
      return 2;
    }
  }
  gauge::Report report(out);
  nlohmann::json rows = nlohmann::json::array();
  std::printf("%8s %10s %10s %12s %9s %9s %10s %6s %9s %10s\n", "T_us", "span_us", "floor_us", "gauge_us",
              "offset", "spread%", "wall_s", "k", "event_us", "naive_off");
  for (std::uint64_t T_us : {2, 10, 100, 1000}) {
    const std::uint64_t ns = T_us * 1000;
    std::vector<double> medians, walls;
    nlohmann::json per_run = nlohmann::json::array();
    for (int run = 0; run < runs; ++run) {
      auto exp = gauge::Experiment("spin_" + std::to_string(T_us) + "us",
                                   [=](cudaStream_t s) { spin_kernel<<<1, 32, 0, s>>>(ns, nullptr, 0); });
      exp.dimension("T_us", static_cast<std::int64_t>(T_us)).dimension("run", run);
      const auto t0 = std::chrono::steady_clock::now();
      auto r = exp.run();
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (r.status != gauge::Status::ok) {
        std::fprintf(stderr, "run failed: %s\n", r.error.value_or("?").c_str());
        return 1;
      }
      medians.push_back(*r.gpu_time.p50);
      walls.push_back(wall);
      per_run.push_back({{"median_s", *r.gpu_time.p50},
                         {"time_to_result_s", wall},
                         {"samples", r.gpu_time.n},
                         {"steps_per_sample", r.sampling.steps_per_sample},
                         {"event_overhead_s", r.sampling.event_overhead_s.value_or(-1)},
                         {"warmup_steps", r.warmup.steps},
                         {"warmup_time_s", r.warmup.time_s},
                         {"stopping", r.stopping.reason},
                         {"ci_relative_width", r.stopping.relative_ci_width.value_or(-1)},
                         {"sm_clock_mean_mhz", r.telemetry.sm_clock_mhz.mean.value_or(-1)},
                         {"warnings", r.warnings}});
      report.add(std::move(r));
    }
    const Truth truth = ground_truth(ns);
    const double naive = naive_event_pair(ns);
    const double med = median(medians);
    const double spread = (*std::max_element(medians.begin(), medians.end()) -
                           *std::min_element(medians.begin(), medians.end())) / med;
    const auto& last = report.results().back();
    std::printf("%8llu %10.3f %10.3f %12.4f %9.3f %9.4f %10.3f %6zu %9.3f %10.3f\n", (unsigned long long)T_us,
                truth.span_s * 1e6, truth.floor_s * 1e6, med * 1e6, (med - truth.span_s) * 1e6, 100 * spread,
                median(walls), last.sampling.steps_per_sample, last.sampling.event_overhead_s.value_or(-1) * 1e6,
                (naive - truth.span_s) * 1e6);
    rows.push_back({{"T_us", T_us},
                    {"span_s", truth.span_s},
                    {"floor_s", truth.floor_s},
                    {"gauge_median_s", med},
                    {"gauge_offset_s", med - truth.span_s},
                    {"gauge_spread_of_median", spread},
                    {"gauge_time_to_result_s", walls},
                    {"naive_event_pair_s", naive},
                    {"naive_offset_s", naive - truth.span_s},
                    {"runs", per_run}});
  }

  // 1 GiB device-to-device copy: bytes read + written = 2 GiB per step.
  const std::size_t bytes = std::size_t(1) << 30;
  void *src = nullptr, *dst = nullptr;
  GAUGE_CUDA_CHECK(cudaMalloc(&src, bytes));
  GAUGE_CUDA_CHECK(cudaMalloc(&dst, bytes));
  GAUGE_CUDA_CHECK(cudaMemset(src, 1, bytes));
  double b2b = 0;
  {
    cudaStream_t s;
    GAUGE_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaEvent_t a, b;
    GAUGE_CUDA_CHECK(cudaEventCreate(&a));
    GAUGE_CUDA_CHECK(cudaEventCreate(&b));
    std::vector<double> rates;
    for (int rep = 0; rep < 6; ++rep) {
      GAUGE_CUDA_CHECK(cudaEventRecord(a, s));
      for (int i = 0; i < 20; ++i) GAUGE_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s));
      GAUGE_CUDA_CHECK(cudaEventRecord(b, s));
      GAUGE_CUDA_CHECK(cudaEventSynchronize(b));
      float ms = 0;
      GAUGE_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
      if (rep > 0) rates.push_back(20.0 * 2 * bytes / (ms * 1e-3));
    }
    b2b = median(rates);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    cudaStreamDestroy(s);
  }
  std::vector<double> gauge_rates, copy_walls;
  for (int run = 0; run < runs; ++run) {
    auto exp = gauge::Experiment("copy_1GiB", [&](cudaStream_t s) {
      GAUGE_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s));
    });
    exp.bytes(2.0 * bytes).dimension("run", run);
    const auto t0 = std::chrono::steady_clock::now();
    auto r = exp.run();
    copy_walls.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    if (r.status != gauge::Status::ok) {
      std::fprintf(stderr, "copy run failed: %s\n", r.error.value_or("?").c_str());
      return 1;
    }
    gauge_rates.push_back(*r.gpu_throughput.bytes_per_second);
    report.add(std::move(r));
  }
  cudaFree(src);
  cudaFree(dst);
  const double gr = median(gauge_rates);
  std::printf("copy 1 GiB: gauge %.1f GB/s (median of %d runs), back-to-back %.1f GB/s, difference %.2f %%, time to result %.2f s\n",
              gr * 1e-9, runs, b2b * 1e-9, 100 * (gr - b2b) / b2b, median(copy_walls));
  report.write();
  nlohmann::json summary = {{"spin", rows},
                            {"copy_1GiB", {{"gauge_bytes_per_s", gauge_rates}, {"back_to_back_bytes_per_s", b2b},
                                           {"time_to_result_s", copy_walls}}}};
  const std::string sum_path = out + ".summary.json";
  gauge::detail::write_file_atomic(sum_path, summary.dump(2) + "\n");
  std::fputs(gauge::formats::environment_line(report.environment()).c_str(), stdout);
  return 0;
}
