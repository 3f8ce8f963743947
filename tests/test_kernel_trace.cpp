// Kernel tracing (issue 14): summarize_trace on records written by hand, the CUPTI record parser
// on a fake CUPTI's buffers, and the protocol's traced round on the fake device. Expected values
// are worked out by hand in the comments (the fake device's times are exact sums of its script).

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "catch.hpp"
#include "fake_backend.hpp"
#include "fake_cupti.hpp"
#include "fake_timer_backend.hpp"
#include "gauge/core/kernel_trace_summary.hpp"
#include "gauge/env/cupti.hpp"
#include "gauge/experiment.hpp"
#include "gauge/report/console.hpp"
#include "gauge/timer.hpp"
#include "test_helpers.hpp"

#if __has_include(<cupti_activity.h>)
#include <cupti_activity.h>
#define GAUGE_TEST_HAVE_CUPTI_HEADER 1
#endif

// This file's own namespace: the unity build compiles several test files as one.
namespace gauge_test_kernel_trace {

using gauge::records::Activity;
using gauge::records::ActivityKind;
using gauge::summarize_trace;
using namespace gauge::testing;

namespace {

gauge::records::Activity act(const char* name, std::uint64_t start, std::uint64_t end, std::optional<std::uint64_t> unit,
             std::uint32_t stream = 7) {
  gauge::records::Activity a;
  a.name = name;
  a.start_ns = start;
  a.end_ns = end;
  a.unit = unit;
  a.stream_id = stream;
  a.grid[0] = 132;
  a.block[0] = 256;
  return a;
}

/// What `f` throws (its what()), or "(no exception)".
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no exception)";
}

const gauge::records::TracedKernel* find_kernel(const gauge::records::KernelTraceRecord& t, const std::string& name) {
  for (const auto& k : t.kernels)
    if (k.name == name) return &k;
  return nullptr;
}

}  // namespace

TEST_CASE("summarize_trace: two kernels per step, back to back, with a launch gap", "[kernel_trace]") {
  // Unit u starts at 1000 + 5500u ns: A runs 3000 ns, then B 1000 ns; the next unit starts 1500 ns
  // after B ends. One record (gauge's gate) belongs to no unit.
  std::vector<gauge::records::Activity> acts;
  for (std::uint64_t u = 0; u < 4; ++u) {
    const std::uint64_t base = 1000 + 5500 * u;
    acts.push_back(act("A", base, base + 3000, u));
    acts.push_back(act("B", base + 3000, base + 4000, u));
  }
  acts.push_back(act("gauge::gate_kernel", 0, 500, std::nullopt));
  const auto t = summarize_trace(acts, 4, 1, 5.5e-6);
  CHECK(t.status == "traced");
  CHECK(t.attribution == "external correlation");
  CHECK(t.records == 9);
  CHECK(t.attributed_records == 8);
  CHECK(t.steps == 4);
  REQUIRE(t.kernels.size() == 2);
  CHECK(t.kernels[0].name == "A");  // largest time per step first
  CHECK(t.kernels[0].launches == 4);
  CHECK(t.kernels[0].launches_per_step == 1.0);
  CHECK(*t.kernels[0].median_s == Approx(3e-6).epsilon(1e-12));
  CHECK(*t.kernels[0].p99_s == Approx(3e-6).epsilon(1e-12));
  CHECK(t.kernels[0].time_per_step_s == Approx(3e-6).epsilon(1e-12));
  CHECK(*t.kernels[0].share_of_step == Approx(3.0 / 5.5).epsilon(1e-12));
  CHECK(t.kernels[0].grid == std::vector<int>{132, 0, 0});
  CHECK(t.kernels[1].name == "B");
  CHECK(*t.kernels[1].median_s == Approx(1e-6).epsilon(1e-12));
  CHECK(find_kernel(t, "gauge::gate_kernel") == nullptr);
  // Spans between units 0..3: 5500 ns each; busy 4000 ns; gaps 1500 ns.
  CHECK(*t.device_period_s == Approx(5.5e-6).epsilon(1e-12));
  CHECK(*t.busy_per_step_s == Approx(4e-6).epsilon(1e-12));
  CHECK(*t.gaps_per_step_s == Approx(1.5e-6).epsilon(1e-9));
  CHECK(*t.busy_fraction == Approx(4.0 / 5.5).epsilon(1e-12));
  CHECK(*t.kernel_time_per_step_s == Approx(4e-6).epsilon(1e-12));
  CHECK(*t.closure == Approx(0.0).margin(1e-9));
  // The sample step is unit 2: A at [0, 3 us], B at [3, 4 us].
  REQUIRE(t.sample_step.size() == 2);
  CHECK(t.sample_step[0].name == "A");
  CHECK(t.sample_step[0].start_s == 0.0);
  CHECK(t.sample_step[0].end_s == Approx(3e-6).epsilon(1e-12));
  CHECK(t.sample_step[1].start_s == Approx(3e-6).epsilon(1e-12));
  CHECK(t.sample_step[1].end_s == Approx(4e-6).epsilon(1e-12));
}

TEST_CASE("summarize_trace: overlapping kernels on two streams count once in busy time", "[kernel_trace]") {
  // Per unit (5000 ns apart): A [0, 3000] on stream 7, B [1000, 4000] on stream 8. Union 4000 ns,
  // kernel time 6000 ns, gaps 1000 ns; closure (6000 + 1000) / 5000 - 1 = 0.4.
  std::vector<gauge::records::Activity> acts;
  for (std::uint64_t u = 0; u < 2; ++u) {
    acts.push_back(act("A", 5000 * u, 5000 * u + 3000, u, 7));
    acts.push_back(act("B", 5000 * u + 1000, 5000 * u + 4000, u, 8));
  }
  const auto t = summarize_trace(acts, 2, 1, 5e-6);
  CHECK(*t.busy_per_step_s == Approx(4e-6).epsilon(1e-12));
  CHECK(*t.kernel_time_per_step_s == Approx(6e-6).epsilon(1e-12));
  CHECK(*t.gaps_per_step_s == Approx(1e-6).epsilon(1e-9));
  CHECK(*t.busy_fraction == Approx(0.8).epsilon(1e-12));
  CHECK(*t.closure == Approx(0.4).epsilon(1e-9));
  REQUIRE(find_kernel(t, "B"));
  CHECK(find_kernel(t, "B")->streams == std::vector<std::uint32_t>{8});
}

