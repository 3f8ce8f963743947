#pragma once
/// \file gauge/report/read.hpp
/// Reading reports back: `gauge::read_report(path)` and the nlohmann/json `from_json` hooks for
/// gauge's types (the inverse of gauge/report/json.hpp).
///
/// Reading is strict where it matters and lenient where the format allows it:
/// - every key that schema 1.0.0 requires (schema/gauge-report.schema.json) must be present and
///   of the right JSON type, else `ReportError` names the key's path, e.g.
///   `r.json: experiments[0].gpu_time_s: missing required key "p50"`;
/// - keys this version does not know (added by a later minor version, or by a user) are ignored,
///   and kept in `StoredReport::document` for tools that want them (telemetry, memory);
/// - a report of a newer major version is refused with a clear message (semantic versioning:
///   a new major version may remove or rename keys).
///
/// Null numbers are read as `std::nullopt` where the type is optional; a null per-step sample
/// (a non-finite number when written) is read as NaN, so that writing the result again gives
/// the same JSON. Every error is one line.

#include <nlohmann/json.hpp>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "gauge/core/config.hpp"
#include "gauge/core/dimensions.hpp"
#include "gauge/core/environment.hpp"
#include "gauge/core/error.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/core/warmup.hpp"
#include "gauge/core/warnings.hpp"
#include "gauge/core/work.hpp"
#include "gauge/report/host_json.hpp"
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
    if (!ok) throw ReportError("schema_version \"" + text + "\" is not MAJOR.MINOR.PATCH (semantic versioning)");
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

/// A report read back from its JSON text.
struct StoredReport {
  std::string source;          ///< where it was read from (the path, or the name given to parse_report)
  std::string schema;          ///< "gauge.report"
  std::string schema_version;  ///< e.g. "1.0.0"; its major version is `supported_report_major()`
  std::string gauge_version;   ///< version of gauge that wrote it
  std::string created_utc;     ///< ISO 8601 UTC creation time
  Environment environment;     ///< the environment it was measured in
  std::vector<Result> results; ///< one per experiment, in the report's order
  /// The whole document as read, keys this version of gauge does not model included (e.g.
  /// `experiments[i].telemetry`). `document["experiments"][i]` belongs to `results[i]`.
  nlohmann::json document;

  /// The first result named `name` whose dimensions equal `dimensions`; nullptr if none.
  const Result* find(const std::string& name, const Dimensions& dimensions) const {
    for (const auto& r : results)
      if (r.name == name && r.dimensions == dimensions) return &r;
    return nullptr;
  }
  /// The one result named `name`. \throws ReportError naming the report when there is none or more
  /// than one (then use find() with the dimensions).
  const Result& at(const std::string& name) const {
    const Result* found = nullptr;
    std::size_t count = 0;
    for (const auto& r : results)
      if (r.name == name) {
        if (!found) found = &r;
        ++count;
      }
    if (count == 0) throw ReportError(source + ": no experiment named \"" + name + "\"");
    if (count > 1)
      throw ReportError(source + ": " + std::to_string(count) + " experiments are named \"" + name +
                        "\"; choose one by its dimensions with find()");
    return *found;
  }
};

namespace detail::read {

/// A failure at a JSON path inside the report; `path()` grows as the error travels up.
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

[[noreturn]] inline void wrong_type(const char* expected, const nlohmann::json& v) {
  throw FieldError("", std::string("expected ") + expected + ", got " + describe_type(v));
}

template <class T> struct is_optional : std::false_type {};
template <class T> struct is_optional<std::optional<T>> : std::true_type {};
template <class T> struct is_vector : std::false_type {};
template <class T, class A> struct is_vector<std::vector<T, A>> : std::true_type {};

/// Reads `v` into `out`, checking the JSON type; FieldError (empty path) on a mismatch.
/// Objects go through the type's `from_json` (found by ADL).
template <class T>
void value(const nlohmann::json& v, T& out) {
  if constexpr (std::is_same_v<T, nlohmann::json>) {
    out = v;
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!v.is_boolean()) wrong_type("a boolean", v);
    out = v.get<bool>();
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
    out = v.get<double>();
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!v.is_string()) wrong_type("a string", v);
    out = v.get_ref<const std::string&>();
  } else if constexpr (is_optional<T>::value) {
    if (v.is_null()) {
      out.reset();
    } else {
      typename T::value_type inner{};
      value(v, inner);
      out = std::move(inner);
    }
  } else if constexpr (is_vector<T>::value) {
    if (!v.is_array()) wrong_type("an array", v);
    out.clear();
    out.reserve(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      typename T::value_type element{};
      try {
        value(v[i], element);
      } catch (const FieldError& e) {
        throw e.within("[" + std::to_string(i) + "]");
      }
      out.push_back(std::move(element));
    }
  } else {
    if (!v.is_object()) wrong_type("an object", v);
    from_json(v, out);
  }
}

