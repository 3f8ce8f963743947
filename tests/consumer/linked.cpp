// A consumer that does not define GAUGE_IMPLEMENTATION: gauge::host brings gauge's compiled part,
// which CMake built in this project's tree. Compiled at -O0 without NDEBUG (the compiled part is
// built Release): the report must name this file's flags, not the library's.
#include <gauge/gauge.hpp>

#include <chrono>
#include <cstdio>
#include <vector>

#include "sum4096.hpp"

int main(int argc, char** argv) {
  const char* out = argc > 1 ? argv[1] : "consumer-linked.json";
  gauge::Report report(out);
  std::vector<double> v(4096, 1.0);
  double sink = 0;
  auto exp = sum4096_experiment(v, sink);
  exp.config().measure.max_time = std::chrono::milliseconds(200);
  report.add(exp.run());
  report.write();
  return report.results().at(0).status == gauge::Status::ok && sink > 0 ? 0 : 1;
}
