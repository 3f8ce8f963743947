// The stopping rule's cost per round (issue 11, "Hardening"): a 50 ns host step measured for
// 20 s with a noise target it never meets, so the rule is checked every round until max_time.
// Prints the steps timed per second of measuring in the first and the last tenth of the rounds
// (the time between round starts counts the rule's check and the wall round), and overall.
// A rule whose check costs O(n log n) per round slows down as samples accumulate; one whose cost
// is sublinear keeps its rate.
//
//   bench_stopping [seconds=20] [step_ns=50]

#define GAUGE_IMPLEMENTATION
#include <gauge/gauge.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace {

/// Busy-waits `ns` nanoseconds on the steady clock.
void spin(long ns) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(ns);
  while (std::chrono::steady_clock::now() < until) {
  }
}

/// Steps per second over rounds [first, last): their samples over the time from the first's start
/// to the start of the round after the last (or the last's end).
double rate(const gauge::records::SamplingRecord& s, std::size_t first, std::size_t last) {
  std::size_t steps = 0;
  for (std::size_t i = first; i < last; ++i) steps += s.round_samples[i] * s.steps_per_sample;
  const double end = last < s.round_start_s.size() ? s.round_start_s[last] : s.round_end_s[last - 1];
  return static_cast<double>(steps) / (end - s.round_start_s[first]);
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 20.0;
  const long step_ns = argc > 2 ? std::atol(argv[2]) : 50;
  auto exp = gauge::make_experiment<gauge::HostBackend>("spin", [&](gauge::HostStream) { spin(step_ns); });
  auto& m = exp.config().measure;
  m.max_time = std::chrono::duration_cast<gauge::Nanoseconds>(std::chrono::duration<double>(seconds));
  m.max_samples = std::numeric_limits<std::size_t>::max() / 2;
  m.min_time = m.max_time;  // the target cannot stop it early: the rule is checked every round until max_time
  exp.config().max_samples_in_report = 0;
  const gauge::Result r = exp.run();
  if (r.status != gauge::Status::ok) {
    std::fprintf(stderr, "bench_stopping: the run failed: %s\n", r.error.value_or("").c_str());
    return 1;
  }
  const auto& s = r.sampling;
  const std::size_t rounds = s.round_start_s.size();
  if (rounds < 20) {
    std::fprintf(stderr, "bench_stopping: only %zu rounds\n", rounds);
    return 1;
  }
  const std::size_t tenth = rounds / 10;
  std::printf("| step | measured | rounds | samples | stop | steps/s, first tenth | steps/s, last tenth | steps/s, overall |\n");
  std::printf("|---:|---:|---:|---:|---|---:|---:|---:|\n");
  std::printf("| %ld ns | %.1f s | %zu | %zu | %s | %.3g | %.3g | %.3g |\n", step_ns, r.stopping.measure_time_s, rounds,
              r.gpu_time.n, r.stopping.reason.c_str(), rate(s, 0, tenth), rate(s, rounds - tenth, rounds),
              static_cast<double>(s.steps) / r.stopping.measure_time_s);
  return 0;
}
