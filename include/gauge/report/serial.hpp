#pragma once
/// \file gauge/report/serial.hpp
/// One description per serialized type, from which writing, reading and the schema's coverage
/// all come. A type is described by a specialization of `gauge::serial::Fields`:
///
/// \code
///   template <> struct Fields<Config> {
///     static constexpr const char* name = "config";  // its definition in the JSON Schema
///     template <class V, class C> static void describe(V& v, C& x) {  // C: Config or const Config
///       v("device", x.device);
///       v("telemetry_interval_s", x.telemetry_interval, since_1_2);  // a std::chrono duration:
///     }                                                  // seconds in JSON; absent before 1.2
///   };
/// \endcode
///
/// Three visitors walk a description: `Writer` (to JSON), `Reader` (from JSON, strict: a missing
/// required key or a value of the wrong type throws `FieldError`, a `ReportError` naming the key's
/// path and the expected type) and `Collector` (the keys, their JSON types and which are required,
/// as a small JSON Schema that tests compare with schema/gauge-report.schema.json).
///
/// How member types map to JSON (the `Auto` codec):
/// - bool, integers (unsigned ones are written as unsigned, never negative), strings as such;
/// - floating point: a number, and `null` when not finite (never NaN or Infinity); reading wants
///   a number (the `nan_as_null` codec also reads `null`, as NaN);
/// - std::chrono durations: seconds as a number (keys end in `_s`), read back to the nearest tick;
/// - enums with `EnumValues<E>`: their `to_string` name; reading accepts only those names;
/// - std::optional: `null` when empty; std::vector and std::set: arrays; std::map<std::string, T>
///   and std::vector<std::pair<std::string, T>>: objects; a described type: an object.
///
/// Where the key is the member's name, `GAUGE_SERIAL_FIELDS(a, b, c);` stands for
/// `v("a", x.a); v("b", x.b); v("c", x.c);` (the describe function's parameters are `v` and `x`).
///
/// Field options, after the member: a codec (`nan_as_null`, `empty_as_null`, `as_columns`,
/// `null_dropped`, `names_of<E>`), `since_1_1` / `since_1_2` (the key was added by that minor
/// version of the schema: a report without it still reads, the member keeps its default), and
/// `not_required` (writers may leave the key out). A type whose `Fields` has
/// `static constexpr bool optional_keys = true` (base `AllKeysOptional`) has no required key; one
/// with `static constexpr bool lenient_alone = true` (base `LenientAlone`) is read leniently (a
/// missing or null key keeps the default) when read on its own through nlohmann's `get<T>()`. An
/// optional `static void after_read(const nlohmann::json&, T&)` completes what older reports lack.
/// `GAUGE_SERIAL_DESCRIBE(T, "name", a, b, c)` writes the whole `Fields<T>` of a type whose keys
/// are its members' names.

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "gauge/core/error.hpp"

#ifndef NLOHMANN_JSON_PASTE
#error "gauge/report/serial.hpp needs nlohmann/json's NLOHMANN_JSON_PASTE (nlohmann/json 3.9 or later)"
#endif
/// One field whose key is the member's name, inside `describe(V& v, C& x)`.
#define GAUGE_SERIAL_FIELD(member) v(#member, x.member);
/// Fields whose keys are the members' names, inside `describe(V& v, C& x)` (at most 63; built on
/// the macro behind NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE).
#define GAUGE_SERIAL_FIELDS(...) NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(GAUGE_SERIAL_FIELD, __VA_ARGS__))
/// Inside namespace gauge::serial: describes `T` as the object of the members `...`, each under
/// its own name (as NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE), `NAME` being its definition in the
/// schema, with the type-level flags of `BASE` (e.g. `AllKeysOptional`).
#define GAUGE_SERIAL_DESCRIBE_AS(T, NAME, BASE, ...) \
  template <>                                       \
  struct Fields<T> : BASE {                         \
    static constexpr const char* name = NAME;       \
    template <class V, class C>                     \
    static void describe(V& v, C& x) {              \
      GAUGE_SERIAL_FIELDS(__VA_ARGS__);             \
    }                                               \
  };
