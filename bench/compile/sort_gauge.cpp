// Compile-time benchmark, program A (with report_main.cpp): a host benchmark of std::sort
// defined and run in this file; the report is written in another file of the same program.
#include <gauge/gauge.hpp>

#include <algorithm>
#include <random>
#include <vector>

gauge::Result bench_sort() {
  std::vector<int> v(1 << 16);
  std::mt19937 rng(1);
  auto exp = gauge::make_experiment<gauge::HostBackend>("sort", [&](gauge::HostStream) {
    for (auto& x : v) x = static_cast<int>(rng());
    std::sort(v.begin(), v.end());
  });
  exp.dimension("n", 1 << 16).items("elements", 1 << 16);
  return exp.run();
}
