#pragma once
/// \file gauge/env/process.hpp
/// This process's host memory (resident set size and its peak) from /proc/self/status.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "gauge/core/telemetry.hpp"

namespace gauge {

namespace detail {
/// Reads VmRSS and VmHWM (kB) from `root`/proc/self/status. Never throws; missing → empty.
inline records::ProcessMemory read_process_memory(const std::filesystem::path& root = "/") {
  records::ProcessMemory m;
  std::ifstream in(root / "proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    auto value = [&](const char* key) -> std::optional<std::uint64_t> {
      if (line.rfind(key, 0) != 0) return std::nullopt;
      std::istringstream ss(line.substr(std::char_traits<char>::length(key)));
      std::uint64_t kb = 0;
      if (ss >> kb) return kb * 1024;
      return std::nullopt;
    };
    if (auto v = value("VmRSS:")) m.rss_bytes = v;
    if (auto v = value("VmHWM:")) m.rss_peak_bytes = v;
  }
  return m;
}

/// Resets this process's peak resident set size (VmHWM) to its current one: writes "5" to
/// `root`/proc/self/clear_refs (Linux 4.0+, proc(5)), which clears nothing else. Every experiment
/// does so before it runs, so that its peak is its own, not an earlier experiment's. Returns
/// false where the file cannot be written (no /proc, an older kernel). Never throws.
inline bool reset_process_memory_peak(const std::filesystem::path& root = "/") {
  std::ofstream out(root / "proc/self/clear_refs");
  if (!out) return false;
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}

/// MemTotal from `root`/proc/meminfo, bytes; empty when unreadable.
inline std::optional<std::uint64_t> read_memory_total(const std::filesystem::path& root = "/") {
  std::ifstream in(root / "proc/meminfo");
  std::string key;
  std::uint64_t kb = 0;
  while (in >> key >> kb) {
    if (key == "MemTotal:") return kb * 1024;
    in.ignore(256, '\n');
  }
  return std::nullopt;
}
}  // namespace detail

}  // namespace gauge
