// The stream as a random effect (issue "Honest intervals"), on the H200.
//
// 1. The stream experiment: the back-to-back period of 200 spin kernels queued behind gauge's
//    launch gate (from the kernels' own %globaltimer stamps, median of start[i+1] − start[i]), on
//    one stream repeated 6 times, and on 12 new streams 3 times each, at 10 and 100 µs.
// 2. 20 separate Experiment::run() calls of the same spin kernel at 10 and 100 µs, each
//    configuration in turn: the default (the process's pool of 8 streams, the widened interval), a
//    pool of 32, a new stream per run (gauge before the pool: the interval of one stream's
//    samples), and the run-level suspects on the pool: a fixed k (steps_per_sample = 32), ungated
//    timing, and a cold cache (a new L2 flush buffer every run). For each: the medians' spread ((max − min) / median) and standard deviation,
//    the fraction of runs whose interval contains the median of the 20 medians, the median
//    interval width, and the median time to result (Experiment::run() wall time).
//
//   bench_streams [--runs 20] [--out FILE.json]

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#define GAUGE_IMPLEMENTATION  // this file compiles gauge's implementation (once per program)
#include <gauge/gauge.hpp>
// What this file uses beyond gauge.hpp (GAUGE_IMPLEMENTATION declares nothing in nvcc's device pass).
#include <gauge/cuda/gate.hpp>
#include <nlohmann/json.hpp>

#include <fstream>

#include "spin_kernel.cuh"

namespace {

using bench::median;
using bench::spin_kernel;

/// Back-to-back period (seconds) of 200 kernels behind the gate on `s` (stamps: 400 values).
double period_on(cudaStream_t s, std::uint64_t ns, std::uint64_t* stamps, gauge::backend_parts::LaunchGate& gate) {
  return bench::stamped_truth(s, ns, stamps, gate).floor_s;
}

struct Config {
  const char* name;
  std::size_t streams;  // 0 = a new stream per run, adopted as the caller's (gauge before the pool)
  std::size_t k;        // 0 = automatic
  bool ungated;
  bool cold;
};

}  // namespace