/// Reads the required key `key` of object `j` (present; null only where T is optional).
template <class T>
void required(const nlohmann::json& j, const char* key, T& out) {
  const auto it = j.find(key);
  if (it == j.end()) throw FieldError("", std::string("missing required key \"") + key + "\"");
  try {
    value(*it, out);
  } catch (const FieldError& e) {
    throw e.within(key);
  } catch (const nlohmann::json::exception& e) {
    throw FieldError(key, e.what());
  }
}

/// Checks that the required key `key` is present and a string (for keys gauge writes but does not
/// keep, such as the names of statistical methods).
inline void required_string(const nlohmann::json& j, const char* key) {
  std::string ignored;
  required(j, key, ignored);
}

/// Checks that `j[key]` is an object holding every key of `keys` (for objects whose from_json is
/// lenient by design, such as the host's: the keys themselves are required by the schema).
inline void present(const nlohmann::json& j, const char* key, std::initializer_list<const char*> keys) {
  const auto it = j.find(key);
  if (it == j.end()) throw FieldError("", std::string("missing required key \"") + key + "\"");
  if (!it->is_object()) throw FieldError(key, "expected an object, got " + describe_type(*it));
  for (const char* k : keys)
    if (!it->contains(k)) throw FieldError(key, std::string("missing required key \"") + k + "\"");
}

/// Reads a per-step sample array: numbers, with null (non-finite when written) read as NaN.
inline void samples(const nlohmann::json& j, const char* key, std::vector<double>& out) {
  std::vector<std::optional<double>> raw;
  required(j, key, raw);
  out.clear();
  out.reserve(raw.size());
  for (const auto& x : raw) out.push_back(x ? *x : std::numeric_limits<double>::quiet_NaN());
}

/// Seconds (JSON) to nanoseconds, rounded to the nearest nanosecond.
inline Nanoseconds nanoseconds_from(double seconds, const char* key) {
  if (!std::isfinite(seconds) || std::fabs(seconds) > 9.2e9)
    throw FieldError(key, "duration " + std::to_string(seconds) + " s is out of range");
  return Nanoseconds(static_cast<Nanoseconds::rep>(std::llround(seconds * 1e9)));
}

/// Reads a required duration in seconds into nanoseconds.
inline void duration(const nlohmann::json& j, const char* key, Nanoseconds& out) {
  double s = 0;
  required(j, key, s);
  out = nanoseconds_from(s, key);
}

/// Reads a required string that must be one of `names` (the text of an enum).
inline std::string one_of(const nlohmann::json& j, const char* key, std::initializer_list<const char*> names) {
  std::string text;
  required(j, key, text);
  std::string list;
  for (const char* n : names) {
    if (text == n) return text;
    list += (list.empty() ? "" : ", ") + std::string(n);
  }
  throw FieldError(key, "\"" + text + "\" is not one of " + list);
}

}  // namespace detail::read

/// Reads what `to_json(json&, const Work&)` writes. \throws ReportError naming a missing or
/// mistyped key.
inline void from_json(const nlohmann::json& j, Work& w) {
  using namespace detail::read;
  w = Work{};
  required(j, "flop_per_step", w.flop);
  required(j, "bytes_per_step", w.bytes);
  const auto it = j.find("items_per_step");
  if (it == j.end()) throw FieldError("", "missing required key \"items_per_step\"");
  if (!it->is_object()) throw FieldError("items_per_step", "expected an object, got " + describe_type(*it));
  for (auto item = it->begin(); item != it->end(); ++item) {
    double count = 0;
    try {
      value(*item, count);
    } catch (const FieldError& e) {
      throw e.within(item.key()).within("items_per_step");
    }
    w.items[item.key()] = count;
  }
}

