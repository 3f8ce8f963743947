#pragma once
/// \file gauge/cuda/clock_probe.hpp
/// The effective SM clock of a measuring round (issue 21, "Same code, same verdict"): a probe
/// kernel enqueued right before a round's first event and another right after its last one read,
/// in each of their blocks, the SM's cycle counter (`%clock64`), the SM's id (`%smid`) and the
/// GPU-wide nanosecond timer (`%globaltimer`). For every SM that both probes landed on, the cycles
/// that SM counted divided by the nanoseconds that passed is its mean clock over the round; the
/// round's clock is the median over those SMs. NVML's readings are instantaneous samples every
/// `telemetry_interval`; this is the mean over exactly the interval the samples were timed in.
///
/// What it measures: `%clock64` counts cycles of the SM's own clock (the graphics clock domain on
/// Hopper and earlier: one clock for every SM, set by the driver from power and temperature), so
/// the figure is the mean SM (graphics) clock; `%clock64` is per SM and is not synchronized across
/// SMs, which is why a reading is only ever differenced on the SM it came from. The memory clock is
/// another domain, which this probe does not see (the report takes it from NVML). On a GPU whose
/// SMs ran at different clocks (none known to NVIDIA's public documentation), the median and the
/// spread across SMs (`ClockReading::sm_spread`) say so. The probes run outside every event pair,
/// so they add nothing to a sample; each costs about one launch (a few µs of device time) per
/// round. Like the gate, the kernel needs a translation unit compiled by nvcc: elsewhere
/// `ClockProbe::available` is false and the report's clock falls back to NVML's samples.
///
/// PTX registers: "%clock64", "%smid", "%globaltimer" (PTX ISA, "Special Registers").

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstddef>
#include <optional>
#include <vector>

#include "gauge/cuda/check.hpp"
#include "gauge/detail/compile_mode.hpp"

GAUGE_BEGIN_BACKEND_PARTS_COMPILE_MODE_NAMESPACE

/// One probe record: what one block read.
struct ClockProbeSlot {
  std::uint64_t cycles;       ///< %clock64 of the SM
  std::uint64_t global_ns;    ///< %globaltimer, nanoseconds
  std::uint32_t sm;           ///< %smid
  std::uint32_t epoch;        ///< which probe wrote it (stale slots are ignored)
};

namespace clock_kernels {
#if defined(__CUDACC__)
/// One thread per block: writes its SM's clock, the SM id and the global timer into `out[block]`.
template <int = 0>  // a template: vague linkage, so two .cu files that include this header link
__global__ void clock_probe_kernel(ClockProbeSlot* out, std::uint32_t epoch) {
  if (threadIdx.x != 0) return;
  std::uint64_t c, g;
  std::uint32_t sm;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c));
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  ClockProbeSlot s;
  s.cycles = c;
  s.global_ns = g;
  s.sm = sm;
  s.epoch = epoch;
  out[blockIdx.x] = s;
}
#endif
}  // namespace clock_kernels

/// The mean SM clock over one interval, from the probes around it.
struct ClockReading {
  double sm_clock_mhz = 0;   ///< median over matched SMs of Δcycles / Δns × 1000, MHz
  std::size_t sms = 0;       ///< SMs both probes landed on
  double sm_spread = 0;      ///< (max − min) / median of the per-SM clocks (0 with one SM)
  double interval_s = 0;     ///< the interval's length by %globaltimer, seconds
};

/// Owner of the probe's host-mapped slots. Not copyable. Use: start(stream) before the first
/// event of a round, stop(stream) after its last; after the stream is synchronized, read() gives
/// the reading (nullopt when the probes shared no SM or the interval was empty).
class ClockProbe {
 public:
  /// True when this translation unit was compiled by nvcc (the probe kernel exists).
#if defined(__CUDACC__)
  static constexpr bool available = true;
#else
  static constexpr bool available = false;
#endif

  /// \param blocks one-thread blocks per probe: twice the SM count lands a block on (nearly)
  /// every SM, so the two probes share SMs.
  explicit ClockProbe(unsigned blocks) : blocks_(std::max(1u, blocks)) {}
  ClockProbe(const ClockProbe&) = delete;
  ClockProbe& operator=(const ClockProbe&) = delete;
  ~ClockProbe() {
    if (host_) (void)cudaFreeHost(host_);
  }

