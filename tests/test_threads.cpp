// Experiment::threads(n) (issue "Every user's first day": a thread-count axis): a host step run on
// n threads at once. The expected values are counted by hand: which threads called the step, how
// many calls each made, the work per step (n × the declared work per call), and that the calls of
// one step overlap in time (every thread waits inside the step for all n to have arrived, which a
// sequential run could never satisfy).

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "catch.hpp"
#include "test_helpers.hpp"
#include "gauge/experiment.hpp"
#include "gauge/core/environment.hpp"
#include "gauge/report/read.hpp"
#include "gauge/suite.hpp"

// This file's own namespace: the unity build compiles several test files as one.
namespace gauge_test_threads {

using namespace std::chrono_literals;

namespace {
/// Real host time: at least 10 ms and at most 200 ms of measuring per experiment.
gauge::Config quick() {
  gauge::Config c = gauge::testing::fast_config(10ms);
  c.measure.max_time = 200ms;
  return c;
}

/// Every call of the step: which thread index it was given, on which OS thread, with which count.
struct Calls {
  std::mutex m;
  std::set<unsigned> indices;
  std::set<std::thread::id> os_threads;
  std::set<unsigned> counts;
  std::atomic<std::size_t> calls{0};
  void add(gauge::HostStream s) {
    ++calls;
    std::lock_guard<std::mutex> lock(m);
    indices.insert(s.thread);
    os_threads.insert(std::this_thread::get_id());
    counts.insert(s.threads);
  }
};
}  // namespace

TEST_CASE("threads: every step runs once on each of n threads, with its index", "[threads][host]") {
  Calls calls;
  std::atomic<std::size_t> steps_seen{0};
  auto exp = gauge::make_experiment<gauge::HostBackend>("count", [&](gauge::HostStream s) {
    calls.add(s);
    if (s.thread == 0) ++steps_seen;
  });
  exp.config(quick()).threads(4).items("calls", 1);
  const gauge::Result r = exp.run();
  REQUIRE(r.status == gauge::Status::ok);
  CHECK(calls.indices == std::set<unsigned>{0, 1, 2, 3});
  CHECK(calls.os_threads.size() == 4);
  CHECK(calls.counts == std::set<unsigned>{4});
  // Four calls per step, whatever the warm-up, calibration and rounds ran.
  CHECK(calls.calls.load() == 4 * steps_seen.load());
  CHECK(std::get<std::int64_t>(r.dimensions.at("threads")) == 4);
  // The work per step is 4 calls: items/s = 4 / (median seconds per step).
  REQUIRE(r.gpu_throughput.item_per_second("calls"));
  CHECK(*r.gpu_throughput.item_per_second("calls") == Approx(4.0 / *r.gpu_time.p50).epsilon(1e-12));
}

TEST_CASE("threads: the calls of one step run at the same time", "[threads][host]") {
  // Each call of step s arrives, then waits (at most 5 s) until all 4 calls of step s arrived: only
  // concurrent calls can all pass. A step that timed out is counted, never hung on.
  constexpr unsigned n = 4;
  std::atomic<std::size_t> arrived{0};
  std::atomic<std::size_t> timeouts{0};
  std::atomic<std::size_t> steps{0};
  std::vector<std::size_t> per_thread(n, 0);
  auto exp = gauge::make_experiment<gauge::HostBackend>("rendezvous", [&](gauge::HostStream s) {
    const std::size_t ticket = arrived.fetch_add(1);
    const std::size_t step = ticket / n;  // the step this call belongs to (every call of a step takes one ticket)
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (arrived.load() < (step + 1) * n) {
      if (std::chrono::steady_clock::now() > deadline) {
        ++timeouts;
        break;
      }
      std::this_thread::yield();  // 4 threads on fewer cores: let the others arrive
    }
    ++per_thread[s.thread];  // each thread writes its own slot
    if (s.thread == 0) ++steps;
  });
  gauge::Config c = quick();
  c.measure.max_time = 50ms;
  exp.config(c).threads(n);
  const gauge::Result r = exp.run();
  REQUIRE(r.status == gauge::Status::ok);
  CHECK(timeouts.load() == 0);
  CHECK(steps.load() > 0);
  for (unsigned t = 0; t < n; ++t) CHECK(per_thread[t] == steps.load());
}

TEST_CASE("threads: an empty step on 2 threads is too short for them, and says so", "[threads][host]") {
  // Waking a thread and waiting for it takes microseconds; an empty step, nanoseconds: at the
  // most steps per sample (a round's 512) the wake-up is far above 5 % of a sample.
  auto exp = gauge::make_experiment<gauge::HostBackend>("empty", [](gauge::HostStream) {});
  exp.config(quick()).threads(2);
  const gauge::Result r = exp.run();
  REQUIRE(r.status == gauge::Status::ok);
  CHECK(r.has_warning("thread_wake_overhead"));
  CHECK(r.sampling.steps_per_sample_reason.find("waking the 2 threads") != std::string::npos);
  // A step of 2 ms on each thread is long enough: one wake-up per sample is well below 5 %.
  auto slow = gauge::make_experiment<gauge::HostBackend>("slow", [](gauge::HostStream) {
    const auto until = std::chrono::steady_clock::now() + 2ms;
    while (std::chrono::steady_clock::now() < until) {
    }
  });
  gauge::Config c = quick();
  c.measure.max_time = 300ms;
  c.measure.max_sample_time = 1s;  // room for k: a loaded machine's slow wake-up still fits under 5 %
  slow.config(c).threads(2);
  const gauge::Result s = slow.run();
  REQUIRE(s.status == gauge::Status::ok);
  CHECK_FALSE(s.has_warning("thread_wake_overhead"));
}

TEST_CASE("threads: threads that take turns on a lock are named as not parallel", "[threads][host]") {
  // Each call holds one mutex while it spins 200 us: the calls of a step run one after the other
  // whatever the cores, and the waiting threads sleep, so CPU time per step is about its real time.
  std::mutex lock;
  auto exp = gauge::make_experiment<gauge::HostBackend>("locked", [&](gauge::HostStream) {
    std::lock_guard<std::mutex> held(lock);
    const auto until = std::chrono::steady_clock::now() + 200us;
    while (std::chrono::steady_clock::now() < until) {
    }
  });
  exp.config(quick()).threads(3);
  const gauge::Result r = exp.run();
  REQUIRE(r.status == gauge::Status::ok);
  REQUIRE(r.cpu_time.p50);
  CHECK(*r.cpu_time.p50 < 1.5 * *r.gpu_time.p50);
  CHECK(r.has_warning("threads_not_parallel"));
}

TEST_CASE("threads: one thread is the plain host step, and the dimension says 1", "[threads][host]") {
  Calls calls;
  auto exp = gauge::make_experiment<gauge::HostBackend>("one", [&](gauge::HostStream s) { calls.add(s); });
  exp.config(quick()).threads(1).flop(10);
  const gauge::Result r = exp.run();
  REQUIRE(r.status == gauge::Status::ok);
  CHECK(calls.indices == std::set<unsigned>{0});
  CHECK(calls.os_threads == std::set<std::thread::id>{std::this_thread::get_id()});
  CHECK(std::get<std::int64_t>(r.dimensions.at("threads")) == 1);
  CHECK(*r.gpu_throughput.flop_per_second == Approx(10.0 / *r.gpu_time.p50).epsilon(1e-12));
}

TEST_CASE("threads: an exception on a worker fails the result with its message", "[threads][host]") {
  std::atomic<std::size_t> calls{0};
  auto exp = gauge::make_experiment<gauge::HostBackend>("throws", [&](gauge::HostStream s) {
    ++calls;
    if (s.thread == 2) throw std::runtime_error("worker 2 gave up");
  });
  exp.config(quick()).threads(3);
  const gauge::Result r = exp.run();
  CHECK(r.status == gauge::Status::failed);
  REQUIRE(r.error);
  CHECK(r.error->find("worker 2 gave up") != std::string::npos);
  // The failing step ran to its end on every thread before the error surfaced.
  CHECK(calls.load() % 3 == 0);
}

TEST_CASE("threads: bad counts are refused, naming the value", "[threads][host]") {
  auto step = [](gauge::HostStream) {};
  auto exp = gauge::make_experiment<gauge::HostBackend>("bad", step);
  try {
    exp.threads(0);
    FAIL("threads(0) was accepted");
  } catch (const gauge::ConfigError& e) {
    CHECK(std::string(e.what()).find("got 0") != std::string::npos);
  }
  CHECK_THROWS_AS(exp.threads(4097), gauge::ConfigError);
  CHECK_THROWS_AS(gauge::HostBackend(0), gauge::ConfigError);
  // A suite's int64 axis value is checked before it is narrowed: 2^32 + 1 is not 1 thread.
  auto message = [](std::int64_t n) {
    try {
      gauge::HostBackend b(n);
      return std::string("accepted, ") + std::to_string(b.threads()) + " threads";
    } catch (const gauge::ConfigError& e) {
      return std::string(e.what());
    }
  };
  CHECK(message(4294967297LL) == "threads must be in [1, 4096], got 4294967297");
  CHECK(message(4294967296LL) == "threads must be in [1, 4096], got 4294967296");
  CHECK(message(-1) == "threads must be in [1, 4096], got -1");
  CHECK(message(4096) == "accepted, 4096 threads");
}

TEST_CASE("threads: HostBackend(1) asked for is a dimension, the plain backend has none", "[threads][host]") {
  auto step = [](gauge::HostStream) {};
  auto asked = gauge::make_experiment<gauge::HostBackend>("asked", step, gauge::HostBackend(1));
  asked.config(quick());
  const gauge::Result a = asked.run();
  REQUIRE(a.status == gauge::Status::ok);
  CHECK(std::get<std::int64_t>(a.dimensions.at("threads")) == 1);
  auto plain = gauge::make_experiment<gauge::HostBackend>("plain", step);
  plain.config(quick());
  const gauge::Result p = plain.run();
  REQUIRE(p.status == gauge::Status::ok);
  CHECK(p.dimensions.count("threads") == 0);
}

TEST_CASE("threads: a failure in a batch names the batch's steps", "[threads][host]") {
  // Thread 0 calls the step once per step, so its 40th call is step 40: the error names step 40,
  // or a batch of steps that holds it.
  std::atomic<std::size_t> thread0_calls{0};
  auto exp = gauge::make_experiment<gauge::HostBackend>("fails", [&](gauge::HostStream s) {
    if (s.thread == 0 && ++thread0_calls == 40) throw std::runtime_error("call 40 failed");
  });
  exp.config(quick()).threads(2);
  const gauge::Result r = exp.run();
  REQUIRE(r.status == gauge::Status::failed);
  REQUIRE(r.error);
  const std::string& e = *r.error;
  INFO(e);
  CHECK(e.find("call 40 failed") != std::string::npos);
  std::size_t first = 0, last = 0;
  if (const auto at = e.find("(steps "); at != std::string::npos) {
    CHECK(std::sscanf(e.c_str() + at, "(steps %zu-%zu, one batch on 2 threads)", &first, &last) == 2);
  } else if (const auto one = e.find("(step "); one != std::string::npos) {
    CHECK(std::sscanf(e.c_str() + one, "(step %zu)", &first) == 1);
    last = first;
  }
  CHECK(first <= 40);
  CHECK(last >= 40);
}

TEST_CASE("threads: a suite's thread-count axis", "[threads][host][suite]") {
  // The body reads the axis and runs on a HostBackend of that many threads: each point runs on
  // exactly that many threads, and its result in the report has the dimension.
  std::mutex m;
  std::vector<std::pair<std::int64_t, std::set<unsigned>>> seen;
  gauge::suite::Registry registry;
  registry
      .add("threaded",
           [&](gauge::Point& p) {
             const auto n = p.get_int64("threads");
             auto indices = std::make_shared<std::set<unsigned>>();
             auto lock = std::make_shared<std::mutex>();
             p.config() = quick();
             p.run_on(gauge::HostBackend(n), [indices, lock](gauge::HostStream s) {
               std::lock_guard<std::mutex> g(*lock);
               indices->insert(s.thread);
             });
             std::lock_guard<std::mutex> g(m);
             seen.emplace_back(n, *indices);
           })
      .int64_axis("threads", {1, 2, 3});
  const std::string path = (std::filesystem::temp_directory_path() / "gauge_test_threads_suite.json").string();
  gauge::suite::RunOptions o;
  o.out = path;
  gauge::suite::SuiteIo io;
  io.out = std::tmpfile();
  io.err = std::tmpfile();
  io.err_is_terminal = false;
  io.environment = [] { return gauge::Environment{}; };
  const gauge::suite::SuiteSummary summary = gauge::suite::run_suite(gauge::suite::plan_points(registry, o, io), o, io);
  std::fclose(io.out);
  std::fclose(io.err);
  CHECK(summary.ok == 3);
  REQUIRE(seen.size() == 3);
  for (const auto& [n, indices] : seen) {
    std::set<unsigned> expected;
    for (unsigned t = 0; t < static_cast<unsigned>(n); ++t) expected.insert(t);
    CHECK(indices == expected);
  }
  const gauge::StoredReport report = gauge::read_report(path);
  std::filesystem::remove(path);
  REQUIRE(report.results.size() == 3);
  for (std::size_t i = 0; i < 3; ++i)
    CHECK(std::get<std::int64_t>(report.results[i].dimensions.at("threads")) == static_cast<std::int64_t>(i + 1));
}

}  // namespace gauge_test_threads
