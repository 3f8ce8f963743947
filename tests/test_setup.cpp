// Experiment::setup (issue 12): an untimed setup before every step, outside the event pair, for
// in-place steps. Expected values from the fake's script by hand; the host test checks that every
// step saw the input the setup restored.

#include <algorithm>
#include <chrono>
#include <ctime>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "fake_backend.hpp"
#include "gauge/core/cpu_clock.hpp"
#include "gauge/experiment.hpp"
#include "gauge/report/compare.hpp"
#include "gauge/report/json.hpp"

// This file's own namespace: the unity build compiles several test files as one.
namespace gauge_test_setup {

using namespace std::chrono_literals;
using gauge::testing::FakeDevice;
using gauge::testing::FakeStream;
using gauge::testing::fake_experiment;

namespace {
gauge::Config quick() {
  gauge::Config c;
  c.warmup.min_time = 0ms;
  c.warmup.round_time = 1ms;
  c.measure.min_time = 20ms;
  c.measure.max_time = 500ms;
  c.measure.round_time = 2ms;
  return c;
}
}  // namespace

TEST_CASE("setup: a 1 ms setup around a 10 us step does not move the median", "[setup][protocol]") {
  SECTION("a setup that enqueues a 1 ms reset kernel on the stream") {
    FakeDevice dev;
    std::size_t steps = 0, setups = 0;
    auto exp = fake_experiment(dev, [&](FakeStream s) { ++steps; s.kernel(10e-6); });
    exp.config(quick());
    exp.setup([&](FakeStream s) {
      ++setups;
      s.kernel(1e-3);
    });
    const auto r = exp.run();
    REQUIRE(r.status == gauge::Status::ok);
    CHECK(*r.gpu_time.p50 == Approx(10e-6).epsilon(1e-9));
    CHECK(*r.gpu_time.max == Approx(10e-6).epsilon(1e-9));
    CHECK(r.sampling.steps_per_sample == 1);
    CHECK(r.sampling.steps_per_sample_reason.find("untimed setup") != std::string::npos);
    CHECK(setups == steps);
    CHECK(r.sampling.setup_calls == setups);
    // Host time of one call: the fake's launch cost of the reset kernel (2 us).
    CHECK(*r.sampling.setup_host_time_s == Approx(2e-6).epsilon(1e-6));
    // Wall rounds include the setup: no busy fraction, no launch-bound or wrong-stream verdict.
    CHECK_FALSE(r.gpu_busy_fraction);
    CHECK_FALSE(r.host_overhead_per_step_s);
    CHECK_FALSE(r.has_warning("launch_bound"));
    CHECK_FALSE(r.has_warning("work_not_on_stream"));
  }
  SECTION("a host setup of 1 ms") {
    FakeDevice dev;
    auto exp = fake_experiment(dev, [](FakeStream s) { s.kernel(10e-6); });
    exp.config(quick());
    exp.setup([&](FakeStream) { dev.advance(1e-3); });
    const auto r = exp.run();
    REQUIRE(r.status == gauge::Status::ok);
    CHECK(*r.gpu_time.p50 == Approx(10e-6).epsilon(1e-9));
    CHECK(*r.sampling.setup_host_time_s == Approx(1e-3).epsilon(1e-9));
  }
  SECTION("without a setup the same step reads the same median") {
    FakeDevice dev;
    auto exp = fake_experiment(dev, [](FakeStream s) { s.kernel(10e-6); });
    exp.config(quick());
    const auto r = exp.run();
    REQUIRE(r.status == gauge::Status::ok);
    CHECK(*r.gpu_time.p50 == Approx(10e-6).epsilon(1e-9));
    CHECK(r.sampling.setup_calls == 0);
    CHECK_FALSE(r.sampling.setup_host_time_s);
  }
}

TEST_CASE("setup: an in-place sort on the host sees unsorted input at every step", "[setup][host]") {
  std::vector<int> pristine(4096);
  std::iota(pristine.begin(), pristine.end(), 0);
  std::shuffle(pristine.begin(), pristine.end(), std::mt19937(11));
  std::vector<int> data = pristine;
  // The sort's own time in this build (sanitizers make it slower), measured directly: median of 11.
  std::vector<double> direct;
  for (int i = 0; i < 11; ++i) {
    data = pristine;
    const auto t0 = std::chrono::steady_clock::now();
    std::sort(data.begin(), data.end());
    direct.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(direct.begin(), direct.end());
  // The setup busy-waits at least 2 ms and 20 sorts: far longer than a step.
  const auto busy = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(std::max(2e-3, 20 * direct[5])));
  data = pristine;
  std::size_t steps = 0, sorted_on_entry = 0;
  auto exp = gauge::make_experiment<gauge::HostBackend>("sort", [&](gauge::HostStream) {
    ++steps;
    if (std::is_sorted(data.begin(), data.end())) ++sorted_on_entry;
    std::sort(data.begin(), data.end());
  });
  exp.setup([&](gauge::HostStream) {
    data = pristine;
    // A deliberately slow setup: far longer than the sort of 4096 ints.
    const auto until = std::chrono::steady_clock::now() + busy;
    while (std::chrono::steady_clock::now() < until) {
    }
  });
  // A count of samples, not a time: the number of steps must not depend on the machine's speed
  // (under ASan on a loaded 2-core machine 400 ms held 9 steps).
  exp.config().warmup.max_time = 200ms;
  exp.config().measure.steps_per_sample = 1;
  exp.config().measure.min_samples = 12;
  exp.config().measure.max_samples = 12;
  exp.config().measure.min_time = 0ms;
  exp.config().measure.max_time = 60s;
  const auto r = exp.run();
  REQUIRE(r.status == gauge::Status::ok);
  CHECK(r.gpu_time.n == 12);
  CHECK(steps > 12);
  CHECK(sorted_on_entry == 0);  // the setup restored the input before every step
  CHECK(r.sampling.setup_calls == steps);
  const double busy_s = std::chrono::duration<double>(busy).count();
  CHECK(*r.sampling.setup_host_time_s >= busy_s);
  // The setup is outside the timing: the median step is far below it (a sort, not sort + setup).
  CHECK(*r.gpu_time.p50 < busy_s / 4);
  CHECK(std::is_sorted(data.begin(), data.end()));
}

TEST_CASE("setup: steps_per_sample asked for with a setup is not silently dropped", "[setup][protocol]") {
  FakeDevice dev;
  auto exp = fake_experiment(dev, [](FakeStream s) { s.kernel(10e-6); });
  auto c = quick();
  c.measure.steps_per_sample = 8;
  exp.config(c);
  exp.setup([](FakeStream s) { s.kernel(1e-6); });
  const auto r = exp.run();
  REQUIRE(r.status == gauge::Status::ok);
  CHECK(r.sampling.steps_per_sample == 1);
  REQUIRE(r.has_warning("steps_per_sample_ignored"));
  for (const auto& w : r.warnings)
    if (w.code == "steps_per_sample_ignored") CHECK(w.message.find("measure.steps_per_sample = 8 was not used") == 0);
  // Without a setup the 8 is used, and nothing is said.
  FakeDevice dev2;
  auto plain = fake_experiment(dev2, [](FakeStream s) { s.kernel(10e-6); });
  plain.config(c);
  const auto p = plain.run();
  CHECK(p.sampling.steps_per_sample == 8);
  CHECK_FALSE(p.has_warning("steps_per_sample_ignored"));
}

TEST_CASE("setup: errors name what was wrong", "[setup]") {
  FakeDevice dev;
  auto exp = fake_experiment(dev, [](FakeStream s) { s.kernel(10e-6); });
  CHECK_THROWS_WITH(exp.setup(nullptr), "setup: empty function");
  exp.config(quick());
  exp.setup([](FakeStream) {});
  exp.graph();
  CHECK_THROWS_WITH(exp.run(), Catch::Matchers::StartsWith("an untimed setup (Experiment::setup) cannot be combined with gpu_timing = graph"));
  exp.graph(false);
  int calls = 0;
  exp.setup([&](FakeStream) {
    if (++calls == 30) throw std::runtime_error("reset buffer missing");
  });
  const auto r = exp.run();
  CHECK(r.status == gauge::Status::failed);
  REQUIRE(r.error);
  CHECK(r.error->find("setup: reset buffer missing") != std::string::npos);
  CHECK(r.warmup.steps > 0);  // what ran before is kept
}

TEST_CASE("on_round: the median so far after every measured round", "[setup][protocol]") {
  FakeDevice dev;
  std::mt19937_64 rng(9);
  auto exp = fake_experiment(dev, [&](FakeStream s) {
    std::uniform_real_distribution<double> u(9e-6, 11e-6);
    s.kernel(u(rng));
  });
  exp.config(quick());
  std::vector<std::pair<double, std::size_t>> calls;
  exp.on_round([&](double median, std::size_t n) { calls.emplace_back(median, n); });
  const auto r = exp.run();
  REQUIRE(r.status == gauge::Status::ok);
  // One call per rule check after the first round: one per kept round.
  CHECK(calls.size() == r.sampling.rounds);
  for (std::size_t i = 1; i < calls.size(); ++i) CHECK(calls[i].second > calls[i - 1].second);
  // The last check saw every sample: its median is the result's.
  CHECK(calls.back().second == r.gpu_samples_s.size());
  CHECK(calls.back().first == *r.gpu_time.p50);
  CHECK_THROWS_WITH(exp.on_round(nullptr), "on_round: empty function");
}

namespace {
/// The calling thread's CPU time, seconds (CLOCK_THREAD_CPUTIME_ID: a second clock, not the
/// process clock gauge reads).
double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}
/// Spins until this thread has used `seconds` of CPU: however the machine schedules it, the
/// thread then holds exactly that much CPU time (plus one loop iteration).
void burn_cpu(double seconds) {
  const double t0 = thread_cpu_s();
  while (thread_cpu_s() - t0 < seconds) {
  }
}
gauge::Config cpu_config() {
  gauge::Config c = quick();
  c.measure.min_samples = 10;
  c.measure.min_time = 60ms;
  c.measure.max_time = 300ms;
  c.measure.round_time = 10ms;
  c.warmup.max_time = 100ms;
  return c;
}
}  // namespace