  /// Enqueues the first probe on `stream`. Throws CudaError when the slots cannot be allocated or
  /// the kernel cannot be launched.
  void start(cudaStream_t stream) { launch(stream, 0); }
  /// Enqueues the second probe on `stream`.
  void stop(cudaStream_t stream) { launch(stream, blocks_); }

  /// After the stream was synchronized: the mean clock between the two probes of this round.
  std::optional<ClockReading> read() const {
    if (!host_) return std::nullopt;
    // The first start slot of each SM, indexed by SM id (%smid is below the device's SM count;
    // an id of 2^16 or more is not an SM's and is ignored).
    constexpr std::uint32_t max_sm = 1u << 16;
    std::uint32_t top = 0;
    for (unsigned i = 0; i < blocks_; ++i)
      if (host_[i].epoch == epoch_start_ && host_[i].sm < max_sm) top = std::max(top, host_[i].sm);
    std::vector<const ClockProbeSlot*> first(static_cast<std::size_t>(top) + 1, nullptr);
    for (unsigned i = 0; i < blocks_; ++i)
      if (host_[i].epoch == epoch_start_ && host_[i].sm <= top && !first[host_[i].sm]) first[host_[i].sm] = &host_[i];
    std::vector<double> mhz;
    std::uint64_t span = 0;
    for (unsigned i = blocks_; i < 2 * blocks_; ++i) {
      const ClockProbeSlot& e = host_[i];
      if (e.epoch != epoch_stop_ || e.sm > top || !first[e.sm]) continue;
      const ClockProbeSlot& s = *first[e.sm];
      if (e.global_ns <= s.global_ns || e.cycles <= s.cycles) continue;
      mhz.push_back(1e3 * static_cast<double>(e.cycles - s.cycles) / static_cast<double>(e.global_ns - s.global_ns));
      span = std::max(span, e.global_ns - s.global_ns);
      first[e.sm] = nullptr;  // one pair per SM
    }
    if (mhz.empty()) return std::nullopt;
    std::sort(mhz.begin(), mhz.end());
    ClockReading r;
    const std::size_t n = mhz.size();
    r.sm_clock_mhz = n % 2 ? mhz[n / 2] : 0.5 * (mhz[n / 2 - 1] + mhz[n / 2]);
    r.sms = n;
    r.sm_spread = r.sm_clock_mhz > 0 ? (mhz.back() - mhz.front()) / r.sm_clock_mhz : 0;
    r.interval_s = 1e-9 * static_cast<double>(span);
    return r;
  }

  /// The probe kernel's address (for the JIT check), or null where it does not exist.
  static const void* kernel_address() {
#if defined(__CUDACC__)
    return reinterpret_cast<const void*>(&clock_kernels::clock_probe_kernel<0>);
#else
    return nullptr;
#endif
  }

 private:
  void launch(cudaStream_t stream, unsigned offset) {
    allocate();
    const std::uint32_t epoch = ++epoch_counter_ == 0 ? ++epoch_counter_ : epoch_counter_;
    (offset == 0 ? epoch_start_ : epoch_stop_) = epoch;
#if defined(__CUDACC__)
    clock_kernels::clock_probe_kernel<0><<<blocks_, 32, 0, stream>>>(device_ + offset, epoch);
    GAUGE_CUDA_CHECK(cudaGetLastError());
#else
    (void)stream;
    throw Error("gauge::backend_parts::ClockProbe: the probe kernel needs a translation unit compiled by nvcc");
#endif
  }
  void allocate() {
    if (host_) return;
    void* p = nullptr;
    GAUGE_CUDA_CHECK(cudaHostAlloc(&p, 2 * blocks_ * sizeof(ClockProbeSlot), cudaHostAllocMapped));
    host_ = static_cast<ClockProbeSlot*>(p);
    std::fill(host_, host_ + 2 * blocks_, ClockProbeSlot{0, 0, 0, 0});
    void* d = nullptr;
    GAUGE_CUDA_CHECK(cudaHostGetDevicePointer(&d, p, 0));
    device_ = static_cast<ClockProbeSlot*>(d);
  }

  unsigned blocks_;
  ClockProbeSlot* host_ = nullptr;
  ClockProbeSlot* device_ = nullptr;
  std::uint32_t epoch_counter_ = 0, epoch_start_ = 0, epoch_stop_ = 0;
};

GAUGE_END_BACKEND_PARTS_COMPILE_MODE_NAMESPACE
