#pragma once
/// \file gauge/experiment.hpp
/// gauge::Experiment: runs a `step(stream)` callable through the measurement protocol of
/// DESIGN.md (prepare, warm up until steady, measure GPU time and wall time in rounds, stop on a
/// confidence-interval target, verify, summarize) and returns a Result.
///
/// The backend interface. A Backend (CudaBackend, HostBackend, or a test fake) provides:
///   - `using stream_type`: what the step receives; `static constexpr const char* name`;
///   - `GateSupport gate_support()`, `bool graph_supported()`, `bool flush_supported()`;
///   - `DeviceRecord prepare(const Config&)` (device, stream, context), `void finish() noexcept`;
///   - `stream_type stream()`; `double now()`: host clock in seconds;
///   - `std::size_t record()`: a marker on the stream; `double elapsed(a, b)`: seconds between two
///     markers once they completed; `void reset_markers()`;
///   - `void synchronize()`: wait for all device work (device-wide);
///   - `void gate_close(Nanoseconds timeout)`, `void gate_open()`, `bool gate_timed_out()`;
///   - `void flush_cache()`: enqueue an L2 flush; `template <class F> void capture(F)`,
///     `void launch_graph()`: CUDA graph mode; `double timer_resolution()`: seconds.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "gauge/core/config.hpp"
#include "gauge/core/dimensions.hpp"
#include "gauge/core/error.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/core/warmup.hpp"
#include "gauge/core/warnings.hpp"
#include "gauge/core/work.hpp"

#if defined(__CUDACC__) || __has_include(<cuda_runtime.h>)
#include "gauge/backends/cuda_backend.hpp"
#define GAUGE_HAS_CUDA_BACKEND 1
#else
#include "gauge/backends/host_backend.hpp"
#define GAUGE_HAS_CUDA_BACKEND 0
#endif

#if defined(_MSC_VER)
#define GAUGE_NOINLINE __declspec(noinline)
#else
#define GAUGE_NOINLINE __attribute__((noinline))
#endif

namespace gauge {

namespace detail {

/// printf-style formatting into a std::string (messages with numbers).
template <class... Args>
std::string sformat(const char* fmt, Args... args) {
  int n = std::snprintf(nullptr, 0, fmt, args...);
  std::string s(static_cast<std::size_t>(n > 0 ? n : 0), '\0');
  std::snprintf(s.data(), s.size() + 1, fmt, args...);
  return s;
}

/// Times in human units for messages: "12.3 µs".
inline std::string human_time(double s) {
  if (!std::isfinite(s)) return "n/a";
  const double a = std::fabs(s);
  if (a >= 1) return sformat("%.3g s", s);
  if (a >= 1e-3) return sformat("%.3g ms", s * 1e3);
  if (a >= 1e-6) return sformat("%.3g us", s * 1e6);
  return sformat("%.3g ns", s * 1e9);
}

/// Whether the translation unit that instantiates the protocol was built without optimization
/// or with assertions (a debug build measures code that will not ship).
inline constexpr bool debug_build() {
#if !defined(NDEBUG) || !defined(__OPTIMIZE__)
  return true;
#else
  return false;
#endif
}

/// floor(a / b) for positive a, b, robust to the quotient landing a rounding error below an
/// integer (70e-6 / 10e-6 = 6.9999999999999991); at least 0.
inline std::size_t floor_ratio(double a, double b) {
  if (!(a > 0) || !(b > 0)) return 0;
  const double q = a / b;
  if (q >= 1e18) return static_cast<std::size_t>(1e18);
  return static_cast<std::size_t>(std::floor(q * (1 + 1e-12)));
}

/// Outcome of one timed round.
struct RoundOutcome {
  std::vector<double> per_step_s;  ///< one value per sample (batch time / steps per sample)
  bool timed_out = false;          ///< the gate gave up before the round was enqueued
  bool host_blocked_at_first_step = false;  ///< enqueuing the first step took ~the gate timeout
  double enqueue_s = 0;            ///< host time to enqueue the round
  std::size_t steps = 0;
};

/// Outcome of one wall-time round.
struct WallOutcome {
  double wall_s = 0;        ///< host time from before the first enqueue to after the synchronize
  double enqueue_s = 0;     ///< host time to enqueue the steps
  double event_span_s = 0;  ///< events around the round on the experiment's stream
  std::size_t steps = 0;
};

}  // namespace detail

/// An experiment: a named step with dimensions and work, measured by `run()`.
///
/// \tparam Step callable as `step(Backend::stream_type)`; it enqueues one step's work on the given
///   stream (a kernel, a cuBLAS call, a forward pass). It may throw; run() then reports the
///   experiment as failed with the error.
/// \tparam Backend CudaBackend (default), HostBackend, or a test backend (see the file comment).
///
/// Fluent configuration reads like a sentence:
/// \code
///   auto result = gauge::Experiment("gemm", step)
///                     .dimension("M", 8192).dimension("dtype", "bf16")
///                     .flop(2.0 * M * N * K)
///                     .run();
/// \endcode
template <class Step,
#if GAUGE_HAS_CUDA_BACKEND
          class Backend = CudaBackend
#else
          class Backend = HostBackend
#endif
          >
class Experiment {
 public:
  using stream_type = typename Backend::stream_type;

