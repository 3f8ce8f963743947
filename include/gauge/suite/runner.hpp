#pragma once
/// \file gauge/suite/runner.hpp
/// The runner of a program of registered benchmarks: `GAUGE_MAIN()` or `gauge::main(argc, argv)`.
/// It enumerates every point of every benchmark (the cartesian product of its axes, on each
/// device asked for), filters them, runs each as an Experiment, prints a table per benchmark and
/// writes one JSON report. Its command line (docs/suite.md has the table with Google Benchmark's
/// and nvbench's flags):
///
///   --list                      the points that would run, one per line, and exit (--format json:
///                               a JSON array of {label, benchmark, axes, device})
///   --filter REGEX              only points whose "name/axis=value/..." matches (ECMAScript regex, searched)
///   --axis 'N=[1024,4096]'      replace an axis's values (repeatable; see gauge/suite/axes.hpp)
///   --device N|all              run on device N, or every point on every device
///   --out FILE                  the JSON report
///   --format console|markdown|csv|json   what goes to stdout (default console)
///   --min-time S, --max-time S, --target-ci X, --cold, --graph   the common settings
///   --kernels                   trace the kernels inside each step (CUPTI; Config::trace_kernels)
///   --repetitions N             run every point N times, in N rounds over the whole suite
///   --profile                   one step per point between cudaProfilerStart/Stop, untimed
///   --interleave A B            instead of the suite: points A and B measured in alternating ABBA
///                               rounds, the paired ratio B/A with its interval and verdict
///                               (gauge/interleave.hpp); A and B as --list prints them
///                               (name/axis=value/...; axes with one value may be left out)
///   --threshold X               the paired verdict's noise threshold (0.02 or 2%; default 2 %)
///   --quiet                     no progress, no summary line on stderr
///   --help, --version
///
/// Exit status: 0 when every point ran (or was skipped), 1 when a point failed, 2 on bad usage
/// (one line on stderr naming the bad text) or a benchmark declared wrongly (Benchmark::problems(),
/// named before anything runs), 74 when the report could not be written (the tables are still
/// printed), 128 + N when stopped by signal N (the interrupted points `failed`, "interrupted").
///
/// This header is light; the runner itself (CLI11, the report) is compiled in the file that
/// defines GAUGE_IMPLEMENTATION and includes <gauge/suite.hpp> (gauge/suite/implementation.hpp).

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gauge/core/config.hpp"
#include "gauge/core/dimensions.hpp"
#include "gauge/core/environment.hpp"
#include "gauge/env/compiler.hpp"
#include "gauge/suite/registry.hpp"

