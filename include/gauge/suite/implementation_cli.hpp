#pragma once
/// \file gauge/suite/implementation_cli.hpp
/// The runner's command line (`gauge::main`, gauge/suite/runner.hpp declares it): the options
/// parsed with CLI11 (2.1 or later) and checked, then --list, --interleave or the suite.
/// A compiled part of gauge/suite/implementation.hpp, which includes it: host code only, and
/// empty under GAUGE_LINKS_SUITE_IMPLEMENTATION, as that header is.
/// Part of gauge/suite/implementation.hpp only: not a header to include on its own (the header
/// isolation test leaves it out; src/suite_implementation.cpp compiles it with the others).

#if !defined(__CUDA_ARCH__) && !defined(GAUGE_LINKS_SUITE_IMPLEMENTATION)

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "gauge/detail/suite_points.hpp"
#include "gauge/suite/axes.hpp"
#include "gauge/suite/output.hpp"
#include "gauge/suite/interleave_run.hpp"
#include "gauge/suite/registry.hpp"
#include "gauge/suite/runner.hpp"
#include "gauge/version.hpp"

namespace gauge {
namespace detail::suite_run {

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

/// --list --format json: the points as a JSON array, one object per point in run order,
/// `{"label": "k/A=1/B=x", "benchmark": "k", "axes": {"A": 1, "B": "x"}, "device": null}`: the
/// label --filter matches and --interleave takes, the benchmark's name (the experiments' `name`),
/// the axis values in axis order (integers and reals as numbers, strings and types as strings),
/// and --device's ordinal for the point (null: the current device).
inline std::string points_json(const std::vector<const suite::PlannedPoint*>& points) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const suite::PlannedPoint* p : points) {
    nlohmann::ordered_json axes = nlohmann::ordered_json::object();
    for (const auto& [name, value] : p->values)
      std::visit([&axes, &name = name](const auto& v) { axes[name] = v; }, value);
    nlohmann::ordered_json point;
    point["label"] = p->label;
    point["benchmark"] = p->benchmark->name();
    point["axes"] = std::move(axes);
    point["device"] = p->device ? nlohmann::ordered_json(*p->device) : nlohmann::ordered_json(nullptr);
    list.push_back(std::move(point));
  }
  return list.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
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

}  // namespace detail::suite_run