/// Reads what `to_json(json&, const Throughput&)` writes; a null item rate is left out.
inline void from_json(const nlohmann::json& j, Throughput& t) {
  using namespace detail::read;
  t = Throughput{};
  required(j, "flop_per_s", t.flop_per_second);
  required(j, "bytes_per_s", t.bytes_per_second);
  std::map<std::string, std::optional<double>> items;
  const auto it = j.find("items_per_s");
  if (it == j.end()) throw FieldError("", "missing required key \"items_per_s\"");
  if (!it->is_object()) throw FieldError("items_per_s", "expected an object, got " + describe_type(*it));
  for (auto item = it->begin(); item != it->end(); ++item) {
    std::optional<double> rate;
    try {
      value(*item, rate);
    } catch (const FieldError& e) {
      throw e.within(item.key()).within("items_per_s");
    }
    if (rate) t.items_per_second[item.key()] = *rate;
  }
}

/// Reads what `to_json(json&, const Warning&)` writes; severity must be info, warning or error.
inline void from_json(const nlohmann::json& j, Warning& w) {
  using namespace detail::read;
  w = Warning{};
  required(j, "code", w.code);
  const std::string s = one_of(j, "severity", {"info", "warning", "error"});
  w.severity = s == "info" ? Severity::info : s == "warning" ? Severity::warning : Severity::error;
  required(j, "message", w.message);
}

/// Reads what `to_json(json&, const ConfidenceInterval&)` writes.
inline void from_json(const nlohmann::json& j, ConfidenceInterval& ci) {
  using namespace detail::read;
  ci = ConfidenceInterval{};
  required(j, "low", ci.low);
  required(j, "high", ci.high);
  required(j, "level", ci.level);
  required(j, "coverage", ci.coverage);
  required(j, "lower_rank", ci.lower_rank);
  required(j, "upper_rank", ci.upper_rank);
}

/// Reads what `to_json(json&, const Summary&)` writes (every statistic; the method names are
/// checked to be strings and otherwise ignored: they are constants of this gauge).
inline void from_json(const nlohmann::json& j, Summary& s) {
  using namespace detail::read;
  s = Summary{};
  required(j, "n", s.n);
  required(j, "min", s.min);
  required(j, "p1", s.p1);
  required(j, "p5", s.p5);
  required(j, "p10", s.p10);
  required(j, "p25", s.p25);
  required(j, "p50", s.p50);
  required(j, "p75", s.p75);
  required(j, "p90", s.p90);
  required(j, "p95", s.p95);
  required(j, "p99", s.p99);
  required(j, "max", s.max);
  required(j, "mean", s.mean);
  required(j, "stddev", s.stddev);
  required(j, "cv", s.cv);
  required(j, "mad", s.mad);
  required(j, "iqr", s.iqr);
  required(j, "median_ci", s.median_ci);
  required(j, "median_ci_relative_width", s.median_ci_relative_width);
  required(j, "confidence_level", s.confidence_level);
  nlohmann::json outliers;
  required(j, "outliers", outliers);
  if (!outliers.is_object()) throw FieldError("outliers", "expected an object, got " + describe_type(outliers));
  try {
    required(outliers, "low_severe", s.outliers.low_severe);
    required(outliers, "low_mild", s.outliers.low_mild);
    required(outliers, "high_mild", s.outliers.high_mild);
    required(outliers, "high_severe", s.outliers.high_severe);
  } catch (const FieldError& e) {
    throw e.within("outliers");
  }
  required_string(j, "percentile_method");
  required_string(j, "median_ci_method");
  required_string(j, "outlier_method");
}

