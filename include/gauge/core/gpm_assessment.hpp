#pragma once
/// \file gauge/core/gpm_assessment.hpp
/// The `telemetry.gpm` record of a GPM reading (gauge/core/gpm.hpp holds the data and states the
/// cross-check): its metrics and the declared bytes/s against GPM's DRAM bandwidth. A pure
/// function, tested on a CPU (tests/test_peaks.cpp); the protocol calls it.

#include <cstdint>
#include <optional>
#include <string>

#include "gauge/core/gpm.hpp"

namespace gauge {

namespace detail {
/// The inputs of assess_gpm besides the reading.
struct GpmInputs {
  double interval_s = 0;                      ///< host time between the two samples, seconds
  std::uint64_t steps = 0;                    ///< steps run between them
  std::optional<double> bytes_per_step;       ///< the step's declared bytes (Work::bytes)
  std::optional<double> flush_bytes_per_step; ///< the L2 flush's bytes per step (cold cache), else empty
  std::optional<double> memory_peak_bytes_per_s;  ///< the memory peak (ceiling_peak), bytes/s
  std::string memory_peak_basis;              ///< its basis
};

/// The `telemetry.gpm` record of a reading: the metrics, and the cross-check of the file comment.
/// A reading without DRAM_BW_UTIL is "measured" with the other metrics, and not cross-checked.
inline records::GpmRecord assess_gpm(const GpmReading& g, const GpmInputs& in) {
  records::GpmRecord rec;
  rec.status = "measured";
  rec.interval_s = in.interval_s;
  rec.dram_bw_util_pct = g.dram_bw_util_pct;
  rec.sm_util_pct = g.sm_util_pct;
  rec.sm_occupancy_pct = g.sm_occupancy_pct;
  rec.unavailable_metrics = g.unavailable;
  for (const auto& [metric, error] : g.unavailable)
    rec.reason += (rec.reason.empty() ? "" : "; ") + metric + ": " + error;
  rec.steps = in.steps;
  rec.flush_bytes_per_step = in.flush_bytes_per_step;
  rec.memory_peak_bytes_per_s = in.memory_peak_bytes_per_s;
  rec.memory_peak_basis = in.memory_peak_basis;
  if (g.dram_bw_util_pct && in.memory_peak_bytes_per_s)
    rec.gpm_bytes_per_s = *g.dram_bw_util_pct / 100.0 * *in.memory_peak_bytes_per_s;
  if (in.bytes_per_step && in.interval_s > 0)
    rec.declared_bytes_per_s =
        (*in.bytes_per_step + in.flush_bytes_per_step.value_or(0)) * static_cast<double>(in.steps) / in.interval_s;
  if (!g.dram_bw_util_pct) rec.cross_check = "not_checked: NVML gave no DRAM_BW_UTIL";
  else if (!in.bytes_per_step) rec.cross_check = "not_checked: the step declares no bytes";
  else if (!in.memory_peak_bytes_per_s || !(*in.memory_peak_bytes_per_s > 0)) rec.cross_check = "not_checked: no memory peak known";
  else if (!(in.interval_s >= gpm_min_interval_s)) rec.cross_check = "not_checked: interval below NVML's 0.1 s minimum";
  else if (!(in.interval_s >= gpm_check_interval_s))
    rec.cross_check = "not_checked: interval below 1 s (10 of NVML's refresh periods; shorter readings vary)";
  else {
    const double declared = *rec.declared_bytes_per_s, gpm = *rec.gpm_bytes_per_s;
    if (gpm > 0) rec.declared_to_gpm_ratio = declared / gpm;
    if (gpm <= 0) rec.cross_check = declared > 0 ? "declared_above_gpm" : "agrees";
    else if (declared / gpm > gpm_mismatch_factor) rec.cross_check = "declared_above_gpm";
    else if (declared / gpm < 1.0 / gpm_mismatch_factor) rec.cross_check = "declared_below_gpm";
    else rec.cross_check = "agrees";
  }
  return rec;
}

}  // namespace detail

}  // namespace gauge
