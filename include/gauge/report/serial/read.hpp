#pragma once
/// \file gauge/report/serial/read.hpp
/// Reading (gauge/report/serial.hpp): the `Reader` visitor (strict, or lenient), `decode` by member
/// type and codec, `read_object`, and nlohmann/json's `from_json` hook for every described type of
/// gauge.

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "gauge/report/serial/describe.hpp"

namespace gauge {

namespace detail {
/// A number in messages: "%g" (6 significant digits), so 1e300 is not written as 301 digits.
inline std::string short_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}
/// An integral double in messages: every digit up to 10^21 ("18446744073709551616", the value a
/// reader holds, not "1.84467e+19"), else "%.17g" (round-trip precision).
inline std::string exact_number(double v) {
  char buf[64];
  if (std::fabs(v) < 1e21 && std::floor(v) == v) std::snprintf(buf, sizeof buf, "%.0f", v);
  else std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}
}  // namespace detail
namespace serial {

// ---- reading -----------------------------------------------------------------------------------

template <class T>
void decode(const nlohmann::json& v, T& out, Mode mode, Auto = {});
template <class T>
void read_object(const nlohmann::json& j, T& x, Mode mode);

/// The visitor that reads a description from a JSON object.
class Reader {
 public:
  /// Reads from `in` (an object); `optional_keys`: no key of this object is required.
  Reader(const nlohmann::json& in, Mode mode, bool optional_keys = false)
      : in_(in), mode_(mode), optional_keys_(optional_keys) {}

  /// A member under `key`.
  template <class M, class... O>
  void operator()(const char* key, M& m, const O&... o) {
    const nlohmann::json* v = find(key, detail::key_info(o...));
    if (!v) return;
    try {
      decode(*v, m, mode_, detail::codec_t<O...>{});
    } catch (const FieldError& e) {
      throw e.within(key);
    } catch (const nlohmann::json::exception& e) {
      throw FieldError(key, e.what());
    }
  }
  /// An object under `key` whose keys `f(visitor)` describes.
  template <class F>
  void group(const char* key, F&& f) {
    const nlohmann::json* v = find(key, {});
    if (!v) return;
    try {
      expect_object(*v);
      Reader r(*v, mode_, optional_keys_);
      f(r);
    } catch (const FieldError& e) {
      throw e.within(key);
    }
  }
  /// A key computed from the whole object: `read(value, x)` takes it apart.
  template <class T, class W, class R, class... O>
  void computed(const char* key, unsigned types, T& x, W, R read, const O&... o) {
    const nlohmann::json* v = find(key, detail::key_info(o...));
    if (!v || (v->is_null() && !(types & json_null) && mode_ == Mode::lenient)) return;
    try {
      read(*v, x);
    } catch (const FieldError& e) {
      throw e.within(key);
    }
  }
  /// A constant string: checked to be a string, otherwise ignored.
  void constant(const char* key, const char*) {
    const nlohmann::json* v = find(key, {});
    if (v && !v->is_string() && !(mode_ == Mode::lenient && v->is_null()))
      throw FieldError(key, "expected a string, got " + describe_type(*v));
  }

 private:
  /// The value under `key`, or nullptr when it may be absent and is; FieldError when it must be
  /// present and is not.
  const nlohmann::json* find(const char* key, const detail::KeyInfo& info) const {
    const auto it = in_.find(key);
    if (it != in_.end()) return &*it;
    if (mode_ == Mode::lenient || optional_keys_ || info.since > 0 || !info.required) return nullptr;
    throw FieldError("", std::string("missing required key \"") + key + "\"");
  }

