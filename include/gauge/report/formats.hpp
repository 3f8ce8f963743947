#pragma once
/// \file gauge/report/formats.hpp
/// Every export format gauge-export offers: one include per format (each registers itself; see
/// gauge/report/export_format.hpp). A new format is a new header and a line here.

#include "gauge/report/export.hpp"          // gbench, csv, markdown (rows: export_rows.hpp)
#include "gauge/report/export_console.hpp"  // console
#include "gauge/report/export_bencher.hpp"  // bencher (Bencher Metric Format)
#include "gauge/report/export_github.hpp"   // github_benchmark (github-action-benchmark)
#include "gauge/report/export_json.hpp"     // json (gauge's own report)
#include "gauge/report/export_sweep.hpp"    // sweep, sweep_markdown (the suite runner's tables)
#include "gauge/report/export_line.hpp"     // line (Catch2's text of a Result)
#include "gauge/report/export_interleaved.hpp"  // interleaved, interleaved_markdown (the runner's --interleave views)

#include <string>

#include "gauge/report.hpp"

namespace gauge {

/// `report` in the registered export format `format` (the names gauge-export's `--format` takes:
/// gbench, csv, markdown, console, bencher, github_benchmark, json, sweep, sweep_markdown, line,
/// interleaved, interleaved_markdown, and any a program registers), as that format's text ending
/// with a newline: what `gauge-export --format NAME` writes from the file report.write() writes
/// (`created_utc` aside), e.g. `gauge::export_text(report, "markdown")` for a CI job summary. It
/// needs the report's compiled part (the Report itself).
/// \throws ConfigError naming `format` and the registered names when there is no such format, or
///   what the format's writer throws (ConfigError); `report` is unchanged.
inline std::string export_text(const Report& report, const std::string& format, const ExportOptions& options = {}) {
  return formats::find_export_format(format).write(report.document(), options);
}

}  // namespace gauge
