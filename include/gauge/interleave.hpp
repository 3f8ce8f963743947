#pragma once
/// \file gauge/interleave.hpp
/// gauge::interleave(a, b): experiments A and B measured in alternating rounds of one process,
/// in ABBA order (A B B A A B B A …), on the same stream pool with the same steps per sample, and
/// the paired ratio B / A of their round medians with a bootstrap interval and a verdict
/// (gauge/core/interleaved.hpp states the method). It answers "is my kernel faster than cuBLAS?"
/// free of the drift (clock, temperature) that separates two runs measured one after the other.
///
/// \code
///   auto mine = gauge::Experiment("my_gemm", my_step);
///   auto ref = gauge::Experiment("cublas_gemm", cublas_step);
///   gauge::InterleavedResult r = gauge::interleave(ref, mine).threshold(0.02).run();
///   // r.ratio->estimate: time of mine / time of cuBLAS; r.verdict: faster, slower, same, inconclusive
///   report.add(r);  // both results and the `interleaved` record
/// \endcode
///
/// Like Experiment::run(), the protocol is compiled once per program (GAUGE_IMPLEMENTATION).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "gauge/core/config.hpp"
#include "gauge/core/error.hpp"
#include "gauge/core/interleaved.hpp"
#include "gauge/experiment.hpp"
#include "gauge/protocol/seam.hpp"

namespace gauge {

/// An interleaved run of two experiments (A: the base, B: the candidate; ratios are B / A, below
/// 1 is faster). Holds both by reference: they must outlive run(). Made by gauge::interleave.
template <class ExperimentA, class ExperimentB>
class Interleave {
 public:
  /// \throws ConfigError when `a` and `b` are the same object (one backend cannot run both sides:
  ///   make a second Experiment with the same step to compare a step with itself).
  Interleave(ExperimentA& a, ExperimentB& b) : a_(a), b_(b) {
    if (static_cast<const void*>(&a) == static_cast<const void*>(&b))
      throw ConfigError("interleave: A and B are the same Experiment object (\"" + a.name() +
                        "\"); make a second Experiment with the same step to measure it against itself");
  }

  /// Noise threshold t on B / A as a fraction in (0, 1) (0.02 = 2 %): `same` needs the interval
  /// within [1 − t, 1 + t]. Checked at run().
  Interleave& threshold(double t) {
    config_.threshold = t;
    return *this;
  }
  /// Confidence level of the paired ratio's interval, in (0, 1).
  Interleave& confidence_level(double c) {
    config_.confidence_level = c;
    return *this;
  }
  /// Stop when (high − low) / estimate of the paired ratio is at most `w`.
  Interleave& target_relative_ci_width(double w) {
    config_.target_relative_ci_width = w;
    return *this;
  }
  /// Fewest round pairs before stopping (>= 4).
  Interleave& min_pairs(std::size_t n) {
    config_.min_pairs = n;
    return *this;
  }
  /// Most time of the interleaved rounds, both sides together (warm-up not included).
  template <class Rep, class Period>
  Interleave& max_time(std::chrono::duration<Rep, Period> d) {
    config_.max_time = std::chrono::duration_cast<Nanoseconds>(d);
    return *this;
  }
  /// Bootstrap resamples (>= 100).
  Interleave& resamples(std::size_t n) {
    config_.resamples = n;
    return *this;
  }
  /// Seed of the bootstrap's generator.
  Interleave& seed(std::uint64_t s) {
    config_.seed = s;
    return *this;
  }
  /// Replaces all settings.
  Interleave& config(const InterleaveConfig& c) {
    config_ = c;
    return *this;
  }
  /// The settings, for in-place changes.
  InterleaveConfig& config() { return config_; }

  /// Runs both experiments in ABBA rounds: each is prepared, warmed up and calibrated as by its
  /// own run(); then both measure with one k (the larger, or 1 for both when a side needs an
  /// event pair per step) until the paired ratio's interval reaches the target width, or
  /// max_time; then each is verified and summarized over its own rounds. Each experiment's own
  /// settings (round_time, streams, min_samples, min_time, max_samples, warm-up) apply to its
  /// rounds; its own stopping rule does not (its `stopping.reason` is "interleaved").
  /// Never throws for a failing step: that side is `failed` and the verdict `inconclusive`,
  /// naming it, with what was measured kept.
  /// \throws ConfigError before anything runs: invalid settings (of either side or the run), an
  ///   empty name, different backends, devices or stream pools, a rank coordinator.
  InterleavedResult run() {
    using A = std::remove_reference_t<decltype(a_.backend_)>;
    using B = std::remove_reference_t<decltype(b_.backend_)>;
    detail::BackendAdaptor<A, decltype(a_.step_)> seam_a(a_.backend_, a_.step_, a_.setup_);
    detail::BackendAdaptor<B, decltype(b_.step_)> seam_b(b_.backend_, b_.step_, b_.setup_);
    return detail::run_interleaved(a_.spec_, seam_a, b_.spec_, seam_b, config_);
  }

 private:
  ExperimentA& a_;
  ExperimentB& b_;
  InterleaveConfig config_;
};

/// Interleaves experiments `a` (the base) and `b` (the candidate): see Interleave. Ratios are
/// B / A. \throws ConfigError when `a` and `b` are the same object.
template <class ExperimentA, class ExperimentB>
Interleave<ExperimentA, ExperimentB> interleave(ExperimentA& a, ExperimentB& b) {
  return Interleave<ExperimentA, ExperimentB>(a, b);
}

}  // namespace gauge
