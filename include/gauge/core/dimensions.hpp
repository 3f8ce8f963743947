#pragma once
/// \file gauge/core/dimensions.hpp
/// The dimensions of an experiment: the parameters that change code generation or library
/// selection (seed: "Record the dimensions that change code generation or library selection").

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "gauge/core/error.hpp"

namespace gauge {

/// One dimension's value: an integer (M, N, K, batch), a real number (a scale), a string (dtype,
/// layout, epilogue) or a boolean (transposed, graph mode). Serialized as the matching JSON type.
using DimensionValue = std::variant<std::int64_t, double, std::string, bool>;

/// Dimensions of an experiment, ordered by key so that two reports list them identically.
using Dimensions = std::map<std::string, DimensionValue>;

namespace detail {
/// Converts any integer, floating-point, string-like or bool argument to a DimensionValue.
/// \throws ConfigError for a non-finite floating-point value, or an unsigned integer above
///   INT64_MAX (it would be written as a negative number).
template <class T>
DimensionValue to_dimension_value(T&& value) {
  using U = std::decay_t<T>;
  if constexpr (std::is_same_v<U, bool>) {
    return DimensionValue{static_cast<bool>(value)};
  } else if constexpr (std::is_integral_v<U>) {
    // The report stores integers as signed 64-bit (the schema's "integer", read back as int64):
    // an unsigned value above INT64_MAX would be written as a negative number, so it is refused.
    if constexpr (std::is_unsigned_v<U> && sizeof(U) >= sizeof(std::int64_t)) {
      if (value > static_cast<U>(std::numeric_limits<std::int64_t>::max()))
        throw ConfigError("an integer dimension must be at most 2^63 - 1 = 9223372036854775807 (reports store "
                          "signed 64-bit integers), got " + std::to_string(value) +
                          "; pass a larger value as a string or a double");
    }
    return DimensionValue{static_cast<std::int64_t>(value)};
  } else if constexpr (std::is_floating_point_v<U>) {
    if (!std::isfinite(static_cast<double>(value)))
      throw ConfigError("a dimension's value must be finite, got " + std::to_string(static_cast<double>(value)));
    return DimensionValue{static_cast<double>(value)};
  } else {
    static_assert(std::is_constructible_v<std::string, T>,
                  "a dimension value must be an integer, a floating-point number, a string or a bool");
    return DimensionValue{std::string(std::forward<T>(value))};
  }
}
}  // namespace detail

/// The value as text, e.g. "8192", "bf16", "true" (for console tables and experiment labels).
inline std::string to_string(const DimensionValue& value) {
  struct Visitor {
    std::string operator()(std::int64_t v) const { return std::to_string(v); }
    // The shortest text that reads back as the same double (std::to_chars: no locale, '.'),
    // so distinct values never share a label: 0.5, 1, 1e-07, 1.00000001.
    std::string operator()(double v) const {
      char buf[32];
      const auto r = std::to_chars(buf, buf + sizeof buf, v);
      return std::string(buf, r.ptr);
    }
    std::string operator()(const std::string& v) const { return v; }
    std::string operator()(bool v) const { return v ? "true" : "false"; }
  };
  return std::visit(Visitor{}, value);
}

namespace detail {
/// Replaces every non-finite real value (NaN, ±infinity, which only a Dimensions filled directly can
/// hold: the setters refuse them) by its text "nan", "inf" or "-inf", as the report writes it, so
/// that a report in memory and the same report read back hold the same dimensions.
inline void finite_dimensions(Dimensions& dims) {
  for (auto& [k, v] : dims)
    if (const auto* d = std::get_if<double>(&v); d && !std::isfinite(*d))
      v = std::string(std::isnan(*d) ? "nan" : *d > 0 ? "inf" : "-inf");
}

/// "name/axis=value/...": how every output names a point (the suite runner's --list, --filter and
/// --interleave, gauge-compare, the console and line formats, Markdown): the keys in `declared`
/// first, in that order (a suite's declared axes), then the other dimensions in key order; the
/// name alone without dimensions. E.g. "gemm/M=4096/dtype=bf16". A result's label holds every
/// dimension, also one its benchmark added while running (the runner's --list knows the axes
/// only). The integer 1 and the real 1.0 both read "1" here (tables that show both spell them by
/// type: detail::distinguishing_labels). (Google Benchmark JSON keeps its own
/// "name/key:value".)
inline std::string point_label(const std::string& name, const Dimensions& dims,
                               const std::vector<std::string>& declared = {}) {
  std::string label = name;
  for (std::size_t i = 0; i < declared.size(); ++i) {
    const auto it = dims.find(declared[i]);
    bool seen = it == dims.end();
    for (std::size_t j = 0; j < i && !seen; ++j) seen = declared[j] == declared[i];
    if (!seen) label += "/" + it->first + "=" + to_string(it->second);
  }
  for (const auto& [k, v] : dims)
    if (std::find(declared.begin(), declared.end(), k) == declared.end()) label += "/" + k + "=" + to_string(v);
  return label;
}

}  // namespace detail

}  // namespace gauge
