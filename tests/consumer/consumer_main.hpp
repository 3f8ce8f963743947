#pragma once
// The consumer programs' main (main.cpp, linked.cpp): measures sum4096 on the host backend for
// `max_time`, writes the report to argv[1] (or `default_out`) and prints its summary. Exits
// non-zero unless the report holds one ok experiment.
#include <gauge/gauge.hpp>

#include <chrono>
#include <cstdio>
#include <optional>
#include <vector>

#include "sum4096.hpp"

// The one-line migration CHANGELOG.md gives programs that name 0.2.0's flat names
// (`gauge::SamplingRecord`, `gauge::ConfidenceInterval`, `gauge::GateSupport`): after gauge's
// headers, before their own.
namespace gauge { using namespace records; using namespace stats; using namespace env; using namespace peaks; using namespace compare; using namespace formats; using namespace suite; using namespace backend_parts; }

// 0.2.0's spelling of what a backend returns from gate_support() (now gauge::backend_parts::GateSupport).
static_assert(gauge::GateSupport::not_needed != gauge::GateSupport::available, "the migration line names GateSupport");

inline int consumer_main(int argc, char** argv, const char* default_out, std::chrono::milliseconds max_time) {
  gauge::Report report(argc > 1 ? argv[1] : default_out);
  std::vector<double> v(4096, 1.0);
  double sink = 0;
  auto exp = sum4096_experiment(v, sink);
  exp.config().measure.max_time = max_time;
  report.add(exp.run());
  report.write();
  std::fputs(report.summary().c_str(), stdout);
  const gauge::SamplingRecord& sampling = report.results().at(0).sampling;  // 0.2.0's spelling
  const std::optional<gauge::ConfidenceInterval> ci = report.results().at(0).gpu_time.median_ci;
  return report.results().at(0).status == gauge::Status::ok && sink > 0 && sampling.steps > 0 && ci && ci->low <= ci->high
             ? 0
             : 1;
}
