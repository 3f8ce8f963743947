#pragma once
/// \file gauge/protocol/interleave.hpp
/// The interleaved A/B run (gauge/interleave.hpp) as a recipe over two protocols: check both,
/// begin both (prepare, warm up, choose k), agree on k, measure in ABBA rounds until the paired
/// ratio's interval is narrow enough (or max_time), end both (verification, statistics,
/// diagnosis), then the paired ratio and its verdict (gauge/core/interleaved.hpp). Compiled once
/// per program (gauge/implementation.hpp, `detail::run_interleaved`).

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "gauge/core/config.hpp"
#include "gauge/core/error.hpp"
#include "gauge/core/interleaved_statistics.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/core/stop.hpp"
#include "gauge/core/warmup.hpp"
#include "gauge/detail/text.hpp"
#include "gauge/detail/stream_sharing.hpp"
#include "gauge/protocol/protocol.hpp"
#include "gauge/protocol/seam.hpp"

namespace gauge::detail {

/// One interleaved run of experiments A and B.
class InterleavedRun {
 public:
  InterleavedRun(const ExperimentSpec& a, ProtocolBackend& backend_a, const ExperimentSpec& b,
                 ProtocolBackend& backend_b, const InterleaveConfig& config)
      : spec_a_(a), spec_b_(b), ba_(backend_a), bb_(backend_b), config_(config), a_(a, backend_a), b_(b, backend_b) {}

  /// Runs it. Never throws for a failing step: that side's result is `failed`, the verdict
  /// `inconclusive` naming it, and what was measured is kept. Throws ConfigError (before
  /// anything runs) for invalid settings of either side or of the run, for different backends or
  /// devices, for a coordinator (collective mode is not interleaved).
  InterleavedResult run() {
    check();
    InterleavedResult out;
    out.config = config_;
    a_.begin(out.a);
    {
      // B measures on A's streams: each round pair then runs on one stream (a stream of its own
      // would add the between-stream effect to the paired ratio).
      StreamSharingScope share;
      b_.begin(out.b);
    }
    agree_on_steps_per_sample(out);
    measure(out);
    // Ended in the reverse order of begin (the backends' device guards nest). Stopped by a stop
    // request (a signal): both results are `failed`, stopping reason "interrupted", their samples
    // kept, as a plain run's (Protocol::run).
    const char* stop = out.stopping_reason == "interrupted" ? "interrupted" : "interleaved";
    b_.end(out.b, stop);
    a_.end(out.a, stop);
    conclude(out);
    return out;
  }

 private:
  void check() const {
    validate(config_);
    a_.check();
    b_.check();
    if (std::string(ba_.name()) != bb_.name())
      throw ConfigError("interleave: A (\"" + spec_a_.name + "\") runs on the " + ba_.name() + " backend and B (\"" +
                        spec_b_.name + "\") on the " + bb_.name() + " backend: both must run on the same one");
    if (spec_a_.config.device != spec_b_.config.device)
      throw ConfigError("interleave: A (\"" + spec_a_.name + "\") runs on device " + std::to_string(spec_a_.config.device) +
                        " and B (\"" + spec_b_.name + "\") on device " + std::to_string(spec_b_.config.device) +
                        ": both must run on the same device");
    if (spec_a_.config.measure.streams != spec_b_.config.measure.streams)
      throw ConfigError("interleave: A measures on a pool of " + std::to_string(spec_a_.config.measure.streams) +
                        " streams and B on " + std::to_string(spec_b_.config.measure.streams) +
                        ": both must use the same pool (measure.streams), so that each round pair runs on one stream");
    if (spec_a_.coordinator || spec_b_.coordinator)
      throw ConfigError("interleave: an experiment with a rank coordinator (collective mode) cannot be interleaved");
  }

  /// One k for both sides where sound: the larger k when both take per-batch samples; k = 1 for
  /// both when a side needs an event pair per step (cold cache, setup), so that both samples
  /// carry the same event cost per step.
  void agree_on_steps_per_sample(InterleavedResult& out) {
    if (out.a.status != Status::ok || out.b.status != Status::ok) return;
    const std::size_t ka = out.a.sampling.steps_per_sample, kb = out.b.sampling.steps_per_sample;
    if (a_.per_step_pairs() || b_.per_step_pairs()) {
      const char* which = a_.per_step_pairs() ? "A" : "B";
      const std::string why = std::string("interleaved with ") + (a_.per_step_pairs() ? "B" : "A") + ": " + which +
                              " needs an event pair per step (cold cache or setup), so both sides time every step "
                              "alone and carry the same event cost";
      a_.use_steps_per_sample(out.a, 1, why);
      b_.use_steps_per_sample(out.b, 1, why);
      return;
    }
    const std::size_t k = std::max(ka, kb);
    const std::string why = fmt::format("interleaved: the larger of A's k = {} and B's k = {}, so that both samples "
                                        "carry the same event cost per step",
                                        ka, kb);
    a_.use_steps_per_sample(out.a, k, why);
    b_.use_steps_per_sample(out.b, k, why);
  }

  /// One round of `p`: the median of its samples (seconds per step), or null when it recorded
  /// none (failed, or max_samples).
  static std::optional<double> round_median(Protocol& p, Result& r) {
    if (!p.measure_round(r)) return std::nullopt;
    const std::size_t n = r.sampling.round_samples.back();
    if (n == 0 || n > r.gpu_samples_s.size()) return std::nullopt;
    std::vector<double> last(r.gpu_samples_s.end() - static_cast<std::ptrdiff_t>(n), r.gpu_samples_s.end());
    return median_of(last);
  }