/// Inside namespace gauge::serial: opens the description of `T` (`NAME`: its definition in the
/// schema; `BASE`: type-level flags such as AllKeysOptional, or NoFlags); the braces that follow
/// are the body of `describe(V& v, C& x)`:
/// \code
///   GAUGE_SERIAL_DESCRIPTION(Work, "work", NoFlags) {
///     v("flop_per_step", x.flop);
///   }
/// \endcode
#define GAUGE_SERIAL_DESCRIPTION(T, NAME, BASE)   \
  template <>                                     \
  struct Fields<T> : BASE {                       \
    static constexpr const char* name = NAME;     \
    template <class V, class C>                   \
    static void describe(V& v, C& x);             \
  };                                              \
  template <class V, class C>                     \
  void Fields<T>::describe(V& v, C& x)
/// GAUGE_SERIAL_DESCRIBE_AS without type-level flags.
#define GAUGE_SERIAL_DESCRIBE(T, NAME, ...) GAUGE_SERIAL_DESCRIBE_AS(T, NAME, ::gauge::serial::NoFlags, __VA_ARGS__)

namespace gauge {
namespace serial {

/// The description of `T` (see the file comment); undefined for types that are not described.
template <class T, class = void>
struct Fields;

/// The values of an enum that is written by name (its `to_string`), e.g.
/// `template <> struct EnumValues<CacheState> { static constexpr CacheState values[] = {...}; };`.
template <class E>
struct EnumValues;

// ---- options of a field ------------------------------------------------------------------------

/// The schema's minor version (1.minor) that added a key: a report without it still reads.
struct Since {
  int minor = 0;
};
inline constexpr Since since_1_1{1};  ///< key added by schema 1.1.0
inline constexpr Since since_1_2{2};  ///< key added by schema 1.2.0
inline constexpr Since since_1_3{3};  ///< key added by schema 1.3.0
inline constexpr Since since_1_4{4};  ///< key added by schema 1.4.0
inline constexpr Since since_1_5{5};  ///< key added by schema 1.5.0
inline constexpr Since since_1_6{6};  ///< key added by schema 1.6.0
/// A key that writers may leave out (hand-made or partial records); never required.
struct NotRequired {};
inline constexpr NotRequired not_required{};

/// Base of the codecs: how a member maps to JSON when `Auto` does not say it.
struct Codec {};
/// The default: by the member's type (see the file comment).
struct Auto : Codec {};
/// A floating-point member (or a vector of them) whose `null` reads as NaN.
struct NanAsNull : Codec {};
inline constexpr NanAsNull nan_as_null{};
/// A string member whose empty value is written as `null`, and `null` read as empty.
struct EmptyAsNull : Codec {};
inline constexpr EmptyAsNull empty_as_null{};
/// A std::vector of a described type written as an object of parallel arrays, one per key.
struct AsColumns : Codec {};
inline constexpr AsColumns as_columns{};
/// A std::map<std::string, double> whose non-finite values are written `null` and whose `null`
/// values are left out when read.
struct NullDropped : Codec {};
inline constexpr NullDropped null_dropped{};
/// A std::string member that holds one of the names of enum `E` (its `to_string`).
template <class E>
struct NamesOf : Codec {};
template <class E>
inline constexpr NamesOf<E> names_of{};

/// Type-level flags of a description (a base of `Fields<T>`): none.
struct NoFlags {};
/// Type-level flags: no key is required (partial records read, the rest keeps its default).
struct AllKeysOptional {
  static constexpr bool optional_keys = true;
};
/// Type-level flags: read leniently on its own through nlohmann's `get<T>()` (a missing or null
/// key keeps the default); strictly inside a report.
struct LenientAlone {
  static constexpr bool lenient_alone = true;
};
/// Both: no key required, and lenient on its own.
struct AllKeysOptionalLenientAlone : AllKeysOptional, LenientAlone {};

/// JSON types of a computed field, as bits, for the Collector.
enum JsonTypes : unsigned {
  json_null = 1,
  json_boolean = 2,
  json_integer = 4,
  json_number = 8,
  json_string = 16,
  json_array = 32,
  json_object = 64,
};

/// How strictly a Reader reads.
enum class Mode {
  strict,   ///< a missing required key or a wrong type throws FieldError
  lenient,  ///< a missing key, or null where no null is allowed, keeps the member's default
};

// ---- errors ------------------------------------------------------------------------------------

/// A failure at a JSON path inside a document; `path()` grows as the error travels up.
class FieldError : public ReportError {
 public:
  /// \param path the key path, e.g. "gpu_time_s.p50" (may be empty at the point of the throw).
  /// \param problem what is wrong there, e.g. "expected a number, got a string".
  FieldError(std::string path, std::string problem)
      : ReportError((path.empty() ? std::string() : path + ": ") + problem),
        path_(std::move(path)), problem_(std::move(problem)) {}
  /// The JSON path of the offending value.
  const std::string& path() const noexcept { return path_; }
  /// What is wrong with it.
  const std::string& problem() const noexcept { return problem_; }
  /// This error, seen from one level up: `key` (an object key or "[i]") prepended to the path.
  FieldError within(const std::string& key) const {
    if (path_.empty()) return FieldError(key, problem_);
    return FieldError(key + (path_[0] == '[' ? "" : ".") + path_, problem_);
  }

