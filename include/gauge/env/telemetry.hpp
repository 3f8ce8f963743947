#pragma once
/// \file gauge/env/telemetry.hpp
/// The telemetry sampler: a background thread that reads the experiment's GPU (SM and memory
/// clocks, power, temperature, clock event reasons, this process's GPU memory) at a fixed interval
/// during warm-up and measurement. The protocol also takes a reading at every round boundary, so
/// each round has at least one.

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "gauge/core/telemetry.hpp"
#include "gauge/env/nvml.hpp"
#include "gauge/env/nvml_gpm.hpp"

namespace gauge {
namespace env {
/// Telemetry from NVML for one device handle.
class NvmlProbe : public TelemetryProbe {
 public:
  /// \param lib a loaded NVML (ok() must be true); \param dev the device's handle.
  NvmlProbe(std::shared_ptr<detail::nvml::Library> lib, detail::nvml::Device dev) : lib_(std::move(lib)), dev_(dev), gpm_(lib_, dev) {}

  records::TelemetrySample read() override {
    const detail::nvml::Api& a = lib_->api();
    records::TelemetrySample s;
    unsigned v = 0;
    if (a.device_get_clock_info && a.device_get_clock_info(dev_, detail::nvml::clock_sm, &v) == detail::nvml::success) s.sm_clock_mhz = v;
    if (a.device_get_clock_info && a.device_get_clock_info(dev_, detail::nvml::clock_mem, &v) == detail::nvml::success) s.memory_clock_mhz = v;
    if (a.device_get_power_usage && a.device_get_power_usage(dev_, &v) == detail::nvml::success) s.power_w = v / 1000.0;
    if (a.device_get_temperature && a.device_get_temperature(dev_, detail::nvml::temperature_gpu, &v) == detail::nvml::success)
      s.temperature_c = v;
    unsigned long long reasons = 0;
    if (a.device_get_clocks_event_reasons && a.device_get_clocks_event_reasons(dev_, &reasons) == detail::nvml::success)
      s.clock_event_reasons = reasons;
    const unsigned pid = static_cast<unsigned>(::getpid());
    for (const auto& [p, bytes] : processes())
      if (p == pid) s.process_memory_bytes = bytes;
    return s;
  }
  std::optional<double> sm_clock_max_mhz() override {
    unsigned v = 0;
    const detail::nvml::Api& a = lib_->api();
    if (a.device_get_max_clock_info && a.device_get_max_clock_info(dev_, detail::nvml::clock_sm, &v) == detail::nvml::success) return v;
    return std::nullopt;
  }
  std::vector<std::pair<unsigned, std::uint64_t>> processes() override {
    std::vector<std::pair<unsigned, std::uint64_t>> out;
    const detail::nvml::Api& a = lib_->api();
    if (!a.device_get_compute_running_processes) return out;
    detail::nvml::ProcessInfo infos[64];
    unsigned n = 64;
    if (a.device_get_compute_running_processes(dev_, &n, infos) != detail::nvml::success) return out;
    for (unsigned i = 0; i < n && i < 64; ++i) out.emplace_back(infos[i].pid, infos[i].used_gpu_memory);
    return out;
  }
  /// GPM's first sample (gauge/env/nvml_gpm.hpp): "" when taken, else why not.
  std::string gpm_begin() override { return gpm_.begin(); }
  /// GPM's second sample and NVML's metrics since gpm_begin().
  std::optional<detail::GpmReading> gpm_end(std::string& reason) override { return gpm_.end(reason); }

 private:
  std::shared_ptr<detail::nvml::Library> lib_;
  detail::nvml::Device dev_;
  detail::nvml::GpmSampler gpm_;
};

/// Samples a probe on a background thread every `interval` (0 = no thread: readings only from
/// sample_now()). Times are `clock() - origin` seconds, with the protocol's host clock.
class TelemetrySampler {
 public:
  /// \param probe the source (owned); \param interval sampling period; \param clock the host
  /// clock in seconds; \param origin subtracted from every time.
  TelemetrySampler(std::unique_ptr<TelemetryProbe> probe, std::chrono::nanoseconds interval,
                   std::function<double()> clock, double origin)
      : probe_(std::move(probe)), interval_(interval), clock_(std::move(clock)), origin_(origin) {}
  ~TelemetrySampler() { stop(); }
  TelemetrySampler(const TelemetrySampler&) = delete;
  TelemetrySampler& operator=(const TelemetrySampler&) = delete;

  /// Starts the background thread (no-op for a zero interval).
  void start() {
    if (interval_.count() <= 0 || thread_.joinable()) return;
    running_ = true;
    thread_ = std::thread([this] {
      std::unique_lock<std::mutex> lock(mutex_);
      while (running_) {
        take_locked();
        cv_.wait_for(lock, interval_, [this] { return !running_; });
      }
    });
  }
  /// Stops the thread and takes a last reading. Idempotent.
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!running_ && !thread_.joinable()) return;
      running_ = false;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  /// Takes a reading now (from the calling thread).
  void sample_now() {
    std::lock_guard<std::mutex> lock(mutex_);
    take_locked();
  }
  /// All readings so far, in time order.
  std::vector<records::TelemetrySample> samples() const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto v = samples_;
    std::stable_sort(v.begin(), v.end(), [](const records::TelemetrySample& a, const records::TelemetrySample& b) { return a.t_s < b.t_s; });
    return v;
  }
  /// The probe (for static queries such as the maximum clock).
  TelemetryProbe& probe() { return *probe_; }

 private:
  void take_locked() {
    records::TelemetrySample s = probe_->read();
    s.t_s = clock_() - origin_;
    samples_.push_back(s);
  }

  std::unique_ptr<TelemetryProbe> probe_;
  std::chrono::nanoseconds interval_;
  std::function<double()> clock_;
  double origin_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  bool running_ = false;
  std::thread thread_;
  std::vector<records::TelemetrySample> samples_;
};
}  // namespace env

}  // namespace gauge
