#pragma once
/// \file gauge/core/warmup.hpp
/// The steady-state rule that ends warm-up (see WarmupConfig for the rule in words).

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "gauge/core/config.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/format.hpp"

namespace gauge {
namespace stats {
/// The verdict of the steady-state rule on the rounds so far.
struct SteadyVerdict {
  bool steady = false;               ///< the last two windows agree within the tolerance
  double relative_drift = 0;         ///< |median(last) − median(previous)| / median(last); 0 if too few rounds
  std::string reason;                ///< in words, with the numbers
};
}  // namespace stats

namespace detail {
inline double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
}  // namespace detail

namespace stats {
/// Applies the steady-state rule to `rounds` (in order). The very first round holds the first
/// step alone (its cost is reported separately) and is never part of a window.
inline SteadyVerdict steady_state(const std::vector<records::WarmupRound>& rounds, const WarmupConfig& cfg) {
  SteadyVerdict v;
  const std::size_t w = cfg.window;
  const std::size_t usable = rounds.size() > 0 ? rounds.size() - 1 : 0;
  if (usable < 2 * w) {
    v.reason = "fewer than " + std::to_string(2 * w) + " rounds after the first step";
    return v;
  }
  std::vector<double> last, prev;
  for (std::size_t i = rounds.size() - w; i < rounds.size(); ++i) last.push_back(rounds[i].time_per_step_s);
  for (std::size_t i = rounds.size() - 2 * w; i < rounds.size() - w; ++i) prev.push_back(rounds[i].time_per_step_s);
  const double ml = detail::median_of(last);
  const double mp = detail::median_of(prev);
  v.relative_drift = ml > 0 ? std::fabs(ml - mp) / ml : (mp == ml ? 0.0 : INFINITY);
  v.steady = v.relative_drift <= cfg.drift_tolerance;
  v.reason = "median per-step time of the last " + std::to_string(w) + " rounds " + detail::format_general(ml, 6) +
             " s vs " + detail::format_general(mp, 6) + " s in the " + std::to_string(w) + " before: drift " +
             detail::format_general(100 * v.relative_drift, 3) + " % " + (v.steady ? "<=" : ">") + " tolerance " +
             detail::format_general(100 * cfg.drift_tolerance, 3) + " %";
  return v;
}
}  // namespace stats

}  // namespace gauge
