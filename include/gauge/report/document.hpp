#pragma once
/// \file gauge/report/document.hpp
/// gauge::StoredReport, the report document: the one type every report is built as, written from
/// (detail::report_json in gauge/report/json.hpp) and read back into (gauge/report/read.hpp).

#include <nlohmann/json.hpp>

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gauge/core/dimensions.hpp"
#include "gauge/core/environment.hpp"
#include "gauge/core/error.hpp"
#include "gauge/core/interleaved.hpp"
#include "gauge/core/ranks.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/skipped.hpp"
#include "gauge/core/timer_summary.hpp"

namespace gauge {

/// A report document: what a report file holds, read back (gauge::read_report) or made by a
/// front end (gauge::Report, the suite runner, an MPI session), which all write it through one
/// builder (detail::report_json). The export formats (gauge/report/export_format.hpp) write it.
struct StoredReport {
  std::string source;          ///< where it was read from (the path, or the name given to parse_report)
  std::string schema;          ///< "gauge.report"
  std::string schema_version;  ///< e.g. "1.0.0"; its major version is `supported_report_major()`
  std::string gauge_version;   ///< version of gauge that wrote it
  std::string created_utc;     ///< ISO 8601 UTC creation time
  Environment environment;     ///< the environment it was measured in
  std::vector<Result> results; ///< one per experiment, in the report's order
  std::vector<TimerSummary> timers;  ///< the Timer summaries (`timers`), in the report's order
  std::vector<records::SkippedPoint> skipped; ///< points a suite skipped (`skipped`, schema 1.3), in order
  std::optional<records::RanksRecord> ranks; ///< a run over many ranks (`ranks`, schema 1.4; gauge/mpi.hpp)
  /// Interleaved A/B runs (`interleaved`, schema 1.5; gauge/interleave.hpp): each names its two
  /// results by their index in `results`.
  std::vector<records::InterleavedRecord> interleaved;
  /// Each benchmark's axes in their declared order, by benchmark name (`axes`, schema 1.9): the
  /// suite runner's; the sweep formats take their columns from it. Empty where none was declared.
  std::map<std::string, std::vector<std::string>> axes;
  /// The whole document as read, keys this version of gauge does not model included.
  /// `document["experiments"][i]` belongs to `results[i]`.
  nlohmann::json document;

  /// The first result named `name` whose dimensions equal `dimensions`; nullptr if none.
  const Result* find(const std::string& name, const Dimensions& dimensions) const {
    // A non-finite real is held as its text ("nan", as Report::add and the file hold it).
    Dimensions wanted = dimensions;
    detail::finite_dimensions(wanted);
    for (const auto& r : results)
      if (r.name == name && r.dimensions == wanted) return &r;
    return nullptr;
  }
  /// The one result named `name`. \throws ReportError naming the report when there is none or more
  /// than one (then use find() with the dimensions).
  const Result& at(const std::string& name) const {
    const Result* found = nullptr;
    std::size_t count = 0;
    for (const auto& r : results)
      if (r.name == name) {
        if (!found) found = &r;
        ++count;
      }
    if (count == 0) throw ReportError(source + ": no experiment named \"" + name + "\"");
    if (count > 1)
      throw ReportError(source + ": " + std::to_string(count) + " experiments are named \"" + name +
                        "\"; choose one by its dimensions with find()");
    return *found;
  }
};

}  // namespace gauge
