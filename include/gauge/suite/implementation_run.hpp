#pragma once
/// \file gauge/suite/implementation_run.hpp
/// The runner's run of the planned points (`run_suite`, gauge/suite/runner.hpp declares it): the
/// progress line on a terminal (`detail::suite_run::ProgressDisplay`), --profile, the rounds of
/// --repetitions, the JSON report kept on disk as it goes, and the tables or report on stdout.
/// A compiled part of gauge/suite/implementation.hpp, which includes it: host code only, and
/// empty under GAUGE_LINKS_SUITE_IMPLEMENTATION, as that header is.
/// Part of gauge/suite/implementation.hpp only: not a header to include on its own (the header
/// isolation test leaves it out; src/suite_implementation.cpp compiles it with the others).

#if !defined(__CUDA_ARCH__) && !defined(GAUGE_LINKS_SUITE_IMPLEMENTATION)

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gauge/core/skipped.hpp"
#include "gauge/core/stop.hpp"
#include "gauge/detail/fmt.hpp"
#include "gauge/detail/suite_points.hpp"
#include "gauge/env/environment.hpp"
#include "gauge/report/console.hpp"
#include "gauge/report/dump.hpp"
#include "gauge/report/export.hpp"
#include "gauge/report/json.hpp"
#include "gauge/suite/interleave_run.hpp"
#include "gauge/suite/nvtx.hpp"
#include "gauge/suite/output.hpp"
#include "gauge/suite/progress.hpp"
#include "gauge/suite/registry.hpp"
#include "gauge/suite/runner.hpp"
#include "gauge/report/sweep_table.hpp"

namespace gauge {
namespace detail::suite_run {

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
    state_.finished_elapsed_s = clock_() - start_;
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
    if (state_.elapsed_s < to_seconds(detail::progress_delay) || state_.total == 0) return;
    std::fprintf(err_, "\r\033[K%s", detail::progress_line(state_).c_str());
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
  detail::ProgressState state_;
  bool drawn_ = false;
  bool stop_ = false;
  std::mutex m_;
  std::condition_variable cv_;
  std::thread ticker_;
};

}  // namespace detail::suite_run

