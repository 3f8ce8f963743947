#pragma once
// A deterministic fake backend: a virtual host clock and one virtual device stream, with scripted
// kernel durations, launch costs, event costs, a launch gate with a timeout, a second stream,
// and graph capture. Every rule of the protocol is tested on it, on a CPU, in CI.
//
// Model. Host calls cost host time (launch_cost per kernel, record_cost per event). The device
// runs the stream's operations in order: an operation starts at max(previous end, its enqueue
// time) and, behind a closed gate, not before the gate opens (or times out). An event between
// operations costs `event_device_cost` of device time. synchronize() moves the host clock to the
// end of all device work (both streams).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "gauge/backends/host_backend.hpp"
#include "gauge/core/config.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/telemetry.hpp"
#include "gauge/env/telemetry.hpp"
#include "gauge/experiment.hpp"

namespace gauge::testing {

class FakeDevice;

/// What a fake step receives: launch kernels on the experiment's stream or another one.
struct FakeStream {
  FakeDevice* device = nullptr;
  /// Launches a kernel of `seconds` on the experiment's stream; `name` is its (mangled) symbol,
  /// as the activity records of a kernel trace carry it (tests/fake_cupti.hpp).
  void kernel(double seconds, const char* name = "_Z11fake_kernelv") const;
  /// Launches a kernel of `seconds` on another stream (the events never see it).
  void kernel_on_other_stream(double seconds) const;
  /// Synchronizes the host with the device, as a step that copies a result back would.
  void synchronize_host() const;
};

class FakeDevice {
 public:
  // ---- script ----
  double launch_cost = 2e-6;         ///< host seconds per kernel launch
  double record_cost = 0.5e-6;       ///< host seconds per event record
  double sync_cost = 5e-6;           ///< host seconds per synchronize, beyond the wait
  double event_device_cost = 0.0;    ///< device seconds an event adds
  double flush_duration = 20e-6;     ///< device seconds of one L2 flush
  double resolution = 0.5e-6;        ///< timer resolution reported
  std::size_t queue_capacity = 1024; ///< pending operations before a launch blocks the host
  bool gate_available = true;
  bool graph_available = true;
  /// Streams: the backend keeps a pool of config.measure.streams streams (or one, when
  /// `caller_stream`); every kernel issued while stream i is current takes
  /// stream_offset[i % size] seconds longer (the device's launch gap per hardware queue).
  std::vector<double> stream_offset;
  bool caller_stream = false;

  // Telemetry: a reading as a function of the virtual host time (null: no telemetry source).
  std::function<gauge::records::TelemetrySample(double)> telemetry;
  double sm_clock_max_mhz = 1980;
  /// The device's peak-relevant attributes (gauge/core/peaks.hpp); empty: the backend knows none.
  std::optional<gauge::peaks::DeviceAttributes> attributes;
  /// The UUID prepare() reports (the peaks cache is keyed by it); empty: none.
  std::optional<std::string> uuid;
  /// The SM clock probe (gauge/cuda/clock_probe.hpp): the mean SM clock, MHz, of the i-th probed
  /// round (0-based, counted over the device's life); null: the backend has no probe.
  std::function<double(std::size_t)> round_clock_mhz;
  std::size_t probed_rounds = 0;  ///< probe readings taken so far
  std::vector<std::pair<unsigned, std::uint64_t>> processes;  ///< compute processes on the GPU
  /// What FakeBackend::cache_flush_record() says (the report's `sampling.cache_flush`); empty:
  /// the backend does not describe its flush.
  std::optional<gauge::records::CacheFlushRecord> flush_record;
  /// NVML GPM through the telemetry probe: the reading gpm_end() returns; empty: no GPM, and
  /// gpm_begin() answers `gpm_reason`. `gpm_begin_host`/`gpm_end_host`: the virtual host time at
  /// each sample.
  std::optional<gauge::detail::GpmReading> gpm;
  std::string gpm_reason = "fake device without GPM";
  double gpm_begin_host = -1, gpm_end_host = -1;
  // Device memory (steps may change device_used to model allocations).
  std::uint64_t device_total = 80ull << 30;
  std::uint64_t device_used = 1ull << 30;
  std::optional<std::uint64_t> pool_used_high, pool_reserved_high;
  std::map<std::string, gauge::records::KernelBinaryRecord> kernel_binaries; ///< by kernel name
  /// Kernel tracing (tests/fake_cupti.hpp): called when a kernel is launched on the stream (its
  /// correlation id is returned) and when it has run (correlation id, name, device start and end
  /// in seconds, stream of the pool).
  std::function<std::uint32_t()> on_launch;
  std::function<void(std::uint32_t, const char*, double, double, std::size_t)> on_kernel_run;