TEST_CASE("summarize_trace: the p99 and median of launch durations are Hyndman-Fan type 7", "[kernel_trace]") {
  // Durations 1..100 us, one launch per unit. NumPy: np.percentile(np.arange(1, 101), 99) = 99.01,
  // np.median = 50.5.
  std::vector<gauge::records::Activity> acts;
  for (std::uint64_t i = 0; i < 100; ++i) acts.push_back(act("k", 200000 * i, 200000 * i + 1000 * (i + 1), i));
  const auto t = summarize_trace(acts, 100, 1, 200e-6);
  REQUIRE(t.kernels.size() == 1);
  CHECK(*t.kernels[0].p99_s == Approx(99.01e-6).epsilon(1e-12));
  CHECK(*t.kernels[0].median_s == Approx(50.5e-6).epsilon(1e-12));
  CHECK(*t.kernels[0].min_s == Approx(1e-6).epsilon(1e-12));
  CHECK(*t.kernels[0].max_s == Approx(100e-6).epsilon(1e-12));
  CHECK(*t.device_period_s == Approx(200e-6).epsilon(1e-12));
}

TEST_CASE("summarize_trace: without external correlation, records are tied in launch order when they divide evenly",
          "[kernel_trace]") {
  // Three units 5000 ns apart, two 500 ns kernels each (at 0 and 1000 ns into the unit), given
  // out of order: busy 1000 ns, span 5000 ns, gaps 4000 ns.
  std::vector<gauge::records::Activity> acts = {act("x", 11000, 11500, std::nullopt), act("x", 0, 500, std::nullopt),
                                act("x", 6000, 6500, std::nullopt),   act("x", 1000, 1500, std::nullopt),
                                act("x", 10000, 10500, std::nullopt), act("x", 5000, 5500, std::nullopt)};
  auto t = summarize_trace(acts, 3, 1, 5e-6);
  CHECK(t.attribution == "launch order");
  CHECK(t.attributed_records == 6);
  CHECK(t.kernels.at(0).launches_per_step == 2.0);
  CHECK(*t.device_period_s == Approx(5e-6).epsilon(1e-12));
  CHECK(*t.gaps_per_step_s == Approx(4e-6).epsilon(1e-9));
  // Seven records do not divide into three units: nothing is attributed, nothing is made up.
  acts.push_back(act("x", 15000, 15500, std::nullopt));
  t = summarize_trace(acts, 3, 1, 5e-6);
  CHECK(t.attribution.empty());
  CHECK(t.attributed_records == 0);
  CHECK(t.kernels.empty());
  CHECK_FALSE(t.device_period_s.has_value());
}

TEST_CASE("summarize_trace: graph replays of k steps divide per step", "[kernel_trace]") {
  // Two replays of 4 steps, 20000 ns apart, each 4 kernels of 4000 ns back to back: per step the
  // period is 5000 ns, busy 4000 ns, one launch.
  std::vector<gauge::records::Activity> acts;
  for (std::uint64_t u = 0; u < 2; ++u)
    for (std::uint64_t i = 0; i < 4; ++i) acts.push_back(act("g", 20000 * u + 4000 * i, 20000 * u + 4000 * (i + 1), u));
  const auto t = summarize_trace(acts, 2, 4, 5e-6);
  CHECK(t.steps == 8);
  CHECK(t.kernels.at(0).launches_per_step == 1.0);
  CHECK(*t.device_period_s == Approx(5e-6).epsilon(1e-12));
  CHECK(*t.busy_per_step_s == Approx(4e-6).epsilon(1e-12));
  CHECK(*t.kernel_time_per_step_s == Approx(4e-6).epsilon(1e-12));
}

TEST_CASE("summarize_trace: bad input names what is wrong", "[kernel_trace]") {
  CHECK(error_of([] { summarize_trace({}, 0, 1, std::nullopt); }).find("units must be >= 1") != std::string::npos);
  CHECK(error_of([] { summarize_trace({}, 1, 0, std::nullopt); }).find("steps_per_unit must be >= 1") != std::string::npos);
  CHECK(error_of([] { summarize_trace({act("late", 10, 5, 0)}, 1, 1, std::nullopt); })
            .find("activity 'late' ends (5 ns) before it starts (10 ns)") != std::string::npos);
  CHECK(error_of([] { summarize_trace({act("far", 0, 5, 3)}, 2, 1, std::nullopt); })
            .find("has unit 3, outside the round's 2 units") != std::string::npos);
  // No records: traced, but nothing attributed and no figures.
  const auto t = summarize_trace({}, 3, 1, 1e-6);
  CHECK(t.attributed_records == 0);
  CHECK_FALSE(t.busy_per_step_s.has_value());
}

