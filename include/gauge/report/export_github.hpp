#pragma once
/// \file gauge/report/export_github.hpp
/// Export format `github_benchmark`: the JSON that github-action-benchmark reads with
/// `tool: 'customSmallerIsBetter'` (https://github.com/benchmark-action/github-action-benchmark,
/// "Examples" of custom benchmarks), so that the action charts gauge's medians per commit on
/// GitHub Pages and alerts on a regression. One header and one line in gauge/report/formats.hpp.

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "gauge/core/error.hpp"
#include "gauge/core/format.hpp"
#include "gauge/core/result.hpp"
#include "gauge/detail/fmt.hpp"
#include "gauge/report/dump.hpp"
#include "gauge/report/export.hpp"
#include "gauge/report/export_format.hpp"
#include "gauge/report/export_rows.hpp"
#include "gauge/report/read.hpp"

namespace gauge {
namespace formats {
/// Results as github-action-benchmark's custom "smaller is better" JSON: an array of
/// `{"name", "unit", "value", "range", "extra"}`, one entry per experiment.
///
/// - **name**: the experiment's name and its dimensions in key order, "gemm/K:8192/M:8192/dtype:bf16"
///   (the Google Benchmark export's form), plus "/repetition:<i>" for a result of the suite
///   runner's `--repetitions N` (N > 1).
/// - **value**: gauge's median time per step (`gpu_time_s.p50`: GPU time from CUDA events, or real
///   time on the host backend; `wall_time_s.p50` with `options.metric == "wall"`) in
///   `options.time_unit` ("ns", "us", "ms" or "s"; **unit** says which).
/// - **range**: "± h", h the larger distance from the median to a bound of its confidence interval
///   (`median_ci`, distribution-free, widened for the stream effect), in the same unit; absent
///   without an interval, or with one that has a negative bound or a half-width beyond a double.
///   A name already written gets "/occurrence:<k>" (k = 2, 3, ...).
/// - **extra**: the interval itself, its level, n and the clock, e.g.
///   "median 1.5 ms, 95 % interval [1.4 ms, 1.6 ms], n = 100, GPU time".
/// - **Left out**: failed experiments, those without a finite median, and Timers. Throughput
///   (bigger is better) is not written: the action takes one direction per file.
///
/// \throws ConfigError for a metric other than "gpu" or "wall", an unknown time unit, or a median
/// that is not a finite number in that unit (1e300 s in ns), naming the experiment.
inline nlohmann::json github_benchmark_json(const std::vector<Result>& results, const ExportOptions& options = {}) {
  if (options.metric != "gpu" && options.metric != "wall")
    throw ConfigError("github_benchmark_json: metric must be \"gpu\" or \"wall\", got \"" + options.metric + "\"");
  const double unit = detail::export_::seconds_per_unit(options.time_unit);
  const bool gpu = options.metric == "gpu";
  nlohmann::json doc = nlohmann::json::array();
  std::set<std::string> taken;
  for (const Result& r : results) {
    if (r.status == Status::failed) continue;
    const Summary& time = gpu ? r.gpu_time : r.wall_time;
    if (!time.p50 || !std::isfinite(*time.p50)) continue;
    const std::string name = detail::export_::unique_benchmark_name(r, taken);
    const double value = *time.p50 / unit;
    if (!std::isfinite(value))
      throw ConfigError(fmt::format("github_benchmark_json: the median of {} ({:g} s) is not a finite number in {}",
                                    name, *time.p50, options.time_unit));
    nlohmann::json entry = {{"name", name}, {"unit", options.time_unit}, {"value", value}};
    std::string extra = "median " + format_time(*time.p50);
    const auto& ci = time.median_ci;
    const double half = ci ? std::max(*time.p50 - ci->low, ci->high - *time.p50) / unit : 0;
    if (ci && ci->low >= 0 && std::isfinite(half)) {
      entry["range"] = fmt::format("± {:.6g}", half);
      extra += fmt::format(", {:g} % interval [{}, {}]", 100 * ci->level, format_time(ci->low), format_time(ci->high));
    }
    extra += ", n = " + std::to_string(time.n) + ", " + (gpu ? r.time_label : std::string("wall time"));
    entry["extra"] = extra;
    doc.push_back(std::move(entry));
  }
  return doc;
}
}  // namespace formats

namespace detail::export_ {
/// The `github_benchmark` export format: github_benchmark_json of a stored report, indented.
inline std::string write_github_benchmark(const StoredReport& report, const ExportOptions& options) {
  return detail::json_dump(formats::github_benchmark_json(report.results, options), 2) + "\n";
}
}  // namespace detail::export_

}  // namespace gauge

GAUGE_REGISTER_EXPORT_FORMAT(github_benchmark, "github-action-benchmark JSON (tool: customSmallerIsBetter)",
                             ::gauge::detail::export_::write_github_benchmark)
