#pragma once
/// \file gauge/suite/interleave_run.hpp
/// The runner's --interleave A B (compiled part; gauge/suite/runner.hpp declares it): naming a
/// point by its text (`find_point`) and measuring two points interleaved in ABBA rounds
/// (`run_interleaved_points`) through gauge::interleave's protocol, with the report's
/// `interleaved` record and the paired ratio on the console. Included by
/// gauge/suite/implementation.hpp; host code only.
///
/// How two bodies run at once: a point's body prepares its data, calls `p.run(step)` and frees
/// the data after it returns, so both steps are alive only while both bodies are inside run().
/// A's body runs first; its run() (PointMode::interleave) hands A's experiment to the runner,
/// which runs B's body inside that call; B's run() hands B's experiment over, and the
/// interleaved rounds of both run there. Then B's body returns, then A's: one thread, nested,
/// and neither body runs concurrently with the other.
/// Part of gauge/suite/implementation.hpp only: not a header to include on its own (the header
/// isolation test leaves it out; src/suite_implementation.cpp compiles it with the others).

#if !defined(__CUDA_ARCH__) && !defined(GAUGE_LINKS_SUITE_IMPLEMENTATION)  // the suite's compiled part, as suite/implementation.hpp

#include <algorithm>
#include <cstddef>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gauge/detail/fmt.hpp"

#include "gauge/core/environment.hpp"
#include "gauge/core/error.hpp"
#include "gauge/core/format.hpp"
#include "gauge/core/interleaved.hpp"
#include "gauge/core/skipped.hpp"
#include "gauge/core/stop.hpp"
#include "gauge/detail/suite_points.hpp"
#include "gauge/env/environment.hpp"
#include "gauge/report/dump.hpp"
#include "gauge/report/export.hpp"
#include "gauge/report/json.hpp"
#include "gauge/suite/axes.hpp"
#include "gauge/suite/nvtx.hpp"
#include "gauge/suite/output.hpp"
#include "gauge/suite/progress.hpp"
#include "gauge/suite/registry.hpp"
#include "gauge/suite/runner.hpp"
#include "gauge/report/sweep_table.hpp"

