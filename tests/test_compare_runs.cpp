// Issue 21 ("Same code, same verdict"): the per-round SM clock and cycles per step, clock-aware
// comparison, runs as a random effect, the multiplicity rule over experiments, robust verdicts on a
// noisy host, and the host CPU as the device. Expected values are computed by hand in the comments
// (or by the formula stated there, independently of gauge's code).

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "fake_backend.hpp"
#include "gauge/experiment.hpp"
#include "gauge/report/compare.hpp"

// This file's own namespace: the unity build compiles several test files as one.
namespace gauge_test_compare_runs {

using namespace std::chrono_literals;
using gauge::testing::FakeDevice;
using gauge::testing::FakeStream;
using gauge::testing::fake_experiment;

namespace {

/// A result of `rounds` rounds of equal size over `samples`, each round at `clock_mhz[i]` (probe).
gauge::Result clocked(const std::vector<double>& samples, const std::vector<double>& clock_mhz, const char* backend = "cuda") {
  gauge::Result r;
  r.name = "gemm";
  r.backend = backend;
  r.work.flop = 1e12;
  r.gpu_samples_s = samples;
  const std::size_t per = samples.size() / clock_mhz.size();
  for (double f : clock_mhz) {
    r.sampling.round_samples.push_back(per);
    r.clock.round_sm_clock_mhz.push_back(f);
  }
  r.clock.source = "probe";
  double sum = 0;
  for (double f : clock_mhz) sum += f;
  r.clock.sm_clock_mhz = sum / static_cast<double>(clock_mhz.size());
  return r;
}

/// n values around `center`: center × (1 + jitter × k / n) for k = −n/2 … n/2 − 1, shuffled by a
/// fixed stride (a symmetric spread whose median is known).
std::vector<double> around(double center, std::size_t n, double jitter) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t k = (i * 37) % n;
    v[i] = center * (1 + jitter * (static_cast<double>(k) - static_cast<double>(n) / 2) / static_cast<double>(n));
  }
  return v;
}

/// A host-backend result with `n` samples: a lognormal body (sigma `body`) times `scale`, and a
/// fraction `tail_share` of descheduled steps longer by an exponential of mean `tail_mean`.
gauge::Result noisy_host(const std::string& name, std::mt19937_64& gen, double scale, std::size_t n = 400,
                         double body = 0.01, double tail_share = 0.05, double tail_mean = 0.3) {
  gauge::Result r;
  r.name = name;
  r.backend = "host";
  r.time_label = "real time";
  std::normal_distribution<double> z(0, 1);
  std::uniform_real_distribution<double> u(0, 1);
  std::exponential_distribution<double> e(1 / tail_mean);
  for (std::size_t i = 0; i < n; ++i) {
    double x = scale * 100e-6 * std::exp(body * z(gen));
    if (u(gen) < tail_share) x *= 1 + e(gen);
    r.gpu_samples_s.push_back(x);
  }
  return r;
}

}  // namespace