namespace suite {
SuiteSummary run_suite(const std::vector<PlannedPoint>& points, const RunOptions& o, const SuiteIo& io) {
  using namespace detail::suite_run;
  const auto clock = io.clock ? io.clock : std::function<double()>(steady_seconds);
  const double t0 = clock();
  SuiteSummary summary;
  summary.points = points.size();
  if (o.repetitions == 0) throw UsageError("run_suite: RunOptions::repetitions must be >= 1, got 0");
  detail::check_runner_format(o.format);  // before anything runs, not after
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

  if (!o.out.empty()) detail::check_writable(o.out);  // before anything is measured
  const Environment env = io.environment ? io.environment() : detail::suite_run::environment_of(io);
  std::vector<Result> results;
  std::vector<records::SkippedPoint> skipped;
  std::vector<bool> point_skipped(points.size(), false);  // skipped in an earlier round: not run again
  // A write that fails (the disk filled, the folder went away) loses nothing already measured:
  // the run goes on, the tables are printed, and the run ends with exit 74 naming the file.
  std::optional<std::string> write_error;
  // Each benchmark's axes in their declared order: the report's `axes`, the sweep tables' columns.
  std::map<std::string, std::vector<std::string>> declared_axes;
  for (const auto& pp : points) {
    std::vector<std::string>& axes = declared_axes[pp.benchmark->name()];
    if (axes.empty())
      for (const auto& axis : pp.benchmark->axes()) axes.push_back(axis.name);
  }
  auto write_report = [&] {
    if (o.out.empty()) return;
    try {
      detail::write_file_atomic(
          o.out, detail::json_dump(detail::report_json(detail::run_document(env, results, skipped, {}, declared_axes)), 2) + "\n");
      write_error.reset();
    } catch (const std::exception& e) {
      if (!write_error) std::fprintf(io.err, "\ngauge: warning: %s (the run goes on; it is tried again)\n", e.what());
      write_error = e.what();
    }
  };
  // After every point (a crash, a kill or a signal later loses nothing measured), unless one write
  // takes over a quarter of a second (a report of many large experiments) and more than a tenth of
  // the time between writes: then as often as that allows.
  double last_write_end = clock(), last_write_cost = 0;
  auto keep_on_disk = [&] {
    if (o.out.empty() || (last_write_cost > 0.25 && clock() - last_write_end < 9 * last_write_cost)) return;
    const double start = clock();
    write_report();
    last_write_end = clock();
    last_write_cost = last_write_end - start;
  };
  // SIGINT, SIGTERM, SIGHUP, SIGQUIT: the running point stops at its next round boundary (failed,
  // "interrupted", its samples kept), no other point starts, the report and tables are written and
  // the run exits 128 + the signal's number. A second signal ends the process at once (the same
  // signal within a second is the first one delivered twice: GNU timeout forwards it twice).
  detail::StopOnSignals stop_on_signals;
  std::size_t not_run = 0;
  {
    ProgressDisplay progress(io.err, terminal && !o.quiet, clock);
    // Rounds over the whole suite: every point once, then every point again, ... (--repetitions).
    for (std::size_t run = 0; run < repetitions * points.size(); ++run) {
      const std::size_t round = run / points.size(), i = run % points.size();
      if (point_skipped[i]) continue;
      if (stop_requested()) {
        not_run = repetitions * points.size() - run;
        break;
      }
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
      // A skip stands only when the body then returned: a throw after skip() fails the point
      // (the exception is never lost behind the skip).
      if (error && p.skip_reason() && !p.result()) *error += " (after skip(\"" + *p.skip_reason() + "\"))";
      if (p.skip_reason() && !p.result() && !error) {
        skipped.push_back(records::SkippedPoint{pp.benchmark->name(), p.dimensions(), *p.skip_reason()});
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
      }
      progress.end(median);
      keep_on_disk();
    }
  }
  write_report();
  const int stop_signal = detail::stop_signal();
  const bool interrupted = stop_requested();
  // The report's path is named as written only when its last write succeeded (a failed write is
  // said by report_output_errors below, with the reason).
  const std::string written = o.out.empty() || write_error ? std::string() : o.out;
  if (interrupted)
    std::fprintf(io.err, "gauge: interrupted%s: %zu point runs measured, %zu not run%s\n",
                 stop_signal ? (" by " + detail::signal_name(stop_signal)).c_str() : "", results.size(), not_run,
                 written.empty() ? "" : ("; the report holds what was measured: " + written).c_str());

  std::string text;
  std::optional<std::string> format_error;
  {
    // A registered export format, from the document the report file holds (the console and
    // markdown views are the sweep formats, which take their columns from its `axes`).
    format_error = detail::export_run(detail::runner_export_format(o.format),
                                      detail::run_document(env, results, skipped, {}, declared_axes), ExportOptions{}, text);
    const std::string target = detail::runner_format_target(o.format);
    if (o.kernels && (target == "sweep" || target == "sweep_markdown")) text += formats::kernel_table(results);
  }
  // Standard output that cannot be written (a full disk, a closed pipe) loses what a CI tool
  // reads: said, and exit 74 (EX_IOERR), as gauge-export and gauge-compare do.
  std::optional<std::string> stdout_error;
  if (!write_text(io.out, text)) stdout_error = std::strerror(errno ? errno : EIO);

  summary.wall_time_s = clock() - t0;
  summary.exit_code = summary.failed ? 1 : 0;
  if (interrupted) summary.exit_code = 128 + (stop_signal ? stop_signal : SIGINT);  // as a shell reports it
  detail::report_output_errors(io.err, summary.exit_code, format_error, stdout_error, write_error);
  if (!o.quiet) {
    const double overhead = summary.wall_time_s - summary.points_time_s;
    // "6 points" or, with repetitions, "6 points x 3 repetitions" (ok and failed count runs;
    // skipped counts points, which run once).
    const char* noun = summary.points == 1 ? "point" : "points";
    const std::string counted = repetitions > 1 ? fmt::format("{} {} x {} repetitions", summary.points, noun, repetitions)
                                                : fmt::format("{} {}", summary.points, noun);
    std::fprintf(io.err,
                 "gauge: %s (%zu ok, %zu failed, %zu skipped) in %s; the points' own run time %s, the "
                 "runner's %s (%.1f %%)%s\n",
                 counted.c_str(), summary.ok, summary.failed, summary.skipped, detail::format_duration(summary.wall_time_s).c_str(),
                 detail::format_duration(summary.points_time_s).c_str(), detail::format_duration(overhead).c_str(),
                 summary.wall_time_s > 0 ? 100 * overhead / summary.wall_time_s : 0.0,
                 written.empty() ? "" : ("; report: " + written).c_str());
  }
  return summary;
}
}  // namespace suite

}  // namespace gauge

#endif  // !defined(__CUDA_ARCH__) && !defined(GAUGE_LINKS_SUITE_IMPLEMENTATION)
