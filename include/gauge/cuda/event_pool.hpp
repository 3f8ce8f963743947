#pragma once
/// \file gauge/cuda/event_pool.hpp
/// gauge::backend_parts::EventPool: CUDA events for timing, created once and recycled one by one, so a loop that
/// records events every step creates (and allocates) none after warm-up. Completion is read with
/// `cudaEventQuery`, which never waits; `wait` is the one call that blocks the host.

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/error.hpp"
#include "gauge/cuda/check.hpp"

namespace gauge::backend_parts {

/// A pool of CUDA timing events on one device (the device current when the pool creates them; a
/// CUDA event can only be recorded on a stream of its own device).
///
/// `acquire()` hands out a free event, creating one only when none is free; `release()` gives one
/// back. Every event the pool created is destroyed with the pool (an event still pending on the
/// device may be destroyed: CUDA frees it once it completes). Not thread-safe; movable, not
/// copyable. Failing CUDA calls throw CudaError naming the call.
class EventPool {
 public:
  /// \param flags `cudaEventCreateWithFlags` flags. `cudaEventDisableTiming` is refused with
  ///   ConfigError: such events cannot be timed (cudaEventElapsedTime fails on them).
  ///   `cudaEventBlockingSync` is allowed (a wait then yields the CPU instead of spinning).
  explicit EventPool(unsigned int flags = cudaEventDefault) : flags_(flags) {
    if (flags & cudaEventDisableTiming)
      throw ConfigError("EventPool: flags = " + std::to_string(flags) +
                        " include cudaEventDisableTiming; timing events must keep timing enabled");
  }
  EventPool(const EventPool&) = delete;
  EventPool& operator=(const EventPool&) = delete;
  EventPool(EventPool&& o) noexcept { swap(o); }
  EventPool& operator=(EventPool&& o) noexcept {
    swap(o);
    return *this;
  }
  ~EventPool() {
    for (cudaEvent_t e : all_) (void)cudaEventDestroy(e);
  }

  /// A free event; creates one (cudaEventCreateWithFlags) when none is free. Throws CudaError.
  cudaEvent_t acquire() {
    if (free_.empty()) grow();
    cudaEvent_t e = free_.back();
    free_.pop_back();
    return e;
  }
  /// Gives `e` (from acquire()) back to the pool. Never allocates: the free list's capacity is
  /// kept at least the number of events created.
  void release(cudaEvent_t e) noexcept { free_.push_back(e); }

  /// Whether the device has completed `e`'s record: cudaEventQuery, which never waits. A
  /// "not ready" answer is cleared from CUDA's last-error state, as PyTorch's CUDAEvent::query
  /// does, so a caller's `cudaGetLastError()` after a launch is not misled by it. An event never
  /// recorded counts as complete. Throws CudaError on any other error (e.g. a faulted kernel).
  static bool query(cudaEvent_t e) {
    const cudaError_t r = cudaEventQuery(e);
    if (r == cudaSuccess) return true;
    if (r == cudaErrorNotReady) {
      (void)cudaGetLastError();
      return false;
    }
    detail::cuda_check(r, "cudaEventQuery");
    return false;
  }
  /// Blocks the host until `e` completes (cudaEventSynchronize): a host synchronization.
  static void wait(cudaEvent_t e) { GAUGE_CUDA_CHECK(cudaEventSynchronize(e)); }
  /// Seconds from `a` to `b`, both completed (cudaEventElapsedTime; resolution about 0.5 µs per
  /// the CUDA Runtime API reference). Throws CudaError, e.g. cudaErrorNotReady if one is pending.
  static double elapsed(cudaEvent_t a, cudaEvent_t b) {
    float ms = 0;
    GAUGE_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    return static_cast<double>(ms) * 1e-3;
  }

  /// Events created so far (each one allocation on the host and the device).
  std::size_t created() const noexcept { return all_.size(); }
  /// Events free now.
  std::size_t available() const noexcept { return free_.size(); }
  /// Events handed out and not released.
  std::size_t in_use() const noexcept { return all_.size() - free_.size(); }
  /// The flags events are created with.
  unsigned int flags() const noexcept { return flags_; }

 private:
  void grow() {
    if (all_.size() == all_.capacity()) all_.reserve(2 * all_.size() + 16);  // geometric growth
    free_.reserve(all_.capacity());  // release() never allocates
    cudaEvent_t e = nullptr;
    GAUGE_CUDA_CHECK(cudaEventCreateWithFlags(&e, flags_));
    all_.push_back(e);
    free_.push_back(e);
  }
  void swap(EventPool& o) noexcept {
    std::swap(all_, o.all_);
    std::swap(free_, o.free_);
    std::swap(flags_, o.flags_);
  }

  std::vector<cudaEvent_t> all_;
  std::vector<cudaEvent_t> free_;
  unsigned int flags_ = cudaEventDefault;
};

}  // namespace gauge::backend_parts