TEST_CASE("cpu time: a host result has process CPU time per step beside real time", "[setup][host][cpu_time]") {
  SECTION("two threads that each use 1 ms of CPU, after a setup that uses 2 ms: 2 ms of CPU per step") {
    auto exp = gauge::make_experiment<gauge::HostBackend>("two threads", [](gauge::HostStream) {
      std::thread a(burn_cpu, 1e-3), b(burn_cpu, 1e-3);
      a.join();
      b.join();
    });
    exp.config(cpu_config());
    exp.setup([](gauge::HostStream) { burn_cpu(2e-3); });  // untimed: its CPU time is taken out
    const gauge::Result r = exp.run();
    REQUIRE(r.status == gauge::Status::ok);
    CHECK(r.time_label == "real time");
    REQUIRE(r.cpu_time.n == r.sampling.rounds);
    REQUIRE(r.cpu_samples_s.size() == r.sampling.rounds);
    REQUIRE(r.cpu_time.p50);
    // By construction 2 × 1 ms of thread CPU time per step; starting and joining two threads
    // adds some CPU time (0.54 ms once under ASan on the loaded 2-core machine). With the setup's
    // 2 ms left in, it would read at least 4 ms: the bound sits between the two, not at the speed.
    CHECK(*r.cpu_time.p50 >= 2e-3);
    CHECK(*r.cpu_time.p50 < 3.5e-3);
    // Real time: each thread needs 1 ms of CPU, so a step takes at least 1 ms however it is scheduled.
    CHECK(*r.gpu_time.p50 >= 1e-3);
    // The report: cpu_time_s with median == p50, one CPU sample per measured round.
    const nlohmann::json j = r;
    CHECK(j.at("cpu_time_s").at("median") == j.at("cpu_time_s").at("p50"));
    CHECK(j.at("gpu_time_s").at("median") == j.at("gpu_time_s").at("p50"));
    CHECK(j.at("samples").at("cpu_time_per_step_s").size() == r.sampling.rounds);
  }
  SECTION("a step that sleeps 2 ms uses almost no CPU: process CPU time well below real time") {
    auto exp = gauge::make_experiment<gauge::HostBackend>("sleep", [](gauge::HostStream) {
      std::this_thread::sleep_for(2ms);
    });
    exp.config(cpu_config());
    const gauge::Result r = exp.run();
    REQUIRE(r.status == gauge::Status::ok);
    REQUIRE(r.cpu_time.p50);
    CHECK(*r.gpu_time.p50 >= 2e-3);  // sleep_for sleeps at least that long
    CHECK(*r.cpu_time.p50 < 0.25 * *r.gpu_time.p50);
  }
  SECTION("an empty step with a setup: too short for the CPU clock read around it, so no CPU time, saying so") {
    volatile int v = 0;
    auto exp = gauge::make_experiment<gauge::HostBackend>("tiny", [&](gauge::HostStream) { v = v + 1; });
    exp.config(cpu_config());
    exp.setup([&](gauge::HostStream) { v = v + 1; });
    const gauge::Result r = exp.run();
    REQUIRE(r.status == gauge::Status::ok);
    // A reading of the process CPU clock is a system call (0.1 µs or more); the step is ~0.01–0.1 µs.
    REQUIRE(*r.gpu_time.p50 < 10 * gauge::detail::process_cpu_read_cost());
    CHECK(r.has_warning("cpu_time_unresolved"));
    CHECK(r.cpu_time.n == 0);
    CHECK(r.cpu_samples_s.empty());
  }
  SECTION("hardware counters: instructions per step of a loop of known length, or why there are none") {
    constexpr int n = 200000;
    volatile int v = 0;
    auto exp = gauge::make_experiment<gauge::HostBackend>("loop", [&](gauge::HostStream) {
      for (int i = 0; i < n; ++i) v = v + 1;  // a load, an add and a store per iteration, at least
    });
    exp.config(cpu_config());
    const gauge::Result r = exp.run();
    REQUIRE(r.status == gauge::Status::ok);
    const auto& k = r.cpu_counters;
    INFO("cpu_counters: " << k.status << " " << k.reason);
    if (k.status == "measured") {
      // At least 3 instructions per iteration by construction; at most 20 (plus gauge's bookkeeping).
      REQUIRE(k.instructions_per_step.p50);
      CHECK(*k.instructions_per_step.p50 >= 3.0 * n);
      CHECK(*k.instructions_per_step.p50 <= 20.0 * n + 5000);
      REQUIRE(k.instructions_per_cycle);
      CHECK(*k.instructions_per_cycle > 0);
      CHECK(*k.instructions_per_cycle < 10);  // no x86 or Arm core retires 10 per cycle
      CHECK(k.cycles_per_step.n == r.sampling.rounds);
      CHECK(k.reason.empty());
      WARN("hardware counters measured: " << *k.instructions_per_step.p50 << " instructions per step");
    } else {
      // This machine has none (a VM without a PMU, perf_event_paranoid, not Linux): the record says which.
      CHECK(k.status == "unavailable");
      CHECK_THAT(k.reason, Catch::Matchers::StartsWith("perf_event_open(CPU cycles): ") ||
                               Catch::Matchers::StartsWith("hardware counters need Linux"));
      CHECK(k.cycles_per_step.n == 0);
      CHECK_FALSE(k.instructions_per_cycle);
      WARN("hardware counters unavailable here: " << k.reason);
    }
    const nlohmann::json j = r;
    CHECK(j.at("cpu_counters").at("status") == k.status);
  }
  SECTION("GPU timing records none: the fake device's result has no CPU time") {
    FakeDevice dev;
    auto exp = fake_experiment(dev, [](FakeStream s) { s.kernel(10e-6); });
    exp.config(quick());
    const gauge::Result r = exp.run();
    REQUIRE(r.status == gauge::Status::ok);
    CHECK(r.cpu_time.n == 0);
    CHECK(r.cpu_samples_s.empty());
    CHECK(r.cpu_counters.status == "not_measured");
  }
}