TEST_CASE("clock: the protocol records each round's probed SM clock and cycles per step", "[compare][clock]") {
  FakeDevice dev;
  dev.round_clock_mhz = [](std::size_t i) { return i % 2 ? 1500.0 : 1980.0; };
  auto exp = fake_experiment(dev, [](FakeStream s) { s.kernel(10e-6); });
  gauge::Config c;
  c.warmup.min_steps = 10;
  c.warmup.min_time = 0ms;
  c.warmup.window = 3;
  c.measure.min_samples = 50;
  c.measure.min_time = 0ms;
  c.measure.round_time = 1ms;
  exp.config(c);
  const gauge::Result r = exp.run();
  REQUIRE(r.status == gauge::Status::ok);
  CHECK(r.clock.source == "probe");
  REQUIRE(r.clock.round_sm_clock_mhz.size() == r.sampling.round_samples.size());
  REQUIRE(r.sampling.round_samples.size() >= 2);
  // Rounds alternate 1980 / 1500 MHz (the probe counts from the device's first probed round).
  for (std::size_t i = 0; i < r.clock.round_sm_clock_mhz.size(); ++i)
    CHECK(*r.clock.round_sm_clock_mhz[i] == (i % 2 ? 1500.0 : 1980.0));
  // A 10 µs step is 10e-6 × f cycles: 19800 at 1980 MHz, 15000 at 1500 MHz.
  REQUIRE(r.clock.cycles.n == r.gpu_samples_s.size());
  CHECK(*r.clock.cycles.min == Approx(15000).epsilon(1e-9));
  CHECK(*r.clock.cycles.max == Approx(19800).epsilon(1e-9));
  // Sample-weighted mean clock and spread by hand: (Σ n_i f_i) / Σ n_i; (1980 − 1500) / mean.
  double num = 0, den = 0;
  for (std::size_t i = 0; i < r.sampling.round_samples.size(); ++i) {
    num += static_cast<double>(r.sampling.round_samples[i]) * (i % 2 ? 1500.0 : 1980.0);
    den += static_cast<double>(r.sampling.round_samples[i]);
  }
  CHECK(*r.clock.sm_clock_mhz == Approx(num / den).epsilon(1e-12));
  CHECK(*r.clock.relative_spread == Approx(480 / (num / den)).epsilon(1e-12));
  // Without a probe and without telemetry: no clock.
  FakeDevice plain;
  auto exp2 = fake_experiment(plain, [](FakeStream s) { s.kernel(10e-6); });
  exp2.config(c);
  const gauge::Result q = exp2.run();
  CHECK(q.clock.source == "none");
  CHECK(q.clock.cycles.n == 0);
}

TEST_CASE("clock: a time difference the SM clock explains is machine state, not code", "[compare][clock]") {
  // Base: 1.000 ms ± 0.5 % at 1500 MHz; new: 1.030 ms ± 0.5 % at 1500 / 1.03 MHz (the clock fell
  // 2.9 %). Time ratio = 1.03; cycles ratio = 1.03 × (1500 / 1.03) / 1500 = 1 by hand.
  const double fb = 1500 / 1.03;
  const auto base = clocked(around(1.000e-3, 400, 0.005), {1500, 1500, 1500, 1500});
  const auto cand = clocked(around(1.030e-3, 400, 0.005), {fb, fb, fb, fb});
  const auto e = gauge::compare_results(base, cand);
  INFO(e.reason);
  CHECK(e.decided_on == "cycles");
  REQUIRE(e.ratio);
  REQUIRE(e.clock_normalized_ratio);
  CHECK(e.ratio->estimate == Approx(1.03).epsilon(1e-9));
  CHECK(e.clock_normalized_ratio->estimate == Approx(1.0).epsilon(1e-9));
  CHECK(e.clock->relative_difference == Approx(1 / 1.03 - 1).epsilon(1e-12));
  CHECK(e.clock->explains_difference);
  CHECK(e.verdict == gauge::Verdict::same);
  bool named = false;
  for (const auto& n : e.notes) named = named || n.find("machine state, not a change of code") != std::string::npos;
  CHECK(named);
  // Asked to decide on time, the same data reads slower (1.03 > 1.02, the interval excludes 1).
  gauge::CompareOptions o;
  o.clock_normalization = gauge::compare::ClockNormalization::time;
  const auto t = gauge::compare_results(base, cand, o);
  CHECK(t.decided_on == "time");
  CHECK(t.verdict == gauge::Verdict::slower);
  REQUIRE(t.clock_normalized_ratio);  // still shown beside
  CHECK(t.clock_normalized_ratio->estimate == Approx(1.0).epsilon(1e-9));
}

