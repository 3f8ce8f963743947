#pragma once
/// \file gauge/suite/implementation.hpp
/// The runner's compiled part (gauge/suite/runner.hpp): the command line (CLI11), planning the
/// points, running them with progress and NVTX ranges, the tables and the JSON report. Included
/// by <gauge/suite.hpp> in the one file that defines GAUGE_IMPLEMENTATION (or include it once
/// yourself, beside gauge/implementation.hpp). Host code only. Needs CLI11 (2.1 or later).
/// Through CMake, the target gauge::suite compiles it once per build tree
/// (src/suite_implementation.cpp) and defines GAUGE_LINKS_SUITE_IMPLEMENTATION, which makes this
/// header empty: a program that still defines GAUGE_IMPLEMENTATION builds unchanged.

#if !defined(__CUDA_ARCH__) && !defined(GAUGE_LINKS_SUITE_IMPLEMENTATION)

#include <CLI/CLI.hpp>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <mutex>
#include <regex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gauge/report/dump.hpp"
#include "gauge/core/skipped.hpp"
#include "gauge/detail/cuda_available.hpp"
#include "gauge/detail/suite_points.hpp"
#include "gauge/env/environment.hpp"
#include "gauge/report/console.hpp"
#include "gauge/report/export.hpp"
#include "gauge/report/json.hpp"
#include "gauge/suite/axes.hpp"
#include "gauge/suite/interleave_run.hpp"
#include "gauge/suite/nvtx.hpp"
#include "gauge/suite/progress.hpp"
#include "gauge/suite/registry.hpp"
#include "gauge/suite/runner.hpp"
#include "gauge/suite/table.hpp"
#include "gauge/version.hpp"

#if GAUGE_HAS_CUDA_RUNTIME
#include <cuda_runtime.h>
#endif

namespace gauge {
namespace detail::suite {

inline int cuda_device_count() {
#if GAUGE_HAS_CUDA_RUNTIME
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) throw UsageError(std::string("--device all: cudaGetDeviceCount failed: ") + cudaGetErrorString(e));
  return n;
#else
  throw UsageError("--device: this program was built without CUDA (GAUGE_NO_CUDA): there is no device to choose");
#endif
}

/// The devices --device asks for (empty: the current device).
inline std::vector<int> devices_of(const RunOptions& o, const SuiteIo& io) {
  if (!o.device) return {};
  const std::string& d = *o.device;
  if (d == "all") {
    const int n = io.device_count ? io.device_count() : cuda_device_count();
    if (n <= 0) throw UsageError("--device all: no CUDA device found");
    std::vector<int> out;
    for (int i = 0; i < n; ++i) out.push_back(i);
    return out;
  }
  std::int64_t v = -1;
  try {
    v = axes::parse_int(d);
  } catch (const AxisError&) {
    throw UsageError("--device '" + d + "': expected a device ordinal (0, 1, ...) or 'all'");
  }
  if (v < 0 || v > 1023) throw UsageError("--device '" + d + "': expected a device ordinal (0, 1, ...) or 'all'");
  if (io.device_count || GAUGE_HAS_CUDA_RUNTIME) {
    const int n = io.device_count ? io.device_count() : cuda_device_count();
    if (v >= n) throw UsageError("--device '" + d + "': there are " + std::to_string(n) + " devices (0 to " + std::to_string(n - 1) + ")");
  } else {
    cuda_device_count();  // throws: no CUDA in this build
  }
  return {static_cast<int>(v)};
}

/// The progress line: redrawn in place on a terminal by a ticker thread (every 0.5 s, so the
/// elapsed time moves during a long point), once the run is older than progress_delay.
class ProgressDisplay {
 public:
  ProgressDisplay(std::FILE* err, bool enabled, std::function<double()> clock)
      : err_(err), enabled_(enabled), clock_(std::move(clock)), start_(clock_()) {
    if (enabled_) ticker_ = std::thread([this] { tick(); });
  }
  ~ProgressDisplay() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    cv_.notify_all();
    if (ticker_.joinable()) ticker_.join();
    if (drawn_) std::fputs("\r\033[K", err_), std::fflush(err_);
  }
  void begin(std::size_t index, std::size_t total, const std::string& label, std::size_t repetition = 1,
             std::size_t repetitions = 1) {
    std::lock_guard<std::mutex> lock(m_);
    state_.index = index;
    state_.total = total;
    state_.label = label;
    state_.repetition = repetition;
    state_.repetitions = repetitions;
    state_.median_so_far_s.reset();
    state_.samples_so_far = 0;
    draw_locked();
  }
  /// After a measured round of the running point (no drawing here: the ticker redraws).
  void round(double median_s, std::size_t samples) {
    std::lock_guard<std::mutex> lock(m_);
    state_.median_so_far_s = median_s;
    state_.samples_so_far = samples;
  }
  void end(const std::optional<double>& median_s) {
    std::lock_guard<std::mutex> lock(m_);
    ++state_.finished;
    if (median_s) state_.last_median_s = median_s;
    state_.median_so_far_s.reset();
  }
  /// Clears the line before other text goes to stderr.
  void clear() {
    std::lock_guard<std::mutex> lock(m_);
    if (drawn_) std::fputs("\r\033[K", err_), std::fflush(err_);
    drawn_ = false;
  }

