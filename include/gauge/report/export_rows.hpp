#pragma once
/// \file gauge/report/export_rows.hpp
/// The rows of gauge's tables (CSV, Markdown; gauge/report/export.hpp): one per experiment, and
/// for each Timer one row for its steps and one per region, in one shape, so that a table treats
/// them alike. Timer rows are named "timer:<timer>/step" and "timer:<timer>/<region>" and say
/// their kind (`timer_step`, `timer_region`); their statistics are those of the Timer's rolling
/// window (the last TimerConfig::window steps, summarized as an experiment's samples are).

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/dimensions.hpp"
#include "gauge/core/peak_fractions.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/summary.hpp"
#include "gauge/core/timer_summary.hpp"
#include "gauge/core/work.hpp"

namespace gauge::detail::export_ {

/// One row of a table: an experiment, a Timer's steps, or one of its regions.
struct TableRow {
  std::string name;              ///< experiment name, or "timer:<timer>/step", "timer:<timer>/<region>"
  std::string kind;              ///< "experiment", "timer_step" or "timer_region"
  const Dimensions* dimensions = nullptr;  ///< the experiment's dimensions (none for Timer rows)
  /// The suite runner's round of this result with `--repetitions N` (N > 1), 0-based: the
  /// report's `repetition`; none when points ran once, and for Timer rows.
  std::optional<std::size_t> repetition;
  std::string status = "ok";     ///< "ok" or "failed"
  std::optional<std::string> error;  ///< the failure, if any
  std::string backend;           ///< "cuda", "host", ...
  std::string device;            ///< the device's name ("" for Timer rows)
  std::string time_label;        ///< what `time` is: "GPU time" or "real time"
  std::size_t steps_per_sample = 1;  ///< steps behind one sample (k)
  const Summary* time = nullptr;  ///< time per step, seconds (the result's samples, or the window's)
  const Summary* wall = nullptr;  ///< wall time per step, seconds (absent for regions)
  const Summary* cpu = nullptr;   ///< process CPU time per step, seconds (host experiments; else absent)
  const Throughput* throughput = nullptr;       ///< work / median time (window sums for a Timer)
  const Throughput* wall_throughput = nullptr;  ///< work / median wall time (experiments only)
  std::optional<double> share_of_step;  ///< a region's share of the step (Timer regions only)
  std::vector<std::string> warnings;    ///< warning codes, in order
  const records::PeaksRecord* peaks = nullptr; ///< the fractions of the device's peaks (experiments only)
};

/// "gemm/K:8192/M:8192/dtype:bf16": the name and every dimension (in key order), Google
/// Benchmark's named-argument form; the name of a result in the Google Benchmark and Bencher exports.
inline std::string benchmark_name(const std::string& experiment, const Dimensions& dimensions) {
  std::string name = experiment;
  for (const auto& [k, v] : dimensions) name += "/" + k + ":" + gauge::to_string(v);
  return name;
}
/// benchmark_name of a result: its name and dimensions.
inline std::string benchmark_name(const Result& r) { return benchmark_name(r.name, r.dimensions); }

/// `name`, plus "/occurrence:<k>" (k = 2, 3, ...) while the name is in `taken`; the name returned
/// is added to `taken`.
inline std::string unique_name(std::string name, std::set<std::string>& taken) {
  if (taken.count(name)) {
    std::size_t k = 2;
    while (taken.count(name + "/occurrence:" + std::to_string(k))) ++k;
    name += "/occurrence:" + std::to_string(k);
  }
  taken.insert(name);
  return name;
}

/// The name a per-result export writes for `r`: benchmark_name, plus "/repetition:<i>" for a
/// result of the suite runner's `--repetitions N` (N > 1), plus "/occurrence:<k>" (k = 2, 3, ...)
/// while the name is in `taken`; the name returned is added to `taken`.
inline std::string unique_benchmark_name(const Result& r, std::set<std::string>& taken) {
  std::string name = benchmark_name(r);
  if (r.repetition) name += "/repetition:" + std::to_string(*r.repetition);
  return unique_name(std::move(name), taken);
}

/// Google Benchmark's `family_index` and `per_family_instance_index` of an entry: one family per
/// experiment name (numbered in order of first appearance, as Google Benchmark numbers its
/// registered benchmarks) and, within it, one instance per run name (the point's unique name:
/// Google Benchmark has one run name per instance, its repetitions share it).
class GbenchFamilies {
 public:
  /// {family_index, per_family_instance_index} of the run `run_name` of the experiment `name`.
  std::pair<std::size_t, std::size_t> of(const std::string& name, const std::string& run_name) {
    const std::size_t family = families_.emplace(name, families_.size()).first->second;
    auto& instances = instances_[family];
    return {family, instances.emplace(run_name, instances.size()).first->second};
  }

