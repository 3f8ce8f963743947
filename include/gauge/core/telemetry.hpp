#pragma once
/// \file gauge/core/telemetry.hpp
/// Telemetry and capacity data recorded during an experiment (plain data; the sampler lives in
/// gauge/env/telemetry.hpp). Units are in the names: seconds, MHz, W, °C, bytes.

#include <cstdint>
#include <utility>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gauge/core/gpm.hpp"

namespace gauge {
namespace records {
/// One telemetry reading of the experiment's GPU (NVML), taken by the background sampler or at a
/// round boundary. Fields the device does not report stay empty.
struct TelemetrySample {
  double t_s = 0;                                   ///< seconds since run() began (host clock)
  std::optional<double> sm_clock_mhz;               ///< current SM clock, MHz
  std::optional<double> memory_clock_mhz;           ///< current memory clock, MHz
  std::optional<double> power_w;                    ///< power draw, W
  std::optional<double> temperature_c;              ///< GPU temperature, °C
  std::optional<std::uint64_t> clock_event_reasons; ///< NVML clock event (throttle) reason bits
  std::optional<std::uint64_t> process_memory_bytes;  ///< this process's GPU memory (NVML), bytes
};

/// min / mean / max of one telemetry quantity over the measured region.
struct TelemetryStat {
  std::optional<double> min, mean, max;
};

/// What the telemetry says about the experiment.
struct TelemetryRecord {
  bool available = false;                 ///< a telemetry source (NVML) was read
  std::optional<std::string> unavailable_reason;  ///< why not, e.g. "libnvidia-ml.so.1 not found"
  double interval_s = 0;                  ///< background sampling interval (0 = round boundaries only)
  double measure_start_s = 0;             ///< when measurement began, seconds since run() began
  double measure_end_s = 0;               ///< when it ended
  double warmup_start_s = 0;              ///< when warm-up began
  TelemetryStat sm_clock_mhz;             ///< during measurement
  TelemetryStat memory_clock_mhz;         ///< during measurement
  TelemetryStat power_w;                  ///< during measurement
  TelemetryStat temperature_c;            ///< during measurement
  std::optional<double> sm_clock_max_mhz;   ///< the device's maximum SM clock, MHz
  std::uint64_t throttle_reasons_seen = 0;  ///< OR of throttle bits seen while measuring (idle and
                                            ///< application-clock bits excluded)
  std::vector<std::string> throttle_reason_names;  ///< names of those bits
  /// Indices of GPU-time samples taken in a round during which a throttling reading was seen.
  std::vector<std::size_t> throttled_samples;
  std::vector<TelemetrySample> series;    ///< every reading, in time order
  /// NVML GPM over the measured rounds (schema 1.6; gauge/core/gpm.hpp): DRAM bandwidth and SM
  /// activity, and the cross-check with the declared bytes; "unavailable" with the reason.
  GpmRecord gpm = detail::gpm_unavailable("not sampled");
};

/// Peak memory and whether the workload fits (seed: "Capacity is part of performance").
struct MemoryRecord {
  std::optional<std::uint64_t> device_total_bytes;      ///< device memory, bytes
  std::optional<std::uint64_t> device_used_peak_bytes;  ///< max of total − free (cudaMemGetInfo), device-wide
  std::optional<std::uint64_t> device_used_at_measure_start_bytes;  ///< device-wide, bytes
  std::optional<std::uint64_t> device_used_at_measure_end_bytes;    ///< device-wide, bytes
  std::optional<std::uint64_t> process_peak_bytes;      ///< max NVML per-process usage seen, bytes
  std::optional<std::uint64_t> other_processes_bytes;   ///< GPU memory of other processes (NVML), bytes
  std::optional<std::uint64_t> pool_used_high_bytes;    ///< default stream-ordered pool: used high watermark
  std::optional<std::uint64_t> pool_reserved_high_bytes;  ///< reserved high watermark
  std::map<std::string, std::uint64_t> allocator_peak_bytes;  ///< user allocator hooks' peaks, by name
  std::optional<std::uint64_t> host_rss_peak_bytes;     ///< VmHWM of this process, bytes
  std::optional<std::uint64_t> host_rss_at_measure_start_bytes;  ///< VmRSS, bytes
  std::optional<std::uint64_t> host_rss_at_measure_end_bytes;    ///< VmRSS, bytes
  std::optional<std::uint64_t> host_memory_total_bytes; ///< MemTotal, bytes
  /// The headline peak of this process's device memory, bytes: the largest of NVML per-process
  /// usage, device-wide usage minus other processes', pool reserved high watermark plus usage at
  /// measurement start, and the allocator hooks.
  std::optional<std::uint64_t> peak_bytes;
  std::string peak_source;                 ///< which source gave `peak_bytes`
  std::optional<std::int64_t> device_growth_bytes;  ///< device-wide used at end − at start of measurement
  std::optional<std::int64_t> host_rss_growth_bytes;  ///< VmRSS at end − at start of measurement
  bool grew_during_measurement = false;    ///< growth beyond the tolerance (see memory warnings)
  std::optional<bool> fits;                ///< the steady-state workload fits (null: cannot tell)
  std::string fits_reason;                 ///< why, with the numbers
};

/// Device memory at one moment (cudaMemGetInfo and the device's default stream-ordered pool).
struct DeviceMemorySnapshot {
  std::uint64_t total_bytes = 0;                       ///< device memory, bytes
  std::uint64_t used_bytes = 0;                        ///< total − free, device-wide, bytes
  std::optional<std::uint64_t> pool_used_high_bytes;     ///< cudaMemPoolAttrUsedMemHigh
  std::optional<std::uint64_t> pool_reserved_high_bytes; ///< cudaMemPoolAttrReservedMemHigh
};

/// A kernel's binary as the CUDA runtime loaded it (cudaFuncGetAttributes).
struct KernelBinaryRecord {
  std::string name;             ///< as the user named it
  int binary_version = 0;       ///< SASS architecture, major·10 + minor (90 = sm_90)
  int ptx_version = 0;          ///< PTX virtual architecture it was compiled from (major·10 + minor)
  int device_version = 0;       ///< the device's compute capability, major·10 + minor
  bool jit_compiled = false;    ///< the driver compiled PTX for this device (heuristic: see cuda/jit.hpp)
};
}  // namespace records

namespace env {
/// A source of telemetry readings (NVML for the CUDA backend, scripted in tests). read() is
/// called from the sampler's thread and from the protocol's thread, never concurrently.
class TelemetryProbe {
 public:
  virtual ~TelemetryProbe() = default;
  /// One reading (t_s is filled in by the sampler). Never throws; absent fields stay empty.
  virtual records::TelemetrySample read() = 0;
  /// The device's maximum SM clock in MHz, when known.
  virtual std::optional<double> sm_clock_max_mhz() { return std::nullopt; }
  /// Processes with a compute context on the device (pid, bytes), when known.
  virtual std::vector<std::pair<unsigned, std::uint64_t>> processes() { return {}; }
  /// GPM (gauge/core/gpm.hpp): takes the first sample of an interval. Returns "" when taken, else
  /// why GPM is unavailable (no GPM in this libnvidia-ml, the device does not support it). Never
  /// throws. Default: this source has none.
  virtual std::string gpm_begin() { return "this telemetry source has no GPM"; }
  /// Takes the second sample and returns NVML's metrics over the interval since gpm_begin(), or
  /// nullopt with `reason`. Called only after a gpm_begin() that returned "". Never throws.
  virtual std::optional<detail::GpmReading> gpm_end(std::string& reason) {
    reason = "this telemetry source has no GPM";
    return std::nullopt;
  }
};
}  // namespace env

namespace records {
/// Host memory of this process, bytes.
struct ProcessMemory {
  std::optional<std::uint64_t> rss_bytes;       ///< VmRSS: resident now
  std::optional<std::uint64_t> rss_peak_bytes;  ///< VmHWM: peak resident ("high water mark")
};
}  // namespace records

}  // namespace gauge