TEST_CASE("cupti: records in CUPTI's layouts are read into activities, demangled, with external ids", "[kernel_trace]") {
  ScopedFakeCupti scoped;
  FakeCupti& f = scoped.fake;
  gauge::detail::cupti::Tracer tracer(gauge::detail::cupti::Library::active());
  REQUIRE(tracer.start().empty());
  CHECK(f.enabled == std::set<int>{1, 2, 4, 5, 10, 39});
  gauge::detail::cupti::record::Memcpy mc{};
  mc.kind = 1;
  mc.copy_kind = 8;  // CUPTI_ACTIVITY_MEMCPY_KIND_DTOD
  mc.bytes = 4096;
  mc.start = 100;
  mc.end = 600;
  mc.stream_id = 9;
  mc.correlation_id = 5;
  f.write(&mc, sizeof mc);
  gauge::detail::cupti::record::Memset ms{};
  ms.kind = 2;
  ms.bytes = 256;
  ms.start = 700;
  ms.end = 750;
  ms.stream_id = 9;
  ms.correlation_id = 6;
  f.write(&ms, sizeof ms);
  gauge::detail::cupti::record::ExternalCorrelation ours{39, 5, 42, 7, 0}, theirs{39, 3, 99, 8, 0};
  f.write(&ours, sizeof ours);
  f.write(&theirs, sizeof theirs);  // CUSTOM0 (a framework's): not gauge's
  f.kernel_ran(7, "_Z6kernelPfi", 1e-6, 3.5e-6, 2);
  f.dropped = 2;
  const auto c = tracer.stop();
  CHECK(f.enabled.empty());
  REQUIRE(c.activities.size() == 3);
  CHECK(c.activities[0].kind == gauge::records::ActivityKind::memcpy);
  CHECK(c.activities[0].name == "memcpy DtoD");
  CHECK(c.activities[0].bytes == 4096);
  CHECK(c.activities[0].end_ns - c.activities[0].start_ns == 500);
  CHECK(c.activities[1].name == "memset");
  CHECK(c.activities[1].bytes == 256);
  CHECK(c.activities[2].name == "kernel(float*, int)");
  CHECK(c.activities[2].start_ns == 1000);
  CHECK(c.activities[2].end_ns == 3500);
  CHECK(c.activities[2].stream_id == 9);
  CHECK(c.activities[2].correlation_id == 7);
  CHECK(c.activities[2].block[0] == 256);
  CHECK(c.activities[2].registers_per_thread == 32);
  CHECK(c.external == std::map<std::uint32_t, std::uint64_t>{{7, 42}});
  CHECK(c.dropped == 2);
}

#ifdef GAUGE_TEST_HAVE_CUPTI_HEADER
TEST_CASE("cupti: the declared record prefixes match the installed cupti_activity.h", "[kernel_trace]") {
  namespace rec = gauge::detail::cupti::record;
  CHECK(offsetof(CUpti_ActivityKernel10, registersPerThread) == offsetof(rec::Kernel, registers_per_thread));
  CHECK(offsetof(CUpti_ActivityKernel10, start) == offsetof(rec::Kernel, start));
  CHECK(offsetof(CUpti_ActivityKernel10, end) == offsetof(rec::Kernel, end));
  CHECK(offsetof(CUpti_ActivityKernel10, streamId) == offsetof(rec::Kernel, stream_id));
  CHECK(offsetof(CUpti_ActivityKernel10, gridX) == offsetof(rec::Kernel, grid_x));
  CHECK(offsetof(CUpti_ActivityKernel10, blockZ) == offsetof(rec::Kernel, block_z));
  CHECK(offsetof(CUpti_ActivityKernel10, staticSharedMemory) == offsetof(rec::Kernel, static_shared_memory));
  CHECK(offsetof(CUpti_ActivityKernel10, dynamicSharedMemory) == offsetof(rec::Kernel, dynamic_shared_memory));
  CHECK(offsetof(CUpti_ActivityKernel10, correlationId) == offsetof(rec::Kernel, correlation_id));
  CHECK(offsetof(CUpti_ActivityKernel10, name) == offsetof(rec::Kernel, name));
  CHECK(offsetof(CUpti_ActivityMemcpy6, copyKind) == offsetof(rec::Memcpy, copy_kind));
  CHECK(offsetof(CUpti_ActivityMemcpy6, bytes) == offsetof(rec::Memcpy, bytes));
  CHECK(offsetof(CUpti_ActivityMemcpy6, start) == offsetof(rec::Memcpy, start));
  CHECK(offsetof(CUpti_ActivityMemcpy6, streamId) == offsetof(rec::Memcpy, stream_id));
  CHECK(offsetof(CUpti_ActivityMemcpy6, correlationId) == offsetof(rec::Memcpy, correlation_id));
  CHECK(offsetof(CUpti_ActivityMemset4, bytes) == offsetof(rec::Memset, bytes));
  CHECK(offsetof(CUpti_ActivityMemset4, streamId) == offsetof(rec::Memset, stream_id));
  CHECK(offsetof(CUpti_ActivityMemset4, correlationId) == offsetof(rec::Memset, correlation_id));
  CHECK(offsetof(CUpti_ActivityExternalCorrelation, externalKind) == offsetof(rec::ExternalCorrelation, external_kind));
  CHECK(offsetof(CUpti_ActivityExternalCorrelation, externalId) == offsetof(rec::ExternalCorrelation, external_id));
  CHECK(offsetof(CUpti_ActivityExternalCorrelation, correlationId) == offsetof(rec::ExternalCorrelation, correlation_id));
  CHECK(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL == gauge::detail::cupti::kind::concurrent_kernel);
  CHECK(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION == gauge::detail::cupti::kind::external_correlation);
  CHECK(CUPTI_ACTIVITY_KIND_RUNTIME == gauge::detail::cupti::kind::runtime);
  CHECK(CUPTI_ACTIVITY_KIND_DRIVER == gauge::detail::cupti::kind::driver);
  CHECK(CUPTI_ACTIVITY_KIND_MEMCPY == gauge::detail::cupti::kind::memcpy);
  CHECK(CUPTI_ACTIVITY_KIND_MEMSET == gauge::detail::cupti::kind::memset);
  CHECK(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2 == gauge::detail::cupti::external_kind_gauge);
  CHECK(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED == gauge::detail::cupti::error_multiple_subscribers);
  CHECK(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED == gauge::detail::cupti::flush_forced);
  CHECK(CUPTI_ERROR_INVALID_KIND == gauge::detail::cupti::error_invalid_kind);
  CHECK(CUPTI_ERROR_MAX_LIMIT_REACHED == gauge::detail::cupti::error_max_limit_reached);
}
#endif

namespace {

gauge::Config quick_config() {
  using namespace std::chrono_literals;
  gauge::Config c;
  c.warmup.min_time = 1ms;
  c.warmup.max_time = 20ms;
  c.measure.min_time = 5ms;
  c.measure.max_time = 50ms;
  c.measure.streams = 1;
  c.telemetry_interval = 0ns;
  return c;
}

}  // namespace

