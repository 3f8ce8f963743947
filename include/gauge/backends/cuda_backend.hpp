#pragma once
/// \file gauge/backends/cuda_backend.hpp
/// CudaBackend: the real backend. GPU time from CUDA events on the experiment's stream, wall time
/// from the host's steady clock around a device-wide synchronize, the launch gate (needs nvcc),
/// the L2 flush, and CUDA graph capture. What does not depend on the compiler of this file (the
/// device, its streams and events) is detail::CudaDevice, compiled once with gauge's compiled part;
/// what needs nvcc here (the gate, the flush's read kernel, the SM clock probe) is inline.

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gauge/backends/cuda_device.hpp"
#include "gauge/core/config.hpp"
#include "gauge/core/result.hpp"
#include "gauge/cuda/check.hpp"
#include "gauge/cuda/clock_probe.hpp"
#include "gauge/cuda/gate.hpp"
#include "gauge/cuda/l2_flush.hpp"
#include "gauge/detail/compile_mode.hpp"
#include "gauge/protocol/seam.hpp"

GAUGE_BEGIN_COMPILE_MODE_NAMESPACE

/// Backend for CUDA steps. By default it measures on `measure.streams` non-blocking streams of the
/// process's pool for the configured device (detail::SharedStreamPool, reused by every
/// experiment), over which the protocol rotates its rounds (the interval of the median then
/// covers the stream's effect: gauge/core/stream_effect.hpp); construct it with a stream, or call
/// adopt_stream, to measure on the caller's stream only. Not copyable; movable.
class CudaBackend {
 public:
  using stream_type = cudaStream_t;
  static constexpr const char* name = "cuda";
  /// What the per-step samples are (Result::time_label) and the clock behind them (time_clock).
  static constexpr const char* time_label = "GPU time";
  static constexpr const char* time_clock = "CUDA events";

  /// Creates its own pool of streams at prepare().
  CudaBackend() = default;
  /// Adopts `stream` (not destroyed by gauge). The stream's device must be the configured device.
  explicit CudaBackend(cudaStream_t stream) : device_(stream) {}
  /// Measures on `stream` from the next prepare() on (as the constructor above).
  void adopt_stream(cudaStream_t stream) {
    finish();
    device_.adopt_stream(stream);
  }
  CudaBackend(const CudaBackend&) = delete;
  CudaBackend& operator=(const CudaBackend&) = delete;
  CudaBackend(CudaBackend&& o) noexcept { swap(o); }
  CudaBackend& operator=(CudaBackend&& o) noexcept {
    swap(o);
    return *this;
  }
  ~CudaBackend() { finish(); }

  backend_parts::GateSupport gate_support() const {
    return backend_parts::LaunchGate::available ? backend_parts::GateSupport::available : backend_parts::GateSupport::unavailable;
  }
  bool graph_supported() const { return true; }
  bool flush_supported() const { return true; }

  /// Selects the device (restored at finish()), initializes the context outside any timing,
  /// creates the stream. Throws ConfigError for a device that does not exist, CudaError otherwise.
  records::DeviceRecord prepare(const Config& config) {
    records::DeviceRecord d = device_.prepare(config);
    gate_ = std::make_unique<backend_parts::LaunchGate>();
    flush_ = std::make_unique<backend_parts::L2Flush>();
    // Two one-thread blocks per SM: each probe then lands on (nearly) every SM.
    if (backend_parts::ClockProbe::available) clock_ = std::make_unique<backend_parts::ClockProbe>(2u * static_cast<unsigned>(std::max(1, device_.multiprocessors())));
    GAUGE_CUDA_CHECK(cudaDeviceSynchronize());
    return d;
  }

  /// Releases events, graph, stream (if owned) and restores the caller's device. Never throws.
  void finish() noexcept {
    gate_.reset();
    flush_.reset();
    clock_.reset();
    device_.finish();
  }

  stream_type stream() { return device_.stream(); }

  /// Streams in the pool (1 on the caller's stream); valid after prepare().
  std::size_t stream_count() const { return device_.stream_count(); }
  /// Makes stream i of the pool current (steps, events, gate, flush and graph launches use it).
  void select_stream(std::size_t i) { device_.select_stream(i); }
  /// True when measuring on the caller's stream.
  bool caller_stream() const { return device_.caller_stream(); }

