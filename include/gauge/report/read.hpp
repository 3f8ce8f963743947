#pragma once
/// \file gauge/report/read.hpp
/// Reading reports back: `gauge::read_report(path)`, `gauge::parse_report(text)`, into gauge's
/// types by their descriptions (gauge/report/fields.hpp; the inverse of gauge/report/json.hpp).
///
/// Reading is strict where it matters and lenient where the format allows it:
/// - every key that schema 1.0.0 requires (schema/gauge-report.schema.json) must be present, and
///   every key present must be of the right JSON type, else `ReportError` names the key's path
///   and the expected type, e.g. `r.json: experiments[0].gpu_time_s: missing required key "p50"`;
/// - keys added by later minor versions (telemetry, memory, kernels, timers: 1.1; time_label,
///   time_clock and three settings of the configuration: 1.2) may be absent: the value keeps its
///   default, or is derived (`time_label` and `time_clock` from `backend`);
/// - keys this version does not know (added by a later minor version, or by a user) are ignored,
///   and kept in `StoredReport::document` for tools that want them. A key is known only as
///   written, byte for byte: in a summary (`gpu_time_s`, ...) `P50`, `p50 `, `p51` or `median2`
///   are unknown keys (the schema allows them), never read as `p50` or `median`, and no check of a
///   summary looks at them;
/// - an integer is read exactly or refused naming its key, never wrapped or rounded: it must fit
///   the field's type (e.g. 2^63 in a signed 64-bit field is refused), an integer written as a
///   float (`1e3`) must be at most 2^53, and an integer literal beyond 64 bits is refused
///   anywhere in the document (parse_report);
/// - every refusal of `schema_version` (missing, not a string, not MAJOR.MINOR.PATCH, another
///   major version) names the value seen and what this gauge reads;
/// - a report of a newer major version is refused with a clear message (semantic versioning:
///   a new major version may remove or rename keys);
/// - a key twice in one object is refused naming it and where (JSON leaves which value counts
///   to the reader).
///
/// Null numbers are read as `std::nullopt` where the type is optional; a null per-step sample
/// (a non-finite number when written) is read as NaN, so that writing the result again gives
/// the same JSON. Every error is one line.
///
/// Hostile input is refused with `ReportError`, never a crash or another exception: JSON nested
/// deeper than `report_max_depth` levels (nlohmann's dump and copy recurse once per level, so
/// 100,000 brackets would overflow the stack), and numbers out of the range of a double
/// (`1e309`).

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/dimensions.hpp"
#include "gauge/core/environment.hpp"
#include "gauge/core/error.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/core/timer_summary.hpp"
#include "gauge/report/document.hpp"
#include "gauge/report/escape.hpp"
#include "gauge/report/fields.hpp"
#include "gauge/report/read_text.hpp"
#include "gauge/report/schema_check.hpp"
#include "gauge/report/serial.hpp"
#include "gauge/version.hpp"

namespace gauge {

/// A semantic version MAJOR.MINOR.PATCH (semver.org 2.0.0); a pre-release or build suffix
/// ("-rc.1", "+abc") is accepted and kept in `suffix`.
struct SchemaVersion {
  int major = 0;       ///< incompatible changes (keys removed or renamed)
  int minor = 0;       ///< compatible additions (new keys)
  int patch = 0;       ///< clarifications, no change of keys
  std::string suffix;  ///< "-…" and/or "+…" as written, else empty
};

namespace detail {
/// Parses "MAJOR.MINOR.PATCH[-pre][+build]" (numbers without leading zeros, as semver requires).
/// \throws ReportError "schema_version "1.x" is not MAJOR.MINOR.PATCH" naming the text.
inline SchemaVersion parse_schema_version(const std::string& text) {
  SchemaVersion v;
  std::size_t i = 0;
  auto number = [&](int& out, bool last) {
    const std::size_t start = i;
    long long value = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9' && i - start < 9) {
      value = value * 10 + (text[i] - '0');
      ++i;
    }
    const bool ok = i > start && !(i - start > 1 && text[start] == '0') &&
                    (last ? (i == text.size() || text[i] == '-' || text[i] == '+') : (i < text.size() && text[i] == '.'));
    if (!ok)
      throw ReportError("schema_version \"" + (text.size() > 80 ? text.substr(0, 77) + "..." : text) +
                        "\" is not MAJOR.MINOR.PATCH (semantic versioning)");
    out = static_cast<int>(value);
    if (!last) ++i;
  };
  number(v.major, false);
  number(v.minor, false);
  number(v.patch, true);
  v.suffix = text.substr(i);
  return v;
}

/// The major version of the report format this gauge reads (the major of `report_schema_version`);
/// it reads every minor version of it (unknown keys are ignored).
inline int supported_report_major() { return parse_schema_version(report_schema_version).major; }

/// The deepest nesting of arrays and objects a report may have (levels; a report of gauge nests
/// about 6 deep, user keys the schema allows may add some). Deeper JSON is refused with
/// ReportError before anything recurses over it.
inline constexpr std::size_t report_max_depth = 256;
}  // namespace detail

