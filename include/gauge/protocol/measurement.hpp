#pragma once
/// \file gauge/protocol/measurement.hpp
/// Protocol's measuring loop: `measure` (timed rounds rotating over the stream pool, each with a
/// wall-time round, until the stopping rule, gauge/core/stream_effect.hpp for a pool, says stop),
/// `start_measuring` (the rounds' size) and `wall_round`. Part of gauge/protocol/protocol.hpp.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "gauge/core/config.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/core/stop.hpp"
#include "gauge/core/stream_effect.hpp"
#include "gauge/core/warning_sink.hpp"
#include "gauge/detail/nvtx.hpp"
#include "gauge/protocol/phases.hpp"

namespace gauge::detail {

// ---- measurement ------------------------------------------------------------------------------


inline void Protocol::start_measuring(Result& r) {
  const auto& m = config_.measure;
  MeasureState& st = measuring_.emplace();
  const std::size_t k = st.k = r.sampling.steps_per_sample;
  st.graph_mode = m.gpu_timing == GpuTiming::graph;
  const double T = std::max(estimate_, 1e-12);
  // With a pool, rounds are shorter (at most min_time / (streams × (1 + wall_round_fraction)),
  // and at least a quarter of round_time) so that every stream, with its wall round, is
  // measured within about min_time.
  double round_time = to_seconds(m.round_time);
  if (streams_ > 1)
    round_time = std::min(round_time, std::max(to_seconds(m.min_time) / (static_cast<double>(streams_) * (1 + m.wall_round_fraction)),
                                               round_time / 4));
  std::size_t steps_per_round = floor_ratio(round_time, std::max(T, sizing_estimate_));
  steps_per_round = std::clamp<std::size_t>(steps_per_round, k, std::max(k, max_round_));
  st.steps_per_round = std::max(k, steps_per_round / k * k);
  // Process CPU time and the counters are read in measured rounds only; with a setup, around every
  // setup too, which resolves only a step of at least 10 readings' cost: decided here, from
  // warm-up's estimate, rather than reading around every step and discarding it afterwards.
  if (host_timing_) {
    switches_at_measure_ = detail::involuntary_context_switches();
    const double read_cost = detail::process_cpu_read_cost();
    cpu_rounds_ = !has_setup_ || !std::isfinite(read_cost) || estimate_ >= thresholds::cpu_time_resolution_reads * read_cost;
  }
  st.t0 = b_.now();
  st.by_stream.resize(streams_);
  st.counts.assign(streams_, 0);
  st.medians.assign(streams_, 0.0);
  check_level("stopping rule", m.confidence_level);
}

inline void Protocol::measure(Result& r, WarningSink& sink) {
  const auto& m = config_.measure;
  auto& s = r.sampling;
  if (!measuring_) start_measuring(r);
  auto& [k, graph_mode, steps_per_round, t0, order, by_stream, counts, medians, hint_n, hint_l] = *measuring_;
  auto& samples = r.gpu_samples_s;
  while (true) {
    const double elapsed = b_.now() - t0;
    r.stopping.measure_time_s = elapsed;
    // Stopping rule.
    // The interval is the samples' own (distribution-free) one, widened by the between-stream
    // effect once every stream of the pool has been measured (gauge/core/stream_effect.hpp).
    std::optional<double> width, within_width;
    if (order.size() < samples.size()) {
      const std::size_t first = order.size();
      order.add(std::vector<double>(samples.begin() + static_cast<std::ptrdiff_t>(first), samples.end()));
      const std::size_t stream = s.round_stream.empty() ? 0 : s.round_stream.back();
      by_stream[stream].add(std::vector<double>(samples.begin() + static_cast<std::ptrdiff_t>(first), samples.end()));
      counts[stream] = by_stream[stream].size();
      medians[stream] = by_stream[stream].percentile(50);
    }
    const bool all_streams = s.rounds >= streams_;
    if (samples.size() >= 1) {
      const auto ci = order.median_ci(m.confidence_level, hint_n, hint_l);
      if (ci) hint_n = order.size(), hint_l = ci->lower_rank;
      const double med = order.percentile(50);
      if (ci && med > 0) {
        within_width = width = (ci->high - ci->low) / med;
        if (streams_ > 1) {
          const auto wide = all_streams ? stats::widen_for_streams(medians, counts, med, *ci, m.confidence_level) : std::nullopt;
          width = wide ? std::optional<double>((wide->high - wide->low) / med) : std::nullopt;
        }
      }
    }
    r.stopping.relative_ci_width = width;
    r.stopping.target_relative_ci_width = m.target_relative_ci_width;
    r.stopping.target_met = width && *width <= m.target_relative_ci_width;
    if (spec_.on_round && !samples.empty()) spec_.on_round(order.percentile(50), samples.size());
    const bool minimums = samples.size() >= m.min_samples && elapsed >= to_seconds(m.min_time) &&
                          s.wall_rounds >= 1 && all_streams;
    std::string stop;  // why this rank would stop now ("": go on), in the order of the rules
    if (minimums && r.stopping.target_met) stop = "noise_target_met";
    // Every stream was measured twice, and the samples' own interval is narrow enough, or each
    // stream's own median is known to the target (when the streams form two groups, the pooled
    // median can sit in the gap between them, and its own interval spans the gap): what keeps
    // the interval wider is the stream effect, which more samples do not narrow.
    if (stop.empty() && minimums && streams_ > 1 && s.rounds >= 2 * streams_) {
      bool known = within_width && *within_width <= m.target_relative_ci_width;
      if (!known) {
        known = true;
        for (std::size_t i = 0; i < streams_ && known; ++i) {
          const auto ci = by_stream[i].size() ? by_stream[i].median_ci(m.confidence_level) : std::nullopt;
          known = ci && medians[i] > 0 && (ci->high - ci->low) / medians[i] <= m.target_relative_ci_width;
        }
      }
      if (known) stop = "stream_effect";
    }
    // A stop request (gauge::request_stop; the runner on SIGTERM): at this round boundary, once
    // there is a sample (Protocol::run marks the result failed).
    if (stop.empty() && stop_requested() && !samples.empty()) stop = "interrupted";
    if (stop.empty() && samples.size() >= m.max_samples) stop = "max_samples";
    if (stop.empty() && elapsed >= to_seconds(m.max_time) && s.wall_rounds >= 1 && !samples.empty()) stop = "max_time";
    if (spec_.coordinator) stop = spec_.coordinator->stop(stop);
    // Rounds driven from outside (measure_round): the caller decides when to stop (end()); on
    // its own this side stops only at max_samples.
    if (driven_) stop = !stop_request_.empty() ? stop_request_ : stop == "max_samples" ? stop : std::string();
    if (!stop.empty()) {
      r.stopping.reason = stop;
      break;
    }
    // A gated round for GPU time.
    std::size_t steps = steps_per_round;
    const std::size_t samples_left = m.max_samples - samples.size();
    const std::size_t per_sample = per_step_pairs() ? 1 : k;
    const std::size_t room = samples_left > std::numeric_limits<std::size_t>::max() / per_sample
                                 ? std::numeric_limits<std::size_t>::max()
                                 : samples_left * per_sample;  // no overflow for huge max_samples
    steps = std::max(k, std::min(steps, room) / k * k);
    if (spec_.coordinator) steps = spec_.coordinator->round_steps(steps);
    const double round_start = b_.now() - t_begin_;
    const std::size_t stream = measure_rounds_++ % streams_;
    b_.select_stream(stream);
    NvtxRange range(label_ + " round " + std::to_string(measure_rounds_) + " stream " + std::to_string(stream));
    auto o = timed_round(steps, k, graph_mode);
    // Collective mode: each sample becomes the slowest rank's (this rank's own are kept by the
    // coordinator); a round some rank could not time is discarded by every rank.
    const bool combined = !spec_.coordinator || spec_.coordinator->combine_round(o.per_step_s, o.timed_out);
    if (o.timed_out) {
      on_gate_timeout(o, steps_per_round, k, r, sink);
      continue;
    }
    if (!combined) {
      ++s.discarded_rounds;
      continue;
    }
    s.round_start_s.push_back(round_start);
    s.round_end_s.push_back(b_.now() - t_begin_);
    s.round_samples.push_back(o.per_step_s.size());
    s.round_stream.push_back(stream);
    r.clock.round_sm_clock_mhz.push_back(o.clock ? std::optional<double>(o.clock->sm_clock_mhz) : std::nullopt);
    if (o.clock) r.clock.sm_spread = std::max(r.clock.sm_spread.value_or(0.0), o.clock->sm_spread);
    ++s.rounds;
    s.steps += o.steps;
    for (double x : o.per_step_s) samples.push_back(x);
    if (o.cpu_per_step_s) r.cpu_samples_s.push_back(*o.cpu_per_step_s);
    if (o.counters_per_step) {
      const auto& round_counts = *o.counters_per_step;
      cycles_samples_.push_back(round_counts.cycles);
      instructions_samples_.push_back(round_counts.instructions);
      counted_cycles_ += round_counts.cycles * static_cast<double>(o.steps);
      counted_instructions_ += round_counts.instructions * static_cast<double>(o.steps);
      min_running_fraction_ = std::min(min_running_fraction_, round_counts.running_fraction);
    }
    // A wall-time round: pipelined steps, one synchronize at the end (the seed's first snippet).
    std::size_t n_wall = static_cast<std::size_t>(std::llround(static_cast<double>(steps) * m.wall_round_fraction));
    n_wall = std::max<std::size_t>(1, n_wall);
    if (graph_mode) n_wall = std::max<std::size_t>(1, n_wall / k);
    auto w = wall_round(n_wall, graph_mode);
    const std::size_t wall_steps = graph_mode ? n_wall * k : n_wall;
    ++s.wall_rounds;
    s.wall_steps += wall_steps;
    r.wall_samples_s.push_back(w.wall_s / static_cast<double>(wall_steps));
    facts_.wall_total_s += w.wall_s;
    facts_.wall_enqueue_s += w.enqueue_s;
    facts_.wall_event_span_s += w.event_span_s;
    facts_.wall_steps += wall_steps;
    if (driven_) return;  // one round per measure_round()
  }
  (void)sink;
}

inline WallOutcome Protocol::wall_round(std::size_t n, bool graph_mode) {
  WallOutcome w;
  b_.reset_markers();
  b_.synchronize();
  const double t0 = b_.now();
  const std::size_t a = b_.record();
  // Steps on several threads, without a setup or a flush between them: one batch, as the timed
  // rounds run them (per step, each would pay the threads' wake-up, which the median does not).
  const bool batch = batched() && !has_setup_ && !cold() && !graph_mode;
  if (batch) call_steps(n);
  for (std::size_t i = 0; i < (batch ? 0 : n); ++i) {
    if (cold()) b_.flush_cache();
    if (has_setup_) call_setup();
    if (graph_mode) {
      b_.launch_graph();
      step_index_ += graph_k_;
    } else {
      call_step();
    }
  }
  const std::size_t b = b_.record();
  w.enqueue_s = b_.now() - t0;
  b_.synchronize();
  w.wall_s = b_.now() - t0;
  w.event_span_s = b_.elapsed(a, b);
  w.steps = n;
  return w;
}

}  // namespace gauge::detail
