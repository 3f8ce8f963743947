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

#include "gauge/report/serial/describe.hpp"  // the macros, Fields, options, codecs, flags, FieldError, traits
#include "gauge/report/serial/write.hpp"     // Writer, encode, the to_json hook
#include "gauge/report/serial/read.hpp"      // Reader, decode, read_object, the from_json hook
#include "gauge/report/serial/schema.hpp"    // Collector, collect_schema
