#pragma once
/// \file gauge/report/export_console.hpp
/// Export format `console`: the console summary gauge prints after a run (the machine line, one
/// row per experiment, the speed-of-light and kernel tables where results have them, every
/// warning in full, each skipped point with its reason, each interleaved A/B verdict, then each
/// Timer's lines: its steps and regions
/// and its warnings), for a report read back or made (gauge::Report::summary() is this format).

#include <string>
#include <vector>

#include "gauge/core/timer_summary.hpp"
#include "gauge/report/console.hpp"
#include "gauge/report/escape.hpp"
#include "gauge/report/export_format.hpp"
#include "gauge/report/document.hpp"

namespace gauge::detail::export_ {
/// The console summary of a stored report.
inline std::string write_console(const StoredReport& report, const ExportOptions&) {
  std::string out = environment_line(report.environment) + summary_table(report.results, report.axes) + peaks_table(report.results) +
                    kernel_table(report.results) + warnings_text(report.results, report.environment);
  for (const auto& s : report.skipped) {
    const auto axes = report.axes.find(s.name);
    out += escape::visible("skipped: " + point_label(s.name, s.dimensions, axes == report.axes.end() ? std::vector<std::string>{} : axes->second) +
                           ": " + s.reason) + "\n";
  }
  for (const auto& x : report.interleaved)
    if (x.a < report.results.size() && x.b < report.results.size())
      out += "interleaved A/B, B \"" + report.results[x.b].name + "\" / A \"" + report.results[x.a].name +
             "\": " + to_string(x.verdict) + ": " + x.reason + "\n";
  for (const auto& timer : report.timers) out += detail::timer_summary_text(timer);
  return out;
}
}  // namespace gauge::detail::export_

GAUGE_REGISTER_EXPORT_FORMAT(console, "the console summary (machine line, table, warnings, skipped points, timers)",
                             ::gauge::detail::export_::write_console, ::gauge::ExportFormat::Holds::experiments_and_timers)
