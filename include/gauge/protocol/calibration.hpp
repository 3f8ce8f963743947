#pragma once
/// \file gauge/protocol/calibration.hpp
/// Protocol's calibration before measuring: `warm_up` (rounds until the step is in steady state,
/// gauge/core/warmup.hpp) and `choose_steps_per_sample` (k, from the measured cost of an event
/// between steps), with `prepare_graph` in graph mode. Part of gauge/protocol/protocol.hpp.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>

#include "gauge/core/config.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/stop.hpp"
#include "gauge/core/warmup.hpp"
#include "gauge/core/warning_sink.hpp"
#include "gauge/core/warnings.hpp"
#include "gauge/detail/fmt.hpp"
#include "gauge/detail/text.hpp"
#include "gauge/protocol/diagnosis.hpp"
#include "gauge/protocol/phases.hpp"
#include "gauge/protocol/seam.hpp"

namespace gauge::detail {

// ---- warm-up --------------------------------------------------------------------------------

inline void Protocol::warm_up(Result& r, WarningSink& sink) {
  const auto& w = config_.warmup;
  auto& rec = r.warmup;
  const double t_begin = b_.now();  // the curve's start_s and rec.time_s count from here
  double first_host_s = 0;
  // The very first step alone, ungated: module loading, JIT and autotuning land here.
  {
    b_.reset_markers();
    if (cold()) b_.flush_cache();
    const double host_start = b_.now();
    if (has_setup_) call_setup();
    const std::size_t a = b_.record();
    call_step();
    const std::size_t b = b_.record();
    b_.synchronize();
    first_host_s = b_.now() - host_start;  // with the setup: what each step of a round will cost
    rec.first_step_time_s = b_.elapsed(a, b);
    rec.curve.push_back(records::WarmupRound{0.0, 1, *rec.first_step_time_s});
    rec.steps = 1;
  }
  // The budget (min_time, max_time) counts from after the first step: a first call that takes
  // seconds (autotuning, JIT) must not spend it and leave the measurement sized by that call.
  const double t0 = b_.now();
  // Rounds are sized by the step's time, or with a setup by the host's round trip of setup and
  // step (a 200 ms setup before a 1 µs step must not make a first round of 512 steps).
  double estimate = std::max({*rec.first_step_time_s, has_setup_ ? first_host_s : 0.0, 1e-9});
  double gpu_estimate = estimate;
  std::size_t max_round = config_.measure.max_steps_per_round;
  // A round spans at least timer_resolution_ticks ticks of the clock, so that a coarse clock
  // (a host clock of 1 ms) still gives a per-step time within 1 %.
  const double round_time = std::max(to_seconds(w.round_time), thresholds::timer_resolution_ticks * b_.timer_resolution());
  // One warm-up round of n steps on `stream`: onto the curve, and the estimates updated; false
  // where the launch gate timed out (the round is not on the curve).
  auto warm_round = [&](std::size_t n, std::size_t stream) {
    const double start = b_.now() - t_begin;
    b_.select_stream(stream);
    RoundOutcome o = timed_round(n, n, false);
    const double host_per_step = (b_.now() - t_begin - start) / static_cast<double>(o.steps);
    rec.steps += o.steps;
    if (o.timed_out) {
      on_gate_timeout(o, max_round, 1, r, sink);
      return false;
    }
    double per_step = 0;
    for (double s : o.per_step_s) per_step += s;
    per_step /= static_cast<double>(o.per_step_s.size());
    rec.curve.push_back(records::WarmupRound{start, o.steps, per_step});
    if (per_step > 0) gpu_estimate = per_step;
    // Rounds are sized by the GPU time per step, unless the host's round trip per step is more
    // than twice that (launch-bound, or work the events do not see): then by the round trip,
    // so such a step cannot make rounds far longer than round_time.
    estimate = host_per_step > 2 * gpu_estimate ? host_per_step : gpu_estimate;
    return true;
  };
  while (true) {
    const double elapsed = b_.now() - t0;
    const stats::SteadyVerdict v = stats::steady_state(rec.curve, w);
    rec.relative_drift = v.relative_drift;
    rec.reason = v.reason;
    // Every stream of the pool is warmed (one round each at least) before measuring.
    const bool minimums = rec.steps >= w.min_steps && elapsed >= to_seconds(w.min_time) && rec.curve.size() > streams_;
    const bool steady = minimums && v.steady;
    // A stop request (gauge::request_stop; the runner on SIGTERM) ends warm-up as its cap does.
    const bool interrupted = stop_requested();
    const bool capped = rec.steps >= w.max_steps || elapsed >= to_seconds(w.max_time) || interrupted;
    // Collective mode: every rank ends warm-up at the same round (all steady, or one capped).
    const bool end = spec_.coordinator ? spec_.coordinator->end_warmup(steady, capped) : steady || capped;
    if (!end) {
      // go on warming up
    } else if (steady) {
      rec.converged = true;
      break;
    } else if (!capped) {
      // Another rank reached its warm-up cap before this one was steady.
      rec.converged = false;
      rec.reason = fmt::format("ended with the other ranks (one reached its warm-up cap) after {} steps and {}: ",
                               rec.steps, human_time(elapsed)) + v.reason;
      break;
    } else {
      rec.converged = false;
      rec.reason = fmt::format("{} after {} steps and {}: ", interrupted ? "interrupted (a stop was requested)" : "capped",
                               rec.steps, human_time(elapsed)) + v.reason;
      break;
    }
    std::size_t n = floor_ratio(round_time, estimate);
    n = std::clamp<std::size_t>(n, 1, max_round);
    n = std::min(n, w.max_steps - rec.steps);
    if (spec_.coordinator) n = spec_.coordinator->round_steps(n);
    warm_round(n, warmup_rounds_++ % streams_);
  }
  // A capped warm-up may have ended on rounds sized by slow calls (a tuner's trials filled the
  // budget: rounds of one step each). Before the measurement is sized by its last round, up to 3
  // more rounds, each sized by the cost of the one before, until a round's cost agrees within 4x
  // with the estimate that sized it: a step that is always slow costs one more step; a step that
  // has become fast gets a round of the right length, so the measurement's rounds and steps per
  // sample are not sized by the slow calls.
  bool sized = rec.converged || spec_.coordinator != nullptr || stop_requested();
  for (int probe = 0; !sized && probe < 3 && rec.steps < w.max_steps; ++probe) {
    std::size_t n = std::clamp<std::size_t>(floor_ratio(round_time, std::max(estimate, 1e-12)), 1, max_round);
    n = std::min(n, w.max_steps - rec.steps);
    const double sized_by = estimate;
    if (!warm_round(n, 0)) break;
    sized = estimate * 4 >= sized_by && estimate <= 4 * sized_by;
  }
  rec.time_s = b_.now() - t_begin;
  estimate_ = gpu_estimate;
  sizing_estimate_ = estimate;
  max_round_ = max_round;
  // A first call far slower than the warmed step, and long against the warm-up budget: the
  // budget started after it, and it is in no sample; say what it cost.
  const double first = rec.first_step_time_s.value_or(0);
  if (first >= thresholds::slow_first_step_s && first >= thresholds::slow_first_step_ratio * std::max(gpu_estimate, 1e-12))
    sink.add(warning_code::slow_first_step, Severity::info,
             fmt::format("the first step took {} ({:.3g}x the warmed step, {}): module loading, JIT compilation or "
                         "autotuning; it is warmup.first_step_time_s, outside every sample, and warm-up's budget "
                         "(warmup.max_time {}) counted from after it",
                         human_time(first), first / std::max(gpu_estimate, 1e-12), human_time(gpu_estimate),
                         human_time(to_seconds(w.max_time))));
  if (!rec.converged) {
    sink.add(warning_code::warmup_not_converged, Severity::warning,
             "warm-up did not reach steady state: " + rec.reason +
                 ". The first samples may still be drifting; raise warmup.max_time, or check the "
                 "clocks and throttling in the environment.");
  }
}

// ---- steps per sample ------------------------------------------------------------------------

/// Chooses k (steps per event pair). The extra device cost of an event between steps is
/// measured: r steps with an event after each versus the same r steps with one event pair.
inline void Protocol::choose_steps_per_sample(Result& r, WarningSink& sink) {
  const auto& m = config_.measure;
  auto& s = r.sampling;
  const double T = estimate_;
  b_.select_stream(0);
  if (per_step_pairs()) {
    s.steps_per_sample = 1;
    s.steps_per_sample_reason =
        cold() ? "cold cache: the flush must sit between steps, so every step has its own event pair"
               : "an untimed setup runs before every step, outside its event pair, so every step has its own event pair";
    if (m.steps_per_sample > 1)  // asked for, and not honoured: say so
      sink.add(warning_code::steps_per_sample_ignored, Severity::warning,
               fmt::format("measure.steps_per_sample = {} was not used: {}; each sample is one step, so a step "
                           "shorter than the timer's resolution or the event cost reads high",
                           m.steps_per_sample, s.steps_per_sample_reason));
    return;
  }
  if (m.steps_per_sample > 0) {
    // A sample must fit in measure.max_time (one sample of 1e8 steps, or SIZE_MAX, would run
    // far past it, or never end): at most max_time / (time per step) steps.
    const double per_step = std::max({T, sizing_estimate_, 1e-12});  // device or host round trip
    const std::size_t k_cap = std::max<std::size_t>(1, floor_ratio(to_seconds(m.max_time), per_step));
    s.steps_per_sample = std::min(m.steps_per_sample, k_cap);
    s.steps_per_sample_reason =
        s.steps_per_sample == m.steps_per_sample
            ? std::string("set by measure.steps_per_sample")
            : fmt::format("measure.steps_per_sample = {} capped to {} so that one sample ({} per step) fits in "
                          "measure.max_time {}",
                          m.steps_per_sample, s.steps_per_sample, human_time(per_step),
                          human_time(to_seconds(m.max_time)));
  } else if (b_.gate_support() == backend_parts::GateSupport::not_needed) {
    // Host clock: markers cost no device time, but the clock ticks. Enough steps per sample
    // that one tick is at most 1 / host_ticks_per_sample of a sample, capped by max_sample_time.
    const double tick = r.sampling.timer_resolution_s;
    const double step = std::max(T, 1e-12);
    const auto k_tick = tick > 0 ? static_cast<std::size_t>(std::ceil(thresholds::host_ticks_per_sample * tick / step)) : 1;
    std::size_t k_cap = floor_ratio(to_seconds(m.max_sample_time), step);
    k_cap = std::clamp<std::size_t>(k_cap, 1, max_round_);
    // Several threads: a sample wakes them and waits for them once. Its cost, measured as the
    // event's is below (rr steps one per batch against one batch of rr), is kept at most
    // thread_wake_fraction of a sample.
    std::size_t k_wake = 1;
    double wake_cost = 0;
    if (batched()) {
      std::size_t rr = floor_ratio(to_seconds(config_.warmup.round_time), step);
      rr = std::clamp<std::size_t>(rr, 8, std::max<std::size_t>(8, max_round_ / 2));
      if (spec_.coordinator) rr = spec_.coordinator->round_steps(rr);
      const auto one_each = timed_round(rr, 1, false);
      const auto one_batch = timed_round(rr, rr, false);
      s.calibration_steps += one_each.steps + one_batch.steps;
      double per_batch_of_one = 0;
      for (double x : one_each.per_step_s) per_batch_of_one += x;
      if (!one_each.per_step_s.empty()) per_batch_of_one /= static_cast<double>(one_each.per_step_s.size());
      const double batched_step = one_batch.per_step_s.empty() ? 0 : one_batch.per_step_s[0];
      wake_cost = std::max(0.0, per_batch_of_one - batched_step);
      k_wake = static_cast<std::size_t>(std::ceil(wake_cost / (thresholds::thread_wake_fraction * step) * (1 - 1e-12)));
    }
    const std::size_t k = std::clamp<std::size_t>(std::max(k_tick, k_wake), 1, k_cap);
    std::string wake;
    if (batched() && wake_cost > 0)
      wake = fmt::format("; waking the {} threads and waiting for them costs {} a sample (one-step batches against one "
                         "batch of the same steps), {:.3g} % of a sample",
                         b_.threads(), human_time(wake_cost), 100 * wake_cost / (step * static_cast<double>(k)));
    else if (batched())
      wake = fmt::format("; waking the {} threads and waiting for them was not measurable (one-step batches read no "
                         "slower than one batch of the same steps)",
                         b_.threads());
    if (batched() && wake_cost > 0.05 * step * static_cast<double>(k))
      sink.add(warning_code::thread_wake_overhead, Severity::warning,
               fmt::format("waking the {} threads and waiting for them costs {} a sample, {:.3g} % of a sample of {} steps "
                           "of {}: the time per step includes it (a longer step, or fewer threads, reads the work)",
                           b_.threads(), human_time(wake_cost), 100 * wake_cost / (step * static_cast<double>(k)), k,
                           human_time(step)));
    s.steps_per_sample = k;
    s.steps_per_sample_reason = fmt::format(
        "host clock: one tick ({}) is {:.3g} % of a step ({}); k = {} makes it {:.3g} % of a sample{}{}", human_time(tick),
        100 * tick / step, human_time(step), k, 100 * tick / (step * static_cast<double>(k)), wake,
        k < std::max(k_tick, k_wake) ? fmt::format(", capped by max_sample_time {}", human_time(to_seconds(m.max_sample_time))) : "");
  } else {
    // Calibrate the event cost with one round of r steps each way, r sized like a warm-up round
    // (at least 8 steps, at most half the round limit).
    std::size_t rr = floor_ratio(to_seconds(config_.warmup.round_time), std::max(sizing_estimate_, 1e-12));
    rr = std::clamp<std::size_t>(rr, 8, std::max<std::size_t>(8, max_round_ / 2));
    if (spec_.coordinator) rr = spec_.coordinator->round_steps(rr);
    double per_event = 0;
    double per_batch = 0;
    bool ok = true;
    {
      auto with = timed_round(rr, 1, false);
      auto without = timed_round(rr, rr, false);
      s.calibration_steps += with.steps + without.steps;
      if (with.timed_out || without.timed_out) {
        ok = false;
        if (with.timed_out) on_gate_timeout(with, max_round_, 1, r, sink);
        else on_gate_timeout(without, max_round_, 1, r, sink);
      }
      if (ok) {
        for (double x : with.per_step_s) per_event += x;
        per_event /= static_cast<double>(with.per_step_s.size());
        per_batch = without.per_step_s.empty() ? 0 : without.per_step_s[0];
      }
    }
    const double cost = ok ? std::max(0.0, per_event - per_batch) : 0.0;
    if (ok) s.event_overhead_s = cost;
    const double budget = to_seconds(m.event_overhead_budget);
    std::size_t k_event = static_cast<std::size_t>(std::ceil(cost / budget * (1 - 1e-12)));
    std::size_t k_cap = floor_ratio(to_seconds(m.max_sample_time), std::max(T, 1e-12));
    k_cap = std::clamp<std::size_t>(k_cap, 1, max_round_);
    std::size_t k = std::clamp<std::size_t>(k_event, 1, k_cap);
    s.steps_per_sample = k;
    s.steps_per_sample_reason = fmt::format(
        "an event between steps costs {} of device time (measured over {} steps); k = {} keeps it "
        "at {} per step (budget {}{})",
        human_time(cost), rr, k, human_time(cost / static_cast<double>(k)),
        human_time(budget),
        k < k_event ? fmt::format(", capped by max_sample_time {}",
                                      human_time(to_seconds(m.max_sample_time)))
                    : "");
    if (k < k_event && cost / static_cast<double>(k) > 0.001 * T) {
      sink.add(warning_code::event_overhead, Severity::info,
               fmt::format("each sample includes ~{} of event overhead per step ({:.2g} % of the step): "
                               "k = {} steps per event pair was capped by measure.max_sample_time.",
                               human_time(cost / static_cast<double>(k)),
                               100 * cost / static_cast<double>(k) / T, k));
    }
  }
  if (spec_.coordinator) {
    const std::size_t k_here = s.steps_per_sample;
    s.steps_per_sample = spec_.coordinator->steps_per_sample(k_here);
    if (s.steps_per_sample != k_here)
      s.steps_per_sample_reason += fmt::format("; k = {} agreed across ranks (the maximum; this rank chose {})",
                                               s.steps_per_sample, k_here);
  }
  if (m.gpu_timing == GpuTiming::graph) prepare_graph(r);
}

/// Captures k steps; replays the graph a few times untimed so its upload is not measured.
inline void Protocol::prepare_graph(Result& r) {
  auto& s = r.sampling;
  capture_graph(s.steps_per_sample);
  for (int i = 0; i < 3; ++i) {
    b_.launch_graph();
    step_index_ += graph_k_;
    s.calibration_steps += graph_k_;
  }
  b_.synchronize();
}

}  // namespace gauge::detail
