#pragma once
/// \file gauge/report/timer_json.hpp
/// JSON of a Timer's summary (nlohmann/json ADL hooks `to_json`), the compact record of one log
/// line, and `JsonLinesSink`, which appends one such record per log to a JSON Lines file.
/// Units: seconds for time (keys end in `_s`), rates per second (`_per_s`), MFU and shares as
/// fractions. Non-finite and undefined values are `null`, as in report/json.hpp.

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "gauge/core/error.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/core/timer_summary.hpp"
#include "gauge/report/json.hpp"

namespace gauge {

/// TotalSummary → {"n", "sum", "min", "mean", "stddev", "max", "p50", "p90", "p99",
/// "percentile_method"}.
inline void to_json(nlohmann::json& j, const TotalSummary& s) {
  using detail::number_or_null;
  j = nlohmann::json{{"n", s.n},
                     {"sum", number_or_null(s.sum)},
                     {"min", number_or_null(s.min)},
                     {"mean", number_or_null(s.mean)},
                     {"stddev", number_or_null(s.stddev)},
                     {"max", number_or_null(s.max)},
                     {"p50", number_or_null(s.p50)},
                     {"p90", number_or_null(s.p90)},
                     {"p99", number_or_null(s.p99)},
                     {"percentile_method", TotalSummary::percentile_method}};
}

/// TimerThroughput → {"tokens_per_s", "samples_per_s", "flop_per_s", "bytes_per_s", "mfu"}.
inline void to_json(nlohmann::json& j, const TimerThroughput& t) {
  using detail::number_or_null;
  j = nlohmann::json{{"tokens_per_s", number_or_null(t.tokens_per_s)},
                     {"samples_per_s", number_or_null(t.samples_per_s)},
                     {"flop_per_s", number_or_null(t.flop_per_s)},
                     {"bytes_per_s", number_or_null(t.bytes_per_s)},
                     {"mfu", number_or_null(t.mfu)}};
}

/// TimerConfig → every setting, defaults included; the peak with its source (null when absent).
inline void to_json(nlohmann::json& j, const TimerConfig& c) {
  j = nlohmann::json{{"warmup_steps", c.warmup_steps},
                     {"window", c.window},
                     {"log_every", c.log_every},
                     {"level", c.level},
                     {"max_pending_steps", c.max_pending_steps},
                     {"confidence_level", c.confidence_level},
                     {"peak_flop_per_s", detail::number_or_null(c.peak_flop_per_s)},
                     {"peak_source", c.peak_flop_per_s ? nlohmann::json(c.peak_source.empty() ? std::string("user (no source given)")
                                                                                              : c.peak_source)
                                                       : nlohmann::json(nullptr)}};
}

/// TimerCounters → every counter by name.
inline void to_json(nlohmann::json& j, const TimerCounters& c) {
  j = nlohmann::json{{"steps", c.steps},
                     {"resolved_steps", c.resolved_steps},
                     {"warmup_steps", c.warmup_steps},
                     {"pending_steps", c.pending_steps},
                     {"failed_steps", c.failed_steps},
                     {"region_boundaries", c.region_boundaries},
                     {"markers_recorded", c.markers_recorded},
                     {"queries", c.queries},
                     {"host_synchronizations", c.host_synchronizations},
                     {"forced_waits", c.forced_waits},
                     {"markers_created", c.markers_created},
                     {"markers_created_after_warmup", c.markers_created_after_warmup}};
}

/// TimerRegionSummary → {"name", "kind", "parent" (null at the top level), "stream", "level",
/// "window": {"steps", "occurrences", "time_per_step_s" (a Summary), "share_of_step"},
/// "total": {"steps", "occurrences", "time_per_step_s" (a TotalSummary), "share_of_step"}}.
inline void to_json(nlohmann::json& j, const TimerRegionSummary& r) {
  using detail::number_or_null;
  j = nlohmann::json{{"name", r.name},
                     {"kind", r.kind},
                     {"parent", r.parent.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.parent)},
                     {"stream", r.stream},
                     {"level", r.level},
                     {"window",
                      {{"steps", r.window.steps},
                       {"occurrences", r.window.occurrences},
                       {"time_per_step_s", r.window.time_per_step_s},
                       {"share_of_step", number_or_null(r.window.share_of_step)}}},
                     {"total",
                      {{"steps", r.total.steps},
                       {"occurrences", r.total.occurrences},
                       {"time_per_step_s", r.total.time_per_step_s},
                       {"share_of_step", number_or_null(r.total.share_of_step)}}}};
}

