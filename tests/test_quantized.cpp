// A clock that ticks coarsely against the step (issue "Trust"): outlier fences that account for
// the clock's resolution, and a host backend that takes enough steps per sample. Expected values
// by hand.

#include <cmath>
#include <string>
#include <vector>

#include "catch.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/experiment.hpp"

// This file's own namespace: the unity build compiles several test files as one.
namespace gauge_test_quantized {

namespace {

/// A host backend whose clock ticks every `tick` seconds of a virtual time that only the step
/// advances (the step "takes" `step` seconds): what a coarse host clock shows.
struct CoarseClock {
  double t = 0;
  double tick = 1e-3;
};

class CoarseClockBackend : public gauge::HostBackend {
 public:
  explicit CoarseClockBackend(CoarseClock* clock) : c_(clock) {}
  double now() const { return std::floor(c_->t / c_->tick + 1e-9) * c_->tick; }
  std::size_t record() {
    markers_.push_back(now());
    return markers_.size() - 1;
  }
  double elapsed(std::size_t a, std::size_t b) const { return markers_.at(b) - markers_.at(a); }
  void reset_markers() { markers_.clear(); }
  double timer_resolution() const { return c_->tick; }

 private:
  CoarseClock* c_;
  std::vector<double> markers_;
};

}  // namespace

TEST_CASE("outliers: samples quantized by the clock are not outliers", "[statistics][trust]") {
  // A 1 us clock and a 10.1 us step: 3,227 samples read 10 us and 357 read 11 us. Q1 = Q3 = 10 us,
  // so with IQR 0 every 11 us sample lies beyond Q3 + 3 IQR: 357 "severe outliers". With the IQR
  // taken as at least the 1 us tick, the fences are 11.5 us (mild) and 13 us (severe): none.
  std::vector<double> x(3227, 10e-6);
  x.insert(x.end(), 357, 11e-6);
  auto s = gauge::stats::summarize(x);
  CHECK(s.outliers.high_severe == 357);
  s = gauge::stats::summarize(x, 0.95, 1e-6);
  CHECK(s.outliers.high_severe == 0);
  CHECK(s.outliers.high_mild == 0);
  // A real outlier is still one: 20 us is beyond 10 + 3 x 1 us.
  x.push_back(20e-6);
  std::sort(x.begin(), x.end());
  CHECK(gauge::stats::tukey_outliers(x, 1e-6).high_severe == 1);
  // Without quantization (IQR above the tick) the tick changes nothing: by hand, {1..8} has
  // Q1 = 2.75, Q3 = 6.25, IQR 3.5: 30 is beyond 6.25 + 10.5 = 16.75.
  const std::vector<double> y = {1, 2, 3, 4, 5, 6, 7, 8, 30};
  CHECK(gauge::stats::tukey_outliers(y, 0.001).high_severe == gauge::stats::tukey_outliers(y).high_severe);
}

TEST_CASE("host backend: a coarse clock gets enough steps per sample for a true median", "[protocol][trust]") {
  // A 1 ms clock and a 0.3 ms step. One step per sample would read 0 or 1 ms (median 0). Warm-up
  // rounds span at least 100 ticks (the estimate of the step is then within 1 %), and the
  // protocol takes k steps per sample so that a tick is at most 1/1000 of a sample, capped by
  // max_sample_time (25 ms): k = floor(25 ms / 0.3 ms) = 83 steps, 24.9 ms per sample, read as 24
  // or 25 ticks: 0.289 or 0.301 ms per step. The median is within 4 % of 0.3 ms, and the two
  // quantized values are not outliers.
  CoarseClock clock;
  auto exp = gauge::make_experiment<CoarseClockBackend>(
      "coarse", [&](gauge::HostStream) { clock.t += 0.3e-3; }, CoarseClockBackend(&clock));
  gauge::Config c;
  c.measure.max_time = std::chrono::seconds(2);
  exp.config(c);
  const auto r = exp.run();
  INFO(r.sampling.steps_per_sample_reason);
  REQUIRE(r.status == gauge::Status::ok);
  CHECK(r.sampling.steps_per_sample == 83);
  CHECK(r.sampling.steps_per_sample_reason.find("capped by max_sample_time") != std::string::npos);
  REQUIRE(r.gpu_time.p50);
  CHECK(*r.gpu_time.p50 == Approx(0.3e-3).epsilon(0.04));
  CHECK(*r.gpu_time.min > 0);
  CHECK_FALSE(r.has_warning("outliers"));
  // A fine clock leaves k at what 1,000 ticks need: tick 1 us, step 0.3 ms -> k = ceil(1000 x 1e-6 / 3e-4) = 4.
  CoarseClock fine;
  fine.tick = 1e-6;
  auto exp2 = gauge::make_experiment<CoarseClockBackend>(
      "fine", [&](gauge::HostStream) { fine.t += 0.3e-3; }, CoarseClockBackend(&fine));
  exp2.config(c);
  const auto r2 = exp2.run();
  INFO(r2.sampling.steps_per_sample_reason);
  CHECK(r2.sampling.steps_per_sample == 4);
  CHECK(*r2.gpu_time.p50 == Approx(0.3e-3).epsilon(1e-3));
}

}  // namespace gauge_test_quantized
