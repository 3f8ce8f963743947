#pragma once
/// \file gauge/report/peaks_cache.hpp
/// The cache of measured peaks (issue "Speed of light"): `gauge-peaks` measures what one GPU
/// achieves (copy bandwidth, cuBLAS GEMM rates per type) once per GPU and driver, and writes them
/// here; every later experiment on that GPU reads them and reports its fraction of them.
///
/// One JSON file per GPU, named by its UUID: `<dir>/<uuid>.json`, where `<dir>` is
/// `$GAUGE_PEAKS_CACHE_DIR`, else `$XDG_CACHE_HOME/gauge/peaks`, else `$HOME/.cache/gauge/peaks`.
/// The file records the driver version it was measured with; a file from another driver is not
/// used (the reader says so): a new driver brings new cuBLAS kernels and clocks policies.

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "gauge/core/error.hpp"
#include "gauge/core/peaks.hpp"
#include "gauge/report/fields/measurement.hpp"  // Peak's fields
#include "gauge/report/atomic_file.hpp"
#include "gauge/report/serial.hpp"

namespace gauge {
namespace peaks {
/// The contents of one cache file.
struct PeaksCacheFile {
  std::string schema = "gauge.peaks";  ///< the format's name
  int version = 1;                     ///< the format's version
  std::string uuid;                    ///< the GPU's UUID ("GPU-…"), as CUDA reports it
  std::string name;                    ///< the GPU's name
  std::string driver_version;          ///< the driver it was measured with (NVML's, e.g. "580.95.05")
  std::string created_utc;             ///< when, ISO 8601 UTC
  std::string tool;                    ///< what measured it, e.g. "gauge-peaks 0.9.0"
  std::vector<Peak> peaks;             ///< basis "measured", clock_basis "as_measured"
};
}  // namespace peaks

namespace serial {
/// PeaksCacheFile → {"schema", "version", "uuid", "name", "driver_version", "created_utc", "tool", "peaks"}.
GAUGE_SERIAL_DESCRIBE(gauge::peaks::PeaksCacheFile, "peaks_cache", schema, version, uuid, name, driver_version, created_utc, tool,
    peaks)
}  // namespace serial

namespace detail {
/// The cache directory (see the file comment); nullopt when neither GAUGE_PEAKS_CACHE_DIR,
/// XDG_CACHE_HOME nor HOME is set.
inline std::optional<std::filesystem::path> peaks_cache_dir() {
  auto env = [](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);
    if (!v || !*v) return std::nullopt;
    return std::string(v);
  };
  if (auto d = env("GAUGE_PEAKS_CACHE_DIR")) return std::filesystem::path(*d);
  if (auto d = env("XDG_CACHE_HOME")) return std::filesystem::path(*d) / "gauge" / "peaks";
  if (auto d = env("HOME")) return std::filesystem::path(*d) / ".cache" / "gauge" / "peaks";
  return std::nullopt;
}

/// The cache file of the GPU with this UUID. Throws ConfigError for an empty UUID or one with a
/// path separator, or when no cache directory is known.
inline std::filesystem::path peaks_cache_path(const std::string& uuid) {
  if (uuid.empty() || uuid.find('/') != std::string::npos || uuid.find("..") != std::string::npos)
    throw ConfigError("peaks cache: \"" + uuid + "\" is not a GPU UUID");
  const auto dir = peaks_cache_dir();
  if (!dir) throw ConfigError("peaks cache: none of GAUGE_PEAKS_CACHE_DIR, XDG_CACHE_HOME, HOME is set");
  return *dir / (uuid + ".json");
}

/// The cached peaks of the GPU with this UUID, measured under `driver_version` (empty: any), or
/// nullopt with `why` (no file, another driver, unreadable). `source` receives the file's path.
/// Never throws.
inline std::optional<peaks::PeaksCacheFile> read_peaks_cache(const std::string& uuid, const std::string& driver_version,
                                                      std::string& why, std::string* source = nullptr) {
  try {
    const auto path = peaks_cache_path(uuid);
    if (source) *source = path.string();
    std::ifstream in(path);
    if (!in) {
      why = "no cache file " + path.string() + " (run gauge-peaks once on this GPU)";
      return std::nullopt;
    }
    std::stringstream text;
    text << in.rdbuf();
    auto file = nlohmann::json::parse(text.str()).get<peaks::PeaksCacheFile>();
    if (file.schema != "gauge.peaks" || file.version != 1) {
      why = path.string() + " is not a gauge.peaks file of version 1";
      return std::nullopt;
    }
    if (file.uuid != uuid) {
      why = path.string() + " describes " + file.uuid + ", not " + uuid;
      return std::nullopt;
    }
    if (!driver_version.empty() && file.driver_version != driver_version) {
      why = path.string() + " was measured with driver " + file.driver_version + ", this is " + driver_version +
            " (run gauge-peaks again)";
      return std::nullopt;
    }
    return file;
  } catch (const std::exception& e) {
    why = std::string("peaks cache unreadable: ") + e.what();
    return std::nullopt;
  }
}

/// Writes `file` to its GPU's cache file (creating the directory), atomically. Returns the path.
/// Throws ConfigError (no UUID, no cache directory) or ReportError (cannot write).
inline std::filesystem::path write_peaks_cache(const peaks::PeaksCacheFile& file) {
  const auto path = peaks_cache_path(file.uuid);
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) throw ReportError("peaks cache: cannot create " + path.parent_path().string() + ": " + ec.message());
  write_file_atomic(path, serial::encode_object(file).dump(2) + "\n");
  return path;
}
}  // namespace detail

}  // namespace gauge
