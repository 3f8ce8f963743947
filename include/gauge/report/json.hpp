#pragma once
/// \file gauge/report/json.hpp
/// JSON of gauge's types (nlohmann/json's `to_json`, found by ADL, from the descriptions in
/// gauge/report/fields.hpp), the whole report document, and the atomic report writer. Units:
/// seconds for time (keys end in `_s`), bytes, MHz. Non-finite numbers and absent values are
/// written as `null`, never NaN.

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gauge/core/dimensions.hpp"
#include "gauge/core/environment.hpp"
#include "gauge/core/error.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/timer_summary.hpp"
#include "gauge/report/fields.hpp"
#include "gauge/report/serial.hpp"
#include "gauge/version.hpp"

namespace gauge {

namespace detail {
/// A finite double as a JSON number, anything else as null.
inline nlohmann::json number_or_null(double v) { return serial::encode(v); }
/// An optional finite double as a JSON number, else null.
inline nlohmann::json number_or_null(const std::optional<double>& v) { return serial::encode(v); }
}  // namespace detail

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
/// "environment", "experiments", "timers"} (see gauge/report/fields.hpp).
/// \param created_utc ISO 8601 UTC creation time (now by default).
inline nlohmann::json report_json(const Environment& env, const std::vector<Result>& results,
                                  const std::vector<TimerSummary>& timers,
                                  const std::string& created_utc = utc_timestamp()) {
  return serial::encode_object(serial::ReportView{report_schema_name, report_schema_version, version_string,
                                                  created_utc, env, results, timers});
}

/// The whole report document without Timer summaries (`timers` is an empty list).
inline nlohmann::json report_json(const Environment& env, const std::vector<Result>& results,
                                  const std::string& created_utc = utc_timestamp()) {
  return report_json(env, results, std::vector<TimerSummary>{}, created_utc);
}

namespace detail {
inline std::filesystem::path temporary_sibling(const std::filesystem::path& path) {
  std::random_device rd;
  return path.parent_path() / (path.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" +
                               std::to_string(rd()));
}
inline std::filesystem::path directory_of(const std::filesystem::path& path) {
  auto dir = path.parent_path();
  return dir.empty() ? std::filesystem::path(".") : dir;
}
}  // namespace detail

/// Throws ReportError unless a file can be created at `path` (its directory exists and is
/// writable, and `path` is not a directory). Creates and removes a temporary file beside it.
inline void check_writable(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  if (path.empty()) throw ReportError("report path is empty");
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw ReportError("cannot write report to " + path.string() + ": it is a directory");
  // The atomic rename would replace whatever is there: only a regular file may be.
  if (fs::exists(path, ec) && !fs::is_regular_file(path, ec))
    throw ReportError("cannot write report to " + path.string() + ": it exists and is not a regular file");
  const fs::path dir = detail::directory_of(path);
  if (!fs::is_directory(dir, ec))
    throw ReportError("cannot write report to " + path.string() + ": directory " + dir.string() + " does not exist");
  const fs::path probe = detail::temporary_sibling(path);
  int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0)
    throw ReportError("cannot write report to " + path.string() + ": " + std::strerror(errno));
  ::close(fd);
  fs::remove(probe, ec);
}

/// Writes `text` to `path` atomically: a temporary file in the same directory, fsync, rename.
/// A crash never leaves a half-written file at `path`. Throws ReportError naming the path and
/// the system error.
inline void write_file_atomic(const std::filesystem::path& path, const std::string& text) {
  const auto tmp = detail::temporary_sibling(path);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) throw ReportError("cannot write report to " + path.string() + ": " + std::strerror(errno));
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string err = std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      throw ReportError("cannot write report to " + path.string() + ": " + err);
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  const int synced = ::fsync(fd);
  const int sync_errno = errno;
  const int closed = ::close(fd);
  if (synced != 0 || closed != 0) {
    const std::string err = std::strerror(synced != 0 ? sync_errno : errno);
    ::unlink(tmp.c_str());
    throw ReportError("cannot write report to " + path.string() + ": " + err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string err = std::strerror(errno);
    ::unlink(tmp.c_str());
    throw ReportError("cannot write report to " + path.string() + ": " + err);
  }
}

}  // namespace gauge
