#pragma once
/// \file gauge/backends/timer_backends.hpp
/// Backends of gauge::Timer (timer.hpp describes the interface they implement):
/// - `CudaTimerBackend`: markers are CUDA timing events from a backend_parts::EventPool, recorded on streams,
///   resolved with `cudaEventQuery` (never waits) and `cudaEventElapsedTime`;
/// - `HostTimerBackend`: markers are host steady-clock timestamps, for CPU-only loops and for
///   machines without a GPU.
/// They differ from the Experiment's CudaBackend/HostBackend: a Timer recycles markers one by one
/// and asks whether they completed, where an Experiment resets all markers after a synchronize.

#include <chrono>
#include <cstddef>
#include <vector>

#include "gauge/backends/host_backend.hpp"
#include "gauge/core/error.hpp"

#include "gauge/detail/cuda_available.hpp"
#if GAUGE_HAS_CUDA_RUNTIME
#include <cuda_runtime.h>

#include "gauge/cuda/check.hpp"
#include "gauge/cuda/event_pool.hpp"
#define GAUGE_HAS_CUDA_TIMER_BACKEND 1
#else
#define GAUGE_HAS_CUDA_TIMER_BACKEND 0
#endif

namespace gauge {

/// Timer backend for CPU-only loops: a marker is the host steady clock read when it is recorded,
/// so it is complete at once and no call ever waits. Not thread-safe.
class HostTimerBackend {
 public:
  using stream_type = HostStream;      ///< host work runs on the calling thread: an empty tag
  using marker_type = std::size_t;     ///< index of a timestamp slot
  static constexpr const char* name = "host";

  /// The Timer's stream (the calling thread).
  stream_type stream() const { return {}; }
  /// Every host "stream" is the calling thread.
  bool is_timer_stream(stream_type) const { return true; }
  /// Host steady clock, seconds since an arbitrary epoch.
  double now() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
  /// A free timestamp slot; a new one (an allocation while the pool grows) when none is free.
  marker_type acquire() {
    if (free_.empty()) {
      if (times_.size() == times_.capacity()) times_.reserve(2 * times_.size() + 16);
      free_.reserve(times_.capacity());
      times_.push_back(0.0);
      free_.push_back(times_.size() - 1);
    }
    const marker_type m = free_.back();
    free_.pop_back();
    return m;
  }
  /// Stores the host clock in the slot.
  void record(marker_type m, stream_type) { times_.at(m) = now(); }
  /// Always complete.
  bool query(marker_type) const { return true; }
  /// Nothing to wait for.
  void wait(marker_type) {}
  /// Seconds from `a` to `b`.
  double elapsed(marker_type a, marker_type b) const { return times_.at(b) - times_.at(a); }
  /// The host clock (now()'s) that record() stored in `m`: the Timer's step end reads it instead
  /// of the clock a second time. Optional in a TimerBackend.
  double host_time(marker_type m) const { return times_.at(m); }
  /// Gives the slot back (never allocates).
  void release(marker_type m) noexcept { free_.push_back(m); }
  /// Slots created so far.
  std::size_t markers_created() const { return times_.size(); }
  /// Resolution of std::chrono::steady_clock (measured once), seconds.
  double timer_resolution() const { return HostBackend{}.timer_resolution(); }

 private:
  std::vector<double> times_;
  std::vector<marker_type> free_;
};

#if GAUGE_HAS_CUDA_TIMER_BACKEND
/// Timer backend for CUDA loops: markers are timing events from a backend_parts::EventPool (created on the
/// device current at the first acquire, which must be the stream's device), recorded with
/// `cudaEventRecord` (one call per region boundary), asked with `cudaEventQuery` (never waits),
/// read with `cudaEventElapsedTime`. `wait` (`cudaEventSynchronize`) is the only blocking call.
/// Failing CUDA calls throw CudaError naming the call. Movable, not copyable.
class CudaTimerBackend {
 public:
  using stream_type = cudaStream_t;  ///< a CUDA stream
  using marker_type = cudaEvent_t;   ///< a CUDA timing event from the pool
  static constexpr const char* name = "cuda";

  /// \param stream the training loop's stream (not owned; nullptr is the legacy default stream).
  /// \param event_flags flags of the pool's events (cudaEventDisableTiming throws ConfigError).
  explicit CudaTimerBackend(cudaStream_t stream = nullptr, unsigned int event_flags = cudaEventDefault)
      : stream_(stream), pool_(event_flags) {}

  /// The Timer's stream.
  stream_type stream() const { return stream_; }
  /// Whether `s` is the Timer's stream (same handle).
  bool is_timer_stream(stream_type s) const { return s == stream_; }
  /// Host steady clock, seconds since an arbitrary epoch.
  double now() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
  /// An event from the pool (created only when none is free).
  marker_type acquire() { return pool_.acquire(); }
  /// cudaEventRecord(m, s): one record, never waits.
  void record(marker_type m, stream_type s) { GAUGE_CUDA_CHECK(cudaEventRecord(m, s)); }
  /// cudaEventQuery: whether the device passed the record; never waits.
  bool query(marker_type m) const { return backend_parts::EventPool::query(m); }
  /// cudaEventSynchronize: blocks the host until the device passed the record.
  void wait(marker_type m) { backend_parts::EventPool::wait(m); }
  /// cudaEventElapsedTime, in seconds; both completed.
  double elapsed(marker_type a, marker_type b) const { return backend_parts::EventPool::elapsed(a, b); }
  /// Back to the pool.
  void release(marker_type m) noexcept { pool_.release(m); }
  /// Events created so far.
  std::size_t markers_created() const { return pool_.created(); }
  /// Resolution of cudaEventElapsedTime: "around 0.5 microseconds" (CUDA Runtime API reference).
  double timer_resolution() const { return 0.5e-6; }
  /// The pool, e.g. to read how many events are in use.
  const backend_parts::EventPool& pool() const { return pool_; }

 private:
  cudaStream_t stream_ = nullptr;
  backend_parts::EventPool pool_;
};
#endif

}  // namespace gauge
