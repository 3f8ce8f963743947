// Compile-time benchmark, program A's other file: gauge's implementation and the report.
#define GAUGE_IMPLEMENTATION
#include <gauge/gauge.hpp>

#include <cstdio>

gauge::Result bench_sort();

int main(int argc, char** argv) {
  gauge::Report report(argc > 1 ? argv[1] : "sort-report.json");
  report.add(bench_sort());
  report.write();
  std::fputs(report.summary().c_str(), stdout);
}