namespace gauge {

namespace detail {
/// Most points one benchmark may plan (the product of its axes' sizes, times the devices): more is
/// a usage error naming the axes, before anything is planned or run.
inline constexpr std::size_t max_points = 1000000;
/// The longest label a point may have (its benchmark's name and "/axis=value" for each axis),
/// bytes: a longer one is a UsageError (exit 2). Labels go into reports, the console and --filter.
inline constexpr std::size_t max_label_bytes = 4096;
/// The longest --axis argument, bytes (a UsageError beyond).
inline constexpr std::size_t max_axis_bytes = 65536;
/// The longest --filter, bytes (a UsageError beyond).
inline constexpr std::size_t max_filter_bytes = 1024;
}  // namespace detail

namespace suite {
/// The runner's settings, as parsed from the command line.
struct RunOptions {
  bool list = false;                        ///< --list
  std::optional<std::string> filter;        ///< --filter REGEX
  std::vector<std::string> axes;            ///< --axis texts, in order
  std::optional<std::string> device;        ///< --device N|all
  std::string out;                          ///< --out FILE ("" = no report file)
  /// --format: "console" or "markdown" (the runner's tables), or any registered export format
  /// (csv, json, gbench, bencher, github_benchmark, ...: gauge/report/formats.hpp)
  std::string format = "console";
  std::optional<Nanoseconds> min_time;      ///< --min-time (measure.min_time)
  std::optional<Nanoseconds> max_time;      ///< --max-time (measure.max_time)
  std::optional<double> target_ci;          ///< --target-ci (measure.target_relative_ci_width)
  std::optional<Nanoseconds> warmup_max_time;  ///< --quick (warmup.max_time: 1 s)
  bool cold = false;                        ///< --cold (an L2 flush before every step)
  bool graph = false;                       ///< --graph (CUDA graph replays)
  bool kernels = false;                     ///< --kernels (Config::trace_kernels: CUPTI kernel tracing)
  /// --repetitions N (Google Benchmark's `--benchmark_repetitions`), >= 1: every point runs N
  /// times, in N rounds over the whole suite (every point once, then every point again, ...), so
  /// that the repetitions of a point are apart in time by the rest of the suite. Each run is its
  /// own Result, with `repetition` = its round (0-based) when N > 1.
  std::size_t repetitions = 1;
  bool profile = false;                     ///< --profile
  /// --interleave A B: the texts of the two points (empty: run the suite). See find_point.
  std::vector<std::string> interleave;
  /// --threshold (InterleaveConfig::threshold, a fraction in (0, 1)); only with --interleave.
  std::optional<double> threshold;
  bool quiet = false;                       ///< --quiet
  ProfileSettings profile_settings;         ///< the warm-up of --profile
};

/// Where the runner writes and what it asks of the machine (tests replace these).
struct SuiteIo {
  std::FILE* out = stdout;                  ///< tables, --list, --format json
  std::FILE* err = stderr;                  ///< progress, errors, the summary line
  std::optional<bool> err_is_terminal;      ///< default: isatty(fileno(err))
  std::function<Environment()> environment;  ///< default: capture_environment()
  /// The compiler recorded in the environment (when `environment` is not set): the one of the
  /// file that calls gauge::main(argc, argv) (GAUGE_MAIN), which sets it; none: gauge's own.
  std::optional<env::CompilerInfo> compiler;
  std::function<int()> device_count;        ///< default: cudaGetDeviceCount (error without CUDA)
  std::function<double()> clock;            ///< seconds, for elapsed times; default: steady_clock
};

/// One point the runner will run.
struct PlannedPoint {
  const Benchmark* benchmark = nullptr;     ///< its benchmark
  std::vector<std::pair<std::string, DimensionValue>> values;  ///< axis values, in axis order
  std::optional<int> device;                ///< --device's ordinal for it (none: the current device)
  bool device_dimension = false;            ///< several devices: "device" is a dimension too
  std::string label;                        ///< "name/axis=value/...[/device=N]"
};

/// What a run did.
struct SuiteSummary {
  std::size_t points = 0;     ///< points selected
  std::size_t repetitions = 1;  ///< runs of each point (RunOptions::repetitions)
  std::size_t ok = 0;         ///< runs measured (or profiled) without failure, over all repetitions
  std::size_t failed = 0;     ///< runs failed (status failed, or the body threw), over all repetitions
  std::size_t skipped = 0;    ///< points skipped by the benchmark (Point::skip), once each
  double wall_time_s = 0;     ///< the whole run, seconds (environment capture and report included)
  double points_time_s = 0;   ///< sum of the points' own run time (Result::total_time_s), seconds
  int exit_code = 0;          ///< 0 all ran, 1 a point failed, 74 the report could not be written
};
}  // namespace suite

/// A usage error of the runner (bad --axis, --filter, --device ...): one line naming the bad text.
class UsageError : public ConfigError {
 public:
  using ConfigError::ConfigError;
};

namespace suite {
/// The points of `registry` that `options` select (axes overridden, product, devices, filter), in
/// order: benchmarks in registration order, then the product with the first axis varying slowest,
/// then devices. \throws UsageError naming the bad --axis, --filter or --device text.
std::vector<PlannedPoint> plan_points(const Registry& registry, const RunOptions& options, const SuiteIo& io = {});

/// Runs the planned points (see the file comment) `options.repetitions` times, in rounds over all
/// of them, writes the report and the tables. A point skipped in one round is not run again (a
/// skip says the point cannot run here) and is listed once under `skipped`.
/// \throws UsageError when `options.repetitions` is 0 or `options.format` is no format the runner
/// writes; ReportError when `options.out` cannot be written.
SuiteSummary run_suite(const std::vector<PlannedPoint>& points, const RunOptions& options, const SuiteIo& io = {});

/// The one point of `points` that `text` names, for --interleave. `text` is a point as --list
/// prints it, "name/axis=value/..." (e.g. "gemm/N=4096/impl=cublas"), with the axes in any
/// order; an axis whose value is the same for every point of that benchmark in `points` may be
/// left out ("gemm/impl=cublas" when only N=4096 is selected); "device=N" names the device with
/// --device all. A value matches when it is written as --list writes it or, on a real axis,
/// when it is the same number ("0.5" and "5e-1").
/// \throws UsageError naming `text` and what exists: malformed text, no benchmark of that name, no
///   such axis, no such value of the axis, no point or several points matching (listed).
const PlannedPoint& find_point(const std::vector<PlannedPoint>& points, const std::string& text);

/// Measures points `a` (the base) and `b` (the candidate) interleaved, in ABBA rounds
/// (gauge::interleave), instead of one after the other: runs a's body until its `p.run(step)`,
/// then, inside it, b's body until its own, then the interleaved rounds of both experiments;
/// then b's body finishes, then a's. Writes the report (`options.out`: both results as
/// experiments 0 and 1 and the `interleaved` record naming them) and prints the two points and
/// the paired ratio B/A (time of b per step over time of a; below 1: b is faster) with its
/// interval and verdict in `options.format`. `options.threshold`, `max_time` (of the interleaved
/// rounds, both points together) and `target_ci` (of the paired ratio's interval) set the
/// InterleaveConfig; the other settings reach both points' Configs as in run_suite.
/// Exit code in the summary: 0 both measured (whatever the verdict), 1 a point failed, threw or
/// skipped itself (nothing is then interleaved), 2 the two experiments cannot be interleaved
/// (gauge::interleave's ConfigError: other backends, devices or stream pools; nothing measured),
/// 74 the report could not be written.
/// \throws UsageError for invalid interleave settings; ReportError when `options.out` cannot be written.
SuiteSummary run_interleaved_points(const PlannedPoint& a, const PlannedPoint& b, const RunOptions& options,
                                    const SuiteIo& io = {});
}  // namespace suite

/// The whole runner: parses `argv`, then lists, profiles or runs. Returns the exit status (0, 1 or
/// 2); --help and --version print to io.out and return 0.
int main(int argc, char** argv, suite::Registry& registry, const suite::SuiteIo& io = {});

/// The runner over the global registry (what GAUGE_MAIN() calls).
inline int main(int argc, char** argv) {
  suite::SuiteIo io;
  io.compiler = detail::compiler_info();  // this file's compiler, not the one of the runner's compiled part
  return main(argc, argv, suite::Registry::global(), io);
}

}  // namespace gauge

/// Defines `int main(int argc, char** argv)` running every registered benchmark with gauge's
/// runner. Put it (with `#define GAUGE_IMPLEMENTATION` before `#include <gauge/suite.hpp>`) in one
/// file of the program.
#define GAUGE_MAIN() \
  int main(int argc, char** argv) { return ::gauge::main(argc, argv); }
