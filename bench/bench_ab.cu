// Interleaved A/B in one process (issue 21, item 4), on the H200.
//
// 1. Two spin kernels 1 % apart (B spins 1.01 T, A spins T) at T = 10 µs and 100 µs: 20
//    gauge::interleave(A, B) runs each. Per row: the truth (the ratio of the kernels' own spans,
//    from their %globaltimer stamps, median of 200 back-to-back kernels, and the ratio of their
//    back-to-back periods, span + the device's launch gap, which is what events measure), the
//    paired ratio's estimate and interval, whether the interval covers each truth, and whether the
//    direction is right (estimate above 1). The paired difference B − A (seconds per step) is free
//    of the launch gap both kernels pay, so its interval is checked against the spans' own
//    difference. Then, per T: how many intervals cover, how many directions are right, and the
//    verdicts.
// 2. The same 10 µs and 100 µs kernel against itself, 20 runs each: the verdict counts (the truth
//    is 1: `same`, never `faster` or `slower`).
// 3. Kernels that spin SM cycles (%clock64) instead of %globaltimer, whose ticks (32 ns on the
//    H200) quantize both the spin and its stamps: A spins C cycles, B 1.01 C (C = T × 1.98 GHz).
//    Their true difference is exactly (C_B − C_A) / f, f the SM clock over the rounds (gauge's
//    clock probe, independent of the events): per run, whether the paired difference's interval
//    covers it, and the ratio beside 1.01 (the spins' ratio; the periods' is lower by the gap).
//
// Threshold 0.5 % (so that a true 1 % reads `slower`, not `same` within a 2 % threshold), target
// width 0.2 %, rounds of 2 ms, each run capped at 0.3 s of warm-up per side and 1.5 s of
// interleaved rounds: 80 runs in about 2-3 minutes.
//
//   bench_ab [--runs 20] [--out FILE.json]

#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#define GAUGE_IMPLEMENTATION  // this file compiles gauge's implementation (once per program)
#include <gauge/gauge.hpp>
// What this file uses beyond gauge.hpp (GAUGE_IMPLEMENTATION declares nothing in nvcc's device pass).
#include <gauge/core/interleaved.hpp>
#include <gauge/cuda/gate.hpp>
#include <nlohmann/json.hpp>

#include "spin_kernel.cuh"

using namespace std::chrono_literals;

namespace {

using bench::spin_kernel;

/// The settings of every side: short rounds and capped warm-up, so 80 runs fit in minutes.
gauge::Config side_config() {
  gauge::Config c;
  c.warmup.max_time = 300ms;
  c.measure.round_time = 2ms;
  return c;
}

/// One interleaved run of spin kernels of `ns_a` (A) and `ns_b` (B) nanoseconds.
gauge::InterleavedResult run_pair(std::uint64_t ns_a, std::uint64_t ns_b) {
  auto a = gauge::Experiment("spin_a", [ns_a](cudaStream_t s) { spin_kernel<<<1, 32, 0, s>>>(ns_a, nullptr, 0); });
  auto b = gauge::Experiment("spin_b", [ns_b](cudaStream_t s) { spin_kernel<<<1, 32, 0, s>>>(ns_b, nullptr, 0); });
  a.config(side_config()).dimension("T_ns", static_cast<std::int64_t>(ns_a));
  b.config(side_config()).dimension("T_ns", static_cast<std::int64_t>(ns_b));
  return gauge::interleave(a, b).threshold(0.005).target_relative_ci_width(0.002).max_time(1500ms).run();
}

/// One interleaved run of cycle-spin kernels of `cycles_a` (A) and `cycles_b` (B) cycles.
gauge::InterleavedResult run_cycles_pair(std::uint64_t cycles_a, std::uint64_t cycles_b) {
  using bench::spin_cycles_kernel;
  auto a = gauge::Experiment("spin_cycles_a", [cycles_a](cudaStream_t s) { spin_cycles_kernel<<<1, 32, 0, s>>>(cycles_a); });
  auto b = gauge::Experiment("spin_cycles_b", [cycles_b](cudaStream_t s) { spin_cycles_kernel<<<1, 32, 0, s>>>(cycles_b); });
  a.config(side_config()).dimension("cycles", static_cast<std::int64_t>(cycles_a));
  b.config(side_config()).dimension("cycles", static_cast<std::int64_t>(cycles_b));
  return gauge::interleave(a, b).threshold(0.005).target_relative_ci_width(0.002).max_time(1500ms).run();
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 20;
  std::string out = "bench_ab.json";
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--runs") && i + 1 < argc) runs = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
    else {
      std::fprintf(stderr, "usage: bench_ab [--runs N] [--out FILE.json]\n");
      return 2;
    }
  }
  const auto t_start = std::chrono::steady_clock::now();
  nlohmann::json doc;
  doc["runs"] = runs;