  /// Host steady clock, seconds since an arbitrary epoch.
  double now() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }

  /// Records an event on the stream (from a pool; no allocation once the pool has grown).
  std::size_t record() { return device_.record(); }
  /// Seconds between two recorded events (both must have completed: call after synchronize()).
  double elapsed(std::size_t a, std::size_t b) const { return device_.elapsed(a, b); }
  void reset_markers() { device_.reset_markers(); }

  /// Waits for all work on the device (device-wide, as the seed's wall-time snippet does, so work
  /// a step launched on another stream is waited for too).
  void synchronize() { device_.synchronize(); }

  void gate_close(Nanoseconds timeout) { gate_->close(device_.stream(), timeout); }
  void gate_open() { gate_->open(); }
  bool gate_timed_out() const { return gate_->timed_out(); }

  /// Whether this translation unit can probe the SM clock (nvcc: the probe kernel exists).
  bool clock_probe_supported() const { return backend_parts::ClockProbe::available; }
  /// Enqueues the clock probe that opens a round (gauge/cuda/clock_probe.hpp), before its first event.
  void clock_probe_start() {
    if (clock_) clock_->start(device_.stream());
  }
  /// Enqueues the clock probe that closes a round, after its last event.
  void clock_probe_stop() {
    if (clock_) clock_->stop(device_.stream());
  }
  /// After synchronize(): the mean SM clock between the two probes, MHz, with the SMs it matched
  /// and their spread; nullopt when the probes shared no SM.
  std::optional<backend_parts::ClockReading> clock_probe_read() const { return clock_ ? clock_->read() : std::nullopt; }

  /// Enqueues an L2 flush (2 × L2 bytes) on the stream; resets persisting lines first.
  void flush_cache() { flush_->flush(device_.stream()); }
  /// Called once per round in cold mode, outside the timed interval.
  void reset_persisting_l2() { backend_parts::L2Flush::reset_persisting_lines(); }

  /// How flush_cache() flushes (gauge/cuda/l2_flush.hpp), for the report's `sampling.cache_flush`:
  /// the method, its bytes and the L2 size, and the persisting-L2 set-aside found now
  /// (cudaDeviceGetLimit(cudaLimitPersistingL2CacheSize); null when unreadable). The protocol
  /// resets persisting lines before every cold round. Throws CudaError when the flush cannot be
  /// prepared.
  records::CacheFlushRecord cache_flush_record() {
    flush_->prepare();
    records::CacheFlushRecord c;
    c.method = backend_parts::L2Flush::reads ? "read" : "write";
    c.description = flush_->description();
    c.bytes = flush_->bytes();
    if (flush_->l2_bytes() > 0) c.l2_cache_bytes = flush_->l2_bytes();
    c.outside_timed_interval = true;
    std::size_t set_aside = 0;
    if (cudaDeviceGetLimit(&set_aside, cudaLimitPersistingL2CacheSize) == cudaSuccess) c.persisting_l2_set_aside_bytes = set_aside;
    else (void)cudaGetLastError();
    c.persisting_lines_reset = true;
    return c;
  }

  /// Captures what `enqueue` launches on the stream into a CUDA graph (replacing a previous one).
  /// Throws Error naming the CUDA error when the work cannot be captured (e.g. it synchronizes),
  /// or when the graph holds no kernel, copy or memset (the step launched on another stream).
  template <class F>
  void capture(F&& enqueue) {
    device_.begin_capture();
    std::string failure;
    try {
      enqueue();
    } catch (const std::exception& e) {
      failure = e.what();
    }
    device_.end_capture(failure);
  }
  /// Launches the captured graph on the stream.
  void launch_graph() { device_.launch_graph(); }

  /// Resolution of cudaEventElapsedTime: "around 0.5 microseconds" (CUDA Runtime API reference).
  double timer_resolution() const { return 0.5e-6; }

  /// The device's peak-relevant attributes, read at prepare() (gauge/core/peaks.hpp).
  std::optional<peaks::DeviceAttributes> device_attributes() const { return device_.device_attributes(); }

  /// The device ordinal in use (after prepare()).
  int device() const { return device_.device(); }

  /// An NVML telemetry probe for this device, matched by UUID or PCI bus id; null with `reason`
  /// set when NVML is absent or does not know the device.
  std::unique_ptr<env::TelemetryProbe> telemetry_probe(std::string& reason) { return device_.telemetry_probe(reason); }

  /// Device memory now: cudaMemGetInfo and the default memory pool's high watermarks.
  /// Throws CudaError.
  records::DeviceMemorySnapshot memory_snapshot() { return device_.memory_snapshot(); }
  /// Resets the default pool's high watermarks (so they cover this experiment only).
  void reset_memory_watermarks() { device_.reset_memory_watermarks(); }
  /// The binary of kernel `func` (see cuda/jit.hpp). Throws CudaError.
  records::KernelBinaryRecord kernel_binary(const void* func, const std::string& kernel_name) {
    return device_.kernel_binary(func, kernel_name);
  }
  /// gauge's own kernels used by this backend (the launch gate), by name.
  std::vector<std::pair<std::string, const void*>> own_kernels() const {
    std::vector<std::pair<std::string, const void*>> k;
    if (const void* g = backend_parts::LaunchGate::kernel_address()) k.emplace_back("gauge::gate_kernel", g);
    if (const void* c = backend_parts::ClockProbe::kernel_address()) k.emplace_back("gauge::clock_probe_kernel", c);
    return k;
  }

 private:
  void swap(CudaBackend& o) noexcept {
    std::swap(device_, o.device_);
    std::swap(gate_, o.gate_);
    std::swap(flush_, o.flush_);
    std::swap(clock_, o.clock_);
  }

  detail::CudaDevice device_;
  std::unique_ptr<backend_parts::LaunchGate> gate_;
  std::unique_ptr<backend_parts::L2Flush> flush_;
  std::unique_ptr<backend_parts::ClockProbe> clock_;  // null where the probe kernel does not exist (no nvcc)
};

GAUGE_END_COMPILE_MODE_NAMESPACE
