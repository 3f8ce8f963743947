#pragma once
/// \file gauge/core/cpu_counters_record.hpp
/// CpuCountersRecord: a host result's hardware counters per step (gauge/core/cpu_counters.hpp
/// reads them), or why there are none. Schema 1.7.

#include <optional>
#include <string>

#include "gauge/core/summary.hpp"

namespace gauge {
namespace records {
/// Hardware counters per step of a host result (schema 1.7): the thread that calls the step only
/// (threads it starts are not counted), user mode, one sample per measured round, a setup's
/// counts taken out (the counters are read around it).
struct CpuCountersRecord {
  /// "measured"; "unavailable" (with `reason`: no PMU, perf_event_paranoid, not Linux, a step too
  /// short to resolve with a setup); "not_measured" (GPU timing).
  std::string status = "not_measured";
  std::string reason;  ///< why not measured or unavailable ("" when measured)
  Summary cycles_per_step;        ///< CPU cycles per step (user mode), one value per round
  Summary instructions_per_step;  ///< retired instructions per step (user mode), one value per round
  /// Instructions / cycles over all measured rounds (their sums); null without both.
  std::optional<double> instructions_per_cycle;
  /// The smallest fraction of a round the counters were scheduled on the PMU (time_running /
  /// time_enabled; < 1 when multiplexed with other events: the values are scaled by it).
  std::optional<double> min_running_fraction;
};
}  // namespace records

}  // namespace gauge