TEST_CASE("clock: the automatic rule decides on time where the work is memory-bound or undeclared", "[compare][clock]") {
  const double fb = 1500 / 1.03;
  auto base = clocked(around(1.000e-3, 400, 0.005), {1500, 1500});
  auto cand = clocked(around(1.030e-3, 400, 0.005), {fb, fb});
  gauge::CompareOptions o;
  o.memory_bandwidth_bytes_per_s = 4.8e12;
  // 4 GB per 1 ms step = 4 TB/s = 83 % of 4.8 TB/s: memory-bound, time decides.
  base.work.bytes = cand.work.bytes = 4e9;
  auto e = gauge::compare_results(base, cand, o);
  CHECK(e.decided_on == "time");
  CHECK_FALSE(e.clock->scales_with_clock);
  CHECK(e.clock->rule.find("83.3 % of the memory bandwidth") != std::string::npos);
  // 0.4 GB per step = 0.4 TB/s = 8.3 %: compute-bound, cycles decide.
  base.work.bytes = cand.work.bytes = 4e8;
  e = gauge::compare_results(base, cand, o);
  CHECK(e.decided_on == "cycles");
  CHECK(e.clock->rule.find("8.3 % of the memory bandwidth") != std::string::npos);
  // No work declared: time.
  base.work = cand.work = gauge::Work{};
  e = gauge::compare_results(base, cand, o);
  CHECK(e.decided_on == "time");
  // The environment's bandwidth: 2 × 2619 MHz × 6144 bits / 8 = 4.0228 TB/s (H100 SXM's attributes).
  gauge::Environment env;
  gauge::env::CudaDeviceInfo d;
  d.ordinal = 0;
  d.memory_clock_max_mhz = 2619;
  d.memory_bus_width_bits = 6144;
  env.cuda.devices.push_back(d);
  CHECK(*gauge::detail::comparing::memory_bandwidth(env, 0) == Approx(2.0 * 2619e6 * 6144 / 8).epsilon(1e-12));
}

TEST_CASE("runs: a run-level offset is covered by several runs per side, not by one", "[compare][runs]") {
  // 40 trials of identical code: every run's median is shifted by exp(N(0, 1 %)) (the process, the
  // clock), within-run noise is 0.2 %. Truth: ratio 1. A t interval with 3 + 3 runs covers it with
  // probability 95 %; one run against one covers it only when two offsets happen to agree
  // within the run's own interval (about ±0.05 %).
  std::mt19937_64 gen(2112);
  std::normal_distribution<double> offset(0, 0.01);
  int covered_runs = 0, covered_single = 0;
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<gauge::Result> a, b;
    for (int r = 0; r < 6; ++r) {
      const double shift = std::exp(offset(gen));
      gauge::Result x;
      x.name = "step";
      x.backend = "cuda";
      std::normal_distribution<double> within(0, 0.002);
      for (int i = 0; i < 200; ++i) x.gpu_samples_s.push_back(1e-3 * shift * std::exp(within(gen)));
      (r < 3 ? a : b).push_back(std::move(x));
    }
    const auto multi = gauge::compare::compare_runs({&a[0], &a[1], &a[2]}, {&b[0], &b[1], &b[2]});
    REQUIRE(multi.run_variation);
    CHECK(multi.base_runs == 3);
    CHECK(multi.run_variation->degrees_of_freedom == 4);
    if (multi.statistics.front().interval.low <= 1 && multi.statistics.front().interval.high >= 1) ++covered_runs;
    const auto single = gauge::compare_results(a[0], b[0]);
    if (single.ratio->low <= 1 && single.ratio->high >= 1) ++covered_single;
  }
  INFO("covered: " << covered_runs << " of 40 with 3 runs per side, " << covered_single << " with one");
  CHECK(covered_runs >= 36);
  CHECK(covered_single <= 8);
}

