#pragma once
// Small helpers shared by the host tests: reading a file, finding text, the message of a
// ConfigError, and a fast configuration for the fake backend (tests/fake_backend.hpp).

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/config.hpp"
#include "gauge/core/error.hpp"
#include "gauge/report/document.hpp"

namespace gauge::testing {

/// The whole text of the file at `path` ("" when it cannot be read).
inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// True when `text` holds `part`.
inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// The message of the exception of type E that `f` throws ("" when it throws none; any other
/// exception propagates, and Catch2 reports it).
template <class E, class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

/// The message of the ConfigError `f` throws ("" when it throws none).
template <class F>
std::string config_error_of(F&& f) {
  return error_of<gauge::ConfigError>(std::forward<F>(f));
}

/// A configuration that runs fast on the fake backend's virtual clock: no minimum warm-up time,
/// measurement for at least `min_measure`, rounds of 1 ms.
inline gauge::Config fast_config(std::chrono::nanoseconds min_measure = std::chrono::nanoseconds(0)) {
  gauge::Config c;
  c.warmup.min_time = std::chrono::nanoseconds(0);
  c.measure.min_time = min_measure;
  c.measure.round_time = std::chrono::milliseconds(1);
  return c;
}

/// A report document of `results` and `timers` measured in `env`, created at `created_utc` (now
/// when empty), for gauge::detail::report_json.
inline gauge::StoredReport document(gauge::Environment env, std::vector<gauge::Result> results,
                                    std::vector<gauge::TimerSummary> timers = {}, std::string created_utc = "") {
  gauge::StoredReport doc;
  doc.environment = std::move(env);
  doc.results = std::move(results);
  doc.timers = std::move(timers);
  doc.created_utc = std::move(created_utc);
  return doc;
}

}  // namespace gauge::testing
