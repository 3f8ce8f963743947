#pragma once
/// \file gauge/report/export_sweep.hpp
/// Export formats `sweep` and `sweep_markdown`: one table per benchmark, its axes as columns (the
/// suite runner's `--format console` and `--format markdown`), from any report: what the runner
/// prints after a run is what `gauge-export --format sweep` prints from the report it wrote.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>
#include <variant>
#include <string>
#include <vector>

#include "gauge/report/escape.hpp"
#include "gauge/report/export_format.hpp"
#include "gauge/report/read.hpp"
#include "gauge/report/sweep_table.hpp"

namespace gauge::detail::export_ {

/// A point's identity for grouping a report's results: its dimensions with each value's type and
/// exact bits (so -0.0 and 0.0, or 1 and 1.0, are different points, as their labels are).
inline std::string point_key(const std::string& name, const Dimensions& dimensions) {
  std::string key = name;
  key += '\0';
  for (const auto& [axis, value] : dimensions) {
    key += axis;
    key += '\0';
    key += static_cast<char>('0' + value.index());
    if (const auto* d = std::get_if<double>(&value)) {
      char bits[sizeof(double)];
      std::memcpy(bits, d, sizeof bits);
      key.append(bits, sizeof bits);
    } else {
      key += to_string(value);
    }
    key += '\0';
  }
  return key;
}

/// "i" of "i/N" for a 0-based repetition, exact up to the largest index (no wrap to 0).
inline std::string one_based(std::size_t index) {
  return index == std::numeric_limits<std::size_t>::max() ? std::to_string(index) + "+1" : std::to_string(index + 1);
}

/// The sweep tables of `report`: a heading per benchmark (its name; "## name" in Markdown) and its
/// table (sweep_table), benchmarks in the order their first result (or skipped point) appears.
/// Columns: ExportOptions::axes for the benchmark, else the report's `axes` (the order the suite
/// runner declared them in, schema 1.9), else its dimensions' names in alphabetical order; a "device" dimension last (unless declared). Rows: one per result (the repetitions of a
/// point together, as "i/N", N the most repetitions of a point of that benchmark) and per skipped
/// point, sorted by the columns in order: numbers ascending (integers exactly), text and booleans
/// in the order they first appear, a missing value last; ties keep the report's order. A point is
/// its dimensions with their types (1 and 1.0, -0.0 and 0.0 are two points). O(n log n) in the
/// rows. Names are made visible (control characters) and, in Markdown, escaped.
inline std::string sweep_tables(const StoredReport& report, const ExportOptions& options, TableStyle style) {
  struct Entry {
    const Dimensions* dimensions;
    std::vector<std::size_t> results;     // the runs of one point
    std::optional<std::size_t> skipped;   // or a skipped point
  };
  struct Group {
    std::string name;
    std::vector<Entry> entries;
  };
  std::vector<Group> groups;
  std::unordered_map<std::string, std::size_t> group_index;
  std::unordered_map<std::string, std::pair<std::size_t, std::size_t>> point_index;  // key → (group, entry)
  auto group_of = [&](const std::string& name) -> std::size_t {
    const auto [it, added] = group_index.emplace(name, groups.size());
    if (added) groups.push_back(Group{name, {}});
    return it->second;
  };
  for (std::size_t i = 0; i < report.results.size(); ++i) {
    const Result& r = report.results[i];
    const std::size_t g = group_of(r.name);
    const auto [it, added] = point_index.emplace(point_key(r.name, r.dimensions), std::make_pair(g, groups[g].entries.size()));
    if (added) groups[g].entries.push_back(Entry{&r.dimensions, {i}, std::nullopt});
    else groups[g].entries[it->second.second].results.push_back(i);
  }
  for (std::size_t i = 0; i < report.skipped.size(); ++i)
    groups[group_of(report.skipped[i].name)].entries.push_back(Entry{&report.skipped[i].dimensions, {}, i});

  std::string text;
  for (Group& g : groups) {
    std::vector<std::string> axes;
    // The declared order: ExportOptions::axes, else the report's own (`axes`, schema 1.9).
    const std::vector<std::string>* declared = nullptr;
    if (const auto it = options.axes.find(g.name); it != options.axes.end()) declared = &it->second;
    else if (const auto jt = report.axes.find(g.name); jt != report.axes.end()) declared = &jt->second;
    const bool has_order = declared != nullptr;
    if (has_order) axes = *declared;
    std::set<std::string> listed(axes.begin(), axes.end());
    bool device = false;
    std::size_t repetitions = 0;  // this benchmark's --repetitions N: the most of any point
    for (const Entry& e : g.entries) {
      for (const auto& [name, value] : *e.dimensions) {
        if (name == "device" && !listed.count(name)) device = true;
        else if (listed.insert(name).second) axes.push_back(name);
      }
      for (std::size_t i : e.results)
        if (const auto& rep = report.results[i].repetition)
          repetitions = std::max(repetitions, *rep == std::numeric_limits<std::size_t>::max() ? *rep : *rep + 1);
    }
    if (!has_order) std::sort(axes.begin(), axes.end());
    if (device) axes.emplace_back("device");
    // Sort keys, one per entry and column: numbers by value (integers exactly), other values by
    // the rank of their first appearance, a missing value last.
    struct Key {
      int kind;  // 0 integer, 1 double, 2 other (rank), 3 missing
      std::int64_t integer;
      double number;
      std::size_t rank;
    };
    std::map<std::pair<std::size_t, std::string>, std::size_t> rank_of;  // (type, label) → rank
    auto key_of = [&](const Dimensions& d, const std::string& axis) -> Key {
      const auto it = d.find(axis);
      if (it == d.end()) return Key{3, 0, 0, 0};
      if (const auto* i = std::get_if<std::int64_t>(&it->second)) return Key{0, *i, static_cast<double>(*i), 0};
      if (const auto* x = std::get_if<double>(&it->second)) return Key{1, 0, *x, 0};
      const auto [r, added] = rank_of.emplace(std::make_pair(it->second.index(), to_string(it->second)), rank_of.size());
      return Key{2, 0, 0, r->second};
    };
    std::vector<std::vector<Key>> keys(g.entries.size());
    for (std::size_t e = 0; e < g.entries.size(); ++e)
      for (const auto& axis : axes) keys[e].push_back(key_of(*g.entries[e].dimensions, axis));
    auto before = [](const Key& x, const Key& y) {  // strict weak order within one column
      const bool nx = x.kind <= 1, ny = y.kind <= 1;
      if (nx && ny) {
        if (x.kind == 0 && y.kind == 0) return x.integer < y.integer;
        if (std::isnan(x.number) || std::isnan(y.number)) return !std::isnan(x.number) && std::isnan(y.number);  // NaN last
        return x.number < y.number;  // an integer beside a double: by value
      }
      if (nx != ny) return nx;  // numbers first
      if (x.kind != y.kind) return x.kind < y.kind;  // text before missing
      return x.kind == 2 && x.rank < y.rank;
    };
    std::vector<std::size_t> order(g.entries.size());
    for (std::size_t e = 0; e < order.size(); ++e) order[e] = e;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      for (std::size_t c = 0; c < axes.size(); ++c) {
        if (before(keys[a][c], keys[b][c])) return true;
        if (before(keys[b][c], keys[a][c])) return false;
      }
      return false;
    });
    std::vector<SweepRow> rows;
    for (std::size_t e : order) {
      Entry& entry = g.entries[e];
      if (entry.skipped) {
        rows.push_back(sweep_row(report.skipped[*entry.skipped]));
        continue;
      }
      std::stable_sort(entry.results.begin(), entry.results.end(), [&](std::size_t a, std::size_t b) {
        // Numbered repetitions in order, then the results without one (a report merged from a
        // run with --repetitions and one without), in report order.
        const auto& ra = report.results[a].repetition;
        const auto& rb = report.results[b].repetition;
        return ra && (!rb || *ra < *rb);
      });
      for (std::size_t i : entry.results) {
        const Result& r = report.results[i];
        rows.push_back(sweep_row(r));
        if (r.repetition) rows.back().repetition = one_based(*r.repetition) + "/" + std::to_string(repetitions);
      }
    }
    text += style == TableStyle::markdown ? "## " + escape::markdown_name(g.name) + "\n\n" : escape::visible(g.name) + "\n";
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
                             ::gauge::detail::export_::write_sweep, ::gauge::formats::ExportFormat::Holds::points)
GAUGE_REGISTER_EXPORT_FORMAT(sweep_markdown, "the sweep tables as Markdown (the suite runner's markdown view)",
                             ::gauge::detail::export_::write_sweep_markdown, ::gauge::formats::ExportFormat::Holds::points)
