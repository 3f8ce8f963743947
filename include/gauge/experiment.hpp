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

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
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
#include "gauge/core/format.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/core/telemetry.hpp"
#include "gauge/core/warmup.hpp"
#include "gauge/core/warnings.hpp"
#include "gauge/core/work.hpp"
#include "gauge/env/process.hpp"
#include "gauge/env/telemetry.hpp"

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

/// Times in human units for messages, 3 significant digits: "12.3 us" (core/format.hpp).
inline std::string human_time(double s) { return format_time(s, 3); }

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
  static_assert(std::is_invocable_v<Step&, stream_type>,
                "gauge::Experiment: the step must be callable as step(stream), with the backend's stream "
                "type (cudaStream_t for the default CudaBackend). For a CPU step use "
                "gauge::make_experiment<gauge::HostBackend>(name, [](gauge::HostStream) { ... }).");

  /// \param name experiment name (non-empty; ConfigError otherwise at run()).
  /// \param step the work of one step, see the class comment.
  /// \param backend the backend instance (e.g. CudaBackend(stream) to adopt a stream).
  Experiment(std::string name, Step step, Backend backend = Backend{})
      : name_(std::move(name)), step_(std::move(step)), backend_(std::move(backend)) {}

  /// Adds a dimension (integer, real, string or bool), e.g. ("M", 8192), ("dtype", "bf16").
  /// ConfigError for an empty name or a non-finite real.
  template <class T>
  Experiment& dimension(const std::string& key, T&& value) {
    if (key.empty()) throw ConfigError("a dimension's name must not be empty");
    try {
      dims_[key] = detail::to_dimension_value(std::forward<T>(value));
    } catch (const ConfigError& e) {
      throw ConfigError("dimension '" + key + "': " + e.what());
    }
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
  /// Names a kernel the step launches, for the JIT check (`jit_compiled` when the driver had to
  /// compile its PTX): `exp.kernel("my_kernel", my_kernel)`. Needs a backend with kernel_binary().
  template <class F>
  Experiment& kernel(const std::string& kernel_name, F* function) {
    if (!function) throw ConfigError("kernel '" + kernel_name + "': null function pointer");
    kernels_.emplace_back(kernel_name, reinterpret_cast<const void*>(function));
    return *this;
  }
  /// A hook into another allocator (a framework's caching allocator): `bytes()` returns the bytes
  /// it holds now; gauge reads it at every round boundary and reports its peak under `name`.
  Experiment& allocator_probe(const std::string& probe_name, std::function<std::uint64_t()> bytes) {
    if (!bytes) throw ConfigError("allocator_probe '" + probe_name + "': empty function");
    allocator_probes_.emplace_back(probe_name, std::move(bytes));
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
    sampler_.reset();
    memory_ = MemoryTracking{};
    bool prepared = false;
    t_begin_ = t_begin;
    try {
      r.device = backend_.prepare(config_);
      prepared = true;
      r.sampling.timer_resolution_s = backend_.timer_resolution();
      choose_method(r, sink);
      start_monitoring(r, sink);
      phase_ = "warm-up";
      r.telemetry.warmup_start_s = backend_.now() - t_begin_;
      warm_up(r, sink);
      phase_ = "calibration";
      choose_steps_per_sample(r, sink);
      phase_ = "measurement";
      mark_measure_start(r);
      measure(r, sink);
      mark_measure_end(r);
      if (verify_) {
        phase_ = "verification";
        backend_.synchronize();
        if (!verify_()) throw Error("verification failed: the step's output is not what verify() expects");
      }
    } catch (const std::exception& e) {
      fail_result(r, e.what());
    } catch (...) {
      fail_result(r, "an exception not derived from std::exception");
    }
    stop_monitoring(r);
    if (prepared) backend_.finish();
    r.total_time_s = backend_.now() - t_begin;
    summarize_result(r, sink);
    summarize_monitoring(r, sink);
    r.warnings = sink.warnings();
    return r;
  }

 private:
  // ---- helpers -----------------------------------------------------------------------------

  void fail_result(Result& r, const std::string& what) {
    r.status = Status::failed;
    r.error = phase_ + (step_index_ ? " (step " + std::to_string(step_index_) + ")" : std::string()) + ": " + what;
    if (r.stopping.reason.empty()) r.stopping.reason = "failed";
  }

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
    observe_memory();  // while the round runs: transient allocations are still held
    backend_.synchronize();
    observe_memory();
    if (sampler_ && config_.telemetry_interval.count() == 0) sampler_->sample_now();
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
      const double round_start = backend_.now() - t_begin_;
      auto o = timed_round(steps, k, graph_mode);
      if (o.timed_out) {
        on_gate_timeout(o, steps_per_round, k, r, sink);
        continue;
      }
      s.round_start_s.push_back(round_start);
      s.round_end_s.push_back(backend_.now() - t_begin_);
      s.round_samples.push_back(o.per_step_s.size());
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
    // Host overhead and busy fraction compare device time with wall time: meaningless where the
    // "device" is the host itself (host backend), so they stay null there.
    if (r.gpu_time.p50 && r.wall_time.p50 && r.sampling.method != "host") {
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
    // Drift: the first and last thirds of the samples (in time order) should agree. A step that
    // kept changing after warm-up (power capping that sets in after ~0.1 s of a heavy kernel,
    // thermal throttling, a cache still filling) makes them differ.
    if (r.gpu_samples_s.size() >= 30) {
      const std::size_t third = r.gpu_samples_s.size() / 3;
      std::vector<double> head(r.gpu_samples_s.begin(), r.gpu_samples_s.begin() + static_cast<std::ptrdiff_t>(third));
      std::vector<double> tail(r.gpu_samples_s.end() - static_cast<std::ptrdiff_t>(third), r.gpu_samples_s.end());
      const double mh = detail::median_of(head), mt = detail::median_of(tail);
      const double drift = mh > 0 ? (mt - mh) / mh : 0;
      const double limit = std::max(config_.warmup.drift_tolerance, 2 * r.stopping.relative_ci_width.value_or(0));
      if (std::fabs(drift) > limit) {
        sink.add(warning_code::drift_during_measurement, Severity::warning,
                 detail::sformat("the median of the last third of the samples (%s) differs by %+.3g %% from the first "
                                 "third (%s), beyond %.3g %%: the step was still changing while measured (clocks, "
                                 "power capping, caches). Raise warmup.min_time, or look at telemetry.",
                                 detail::human_time(mt).c_str(), 100 * drift, detail::human_time(mh).c_str(), 100 * limit));
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

  // ---- telemetry, memory, kernels ------------------------------------------------------------

  template <class B, class = void>
  struct has_telemetry : std::false_type {};
  template <class B>
  struct has_telemetry<B, std::void_t<decltype(std::declval<B&>().telemetry_probe(std::declval<std::string&>()))>>
      : std::true_type {};
  template <class B, class = void>
  struct has_memory : std::false_type {};
  template <class B>
  struct has_memory<B, std::void_t<decltype(std::declval<B&>().memory_snapshot())>> : std::true_type {};
  template <class B, class = void>
  struct has_kernels : std::false_type {};
  template <class B>
  struct has_kernels<B, std::void_t<decltype(std::declval<B&>().kernel_binary(nullptr, std::string()))>>
      : std::true_type {};

  struct MemoryTracking {
    std::optional<DeviceMemorySnapshot> last;
    std::optional<std::uint64_t> used_peak;
    std::optional<std::uint64_t> used_at_start, used_at_end;
    std::optional<std::uint64_t> rss_at_start, rss_at_end;
    std::map<std::string, std::uint64_t> allocator_peaks;
    std::vector<std::pair<unsigned, std::uint64_t>> processes_at_start;
  };

  void observe_memory() {
    if constexpr (has_memory<Backend>::value) {
      DeviceMemorySnapshot m = backend_.memory_snapshot();
      memory_.used_peak = std::max(memory_.used_peak.value_or(0), m.used_bytes);
      memory_.last = m;
    }
    for (auto& [probe_name, bytes] : allocator_probes_) {
      const std::uint64_t b = bytes();
      auto& peak = memory_.allocator_peaks[probe_name];
      peak = std::max(peak, b);
    }
  }

  void start_monitoring(Result& r, WarningSink& sink) {
    r.telemetry.interval_s = to_seconds(config_.telemetry_interval);
    if constexpr (has_telemetry<Backend>::value) {
      std::string reason;
      auto probe = backend_.telemetry_probe(reason);
      if (probe) {
        r.telemetry.available = true;
        r.telemetry.sm_clock_max_mhz = probe->sm_clock_max_mhz();
        memory_.processes_at_start = probe->processes();
        sampler_ = std::make_unique<TelemetrySampler>(std::move(probe), config_.telemetry_interval,
                                                      [this] { return backend_.now(); }, t_begin_);
        sampler_->sample_now();
        sampler_->start();
      } else {
        r.telemetry.unavailable_reason = reason;
        sink.add(warning_code::telemetry_unavailable, Severity::info,
                 "no GPU telemetry (" + reason + "): clocks, power, throttling and per-process memory "
                 "during the run are unknown.");
      }
    } else {
      r.telemetry.unavailable_reason = std::string("the ") + Backend::name + " backend has no telemetry";
    }
    if constexpr (has_memory<Backend>::value) {
      backend_.reset_memory_watermarks();
    }
    observe_memory();
    if constexpr (has_kernels<Backend>::value) {
      auto all = kernels_;
      for (const auto& k : backend_.own_kernels()) all.push_back(k);
      for (const auto& [kernel_name, fn] : all) {
        try {
          r.kernels.push_back(backend_.kernel_binary(fn, kernel_name));
        } catch (const std::exception& e) {
          sink.add(warning_code::jit_compiled, Severity::info,
                   "cannot read the binary of kernel '" + kernel_name + "': " + e.what());
        }
      }
    } else if (!kernels_.empty()) {
      sink.add(warning_code::jit_compiled, Severity::info,
               std::string("the ") + Backend::name + " backend cannot inspect kernel binaries; the JIT check was skipped");
    }
  }

  void mark_measure_start(Result& r) {
    r.telemetry.measure_start_s = backend_.now() - t_begin_;
    observe_memory();
    if (memory_.last) memory_.used_at_start = memory_.last->used_bytes;
    memory_.rss_at_start = read_process_memory().rss_bytes;
  }
  void mark_measure_end(Result& r) {
    r.telemetry.measure_end_s = backend_.now() - t_begin_;
    backend_.synchronize();
    observe_memory();
    if (memory_.last) memory_.used_at_end = memory_.last->used_bytes;
    memory_.rss_at_end = read_process_memory().rss_bytes;
  }

  void stop_monitoring(Result& r) noexcept {
    if (!sampler_) return;
    try {
      sampler_->stop();
      r.telemetry.series = sampler_->samples();
    } catch (...) {
    }
  }

  /// Telemetry statistics over the measured region, throttled samples, memory peaks, and the
  /// warnings they imply.
  void summarize_monitoring(Result& r, WarningSink& sink) {
    auto& t = r.telemetry;
    // ---- telemetry ----
    if (t.available && t.measure_end_s > t.measure_start_s) {
      const double pad = t.interval_s;
      auto stat = [&](auto get) {
        TelemetryStat st;
        double sum = 0;
        std::size_t n = 0;
        for (const auto& x : t.series) {
          if (x.t_s < t.measure_start_s - pad || x.t_s > t.measure_end_s + pad) continue;
          auto v = get(x);
          if (!v) continue;
          st.min = std::min(st.min.value_or(*v), *v);
          st.max = std::max(st.max.value_or(*v), *v);
          sum += *v;
          ++n;
        }
        if (n) st.mean = sum / static_cast<double>(n);
        return st;
      };
      t.sm_clock_mhz = stat([](const TelemetrySample& x) { return x.sm_clock_mhz; });
      t.memory_clock_mhz = stat([](const TelemetrySample& x) { return x.memory_clock_mhz; });
      t.power_w = stat([](const TelemetrySample& x) { return x.power_w; });
      t.temperature_c = stat([](const TelemetrySample& x) { return x.temperature_c; });
      std::size_t throttled_readings = 0, readings = 0;
      for (const auto& x : t.series) {
        if (x.t_s < t.measure_start_s || x.t_s > t.measure_end_s + pad) continue;
        ++readings;
        if (x.clock_event_reasons && (*x.clock_event_reasons & nvml::throttling_reasons)) {
          ++throttled_readings;
          t.throttle_reasons_seen |= (*x.clock_event_reasons & nvml::throttling_reasons);
        }
      }
      t.throttle_reason_names = nvml::reason_names(t.throttle_reasons_seen);
      // GPU-time samples from rounds that overlap a throttled reading.
      std::size_t first = 0;
      const auto& sm = r.sampling;
      for (std::size_t i = 0; i < sm.round_samples.size(); ++i) {
        bool throttled = false;
        for (const auto& x : t.series) {
          if (x.t_s < sm.round_start_s[i] - pad || x.t_s > sm.round_end_s[i]) continue;
          if (x.clock_event_reasons && (*x.clock_event_reasons & nvml::throttling_reasons)) throttled = true;
        }
        if (throttled)
          for (std::size_t j = 0; j < sm.round_samples[i]; ++j)
            if (first + j < r.gpu_samples_s.size()) t.throttled_samples.push_back(first + j);
        first += sm.round_samples[i];
      }
      if (throttled_readings > 0) {
        std::string names;
        for (const auto& n : t.throttle_reason_names) names += (names.empty() ? "" : ", ") + n;
        sink.add(warning_code::throttling, Severity::warning,
                 detail::sformat("the GPU was throttled (%s) in %zu of %zu telemetry readings during "
                                 "measurement; %zu of %zu GPU-time samples come from rounds with a throttled "
                                 "reading (telemetry.throttled_samples lists them). The numbers describe a "
                                 "throttled GPU.",
                                 names.c_str(), throttled_readings, readings, t.throttled_samples.size(),
                                 r.gpu_samples_s.size()));
      }
      if (t.sm_clock_mhz.mean && t.sm_clock_max_mhz && *t.sm_clock_max_mhz > 0 &&
          *t.sm_clock_mhz.mean < config_.sm_clock_warning_fraction * *t.sm_clock_max_mhz) {
        sink.add(warning_code::sm_clock_below_max, Severity::warning,
                 detail::sformat("the SM clock averaged %.0f MHz during measurement (min %.0f, max %.0f), %.0f %% "
                                 "of its %.0f MHz maximum: a compute-bound step runs correspondingly slower.",
                                 *t.sm_clock_mhz.mean, t.sm_clock_mhz.min.value_or(0), t.sm_clock_mhz.max.value_or(0),
                                 100 * *t.sm_clock_mhz.mean / *t.sm_clock_max_mhz, *t.sm_clock_max_mhz));
      }
    }
    // ---- other processes ----
    {
      const unsigned self = static_cast<unsigned>(::getpid());
      std::uint64_t others_bytes = 0;
      std::string pids;
      std::size_t others = 0;
      for (const auto& [pid, bytes] : memory_.processes_at_start) {
        if (pid == self) continue;
        ++others;
        others_bytes += bytes;
        pids += (pids.empty() ? "" : ", ") + std::to_string(pid);
      }
      if (t.available) r.memory.other_processes_bytes = others_bytes;
      if (others > 0) {
        sink.add(warning_code::other_processes_on_gpu, Severity::warning,
                 detail::sformat("%zu other process(es) had a compute context on this GPU (pid %s, %.3g GiB): "
                                 "they may have competed for it during the run.",
                                 others, pids.c_str(), static_cast<double>(others_bytes) / (1u << 30)));
      }
    }
    // ---- JIT ----
    for (const auto& k : r.kernels) {
      if (!k.jit_compiled) continue;
      sink.add(warning_code::jit_compiled, Severity::warning,
               detail::sformat("kernel '%s' was compiled by the driver from PTX (compute_%d) for this sm_%d device: "
                               "no native sm_%d code in the binary, so the first launch paid for JIT compilation and "
                               "the code is not what nvcc would emit for this GPU. Build with "
                               "-gencode arch=compute_%d,code=sm_%d (CMake: CUDA_ARCHITECTURES %d).",
                               k.name.c_str(), k.ptx_version, k.device_version, k.device_version, k.device_version,
                               k.device_version, k.device_version));
    }
    // ---- memory ----
    auto& mem = r.memory;
    const double gib = 1024.0 * 1024 * 1024;
    if (memory_.last) {
      mem.device_total_bytes = memory_.last->total_bytes;
      mem.pool_used_high_bytes = memory_.last->pool_used_high_bytes;
      mem.pool_reserved_high_bytes = memory_.last->pool_reserved_high_bytes;
    }
    mem.device_used_peak_bytes = memory_.used_peak;
    mem.device_used_at_measure_start_bytes = memory_.used_at_start;
    mem.device_used_at_measure_end_bytes = memory_.used_at_end;
    for (const auto& x : t.series)
      if (x.process_memory_bytes) mem.process_peak_bytes = std::max(mem.process_peak_bytes.value_or(0), *x.process_memory_bytes);
    mem.allocator_peak_bytes = memory_.allocator_peaks;
    const ProcessMemory pm = read_process_memory();
    mem.host_rss_peak_bytes = pm.rss_peak_bytes;
    mem.host_rss_at_measure_start_bytes = memory_.rss_at_start;
    mem.host_rss_at_measure_end_bytes = memory_.rss_at_end;
    mem.host_memory_total_bytes = read_memory_total();
    auto consider = [&](std::optional<std::uint64_t> v, const std::string& source) {
      if (v && (!mem.peak_bytes || *v > *mem.peak_bytes)) {
        mem.peak_bytes = v;
        mem.peak_source = source;
      }
    };
    consider(mem.process_peak_bytes, "NVML per-process usage");
    if (mem.device_used_peak_bytes) {
      const std::uint64_t others = mem.other_processes_bytes.value_or(0);
      consider(*mem.device_used_peak_bytes > others ? *mem.device_used_peak_bytes - others : 0,
               mem.other_processes_bytes ? "cudaMemGetInfo, device-wide, minus other processes (NVML)"
                                         : "cudaMemGetInfo, device-wide (other processes included)");
    }
    for (const auto& [probe_name, bytes] : mem.allocator_peak_bytes) consider(bytes, "allocator probe '" + probe_name + "'");
    if (memory_.used_at_start && memory_.used_at_end)
      mem.device_growth_bytes = static_cast<std::int64_t>(*memory_.used_at_end) - static_cast<std::int64_t>(*memory_.used_at_start);
    if (memory_.rss_at_start && memory_.rss_at_end)
      mem.host_rss_growth_bytes = static_cast<std::int64_t>(*memory_.rss_at_end) - static_cast<std::int64_t>(*memory_.rss_at_start);
    const auto tol = static_cast<std::int64_t>(config_.memory_growth_tolerance_bytes);
    const bool device_grew = mem.device_growth_bytes && *mem.device_growth_bytes > tol;
    const bool host_grew = mem.host_rss_growth_bytes && *mem.host_rss_growth_bytes > tol;
    mem.grew_during_measurement = device_grew || host_grew;
    if (r.status == Status::ok && mem.grew_during_measurement) {
      sink.add(warning_code::memory_grew_during_measurement, Severity::warning,
               detail::sformat("memory grew during measurement: device %+.1f MiB, host RSS %+.1f MiB (tolerance %.1f "
                               "MiB): a leak, or an allocator still growing after warm-up; steady state was not reached.",
                               static_cast<double>(mem.device_growth_bytes.value_or(0)) / (1 << 20),
                               static_cast<double>(mem.host_rss_growth_bytes.value_or(0)) / (1 << 20),
                               static_cast<double>(tol) / (1 << 20)));
    }
    // Fits: within device memory with headroom, not growing, host RSS within host memory.
    std::string why;
    bool fits = true, known = false;
    if (mem.peak_bytes && mem.device_total_bytes) {
      known = true;
      const double frac = static_cast<double>(*mem.peak_bytes) / static_cast<double>(*mem.device_total_bytes);
      why += detail::sformat("peak %.3g GiB of %.3g GiB device memory (%.1f %%)", static_cast<double>(*mem.peak_bytes) / gib,
                             static_cast<double>(*mem.device_total_bytes) / gib, 100 * frac);
      if (frac > 0.95) {
        fits = false;
        why += ", within 5 % of capacity: allocations may spill or evict (managed-memory oversubscription is not "
               "measured directly)";
      }
    }
    if (mem.host_rss_peak_bytes && mem.host_memory_total_bytes) {
      known = true;
      const double frac = static_cast<double>(*mem.host_rss_peak_bytes) / static_cast<double>(*mem.host_memory_total_bytes);
      why += std::string(why.empty() ? "" : "; ") +
             detail::sformat("host RSS peak %.3g GiB of %.3g GiB (%.1f %%)", static_cast<double>(*mem.host_rss_peak_bytes) / gib,
                             static_cast<double>(*mem.host_memory_total_bytes) / gib, 100 * frac);
      if (frac > 0.9) {
        fits = false;
        why += ", near host capacity: swapping likely";
      }
    }
    if (mem.grew_during_measurement) {
      fits = false;
      why += "; memory grew during measurement";
    }
    if (known) {
      mem.fits = fits;
      mem.fits_reason = why;
      if (!fits && r.status == Status::ok)
        sink.add(warning_code::may_not_fit, Severity::warning, "the workload may not fit: " + why + ".");
    } else {
      mem.fits_reason = "no memory readings";
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
  double t_begin_ = 0;
  std::vector<std::pair<std::string, const void*>> kernels_;
  std::vector<std::pair<std::string, std::function<std::uint64_t()>>> allocator_probes_;
  std::unique_ptr<TelemetrySampler> sampler_;
  MemoryTracking memory_;
};

/// Makes an Experiment with an explicit backend type: `gauge::make_experiment<HostBackend>("x", f)`.
template <class Backend, class Step>
Experiment<Step, Backend> make_experiment(std::string name, Step step, Backend backend = Backend{}) {
  return Experiment<Step, Backend>(std::move(name), std::move(step), std::move(backend));
}

}  // namespace gauge