int main(int argc, char** argv, suite::Registry& registry, const suite::SuiteIo& io) {
  suite::RunOptions o;
  CLI::App app("Runs the benchmarks of this program over their axes (gauge " + std::string(version_string) + ")",
               argc > 0 && argv[0] ? std::string(argv[0]).substr(std::string(argv[0]).find_last_of('/') + 1) : "gauge");
  app.set_version_flag("--version", std::string("gauge ") + version_string, "Print gauge's version and exit");
  app.add_flag("-l,--list", o.list,
               "List the points that would run (name/axis=value/...) and exit; with --format json as a JSON array of "
               "{label, benchmark, axes, device}");
  std::string filter, device;
  CLI::Option* filter_option =
      app.add_option("-f,--filter", filter, "Only points whose name/axis=value/... matches REGEX (searched)")->type_name("REGEX");
  app.add_option("-a,--axis", o.axes, "Replace an axis's values: 'N=[1024,4096]', 'N=2^[10:30:2]', 'N=[1:10:3]', 'T=[float]'; "
                 "'BENCH/N=[...]' for one benchmark's axis only (repeatable)")
      ->type_name("AXIS")->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  CLI::Option* device_option =
      app.add_option("-d,--device", device, "Run on device N, or each point on every device (all)")->type_name("N|all");
  CLI::Option* out_option = app.add_option("-o,--out", o.out, "Write the JSON report to FILE")->type_name("FILE");
  app.add_option("--format", o.format, detail::runner_format_help())->check(CLI::IsMember(detail::runner_format_names()));
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
  bool quick = false;
  app.add_flag("--quick", quick,
               "Quick settings: at most 1 s of warm-up and 1 s of measuring per point, 2 % target CI (defaults: 3 s + "
               "10 s, 0.5 %); --max-time and --target-ci still override");
  app.add_flag("-q,--quiet", o.quiet, "No progress line and no summary on stderr");
  app.footer("Exit status: 0 every point ran (or was skipped; with --interleave: both measured, whatever the verdict), "
             "1 a point failed, 2 bad usage, 74 the report could not be written, 128 + N stopped by signal N "
             "(SIGINT 130, SIGTERM 143: the running point ends at its next round, the report keeps what finished).");
  auto usage = [&](const std::string& reason) {
    std::fprintf(io.err, "%s: error: %s (see --help)\n", app.get_name().c_str(), reason.c_str());
    return 2;
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    if (dynamic_cast<const CLI::CallForVersion*>(&e)) detail::suite_run::write_text(io.out, std::string("gauge ") + version_string + "\n");
    else detail::suite_run::write_text(io.out, app.help());
    return 0;
  } catch (const CLI::ParseError& e) {
    return usage(detail::suite_run::usage_reason(app, e));
  }
  if (filter_option->count()) o.filter = filter;
  if (device_option->count()) o.device = device;
  if (!min_time.empty()) {
    Nanoseconds v{};
    if (auto err = detail::suite_run::parse_seconds(min_time, v); !err.empty()) return usage("--min-time " + err);
    o.min_time = v;
  }
  if (!max_time.empty()) {
    Nanoseconds v{};
    if (auto err = detail::suite_run::parse_seconds(max_time, v); !err.empty()) return usage("--max-time " + err);
    o.max_time = v;
  }
  if (quick) {
    const Config q = Config::quick();
    if (!o.max_time) o.max_time = q.measure.max_time;
    if (!o.warmup_max_time) o.warmup_max_time = q.warmup.max_time;
  }
  if (o.min_time && o.max_time && *o.min_time > *o.max_time)
    return usage("--min-time '" + min_time + "' is longer than " +
                 (max_time.empty() ? std::string("--quick's 1 s of measuring") : "--max-time '" + max_time + "'"));
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
  if (quick && !o.target_ci) o.target_ci = Config::quick().measure.target_relative_ci_width;
  if (threshold_option->count()) {
    if (!interleave_option->count()) return usage("--threshold '" + threshold + "' applies to --interleave only (the paired verdict)");
    double v = 0;
    if (auto err = fraction(threshold, v); !err.empty()) return usage("--threshold '" + threshold + "' " + err + " (e.g. 0.02 or 2%)");
    o.threshold = v;
  }
  // `--out ""` (an unset shell variable in `--out "$REPORT"`) would measure everything and write
  // no report, saying nothing: refused before anything runs.
  if (out_option->count() && o.out.empty())
    return usage("--out '': the report's path is empty (an unset variable?): name a file, or leave --out out to write no report");
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
  // --list prints points, not results: as text, or as JSON with --format json; a results format
  // (csv, gbench, markdown, ...) has nothing to hold, and printing text instead would break the
  // reader that asked for it.
  if (o.list && o.format != "console" && o.format != "json")
    return usage("--list prints the points as text, or as JSON with --format json: --format " + o.format +
                 " writes results, and --list runs nothing");
  if (o.profile && o.repetitions > 1) return usage("--profile runs one step per point: --repetitions does not apply");
  if (o.profile && (!o.out.empty() || o.format != "console"))
    return usage("--profile times nothing: it writes no report (--out) and no table (--format)");
  if (!o.interleave.empty()) {
    if (o.profile) return usage("--profile times nothing: --interleave does not apply");
    if (o.repetitions > 1)
      return usage("--interleave measures A and B in alternating rounds of one run: --repetitions does not apply");
  }
  std::vector<suite::PlannedPoint> points;
  try {
    points = suite::plan_points(registry, o, io);
  } catch (const UsageError& e) {
    return usage(e.what());
  }
  if (!o.interleave.empty()) {
    try {
      const suite::PlannedPoint& a = suite::find_point(points, o.interleave.at(0));
      const suite::PlannedPoint& b = suite::find_point(points, o.interleave.at(1));
      if (&a == &b) return usage("--interleave: A and B are the same point '" + a.label + "': name two different points");
      detail::suite_run::interleave_config(o); // its settings, checked before anything runs
      if (o.list) {
        detail::suite_run::write_text(io.out, o.format == "json" ? detail::suite_run::points_json({&a, &b}) : a.label + "\n" + b.label + "\n");
        return 0;
      }
      return suite::run_interleaved_points(a, b, o, io).exit_code;
    } catch (const UsageError& e) {
      return usage(e.what());
    } catch (const ReportError& e) {
      std::fprintf(io.err, "%s: error: %s\n", app.get_name().c_str(), e.what());
      return 2;
    }
  }
  // --list with a filter that matches nothing is the same mistake as a run with it (exit 2).
  if (o.list && !(points.empty() && o.filter)) {
    std::string text;
    if (o.format == "json") {
      std::vector<const suite::PlannedPoint*> listed;
      for (const auto& p : points) listed.push_back(&p);
      text = detail::suite_run::points_json(listed);
    } else {
      for (const auto& p : points) text += p.label + "\n";
    }
    if (detail::suite_run::write_text(io.out, text)) return 0;
    std::fprintf(io.err, "%s: error: standard output could not be written: %s\n", app.get_name().c_str(),
                 std::strerror(errno ? errno : EIO));
    return 74;
  }
  if (points.empty()) return usage(o.filter ? "--filter '" + *o.filter + "' matches no point" : std::string("no benchmark is registered"));
  try {
    return suite::run_suite(points, o, io).exit_code;
  } catch (const ReportError& e) {
    std::fprintf(io.err, "%s: error: %s\n", app.get_name().c_str(), e.what());
    return 2;
  }
}

}  // namespace gauge

#endif  // !defined(__CUDA_ARCH__) && !defined(GAUGE_LINKS_SUITE_IMPLEMENTATION)
