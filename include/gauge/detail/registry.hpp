#pragma once
/// \file gauge/detail/registry.hpp
/// A registry of named entries (a renderer: an export format, a comparison format), shared by
/// every registry of gauge's outputs so that each is "one file plus one registration": entries
/// register themselves at start-up (an inline variable at namespace scope), a later entry with the
/// same name replaces the earlier, and a name not found is a ConfigError listing the registered
/// names. `Entry` has a `std::string name`.

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/error.hpp"

namespace gauge::detail {

/// The entries of type `Entry`, in registration order (one list per type, for the whole program).
template <class Entry>
std::vector<Entry>& registered() {
  static std::vector<Entry> entries;
  return entries;
}

/// Registers `entry` (replacing one of the same name). Returns true, to initialize a variable.
template <class Entry>
bool register_entry(Entry entry) {
  auto& all = registered<Entry>();
  auto same = std::find_if(all.begin(), all.end(), [&](const Entry& e) { return e.name == entry.name; });
  if (same != all.end()) *same = std::move(entry);
  else all.push_back(std::move(entry));
  return true;
}

/// The entry called `name`. \throws ConfigError "no <what> '<name>' (registered: a, b, ...)".
template <class Entry>
const Entry& find_entry(const std::string& name, const char* what) {
  std::string names;
  for (const auto& e : registered<Entry>()) {
    if (e.name == name) return e;
    names += (names.empty() ? "" : ", ") + e.name;
  }
  throw ConfigError("no " + std::string(what) + " '" + name + "' (registered: " + names + ")");
}

/// The names of the entries, in registration order.
template <class Entry>
std::vector<std::string> entry_names() {
  std::vector<std::string> names;
  for (const auto& e : registered<Entry>()) names.push_back(e.name);
  return names;
}

}  // namespace gauge::detail