  /// \param name experiment name (non-empty; ConfigError otherwise at run()).
  /// \param step the work of one step, see the class comment.
  /// \param backend the backend instance (e.g. CudaBackend(stream) to adopt a stream).
  Experiment(std::string name, Step step, Backend backend = Backend{})
      : name_(std::move(name)), step_(std::move(step)), backend_(std::move(backend)) {}

  /// Adds a dimension (integer, real, string or bool), e.g. ("M", 8192), ("dtype", "bf16").
  template <class T>
  Experiment& dimension(const std::string& key, T&& value) {
    dims_[key] = detail::to_dimension_value(std::forward<T>(value));
    return *this;
  }
  /// Declares floating-point operations per step (e.g. 2·M·N·K for a GEMM). ConfigError if < 0.
  Experiment& flop(double per_step) {
    detail::check_work_amount("flop", per_step);
    work_.flop = per_step;
    return *this;
  }
  /// Declares bytes moved per step. ConfigError if < 0 or not finite.
  Experiment& bytes(double per_step) {
    detail::check_work_amount("bytes", per_step);
    work_.bytes = per_step;
    return *this;
  }
  /// Declares named items per step, e.g. ("tokens", batch × sequence). ConfigError if < 0.
  Experiment& items(const std::string& item, double per_step) {
    detail::check_work_amount(item.c_str(), per_step);
    if (item.empty()) throw ConfigError("work item name must not be empty");
    work_.items[item] = per_step;
    return *this;
  }
  /// Replaces the whole configuration.
  Experiment& config(const Config& c) {
    config_ = c;
    return *this;
  }
  /// The configuration, for in-place changes: `exp.config().measure.max_time = 2s;`.
  Config& config() { return config_; }
  /// Cold cache: flush L2 before every step (outside the timed interval).
  Experiment& cold_cache(bool cold = true) {
    config_.measure.cache = cold ? CacheState::cold : CacheState::hot;
    return *this;
  }
  /// Declares that the step synchronizes the host (e.g. copies a result back): gauge then times
  /// it without the launch gate, which it would otherwise deadlock behind until the gate's timeout.
  Experiment& synchronizes_host(bool yes = true) {
    config_.measure.gpu_timing = yes ? GpuTiming::ungated : GpuTiming::automatic;
    return *this;
  }
  /// Times replays of a CUDA graph of k captured steps instead of the steps themselves.
  Experiment& graph(bool yes = true) {
    config_.measure.gpu_timing = yes ? GpuTiming::graph : GpuTiming::automatic;
    return *this;
  }
  /// A check run once after measurement; returning false (or throwing) marks the experiment
  /// failed, so an "optimization" cannot win by doing less work.
  Experiment& verify(std::function<bool()> check) {
    verify_ = std::move(check);
    return *this;
  }
  /// The backend, e.g. for tests that script it.
  Backend& backend() { return backend_; }