namespace detail::read {
/// Whether `doc` nests deeper than `max_depth` arrays/objects (an explicit stack, no recursion).
inline bool json_too_deep(const nlohmann::json& doc, std::size_t max_depth) {
  std::vector<std::pair<const nlohmann::json*, std::size_t>> stack{{&doc, 0}};
  while (!stack.empty()) {
    const auto [j, depth] = stack.back();
    stack.pop_back();
    if (!j->is_structured()) continue;
    if (depth + 1 > max_depth) return true;
    for (const auto& child : *j) stack.emplace_back(&child, depth + 1);
  }
  return false;
}

/// The first inconsistency of a distribution summary anywhere in `doc` (any object with `p50` or
/// `median_ci`: gpu_time_s, wall_time_s, clock cycles, the Timer's summaries), as "<path>: <what>",
/// or "" when there is none. A summary's order statistics must be in order (min <= p1 <= ... <= p99
/// <= max, the mean within [min, max]) and its median's interval must hold the median (low <= p50
/// <= high): the schema cannot say so, and a reader that took `median 2.0 [4.0, 0.67]` would let a
/// comparison from the summary decide on an interval that does not exist. Explicit stack.
inline std::string summary_inconsistency(const nlohmann::json& doc) {
  static const char* const order[] = {"min", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "max"};
  auto number = [](const nlohmann::json& o, const char* key) -> std::optional<double> {
    const auto it = o.find(key);
    if (it == o.end() || !it->is_number()) return std::nullopt;
    return it->get<double>();
  };
  // "a below b" beyond rounding: a mean summed in floating point may exceed max by an ulp or so.
  auto below = [](double a, double b, double rel) { return a < b - rel * std::max(std::fabs(a), std::fabs(b)); };
  std::vector<std::pair<const nlohmann::json*, std::string>> stack{{&doc, ""}};
  while (!stack.empty()) {
    const auto [j, path] = stack.back();
    stack.pop_back();
    if (j->is_array()) {
      // Only objects and arrays can hold a summary: the samples' long arrays of numbers are not walked.
      for (std::size_t i = 0; i < j->size(); ++i)
        if ((*j)[i].is_structured()) stack.emplace_back(&(*j)[i], path + "[" + std::to_string(i) + "]");
      continue;
    }
    if (!j->is_object()) continue;
    const bool summary = j->contains("p50") || j->contains("median_ci");
    if (summary) {
      const char* last_key = nullptr;
      double last = 0;
      for (const char* key : order) {
        const auto v = number(*j, key);
        if (!v) continue;
        if (last_key && below(*v, last, 1e-12))
          return path + ": " + key + " (" + format_number(*v) + ") is below " + last_key + " (" + format_number(last) +
                 "): a summary's order statistics must be in order";
        last_key = key, last = *v;
      }
      const auto lo = number(*j, "min"), hi = number(*j, "max"), mean = number(*j, "mean");
      if (mean && lo && hi && (below(*mean, *lo, 1e-9) || below(*hi, *mean, 1e-9)))
        return path + ": mean (" + format_number(*mean) + ") is outside [min, max] = [" + format_number(*lo) + ", " +
               format_number(*hi) + "]";
      const auto ci = j->find("median_ci");
      if (ci != j->end() && ci->is_object()) {
        const auto l = number(*ci, "low"), h = number(*ci, "high"), m = number(*j, "p50");
        if (l && h && below(*h, *l, 1e-12))
          return path + ".median_ci: low (" + format_number(*l) + ") > high (" + format_number(*h) + ")";
        if (l && h && m && (below(*m, *l, 1e-12) || below(*h, *m, 1e-12)))
          return path + ".median_ci: [" + format_number(*l) + ", " + format_number(*h) + "] does not contain the median p50 (" +
                 format_number(*m) + ")";
      }
    }
    for (auto it = j->begin(); it != j->end(); ++it)
      if (it->is_structured()) stack.emplace_back(&*it, path.empty() ? it.key() : path + "." + it.key());
  }
  return {};
}

/// The first inconsistency between the fields of one record that the schema cannot express, as
/// "<path>: <what>", or "" when there is none: an experiment's `streams` must hold one entry of
/// `samples` and of `medians_s` per stream (`count`; both empty for one stream), and each span of `kernel_trace.sample_step`
/// must end no earlier than it starts.
inline std::string record_inconsistency(const nlohmann::json& doc) {
  // An interleaved A/B record: two different experiments; each interval in order and holding its
  // estimate (as a summary's median_ci must).
  if (const auto il = doc.find("interleaved"); il != doc.end() && il->is_array())
    for (std::size_t i = 0; i < il->size(); ++i) {
      const nlohmann::json& x = (*il)[i];
      if (!x.is_object()) continue;
      const std::string at = "interleaved[" + std::to_string(i) + "]";
      if (x.contains("a") && x.contains("b") && x["a"] == x["b"])
        return at + ": a and b are the same experiment (" + x["a"].dump() + ")";
      for (const auto& [key, lo, est, hi] : {std::array<const char*, 4>{"ratio", "low", "estimate", "high"},
                                             std::array<const char*, 4>{"difference", "low_s", "estimate_s", "high_s"}}) {
        const auto r = x.find(key);
        if (r == x.end() || !r->is_object()) continue;
        const auto num = [&](const char* k) -> std::optional<double> {
          const auto v = r->find(k);
          return v != r->end() && v->is_number() ? std::optional<double>(v->get<double>()) : std::nullopt;
        };
        const auto l = num(lo), e = num(est), h = num(hi);
        if (l && h && *l > *h)
          return at + "." + key + ": " + lo + " (" + format_number(*l) + ") > " + hi + " (" + format_number(*h) + ")";
        if (l && h && e && (*e < *l || *e > *h))
          return at + "." + key + ": " + est + " (" + format_number(*e) + ") is outside [" + format_number(*l) + ", " +
                 format_number(*h) + "]";
      }
    }
  const auto experiments = doc.find("experiments");
  if (experiments == doc.end() || !experiments->is_array()) return {};
  for (std::size_t i = 0; i < experiments->size(); ++i) {
    const nlohmann::json& e = (*experiments)[i];
    if (!e.is_object()) continue;
    const std::string at = "experiments[" + std::to_string(i) + "]";
    if (const auto s = e.find("streams"); s != e.end() && s->is_object() && s->contains("count") && (*s)["count"].is_number_integer()) {
      const auto count = (*s)["count"].get<std::int64_t>();
      // One stream records no per-stream arrays (empty); a pool records one entry per stream.
      for (const char* key : {"samples", "medians_s"})
        if (const auto a = s->find(key); a != s->end() && a->is_array() && !a->empty() &&
                                         static_cast<std::int64_t>(a->size()) != count)
          return at + ".streams." + key + ": " + std::to_string(a->size()) + " entries for " + std::to_string(count) +
                 " stream" + (count == 1 ? "" : "s") + " (streams.count): one entry per stream, or none";
      const auto n = s->find("samples"), m = s->find("medians_s");
      if (n != s->end() && m != s->end() && n->is_array() && m->is_array() && n->size() != m->size())
        return at + ".streams: " + std::to_string(n->size()) + " sample counts but " + std::to_string(m->size()) +
               " medians_s: one of each per stream";
    }
    const auto trace = e.find("kernel_trace");
    if (trace == e.end() || !trace->is_object()) continue;
    const auto spans = trace->find("sample_step");
    if (spans == trace->end() || !spans->is_array()) continue;
    for (std::size_t k = 0; k < spans->size(); ++k) {
      const nlohmann::json& span = (*spans)[k];
      if (!span.is_object() || !span.contains("start_s") || !span.contains("end_s")) continue;
      if (!span["start_s"].is_number() || !span["end_s"].is_number()) continue;
      const double start = span["start_s"].get<double>(), end = span["end_s"].get<double>();
      if (end < start)
        return at + ".kernel_trace.sample_step[" + std::to_string(k) + "]: end_s (" + format_number(end) +
               ") is before start_s (" + format_number(start) + ")";
    }
  }
  return {};
}

/// `text` as one line of at most 400 bytes: control characters (newline, NUL, ESC, ...) as their
/// escapes (detail::escape::visible), anything longer cut with "...".
inline std::string one_line(const std::string& text) {
  std::string out = escape::visible(text);
  if (out.size() > 400) out = out.substr(0, 397) + "...";
  return out;
}

/// The message for JSON nested too deep.
inline std::string too_deep_message() {
  return "JSON nested deeper than " + std::to_string(gauge::detail::report_max_depth) +
         " levels of arrays and objects: not a gauge report (refused before reading it)";
}
}  // namespace detail::read