TEST_CASE("trace_kernels: the protocol's traced round names the step's kernels and their times", "[kernel_trace]") {
  ScopedFakeCupti scoped;
  FakeDevice dev;
  scoped.fake.attach(dev);
  // The step: gemm 10 us, then relu 2 us; gated, the device runs them back to back, so the period
  // is 12 us, busy 12 us, no gaps, and the fake adds no tracing overhead.
  auto exp = fake_experiment(dev, [](FakeStream s) {
    s.kernel(10e-6, "_Z4gemmv");
    s.kernel(2e-6, "_Z4reluv");
  });
  exp.config(quick_config()).trace_kernels();
  const auto r = exp.run();
  REQUIRE(r.status == gauge::Status::ok);
  REQUIRE(r.kernel_trace.has_value());
  const auto& t = *r.kernel_trace;
  CHECK(t.status == "traced");
  CHECK(t.reason.empty());
  CHECK(t.tool == "CUPTI API version 130001 (fake libcupti)");
  CHECK(t.attribution == "external correlation");
  REQUIRE(t.steps >= 3);
  CHECK(scoped.fake.pushes == t.steps);
  CHECK(scoped.fake.pops == t.steps);
  CHECK(scoped.fake.enabled.empty());
  CHECK(t.records == 2 * t.steps);
  CHECK(t.attributed_records == 2 * t.steps);
  REQUIRE(t.kernels.size() == 2);
  CHECK(t.kernels[0].name == "gemm()");
  CHECK(*t.kernels[0].median_s == Approx(10e-6).epsilon(1e-6));
  CHECK(t.kernels[0].launches_per_step == 1.0);
  CHECK(*t.kernels[0].share_of_step == Approx(10.0 / 12).epsilon(1e-6));
  CHECK(t.kernels[1].name == "relu()");
  CHECK(*t.kernels[1].median_s == Approx(2e-6).epsilon(1e-6));
  CHECK(*t.period_s == Approx(12e-6).epsilon(1e-9));
  CHECK(*t.untraced_period_s == Approx(12e-6).epsilon(1e-9));
  CHECK(*t.tracing_overhead == Approx(0.0).margin(1e-9));
  CHECK(*t.device_period_s == Approx(12e-6).epsilon(1e-6));
  CHECK(*t.busy_per_step_s == Approx(12e-6).epsilon(1e-6));
  CHECK(*t.gaps_per_step_s == Approx(0.0).margin(1e-11));
  CHECK(*t.closure == Approx(0.0).margin(1e-6));
  CHECK(t.sample_step.size() == 2);
  CHECK_FALSE(r.has_warning(gauge::warning_code::kernel_trace_unavailable));
  CHECK(r.gpu_time.p50 == Approx(12e-6).epsilon(1e-9));
}

TEST_CASE("trace_kernels: a setup's kernels are not the step's, and show as a gap", "[kernel_trace]") {
  ScopedFakeCupti scoped;
  FakeDevice dev;
  scoped.fake.attach(dev);
  auto exp = fake_experiment(dev, [](FakeStream s) { s.kernel(10e-6, "_Z4stepv"); });
  exp.config(quick_config()).trace_kernels().setup([](FakeStream s) { s.kernel(1e-6, "_Z5resetv"); });
  const auto r = exp.run();
  REQUIRE(r.kernel_trace.has_value());
  const auto& t = *r.kernel_trace;
  CHECK(t.records == 2 * t.steps);        // reset and step, per step
  CHECK(t.attributed_records == t.steps);  // the step's only
  REQUIRE(t.kernels.size() == 1);
  CHECK(t.kernels[0].name == "step()");
  // Between steps' starts: the 1 us reset and the 10 us step.
  CHECK(*t.device_period_s == Approx(11e-6).epsilon(1e-6));
  CHECK(*t.gaps_per_step_s == Approx(1e-6).epsilon(1e-4));
  CHECK(*t.busy_fraction == Approx(10.0 / 11).epsilon(1e-6));
}

TEST_CASE("trace_kernels: not asked, nothing is loaded or enabled", "[kernel_trace]") {
  ScopedFakeCupti scoped;
  FakeDevice dev;
  scoped.fake.attach(dev);
  auto exp = fake_experiment(dev, [](FakeStream s) { s.kernel(10e-6); });
  const auto r = exp.config(quick_config()).run();
  CHECK_FALSE(r.kernel_trace.has_value());
  CHECK(scoped.fake.enables == 0);
  CHECK(scoped.fake.pushes == 0);
}

TEST_CASE("trace_kernels: without a usable CUPTI the result says why, and everything else is measured",
          "[kernel_trace]") {
  FakeDevice dev;
  auto exp = fake_experiment(dev, [](FakeStream s) { s.kernel(10e-6); });
  exp.config(quick_config()).trace_kernels();
  SECTION("a CUPTI that lacks an entry") {
    ScopedFakeCupti scoped(true);
    scoped.fake.attach(dev);
    const auto r = exp.run();
    REQUIRE(r.status == gauge::Status::ok);
    CHECK(r.gpu_time.p50 == Approx(10e-6).epsilon(1e-9));
    REQUIRE(r.kernel_trace.has_value());
    CHECK(r.kernel_trace->status == "unavailable");
    CHECK(r.kernel_trace->reason == "fake libcupti lacks cuptiActivityPushExternalCorrelationId");
    CHECK(r.has_warning(gauge::warning_code::kernel_trace_unavailable));
    CHECK(scoped.fake.enables == 0);
  }
  SECTION("an activity kind refused") {
    ScopedFakeCupti scoped;
    scoped.fake.attach(dev);
    scoped.fake.refuse_kind = gauge::detail::cupti::kind::runtime;
    const auto r = exp.run();
    REQUIRE(r.status == gauge::Status::ok);
    REQUIRE(r.kernel_trace.has_value());
    CHECK(r.kernel_trace->status == "unavailable");
    CHECK(r.kernel_trace->reason.find("cuptiActivityEnable(5)") != std::string::npos);
    CHECK(scoped.fake.enabled.empty());  // what it had enabled is disabled again
    CHECK(r.has_warning(gauge::warning_code::kernel_trace_unavailable));
    // The next experiment can trace: the session was released.
    scoped.fake.refuse_kind = -1;
    const auto again = exp.run();
    CHECK(again.kernel_trace->status == "traced");
  }
}

