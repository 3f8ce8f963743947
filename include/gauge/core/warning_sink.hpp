#pragma once
/// \file gauge/core/warning_sink.hpp
/// Collecting warnings during a run: silenced codes (Config::silenced_warnings and the
/// GAUGE_SILENCE environment variable) and duplicates are dropped.

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/warnings.hpp"

namespace gauge {

namespace detail {
/// Warning codes silenced by the environment variable GAUGE_SILENCE (comma-separated codes).
inline std::set<std::string> silenced_by_environment() {
  std::set<std::string> codes;
  const char* v = std::getenv("GAUGE_SILENCE");
  if (!v) return codes;
  std::string s(v);
  std::size_t start = 0;
  while (start <= s.size()) {
    std::size_t end = s.find(',', start);
    if (end == std::string::npos) end = s.size();
    std::string code = s.substr(start, end - start);
    code.erase(std::remove_if(code.begin(), code.end(), [](char ch) { return ch == ' '; }), code.end());
    if (!code.empty()) codes.insert(code);
    start = end + 1;
  }
  return codes;
}
}  // namespace detail

/// Collects warnings, dropping the silenced codes (config plus GAUGE_SILENCE) and duplicates.
class WarningSink {
 public:
  /// \param silenced codes not to report.
  explicit WarningSink(std::set<std::string> silenced = {}) : silenced_(std::move(silenced)) {
    for (const auto& c : detail::silenced_by_environment()) silenced_.insert(c);
  }
  /// Adds a warning unless its code is silenced or already present.
  void add(std::string code, Severity severity, std::string message) {
    if (silenced_.count(code)) return;
    for (const auto& w : warnings_)
      if (w.code == code) return;
    warnings_.push_back(Warning{std::move(code), severity, std::move(message)});
  }
  /// The warnings collected so far, in the order added.
  const std::vector<Warning>& warnings() const { return warnings_; }
  /// True when a warning with this code was added.
  bool has(const std::string& code) const {
    return std::any_of(warnings_.begin(), warnings_.end(), [&](const Warning& w) { return w.code == code; });
  }

 private:
  std::set<std::string> silenced_;
  std::vector<Warning> warnings_;
};

}  // namespace gauge