TEST_CASE("runs: the run-level interval by hand", "[compare][runs]") {
  // Run medians exactly 1.00, 1.01, 0.99 ms (base) and 1.02, 1.03, 1.01 ms (new); constant within
  // a run. log means: mean(log 1.00, log 1.01, log 0.99) and likewise; pooled variance with 4
  // degrees of freedom; t(0.975, 4) = 2.7764451051977987 (scipy.stats.t.ppf).
  std::vector<gauge::Result> a(3), b(3);
  const double ma[] = {1.00e-3, 1.01e-3, 0.99e-3}, mb[] = {1.02e-3, 1.03e-3, 1.01e-3};
  for (int i = 0; i < 3; ++i) {
    a[i].name = b[i].name = "step";
    a[i].gpu_samples_s.assign(50, ma[i]);
    b[i].gpu_samples_s.assign(50, mb[i]);
  }
  const auto e = gauge::compare::compare_runs({&a[0], &a[1], &a[2]}, {&b[0], &b[1], &b[2]});
  double la = 0, lb = 0;
  for (int i = 0; i < 3; ++i) la += std::log(ma[i]) / 3, lb += std::log(mb[i]) / 3;
  double ss = 0;
  for (int i = 0; i < 3; ++i) ss += std::pow(std::log(ma[i]) - la, 2) + std::pow(std::log(mb[i]) - lb, 2);
  const double se = std::sqrt(ss / 4 * (1.0 / 3 + 1.0 / 3)), t = 2.7764451051977987;
  const auto& i = e.statistics.front().interval;
  CHECK(i.estimate == Approx(std::exp(lb - la)).epsilon(1e-12));
  CHECK(i.low == Approx(std::exp(lb - la - t * se)).epsilon(1e-9));
  CHECK(i.high == Approx(std::exp(lb - la + t * se)).epsilon(1e-9));
  CHECK(e.run_variation->relative_sd == Approx(std::sqrt(ss / 4)).epsilon(1e-12));
  // exp(lb − la) = 1.0200 (+2.0 %), and the interval straddles 1.02: inconclusive.
  CHECK(e.verdict == gauge::Verdict::inconclusive);
  CHECK(e.reason.find("over 3 + 3 runs") != std::string::npos);
  // Every run's samples are counted (3 x 50 a side), not only the first run's.
  CHECK(e.base_n == 150);
  CHECK(e.candidate_n == 150);
}

TEST_CASE("multiplicity: Benjamini-Hochberg and Holm on hand-computed p-values", "[compare][multiplicity]") {
  // p = 0.001, 0.02, 0.03, 0.5 at alpha 0.05, m = 4. BH thresholds r alpha / m = 0.0125, 0.025,
  // 0.0375, 0.05: ranks 1-3 pass (0.03 <= 0.0375), so the first three stand. Holm: 0.001 <= 0.05/4
  // passes, 0.02 > 0.05/3 stops: only the first stands.
  auto make = [](const std::vector<double>& ps) {
    gauge::Comparison c;
    for (double p : ps) {
      gauge::compare::ExperimentComparison e;
      e.verdict = gauge::Verdict::slower;
      e.p_value = p;
      gauge::stats::RatioInterval i;
      i.estimate = 1.03, i.low = 1.001, i.high = 1.06;
      e.statistics.push_back({gauge::stats::Statistic::median, i});
      c.experiments.push_back(e);
    }
    return c;
  };
  gauge::CompareOptions o;
  auto c = make({0.001, 0.02, 0.03, 0.5});
  c.experiments[3].verdict = gauge::Verdict::same;
  gauge::detail::comparing::apply_multiplicity(c, o);
  CHECK(c.experiments[0].verdict == gauge::Verdict::slower);
  CHECK(c.experiments[1].verdict == gauge::Verdict::slower);
  CHECK(c.experiments[2].verdict == gauge::Verdict::slower);
  CHECK(c.multiplicity_rule.find("Benjamini-Hochberg") != std::string::npos);
  o.multiplicity = gauge::compare::Multiplicity::fwer;
  c = make({0.001, 0.02, 0.03, 0.5});
  gauge::detail::comparing::apply_multiplicity(c, o);
  CHECK(c.experiments[0].verdict == gauge::Verdict::slower);
  // Not held: their interval [1.001, 1.06] is not within 1 ± 2 %, so inconclusive (not same).
  CHECK(c.experiments[1].verdict == gauge::Verdict::inconclusive);
  CHECK(c.experiments[2].verdict == gauge::Verdict::inconclusive);
  CHECK(c.experiments[1].reason.find("does not hold under the Holm") != std::string::npos);
  // The p-value from an interval: estimate 1.1, lower bound 1.05 at 95 %: se = ln(1.1/1.05) / 1.959964,
  // p = erfc(ln 1.1 / se / sqrt 2) = 5.9301533568657736e-05 (Python's math.erfc).
  gauge::stats::RatioInterval i;
  i.estimate = 1.1, i.low = 1.05, i.high = 1.2;
  CHECK(gauge::detail::comparing::p_value_of(i, 0.95) == Approx(5.9301533568657736e-05).epsilon(1e-6));
}