TEST_CASE("trace_kernels: CUPTI failing while tracing, or records that cannot be tied to the step, say so",
          "[kernel_trace]") {
  FakeDevice dev;
  ScopedFakeCupti scoped;
  scoped.fake.attach(dev);
  auto exp = fake_experiment(dev, [](FakeStream s) { s.kernel(10e-6, "_Z4stepv"); });
  exp.config(quick_config()).trace_kernels();
  SECTION("a push fails") {
    scoped.fake.push_result = gauge::detail::cupti::error_not_initialized;
    const auto r = exp.run();
    REQUIRE(r.status == gauge::Status::ok);
    REQUIRE(r.kernel_trace.has_value());
    CHECK(r.kernel_trace->status == "unavailable");
    CHECK(r.kernel_trace->reason.find("CUPTI failed while tracing: cuptiActivityPushExternalCorrelationId") == 0);
    CHECK(r.has_warning(gauge::warning_code::kernel_trace_unavailable));
    CHECK(scoped.fake.enabled.empty());
  }
  SECTION("a flush fails") {
    scoped.fake.flush_result = gauge::detail::cupti::error_not_initialized;
    const auto r = exp.run();
    REQUIRE(r.kernel_trace.has_value());
    CHECK(r.kernel_trace->status == "unavailable");
    CHECK(r.kernel_trace->reason.find("cuptiActivityFlushAll") != std::string::npos);
  }
  SECTION("no external correlation records, and a setup between steps") {
    scoped.fake.external_records = false;
    exp.setup([](FakeStream s) { s.kernel(1e-6, "_Z5resetv"); });
    const auto r = exp.run();
    REQUIRE(r.kernel_trace.has_value());
    CHECK(r.kernel_trace->status == "unavailable");
    CHECK(r.kernel_trace->reason.find("cannot be tied to the step by launch order") != std::string::npos);
    CHECK(r.kernel_trace->kernels.empty());  // reset() is not counted as the step's
  }
  SECTION("no external correlation records, nothing between steps: launch order") {
    scoped.fake.external_records = false;
    const auto r = exp.run();
    REQUIRE(r.kernel_trace.has_value());
    CHECK(r.kernel_trace->status == "traced");
    CHECK(r.kernel_trace->attribution == "launch order");
    REQUIRE(r.kernel_trace->kernels.size() == 1);
    CHECK(r.kernel_trace->kernels[0].launches_per_step == 1.0);
  }
  SECTION("launch order leaves out gauge's own kernels, templates included") {
    // gauge's gate, probe and flush kernels are function templates (two .cu files may include
    // them): CUPTI's mangled name of the gate (from nvcc's object, nm) demangles with its return
    // type first, "void gauge::backend_parts::cuda_compiled::gate_kernels::gate_kernel<0>(...)".
    scoped.fake.external_records = false;
    auto gated = fake_experiment(dev, [](FakeStream s) {
      s.kernel(1e-6, "_ZN5gauge13backend_parts13cuda_compiled12gate_kernels11gate_kernelILi0EEEvPVKjPVjjm");
      s.kernel(10e-6, "_Z4stepv");
    });
    gated.config(quick_config()).trace_kernels();
    const auto r = gated.run();
    REQUIRE(r.kernel_trace.has_value());
    CHECK(r.kernel_trace->status == "traced");
    REQUIRE(r.kernel_trace->kernels.size() == 1);
    CHECK(r.kernel_trace->kernels[0].name == "step()");
  }
}

TEST_CASE("trace_kernels: with another CUPTI client attached, tracing is disabled with a warning", "[kernel_trace]") {
  ScopedFakeCupti scoped;
  FakeDevice dev;
  scoped.fake.attach(dev);
  auto exp = fake_experiment(dev, [](FakeStream s) { s.kernel(10e-6); });
  exp.config(quick_config()).trace_kernels();
  SECTION("cuptiSubscribe refuses a second subscriber") {
    scoped.fake.subscribe_result = gauge::detail::cupti::error_multiple_subscribers;
    const auto r = exp.run();
    REQUIRE(r.kernel_trace.has_value());
    CHECK(r.kernel_trace->status == "disabled");
    CHECK(r.kernel_trace->reason.find("CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED") != std::string::npos);
    CHECK(r.has_warning(gauge::warning_code::profiler_attached));
    CHECK(scoped.fake.enables == 0);
  }
  SECTION("a CUDA injection library (ncu, nsys)") {
    ::setenv("CUDA_INJECTION64_PATH", "/opt/nsight/libTool.so", 1);
    const auto r = exp.run();
    ::unsetenv("CUDA_INJECTION64_PATH");
    REQUIRE(r.kernel_trace.has_value());
    CHECK(r.kernel_trace->status == "disabled");
    CHECK(r.kernel_trace->reason.find("CUDA_INJECTION64_PATH=/opt/nsight/libTool.so") != std::string::npos);
    CHECK(r.has_warning(gauge::warning_code::profiler_attached));
  }
}

TEST_CASE("gauge::tracing: linking its static library registers CUPTI's tracers before main", "[kernel_trace]") {
  // The tests link gauge::tracing (or, sanitized, a library holding src/tracing.cpp with
  // GAUGE_LINKS_TRACING): nothing in this program names the tracing part but the registration that
  // gauge/core/config.hpp names, so without it the linker would leave the archive's file out and
  // both factories would be null (CTest compiled_parts checks that gauge::gauge's archive lacks it).
  // (This test names no tracing symbol itself, which would make the linker take the file.)
  CHECK(gauge::detail::kernel_tracing_linked);
  CHECK(gauge::detail::kernel_tracer_factory() != nullptr);
  CHECK(gauge::detail::timer_trace_factory() != nullptr);
}

