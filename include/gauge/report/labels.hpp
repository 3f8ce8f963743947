#pragma once
/// \file gauge/report/labels.hpp
/// The label of each result in a list or a table: its name, and, where other results share the
/// name, the dimensions that tell them apart ("fnv1a/threads=2", as detail::point_label spells a
/// point). The console summary and gauge-compare both label rows so. Light: core types and the standard library only.

#include <algorithm>
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "gauge/core/dimensions.hpp"
#include "gauge/core/result.hpp"

namespace gauge::detail {

/// A dimension's value spelled so that its type shows: an integer as is ("1"), a real with a
/// decimal point or exponent ("1.0", "0.5", "1e+20", "nan"), a string in double quotes ("\"1\""), a
/// bool as "true"/"false".
inline std::string typed_text(const DimensionValue& value) {
  if (const auto* s = std::get_if<std::string>(&value)) return "\"" + *s + "\"";
  std::string text = gauge::to_string(value);
  if (std::holds_alternative<double>(value) && text.find_first_of(".eEni") == std::string::npos) text += ".0";
  return text;
}

/// One label per result, in order: the name alone, unless another result has the same name; then
/// "name/k=v/..." with each of its dimensions whose value differs among the results of that
/// name (a key some of them lack counts as differing): first in the order `axes` declares for the
/// name (a report's `axes`, schema 1.9), then the others alphabetically. The name alone when
/// nothing differs. Keys in `ignored` (gauge-compare's --ignore-dimension) never label. Grouped by
/// name: O(n · dimensions · log n). Null pointers are not allowed. Where two results with
/// different dimensions would still read alike (the integer 1 and the real 1.0 both print "1", the
/// string "true" and the bool true "true"), their values are spelled by type: a real keeps a
/// decimal point ("1.0"), a string is quoted ("\"1\"").
inline std::vector<std::string> distinguishing_labels(const std::vector<const Result*>& results,
                                                      const std::map<std::string, std::vector<std::string>>& axes = {},
                                                      const std::set<std::string>& ignored = {}) {
  std::vector<std::string> labels(results.size());
  std::map<std::string, std::vector<std::size_t>> by_name;
  for (std::size_t i = 0; i < results.size(); ++i) {
    labels[i] = results[i]->name;
    by_name[results[i]->name].push_back(i);
  }
  for (const auto& [name, members] : by_name) {
    if (members.size() < 2) continue;
    // Per key: in how many members it is, and whether its value differs between two of them.
    std::map<std::string, std::pair<std::size_t, bool>> keys;
    std::map<std::string, const DimensionValue*> first;
    for (std::size_t i : members)
      for (const auto& [k, v] : results[i]->dimensions) {
        if (ignored.count(k)) continue;
        auto& [count, differs] = keys[k];
        ++count;
        const auto [it, added] = first.emplace(k, &v);
        if (!added && !(*it->second == v)) differs = true;
      }
    // The keys in label order: the declared axes first, then the rest as the map holds them.
    std::vector<std::string> order;
    if (const auto declared = axes.find(name); declared != axes.end())
      for (const auto& k : declared->second)
        if (keys.count(k) && std::find(order.begin(), order.end(), k) == order.end()) order.push_back(k);
    for (const auto& [k, counted] : keys)
      if (std::find(order.begin(), order.end(), k) == order.end()) order.push_back(k);
    for (std::size_t i : members) {
      for (const auto& k : order) {
        const auto v = results[i]->dimensions.find(k);
        if (v == results[i]->dimensions.end()) continue;
        const auto& [count, differs] = keys[k];
        if (differs || count < members.size()) labels[i] += "/" + k + "=" + gauge::to_string(v->second);
      }
    }
    // Labels that still collide between results of different dimensions: spelled by type.
    std::map<std::string, std::vector<std::size_t>> by_label;
    for (std::size_t i : members) by_label[labels[i]].push_back(i);
    for (const auto& [label, same] : by_label) {
      bool ambiguous = false;
      for (std::size_t j = 1; j < same.size() && !ambiguous; ++j)
        ambiguous = !(results[same[j]]->dimensions == results[same[0]]->dimensions);
      if (!ambiguous) continue;
      for (std::size_t i : same) {
        labels[i] = name;
        for (const auto& k : order) {
          const auto v = results[i]->dimensions.find(k);
          if (v == results[i]->dimensions.end()) continue;
          const auto& [count, differs] = keys[k];
          if (differs || count < members.size()) labels[i] += "/" + k + "=" + typed_text(v->second);
        }
      }
    }
  }
  return labels;
}

}  // namespace gauge::detail