  // ---- state ----
  double host = 0;             ///< virtual host clock, seconds
  std::size_t kernels = 0;     ///< kernels launched on the stream (captured ones count at replay)
  std::size_t gates = 0;       ///< gates closed
  std::size_t gate_timeouts = 0;
  std::size_t flushes = 0;
  std::size_t markers_recorded = 0;
  std::size_t synchronizations = 0;
  std::vector<double> kernel_starts;  ///< device start time of every stream kernel
  std::size_t current_stream = 0;     ///< the pool's stream in use
  std::vector<std::size_t> kernels_per_stream;  ///< kernels issued on each stream of the pool
  double offset() const { return stream_offset.empty() ? 0.0 : stream_offset[current_stream % stream_offset.size()]; }

  double advance(double dt) { return host += dt; }

  // ---- device queue ----
  struct Op {
    enum Kind { kernel, marker, gate, flush } kind;
    double enqueue = 0;
    double duration = 0;
    std::size_t marker_id = 0;
    std::uint32_t correlation = 0;  ///< kernels: the fake CUPTI's correlation id (0: none)
    const char* name = nullptr;     ///< kernels: the symbol
    std::size_t stream = 0;         ///< kernels: the pool's stream it was launched on
  };

  void enqueue(Op op) {
    if (capturing_ && op.kind == Op::kernel) {
      captured_.push_back(op.duration - offset());  // a replay pays its own stream's offset
      return;
    }
    if (pending_.size() >= queue_capacity) {
      // The host blocks until a slot frees: behind an unresolved gate that is its timeout.
      resolve_gate_by_timeout();
      run_queue();
    }
    op.enqueue = host;
    pending_.push_back(op);
    run_queue();
  }

  void synchronize_all() {
    ++synchronizations;
    resolve_gate_by_timeout();
    run_queue();
    host = std::max({host, stream_free_, other_free_}) + sync_cost;
  }

  void other_kernel(double seconds) { other_free_ = std::max(other_free_, host) + seconds; }

  void close_gate(double timeout) {
    ++gates;
    gate_timed_out_ = false;
    gate_resolved_ = false;
    gate_close_ = host;
    gate_timeout_ = timeout;
    Op op{Op::gate, 0, 0, 0};
    enqueue(op);
  }
  void open_gate() {
    if (!gate_resolved_) {
      if (host > gate_close_ + gate_timeout_) {
        gate_end_ = gate_close_ + gate_timeout_;
        gate_timed_out_ = true;
        ++gate_timeouts;
      } else {
        gate_end_ = host;
      }
      gate_resolved_ = true;
    }
    run_queue();
  }
  bool gate_timed_out() const { return gate_timed_out_; }

  std::size_t new_marker() {
    if (marker_time_.size() <= used_) marker_time_.resize(used_ + 1);
    marker_time_[used_] = std::numeric_limits<double>::quiet_NaN();
    return used_++;
  }
  double marker(std::size_t i) const {
    double t = marker_time_.at(i);
    if (t != t) throw std::logic_error("fake: marker read before it completed");
    return t;
  }
  void reset_markers() { used_ = 0; }

  // graph capture
  void begin_capture() {
    capturing_ = true;
    captured_.clear();
  }
  void end_capture() { capturing_ = false; graph_ = captured_; }
  void launch_graph() {
    host += launch_cost;
    for (double d : graph_) {
      Op op{Op::kernel, 0, d + offset(), 0};
      enqueue(op);
    }
  }
  bool capturing() const { return capturing_; }

