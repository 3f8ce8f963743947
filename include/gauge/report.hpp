#pragma once
/// \file gauge/report.hpp
/// gauge::Report: one JSON file per program run, with the environment once and every
/// experiment's result. The output path is checked when the Report is made, before anything is
/// measured; writing is atomic.

#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/environment.hpp"
#include "gauge/core/error.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/timer_summary.hpp"
#include "gauge/env/environment.hpp"
#include "gauge/report/console.hpp"
#include "gauge/report/json.hpp"
#include "gauge/report/timer_json.hpp"

namespace gauge {

/// Collects results and writes the report.
///
/// \code
///   gauge::Report report("gemm.json");      // throws ReportError now if it cannot be written
///   report.add(experiment.run());
///   report.write();                          // atomic: temporary file, then rename
///   std::fputs(report.summary().c_str(), stdout);
/// \endcode
class Report {
 public:
  /// \param path where write() puts the report. Throws ReportError if a file cannot be created
  ///   there (missing directory, no permission, a directory of that name).
  /// \param environment the environment to record; captured now by default.
  explicit Report(std::filesystem::path path, Environment environment = capture_environment())
      : path_(std::move(path)), env_(std::move(environment)) {
    check_writable(path_);
  }

  /// Adds a result (ok or failed); the report keeps them in order.
  void add(Result result) { results_.push_back(std::move(result)); }

  /// Adds a Timer's state (usually `timer.finish()`); written to the report's `timers` list.
  void add(TimerSummary timer) { timers_.push_back(std::move(timer)); }
  /// The Timer summaries added so far.
  const std::vector<TimerSummary>& timers() const { return timers_; }

  /// The results added so far.
  const std::vector<Result>& results() const { return results_; }
  /// The environment recorded.
  const Environment& environment() const { return env_; }
  /// Where write() writes.
  const std::filesystem::path& path() const { return path_; }

  /// The report as JSON (schema, schema_version, gauge_version, created_utc, environment,
  /// experiments, timers).
  nlohmann::json json() const {
    nlohmann::json j = report_json(env_, results_);
    j["timers"] = timers_;
    return j;
  }

  /// Writes the report atomically. Throws ReportError naming the path and the system error.
  void write() const {
    std::string text;
    try {
      // Invalid UTF-8 in a name, dimension or error message becomes U+FFFD instead of losing the
      // whole report.
      text = json().dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    } catch (const std::exception& e) {
      throw ReportError("cannot write report to " + path_.string() + ": " + e.what());
    }
    write_file_atomic(path_, text);
  }

  /// The console summary: the machine line, the table, then every warning in full.
  std::string summary() const {
    std::string timers;
    for (const auto& t : timers_) timers += timer_summary_text(t);
    return environment_line(env_) + summary_table(results_) + warnings_text(results_, env_) + timers;
  }

 private:
  std::filesystem::path path_;
  Environment env_;
  std::vector<Result> results_;
  std::vector<TimerSummary> timers_;
};

}  // namespace gauge
