#pragma once
/// \file gauge/report/serial/schema.hpp
/// The schema's coverage (gauge/report/serial.hpp): the `Collector` visitor and `collect_schema`,
/// a description's keys as a small JSON Schema that the tests compare with
/// schema/gauge-report.schema.json.

#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "gauge/report/serial/describe.hpp"

namespace gauge {
namespace serial {

// ---- the schema's coverage ----------------------------------------------------------------------

/// The visitor that collects a description's keys as a small JSON Schema (draft-07): for an
/// object, `properties` (each key's JSON type, nested objects as `$ref` to `definitions`) and
/// `required` (the keys of schema 1.0 that are not `not_required`). Tests compare it with
/// schema/gauge-report.schema.json.
class Collector {
 public:
  /// Collects into `object_schema` (its "properties" and "required"), registering described
  /// types in `definitions` (by their name).
  Collector(nlohmann::json& object_schema, nlohmann::json& definitions, bool optional_keys)
      : schema_(object_schema), definitions_(definitions), optional_keys_(optional_keys) {
    schema_["type"] = "object";
    schema_["properties"] = nlohmann::json::object();
    schema_["required"] = nlohmann::json::array();
  }
  /// A member under `key`.
  template <class M, class... O>
  void operator()(const char* key, const M&, const O&... o) {
    add(key, shape<M>(detail::codec_t<O...>{}), detail::key_info(o...));
  }
  /// An object under `key`.
  template <class F>
  void group(const char* key, F&& f) {
    nlohmann::json sub;
    Collector c(sub, definitions_, optional_keys_);
    f(c);
    add(key, sub, {});
  }
  /// A computed key of the JSON types `types` (JsonTypes bits).
  template <class T, class W, class R, class... O>
  void computed(const char* key, unsigned types, const T&, W, R, const O&... o) {
    add(key, types_shape(types), detail::key_info(o...));
  }
  /// A constant string.
  void constant(const char* key, const char*) { add(key, {{"type", "string"}}, {}); }

  /// The shape of a member type under a codec.
  template <class M>
  nlohmann::json shape(Auto) {
    if constexpr (is_described_v<M>) {
      const std::string name = Fields<M>::name;
      if (!definitions_.contains(name)) {
        definitions_[name] = nlohmann::json::object();  // guards recursion
        nlohmann::json def;
        Collector c(def, definitions_, detail::optional_keys<M>::value);
        static const M prototype{};
        Fields<M>::describe(c, prototype);
        definitions_[name] = std::move(def);
      }
      return {{"$ref", "#/definitions/" + name}};
    } else if constexpr (std::is_same_v<M, bool>) {
      return {{"type", "boolean"}};
    } else if constexpr (std::is_enum_v<M>) {
      return {{"enum", detail::enum_names<M>()}};
    } else if constexpr (std::is_integral_v<M>) {
      return {{"type", "integer"}};
    } else if constexpr (std::is_floating_point_v<M> || detail::is_duration<M>::value) {
      return {{"type", "number"}};
    } else if constexpr (std::is_same_v<M, std::string>) {
      return {{"type", "string"}};
    } else if constexpr (detail::is_optional<M>::value) {
      return nullable(shape<typename M::value_type>(Auto{}));
    } else if constexpr (detail::is_named_list<M>::value || detail::is_string_map<M>::value) {
      using V = std::remove_cv_t<decltype(std::declval<typename M::value_type>().second)>;
      return {{"type", "object"}, {"additionalProperties", shape<V>(Auto{})}};
    } else if constexpr (detail::is_vector<M>::value || std::is_same_v<M, std::set<std::string>>) {
      return {{"type", "array"}, {"items", shape<typename M::value_type>(Auto{})}};
    } else if constexpr (detail::is_variant<M>::value) {
      return {{"type", {"integer", "number", "string", "boolean"}}};
    } else {
      static_assert(sizeof(M) == 0, "gauge::serial: no JSON mapping for this member type");
    }
  }
  template <class M>
  nlohmann::json shape(NanAsNull) {
    if constexpr (detail::is_vector<M>::value) return {{"type", "array"}, {"items", {{"type", {"number", "null"}}}}};
    else return {{"type", {"number", "null"}}};
  }
  template <class M>
  nlohmann::json shape(EmptyAsNull) {
    return {{"type", {"string", "null"}}};
  }
  template <class M>
  nlohmann::json shape(NullDropped) {
    return {{"type", "object"}, {"additionalProperties", {{"type", {"number", "null"}}}}};
  }
  template <class M, class E>
  nlohmann::json shape(NamesOf<E>) {
    return {{"enum", detail::enum_names<E>()}};
  }
  template <class M>
  nlohmann::json shape(AsColumns) {
    using T = typename M::value_type;
    nlohmann::json row;
    Collector c(row, definitions_, detail::optional_keys<T>::value);
    static const T prototype{};
    Fields<T>::describe(c, prototype);
    for (auto& value : row["properties"]) value = nlohmann::json{{"type", "array"}, {"items", value}};
    return row;
  }

  /// {"type": [..., "null"]}, or {"oneOf": [{"type": "null"}, shape]} for a $ref or an enum.
  static nlohmann::json nullable(nlohmann::json s) {
    if (s.contains("type")) {
      nlohmann::json types = s["type"].is_array() ? s["type"] : nlohmann::json::array({s["type"]});
      types.push_back("null");
      s["type"] = types;
      return s;
    }
    return {{"oneOf", {{{"type", "null"}}, s}}};
  }
  /// {"type": [...]} of JsonTypes bits.
  static nlohmann::json types_shape(unsigned types) {
    static const char* const names[] = {"null", "boolean", "integer", "number", "string", "array", "object"};
    nlohmann::json list = nlohmann::json::array();
    for (unsigned i = 0; i < 7; ++i)
      if (types & (1u << i)) list.push_back(names[i]);
    return {{"type", list.size() == 1 ? list[0] : list}};
  }

 private:
  void add(const char* key, nlohmann::json s, const detail::KeyInfo& info) {
    if (info.since > 0) s["x-since"] = "1." + std::to_string(info.since);
    schema_["properties"][key] = std::move(s);
    if (!optional_keys_ && info.since == 0 && info.required) schema_["required"].push_back(key);
  }

  nlohmann::json& schema_;
  nlohmann::json& definitions_;
  bool optional_keys_;
};

/// The JSON Schema of `T`'s description: {"type": "object", "properties", "required",
/// "definitions": {name: schema of every described type it contains}}. Keys added after schema
/// 1.0 carry "x-since": "1.minor".
template <class T>
nlohmann::json collect_schema() {
  nlohmann::json root, definitions = nlohmann::json::object();
  Collector c(root, definitions, detail::optional_keys<T>::value);
  static const T prototype{};
  Fields<T>::describe(c, prototype);
  root["definitions"] = std::move(definitions);
  return root;
}

}  // namespace serial
}  // namespace gauge
