#pragma once
/// \file gauge/report/json.hpp
/// JSON of gauge's types (nlohmann/json's `to_json`, found by ADL, from the descriptions in
/// gauge/report/fields.hpp) and the whole report document; the atomic report writer is
/// gauge/report/atomic_file.hpp, included here. Units:
/// seconds for time (keys end in `_s`), bytes, MHz. Non-finite numbers and absent values are
/// written as `null`, never NaN.

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include "gauge/core/dimensions.hpp"
#include "gauge/core/environment.hpp"
#include "gauge/core/error.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/timer_summary.hpp"
#include "gauge/report/atomic_file.hpp"
#include "gauge/report/document.hpp"
#include "gauge/report/fields.hpp"
#include "gauge/report/serial.hpp"
#include "gauge/version.hpp"

namespace gauge {

namespace detail {
/// A finite double as a JSON number, anything else as null.
inline nlohmann::json number_or_null(double v) { return serial::encode(v); }
/// An optional finite double as a JSON number, else null.
inline nlohmann::json number_or_null(const std::optional<double>& v) { return serial::encode(v); }

/// Dimension value → JSON integer, number, string or bool. (DimensionValue is a std::variant,
/// so ADL would not find a `to_json` for it in this namespace: call this function.)
inline nlohmann::json dimension_json(const DimensionValue& v) { return serial::encode(v); }

/// The current UTC time as ISO 8601, e.g. "2026-11-30T13:45:00Z".
inline std::string utc_timestamp() {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

/// The report document `doc` as JSON: {"schema", "schema_version", "gauge_version", "created_utc",
/// "environment", "experiments", "timers", "skipped", "ranks", "interleaved"} (see
/// gauge/report/fields.hpp), with this version's schema, schema_version and gauge_version, and
/// `doc.created_utc` (now, where it is empty). The one builder of a report's JSON: gauge::Report,
/// the suite runner, an MPI session and the `json` export format all write through it. `ranks`
/// null: one process; each of `interleaved`'s records names its two results by their index in
/// `results`.
inline nlohmann::json report_json(const StoredReport& doc) {
  return serial::encode_object(serial::ReportView{report_schema_name, report_schema_version, version_string,
                                                  doc.created_utc.empty() ? utc_timestamp() : doc.created_utc,
                                                  doc.environment, doc.results, doc.timers, doc.skipped, doc.ranks,
                                                  doc.interleaved, doc.axes});
}

}  // namespace detail

}  // namespace gauge
