#pragma once
/// \file gauge/core/peak_fractions.hpp
/// Every throughput as a fraction of the device's peaks, and the roofline position (issue "Speed
/// of light"): the result's `peaks` record, its data. The pure functions over a result's work,
/// throughput and the device's peaks that fill it are in gauge/core/peak_assessment.hpp.
///
/// The declared data type of the work is the experiment's `dtype` dimension (e.g. `.dimension(
/// "dtype", "bf16")`, as examples/gemm.cu declares it), read through canonical_dtype(); without
/// one, or with a name gauge does not know, no compute fraction is given and the record says why.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gauge/core/peaks.hpp"

namespace gauge {
namespace records {
/// One throughput as a fraction of one peak.
struct PeakFraction {
  std::string throughput;   ///< "gpu" (work / median GPU time) or "wall" (work / median wall time)
  std::string quantity;     ///< "memory_bandwidth" (bytes/s) or "compute" (FLOP/s)
  std::string dtype;        ///< the compute peak's type ("" for memory)
  std::string basis;        ///< the peak's basis: "theoretical", "datasheet", "measured"
  std::string clock_basis;  ///< the peak's clock basis (see Peak::clock_basis)
  double peak = 0;          ///< the peak, bytes/s or FLOP/s
  double rate = 0;          ///< the throughput, same unit
  double fraction = 0;      ///< rate / peak (1 = at the peak)
};

/// Where the step sits on the roofline: arithmetic intensity against the ridge point.
struct RooflineRecord {
  double arithmetic_intensity = 0;  ///< declared FLOP / declared bytes per step, FLOP/byte
  double ridge_point = 0;           ///< compute peak / memory peak, FLOP/byte
  std::string basis;                ///< the peaks' basis ("measured" where both are, else "theoretical"/"datasheet")
  /// "memory" (intensity below the ridge), "compute" (at or above it), or "launch" (the host sets
  /// the pace: the GPU busy fraction is below the launch_bound threshold, whatever the intensity).
  std::string bound;
};

/// A result's peaks: the ones it was compared with and the fractions (schema 1.5).
struct PeaksRecord {
  /// "known" (peaks were compared), "none" (the backend knows no device peaks, or none applies).
  std::string status = "none";
  std::string reason;                    ///< why none, or what is missing (no dtype, unknown dtype)
  std::optional<std::string> dtype;      ///< the declared type, canonical ("bf16"), when known
  std::optional<std::uint64_t> l2_cache_bytes;  ///< the device's L2, bytes
  std::vector<peaks::Peak> peaks;        ///< the peaks compared with (the run-clock ones included)
  std::vector<PeakFraction> fractions;   ///< one per throughput and applicable peak
  std::optional<RooflineRecord> roofline;  ///< with FLOP and bytes declared and both peaks known
};
}  // namespace records

}  // namespace gauge
