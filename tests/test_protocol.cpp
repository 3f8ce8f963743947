// The measurement protocol on the fake backend: warm-up and stopping rules, failure handling,
// GPU-time/wall-time bookkeeping. Expected values are derived by hand from the fake's script.

#include <chrono>
#include <cmath>
#include <optional>
#include <algorithm>
#include <random>
#include <stdexcept>
#include <utility>

#include <cstdlib>
#include <set>

#include "catch.hpp"
#include "gauge/core/thinning.hpp"
#include "gauge/detail/fmt.hpp"
#include "gauge/report/compare.hpp"
#include "fake_backend.hpp"
#include "test_helpers.hpp"
#include "test_checks.hpp"
#include "gauge/experiment.hpp"
#include "gauge/protocol/diagnosis.hpp"

// This file's own namespace: the unity build compiles several test files as one.
namespace gauge_test_protocol {

using namespace std::chrono_literals;
using gauge::testing::FakeBackend;
using gauge::testing::FakeDevice;
using gauge::testing::FakeStream;
using gauge::testing::fake_experiment;
using gauge::testing::config_error_of;

namespace {

/// A configuration whose rules are easy to compute by hand.
gauge::Config simple_config() {
  gauge::Config c;
  c.warmup.min_steps = 10;
  c.warmup.min_time = 0ms;
  c.warmup.max_time = 1s;
  c.warmup.round_time = 1ms;
  c.warmup.window = 3;
  c.measure.min_samples = 10;
  c.measure.min_time = 0ms;
  c.measure.max_time = 1s;
  c.measure.round_time = 1ms;
  return c;
}

/// Runs `step` on `dev` under `config`.
template <class Step>
gauge::Result run_step(FakeDevice& dev, Step step, const gauge::Config& config) {
  auto exp = fake_experiment(dev, step);
  exp.config(config);
  return exp.run();
}

/// Runs a step of one kernel of `kernel_s` seconds on `dev` under `config`.
gauge::Result run_kernel_step(FakeDevice& dev, double kernel_s, const gauge::Config& config) {
  return run_step(dev, [kernel_s](FakeStream s) { s.kernel(kernel_s); }, config);
}

/// Runs a step of one kernel that lasts `seconds(i)` at the step's i-th call (from 0) on `dev`
/// under `config`.
template <class Seconds>
gauge::Result run_kernel_script(FakeDevice& dev, Seconds seconds, const gauge::Config& config) {
  std::size_t call = 0;
  return run_step(dev, [&](FakeStream s) { s.kernel(seconds(call++)); }, config);
}

}  // namespace

TEST_CASE("a constant 10 us step is measured as 10 us on the fake device", "[protocol]") {
  FakeDevice dev;
  dev.launch_cost = 2e-6;
  auto r = run_kernel_step(dev, 10e-6, simple_config());
  REQUIRE(r.status == gauge::Status::ok);
  REQUIRE(r.gpu_time.p50);
  // Gated, back to back, no event cost: every sample is exactly the kernel's duration.
  CHECK(*r.gpu_time.p50 == Approx(10e-6).epsilon(1e-9));
  CHECK(*r.gpu_time.min == Approx(10e-6).epsilon(1e-9));
  CHECK(*r.gpu_time.max == Approx(10e-6).epsilon(1e-9));
  CHECK(r.sampling.method == "gated");
  CHECK(r.warmup.converged);
  CHECK(r.stopping.reason == "noise_target_met");
  // The first step is timed ungated from an event recorded before the call, so it includes the
  // host's launch cost (2 us here; first-call costs such as module loading in real life).
  REQUIRE(r.warmup.first_step_time_s);
  CHECK(*r.warmup.first_step_time_s == Approx(10e-6 + 2e-6));
}

// ---- warm-up rule ------------------------------------------------------------------------------

TEST_CASE("warm-up stops at the first round boundary after min_steps", "[protocol][warmup]") {
  FakeDevice dev;
  auto c = simple_config();
  c.warmup.min_steps = 100;
  c.warmup.round_time = 70us;  // 70 us / 10 us = 7 steps per round
  auto r = run_kernel_step(dev, 10e-6, c);
  REQUIRE(r.status == gauge::Status::ok);
  // The first step alone reads 12 us (10 us + the 2 us launch, ungated), so the first round has
  // floor(70 / 12) = 5 steps; later rounds floor(70 / 10) = 7. Stop at the first boundary with
  // 1 + 5 + 7 m >= 100: m = ceil(94 / 7) = 14, so 1 + 5 + 98 = 104 steps in 1 + 1 + 14 rounds.
  CHECK(r.warmup.steps == 104);
  CHECK(r.warmup.curve.size() == 16);
  CHECK(r.warmup.converged);
}

TEST_CASE("warm-up that never settles stops at exactly max_steps", "[protocol][warmup]") {
  FakeDevice dev;
  auto c = simple_config();
  c.warmup.max_steps = 57;
  c.warmup.round_time = 50us;
  // Every call 3 % slower than the one before: never steady.
  auto r = run_kernel_script(dev, [](std::size_t i) { return 10e-6 * std::pow(1.03, double(i)); }, c);
  CHECK(r.warmup.steps == 57);
  CHECK_FALSE(r.warmup.converged);
  CHECK(r.has_warning("warmup_not_converged"));
}

TEST_CASE("warm-up that never settles stops at the first round boundary after max_time", "[protocol][warmup]") {
  FakeDevice dev;
  auto c = simple_config();
  c.warmup.max_time = 5ms;
  c.warmup.max_steps = 1000000;
  c.warmup.round_time = 200us;
  auto r = run_kernel_script(dev, [](std::size_t i) { return 10e-6 * (1.0 + 0.001 * double(i)); }, c);
  CHECK_FALSE(r.warmup.converged);
  CHECK(r.warmup.time_s >= 5e-3);
  // A round lasts about round_time of device work plus host costs (< 1 ms here).
  CHECK(r.warmup.time_s < 5e-3 + 1e-3);
  CHECK(r.has_warning("warmup_not_converged"));
}

TEST_CASE("a first call 100x slower is spent in warm-up and reported", "[protocol][warmup]") {
  FakeDevice dev;
  auto r = run_kernel_script(dev, [](std::size_t i) { return i == 0 ? 1e-3 : 10e-6; }, simple_config());
  REQUIRE(r.status == gauge::Status::ok);
  CHECK(r.warmup.converged);
  CHECK(*r.warmup.first_step_time_s == Approx(1e-3 + dev.launch_cost));
  CHECK(*r.gpu_time.p50 == Approx(10e-6).epsilon(1e-9));
  CHECK(*r.gpu_time.max == Approx(10e-6).epsilon(1e-9));
}

TEST_CASE("a first call of seconds does not spend warm-up's budget or size the measurement", "[protocol][warmup]") {
  // The first call takes 2 s (autotuning, JIT), twice warmup.max_time (1 s); every later call
  // 10 us. The budget counts from after the first call, so warm-up converges as it would without
  // it (the 10 us rounds: 1 ms / 10 us = 100 steps each, at most 512), and the measurement's
  // rounds are sized by 10 us, not by 2 s.
  FakeDevice dev;
  auto c = simple_config();
  REQUIRE(c.warmup.max_time == 1s);
  c.measure.streams = 1;  // one stream: rounds of measure.round_time (1 ms), not shortened for a pool
  auto r = run_kernel_script(dev, [](std::size_t i) { return i == 0 ? 2.0 : 10e-6; }, c);
  REQUIRE(r.status == gauge::Status::ok);
  CHECK(r.warmup.converged);
  CHECK_FALSE(r.has_warning("warmup_not_converged"));
  CHECK(*r.warmup.first_step_time_s == Approx(2.0 + dev.launch_cost));
  // The warm-up's total time holds the first call (2 s) plus a few rounds of ~1 ms.
  CHECK(r.warmup.time_s > 2.0);
  CHECK(r.warmup.time_s < 2.1);
  // The measurement: every sample is exactly the 10 us kernel, in rounds of 1 ms (100 steps).
  CHECK(*r.gpu_time.p50 == Approx(10e-6).epsilon(1e-9));
  CHECK(*r.gpu_time.max == Approx(10e-6).epsilon(1e-9));
  REQUIRE(r.sampling.rounds > 0);
  // floor(1 ms / 10 us) = 100 steps a round, or 99 where the clock's rounding makes the estimate
  // a hair above 10 us (sized by the slow calls, 2 s or 0.4 s: 1 step a round).
  CHECK(r.sampling.steps >= 99 * r.sampling.rounds);
  CHECK(r.sampling.steps <= 100 * r.sampling.rounds);
  // The note that says what the first call cost: 2 s, 2e5 x the warmed step.
  REQUIRE(r.has_warning("slow_first_step"));
  for (const auto& w : r.warnings)
    if (w.code == "slow_first_step") {
      CHECK(w.severity == gauge::Severity::info);
      CHECK(w.message.find("2 s") != std::string::npos);
    }
}

TEST_CASE("slow calls that fill a capped warm-up do not size the measurement", "[protocol][warmup]") {
  // A tuner's trials: the first 4 calls take 0.4 s each, then 10 us. warmup.max_time 1 s counts
  // from after call 0: calls 1, 2, 3 (one step per round, sized by 0.4 s) pass it, so warm-up is
  // capped, honestly unconverged. Its last round says 0.4 s per step; the rounds after it, each
  // sized by the one before, bring the estimate to 10 us before the measurement is sized.
  FakeDevice dev;
  auto c = simple_config();
  c.measure.streams = 1;
  auto r = run_kernel_script(dev, [](std::size_t i) { return i < 4 ? 0.4 : 10e-6; }, c);
  REQUIRE(r.status == gauge::Status::ok);
  CHECK_FALSE(r.warmup.converged);
  CHECK(r.has_warning("warmup_not_converged"));
  // Call 0 plus three single-step rounds (calls 1-3), then the rounds that re-size: the next is
  // 1 step (sized by 0.4 s), the one after sized by its ~12 us round trip.
  REQUIRE(r.warmup.curve.size() >= 6);
  CHECK(r.warmup.curve[1].steps == 1);
  CHECK(r.warmup.curve[3].steps == 1);
  CHECK(r.warmup.curve.back().steps >= 50);
  CHECK(*r.gpu_time.p50 == Approx(10e-6).epsilon(1e-9));
  REQUIRE(r.sampling.rounds > 0);
  // floor(1 ms / 10 us) = 100 steps a round, or 99 where the clock's rounding makes the estimate
  // a hair above 10 us (sized by the slow calls, 2 s or 0.4 s: 1 step a round).
  CHECK(r.sampling.steps >= 99 * r.sampling.rounds);
  CHECK(r.sampling.steps <= 100 * r.sampling.rounds);
}

TEST_CASE("a step that gets slower once (autotuning) ends warm-up in the slow steady state", "[protocol][warmup]") {
  FakeDevice dev;
  auto c = simple_config();
  c.warmup.min_steps = 10;
  c.warmup.round_time = 2ms;
  c.warmup.window = 5;
  // 1500 fast calls (the tuner's first pick), then 10 us for good.
  auto r = run_kernel_script(dev, [](std::size_t i) { return i < 1500 ? 5e-6 : 10e-6; }, c);
  REQUIRE(r.status == gauge::Status::ok);
  CHECK(r.warmup.converged);
  CHECK(r.warmup.steps > 1500);
  CHECK(*r.gpu_time.p50 == Approx(10e-6).epsilon(1e-9));
  CHECK(*r.gpu_time.min == Approx(10e-6).epsilon(1e-9));
}

TEST_CASE("a clock that ramps up over the first 200 ms ends warm-up at full clock", "[protocol][warmup]") {
  FakeDevice dev;
  // Step time 30 us at t = 0 falling linearly to 10 us at t = 200 ms (clock ramping up), then flat.
  auto c = simple_config();
  c.warmup.round_time = 2ms;
  c.warmup.window = 5;
  auto r = run_step(dev, [&](FakeStream s) {
    const double t = dev.host;
    s.kernel(10e-6 * (1.0 + 2.0 * std::max(0.0, 1.0 - t / 0.2)));
  }, c);
  REQUIRE(r.status == gauge::Status::ok);
  CHECK(r.warmup.converged);
  CHECK(r.warmup.time_s >= 0.19);
  CHECK(*r.gpu_time.p50 == Approx(10e-6).epsilon(0.005));
  CHECK(*r.gpu_time.max == Approx(10e-6).epsilon(0.02));
}

// ---- stopping rule ------------------------------------------------------------------------------

TEST_CASE("measurement stops at the first round boundary after min_samples", "[protocol][stopping]") {
  FakeDevice dev;
  auto c = simple_config();
  c.measure.min_samples = 250;
  c.measure.round_time = 1ms;  // 100 steps per round; no event cost, so k = 1: 100 samples a round
  c.measure.streams = 1;       // one stream: the rounds are not shortened for a pool
  auto r = run_kernel_step(dev, 10e-6, c);
  REQUIRE(r.status == gauge::Status::ok);
  CHECK(r.sampling.steps_per_sample == 1);
  CHECK(r.gpu_samples_s.size() == 300);
  CHECK(r.sampling.rounds == 3);
  CHECK(r.stopping.reason == "noise_target_met");
  CHECK(r.stopping.target_met);
  CHECK(*r.stopping.relative_ci_width == 0.0);
}

namespace {
/// A step whose duration is 10 us ± 20 % uniform noise (seeded), so the CI never gets tiny.
struct NoisyStep {
  std::mt19937_64* rng;
  void operator()(FakeStream s) const {
    std::uniform_real_distribution<double> u(8e-6, 12e-6);
    s.kernel(u(*rng));
  }
};
}  // namespace

TEST_CASE("measurement stops at exactly max_samples and says the noise target was missed", "[protocol][stopping]") {
  FakeDevice dev;
  std::mt19937_64 rng(42);
  auto exp = fake_experiment(dev, NoisyStep{&rng});
  auto c = simple_config();
  c.measure.max_samples = 777;
  c.measure.target_relative_ci_width = 1e-9;
  exp.config(c);
  auto r = exp.run();
  REQUIRE(r.status == gauge::Status::ok);
  CHECK(r.gpu_samples_s.size() == 777);
  CHECK(r.stopping.reason == "max_samples");
  CHECK_FALSE(r.stopping.target_met);
  CHECK(r.has_warning("noise_target_not_met"));
}

TEST_CASE("measurement stops at the first round boundary after max_time", "[protocol][stopping]") {
  FakeDevice dev;
  std::mt19937_64 rng(7);
  auto exp = fake_experiment(dev, NoisyStep{&rng});
  auto c = simple_config();
  c.measure.max_time = 20ms;
  c.measure.target_relative_ci_width = 1e-9;
  exp.config(c);
  auto r = exp.run();
  REQUIRE(r.status == gauge::Status::ok);
  CHECK(r.stopping.reason == "max_time");
  CHECK(r.stopping.measure_time_s >= 0.020);
  // One gated round (~1 ms of steps) plus its wall round (~0.5 ms) and host costs.
  CHECK(r.stopping.measure_time_s < 0.020 + 2.5e-3);
  CHECK(r.has_warning("noise_target_not_met"));
}

TEST_CASE("measurement honours min_time before stopping on the noise target", "[protocol][stopping]") {
  FakeDevice dev;
  auto c = simple_config();
  c.measure.min_time = 30ms;
  auto r = run_kernel_step(dev, 10e-6, c);
  CHECK(r.stopping.reason == "noise_target_met");
  CHECK(r.stopping.measure_time_s >= 0.030);
  CHECK(r.stopping.measure_time_s < 0.030 + 2.5e-3);
}

// ---- failures -----------------------------------------------------------------------------------

/// What a run of 10 us steps whose 5000th step calls `fail` (which throws) leaves: the result
/// (the run must not throw) and how often the backend was finished. 100000 samples are asked
/// for, so the failure comes during measurement.
template <class Fail>
std::pair<gauge::Result, int> run_failing_at_step_5000(Fail fail) {
  FakeDevice dev;
  std::size_t call = 0;
  auto exp = fake_experiment(dev, [&](FakeStream s) {
    if (++call == 5000) fail();
    s.kernel(10e-6);
  });
  auto c = simple_config();
  c.measure.min_samples = 100000;
  c.measure.max_samples = 100000;
  exp.config(c);
  gauge::Result r;
  REQUIRE_NOTHROW(r = exp.run());
  return {std::move(r), exp.backend().finished};
}

TEST_CASE("a step that throws marks the experiment failed and keeps what was measured", "[protocol][errors]") {
  const auto [r, finished] = run_failing_at_step_5000([] { throw std::runtime_error("out of workspace"); });
  CHECK(r.status == gauge::Status::failed);
  REQUIRE(r.error);
  CHECK(r.error->find("out of workspace") != std::string::npos);
  CHECK(r.error->find("step 5000") != std::string::npos);
  CHECK(r.error->find("measurement") != std::string::npos);
  CHECK_FALSE(r.gpu_samples_s.empty());
  REQUIRE(r.gpu_time.p50);
  CHECK(*r.gpu_time.p50 == Approx(10e-6).epsilon(1e-9));
  CHECK(finished == 1);
}

TEST_CASE("an invalid configuration is rejected before anything runs", "[protocol][errors]") {
  FakeDevice dev;
  auto exp = fake_experiment(dev, [](FakeStream s) { s.kernel(10e-6); });
  auto c = simple_config();
  c.measure.confidence_level = 1.5;
  exp.config(c);
  REQUIRE_THROWS_AS(exp.run(), gauge::ConfigError);
  CHECK(exp.backend().prepared == 0);
  CHECK(dev.kernels == 0);
  try {
    exp.run();
  } catch (const gauge::ConfigError& e) {
    CHECK(std::string(e.what()).find("confidence_level") != std::string::npos);
    CHECK(std::string(e.what()).find("1.5") != std::string::npos);
  }
  REQUIRE_THROWS_AS(exp.flop(-1), gauge::ConfigError);
  REQUIRE_THROWS_AS(exp.items("tokens", std::nan("")), gauge::ConfigError);
}

TEST_CASE("verification that fails marks the experiment failed", "[protocol][errors]") {
  FakeDevice dev;
  auto exp = fake_experiment(dev, [](FakeStream s) { s.kernel(10e-6); });
  exp.config(simple_config());
  exp.verify([] { return false; });
  auto r = exp.run();
  CHECK(r.status == gauge::Status::failed);
  CHECK(r.error->find("verification") != std::string::npos);
  CHECK(r.gpu_time.p50);
}

// ---- throughput, wall time, gate ---------------------------------------------------------------

TEST_CASE("throughput is work over the median time per step", "[protocol]") {
  FakeDevice dev;
  auto exp = fake_experiment(dev, [](FakeStream s) { s.kernel(10e-6); });
  exp.config(simple_config());
  exp.flop(2.0e6).bytes(3.0e3).items("tokens", 512);
  auto r = exp.run();
  REQUIRE(r.gpu_throughput.flop_per_second);
  CHECK(*r.gpu_throughput.flop_per_second == Approx(2.0e6 / 10e-6));
  CHECK(*r.gpu_throughput.bytes_per_second == Approx(3.0e3 / 10e-6));
  CHECK(r.gpu_throughput.items_per_second.at("tokens") == Approx(512 / 10e-6));
  REQUIRE(r.wall_throughput.flop_per_second);
  CHECK(*r.wall_throughput.flop_per_second == Approx(2.0e6 / *r.wall_time.p50));
}

TEST_CASE("the gate keeps host launch latency out of GPU time, and wall time keeps it in", "[protocol][gate]") {
  FakeDevice dev;
  dev.launch_cost = 5e-6;  // the host needs 5 us to launch a 1 us kernel: launch-bound
  auto r = run_kernel_step(dev, 1e-6, simple_config());
  REQUIRE(r.status == gauge::Status::ok);
  CHECK(r.sampling.method == "gated");
  CHECK(*r.gpu_time.p50 == Approx(1e-6).epsilon(1e-9));
  // Wall time per step: the host's 5 us launch dominates (plus a synchronize per round).
  CHECK(*r.wall_time.p50 >= 5e-6);
  CHECK(*r.wall_time.p50 < 6e-6);
  CHECK(*r.host_overhead_per_step_s == Approx(*r.wall_time.p50 - 1e-6));
  CHECK(*r.gpu_busy_fraction < 0.25);
  CHECK(r.has_warning("launch_bound"));
  CHECK_FALSE(r.has_warning("work_not_on_stream"));

  // Without the gate the same step reads as the launch rate.
  FakeDevice dev2;
  dev2.launch_cost = 5e-6;
  auto ungated = fake_experiment(dev2, [](FakeStream s) { s.kernel(1e-6); });
  ungated.config(simple_config());
  ungated.synchronizes_host();
  auto u = ungated.run();
  CHECK(u.sampling.method == "ungated");
  CHECK(*u.gpu_time.p50 > 4e-6);
}

TEST_CASE("a step that synchronizes the host falls back to ungated timing with a warning", "[protocol][gate]") {
  FakeDevice dev;
  auto exp = fake_experiment(dev, [](FakeStream s) {
    s.kernel(10e-6);
    s.synchronize_host();
  });
  auto r = gauge::testing::run_expecting_gate_timeout(exp, simple_config(), 50ms);
  CHECK(r.sampling.method == "ungated");
  CHECK(r.sampling.discarded_rounds == 1);
  CHECK(dev.gate_timeouts == 1);
  REQUIRE(r.gpu_time.p50);
  CHECK(*r.gpu_time.p50 >= 10e-6);
}

TEST_CASE("declaring synchronizes_host skips the gate and its timeout", "[protocol][gate]") {
  FakeDevice dev;
  auto exp = fake_experiment(dev, [](FakeStream s) {
    s.kernel(10e-6);
    s.synchronize_host();
  });
  exp.config(simple_config());
  exp.synchronizes_host();
  auto r = exp.run();
  CHECK(r.sampling.method == "ungated");
  CHECK(dev.gates == 0);
  CHECK_FALSE(r.has_warning("gate_timeout"));
}

TEST_CASE("graph() and synchronizes_host() exclude each other instead of undoing each other", "[protocol][config]") {
  FakeDevice dev;
  auto exp = fake_experiment(dev, [](FakeStream s) { s.kernel(10e-6); });
  exp.graph();
  CHECK(config_error_of([&] { exp.synchronizes_host(); }) ==
        "experiment \"fake\": synchronizes_host() after graph(): a step that synchronizes the host cannot be captured "
        "in a CUDA graph; declare one of them");
  CHECK(exp.config().measure.gpu_timing == gauge::GpuTiming::graph);  // the refused call changed nothing
  exp.synchronizes_host(false);  // undoes only its own declaration: graph() stays
  CHECK(exp.config().measure.gpu_timing == gauge::GpuTiming::graph);
  exp.graph(false);
  CHECK(exp.config().measure.gpu_timing == gauge::GpuTiming::automatic);
  exp.synchronizes_host();
  CHECK_FALSE(config_error_of([&] { exp.graph(); }).empty());
  CHECK(exp.config().measure.gpu_timing == gauge::GpuTiming::ungated);
  exp.synchronizes_host();  // the same declaration twice is fine
  CHECK(exp.config().measure.gpu_timing == gauge::GpuTiming::ungated);
}

TEST_CASE("a full launch queue behind the gate shortens the rounds", "[protocol][gate]") {
  FakeDevice dev;
  dev.queue_capacity = 100;
  auto exp = fake_experiment(dev, [](FakeStream s) { s.kernel(1e-6); });
  auto r = gauge::testing::run_expecting_gate_timeout(exp, simple_config(), 5ms);
  CHECK(r.sampling.method == "gated");
  CHECK(r.sampling.discarded_rounds >= 1);
  CHECK(*r.gpu_time.p50 == Approx(1e-6).epsilon(1e-9));
}

TEST_CASE("work launched on another stream is flagged, never reported as ~0 s", "[protocol][wall]") {
  FakeDevice dev;
  auto c = simple_config();
  c.measure.max_time = 200ms;
  auto r = run_step(dev, [](FakeStream s) { s.kernel_on_other_stream(1e-3); }, c);
  CHECK(r.has_warning("work_not_on_stream"));
  CHECK_FALSE(r.has_warning("launch_bound"));
  bool error_severity = false;
  for (const auto& w : r.warnings)
    if (w.code == "work_not_on_stream") error_severity = w.severity == gauge::Severity::error;
  CHECK(error_severity);
  // Wall time sees the 1 ms of work per step.
  CHECK(*r.wall_time.p50 >= 1e-3);
}

// ---- event cost and granularity ------------------------------------------------------------------

TEST_CASE("k steps per event pair is chosen from the measured event cost", "[protocol][events]") {
  FakeDevice dev;
  dev.event_device_cost = 2e-6;  // as measured on an H200 (issue 3)
  auto c = simple_config();
  c.measure.round_time = 10ms;
  auto r = run_kernel_step(dev, 10e-6, c);
  REQUIRE(r.status == gauge::Status::ok);
  // Warm-up rounds of n steps between one event pair read (10 n + 2) / n us per step (the closing
  // event costs 2 us); with round_time 1 ms they settle at the fixed point n = 99
  // (floor(1000 / 10.0202) = 99). The calibration round has r = 99 steps too. With an event after
  // every step a step reads 12 us; with one pair (10 r + 2) / r us. So cost = 2 - 2 / r us.
  REQUIRE(r.sampling.event_overhead_s);
  const double r_steps = double(r.sampling.calibration_steps) / 2;
  const double cost = 12e-6 - (r_steps * 10e-6 + 2e-6) / r_steps;
  CHECK(r_steps == 99);
  CHECK(*r.sampling.event_overhead_s == Approx(cost).epsilon(1e-6));
  // k = ceil(cost / 50 ns) = ceil(39.6) = 40; each sample then carries 2 us / 40 of event cost.
  CHECK(r.sampling.steps_per_sample == 40);
  CHECK(*r.gpu_time.p50 == Approx(10e-6 + 2e-6 / 40).epsilon(1e-6));
}

TEST_CASE("k is capped by max_sample_time for long steps", "[protocol][events]") {
  FakeDevice dev;
  dev.event_device_cost = 2e-6;
  auto c = simple_config();
  c.measure.min_samples = 6;
  auto r = run_kernel_step(dev, 1e-3, c);
  REQUIRE(r.status == gauge::Status::ok);
  // Warm-up rounds of floor(2 ms / 1 ms) = 2 steps estimate the step at (2 ms + 2 us) / 2 =
  // 1.001 ms, so k = floor(25 ms / 1.001 ms) = 24 steps per sample at most (40 wanted).
  CHECK(r.sampling.steps_per_sample == 24);
  CHECK(*r.gpu_time.p50 == Approx(1e-3 + 2e-6 / 24).epsilon(1e-9));
}

TEST_CASE("cold cache flushes before every step, outside the event pair", "[protocol][cache]") {
  FakeDevice dev;
  auto exp = fake_experiment(dev, [](FakeStream s) { s.kernel(10e-6); });
  exp.config(simple_config());
  exp.cold_cache();
  auto r = exp.run();
  REQUIRE(r.status == gauge::Status::ok);
  CHECK(r.sampling.cache == "cold");
  CHECK(r.sampling.steps_per_sample == 1);
  // Every step, warm-up and wall rounds included, had its flush.
  CHECK(dev.flushes == dev.kernels);
  CHECK(*r.gpu_time.p50 == Approx(10e-6).epsilon(1e-9));
}

TEST_CASE("graph mode times replays of k captured steps", "[protocol][graph]") {
  FakeDevice dev;
  dev.event_device_cost = 1e-6;
  dev.launch_cost = 5e-6;
  auto exp = fake_experiment(dev, [](FakeStream s) { s.kernel(3e-6); });
  exp.config(simple_config());
  exp.graph();
  auto r = exp.run();
  REQUIRE(r.status == gauge::Status::ok);
  CHECK(r.sampling.method == "graph");
  const double k = static_cast<double>(r.sampling.steps_per_sample);
  CHECK(k > 1);
  CHECK(*r.gpu_time.p50 == Approx(3e-6 + 1e-6 / k).epsilon(1e-6));
}

TEST_CASE("a sample shorter than 100 timer ticks is flagged", "[protocol][wall]") {
  FakeDevice dev;
  dev.launch_cost = 0.01e-6;
  auto c = simple_config();
  c.measure.steps_per_sample = 1;
  auto r = run_kernel_step(dev, 0.1e-6, c);
  CHECK(r.has_warning("below_timer_resolution"));
}

TEST_CASE("silenced warning codes are not reported", "[protocol]") {
  FakeDevice dev;
  dev.launch_cost = 5e-6;
  auto c = simple_config();
  c.silenced_warnings = {"launch_bound"};
  auto r = run_kernel_step(dev, 1e-6, c);
  CHECK_FALSE(r.has_warning("launch_bound"));
}

TEST_CASE("a silenced code gauge never emits warns unknown_silenced_code, GAUGE_SILENCE's codes are recorded", "[protocol]") {
  FakeDevice dev;
  auto exp = fake_experiment(dev, [](FakeStream s) { s.kernel(10e-6); });
  auto c = simple_config();
  c.silenced_warnings = {"launch_bound", "lauch_bound"};  // the second is a typo
  exp.config(c);
  ::setenv("GAUGE_SILENCE", "outliers, bogus_code", 1);
  auto r = exp.run();
  ::unsetenv("GAUGE_SILENCE");
  REQUIRE(r.has_warning("unknown_silenced_code"));
  for (const auto& w : r.warnings)
    if (w.code == "unknown_silenced_code") {
      CHECK(w.severity == gauge::Severity::warning);
      // std::set order: "bogus_code" < "lauch_bound"; the known ones are not named.
      CHECK(w.message.find("silenced codes 'bogus_code', 'lauch_bound', which gauge never emits") == 0);
    }
  CHECK(r.config.silenced_warnings == std::set<std::string>{"bogus_code", "launch_bound", "lauch_bound", "outliers"});
  // Only known codes: no warning.
  c.silenced_warnings = {"launch_bound"};
  exp.config(c);
  CHECK_FALSE(exp.run().has_warning("unknown_silenced_code"));
}

TEST_CASE("a step that keeps slowing during measurement warns drift_during_measurement", "[protocol]") {
  FakeDevice dev;
  // Steady for 3000 calls (warm-up converges), then 10 % slower per 1000 calls: the power cap
  // that sets in after warm-up on a heavy kernel.
  auto c = simple_config();
  c.warmup.min_steps = 10;
  c.warmup.max_steps = 2000;  // warm-up ends (capped) before the drift starts
  c.measure.min_samples = 300;
  c.measure.min_time = 50ms;
  auto r = run_kernel_script(dev, [](std::size_t i) {
    const std::size_t call = i + 1;
    return 10e-6 * (call < 3000 ? 1.0 : 1.0 + 0.1 * double(call - 3000) / 1000.0);
  }, c);
  REQUIRE(r.status == gauge::Status::ok);
  CHECK(r.has_warning("drift_during_measurement"));

  FakeDevice dev2;
  CHECK_FALSE(run_kernel_step(dev2, 10e-6, c).has_warning("drift_during_measurement"));
}

TEST_CASE("max_samples_in_report keeps whole rounds spread over the run, and comparisons use the summary", "[protocol][report]") {
  // The adversarial review's case: a step that becomes 5.75x slower early in measurement, kept at
  // 500 samples. Storing the first 500 (the head) made the comparison call it faster.
  auto c = simple_config();
  c.warmup.max_steps = 2000;  // the switch at call 2500 is inside measurement
  c.measure.steps_per_sample = 1;
  c.measure.round_time = 50us;  // ~50 samples a round: many rounds to choose from
  c.measure.min_samples = 20000;
  c.max_samples_in_report = 500;
  FakeDevice dev;
  auto r = run_kernel_script(dev, [](std::size_t i) { return i < 2500 ? 1e-6 : 5.75e-6; }, c);
  REQUIRE(r.status == gauge::Status::ok);
  const auto& s = r.sampling;
  REQUIRE(r.gpu_time.n >= 20000);
  CHECK(r.gpu_samples_s.size() <= 500);
  CHECK(r.gpu_samples_s.size() >= 250);  // rounds of ~50: the budget keeps most of the 500
  CHECK(r.has_warning("samples_subsampled"));
  // The stored samples stay aligned with their rounds.
  std::size_t sum = 0;
  for (std::size_t k : s.round_samples) sum += k;
  CHECK(sum == r.gpu_samples_s.size());
  CHECK(s.round_start_s.size() == s.round_samples.size());
  CHECK(s.round_end_s.size() == s.round_samples.size());
  CHECK(s.round_stream.size() == s.round_samples.size());
  // The wall-time samples (one per round) are those of the kept rounds; their summary is of all.
  CHECK(r.wall_samples_s.size() == s.round_samples.size());
  CHECK(r.wall_time.n == r.sampling.wall_rounds);
  CHECK(r.wall_time.n > r.wall_samples_s.size());
  // Spread over the run: kept rounds from the first and the last tenth of the measuring time.
  REQUIRE(s.round_start_s.size() >= 2);
  CHECK(s.round_start_s.front() < r.sampling.round_end_s.back());
  // By hand: at most 2500 of >= 20000 samples are fast, so the median of all is the slow step;
  // the subsample holds the same majority.
  CHECK(*r.gpu_time.p50 == Approx(5.75e-6).epsilon(1e-3));
  std::vector<double> kept = r.gpu_samples_s;
  std::sort(kept.begin(), kept.end());
  CHECK(kept[kept.size() / 2] == Approx(5.75e-6).epsilon(1e-3));
  // A steady 1 us run of the same step compares slower, from the summaries (2,000 samples are
  // plenty for a steady side).
  c.measure.min_samples = 2000;
  FakeDevice dev2;
  const auto base = run_kernel_step(dev2, 1e-6, c);
  const auto e = gauge::compare_results(base, r, {});
  CHECK(e.verdict == gauge::Verdict::slower);
  CHECK(e.from_summary);
  CHECK(e.reason.find("a side stored a subsample of its samples") != std::string::npos);
  // Without thinning (the default allows 100,000) nothing is dropped and no note is made.
  c.max_samples_in_report = 100000;
  FakeDevice dev3;
  const auto whole = run_kernel_step(dev3, 1e-6, c);
  CHECK(whole.gpu_samples_s.size() == whole.gpu_time.n);
  CHECK_FALSE(whole.has_warning("samples_subsampled"));
}

TEST_CASE("a step that works only every 10th call warns work_not_every_step with the period", "[protocol][diagnosis]") {
  // 100 us of work every 10th call, 1 us otherwise, one step per sample: by hand the median is
  // 1 us, the mean (100 + 9 x 1) / 10 = 10.9 us, and the slow tenth holds 100 / 109 = 92 % of the time.
  auto c = simple_config();
  c.measure.steps_per_sample = 1;
  c.measure.min_samples = 200;
  FakeDevice dev;
  auto r = run_kernel_script(dev, [](std::size_t i) { return i % 10 == 9 ? 100e-6 : 1e-6; }, c);
  REQUIRE(r.status == gauge::Status::ok);
  CHECK(*r.gpu_time.p50 == Approx(1e-6).epsilon(1e-3));
  REQUIRE(r.has_warning("work_not_every_step"));
  // The numbers of the message, counted here from the samples (wall rounds between gated rounds
  // shift the phase, so the slow tenth is about, not exactly, 10 %).
  std::size_t slow = 0;
  double sum = 0, slow_sum = 0;
  for (double x : r.gpu_samples_s) {
    sum += x;
    if (x > 50e-6) ++slow, slow_sum += x;
  }
  const double mean = sum / static_cast<double>(r.gpu_samples_s.size());
  CHECK(mean == Approx(10.9e-6).epsilon(0.1));  // (100 + 9 x 1) / 10, within the phase shift
  for (const auto& w : r.warnings)
    if (w.code == "work_not_every_step") {
      INFO(w.message);
      CHECK(w.severity == gauge::Severity::warning);
      CHECK(w.message.find(fmt::format("{} of {} samples", slow, r.gpu_samples_s.size())) == 0);
      CHECK(w.message.find(fmt::format("hold {:.0f} %", 100 * slow_sum / sum)) != std::string::npos);
      CHECK(w.message.find(fmt::format("{:.1f} x the median", mean / *r.gpu_time.p50)) != std::string::npos);
      CHECK(w.message.find("every 10 samples (10 steps)") != std::string::npos);
    }
  // A steady step, and one with rare slow outliers (1 in 100 at 5.5x: 5 % of the time), do not.
  FakeDevice steady;
  CHECK_FALSE(run_kernel_step(steady, 10e-6, c).has_warning("work_not_every_step"));
  FakeDevice rare;
  CHECK_FALSE(run_kernel_script(rare, [](std::size_t i) { return i % 100 == 99 ? 55e-6 : 10e-6; }, c)
                  .has_warning("work_not_every_step"));
}

TEST_CASE("work_not_every_step on the host: slow samples without CPU time are time off the CPU", "[protocol][diagnosis]") {
  // 200 samples of real time, every 10th 100 us and the rest 1 us: by hand the median is 1 us, the
  // mean 10.9 us, and the slow tenth holds 100 / 109 = 92 % of the time (the rule's pattern).
  gauge::Result r;
  r.sampling.method = "host";
  for (std::size_t i = 0; i < 200; ++i) r.gpu_samples_s.push_back(i % 10 == 9 ? 100e-6 : 1e-6);
  r.gpu_time = gauge::stats::summarize(r.gpu_samples_s);
  const auto warns = [](const gauge::Result& x) {
    gauge::WarningSink sink;
    gauge::detail::rule_work_not_every_step(x, gauge::detail::RunFacts{}, sink);
    return sink.has("work_not_every_step");
  };
  // GPU timing (no CPU time) and host timing whose CPU time rises with the slow samples (the work
  // is done there): skipped work, warned.
  CHECK(warns(r));
  gauge::Result busy = r;
  busy.cpu_samples_s = r.gpu_samples_s;
  busy.cpu_time = gauge::stats::summarize(busy.cpu_samples_s);
  CHECK(warns(busy));
  // Two threads: CPU = 2 x real throughout; still the work (extra CPU 19.8 us >= 0.25 x 2 x 9.9 us).
  gauge::Result two = r;
  for (double x : r.gpu_samples_s) two.cpu_samples_s.push_back(2 * x);
  two.cpu_time = gauge::stats::summarize(two.cpu_samples_s);
  CHECK(warns(two));
  // The slow samples used no CPU time (preempted or waiting: every CPU sample 1 us): extra CPU 0
  // < 0.25 x 9.9 us, so no claim that the work is skipped.
  gauge::Result off = r;
  off.cpu_samples_s.assign(200, 1e-6);
  off.cpu_time = gauge::stats::summarize(off.cpu_samples_s);
  CHECK_FALSE(warns(off));
  // Eight threads on the light calls (CPU 8 us per 1 us), the slow ones' extra 99 us single-
  // threaded: extra CPU (9 x 8 + 107) / 10 - 8 = 9.9 us >= 0.25 x 9.9 us (the threshold is never
  // scaled up by parallelism): skipped work, warned.
  gauge::Result eight = r;
  for (double x : r.gpu_samples_s) eight.cpu_samples_s.push_back(x > 50e-6 ? 8e-6 + 99e-6 : 8e-6);
  eight.cpu_time = gauge::stats::summarize(eight.cpu_samples_s);
  CHECK(warns(eight));
  // The same CPU numbers from a GPU backend's result say nothing of the device: warned.
  gauge::Result gpu = off;
  gpu.sampling.method = "gated";
  CHECK(warns(gpu));
  // At the edge: the slow samples carry 30 % of their extra time as CPU time (30 us of 99 us):
  // extra CPU 2.97 us >= 0.25 x 9.9 = 2.475 us, warned; at 20 % (1.98 us) not.
  for (const double f : {0.30, 0.20}) {
    gauge::Result part = r;
    for (double x : r.gpu_samples_s) part.cpu_samples_s.push_back(x > 50e-6 ? 1e-6 + f * 99e-6 : 1e-6);
    part.cpu_time = gauge::stats::summarize(part.cpu_samples_s);
    CHECK(warns(part) == (f > 0.25));
  }
}

TEST_CASE("work_not_every_step on the host without CPU time: preemptions while measuring explain slow samples", "[protocol][diagnosis]") {
  // helper-2 #6: with a setup on a step too short to read CPU time around, a 4 ms preemption made
  // a sample slow and the rule called it skipped work. Each sample a preemption made slow holds
  // at least one involuntary context switch, so with S switches while measuring at most S slow
  // samples are time off the CPU; the rule speaks only for 2 or more beyond them.
  gauge::Result r;
  r.sampling.method = "host";
  for (std::size_t i = 0; i < 200; ++i) r.gpu_samples_s.push_back(i % 10 == 9 ? 100e-6 : 1e-6);  // 20 slow
  r.gpu_time = gauge::stats::summarize(r.gpu_samples_s);
  const auto warns = [](const gauge::Result& x, std::optional<long> switches) {
    gauge::WarningSink sink;
    gauge::detail::RunFacts f;
    f.preemptions = switches;
    gauge::detail::rule_work_not_every_step(x, f, sink);
    return sink.has("work_not_every_step");
  };
  CHECK(warns(r, std::nullopt));  // unknown: as before
  CHECK(warns(r, 0));             // 20 slow samples, no preemption: the work
  CHECK(warns(r, 18));            // 20 - 18 = 2 slow samples no preemption explains: still the work
  CHECK_FALSE(warns(r, 19));      // 1 beyond: preemptions could explain the rest
  CHECK_FALSE(warns(r, 300));
  // The review's shape: two 4 ms samples among 198 of 1 us (by hand they hold 8 / 8.198 = 97.6 %
  // of the time), and two preemptions while measuring: nothing to say; none: warned.
  gauge::Result two;
  two.sampling.method = "host";
  for (std::size_t i = 0; i < 200; ++i) two.gpu_samples_s.push_back(i == 50 || i == 150 ? 4e-3 : 1e-6);
  two.gpu_time = gauge::stats::summarize(two.gpu_samples_s);
  CHECK_FALSE(warns(two, 2));
  CHECK(warns(two, 0));
  // helper-17 #1: the same with timer jitter beside the preemptions: 1000 samples of 50 ns, two of
  // 4 ms and 14 of 0.5 us (16 above 5 x the median, more than 2 + 2 switches). By hand: all 16
  // hold (8 ms + 7 us) / 8.057 ms = 99.9 % of the time (warned without switches); without the two
  // slowest, 14 hold 7 us / 57 us = 12.3 % < 50 %: nothing to say with 2 switches.
  gauge::Result jitter;
  jitter.sampling.method = "host";
  for (std::size_t i = 0; i < 1016; ++i) jitter.gpu_samples_s.push_back(i < 2 ? 4e-3 : i < 16 ? 0.5e-6 : 50e-9);
  jitter.gpu_time = gauge::stats::summarize(jitter.gpu_samples_s);
  CHECK(warns(jitter, 0));
  CHECK_FALSE(warns(jitter, 2));
  // helper-17 #2: CPU time read once per round (5 rounds, each busy 10.9 us per step on average,
  // as the real time) averages the slow samples in: it cannot tell, so the count decides.
  gauge::Result rounds = r;
  rounds.cpu_samples_s.assign(5, 10.9e-6);
  rounds.cpu_time = gauge::stats::summarize(rounds.cpu_samples_s);
  CHECK(warns(rounds, std::nullopt));
  CHECK(warns(rounds, 3));
  CHECK_FALSE(warns(rounds, 19));
  // Where CPU time was read, it decides, not the switches: CPU time that rises with the slow
  // samples is the work, whatever the count.
  gauge::Result busy = r;
  busy.cpu_samples_s = r.gpu_samples_s;
  busy.cpu_time = gauge::stats::summarize(busy.cpu_samples_s);
  CHECK(warns(busy, 300));
  // GPU timing: the host's switches say nothing of the device.
  gauge::Result gpu = r;
  gpu.sampling.method = "gated";
  CHECK(warns(gpu, 300));
}

TEST_CASE("thin_samples: Bresenham's rule over rounds, computed by hand", "[protocol][report]") {
  gauge::Result r;
  // 4 rounds of 3, 3, 3, 3 samples (values = their index); keep at most 6 = half: budget 1.5 per
  // round: round 0 (1.5 < 3) no, round 1 (3.0) yes -> 0, round 2 (1.5) no, round 3 (3.0) yes.
  for (int i = 0; i < 12; ++i) r.gpu_samples_s.push_back(i);
  r.sampling.round_samples = {3, 3, 3, 3};
  r.sampling.round_start_s = {0, 1, 2, 3};
  r.sampling.round_end_s = {0.5, 1.5, 2.5, 3.5};
  r.sampling.round_stream = {0, 1, 0, 1};
  r.telemetry.throttled_samples = {1, 4, 11};
  r.wall_samples_s = {100, 101, 102, 103};  // one per round: rounds 1 and 3 are kept
  r.cpu_samples_s = {200, 201, 202, 203};
  CHECK(gauge::detail::thin_samples(r, 6));
  CHECK(r.gpu_samples_s == std::vector<double>{3, 4, 5, 9, 10, 11});
  CHECK(r.wall_samples_s == std::vector<double>{101, 103});
  CHECK(r.cpu_samples_s == std::vector<double>{201, 203});
  CHECK(r.sampling.round_samples == std::vector<std::size_t>{3, 3});
  CHECK(r.sampling.round_start_s == std::vector<double>{1, 3});
  CHECK(r.sampling.round_stream == std::vector<std::size_t>{1, 1});
  CHECK(r.telemetry.throttled_samples == std::vector<std::size_t>{1, 5});  // 4 -> 1, 11 -> 5; 1 dropped
  // Every round larger than max: the first 2 samples of the middle round.
  gauge::Result big;
  for (int i = 0; i < 12; ++i) big.gpu_samples_s.push_back(i);
  big.sampling.round_samples = {4, 4, 4};
  CHECK(gauge::detail::thin_samples(big, 2));
  CHECK(big.gpu_samples_s == std::vector<double>{4, 5});
  CHECK(big.sampling.round_samples == std::vector<std::size_t>{2});
  // No rounds: evenly spaced samples at (j + 0.5) n / max = 2, 6, 10 for n = 12, max = 3.
  gauge::Result bare;
  for (int i = 0; i < 12; ++i) bare.gpu_samples_s.push_back(i);
  CHECK(gauge::detail::thin_samples(bare, 3));
  CHECK(bare.gpu_samples_s == std::vector<double>{2, 6, 10});
  CHECK_FALSE(gauge::detail::thin_samples(bare, 3));  // nothing more to drop
  // Wall and CPU samples that are not one per round (a hand-made Result) are bounded too, evenly:
  // 8 of them at max 4 keep indices (j + 0.5) 8 / 4 = 1, 3, 5, 7; the GPU samples (3) stay.
  bare.wall_samples_s = {0, 1, 2, 3, 4, 5, 6, 7};
  bare.cpu_samples_s = {0, 10, 20, 30, 40, 50, 60, 70};
  CHECK(gauge::detail::thin_samples(bare, 4));
  CHECK(bare.wall_samples_s == std::vector<double>{1, 3, 5, 7});
  CHECK(bare.cpu_samples_s == std::vector<double>{10, 30, 50, 70});
  CHECK(bare.gpu_samples_s == std::vector<double>{2, 6, 10});
}

TEST_CASE("a step that throws a non-std exception is a failed result, samples kept", "[protocol][errors]") {
  const auto [r, finished] = run_failing_at_step_5000([] { throw 42; });
  CHECK(r.status == gauge::Status::failed);
  CHECK(r.error->find("not derived from std::exception") != std::string::npos);
  CHECK(r.error->find("step 5000") != std::string::npos);
  CHECK_FALSE(r.gpu_samples_s.empty());
  CHECK(finished == 1);
}

TEST_CASE("bad dimensions and fractions are rejected with their names", "[protocol][errors]") {
  FakeDevice dev;
  auto exp = fake_experiment(dev, [](FakeStream s) { s.kernel(10e-6); });
  try {
    exp.dimension("M", std::nan(""));
    FAIL("NaN dimension accepted");
  } catch (const gauge::ConfigError& e) {
    CHECK(std::string(e.what()).find("dimension 'M'") != std::string::npos);
  }
  CHECK_THROWS_AS(exp.dimension("", 1), gauge::ConfigError);
  CHECK_THROWS_AS(exp.dimension("x", INFINITY), gauge::ConfigError);
  auto c = simple_config();
  c.measure.wall_round_fraction = 1e300;
  exp.config(c);
  CHECK_THROWS_AS(exp.run(), gauge::ConfigError);
}

}  // namespace gauge_test_protocol
