#pragma once
/// \file gauge/report/export_bencher.hpp
/// Export format `bencher`: Bencher Metric Format (BMF) JSON, what `bencher run --adapter json`
/// reads (https://bencher.dev/docs/reference/bencher-metric-format/), so that Bencher tracks gauge
/// results over time and alerts on them with gauge's own median and its confidence interval.

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstddef>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "gauge/core/error.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/summary.hpp"
#include "gauge/report/dump.hpp"
#include "gauge/report/export_format.hpp"
#include "gauge/report/export_rows.hpp"
#include "gauge/report/read.hpp"

namespace gauge {

namespace detail::export_ {

/// Adds {"value", "lower_value", "upper_value"} under `measure` of `benchmark`: the value, and each
/// bound only where it is finite and >= 0. Nothing when the value is not finite or negative (NaN
/// stands for absent).
inline void add_bmf_measure(nlohmann::json& benchmark, const std::string& measure, double value, double lower,
                            double upper) {
  // A time or a rate is never negative: a report that says so (edited by hand) exports nothing
  // for that measure rather than a negative number.
  if (!std::isfinite(value) || value < 0) return;
  if (lower < 0) lower = std::numeric_limits<double>::quiet_NaN();
  if (upper < 0) upper = std::numeric_limits<double>::quiet_NaN();
  nlohmann::json m = {{"value", value}};
  if (std::isfinite(lower)) m["lower_value"] = lower;
  if (std::isfinite(upper)) m["upper_value"] = upper;
  benchmark[measure] = m;
}

/// `work` / `seconds` where `seconds` is a positive finite time; NaN otherwise.
inline double bmf_rate(double work, double seconds) {
  if (!(seconds > 0) || !std::isfinite(seconds)) return std::numeric_limits<double>::quiet_NaN();
  return work / seconds;
}

}  // namespace detail::export_

namespace formats {
/// Results as Bencher Metric Format JSON: `{"<benchmark>": {"<measure>": {"value": v,
/// "lower_value": lo, "upper_value": hi}, ...}, ...}`.
///
/// - **Benchmark name**: the experiment's name and its dimensions in key order,
///   "gemm/K:8192/M:8192/dtype:bf16" (the Google Benchmark export's form). A result that carries
///   a `repetition` (the suite runner's `--repetitions N`, N > 1) adds "/repetition:<i>" (0-based),
///   so each repetition is a benchmark of its own; a later result whose name is still taken gets
///   "/occurrence:<k>" (k = 2, 3, ...). Bencher limits names to 1024 characters; gauge does not
///   shorten them.
/// - **`latency`** (Bencher's built-in measure, nanoseconds): `value` is gauge's median time per
///   step (`gpu_time_s.p50`: GPU time from CUDA events, or real time on the host backend, as the
///   result's `time_label` says; `wall_time_s.p50` with `options.metric == "wall"`), `lower_value`
///   and `upper_value` the bounds of the median's confidence interval (`gpu_time_s.median_ci`, at
///   the result's confidence level, distribution-free and widened for the stream effect), × 1e9.
/// - **Throughput**, where the work is declared: `flop-per-second` (FLOP/s), `bytes-per-second`
///   (bytes/s) and `<item>-per-second` for every item (items/s): `value` = work per step / the
///   median, `lower_value` = work / the interval's *high* time, `upper_value` = work / its *low*
///   time (a longer time is a lower rate). Measures that do not exist yet are created by Bencher
///   under that name.
/// - **`cpu-time`** (nanoseconds), where the result has process CPU time per step (host timing:
///   `cpu_time_s`, all threads; Google Benchmark's "CPU"): its median, with the bounds of its
///   median's confidence interval where it has one. Not affected by `options.metric`.
/// - **Left out**: failed experiments (`status: failed`), experiments without a finite median
///   (no samples), and the report's Timers. A bound that is absent or not finite (no interval; a
///   rate from a zero time) is left out of its measure (both are optional in BMF); no number
///   written is ever NaN or infinite.
///
/// \param results the results (e.g. StoredReport::results); \param options `metric` "gpu"
/// (default) or "wall". \returns the document (an empty object when nothing is exported).
/// \throws ConfigError for another metric.
inline nlohmann::json bencher_metric_format(const std::vector<Result>& results, const ExportOptions& options = {}) {
  using namespace detail::export_;
  if (options.metric != "gpu" && options.metric != "wall")
    throw ConfigError("bencher_metric_format: metric must be \"gpu\" or \"wall\", got \"" + options.metric + "\"");
  const bool gpu = options.metric == "gpu";
  constexpr double ns_per_s = 1e9;
  nlohmann::json doc = nlohmann::json::object();
  std::set<std::string> taken;
  for (const Result& r : results) {
    if (r.status == Status::failed) continue;
    const Summary& time = gpu ? r.gpu_time : r.wall_time;
    if (!time.p50 || !std::isfinite(*time.p50)) continue;
    // Absent figures are NaN here, and NaN is never written (add_bmf_measure).
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double median = *time.p50;
    const double low = time.median_ci ? time.median_ci->low : nan;
    const double high = time.median_ci ? time.median_ci->high : nan;
    nlohmann::json benchmark = nlohmann::json::object();
    add_bmf_measure(benchmark, "latency", median * ns_per_s, low * ns_per_s, high * ns_per_s);
    auto rate = [&](const std::string& measure, double work) {
      add_bmf_measure(benchmark, measure, bmf_rate(work, median), bmf_rate(work, high), bmf_rate(work, low));
    };
    // Process CPU time per step (host timing, cpu_time_s), with its median's interval.
    if (r.cpu_time.p50 && std::isfinite(*r.cpu_time.p50))
      add_bmf_measure(benchmark, "cpu-time", *r.cpu_time.p50 * ns_per_s,
                      r.cpu_time.median_ci ? r.cpu_time.median_ci->low * ns_per_s : nan,
                      r.cpu_time.median_ci ? r.cpu_time.median_ci->high * ns_per_s : nan);
    if (r.work.flop) rate("flop-per-second", *r.work.flop);
    if (r.work.bytes) rate("bytes-per-second", *r.work.bytes);
    for (const auto& [item, count] : r.work.items) rate(item + "-per-second", count);

    if (benchmark.empty()) continue;  // nothing exportable (a negative time in an edited report)
    doc[unique_benchmark_name(r, taken)] = std::move(benchmark);
  }
  return doc;
}
}  // namespace formats

namespace detail::export_ {
/// The `bencher` export format: bencher_metric_format of a stored report, indented, one newline.
inline std::string write_bencher(const StoredReport& report, const ExportOptions& options) {
  return detail::json_dump(formats::bencher_metric_format(report.results, options), 2) + "\n";
}
}  // namespace detail::export_

}  // namespace gauge

GAUGE_REGISTER_EXPORT_FORMAT(bencher, "Bencher Metric Format JSON (bencher run --adapter json)",
                             ::gauge::detail::export_::write_bencher)
