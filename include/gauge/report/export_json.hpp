#pragma once
/// \file gauge/report/export_json.hpp
/// Export format `json`: gauge's own report document (schema/gauge-report.schema.json) at this
/// version's schema, written by the one report writer (gauge::detail::report_json) from what was
/// read or measured: the suite runner's `--format json`, and `gauge-export --format json`, which
/// rewrites a report of an older minor schema version at the current one (keys this version does
/// not model are not kept). One header and one line in gauge/report/formats.hpp.

#include <string>

#include "gauge/report/dump.hpp"
#include "gauge/report/export_format.hpp"
#include "gauge/report/json.hpp"
#include "gauge/report/read.hpp"

namespace gauge::detail::export_ {
/// The report document of `report`, indented by 2, ending with a newline.
inline std::string write_json(const StoredReport& report, const ExportOptions&) {
  return detail::json_dump(detail::report_json(report.environment, report.results, report.timers, report.skipped, report.ranks,
                                               report.interleaved, report.created_utc),
                           2) +
         "\n";
}
}  // namespace gauge::detail::export_

GAUGE_REGISTER_EXPORT_FORMAT(json, "gauge's report JSON at this version's schema (the document the report file holds)",
                             ::gauge::detail::export_::write_json)
