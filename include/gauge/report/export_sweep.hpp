#pragma once
/// \file gauge/report/export_sweep.hpp
/// Export formats `sweep` and `sweep_markdown`: one table per benchmark, its axes as columns (the
/// suite runner's `--format console` and `--format markdown`), from any report: what the runner
/// prints after a run is what `gauge-export --format sweep` prints from the report it wrote.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <variant>
#include <string>
#include <vector>

#include "gauge/report/export_format.hpp"
#include "gauge/report/read.hpp"
#include "gauge/report/sweep_table.hpp"

namespace gauge::detail::export_ {

/// The sweep tables of `report`: a heading per benchmark (its name; "## name" in Markdown) and its
/// table (sweep_table), benchmarks in the order their first result (or skipped point) appears.
/// Columns: ExportOptions::axes for the benchmark, else its dimensions' names in alphabetical
/// order; a "device" dimension last. Rows: one per result (the repetitions of a point together, as
/// "i/N", N the most repetitions of any point) and per skipped point, sorted by the columns in
/// order: numbers ascending, text and booleans in the order they first appear, a missing value
/// last; ties keep the report's order.
inline std::string sweep_tables(const StoredReport& report, const ExportOptions& options, TableStyle style) {
  struct Entry {
    const Dimensions* dimensions;
    std::vector<std::size_t> results;        // the runs of one point
    std::optional<std::size_t> skipped;      // or a skipped point
  };
  struct Group {
    std::string name;
    std::vector<Entry> entries;
  };
  std::vector<Group> groups;
  auto group_of = [&groups](const std::string& name) -> Group& {
    for (auto& g : groups)
      if (g.name == name) return g;
    groups.push_back(Group{name, {}});
    return groups.back();
  };
  for (std::size_t i = 0; i < report.results.size(); ++i) {
    const Result& r = report.results[i];
    Group& g = group_of(r.name);
    const auto it = std::find_if(g.entries.begin(), g.entries.end(),
                                 [&](const Entry& e) { return !e.skipped && *e.dimensions == r.dimensions; });
    if (it == g.entries.end()) g.entries.push_back(Entry{&r.dimensions, {i}, std::nullopt});
    else it->results.push_back(i);
  }
  for (std::size_t i = 0; i < report.skipped.size(); ++i)
    group_of(report.skipped[i].name).entries.push_back(Entry{&report.skipped[i].dimensions, {}, i});
  // The runner's --repetitions N: the most repetitions any point has.
  std::size_t repetitions = 0;
  for (const Result& r : report.results)
    if (r.repetition) repetitions = std::max(repetitions, *r.repetition + 1);

  std::string text;
  for (Group& g : groups) {
    std::vector<std::string> axes;
    const auto declared = options.axes.find(g.name);
    if (declared != options.axes.end()) axes = declared->second;
    bool device = false;
    for (const Entry& e : g.entries)
      for (const auto& [name, value] : *e.dimensions) {
        if (name == "device") device = true;
        else if (std::find(axes.begin(), axes.end(), name) == axes.end()) axes.push_back(name);
      }
    if (declared == options.axes.end()) std::sort(axes.begin(), axes.end());
    if (device) axes.emplace_back("device");
    // Row order: by each column's value, numbers ascending, other values by first appearance.
    std::vector<DimensionValue> seen;
    for (const Entry& e : g.entries)
      for (const auto& [name, value] : *e.dimensions)
        if (std::find(seen.begin(), seen.end(), value) == seen.end()) seen.push_back(value);
    auto number = [](const DimensionValue& v) -> std::optional<double> {
      if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
      if (const auto* d = std::get_if<double>(&v)) return *d;
      return std::nullopt;
    };
    auto before = [&](const Entry& x, const Entry& y) {
      for (const auto& axis : axes) {
        const auto ix = x.dimensions->find(axis), iy = y.dimensions->find(axis);
        const bool hx = ix != x.dimensions->end(), hy = iy != y.dimensions->end();
        if (hx != hy) return hx;  // a missing value last
        if (!hx || ix->second == iy->second) continue;
        const auto nx = number(ix->second), ny = number(iy->second);
        if (nx && ny) {
          if (*nx != *ny) return *nx < *ny;
          continue;
        }
        if (nx || ny) return nx.has_value();  // numbers before text
        return std::find(seen.begin(), seen.end(), ix->second) < std::find(seen.begin(), seen.end(), iy->second);
      }
      return false;
    };
    std::stable_sort(g.entries.begin(), g.entries.end(), before);
    std::vector<SweepRow> rows;
    for (Entry& e : g.entries) {
      if (e.skipped) {
        rows.push_back(sweep_row(report.skipped[*e.skipped]));
        continue;
      }
      std::stable_sort(e.results.begin(), e.results.end(), [&](std::size_t a, std::size_t b) {
        return report.results[a].repetition.value_or(0) < report.results[b].repetition.value_or(0);
      });
      for (std::size_t i : e.results) {
        const Result& r = report.results[i];
        rows.push_back(sweep_row(r));
        if (r.repetition) rows.back().repetition = std::to_string(*r.repetition + 1) + "/" + std::to_string(repetitions);
      }
    }
    text += style == TableStyle::markdown ? "## " + g.name + "\n\n" : g.name + "\n";
    text += sweep_table(axes, rows, style) + "\n";
  }
  return text;
}

inline std::string write_sweep(const StoredReport& report, const ExportOptions& options) {
  return sweep_tables(report, options, TableStyle::console);
}
inline std::string write_sweep_markdown(const StoredReport& report, const ExportOptions& options) {
  return sweep_tables(report, options, TableStyle::markdown);
}

}  // namespace gauge::detail::export_

GAUGE_REGISTER_EXPORT_FORMAT(sweep, "a table per benchmark, its axes as columns (the suite runner's console view)",
                             ::gauge::detail::export_::write_sweep)
GAUGE_REGISTER_EXPORT_FORMAT(sweep_markdown, "the sweep tables as Markdown (the suite runner's markdown view)",
                             ::gauge::detail::export_::write_sweep_markdown)
