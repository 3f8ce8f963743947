#pragma once
/// \file gauge/core/cpu_counters.hpp
/// Hardware counters of the calling thread on Linux: CPU cycles and retired instructions, user
/// mode only, through `perf_event_open(2)` (one group, read together, scaled for multiplexing),
/// as nanobench and Google Benchmark's libpfm support read them. The host backend's rounds record
/// them beside process CPU time (Result::cpu_counters): cycles and instructions per step and
/// instructions per cycle. Where the kernel or the machine refuses (no PMU in a VM,
/// `kernel.perf_event_paranoid` > 2, seccomp in a container, not Linux), the record says why.

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

#include "gauge/core/cpu_counters_record.hpp"

#if defined(__linux__) && !defined(GAUGE_NO_PERF_EVENT)
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#define GAUGE_HAS_PERF_EVENT 1
#endif

namespace gauge {
namespace records {
/// One reading of a CpuCounters group.
struct CpuCounterReading {
  double cycles = 0, instructions = 0;  ///< scaled for multiplexing
  double running_fraction = 1;          ///< time_running / time_enabled of the group
};
}  // namespace records

namespace env {
/// The calling thread's cycles and instructions (user mode), opened once, read per round.
class CpuCounters {
 public:
  CpuCounters() = default;
  CpuCounters(const CpuCounters&) = delete;
  CpuCounters& operator=(const CpuCounters&) = delete;
  ~CpuCounters() { close(); }

  /// Opens the group for the calling thread; false with `error()` saying why.
  bool open() {
#if defined(GAUGE_HAS_PERF_EVENT)
    close();
    leader_ = open_one(PERF_COUNT_HW_CPU_CYCLES, -1, "CPU cycles");
    if (leader_ < 0) return false;
    member_ = open_one(PERF_COUNT_HW_INSTRUCTIONS, leader_, "instructions");
    if (member_ < 0) {
      close();
      return false;
    }
    ioctl(leader_, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
    ioctl(leader_, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
    return true;
#else
    error_ = "hardware counters need Linux's perf_event_open (not available in this build)";
    return false;
#endif
  }
  /// Whether the group is open.
  bool is_open() const { return leader_ >= 0; }
  /// Why open() failed.
  const std::string& error() const { return error_; }
  /// The counts since open(); nullopt (and `error()`) when the read fails.
  std::optional<records::CpuCounterReading> read() {
#if defined(GAUGE_HAS_PERF_EVENT)
    if (leader_ < 0) return std::nullopt;
    // PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING: nr, enabled, running, values[nr].
    std::uint64_t buf[5] = {};
    const ssize_t n = ::read(leader_, buf, sizeof buf);
    if (n != static_cast<ssize_t>(sizeof buf) || buf[0] != 2) {
      error_ = "reading the counters failed";
      return std::nullopt;
    }
    records::CpuCounterReading r;
    const double enabled = static_cast<double>(buf[1]), running = static_cast<double>(buf[2]);
    r.running_fraction = enabled > 0 ? running / enabled : 0;
    const double scale = running > 0 ? enabled / running : 0;
    r.cycles = static_cast<double>(buf[3]) * scale;
    r.instructions = static_cast<double>(buf[4]) * scale;
    return r;
#else
    return std::nullopt;
#endif
  }

 private:
#if defined(GAUGE_HAS_PERF_EVENT)
  int open_one(std::uint64_t config, int group, const char* what) {
    perf_event_attr a;
    std::memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_HARDWARE;
    a.size = sizeof a;
    a.config = config;
    if (group < 0) a.disabled = 1;     // the leader starts disabled; enabling it enables the group
    a.exclude_kernel = 1U;             // user mode: allowed at perf_event_paranoid <= 2
    a.exclude_hv = 1U;
    a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    const long fd = syscall(SYS_perf_event_open, &a, 0 /* this thread */, -1 /* any CPU */, group, 0UL);
    if (fd < 0) {
      const int e = errno;
      error_ = std::string("perf_event_open(") + what + "): " + std::strerror(e) +
               (e == ENOENT || e == EOPNOTSUPP ? " (no hardware counters here: a VM without a virtual PMU?)"
                : e == EACCES || e == EPERM    ? " (kernel.perf_event_paranoid or a container's seccomp forbids it)"
                                               : "");
      return -1;
    }
    return static_cast<int>(fd);
  }
#endif
  void close() {
#if defined(GAUGE_HAS_PERF_EVENT)
    if (member_ >= 0) ::close(member_);
    if (leader_ >= 0) ::close(leader_);
#endif
    member_ = leader_ = -1;
  }
  int leader_ = -1, member_ = -1;
  std::string error_;
};
}  // namespace env

}  // namespace gauge