namespace serial {
/// The top level of a report read back (see ReportFields).
template <>
struct Fields<StoredReport> : ReportFields {};
}  // namespace serial

namespace detail {
/// Reads a dimensions object: integer → int64, other number → double, string, boolean.
/// \throws ReportError naming the key of any other value (null, array, object, integer > 2^63).
inline Dimensions dimensions_from_json(const nlohmann::json& j) {
  Dimensions dims;
  serial::decode(j, dims, serial::Mode::strict);
  return dims;
}

/// Reads a whole report document. Checks, in order: nesting at most `report_max_depth`; a JSON object; `schema` is
/// "gauge.report"; `schema_version` is semantic and its major version is
/// `supported_report_major()`; then every required key (see from_json of each type).
///
/// \param doc the parsed document.
/// \param source a name for messages (the file's path).
/// \throws ReportError with one line: "<source>: <what is wrong>", e.g.
///   "r.json: not a gauge report: \"schema\" is \"x\", expected \"gauge.report\"",
///   "r.json: schema_version 2.0.0 is newer than this gauge reads (major version 1); ...",
///   "r.json: experiments[0].gpu_time_s: missing required key \"p50\"",
///   "r.json: JSON nested deeper than 256 levels ...".
inline StoredReport report_from_json(nlohmann::json doc, const std::string& source) {
  // One line, bounded: a value echoed in a message may hold a newline, a NUL or a megabyte.
  auto fail = [&](const std::string& what) -> ReportError { return ReportError(source + ": " + detail::read::one_line(what)); };
  if (detail::read::json_too_deep(doc, report_max_depth)) throw fail(detail::read::too_deep_message());
  if (!doc.is_object())
    throw fail("not a gauge report: the top level is " + serial::describe_type(doc) + ", expected an object");
  StoredReport report;
  report.source = source;
  const auto schema = doc.find("schema");
  if (schema == doc.end()) {
    const bool gbench = doc.contains("benchmarks") && doc.contains("context");
    throw fail(std::string("not a gauge report: no \"schema\" key") +
               (gbench ? " (this looks like Google Benchmark JSON)" : ""));
  }
  if (!schema->is_string() || schema->get_ref<const std::string&>() != report_schema_name)
    throw fail("not a gauge report: \"schema\" is " + schema->dump() + ", expected \"" + report_schema_name + "\"");
  report.schema = schema->get<std::string>();
  // Every refusal of schema_version names the key, the value seen and what this gauge accepts.
  const int supported = supported_report_major();
  const std::string accepted = "this gauge (" + std::string(version_string) + ") reads a string \"" +
                               std::to_string(supported) + ".MINOR.PATCH\" (semantic versioning, major version " +
                               std::to_string(supported) + "; it writes \"" + report_schema_version + "\")";
  const auto version = doc.find("schema_version");
  if (version == doc.end()) throw fail("missing required key \"schema_version\": " + accepted);
  // The value as seen, at most 80 bytes of it (the message stays one bounded line, what is
  // accepted included).
  const auto shown = [](std::string text) { return text.size() > 80 ? text.substr(0, 77) + "..." : text; };
  if (!version->is_string())
    throw fail("schema_version is " + shown(version->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) +
               " (" + serial::describe_type(*version) + "), not a string: " + accepted);
  report.schema_version = version->get<std::string>();
  SchemaVersion v;
  try {
    v = parse_schema_version(report.schema_version);
  } catch (const ReportError& e) {
    throw fail(std::string(e.what()) + ": " + accepted);
  }
  if (v.major > supported)
    throw fail("schema_version \"" + shown(report.schema_version) + "\" is newer than this gauge (" + version_string +
               ") reads: it reads major version " + std::to_string(supported) + " (" + report_schema_version +
               " and later minor versions); update gauge to read this report");
  if (v.major < supported)
    throw fail("schema_version \"" + shown(report.schema_version) + "\" is an older major version than this gauge reads: " +
               accepted);
  try {
    serial::read_object(doc, report, serial::Mode::strict);
  } catch (const serial::FieldError& e) {
    throw fail(e.what());
  } catch (const nlohmann::json::exception& e) {  // not expected (decode checks types): still one ReportError
    throw fail(e.what());
  }
  // What the schema says, the reader enforces (enum, minimum, pattern, … anywhere in the document),
  // then what the schema cannot say (a summary's order, a record's fields against each other).
  if (const std::string what = detail::schema_check::report_schema().check(doc); !what.empty())
    throw fail(what + " (schema/gauge-report.schema.json)");
  if (const std::string what = detail::read::summary_inconsistency(doc); !what.empty()) throw fail(what);
  if (const std::string what = detail::read::record_inconsistency(doc); !what.empty()) throw fail(what);
  for (std::size_t i = 0; i < report.interleaved.size(); ++i) {
    const auto& x = report.interleaved[i];
    for (const auto& [key, at] : {std::pair<const char*, std::size_t>{"a", x.a}, {"b", x.b}})
      if (at >= report.results.size())
        throw fail("interleaved[" + std::to_string(i) + "]." + key + ": " + std::to_string(at) +
                   " is not the index of an experiment (the report has " + std::to_string(report.results.size()) + ")");
  }
  report.source = source;
  report.document = std::move(doc);
  return report;
}
}  // namespace detail

