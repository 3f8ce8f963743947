#pragma once
/// \file gauge/report/timer_json.hpp
/// JSON of a Timer's summary (nlohmann/json's `to_json`, found by ADL, from its description in
/// gauge/report/fields.hpp: one entry of a report's `timers` list), the compact record of one log
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

#include "gauge/report/dump.hpp"
#include "gauge/core/error.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/core/timer_summary.hpp"
#include "gauge/report/json.hpp"

namespace gauge {

namespace detail {
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
}  // namespace detail

/// A Timer sink (`timer.on_log(gauge::JsonLinesSink("train.jsonl"))`) that writes
/// `timer_log_json` as one line per log and flushes it, so a crashed run keeps every line written.
/// Copies share the file.
class JsonLinesSink {
 public:
  /// Opens `path` (truncated, or appended to with `append`). Throws ReportError naming the path and
  /// the system error when it cannot be opened.
  explicit JsonLinesSink(const std::filesystem::path& path, bool append = false) : path_(path.string()) {
    // "e": close-on-exec (O_CLOEXEC, glibc), so a tool or training script it spawns does not
    // inherit the log's descriptor.
    std::FILE* f = std::fopen(path_.c_str(), append ? "ae" : "we");
    if (!f) throw ReportError("cannot open JSON Lines log " + path_ + ": " + std::strerror(errno));
    file_ = std::shared_ptr<std::FILE>(f, [](std::FILE* p) { std::fclose(p); });
  }
  /// Writes one line. Throws ReportError when the write fails (e.g. disk full).
  void operator()(const TimerSummary& s) const {
    const std::string line = detail::json_dump(detail::timer_log_json(s)) + "\n";
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