 private:
  void draw_locked() {
    if (!enabled_) return;
    state_.elapsed_s = clock_() - start_;
    if (state_.elapsed_s < to_seconds(progress_delay) || state_.total == 0) return;
    std::fprintf(err_, "\r\033[K%s", progress_line(state_).c_str());
    std::fflush(err_);
    drawn_ = true;
  }
  void tick() {
    std::unique_lock<std::mutex> lock(m_);
    while (!stop_) {
      cv_.wait_for(lock, std::chrono::milliseconds(500));
      if (!stop_) draw_locked();
    }
  }

  std::FILE* err_;
  bool enabled_;
  std::function<double()> clock_;
  double start_;
  ProgressState state_;
  bool drawn_ = false;
  bool stop_ = false;
  std::mutex m_;
  std::condition_variable cv_;
  std::thread ticker_;
};

/// Seconds as --min-time/--max-time take them: a number, optionally with a unit (s, ms, us),
/// in [0, 3600] s. Returns the error text ("" when valid).
inline std::string parse_seconds(const std::string& text, Nanoseconds& out) {
  std::string t = text;
  double scale = 1;
  for (const auto& [suffix, f] : std::vector<std::pair<std::string, double>>{{"ms", 1e-3}, {"us", 1e-6}, {"s", 1}}) {
    if (t.size() > suffix.size() && t.compare(t.size() - suffix.size(), suffix.size(), suffix) == 0) {
      t = t.substr(0, t.size() - suffix.size());
      scale = f;
      break;
    }
  }
  double v = 0;
  try {
    v = axes::parse_real(t) * scale;
  } catch (const AxisError&) {
    return "'" + text + "' is not seconds (e.g. 0.5, 0.5s, 500ms)";
  }
  if (!(v >= 0) || v > 3600) return "'" + text + "' is not seconds in [0, 3600]";
  out = Nanoseconds(static_cast<long long>(v * 1e9 + 0.5));
  return "";
}

/// The one-line reason of a CLI11 parse error (unknown options by name; no line breaks).
inline std::string usage_reason(const CLI::App& app, const CLI::ParseError& e) {
  if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
    std::string out;
    for (const auto& a : app.remaining()) out += (out.empty() ? "" : ", ") + std::string("'") + a + "'";
    if (!out.empty()) return "unknown option or argument " + out;
  }
  std::string text = e.what();
  for (auto& ch : text)
    if (ch == '\n' || ch == '\r') ch = ' ';
  return text;
}

}  // namespace detail::suite