/// Reads what `to_json(json&, const Config&)` writes; durations from seconds to the nearest
/// nanosecond. The configuration is not validated (a report records what was used).
inline void from_json(const nlohmann::json& j, Config& c) {
  using namespace detail::read;
  c = Config{};
  nlohmann::json w, m;
  required(j, "warmup", w);
  required(j, "measure", m);
  if (!w.is_object()) throw FieldError("warmup", "expected an object, got " + describe_type(w));
  if (!m.is_object()) throw FieldError("measure", "expected an object, got " + describe_type(m));
  try {
    required(w, "min_steps", c.warmup.min_steps);
    duration(w, "min_time_s", c.warmup.min_time);
    required(w, "max_steps", c.warmup.max_steps);
    duration(w, "max_time_s", c.warmup.max_time);
    duration(w, "round_time_s", c.warmup.round_time);
    required(w, "window", c.warmup.window);
    required(w, "drift_tolerance", c.warmup.drift_tolerance);
  } catch (const FieldError& e) {
    throw e.within("warmup");
  }
  try {
    auto& x = c.measure;
    required(m, "min_samples", x.min_samples);
    required(m, "max_samples", x.max_samples);
    duration(m, "min_time_s", x.min_time);
    duration(m, "max_time_s", x.max_time);
    required(m, "target_relative_ci_width", x.target_relative_ci_width);
    required(m, "confidence_level", x.confidence_level);
    duration(m, "round_time_s", x.round_time);
    required(m, "max_steps_per_round", x.max_steps_per_round);
    required(m, "steps_per_sample", x.steps_per_sample);
    duration(m, "event_overhead_budget_s", x.event_overhead_budget);
    duration(m, "max_sample_time_s", x.max_sample_time);
    duration(m, "gate_timeout_s", x.gate_timeout);
    required(m, "wall_round_fraction", x.wall_round_fraction);
    x.cache = one_of(m, "cache", {"hot", "cold"}) == "hot" ? CacheState::hot : CacheState::cold;
    const std::string t = one_of(m, "gpu_timing", {"automatic", "ungated", "graph"});
    x.gpu_timing = t == "automatic" ? GpuTiming::automatic : t == "ungated" ? GpuTiming::ungated : GpuTiming::graph;
  } catch (const FieldError& e) {
    throw e.within("measure");
  }
  required(j, "device", c.device);
  std::vector<std::string> silenced;
  required(j, "silenced_warnings", silenced);
  c.silenced_warnings = std::set<std::string>(silenced.begin(), silenced.end());
  required(j, "max_samples_in_report", c.max_samples_in_report);
}

/// Reads what `to_json(json&, const WarmupRound&)` writes (a null time is read as NaN).
inline void from_json(const nlohmann::json& j, WarmupRound& r) {
  using namespace detail::read;
  r = WarmupRound{};
  std::optional<double> start, per_step;
  required(j, "start_s", start);
  required(j, "steps", r.steps);
  required(j, "time_per_step_s", per_step);
  r.start_s = start.value_or(std::numeric_limits<double>::quiet_NaN());
  r.time_per_step_s = per_step.value_or(std::numeric_limits<double>::quiet_NaN());
}

/// Reads what `to_json(json&, const DeviceRecord&)` writes.
inline void from_json(const nlohmann::json& j, DeviceRecord& d) {
  using namespace detail::read;
  d = DeviceRecord{};
  required(j, "ordinal", d.ordinal);
  required(j, "name", d.name);
  required(j, "uuid", d.uuid);
  required(j, "pci_bus_id", d.pci_bus_id);
}

/// Reads a dimensions object: integer → int64, other number → double, string, boolean.
/// \throws ReportError naming the key of any other value (null, array, object, integer > 2^63).
inline Dimensions dimensions_from_json(const nlohmann::json& j) {
  using namespace detail::read;
  if (!j.is_object()) wrong_type("an object", j);
  Dimensions dims;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const auto& v = *it;
    if (v.is_boolean()) {
      dims[it.key()] = v.get<bool>();
    } else if (v.is_number_integer()) {
      std::int64_t x = 0;
      try {
        value(v, x);
      } catch (const FieldError& e) {
        throw e.within(it.key());
      }
      dims[it.key()] = x;
    } else if (v.is_number()) {
      dims[it.key()] = v.get<double>();
    } else if (v.is_string()) {
      dims[it.key()] = v.get<std::string>();
    } else {
      throw FieldError(it.key(), "expected an integer, number, string or boolean, got " + describe_type(v));
    }
  }
  return dims;
}

