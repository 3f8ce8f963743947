#pragma once
/// \file gauge/report/serial/write.hpp
/// Writing (gauge/report/serial.hpp): the `Writer` visitor, `encode` by member type and codec, and
/// nlohmann/json's `to_json` hook for every described type of gauge.

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "gauge/report/serial/describe.hpp"

namespace gauge {
namespace serial {

// ---- writing -----------------------------------------------------------------------------------

template <class T>
nlohmann::json encode(const T& x, Auto = {});

/// The visitor that writes a description into a JSON object.
class Writer {
 public:
  /// Writes into `out` (an object).
  explicit Writer(nlohmann::json& out) : out_(out) {}
  /// A member under `key`.
  template <class M, class... O>
  void operator()(const char* key, const M& m, const O&...) {
    out_[key] = encode(m, detail::codec_t<O...>{});
  }
  /// An object under `key` whose keys `f(visitor)` describes (members of the same type).
  template <class F>
  void group(const char* key, F&& f) {
    nlohmann::json sub = nlohmann::json::object();
    Writer w(sub);
    f(w);
    out_[key] = std::move(sub);
  }
  /// A key computed from the whole object: `write(x)` gives its JSON.
  template <class T, class W, class R, class... O>
  void computed(const char* key, unsigned, const T& x, W write, R, const O&...) {
    out_[key] = write(x);
  }
  /// A constant string (e.g. the name of a method), checked to be a string when read.
  void constant(const char* key, const char* value) { out_[key] = value; }

 private:
  nlohmann::json& out_;
};

/// `x` as a JSON object, by its description.
template <class T>
nlohmann::json encode_object(const T& x) {
  nlohmann::json j = nlohmann::json::object();
  Writer w(j);
  Fields<T>::describe(w, x);
  return j;
}

/// A member as JSON, by its type (see the file comment).
template <class T>
nlohmann::json encode(const T& x, Auto) {
  if constexpr (is_described_v<T>) {
    return encode_object(x);
  } else if constexpr (std::is_same_v<T, bool>) {
    return x;
  } else if constexpr (std::is_enum_v<T>) {
    return to_string(x);
  } else if constexpr (std::is_integral_v<T>) {
    return x;
  } else if constexpr (std::is_floating_point_v<T>) {
    return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr);
  } else if constexpr (detail::is_duration<T>::value) {
    return std::chrono::duration<double>(x).count();
  } else if constexpr (std::is_same_v<T, std::string>) {
    return x;
  } else if constexpr (detail::is_optional<T>::value) {
    return x ? encode(*x) : nlohmann::json(nullptr);
  } else if constexpr (detail::is_named_list<T>::value || detail::is_string_map<T>::value) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [name, value] : x) j[name] = encode(value);
    return j;
  } else if constexpr (detail::is_vector<T>::value || std::is_same_v<T, std::set<std::string>>) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& e : x) j.push_back(encode(e));
    return j;
  } else if constexpr (detail::is_variant<T>::value) {
    // A non-finite real alternative (a dimension's NaN set directly on a Result) is written as its
    // text ("nan", "inf", "-inf"): as a JSON null the report could not be read back.
    nlohmann::json j;
    std::visit(
        [&](const auto& v) {
          if constexpr (std::is_floating_point_v<std::decay_t<decltype(v)>>)
            j = std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
          else
            j = v;
        },
        x);
    return j;
  } else {
    static_assert(sizeof(T) == 0, "gauge::serial: no JSON mapping for this member type");
  }
}

/// nan_as_null: finite numbers as such, anything else null (also element-wise).
template <class T>
nlohmann::json encode(const T& x, NanAsNull) {
  return encode(x);
}
/// empty_as_null: "" as null.
inline nlohmann::json encode(const std::string& x, EmptyAsNull) {
  return x.empty() ? nlohmann::json(nullptr) : nlohmann::json(x);
}
/// null_dropped: as Auto (non-finite values are written null).
inline nlohmann::json encode(const std::map<std::string, double>& x, NullDropped) { return encode(x); }
/// names_of<E>: the string itself.
template <class E>
nlohmann::json encode(const std::string& x, NamesOf<E>) {
  return x;
}
/// as_columns: {key: [value of each element]} with every key of the element type.
template <class T>
nlohmann::json encode(const std::vector<T>& x, AsColumns) {
  nlohmann::json columns = nlohmann::json::object();
  const nlohmann::json keys = encode_object(T{});
  for (auto it = keys.begin(); it != keys.end(); ++it) columns[it.key()] = nlohmann::json::array();
  for (const auto& e : x) {
    const nlohmann::json row = encode_object(e);
    for (auto it = row.begin(); it != row.end(); ++it) columns[it.key()].push_back(*it);
  }
  return columns;
}

}  // namespace serial

/// nlohmann/json's hook (found by ADL) for every described type of gauge: its description
/// written as an object. Non-finite numbers are null.
template <class T, std::enable_if_t<serial::is_described_v<T>, int> = 0>
void to_json(nlohmann::json& j, const T& x) {
  j = serial::encode_object(x);
}

// The described types of gauge's sub-namespaces find the hook by ADL there too.
namespace stats { using ::gauge::to_json; }
namespace env { using ::gauge::to_json; }
namespace records { using ::gauge::to_json; }
namespace peaks { using ::gauge::to_json; }
namespace suite { using ::gauge::to_json; }
namespace compare { using ::gauge::to_json; }
namespace formats { using ::gauge::to_json; }

}  // namespace gauge
