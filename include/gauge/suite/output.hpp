#pragma once
/// \file gauge/suite/output.hpp
/// What the suite runner prints on stdout (`--format`): its own tables, or any registered export
/// format (gauge/report/export_format.hpp), written from the same document as the report file.
/// Part of the runner's compiled part (gauge/suite/implementation.hpp).

#include <algorithm>
#include <cstdio>
#include <exception>
#include <map>
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

/// The runner's `--format console` and `--format markdown`: the registered formats `sweep` and
/// `sweep_markdown` (gauge/report/export_sweep.hpp), one table per benchmark with its axes as
/// columns. The registered `console` and `markdown` (one row per experiment) are what gauge-export
/// writes under those names. Every other `--format` is the registered format of that name.
inline constexpr std::pair<const char*, const char*> runner_views[] = {{"console", "sweep"}, {"markdown", "sweep_markdown"}};

/// The registered format's name that the runner's `--format name` writes.
inline std::string runner_format_target(const std::string& name) {
  for (const auto& [view, format] : runner_views)
    if (name == view) return format;
  return name;
}

/// Every `--format` value the runner takes: its views, then the registered export formats (a new
/// format reaches the runner with no edit here).
inline std::vector<std::string> runner_format_names() {
  std::vector<std::string> names;
  for (const auto& [view, format] : runner_views) names.push_back(view);
  for (const auto& f : formats::export_formats())
    if (std::find(names.begin(), names.end(), f.name) == names.end()) names.push_back(f.name);
  return names;
}

/// `--format`'s text for the runner's help: the views, then each registered format with its description.
inline std::string runner_format_help() {
  std::string help = "What to print on stdout: console (a table per benchmark, = sweep), markdown (the same as Markdown, = sweep_markdown)";
  for (const auto& f : formats::export_formats())
    if (f.name != "console" && f.name != "markdown") help += "; " + f.name + ": " + f.description;
  return help;
}

/// The registered export format the runner's `--format name` writes.
/// \throws ConfigError naming `name` and the choices when there is none.
inline const formats::ExportFormat& runner_export_format(const std::string& name) { return formats::find_export_format(runner_format_target(name)); }

/// The registered export format `--interleave`'s `--format name` writes: its own views for console
/// and markdown (`interleaved`, `interleaved_markdown`: the two points and the paired verdict),
/// else as runner_export_format.
inline const formats::ExportFormat& interleave_export_format(const std::string& name) {
  if (name == "console") return formats::find_export_format("interleaved");
  if (name == "markdown") return formats::find_export_format("interleaved_markdown");
  return runner_export_format(name);
}

/// Checks `format` (RunOptions::format) before a run. \throws UsageError naming it and the choices.
inline void check_runner_format(const std::string& format) {
  const std::vector<std::string> names = runner_format_names();
  if (std::find(names.begin(), names.end(), format) != names.end()) return;
  std::string list;
  for (const auto& name : names) list += (list.empty() ? "" : ", ") + name;
  throw UsageError("--format '" + format + "' is not one of " + list);
}

/// The document a run writes (the report file's content): its results, skipped points, interleaved
/// records and each benchmark's declared axes (`axes`).
inline StoredReport run_document(const Environment& env, std::vector<Result> results, std::vector<records::SkippedPoint> skipped,
                                 std::vector<records::InterleavedRecord> interleaved = {},
                                 std::map<std::string, std::vector<std::string>> axes = {}) {
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
  doc.axes = std::move(axes);
  // As Report::add: a non-finite dimension (a failed point's, or a document's made by hand) as the file holds it.
  for (auto& r : doc.results) finite_dimensions(r.dimensions);
  for (auto& s : doc.skipped) finite_dimensions(s.dimensions);
  return doc;
}

/// Writes `doc` in `format` with `options` into `text`; returns the error, naming the format, when the writer
/// throws (the run is kept: the report file was written before), else nullopt.
inline std::optional<std::string> export_run(const formats::ExportFormat& format, const StoredReport& doc, const ExportOptions& options,
                                             std::string& text) {
  try {
    text = format.write(doc, options);
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
