// cpu_quickstart.cpp: a CPU benchmark on gauge's host backend (no GPU, no CUDA needed)
#define GAUGE_IMPLEMENTATION  // in exactly one file (not needed through CMake's gauge::host)
#include <gauge/gauge.hpp>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

int main() {
  std::vector<int> pristine(1 << 16), data;
  std::iota(pristine.begin(), pristine.end(), 0);
  std::shuffle(pristine.begin(), pristine.end(), std::mt19937(42));
  auto sort = gauge::make_experiment<gauge::HostBackend>("sort", [&](gauge::HostStream) {
    std::sort(data.begin(), data.end());               // the timed step
  });
  sort.setup([&](gauge::HostStream) { data = pristine; })  // untimed, before every step
      .dimension("n", pristine.size())
      .items("ints", static_cast<double>(pristine.size()))  // also ints/s (JSON); the console shows bytes/s
      .bytes(static_cast<double>(sizeof(int) * pristine.size()));
  sort.config(gauge::Config::quick());                  // <= ~2 s; the defaults take up to ~13 s
  gauge::Report report("cpu-report.json");
  report.add(sort.run());                               // real time and process CPU time per step
  report.write();
  std::fputs(report.summary().c_str(), stdout);
  return report.results().front().status == gauge::Status::ok ? 0 : 1;
}
