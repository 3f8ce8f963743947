#pragma once
/// \file gauge/backends/cuda_backend.hpp
/// CudaBackend: the real backend. GPU time from CUDA events on the experiment's stream, wall time
/// from the host's steady clock around a device-wide synchronize, the launch gate (needs nvcc),
/// the L2 flush, and CUDA graph capture.

#include <cuda_runtime.h>

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <optional>
#include <string>
#include <vector>

#include "gauge/backends/host_backend.hpp"
#include "gauge/core/config.hpp"
#include "gauge/core/result.hpp"
#include "gauge/cuda/check.hpp"
#include "gauge/cuda/device_guard.hpp"
#include "gauge/cuda/clock_probe.hpp"
#include "gauge/cuda/device_attributes.hpp"
#include "gauge/cuda/gate.hpp"
#include "gauge/detail/stream_sharing.hpp"
#include "gauge/cuda/jit.hpp"
#include "gauge/cuda/l2_flush.hpp"
#include "gauge/detail/compile_mode.hpp"
#include "gauge/protocol/seam.hpp"

namespace gauge::detail {

/// The process's pool of measuring streams on one device: created at first use, grown on demand,
/// reused by every experiment on that device (never destroyed: the streams live until the process
/// exits). Reuse matters: the device's launch gap depends on the hardware queue a stream is
/// mapped to, and new streams are mapped round-robin, so streams created per run would give each
/// run a different mix of queues (on an H200, runs 0.15 % apart at 100 µs; docs/benchmarks.md).
/// One experiment at a time holds it; a concurrent one on the same device gets streams of its own.
class SharedStreamPool {
 public:
  /// The pool of `device` (thread-safe).
  static SharedStreamPool& of(int device) {
    static std::mutex m;
    static auto* pools = new std::map<int, SharedStreamPool*>();  // never destroyed (see above)
    std::lock_guard<std::mutex> lock(m);
    auto& p = (*pools)[device];
    if (!p) p = new SharedStreamPool();
    return *p;
  }
  /// Takes the first `n` streams of the pool (creating them on the current device if needed);
  /// empty when another experiment holds it. Streams that a cudaDeviceReset destroyed are
  /// replaced. Throws CudaError.
  std::vector<cudaStream_t> acquire(std::size_t n) {
    std::lock_guard<std::mutex> lock(m_);
    // Held: only the second side of an interleaved run on the holder's thread shares it
    // (gauge/detail/stream_sharing.hpp); anyone else gets streams of its own.
    if (in_use_ && !(stream_sharing_on_this_thread() && owner_ == std::this_thread::get_id() && n <= streams_.size())) return {};
    if (in_use_) {
      ++holders_;
      return std::vector<cudaStream_t>(streams_.begin(), streams_.begin() + static_cast<std::ptrdiff_t>(n));
    }
    if (!streams_.empty() && cudaStreamQuery(streams_.front()) == cudaErrorInvalidResourceHandle) {
      (void)cudaGetLastError();
      streams_.clear();  // destroyed with the context
    }
    while (streams_.size() < n) {
      cudaStream_t s = nullptr;
      GAUGE_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
      streams_.push_back(s);
    }
    in_use_ = true;
    holders_ = 1;
    owner_ = std::this_thread::get_id();
    return std::vector<cudaStream_t>(streams_.begin(), streams_.begin() + static_cast<std::ptrdiff_t>(n));
  }
  /// Gives the pool back (the last holder frees it).
  void release() noexcept {
    std::lock_guard<std::mutex> lock(m_);
    if (holders_ > 0 && --holders_ > 0) return;
    in_use_ = false;
  }