/// Reads one entry of a report's `experiments` (what `to_json(json&, const Result&)` writes).
/// \throws ReportError (detail::read::FieldError) naming the path of a missing or mistyped key.
inline void from_json(const nlohmann::json& j, Result& r) {
  using namespace detail::read;
  r = Result{};
  required(j, "name", r.name);
  r.status = one_of(j, "status", {"ok", "failed"}) == "ok" ? Status::ok : Status::failed;
  required(j, "error", r.error);
  required(j, "backend", r.backend);
  required(j, "device", r.device);
  {
    const auto it = j.find("dimensions");
    if (it == j.end()) throw FieldError("", "missing required key \"dimensions\"");
    try {
      r.dimensions = dimensions_from_json(*it);
    } catch (const FieldError& e) {
      throw e.within("dimensions");
    }
  }
  required(j, "work", r.work);
  required(j, "config", r.config);

  auto object = [&](const char* key) {
    nlohmann::json o;
    required(j, key, o);
    if (!o.is_object()) throw FieldError(key, "expected an object, got " + describe_type(o));
    return o;
  };
  const nlohmann::json w = object("warmup");
  try {
    required(w, "first_step_time_s", r.warmup.first_step_time_s);
    required(w, "steps", r.warmup.steps);
    std::optional<double> t, drift;
    required(w, "time_s", t);
    required(w, "converged", r.warmup.converged);
    required(w, "relative_drift", drift);
    required(w, "reason", r.warmup.reason);
    required(w, "curve", r.warmup.curve);
    r.warmup.time_s = t.value_or(std::numeric_limits<double>::quiet_NaN());
    r.warmup.relative_drift = drift.value_or(std::numeric_limits<double>::quiet_NaN());
  } catch (const FieldError& e) {
    throw e.within("warmup");
  }
  const nlohmann::json s = object("sampling");
  try {
    auto& x = r.sampling;
    required(s, "method", x.method);
    required(s, "steps_per_sample", x.steps_per_sample);
    one_of(s, "granularity", {"per_step", "per_batch"});
    required(s, "steps_per_sample_reason", x.steps_per_sample_reason);
    required(s, "event_overhead_s", x.event_overhead_s);
    x.cache = one_of(s, "cache", {"hot", "cold"});
    required(s, "rounds", x.rounds);
    required(s, "discarded_rounds", x.discarded_rounds);
    required(s, "steps", x.steps);
    required(s, "calibration_steps", x.calibration_steps);
    required(s, "wall_rounds", x.wall_rounds);
    required(s, "wall_steps", x.wall_steps);
    std::optional<double> resolution;
    required(s, "timer_resolution_s", resolution);
    x.timer_resolution_s = resolution.value_or(std::numeric_limits<double>::quiet_NaN());
  } catch (const FieldError& e) {
    throw e.within("sampling");
  }
  const nlohmann::json st = object("stopping");
  try {
    required(st, "reason", r.stopping.reason);
    std::optional<double> t, target;
    required(st, "measure_time_s", t);
    required(st, "relative_ci_width", r.stopping.relative_ci_width);
    required(st, "target_relative_ci_width", target);
    required(st, "target_met", r.stopping.target_met);
    r.stopping.measure_time_s = t.value_or(std::numeric_limits<double>::quiet_NaN());
    r.stopping.target_relative_ci_width = target.value_or(std::numeric_limits<double>::quiet_NaN());
  } catch (const FieldError& e) {
    throw e.within("stopping");
  }
  required(j, "gpu_time_s", r.gpu_time);
  required(j, "wall_time_s", r.wall_time);
  const nlohmann::json tp = object("throughput");
  try {
    required(tp, "gpu", r.gpu_throughput);
    required(tp, "wall", r.wall_throughput);
  } catch (const FieldError& e) {
    throw e.within("throughput");
  }
  required(j, "host_overhead_per_step_s", r.host_overhead_per_step_s);
  required(j, "gpu_busy_fraction", r.gpu_busy_fraction);
  required(j, "warnings", r.warnings);
  const nlohmann::json sm = object("samples");
  try {
    samples(sm, "gpu_time_per_step_s", r.gpu_samples_s);
    samples(sm, "wall_time_per_step_s", r.wall_samples_s);
  } catch (const FieldError& e) {
    throw e.within("samples");
  }
  std::optional<double> total;
  required(j, "total_time_s", total);
  r.total_time_s = total.value_or(std::numeric_limits<double>::quiet_NaN());
}

