#pragma once
/// \file gauge/report/dump.hpp
/// JSON text of gauge's documents: every writer (the report, the suite runner, the MPI report,
/// the Timer's JSON Lines, the exports) goes through `json_dump`, so a name or error message with
/// bytes that are not UTF-8 (a kernel's name, an exception's text) is written with U+FFFD in
/// their place instead of failing the write and losing what was measured.

#include <nlohmann/json.hpp>

#include <string>

namespace gauge {

namespace detail {
/// `j` as JSON text (no trailing newline); `indent` < 0: one line. Invalid UTF-8 in strings
/// becomes U+FFFD (nlohmann::json's error_handler_t::replace). Never throws for bad UTF-8.
inline std::string json_dump(const nlohmann::json& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}
}  // namespace detail

}  // namespace gauge
