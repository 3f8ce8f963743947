#pragma once
/// \file gauge/backends/host_backend.hpp
/// HostBackend: times CPU-only steps with the host's steady clock, so the whole protocol, reports
/// included, runs on a machine without a GPU. Markers are host timestamps; the gate and the cache
/// flush are not needed (steps run synchronously on the calling thread).

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "gauge/core/config.hpp"
#include "gauge/core/error.hpp"
#include "gauge/core/result.hpp"
#include "gauge/protocol/seam.hpp"

namespace gauge {

/// The "stream" a host step receives: an empty tag (host steps run on the calling thread).
struct HostStream {};

/// Backend for CPU-only steps: host clock, no gate, no flush. See experiment.hpp for the
/// backend interface every backend implements.
class HostBackend {
 public:
  using stream_type = HostStream;
  static constexpr const char* name = "host";
  /// What the per-step samples are (Result::time_label) and the clock behind them (time_clock):
  /// real (elapsed) time of the calling thread's steps. Process CPU time per step is recorded
  /// beside it (Result::cpu_time, gauge/core/cpu_clock.hpp).
  static constexpr const char* time_label = "real time";
  static constexpr const char* time_clock = "host steady clock";

  GateSupport gate_support() const { return GateSupport::not_needed; }
  bool graph_supported() const { return false; }
  bool flush_supported() const { return false; }

  /// Nothing to initialize; describes the host as the device.
  DeviceRecord prepare(const Config&) {
    markers_.clear();
    markers_.reserve(1024);
    DeviceRecord d;
    d.ordinal = -1;
    d.name = "host CPU";
    return d;
  }
  void finish() noexcept {}
  stream_type stream() { return {}; }
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
};

}  // namespace gauge
