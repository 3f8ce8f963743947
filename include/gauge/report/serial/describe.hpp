#pragma once
/// \file gauge/report/serial/describe.hpp
/// What a description is made of (gauge/report/serial.hpp, whose file comment says how to write
/// one): the GAUGE_SERIAL_* macros, `Fields` and `EnumValues`, the options of a field and the
/// codecs, the type-level flags, `FieldError`, and the traits and helpers the visitors share.

#include <nlohmann/json.hpp>

#include <chrono>
#include <initializer_list>
#include <map>
#include <optional>
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
inline constexpr Since since_1_7{7};  ///< key added by schema 1.7.0
inline constexpr Since since_1_8{8};  ///< key added by schema 1.8.0
inline constexpr Since since_1_9{9};  ///< key added by schema 1.9.0
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

}  // namespace serial
}  // namespace gauge
