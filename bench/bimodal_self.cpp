// A bimodal host step against its own baseline (new-user friction 7): how often
// `no_slower_than` confirms identical code. Two modes, both on the host backend:
//
//   bimodal_self gen SHARE RUNS PREFIX   runs a 20 µs busy-wait step with 40 µs calls at SHARE
//                                        (0..1), Config::quick(), RUNS times; writes PREFIX<i>.json
//   bimodal_self check REPORT...         each report's first result against each other's, at 3 %:
//                                        prints "passes P of N" (and each failure with V=1)
//
// Build one binary per tree to compare rules on the same reports (bench/bimodal_self.sh does):
//   g++ -std=c++17 -O2 -DGAUGE_NO_CUDA -I include bench/bimodal_self.cpp -lfmt -ldl -pthread
#define GAUGE_IMPLEMENTATION
#include <gauge/gauge.hpp>
#include <gauge/report/checks.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

void spin(double us) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::nanoseconds(static_cast<long long>(us * 1000));
  while (std::chrono::steady_clock::now() < end) {
  }
}

int usage() {
  std::fputs("usage: bimodal_self gen SHARE RUNS PREFIX | bimodal_self check REPORT...\n", stderr);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return usage();
  const std::string mode = argv[1];
  if (mode == "gen" && argc == 5) {
    char* end = nullptr;
    const double share = std::strtod(argv[2], &end);
    if (end == argv[2] || *end || !(share >= 0 && share <= 1)) {
      std::fprintf(stderr, "bimodal_self: SHARE '%s' is not a number in [0, 1]\n", argv[2]);
      return 2;
    }
    const long runs = std::strtol(argv[3], &end, 10);
    if (end == argv[3] || *end || runs < 1 || runs > 1000) {
      std::fprintf(stderr, "bimodal_self: RUNS '%s' is not a whole number in [1, 1000]\n", argv[3]);
      return 2;
    }
    for (long r = 0; r < runs; ++r) {
      std::mt19937 rng(static_cast<unsigned>(r));
      std::uniform_real_distribution<double> u(0, 1);
      auto e = gauge::make_experiment<gauge::HostBackend>("bimodal", [&](gauge::HostStream) { spin(u(rng) < share ? 40.0 : 20.0); });
      e.config(gauge::Config::quick());
      gauge::Report report(std::string(argv[4]) + std::to_string(r) + ".json");
      report.add(e.run());
      report.write();
    }
    return 0;
  }
  if (mode != "check") return usage();
  std::vector<gauge::Result> results;
  for (int i = 2; i < argc; ++i) results.push_back(gauge::read_report(argv[i]).results.at(0));
  int passes = 0, checks = 0;
  gauge::CompareOptions options;
  options.threshold = 0.03;
  for (std::size_t i = 0; i < results.size(); ++i)
    for (std::size_t j = 0; j < results.size(); ++j) {
      if (i == j) continue;
      const auto outcome = gauge::detail::checks::no_slower_than({results[i]}, results[j], 0.03, options, false);
      passes += outcome.ok;
      ++checks;
      if (!outcome.ok && std::getenv("V")) std::printf("%zu -> %zu: %s\n", i, j, outcome.text.c_str());
    }
  std::printf("passes %d of %d\n", passes, checks);
  return 0;
}
