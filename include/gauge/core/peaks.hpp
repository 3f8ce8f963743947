#pragma once
/// \file gauge/core/peaks.hpp
/// The device's speed of light: memory bandwidth and dense FLOP/s per data type, each with its
/// provenance (issue "Speed of light"). The data; the tables and the pure functions of a device's
/// attributes are in gauge/core/peak_tables.hpp, tested on a CPU (tests/test_peaks.cpp).
///
/// Three bases, never mixed:
/// - "theoretical": a formula over the device's own attributes. Memory: 2 × memory clock × bus
///   width / 8 (HBM and GDDR transfer on both clock edges), with a per-model correction where the
///   reported bus width is known to be wrong (`memory_corrections`). Compute: SMs × SM clock ×
///   dense FLOP per SM per clock for the compute capability and type (`compute_rates`, every row
///   naming its source). Each at a stated clock: the maximum boost clock ("max_boost") or the
///   clock measured during the run ("run_measured").
/// - "datasheet": NVIDIA's published figure for the model (`datasheet_peaks`), dense (half the
///   "with sparsity" figure): what marketing promises, often at a clock below the maximum boost.
/// - "measured": what this GPU and driver achieved in `gauge-peaks` (a copy kernel, cuBLAS GEMMs),
///   read from the cache (gauge/env/peaks_cache.hpp): the achievable speed of light.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gauge {
namespace peaks {
/// The device attributes the peaks are computed from (cudaDeviceGetAttribute; a test's fake).
struct DeviceAttributes {
  std::string name;                          ///< e.g. "NVIDIA H200" (matched against the tables)
  int compute_capability_major = 0;          ///< e.g. 9
  int compute_capability_minor = 0;          ///< e.g. 0
  int multiprocessors = 0;                   ///< SMs
  std::optional<double> sm_clock_max_mhz;    ///< maximum (boost) SM clock, MHz (cudaDevAttrClockRate / 1000)
  std::optional<double> memory_clock_max_mhz;  ///< peak memory clock, MHz (cudaDevAttrMemoryClockRate / 1000)
  std::optional<int> memory_bus_width_bits;  ///< memory bus width as reported, bits
  std::uint64_t l2_cache_bytes = 0;          ///< L2 size, bytes (0: unknown)
};

/// One peak of a device, with where it comes from.
struct Peak {
  std::string quantity;     ///< "memory_bandwidth" (bytes/s) or "compute" (FLOP/s; OP/s for int8)
  std::string dtype;        ///< "" for memory; else fp64, fp32, tf32, bf16, fp16, fp8, int8
  std::string unit;         ///< "bytes/s", "FLOP/s" or "OP/s"
  std::string basis;        ///< "theoretical", "datasheet" or "measured"
  /// The clock the value assumes: "max_boost" (the device's maximum), "run_measured" (the clock of
  /// the run), "datasheet" (NVIDIA's, unstated) or "as_measured" (gauge-peaks' run).
  std::string clock_basis;
  std::optional<double> clock_mhz;  ///< that clock (SM clock for compute, memory clock for memory), MHz
  double value = 0;         ///< the peak, in `unit`
  std::string source;       ///< the formula with its numbers, and the table row's source
};

/// The peaks gauge knows for one device, and what it does not know.
struct DevicePeaks {
  std::vector<Peak> peaks;               ///< every known peak, theoretical first
  std::optional<std::uint64_t> l2_cache_bytes;  ///< L2 size, bytes (the working set a hot cache holds)
  std::vector<std::string> unknown;      ///< what is not known and why, e.g. "fp8: no tensor FP8 on sm_80"
  /// Where the measured peaks were read from (gauge-peaks' cache file), or why there are none.
  std::string measured_source;
};
}  // namespace peaks

}  // namespace gauge
