#pragma once
/// \file gauge/implementation/peaks_cache.hpp
/// gauge's compiled part, the measured peaks: reading gauge-peaks' cache (gauge/report/peaks_cache.hpp)
/// for the report's environment (`read_measured_peaks`, gauge/protocol/seam.hpp). A part of its
/// own because the cache is JSON read through the report's field descriptions: the environment
/// part would otherwise compile that reader (about 4 s), and the report part, which only writes,
/// would grow by 2.4 s. Host code only, and empty where the program links the library CMake built
/// (GAUGE_LINKS_IMPLEMENTATION).

#if !defined(__CUDA_ARCH__) && !defined(GAUGE_LINKS_IMPLEMENTATION)

#include <optional>
#include <string>
#include <vector>

#include "gauge/core/peaks.hpp"
#include "gauge/protocol/seam.hpp"
#include "gauge/report/peaks_cache.hpp"

namespace gauge::detail {

std::vector<peaks::Peak> read_measured_peaks(const std::optional<std::string>& uuid, std::string& source) {
  if (!uuid || uuid->empty()) {
    source = "no GPU UUID: measured peaks not looked up";
    return {};
  }
  std::string why, path;
  auto file = detail::read_peaks_cache(*uuid, nvml_driver_version(), why, &path);
  if (!file) {
    source = why;
    return {};
  }
  source = path;
  return file->peaks;
}

}  // namespace gauge::detail

#endif  // !defined(__CUDA_ARCH__) && !defined(GAUGE_LINKS_IMPLEMENTATION)
