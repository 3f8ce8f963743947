#pragma once
/// \file gauge/env/host.hpp
/// Detects the host environment a measurement runs in (CPU, memory, NUMA, OS, container / WSL /
/// VM), the compiler that built the benchmark, and the environment variables that change how CUDA
/// code behaves.
///
/// `detect_host(root)` reads every file below `root` (default "/"), so tests can point it at a fake
/// tree holding `proc/`, `sys/`, `etc/` and `run/`. Data that only the live system can give
/// (`uname`, `std::thread::hardware_concurrency()`, `KUBERNETES_SERVICE_HOST`, CPUID) is used only
/// when `root` is "/". Detection never throws: what cannot be read is `std::nullopt`, and
/// `HostInfo::notes` says why. Linux only.

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <gauge/core/host_info.hpp>
#include <gauge/env/compiler.hpp>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <gauge/env/host/environment_variables.hpp>
#include <gauge/env/host/files.hpp>
#include <gauge/env/host/hardware.hpp>
#include <gauge/env/host/system.hpp>

namespace gauge {

namespace detail {
/// Detects the host by reading `/proc`, `/sys`, `/etc` and `/run` below `root` (an empty path
/// means "/"). When `root` is the live root "/", also uses `uname()`,
/// `std::thread::hardware_concurrency()`, `KUBERNETES_SERVICE_HOST` and CPUID. Never throws on
/// missing, unreadable or malformed files: the affected fields are `std::nullopt` and
/// `HostInfo::notes` says why; an unexpected failure inside one part (CPU, memory, NUMA, OS,
/// virtualization) becomes a note too.
inline env::HostInfo detect_host(const std::filesystem::path& root = "/") {
  env::HostInfo info;
  const std::filesystem::path r = root.empty() ? std::filesystem::path("/") : root;
  std::error_code ec;
  const bool live = std::filesystem::equivalent(r, "/", ec) && !ec;
  const detail::host::Reader reader(r, live);
  auto guarded = [&](const char* part, void (*fn)(const detail::host::Reader&, env::HostInfo&)) {
    try {
      fn(reader, info);
    } catch (const std::exception& e) {
      info.notes.push_back(std::string(part) + " detection failed: " + e.what());
    } catch (...) {
      info.notes.push_back(std::string(part) + " detection failed");
    }
  };
  guarded("CPU", &detail::host::detect_cpu);
  guarded("memory", &detail::host::detect_memory);
  guarded("NUMA", &detail::host::detect_numa);
  guarded("OS", &detail::host::detect_os);
  guarded("virtualization", &detail::host::detect_virtualization);
  return info;
}
}  // namespace detail

}  // namespace gauge