TEST_CASE("trace_kernels: a program without kernel tracing compiled in says how to get it, with a warning",
          "[kernel_trace]") {
  // As in a plain build whose GAUGE_IMPLEMENTATION file does not include <gauge/tracing.hpp>: no
  // factory registered. The run measures as usual; CUPTI is never touched.
  ScopedFakeCupti scoped;
  FakeDevice dev;
  scoped.fake.attach(dev);
  auto exp = fake_experiment(dev, [](FakeStream s) { s.kernel(10e-6); });
  exp.config(quick_config()).trace_kernels();
  auto& factory = gauge::detail::kernel_tracer_factory();
  const auto saved = factory;
  factory = nullptr;
  const auto r = exp.run();
  factory = saved;
  REQUIRE(r.status == gauge::Status::ok);
  CHECK(r.gpu_time.p50 == Approx(10e-6).epsilon(1e-9));
  REQUIRE(r.kernel_trace.has_value());
  CHECK(r.kernel_trace->status == "unavailable");
  CHECK(r.kernel_trace->reason ==
        "kernel tracing is not compiled into this program: link gauge::tracing through CMake, or include "
        "<gauge/tracing.hpp> in the file that defines GAUGE_IMPLEMENTATION");
  const auto w = std::find_if(r.warnings.begin(), r.warnings.end(), [](const gauge::Warning& x) {
    return x.code == gauge::warning_code::kernel_trace_unavailable;
  });
  REQUIRE(w != r.warnings.end());
  CHECK(w->severity == gauge::Severity::warning);  // asked for and not done: not a note
  CHECK(scoped.fake.enables == 0);
  // With the factory back, the same experiment traces.
  CHECK(exp.run().kernel_trace->status == "traced");
}

TEST_CASE("trace_kernels: the host backend runs no kernels to trace", "[kernel_trace]") {
  ScopedFakeCupti scoped;
  auto exp = gauge::make_experiment<gauge::HostBackend>("host", [](gauge::HostStream) {
    volatile double x = 0;
    for (int i = 0; i < 100; ++i) x = x + i;
  });
  auto c = quick_config();
  exp.config(c).trace_kernels();
  const auto r = exp.run();
  REQUIRE(r.kernel_trace.has_value());
  CHECK(r.kernel_trace->status == "unavailable");
  CHECK(r.kernel_trace->reason == "the host backend runs no GPU kernels");
  CHECK(r.has_warning(gauge::warning_code::kernel_trace_unavailable));
  CHECK(scoped.fake.enables == 0);
}

TEST_CASE("kernel_table: the traced kernels of each result, largest first, and why one was not traced",
          "[kernel_trace]") {
  std::vector<gauge::records::Activity> acts;
  for (std::uint64_t u = 0; u < 4; ++u) {
    const std::uint64_t base = 5500 * u;
    acts.push_back(act("A", base, base + 3000, u));
    acts.push_back(act("B", base + 3000, base + 4000, u));
  }
  gauge::Result traced, refused, plain;
  traced.name = "two";
  traced.kernel_trace = summarize_trace(acts, 4, 1, 5.5e-6);
  traced.kernel_trace->tracing_overhead = 0.004;
  refused.name = "under ncu";
  refused.kernel_trace = gauge::records::KernelTraceRecord{};
  refused.kernel_trace->status = "disabled";
  refused.kernel_trace->reason = "another CUPTI subscriber is attached";
  plain.name = "plain";
  const std::string text = gauge::formats::kernel_table({traced, refused, plain}, 1);
  // Hand-written: period 5.5 us, busy 4 us of 5.5 (72.7 %), gaps 1.5 us, overhead 0.4 %; A's
  // 3 us a step is 54.5 % of 5.5 us; only the top 1 is listed.
  CHECK(text.find("kernels of two (4 steps traced): period 5.5 us (events), busy 4 us (72.7 %), gaps 1.5 us, "
                  "kernels + gaps = 100.0 % of the period, tracing overhead 0.4 %\n") != std::string::npos);
  const auto row = text.find("\n  A ");
  REQUIRE(row != std::string::npos);
  const std::string line = text.substr(row + 1, text.find('\n', row + 1) - row - 1);
  CHECK(line.find(" kernel ") != std::string::npos);
  CHECK(line.find("3 us") != std::string::npos);
  CHECK(line.find("54.5 %") != std::string::npos);
  CHECK(text.find("\n  B ") == std::string::npos);
  CHECK(text.find("  ... and 1 more\n") != std::string::npos);
  CHECK(text.find("kernels of under ncu: not traced (disabled): another CUPTI subscriber is attached\n") != std::string::npos);
  CHECK(text.find("plain") == std::string::npos);
  CHECK(gauge::formats::kernel_table({plain}).empty());
}

// ---- the Timer (TimerConfig::trace_kernels) -----------------------------------------------------

namespace {

using FakeTimer = gauge::Timer<gauge::testing::FakeTimerBackend>;

gauge::TimerConfig traced_timer_config() {
  gauge::TimerConfig c;
  c.warmup_steps = 0;
  c.level = gauge::timer_level::detailed;
  c.log_every = 5;
  c.trace_kernels = true;
  return c;
}

/// A kernel launched from the Timer's loop: an API call the fake CUPTI sees (with the external id
/// pushed now), a kernel on the fake Timer device, and its activity record at `clock`.
struct Launcher {
  gauge::testing::FakeCupti& cupti;
  gauge::testing::FakeTimerDevice& dev;
  double clock = 0;
  void operator()(const char* name, double seconds) {
    const std::uint32_t corr = cupti.launch();
    dev.kernel(0, seconds);
    cupti.kernel_ran(corr, name, clock, clock + seconds, 0);
    clock += seconds;
  }
};

const gauge::records::TimerRegionKernels* region_kernels(const gauge::records::TimerKernelTrace& t, const std::string& name) {
  for (const auto& r : t.regions)
    if (r.region == name) return &r;
  return nullptr;
}

}  // namespace