  const nlohmann::json& in_;
  Mode mode_;
  bool optional_keys_;
};

/// Reads the object `j` into `x` by its description (`x` is reset first).
/// \throws FieldError naming the path of a missing or mistyped key.
template <class T>
void read_object(const nlohmann::json& j, T& x, Mode mode) {
  expect_object(j);
  x = T{};
  Reader r(j, mode, detail::optional_keys<T>::value);
  Fields<T>::describe(r, x);
  if constexpr (detail::has_after_read<T>::value) Fields<T>::after_read(j, x);
}

/// Reads a member by its type (the inverse of `encode`); FieldError (empty path) on a mismatch.
template <class T>
void decode(const nlohmann::json& v, T& out, Mode mode, Auto) {
  if (mode == Mode::lenient && v.is_null() && !detail::is_optional<T>::value) return;  // unknown: keep the default
  if constexpr (is_described_v<T>) {
    read_object(v, out, mode);
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!v.is_boolean()) wrong_type("a boolean", v);
    out = v.get<bool>();
  } else if constexpr (std::is_enum_v<T>) {
    const std::string name = detail::read_name(v, detail::enum_names<T>());
    for (T e : EnumValues<T>::values)
      if (name == to_string(e)) out = e;
  } else if constexpr (std::is_integral_v<T>) {
    // Read exactly or refused, never wrapped or rounded: the value must fit T (the message names
    // T's range), and an integer written as a float must be one a double holds exactly.
    const std::string range = "an integer from " + std::to_string(std::numeric_limits<T>::min()) + " to " +
                              std::to_string(std::numeric_limits<T>::max());
    if (v.is_number_float()) {
      // JSON Schema (draft-07) counts a number with a zero fractional part (1.0, 1e0) as an integer.
      const double d = v.get<double>();
      if (!std::isfinite(d) || std::floor(d) != d) wrong_type("an integer", v);
      // Beyond 2^53 a double no longer holds every integer: 9.2233720368547758e18 may have been
      // any of 1025 integers, and "-9223372036854775809" (too long for a 64-bit integer, so the
      // parser made it a double) would read as -2^63. Its exact value is unknown: refused.
      // 2^53 itself too: "9007199254740993e0" and "9007199254740992.5" round to it.
      if (std::fabs(d) >= 9007199254740992.0)
        throw FieldError("", "integer " + gauge::detail::exact_number(d) + " is written as a floating-point number at or beyond "
                             "2^53 = 9007199254740992, where a double no longer holds every integer (its exact value is "
                             "unknown): write it as an integer literal, " + range);
      if (d < static_cast<double>(std::numeric_limits<T>::min()) || d >= std::ldexp(1.0, std::numeric_limits<T>::digits))
        throw FieldError("", "integer " + gauge::detail::exact_number(d) + " is out of range: expected " + range);
      out = static_cast<T>(d);
      return;
    }
    if (!v.is_number_integer()) wrong_type("an integer", v);
    if (v.is_number_unsigned()) {
      const auto u = v.get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(std::numeric_limits<T>::max()))
        throw FieldError("", "integer " + std::to_string(u) + " is out of range: expected " + range);
      out = static_cast<T>(u);
    } else {
      const auto s = v.get<std::int64_t>();
      if constexpr (std::is_unsigned_v<T>) {
        if (s < 0) throw FieldError("", "expected a non-negative integer, got " + std::to_string(s));
        out = static_cast<T>(s);
      } else {
        if (s < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
            s > static_cast<std::int64_t>(std::numeric_limits<T>::max()))
          throw FieldError("", "integer " + std::to_string(s) + " is out of range: expected " + range);
        out = static_cast<T>(s);
      }
    }
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!v.is_number()) wrong_type("a number", v);
    out = v.get<T>();
  } else if constexpr (detail::is_duration<T>::value) {
    if (!v.is_number()) wrong_type("a number", v);
    const double seconds = v.get<double>();
    if (!std::isfinite(seconds) || std::fabs(seconds) > 9.2e9)
      throw FieldError("", "duration " + gauge::detail::short_number(seconds) + " s is out of range");
    const std::chrono::nanoseconds ns(static_cast<std::chrono::nanoseconds::rep>(std::llround(seconds * 1e9)));
    out = std::chrono::duration_cast<T>(ns);
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!v.is_string()) wrong_type("a string", v);
    out = v.get_ref<const std::string&>();
  } else if constexpr (detail::is_optional<T>::value) {
    if (v.is_null()) {
      out.reset();
    } else {
      typename T::value_type inner{};
      decode(v, inner, mode);
      out = std::move(inner);
    }
  } else if constexpr (detail::is_named_list<T>::value || detail::is_string_map<T>::value) {
    expect_object(v);
    out.clear();
    for (auto it = v.begin(); it != v.end(); ++it) {
      std::remove_cv_t<decltype(std::declval<typename T::value_type>().second)> value{};
      try {
        decode(*it, value, mode);
      } catch (const FieldError& e) {
        throw e.within(it.key());
      }
      if constexpr (detail::is_named_list<T>::value) out.emplace_back(it.key(), std::move(value));
      else out[it.key()] = std::move(value);
    }
  } else if constexpr (detail::is_vector<T>::value || std::is_same_v<T, std::set<std::string>>) {
    if (!v.is_array()) wrong_type("an array", v);
    out.clear();
    for (std::size_t i = 0; i < v.size(); ++i) {
      typename T::value_type element{};
      try {
        decode(v[i], element, mode);
      } catch (const FieldError& e) {
        throw e.within("[" + std::to_string(i) + "]");
      }
      if constexpr (detail::is_vector<T>::value) out.push_back(std::move(element));
      else out.insert(std::move(element));
    }
  } else if constexpr (detail::is_variant<T>::value) {
    // Dimensions: integer → int64, other number → double, string, boolean.
    if (v.is_boolean()) {
      out = v.get<bool>();
    } else if (v.is_number_integer()) {
      std::int64_t x = 0;
      decode(v, x, mode);
      out = x;
    } else if (v.is_number()) {
      out = v.get<double>();
    } else if (v.is_string()) {
      out = v.get<std::string>();
    } else {
      wrong_type("an integer, number, string or boolean", v);
    }
  } else {
    static_assert(sizeof(T) == 0, "gauge::serial: no JSON mapping for this member type");
  }
}