/// Parses a report from its JSON text (strict JSON: NaN and Infinity are rejected).
/// \param text the report's text.
/// \param source a name for messages (e.g. the file's path).
/// \throws ReportError "<source>: invalid JSON at line L, column C: <what the parser saw>" for text
///   that is not JSON (a truncated file ends with "unexpected end of input"); "<source>: JSON
///   nested deeper than 256 levels ... (byte B)"; "<source>: invalid JSON: number out of range
///   ..." for a number beyond a double (1e309); else as report_from_json.
inline StoredReport parse_report(const std::string& text, const std::string& source = "<report>") {
  nlohmann::json doc;
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw ReportError(source + ": invalid JSON: the file is empty");
  const std::size_t deep_at = detail::read::json_too_deep_at(text, gauge::detail::report_max_depth);
  if (deep_at != std::string::npos)
    throw ReportError(source + ": " + detail::read::too_deep_message() + " (byte " + std::to_string(deep_at) + ")");
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::out_of_range& e) {
    // nlohmann: "[json.exception.out_of_range.406] number overflow parsing '1e309'"
    std::string what = e.what();
    const auto at = what.find("] ");
    if (at != std::string::npos) what = what.substr(at + 2);
    throw ReportError(source + ": invalid JSON: number out of range of a double (" + what + ")");
  } catch (const nlohmann::json::parse_error& e) {
    // nlohmann: "[json.exception.parse_error.101] parse error at line 3, column 5: syntax error ..."
    std::string what = e.what();
    const std::string marker = "parse error ";
    const auto at = what.find(marker);
    if (at != std::string::npos) what = what.substr(at + marker.size());
    for (char& ch : what)
      if (ch == '\n' || ch == '\r') ch = ' ';
    throw ReportError(source + ": invalid JSON " + what + " (byte " + std::to_string(e.byte) + ")");
  } catch (const nlohmann::json::exception& e) {  // any other error of the parser: still one ReportError
    throw ReportError(source + ": invalid JSON: " + std::string(e.what()));
  }
  if (const std::string what = detail::read::integer_beyond_64_bits(text); !what.empty())
    throw ReportError(source + ": " + detail::read::one_line(what));
  if (const std::string what = detail::read::duplicate_key(text); !what.empty())
    throw ReportError(source + ": " + detail::read::one_line(what) + " (JSON leaves which value counts to the reader: refused)");
  return gauge::detail::report_from_json(std::move(doc), source);
}

/// Reads the report at `path` (see parse_report for what is checked).
/// \throws ReportError with one line naming the path: "cannot read report <path>: no such file",
///   "... is a directory", the system error, or any error of parse_report.
inline StoredReport read_report(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (!fs::exists(status)) throw ReportError("cannot read report " + path.string() + ": no such file");
  if (fs::is_directory(status)) throw ReportError("cannot read report " + path.string() + ": it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ReportError("cannot read report " + path.string() + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw ReportError("cannot read report " + path.string() + ": read error");
  return parse_report(text.str(), path.string());
}

}  // namespace gauge