namespace gauge {
namespace detail::suite_run {

/// The environment the runner records: captured now, with the compiler of the file that called
/// gauge::main (SuiteIo::compiler) where it is known.
inline Environment environment_of(const suite::SuiteIo& io) {
  Environment env = capture_environment();
  if (io.compiler) env.compiler = *io.compiler;
  return env;
}

/// "a, b, c" of at most `most` texts, then "... (N in all)".
inline std::string listed(const std::vector<std::string>& texts, std::size_t most = 8) {
  std::string s;
  for (std::size_t i = 0; i < texts.size() && i < most; ++i) s += (i ? ", " : "") + texts[i];
  if (texts.size() > most) s += ", ... (" + std::to_string(texts.size()) + " in all)";
  return s;
}

/// Whether `v` is what `text` names: the text --list writes for it or, on a real axis, the same number.
inline bool value_matches(const DimensionValue& v, const std::string& text) {
  if (gauge::to_string(v) == text) return true;
  if (const double* d = std::get_if<double>(&v)) {
    try {
      return axes::parse_real(text) == *d;
    } catch (const AxisError&) {
      return false;
    }
  }
  return false;
}

/// The point's value of `key` (an axis, or "device" when the device is a dimension); null if none.
inline std::optional<DimensionValue> point_value(const suite::PlannedPoint& p, const std::string& key) {
  for (const auto& [k, v] : p.values)
    if (k == key) return v;
  if (key == "device" && p.device_dimension && p.device) return DimensionValue{std::int64_t{*p.device}};
  return std::nullopt;
}

/// The interleaved run's settings from the command line (gauge's defaults otherwise).
/// \throws UsageError naming the option whose value InterleaveConfig refuses.
inline InterleaveConfig interleave_config(const suite::RunOptions& o) {
  InterleaveConfig c;
  if (o.threshold) c.threshold = *o.threshold;
  if (o.max_time) c.max_time = *o.max_time;
  if (o.target_ci) c.target_relative_ci_width = *o.target_ci;
  if (o.max_time && *o.max_time <= Nanoseconds::zero())
    throw UsageError("--max-time 0: the interleaved rounds need a time > 0 (both points together)");
  try {
    validate(c);
  } catch (const ConfigError& e) {
    throw UsageError(std::string("--interleave: ") + e.what());
  }
  return c;
}

}  // namespace detail::suite_run

namespace suite {
const PlannedPoint& find_point(const std::vector<PlannedPoint>& points, const std::string& text) {
  using detail::suite_run::listed;
  const auto fail = [&text](const std::string& why) { return UsageError("--interleave '" + text + "': " + why); };
  const char* form = "expected NAME/AXIS=VALUE/... as --list prints it";
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const std::size_t slash = text.find('/', start);
    parts.push_back(text.substr(start, slash == std::string::npos ? std::string::npos : slash - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  if (parts[0].empty()) throw fail(std::string("no benchmark name: ") + form);
  std::vector<std::pair<std::string, std::string>> wanted;  // axis, value text
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::size_t eq = parts[i].find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == parts[i].size())
      throw fail("'" + parts[i] + "' is not AXIS=VALUE: " + form);
    std::string key = parts[i].substr(0, eq);
    for (const auto& w : wanted)
      if (w.first == key) throw fail("axis '" + key + "' is named twice");
    wanted.emplace_back(std::move(key), parts[i].substr(eq + 1));
  }
  const std::string& name = parts[0];
  std::vector<const PlannedPoint*> match;
  std::vector<std::string> benchmarks;
  for (const auto& p : points) {
    if (p.benchmark->name() == name) match.push_back(&p);
    if (std::find(benchmarks.begin(), benchmarks.end(), p.benchmark->name()) == benchmarks.end())
      benchmarks.push_back(p.benchmark->name());
  }
  if (match.empty())
    throw fail("no benchmark '" + name + "' among the points (benchmarks: " +
               (benchmarks.empty() ? std::string("none") : listed(benchmarks)) + ")");
  for (std::size_t wi = 0; wi < wanted.size(); ++wi) {
    const std::string& key = wanted[wi].first;
    const std::string& value = wanted[wi].second;
    std::vector<std::string> keys;  // the point's axes (and device), to name them
    for (const auto& kv : match.front()->values) keys.push_back(kv.first);
    if (match.front()->device_dimension) keys.emplace_back("device");
    if (std::find(keys.begin(), keys.end(), key) == keys.end())
      throw fail("benchmark '" + name + "' has no axis '" + key + "' (its axes: " +
                 (keys.empty() ? std::string("none") : listed(keys)) + ")");
    std::vector<std::string> values;  // the values of `key` among the points still matching
    std::vector<const PlannedPoint*> kept;
    for (const PlannedPoint* p : match) {
      const DimensionValue v = *detail::suite_run::point_value(*p, key);
      const std::string t = gauge::to_string(v);
      if (std::find(values.begin(), values.end(), t) == values.end()) values.push_back(t);
      if (detail::suite_run::value_matches(v, value)) kept.push_back(p);
    }
    if (kept.empty())
      throw fail("axis '" + key + "' of benchmark '" + name + "' has no value '" + value + "'" +
                 (wi > 0 ? " with the values before it" : "") + " (its values: " + listed(values) + ")");
    match = std::move(kept);
  }
  if (match.size() > 1) {
    std::vector<std::string> labels, open;  // the matching points; the axes on which they differ
    for (const PlannedPoint* p : match) labels.push_back(p->label);
    std::vector<std::string> keys;
    for (const auto& kv : match.front()->values) keys.push_back(kv.first);
    if (match.front()->device_dimension) keys.emplace_back("device");
    for (const auto& key : keys)
      for (const PlannedPoint* p : match)
        if (gauge::to_string(*detail::suite_run::point_value(*p, key)) !=
            gauge::to_string(*detail::suite_run::point_value(*match.front(), key))) {
          open.push_back(key);
          break;
        }
    throw fail("matches " + std::to_string(match.size()) + " points (" + listed(labels) + "): name a value of " +
               listed(open, open.size()) + " too");
  }
  return *match.front();
}

SuiteSummary run_interleaved_points(const PlannedPoint& a, const PlannedPoint& b, const RunOptions& o, const SuiteIo& io) {
  using namespace detail::suite_run;
  const auto clock = io.clock ? io.clock : std::function<double()>(steady_seconds);
  const double t0 = clock();
  const InterleaveConfig settings = interleave_config(o);
  detail::check_runner_format(o.format);  // before anything runs, not after
  if (&a == &b || a.label == b.label)
    throw UsageError("--interleave: A and B are the same point '" + a.label + "': name two different points");
  SuiteSummary summary;
  summary.points = 2;
  if (!o.out.empty()) detail::check_writable(o.out);  // before anything is measured
  const Environment env = io.environment ? io.environment() : detail::suite_run::environment_of(io);
  if (!o.quiet) std::fprintf(io.err, "gauge: interleaving A = %s and B = %s in ABBA rounds\n", a.label.c_str(), b.label.c_str());

  // SIGINT, SIGTERM, SIGHUP, SIGQUIT: the rounds stop after the current ABBA block, the report is
  // written and the run exits 128 + the signal's number (as run_suite).
  detail::StopOnSignals stop_on_signals;
  // The nested run (see the file comment): A's body, inside its run() B's body, inside B's run()
  // the interleaved rounds.
  Config config_a, config_b;
  std::optional<std::string> error_a = configure_point(config_a, a, o), error_b = configure_point(config_b, b, o);
  Point pa(a.benchmark->name(), a.values, config_a, PointMode::interleave);
  Point pb(b.benchmark->name(), b.values, config_b, PointMode::interleave);
  if (a.device_dimension) pa.add_dimension("device", std::int64_t{*a.device});
  if (b.device_dimension) pb.add_dimension("device", std::int64_t{*b.device});
  std::optional<InterleavedResult> outcome;
  std::optional<std::string> not_interleavable;  // gauge::interleave's ConfigError: nothing measured
  bool a_handed_over = false;  // A waited inside its run(): B's body ran there
  pa.set_interleave([&](const detail::ExperimentSpec& spec_a, detail::ProtocolBackend& seam_a) {
    pb.set_interleave([&](const detail::ExperimentSpec& spec_b, detail::ProtocolBackend& seam_b) {
      try {
        outcome = detail::run_interleaved(spec_a, seam_a, spec_b, seam_b, settings);
      } catch (const ConfigError& e) {
        not_interleavable = e.what();
      }
    });
    a_handed_over = true;
    if (!error_b) error_b = run_body(b, pb);
  });
  if (!error_a) {
    NvtxRange range("interleave " + a.label + " vs " + b.label);
    error_a = run_body(a, pa);
  }

  if (not_interleavable) {
    std::fprintf(io.err, "gauge: error: --interleave %s %s: %s\n", a.label.c_str(), b.label.c_str(),
                 not_interleavable->c_str());
    summary.wall_time_s = clock() - t0;
    summary.exit_code = 2;
    return summary;
  }

  std::vector<Result> results;
  std::vector<records::SkippedPoint> skipped;
  std::vector<records::InterleavedRecord> records;
  std::vector<std::string> problems;  // one line per point that did not measure
  // A point that did not reach the interleaved rounds: skipped, or failed (threw, never ran).
  const auto not_measured = [&](const char* side, const PlannedPoint& pp, Point& p, const Config& c,
                                const std::optional<std::string>& error) {
    if (p.skip_reason() && !error) {
      skipped.push_back(records::SkippedPoint{pp.benchmark->name(), p.dimensions(), *p.skip_reason()});
      problems.push_back(std::string(side) + " (" + pp.label + ") was skipped by its benchmark: " + *p.skip_reason());
      ++summary.skipped;
      return;
    }
    results.push_back(failed_point(
        p, c, error.value_or("the benchmark neither ran nor skipped the point (call p.run(step) or p.skip(reason))")));
    problems.push_back(std::string(side) + " (" + pp.label + ") failed: " + *results.back().error);
    ++summary.failed;
  };
  if (outcome) {
    records::InterleavedRecord record;
    static_cast<records::InterleavedOutcome&>(record) = std::move(static_cast<records::InterleavedOutcome&>(*outcome));
    record.a = 0;
    record.b = 1;
    // A body that threw after its run() returned: what was measured is kept, the point failed
    // and the verdict is withheld, as for a failing step.
    const auto threw_after = [&record](const char* side, Result& r, const std::optional<std::string>& error) {
      if (!error) return;
      r.status = Status::failed;
      r.error = r.error ? *r.error + "; " + *error : *error;
      record.verdict = stats::PairedVerdict::inconclusive;
      record.reason = std::string(side) + " (\"" + r.name + "\") failed after measuring: " + *error + "; " + record.reason;
    };
    threw_after("B", outcome->b, error_b);
    threw_after("A", outcome->a, error_a);
    for (Result* r : {&outcome->a, &outcome->b}) {
      summary.points_time_s += r->total_time_s;
      if (r->status == Status::ok) ++summary.ok;
      else ++summary.failed;
    }
    results.push_back(std::move(outcome->a));
    results.push_back(std::move(outcome->b));
    records.push_back(std::move(record));
  } else if (!a_handed_over) {  // A's body did not reach its run(): B never ran
    not_measured("A", a, pa, config_a, error_a);
    problems.push_back("B (" + b.label + ") was not run: A did not reach its run()");
  } else {  // A waited inside its run(); B's body did not reach its own
    not_measured("B", b, pb, config_b, error_b);
    if (error_a) problems.push_back("A (" + a.label + ") failed after B: " + *error_a);
  }

  // The document the report file holds, and every view of the run is written from it. Its axes
  // are the points' declared order, so that labels read as --list prints them.
  std::map<std::string, std::vector<std::string>> axes;
  for (const PlannedPoint* p : {&a, &b}) {
    std::vector<std::string>& names = axes[p->benchmark->name()];
    for (const auto& [axis, value] : p->values)
      if (std::find(names.begin(), names.end(), axis) == names.end()) names.push_back(axis);
  }
  const StoredReport document = detail::run_document(env, results, skipped, records, axes);
  std::optional<std::string> write_error;
  if (!o.out.empty()) {
    try {
      detail::write_file_atomic(o.out, detail::json_dump(detail::report_json(document), 2) + "\n");
    } catch (const std::exception& e) {
      write_error = e.what();
    }
  }

  // --format console and markdown: the registered formats interleaved and interleaved_markdown
  // (gauge/report/export_interleaved.hpp), the two points side by side and the paired verdict;
  // any other --format: the registered format of that name.
  const formats::ExportFormat& format = detail::interleave_export_format(o.format);
  std::string text;
  const std::optional<std::string> format_error = detail::export_run(format, document, ExportOptions{}, text);
  // A format of per-experiment rows (csv, gbench, ...) has no place for the paired verdict, the
  // point of --interleave: it goes to standard error (json holds it as `interleaved`).
  if (!records.empty() && format.holds != formats::ExportFormat::Holds::document && format.name != "interleaved" &&
      format.name != "interleaved_markdown")
    detail::suite_run::write_text(io.err, detail::export_::interleaved_text(records[0], a.label, b.label, detail::TableStyle::console));
  // Standard output that cannot be written (a full disk, a closed pipe) loses what a CI tool
  // reads: said, and exit 74 (EX_IOERR), as gauge-export and gauge-compare do.
  std::optional<std::string> stdout_error;
  if (!write_text(io.out, text)) stdout_error = std::strerror(errno ? errno : EIO);

  // A skip reason or an exception's text may hold a newline or an escape sequence: made visible.
  for (const auto& line : problems) std::fprintf(io.err, "gauge: --interleave: %s\n", detail::escape::visible(line).c_str());
  summary.wall_time_s = clock() - t0;
  summary.exit_code = summary.failed || records.empty() ? 1 : 0;
  if (stop_requested()) {
    const int signal = detail::stop_signal();
    std::fprintf(io.err, "gauge: interrupted%s: the interleaved rounds stopped early\n",
                 signal ? (" by " + detail::signal_name(signal)).c_str() : "");
    summary.exit_code = 128 + (signal ? signal : SIGINT);
  }
  detail::report_output_errors(io.err, summary.exit_code, format_error, stdout_error, write_error);
  if (!o.quiet)
    std::fprintf(io.err, "gauge: interleaved 2 points (%zu ok, %zu failed, %zu skipped) in %s%s\n", summary.ok,
                 summary.failed, summary.skipped, detail::format_duration(summary.wall_time_s).c_str(),
                 o.out.empty() || write_error ? "" : ("; report: " + o.out).c_str());
  return summary;
}
}  // namespace suite

}  // namespace gauge

#endif  // !defined(__CUDA_ARCH__) && !defined(GAUGE_LINKS_SUITE_IMPLEMENTATION)