int main(int argc, char** argv) {
  int runs = 20;
  std::string out = "bench_streams.json";
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--runs") && i + 1 < argc) runs = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
    else {
      std::fprintf(stderr, "usage: bench_streams [--runs N] [--out FILE.json]\n");
      return 2;
    }
  }
  nlohmann::json doc;
  std::uint64_t* stamps = nullptr;
  GAUGE_CUDA_CHECK(cudaMalloc(&stamps, 400 * sizeof(std::uint64_t)));  // 200 launches, start and end
  gauge::backend_parts::LaunchGate gate;
  const std::uint64_t sizes[] = {10000, 100000};

  // 1. The stream experiment.
  std::printf("## The stream experiment: back-to-back period of 200 kernels behind the gate (us)\n\n");
  std::printf("| T | one stream, 6 repetitions | 12 new streams x 3: per-stream range of the 3 | across streams: min..max of per-stream medians |\n|---|---|---|---|\n");
  for (std::uint64_t ns : sizes) {
    cudaStream_t one;
    GAUGE_CUDA_CHECK(cudaStreamCreateWithFlags(&one, cudaStreamNonBlocking));
    period_on(one, ns, stamps, gate);  // warm
    std::vector<double> same;
    for (int r = 0; r < 6; ++r) same.push_back(period_on(one, ns, stamps, gate));
    cudaStreamDestroy(one);
    std::vector<double> per_stream;
    double worst_within = 0;
    nlohmann::json streams = nlohmann::json::array();
    for (int s = 0; s < 12; ++s) {
      cudaStream_t st;
      GAUGE_CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
      period_on(st, ns, stamps, gate);  // warm
      std::vector<double> reps;
      for (int r = 0; r < 3; ++r) reps.push_back(period_on(st, ns, stamps, gate));
      cudaStreamDestroy(st);
      worst_within = std::max(worst_within, *std::max_element(reps.begin(), reps.end()) - *std::min_element(reps.begin(), reps.end()));
      per_stream.push_back(median(reps));
      streams.push_back(reps);
    }
    std::printf("| %.0f us | %.3f..%.3f | at most %.3f | %.3f..%.3f |\n", ns * 1e-3,
                *std::min_element(same.begin(), same.end()) * 1e6, *std::max_element(same.begin(), same.end()) * 1e6,
                worst_within * 1e6, *std::min_element(per_stream.begin(), per_stream.end()) * 1e6,
                *std::max_element(per_stream.begin(), per_stream.end()) * 1e6);
    doc["stream_experiment"][std::to_string(ns / 1000) + "us"] = {{"one_stream_s", same}, {"new_streams_s", streams}};
  }
  cudaFree(stamps);

  // 2. Separate runs.
  const Config configs[] = {
      {"pool of 8 (default)", 8, 0, false, false},          {"pool of 32", 32, 0, false, false},
      {"a new stream per run (before)", 0, 0, false, false}, {"pool of 8, k = 32 fixed", 8, 32, false, false},
      {"pool of 8, ungated", 8, 0, true, false},            {"pool of 8, cold cache", 8, 0, false, true}};
  std::printf("\n## %d separate runs per row\n\n", runs);
  std::printf("| T | configuration | median of medians us | spread %% | sd %% | interval covers the median of medians | "
              "median CI width %% | median k | time to result s (median) | stream_effect warnings |\n"
              "|---|---|---|---|---|---|---|---|---|---|\n");
  for (std::uint64_t ns : sizes) {
    for (const Config& c : configs) {
      if (c.cold && ns != 100000) continue;
      std::vector<double> medians, lows, highs, widths, times, ks;
      int warned = 0;
      nlohmann::json rows = nlohmann::json::array();
      for (int i = 0; i < runs; ++i) {
        auto exp = gauge::Experiment("spin", [ns](cudaStream_t s) { spin_kernel<<<1, 32, 0, s>>>(ns, nullptr, 0); });
        cudaStream_t fresh = nullptr;
        if (c.streams == 0) {
          GAUGE_CUDA_CHECK(cudaStreamCreateWithFlags(&fresh, cudaStreamNonBlocking));
          exp.stream(fresh);
        } else {
          exp.config().measure.streams = c.streams;
        }
        exp.config().measure.steps_per_sample = c.k;
        if (c.ungated) exp.synchronizes_host();
        if (c.cold) exp.cold_cache();
        const auto t0 = std::chrono::steady_clock::now();
        const gauge::Result r = exp.run();
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (fresh) cudaStreamDestroy(fresh);
        if (r.status != gauge::Status::ok || !r.gpu_time.median_ci) {
          std::fprintf(stderr, "run failed: %s\n", r.error.value_or("no interval").c_str());
          return 1;
        }
        medians.push_back(*r.gpu_time.p50);
        lows.push_back(r.gpu_time.median_ci->low);
        highs.push_back(r.gpu_time.median_ci->high);
        widths.push_back(*r.gpu_time.median_ci_relative_width);
        times.push_back(wall);
        ks.push_back(double(r.sampling.steps_per_sample));
        warned += r.has_warning("stream_effect");
        nlohmann::json stream_medians = nlohmann::json::array();
        for (const auto& m : r.streams.medians_s) stream_medians.push_back(m ? nlohmann::json(*m) : nlohmann::json(nullptr));
        rows.push_back({{"median_s", *r.gpu_time.p50},
                        {"ci_low_s", r.gpu_time.median_ci->low},
                        {"ci_high_s", r.gpu_time.median_ci->high},
                        {"within_ci_low_s", r.streams.within_ci_low_s.value_or(NAN)},
                        {"within_ci_high_s", r.streams.within_ci_high_s.value_or(NAN)},
                        {"stream_medians_s", stream_medians},
                        {"k", r.sampling.steps_per_sample},
                        {"samples", r.gpu_time.n},
                        {"stop", r.stopping.reason},
                        {"time_to_result_s", wall}});
      }
      const double centre = median(medians);
      int covered = 0;
      for (int i = 0; i < runs; ++i) covered += lows[i] <= centre && centre <= highs[i];
      double mean = 0, var = 0;
      for (double m : medians) mean += m / runs;
      for (double m : medians) var += (m - mean) * (m - mean) / (runs - 1);
      const double spread = (*std::max_element(medians.begin(), medians.end()) - *std::min_element(medians.begin(), medians.end())) / centre;
      std::printf("| %.0f us | %s | %.4f | %.4f | %.4f | %d of %d | %.4f | %.0f | %.3f | %d |\n", ns * 1e-3, c.name, centre * 1e6,
                  100 * spread, 100 * std::sqrt(var) / mean, covered, runs, 100 * median(widths), median(ks), median(times), warned);
      doc["runs"].push_back({{"T_us", ns / 1000}, {"configuration", c.name}, {"spread", spread}, {"covered", covered},
                             {"runs", runs}, {"time_to_result_s", median(times)}, {"rows", rows}});
    }
  }
  std::ofstream(out) << doc.dump(1) << "\n";
  return 0;
}