/// nan_as_null: a number, or null read as NaN (element-wise for vectors).
template <class T>
void decode(const nlohmann::json& v, T& out, Mode mode, NanAsNull) {
  if constexpr (detail::is_vector<T>::value) {
    if (!v.is_array()) wrong_type("an array", v);
    out.clear();
    out.reserve(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      typename T::value_type x{};
      try {
        decode(v[i], x, mode, NanAsNull{});
      } catch (const FieldError& e) {
        throw e.within("[" + std::to_string(i) + "]");
      }
      out.push_back(x);
    }
  } else {
    static_assert(std::is_floating_point_v<T>, "nan_as_null is for floating-point members");
    if (v.is_null()) out = std::numeric_limits<T>::quiet_NaN();
    else decode(v, out, mode);
  }
}
/// empty_as_null: null read as "".
inline void decode(const nlohmann::json& v, std::string& out, Mode mode, EmptyAsNull) {
  if (v.is_null()) out.clear();
  else decode(v, out, mode);
}
/// null_dropped: {name: number or null}; null entries are left out.
inline void decode(const nlohmann::json& v, std::map<std::string, double>& out, Mode mode, NullDropped) {
  std::map<std::string, std::optional<double>> raw;
  decode(v, raw, mode);
  out.clear();
  for (const auto& [name, value] : raw)
    if (value) out[name] = *value;
}
/// names_of<E>: one of the names of E.
template <class E>
void decode(const nlohmann::json& v, std::string& out, Mode mode, NamesOf<E>) {
  if (mode == Mode::lenient && v.is_null()) return;
  out = detail::read_name(v, detail::enum_names<E>());
}
/// as_columns: parallel arrays of equal length, one per key (a missing array reads as absent).
template <class T>
void decode(const nlohmann::json& v, std::vector<T>& out, Mode mode, AsColumns) {
  expect_object(v);
  std::size_t n = 0;
  std::string first;
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (!it->is_array()) throw FieldError(it.key(), "expected an array, got " + describe_type(*it));
    if (first.empty()) {
      first = it.key();
      n = it->size();
    } else if (it->size() != n) {
      throw FieldError(it.key(), "has " + std::to_string(it->size()) + " entries, " + first + " has " +
                                     std::to_string(n) + " (the arrays are parallel)");
    }
  }
  out.clear();
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    nlohmann::json row = nlohmann::json::object();
    for (auto it = v.begin(); it != v.end(); ++it) row[it.key()] = (*it)[i];
    T element{};
    try {
      read_object(row, element, mode);
    } catch (const FieldError& e) {
      const auto dot = e.path().find('.');
      const std::string key = e.path().substr(0, dot);
      const std::string rest = dot == std::string::npos ? std::string() : e.path().substr(dot);
      throw FieldError(key + "[" + std::to_string(i) + "]" + rest, e.problem());
    }
    out.push_back(std::move(element));
  }
}

}  // namespace serial

/// nlohmann/json's hook (found by ADL) for every described type of gauge: reads what to_json
/// writes, strictly (types whose description says `lenient_alone`: leniently, a missing or null
/// key keeping the default). \throws ReportError (serial::FieldError) naming the key path of a
/// missing or mistyped key.
template <class T, std::enable_if_t<serial::is_described_v<T>, int> = 0>
void from_json(const nlohmann::json& j, T& x) {
  serial::read_object(j, x, serial::detail::lenient_alone<T>::value ? serial::Mode::lenient : serial::Mode::strict);
}

// The described types of gauge's sub-namespaces find the hook by ADL there too.
namespace stats { using ::gauge::from_json; }
namespace env { using ::gauge::from_json; }
namespace records { using ::gauge::from_json; }
namespace peaks { using ::gauge::from_json; }
namespace suite { using ::gauge::from_json; }
namespace compare { using ::gauge::from_json; }
namespace formats { using ::gauge::from_json; }

}  // namespace gauge
