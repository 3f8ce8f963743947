#pragma once
/// \file gauge/protocol/rounds.hpp
/// Protocol's timing method and its timed round: `choose_method` (gated, ungated, graph or host
/// timing), `timed_round` (one round of steps between events, gated when the method allows) and
/// `on_gate_timeout` (a round the launch gate gave up on). Part of gauge/protocol/protocol.hpp.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/config.hpp"
#include "gauge/core/cpu_clock.hpp"
#include "gauge/core/error.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/warning_sink.hpp"
#include "gauge/core/warnings.hpp"
#include "gauge/detail/fmt.hpp"
#include "gauge/detail/text.hpp"
#include "gauge/protocol/phases.hpp"
#include "gauge/protocol/seam.hpp"

namespace gauge::detail {

inline void Protocol::choose_method(Result& r, WarningSink& sink) {
  const auto& m = config_.measure;
  r.sampling.cache = to_string(m.cache);

  if (cold() && !b_.flush_supported())
    throw ConfigError(std::string("cache = cold is not supported by the ") + b_.name() + " backend");
  if (m.gpu_timing == GpuTiming::graph) {
    if (!b_.graph_supported())
      throw ConfigError(std::string("gpu_timing = graph is not supported by the ") + b_.name() + " backend");
    if (cold()) throw ConfigError("gpu_timing = graph cannot be combined with cache = cold");
    r.sampling.method = "graph";
    gated_ = b_.gate_support() == backend_parts::GateSupport::available;
    return;
  }
  switch (b_.gate_support()) {
    case backend_parts::GateSupport::not_needed:
      r.sampling.method = "host";
      gated_ = false;
      host_timing_ = true;  // the step runs on this thread: its process CPU time means something
      (void)detail::process_cpu_read_cost();  // measured once, here, outside every round
      if (counters_.open()) {
        r.cpu_counters.status = "measured";
      } else {
        r.cpu_counters.status = "unavailable";
        r.cpu_counters.reason = counters_.error();
      }
      break;
    case backend_parts::GateSupport::available:
      gated_ = m.gpu_timing == GpuTiming::automatic;
      r.sampling.method = gated_ ? "gated" : "ungated";
      break;
    case backend_parts::GateSupport::unavailable:
      gated_ = false;
      r.sampling.method = "ungated";
      if (m.gpu_timing == GpuTiming::automatic)
        sink.add(warning_code::gate_unavailable, Severity::info,
                 "the launch gate needs a translation unit compiled by nvcc; this one was not, so "
                 "short steps may include host launch latency. Include gauge from a .cu file.");
      break;
  }
}

/// One timed round of about `steps` steps, `k` steps per sample (a multiple of k is run).
/// In graph mode k must equal the captured graph's size: each sample is one graph replay.
/// Gated when the method allows; in cold mode every step gets a flush and its own event pair.
inline RoundOutcome Protocol::timed_round(std::size_t steps, std::size_t k, bool graph_mode) {
  RoundOutcome out;
  const auto& m = config_.measure;
  const std::size_t batches = std::max<std::size_t>(1, steps / k);
  out.steps = batches * k;
  b_.reset_markers();
  if (cold()) reset_persisting_l2();
  if (gated_) b_.gate_close(m.gate_timeout);
  const bool probe = b_.has_clock_probe();
  if (probe) b_.clock_probe_start();  // before the first event: outside every sample
  // Process CPU time over the round, less the setup's (host timing only; read outside the markers),
  // less the clock readings' own cost: once for the round's pair, once per setup call's pair.
  // The counters are read outside the CPU clock's pair (their reads are system calls; the counters
  // count user mode only, so the CPU clock's reads inside theirs add a few instructions).
  const double setup_cpu0 = setup_cpu_s_;
  const std::size_t setup_calls0 = setup_calls_;
  const records::CpuCounterReading setup_counts0 = setup_counts_;
  const auto k0 = cpu_rounds_ && counters_.is_open() ? counters_.read() : std::nullopt;
  const double cpu0 = cpu_rounds_ ? detail::process_cpu_seconds() : 0.0;
  const double t0 = b_.now();
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  pairs.reserve(per_step_pairs() ? out.steps : batches);
  double first_step_enqueue = 0;
  if (per_step_pairs()) {
    for (std::size_t i = 0; i < out.steps; ++i) {
      if (cold()) b_.flush_cache();
      if (has_setup_) call_setup();
      const std::size_t a = b_.record();
      call_step();
      pairs.emplace_back(a, b_.record());
      if (i == 0) first_step_enqueue = b_.now() - t0;
    }
  } else {
    const bool batch = batched();  // once per round: not a virtual call between the events
    std::size_t prev = b_.record();
    for (std::size_t b = 0; b < batches; ++b) {
      if (graph_mode) {
        launch_graph();
        step_index_ += k;
        if (b == 0) first_step_enqueue = b_.now() - t0;
      } else if (batch) {
        // Several threads: each runs its k calls between one wake-up and one wait.
        call_steps(k);
        if (b == 0) first_step_enqueue = (b_.now() - t0) / static_cast<double>(k);
      } else {
        for (std::size_t i = 0; i < k; ++i) {
          call_step();
          if (b == 0 && i == 0) first_step_enqueue = b_.now() - t0;
        }
      }
      const std::size_t next = b_.record();
      pairs.emplace_back(prev, next);
      prev = next;
    }
  }
  out.enqueue_s = b_.now() - t0;
  if (cpu_rounds_) {
    const double read_cost = detail::process_cpu_read_cost();
    const double reads = 1.0 + static_cast<double>(setup_calls_ - setup_calls0);
    const double cpu = detail::process_cpu_seconds() - cpu0 - (setup_cpu_s_ - setup_cpu0) -
                       (std::isfinite(read_cost) ? reads * read_cost : 0.0);
    if (std::isfinite(cpu)) out.cpu_per_step_s = std::max(0.0, cpu) / static_cast<double>(out.steps);
  }
  if (k0)
    if (const auto k1 = counters_.read()) {
      const double n = static_cast<double>(out.steps);
      records::CpuCounterReading per;
      per.cycles = std::max(0.0, k1->cycles - k0->cycles - (setup_counts_.cycles - setup_counts0.cycles)) / n;
      per.instructions =
          std::max(0.0, k1->instructions - k0->instructions - (setup_counts_.instructions - setup_counts0.instructions)) / n;
      per.running_fraction = std::min(k0->running_fraction, k1->running_fraction);
      out.counters_per_step = per;
    }
  if (probe) b_.clock_probe_stop();  // after the last event
  if (gated_) b_.gate_open();
  monitor_.observe_memory();  // while the round runs: transient allocations are still held
  b_.synchronize();
  monitor_.observe_memory();
  monitor_.round_boundary();
  if (gated_ && b_.gate_timed_out()) {
    out.timed_out = true;
    out.host_blocked_at_first_step = first_step_enqueue >= 0.9 * to_seconds(m.gate_timeout);
    return out;
  }
  if (probe) out.clock = b_.clock_probe_read();
  const double per_sample = static_cast<double>(per_step_pairs() ? 1 : k);
  out.per_step_s.reserve(pairs.size());
  for (const auto& [a, b] : pairs) out.per_step_s.push_back(b_.elapsed(a, b) / per_sample);
  return out;
}

/// Handles a timed-out gated round: a host-synchronizing step falls back to ungated timing;
/// a full launch queue halves the round.
inline void Protocol::on_gate_timeout(const RoundOutcome& o, std::size_t& steps_per_round, std::size_t k,
                                      Result& r, WarningSink& sink) {
  ++r.sampling.discarded_rounds;
  const double timeout = to_seconds(config_.measure.gate_timeout);
  if (o.host_blocked_at_first_step || steps_per_round <= k) {
    gated_ = false;
    r.sampling.method = "ungated";
    sink.add(warning_code::gate_timeout, Severity::warning,
             fmt::format("the launch gate timed out after {}: the step seems to synchronize the "
                             "host, so gauge fell back to ungated timing, which includes host launch "
                             "latency for short steps. Likely causes: cudaMalloc/cudaFree (or a library "
                             "that allocates) inside the step, cudaDeviceSynchronize or "
                             "cudaStreamSynchronize, a blocking cudaMemcpy to or from pageable host "
                             "memory, or reading a device value on the host. Move allocations out of the "
                             "step (or use cudaMallocAsync on the step's stream), or declare it with "
                             ".synchronizes_host() to skip the gate (and this {} wait).",
                             human_time(timeout), human_time(timeout)));
  } else {
    steps_per_round = std::max(k, (steps_per_round / 2) / k * k);
    sink.add(warning_code::gate_timeout, Severity::info,
             fmt::format("the launch gate timed out after {} while {} steps were enqueued (the "
                             "launch queue was full); rounds were shortened to {} steps and the "
                             "timed-out round discarded.",
                             human_time(timeout), o.steps, steps_per_round));
  }
}

}  // namespace gauge::detail
