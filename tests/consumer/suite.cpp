// A suite program linked with gauge::suite_host: the runner (CLI11) and the protocol are gauge's
// compiled part, built by CMake; this file defines benchmarks and GAUGE_MAIN() only.
#include <gauge/suite.hpp>

#include <vector>

namespace {
double sink = 0;
void sum(gauge::Point& p) {
  std::vector<double> v(static_cast<std::size_t>(p.get_int64("n")), 1.0);
  p.run([&](gauge::HostStream) {
    double s = 0;
    for (double x : v) s += x;
    sink += s;
  });
}
}  // namespace

GAUGE_BENCHMARK(sum).int64_axis("n", {1024, 4096});
GAUGE_MAIN()
