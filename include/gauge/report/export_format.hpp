#pragma once
/// \file gauge/report/export_format.hpp
/// The registry of export formats: what `gauge-export --format NAME` can write. A format is one
/// header that defines its writer and registers it with `GAUGE_REGISTER_EXPORT_FORMAT`, plus
/// one `#include` line in gauge/report/formats.hpp (the list the tool includes); nothing else
/// changes (the tool's `--format` choices and help come from the registry).

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/error.hpp"
#include "gauge/detail/registry.hpp"
#include "gauge/report/document.hpp"

namespace gauge {

/// Settings every export format may read (most read none).
struct ExportOptions {
  /// The time written where a format has one column of time: "gpu" (the result's per-step
  /// samples: GPU time, or real time on the host backend) or "wall".
  std::string metric = "gpu";
  /// The time unit where a format has one ("ns", "us", "ms", "s"; Google Benchmark's default ns).
  std::string time_unit = "ns";
  /// Google Benchmark JSON: one entry per sample plus aggregates (true) or per experiment.
  bool repetitions = true;
  /// The sweep formats (`sweep`, `sweep_markdown`): each benchmark's axes in their declared order,
  /// by benchmark name, as the columns of its table. A benchmark not in it takes the report's own
  /// `axes` (StoredReport::axes, the suite runner's), else its dimensions' names in alphabetical
  /// order (the order a report stores them in).
  std::map<std::string, std::vector<std::string>> axes;
};

namespace formats {

/// One export format: its name (the `--format` value), a one-line description, and its writer,
/// which returns the whole output text (ending with a newline) or throws ConfigError.
struct ExportFormat {
  std::string name;
  std::string description;
  std::function<std::string(const StoredReport&, const ExportOptions&)> write;
  /// What the format holds, so that a front end knows when there is nothing to write in it.
  enum class Holds {
    experiments,              ///< one entry per experiment (gbench, bencher, github_benchmark)
    experiments_and_timers,   ///< rows of experiments and of Timers (csv, markdown, console)
    points,                   ///< rows of experiments and of skipped points (sweep, sweep_markdown)
    document,                 ///< the whole report, whatever it holds (json)
  };
  Holds holds = Holds::experiments;  ///< see Holds
  /// Whether `report` has anything this format writes (a Timer-only report has nothing for gbench;
  /// a suite's report whose every point was skipped has rows for sweep).
  bool has_content(const StoredReport& report) const {
    return holds == Holds::document || !report.results.empty() ||
           (holds == Holds::experiments_and_timers && !report.timers.empty()) ||
           (holds == Holds::points && !report.skipped.empty());
  }
};

/// The registered formats, in registration order.
inline std::vector<ExportFormat>& export_formats() { return detail::registered<ExportFormat>(); }

/// Registers a format (a later one with the same name replaces the earlier). Returns true, so
/// that registration can initialize a variable at namespace scope.
inline bool register_export_format(ExportFormat format) { return detail::register_entry(std::move(format)); }

/// The format called `name`. Throws ConfigError naming it and listing the registered names.
inline const ExportFormat& find_export_format(const std::string& name) {
  return detail::find_entry<ExportFormat>(name, "export format");
}

}  // namespace formats
}  // namespace gauge

/// Registers an export format from a header: `GAUGE_REGISTER_EXPORT_FORMAT(csv, "…", writer)`, or
/// with what it holds (formats::ExportFormat::Holds) after the writer.
#define GAUGE_REGISTER_EXPORT_FORMAT(id, description, ...) \
  namespace gauge::detail::export_registry {               \
  inline const bool id = ::gauge::formats::register_export_format({#id, description, __VA_ARGS__}); \
  }