  /// Runs the protocol and returns the result. Never throws for a failing step or backend: the
  /// result is then `failed` with the error, and whatever was measured before is kept. Throws
  /// ConfigError only for an invalid configuration (before anything runs).
  Result run() {
    Result r;
    r.name = name_;
    r.dimensions = dims_;
    r.work = work_;
    r.config = config_;
    r.backend = Backend::name;
    if (name_.empty()) throw ConfigError("experiment name must not be empty");
    validate(config_);
    WarningSink sink(config_.silenced_warnings);
    const double t_begin = backend_.now();
    phase_ = "prepare";
    step_index_ = 0;
    wall_total_ = wall_enqueue_ = wall_event_span_ = 0;
    wall_count_steps_ = 0;
    work_not_on_stream_ = false;
    bool prepared = false;
    try {
      r.device = backend_.prepare(config_);
      prepared = true;
      r.sampling.timer_resolution_s = backend_.timer_resolution();
      choose_method(r, sink);
      phase_ = "warm-up";
      warm_up(r, sink);
      phase_ = "calibration";
      choose_steps_per_sample(r, sink);
      phase_ = "measurement";
      measure(r, sink);
      if (verify_) {
        phase_ = "verification";
        backend_.synchronize();
        if (!verify_()) throw Error("verification failed: the step's output is not what verify() expects");
      }
    } catch (const std::exception& e) {
      r.status = Status::failed;
      r.error = phase_ + (step_index_ ? " (step " + std::to_string(step_index_) + ")" : std::string()) +
                ": " + e.what();
      if (r.stopping.reason.empty()) r.stopping.reason = "failed";
    }
    if (prepared) backend_.finish();
    r.total_time_s = backend_.now() - t_begin;
    summarize_result(r, sink);
    r.warnings = sink.warnings();
    return r;
  }

 private:
  // ---- helpers -----------------------------------------------------------------------------

  // Never inlined: every round (warm-up, gated, wall) runs the same machine code of the step.
  // Inlined at each call site, a host step was compiled differently per round (1.68 ms per step
  // in gated rounds vs 1.41 ms in wall rounds for the same CPU GEMM, g++ 12 -O3).
  GAUGE_NOINLINE void call_step() {
    ++step_index_;
    step_(backend_.stream());
  }

  bool cold() const { return config_.measure.cache == CacheState::cold; }

