#pragma once
/// \file gauge/report/schema_check.hpp
/// The report reader's check of a document against the report schema itself
/// (schema/gauge-report.schema.json, embedded by scripts/embed_schema.py), so that the reader
/// refuses what the schema refuses: a value outside its `enum`, a number below its `minimum`, a
/// string off its `pattern`, a required key missing, a value of the wrong type, anywhere in the
/// document (issue 25: the reader took a `kernel_trace.status` outside its enum and a negative
/// `period_s`). Implements the part of JSON Schema draft-07 (json-schema.org, "JSON Schema
/// Validation", draft-handrick-json-schema-validation-01) the schema uses: `$ref` to
/// `#/definitions/…`, `type`, `properties`, `required`, `additionalProperties`, `items`, `oneOf`,
/// `enum`, `const`, `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `minLength`,
/// `maxLength`, `minItems`, `maxItems`, `pattern` (gauge/report/schema_pattern.hpp: linear time,
/// unlike std::regex). A keyword outside that list is a logic_error when the schema is loaded (a
/// unit test loads the embedded one; the CTest `schema_embedded` checks it is the schema file's).
/// Internal (gauge::detail); the reader (gauge/report/read.hpp) calls it.

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstddef>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gauge/report/schema_pattern.hpp"
#include "gauge/report/serial/describe.hpp"
#include "gauge/report/schema_text.hpp"

namespace gauge {
namespace detail {
namespace schema_check {

// ---- the validator ------------------------------------------------------------------------------

/// A loaded schema, compiled to a table of nodes (one per subschema; `$ref` resolved to an index,
/// `type` to a bit set, `pattern` to a Pattern), so that checking a report of 10^5 samples costs
/// no lookups by name and builds no strings.
class Schema {
 public:
  /// \throws std::logic_error for a keyword or pattern outside the supported subset, or a `$ref`
  /// that does not resolve.
  explicit Schema(const nlohmann::json& doc) {
    if (const auto d = doc.find("definitions"); d != doc.end() && d->is_object())
      for (auto it = d->begin(); it != d->end(); ++it) {
        definitions_.emplace(it.key(), nodes_.size());
        nodes_.emplace_back();
      }
    if (const auto d = doc.find("definitions"); d != doc.end() && d->is_object())
      for (auto it = d->begin(); it != d->end(); ++it) fill(definitions_.at(it.key()), *it, "#/definitions/" + it.key());
    root_ = compile(doc, "#");
  }

  /// The first place `value` breaks the schema, as "<path>: <what>", or "" when it conforms.
  /// Recursion follows the document, whose depth the reader has bounded (report_max_depth) first.
  std::string check(const nlohmann::json& value) const { return check(root_, value, Path{}); }

 private:
  enum TypeBit : unsigned { t_null = 1, t_boolean = 2, t_integer = 4, t_number = 8, t_string = 16, t_array = 32, t_object = 64 };
  static constexpr std::size_t none = static_cast<std::size_t>(-1);
  struct Node {
    bool boolean = false, allowed = true;  // a `true`/`false` schema
    std::size_t ref = none;                // `$ref`: the definition's node (the other keywords are ignored)
    unsigned types = 0;                    // TypeBit set; 0: any type
    nlohmann::json type_names, enum_values, const_value;  // as written, for messages (null: absent)
    bool has_enum = false, has_const = false;
    struct Bound {
      bool set = false;
      double value = 0;
      nlohmann::json written;  // as in the schema, for messages
    } minimum, maximum, exclusive_minimum, exclusive_maximum;
    std::size_t min_length = 0, max_length = none, min_items = 0, max_items = none;
    std::size_t pattern = none;            // index into patterns_
    std::vector<std::string> required;
    std::map<std::string, std::size_t, std::less<>> properties;
    std::size_t additional = none, items = none;
    std::vector<std::size_t> one_of;
  };

