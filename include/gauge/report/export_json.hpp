#pragma once
/// \file gauge/report/export_json.hpp
/// Export format `json`: gauge's own report document (schema/gauge-report.schema.json). For a run
/// (the suite runner's `--format json`) it is the document the run's report file holds, written
/// by the one report writer (gauge::detail::report_json); for a report read back
/// (`gauge-export --format json`) it is the document as read, every key and the schema version
/// kept as they were (nothing is upgraded, defaulted or dropped), indented by 2. One header and
/// one line in gauge/report/formats.hpp.

#include <string>

#include "gauge/report/dump.hpp"
#include "gauge/report/export_format.hpp"
#include "gauge/report/json.hpp"
#include "gauge/report/read.hpp"

namespace gauge::detail::export_ {
/// The report document of `report` (see the file comment), ending with a newline.
inline std::string write_json(const StoredReport& report, const ExportOptions&) {
  if (report.document.is_object()) return detail::json_dump(report.document, 2) + "\n";
  return detail::json_dump(detail::report_json(report), 2) + "\n";
}
}  // namespace gauge::detail::export_

GAUGE_REGISTER_EXPORT_FORMAT(json, "gauge's report JSON (a report read back: the document as read; a run: its report)",
                             ::gauge::detail::export_::write_json, ::gauge::formats::ExportFormat::Holds::document)
