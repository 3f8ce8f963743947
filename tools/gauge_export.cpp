// gauge-export: writes a gauge report in another format, to standard output.
//
//   gauge-export REPORT.json [--format gbench|csv|markdown] [--metric gpu|wall]
//                [--time-unit ns|us|ms|s] [--no-repetitions]
//
// gbench: Google Benchmark JSON, which its compare.py reads (`compare.py benchmarks a.json b.json`);
// csv: one row per experiment; markdown: a table. Exit status 2 with a one-line reason on bad
// input (missing file, invalid JSON, not a gauge report, newer major schema version).

#include <gauge/report/export.hpp>
#include <gauge/report/read.hpp>

#include <cstdio>
#include <exception>
#include <string>

namespace {
const char* const usage =
    "usage: gauge-export REPORT.json [--format gbench|csv|markdown] [--metric gpu|wall] [--time-unit ns|us|ms|s] "
    "[--no-repetitions]";
struct BadInput {
  std::string reason;
};
}  // namespace

int main(int argc, char** argv) {
  try {
    std::string path, format = "gbench";
    gauge::GoogleBenchmarkOptions options;
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw BadInput{arg + " needs a value"};
        return argv[++i];
      };
      if (arg == "--format") {
        format = value();
        if (format != "gbench" && format != "csv" && format != "markdown")
          throw BadInput{"--format must be gbench, csv or markdown, got '" + format + "'"};
      } else if (arg == "--metric") {
        const std::string m = value();
        if (m == "gpu") options.metric = gauge::Metric::gpu_time;
        else if (m == "wall") options.metric = gauge::Metric::wall_time;
        else throw BadInput{"--metric must be gpu or wall, got '" + m + "'"};
      } else if (arg == "--time-unit") {
        options.time_unit = value();
        if (options.time_unit != "ns" && options.time_unit != "us" && options.time_unit != "ms" && options.time_unit != "s")
          throw BadInput{"--time-unit must be ns, us, ms or s, got '" + options.time_unit + "'"};
      } else if (arg == "--no-repetitions") {
        options.repetitions = false;
      } else if (arg == "--help" || arg == "-h") {
        std::printf("%s\n", usage);
        return 0;
      } else if (!arg.empty() && arg[0] == '-') {
        throw BadInput{"unknown option '" + arg + "'"};
      } else if (path.empty()) {
        path = arg;
      } else {
        throw BadInput{"expected one report, got a second: '" + arg + "'"};
      }
    }
    if (path.empty()) throw BadInput{"expected a report (REPORT.json)"};
    gauge::StoredReport report;
    try {
      report = gauge::read_report(path);
    } catch (const gauge::ReportError& e) {
      throw BadInput{e.what()};
    }
    if (format == "gbench") std::printf("%s\n", gauge::google_benchmark_json(report, options).dump(2).c_str());
    else if (format == "csv") std::fputs(gauge::csv_table(report.results).c_str(), stdout);
    else std::fputs(gauge::markdown_table(report.results).c_str(), stdout);
    return 0;
  } catch (const BadInput& e) {
    std::fprintf(stderr, "gauge-export: error: %s\n", e.reason.c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gauge-export: error: %s\n", e.what());
    return 2;
  }
}
