#pragma once
/// \file gauge/cuda/gate.hpp
/// The launch gate: a one-thread kernel that holds a stream until the host has enqueued a whole
/// round of steps, so the device then runs them back to back and host launch latency does not
/// leak into GPU time. It spins on a flag in host-mapped pinned memory and gives up after a
/// timeout (a step that synchronizes the host would otherwise deadlock behind it), recording that
/// it timed out.
///
/// The kernel needs nvcc: in a translation unit compiled by a host compiler `LaunchGate::available`
/// is false and gauge times without the gate (and warns `gate_unavailable`). The types live in an
/// inline namespace that differs between the two modes, so mixing them in one program is safe.

#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <cstdint>

#include "gauge/cuda/check.hpp"
#include "gauge/detail/compile_mode.hpp"

GAUGE_BEGIN_BACKEND_PARTS_COMPILE_MODE_NAMESPACE

namespace gate_kernels {
#if defined(__CUDACC__)
/// Spins until `*release == epoch` or until `timeout_ns` of %globaltimer have passed; on timeout
/// writes `epoch` to `*timed_out`. One thread.
template <int = 0>  // a template: vague linkage, so two .cu files that include this header link
__global__ void gate_kernel(const volatile std::uint32_t* release, volatile std::uint32_t* timed_out,
                            std::uint32_t epoch, std::uint64_t timeout_ns) {
  std::uint64_t start;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  while (*release != epoch) {
    std::uint64_t now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start > timeout_ns) {
      *timed_out = epoch;
      return;
    }
    __nanosleep(500);
  }
}
#endif
}  // namespace gate_kernels

/// Owner of the gate's host-mapped flags. Not copyable. Use: close() enqueues the gate on a
/// stream; open() releases it; after the stream is synchronized, timed_out() tells whether the
/// gate gave up before open() was called.
class LaunchGate {
 public:
  /// True when this translation unit was compiled by nvcc (the gate kernel exists).
#if defined(__CUDACC__)
  static constexpr bool available = true;
#else
  static constexpr bool available = false;
#endif

  LaunchGate() = default;
  LaunchGate(const LaunchGate&) = delete;
  LaunchGate& operator=(const LaunchGate&) = delete;
  ~LaunchGate() {
    if (host_) (void)cudaFreeHost(host_);
  }

  /// Enqueues the gate on `stream`; it holds the stream for at most `timeout`.
  /// Throws CudaError if the flags cannot be allocated or the kernel cannot be launched.
  void close(cudaStream_t stream, std::chrono::nanoseconds timeout) {
    allocate();
    ++epoch_;
    if (epoch_ == 0) ++epoch_;
#if defined(__CUDACC__)
    gate_kernels::gate_kernel<0><<<1, 1, 0, stream>>>(device_, device_ + 1, epoch_,
                                             static_cast<std::uint64_t>(timeout.count()));
    GAUGE_CUDA_CHECK(cudaGetLastError());
#else
    (void)stream;
    (void)timeout;
    throw Error("gauge::backend_parts::LaunchGate::close: the gate kernel needs a translation unit compiled by nvcc");
#endif
  }

  /// Releases the gate closed last. Never blocks.
  void open() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    static_cast<volatile std::uint32_t*>(host_)[0] = epoch_;
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }

  /// After the stream was synchronized: true if the last gate timed out before open().
  bool timed_out() const { return host_ && static_cast<volatile std::uint32_t*>(host_)[1] == epoch_; }

  /// The gate kernel's address (for the JIT check), or null where it does not exist.
  static const void* kernel_address() {
#if defined(__CUDACC__)
    return reinterpret_cast<const void*>(&gate_kernels::gate_kernel<0>);
#else
    return nullptr;
#endif
  }

 private:
  void allocate() {
    if (host_) return;
    void* p = nullptr;
    GAUGE_CUDA_CHECK(cudaHostAlloc(&p, 2 * sizeof(std::uint32_t), cudaHostAllocMapped));
    host_ = static_cast<std::uint32_t*>(p);
    host_[0] = 0;
    host_[1] = 0;
    void* d = nullptr;
    GAUGE_CUDA_CHECK(cudaHostGetDevicePointer(&d, p, 0));
    device_ = static_cast<std::uint32_t*>(d);
  }

  std::uint32_t* host_ = nullptr;
  std::uint32_t* device_ = nullptr;
  std::uint32_t epoch_ = 0;
};

GAUGE_END_BACKEND_PARTS_COMPILE_MODE_NAMESPACE
