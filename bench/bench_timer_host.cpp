// The host cost per step of gauge::Timer on the host backend (HostTimerBackend), the part of the
// Timer's price that does not depend on CUDA events: what step(), phase(), start()/stop() and the
// resolution of each step cost on the CPU. Side by side with what a user would otherwise write:
// one std::chrono::steady_clock pair per region, summed into a vector.
//
// Loops of N steps (default 10^6), each step with three parts and no work in them:
//   steady_clock pairs   3 pairs of steady_clock::now() per step, times added to 3 doubles
//   gauge phases         timer.phase("forward"/"backward"/"optimizer"), timer.step()
//   gauge regions        timer.start(r)/timer.stop(r) for 3 regions, timer.step()
//   gauge level-off      3 regions above the Timer's level (no-ops), timer.step()
// Each mode runs 5 times, interleaved; the table gives the best ns per step (the least disturbed
// run) and the median. Build: CMake target bench_timer_host (gauge::host), or
//   g++ -std=c++17 -O2 -DNDEBUG -DGAUGE_NO_CUDA -Iinclude bench/bench_timer_host.cpp -lfmt -pthread -ldl
// (add -I<other tree>/include to measure another version's headers).
//
//   bench_timer_host [--steps N]

#define GAUGE_IMPLEMENTATION
#include <gauge/gauge.hpp>
#include <gauge/timer.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

double ns_per_step(const std::function<void()>& body, long steps) {
  const auto t0 = clock_type::now();
  for (long i = 0; i < steps; ++i) body();
  return std::chrono::duration<double, std::nano>(clock_type::now() - t0).count() / static_cast<double>(steps);
}

}  // namespace

int main(int argc, char** argv) {
  long steps = 1000000;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--steps") == 0 && i + 1 < argc) {
      steps = std::strtol(argv[++i], nullptr, 10);
    } else {
      std::fprintf(stderr, "usage: bench_timer_host [--steps N]\n");
      return 2;
    }
  }
  if (steps <= 0) {
    std::fprintf(stderr, "bench_timer_host: --steps must be > 0\n");
    return 2;
  }
  gauge::TimerConfig c;
  c.warmup_steps = 10;
  gauge::Timer<gauge::HostTimerBackend> phases("phases", gauge::HostTimerBackend(), c);
  gauge::Timer<gauge::HostTimerBackend> regions("regions", gauge::HostTimerBackend(), c);
  gauge::Timer<gauge::HostTimerBackend> off("off", gauge::HostTimerBackend(), c);
  const auto fwd = regions.region("forward"), bwd = regions.region("backward"), opt = regions.region("optimizer");
  const auto off_fwd = off.region("forward", gauge::timer_level::detailed);
  const auto off_bwd = off.region("backward", gauge::timer_level::detailed);
  const auto off_opt = off.region("optimizer", gauge::timer_level::detailed);
  std::array<double, 3> sums{};
  auto pair = [&](std::size_t k) {
    const auto t0 = clock_type::now();
    const auto t1 = clock_type::now();
    sums[k] += std::chrono::duration<double>(t1 - t0).count();
  };
  const std::vector<std::pair<std::string, std::function<void()>>> modes = {
      {"steady_clock pairs", [&] { pair(0), pair(1), pair(2); }},
      {"gauge phases", [&] { phases.phase("forward"), phases.phase("backward"), phases.phase("optimizer"), phases.step(); }},
      {"gauge regions",
       [&] { regions.start(fwd), regions.stop(fwd), regions.start(bwd), regions.stop(bwd), regions.start(opt), regions.stop(opt), regions.step(); }},
      {"gauge level-off", [&] { off.start(off_fwd), off.stop(off_fwd), off.start(off_bwd), off.stop(off_bwd), off.start(off_opt), off.stop(off_opt), off.step(); }},
  };
  std::vector<std::vector<double>> runs(modes.size());
  for (int rep = 0; rep < 5; ++rep)
    for (std::size_t m = 0; m < modes.size(); ++m) runs[m].push_back(ns_per_step(modes[m].second, steps));
  std::printf("gauge %s, %ld steps per run, 5 runs per mode (interleaved)\n\n", gauge::version_string, steps);
  std::printf("| mode | best ns/step | median ns/step |\n|---|---:|---:|\n");
  for (std::size_t m = 0; m < modes.size(); ++m) {
    std::sort(runs[m].begin(), runs[m].end());
    std::printf("| %s | %.1f | %.1f |\n", modes[m].first.c_str(), runs[m].front(), runs[m][2]);
  }
  std::printf("\n(sums kept: %.3g s)\n", sums[0] + sums[1] + sums[2]);
  return 0;
}