 private:
  void resolve_gate_by_timeout() {
    if (!gate_resolved_ && has_pending_gate()) {
      gate_end_ = gate_close_ + gate_timeout_;
      gate_timed_out_ = true;
      gate_resolved_ = true;
      ++gate_timeouts;
      host = std::max(host, gate_end_);
    }
  }
  bool has_pending_gate() const {
    for (const auto& op : pending_)
      if (op.kind == Op::gate) return true;
    return false;
  }
  void run_queue() {
    while (!pending_.empty()) {
      Op& op = pending_.front();
      double start = std::max(stream_free_, op.enqueue);
      if (op.kind == Op::gate) {
        if (!gate_resolved_) return;  // holds the stream
        stream_free_ = std::max(start, gate_end_);
      } else if (op.kind == Op::kernel) {
        kernel_starts.push_back(start);
        ++kernels;
        stream_free_ = start + op.duration;
        if (on_kernel_run && op.name) on_kernel_run(op.correlation, op.name, start, stream_free_, op.stream);
      } else if (op.kind == Op::flush) {
        ++flushes;
        stream_free_ = start + op.duration;
      } else {
        stream_free_ = start + event_device_cost;
        marker_time_.at(op.marker_id) = stream_free_;
      }
      pending_.erase(pending_.begin());
    }
  }

  std::vector<Op> pending_;
  double stream_free_ = 0;
  double other_free_ = 0;
  bool gate_resolved_ = true;
  bool gate_timed_out_ = false;
  double gate_close_ = 0, gate_timeout_ = 0, gate_end_ = 0;
  std::vector<double> marker_time_;
  std::size_t used_ = 0;
  bool capturing_ = false;
  std::vector<double> captured_, graph_;
};

inline void FakeStream::kernel(double seconds, const char* name) const {
  device->advance(device->launch_cost);
  if (device->current_stream < device->kernels_per_stream.size()) ++device->kernels_per_stream[device->current_stream];
  FakeDevice::Op op{FakeDevice::Op::kernel, 0, seconds + device->offset(), 0};
  op.name = name;
  op.stream = device->current_stream;
  if (device->on_launch) op.correlation = device->on_launch();
  device->enqueue(op);
}
inline void FakeStream::kernel_on_other_stream(double seconds) const {
  device->advance(device->launch_cost);
  device->other_kernel(seconds);
}
inline void FakeStream::synchronize_host() const { device->synchronize_all(); }

/// The backend over a FakeDevice (held by pointer, so the test keeps and scripts the device).
class FakeBackend {
 public:
  using stream_type = FakeStream;
  static constexpr const char* name = "fake";

  explicit FakeBackend(FakeDevice* device) : dev_(device) {}

