#pragma once
/// \file gauge/report/compare/format.hpp
/// The registry of comparison formats: what `gauge-compare --format NAME` writes (text, markdown
/// and json are registered by gauge/report/compare/render.hpp). A new format is one header that
/// defines its writer and registers it with `GAUGE_REGISTER_COMPARISON_FORMAT`, included after
/// gauge/report/compare.hpp where the tool is built; gauge-compare's `--format` choices and help
/// come from the registry.

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "gauge/detail/registry.hpp"
#include "gauge/report/compare/types.hpp"

namespace gauge {
namespace compare {
/// One comparison format: its name (the `--format` value), a one-line description, and its
/// writer, which returns the whole output text (ending with a newline).
struct ComparisonFormat {
  std::string name;
  std::string description;
  std::function<std::string(const Comparison&)> write;
};

/// The registered comparison formats, in registration order.
inline std::vector<ComparisonFormat>& comparison_formats() { return detail::registered<ComparisonFormat>(); }

/// Registers a comparison format (replacing one of the same name); returns true.
inline bool register_comparison_format(ComparisonFormat format) { return detail::register_entry(std::move(format)); }

/// The comparison format called `name`. \throws ConfigError naming it and the registered names.
inline const ComparisonFormat& find_comparison_format(const std::string& name) {
  return detail::find_entry<ComparisonFormat>(name, "comparison format");
}
}  // namespace compare

}  // namespace gauge

/// Registers a comparison format from a header: `GAUGE_REGISTER_COMPARISON_FORMAT(text, "…", writer)`.
#define GAUGE_REGISTER_COMPARISON_FORMAT(id, description, writer)                  \
  namespace gauge::detail::comparison_registry {                                    \
  inline const bool id = ::gauge::compare::register_comparison_format({#id, description, writer}); \
  }
