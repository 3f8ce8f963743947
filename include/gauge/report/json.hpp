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

/// The whole report document: {"schema", "schema_version", "gauge_version", "created_utc",
/// "environment", "experiments", "timers", "skipped", "ranks", "interleaved"} (see
/// gauge/report/fields.hpp). `ranks` null: one process; each of `interleaved`'s records names
/// its two results by their index in `results`.
inline nlohmann::json report_json(const Environment& env, const std::vector<Result>& results,
                                  const std::vector<TimerSummary>& timers, const std::vector<SkippedPoint>& skipped,
                                  const std::optional<RanksRecord>& ranks,
                                  const std::vector<InterleavedRecord>& interleaved, const std::string& created_utc) {
  return serial::encode_object(serial::ReportView{report_schema_name, report_schema_version, version_string,
                                                  created_utc, env, results, timers, skipped, ranks, interleaved});
}

/// The whole report document of a run over many ranks: {"schema", "schema_version",
/// "gauge_version", "created_utc", "environment", "experiments", "timers", "skipped", "ranks",
/// "interleaved": []} (see gauge/report/fields.hpp; gauge/mpi.hpp writes it on rank 0). `ranks`
/// null: one process.
inline nlohmann::json report_json(const Environment& env, const std::vector<Result>& results,
                                  const std::vector<TimerSummary>& timers, const std::vector<SkippedPoint>& skipped,
                                  const std::optional<RanksRecord>& ranks, const std::string& created_utc) {
  return report_json(env, results, timers, skipped, ranks, std::vector<InterleavedRecord>{}, created_utc);
}

/// The whole report document: {"schema", "schema_version", "gauge_version", "created_utc",
/// "environment", "experiments", "timers", "skipped", "ranks": null} (see gauge/report/fields.hpp).
/// \param skipped the points of a sweep that were skipped (gauge/suite: `Point::skip`).
/// \param created_utc ISO 8601 UTC creation time (now by default).
inline nlohmann::json report_json(const Environment& env, const std::vector<Result>& results,
                                  const std::vector<TimerSummary>& timers, const std::vector<SkippedPoint>& skipped,
                                  const std::string& created_utc = utc_timestamp()) {
  static const std::optional<RanksRecord> one_process;
  return report_json(env, results, timers, skipped, one_process, created_utc);
}

/// The whole report document with no skipped points (`skipped` is an empty list).
inline nlohmann::json report_json(const Environment& env, const std::vector<Result>& results,
                                  const std::vector<TimerSummary>& timers,
                                  const std::string& created_utc = utc_timestamp()) {
  return report_json(env, results, timers, std::vector<SkippedPoint>{}, created_utc);
}

/// The whole report document without Timer summaries (`timers` is an empty list).
inline nlohmann::json report_json(const Environment& env, const std::vector<Result>& results,
                                  const std::string& created_utc = utc_timestamp()) {
  return report_json(env, results, std::vector<TimerSummary>{}, created_utc);
}

}  // namespace detail

}  // namespace gauge