  void choose_method(Result& r, WarningSink& sink) {
    const auto& m = config_.measure;
    r.sampling.cache = to_string(m.cache);
    if (cold() && !backend_.flush_supported())
      throw ConfigError(std::string("cache = cold is not supported by the ") + Backend::name + " backend");
    if (m.gpu_timing == GpuTiming::graph) {
      if (!backend_.graph_supported())
        throw ConfigError(std::string("gpu_timing = graph is not supported by the ") + Backend::name + " backend");
      if (cold()) throw ConfigError("gpu_timing = graph cannot be combined with cache = cold");
      r.sampling.method = "graph";
      gated_ = backend_.gate_support() == GateSupport::available;
      return;
    }
    switch (backend_.gate_support()) {
      case GateSupport::not_needed:
        r.sampling.method = "host";
        gated_ = false;
        break;
      case GateSupport::available:
        gated_ = m.gpu_timing == GpuTiming::automatic;
        r.sampling.method = gated_ ? "gated" : "ungated";
        break;
      case GateSupport::unavailable:
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
  detail::RoundOutcome timed_round(std::size_t steps, std::size_t k, bool graph_mode) {
    detail::RoundOutcome out;
    const auto& m = config_.measure;
    const std::size_t batches = std::max<std::size_t>(1, steps / k);
    out.steps = batches * k;
    backend_.reset_markers();
    if (cold()) reset_persisting_l2();
    if (gated_) backend_.gate_close(m.gate_timeout);
    const double t0 = backend_.now();
    std::vector<std::pair<std::size_t, std::size_t>> pairs;
    pairs.reserve(cold() ? out.steps : batches);
    double first_step_enqueue = 0;
    if (cold()) {
      for (std::size_t i = 0; i < out.steps; ++i) {
        backend_.flush_cache();
        const std::size_t a = backend_.record();
        call_step();
        pairs.emplace_back(a, backend_.record());
        if (i == 0) first_step_enqueue = backend_.now() - t0;
      }
    } else {
      std::size_t prev = backend_.record();
      for (std::size_t b = 0; b < batches; ++b) {
        if (graph_mode) {
          backend_.launch_graph();
          step_index_ += k;
          if (b == 0) first_step_enqueue = backend_.now() - t0;
        } else {
          for (std::size_t i = 0; i < k; ++i) {
            call_step();
            if (b == 0 && i == 0) first_step_enqueue = backend_.now() - t0;
          }
        }
        const std::size_t next = backend_.record();
        pairs.emplace_back(prev, next);
        prev = next;
      }
    }
    out.enqueue_s = backend_.now() - t0;
    if (gated_) backend_.gate_open();
    backend_.synchronize();
    if (gated_ && backend_.gate_timed_out()) {
      out.timed_out = true;
      out.host_blocked_at_first_step = first_step_enqueue >= 0.9 * to_seconds(m.gate_timeout);
      return out;
    }
    const double per_sample = static_cast<double>(cold() ? 1 : k);
    out.per_step_s.reserve(pairs.size());
    for (const auto& [a, b] : pairs) out.per_step_s.push_back(backend_.elapsed(a, b) / per_sample);
    return out;
  }

  void reset_persisting_l2() {
    if constexpr (has_reset_persisting_l2<Backend>::value) backend_.reset_persisting_l2();
  }
  template <class B, class = void>
  struct has_reset_persisting_l2 : std::false_type {};
  template <class B>
  struct has_reset_persisting_l2<B, std::void_t<decltype(std::declval<B&>().reset_persisting_l2())>>
      : std::true_type {};

  /// Handles a timed-out gated round: a host-synchronizing step falls back to ungated timing;
  /// a full launch queue halves the round.
  void on_gate_timeout(const detail::RoundOutcome& o, std::size_t& steps_per_round, std::size_t k,
                       Result& r, WarningSink& sink) {
    ++r.sampling.discarded_rounds;
    const double timeout = to_seconds(config_.measure.gate_timeout);
    if (o.host_blocked_at_first_step || steps_per_round <= k) {
      gated_ = false;
      r.sampling.method = "ungated";
      sink.add(warning_code::gate_timeout, Severity::warning,
               detail::sformat("the launch gate timed out after %s: the step seems to synchronize the "
                               "host, so gauge fell back to ungated timing, which includes host launch "
                               "latency for short steps. Declare it with .synchronizes_host() to skip "
                               "the gate (and this %s wait).",
                               detail::human_time(timeout).c_str(), detail::human_time(timeout).c_str()));
    } else {
      steps_per_round = std::max(k, (steps_per_round / 2) / k * k);
      sink.add(warning_code::gate_timeout, Severity::info,
               detail::sformat("the launch gate timed out after %s while %zu steps were enqueued (the "
                               "launch queue was full); rounds were shortened to %zu steps and the "
                               "timed-out round discarded.",
                               detail::human_time(timeout).c_str(), o.steps, steps_per_round));
    }
  }

  // ---- warm-up --------------------------------------------------------------------------------

  void warm_up(Result& r, WarningSink& sink) {
    const auto& w = config_.warmup;
    auto& rec = r.warmup;
    const double t0 = backend_.now();
    // The very first step alone, ungated: module loading, JIT and autotuning land here.
    {
      backend_.reset_markers();
      if (cold()) backend_.flush_cache();
      const std::size_t a = backend_.record();
      call_step();
      const std::size_t b = backend_.record();
      backend_.synchronize();
      rec.first_step_time_s = backend_.elapsed(a, b);
      rec.curve.push_back(WarmupRound{0.0, 1, *rec.first_step_time_s});
      rec.steps = 1;
    }
    double estimate = std::max(*rec.first_step_time_s, 1e-9);
    double gpu_estimate = estimate;
    std::size_t max_round = config_.measure.max_steps_per_round;
    while (true) {
      const double elapsed = backend_.now() - t0;
      const SteadyVerdict v = steady_state(rec.curve, w);
      rec.relative_drift = v.relative_drift;
      rec.reason = v.reason;
      const bool minimums = rec.steps >= w.min_steps && elapsed >= to_seconds(w.min_time);
      if (minimums && v.steady) {
        rec.converged = true;
        break;
      }
      if (rec.steps >= w.max_steps || elapsed >= to_seconds(w.max_time)) {
        rec.converged = false;
        rec.reason = detail::sformat("capped after %zu steps and %s: ", rec.steps,
                                     detail::human_time(elapsed).c_str()) + v.reason;
        break;
      }
      std::size_t n = detail::floor_ratio(to_seconds(w.round_time), estimate);
      n = std::clamp<std::size_t>(n, 1, max_round);
      n = std::min(n, w.max_steps - rec.steps);
      const double start = backend_.now() - t0;
      detail::RoundOutcome o = timed_round(n, n, false);
      const double host_per_step = (backend_.now() - t0 - start) / static_cast<double>(o.steps);
      rec.steps += o.steps;
      if (o.timed_out) {
        on_gate_timeout(o, max_round, 1, r, sink);
        continue;
      }
      double per_step = 0;
      for (double s : o.per_step_s) per_step += s;
      per_step /= static_cast<double>(o.per_step_s.size());
      rec.curve.push_back(WarmupRound{start, o.steps, per_step});
      if (per_step > 0) gpu_estimate = per_step;
      // Rounds are sized by the GPU time per step, unless the host's round trip per step is more
      // than twice that (launch-bound, or work the events do not see): then by the round trip,
      // so such a step cannot make rounds far longer than round_time.
      estimate = host_per_step > 2 * gpu_estimate ? host_per_step : gpu_estimate;
    }
    rec.time_s = backend_.now() - t0;
    estimate_ = gpu_estimate;
    sizing_estimate_ = estimate;
    max_round_ = max_round;
    if (!rec.converged) {
      sink.add(warning_code::warmup_not_converged, Severity::warning,
               "warm-up did not reach steady state: " + rec.reason +
                   ". The first samples may still be drifting; raise warmup.max_time, or check the "
                   "clocks and throttling in the environment.");
    }
  }

  void capture_graph(std::size_t k) {
    backend_.capture([&] {
      for (std::size_t i = 0; i < k; ++i) call_step();
    });
    graph_k_ = k;
  }

  // ---- steps per sample ------------------------------------------------------------------------

  /// Chooses k (steps per event pair). The extra device cost of an event between steps is
  /// measured: r steps with an event after each versus the same r steps with one event pair.
  void choose_steps_per_sample(Result& r, WarningSink& sink) {
    const auto& m = config_.measure;
    auto& s = r.sampling;
    const double T = estimate_;
    if (cold()) {
      s.steps_per_sample = 1;
      s.steps_per_sample_reason = "cold cache: the flush must sit between steps, so every step has its own event pair";
      return;
    }
    if (m.steps_per_sample > 0) {
      s.steps_per_sample = m.steps_per_sample;
      s.steps_per_sample_reason = "set by measure.steps_per_sample";
    } else if (backend_.gate_support() == GateSupport::not_needed) {
      s.steps_per_sample = 1;
      s.steps_per_sample_reason = "host backend: markers are host timestamps with no device cost";
    } else {
      // Calibrate the event cost with one round of r steps each way, r sized like a warm-up round
      // (at least 8 steps, at most half the round limit).
      std::size_t rr = detail::floor_ratio(to_seconds(config_.warmup.round_time), std::max(sizing_estimate_, 1e-12));
      rr = std::clamp<std::size_t>(rr, 8, std::max<std::size_t>(8, max_round_ / 2));
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
      std::size_t k_cap = detail::floor_ratio(to_seconds(m.max_sample_time), std::max(T, 1e-12));
      k_cap = std::clamp<std::size_t>(k_cap, 1, max_round_);
      std::size_t k = std::clamp<std::size_t>(k_event, 1, k_cap);
      s.steps_per_sample = k;
      s.steps_per_sample_reason = detail::sformat(
          "an event between steps costs %s of device time (measured over %zu steps); k = %zu keeps it "
          "at %s per step (budget %s%s)",
          detail::human_time(cost).c_str(), rr, k, detail::human_time(cost / static_cast<double>(k)).c_str(),
          detail::human_time(budget).c_str(),
          k < k_event ? detail::sformat(", capped by max_sample_time %s",
                                        detail::human_time(to_seconds(m.max_sample_time)).c_str()).c_str()
                      : "");
      if (k < k_event && cost / static_cast<double>(k) > 0.001 * T) {
        sink.add(warning_code::event_overhead, Severity::info,
                 detail::sformat("each sample includes ~%s of event overhead per step (%.2g %% of the step): "
                                 "k = %zu steps per event pair was capped by measure.max_sample_time.",
                                 detail::human_time(cost / static_cast<double>(k)).c_str(),
                                 100 * cost / static_cast<double>(k) / T, k));
      }
    }
    if (m.gpu_timing == GpuTiming::graph) {
      // Capture k steps; replay the graph a few times untimed so its upload is not measured.
      capture_graph(s.steps_per_sample);
      for (int i = 0; i < 3; ++i) {
        backend_.launch_graph();
        step_index_ += graph_k_;
        s.calibration_steps += graph_k_;
      }
      backend_.synchronize();
    }
  }

  // ---- measurement ------------------------------------------------------------------------------

  void measure(Result& r, WarningSink& sink) {
    const auto& m = config_.measure;
    auto& s = r.sampling;
    const std::size_t k = s.steps_per_sample;
    const bool graph_mode = m.gpu_timing == GpuTiming::graph;
    const double T = std::max(estimate_, 1e-12);
    std::size_t steps_per_round = detail::floor_ratio(to_seconds(m.round_time), std::max(T, sizing_estimate_));
    steps_per_round = std::clamp<std::size_t>(steps_per_round, k, std::max(k, max_round_));
    steps_per_round = std::max(k, steps_per_round / k * k);
    const double t0 = backend_.now();
    auto& samples = r.gpu_samples_s;
    std::vector<double> sorted;
    while (true) {
      const double elapsed = backend_.now() - t0;
      r.stopping.measure_time_s = elapsed;
      // Stopping rule.
      std::optional<double> width;
      if (samples.size() >= 1) {
        sorted = samples;
        std::sort(sorted.begin(), sorted.end());
        auto ci = median_confidence_interval(sorted, m.confidence_level);
        const double med = percentile_sorted(sorted, 50);
        if (ci && med > 0) width = (ci->high - ci->low) / med;
      }
      r.stopping.relative_ci_width = width;
      r.stopping.target_relative_ci_width = m.target_relative_ci_width;
      r.stopping.target_met = width && *width <= m.target_relative_ci_width;
      const bool minimums = samples.size() >= m.min_samples && elapsed >= to_seconds(m.min_time) &&
                            s.wall_rounds >= 1;
      if (minimums && r.stopping.target_met) {
        r.stopping.reason = "noise_target_met";
        break;
      }
      if (samples.size() >= m.max_samples) {
        r.stopping.reason = "max_samples";
        break;
      }
      if (elapsed >= to_seconds(m.max_time) && s.wall_rounds >= 1 && !samples.empty()) {
        r.stopping.reason = "max_time";
        break;
      }
      // A gated round for GPU time.
      std::size_t steps = steps_per_round;
      const std::size_t room = (m.max_samples - samples.size()) * (cold() ? 1 : k);
      steps = std::max(k, std::min(steps, room) / k * k);
      auto o = timed_round(steps, k, graph_mode);
      if (o.timed_out) {
        on_gate_timeout(o, steps_per_round, k, r, sink);
        continue;
      }
      ++s.rounds;
      s.steps += o.steps;
      for (double x : o.per_step_s) samples.push_back(x);
      // A wall-time round: pipelined steps, one synchronize at the end (the seed's first snippet).
      std::size_t n_wall = static_cast<std::size_t>(std::llround(static_cast<double>(steps) * m.wall_round_fraction));
      n_wall = std::max<std::size_t>(1, n_wall);
      if (graph_mode) n_wall = std::max<std::size_t>(1, n_wall / k);
      auto w = wall_round(n_wall, graph_mode);
      const std::size_t wall_steps = graph_mode ? n_wall * k : n_wall;
      ++s.wall_rounds;
      s.wall_steps += wall_steps;
      r.wall_samples_s.push_back(w.wall_s / static_cast<double>(wall_steps));
      wall_total_ += w.wall_s;
      wall_enqueue_ += w.enqueue_s;
      wall_event_span_ += w.event_span_s;
      wall_count_steps_ += wall_steps;
    }
    (void)sink;
  }

  detail::WallOutcome wall_round(std::size_t n, bool graph_mode) {
    detail::WallOutcome w;
    backend_.reset_markers();
    backend_.synchronize();
    const double t0 = backend_.now();
    const std::size_t a = backend_.record();
    for (std::size_t i = 0; i < n; ++i) {
      if (cold()) backend_.flush_cache();
      if (graph_mode) {
        backend_.launch_graph();
        step_index_ += graph_k_;
      } else {
        call_step();
      }
    }
    const std::size_t b = backend_.record();
    w.enqueue_s = backend_.now() - t0;
    backend_.synchronize();
    w.wall_s = backend_.now() - t0;
    w.event_span_s = backend_.elapsed(a, b);
    w.steps = n;
    return w;
  }

  // ---- summary and warnings ---------------------------------------------------------------------

  void summarize_result(Result& r, WarningSink& sink) {
    const auto& m = config_.measure;
    r.gpu_time = summarize(r.gpu_samples_s, m.confidence_level);
    r.wall_time = summarize(r.wall_samples_s, m.confidence_level);
    r.gpu_throughput = throughput(r.work, r.gpu_time.p50);
    r.wall_throughput = throughput(r.work, r.wall_time.p50);
    if (r.gpu_time.p50 && r.wall_time.p50) {
      r.host_overhead_per_step_s = *r.wall_time.p50 - *r.gpu_time.p50;
      if (*r.wall_time.p50 > 0) r.gpu_busy_fraction = std::min(1.0, *r.gpu_time.p50 / *r.wall_time.p50);
    }
    if (r.gpu_samples_s.size() > config_.max_samples_in_report) {
      r.gpu_samples_s.resize(config_.max_samples_in_report);
    }
    if (detail::debug_build()) {
      sink.add(warning_code::debug_build, Severity::warning,
               "this code was compiled without optimization or without NDEBUG: the step that was "
               "measured is not the one that ships. Build with -O2/-O3 -DNDEBUG (CMake: Release).");
    }
    if (r.status != Status::ok && r.gpu_samples_s.empty()) return;
    // Noise target.
    if (r.status == Status::ok && !r.stopping.target_met) {
      sink.add(warning_code::noise_target_not_met, Severity::warning,
               detail::sformat("the %.0f %% confidence interval of the median is %s wide after %zu samples "
                               "in %s; the target was %.3g %%. Raise measure.max_time or reduce noise.",
                               100 * m.confidence_level,
                               r.stopping.relative_ci_width
                                   ? detail::sformat("%.3g %%", 100 * *r.stopping.relative_ci_width).c_str()
                                   : "undefined",
                               r.gpu_samples_s.size(), detail::human_time(r.stopping.measure_time_s).c_str(),
                               100 * m.target_relative_ci_width));
    }
    // Outliers.
    const auto& out = r.gpu_time.outliers;
    if (r.gpu_time.n >= 10) {
      const double frac = static_cast<double>(out.total()) / static_cast<double>(r.gpu_time.n);
      if (out.high_severe + out.low_severe > 0 || frac > 0.05) {
        sink.add(warning_code::outliers, Severity::info,
                 detail::sformat("%zu of %zu GPU-time samples are outliers by Tukey's fences (%zu low, %zu high; "
                                 "%zu severe): something else ran at times. The median and percentiles are "
                                 "robust to them; the mean is not.",
                                 out.total(), r.gpu_time.n, out.low_mild + out.low_severe,
                                 out.high_mild + out.high_severe, out.low_severe + out.high_severe));
      }
    }
    // Timer resolution.
    if (r.gpu_time.p50) {
      const double interval = *r.gpu_time.p50 * static_cast<double>(r.sampling.steps_per_sample);
      const double res = r.sampling.timer_resolution_s;
      if (res > 0 && interval < 100 * res) {
        sink.add(warning_code::below_timer_resolution, Severity::warning,
                 detail::sformat("one sample spans %s, less than 100 times the timer's resolution (%s): "
                                 "quantization alone moves a sample by up to %.2g %%.",
                                 detail::human_time(interval).c_str(), detail::human_time(res).c_str(),
                                 100 * res / std::max(interval, 1e-15)));
      }
    }
    // Work on another stream, or host-bound.
    if (wall_count_steps_ > 0 && wall_total_ > 0) {
      const double per_round_latency_allowance = 50e-6 * static_cast<double>(r.sampling.wall_rounds);
      const double hidden = wall_total_ - std::max(wall_event_span_, wall_enqueue_);
      if (wall_event_span_ < 0.5 * wall_total_ && wall_enqueue_ < 0.5 * wall_total_ &&
          hidden > per_round_latency_allowance) {
        sink.add(warning_code::work_not_on_stream, Severity::error,
                 detail::sformat("the events on the experiment's stream saw %s of the %s of wall time "
                                 "(%.3g %%), while enqueuing took %s: the device was busy with work the "
                                 "stream's events did not see. Launch the step's work on the stream "
                                 "passed to it; its GPU time is not trustworthy.",
                                 detail::human_time(wall_event_span_).c_str(), detail::human_time(wall_total_).c_str(),
                                 100 * wall_event_span_ / wall_total_, detail::human_time(wall_enqueue_).c_str()));
        work_not_on_stream_ = true;
      }
    }
    if (!work_not_on_stream_ && r.gpu_busy_fraction && *r.gpu_busy_fraction < 0.5 && r.sampling.method != "host") {
      sink.add(warning_code::launch_bound, Severity::warning,
               detail::sformat("the GPU is busy only %.3g %% of the wall time: a step takes %s on the GPU "
                               "but %s of wall time, so the host (launch latency, host work) sets the pace. "
                               "Wall-time throughput is the number that holds end to end.",
                               100 * *r.gpu_busy_fraction, detail::human_time(*r.gpu_time.p50).c_str(),
                               detail::human_time(*r.wall_time.p50).c_str()));
    }
  }

  std::string name_;
  Step step_;
  Backend backend_;
  Dimensions dims_;
  Work work_;
  Config config_;
  std::function<bool()> verify_;

  std::string phase_;
  std::size_t step_index_ = 0;
  bool gated_ = false;
  double estimate_ = 0;          // GPU time per step at the end of warm-up, seconds
  double sizing_estimate_ = 0;   // max(GPU, host round trip) per step: sizes the rounds
  std::size_t max_round_ = 0;
  std::size_t graph_k_ = 1;
  double wall_total_ = 0, wall_enqueue_ = 0, wall_event_span_ = 0;
  std::size_t wall_count_steps_ = 0;
  bool work_not_on_stream_ = false;
};

/// Makes an Experiment with an explicit backend type: `gauge::make_experiment<HostBackend>("x", f)`.
template <class Backend, class Step>
Experiment<Step, Backend> make_experiment(std::string name, Step step, Backend backend = Backend{}) {
  return Experiment<Step, Backend>(std::move(name), std::move(step), std::move(backend));
}

}  // namespace gauge
