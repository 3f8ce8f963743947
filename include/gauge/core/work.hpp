#pragma once
/// \file gauge/core/work.hpp
/// The useful work one step does, and the throughput it implies.
///
/// Seed: "throughput = useful work / wall time ... Define it so an optimization cannot 'win' by
/// silently doing less work." Work is declared per step by the user (e.g. 2·M·N·K FLOP for a GEMM)
/// and never inferred from the time.

#include <cmath>
#include <map>
#include <optional>
#include <string>

#include "gauge/core/error.hpp"

namespace gauge {

/// Work done by one step. Every field is per step; absent fields are not reported.
struct Work {
  std::optional<double> flop;                ///< floating-point operations per step
  std::optional<double> bytes;               ///< bytes moved per step (as the user counts them)
  std::map<std::string, double> items;       ///< named items per step: "tokens", "images", ...

  /// True when no work was declared (then no throughput is reported).
  bool empty() const { return !flop && !bytes && items.empty(); }
};

/// Throughput of one step at a given time per step: work / time. Units: FLOP/s, bytes/s, items/s.
struct Throughput {
  std::optional<double> flop_per_second;            ///< FLOP/s
  std::optional<double> bytes_per_second;           ///< bytes/s
  std::map<std::string, double> items_per_second;   ///< per item name, items/s
};

namespace detail {
inline void check_work_amount(const char* what, double amount) {
  if (!std::isfinite(amount) || amount < 0) {
    throw ConfigError(std::string("work ") + what + " must be a finite number >= 0, got " +
                      std::to_string(amount));
  }
}
}  // namespace detail

/// Throughput of `work` when one step takes `seconds_per_step`; nullopt fields where the work
/// is absent or the time is not positive and finite.
inline Throughput throughput(const Work& work, std::optional<double> seconds_per_step) {
  Throughput t;
  if (!seconds_per_step || !std::isfinite(*seconds_per_step) || *seconds_per_step <= 0) return t;
  const double s = *seconds_per_step;
  if (work.flop) t.flop_per_second = *work.flop / s;
  if (work.bytes) t.bytes_per_second = *work.bytes / s;
  for (const auto& [name, count] : work.items) t.items_per_second[name] = count / s;
  return t;
}

}  // namespace gauge
