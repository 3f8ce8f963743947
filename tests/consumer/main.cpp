// A consumer of the installed package: measures a CPU step on the host backend and writes a
// report. Exits non-zero unless the report holds one ok experiment.
#define GAUGE_IMPLEMENTATION  // this file compiles gauge's implementation (once per program)
#include <gauge/gauge.hpp>

#include <chrono>
#include <cstdio>
#include <vector>

#include "sum4096.hpp"

int main(int argc, char** argv) {
  const char* out = argc > 1 ? argv[1] : "consumer.json";
  gauge::Report report(out);
  std::vector<double> v(4096, 1.0);
  double sink = 0;
  auto exp = sum4096_experiment(v, sink);
  exp.config().measure.max_time = std::chrono::milliseconds(300);
  report.add(exp.run());
  report.write();
  std::fputs(report.summary().c_str(), stdout);
  return report.results().at(0).status == gauge::Status::ok && sink > 0 ? 0 : 1;
}
