// gauge-export: writes a gauge report in another format, to standard output.
//
//   gauge-export REPORT.json [--format gbench|csv|markdown] [--metric gpu|wall]
//                [--time-unit ns|us|ms|s] [--no-repetitions] [--help] [--version]
//
// gbench: Google Benchmark JSON, which its compare.py reads (`compare.py benchmarks a.json b.json`);
// csv: one row per experiment; markdown: a table. Options take their value as `--opt value` or
// `--opt=value` (CLI11; see tools/cli.hpp). Exit status 2 with a one-line reason on bad usage or
// bad input (missing file, invalid JSON, not a gauge report, newer major schema version).

#include <gauge/report/export.hpp>
#include <gauge/report/read.hpp>

#include <cstdio>
#include <exception>
#include <string>

#include "cli.hpp"

namespace {

const char* const exit_codes =
    "Exit status:\n"
    "  0  exported\n"
    "  2  bad usage or bad input (missing file, invalid JSON, not a gauge report, newer major\n"
    "     schema version, missing key), with a one-line reason on stderr";

/// An input error (a report that cannot be read): printed as one line, exit status 2.
struct BadInput {
  std::string reason;
};

struct Arguments {
  std::string path;
  std::string format = "gbench";
  gauge::GoogleBenchmarkOptions options;
};

Arguments parse(int argc, char** argv) {
  Arguments a;
  CLI::App app("Writes a gauge report in another format to standard output: Google Benchmark JSON (which its "
               "compare.py reads), CSV (one row per experiment) or a Markdown table.",
               "gauge-export");
  gauge::tools::configure(app, exit_codes);
  app.add_option("REPORT", a.path, "The report (gauge JSON)")->required()->type_name("REPORT.json");
  app.add_option("--format", a.format,
                 "gbench: Google Benchmark JSON; csv: one row per experiment (RFC 4180); markdown: a table")
      ->check(gauge::tools::one_of({"gbench", "csv", "markdown"}));
  std::string metric = "gpu";
  app.add_option("--metric", metric, "gbench: the time written as real_time, GPU time or wall time per step")
      ->check(gauge::tools::one_of({"gpu", "wall"}));
  app.add_option("--time-unit", a.options.time_unit, "gbench: the time unit of every entry")
      ->check(gauge::tools::one_of({"ns", "us", "ms", "s"}));
  bool no_repetitions = false;
  app.add_flag("--no-repetitions", no_repetitions,
               "gbench: one entry per experiment (its median) instead of one per sample plus the aggregates");
  gauge::tools::parse_or_exit(app, argc, argv);
  a.options.metric = metric == "gpu" ? gauge::Metric::gpu_time : gauge::Metric::wall_time;
  a.options.repetitions = !no_repetitions;
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Arguments args = parse(argc, argv);
    gauge::StoredReport report;
    try {
      report = gauge::read_report(args.path);
    } catch (const gauge::ReportError& e) {
      throw BadInput{e.what()};
    }
    if (args.format == "gbench")
      std::fputs((gauge::google_benchmark_json(report, args.options).dump(2) + "\n").c_str(), stdout);
    else if (args.format == "csv")
      std::fputs(gauge::csv_table(report.results).c_str(), stdout);
    else
      std::fputs(gauge::markdown_table(report.results).c_str(), stdout);
    return 0;
  } catch (const BadInput& e) {
    std::fprintf(stderr, "gauge-export: error: %s\n", e.reason.c_str());
    return gauge::tools::exit_usage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gauge-export: error: %s\n", e.what());
    return gauge::tools::exit_usage;
  }
}