/// Reads what `to_json(json&, const CudaDeviceInfo&)` writes; `compute_capability` "9.0" is split
/// into major and minor.
inline void from_json(const nlohmann::json& j, CudaDeviceInfo& g) {
  using namespace detail::read;
  g = CudaDeviceInfo{};
  required(j, "ordinal", g.ordinal);
  required(j, "name", g.name);
  required(j, "uuid", g.uuid);
  required(j, "pci_bus_id", g.pci_bus_id);
  std::string cc;
  required(j, "compute_capability", cc);
  const auto dot = cc.find('.');
  try {
    if (dot == std::string::npos || dot == 0 || dot + 1 == cc.size() ||
        cc.find_first_not_of("0123456789.") != std::string::npos || cc.find('.', dot + 1) != std::string::npos)
      throw std::invalid_argument(cc);
    g.compute_capability_major = std::stoi(cc.substr(0, dot));
    g.compute_capability_minor = std::stoi(cc.substr(dot + 1));
  } catch (const std::exception&) {
    throw FieldError("compute_capability", "\"" + cc + "\" is not MAJOR.MINOR");
  }
  required(j, "multiprocessors", g.multiprocessors);
  required(j, "total_memory_bytes", g.total_memory_bytes);
  required(j, "l2_cache_bytes", g.l2_cache_bytes);
  required(j, "persisting_l2_max_bytes", g.persisting_l2_max_bytes);
  required(j, "sm_clock_max_mhz", g.sm_clock_max_mhz);
  required(j, "memory_clock_max_mhz", g.memory_clock_max_mhz);
  required(j, "memory_bus_width_bits", g.memory_bus_width_bits);
  required(j, "shared_memory_per_block_optin_bytes", g.shared_memory_per_block_optin_bytes);
  required(j, "max_threads_per_multiprocessor", g.max_threads_per_multiprocessor);
  required(j, "ecc_enabled", g.ecc_enabled);
  required(j, "integrated", g.integrated);
}

/// Reads what `to_json(json&, const CudaInfo&)` writes.
inline void from_json(const nlohmann::json& j, CudaInfo& c) {
  using namespace detail::read;
  c = CudaInfo{};
  required(j, "runtime_version", c.runtime_version);
  required(j, "driver_version", c.driver_version);
  required(j, "device_count", c.device_count);
  required(j, "error", c.error);
  required(j, "devices", c.devices);
}

/// Reads what `to_json(json&, const Environment&)` writes. The host part's sections must be
/// present; inside them the host is read leniently (gauge/report/host_json.hpp: a missing datum is
/// "unknown"); the rest strictly.
inline void from_json(const nlohmann::json& j, Environment& e) {
  using namespace detail::read;
  e = Environment{};
  required(j, "gauge_version", e.gauge_version);
  present(j, "host", {"cpu", "memory", "numa_nodes", "os", "virtualization", "notes"});
  required(j, "host", e.host);
  present(j, "compiler", {"id", "version", "cuda_compiler", "cuda_compiler_version", "standard_library", "cplusplus",
                          "ndebug", "optimized"});
  required(j, "compiler", e.compiler);
  nlohmann::json vars;
  required(j, "environment_variables", vars);
  if (!vars.is_object()) throw FieldError("environment_variables", "expected an object, got " + describe_type(vars));
  for (auto it = vars.begin(); it != vars.end(); ++it) {
    std::optional<std::string> v;
    try {
      value(*it, v);
    } catch (const FieldError& err) {
      throw err.within(it.key()).within("environment_variables");
    }
    e.environment_variables.emplace_back(it.key(), v);
  }
  required(j, "cuda", e.cuda);
  required(j, "warnings", e.warnings);
}

