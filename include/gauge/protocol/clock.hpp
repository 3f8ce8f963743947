#pragma once
/// \file gauge/protocol/clock.hpp
/// Fills a result's `clock` record (gauge/core/clock.hpp) from the per-round probe readings or,
/// without a probe, from NVML's samples; part of the protocol, compiled once per program.

#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

#include "gauge/core/cycles.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/statistics.hpp"

namespace gauge::detail {

/// Mean of the readings of `field` in [from, to] (seconds since run() began), or nullopt.
template <class Field>
std::optional<double> telemetry_mean(const records::TelemetryRecord& t, double from, double to, Field field) {
  double sum = 0;
  std::size_t n = 0;
  for (const auto& x : t.series) {
    const auto v = field(x);
    if (x.t_s < from || x.t_s > to || !v || !(*v > 0)) continue;
    sum += *v;
    ++n;
  }
  if (n == 0) return std::nullopt;
  return sum / static_cast<double>(n);
}

/// Completes `r.clock` after measuring, before the samples are cut to max_samples_in_report:
/// `round_sm_clock_mhz` holds the probe's reading of every kept gated round (or is empty). Without
/// any probe reading, each round gets the mean of NVML's SM-clock readings taken during it (the
/// mean over the whole measured region for a round no reading fell in), source "telemetry". Then
/// the sample-weighted mean clock, the rounds' spread and the cycles per step of every sample.
inline void record_clock(Result& r) {
  auto& c = r.clock;
  const auto& s = r.sampling;
  const auto& t = r.telemetry;
  auto sm = [](const records::TelemetrySample& x) { return x.sm_clock_mhz; };
  auto mem = [](const records::TelemetrySample& x) { return x.memory_clock_mhz; };
  c.telemetry_sm_clock_mhz = telemetry_mean(t, t.measure_start_s, t.measure_end_s, sm);
  c.memory_clock_mhz = telemetry_mean(t, t.measure_start_s, t.measure_end_s, mem);
  const std::size_t rounds = s.round_samples.size();
  const bool probed = std::any_of(c.round_sm_clock_mhz.begin(), c.round_sm_clock_mhz.end(),
                                  [](const std::optional<double>& v) { return v && *v > 0; });
  if (probed) {
    c.source = "probe";
    c.round_sm_clock_mhz.resize(rounds);
  } else if (c.telemetry_sm_clock_mhz && rounds > 0 && s.round_start_s.size() == rounds && s.round_end_s.size() == rounds) {
    c.source = "telemetry";
    c.round_sm_clock_mhz.assign(rounds, std::nullopt);
    for (std::size_t i = 0; i < rounds; ++i) {
      const auto m = telemetry_mean(t, s.round_start_s[i], s.round_end_s[i], sm);
      c.round_sm_clock_mhz[i] = m ? m : c.telemetry_sm_clock_mhz;
    }
  } else {
    c.source = "none";
    c.round_sm_clock_mhz.clear();
    c.sm_spread.reset();
    return;
  }
  // Cycles of every sample, and the sample-weighted mean and the spread of the round clocks.
  std::vector<double> cycles;
  double weighted = 0, lo = 0, hi = 0;
  std::size_t weight = 0, at = 0, with = 0;
  for (std::size_t i = 0; i < rounds; ++i) {
    const auto f = c.round_sm_clock_mhz[i];
    for (std::size_t j = 0; j < s.round_samples[i] && at < r.gpu_samples_s.size(); ++j, ++at)
      if (f && *f > 0) cycles.push_back(r.gpu_samples_s[at] * *f * 1e6);
    if (!f || !(*f > 0)) continue;
    weighted += *f * static_cast<double>(s.round_samples[i]);
    weight += s.round_samples[i];
    lo = with == 0 ? *f : std::min(lo, *f);
    hi = with == 0 ? *f : std::max(hi, *f);
    ++with;
  }
  if (weight > 0) {
    c.sm_clock_mhz = weighted / static_cast<double>(weight);
    c.relative_spread = (hi - lo) / *c.sm_clock_mhz;
  }
  c.cycles = stats::summarize(cycles, r.config.measure.confidence_level);
}

}  // namespace gauge::detail
