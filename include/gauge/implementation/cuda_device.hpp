#pragma once
/// \file gauge/implementation/cuda_device.hpp
/// The compiled part of CudaBackend: detail::CudaDevice (gauge/backends/cuda_device.hpp) and the
/// process's pool of measuring streams. Part of gauge/implementation/environment.hpp (src/
/// environment.cpp through CMake); host code only; empty without the CUDA runtime and where the
/// program links the library CMake built (GAUGE_LINKS_IMPLEMENTATION).

#include "gauge/detail/cuda_available.hpp"

#if !defined(__CUDA_ARCH__) && !defined(GAUGE_LINKS_IMPLEMENTATION) && GAUGE_HAS_CUDA_RUNTIME

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gauge/backends/cuda_device.hpp"
#include "gauge/core/error.hpp"
#include "gauge/cuda/check.hpp"
#include "gauge/cuda/device_attributes.hpp"
#include "gauge/cuda/device_guard.hpp"
#include "gauge/cuda/jit.hpp"
#include "gauge/detail/stream_sharing.hpp"
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

struct CudaDevice::State {
  cudaStream_t stream = nullptr;
  bool own_stream = true;
  std::vector<cudaStream_t> pool;  // the streams measured on (empty on the caller's stream)
  bool shared = false;             // pool is held from SharedStreamPool
  int device = -1;
  int multiprocessors = 0;
  std::vector<cudaEvent_t> events;
  std::size_t used = 0;
  std::optional<peaks::DeviceAttributes> attributes;
  cudaGraphExec_t graph_exec = nullptr;
  std::unique_ptr<backend_parts::DeviceGuard> guard;
  std::optional<std::string> uuid, bus_id;
};

CudaDevice::CudaDevice() : s_(std::make_unique<State>()) {}
CudaDevice::CudaDevice(cudaStream_t stream) : s_(std::make_unique<State>()), stream_(stream) {
  s_->stream = stream;
  s_->own_stream = false;
}
CudaDevice::CudaDevice(CudaDevice&& o) noexcept : s_(std::move(o.s_)), stream_(o.stream_) { o.stream_ = nullptr; }
CudaDevice& CudaDevice::operator=(CudaDevice&& o) noexcept {
  if (this != &o) {
    finish();
    s_ = std::move(o.s_);
    stream_ = o.stream_;
    o.stream_ = nullptr;
  }
  return *this;
}
CudaDevice::~CudaDevice() { finish(); }

void CudaDevice::adopt_stream(cudaStream_t stream) {
  finish();
  if (!s_) s_ = std::make_unique<State>();
  s_->stream = stream_ = stream;
  s_->own_stream = false;
}

records::DeviceRecord CudaDevice::prepare(const Config& config) {
  if (!s_) s_ = std::make_unique<State>();
  State& s = *s_;
  check_context_alive();
  int count = 0;
  GAUGE_CUDA_CHECK(cudaGetDeviceCount(&count));
  if (config.device >= count) {
    throw ConfigError("device " + std::to_string(config.device) + " does not exist: " + std::to_string(count) +
                      " CUDA device(s) visible");
  }
  s.guard = std::make_unique<backend_parts::DeviceGuard>(config.device);
  GAUGE_CUDA_CHECK(cudaGetDevice(&s.device));
  GAUGE_CUDA_CHECK(cudaFree(nullptr));  // create the context now, not inside a timed region
  if (s.own_stream) {
    s.pool = SharedStreamPool::of(s.device).acquire(config.measure.streams);
    s.shared = !s.pool.empty();
    // Held by a concurrent experiment on this device: streams of its own, destroyed at finish().
    for (std::size_t i = s.pool.size(); i < config.measure.streams; ++i) {
      cudaStream_t st = nullptr;
      GAUGE_CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
      s.pool.push_back(st);
    }
    s.stream = stream_ = s.pool.front();
  }
  cudaDeviceProp prop{};
  GAUGE_CUDA_CHECK(cudaGetDeviceProperties(&prop, s.device));
  s.multiprocessors = std::max(1, prop.multiProcessorCount);
  records::DeviceRecord d;
  set_device_identity(d, s.device, prop);
  int mem_khz = 0, bus_bits = 0;
  if (cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, s.device) == cudaSuccess &&
      cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, s.device) == cudaSuccess && mem_khz > 0 &&
      bus_bits > 0)
    d.memory_bandwidth_bytes_per_s = 2.0 * mem_khz * 1e3 * bus_bits / 8.0;
  s.uuid = d.uuid;
  s.bus_id = d.pci_bus_id;
  s.attributes = read_device_attributes(s.device);
  return d;
}