TEST_CASE("noisy host: a suite of 40 identical experiments passes the gate", "[compare][multiplicity][host]") {
  // Realistic noise of a shared CPU: lognormal body (1 %), 5 % descheduled steps up to several
  // times longer. Each side a separate draw. Nothing changed, so the gate must pass.
  std::mt19937_64 gen(40);
  gauge::StoredReport a, b;
  for (int i = 0; i < 40; ++i) {
    a.results.push_back(noisy_host("bench" + std::to_string(i), gen, 1.0));
    b.results.push_back(noisy_host("bench" + std::to_string(i), gen, 1.0));
  }
  const auto c = gauge::compare_reports(a, b);
  std::size_t same = 0, directed = 0;
  for (const auto& e : c.experiments) {
    same += e.verdict == gauge::Verdict::same;
    directed += e.verdict == gauge::Verdict::slower || e.verdict == gauge::Verdict::faster;
    // The mean never decides, and on the host p99 does not either (n = 400: no p99 anyway).
    CHECK(e.deciding == (std::vector<gauge::stats::Statistic>{gauge::stats::Statistic::median, gauge::stats::Statistic::p90}));
  }
  INFO(gauge::compare::to_text(c));
  CHECK(directed == 0);
  CHECK(same == 40);
  CHECK(gauge::compare::gate(c) == gauge::compare::GateOutcome::pass);
  CHECK(c.multiplicity_rule.find("40 experiments") != std::string::npos);
}

TEST_CASE("noisy host: a 10 % slower step reads slower, with a headline change near +10 %", "[compare][host]") {
  // The base's two "modes" 100.2 and 100.9 µs (0.7 % apart) are not modes for a 2 % threshold:
  // the median decides, and the headline is its change (true ratio 110 / 100.55 = 1.094).
  std::vector<double> base, cand;
  for (int i = 0; i < 300; ++i) {
    base.push_back((i % 2 ? 100.2e-6 : 100.9e-6) * (1 + 1e-4 * (i % 7)));
    cand.push_back(110e-6 * (1 + 1e-4 * (i % 7)) * (i % 20 == 0 ? 1.5 : 1.0));
  }
  gauge::Result a, b;
  a.name = b.name = "sort";
  a.backend = b.backend = "host";
  a.gpu_samples_s = base;
  b.gpu_samples_s = cand;
  const auto e = gauge::compare_results(a, b);
  INFO(e.reason);
  CHECK_FALSE(e.bimodal);
  CHECK(e.verdict == gauge::Verdict::slower);
  REQUIRE(e.headline);
  CHECK(e.headline->statistic == gauge::stats::Statistic::median);
  // Medians by hand: base type-7 median of 150 values near 100.2 and 150 near 100.9 µs lies
  // between the groups; candidate 110 µs (+ the 7-cycle jitter): the change is 9–10 %.
  CHECK(e.headline->interval.estimate > 1.08);
  CHECK(e.headline->interval.estimate < 1.11);
}