 private:
  std::mutex m_;
  std::vector<cudaStream_t> streams_;
  bool in_use_ = false;
  std::size_t holders_ = 0;  // experiments holding it (2 while an interleaved run shares it)
  std::thread::id owner_;    // the thread of the first holder
};

}  // namespace gauge::detail

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
  explicit CudaBackend(cudaStream_t stream) : stream_(stream), own_stream_(false) {}
  /// Measures on `stream` from the next prepare() on (as the constructor above).
  void adopt_stream(cudaStream_t stream) {
    finish();
    stream_ = stream;
    own_stream_ = false;
  }
  CudaBackend(const CudaBackend&) = delete;
  CudaBackend& operator=(const CudaBackend&) = delete;
  CudaBackend(CudaBackend&& o) noexcept { swap(o); }
  CudaBackend& operator=(CudaBackend&& o) noexcept {
    swap(o);
    return *this;
  }
  ~CudaBackend() { finish(); }

  GateSupport gate_support() const {
    return LaunchGate::available ? GateSupport::available : GateSupport::unavailable;
  }
  bool graph_supported() const { return true; }
  bool flush_supported() const { return true; }

  /// Selects the device (restored at finish()), initializes the context outside any timing,
  /// creates the stream. Throws CudaError (e.g. no device).
  DeviceRecord prepare(const Config& config) {
    detail::check_context_alive();
    int count = 0;
    GAUGE_CUDA_CHECK(cudaGetDeviceCount(&count));
    if (config.device >= count) {
      throw ConfigError("device " + std::to_string(config.device) + " does not exist: " +
                        std::to_string(count) + " CUDA device(s) visible");
    }
    guard_ = std::make_unique<DeviceGuard>(config.device);
    GAUGE_CUDA_CHECK(cudaGetDevice(&device_));
    GAUGE_CUDA_CHECK(cudaFree(nullptr));  // create the context now, not inside a timed region
    if (own_stream_) {
      pool_ = detail::SharedStreamPool::of(device_).acquire(config.measure.streams);
      shared_ = !pool_.empty();
      // Held by a concurrent experiment on this device: streams of its own, destroyed at finish().
      for (std::size_t i = pool_.size(); i < config.measure.streams; ++i) {
        cudaStream_t s = nullptr;
        GAUGE_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        pool_.push_back(s);
      }
      stream_ = pool_.front();
    }
    gate_ = std::make_unique<LaunchGate>();
    flush_ = std::make_unique<L2Flush>();
    cudaDeviceProp prop{};
    GAUGE_CUDA_CHECK(cudaGetDeviceProperties(&prop, device_));
    // Two one-thread blocks per SM: each probe then lands on (nearly) every SM.
    if (ClockProbe::available) clock_ = std::make_unique<ClockProbe>(2u * static_cast<unsigned>(std::max(1, prop.multiProcessorCount)));
    DeviceRecord d;
    detail::set_device_identity(d, device_, prop);
    int mem_khz = 0, bus_bits = 0;
    if (cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, device_) == cudaSuccess &&
        cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device_) == cudaSuccess && mem_khz > 0 && bus_bits > 0)
      d.memory_bandwidth_bytes_per_s = 2.0 * mem_khz * 1e3 * bus_bits / 8.0;
    uuid_ = d.uuid;
    bus_id_ = d.pci_bus_id;
    attributes_ = detail::read_device_attributes(device_);
    GAUGE_CUDA_CHECK(cudaDeviceSynchronize());
    return d;
  }

  /// Releases events, graph, stream (if owned) and restores the caller's device. Never throws.
  void finish() noexcept {
    if (graph_exec_) (void)cudaGraphExecDestroy(graph_exec_);
    graph_exec_ = nullptr;
    for (cudaEvent_t e : events_) (void)cudaEventDestroy(e);
    events_.clear();
    used_ = 0;
    gate_.reset();
    flush_.reset();
    clock_.reset();
    if (shared_) {
      // The work of this run must not leak into the next experiment on these streams.
      for (cudaStream_t s : pool_) (void)cudaStreamSynchronize(s);
      (void)cudaGetLastError();
      detail::SharedStreamPool::of(device_).release();
    } else {
      for (cudaStream_t s : pool_) (void)cudaStreamDestroy(s);
    }
    shared_ = false;
    pool_.clear();
    if (own_stream_) stream_ = nullptr;
    guard_.reset();
  }

  stream_type stream() { return stream_; }

  /// Streams in the pool (1 on the caller's stream); valid after prepare().
  std::size_t stream_count() const { return pool_.empty() ? 1 : pool_.size(); }
  /// Makes stream i of the pool current (steps, events, gate, flush and graph launches use it).
  void select_stream(std::size_t i) {
    if (!pool_.empty()) stream_ = pool_.at(i % pool_.size());
  }
  /// True when measuring on the caller's stream.
  bool caller_stream() const { return !own_stream_; }

  /// Host steady clock, seconds since an arbitrary epoch.
  double now() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }

  /// Records an event on the stream (from a pool; no allocation once the pool has grown).
  std::size_t record() {
    if (used_ == events_.size()) {
      cudaEvent_t e = nullptr;
      GAUGE_CUDA_CHECK(cudaEventCreate(&e));
      events_.push_back(e);
    }
    GAUGE_CUDA_CHECK(cudaEventRecord(events_[used_], stream_));
    return used_++;
  }

  /// Seconds between two recorded events (both must have completed: call after synchronize()).
  double elapsed(std::size_t a, std::size_t b) const {
    float ms = 0;
    GAUGE_CUDA_CHECK(cudaEventElapsedTime(&ms, events_.at(a), events_.at(b)));
    return static_cast<double>(ms) * 1e-3;
  }
  void reset_markers() { used_ = 0; }

  /// Waits for all work on the device (device-wide, as the seed's wall-time snippet does, so work
  /// a step launched on another stream is waited for too).
  void synchronize() { GAUGE_CUDA_CHECK(cudaDeviceSynchronize()); }

  void gate_close(Nanoseconds timeout) { gate_->close(stream_, timeout); }
  void gate_open() { gate_->open(); }
  bool gate_timed_out() const { return gate_->timed_out(); }

  /// Whether this translation unit can probe the SM clock (nvcc: the probe kernel exists).
  bool clock_probe_supported() const { return ClockProbe::available; }
  /// Enqueues the clock probe that opens a round (gauge/cuda/clock_probe.hpp), before its first event.
  void clock_probe_start() {
    if (clock_) clock_->start(stream_);
  }
  /// Enqueues the clock probe that closes a round, after its last event.
  void clock_probe_stop() {
    if (clock_) clock_->stop(stream_);
  }
  /// After synchronize(): the mean SM clock between the two probes, MHz, with the SMs it matched
  /// and their spread; nullopt when the probes shared no SM.
  std::optional<ClockReading> clock_probe_read() const { return clock_ ? clock_->read() : std::nullopt; }

  /// Enqueues an L2 flush (2 × L2 bytes) on the stream; resets persisting lines first.
  void flush_cache() { flush_->flush(stream_); }
  /// Called once per round in cold mode, outside the timed interval.
  void reset_persisting_l2() { L2Flush::reset_persisting_lines(); }

  /// How flush_cache() flushes (gauge/cuda/l2_flush.hpp), for the report's `sampling.cache_flush`:
  /// the method, its bytes and the L2 size, and the persisting-L2 set-aside found now
  /// (cudaDeviceGetLimit(cudaLimitPersistingL2CacheSize); null when unreadable). The protocol
  /// resets persisting lines before every cold round. Throws CudaError when the flush cannot be
  /// prepared.
  CacheFlushRecord cache_flush_record() {
    flush_->prepare();
    CacheFlushRecord c;
    c.method = L2Flush::reads ? "read" : "write";
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
  /// Throws Error naming the CUDA error when the work cannot be captured (e.g. it synchronizes).
  template <class F>
  void capture(F&& enqueue) {
    if (graph_exec_) {
      (void)cudaGraphExecDestroy(graph_exec_);
      graph_exec_ = nullptr;
    }
    GAUGE_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    std::string failure;
    try {
      enqueue();
    } catch (const std::exception& e) {
      failure = e.what();
    }
    cudaGraph_t graph = nullptr;
    cudaError_t end = cudaStreamEndCapture(stream_, &graph);
    (void)cudaGetLastError();
    if (!failure.empty() || end != cudaSuccess || graph == nullptr) {
      if (graph) (void)cudaGraphDestroy(graph);
      throw Error("the step cannot be captured in a CUDA graph (gpu_timing = graph): " +
                  (failure.empty() ? std::string("cudaStreamEndCapture: ") + cudaGetErrorString(end) : failure) +
                  "; a step that synchronizes, allocates or launches on another stream cannot be "
                  "captured: use gpu_timing = automatic");
    }
    // A capture without the step's work (only empty, event or allocation nodes) would time
    // nothing: the step launched its work on another stream than the one it was given.
    std::size_t nodes = 0, work = 0;
    if (cudaGraphGetNodes(graph, nullptr, &nodes) == cudaSuccess && nodes > 0) {
      std::vector<cudaGraphNode_t> all(nodes);
      if (cudaGraphGetNodes(graph, all.data(), &nodes) == cudaSuccess)
        for (std::size_t i = 0; i < nodes; ++i) {
          cudaGraphNodeType type{};
          if (cudaGraphNodeGetType(all[i], &type) != cudaSuccess) ++work;  // unknown: count it as work
          else if (type != cudaGraphNodeTypeEmpty && type != cudaGraphNodeTypeWaitEvent &&
                   type != cudaGraphNodeTypeEventRecord && type != cudaGraphNodeTypeMemAlloc &&
                   type != cudaGraphNodeTypeMemFree)
            ++work;
        }
    }
    (void)cudaGetLastError();
    if (work == 0) {
      (void)cudaGraphDestroy(graph);
      throw Error("the CUDA graph captured from the step holds no kernel, copy or memset (" + std::to_string(nodes) +
                  " nodes): the step launched its work on another stream than the one it is given (a stale or "
                  "private stream?), so its replays would time nothing. Launch on the stream passed to the step");
    }
    cudaError_t inst = cudaGraphInstantiate(&graph_exec_, graph, 0);
    (void)cudaGraphDestroy(graph);
    detail::cuda_check(inst, "cudaGraphInstantiate");
  }
  /// Launches the captured graph on the stream.
  void launch_graph() { GAUGE_CUDA_CHECK(cudaGraphLaunch(graph_exec_, stream_)); }

  /// Resolution of cudaEventElapsedTime: "around 0.5 microseconds" (CUDA Runtime API reference).
  double timer_resolution() const { return 0.5e-6; }

  /// The device's peak-relevant attributes, read at prepare() (gauge/core/peaks.hpp).
  std::optional<DeviceAttributes> device_attributes() const { return attributes_; }

  /// The device ordinal in use (after prepare()).
  int device() const { return device_; }

  /// An NVML telemetry probe for this device, matched by UUID or PCI bus id; null with `reason`
  /// set when NVML is absent or does not know the device.
  std::unique_ptr<TelemetryProbe> telemetry_probe(std::string& reason) {
    return detail::make_nvml_probe(uuid_, bus_id_, reason);
  }

  /// Device memory now: cudaMemGetInfo and the default memory pool's high watermarks.
  /// Throws CudaError.
  DeviceMemorySnapshot memory_snapshot() {
    DeviceMemorySnapshot m;
    std::size_t free = 0, total = 0;
    GAUGE_CUDA_CHECK(cudaMemGetInfo(&free, &total));
    m.total_bytes = total;
    m.used_bytes = total - free;
    cudaMemPool_t pool = nullptr;
    if (cudaDeviceGetDefaultMemPool(&pool, device_) == cudaSuccess) {
      std::uint64_t v = 0;
      if (cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &v) == cudaSuccess) m.pool_used_high_bytes = v;
      if (cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemHigh, &v) == cudaSuccess) m.pool_reserved_high_bytes = v;
    }
    (void)cudaGetLastError();
    return m;
  }
  /// Resets the default pool's high watermarks (so they cover this experiment only).
  void reset_memory_watermarks() {
    cudaMemPool_t pool = nullptr;
    if (cudaDeviceGetDefaultMemPool(&pool, device_) == cudaSuccess) {
      std::uint64_t zero = 0;
      (void)cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero);
      (void)cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReservedMemHigh, &zero);
    }
    (void)cudaGetLastError();
  }
  /// The binary of kernel `func` (see cuda/jit.hpp). Throws CudaError.
  KernelBinaryRecord kernel_binary(const void* func, const std::string& kernel_name) {
    return gauge::kernel_binary(func, kernel_name, device_);
  }
  /// gauge's own kernels used by this backend (the launch gate), by name.
  std::vector<std::pair<std::string, const void*>> own_kernels() const {
    std::vector<std::pair<std::string, const void*>> k;
    if (const void* g = LaunchGate::kernel_address()) k.emplace_back("gauge::gate_kernel", g);
    if (const void* c = ClockProbe::kernel_address()) k.emplace_back("gauge::clock_probe_kernel", c);
    return k;
  }

 private:
  void swap(CudaBackend& o) noexcept {
    std::swap(stream_, o.stream_);
    std::swap(own_stream_, o.own_stream_);
    std::swap(pool_, o.pool_);
    std::swap(shared_, o.shared_);
    std::swap(device_, o.device_);
    std::swap(events_, o.events_);
    std::swap(used_, o.used_);
    std::swap(gate_, o.gate_);
    std::swap(flush_, o.flush_);
    std::swap(clock_, o.clock_);
    std::swap(graph_exec_, o.graph_exec_);
    std::swap(guard_, o.guard_);
    std::swap(uuid_, o.uuid_);
    std::swap(bus_id_, o.bus_id_);
    std::swap(attributes_, o.attributes_);
  }

  cudaStream_t stream_ = nullptr;
  bool own_stream_ = true;
  std::vector<cudaStream_t> pool_;  // the streams measured on (empty on the caller's stream)
  bool shared_ = false;             // pool_ is held from detail::SharedStreamPool
  int device_ = -1;
  std::vector<cudaEvent_t> events_;
  std::size_t used_ = 0;
  std::unique_ptr<LaunchGate> gate_;
  std::unique_ptr<L2Flush> flush_;
  std::optional<DeviceAttributes> attributes_;
  std::unique_ptr<ClockProbe> clock_;  // null where the probe kernel does not exist (no nvcc)
  cudaGraphExec_t graph_exec_ = nullptr;
  std::unique_ptr<DeviceGuard> guard_;
  std::optional<std::string> uuid_, bus_id_;
};

GAUGE_END_COMPILE_MODE_NAMESPACE
