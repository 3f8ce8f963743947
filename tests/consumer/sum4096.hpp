#pragma once
// The host experiment that the consumer project (main.cpp) and tests/write_reports.cpp measure:
// the sum of 4096 doubles on the host backend.

#include <gauge/backends/host_backend.hpp>
#include <gauge/experiment.hpp>

#include <vector>

/// An experiment named "sum4096" whose step adds the sum of `v` (4096 doubles, which it reads:
/// its bytes of work) to `sink`, so that the compiler keeps the loop. `v` and `sink` must outlive it.
inline auto sum4096_experiment(const std::vector<double>& v, double& sink) {
  auto exp = gauge::make_experiment<gauge::HostBackend>("sum4096", [&v, &sink](gauge::HostStream) {
    double s = 0;
    for (double x : v) s += x;
    sink += s;
  });
  exp.bytes(4096 * sizeof(double));
  return exp;
}