 private:
  std::map<std::string, std::size_t> families_;
  std::map<std::size_t, std::map<std::string, std::size_t>> instances_;
};

/// Google Benchmark's `context.time_source` for `results`: what `real_time` is (with `gpu`, each
/// result's own time per step as its `time_label` and `time_clock` name it, e.g. "real time per
/// step (host steady clock)" for a host-only report; else wall time per step) and `cpu_time`.
inline std::string gbench_time_source(const std::vector<Result>& results, bool gpu) {
  std::string real = "wall time per step";
  if (gpu) {
    std::set<std::string> kinds;
    for (const auto& r : results) {
      if (!r.gpu_time.p50) continue;  // no time of its own (failed, no samples): says nothing of real_time
      // Host reports of schema 1.2 to 1.6 named the steady clock's real time "CPU time".
      const std::string label = r.backend == "host" && r.time_label == "CPU time" ? "real time" : r.time_label;
      kinds.insert(label + " per step" + (r.time_clock.empty() ? "" : " (" + r.time_clock + ")"));
    }
    real.clear();
    for (const auto& k : kinds) real += (real.empty() ? "" : " or ") + k;
    if (kinds.size() > 1) real += ", as each result's time_label says";
    if (kinds.empty()) real = "each result's time per step";
  }
  return "real_time: " + real + "; cpu_time: process CPU time per step where the result has it, else real_time";
}

/// Google Benchmark's `context.gauge_peak_counters`: what the peak counters are (written only
/// where a result has peaks).
inline constexpr const char* gbench_peak_counters_text =
    "pct_of_peak_<quantity>_<basis>: 100 x the entry's rate (work / real_time) / the peak, <quantity> memory_bw "
    "(bytes/s) or <dtype>_dense (FLOP/s of the dtype dimension), <basis> theoretical (max boost clock), "
    "theoretical_run_clock (the run's measured clock), datasheet or measured (gauge-peaks); "
    "arithmetic_intensity_flop_per_byte and ridge_point_flop_per_byte with label 'roofline: <memory|compute|launch>-bound'; "
    "absent where the result has no such peak";

/// The codes of `warnings`, in order.
inline std::vector<std::string> codes_of(const std::vector<Warning>& warnings) {
  std::vector<std::string> codes;
  for (const auto& w : warnings) codes.push_back(w.code);
  return codes;
}

/// The rows of `results` (one each), then those of `timers` (a step row, then one per region that
/// occurred in the window). The rows point into `results` and `timers`, which must outlive them.
inline std::vector<TableRow> table_rows(const std::vector<Result>& results, const std::vector<TimerSummary>& timers) {
  std::vector<TableRow> rows;
  for (const auto& r : results) {
    TableRow row;
    row.name = r.name;
    row.kind = "experiment";
    row.dimensions = &r.dimensions;
    row.repetition = r.repetition;
    row.status = to_string(r.status);
    row.error = r.error;
    row.backend = r.backend;
    row.device = r.device.name;
    row.time_label = r.time_label;
    row.steps_per_sample = r.sampling.steps_per_sample;
    row.time = &r.gpu_time;
    row.wall = &r.wall_time;
    if (r.cpu_time.n > 0) row.cpu = &r.cpu_time;
    row.throughput = &r.gpu_throughput;
    row.wall_throughput = &r.wall_throughput;
    row.warnings = codes_of(r.warnings);
    row.peaks = &r.peaks;
    rows.push_back(std::move(row));
  }
  for (const auto& t : timers) {
    TableRow step;
    step.name = "timer:" + t.name + "/step";
    step.kind = "timer_step";
    step.backend = t.backend;
    step.time_label = detail::legacy_time_names(t.backend).first;
    step.time = &t.window.gpu_time_s;
    step.wall = &t.window.wall_time_s;
    step.throughput = &t.window.throughput;
    step.warnings = codes_of(t.warnings);
    rows.push_back(step);
    for (const auto& region : t.regions) {
      if (region.window.steps == 0) continue;
      TableRow row;
      row.name = "timer:" + t.name + "/" + region.name;
      row.kind = "timer_region";
      row.backend = step.backend;
      row.time_label = step.time_label;
      row.time = &region.window.time_per_step_s;
      row.share_of_step = region.window.share_of_step;
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

}  // namespace gauge::detail::export_
