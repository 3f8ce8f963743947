// Compile-time benchmark, program B: one file that runs a host experiment and writes the report.
#define GAUGE_IMPLEMENTATION
#include <gauge/gauge.hpp>

#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

int main(int argc, char** argv) {
  gauge::Report report(argc > 1 ? argv[1] : "sort-report.json");
  std::vector<int> v(1 << 16);
  std::mt19937 rng(1);
  auto exp = gauge::make_experiment<gauge::HostBackend>("sort", [&](gauge::HostStream) {
    for (auto& x : v) x = static_cast<int>(rng());
    std::sort(v.begin(), v.end());
  });
  exp.dimension("n", 1 << 16).items("elements", 1 << 16);
  report.add(exp.run());
  report.write();
  std::fputs(report.summary().c_str(), stdout);
}