  std::printf("## B spins 1 %% longer than A: %d interleaved runs per T (threshold 0.5 %%)\n\n", runs);
  std::printf("| T | run | truth: spans | truth: periods | estimate | interval | pairs | covers spans? | covers periods? | "
              "truth: span difference, ns | difference B - A, ns | its interval | covers? | direction right? | verdict |\n"
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  std::vector<std::string> summary;
  for (const std::uint64_t ns : {10000ull, 100000ull}) {
    const std::uint64_t ns_b = ns + ns / 100;
    const bench::Truth ta = bench::ground_truth(ns), tb = bench::ground_truth(ns_b);
    const double span_ratio = tb.span_s / ta.span_s, period_ratio = tb.floor_s / ta.floor_s;
    const double span_difference = tb.span_mean_s - ta.span_mean_s;  // mean spans: the stamps tick
    int covers_spans = 0, covers_periods = 0, covers_difference = 0, direction = 0, with_ratio = 0;
    std::map<std::string, int> verdicts;
    nlohmann::json rows = nlohmann::json::array();
    for (int i = 0; i < runs; ++i) {
      const auto r = run_pair(ns, ns_b);
      ++verdicts[gauge::to_string(r.verdict)];
      if (!r.ratio) {
        std::printf("| %.0f us | %d | %.5f | %.5f | - | - | %zu | - | - | - | %s: %s |\n", ns * 1e-3, i + 1, span_ratio,
                    period_ratio, r.pair_ratios.size(), gauge::to_string(r.verdict), r.reason.c_str());
        continue;
      }
      const auto& p = *r.ratio;
      ++with_ratio;
      const bool cs = p.low <= span_ratio && span_ratio <= p.high, cp = p.low <= period_ratio && period_ratio <= p.high;
      const bool dir = p.estimate > 1;
      const bool cd = r.difference && r.difference->low_s <= span_difference && span_difference <= r.difference->high_s;
      covers_spans += cs;
      covers_periods += cp;
      covers_difference += cd;
      direction += dir;
      const double d = r.difference ? r.difference->estimate_s : NAN, dl = r.difference ? r.difference->low_s : NAN,
                   dh = r.difference ? r.difference->high_s : NAN;
      std::printf("| %.0f us | %d | %.5f | %.5f | %.5f | [%.5f, %.5f] | %zu | %s | %s | %.2f | %.2f | [%.2f, %.2f] | %s | %s | %s |\n",
                  ns * 1e-3, i + 1, span_ratio, period_ratio, p.estimate, p.low, p.high, p.pairs, cs ? "yes" : "no",
                  cp ? "yes" : "no", span_difference * 1e9, d * 1e9, dl * 1e9, dh * 1e9, cd ? "yes" : "no",
                  dir ? "yes" : "no", gauge::to_string(r.verdict));
      rows.push_back({{"estimate", p.estimate}, {"low", p.low}, {"high", p.high}, {"pairs", p.pairs},
                      {"difference_s", d}, {"difference_low_s", dl}, {"difference_high_s", dh},
                      {"verdict", gauge::to_string(r.verdict)}, {"measure_time_s", r.measure_time_s}});
    }
    std::string counts;
    for (const auto& [v, n] : verdicts) counts += (counts.empty() ? "" : ", ") + v + " " + std::to_string(n);
    char line[512];
    std::snprintf(line, sizeof line, "| %.0f us | %.5f | %.5f | %.2f | %d / %d | %d / %d | %d / %d | %d / %d | %s |", ns * 1e-3,
                  span_ratio, period_ratio, span_difference * 1e9, covers_spans, with_ratio, covers_periods, with_ratio,
                  covers_difference, with_ratio, direction, with_ratio, counts.c_str());
    summary.push_back(line);
    doc["one_percent"].push_back({{"T_ns", ns}, {"truth_spans", span_ratio}, {"truth_periods", period_ratio},
                                  {"truth_span_difference_s", span_difference}, {"runs", rows}});
  }
  std::printf("\n| T | truth: spans | truth: periods | truth: span difference, ns | ratio intervals covering spans | "
              "covering periods | difference intervals covering the span difference | direction right | verdicts |\n"
              "|---|---|---|---|---|---|---|---|---|\n");
  for (const auto& s : summary) std::printf("%s\n", s.c_str());

  std::printf("\n## The same kernel against itself: %d interleaved runs per T (threshold 0.5 %%)\n\n", runs);
  std::printf("| T | faster | slower | same | inconclusive | median estimate |\n|---|---|---|---|---|---|\n");
  for (const std::uint64_t ns : {10000ull, 100000ull}) {
    std::map<std::string, int> verdicts;
    std::vector<double> estimates;
    for (int i = 0; i < runs; ++i) {
      const auto r = run_pair(ns, ns);
      ++verdicts[gauge::to_string(r.verdict)];
      if (r.ratio) estimates.push_back(r.ratio->estimate);
      if (r.verdict == gauge::stats::PairedVerdict::inconclusive) std::fprintf(stderr, "self %.0f us: %s\n", ns * 1e-3, r.reason.c_str());
    }
    std::printf("| %.0f us | %d | %d | %d | %d | %.5f |\n", ns * 1e-3, verdicts["faster"], verdicts["slower"],
                verdicts["same"], verdicts["inconclusive"], bench::median(estimates));
    doc["self"].push_back({{"T_ns", ns}, {"verdicts", verdicts}, {"estimates", estimates}});
  }
  std::printf("\n## Cycle-spin kernels, B 1 %% more cycles than A: %d interleaved runs per T (threshold 0.5 %%)\n\n", runs);
  std::printf("| T | run | SM clock (probe), MHz | truth: (C_B - C_A) / f, ns | difference B - A, ns | its interval | covers? | "
              "ratio | its interval | verdict |\n|---|---|---|---|---|---|---|---|---|---|\n");
  std::vector<std::string> cycle_summary;
  for (const std::uint64_t ns : {10000ull, 100000ull}) {
    const std::uint64_t ca = ns * 198 / 100, cb = ca + ca / 100;  // cycles at 1.98 GHz, and 1 % more
    int covers = 0, with = 0, direction = 0;
    nlohmann::json rows = nlohmann::json::array();
    for (int i = 0; i < runs; ++i) {
      const auto r = run_cycles_pair(ca, cb);
      const auto fa = r.a.clock.sm_clock_mhz, fb = r.b.clock.sm_clock_mhz;
      if (!r.difference || !r.ratio || !fa || !fb || r.a.clock.source != "probe") {
        std::printf("| %.0f us | %d | - | - | - | - | - | - | - | %s: %s (clock source %s) |\n", ns * 1e-3, i + 1,
                    gauge::to_string(r.verdict), r.reason.c_str(), r.a.clock.source.c_str());
        continue;
      }
      ++with;
      // Each side's spin at its own rounds' clock: C_B / f_B − C_A / f_A.
      const double truth = double(cb) / (*fb * 1e6) - double(ca) / (*fa * 1e6);
      const auto& d = *r.difference;
      const bool c = d.low_s <= truth && truth <= d.high_s;
      covers += c;
      direction += r.ratio->estimate > 1;
      std::printf("| %.0f us | %d | %.1f / %.1f | %.2f | %.2f | [%.2f, %.2f] | %s | %.5f | [%.5f, %.5f] | %s |\n", ns * 1e-3,
                  i + 1, *fa, *fb, truth * 1e9, d.estimate_s * 1e9, d.low_s * 1e9, d.high_s * 1e9, c ? "yes" : "no",
                  r.ratio->estimate, r.ratio->low, r.ratio->high, gauge::to_string(r.verdict));
      rows.push_back({{"clock_a_mhz", *fa}, {"clock_b_mhz", *fb}, {"truth_difference_s", truth}, {"difference_s", d.estimate_s},
                      {"low_s", d.low_s}, {"high_s", d.high_s}, {"ratio", r.ratio->estimate}, {"verdict", gauge::to_string(r.verdict)}});
    }
    char line[256];
    std::snprintf(line, sizeof line, "| %.0f us | %llu / %llu | %d / %d | %d / %d |", ns * 1e-3, (unsigned long long)ca,
                  (unsigned long long)cb, covers, with, direction, with);
    cycle_summary.push_back(line);
    doc["cycles_one_percent"].push_back({{"T_ns", ns}, {"cycles_a", ca}, {"cycles_b", cb}, {"runs", rows}});
  }
  std::printf("\n| T | cycles A / B | difference intervals covering (C_B - C_A) / f | direction right |\n|---|---|---|---|\n");
  for (const auto& s : cycle_summary) std::printf("%s\n", s.c_str());

  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  std::printf("\ntotal %.1f s\n", total);
  doc["total_s"] = total;
  std::ofstream(out) << doc.dump(2) << "\n";
  return 0;
}
