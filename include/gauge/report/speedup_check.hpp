#pragma once
/// \file gauge/report/speedup_check.hpp
/// The comparison's plausibility check (issue "Speed of light"): a speed-up beyond
/// `implausible_speedup_ratio` is more often a step that stopped doing its work (an early return,
/// a skipped kernel, a smaller problem) than an optimization. Independent of the comparison's own
/// types, so gauge/report/compare.hpp calls it with the two medians it already has:
///
/// ```cpp
/// if (auto w = gauge::implausible_speedup_warning(base_median_s, new_median_s, name))
///   comparison.warnings.push_back(*w);   // code warning_code::implausible_speedup
/// ```

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include "gauge/core/error.hpp"
#include "gauge/core/warnings.hpp"

namespace gauge {

namespace detail {
/// A speed-up (base time / new time) above this is flagged: 10×, beyond what a tuning change
/// usually gives one step on the same device (a change of algorithm may: then say so and silence it).
inline constexpr double implausible_speedup_ratio = 10.0;

/// The warning for a comparison whose new median time per step is more than
/// `implausible_speedup_ratio` times shorter than the base's, or nullopt. `base_median_s` and
/// `new_median_s` are seconds per step (or any one time unit for both); `name` names the
/// experiment in the message. Throws ConfigError when a time is negative or not finite; a zero
/// new time with a positive base is flagged (an infinite speed-up).
inline std::optional<Warning> implausible_speedup_warning(double base_median_s, double new_median_s,
                                                          const std::string& name = "",
                                                          double ratio_limit = implausible_speedup_ratio) {
  if (!std::isfinite(base_median_s) || !std::isfinite(new_median_s) || base_median_s < 0 || new_median_s < 0)
    throw ConfigError("implausible_speedup_warning: the medians must be finite and >= 0, got " +
                      std::to_string(base_median_s) + " and " + std::to_string(new_median_s));
  if (!(ratio_limit > 1) || !std::isfinite(ratio_limit))
    throw ConfigError("implausible_speedup_warning: the ratio limit must be finite and > 1, got " + std::to_string(ratio_limit));
  if (!(base_median_s > 0)) return std::nullopt;
  if (new_median_s > 0 && !(base_median_s / new_median_s > ratio_limit)) return std::nullopt;
  char speed[64];
  if (new_median_s > 0) std::snprintf(speed, sizeof speed, "%.3gx", base_median_s / new_median_s);
  else std::snprintf(speed, sizeof speed, "an infinite speed-up (new time 0)");
  char limit[32];
  std::snprintf(limit, sizeof limit, "%.3gx", ratio_limit);
  return make_warning(warning_code::implausible_speedup,
                      (name.empty() ? std::string("the new step") : "'" + name + "'") + " is " + speed +
                          " faster than the base, beyond " + limit +
                          ": check that it still does its work (verify() its output, and that the work per step and "
                          "the dimensions are the same on both sides) before believing the speed-up.");
}
}  // namespace detail

}  // namespace gauge
