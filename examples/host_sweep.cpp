// A CPU-only sweep on the host backend: the sum of n doubles over n from 512 to 2^23 (4 KiB to
// 64 MiB), in 8 partial sums so that the loads set the pace, and bytes/s shows the caches (L1,
// L2, the last level, then DRAM). It needs no GPU; link gauge::suite_host (or define
// GAUGE_IMPLEMENTATION in this file and link CLI11). Every result carries real time and process
// CPU time per step (`gpu_time_s`, `cpu_time_s`).
//
//   host_sweep [--quick] [--out r.json] [--format markdown] [--list] [--filter REGEX] ...
//   tools/gauge-plot sweep r.json --x bytes -o sweep.png

#include <gauge/suite.hpp>

#include <cstddef>
#include <vector>

/// The sum of `x` in 8 independent partial sums: the adds overlap, so the loads set the pace.
double sum8(const std::vector<double>& x) {
  double s[8] = {};
  for (std::size_t i = 0; i + 8 <= x.size(); i += 8)
    for (int j = 0; j < 8; ++j) s[j] += x[i + static_cast<std::size_t>(j)];
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

void sum(gauge::Point& p) {
  const auto bytes = static_cast<std::size_t>(p.get_int64("bytes"));
  const std::vector<double> x(bytes / sizeof(double), 1.0);
  p.bytes(static_cast<double>(bytes));
  p.run_on(gauge::HostBackend{}, [&](gauge::HostStream) {
    gauge::do_not_optimize(sum8(x));  // the sum is used: the loop is not removed
  });
}
GAUGE_BENCHMARK(sum).int64_axis("bytes", gauge::pow2(12, 26, 2));
GAUGE_MAIN()
