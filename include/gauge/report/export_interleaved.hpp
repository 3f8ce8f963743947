#pragma once
/// \file gauge/report/export_interleaved.hpp
/// Export formats `interleaved` and `interleaved_markdown`: for each interleaved A/B run of a
/// report (its `interleaved` list), the two points side by side and the paired ratio B/A with its
/// interval and verdict. They are the suite runner's `--interleave` views (`--format console` and
/// `--format markdown`): what the runner prints after `--interleave A B` is what
/// `gauge-export --format interleaved` prints from the report it wrote.

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "gauge/detail/fmt.hpp"

#include "gauge/core/format.hpp"
#include "gauge/core/interleaved.hpp"
#include "gauge/core/interleaved_statistics.hpp"
#include "gauge/report/escape.hpp"
#include "gauge/report/export_format.hpp"
#include "gauge/report/read.hpp"
#include "gauge/report/sweep_table.hpp"

namespace gauge::detail::export_ {

/// The text of one interleaved run: which point is A and which B, the paired ratio B/A with its
/// interval, the threshold and the verdict with its reason (console: three lines; Markdown: a
/// "## interleaved A/B" table and the reason). `a` and `b` are the points' labels.
inline std::string interleaved_text(const records::InterleavedRecord& x, const std::string& a, const std::string& b,
                                    TableStyle style) {
  const std::string threshold = format_number(100 * x.config.threshold) + " %";
  if (style == TableStyle::markdown) {
    std::string s = "## interleaved A/B (" + escape::markdown_name(x.order) + " rounds)\n\n";
    s += "| A | B | B/A | CI low | CI high | level | round pairs | threshold | verdict |\n";
    s += "|---|---|---|---|---|---|---|---|---|\n";
    const std::string ma = escape::markdown_name(a), mb = escape::markdown_name(b);
    if (x.ratio)
      s += fmt::format("| {} | {} | {} | {} | {} | {} % | {} | {} | {} |\n", ma, mb, format_ratio(x.ratio->estimate),
                       format_ratio(x.ratio->low), format_ratio(x.ratio->high), format_number(100 * x.ratio->level),
                       x.ratio->pairs, threshold, to_string(x.verdict));
    else
      s += fmt::format("| {} | {} | - | - | - | - | {} | {} | {} |\n", ma, mb, x.pair_ratios.size(), threshold,
                       to_string(x.verdict));
    return s + "\n" + escape::markdown_name(x.reason) + "\n";
  }
  std::string s = "interleaved A/B (" + escape::visible(x.order) + " rounds): A = " + escape::visible(a) + ", B = " + escape::visible(b) +
                  "; " + std::to_string(x.pair_ratios.size()) + " round pairs in " + format_duration(x.measure_time_s) +
                  ", stopped: " + (x.stopping_reason.empty() ? "-" : escape::visible(x.stopping_reason)) + "\n";
  if (x.ratio)
    s += fmt::format("  B/A = {}, {} % CI [{}, {}], threshold {}: {}\n", format_ratio(x.ratio->estimate),
                     format_number(100 * x.ratio->level), format_ratio(x.ratio->low), format_ratio(x.ratio->high), threshold,
                     to_string(x.verdict));
  else
    s += "  B/A: no interval, threshold " + threshold + ": " + to_string(x.verdict) + "\n";
  // The reason without what the line above said already (the ratio, its interval, "B is slower"):
  // a new user read the verdict twice in different words. A reason of another shape (an older
  // report, "too few round pairs") is printed whole.
  std::string why = x.reason;
  if (x.ratio) {
    const std::string head = paired_head(*x.ratio) + ": ";
    if (why.rfind(head, 0) == 0) {
      why.erase(0, head.size());
      for (const char* said : {"B is slower: ", "B is faster: "})
        if (why.rfind(said, 0) == 0) why.erase(0, std::string(said).size());
      why = "why: " + why;
    }
  }
  return s + "  " + escape::visible(why) + "\n";
}

/// The interleaved views of `report`: per interleaved run, a table of its two points (columns side,
/// point; then sweep_table's status, samples, median, ...; "## points" before it in Markdown) and
/// the run's text (interleaved_text). Results and skipped points that belong to no interleaved run
/// (a point skipped or failed before the rounds, so no run was recorded) follow in one table with
/// side "-" (after a line saying so when the report has no interleaved run at all). Point labels
/// as detail::point_label, with the report's declared axes (schema 1.9).
/// \throws ConfigError for a record whose A or B is not an index into the experiments.
inline std::string interleaved_views(const StoredReport& report, TableStyle style) {
  const auto declared = [&](const std::string& name) -> const std::vector<std::string>& {
    static const std::vector<std::string> none;
    const auto it = report.axes.find(name);
    return it == report.axes.end() ? none : it->second;
  };
  const auto label = [&](const Result& r) { return detail::point_label(r.name, r.dimensions, declared(r.name)); };
  const auto table = [&](const std::vector<SweepRow>& rows) {
    return (style == TableStyle::markdown ? std::string("## points\n\n") : std::string()) +
           sweep_table({"side", "point"}, rows, style) + "\n";
  };
  const auto row = [](const char* side, const std::string& point, SweepRow r) {
    r.dimensions = {{"side", std::string(side)}, {"point", point}};
    return r;
  };
  std::string text;
  std::vector<bool> in_record(report.results.size(), false);
  for (std::size_t i = 0; i < report.interleaved.size(); ++i) {
    const records::InterleavedRecord& x = report.interleaved[i];
    if (x.a >= report.results.size() || x.b >= report.results.size())
      throw ConfigError("interleaved[" + std::to_string(i) + "] names experiment " +
                        std::to_string(std::max(x.a, x.b)) + ", but the report has " +
                        std::to_string(report.results.size()));
    if (x.a == x.b)
      throw ConfigError("interleaved[" + std::to_string(i) + "]: A and B are the same experiment " + std::to_string(x.a));
    const Result &a = report.results[x.a], &b = report.results[x.b];
    in_record[x.a] = in_record[x.b] = true;
    if (!text.empty()) text += "\n";  // a blank line between two runs
    text += table({row("A", label(a), sweep_row(a)), row("B", label(b), sweep_row(b))});
    text += interleaved_text(x, label(a), label(b), style);
  }
  std::vector<SweepRow> rest;
  for (std::size_t i = 0; i < report.results.size(); ++i)
    if (!in_record[i]) rest.push_back(row("-", label(report.results[i]), sweep_row(report.results[i])));
  for (const auto& s : report.skipped)
    rest.push_back(row("-", detail::point_label(s.name, s.dimensions, declared(s.name)), sweep_row(s)));
  if (!rest.empty()) {
    // Said first where nothing was interleaved (a report of another run, or a point that did not reach the rounds).
    if (report.interleaved.empty())
      text = style == TableStyle::markdown ? "No interleaved A/B run in this report; its points:\n\n"
                                           : "no interleaved A/B run in this report; its points:\n";
    else
      text += "\n";
    text += table(rest);
  }
  return text;
}

inline std::string write_interleaved(const StoredReport& report, const ExportOptions&) {
  return interleaved_views(report, TableStyle::console);
}
inline std::string write_interleaved_markdown(const StoredReport& report, const ExportOptions&) {
  return interleaved_views(report, TableStyle::markdown);
}

}  // namespace gauge::detail::export_

GAUGE_REGISTER_EXPORT_FORMAT(interleaved,
                             "each interleaved A/B run: its two points and the paired ratio B/A with its verdict (the "
                             "suite runner's --interleave console view)",
                             ::gauge::detail::export_::write_interleaved, ::gauge::formats::ExportFormat::Holds::points)
GAUGE_REGISTER_EXPORT_FORMAT(interleaved_markdown,
                             "the interleaved view as Markdown (the suite runner's --interleave markdown view)",
                             ::gauge::detail::export_::write_interleaved_markdown, ::gauge::formats::ExportFormat::Holds::points)
