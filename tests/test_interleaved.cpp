// Interleaved A/B runs (gauge/interleave.hpp) on the fake backend's virtual clock: drift that
// biases two runs measured one after the other cancels in ABBA rounds; identical steps are the
// same; a failing side makes the verdict inconclusive; the rounds alternate A B B A; bad input is
// refused. The truths are set by the script (B 1 % slower than A), the paired statistic and the
// verdict rule are checked on values computed by hand.

#include <chrono>
#include <cmath>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "fake_backend.hpp"
#include "test_helpers.hpp"
#include "gauge/core/environment.hpp"
#include "gauge/core/interleaved_statistics.hpp"
#include "gauge/interleave.hpp"
#include "gauge/report.hpp"
#include "gauge/report/compare.hpp"
#include "gauge/report/read.hpp"

// This file's own namespace: the unity build compiles several test files as one.
namespace gauge_test_interleaved {

using namespace std::chrono_literals;
using gauge::testing::config_error_of;
using gauge::testing::contains;
using gauge::testing::FakeBackend;
using gauge::testing::FakeDevice;
using gauge::testing::FakeStream;
using gauge::testing::fake_experiment;

namespace {

/// A relative noise of standard deviation `sd`: uniform on [-sd sqrt(3), sd sqrt(3)], drawn from
/// the generator's bits (std::normal_distribution differs between standard libraries; this does not).
double noise(std::mt19937_64& gen, double sd) {
  const double u = static_cast<double>(gen() >> 11) * 0x1.0p-53;  // [0, 1)
  return sd * std::sqrt(12.0) * (u - 0.5);
}

/// A configuration whose runs are short on the virtual clock: warm-up capped at 200 steps, one
/// stream, rounds of 1 ms (100 steps of 10 us, then a wall round of 25 steps).
gauge::Config short_config() {
  gauge::Config c;
  c.warmup.min_steps = 10;
  c.warmup.min_time = 0ms;
  c.warmup.max_steps = 200;
  c.warmup.round_time = 1ms;
  c.warmup.window = 3;
  c.measure.min_samples = 10;
  c.measure.min_time = 0ms;
  c.measure.max_time = 1s;
  c.measure.round_time = 1ms;
  c.measure.streams = 1;
  return c;
}

/// Device time of a step of nominal `base` seconds at virtual time `t`: a drift of exp(g t),
/// g = 4 / s, i.e. +0.4 % per ms (+0.5 % per round of about 1.3 ms, wall round included), and,
/// with `noise` > 0, a relative noise of that standard deviation.
struct DriftingStep {
  double base;
  double sd;
  std::mt19937_64* gen;
  static constexpr double g = 4.0;
  double operator()(double t) const {
    double x = base * std::exp(g * t);
    if (sd > 0) x *= 1 + noise(*gen, sd);
    return x;
  }
};

/// A backend that logs 'A' or 'B' at every gated round (gate_close), to see the order of rounds.
struct LoggingBackend : FakeBackend {
  LoggingBackend(FakeDevice* d, std::string* log, char side) : FakeBackend(d), log_(log), side_(side) {}
  void gate_close(gauge::Nanoseconds timeout) {
    log_->push_back(side_);
    FakeBackend::gate_close(timeout);
  }
  std::string* log_;
  char side_;
};

}  // namespace

TEST_CASE("interleave: the paired ratio is the geometric mean over ABBA blocks, with a bootstrap over blocks",
          "[interleave][statistics]") {
  // Pairs alternate 1.02 and 1.00 (a drift of +-1 % around 1.01 in log): every block's mean log
  // ratio is (ln 1.02 + ln 1.00) / 2, so the estimate is sqrt(1.02) = 1.009950..., and with all
  // blocks equal every resample's mean is that value: the interval is the point.
  const std::vector<double> pairs = {1.02, 1.00, 1.02, 1.00, 1.02, 1.00, 1.02, 1.00, 1.02};  // last pair: no block
  const auto p = gauge::detail::paired_ratio(pairs, 0.95, 1000, 7);
  REQUIRE(p);
  CHECK(p->estimate == Approx(std::sqrt(1.02)).epsilon(1e-12));
  CHECK(p->low == Approx(std::sqrt(1.02)).epsilon(1e-12));
  CHECK(p->high == Approx(std::sqrt(1.02)).epsilon(1e-12));
  CHECK(p->pairs == 8);
  CHECK(p->blocks == 4);
  CHECK(p->resamples == 1000);
  CHECK(p->seed == 7);
  // Two blocks with values ln 1.00 and ln 1.04: resampled means are ln 1.00, ln 1.04 or their
  // mean (probabilities 1/4, 1/4, 1/2), so the 2.5 % and 97.5 % quantiles are the extremes.
  const auto q = gauge::detail::paired_ratio({1.0, 1.0, 1.04, 1.04}, 0.95, 2000, 1);
  REQUIRE(q);
  CHECK(q->estimate == Approx(std::sqrt(1.04)).epsilon(1e-12));
  CHECK(q->low == Approx(1.0).epsilon(1e-12));
  CHECK(q->high == Approx(1.04).epsilon(1e-12));
  // Fewer than two blocks: no interval.
  CHECK_FALSE(gauge::detail::paired_ratio({1.0, 1.0, 1.0}, 0.95, 1000, 1));
  CHECK(contains(config_error_of([] { gauge::detail::paired_ratio({1.0, 0.0, 1.0, 1.0}, 0.95, 1000, 1); }),
                 "pair 1 has ratio 0"));
}

TEST_CASE("interleave: the verdict rule has the comparison's threshold semantics", "[interleave][verdict]") {
  auto verdict = [](double estimate, double low, double high) {
    gauge::stats::PairedRatio p;
    p.estimate = estimate;
    p.low = low;
    p.high = high;
    p.pairs = 16;
    std::string reason;
    const auto v = gauge::detail::paired_verdict(p, 0.02, reason);
    CHECK_FALSE(reason.empty());
    return v;
  };
  using V = gauge::stats::PairedVerdict;
  CHECK(verdict(1.03, 1.025, 1.035) == V::slower);        // above 1, estimate above 1.02
  CHECK(verdict(0.97, 0.965, 0.975) == V::faster);        // below 1, estimate below 0.98
  CHECK(verdict(1.01, 0.995, 1.015) == V::same);          // within [0.98, 1.02]
  CHECK(verdict(1.015, 1.005, 1.025) == V::inconclusive); // above 1, but the estimate within 1.02
  CHECK(verdict(1.03, 0.99, 1.07) == V::inconclusive);    // includes 1 and reaches beyond 1.02
  CHECK(verdict(1.025, 1.01, 1.04) == V::slower);         // interval above 1 (not above 1.02), estimate above 1.02
}

TEST_CASE("interleave: a linear drift biases two runs one after the other, not the interleaved ratio",
          "[interleave][drift]") {
  // B is truly 1 % slower: 10.1 us against 10 us at the same moment.
  const double truth = 1.01;
  std::mt19937_64 gen(2026);
  const DriftingStep step_a{10e-6, 0.005, &gen}, step_b{10e-6 * truth, 0.005, &gen};

  // Un-interleaved: A measured fully, then B, on one virtual clock.
  FakeDevice seq;
  auto a1 = fake_experiment(seq, [&](FakeStream s) { s.kernel(step_a(seq.host)); }, "a");
  auto b1 = fake_experiment(seq, [&](FakeStream s) { s.kernel(step_b(seq.host)); }, "b");
  a1.config(short_config());
  b1.config(short_config());
  const gauge::Result ra = a1.run(), rb = b1.run();
  REQUIRE(ra.status == gauge::Status::ok);
  REQUIRE(rb.status == gauge::Status::ok);
  const auto c = gauge::compare_results(ra, rb);
  REQUIRE(c.ratio);
  // B ran later, so it drifted further: its ratio is biased upwards and its interval excludes the truth.
  CHECK(c.ratio->low > truth);

  // Interleaved, on a fresh virtual clock.
  FakeDevice dev;
  auto a = fake_experiment(dev, [&](FakeStream s) { s.kernel(step_a(dev.host)); }, "a");
  auto b = fake_experiment(dev, [&](FakeStream s) { s.kernel(step_b(dev.host)); }, "b");
  a.config(short_config());
  b.config(short_config());
  const gauge::InterleavedResult r = gauge::interleave(a, b).min_pairs(40).run();
  REQUIRE(r.a.status == gauge::Status::ok);
  REQUIRE(r.b.status == gauge::Status::ok);
  REQUIRE(r.ratio);
  INFO(r.reason);
  CHECK(r.ratio->low <= truth);
  CHECK(r.ratio->high >= truth);
  CHECK(std::abs(r.ratio->estimate / truth - 1) < 0.001);
  CHECK(r.ratio->pairs == r.pair_ratios.size());
  CHECK(r.ratio->pairs >= 40);
  CHECK(r.ratio->pairs % 2 == 0);
  CHECK(r.order == "ABBA");
  CHECK(r.stopping_reason == "noise_target_met");
  // Each side is a complete result over its own rounds, one per pair.
  CHECK(r.a.sampling.rounds == r.pair_ratios.size());
  CHECK(r.b.sampling.rounds == r.pair_ratios.size());
  CHECK(r.a.stopping.reason == "interleaved");
  CHECK(r.a.gpu_time.p50);
  // A drift of 0.5 % per round is more than the threshold allows to call 1 % anything but slower
  // or inconclusive; here the interval is narrow: 1 % is within 1 +- 2 %, so `same`.
  CHECK(r.verdict == gauge::stats::PairedVerdict::same);
}

TEST_CASE("interleave: identical A and B with noise are the same", "[interleave][same]") {
  FakeDevice dev;
  std::mt19937_64 gen(11);
  auto step = [&](FakeStream s) { s.kernel(20e-6 * (1 + noise(gen, 0.01))); };
  auto a = fake_experiment(dev, step, "kernel");
  auto b = fake_experiment(dev, step, "kernel");
  a.config(short_config());
  b.config(short_config());
  const auto r = gauge::interleave(a, b).run();
  REQUIRE(r.ratio);
  INFO(r.reason);
  CHECK(r.verdict == gauge::stats::PairedVerdict::same);
  CHECK(std::abs(r.ratio->estimate - 1) < 0.002);
  CHECK(r.ratio->low <= 1);
  CHECK(r.ratio->high >= 1);
  CHECK(contains(r.reason, "within 1 ± 2 %"));
  CHECK(r.ratio->pairs >= 32);  // min_pairs
}

TEST_CASE("interleave: a failing B step makes the verdict inconclusive, naming B, and keeps what was measured",
          "[interleave][errors]") {
  FakeDevice dev;
  auto a = fake_experiment(dev, [](FakeStream s) { s.kernel(10e-6); }, "a");
  auto b = fake_experiment(
      dev,
      [&](FakeStream s) {
        if (dev.host > 0.02) throw std::runtime_error("boom");
        s.kernel(10e-6);
      },
      "b");
  a.config(short_config());
  b.config(short_config());
  const auto r = gauge::interleave(a, b).run();
  CHECK(r.verdict == gauge::stats::PairedVerdict::inconclusive);
  CHECK(r.b.status == gauge::Status::failed);
  REQUIRE(r.b.error);
  CHECK(contains(*r.b.error, "boom"));
  CHECK(contains(r.reason, "B (\"b\") failed"));
  CHECK(contains(r.reason, "boom"));
  CHECK(r.stopping_reason == "failed");
  // A is a complete result of what it measured; the whole blocks before the failure are kept.
  CHECK(r.a.status == gauge::Status::ok);
  CHECK_FALSE(r.a.gpu_samples_s.empty());
  CHECK(r.a.gpu_time.p50);
  CHECK(r.pair_ratios.size() >= 2);
  CHECK(r.pair_ratios.size() % 2 == 0);
  CHECK_FALSE(r.b.gpu_samples_s.empty());
}

TEST_CASE("interleave: a step failing in warm-up fails that side before any round", "[interleave][errors]") {
  FakeDevice dev;
  auto a = fake_experiment(dev, [](FakeStream) { throw std::runtime_error("no kernel"); }, "a");
  auto b = fake_experiment(dev, [](FakeStream s) { s.kernel(10e-6); }, "b");
  a.config(short_config());
  b.config(short_config());
  const auto r = gauge::interleave(a, b).run();
  CHECK(r.verdict == gauge::stats::PairedVerdict::inconclusive);
  CHECK(r.a.status == gauge::Status::failed);
  CHECK(r.b.status == gauge::Status::ok);
  CHECK(contains(r.reason, "A (\"a\") failed"));
  CHECK(contains(r.reason, "warm-up"));
  CHECK(r.pair_ratios.empty());
  CHECK_FALSE(r.ratio);
}

TEST_CASE("interleave: the measuring rounds run in ABBA order", "[interleave][order]") {
  FakeDevice dev;
  std::string log;
  auto step = [](FakeStream s) { s.kernel(10e-6); };
  auto a = gauge::make_experiment<LoggingBackend>("a", step, LoggingBackend(&dev, &log, 'A'));
  auto b = gauge::make_experiment<LoggingBackend>("b", step, LoggingBackend(&dev, &log, 'B'));
  a.config(short_config());
  b.config(short_config());
  const auto r = gauge::interleave(a, b).run();
  REQUIRE(r.a.status == gauge::Status::ok);
  REQUIRE(r.b.status == gauge::Status::ok);
  // Each side's gated rounds before measuring: its warm-up rounds (the curve's points after the
  // first step, which runs alone and ungated) and the two calibration rounds of k.
  const std::size_t before_a = r.a.warmup.curve.size() - 1 + 2, before_b = r.b.warmup.curve.size() - 1 + 2;
  const std::size_t pairs = r.pair_ratios.size();
  REQUIRE(pairs >= 32);
  REQUIRE(pairs % 2 == 0);
  std::string expected = std::string(before_a, 'A') + std::string(before_b, 'B');
  for (std::size_t i = 0; i < pairs / 2; ++i) expected += "ABBA";
  CHECK(log == expected);
  CHECK(r.a.sampling.rounds == pairs);
  CHECK(r.b.sampling.rounds == pairs);
}

TEST_CASE("interleave: one k for both sides", "[interleave][k]") {
  FakeDevice dev;
  dev.event_device_cost = 2e-6;  // k = ceil(2 us / 50 ns) = 40 for both
  auto a = fake_experiment(dev, [](FakeStream s) { s.kernel(10e-6); }, "a");
  auto b = fake_experiment(dev, [](FakeStream s) { s.kernel(10e-6); }, "b");
  a.config(short_config());
  b.config(short_config());
  b.config().measure.steps_per_sample = 10;
  auto r = gauge::interleave(a, b).run();
  CHECK(r.a.sampling.steps_per_sample == 40);
  CHECK(r.b.sampling.steps_per_sample == 40);
  CHECK(contains(r.b.sampling.steps_per_sample_reason, "the larger of A's k = 40 and B's k = 10"));

  // A cold cache needs an event pair per step: k = 1 on both sides.
  FakeDevice dev2;
  auto c = fake_experiment(dev2, [](FakeStream s) { s.kernel(10e-6); }, "cold");
  auto d = fake_experiment(dev2, [](FakeStream s) { s.kernel(10e-6); }, "hot");
  c.config(short_config());
  d.config(short_config());
  c.cold_cache();
  dev2.event_device_cost = 2e-6;
  auto r2 = gauge::interleave(c, d).run();
  CHECK(r2.a.sampling.steps_per_sample == 1);
  CHECK(r2.b.sampling.steps_per_sample == 1);
  CHECK(contains(r2.b.sampling.steps_per_sample_reason, "A needs an event pair per step"));
}

TEST_CASE("interleave: bad input is refused before anything runs", "[interleave][config]") {
  FakeDevice dev;
  auto step = [](FakeStream s) { s.kernel(10e-6); };
  auto a = fake_experiment(dev, step, "a");
  auto host = gauge::make_experiment<gauge::HostBackend>("cpu", [](gauge::HostStream) {});
  const std::string backends = config_error_of([&] { gauge::interleave(a, host).run(); });
  CHECK(contains(backends, "fake backend"));
  CHECK(contains(backends, "host backend"));
  CHECK(contains(backends, "\"a\""));
  CHECK(contains(backends, "\"cpu\""));

  auto unnamed = fake_experiment(dev, step, "");
  CHECK(contains(config_error_of([&] { gauge::interleave(a, unnamed).run(); }), "name must not be empty"));
  CHECK(contains(config_error_of([&] { gauge::interleave(a, a); }), "same Experiment object"));

  auto other = fake_experiment(dev, step, "b");
  other.config().device = 1;
  CHECK(contains(config_error_of([&] { gauge::interleave(a, other).run(); }), "device -1"));
  other.config().device = -1;
  other.config().measure.streams = 4;
  CHECK(contains(config_error_of([&] { gauge::interleave(a, other).run(); }), "same pool"));
  other.config().measure.streams = a.config().measure.streams;
  CHECK(contains(config_error_of([&] { gauge::interleave(a, other).threshold(1.5).run(); }), "threshold"));
  CHECK(contains(config_error_of([&] { gauge::interleave(a, other).min_pairs(2).run(); }), "min_pairs"));
  CHECK(dev.kernels == 0);  // nothing ran
}

TEST_CASE("interleave: a report holds both results and the interleaved record, read back equal",
          "[interleave][report]") {
  FakeDevice dev;
  std::mt19937_64 gen(5);
  auto a = fake_experiment(dev, [&](FakeStream s) { s.kernel(10e-6 * (1 + noise(gen, 0.01))); }, "base");
  auto b = fake_experiment(dev, [&](FakeStream s) { s.kernel(12e-6 * (1 + noise(gen, 0.01))); }, "candidate");
  a.config(short_config());
  b.config(short_config());
  const auto r = gauge::interleave(a, b).run();
  REQUIRE(r.ratio);
  CHECK(r.verdict == gauge::stats::PairedVerdict::slower); // 1.2 against a threshold of 2 %
  CHECK(r.ratio->estimate == Approx(1.2).epsilon(0.005));

  const auto path = std::filesystem::temp_directory_path() / "gauge_test_interleaved.json";
  gauge::Report report(path.string(), gauge::Environment{});
  report.add(r);
  REQUIRE(report.results().size() == 2);
  CHECK(report.results()[0].name == "base");
  CHECK(report.results()[1].name == "candidate");
  const auto doc = nlohmann::json::parse(report.json_text());
  REQUIRE(doc.at("interleaved").size() == 1);
  const auto& j = doc.at("interleaved")[0];
  CHECK(j.at("a") == 0);
  CHECK(j.at("b") == 1);
  CHECK(j.at("verdict") == "slower");
  CHECK(j.at("order") == "ABBA");
  CHECK(j.at("rule") == gauge::records::InterleavedOutcome::rule);
  CHECK(j.at("config").at("threshold") == 0.02);
  CHECK(j.at("config").at("max_time_s") == 20.0);

  const gauge::StoredReport back = gauge::parse_report(report.json_text(), "interleaved.json");
  REQUIRE(back.interleaved.size() == 1);
  const auto& x = back.interleaved[0];
  CHECK(x.a == 0);
  CHECK(x.b == 1);
  CHECK(x.verdict == gauge::stats::PairedVerdict::slower);
  REQUIRE(x.ratio);
  CHECK(x.ratio->estimate == r.ratio->estimate);
  CHECK(x.ratio->low == r.ratio->low);
  CHECK(x.ratio->pairs == r.ratio->pairs);
  CHECK(x.pair_ratios == r.pair_ratios);
  REQUIRE(x.difference);
  REQUIRE(r.difference);
  CHECK(x.difference->estimate_s == r.difference->estimate_s);
  CHECK(x.difference->high_s == r.difference->high_s);
  CHECK(x.pair_differences_s == r.pair_differences_s);
  // The difference of the ~2 us the steps differ by, by the script (12 us against 10 us).
  CHECK(r.difference->estimate_s == Approx(2e-6).epsilon(0.05));
  CHECK(x.reason == r.reason);
  CHECK(x.config.max_time == 20s);
  CHECK(back.results.at(1).stopping.reason == "interleaved");
  CHECK(contains(report.summary(), "interleaved A/B, B \"candidate\" / A \"base\": slower: B/A 1.2"));

  // A record naming an experiment the report does not have is refused, naming the key.
  auto bad = doc;
  bad["interleaved"][0]["b"] = 2;
  CHECK(contains(gauge::testing::error_of<gauge::ReportError>([&] { gauge::parse_report(bad.dump(), "bad.json"); }),
                 "bad.json: interleaved[0].b: 2 is not the index of an experiment (the report has 2)"));
  // Records that contradict themselves are refused too: a and b the same experiment, an interval
  // with low > high, an estimate outside its interval (values set here, messages by hand).
  auto same = doc;
  same["interleaved"][0]["b"] = same["interleaved"][0]["a"];
  CHECK(contains(gauge::testing::error_of<gauge::ReportError>([&] { gauge::parse_report(same.dump(), "bad.json"); }),
                 "interleaved[0]: a and b are the same experiment"));
  auto swapped = doc;
  swapped["interleaved"][0]["ratio"]["low"] = 3.0;
  swapped["interleaved"][0]["ratio"]["high"] = 2.0;
  CHECK(contains(gauge::testing::error_of<gauge::ReportError>([&] { gauge::parse_report(swapped.dump(), "bad.json"); }),
                 "interleaved[0].ratio: low (3) > high (2)"));
  auto outside = doc;
  outside["interleaved"][0]["difference"]["estimate_s"] = 1.0;
  CHECK(contains(gauge::testing::error_of<gauge::ReportError>([&] { gauge::parse_report(outside.dump(), "bad.json"); }),
                 "interleaved[0].difference: estimate_s (1) is outside ["));
}

TEST_CASE("interleave: the paired difference is free of a launch gap both steps pay, the ratio is not",
          "[interleave][statistics]") {
  // By hand: differences alternate 0.3 and 0.1 us over 3 blocks -> every block's mean is 0.2 us,
  // the estimate 0.2 us and, all blocks equal, the interval the point. Two blocks of 0 and 0.4 us:
  // resampled means 0, 0.4 or 0.2 us (1/4, 1/4, 1/2): the 95 % bounds are the extremes.
  const auto d = gauge::detail::paired_difference({0.3e-6, 0.1e-6, 0.3e-6, 0.1e-6, 0.3e-6, 0.1e-6, 9.0}, 0.95, 1000, 3);
  REQUIRE(d);
  CHECK(d->estimate_s == Approx(0.2e-6).epsilon(1e-12));
  CHECK(d->low_s == Approx(0.2e-6).epsilon(1e-12));
  CHECK(d->high_s == Approx(0.2e-6).epsilon(1e-12));
  CHECK(d->blocks == 3);
  const auto e = gauge::detail::paired_difference({0.0, 0.0, 0.4e-6, 0.4e-6}, 0.95, 2000, 1);
  REQUIRE(e);
  CHECK(e->low_s == Approx(0.0).margin(1e-18));
  CHECK(e->high_s == Approx(0.4e-6).epsilon(1e-12));
  CHECK_FALSE(gauge::detail::paired_difference({1.0, 1.0}, 0.95, 1000, 1));
  CHECK(contains(config_error_of([] { gauge::detail::paired_difference({1.0, NAN, 1.0, 1.0}, 0.95, 1000, 1); }),
                 "pair 1 has difference"));

  // On the fake device every kernel pays a 2 us gap (stream_offset): A spans 10 us, B 10.1 us
  // (1 % longer). Events time the periods, 12 and 12.1 us: the ratio is 12.1 / 12 = 1.008333,
  // the difference 0.1 us, the spans' own difference.
  FakeDevice dev;
  dev.stream_offset = {2e-6};
  auto a = fake_experiment(dev, [](FakeStream s) { s.kernel(10e-6); }, "a");
  auto b = fake_experiment(dev, [](FakeStream s) { s.kernel(10.1e-6); }, "b");
  a.config(short_config());
  b.config(short_config());
  const auto r = gauge::interleave(a, b).run();
  REQUIRE(r.ratio);
  REQUIRE(r.difference);
  INFO(r.reason);
  CHECK(r.ratio->estimate == Approx(12.1 / 12.0).epsilon(1e-6));
  CHECK(r.difference->estimate_s == Approx(0.1e-6).epsilon(1e-4));
  CHECK(r.difference->low_s <= 0.1e-6 + 1e-12);
  CHECK(r.difference->high_s >= 0.1e-6 - 1e-12);
  CHECK(r.pair_differences_s.size() == r.pair_ratios.size());
}

}  // namespace gauge_test_interleaved
