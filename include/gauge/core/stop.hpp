#pragma once
/// \file gauge/core/stop.hpp
/// A request to stop measuring, for signal handlers: every running experiment ends at its next
/// round boundary (warm-up or measurement), keeps what it measured and is marked `failed` with
/// the reason (stopping.reason "interrupted"). The suite runner (GAUGE_MAIN) asks for it on
/// SIGINT, SIGTERM, SIGHUP and SIGQUIT, writes the report of what finished and exits 128 + the
/// signal's number; a program of its own can call request_stop() from its own handler.

#include <signal.h>
#include <time.h>

#include <atomic>
#include <csignal>
#include <cstring>
#include <string>

namespace gauge {

namespace detail {
// 0: no request; -1: requested without a signal; > 0: the signal that asked. A lock-free int:
// safe to store from a signal handler (C++17 [support.signal]).
inline std::atomic<int> stop_state{0};
}  // namespace detail

/// Asks every experiment running in this process to stop at its next round boundary.
/// Async-signal-safe (one atomic store). \param signal the signal that asked (0: none).
inline void request_stop(int signal = 0) noexcept { detail::stop_state.store(signal > 0 ? signal : -1); }

/// Whether request_stop() was called (and not cleared since).
inline bool stop_requested() noexcept { return detail::stop_state.load() != 0; }

/// Forgets a stop request, so that later experiments run to their stopping rule again.
inline void clear_stop_request() noexcept { detail::stop_state.store(0); }

namespace detail {

/// The signal that asked for the stop (0: none, or asked without one).
inline int stop_signal() noexcept { return stop_state.load() > 0 ? stop_state.load() : 0; }

/// "SIGTERM" for 15, ... (the four the runner handles), else "signal N".
inline std::string signal_name(int signal) {
  switch (signal) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    case SIGQUIT: return "SIGQUIT";
    default: return "signal " + std::to_string(signal);
  }
}

/// CLOCK_MONOTONIC in nanoseconds (clock_gettime: async-signal-safe, POSIX).
inline long long monotonic_ns() noexcept {
  timespec t{};
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<long long>(t.tv_sec) * 1000000000LL + t.tv_nsec;
}
/// When the signal that asked for the stop arrived (monotonic_ns).
inline std::atomic<long long> stop_signal_ns{0};

/// The first of the four signals asks for a stop; a later one ends the process as its default
/// action would, except the same signal again within a second: that is the same request delivered
/// twice (GNU `timeout` and shells forward a signal to the child and then to its process group),
/// and ending at once would lose the report. Async-signal-safe (atomics, clock_gettime, signal and
/// raise).
inline void stop_on_signal_handler(int signal) {
  const int first = stop_state.load();
  if (first != 0) {
    if (first == signal && monotonic_ns() - stop_signal_ns.load() < 1000000000LL) return;
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  stop_signal_ns.store(monotonic_ns());
  request_stop(signal);
}

/// While it lives, SIGINT, SIGTERM, SIGHUP and SIGQUIT ask for a stop (request_stop) instead of
/// ending the process; a second one of them (another, or the same one a second or more later)
/// ends it as before. A signal the process was told to ignore (`nohup`, `trap '' INT`: SIG_IGN) stays ignored. The handlers it
/// replaced are put back, and the request cleared, when it ends. POSIX sigaction.
class StopOnSignals {
 public:
  StopOnSignals() {
    clear_stop_request();
    for (std::size_t i = 0; i < count; ++i) {
      struct sigaction a;
      std::memset(&a, 0, sizeof a);
      a.sa_handler = &stop_on_signal_handler;
      sigemptyset(&a.sa_mask);
      // Not SA_RESETHAND: the handler itself decides what a second delivery means (the same
      // signal within a second is a duplicate; anything else ends the process).
      a.sa_flags = SA_RESTART;
      if (::sigaction(signals[i], nullptr, &old_[i]) != 0) continue;
      if (!(old_[i].sa_flags & SA_SIGINFO) && old_[i].sa_handler == SIG_IGN) continue;  // ignored: leave it so
      installed_[i] = ::sigaction(signals[i], &a, nullptr) == 0;
    }
  }
  ~StopOnSignals() {
    for (std::size_t i = 0; i < count; ++i)
      if (installed_[i]) ::sigaction(signals[i], &old_[i], nullptr);
    clear_stop_request();
  }
  StopOnSignals(const StopOnSignals&) = delete;
  StopOnSignals& operator=(const StopOnSignals&) = delete;

 private:
  static constexpr std::size_t count = 4;
  static constexpr int signals[count] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
  struct sigaction old_[count];
  bool installed_[count] = {};
};

}  // namespace detail

}  // namespace gauge