std::vector<PlannedPoint> plan_points(const Registry& registry, const RunOptions& o, const SuiteIo& io) {
  // --axis: each must name an axis of some benchmark; its values are parsed per benchmark's kind.
  std::vector<std::vector<Axis>> axes;
  for (const auto& b : registry.benchmarks()) axes.push_back(b->axes());
  for (const std::string& text : o.axes) {
    try {
      const AxisOverride ov = parse_axis_override(text);
      bool found = false;
      for (auto& list : axes)
        for (auto& a : list)
          if (a.name == ov.name) {
            auto [values, pow2] = parse_axis_values(a.kind, ov.values_text, a.values, ov.power_of_two);
            a.values = std::move(values);
            a.power_of_two = pow2;
            found = true;
          }
      if (!found) {
        std::string names;
        for (const auto& list : axes)
          for (const auto& a : list)
            if (names.find("'" + a.name + "'") == std::string::npos) names += (names.empty() ? "" : ", ") + ("'" + a.name + "'");
        throw AxisError("no benchmark has an axis '" + ov.name + "' (axes: " + (names.empty() ? "none" : names) + ")");
      }
    } catch (const AxisError& e) {
      throw UsageError("--axis '" + text + "': " + e.what());
    }
  }
  std::optional<std::regex> filter;
  if (o.filter) {
    try {
      filter.emplace(*o.filter, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      throw UsageError("--filter '" + *o.filter + "': not a regular expression (" + e.what() + ")");
    }
  }
  const std::vector<int> devices = detail::suite::devices_of(o, io);
  std::vector<std::optional<int>> device_list;
  if (devices.empty()) device_list.push_back(std::nullopt);
  for (int d : devices) device_list.emplace_back(d);

  // The product of the axes (times the devices) is bounded before anything is planned: 10^5
  // values on each of two axes would be 10^10 points.
  for (std::size_t bi = 0; bi < registry.benchmarks().size(); ++bi) {
    double product = static_cast<double>(device_list.size());
    std::string sizes;
    for (const auto& a : axes[bi]) {
      product *= static_cast<double>(a.values.size());
      sizes += (sizes.empty() ? "" : " x ") + std::to_string(a.values.size()) + " (" + a.name + ")";
    }
    if (product > static_cast<double>(max_points))
      throw UsageError("benchmark '" + registry.benchmarks()[bi]->name() + "' would have " + fmt::format("{:.3g}", product) +
                       " points (" + sizes + (device_list.size() > 1 ? " x " + std::to_string(device_list.size()) + " devices" : "") +
                       "), more than " + std::to_string(max_points) + ": narrow its axes with --axis");
  }
  std::vector<PlannedPoint> out;
  for (std::size_t bi = 0; bi < registry.benchmarks().size(); ++bi) {
    const Benchmark& b = *registry.benchmarks()[bi];
    const std::vector<Axis>& list = axes[bi];
    std::vector<std::size_t> idx(list.size(), 0);  // odometer: the last axis varies fastest
    for (bool more = true; more;) {
      for (const auto& device : device_list) {
        PlannedPoint p;
        p.benchmark = &b;
        p.device = device;
        p.device_dimension = device_list.size() > 1;
        p.label = b.name();
        for (std::size_t i = 0; i < list.size(); ++i) {
          p.values.emplace_back(list[i].name, list[i].values[idx[i]]);
          p.label += "/" + list[i].name + "=" + to_string(list[i].values[idx[i]]);
        }
        if (p.device_dimension) p.label += "/device=" + std::to_string(*device);
        if (!filter || std::regex_search(p.label, *filter)) out.push_back(std::move(p));
      }
      more = false;
      for (std::size_t i = list.size(); i-- > 0;) {
        if (++idx[i] < list[i].values.size()) {
          more = true;
          break;
        }
        idx[i] = 0;
      }
    }
  }
  return out;
}

SuiteSummary run_suite(const std::vector<PlannedPoint>& points, const RunOptions& o, const SuiteIo& io) {
  using namespace detail::suite;
  const auto clock = io.clock ? io.clock : std::function<double()>(steady_seconds);
  const double t0 = clock();
  SuiteSummary summary;
  summary.points = points.size();
  if (o.repetitions == 0) throw UsageError("run_suite: RunOptions::repetitions must be >= 1, got 0");
  const std::size_t repetitions = o.repetitions;
  summary.repetitions = repetitions;
  const bool terminal = io.err_is_terminal ? *io.err_is_terminal : ::isatty(::fileno(io.err)) != 0;

  if (o.profile) {
    for (const PlannedPoint& pp : points) {
      Config c;
      std::string error = configure_point(c, pp, o).value_or("");
      Point p(pp.benchmark->name(), pp.values, c, PointMode::profile, o.profile_settings);
      if (pp.device_dimension) p.add_dimension("device", std::int64_t{*pp.device});
      if (error.empty()) try {
        pp.benchmark->body()(p);
        if (!p.skip_reason() && !p.ran()) error = "the benchmark neither ran nor skipped the point";
      } catch (const std::exception& e) {
        error = e.what();
      } catch (...) {
        error = "unknown exception";
      }
      if (!error.empty()) {
        ++summary.failed;
        std::fprintf(io.err, "gauge: %s: failed: %s\n", pp.label.c_str(), error.c_str());
      } else if (p.skip_reason()) {
        ++summary.skipped;
        if (!o.quiet) std::fprintf(io.err, "gauge: %s: skipped: %s\n", pp.label.c_str(), p.skip_reason()->c_str());
      } else {
        ++summary.ok;
        if (!o.quiet)
          std::fprintf(io.err, "gauge: %s: profiled one step after %zu warm-up steps\n", pp.label.c_str(),
                       p.profile_warmup_steps());
      }
    }
    summary.wall_time_s = clock() - t0;
    summary.exit_code = summary.failed ? 1 : 0;
    return summary;
  }

  if (!o.out.empty()) check_writable(o.out);  // before anything is measured
  const Environment env = io.environment ? io.environment() : detail::suite::environment_of(io);
  std::vector<Result> results;
  std::vector<SkippedPoint> skipped;
  // Rows per benchmark, in run order: {point, true, i} a result, {point, false, i} a skipped point.
  struct Row {
    std::size_t point;
    bool is_result;
    std::size_t index;
  };
  std::map<const Benchmark*, std::vector<Row>> rows;
  std::vector<bool> point_skipped(points.size(), false);  // skipped in an earlier round: not run again
  // A write that fails (the disk filled, the folder went away) loses nothing already measured:
  // the run goes on, the tables are printed, and the run ends with exit 74 naming the file.
  std::optional<std::string> write_error;
  auto write_report = [&] {
    if (o.out.empty()) return;
    try {
      write_file_atomic(o.out, json_dump(report_json(env, results, std::vector<TimerSummary>{}, skipped), 2) + "\n");
      write_error.reset();
    } catch (const std::exception& e) {
      if (!write_error) std::fprintf(io.err, "\ngauge: warning: %s (the run goes on; it is tried again)\n", e.what());
      write_error = e.what();
    }
  };
  double last_write = clock();
  {
    ProgressDisplay progress(io.err, terminal && !o.quiet, clock);
    // Rounds over the whole suite: every point once, then every point again, ... (--repetitions).
    for (std::size_t run = 0; run < repetitions * points.size(); ++run) {
      const std::size_t round = run / points.size(), i = run % points.size();
      if (point_skipped[i]) continue;
      const PlannedPoint& pp = points[i];
      progress.begin(run + 1, repetitions * points.size(), pp.label, round + 1, repetitions);
      Config c;
      std::optional<std::string> error = configure_point(c, pp, o);
      Point p(pp.benchmark->name(), pp.values, c, PointMode::measure);
      if (pp.device_dimension) p.add_dimension("device", std::int64_t{*pp.device});
      p.set_on_round([&progress](double median_s, std::size_t samples) { progress.round(median_s, samples); });
      if (!error) {
        NvtxRange range(pp.label);
        try {
          pp.benchmark->body()(p);
        } catch (const std::exception& e) {
          error = std::string("the benchmark threw: ") + e.what();
        } catch (...) {
          error = "the benchmark threw an unknown exception";
        }
      }
      std::optional<double> median;
      if (p.skip_reason() && !p.result()) {
        skipped.push_back(SkippedPoint{pp.benchmark->name(), p.dimensions(), *p.skip_reason()});
        rows[pp.benchmark].push_back(Row{i, false, skipped.size() - 1});
        point_skipped[i] = true;
        ++summary.skipped;
      } else {
        Result r;
        if (p.result()) {
          r = std::move(*p.result());
          if (error) {  // threw after run(): keep what was measured, failed
            r.status = Status::failed;
            r.error = r.error ? *r.error + "; " + *error : *error;
          }
        } else {
          r = failed_point(p, c, error.value_or("the benchmark neither ran nor skipped the point (call p.run(step) or p.skip(reason))"));
        }
        if (repetitions > 1) r.repetition = round;
        summary.points_time_s += r.total_time_s;
        if (r.status == Status::ok) ++summary.ok;
        else ++summary.failed;
        median = r.gpu_time.p50;
        results.push_back(std::move(r));
        rows[pp.benchmark].push_back(Row{i, true, results.size() - 1});
      }
      progress.end(median);
      // Keep what was measured on disk as it goes (a crash later loses nothing), at most every 5 s.
      if (!o.out.empty() && clock() - last_write >= 5.0) {
        write_report();
        last_write = clock();
      }
    }
  }
  write_report();

  std::string text;
  if (o.format == "json") {
    text = json_dump(report_json(env, results, std::vector<TimerSummary>{}, skipped), 2) + "\n";
  } else if (o.format == "csv") {
    text = csv_table(results);
  } else {
    const TableStyle style = o.format == "markdown" ? TableStyle::markdown : TableStyle::console;
    std::vector<const Benchmark*> order;
    for (const auto& pp : points)
      if (std::find(order.begin(), order.end(), pp.benchmark) == order.end()) order.push_back(pp.benchmark);
    for (const Benchmark* b : order) {
      std::vector<std::string> axis_names;
      for (const auto& a : b->axes()) axis_names.push_back(a.name);
      bool device_column = false;
      std::vector<SweepRow> table_rows;
      // The repetitions of a point side by side (in point order, then round).
      std::vector<Row>& ordered = rows[b];
      std::stable_sort(ordered.begin(), ordered.end(), [](const Row& x, const Row& y) { return x.point < y.point; });
      for (const Row& row : ordered) {
        table_rows.push_back(row.is_result ? sweep_row(results[row.index]) : sweep_row(skipped[row.index]));
        if (row.is_result && results[row.index].repetition)
          table_rows.back().repetition = std::to_string(*results[row.index].repetition + 1) + "/" + std::to_string(repetitions);
        if (table_rows.back().dimensions.count("device")) device_column = true;
      }
      if (device_column) axis_names.emplace_back("device");
      text += style == TableStyle::markdown ? "## " + b->name() + "\n\n" : b->name() + "\n";
      text += sweep_table(axis_names, table_rows, style) + "\n";
    }
    if (o.kernels) text += kernel_table(results);
  }
  write_text(io.out, text);

  summary.wall_time_s = clock() - t0;
  summary.exit_code = summary.failed ? 1 : 0;
  if (write_error) {
    std::fprintf(io.err, "gauge: error: the report was not written: %s\n", write_error->c_str());
    summary.exit_code = 74;  // EX_IOERR, as gauge's tools
  }
  if (!o.quiet) {
    const double overhead = summary.wall_time_s - summary.points_time_s;
    // "6 points" or, with repetitions, "6 points x 3 repetitions" (ok and failed count runs;
    // skipped counts points, which run once).
    const std::string counted = repetitions > 1 ? fmt::format("{} points x {} repetitions", summary.points, repetitions)
                                                : fmt::format("{} points", summary.points);
    std::fprintf(io.err,
                 "gauge: %s (%zu ok, %zu failed, %zu skipped) in %s; the points' own run time %s, the "
                 "runner's %s (%.1f %%)%s\n",
                 counted.c_str(), summary.ok, summary.failed, summary.skipped, format_duration(summary.wall_time_s).c_str(),
                 format_duration(summary.points_time_s).c_str(), format_duration(overhead).c_str(),
                 summary.wall_time_s > 0 ? 100 * overhead / summary.wall_time_s : 0.0,
                 o.out.empty() ? "" : ("; report: " + o.out).c_str());
  }
  return summary;
}

int main(int argc, char** argv, Registry& registry, const SuiteIo& io) {
  RunOptions o;
  CLI::App app("Runs the benchmarks of this program over their axes (gauge " + std::string(version_string) + ")",
               argc > 0 && argv[0] ? std::string(argv[0]).substr(std::string(argv[0]).find_last_of('/') + 1) : "gauge");
  app.set_version_flag("--version", std::string("gauge ") + version_string, "Print gauge's version and exit");
  app.add_flag("-l,--list", o.list, "List the points that would run (name/axis=value/...) and exit");
  std::string filter, device;
  CLI::Option* filter_option =
      app.add_option("-f,--filter", filter, "Only points whose name/axis=value/... matches REGEX (searched)")->type_name("REGEX");
  app.add_option("-a,--axis", o.axes, "Replace an axis's values: 'N=[1024,4096]', 'N=2^[10:30:2]', 'N=[1:10:3]', 'T=[float]' (repeatable)")
      ->type_name("AXIS")->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  CLI::Option* device_option =
      app.add_option("-d,--device", device, "Run on device N, or each point on every device (all)")->type_name("N|all");
  app.add_option("-o,--out", o.out, "Write the JSON report to FILE")->type_name("FILE");
  app.add_option("--format", o.format, "What to print on stdout: console tables, markdown tables, csv, or the json report")
      ->check(CLI::IsMember({"console", "markdown", "csv", "json"}));
  std::string min_time, max_time, target_ci;
  app.add_option("--min-time", min_time, "Least measuring time per point, seconds (0.5, 0.5s, 500ms; default gauge's 40 ms)")->type_name("S");
  app.add_option("--max-time", max_time, "Most measuring time per point, seconds (default gauge's 10 s)")->type_name("S");
  app.add_option("--target-ci", target_ci, "Stop when the median's CI is narrower than this fraction of it (0.005 or 0.5%)")->type_name("X");
  app.add_flag("--cold", o.cold, "Flush the L2 cache before every step (outside the timing)");
  app.add_flag("--graph", o.graph, "Time replays of a CUDA graph of the steps");
  app.add_flag("--kernels", o.kernels, "Trace the kernels inside each step with CUPTI after measuring (report: kernel_trace; console: a table per point)");
  std::string repetitions;
  CLI::Option* repetitions_option = app.add_option("--repetitions", repetitions,
                 "Run every point N times, in N rounds over the whole suite (each point once, then again, ...); each "
                 "run is its own result with its repetition (default 1)")
      ->type_name("N");
  app.add_flag("--profile", o.profile, "For each point: a short warm-up, then one step between cudaProfilerStart/Stop, untimed (for ncu/nsys --profile-from-start off)");
  CLI::Option* interleave_option =
      app.add_option("--interleave", o.interleave,
                     "Instead of the suite, measure two points A and B (as --list names them: name/axis=value/..., "
                     "an axis with one value may be left out) in alternating ABBA rounds, and print the paired "
                     "ratio B/A of their times with its interval and verdict (faster, slower, same, inconclusive); "
                     "the report holds both and the interleaved record. --max-time is then the interleaved rounds' "
                     "(both together, default 20 s), --target-ci the paired ratio's")
          ->type_name("POINT")
          ->expected(2);
  std::string threshold;
  CLI::Option* threshold_option = app.add_option("--threshold", threshold,
                 "With --interleave: the verdict's noise threshold on B/A (0.02 or 2%; default 2%): same within 1 +- it")
      ->type_name("X");
  app.add_flag("-q,--quiet", o.quiet, "No progress line and no summary on stderr");
  app.footer("Exit status: 0 every point ran (or was skipped; with --interleave: both measured, whatever the verdict), "
             "1 a point failed, 2 bad usage.");
  auto usage = [&](const std::string& reason) {
    std::fprintf(io.err, "%s: error: %s (see --help)\n", app.get_name().c_str(), reason.c_str());
    return 2;
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    if (dynamic_cast<const CLI::CallForVersion*>(&e)) detail::suite::write_text(io.out, std::string("gauge ") + version_string + "\n");
    else detail::suite::write_text(io.out, app.help());
    return 0;
  } catch (const CLI::ParseError& e) {
    return usage(detail::suite::usage_reason(app, e));
  }
  if (filter_option->count()) o.filter = filter;
  if (device_option->count()) o.device = device;
  if (!min_time.empty()) {
    Nanoseconds v{};
    if (auto err = detail::suite::parse_seconds(min_time, v); !err.empty()) return usage("--min-time " + err);
    o.min_time = v;
  }
  if (!max_time.empty()) {
    Nanoseconds v{};
    if (auto err = detail::suite::parse_seconds(max_time, v); !err.empty()) return usage("--max-time " + err);
    o.max_time = v;
  }
  if (o.min_time && o.max_time && *o.min_time > *o.max_time)
    return usage("--min-time '" + min_time + "' is longer than --max-time '" + max_time + "'");
  // A fraction in (0, 1), as a number or a percentage: --target-ci 0.005 or 0.5%.
  auto fraction = [](const std::string& text, double& out) {
    std::string t = text;
    const bool percent = !t.empty() && t.back() == '%';
    if (percent) t.pop_back();
    try {
      out = detail::axes::parse_real(t) * (percent ? 0.01 : 1.0);
    } catch (const AxisError&) {
      return std::string("is not a number");
    }
    return out > 0 && out < 1 ? std::string() : std::string("is not in (0, 1)");
  };
  if (!target_ci.empty()) {
    double v = 0;
    if (auto err = fraction(target_ci, v); !err.empty()) return usage("--target-ci '" + target_ci + "' " + err + " (e.g. 0.005 or 0.5%)");
    o.target_ci = v;
  }
  if (threshold_option->count()) {
    if (!interleave_option->count()) return usage("--threshold '" + threshold + "' applies to --interleave only (the paired verdict)");
    double v = 0;
    if (auto err = fraction(threshold, v); !err.empty()) return usage("--threshold '" + threshold + "' " + err + " (e.g. 0.02 or 2%)");
    o.threshold = v;
  }
  if (repetitions_option->count()) {
    std::int64_t v = 0;
    try {
      v = detail::axes::parse_int(repetitions);
    } catch (const AxisError&) {
      v = 0;
    }
    if (v < 1) return usage("--repetitions '" + repetitions + "': expected a whole number >= 1");
    o.repetitions = static_cast<std::size_t>(v);
  }
  if (o.profile && o.repetitions > 1) return usage("--profile runs one step per point: --repetitions does not apply");
  if (o.profile && (!o.out.empty() || o.format != "console"))
    return usage("--profile times nothing: it writes no report (--out) and no table (--format)");
  if (!o.interleave.empty()) {
    if (o.profile) return usage("--profile times nothing: --interleave does not apply");
    if (o.repetitions > 1)
      return usage("--interleave measures A and B in alternating rounds of one run: --repetitions does not apply");
  }
  std::vector<PlannedPoint> points;
  try {
    points = plan_points(registry, o, io);
  } catch (const UsageError& e) {
    return usage(e.what());
  }
  if (!o.interleave.empty()) {
    try {
      const PlannedPoint& a = find_point(points, o.interleave.at(0));
      const PlannedPoint& b = find_point(points, o.interleave.at(1));
      if (&a == &b) return usage("--interleave: A and B are the same point '" + a.label + "': name two different points");
      detail::suite::interleave_config(o);  // its settings, checked before anything runs
      if (o.list) {
        detail::suite::write_text(io.out, a.label + "\n" + b.label + "\n");
        return 0;
      }
      return run_interleaved_points(a, b, o, io).exit_code;
    } catch (const UsageError& e) {
      return usage(e.what());
    } catch (const ReportError& e) {
      std::fprintf(io.err, "%s: error: %s\n", app.get_name().c_str(), e.what());
      return 2;
    }
  }
  if (o.list) {
    std::string text;
    for (const auto& p : points) text += p.label + "\n";
    detail::suite::write_text(io.out, text);
    return 0;
  }
  if (points.empty()) return usage(o.filter ? "--filter '" + *o.filter + "' matches no point" : std::string("no benchmark is registered"));
  try {
    return run_suite(points, o, io).exit_code;
  } catch (const ReportError& e) {
    std::fprintf(io.err, "%s: error: %s\n", app.get_name().c_str(), e.what());
    return 2;
  }
}

}  // namespace gauge

#endif  // !defined(__CUDA_ARCH__) && !defined(GAUGE_LINKS_SUITE_IMPLEMENTATION)
