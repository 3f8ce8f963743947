#pragma once
/// \file gauge/core/thinning.hpp
/// What a report stores when a run took more GPU-time samples than `max_samples_in_report`: whole
/// gated rounds spread evenly over the run (not the first N samples), so that the stored samples
/// stay aligned with their rounds (`sampling.round_*`, `clock.round_sm_clock_mhz`,
/// `telemetry.throttled_samples`) and a change within the run shows in them as in the whole.

#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

#include "gauge/core/result.hpp"

namespace gauge {
namespace detail {

/// Keeps at most `max` of `r.gpu_samples_s` (samples in the order taken, `r.sampling.round_samples`
/// of them per kept round): the rounds kept are spread evenly over the run by a running budget of
/// `max / n` samples per sample taken (Bresenham's rule), each kept whole, so every stored sample
/// keeps its round's start, end, stream and clock. When no whole round fits (`max` below every
/// round's count), the first `max` samples of the middle round are kept. When the rounds do not
/// account for the samples (a hand-made Result), evenly spaced samples are kept and the per-round
/// lists, which would no longer index them, are cleared. Indices in `telemetry.throttled_samples`
/// are renumbered (those of dropped samples go). The wall-time and CPU-time samples (one per
/// round) keep those of the kept rounds, and never more than `max` (thin_round_samples). The
/// summaries (`gpu_time`, `wall_time`, `cpu_time`, `clock.cycles`) are not touched: they are of all
/// samples, and `n > size()` then says the samples are a subsample. Returns whether anything was
/// dropped.
/// Keeps at most `max` of `v`, evenly spaced (the middle of each of `max` equal stretches).
inline void thin_evenly(std::vector<double>& v, std::size_t max) {
  const std::size_t n = v.size();
  if (n <= max) return;
  std::vector<double> kept;
  kept.reserve(max);
  for (std::size_t j = 0; j < max; ++j)
    kept.push_back(v[std::min(n - 1, static_cast<std::size_t>((static_cast<double>(j) + 0.5) * static_cast<double>(n) /
                                                               static_cast<double>(max)))]);
  v = std::move(kept);
}

/// The per-round samples (wall time, process CPU time: one per measured round) after thin_samples:
/// those of the rounds kept where they are one per round (`kept_rounds[i]`: round i kept), else
/// at most `max`, evenly spaced (issue "Every user's first day": max_samples_in_report bounded the
/// GPU-time samples only). Their summaries stay those of all rounds.
inline void thin_round_samples(Result& r, const std::vector<bool>& kept_rounds, std::size_t max) {
  for (std::vector<double>* v : {&r.wall_samples_s, &r.cpu_samples_s}) {
    if (!kept_rounds.empty() && v->size() == kept_rounds.size()) {
      std::vector<double> kept;
      for (std::size_t i = 0; i < v->size(); ++i)
        if (kept_rounds[i]) kept.push_back((*v)[i]);
      *v = std::move(kept);
    }
    thin_evenly(*v, max);
  }
}

inline bool thin_samples(Result& r, std::size_t max) {
  std::vector<double>& x = r.gpu_samples_s;
  const std::size_t n = x.size();
  if (n <= max) {
    // Fewer GPU-time samples than rounds' wall or CPU samples only in a hand-made Result.
    const bool wide = r.wall_samples_s.size() > max || r.cpu_samples_s.size() > max;
    thin_round_samples(r, {}, max);
    return wide;
  }
  records::SamplingRecord& s = r.sampling;
  const std::size_t rounds = s.round_samples.size();
  std::size_t total = 0;
  for (std::size_t c : s.round_samples) total += c;
  std::vector<std::size_t> kept_of_round(rounds, 0);  // samples kept of each round (0: dropped)
  std::vector<std::size_t> new_index(n, n);           // old index -> new index (n: dropped)
  std::vector<double> kept;
  kept.reserve(max);
  if (total == n && rounds > 0) {
    const double per_sample = static_cast<double>(max) / static_cast<double>(n);
    double budget = 0;
    std::size_t first = 0, stored = 0;
    std::vector<std::size_t> starts(rounds);
    for (std::size_t i = 0; i < rounds; ++i) {
      starts[i] = first;
      const std::size_t c = s.round_samples[i];
      budget += per_sample * static_cast<double>(c);
      if (c > 0 && budget + 1e-9 >= static_cast<double>(c) && stored + c <= max) {
        kept_of_round[i] = c;
        stored += c;
        budget -= static_cast<double>(c);
      }
      first += c;
    }
    if (stored == 0 && max > 0) {  // every round is larger than max: part of the middle one
      std::size_t mid = rounds / 2;
      while (mid < rounds && s.round_samples[mid] == 0) ++mid;
      if (mid == rounds) mid = 0;
      kept_of_round[mid] = std::min(max, s.round_samples[mid]);
    }
    std::vector<double> start_s, end_s;
    std::vector<std::size_t> samples, stream;
    std::vector<std::optional<double>> clock;
    const bool with_start = s.round_start_s.size() == rounds, with_end = s.round_end_s.size() == rounds;
    const bool with_stream = s.round_stream.size() == rounds, with_clock = r.clock.round_sm_clock_mhz.size() == rounds;
    for (std::size_t i = 0; i < rounds; ++i) {
      if (kept_of_round[i] == 0) continue;
      for (std::size_t j = 0; j < kept_of_round[i]; ++j) {
        new_index[starts[i] + j] = kept.size();
        kept.push_back(x[starts[i] + j]);
      }
      samples.push_back(kept_of_round[i]);
      if (with_start) start_s.push_back(s.round_start_s[i]);
      if (with_end) end_s.push_back(s.round_end_s[i]);
      if (with_stream) stream.push_back(s.round_stream[i]);
      if (with_clock) clock.push_back(r.clock.round_sm_clock_mhz[i]);
    }
    std::vector<bool> kept_rounds(rounds);
    for (std::size_t i = 0; i < rounds; ++i) kept_rounds[i] = kept_of_round[i] > 0;
    thin_round_samples(r, kept_rounds, max);
    s.round_samples = std::move(samples);
    if (with_start) s.round_start_s = std::move(start_s);
    if (with_end) s.round_end_s = std::move(end_s);
    if (with_stream) s.round_stream = std::move(stream);
    if (with_clock) r.clock.round_sm_clock_mhz = std::move(clock);
  } else {
    thin_round_samples(r, {}, max);
    for (std::size_t j = 0; j < max; ++j) {
      const std::size_t at = static_cast<std::size_t>((static_cast<double>(j) + 0.5) * static_cast<double>(n) /
                                                      static_cast<double>(max));
      new_index[std::min(at, n - 1)] = kept.size();
      kept.push_back(x[std::min(at, n - 1)]);
    }
    s.round_samples.clear();
    s.round_start_s.clear();
    s.round_end_s.clear();
    s.round_stream.clear();
    r.clock.round_sm_clock_mhz.clear();
  }
  std::vector<std::size_t> throttled;
  for (std::size_t i : r.telemetry.throttled_samples)
    if (i < n && new_index[i] < n) throttled.push_back(new_index[i]);
  r.telemetry.throttled_samples = std::move(throttled);
  x = std::move(kept);
  return true;
}

}  // namespace detail
}  // namespace gauge
