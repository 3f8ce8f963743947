#pragma once
/// \file gauge/core/cycles.hpp
/// SM cycles per step of a result's samples (gauge/core/clock.hpp), for the comparison.

#include <cstddef>
#include <vector>

#include "gauge/core/result.hpp"

namespace gauge::detail {

/// The cycles per step of each of `r`'s stored GPU-time samples (sample × its round's clock), in
/// order; empty when some round of stored samples has no clock, or the rounds do not index the samples.
inline std::vector<double> cycle_samples(const Result& r) {
  std::vector<double> out;
  const auto& s = r.sampling;
  const auto& f = r.clock.round_sm_clock_mhz;
  if (f.size() != s.round_samples.size()) return out;
  std::size_t at = 0;
  for (std::size_t i = 0; i < f.size(); ++i)
    for (std::size_t j = 0; j < s.round_samples[i] && at < r.gpu_samples_s.size(); ++j, ++at)
      if (f[i] && *f[i] > 0) out.push_back(r.gpu_samples_s[at] * *f[i] * 1e6);
      else return {};  // a round without a clock: no cycles at all, rather than a subset
  return out;
}

}  // namespace gauge::detail