TEST_CASE("Timer at level 2 traces one step every log_every steps, each kernel under its innermost region",
          "[kernel_trace][timer]") {
  ScopedFakeCupti scoped;
  gauge::testing::FakeTimerDevice dev;
  FakeTimer t("train", gauge::testing::FakeTimerBackend(&dev), traced_timer_config());
  Launcher launch{scoped.fake, dev};
  const auto fwd = t.region("forward"), attn = t.region("attention", gauge::timer_level::detailed);
  for (int i = 0; i < 12; ++i) {
    launch.clock = dev.host;   // the device runs the step's kernels back to back from the host's time
    launch("_Z3optv", 20e-6);  // outside every region
    t.start(fwd);
    launch("_Z3fwdv", 100e-6);
    t.start(attn);
    launch("_Z4attnv", 50e-6);
    t.stop(attn);
    t.stop(fwd);
    t.phase("backward");
    launch("_Z3bwdv", 150e-6);
    launch("_Z3bwdv", 150e-6);
    t.step();
    dev.advance(1e-3);
    t.poll();
  }
  const auto s = t.finish();
  REQUIRE(s.kernel_trace.has_value());
  const auto& k = *s.kernel_trace;
  INFO(k.reason);
  REQUIRE(k.status == "traced");
  // No warm-up: the 5th step's end (step 4) starts tracing step 5, collected when step 6 (whose
  // first kernel marks where step 5 ended) resolves; the count starts again at step 7, so step
  // 11's end starts tracing step 12, which never ends. The last collected is step 5.
  CHECK(k.step == std::optional<std::size_t>(5));
  CHECK(k.records == 10);  // step 5's and step 6's (whose first marks where step 5 ended)
  CHECK(k.attributed_records == 5);
  CHECK(*k.kernel_time_s == Approx(470e-6).epsilon(1e-9));
  // The step's time from the markers: 1 ms (the host advances 1 ms a step; the device idles).
  CHECK(*k.step_gpu_time_s == Approx(1e-3).epsilon(1e-9));
  REQUIRE(k.regions.size() == 4);
  CHECK(k.regions.back().region == "(outside regions)");
  const auto* f = region_kernels(k, "forward");
  const auto* a = region_kernels(k, "attention");
  const auto* b = region_kernels(k, "backward");
  const auto* o = region_kernels(k, "(outside regions)");
  REQUIRE((f && a && b && o));
  CHECK(f->kernels.at(0).name == "fwd()");
  CHECK(f->kernel_time_s == Approx(100e-6).epsilon(1e-9));
  CHECK(a->kernels.at(0).name == "attn()");  // launched inside attention, inside forward
  CHECK(b->kernels.at(0).launches == 2);
  CHECK(b->kernel_time_s == Approx(300e-6).epsilon(1e-9));
  CHECK(*b->kernels.at(0).share_of_step == Approx(0.3).epsilon(1e-6));
  CHECK(o->kernels.at(0).name == "opt()");
  // Steps start 1 ms apart: 470 us busy, 530 us of gaps, which with the kernels make the 1 ms the
  // markers measured.
  CHECK(*k.device_period_s == Approx(1e-3).epsilon(1e-9));
  CHECK(*k.busy_s == Approx(470e-6).epsilon(1e-9));
  CHECK(*k.gaps_s == Approx(530e-6).epsilon(1e-6));
  CHECK(*k.closure == Approx(0.0).margin(1e-6));
  CHECK(s.counters.host_synchronizations == 0);  // tracing added no wait
  const std::string text = gauge::detail::timer_summary_text(s);
  CHECK(text.find("timer train kernels of step 5 (1 ms; kernels 470 us, gaps 530 us, kernels + gaps = 100 % of the step):\n") !=
        std::string::npos);
  CHECK(text.find("  backward 300 us: bwd() x2 300 us\n") != std::string::npos);
}

TEST_CASE("Timer kernel tracing: regions stopped out of order keep the innermost open one", "[kernel_trace][timer]") {
  ScopedFakeCupti scoped;
  gauge::testing::FakeTimerDevice dev;
  auto c = traced_timer_config();
  c.log_every = 1;
  FakeTimer t("t", gauge::testing::FakeTimerBackend(&dev), c);
  Launcher launch{scoped.fake, dev};
  for (int i = 0; i < 3; ++i) {
    t.start("a");
    t.start("b");
    t.stop("a");  // b stays open
    launch("_Z1kv", 10e-6);
    t.stop("b");
    t.step();
    dev.advance(1e-3);
    t.poll();
  }
  const auto s = t.finish();
  REQUIRE(s.kernel_trace.has_value());
  REQUIRE(s.kernel_trace->status == "traced");
  REQUIRE(s.kernel_trace->regions.size() == 1);
  CHECK(s.kernel_trace->regions[0].region == "b");
  // log_every 1: step 0's end starts tracing step 1; step 2's end starts step 3's, never ended.
  CHECK(s.kernel_trace->step == std::optional<std::size_t>(1));
}

TEST_CASE("Timer kernel tracing: regions open across the traced step's boundaries count only its own work",
          "[kernel_trace][timer]") {
  ScopedFakeCupti scoped;
  gauge::testing::FakeTimerDevice dev;
  auto c = traced_timer_config();
  c.log_every = 3;
  FakeTimer t("t", gauge::testing::FakeTimerBackend(&dev), c);
  Launcher launch{scoped.fake, dev};
  // "epoch" is opened once and never stopped; "straddle" opens in one step and stops in the next.
  t.start("epoch");
  for (int i = 0; i < 8; ++i) {
    launch.clock = dev.host;
    launch("_Z6insidev", 10e-6);  // inside epoch (and inside straddle on odd steps)
    if (i % 2 == 0) t.start("straddle");
    else t.stop("straddle");
    launch("_Z4tailv", 5e-6);
    t.step();
    dev.advance(1e-3);
    t.poll();
  }
  const auto s = t.finish();
  REQUIRE(s.kernel_trace.has_value());
  const auto& k = *s.kernel_trace;
  INFO(k.reason);
  REQUIRE(k.status == "traced");
  // No warm-up: step 2's end starts tracing step 3 (odd: straddle is open at its start and stops
  // in it), collected when step 4 resolves. Step 3 launched exactly two kernels.
  CHECK(k.step == std::optional<std::size_t>(3));
  CHECK(k.attributed_records == 2);
  CHECK(*k.kernel_time_s == Approx(15e-6).epsilon(1e-9));
  const auto* straddle = region_kernels(k, "straddle");
  const auto* epoch = region_kernels(k, "epoch");
  REQUIRE((straddle && epoch));
  CHECK(straddle->kernels.at(0).name == "inside()");  // straddle was the innermost open region
  CHECK(epoch->kernels.at(0).name == "tail()");       // after straddle stopped: epoch
  CHECK(region_kernels(k, "(outside regions)") == nullptr);
}

