#pragma once
/// \file gauge/report/sweep_table.hpp
/// The runner's table per benchmark, like nvbench's: one row per point, one column per axis, then
/// status, samples, the median time per step, the half-width of its confidence interval, the
/// throughput and the warnings (or the reason of a skip, or the error). As aligned text for the
/// console or as a Markdown table.

#include "gauge/detail/fmt.hpp"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "gauge/core/dimensions.hpp"
#include "gauge/core/format.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/skipped.hpp"
#include "gauge/report/escape.hpp"

namespace gauge {

namespace detail {
/// One row of a sweep table, from a Result or a SkippedPoint.
struct SweepRow {
  Dimensions dimensions;        ///< the point's axis values (and device)
  std::string status;           ///< "ok", "failed" or "skipped"
  std::string samples = "-";    ///< samples of the median ("-" for a skipped point)
  std::string median = "-";     ///< median time per step, e.g. "12.35 us"
  std::string ci = "-";         ///< half-width of the median's CI, percent of the median, e.g. "0.210"
  /// Median process CPU time per step (host timing, Result::cpu_time), e.g. "480 ns"; "" where the
  /// result has none (a table shows its "cpu/step" column only when a row has one).
  std::string cpu;
  std::string throughput = "-";  ///< work / median: FLOP/s, else B/s, else the first item rate
  std::string note;             ///< warning codes; the error of a failed point; the reason of a skip
  /// "i/N" (1-based) for a repetition of a run with `--repetitions N`, N > 1; "" otherwise (a
  /// table shows its "repetition" column only when a row has one).
  std::string repetition;
};

/// How a sweep table is written.
enum class TableStyle {
  console,   ///< aligned columns
  markdown,  ///< a GitHub-flavoured Markdown table
};

/// The row of a measured (or failed) point.
inline SweepRow sweep_row(const Result& r) {
  SweepRow row;
  row.dimensions = r.dimensions;
  row.status = to_string(r.status);
  row.samples = std::to_string(r.gpu_time.n);
  row.median = detail::format_time(r.gpu_time.p50);
  row.ci = detail::ci_half_width_text(r.gpu_time.median_ci_relative_width, r.gpu_time.p50, r.sampling.resolution_per_step());
  if (r.cpu_time.p50) row.cpu = detail::format_time(r.cpu_time.p50);
  if (r.gpu_throughput.flop_per_second) row.throughput = detail::format_rate(r.gpu_throughput.flop_per_second, "FLOP/s");
  else if (r.gpu_throughput.bytes_per_second) row.throughput = detail::format_rate(r.gpu_throughput.bytes_per_second, "B/s");
  else if (!r.gpu_throughput.items_per_second.empty()) {
    const auto& [item, v] = *r.gpu_throughput.items_per_second.begin();
    row.throughput = detail::format_rate(v, (item + "/s").c_str());
  }
  for (const auto& w : r.warnings) row.note += (row.note.empty() ? "" : ",") + w.code;
  if (r.error) row.note += (row.note.empty() ? "" : "; ") + std::string("error: ") + *r.error;
  return row;
}

/// The row of a skipped point: status "skipped", the reason as its note.
inline SweepRow sweep_row(const records::SkippedPoint& s) {
  SweepRow row;
  row.dimensions = s.dimensions;
  row.status = "skipped";
  row.note = s.reason;
  return row;
}

/// The table of one benchmark: a column per name in `axes` (a row without that dimension shows
/// "-"), a "repetition" column when a row has one (SweepRow::repetition), then status, samples,
/// median, ci +-%, "cpu/step" when a row has process CPU time (SweepRow::cpu), throughput, notes;
/// ends with a newline.
/// Control characters in cells are made visible; in Markdown '|', '\\' and what would start
/// emphasis, code, a link or HTML are escaped (escape::markdown_name).
inline std::string sweep_table(const std::vector<std::string>& axes, const std::vector<SweepRow>& rows, TableStyle style) {
  const bool repetition_column =
      std::any_of(rows.begin(), rows.end(), [](const SweepRow& r) { return !r.repetition.empty(); });
  const std::size_t lead = axes.size() + (repetition_column ? 1 : 0);  // right-aligned leading columns
  std::vector<std::string> header = axes;
  if (repetition_column) header.emplace_back("repetition");
  const bool cpu_column = std::any_of(rows.begin(), rows.end(), [](const SweepRow& r) { return !r.cpu.empty(); });
  for (const char* h : {"status", "samples", "median", "ci +-%"}) header.emplace_back(h);
  if (cpu_column) header.emplace_back("cpu/step");
  for (const char* h : {"throughput", "notes"}) header.emplace_back(h);
  for (auto& h : header) h = detail::escape::visible(h);  // axis names are the user's text
  // A column that holds both integers and reals (two runs that typed one axis differently) shows
  // an integral real as "1.0", so that the integer 1 and the real 1.0, two points, do not both read "1".
  std::vector<bool> mixed(axes.size(), false);
  for (std::size_t a = 0; a < axes.size(); ++a) {
    bool ints = false, reals = false;
    for (const auto& r : rows)
      if (const auto it = r.dimensions.find(axes[a]); it != r.dimensions.end()) {
        ints = ints || std::holds_alternative<std::int64_t>(it->second);
        reals = reals || std::holds_alternative<double>(it->second);
      }
    mixed[a] = ints && reals;
  }
  std::vector<std::vector<std::string>> cells;
  for (const auto& r : rows) {
    std::vector<std::string> line;
    for (std::size_t a = 0; a < axes.size(); ++a) {
      const auto it = r.dimensions.find(axes[a]);
      std::string text = it == r.dimensions.end() ? "-" : to_string(it->second);
      if (mixed[a] && it != r.dimensions.end() && std::holds_alternative<double>(it->second) &&
          text.find_first_not_of("-0123456789") == std::string::npos)
        text += ".0";
      line.push_back(std::move(text));
    }
    if (repetition_column) line.push_back(r.repetition.empty() ? "-" : r.repetition);
    for (const std::string* c : {&r.status, &r.samples, &r.median, &r.ci}) line.push_back(*c);
    if (cpu_column) line.push_back(r.cpu.empty() ? "-" : r.cpu);
    for (const std::string* c : {&r.throughput, &r.note}) line.push_back(*c);
    for (auto& c : line) c = detail::escape::visible(c);
    cells.push_back(std::move(line));
  }
  const std::size_t numeric_from = lead + 1;  // samples ... throughput: right-aligned
  // Leading columns: numbers right-aligned; an axis with a string or boolean value (a type, an
  // algorithm) left-aligned, as text reads.
  std::vector<bool> lead_right(lead, true);
  for (std::size_t a = 0; a < axes.size(); ++a)
    for (const auto& r : rows) {
      const auto it = r.dimensions.find(axes[a]);
      if (it != r.dimensions.end() && !std::holds_alternative<std::int64_t>(it->second) &&
          !std::holds_alternative<double>(it->second))
        lead_right[a] = false;
    }
  auto right_aligned = [&](std::size_t i) {
    return i < lead ? static_cast<bool>(lead_right[i]) : i >= numeric_from && i + 1 < header.size();
  };
  std::string out;
  if (style == TableStyle::markdown) {
    // Axis values and notes are the user's text: no emphasis, code, link or HTML renders from them.
    auto md = [](const std::string& c) { return detail::escape::markdown_name(c); };
    out += "|";
    for (const auto& h : header) out += " " + md(h) + " |";
    out += "\n|";
    for (std::size_t i = 0; i < header.size(); ++i)
      out += right_aligned(i) ? "---:|" : "---|";
    out += "\n";
    for (const auto& line : cells) {
      out += "|";
      for (const auto& c : line) out += " " + md(c) + " |";
      out += "\n";
    }
    return out;
  }
  std::vector<std::size_t> width(header.size());
  for (std::size_t i = 0; i < header.size(); ++i) width[i] = header[i].size();
  for (const auto& line : cells)
    for (std::size_t i = 0; i < line.size(); ++i) width[i] = std::max(width[i], line[i].size());
  auto write_line = [&](const std::vector<std::string>& line) {
    std::string s;
    for (std::size_t i = 0; i < line.size(); ++i) {
      const bool last = i + 1 == line.size();
      const bool right = right_aligned(i);
      std::string pad(width[i] - line[i].size(), ' ');
      s += (i ? "  " : "") + (last ? line[i] : right ? pad + line[i] : line[i] + pad);
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s + "\n";
  };
  out += write_line(header);
  for (const auto& line : cells) out += write_line(line);
  return out;
}
}  // namespace detail

}  // namespace gauge
