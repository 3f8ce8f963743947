#pragma once
/// \file gauge/report/export_console.hpp
/// Export format `console`: the console summary gauge prints after a run (the machine line, one
/// row per experiment, the speed-of-light and kernel tables where results have them, every
/// warning in full, each skipped point with its reason, each interleaved A/B verdict, the reason
/// host results have no hardware counters, then each Timer's lines: its steps and regions and its
/// warnings), for a report read back or made (gauge::Report::summary() is this format).

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/timer_summary.hpp"
#include "gauge/report/console.hpp"
#include "gauge/report/escape.hpp"
#include "gauge/report/export_format.hpp"
#include "gauge/report/document.hpp"

namespace gauge::detail::export_ {
/// The console summary of a stored report.
inline std::string write_console(const StoredReport& report, const ExportOptions&) {
  std::string out = formats::environment_line(report.environment) + formats::summary_table(report.results, report.axes) + formats::peaks_table(report.results) +
                    formats::kernel_table(report.results) + formats::warnings_text(report.results, report.environment);
  // A point as every output spells it, its name's declared axes first.
  const auto label = [&](const std::string& name, const Dimensions& dimensions) {
    const auto axes = report.axes.find(name);
    return point_label(name, dimensions, axes == report.axes.end() ? std::vector<std::string>{} : axes->second);
  };
  for (const auto& s : report.skipped)
    out += escape::visible("skipped: " + label(s.name, s.dimensions) + ": " + s.reason) + "\n";
  for (const auto& x : report.interleaved)
    if (x.a < report.results.size() && x.b < report.results.size())
      out += escape::visible("interleaved A/B, B \"" + label(report.results[x.b].name, report.results[x.b].dimensions) +
                             "\" / A \"" + label(report.results[x.a].name, report.results[x.a].dimensions) +
                             "\": " + to_string(x.verdict) + ": " + x.reason) + "\n";
  // Hardware counters that a host result asked for and could not read (no PMU in a VM,
  // perf_event_paranoid): said once per reason, as the JSON's cpu_counters.reason says it.
  std::vector<std::pair<std::string, std::size_t>> reasons;  // each reason, and how many results gave it
  std::size_t host = 0;
  for (const auto& r : report.results) {
    if (r.cpu_counters.status == "not_measured") continue;
    ++host;
    if (r.cpu_counters.status != "unavailable") continue;
    const auto it = std::find_if(reasons.begin(), reasons.end(), [&](const auto& x) { return x.first == r.cpu_counters.reason; });
    if (it == reasons.end()) reasons.emplace_back(r.cpu_counters.reason, 1);
    else ++it->second;
  }
  for (const auto& [reason, count] : reasons)
    out += escape::visible("cpu counters (cycles, instructions): unavailable for " + std::to_string(count) + " of " +
                           std::to_string(host) + " host results: " + (reason.empty() ? "(no reason recorded)" : reason)) + "\n";
  for (const auto& timer : report.timers) out += detail::timer_summary_text(timer);
  return out;
}
}  // namespace gauge::detail::export_

GAUGE_REGISTER_EXPORT_FORMAT(console, "the console summary (machine line, table, warnings, skipped points, timers)",
                             ::gauge::detail::export_::write_console, ::gauge::formats::ExportFormat::Holds::experiments_and_timers)