TEST_CASE("Timer kernel tracing: finish() during a traced step leaves CUPTI as it was", "[kernel_trace][timer]") {
  ScopedFakeCupti scoped;
  gauge::testing::FakeTimerDevice dev;
  auto c = traced_timer_config();
  c.log_every = 2;
  {
    FakeTimer t("t", gauge::testing::FakeTimerBackend(&dev), c);
    Launcher launch{scoped.fake, dev};
    for (int i = 0; i < 2; ++i) {  // step 1's end starts tracing step 2
      launch.clock = dev.host;
      launch("_Z1kv", 1e-6);
      t.step();
      dev.advance(1e-3);
      t.poll();
    }
    t.start("open");
    CHECK_FALSE(scoped.fake.enabled.empty());  // step 2 is being traced
    (void)t.finish();
    CHECK(scoped.fake.enabled.empty());
    CHECK(scoped.fake.external.empty());
    t.stop("open");
  }
  CHECK(scoped.fake.external.empty());
}

TEST_CASE("Timer kernel tracing: two Timers on one thread never take each other's regions", "[kernel_trace][timer]") {
  // Two loops timed on one thread (a training step and an evaluation step, each with its own
  // Timer), both tracing: CUPTI has one activity stream per process, so one traces at a time; the
  // other's sampled step is refused while it does, or traced when it does not. Neither may put the
  // other's kernels under its own region names (the ids each pushes are its own).
  ScopedFakeCupti scoped;
  gauge::testing::FakeTimerDevice dev;
  auto c = traced_timer_config();
  c.log_every = 3;
  FakeTimer train("train", gauge::testing::FakeTimerBackend(&dev), c);
  auto c_eval = c;
  c_eval.log_every = static_cast<std::size_t>(GENERATE(3, 4, 5));  // samples at the same or other steps
  FakeTimer eval("eval", gauge::testing::FakeTimerBackend(&dev), c_eval);
  Launcher launch{scoped.fake, dev};
  const auto fwd = train.region("forward");
  const auto score = eval.region("score");
  for (int i = 0; i < 14; ++i) {
    launch.clock = dev.host;
    train.start(fwd);
    launch("_Z3fwdv", 100e-6);
    train.stop(fwd);
    eval.start(score);
    launch("_Z5scorev", 30e-6);
    eval.stop(score);
    train.step();
    eval.step();
    dev.advance(1e-3);
    train.poll();
    eval.poll();
  }
  const auto a = train.finish();
  const auto b = eval.finish();
  REQUIRE(a.kernel_trace.has_value());
  REQUIRE(b.kernel_trace.has_value());
  INFO(a.kernel_trace->reason << " | " << b.kernel_trace->reason);
  // Each Timer's last sampled step is traced, or refused with the reason while the other traces;
  // at least one is traced (the first to sample).
  CHECK((a.kernel_trace->status == "traced" || b.kernel_trace->status == "traced"));
  for (const auto* t : {&*a.kernel_trace, &*b.kernel_trace}) {
    if (t->status != "traced") {
      CHECK(t->status == "unavailable");
      CHECK(t->reason.find("another experiment or Timer of this process is tracing kernels now") != std::string::npos);
      continue;
    }
    for (const auto& r : t->regions)
      for (const auto& k : r.kernels) {
        INFO(r.region << ": " << k.name);
        // A region of this Timer holds only the kernels launched inside it; the other Timer's
        // kernels, launched in this Timer's step but outside its regions, are "(outside regions)".
        if (r.region == "forward") CHECK(k.name == "fwd()");
        if (r.region == "score") CHECK(k.name == "score()");
      }
  }
  if (a.kernel_trace->status == "traced") {
    const auto* f = region_kernels(*a.kernel_trace, "forward");
    REQUIRE(f);
    CHECK(f->kernel_time_s == Approx(100e-6).epsilon(1e-9));
    CHECK(region_kernels(*a.kernel_trace, "score") == nullptr);
  }
  if (b.kernel_trace->status == "traced") {
    const auto* sc = region_kernels(*b.kernel_trace, "score");
    REQUIRE(sc);
    CHECK(sc->kernel_time_s == Approx(30e-6).epsilon(1e-9));
    CHECK(region_kernels(*b.kernel_trace, "forward") == nullptr);
  }
  CHECK(scoped.fake.enabled.empty());
  CHECK(scoped.fake.external.empty());
}

TEST_CASE("Timer kernel tracing: off below level 2, and bad settings or backends say why", "[kernel_trace][timer]") {
  ScopedFakeCupti scoped;
  gauge::testing::FakeTimerDevice dev;
  auto c = traced_timer_config();
  c.level = gauge::timer_level::normal;
  {
    FakeTimer t("t", gauge::testing::FakeTimerBackend(&dev), c);
    for (int i = 0; i < 12; ++i) {
      t.step();
      dev.advance(1e-3);
      t.poll();
    }
    CHECK_FALSE(t.finish().kernel_trace.has_value());
    CHECK(scoped.fake.enables == 0);
  }
  c.level = gauge::timer_level::detailed;
  c.log_every = 0;
  CHECK(error_of([&] { FakeTimer("t", gauge::testing::FakeTimerBackend(&dev), c); })
            .find("TimerConfig.trace_kernels samples one step every log_every steps") != std::string::npos);
  c.log_every = 2;
  gauge::Timer<gauge::HostTimerBackend> host("h", gauge::HostTimerBackend{}, c);
  for (int i = 0; i < 5; ++i) host.step();
  const auto s = host.finish();
  REQUIRE(s.kernel_trace.has_value());
  CHECK(s.kernel_trace->status == "unavailable");
  CHECK(s.kernel_trace->reason == "the host backend runs no GPU kernels");
  CHECK(scoped.fake.enables == 0);
}

}  // namespace gauge_test_kernel_trace