  std::size_t compile(const nlohmann::json& s, const std::string& where) {
    const std::size_t at = nodes_.size();
    nodes_.emplace_back();
    fill(at, s, where);
    return at;
  }
  void fill(std::size_t at, const nlohmann::json& s, const std::string& where) {
    static const char* const known[] = {"$schema", "$id", "$ref", "type", "properties", "required", "additionalProperties",
                                        "items", "oneOf", "enum", "const", "minimum", "maximum", "exclusiveMinimum",
                                        "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems", "pattern",
                                        "definitions", "description", "title", "$comment", "default", "examples"};
    Node n;
    if (s.is_boolean()) {
      n.boolean = true, n.allowed = s.get<bool>();
      nodes_[at] = std::move(n);
      return;
    }
    if (!s.is_object()) throw std::logic_error("schema at " + where + " is not an object");
    for (auto it = s.begin(); it != s.end(); ++it) {
      bool ok = false;
      for (const char* k : known) ok = ok || it.key() == k;
      if (!ok) throw std::logic_error("schema at " + where + ": the keyword \"" + it.key() + "\" is not supported by gauge's reader");
    }
    if (const auto r = s.find("$ref"); r != s.end()) {
      static const std::string prefix = "#/definitions/";
      const std::string ref = r->get<std::string>();
      const auto d = ref.compare(0, prefix.size(), prefix) == 0 ? definitions_.find(ref.substr(prefix.size())) : definitions_.end();
      if (d == definitions_.end()) throw std::logic_error("schema $ref \"" + ref + "\" at " + where + " names no #/definitions/NAME");
      n.ref = d->second;
      nodes_[at] = std::move(n);
      return;
    }
    if (const auto t = s.find("type"); t != s.end()) {
      n.type_names = *t;
      const nlohmann::json list = t->is_array() ? *t : nlohmann::json::array({*t});
      for (const auto& one : list) {
        const std::string name = one.get<std::string>();
        const unsigned bit = name == "null" ? t_null : name == "boolean" ? t_boolean : name == "integer" ? t_integer
                           : name == "number" ? t_number : name == "string" ? t_string : name == "array" ? t_array
                           : name == "object" ? t_object : 0u;
        if (!bit) throw std::logic_error("schema at " + where + ": unknown type \"" + name + "\"");
        n.types |= bit;
      }
    }
    if (const auto e = s.find("enum"); e != s.end()) n.enum_values = *e, n.has_enum = true;
    if (const auto c = s.find("const"); c != s.end()) n.const_value = *c, n.has_const = true;
    for (auto [k, bound] : {std::pair<const char*, Node::Bound*>{"minimum", &n.minimum}, {"maximum", &n.maximum},
                            {"exclusiveMinimum", &n.exclusive_minimum}, {"exclusiveMaximum", &n.exclusive_maximum}})
      if (const auto b = s.find(k); b != s.end()) *bound = {true, b->get<double>(), *b};
    auto count = [&](const char* k, std::size_t fallback) {
      const auto c = s.find(k);
      return c == s.end() ? fallback : c->get<std::size_t>();
    };
    n.min_length = count("minLength", 0), n.max_length = count("maxLength", none);
    n.min_items = count("minItems", 0), n.max_items = count("maxItems", none);
    if (const auto p = s.find("pattern"); p != s.end()) {
      patterns_.emplace_back(p->get<std::string>());
      n.pattern = patterns_.size() - 1;
    }
    if (const auto r = s.find("required"); r != s.end()) n.required = r->get<std::vector<std::string>>();
    nodes_[at] = std::move(n);
    // Children after the node is in place (compile grows nodes_: no reference into it is held).
    if (const auto m = s.find("properties"); m != s.end())
      for (auto it = m->begin(); it != m->end(); ++it) {
        const std::size_t child = compile(*it, where + "/properties/" + it.key());
        nodes_[at].properties.emplace(it.key(), child);
      }
    if (const auto a = s.find("additionalProperties"); a != s.end()) {
      const std::size_t child = compile(*a, where + "/additionalProperties");
      nodes_[at].additional = child;
    }
    if (const auto i = s.find("items"); i != s.end()) {
      const std::size_t child = compile(*i, where + "/items");
      nodes_[at].items = child;
    }
    if (const auto o = s.find("oneOf"); o != s.end())
      for (std::size_t i = 0; i < o->size(); ++i) {
        const std::size_t child = compile((*o)[i], where + "/oneOf/" + std::to_string(i));
        nodes_[at].one_of.push_back(child);
      }
  }

  static bool fits(const nlohmann::json& v, unsigned types) {
    if (types == 0) return true;
    switch (v.type()) {
      case nlohmann::json::value_t::null: return types & t_null;
      case nlohmann::json::value_t::boolean: return types & t_boolean;
      case nlohmann::json::value_t::string: return types & t_string;
      case nlohmann::json::value_t::array: return types & t_array;
      case nlohmann::json::value_t::object: return types & t_object;
      case nlohmann::json::value_t::number_integer:
      case nlohmann::json::value_t::number_unsigned: return types & (t_integer | t_number);
      case nlohmann::json::value_t::number_float: {
        if (types & t_number) return true;
        if (!(types & t_integer)) return false;
        const double d = v.get<double>();  // draft-07: an integer is a number with a zero fractional part
        return std::isfinite(d) && std::floor(d) == d;
      }
      default: return false;
    }
  }
  static std::string show(const nlohmann::json& v) {
    std::string text = v.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
    if (text.size() > 80) text = text.substr(0, 77) + "...";
    return text;
  }
  static std::size_t code_points(const std::string& text) {
    std::size_t n = 0;
    for (const char ch : text) n += (static_cast<unsigned char>(ch) & 0xC0) != 0x80;
    return n;
  }
  /// Where a value sits, as a chain to its parent: spelled out only for a message.
  struct Path {
    const Path* parent = nullptr;
    const std::string* key = nullptr;  // an object's key, or
    std::size_t index = 0;             // an array's index (key == nullptr)
    std::string text() const {
      if (!parent) return {};
      std::string up = parent->text();
      if (key) return up.empty() ? *key : up + "." + *key;
      return up + "[" + std::to_string(index) + "]";
    }
  };
  static std::string at(const Path& path) { return path.parent ? path.text() : "the document"; }

