#pragma once
/// \file gauge/report/export.hpp
/// Exports of results to formats other tools read:
/// - Google Benchmark's JSON (`context` + `benchmarks`), so its `compare.py` (Debian package
///   `libbenchmark-tools`) and dashboards that ingest it read gauge results;
/// - CSV (RFC 4180) with one row per experiment and per Timer region, for spreadsheets and pandas;
/// - a Markdown table of the same rows, for pull requests and READMEs.

#include "gauge/detail/fmt.hpp"
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "gauge/report/dump.hpp"
#include "gauge/core/dimensions.hpp"
#include "gauge/core/environment.hpp"
#include "gauge/core/error.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/skipped.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/report/compare.hpp"
#include "gauge/report/console.hpp"
#include "gauge/report/escape.hpp"
#include "gauge/report/export_format.hpp"
#include "gauge/report/export_peaks.hpp"
#include "gauge/report/export_rows.hpp"
#include "gauge/report/read.hpp"
#include "gauge/version.hpp"

namespace gauge {
namespace formats {
/// How results map onto Google Benchmark's JSON.
struct GoogleBenchmarkOptions {
  /// Which time becomes `real_time`: GPU time per step (default, like Google Benchmark's
  /// `UseManualTime()` with CUDA events) or wall time per step.
  Metric metric = Metric::gpu_time;
  /// `time_unit` of every entry: "ns" (Google Benchmark's default), "us", "ms" or "s". One unit
  /// for all, because compare.py drops a benchmark whose unit differs between its two inputs.
  std::string time_unit = "ns";
  /// true: the samples as Google Benchmark's repetitions (`--benchmark_repetitions`): at most
  /// `max_repetitions` `run_type: "iteration"` entries, each the mean time per step of a group of
  /// consecutive samples (one sample per entry when there are no more samples than that;
  /// `iterations` = steps behind the entry; compare.py runs its U test on these entries), then
  /// the aggregates:
  /// - `_median`: gauge's own median time per step (the result's `gpu_time_s.p50`, or
  ///   `wall_time_s.p50` for wall time), the number gauge's report, console and comparison use.
  ///   Not the median of the entries: an entry is the mean of a group, and the median of group
  ///   means can sit far from the median of the samples (8 % on a noisy CPU);
  /// - `_mean`: gauge's own mean time per step (`gpu_time_s.mean` / `wall_time_s.mean`: over
  ///   every sample, with the same weight each);
  /// - `_stddev` and `_cv`: the sample standard deviation (n − 1) of the entries and that over
  ///   their mean, as Google Benchmark computes them over its repetitions (the spread between
  ///   entries, not between samples).
  /// Where the result's summary lacks a figure (a hand-made report), it is computed from the
  /// stored samples. false: one entry per experiment whose time is gauge's median.
  bool repetitions = true;
  /// Most repetition entries per experiment. Google Benchmark writes one entry per repetition,
  /// each carrying the full name: one per stored sample (up to 100,000) turned a 526 KB report
  /// into 4 GB of JSON.
  std::size_t max_repetitions = 100;
};
}  // namespace formats

namespace detail::export_ {

/// Seconds per unit of a Google Benchmark time unit; ConfigError for another unit.
inline double seconds_per_unit(const std::string& unit) {
  if (unit == "ns") return 1e-9;
  if (unit == "us") return 1e-6;
  if (unit == "ms") return 1e-3;
  if (unit == "s") return 1.0;
  throw ConfigError("google_benchmark_json: time_unit must be ns, us, ms or s, got \"" + unit + "\"");
}

/// Adds the throughput counters for `seconds` per step: bytes_per_second, items_per_second (the
/// first item), flop_per_second, and <item>_per_second for every item; with the result's peaks,
/// `pct_of_peak_<quantity>_<basis>` for every peak (100 × the rate at `seconds` / the peak;
/// gauge/report/export_peaks.hpp).
inline void add_counters(nlohmann::json& b, const Work& w, double seconds, const records::PeaksRecord* peaks = nullptr) {
  if (!(seconds > 0) || !std::isfinite(seconds)) return;
  if (w.bytes) b["bytes_per_second"] = *w.bytes / seconds;
  if (w.flop) b["flop_per_second"] = *w.flop / seconds;
  bool first = true;
  for (const auto& [item, count] : w.items) {
    if (first) b["items_per_second"] = count / seconds;
    first = false;
    b[item + "_per_second"] = count / seconds;
  }
  if (peaks)
    for (const auto& p : pct_of_peak_at(*peaks, w, seconds)) b[p.name] = p.pct;
}

/// The roofline of a result on a Google Benchmark entry: the counters
/// `arithmetic_intensity_flop_per_byte` and `ridge_point_flop_per_byte`, and Google Benchmark's
/// `label` "roofline: memory-bound (theoretical peaks)". Nothing without a roofline.
inline void add_roofline(nlohmann::json& b, const records::PeaksRecord& peaks) {
  if (!peaks.roofline) return;
  const records::RooflineRecord& r = *peaks.roofline;
  b["arithmetic_intensity_flop_per_byte"] = r.arithmetic_intensity;
  b["ridge_point_flop_per_byte"] = r.ridge_point;
  b["label"] = "roofline: " + r.bound + "-bound (" + r.basis + " peaks)";
}

/// A CSV field (RFC 4180): quoted when it holds a comma, quote, CR or LF, quotes doubled; other
/// control characters (NUL) made visible (detail::escape::csv_text).
inline std::string csv_field(const std::string& raw) {
  const std::string s = detail::escape::csv_text(raw);
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

/// A number for CSV: round-trip precision, empty when absent or not finite.
inline std::string csv_number(const std::optional<double>& v) {
  if (!v || !std::isfinite(*v)) return "";
  return format_number(*v);
}
/// The longest benchmark name (with its dimensions) google_benchmark_json writes, bytes.
inline constexpr std::size_t max_gbench_name_bytes = 65536;
}  // namespace detail::export_

namespace formats {
/// Results as Google Benchmark JSON (the format of `--benchmark_out_format=json`, library 1.7):
/// `{"context": {...}, "benchmarks": [...]}`. Each experiment with samples becomes the entries
/// described at GoogleBenchmarkOptions::repetitions, named
/// "<name>/<dimension>:<value>/..." (a result of the suite runner's `--repetitions` adds
/// "/repetition:<i>", a repeated name "/occurrence:<k>": detail::export_::unique_benchmark_name, as
/// the Bencher export), `family_index` one per experiment name and `per_family_instance_index` one
/// per entry name of it (GbenchFamilies); `real_time` is the chosen time per step in `time_unit`;
/// `cpu_time` is the process CPU time where the result has it (host timing, `cpu_time_s`: the
/// single entry and the median take its median; repetitions and the other aggregates scale their
/// `real_time` by the result's median CPU time / median real time, as the per-round CPU samples do
/// not split into the per-step groups) and repeats `real_time` elsewhere (GPU results: tools
/// require the key);
/// `iterations` is the steps behind the entry (for an aggregate, the number of entries, as Google
/// Benchmark writes it); counters `flop_per_second`, `bytes_per_second`, `items_per_second` and
/// `<item>_per_second` are work / that time (on repetitions and the median), and with the
/// result's peaks (gauge/report/export_peaks.hpp) the user counters `pct_of_peak_<quantity>_<basis>`
/// (100 × that rate / the peak, one per known peak: `pct_of_peak_bf16_dense_theoretical`, ...) and,
/// with FLOP and bytes declared, `arithmetic_intensity_flop_per_byte`, `ridge_point_flop_per_byte`
/// and the `label` "roofline: compute-bound (theoretical peaks)"; `context.gauge_peak_counters`
/// says so. A result without peaks (host backend) has none of them. The `_median`
/// aggregate (and the single entry without repetitions) is gauge's own median of the result,
/// `gpu_time_s.p50` (per step, in `time_unit`): what compare.py and dashboards read as the
/// median is the number gauge reports.
/// A failed experiment is one entry with Google Benchmark's `error_occurred: true` and
/// `error_message` (its error), `iterations` 0 and times 0, as Google Benchmark writes a
/// benchmark that called `SkipWithError`. A point the suite runner skipped (`skipped`,
/// Point::skip) and an experiment that did not fail but has no samples are each one entry with
/// `skipped: true` and `skip_message` (the reason; "no samples"), `iterations` 0 and times 0, as
/// Google Benchmark (1.8 and later) writes a benchmark that called `SkipWithMessage`; skipped
/// points come after the results, in the report's order. (compare.py reads neither key: it
/// compares such an entry's zero times, as it does Google Benchmark's own.) `context` carries
/// Google Benchmark's keys that gauge knows (date, host_name, num_cpus, mhz_per_cpu,
/// library_build_type, and cpu_scaling_enabled only where the CPU governor is known) and
/// gauge's (gauge_version, gpu, cuda_driver_version, cuda_runtime_version, time_source naming
/// the results' own clocks, and gauge_peak_counters where a result has peaks).
///
/// \param env the environment; \param results the results; \param created_utc the date written;
/// \param skipped the points a suite skipped (a report's `skipped`).
/// \throws ConfigError for a time unit other than ns, us, ms, s, max_repetitions = 0, or a name
/// (with its dimensions) longer than max_gbench_name_bytes.
inline nlohmann::json google_benchmark_json(const Environment& env, const std::vector<Result>& results,
                                            const GoogleBenchmarkOptions& options = {},
                                            const std::string& created_utc = "",
                                            const std::vector<records::SkippedPoint>& skipped = {}) {
  using namespace detail::export_;
  const double unit = seconds_per_unit(options.time_unit);
  if (options.max_repetitions == 0) throw ConfigError("google_benchmark_json: max_repetitions must be >= 1");
  const bool gpu = options.metric == Metric::gpu_time;
  nlohmann::json context = {
      {"date", created_utc},
      {"host_name", env.host.os.hostname.value_or("")},
      {"executable", "gauge report"},
      {"num_cpus", env.host.cpu.logical_cpus.value_or(0)},
      {"mhz_per_cpu", static_cast<long>(std::lround(env.host.cpu.max_frequency_mhz.value_or(0)))},
      {"library_build_type", env.compiler.optimized ? "release" : "debug"},
      {"gauge_version", env.gauge_version.empty() ? std::string(version_string) : env.gauge_version},
      {"gauge_schema_version", report_schema_version},
      {"gpu", env.cuda.devices.empty() ? std::string("none") : env.cuda.devices[0].name},
      {"cuda_driver_version", env.cuda.driver_version ? nlohmann::json(*env.cuda.driver_version) : nlohmann::json(nullptr)},
      {"cuda_runtime_version", env.cuda.runtime_version ? nlohmann::json(*env.cuda.runtime_version) : nlohmann::json(nullptr)},
      {"time_source", detail::export_::gbench_time_source(results, gpu)},
  };
  // Unknown governor: no claim either way (Google Benchmark itself omits nothing, but writing
  // `false` would say scaling is off when nobody looked).
  if (env.host.cpu.governor) context["cpu_scaling_enabled"] = !env.host.governor_is_performance();
  nlohmann::json benchmarks = nlohmann::json::array();
  detail::export_::GbenchFamilies families;
  std::size_t family = 0, instance = 0;  // the entry's family_index and per_family_instance_index
  std::set<std::string> taken;  // a suite's repetitions and repeated experiments get names of their own
  // Google Benchmark's entry of a skipped benchmark (State::SkipWithMessage): no iterations, no time.
  auto skipped_entry = [&](const std::string& experiment, const std::string& name, const std::string& why) {
    std::tie(family, instance) = families.of(experiment, name);
    nlohmann::json b = {{"name", name},          {"family_index", family}, {"per_family_instance_index", instance},
                        {"run_name", name},      {"run_type", "iteration"}, {"repetitions", 1},
                        {"repetition_index", 0}, {"threads", 1},            {"skipped", true},
                        {"skip_message", why},   {"iterations", 0},         {"real_time", 0.0},
                        {"cpu_time", 0.0},       {"time_unit", options.time_unit}};
    benchmarks.push_back(std::move(b));
  };
  for (const auto& r : results) {
    const std::vector<double> samples = detail::comparing::finite(gpu ? r.gpu_samples_s : r.wall_samples_s);
    const std::string name = detail::export_::unique_benchmark_name(r, taken);
    std::tie(family, instance) = families.of(r.name, name);
    // Google Benchmark's JSON repeats the name in every entry (up to max_repetitions + 4 of them):
    // a name of megabytes would make gigabytes. Refused, naming it, before anything is built.
    if (name.size() > detail::export_::max_gbench_name_bytes)
      throw ConfigError(fmt::format("google_benchmark_json: the name of experiment {} is {} bytes (it begins \"{}...\"): "
                                    "Google Benchmark JSON repeats a name in every entry, so names above {} bytes are "
                                    "refused", static_cast<std::size_t>(&r - results.data()), name.size(), name.substr(0, 40),
                                    detail::export_::max_gbench_name_bytes));
    // Process CPU time per unit of the entry's time (host timing), else 1: cpu_time = real_time.
    const Summary& timed = gpu ? r.gpu_time : r.wall_time;
    // Only a finite, non-negative CPU time and ratio: never a null (non-finite) or negative cpu_time.
    const double ratio = r.cpu_time.p50 && timed.p50 && *timed.p50 > 0 ? *r.cpu_time.p50 / *timed.p50 : -1.0;
    const bool has_cpu = r.cpu_time.p50 && std::isfinite(*r.cpu_time.p50) && *r.cpu_time.p50 >= 0 &&
                         std::isfinite(ratio) && ratio >= 0;
    const double cpu_per_real = has_cpu ? ratio : 1.0;
    auto entry = [&](const std::string& entry_name, const char* run_type, std::size_t repetitions,
                     std::size_t iterations, double seconds) {
      nlohmann::json b = {{"name", entry_name},
                          {"family_index", family},
                          {"per_family_instance_index", instance},
                          {"run_name", name},
                          {"run_type", run_type},
                          {"repetitions", repetitions},
                          {"threads", 1},
                          {"iterations", iterations},
                          {"real_time", seconds / unit},
                          {"cpu_time", std::isfinite(seconds * cpu_per_real) ? seconds * cpu_per_real / unit : seconds / unit},
                          {"time_unit", options.time_unit}};
      return b;
    };
    if (r.status == Status::failed) {
      nlohmann::json b = entry(name, "iteration", 1, 0, 0.0);
      b["repetition_index"] = 0;
      b["error_occurred"] = true;
      b["error_message"] = r.error.value_or("failed");
      benchmarks.push_back(b);
      continue;
    }
    if (samples.empty()) {
      skipped_entry(r.name, name, "no samples");
      continue;
    }
    const std::size_t steps_per_sample = gpu ? std::max<std::size_t>(1, r.sampling.steps_per_sample)
                                              : (r.sampling.wall_rounds ? std::max<std::size_t>(1, r.sampling.wall_steps / r.sampling.wall_rounds) : 1);
    // gauge's own median and mean of the result (its summary); from the stored samples only
    // where the summary lacks them (a hand-made report).
    const Summary& own = gpu ? r.gpu_time : r.wall_time;
    std::optional<Summary> from_samples;
    auto own_or_samples = [&](std::optional<double> Summary::*figure) {
      const std::optional<double>& v = own.*figure;
      if (v && std::isfinite(*v)) return *v;
      if (!from_samples) from_samples = stats::summarize(samples);
      return *((*from_samples).*figure);
    };
    const double median_s = own_or_samples(&Summary::p50);
    if (!options.repetitions) {
      nlohmann::json b = entry(name, "iteration", 1, gpu ? r.sampling.steps : r.sampling.wall_steps, median_s);
      b["repetition_index"] = 0;
      if (has_cpu) b["cpu_time"] = *r.cpu_time.p50 / unit;
      add_counters(b, r.work, median_s, &r.peaks);
      add_roofline(b, r.peaks);
      benchmarks.push_back(b);
      continue;
    }
    // Repetitions: groups of consecutive samples, sizes differing by at most one.
    const std::size_t groups = std::min(samples.size(), options.max_repetitions);
    std::vector<double> repetition_s;
    repetition_s.reserve(groups);
    for (std::size_t g = 0; g < groups; ++g) {
      const std::size_t first = g * samples.size() / groups, last = (g + 1) * samples.size() / groups;
      double sum = 0;
      for (std::size_t i = first; i < last; ++i) sum += samples[i];
      const double mean = sum / static_cast<double>(last - first);
      repetition_s.push_back(mean);
      nlohmann::json b = entry(name, "iteration", groups, (last - first) * steps_per_sample, mean);
      b["repetition_index"] = g;
      add_counters(b, r.work, mean, &r.peaks);
      add_roofline(b, r.peaks);
      benchmarks.push_back(b);
    }
    const Summary s = stats::summarize(repetition_s);
    auto aggregate = [&](const char* which, double seconds, const char* aggregate_unit) {
      nlohmann::json b = entry(name + "_" + which, "aggregate", groups, groups, seconds);
      b["aggregate_name"] = which;
      b["aggregate_unit"] = aggregate_unit;
      if (std::string(aggregate_unit) == "percentage") {  // Google Benchmark writes the CV as a fraction
        b["real_time"] = seconds;
        b["cpu_time"] = seconds;
      }
      return b;
    };
    benchmarks.push_back(aggregate("mean", own_or_samples(&Summary::mean), "time"));
    nlohmann::json median = aggregate("median", median_s, "time");
    if (has_cpu) median["cpu_time"] = *r.cpu_time.p50 / unit;
    add_counters(median, r.work, median_s, &r.peaks);
    add_roofline(median, r.peaks);
    benchmarks.push_back(median);
    if (s.stddev) benchmarks.push_back(aggregate("stddev", *s.stddev, "time"));
    if (s.cv) benchmarks.push_back(aggregate("cv", *s.cv, "percentage"));
  }
  for (const records::SkippedPoint& p : skipped)
    skipped_entry(p.name, detail::export_::unique_name(detail::export_::benchmark_name(p.name, p.dimensions), taken), p.reason);
  // Explained wherever an entry carries one of the counters (the test the counters themselves pass).
  const auto has_peak_counter = [](const nlohmann::json& b) {
    for (const auto& kv : b.items())
      if (kv.key().rfind("pct_of_peak_", 0) == 0 || kv.key() == "arithmetic_intensity_flop_per_byte") return true;
    return false;
  };
  if (std::any_of(benchmarks.begin(), benchmarks.end(), has_peak_counter))
    context["gauge_peak_counters"] = detail::export_::gbench_peak_counters_text;
  return nlohmann::json{{"context", context}, {"benchmarks", benchmarks}};
}

/// google_benchmark_json of a report read back (its environment, results, skipped points and
/// creation time).
inline nlohmann::json google_benchmark_json(const StoredReport& report, const GoogleBenchmarkOptions& options = {}) {
  return google_benchmark_json(report.environment, report.results, options, report.created_utc, report.skipped);
}

/// Results and Timers as CSV (RFC 4180, "\n" line ends, header row first): one row per result,
/// then per Timer a row for its steps and one per region (gauge/report/export_rows.hpp: named
/// "timer:<timer>/step" and "timer:<timer>/<region>", over the Timer's rolling window). Which
/// `dim.*`, `<item>_per_s` and `pct_of_peak_*` columns there are depends on the results: read
/// the columns by name, not by position. Numbers at round-trip precision; an absent number (or
/// one that is not finite) is an empty field, never 0. Columns, in order:
/// - `name`: the experiment's name, or "timer:<timer>/step", "timer:<timer>/<region>";
/// - `dim.<key>`: one per dimension key of any result, in key order; empty where a row lacks it;
/// - `repetition`: the suite runner's round of this result with `--repetitions N` (N > 1),
///   0-based (the report's `repetition`): the N rows of one point have one name and the same
///   dimensions, and this tells them apart. Empty when the points ran once, and on Timer rows;
/// - `status` ("ok", "failed"), `backend` ("cuda", "host", ...), `device` (its name; empty on
///   Timer rows), `steps_per_sample` (k: the steps behind one time sample);
/// - the time per step, seconds, on the row's clock (`time_label`: GPU time from CUDA events, or
///   real time from the host's steady clock on the host backend): `time_n`, the number of
///   samples, each the mean time per step of `steps_per_sample` consecutive steps between one
///   pair of events or clock readings, several per measuring round (a Timer row: the steps of
///   its window); over them `time_median_s`, the median's distribution-free confidence interval
///   `time_ci_low_s`, `time_ci_high_s` (at the report's level, 95 % by default), `time_min_s`,
///   `time_p5_s`, `time_p25_s`, `time_p75_s`, `time_p95_s`, `time_p99_s`, `time_max_s`,
///   `time_mean_s`, `time_stddev_s` (n − 1);
/// - the wall time per step: `wall_n`, the number of wall-time rounds, each a pipelined round of
///   steps timed by the host clock as a whole (on a GPU up to a device-wide synchronize), divided
///   by its steps, one after each measured round of samples; `wall_median_s`, their median.
///   `wall_n` and `time_n` count different things, rounds and samples, so they differ (1365
///   samples of 70 steps against 195 rounds in one host run): neither is the other's sample size.
///   Empty on a Timer region's row (a Timer's step row: the steps of its window);
/// - the process CPU time per step (all threads; host results, empty elsewhere): `cpu_n`, one per
///   measured round (as `wall_n`), `cpu_median_s`;
/// - throughput, work per step over `time_median_s`: `flop_per_s`, `bytes_per_s`, one
///   `<item>_per_s` per item name; over `wall_median_s`: `wall_flop_per_s`, `wall_bytes_per_s` (a
///   Timer's throughput is its summed work over its summed step time); empty without that work;
/// - `warnings` (codes joined by ';'), `error` (why it failed), `kind` ("experiment",
///   "timer_step", "timer_region"), `time_label` (what `time_*` is), `share_of_step` (a region's
///   share of the step's time);
/// - the speed of light (the result's `peaks`, gauge/report/export_peaks.hpp): `peaks_status`
///   ("known" or "none"), `peaks_reason` (why none, or what is missing), `peak_dtype` (the declared
///   type, canonical), the roofline with FLOP and bytes declared: `roofline_bound` ("memory",
///   "compute", "launch"), `roofline_basis`, `arithmetic_intensity_flop_per_byte`,
///   `ridge_point_flop_per_byte`; then one `pct_of_peak_<quantity>_<basis>` column per peak any
///   row has (GPU throughput as a percent of it, e.g. `pct_of_peak_bf16_dense_theoretical`,
///   `pct_of_peak_memory_bw_measured`), then the same for the wall throughput, `wall_pct_of_peak_*`.
///   Empty where a row has no such peak (the host backend, Timer rows): never 0.
/// (Before gauge 0.2 the time and throughput columns were named `gpu_*` whatever the backend,
/// and there was no `repetition` column.)
inline std::string csv_table(const std::vector<Result>& results, const std::vector<TimerSummary>& timers = {}) {
  using detail::export_::csv_field;
  using detail::export_::csv_number;
  const auto rows = detail::export_::table_rows(results, timers);
  std::set<std::string> dims, items;
  std::map<std::tuple<int, int, std::string>, std::string> gpu_peaks, wall_peaks;  // column order → name
  for (const auto& r : rows) {
    if (r.dimensions)
      for (const auto& [k, v] : *r.dimensions) dims.insert(k);
    if (r.throughput)
      for (const auto& [k, v] : r.throughput->items_per_second) items.insert(k);
    if (r.peaks) {
      for (const auto& p : detail::export_::pct_of_peak(*r.peaks, "gpu")) gpu_peaks.emplace(p.rank, p.name);
      for (const auto& p : detail::export_::pct_of_peak(*r.peaks, "wall")) wall_peaks.emplace(p.rank, p.name);
    }
  }
  std::vector<std::string> header = {"name"};
  for (const auto& d : dims) header.push_back("dim." + d);
  for (const char* h : {"repetition", "status", "backend", "device", "steps_per_sample", "time_n", "time_median_s", "time_ci_low_s",
                        "time_ci_high_s", "time_min_s", "time_p5_s", "time_p25_s", "time_p75_s", "time_p95_s",
                        "time_p99_s", "time_max_s", "time_mean_s", "time_stddev_s", "wall_n", "wall_median_s",
                        "cpu_n", "cpu_median_s", "flop_per_s", "bytes_per_s"})
    header.push_back(h);
  const std::size_t items_at = header.size();
  for (const char* h : {"wall_flop_per_s", "wall_bytes_per_s", "warnings", "error", "kind", "time_label", "share_of_step",
                        "peaks_status", "peaks_reason", "peak_dtype", "roofline_bound", "roofline_basis",
                        "arithmetic_intensity_flop_per_byte", "ridge_point_flop_per_byte"})
    header.push_back(h);
  // "<item>_per_s", or "item.<item>_per_s" where that is another column's name (an item "bytes"):
  // unique names, so that a reader by name (csv.DictReader) never takes one for the other.
  const std::set<std::string> taken(header.begin(), header.end());
  std::vector<std::string> item_columns;
  for (const auto& i : items) item_columns.push_back((taken.count(i + "_per_s") ? "item." : "") + i + "_per_s");
  header.insert(header.begin() + static_cast<std::ptrdiff_t>(items_at), item_columns.begin(), item_columns.end());
  for (const auto& [rank, name] : gpu_peaks) header.push_back(name);
  for (const auto& [rank, name] : wall_peaks) header.push_back("wall_" + name);
  auto line = [](const std::vector<std::string>& fields) {
    std::string out;
    for (std::size_t i = 0; i < fields.size(); ++i) out += (i ? "," : "") + csv_field(fields[i]);
    return out + "\n";
  };
  const Summary none;
  const Throughput no_rate;
  std::string out = line(header);
  for (const auto& r : rows) {
    std::vector<std::string> f = {r.name};
    for (const auto& d : dims) {
      std::string value;
      if (r.dimensions && r.dimensions->count(d)) value = gauge::to_string(r.dimensions->at(d));
      f.push_back(value);
    }
    const Summary& g = r.time ? *r.time : none;
    const Summary& w = r.wall ? *r.wall : none;
    const Throughput& t = r.throughput ? *r.throughput : no_rate;
    const Throughput& wt = r.wall_throughput ? *r.wall_throughput : no_rate;
    f.push_back(r.repetition ? std::to_string(*r.repetition) : std::string());
    for (const std::string& v : {r.status, r.backend, r.device, std::to_string(r.steps_per_sample)}) f.push_back(v);
    f.push_back(std::to_string(g.n));
    f.push_back(csv_number(g.p50));
    f.push_back(csv_number(g.median_ci ? std::optional<double>(g.median_ci->low) : std::nullopt));
    f.push_back(csv_number(g.median_ci ? std::optional<double>(g.median_ci->high) : std::nullopt));
    for (const auto& v : {g.min, g.p5, g.p25, g.p75, g.p95, g.p99, g.max, g.mean, g.stddev}) f.push_back(csv_number(v));
    f.push_back(r.wall ? std::to_string(w.n) : "");
    f.push_back(csv_number(w.p50));
    f.push_back(r.cpu ? std::to_string(r.cpu->n) : "");
    f.push_back(csv_number(r.cpu ? r.cpu->p50 : std::nullopt));
    f.push_back(csv_number(t.flop_per_second));
    f.push_back(csv_number(t.bytes_per_second));
    for (const auto& i : items) f.push_back(csv_number(t.item_per_second(i)));
    f.push_back(csv_number(wt.flop_per_second));
    f.push_back(csv_number(wt.bytes_per_second));
    std::string codes;
    for (const auto& c : r.warnings) codes += (codes.empty() ? "" : ";") + c;
    for (const std::string& v : {codes, r.error.value_or(""), r.kind, r.time_label}) f.push_back(v);
    f.push_back(csv_number(r.share_of_step));
    const records::PeaksRecord* pk = r.peaks;
    const records::RooflineRecord* roof = pk && pk->roofline ? &*pk->roofline : nullptr;
    f.push_back(pk ? pk->status : "");
    f.push_back(pk ? pk->reason : "");
    f.push_back(pk ? pk->dtype.value_or("") : "");
    f.push_back(roof ? roof->bound : "");
    f.push_back(roof ? roof->basis : "");
    f.push_back(csv_number(roof ? std::optional<double>(roof->arithmetic_intensity) : std::nullopt));
    f.push_back(csv_number(roof ? std::optional<double>(roof->ridge_point) : std::nullopt));
    for (const auto* columns : {&gpu_peaks, &wall_peaks}) {
      std::map<std::string, double> pct;
      if (pk)
        for (const auto& p : detail::export_::pct_of_peak(*pk, columns == &gpu_peaks ? "gpu" : "wall")) pct.emplace(p.name, p.pct);
      for (const auto& [rank, name] : *columns)
        f.push_back(pct.count(name) ? csv_number(pct.at(name)) : std::string());
    }
    out += line(f);
  }
  return out;
}
}  // namespace formats

}  // namespace gauge

// The formats of this file, registered for gauge-export (gauge/report/export_format.hpp).
namespace gauge::detail::export_ {
inline std::string write_gbench(const StoredReport& report, const ExportOptions& o) {
  formats::GoogleBenchmarkOptions g;
  g.metric = o.metric == "wall" ? Metric::wall_time : Metric::gpu_time;
  g.time_unit = o.time_unit;
  g.repetitions = o.repetitions;
  return detail::json_dump(formats::google_benchmark_json(report, g), 2) + "\n";
}
inline std::string write_csv(const StoredReport& report, const ExportOptions&) {
  return formats::csv_table(report.results, report.timers);
}
}  // namespace gauge::detail::export_
GAUGE_REGISTER_EXPORT_FORMAT(gbench, "Google Benchmark JSON (its compare.py reads it)",
                             ::gauge::detail::export_::write_gbench)
GAUGE_REGISTER_EXPORT_FORMAT(csv, "one row per experiment and per timer region (RFC 4180)", ::gauge::detail::export_::write_csv,
                             ::gauge::formats::ExportFormat::Holds::experiments_and_timers)
// markdown: gauge/report/export_markdown.hpp (included here, as it always was part of this header).
#include "gauge/report/export_markdown.hpp"