void CudaDevice::finish() noexcept {
  if (!s_) return;
  State& s = *s_;
  if (s.graph_exec) (void)cudaGraphExecDestroy(s.graph_exec);
  s.graph_exec = nullptr;
  for (cudaEvent_t e : s.events) (void)cudaEventDestroy(e);
  s.events.clear();
  s.used = 0;
  if (s.shared) {
    // The work of this run must not leak into the next experiment on these streams.
    for (cudaStream_t st : s.pool) (void)cudaStreamSynchronize(st);
    (void)cudaGetLastError();
    SharedStreamPool::of(s.device).release();
  } else {
    for (cudaStream_t st : s.pool) (void)cudaStreamDestroy(st);
  }
  s.shared = false;
  s.pool.clear();
  if (s.own_stream) s.stream = stream_ = nullptr;
  s.guard.reset();
}

std::size_t CudaDevice::stream_count() const noexcept { return !s_ || s_->pool.empty() ? 1 : s_->pool.size(); }
void CudaDevice::select_stream(std::size_t i) {
  if (s_ && !s_->pool.empty()) s_->stream = stream_ = s_->pool.at(i % s_->pool.size());
}
bool CudaDevice::caller_stream() const noexcept { return s_ && !s_->own_stream; }
int CudaDevice::multiprocessors() const noexcept { return s_ ? s_->multiprocessors : 0; }
int CudaDevice::device() const noexcept { return s_ ? s_->device : -1; }

std::size_t CudaDevice::record() {
  State& s = *s_;
  if (s.used == s.events.size()) {
    cudaEvent_t e = nullptr;
    GAUGE_CUDA_CHECK(cudaEventCreate(&e));
    s.events.push_back(e);
  }
  GAUGE_CUDA_CHECK(cudaEventRecord(s.events[s.used], s.stream));
  return s.used++;
}

double CudaDevice::elapsed(std::size_t a, std::size_t b) const {
  float ms = 0;
  GAUGE_CUDA_CHECK(cudaEventElapsedTime(&ms, s_->events.at(a), s_->events.at(b)));
  return static_cast<double>(ms) * 1e-3;
}
void CudaDevice::reset_markers() noexcept {
  if (s_) s_->used = 0;
}
void CudaDevice::synchronize() { GAUGE_CUDA_CHECK(cudaDeviceSynchronize()); }

void CudaDevice::begin_capture() {
  State& s = *s_;
  if (s.graph_exec) {
    (void)cudaGraphExecDestroy(s.graph_exec);
    s.graph_exec = nullptr;
  }
  GAUGE_CUDA_CHECK(cudaStreamBeginCapture(s.stream, cudaStreamCaptureModeThreadLocal));
}

void CudaDevice::end_capture(const std::string& failure) {
  State& s = *s_;
  cudaGraph_t graph = nullptr;
  cudaError_t end = cudaStreamEndCapture(s.stream, &graph);
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
  cudaError_t inst = cudaGraphInstantiate(&s.graph_exec, graph, 0);
  (void)cudaGraphDestroy(graph);
  cuda_check(inst, "cudaGraphInstantiate");
}

void CudaDevice::launch_graph() { GAUGE_CUDA_CHECK(cudaGraphLaunch(s_->graph_exec, s_->stream)); }

std::optional<peaks::DeviceAttributes> CudaDevice::device_attributes() const { return s_ ? s_->attributes : std::nullopt; }

std::unique_ptr<env::TelemetryProbe> CudaDevice::telemetry_probe(std::string& reason) {
  return make_nvml_probe(s_->uuid, s_->bus_id, reason);
}

records::DeviceMemorySnapshot CudaDevice::memory_snapshot() {
  records::DeviceMemorySnapshot m;
  std::size_t free = 0, total = 0;
  GAUGE_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  m.total_bytes = total;
  m.used_bytes = total - free;
  cudaMemPool_t pool = nullptr;
  if (cudaDeviceGetDefaultMemPool(&pool, s_->device) == cudaSuccess) {
    std::uint64_t v = 0;
    if (cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &v) == cudaSuccess) m.pool_used_high_bytes = v;
    if (cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemHigh, &v) == cudaSuccess) m.pool_reserved_high_bytes = v;
  }
  (void)cudaGetLastError();
  return m;
}

void CudaDevice::reset_memory_watermarks() noexcept {
  cudaMemPool_t pool = nullptr;
  if (s_ && cudaDeviceGetDefaultMemPool(&pool, s_->device) == cudaSuccess) {
    std::uint64_t zero = 0;
    (void)cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero);
    (void)cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReservedMemHigh, &zero);
  }
  (void)cudaGetLastError();
}

records::KernelBinaryRecord CudaDevice::kernel_binary(const void* func, const std::string& kernel_name) {
  return backend_parts::kernel_binary(func, kernel_name, s_->device);
}

}  // namespace gauge::detail

#endif  // !defined(__CUDA_ARCH__) && !defined(GAUGE_LINKS_IMPLEMENTATION) && GAUGE_HAS_CUDA_RUNTIME
