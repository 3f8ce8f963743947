#pragma once
/// \file gauge/report/console.hpp
/// The console summary: one line per experiment (median and p99 time per step: GPU time, or CPU
/// time on the host backend; the confidence interval, wall time, throughput, warnings) and one
/// line about the machine, through fmt.

#include "gauge/core/peak_tables.hpp"
#include "gauge/detail/fmt.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gauge/core/environment.hpp"
#include "gauge/core/format.hpp"
#include "gauge/core/result.hpp"
#include "gauge/report/escape.hpp"
#include "gauge/report/labels.hpp"

namespace gauge {
namespace formats {
/// The summary table of `results` as text (ends with a newline): experiment, status, median and
/// p99 time per step (each result's `time_label`: GPU time, or real time on the host backend),
/// half-width of the CI of the median in %, wall time per step, then, when some result has it
/// (host timing), its median process CPU time per step ("cpu/step"), throughput (FLOP/s from
/// the median, else bytes/s, else the first item rate), warning codes; then a legend line. Results
/// that share a name show the dimensions that tell them apart ("name/k=v", declared `axes` first).
/// Empty without results.
inline std::string summary_table(const std::vector<Result>& results,
                                 const std::map<std::string, std::vector<std::string>>& axes = {}) {
  if (results.empty()) return {};  // a Timer-only report: no empty table header above the Timers
  const bool cpu = std::any_of(results.begin(), results.end(), [](const Result& r) { return r.cpu_time.p50.has_value(); });
  auto cpu_cell = [&](const Result& r) { return cpu ? fmt::format(" {:>11}", detail::format_time(r.cpu_time.p50)) : std::string(); };
  std::string out = fmt::format("{:<34} {:<6} {:>11} {:>11} {:>8} {:>11}{} {:>16}  {}\n", "experiment", "status",
                                "median", "p99", "ci +-%", "wall/step", cpu ? fmt::format(" {:>11}", "cpu/step") : "",
                                "throughput", "warnings");
  // Results that share a name are told apart by the dimensions that differ among them.
  std::vector<const Result*> rows;
  for (const auto& r : results) rows.push_back(&r);
  const std::vector<std::string> labels = detail::distinguishing_labels(rows, axes);
  std::size_t row = 0;
  for (const auto& r : results) {
    std::string label = detail::escape::visible(labels[row++]);  // a NUL or newline cannot cut or break the line
    std::string rate = "-";
    if (r.gpu_throughput.flop_per_second) rate = detail::format_rate(r.gpu_throughput.flop_per_second, "FLOP/s");
    else if (r.gpu_throughput.bytes_per_second) rate = detail::format_rate(r.gpu_throughput.bytes_per_second, "B/s");
    else if (!r.gpu_throughput.items_per_second.empty()) {
      const auto& [item, v] = *r.gpu_throughput.items_per_second.begin();
      rate = detail::format_rate(v, (item + "/s").c_str());
    }
    const std::string ci =
        detail::ci_half_width_text(r.gpu_time.median_ci_relative_width, r.gpu_time.p50, r.sampling.resolution_per_step());
    std::string codes;
    for (const auto& w : r.warnings) {
      if (!codes.empty()) codes += ",";
      codes += w.code;
    }
    out += fmt::format("{:<34} {:<6} {:>11} {:>11} {:>8} {:>11}{} {:>16}  {}\n", label, to_string(r.status),
                       detail::format_time(r.gpu_time.p50), detail::format_time(r.gpu_time.p99), ci,
                       detail::format_time(r.wall_time.p50), cpu_cell(r), rate, codes);
    if (r.error) out += fmt::format("  error: {}\n", detail::escape::visible(*r.error));
  }
  std::vector<std::string> kinds;  // "GPU time from CUDA events", each once, in order
  for (const auto& r : results)
    if (std::find(kinds.begin(), kinds.end(), r.time_label + " from " + r.time_clock) == kinds.end())
      kinds.push_back(r.time_label + " from " + r.time_clock);
  std::string times;
  for (const auto& k : kinds) times += (times.empty() ? " (" : "; ") + k;
  // The wall rounds run a setup and a cache flush where an experiment has them (they are outside
  // the timed samples only): say so where a row's wall/step includes them.
  const bool wall_with_setup = std::any_of(results.begin(), results.end(), [](const Result& r) {
    return r.sampling.setup_calls > 0 || r.config.measure.cache == CacheState::cold;
  });
  out += "median, p99: time per step" + times + (times.empty() ? "" : ")") +
         "; ci +-%: half-width of the confidence interval of the median (<=x: samples quantized by the clock, x its tick); wall/step: wall time per step" +
         (wall_with_setup ? " (the untimed setup and cache flush included, where an experiment has them)" : "") + "; " +
         (cpu ? "cpu/step: process CPU time per step (all threads; a mean over each round's steps, so above the median "
                "where steps vary); "
              : "") +
         "throughput: work / median\n";
  return out;
}

/// The kernels inside each traced step (Config::trace_kernels), as text: per traced result a
/// heading with the step's period from events, its busy time, gaps, how much of the period the
/// kernels' durations and the gaps add up to (KernelTraceRecord::closure) and the tracing overhead, then
/// the `top` names with the most time per step: kind, launches per step, median and p99 duration
/// of one launch, time per step and share of the step. A result whose tracing did not run gets
/// one line with the reason; results that did not ask get nothing. Ends with a newline, or is
/// empty.
inline std::string kernel_table(const std::vector<Result>& results, std::size_t top = 10) {
  std::string out;
  auto pct = [](const std::optional<double>& v) { return v ? fmt::format("{:.1f} %", 100 * *v) : std::string("-"); };
  for (const auto& r : results) {
    if (!r.kernel_trace) continue;
    const auto& t = *r.kernel_trace;
    const std::string label = detail::escape::visible(r.name);
    if (t.status != "traced") {
      out += fmt::format("kernels of {}: not traced ({}): {}\n", label, t.status, detail::escape::visible(t.reason));
      continue;
    }
    const std::optional<double> sum = t.closure ? std::optional<double>(1 + *t.closure) : std::nullopt;
    out += fmt::format("kernels of {} ({} steps traced): period {} (events), busy {} ({}), gaps {}, "
                       "kernels + gaps = {} of the period, tracing overhead {}\n",
                       label, t.steps, detail::format_time(t.period_s), detail::format_time(t.busy_per_step_s),
                       pct(t.busy_fraction), detail::format_time(t.gaps_per_step_s), pct(sum), pct(t.tracing_overhead));
    out += fmt::format("  {:<56} {:<6} {:>8} {:>11} {:>11} {:>11} {:>7}\n", "name", "kind", "per step", "median",
                       "p99", "time/step", "share");
    for (std::size_t i = 0; i < t.kernels.size() && i < top; ++i) {
      const auto& k = t.kernels[i];
      std::string name = detail::escape::visible(k.name);
      if (name.size() > 56) name = name.substr(0, 53) + "...";
      out += fmt::format("  {:<56} {:<6} {:>8.3g} {:>11} {:>11} {:>11} {:>7}\n", name, k.kind, k.launches_per_step,
                         detail::format_time(k.median_s), detail::format_time(k.p99_s),
                         detail::format_time(k.time_per_step_s), pct(k.share_of_step));
    }
    if (t.kernels.size() > top) out += fmt::format("  ... and {} more\n", t.kernels.size() - top);
  }
  return out;
}

/// One line about where it ran: GPU, compute capability, driver and runtime, or "no GPU"; a build
/// without the CUDA runtime (no driver or runtime version known) says "host only: " and why, and
/// prints no CUDA versions.
inline std::string environment_line(const Environment& env) {
  auto version = [](const std::optional<int>& v) {
    return v ? fmt::format("{}.{}", *v / 1000, (*v % 1000) / 10) : std::string("-");
  };
  std::string gpu = env.cuda.devices.empty()
                        ? std::string("no GPU (") + env.cuda.error.value_or("none visible") + ")"
                        : fmt::format("{} (sm_{}{}, {} SMs)", env.cuda.devices[0].name,
                                      env.cuda.devices[0].compute_capability_major,
                                      env.cuda.devices[0].compute_capability_minor,
                                      env.cuda.devices[0].multiprocessors);
  if (env.cuda.devices.empty() && !env.cuda.driver_version && !env.cuda.runtime_version)
    return fmt::format("host only: {} | {} | gauge {}\n", env.cuda.error.value_or("no CUDA runtime"),
                       env.host.cpu.model_name.value_or("unknown CPU"), env.gauge_version);
  return fmt::format("{} | CUDA driver {} runtime {} | {} | gauge {}\n", gpu, version(env.cuda.driver_version),
                     version(env.cuda.runtime_version), env.host.cpu.model_name.value_or("unknown CPU"),
                     env.gauge_version);
}

/// The "% of peak" lines: for every result with peaks, its GPU throughput as a percentage of each
/// peak compared with (theoretical at the maximum clock and at the run's clock, datasheet,
/// measured), and the roofline position; a result without peaks gets none (the report says why).
inline std::string peaks_table(const std::vector<Result>& results) {
  std::string out;
  for (const auto& r : results) {
    if (r.peaks.fractions.empty()) continue;
    std::string label = detail::escape::visible(r.name);
    for (const char* quantity : {"compute", "memory_bandwidth"}) {
      std::string line;
      for (const auto& f : r.peaks.fractions) {
        if (f.throughput != "gpu" || f.quantity != quantity) continue;
        const bool flop = f.quantity == "compute";
        std::string basis = f.basis;
        if (f.basis == "theoretical") {
          const peaks::Peak* p = detail::find_peak(r.peaks.peaks, f.quantity, f.dtype, f.basis, f.clock_basis);
          basis += fmt::format(" at {} {}", p && p->clock_mhz ? fmt::format("{:.0f} MHz", *p->clock_mhz) : std::string("?"),
                               f.clock_basis == "max_boost" ? "max boost" : "run clock");
        }
        line += fmt::format("{}{:.1f} % of {} ({})", line.empty() ? "" : " | ", 100 * f.fraction,
                            flop ? detail::format_rate(f.peak, f.dtype == "int8" ? "OP/s" : "FLOP/s")
                                 : detail::format_rate(f.peak, "B/s"),
                            basis);
      }
      if (line.empty()) continue;
      out += fmt::format("% of peak {} {}: {}\n", label,
                         std::string(quantity) == "compute" ? r.peaks.dtype.value_or("?") + " dense" : std::string("memory"), line);
    }
    if (const auto& rl = r.peaks.roofline)
      out += fmt::format("roofline {}: {}-bound (intensity {:.3g} FLOP/B, ridge point {:.3g} FLOP/B, {} peaks)\n", label,
                         rl->bound, rl->arithmetic_intensity, rl->ridge_point, rl->basis);
  }
  return out;
}

/// Every warning of every result, one per line: "[severity] experiment: code: message".
inline std::string warnings_text(const std::vector<Result>& results, const Environment& env) {
  std::string out;
  for (const auto& w : env.warnings) out += fmt::format("[{}] environment: {}: {}\n", to_string(w.severity), w.code, w.message);
  for (const auto& r : results)
    for (const auto& w : r.warnings)
      out += fmt::format("[{}] {}: {}: {}\n", to_string(w.severity), detail::escape::visible(r.name), w.code, w.message);
  return out;
}
}  // namespace formats

}  // namespace gauge