TEST_CASE("host: the CPU is the device where neither report has a GPU", "[compare][host]") {
  gauge::Environment a, b;
  a.host.cpu.model_name = "AMD EPYC 9654";
  b.host.cpu.model_name = "Intel Xeon 8480";
  a.host.cpu.logical_cpus = 2;
  b.host.cpu.logical_cpus = 2;
  auto d = gauge::compare::environment_differences(a, b);
  bool invalid = false;
  for (const auto& x : d) invalid = invalid || (x.what == "host CPU" && x.invalidates);
  CHECK(invalid);
  b.host.cpu.model_name = a.host.cpu.model_name;
  b.host.cpu.logical_cpus = 4;
  d = gauge::compare::environment_differences(a, b);
  invalid = false;
  for (const auto& x : d) invalid = invalid || (x.what == "logical CPUs" && x.invalidates);
  CHECK(invalid);
  // With a GPU on both sides the CPU is informational.
  gauge::env::CudaDeviceInfo g;
  g.name = "NVIDIA H200";
  a.cuda.devices.push_back(g);
  b.cuda.devices.push_back(g);
  d = gauge::compare::environment_differences(a, b);
  for (const auto& x : d)
    if (x.what == "logical CPUs") CHECK_FALSE(x.invalidates);
}

TEST_CASE("steps per sample that differ: only the medians are compared", "[compare]") {
  gauge::Result a, b;
  a.name = b.name = "step";
  a.gpu_samples_s = around(10e-6, 200, 0.01);
  b.gpu_samples_s = around(10e-6, 200, 0.01);
  a.sampling.steps_per_sample = 1;
  b.sampling.steps_per_sample = 8;
  const auto e = gauge::compare_results(a, b);
  CHECK(e.deciding == std::vector<gauge::stats::Statistic>{gauge::stats::Statistic::median}); // no p90: k differs
  CHECK_FALSE(e.base_modes);
  bool noted = false;
  for (const auto& n : e.notes) noted = noted || n.find("steps per sample differ (1 base, 8 new)") != std::string::npos;
  CHECK(noted);
  CHECK(e.verdict == gauge::Verdict::same);
}

TEST_CASE("compare_reports: several reports per side are runs, and bad input is named", "[compare][runs]") {
  gauge::StoredReport a1, a2, b1, b2;
  gauge::Result r;
  r.name = "step";
  r.gpu_samples_s.assign(50, 1e-3);
  a1.results = {r};
  r.gpu_samples_s.assign(50, 1.001e-3);
  a2.results = {r};
  r.gpu_samples_s.assign(50, 1.0005e-3);
  b1.results = {r};
  r.gpu_samples_s.assign(50, 0.9995e-3);
  b2.results = {r};
  const auto c = gauge::compare_reports({a1, a2}, {b1, b2});
  REQUIRE(c.experiments.size() == 1);
  CHECK(c.experiments[0].base_runs == 2);
  CHECK(c.experiments[0].candidate_runs == 2);
  CHECK(c.base_sources.size() == 2);
  // ratio exp(mean log(b) − mean log(a)) by hand.
  const double expect = std::exp((std::log(1.0005) + std::log(0.9995)) / 2 - (std::log(1.0) + std::log(1.001)) / 2);
  CHECK(c.experiments[0].statistics.front().interval.estimate == Approx(expect).epsilon(1e-12));
  CHECK_THROWS_WITH(gauge::compare_reports(std::vector<gauge::StoredReport>{}, {b1}),
                    Catch::Contains("each side needs at least one report"));
  gauge::CompareOptions o;
  o.run_spread = 1.5;
  CHECK_THROWS_WITH(gauge::compare_reports(a1, b1, o), Catch::Contains("run_spread must be a fraction in [0, 1)"));
}

TEST_CASE("run spread: one report per side with a known spread above the threshold claims no direction", "[compare][runs]") {
  // 1.000 vs 1.030 ms, narrow within-run noise: slower on its own; with a known run-to-run spread
  // of 1.5 % per run, sqrt(2) × 1.5 % × 1.96 = 4.2 % > 2 %: no direction.
  gauge::Result a, b;
  a.name = b.name = "step";
  a.gpu_samples_s = around(1.000e-3, 300, 0.002);
  b.gpu_samples_s = around(1.030e-3, 300, 0.002);
  CHECK(gauge::compare_results(a, b).verdict == gauge::Verdict::slower);
  gauge::CompareOptions o;
  o.run_spread = 0.015;
  const auto e = gauge::compare_results(a, b, o);
  CHECK(e.verdict == gauge::Verdict::inconclusive);
  CHECK(e.reason.find("run-to-run spread (1.50 % per run") != std::string::npos);
}

