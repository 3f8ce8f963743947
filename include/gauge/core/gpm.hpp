#pragma once
/// \file gauge/core/gpm.hpp
/// NVML GPM (GPU Performance Monitoring, Hopper and newer) over the measured rounds: what the
/// device's own counters say about DRAM bandwidth and SM activity, beside what the step declared
/// (issue "Speed of light"). Plain data and one pure function, tested on a CPU; the readings come
/// from gauge/env/nvml_gpm.hpp through the telemetry probe (gauge/core/telemetry.hpp).
///
/// How: one GPM sample (nvmlGpmSampleGet) when measurement begins (after warm-up and calibration,
/// before the first measured round) and one when it ends (after the last round, synchronized);
/// nvmlGpmMetricsGet turns the two into percentages averaged over the host time between them.
/// That interval holds the measured rounds, their wall rounds and the host's bookkeeping between
/// rounds, so the percentages are over that whole interval, idle gaps included; the cross-check
/// below compares like with like (the declared bytes of every step run in the same interval).
///
/// The cross-check rule: declared DRAM bytes per second over the interval (bytes per step × steps
/// run between the samples, plus the L2 flush's bytes per step with a cold cache, / the interval)
/// against GPM's (DRAM_BW_UTIL / 100 × the memory peak the step's fractions use: the theoretical
/// one at the maximum memory clock, else the datasheet's). The two disagree grossly when their
/// ratio is above `gpm_mismatch_factor` or below its inverse; `gpm_bandwidth_mismatch` then says
/// which way and what it likely means: a warning when the step declares more than DRAM delivered
/// (a hot L2 served it, or the bytes are counted twice), a note (severity info) when it declares
/// less (normal for a compute-bound kernel, whose tiles are read from DRAM more than once: the
/// H200's bf16 GEMM at 8192^3 moved 3.4x its compulsory bytes). Not checked when the interval is
/// shorter than `gpm_check_interval_s`, without declared bytes, or without a memory peak.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gauge {

namespace detail {
/// Ratio of declared to GPM DRAM bandwidth beyond which (or below whose inverse) they disagree
/// grossly: 2, far outside GPM's and the declaration's own error (a hot L2 hit, a double count or
/// an uncounted buffer each move the ratio by 2x or more; refresh and host-gap effects do not).
inline constexpr double gpm_mismatch_factor = 2.0;
/// Shortest interval between two GPM samples NVML supports, seconds: NVML's reference for
/// nvmlGpmMetricsGet says the interval "should be greater than 100ms due to the internal sample
/// refresh rate" (https://docs.nvidia.com/deploy/nvml-api/group__nvmlGpmFunctions.html).
inline constexpr double gpm_min_interval_s = 0.1;
/// Shortest interval the cross-check trusts, seconds: 10 of NVML's refresh periods. On the H200
/// a 1 GiB copy read DRAM_BW_UTIL 33.6 % over 0.14 s in one run and 79.5 % over 0.12 s in the
/// next (both copies run at 4.1-4.2 TB/s by their events), and 87.1 % over 0.32 s for the triad:
/// over a few refresh periods the reading depends on where they fall.
inline constexpr double gpm_check_interval_s = 1.0;

/// What nvmlGpmMetricsGet gave for two samples: each metric in percent (0-100), empty where NVML
/// refused it (then `unavailable` names it with NVML's error).
struct GpmReading {
  std::optional<double> dram_bw_util_pct;   ///< NVML_GPM_METRIC_DRAM_BW_UTIL
  std::optional<double> sm_util_pct;        ///< NVML_GPM_METRIC_SM_UTIL
  std::optional<double> sm_occupancy_pct;   ///< NVML_GPM_METRIC_SM_OCCUPANCY
  std::vector<std::pair<std::string, std::string>> unavailable;  ///< metric name → NVML's error
};
}  // namespace detail

namespace records {
/// The result's `telemetry.gpm` (schema 1.6): GPM's readings over the measured rounds and the
/// cross-check against the declared bytes. `status` "unavailable" with `reason` where GPM is
/// absent (no NVML, not supported, a GPU older than Hopper, the host backend): never zeros.
struct GpmRecord {
  std::string status = "unavailable";  ///< "measured" or "unavailable"
  std::string reason;                  ///< why unavailable, or which metrics NVML refused ("" otherwise)
  std::optional<double> interval_s;    ///< host time between the two GPM samples, seconds
  std::optional<double> dram_bw_util_pct;  ///< DRAM bandwidth used / its theoretical maximum, %, over the interval
  std::optional<double> sm_util_pct;       ///< share of SMs busy (at least one warp resident), %, averaged over the interval
  std::optional<double> sm_occupancy_pct;  ///< active warps / the maximum resident warps, %, averaged over SMs and the interval
  std::vector<std::pair<std::string, std::string>> unavailable_metrics;  ///< metric → NVML's error
  // ---- the cross-check with the declared bytes ----
  std::optional<std::uint64_t> steps;          ///< steps run between the two samples (timed and wall rounds)
  std::optional<double> flush_bytes_per_step;  ///< the L2 flush's bytes per step (cold cache), counted as DRAM traffic
  std::optional<double> declared_bytes_per_s;  ///< (declared bytes + flush bytes) per step × steps / interval, bytes/s
  std::optional<double> memory_peak_bytes_per_s;  ///< the memory peak DRAM_BW_UTIL is read against, bytes/s
  std::string memory_peak_basis;               ///< that peak's basis ("theoretical", "datasheet"), "" without one
  std::optional<double> gpm_bytes_per_s;       ///< dram_bw_util_pct / 100 × memory_peak_bytes_per_s, bytes/s
  std::optional<double> declared_to_gpm_ratio;  ///< declared_bytes_per_s / gpm_bytes_per_s (null when GPM read 0)
  /// "agrees" (ratio within [1 / gpm_mismatch_factor, gpm_mismatch_factor]), "declared_above_gpm",
  /// "declared_below_gpm", or "not_checked: <why>".
  std::string cross_check = "not_checked: GPM unavailable";

  /// What each metric means, as NVML defines it (written into the report beside the numbers).
  static constexpr const char* meaning =
      "NVML GPM over the interval between a sample before the first measured round and one after the last: "
      "dram_bw_util_pct = DRAM bandwidth used vs its theoretical maximum (NVML_GPM_METRIC_DRAM_BW_UTIL); "
      "sm_util_pct = percentage of SMs that were busy (NVML_GPM_METRIC_SM_UTIL); sm_occupancy_pct = "
      "percentage of warps that were active vs the theoretical maximum (NVML_GPM_METRIC_SM_OCCUPANCY). "
      "Idle host gaps between rounds are inside the interval.";
  /// The cross-check's rule, in words (written into the report).
  static constexpr const char* rule =
      "declared_bytes_per_s = (bytes_per_step + L2 flush bytes per step when cold) x steps / interval_s; "
      "gpm_bytes_per_s = dram_bw_util_pct / 100 x memory_peak_bytes_per_s; gpm_bandwidth_mismatch when "
      "declared / gpm > 2 (warning) or < 1/2 (a note: re-reads); not checked below a 1 s interval";
};
}  // namespace records

namespace detail {
/// A `telemetry.gpm` record that says GPM is unavailable, and why.
inline records::GpmRecord gpm_unavailable(std::string reason) {
  records::GpmRecord rec;
  rec.reason = std::move(reason);
  return rec;
}
}  // namespace detail

}  // namespace gauge
