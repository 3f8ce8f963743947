// Kernel tracing against ground truth (issue 14).
//
// The spin kernel of bench/spin_kernel.cuh busy-waits T ns and stamps its own start and end on
// %globaltimer. For each T in {2, 10, 100, 1000} us:
//   - span: the kernel's own stamped end - start (median of 200 back-to-back launches), and the
//     floor (its back-to-back period from the stamps);
//   - traced: the kernel's median duration from gauge's kernel trace (CUPTI activity records),
//     and traced - span (the target: within 0.05 us);
//   - the step's period (gauge's median GPU time per step, events) beside the period on CUPTI's
//     clock, busy fraction and gaps, and how well kernels + gaps add up to the period;
//   - the tracing overhead: the traced round's period against an untraced round of the same size
//     just before it (KernelTraceRecord::tracing_overhead), and gauge's median in a run before
//     any tracing against one after (does CUPTI, once attached, slow the untraced runs?).
//
//   bench_kernels [--out FILE.json] [--runs N]    (N traced runs per T, default 3)
//   bench_kernels --launch-only                   (5 spin kernels per T, nothing else: for ncu's
//                                                  gpu__time_duration, a second measure of the duration)

#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#define GAUGE_IMPLEMENTATION  // this file compiles gauge's implementation (once per program)
#include <gauge/gauge.hpp>
// What this file uses beyond gauge.hpp (GAUGE_IMPLEMENTATION declares nothing in nvcc's device pass).
#include <gauge/report/console.hpp>
#include <gauge/report/json.hpp>

#include "spin_kernel.cuh"

namespace {

gauge::Result spin_run(std::uint64_t T_us, bool trace, const char* phase) {
  const std::uint64_t ns = T_us * 1000;
  auto exp = gauge::Experiment("spin_" + std::to_string(T_us) + "us",
                               [=](cudaStream_t s) { bench::spin_kernel<<<1, 32, 0, s>>>(ns, nullptr, 0); });
  exp.dimension("T_us", static_cast<std::int64_t>(T_us)).dimension("phase", std::string(phase));
  exp.trace_kernels(trace);
  auto r = exp.run();
  if (r.status != gauge::Status::ok) {
    std::fprintf(stderr, "bench_kernels: %s failed: %s\n", r.name.c_str(), r.error.value_or("?").c_str());
    std::exit(1);
  }
  return r;
}

const gauge::records::TracedKernel* spin_of(const gauge::records::KernelTraceRecord& t) {
  for (const auto& k : t.kernels)
    if (k.name.find("spin_kernel") != std::string::npos) return &k;
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out = "bench_kernels.json";
  int runs = 3;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--launch-only")) {
      std::uint64_t* stamps = nullptr;
      GAUGE_CUDA_CHECK(cudaMalloc(&stamps, 2 * sizeof(std::uint64_t)));
      for (std::uint64_t T_us : {2, 10, 100, 1000})
        for (int r = 0; r < 5; ++r) {
          bench::spin_kernel<<<1, 32>>>(T_us * 1000, stamps, 0);
          GAUGE_CUDA_CHECK(cudaDeviceSynchronize());
          std::uint64_t h[2];
          GAUGE_CUDA_CHECK(cudaMemcpy(h, stamps, sizeof h, cudaMemcpyDeviceToHost));
          std::printf("launch-only T = %llu us: stamped span %.4f us\n", (unsigned long long)T_us, double(h[1] - h[0]) * 1e-3);
        }
      cudaFree(stamps);
      return 0;
    }
    if (!std::strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
    else if (!std::strcmp(argv[i], "--runs") && i + 1 < argc) runs = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: bench_kernels [--out FILE.json] [--runs N]\n");
      return 2;
    }
  }
  if (runs < 1) {
    std::fprintf(stderr, "bench_kernels: --runs must be >= 1\n");
    return 2;
  }
  gauge::Report report(out + ".report.json");
  nlohmann::json rows = nlohmann::json::array();
  std::printf("| T (us) | span (us) | traced median (us) | traced - span (us) | within 0.05 us | period, events (us) | "
              "period, CUPTI (us) | floor (us) | busy | kernels + gaps / period | tracing overhead | untraced before (us) | "
              "untraced after (us) |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  bool all_within = true;
  for (std::uint64_t T_us : {2, 10, 100, 1000}) {
    const auto before = spin_run(T_us, false, "untraced before");
    std::vector<gauge::Result> traced;
    for (int i = 0; i < runs; ++i) traced.push_back(spin_run(T_us, true, "traced"));
    const auto after = spin_run(T_us, false, "untraced after");
    const bench::Truth truth = bench::ground_truth(T_us * 1000);
    nlohmann::json per_run = nlohmann::json::array();
    for (const auto& r : traced) {
      const auto& t = r.kernel_trace.value();
      const gauge::records::TracedKernel* k = spin_of(t);
      if (t.status != "traced" || !k) {
        std::fprintf(stderr, "bench_kernels: T = %llu us not traced: %s %s\n", (unsigned long long)T_us, t.status.c_str(),
                     t.reason.c_str());
        return 1;
      }
      const double diff = *k->median_s - truth.span_s;
      const bool within = std::abs(diff) <= 0.05e-6;
      all_within = all_within && within;
      std::printf("| %llu | %.4f | %.4f | %+.4f | %s | %.4f | %.4f | %.4f | %.2f %% | %.2f %% | %+.3f %% | %.4f | %.4f |\n",
                  (unsigned long long)T_us, truth.span_s * 1e6, *k->median_s * 1e6, diff * 1e6, within ? "yes" : "NO",
                  r.gpu_time.p50.value_or(0) * 1e6, t.device_period_s.value_or(0) * 1e6, truth.floor_s * 1e6,
                  100 * t.busy_fraction.value_or(0), 100 * (1 + t.closure.value_or(-1)), 100 * t.tracing_overhead.value_or(0),
                  before.gpu_time.p50.value_or(0) * 1e6, after.gpu_time.p50.value_or(0) * 1e6);
      per_run.push_back({{"traced_median_s", *k->median_s},
                         {"traced_p99_s", k->p99_s.value_or(0)},
                         {"launches_per_step", k->launches_per_step},
                         {"traced_minus_span_s", diff},
                         {"period_events_s", r.gpu_time.p50.value_or(0)},
                         {"kernel_trace", t}});
    }
    rows.push_back({{"T_us", T_us},
                    {"span_s", truth.span_s},
                    {"floor_s", truth.floor_s},
                    {"untraced_before_s", before.gpu_time.p50.value_or(0)},
                    {"untraced_after_s", after.gpu_time.p50.value_or(0)},
                    {"runs", per_run}});
    report.add(before);
    for (auto& r : traced) report.add(std::move(r));
    report.add(after);
  }
  std::printf("\nevery traced median within 0.05 us of the stamped span: %s\n", all_within ? "yes" : "NO");
  std::fputs(gauge::formats::kernel_table({report.results().back()}).c_str(), stdout);
  std::ofstream(out) << nlohmann::json{{"rows", rows}}.dump(2) << "\n";
  report.write();
  return all_within ? 0 : 3;
}
