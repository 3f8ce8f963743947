#pragma once
// The consumer programs' main (main.cpp, linked.cpp): measures sum4096 on the host backend for
// `max_time`, writes the report to argv[1] (or `default_out`) and prints its summary. Exits
// non-zero unless the report holds one ok experiment.
#include <gauge/gauge.hpp>

#include <chrono>
#include <cstdio>
#include <vector>

#include "sum4096.hpp"

inline int consumer_main(int argc, char** argv, const char* default_out, std::chrono::milliseconds max_time) {
  gauge::Report report(argc > 1 ? argv[1] : default_out);
  std::vector<double> v(4096, 1.0);
  double sink = 0;
  auto exp = sum4096_experiment(v, sink);
  exp.config().measure.max_time = max_time;
  report.add(exp.run());
  report.write();
  std::fputs(report.summary().c_str(), stdout);
  return report.results().at(0).status == gauge::Status::ok && sink > 0 ? 0 : 1;
}