TEST_CASE("cpu time: comparisons on process CPU time, and a clear reason where there is none", "[setup][cpu_time][compare]") {
  auto host = [](double real_s, double cpu_s) {
    gauge::Result r;
    r.name = "parse";
    r.backend = "host";
    r.time_label = "real time";
    for (int i = 0; i < 400; ++i) r.gpu_samples_s.push_back(real_s * (1 + 1e-3 * (i % 7)));
    for (int i = 0; i < 40; ++i) r.cpu_samples_s.push_back(cpu_s * (1 + 1e-3 * (i % 5)));
    return r;
  };
  // Same real time, 1.5× the CPU time (a second thread): same on real time, slower on CPU time.
  const gauge::Result base = host(1e-3, 1e-3), cand = host(1e-3, 1.5e-3);
  gauge::CompareOptions o;
  CHECK(gauge::compare_results(base, cand, o).verdict == gauge::Verdict::same);
  o.metric = gauge::Metric::cpu_time;
  const auto e = gauge::compare_results(base, cand, o);
  CHECK(e.verdict == gauge::Verdict::slower);
  // The median ratio is 1.5 by construction (both sides' samples are the same pattern, scaled).
  REQUIRE(e.ratio);
  CHECK(e.ratio->estimate == Approx(1.5).epsilon(1e-9));
  gauge::Result gpu = base;
  gpu.backend = "cuda";
  gpu.cpu_samples_s.clear();
  const auto none = gauge::compare_results(gpu, cand, o);
  CHECK(none.verdict == gauge::Verdict::inconclusive);
  CHECK(none.reason.find("no process CPU time in the base result") != std::string::npos);
  // Several runs per side: the run without CPU time is named.
  const gauge::Result base2 = host(1e-3, 1.01e-3);
  const auto runs = gauge::compare::compare_runs({&base, &base2}, {&cand, &gpu}, o);
  CHECK(runs.verdict == gauge::Verdict::inconclusive);
  CHECK(runs.reason.find("no process CPU time in new run 2") != std::string::npos);
}

}  // namespace gauge_test_setup
