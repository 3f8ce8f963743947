#pragma once
/// \file gauge/report/export_console.hpp
/// Export format `console`: the console summary gauge prints after a run (the machine line, one
/// row per experiment, every warning in full), for a report read back.

#include <string>

#include "gauge/report/console.hpp"
#include "gauge/report/export_format.hpp"
#include "gauge/report/read.hpp"

namespace gauge::detail::export_ {
/// The console summary of a stored report.
inline std::string write_console(const StoredReport& report, const ExportOptions&) {
  return environment_line(report.environment) + summary_table(report.results) +
         warnings_text(report.results, report.environment);
}
}  // namespace gauge::detail::export_

GAUGE_REGISTER_EXPORT_FORMAT(console, "the console summary (machine line, table, warnings)",
                             ::gauge::detail::export_::write_console)