  std::string check(std::size_t node, const nlohmann::json& v, const Path& path) const {
    const Node& n = nodes_[node];
    if (n.boolean) return n.allowed ? "" : at(path) + ": not allowed here";
    if (n.ref != none) return check(n.ref, v, path);  // draft-07: "$ref" alone decides
    if (!n.one_of.empty()) {
      // The schema's oneOf are [null, an object]: the alternatives exclude each other, so "one of" is
      // "any of"; the message is the one of the alternative the value's type fits.
      std::string why;
      for (std::size_t alt : n.one_of) {
        std::string w = check(alt, v, path);
        if (w.empty()) {
          why.clear();
          break;
        }
        if (why.empty() || !v.is_null()) why = std::move(w);
      }
      if (!why.empty()) return why;
    }
    if (!fits(v, n.types)) {
      std::string names;
      if (n.type_names.is_string()) names = n.type_names.get<std::string>();
      else
        for (const auto& one : n.type_names) names += (names.empty() ? "" : " or ") + one.get<std::string>();
      return at(path) + ": expected " + names + ", got " + serial::describe_type(v);
    }
    if (n.has_enum) {
      bool ok = false;
      for (const auto& one : n.enum_values) ok = ok || one == v;
      if (!ok) {
        std::string list;
        for (const auto& one : n.enum_values) list += (list.empty() ? "" : ", ") + show(one);
        return at(path) + ": " + show(v) + " is not one of the schema's values (" + list + ")";
      }
    }
    if (n.has_const && n.const_value != v) return at(path) + ": " + show(v) + " is not " + show(n.const_value);
    if (v.is_number()) {
      const double x = v.get<double>();
      if (n.minimum.set && x < n.minimum.value)
        return at(path) + ": " + show(v) + " is below the schema's minimum " + show(n.minimum.written);
      if (n.maximum.set && x > n.maximum.value)
        return at(path) + ": " + show(v) + " is above the schema's maximum " + show(n.maximum.written);
      if (n.exclusive_minimum.set && !(x > n.exclusive_minimum.value))
        return at(path) + ": " + show(v) + " is not above the schema's exclusive minimum " + show(n.exclusive_minimum.written);
      if (n.exclusive_maximum.set && !(x < n.exclusive_maximum.value))
        return at(path) + ": " + show(v) + " is not below the schema's exclusive maximum " + show(n.exclusive_maximum.written);
    } else if (v.is_string()) {
      const std::string& text = v.get_ref<const std::string&>();
      if (n.min_length > 0 || n.max_length != none) {
        const std::size_t c = code_points(text);
        if (c < n.min_length)
          return at(path) + ": " + show(v) + " is shorter than the schema's " + std::to_string(n.min_length) + " characters";
        if (c > n.max_length)
          return at(path) + ": a string of " + std::to_string(c) + " characters, longer than the schema's " +
                 std::to_string(n.max_length);
      }
      if (n.pattern != none && !patterns_[n.pattern].matches(text))
        return at(path) + ": " + show(v) + " does not match the schema's pattern " + patterns_[n.pattern].source();
    } else if (v.is_object()) {
      for (const auto& key : n.required)
        if (!v.contains(key)) return at(path) + ": missing required key \"" + key + "\"";
      for (auto it = v.begin(); it != v.end(); ++it) {
        const auto p = n.properties.find(it.key());
        const std::size_t child = p != n.properties.end() ? p->second : n.additional;
        if (child == none) continue;
        if (std::string why = check(child, *it, Path{&path, &it.key(), 0}); !why.empty()) return why;
      }
    } else if (v.is_array()) {
      if (v.size() < n.min_items)
        return at(path) + ": " + std::to_string(v.size()) + " entries, fewer than the schema's minimum " + std::to_string(n.min_items);
      if (v.size() > n.max_items)
        return at(path) + ": " + std::to_string(v.size()) + " entries, more than the schema's maximum " + std::to_string(n.max_items);
      if (n.items != none)
        for (std::size_t k = 0; k < v.size(); ++k)
          if (std::string why = check(n.items, v[k], Path{&path, nullptr, k}); !why.empty()) return why;
    }
    return {};
  }

  std::vector<Node> nodes_;
  std::map<std::string, std::size_t> definitions_;
  std::vector<Pattern> patterns_;
  std::size_t root_ = 0;
};

/// The embedded report schema, loaded once (thread-safe: a function-local static).
/// \throws std::logic_error if the embedded schema uses what Schema does not support.
inline const Schema& report_schema() {
  static const Schema schema(nlohmann::json::parse(report_schema_text()));
  return schema;
}

}  // namespace schema_check
}  // namespace detail
}  // namespace gauge