  backend_parts::GateSupport gate_support() const { return dev_->gate_available ? backend_parts::GateSupport::available : backend_parts::GateSupport::unavailable; }
  bool graph_supported() const { return dev_->graph_available; }
  bool flush_supported() const { return true; }
  records::DeviceRecord prepare(const Config& config) {
    ++prepared;
    streams_ = dev_->caller_stream ? 1 : config.measure.streams;
    dev_->current_stream = 0;
    dev_->kernels_per_stream.assign(streams_, 0);
    records::DeviceRecord d;
    d.ordinal = 0;
    d.name = "fake GPU";
    d.uuid = dev_->uuid;
    return d;
  }
  void finish() noexcept { ++finished; }
  std::optional<gauge::peaks::DeviceAttributes> device_attributes() const { return dev_->attributes; }
  std::optional<gauge::records::CacheFlushRecord> cache_flush_record() { return dev_->flush_record; }
  stream_type stream() { return FakeStream{dev_}; }
  std::size_t stream_count() const { return streams_; }
  void select_stream(std::size_t i) { dev_->current_stream = i % streams_; }
  bool caller_stream() const { return dev_->caller_stream; }
  double now() const { return dev_->host; }
  std::size_t record() {
    dev_->advance(dev_->record_cost);
    ++dev_->markers_recorded;
    std::size_t id = dev_->new_marker();
    FakeDevice::Op op{FakeDevice::Op::marker, 0, 0, id};
    dev_->enqueue(op);
    return id;
  }
  double elapsed(std::size_t a, std::size_t b) const { return dev_->marker(b) - dev_->marker(a); }
  void reset_markers() { dev_->reset_markers(); }
  void synchronize() { dev_->synchronize_all(); }
  void gate_close(Nanoseconds timeout) { dev_->close_gate(to_seconds(timeout)); }
  void gate_open() { dev_->open_gate(); }
  bool gate_timed_out() const { return dev_->gate_timed_out(); }
  void flush_cache() {
    dev_->advance(dev_->launch_cost);
    FakeDevice::Op op{FakeDevice::Op::flush, 0, dev_->flush_duration, 0};
    dev_->enqueue(op);
  }
  template <class F>
  void capture(F&& enqueue) {
    dev_->begin_capture();
    enqueue();
    dev_->end_capture();
  }
  void launch_graph() { dev_->launch_graph(); }
  double timer_resolution() const { return dev_->resolution; }
  bool clock_probe_supported() const { return static_cast<bool>(dev_->round_clock_mhz); }
  void clock_probe_start() {}
  void clock_probe_stop() {}
  std::optional<gauge::records::SmClockReading> clock_probe_read() {
    if (!dev_->round_clock_mhz) return std::nullopt;
    return gauge::records::SmClockReading{dev_->round_clock_mhz(dev_->probed_rounds++), 132, 0.0};
  }

  std::unique_ptr<gauge::env::TelemetryProbe> telemetry_probe(std::string& reason) {
    if (!dev_->telemetry) {
      reason = "fake device without telemetry";
      return nullptr;
    }
    struct Probe : gauge::env::TelemetryProbe {
      FakeDevice* d;
      explicit Probe(FakeDevice* dd) : d(dd) {}
      gauge::records::TelemetrySample read() override { return d->telemetry(d->host); }
      std::optional<double> sm_clock_max_mhz() override { return d->sm_clock_max_mhz; }
      std::vector<std::pair<unsigned, std::uint64_t>> processes() override { return d->processes; }
      std::string gpm_begin() override {
        if (!d->gpm) return d->gpm_reason;
        d->gpm_begin_host = d->host;
        return "";
      }
      std::optional<gauge::detail::GpmReading> gpm_end(std::string& reason) override {
        d->gpm_end_host = d->host;
        if (!d->gpm) reason = d->gpm_reason;
        return d->gpm;
      }
    };
    return std::make_unique<Probe>(dev_);
  }
  gauge::records::DeviceMemorySnapshot memory_snapshot() {
    gauge::records::DeviceMemorySnapshot m;
    m.total_bytes = dev_->device_total;
    m.used_bytes = dev_->device_used;
    m.pool_used_high_bytes = dev_->pool_used_high;
    m.pool_reserved_high_bytes = dev_->pool_reserved_high;
    return m;
  }
  void reset_memory_watermarks() {}
  gauge::records::KernelBinaryRecord kernel_binary(const void*, const std::string& kernel_name) {
    auto it = dev_->kernel_binaries.find(kernel_name);
    if (it == dev_->kernel_binaries.end()) throw std::runtime_error("fake: unknown kernel " + kernel_name);
    return it->second;
  }
  std::vector<std::pair<std::string, const void*>> own_kernels() const { return {}; }

  int prepared = 0;
  int finished = 0;

 private:
  FakeDevice* dev_;
  std::size_t streams_ = 1;
};

/// An Experiment named `name` that runs `step` on a FakeBackend over `dev` (default Config).
template <class Step>
auto fake_experiment(FakeDevice& dev, Step step, const char* name = "fake") {
  return gauge::make_experiment<FakeBackend>(name, step, FakeBackend(&dev));
}

}  // namespace gauge::testing