 private:
  std::string path_;
  std::string problem_;
};

/// "a string", "an object", "null" ... for messages.
inline std::string describe_type(const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::object: return "an object";
    case nlohmann::json::value_t::array: return "an array";
    case nlohmann::json::value_t::string: return "a string";
    case nlohmann::json::value_t::boolean: return "a boolean";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned: return "an integer";
    case nlohmann::json::value_t::number_float: return "a number";
    default: return std::string("a ") + v.type_name();
  }
}

/// Throws FieldError (empty path): "expected <expected>, got <the type of v>".
[[noreturn]] inline void wrong_type(const char* expected, const nlohmann::json& v) {
  throw FieldError("", std::string("expected ") + expected + ", got " + describe_type(v));
}

/// Throws FieldError (empty path) unless `v` is an object.
inline void expect_object(const nlohmann::json& v) {
  if (!v.is_object()) wrong_type("an object", v);
}

// ---- traits ------------------------------------------------------------------------------------

template <class T, class = void>
struct is_described : std::false_type {};
template <class T>
struct is_described<T, std::void_t<decltype(Fields<T>::name)>> : std::true_type {};
/// True when `T` has a description (a `Fields<T>` with a name).
template <class T>
inline constexpr bool is_described_v = is_described<T>::value;

namespace detail {
template <class T> struct is_optional : std::false_type {};
template <class T> struct is_optional<std::optional<T>> : std::true_type {};
template <class T> struct is_vector : std::false_type {};
template <class T, class A> struct is_vector<std::vector<T, A>> : std::true_type {};
template <class T> struct is_string_map : std::false_type {};
template <class T, class C, class A> struct is_string_map<std::map<std::string, T, C, A>> : std::true_type {};
template <class T> struct is_named_list : std::false_type {};  // vector<pair<string, T>>
template <class T, class A> struct is_named_list<std::vector<std::pair<std::string, T>, A>> : std::true_type {};
template <class T> struct is_duration : std::false_type {};
template <class R, class P> struct is_duration<std::chrono::duration<R, P>> : std::true_type {};
template <class T> struct is_variant : std::false_type {};
template <class... T> struct is_variant<std::variant<T...>> : std::true_type {};
template <class T, class = void> struct has_enum_values : std::false_type {};
template <class T> struct has_enum_values<T, std::void_t<decltype(EnumValues<T>::values)>> : std::true_type {};

template <class T, class = void> struct optional_keys : std::false_type {};
template <class T>
struct optional_keys<T, std::void_t<decltype(Fields<T>::optional_keys)>> : std::bool_constant<Fields<T>::optional_keys> {};
template <class T, class = void> struct lenient_alone : std::false_type {};
template <class T>
struct lenient_alone<T, std::void_t<decltype(Fields<T>::lenient_alone)>> : std::bool_constant<Fields<T>::lenient_alone> {};
template <class T, class = void> struct has_after_read : std::false_type {};
template <class T>
struct has_after_read<T, std::void_t<decltype(Fields<T>::after_read(std::declval<const nlohmann::json&>(),
                                                                    std::declval<T&>()))>> : std::true_type {};

/// The codec among a field's options (Auto when none is given).
template <class... O> struct codec_of { using type = Auto; };
template <class O, class... Rest>
struct codec_of<O, Rest...> {
  using type = std::conditional_t<std::is_base_of_v<Codec, O>, O, typename codec_of<Rest...>::type>;
};
template <class... O>
using codec_t = typename codec_of<std::decay_t<O>...>::type;

/// What a field's options say about its key.
struct KeyInfo {
  int since = 0;           ///< minor version that added it
  bool required = true;    ///< required in a report of its minor version
};
inline void note(KeyInfo& k, const Since& s) { k.since = s.minor; }
inline void note(KeyInfo& k, const NotRequired&) { k.required = false; }
inline void note(KeyInfo&, const Codec&) {}
template <class... O>
KeyInfo key_info(const O&... o) {
  KeyInfo k;
  (note(k, o), ...);
  return k;
}

/// The names of enum E, in the order of EnumValues<E>::values.
template <class E>
std::vector<std::string> enum_names() {
  std::vector<std::string> names;
  for (E e : EnumValues<E>::values) names.emplace_back(to_string(e));
  return names;
}

/// Reads a string that must be one of `names`; FieldError (empty path) naming the choices.
inline std::string read_name(const nlohmann::json& v, const std::vector<std::string>& names) {
  if (!v.is_string()) wrong_type("a string", v);
  const auto& text = v.get_ref<const std::string&>();
  std::string list;
  for (const auto& n : names) {
    if (text == n) return text;
    list += (list.empty() ? "" : ", ") + n;
  }
  throw FieldError("", "\"" + text + "\" is not one of " + list);
}
}  // namespace detail

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
    nlohmann::json j;
    std::visit([&](const auto& v) { j = v; }, x);
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
    if (!v.is_number_integer()) wrong_type("an integer", v);
    if (v.is_number_unsigned()) {
      const auto u = v.get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(std::numeric_limits<T>::max()))
        throw FieldError("", "integer " + std::to_string(u) + " is out of range");
      out = static_cast<T>(u);
    } else {
      const auto s = v.get<std::int64_t>();
      if constexpr (std::is_unsigned_v<T>) {
        if (s < 0) throw FieldError("", "expected a non-negative integer, got " + std::to_string(s));
        out = static_cast<T>(s);
      } else {
        if (s < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
            s > static_cast<std::int64_t>(std::numeric_limits<T>::max()))
          throw FieldError("", "integer " + std::to_string(s) + " is out of range");
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
      throw FieldError("", "duration " + std::to_string(seconds) + " s is out of range");
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

/// nlohmann/json's hook (found by ADL) for every described type of gauge: its description
/// written as an object. Non-finite numbers are null.
template <class T, std::enable_if_t<serial::is_described_v<T>, int> = 0>
void to_json(nlohmann::json& j, const T& x) {
  j = serial::encode_object(x);
}

/// nlohmann/json's hook (found by ADL) for every described type of gauge: reads what to_json
/// writes, strictly (types whose description says `lenient_alone`: leniently, a missing or null
/// key keeping the default). \throws ReportError (serial::FieldError) naming the key path of a
/// missing or mistyped key.
template <class T, std::enable_if_t<serial::is_described_v<T>, int> = 0>
void from_json(const nlohmann::json& j, T& x) {
  serial::read_object(j, x, serial::detail::lenient_alone<T>::value ? serial::Mode::lenient : serial::Mode::strict);
}

}  // namespace gauge