  /// Whether each side's own minimums (measure.min_samples, min_time) and every stream of the
  /// pools are met after `pairs` pairs at `elapsed` seconds.
  bool minimums(const InterleavedResult& out, std::size_t pairs, double elapsed) const {
    const auto side = [&](const Result& r) {
      const auto& m = r.config.measure;
      return r.gpu_samples_s.size() >= m.min_samples && elapsed >= to_seconds(m.min_time) && pairs >= r.streams.count;
    };
    return pairs >= config_.min_pairs && side(out.a) && side(out.b);
  }

  /// The ABBA rounds, block by block (A B, then B A), until the paired ratio's interval is at
  /// most the target width (checked after the minimums, then whenever the blocks grew by a tenth,
  /// so the bootstraps cost O(n log n) in all), max_time, or a side cannot go on.
  void measure(InterleavedResult& out) {
    if (out.a.status != Status::ok || out.b.status != Status::ok) {
      out.stopping_reason = "failed";
      return;
    }
    const double t0 = ba_.now();
    std::size_t next_check = 0;  // blocks at the next check
    auto& ratios = out.pair_ratios;
    while (true) {
      std::optional<double> a1, b1, b2, a2;
      const bool whole = (a1 = round_median(a_, out.a)) && (b1 = round_median(b_, out.b)) &&
                         (b2 = round_median(b_, out.b)) && (a2 = round_median(a_, out.a));
      const double elapsed = ba_.now() - t0;
      out.measure_time_s = elapsed;
      if (!whole) {
        out.stopping_reason = out.a.status != Status::ok || out.b.status != Status::ok ? "failed" : "max_samples";
        return;
      }
      ratios.push_back(*b1 / *a1);
      ratios.push_back(*b2 / *a2);
      out.pair_differences_s.push_back(*b1 - *a1);
      out.pair_differences_s.push_back(*b2 - *a2);
      const std::size_t blocks = ratios.size() / 2;
      if (minimums(out, ratios.size(), elapsed) && blocks >= next_check) {
        const auto p = paired_ratio(ratios, config_.confidence_level, config_.resamples, config_.seed);
        if (p && p->relative_width() <= config_.target_relative_ci_width) {
          out.stopping_reason = "noise_target_met";
          return;
        }
        next_check = blocks + std::max<std::size_t>(1, blocks / 10);
      }
      if (elapsed >= to_seconds(config_.max_time)) {
        out.stopping_reason = "max_time";
        return;
      }
      if (stop_requested()) {  // gauge::request_stop (the runner on SIGTERM): after a whole block
        out.stopping_reason = "interrupted";
        return;
      }
    }
  }

  /// The paired ratio and the verdict.
  void conclude(InterleavedResult& out) const {
    out.ratio = paired_ratio(out.pair_ratios, config_.confidence_level, config_.resamples, config_.seed);
    out.difference = paired_difference(out.pair_differences_s, config_.confidence_level, config_.resamples, config_.seed);
    const auto failed = [](const char* side, const Result& r) {
      return std::string(side) + " (\"" + r.name + "\") failed: " + r.error.value_or("unknown error");
    };
    const auto error_codes = [](const Result& r) {
      std::string codes;
      for (const auto& w : r.warnings)
        if (w.severity == Severity::error) codes += (codes.empty() ? "" : ", ") + w.code;
      return codes;
    };
    out.verdict = stats::PairedVerdict::inconclusive;
    // Stopped by a stop request, each side failed by it alone (no other error): said so.
    const auto only_stopped = [](const Result& r) {
      return r.status == Status::ok || (r.error && r.error->rfind("interrupted:", 0) == 0);
    };
    if (out.stopping_reason == "interrupted" && only_stopped(out.a) && only_stopped(out.b)) {
      out.reason = fmt::format("interrupted: a stop was requested after {} round pairs, before the stopping rule was met",
                               out.pair_ratios.size());
      return;
    }
    const bool a_failed = out.a.status != Status::ok, b_failed = out.b.status != Status::ok;
    if (a_failed || b_failed) {
      out.reason = a_failed && b_failed ? "both failed: " + failed("A", out.a) + "; " + failed("B", out.b)
                   : a_failed           ? failed("A", out.a)
                                        : failed("B", out.b);
      out.reason += fmt::format(" ({} whole round pairs measured before)", out.pair_ratios.size());
      return;
    }
    if (const std::string ea = error_codes(out.a), eb = error_codes(out.b); !ea.empty() || !eb.empty()) {
      out.reason = (!ea.empty() ? "A carries an error warning (" + ea + ")" : "B carries an error warning (" + eb + ")") +
                   ": its time is likely wrong, so no verdict";
      return;
    }
    if (!out.ratio) {
      out.reason = fmt::format("too few round pairs: {} (two whole ABBA blocks, 4 pairs, give an interval)",
                               out.pair_ratios.size());
      return;
    }
    out.verdict = paired_verdict(*out.ratio, config_.threshold, out.reason);
  }

  const ExperimentSpec& spec_a_;
  const ExperimentSpec& spec_b_;
  ProtocolBackend& ba_;
  ProtocolBackend& bb_;
  InterleaveConfig config_;
  Protocol a_;
  Protocol b_;
};

}  // namespace gauge::detail