TEST_CASE("compare_reports: a speed-up beyond 10x is flagged for a check that the step still does its work", "[compare]") {
  // 1 ms against 0.05 ms: 20x by hand; 1 ms against 0.5 ms: 2x, not flagged.
  gauge::StoredReport a, b, c;
  gauge::Result r;
  r.name = "step";
  r.gpu_samples_s = around(1e-3, 100, 0.01);
  a.results = {r};
  r.gpu_samples_s = around(0.05e-3, 100, 0.01);
  b.results = {r};
  r.gpu_samples_s = around(0.5e-3, 100, 0.01);
  c.results = {r};
  auto has = [](const gauge::Comparison& x) {
    for (const auto& n : x.experiments.at(0).notes)
      if (n.rfind("implausible_speedup", 0) == 0) return true;
    return false;
  };
  CHECK(has(gauge::compare_reports(a, b)));
  CHECK_FALSE(has(gauge::compare_reports(a, c)));
}

TEST_CASE("rounds: noise that drifts over many rounds widens a single run's interval (blocking)", "[compare][runs]") {
  // 40 trials of identical code, one run per side, 400 rounds of 2 samples each. The level drifts
  // in steps: every 25 rounds a new level exp(N(0, 1.5 %)) (a shared machine's load), within-round
  // noise N(0, 0.5 %). Truth: ratio 1. Each run's median averages 16 levels, so it moves by about
  // 1.5 % / sqrt(16) = 0.38 % and the ratio by 0.53 % between runs: neighbouring rounds share a
  // level, so rounds taken one by one understate that. Blocks of 16-32 rounds see it and
  // the interval covers 1 at its level; the same samples with their order shuffled (no drift left
  // to see) give narrow intervals that miss 1 in most trials.
  std::mt19937_64 gen(4242);
  std::normal_distribution<double> level(0, 0.015), noise(0, 0.005);
  auto run = [&] {
    gauge::Result r;
    r.name = "step";
    r.backend = "host";
    double l = 1;
    for (int round = 0; round < 400; ++round) {
      if (round % 25 == 0) l = std::exp(level(gen));
      for (int i = 0; i < 2; ++i) r.gpu_samples_s.push_back(1e-3 * l * std::exp(noise(gen)));
      r.sampling.round_samples.push_back(2);
    }
    return r;
  };
  int covered = 0, covered_shuffled = 0;
  double width = 0, width_shuffled = 0;
  for (int trial = 0; trial < 40; ++trial) {
    gauge::Result a = run(), b = run();
    const auto e = gauge::compare_results(a, b);
    REQUIRE(e.ratio);
    if (e.ratio->low <= 1 && e.ratio->high >= 1) ++covered;
    width += e.ratio->high / e.ratio->low - 1;
    std::shuffle(a.gpu_samples_s.begin(), a.gpu_samples_s.end(), gen);
    std::shuffle(b.gpu_samples_s.begin(), b.gpu_samples_s.end(), gen);
    const auto s = gauge::compare_results(a, b);
    if (s.ratio->low <= 1 && s.ratio->high >= 1) ++covered_shuffled;
    width_shuffled += s.ratio->high / s.ratio->low - 1;
    // Never a direction claimed on identical code beyond a 2 % threshold.
    CHECK(e.verdict != gauge::Verdict::slower);
    CHECK(e.verdict != gauge::Verdict::faster);
  }
  INFO("covered " << covered << " of 40 in time order (mean width " << 100 * width / 40 << " %), " << covered_shuffled
                  << " shuffled (" << 100 * width_shuffled / 40 << " %)");
  CHECK(covered >= 36);
  CHECK(covered_shuffled <= 24);
  CHECK(width > 2 * width_shuffled);
}

}  // namespace gauge_test_compare_runs
