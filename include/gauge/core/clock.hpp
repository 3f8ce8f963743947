#pragma once
/// \file gauge/core/clock.hpp
/// The SM clock an experiment's samples were measured at (issue 21, "Same code, same verdict";
/// seed: "If clocks are not locked, record sampled clocks and compare utilization ratios more than
/// single-run nanoseconds"). On a power-capped GPU with unlocked clocks the SM clock floats from
/// run to run, and a compute-bound step's time follows it; its SM cycles per step do not. So every
/// gated round records its own mean SM clock, and the report gives cycles per step beside time.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "gauge/core/summary.hpp"

namespace gauge {
namespace records {
/// One round's mean SM clock, as a backend's probe read it (gauge/cuda/clock_probe.hpp).
struct SmClockReading {
  double sm_clock_mhz = 0;  ///< mean SM clock over the round, MHz
  std::size_t sms = 0;      ///< SMs the reading is the median over
  double sm_spread = 0;     ///< (max − min) / median of the per-SM clocks
};

/// The clock of a result's measured rounds and its cycles per step.
struct ClockRecord {
  /// Where the per-round clock comes from: "probe" (`%clock64` against `%globaltimer` around every
  /// gated round, gauge/cuda/clock_probe.hpp: the mean over exactly the timed interval),
  /// "telemetry" (no probe; NVML's SM clock readings during measurement, their mean for every
  /// round), or "none" (no clock known: the host backend, or no NVML).
  std::string source = "none";
  /// Mean SM clock of each kept gated round, MHz, in the order of `sampling.round_samples`
  /// (null: that round has no reading).
  std::vector<std::optional<double>> round_sm_clock_mhz;
  /// Mean SM clock over the measured rounds, weighted by their samples, MHz.
  std::optional<double> sm_clock_mhz;
  /// (max − min) / mean of the rounds' clocks: how far the clock moved within the run.
  std::optional<double> relative_spread;
  /// The largest spread of per-SM clocks within one probe reading, (max − min) / median: 0 when
  /// every SM ran at one clock (one clock domain); null without a probe.
  std::optional<double> sm_spread;
  /// Mean SM clock from NVML's samples during measurement, MHz (a cross-check of the probe).
  std::optional<double> telemetry_sm_clock_mhz;
  /// Mean memory clock from NVML's samples during measurement, MHz (another clock domain: the
  /// probe does not see it).
  std::optional<double> memory_clock_mhz;
  /// SM cycles per step: each GPU-time sample × its round's clock (`round_sm_clock_mhz` × 1e6).
  /// Its n is 0 when no round has a clock.
  Summary cycles;
  /// How `cycles` is computed.
  static constexpr const char* cycles_method = "GPU time per step of each sample x the mean SM clock of its round";
};
}  // namespace records

}  // namespace gauge
