#pragma once
/// \file gauge/report/export_markdown.hpp
/// Export format `markdown`: results and Timers as one GitHub-flavoured Markdown table
/// (`markdown_table`). Part of gauge/report/export.hpp, which includes it.

#include "gauge/detail/fmt.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gauge/core/format.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/timer_summary.hpp"
#include "gauge/report/compare.hpp"
#include "gauge/report/escape.hpp"
#include "gauge/report/export_format.hpp"
#include "gauge/report/export_peaks.hpp"
#include "gauge/report/export_rows.hpp"
#include "gauge/report/read.hpp"

namespace gauge {
namespace formats {
/// Results and Timers as a GitHub-flavoured Markdown table (ends with a newline), rows as in
/// csv_table: experiment (name and dimensions, and "repetition i" for a run of the suite runner's
/// `--repetitions`, 0-based; a Timer row says "timer step" or "timer region"
/// and a region's share of the step), status, median time per step (the row's `time_label`: GPU
/// or real time), its confidence interval, p99, wall time per step, where any row has it the
/// median process CPU time per step ("cpu/step", host timing; "-" in other rows), throughput (FLOP/s, else
/// bytes/s, else the first item), warning codes, then the speed of light (gauge/report/export_peaks.hpp):
/// "% of peak", the GPU throughput as a percent of every known peak ("bf16 dense 62.6 % theoretical
/// (max boost), 82.6 % theoretical (run clock), 93.1 % measured; memory 5.1 % theoretical (max
/// boost)"), and "roofline" ("compute-bound (2.73e+03 FLOP/B, ridge 319 FLOP/B, theoretical)"), "-"
/// where a row has none; times with readable units ("1.616 ms"). '|' in text is escaped. A
/// result's label is detail::point_label, its name's `axes` (a report's declared order) first.
inline std::string markdown_table(const std::vector<Result>& results, const std::vector<TimerSummary>& timers = {},
                                  const std::map<std::string, std::vector<std::string>>& axes = {}) {
  using detail::comparing::md_cell;
  const auto rows = detail::export_::table_rows(results, timers);
  // A "cpu/step" column (process CPU time per step, median) where some row has it (host timing).
  const bool cpu_column = std::any_of(rows.begin(), rows.end(), [](const auto& r) { return r.cpu != nullptr; });
  std::string out = fmt::format(
      "| experiment | status | median | CI of the median | p99 | wall/step | {}throughput | warnings | % of peak | roofline |\n"
      "|---|---|---:|---|---:|---:|{}---:|---|---|---|\n",
      cpu_column ? "cpu/step | " : "", cpu_column ? "---:|" : "");
  const Summary none;
  for (const auto& r : rows) {
    const Summary& g = r.time ? *r.time : none;
    std::string ci = "-";
    if (g.median_ci)
      ci = fmt::format("{} – {}", detail::format_time(g.median_ci->low), detail::format_time(g.median_ci->high));
    std::string rate = "-";
    if (r.throughput) {
      const auto& t = *r.throughput;
      if (t.flop_per_second) rate = detail::format_rate(t.flop_per_second, "FLOP/s");
      else if (t.bytes_per_second) rate = detail::format_rate(t.bytes_per_second, "B/s");
      else if (!t.items_per_second.empty())
        rate = detail::format_rate(t.items_per_second.begin()->second, (t.items_per_second.begin()->first + "/s").c_str());
    }
    std::string codes;
    for (const auto& c : r.warnings) codes += (codes.empty() ? "" : ", ") + c;
    // The point ("name/k=v/...") and, for the suite runner's --repetitions, the repetition
    // (0-based, as the report and the CSV write it): the runs of one point are told apart.
    static const std::vector<std::string> undeclared;
    const auto declared = axes.find(r.name);
    std::string label =
        r.dimensions ? detail::point_label(r.name, *r.dimensions, declared == axes.end() ? undeclared : declared->second) : r.name;
    if (r.repetition) label += " (repetition " + std::to_string(*r.repetition) + ")";
    if (r.kind == "timer_step") label += " (timer step)";
    if (r.kind == "timer_region")
      label += " (timer region" +
               (r.share_of_step ? ", " + detail::format_general(100 * *r.share_of_step, 3) + " % of the step" : std::string()) +
               ")";
    std::string status = r.status;
    if (r.error) status += ": " + *r.error;
    const std::string cpu = cpu_column ? detail::format_time(r.cpu ? r.cpu->p50 : std::nullopt) + " | " : std::string();
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {}{} | {} | {} | {} |\n", detail::escape::markdown_name(label), md_cell(status),
                       detail::format_time(g.p50), ci, detail::format_time(g.p99),
                       detail::format_time(r.wall ? r.wall->p50 : std::nullopt), cpu, rate,
                       md_cell(codes.empty() ? "-" : codes),
                       r.peaks ? detail::export_::pct_of_peak_text(*r.peaks) : std::string("-"),
                       r.peaks ? detail::export_::roofline_text(r.peaks->roofline) : std::string("-"));
  }
  return out;
}
}  // namespace formats

}  // namespace gauge

namespace gauge::detail::export_ {
/// The `markdown` export format: markdown_table of a stored report.
inline std::string write_markdown(const StoredReport& report, const ExportOptions&) {
  return formats::markdown_table(report.results, report.timers, report.axes);
}
}  // namespace gauge::detail::export_

GAUGE_REGISTER_EXPORT_FORMAT(markdown, "a Markdown table", ::gauge::detail::export_::write_markdown,
                             ::gauge::formats::ExportFormat::Holds::experiments_and_timers)