/// TimerSummary → one entry of the report's `timers` list.
inline void to_json(nlohmann::json& j, const TimerSummary& s) {
  auto opt_index = [](const std::optional<std::size_t>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  j = nlohmann::json{{"name", s.name},
                     {"backend", s.backend},
                     {"final", s.final},
                     {"config", s.config},
                     {"timer_resolution_s", detail::number_or_null(s.timer_resolution_s)},
                     {"counters", s.counters},
                     {"window",
                      {{"steps", s.window.steps},
                       {"first_step", opt_index(s.window.first_step)},
                       {"last_step", opt_index(s.window.last_step)},
                       {"gpu_time_per_step_s", s.window.gpu_time_s},
                       {"wall_time_per_step_s", s.window.wall_time_s},
                       {"throughput", s.window.throughput}}},
                     {"total",
                      {{"steps", s.total.steps},
                       {"gpu_time_per_step_s", s.total.gpu_time_s},
                       {"wall_time_per_step_s", s.total.wall_time_s},
                       {"throughput", s.total.throughput}}},
                     {"regions", s.regions},
                     {"warnings", s.warnings}};
}

/// The compact record of one log line (JSON Lines): {"timer", "step" (last step of the window),
/// "window_steps", "step_gpu_time_s" and "step_wall_time_s" ({"p50", "p90", "p99", "mean"}),
/// "throughput", "regions": {name: {"p50", "p90", "p99", "mean", "share_of_step", "steps"}},
/// "pending_steps", "host_synchronizations", "markers_recorded"}. Window statistics only; the full
/// summary goes into the report.
inline nlohmann::json timer_log_json(const TimerSummary& s) {
  using detail::number_or_null;
  auto digest = [](const Summary& x) {
    return nlohmann::json{{"p50", number_or_null(x.p50)},
                          {"p90", number_or_null(x.p90)},
                          {"p99", number_or_null(x.p99)},
                          {"mean", number_or_null(x.mean)}};
  };
  nlohmann::json regions = nlohmann::json::object();
  for (const auto& r : s.regions) {
    nlohmann::json d = digest(r.window.time_per_step_s);
    d["share_of_step"] = number_or_null(r.window.share_of_step);
    d["steps"] = r.window.steps;
    regions[r.name] = d;
  }
  return nlohmann::json{{"timer", s.name},
                        {"step", s.window.last_step ? nlohmann::json(*s.window.last_step) : nlohmann::json(nullptr)},
                        {"window_steps", s.window.steps},
                        {"step_gpu_time_s", digest(s.window.gpu_time_s)},
                        {"step_wall_time_s", digest(s.window.wall_time_s)},
                        {"throughput", s.window.throughput},
                        {"regions", regions},
                        {"pending_steps", s.counters.pending_steps},
                        {"host_synchronizations", s.counters.host_synchronizations},
                        {"markers_recorded", s.counters.markers_recorded}};
}

/// A Timer sink (`timer.on_log(gauge::JsonLinesSink("train.jsonl"))`) that writes
/// `timer_log_json` as one line per log and flushes it, so a crashed run keeps every line written.
/// Copies share the file.
class JsonLinesSink {
 public:
  /// Opens `path` (truncated, or appended to with `append`). Throws ReportError naming the path and
  /// the system error when it cannot be opened.
  explicit JsonLinesSink(const std::filesystem::path& path, bool append = false) : path_(path.string()) {
    std::FILE* f = std::fopen(path_.c_str(), append ? "a" : "w");
    if (!f) throw ReportError("cannot open JSON Lines log " + path_ + ": " + std::strerror(errno));
    file_ = std::shared_ptr<std::FILE>(f, [](std::FILE* p) { std::fclose(p); });
  }
  /// Writes one line. Throws ReportError when the write fails (e.g. disk full).
  void operator()(const TimerSummary& s) const {
    const std::string line = timer_log_json(s).dump() + "\n";
    if (std::fwrite(line.data(), 1, line.size(), file_.get()) != line.size() || std::fflush(file_.get()) != 0)
      throw ReportError("cannot write JSON Lines log " + path_ + ": " + std::strerror(errno));
  }
  /// The file's path.
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::shared_ptr<std::FILE> file_;
};

}  // namespace gauge
