#pragma once
/// \file gauge/suite/axes.hpp
/// Axes of a benchmark sweep: named lists of values (integers, reals, strings, or the names of the
/// types a template benchmark is instantiated over), and the text grammar of `--axis`:
///
///   N=[1024,4096]        a list (integers, reals or strings, by the axis's kind)
///   N=[1:10:3]           an inclusive range first:last[:step] (step 1 by default): 1, 4, 7, 10
///   N=2^[10:30:2]        powers of two, the range (or list) being exponents: 2^10, 2^12, … 2^30
///   N=4096               one value
///
/// The same grammar as nvbench's `-a`, except that nvbench writes powers of two as
/// `N[pow2]=[10:30:2]` (accepted too). Light: the standard library and gauge/core only.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <locale>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/dimensions.hpp"
#include "gauge/core/error.hpp"

namespace gauge {

/// An axis's text or declaration is invalid. The message names the bad part, e.g.
/// "'x' is not an integer".
class AxisError : public ConfigError {
 public:
  using ConfigError::ConfigError;
};

namespace suite {
/// What an axis's values are.
enum class AxisKind {
  int64,    ///< integers (sizes, counts): DimensionValue holds std::int64_t
  float64,  ///< real numbers: DimensionValue holds double
  string,   ///< strings (a layout, an algorithm): DimensionValue holds std::string
  type,     ///< the names of the types a template benchmark is instantiated over (e.g. "float")
};

/// Text name of an AxisKind ("int64", "float64", "string", "type").
inline const char* to_string(AxisKind k) {
  switch (k) {
    case AxisKind::int64: return "int64";
    case AxisKind::float64: return "float64";
    case AxisKind::string: return "string";
    case AxisKind::type: return "type";
  }
  return "?";
}

/// One axis of a benchmark: a name and its values, in the order they are swept.
struct Axis {
  std::string name;                    ///< e.g. "N"; a dimension of every point's result
  AxisKind kind = AxisKind::int64;     ///< what the values are
  std::vector<DimensionValue> values;  ///< int64_t, double or std::string by `kind`; never empty
  bool power_of_two = false;           ///< declared as powers of two (a plot uses a log2 axis)
};
}  // namespace suite
using suite::to_string;  // gauge::to_string names every enum of gauge

namespace suite {
/// Integer values with how they were made (so tables and plots know a power-of-two axis).
struct Int64Values {
  std::vector<std::int64_t> values;  ///< the values, in sweep order
  bool power_of_two = false;         ///< every value is 2^k, declared so
  /// Why there are no values ("" when the arguments were valid): gauge::pow2 and gauge::range
  /// never throw (they run in static initializers, where an exception ends the program before
  /// main); Benchmark::int64_axis records this, and the runner refuses to start, naming it.
  std::string error;
};
}  // namespace suite

namespace detail {
/// The most values one axis may have (a typo such as [1:1000000000] is refused, not swept).
inline constexpr std::size_t max_axis_values = 100000;
}  // namespace detail

/// Powers of two 2^first_exponent, 2^(first_exponent + step), … up to 2^last_exponent inclusive.
/// Never throws: when an exponent is outside [0, 62], first > last or step < 1, no values and
/// `error` says why (int64_axis records it; the runner then exits 2 naming the axis).
suite::Int64Values pow2(int first_exponent, int last_exponent, int step = 1);

/// The integers first, first + step, … up to last inclusive. Never throws: when step < 1,
/// first > last or there would be more than max_axis_values, no values and `error` says why.
suite::Int64Values range(std::int64_t first, std::int64_t last, std::int64_t step = 1);

namespace suite {
/// An `--axis` text split at its first '=': the axis name and the values' text.
struct AxisOverride {
  std::string name;         ///< the axis it replaces, e.g. "N"
  std::string values_text;  ///< e.g. "2^[10:30:2]"
  bool power_of_two = false;  ///< nvbench's spelling `N[pow2]=[10:30:2]`
  std::string text;         ///< the whole text, for error messages
};
}  // namespace suite

namespace detail {
/// Splits "NAME=VALUES". AxisError ("expected NAME=VALUES, e.g. N=[1024,4096]") without a '=' or
/// with an empty name or value.
suite::AxisOverride parse_axis_override(const std::string& text);
}  // namespace detail

namespace suite {
/// The values of `values_text` for an axis of kind `kind` (the grammar in the file comment).
/// For a type axis, each value must be one of `allowed` (the types it was instantiated over).
/// \returns the values and whether they are powers of two.
/// \throws AxisError naming the bad part: "'x' is not an integer", "step '0' must be positive",
///   "'half' is not one of the types of this axis (float, double)", ...
std::pair<std::vector<DimensionValue>, bool> parse_axis_values(AxisKind kind, const std::string& values_text,
                                                               const std::vector<DimensionValue>& allowed = {},
                                                               bool power_of_two = false);
}  // namespace suite

// ---- implementation (inline: small and light) -------------------------------------------------

namespace detail::axes {

inline std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

/// Splits at top-level `sep` (not inside <>, (), [] or {}), trimming each part.
inline std::vector<std::string> split_top_level(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char c : s) {
    if (c == '<' || c == '(' || c == '[' || c == '{') ++depth;
    if (c == '>' || c == ')' || c == ']' || c == '}') --depth;
    if (c == sep && depth == 0) {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(trim(cur));
  return out;
}

inline std::int64_t parse_int(const std::string& t) {
  const std::string digits = !t.empty() && (t[0] == '-' || t[0] == '+') ? t.substr(1) : t;
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos)
    throw AxisError("'" + t + "' is not an integer");
  try {
    std::size_t used = 0;
    const long long v = std::stoll(t, &used, 10);
    if (used != t.size()) throw AxisError("'" + t + "' is not an integer");
    return v;
  } catch (const std::out_of_range&) {
    throw AxisError("'" + t + "' is out of the range of a 64-bit integer");
  }
}

inline double parse_real(const std::string& t) {
  std::istringstream in(t);
  in.imbue(std::locale::classic());  // '.' whatever the global locale is
  double v = 0;
  in >> v;
  if (t.empty() || in.fail() || !in.eof() || !(v == v) || v == std::numeric_limits<double>::infinity() ||
      v == -std::numeric_limits<double>::infinity())
    throw AxisError("'" + t + "' is not a finite real number");
  // A nonzero mantissa that reads as 0 underflowed (1e-400): refused, not silently 0.
  if (v == 0) {
    const std::string mantissa = t.substr(0, t.find_first_of("eE"));
    if (mantissa.find_first_of("123456789") != std::string::npos)
      throw AxisError("'" + t + "' is too small for a double: it would read as 0 (the smallest is about 4.9e-324)");
  }
  return v;
}

inline std::string range_text(const std::vector<std::string>& parts) {
  std::string s = "[";
  for (std::size_t i = 0; i < parts.size(); ++i) s += (i ? ":" : "") + parts[i];
  return s + "]";
}

}  // namespace detail::axes

inline suite::Int64Values pow2(int first_exponent, int last_exponent, int step) {
  suite::Int64Values out;
  out.power_of_two = true;
  const std::string call = "gauge::pow2(" + std::to_string(first_exponent) + ", " + std::to_string(last_exponent) + ", " +
                           std::to_string(step) + "): ";
  if (first_exponent < 0 || first_exponent > 62)
    out.error = call + "exponent '" + std::to_string(first_exponent) + "' is outside [0, 62]";
  else if (last_exponent < 0 || last_exponent > 62)
    out.error = call + "exponent '" + std::to_string(last_exponent) + "' is outside [0, 62]";
  else if (step < 1)
    out.error = call + "step '" + std::to_string(step) + "' must be positive";
  else if (first_exponent > last_exponent)
    out.error = call + "range [" + std::to_string(first_exponent) + ":" + std::to_string(last_exponent) + "] is empty";
  if (!out.error.empty()) return out;
  // Counted in 64 bits: `e += step` in int overflowed for a step near INT_MAX (and wrapped to
  // smaller exponents, listing 63 values instead of one).
  for (std::int64_t e = first_exponent; e <= last_exponent; e += step) out.values.push_back(std::int64_t{1} << e);
  return out;
}

inline suite::Int64Values range(std::int64_t first, std::int64_t last, std::int64_t step) {
  suite::Int64Values out;
  const std::string call =
      "gauge::range(" + std::to_string(first) + ", " + std::to_string(last) + ", " + std::to_string(step) + "): ";
  if (step < 1) {
    out.error = call + "step '" + std::to_string(step) + "' must be positive";
    return out;
  }
  if (first > last) {
    out.error = call + "range [" + std::to_string(first) + ":" + std::to_string(last) + "] is empty";
    return out;
  }
  // (last - first) / step + 1 values, computed without overflow.
  const auto span = static_cast<std::uint64_t>(last) - static_cast<std::uint64_t>(first);
  if (span / static_cast<std::uint64_t>(step) >= detail::max_axis_values) {
    out.error = call + "range [" + std::to_string(first) + ":" + std::to_string(last) + ":" + std::to_string(step) +
                "] has more than " + std::to_string(detail::max_axis_values) + " values";
    return out;
  }
  // Count the values (span / step + 1, at most max_axis_values) instead of stepping an offset
  // that could wrap past span.
  const std::uint64_t count = span / static_cast<std::uint64_t>(step) + 1;
  for (std::uint64_t i = 0; i < count; ++i)
    out.values.push_back(static_cast<std::int64_t>(static_cast<std::uint64_t>(first) + i * static_cast<std::uint64_t>(step)));
  return out;
}

namespace detail {
inline suite::AxisOverride parse_axis_override(const std::string& text) {
  const auto eq = text.find('=');
  const std::string usage = "expected NAME=VALUES, e.g. N=[1024,4096] or N=2^[10:30:2]";
  if (eq == std::string::npos) throw AxisError("no '=': " + usage);
  suite::AxisOverride o;
  o.text = text;
  o.name = detail::axes::trim(text.substr(0, eq));
  o.values_text = detail::axes::trim(text.substr(eq + 1));
  const std::string pow2_suffix = "[pow2]";
  if (o.name.size() > pow2_suffix.size() && o.name.compare(o.name.size() - pow2_suffix.size(), pow2_suffix.size(), pow2_suffix) == 0) {
    o.name = detail::axes::trim(o.name.substr(0, o.name.size() - pow2_suffix.size()));
    o.power_of_two = true;
  }
  if (o.name.empty()) throw AxisError("no axis name before '=': " + usage);
  if (o.values_text.empty()) throw AxisError("no values after '=': " + usage);
  return o;
}
}  // namespace detail

namespace suite {
inline std::pair<std::vector<DimensionValue>, bool> parse_axis_values(AxisKind kind, const std::string& values_text,
                                                                      const std::vector<DimensionValue>& allowed,
                                                                      bool power_of_two) {
  using namespace detail::axes;
  std::string body = trim(values_text);
  if (body.rfind("2^", 0) == 0) {
    power_of_two = true;
    body = trim(body.substr(2));
  }
  if (power_of_two && kind != AxisKind::int64)
    throw AxisError("powers of two ('" + values_text + "') need an integer axis, this one is " + to_string(kind));
  const bool bracketed = body.size() >= 2 && body.front() == '[' && body.back() == ']';
  if (!bracketed && (body.find('[') != std::string::npos || body.find(']') != std::string::npos))
    throw AxisError("'" + body + "': unbalanced brackets, expected [a,b,...] or [first:last:step]");
  const std::string inner = bracketed ? body.substr(1, body.size() - 2) : body;
  if (trim(inner).empty()) throw AxisError("'" + values_text + "' has no values");

  std::vector<DimensionValue> out;
  auto add_int = [&](std::int64_t v) {
    if (power_of_two) {
      if (v < 0 || v > 62) throw AxisError("exponent '" + std::to_string(v) + "' is outside [0, 62]");
      out.emplace_back(std::int64_t{1} << v);
    } else {
      out.emplace_back(v);
    }
  };

  // Ranges are numeric: in a string or type axis ':' is part of a value ("[std::sort]").
  const bool numeric = kind == AxisKind::int64 || kind == AxisKind::float64;
  const bool is_range = numeric && bracketed && inner.find(':') != std::string::npos;
  if (is_range) {
    const auto parts = split_top_level(inner, ':');
    if (parts.size() < 2 || parts.size() > 3)
      throw AxisError("'" + body + "' is not a range: expected [first:last] or [first:last:step]");
    if (kind == AxisKind::int64) {
      const std::int64_t first = parse_int(parts[0]), last = parse_int(parts[1]);
      const std::int64_t step = parts.size() == 3 ? parse_int(parts[2]) : 1;
      if (step < 1) throw AxisError("step '" + parts[2] + "' must be positive");
      if (first > last) throw AxisError("range " + range_text(parts) + " is empty (first > last)");
      const Int64Values values = range(first, last, step);
      if (!values.error.empty()) throw AxisError(values.error.substr(values.error.find("): ") + 3));
      for (std::int64_t v : values.values) add_int(v);
    } else if (kind == AxisKind::float64) {
      const double first = parse_real(parts[0]), last = parse_real(parts[1]);
      const double step = parts.size() == 3 ? parse_real(parts[2]) : 1.0;
      if (!(step > 0)) throw AxisError("step '" + parts[2] + "' must be positive");
      if (first > last) throw AxisError("range " + range_text(parts) + " is empty (first > last)");
      if ((last - first) / step >= static_cast<double>(detail::max_axis_values))
        throw AxisError("range " + range_text(parts) + " has more than " + std::to_string(detail::max_axis_values) + " values");
      // first + i·step (not repeated addition, which drifts), up to last within rounding; a step
      // too small to move first (1e-300 at 1) is refused, not looped on.
      for (std::size_t i = 0;; ++i) {
        const double v = first + static_cast<double>(i) * step;
        if (v > last + 1e-9 * step) break;
        if (i > 0 && !(v > std::get<double>(out.back())))
          throw AxisError("range " + range_text(parts) + ": step '" + parts[2] + "' is too small to change " + parts[0]);
        out.emplace_back(v);
        if (out.size() > detail::max_axis_values)
          throw AxisError("range " + range_text(parts) + " has more than " + std::to_string(detail::max_axis_values) + " values");
      }
    } else {
      throw AxisError("'" + body + "': a range needs a numeric axis, this one is " + to_string(kind));
    }
  } else {
    for (const std::string& item : split_top_level(inner, ',')) {
      if (item.empty()) throw AxisError("'" + values_text + "' has an empty value");
      switch (kind) {
        case AxisKind::int64: add_int(parse_int(item)); break;
        case AxisKind::float64: out.emplace_back(parse_real(item)); break;
        case AxisKind::string: out.emplace_back(item); break;
        case AxisKind::type: {
          bool known = false;
          std::string names;
          for (const auto& a : allowed) {
            names += (names.empty() ? "" : ", ") + gauge::to_string(a);
            if (gauge::to_string(a) == item) known = true;
          }
          if (!known) throw AxisError("'" + item + "' is not one of the types of this axis (" + names + ")");
          out.emplace_back(item);
          break;
        }
      }
      if (out.size() > detail::max_axis_values)
        throw AxisError("'" + values_text + "' has more than " + std::to_string(detail::max_axis_values) + " values");
    }
  }
  return {std::move(out), power_of_two};
}
}  // namespace suite

}  // namespace gauge
