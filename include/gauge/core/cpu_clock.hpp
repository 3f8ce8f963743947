#pragma once
/// \file gauge/core/cpu_clock.hpp
/// The process's CPU time: what Google Benchmark's "CPU" column and POSIX `times()` report (user
/// plus system time of every thread of the process), as opposed to real (wall) time. The host
/// backend records it around every timed round, so a host result carries both: real time per step
/// from the steady clock (`gpu_time_s`, `time_label` "real time") and process CPU time per step
/// (`cpu_time_s`). Their ratio is the step's parallelism: ≈ 1 for a single-threaded busy step,
/// ≈ N for a step that keeps N threads busy, ≪ 1 for a step that sleeps or waits.

#include <algorithm>
#include <cmath>
#include <ctime>
#if defined(__unix__) || defined(__APPLE__)
#include <sys/resource.h>
#endif

namespace gauge {

namespace detail {
/// CPU time consumed so far by every thread of this process, seconds, from
/// `clock_gettime(CLOCK_PROCESS_CPUTIME_ID)` (POSIX.1-2008); NaN where the clock is unavailable.
/// Only differences of two readings mean anything. Not a vDSO call: ~0.1–0.5 µs per reading, so
/// gauge reads it once per round, outside every timed interval.
inline double process_cpu_seconds() noexcept {
#if defined(CLOCK_PROCESS_CPUTIME_ID)
  timespec ts{};
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return std::nan("");
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
#else
  const std::clock_t c = std::clock();
  if (c == static_cast<std::clock_t>(-1)) return std::nan("");
  return static_cast<double>(c) / CLOCKS_PER_SEC;
#endif
}

/// The CPU time one process_cpu_seconds() call costs, seconds: the median of the differences of
/// 63 back-to-back readings, measured once (NaN where the clock is unavailable). Between two
/// readings around an interval, about this much of the readings' own cost falls inside it; the
/// protocol takes it out of each round's CPU time once, and once more per setup call.
inline double process_cpu_read_cost() noexcept {
  static const double cost = [] {
    double t[64];
    for (double& x : t) x = process_cpu_seconds();
    double d[63];
    for (int i = 0; i < 63; ++i) d[i] = t[i + 1] - t[i];
    std::nth_element(d, d + 31, d + 63);
    return std::isfinite(d[31]) ? std::max(0.0, d[31]) : std::nan("");
  }();
  return cost;
}

/// Involuntary context switches of this process so far (every thread): `getrusage(RUSAGE_SELF)`'s
/// `ru_nivcsw` (POSIX; Linux counts a thread preempted by the scheduler); -1 where unknown. Only
/// differences mean anything. A sample that a preemption made slow holds at least one.
inline long involuntary_context_switches() noexcept {
#if defined(__unix__) || defined(__APPLE__)
  rusage u{};
  if (getrusage(RUSAGE_SELF, &u) != 0) return -1;
  return static_cast<long>(u.ru_nivcsw);
#else
  return -1;
#endif
}
}  // namespace detail

}  // namespace gauge