/// Reads a whole report document. Checks, in order: a JSON object; `schema` is
/// "gauge.report"; `schema_version` is semantic and its major version is
/// `supported_report_major()`; then every required key (see from_json of each type).
///
/// \param doc the parsed document.
/// \param source a name for messages (the file's path).
/// \throws ReportError with one line: "<source>: <what is wrong>", e.g.
///   "r.json: not a gauge report: \"schema\" is \"x\", expected \"gauge.report\"",
///   "r.json: schema_version 2.0.0 is newer than this gauge reads (major version 1); ...",
///   "r.json: experiments[0].gpu_time_s: missing required key \"p50\"".
inline StoredReport report_from_json(nlohmann::json doc, const std::string& source) {
  using namespace detail::read;
  auto fail = [&](const std::string& what) -> ReportError { return ReportError(source + ": " + what); };
  if (!doc.is_object()) throw fail("not a gauge report: the top level is " + describe_type(doc) + ", expected an object");
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
  const auto version = doc.find("schema_version");
  if (version == doc.end()) throw fail("missing required key \"schema_version\"");
  if (!version->is_string()) throw fail("schema_version: expected a string, got " + describe_type(*version));
  report.schema_version = version->get<std::string>();
  SchemaVersion v;
  try {
    v = parse_schema_version(report.schema_version);
  } catch (const ReportError& e) {
    throw fail(e.what());
  }
  const int supported = supported_report_major();
  if (v.major > supported)
    throw fail("schema_version " + report.schema_version + " is newer than this gauge (" + version_string +
               ") reads: it reads major version " + std::to_string(supported) + " (" + report_schema_version +
               " and later minor versions); update gauge to read this report");
  if (v.major < supported)
    throw fail("schema_version " + report.schema_version + " is an older major version than this gauge (" +
               version_string + ") reads (major version " + std::to_string(supported) + ")");
  try {
    required(doc, "gauge_version", report.gauge_version);
    required(doc, "created_utc", report.created_utc);
    required(doc, "environment", report.environment);
    const auto experiments = doc.find("experiments");
    if (experiments == doc.end()) throw FieldError("", "missing required key \"experiments\"");
    if (!experiments->is_array()) throw FieldError("experiments", "expected an array, got " + describe_type(*experiments));
    for (std::size_t i = 0; i < experiments->size(); ++i) {
      const auto& e = (*experiments)[i];
      Result r;
      try {
        value(e, r);
      } catch (const FieldError& err) {
        throw err.within("[" + std::to_string(i) + "]").within("experiments");
      }
      report.results.push_back(std::move(r));
    }
  } catch (const FieldError& e) {
    throw fail(e.what());
  }
  report.document = std::move(doc);
  return report;
}

/// Parses a report from its JSON text (strict JSON: NaN and Infinity are rejected).
/// \param text the report's text.
/// \param source a name for messages (e.g. the file's path).
/// \throws ReportError "<source>: invalid JSON at line L, column C: <what the parser saw>" for text
///   that is not JSON (a truncated file ends with "unexpected end of input"), else as
///   report_from_json.
inline StoredReport parse_report(const std::string& text, const std::string& source = "<report>") {
  nlohmann::json doc;
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw ReportError(source + ": invalid JSON: the file is empty");
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // nlohmann: "[json.exception.parse_error.101] parse error at line 3, column 5: syntax error ..."
    std::string what = e.what();
    const std::string marker = "parse error ";
    const auto at = what.find(marker);
    if (at != std::string::npos) what = what.substr(at + marker.size());
    for (char& ch : what)
      if (ch == '\n' || ch == '\r') ch = ' ';
    throw ReportError(source + ": invalid JSON " + what + " (byte " + std::to_string(e.byte) + ")");
  }
  return report_from_json(std::move(doc), source);
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
