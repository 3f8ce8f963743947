#pragma once
/// \file gauge/suite/output.hpp
/// What the suite runner prints on stdout (`--format`): its own tables, or any registered export
/// format (gauge/report/export_format.hpp), written from the same document as the report file.
/// Part of the runner's compiled part (gauge/suite/implementation.hpp).

#include <algorithm>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/environment.hpp"
#include "gauge/core/interleaved.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/skipped.hpp"
#include "gauge/report/export_format.hpp"
#include "gauge/report/formats.hpp"
#include "gauge/report/json.hpp"
#include "gauge/report/read.hpp"
#include "gauge/suite/runner.hpp"
#include "gauge/version.hpp"

namespace gauge::detail {

/// The runner's own views: one sweep table per benchmark with its axes as columns, for a terminal
/// ("console") or as Markdown ("markdown"). Every other `--format` is a registered export format.
inline constexpr const char* runner_table_formats[] = {"console", "markdown"};

/// Whether `name` is one of the runner's own tables (runner_table_formats).
inline bool is_runner_table(const std::string& name) {
  for (const char* t : runner_table_formats)
    if (name == t) return true;
  return false;
}

/// Every `--format` value the runner takes: its tables, then the registered export formats (a new
/// format reaches the runner with no edit here).
inline std::vector<std::string> runner_format_names() {
  std::vector<std::string> names(std::begin(runner_table_formats), std::end(runner_table_formats));
  for (const auto& f : export_formats())
    if (!is_runner_table(f.name)) names.push_back(f.name);
  return names;
}

/// `--format`'s text for the runner's help: the tables, then each registered format with its description.
inline std::string runner_format_help() {
  std::string help = "What to print on stdout: console (a table per benchmark), markdown (the same as Markdown)";
  for (const auto& f : export_formats())
    if (!is_runner_table(f.name)) help += "; " + f.name + ": " + f.description;
  return help;
}

/// The registered export format `name`, or nullptr for the runner's own tables.
/// \throws ConfigError naming `name` and the choices when it is neither.
inline const ExportFormat* runner_export_format(const std::string& name) {
  return is_runner_table(name) ? nullptr : &find_export_format(name);
}

/// Checks `format` (RunOptions::format) before a run. \throws UsageError naming it and the choices.
inline void check_runner_format(const std::string& format) {
  const std::vector<std::string> names = runner_format_names();
  if (std::find(names.begin(), names.end(), format) != names.end()) return;
  std::string list;
  for (const auto& name : names) list += (list.empty() ? "" : ", ") + name;
  throw UsageError("--format '" + format + "' is not one of " + list);
}

/// The document a run wrote (the report file's content), as a StoredReport for the export formats.
inline StoredReport run_document(const Environment& env, std::vector<Result> results, std::vector<SkippedPoint> skipped,
                                 std::vector<InterleavedRecord> interleaved = {}) {
  StoredReport doc;
  doc.source = "this run";
  doc.schema = report_schema_name;
  doc.schema_version = report_schema_version;
  doc.gauge_version = version_string;
  doc.created_utc = utc_timestamp();
  doc.environment = env;
  doc.results = std::move(results);
  doc.skipped = std::move(skipped);
  doc.interleaved = std::move(interleaved);
  return doc;
}

/// Writes `doc` in `format` into `text`; returns the error, naming the format, when the writer
/// throws (the run is kept: the report file was written before), else nullopt.
inline std::optional<std::string> export_run(const ExportFormat& format, const StoredReport& doc, std::string& text) {
  try {
    text = format.write(doc, ExportOptions{});
    return std::nullopt;
  } catch (const std::exception& e) {
    text.clear();
    return "--format " + format.name + ": " + e.what();
  }
}

/// Says on `err` what of a run's output could not be written, and sets `exit_code`: a format's
/// writer that failed, 1 (where it was 0); standard output or the report file, 74 (EX_IOERR, as
/// gauge's tools). What was measured is in whatever was written.
inline void report_output_errors(std::FILE* err, int& exit_code, const std::optional<std::string>& format_error,
                                 const std::optional<std::string>& stdout_error, const std::optional<std::string>& write_error) {
  if (format_error) {
    std::fprintf(err, "gauge: error: %s\n", format_error->c_str());
    if (exit_code == 0) exit_code = 1;
  }
  if (stdout_error) {
    std::fprintf(err, "gauge: error: standard output could not be written: %s\n", stdout_error->c_str());
    exit_code = 74;
  }
  if (write_error) {
    std::fprintf(err, "gauge: error: the report was not written: %s\n", write_error->c_str());
    exit_code = 74;
  }
}

}  // namespace gauge::detail
