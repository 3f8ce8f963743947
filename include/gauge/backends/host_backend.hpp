#pragma once
/// \file gauge/backends/host_backend.hpp
/// HostBackend: times CPU-only steps with the host's steady clock, so the whole protocol, reports
/// included, runs on a machine without a GPU. Markers are host timestamps; the gate and the cache
/// flush are not needed (steps run synchronously on the calling thread).

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "gauge/backends/host_threads.hpp"
#include "gauge/core/config.hpp"
#include "gauge/core/error.hpp"
#include "gauge/core/result.hpp"
#include "gauge/protocol/seam.hpp"

namespace gauge {

/// The "stream" a host step receives. A step runs on the thread that measures it, or, with
/// `Experiment::threads(n)`, once on each of n threads at a time: then `thread` is the calling
/// thread's index in [0, threads) and `threads` is n (0 and 1 otherwise).
struct HostStream {
  unsigned thread = 0;   ///< this call's thread, 0 … threads − 1
  unsigned threads = 1;  ///< threads running the step at once
};

/// Backend for CPU-only steps: host clock, no gate, no flush. See experiment.hpp for the
/// backend interface every backend implements. With threads(n) > 1 (`Experiment::threads`), a
/// step is n calls of the step at once, one per thread (detail::HostThreadTeam): its time runs
/// from before the threads are woken until the last of them returned.
class HostBackend {
 public:
  /// One thread (the caller's).
  HostBackend() = default;
  /// Steps on `threads` threads at once (any integer type: a suite's int64 axis value is checked
  /// before it is narrowed). \throws ConfigError outside [1, 4096], naming the value.
  template <class Int, std::enable_if_t<std::is_integral_v<Int> && !std::is_same_v<Int, bool>, int> = 0>
  explicit HostBackend(Int threads) {
    set_threads(threads);
  }
  /// A copy has the same settings and starts its own threads at prepare().
  HostBackend(const HostBackend& o) : threads_(o.threads_), threads_declared_(o.threads_declared_) {}
  HostBackend& operator=(const HostBackend& o) {
    if (this != &o) {
      threads_ = o.threads_;
      threads_declared_ = o.threads_declared_;
      team_.reset();
      markers_.clear();
    }
    return *this;
  }
  HostBackend(HostBackend&&) noexcept = default;
  HostBackend& operator=(HostBackend&&) noexcept = default;
  ~HostBackend() = default;

  using stream_type = HostStream;
  static constexpr const char* name = "host";
  /// What the per-step samples are (Result::time_label) and the clock behind them (time_clock):
  /// real (elapsed) time of the calling thread's steps. Process CPU time per step is recorded
  /// beside it (Result::cpu_time, gauge/core/cpu_clock.hpp).
  static constexpr const char* time_label = "real time";
  static constexpr const char* time_clock = "host steady clock";

  backend_parts::GateSupport gate_support() const { return backend_parts::GateSupport::not_needed; }
  bool graph_supported() const { return false; }
  bool flush_supported() const { return false; }

  /// Steps on `n` threads at once from the next prepare() on (any integer type, checked before it
  /// is narrowed). \throws ConfigError outside [1, 4096], naming the value.
  template <class Int, std::enable_if_t<std::is_integral_v<Int> && !std::is_same_v<Int, bool>, int> = 0>
  void set_threads(Int n) {
    bool ok = false;
    if constexpr (std::is_signed_v<Int>) ok = static_cast<long long>(n) >= 1 && static_cast<long long>(n) <= 4096;
    else ok = static_cast<unsigned long long>(n) >= 1 && static_cast<unsigned long long>(n) <= 4096;
    if (!ok) throw ConfigError("threads must be in [1, 4096], got " + std::to_string(n));
    threads_ = static_cast<unsigned>(n);
    threads_declared_ = true;
  }
  /// The threads a step runs on at once.
  unsigned threads() const { return threads_; }
  /// Whether the threads were asked for (a constructor or set_threads, 1 included): the result
  /// then has the dimension `threads`.
  bool threads_declared() const { return threads_declared_; }

  /// Starts the threads (with threads() > 1); describes the host as the device.
  records::DeviceRecord prepare(const Config&) {
    markers_.clear();
    markers_.reserve(1024);
    team_.reset();
    if (threads_ > 1) team_ = std::make_unique<detail::HostThreadTeam>(threads_);
    records::DeviceRecord d;
    d.ordinal = -1;
    d.name = "host CPU";
    return d;
  }
  /// Joins the threads.
  void finish() noexcept { team_.reset(); }
  stream_type stream() { return {}; }
  /// Runs `steps` calls of `step` on each thread at once (after prepare(), threads() > 1); returns
  /// when every thread finished them. Rethrows the first exception a call threw.
  template <class Step>
  void run_threads(Step& step, std::size_t steps) {
    team_->run(
        [](void* context, unsigned thread, unsigned threads, std::size_t n) {
          Step& s = *static_cast<Step*>(context);
          const HostStream stream{thread, threads};
          for (std::size_t i = 0; i < n; ++i) s(stream);
        },
        &step, steps);
  }
  /// Host steady clock, seconds since an arbitrary epoch.
  double now() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
  /// Records the host clock; returns the marker's id.
  std::size_t record() {
    markers_.push_back(now());
    return markers_.size() - 1;
  }
  /// Seconds between two markers.
  double elapsed(std::size_t a, std::size_t b) const { return markers_.at(b) - markers_.at(a); }
  void reset_markers() { markers_.clear(); }
  void synchronize() {}
  void gate_close(Nanoseconds) {}
  void gate_open() {}
  bool gate_timed_out() const { return false; }
  void flush_cache() { throw ConfigError("cache = cold needs a GPU backend; the host backend has no L2 flush"); }
  template <class F>
  void capture(F&&) { throw ConfigError("gpu_timing = graph needs the CUDA backend"); }
  void launch_graph() { throw ConfigError("gpu_timing = graph needs the CUDA backend"); }
  /// Resolution of std::chrono::steady_clock, measured once (smallest non-zero tick seen).
  double timer_resolution() const {
    static const double r = [] {
      double best = 1.0;
      for (int i = 0; i < 200; ++i) {
        auto a = std::chrono::steady_clock::now();
        auto b = a;
        while (b == a) b = std::chrono::steady_clock::now();
        best = std::min(best, std::chrono::duration<double>(b - a).count());
      }
      return best;
    }();
    return r;
  }

 private:
  std::vector<double> markers_;
  unsigned threads_ = 1;
  bool threads_declared_ = false;
  std::unique_ptr<detail::HostThreadTeam> team_;  // with threads_ > 1, from prepare() to finish()
};

}  // namespace gauge
