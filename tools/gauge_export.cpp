// gauge-export: writes a gauge report in another format, to standard output.
//
//   gauge-export REPORT.json [--format NAME] [--metric time|wall] [--time-unit ns|us|ms|s]
//                [--no-repetitions] [--help] [--version]
//
// The formats come from the registry in gauge/report/export_format.hpp (gauge/report/formats.hpp
// lists them; `--help` prints each with its description), so a new format is one header and one
// line in formats.hpp, and nothing here changes. Options take their value as `--opt value` or
// `--opt=value` (CLI11; see tools/cli.hpp). Exit status 2 with a one-line reason on bad usage or
// bad input (missing file, invalid JSON, not a gauge report, newer major schema version); 74 when
// standard output cannot be written (full disk), with a one-line reason.

#include <gauge/report/escape.hpp>
#include <gauge/report/formats.hpp>
#include <gauge/report/read.hpp>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "cli.hpp"

namespace {

const char* const exit_codes =
    "Exit status:\n"
    "  0  exported\n"
    "  2  bad usage or bad input (missing file, invalid JSON, not a gauge report, newer major\n"
    "     schema version, missing key, JSON nested too deep, a number out of range), with a\n"
    "     one-line reason on stderr\n"
    "  74 standard output could not be written (full disk, /dev/full), with a one-line reason";

struct Arguments {
  std::string path;
  std::string format = "gbench";
  gauge::ExportOptions options;
};

Arguments parse(int argc, char** argv) {
  Arguments a;
  CLI::App app("Writes a gauge report in another format to standard output (--format: the registered formats).",
               "gauge-export");
  gauge::tools::configure(app, exit_codes);
  app.add_option("REPORT", a.path, "The report (gauge JSON)")->required()->type_name("REPORT.json");
  std::string formats_help;
  std::vector<std::string> names;
  for (const auto& f : gauge::formats::export_formats()) {
    formats_help += (formats_help.empty() ? "" : "; ") + f.name + ": " + f.description;
    names.push_back(f.name);
  }
  app.add_option("--format", a.format, formats_help)->check(gauge::tools::one_of(names));
  std::string metric = "gpu";
  app.add_option("--metric", metric,
                 "formats that write one time per experiment: time (the per-step samples: GPU time, or real time on "
                 "the host backend; 'gpu' is the same) or wall (wall time per step)")
      ->check(gauge::tools::one_of({"time", "gpu", "wall"}));
  app.add_option("--time-unit", a.options.time_unit, "formats with a time unit (gbench, github_benchmark): the unit of every time")
      ->check(gauge::tools::one_of({"ns", "us", "ms", "s"}));
  bool no_repetitions = false;
  app.add_flag("--no-repetitions", no_repetitions,
               "gbench: one entry per experiment (its median) instead of up to 100 repetitions plus the aggregates");
  gauge::tools::parse_or_exit(app, argc, argv);
  a.options.metric = metric == "time" ? "gpu" : metric;
  a.options.repetitions = !no_repetitions;
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  return gauge::tools::guarded_main("gauge-export", [&] {
    const Arguments args = parse(argc, argv);
    gauge::StoredReport report;
    try {
      report = gauge::read_report(args.path);
    } catch (const gauge::ReportError& e) {
      throw gauge::tools::BadInput{e.what()};
    }
    // A report with nothing the format holds (a Timer-only report for gbench): say so (exit 2)
    // rather than print an empty list that reads as success.
    const gauge::formats::ExportFormat& format = gauge::formats::find_export_format(args.format);
    if (!format.has_content(report))
      throw gauge::tools::BadInput{args.path + ": the report holds no experiments" +
                                   (report.timers.empty() ? std::string()
                                                          : " (only " + std::to_string(report.timers.size()) +
                                                                " Timer summar" + (report.timers.size() == 1 ? "y" : "ies") + ")") +
                                   ": nothing to export in --format " + args.format +
                                   " (it writes experiments; csv, markdown, console and json write a Timer's summaries too)"};
    const std::string text = format.write(report, args.options);
    if (!gauge::tools::write_stdout("gauge-export", text)) return gauge::tools::exit_output;
    return 0;
  });
}
