// gauge::Timer on the fake timer backend (virtual clock, scripted device): lazy resolution,
// windowing, nesting, phases, other streams, flush, forced waits, warm-up, the no-op level,
// logging, errors, JSON and the report. Every expected value is derived by hand in a comment from
// the script (kernel durations on the fake's virtual stream; host costs are zero unless said).

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <new>
#include <random>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

#include "catch.hpp"
#include "test_helpers.hpp"
#include "fake_timer_backend.hpp"
#include "gauge/backends/timer_backends.hpp"
#include "gauge/core/ranks.hpp"
#include "gauge/report.hpp"
#include "gauge/report/timer_json.hpp"
#include "gauge/timer.hpp"

// ---- counting every heap allocation of the program while `g_counting` is set ----------------------
// (Replaces the global operator new/delete for the whole test binary; counting is off unless a test
// turns it on around code that must not allocate.)
namespace {
std::atomic<bool> g_counting{false};
std::atomic<long> g_allocations{0};
}  // namespace
// Every form is replaced (plain, array, nothrow, aligned, sized), all on malloc/free: a sanitizer's
// allocator (ASan) replaces the forms left out, and memory from its operator new freed here by
// free() is an alloc-dealloc mismatch. None is inlined: GCC 12 would otherwise see free() of a
// pointer from malloc() and warn (-Wmismatched-new-delete), although these replacements match.
namespace {
void* counted_alloc(std::size_t n, std::size_t alignment) noexcept {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (alignment <= alignof(std::max_align_t)) return std::malloc(n ? n : 1);
  void* p = nullptr;
  return ::posix_memalign(&p, alignment, n ? n : 1) == 0 ? p : nullptr;
}
void* counted_alloc_or_throw(std::size_t n, std::size_t alignment) {
  if (void* p = counted_alloc(n, alignment)) return p;
  throw std::bad_alloc();
}
}  // namespace
__attribute__((noinline)) void* operator new(std::size_t n) { return counted_alloc_or_throw(n, 0); }
__attribute__((noinline)) void* operator new[](std::size_t n) { return counted_alloc_or_throw(n, 0); }
__attribute__((noinline)) void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return counted_alloc(n, 0); }
__attribute__((noinline)) void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return counted_alloc(n, 0); }
__attribute__((noinline)) void* operator new(std::size_t n, std::align_val_t a) {
  return counted_alloc_or_throw(n, static_cast<std::size_t>(a));
}
__attribute__((noinline)) void* operator new[](std::size_t n, std::align_val_t a) {
  return counted_alloc_or_throw(n, static_cast<std::size_t>(a));
}
__attribute__((noinline)) void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_alloc(n, static_cast<std::size_t>(a));
}
__attribute__((noinline)) void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_alloc(n, static_cast<std::size_t>(a));
}
__attribute__((noinline)) void operator delete(void* p) noexcept { std::free(p); }
__attribute__((noinline)) void operator delete[](void* p) noexcept { std::free(p); }
__attribute__((noinline)) void operator delete(void* p, std::size_t) noexcept { std::free(p); }
__attribute__((noinline)) void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
__attribute__((noinline)) void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
__attribute__((noinline)) void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
__attribute__((noinline)) void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
__attribute__((noinline)) void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
__attribute__((noinline)) void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
__attribute__((noinline)) void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
__attribute__((noinline)) void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
__attribute__((noinline)) void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  std::free(p);
}

// This file's own namespace: the unity build compiles several test files as one.
namespace gauge_test_timer {

using gauge::testing::config_error_of;
using gauge::testing::contains;
using gauge::testing::FakeTimerBackend;
using gauge::testing::FakeTimerDevice;
using FakeTimer = gauge::Timer<FakeTimerBackend>;
namespace fs = std::filesystem;

namespace {

/// Allocations made by `f` (counted by the replaced operator new).
template <class F>
long allocations_of(F&& f) {
  g_allocations = 0;
  g_counting = true;
  f();
  g_counting = false;
  return g_allocations.load();
}

gauge::TimerConfig no_warmup() {
  gauge::TimerConfig c;
  c.warmup_steps = 0;
  return c;
}

const gauge::records::TimerRegionSummary& region_named(const gauge::TimerSummary& s, const std::string& name) {
  for (const auto& r : s.regions)
    if (r.name == name) return r;
  throw std::logic_error("no region " + name);
}

/// Lets the fake device finish, resolves the Timer's pending steps, and returns the median of
/// region `name`'s rolling window (seconds per step).
double settled_window_median(FakeTimer& t, FakeTimerDevice& dev, const std::string& name) {
  dev.run_until_idle();
  t.poll();
  return *region_named(t.summary(), name).window.time_per_step_s.p50;
}

fs::path fresh_dir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("gauge-timer-test-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

}  // namespace

TEST_CASE("the allocation counter of these tests counts allocations", "[timer]") {
  // Control for the "allocates nothing" checks below: a direct operator new call (a new-expression
  // could be elided) and one vector growth are 2.
  const long n = allocations_of([] {
    ::operator delete(::operator new(16));
    std::vector<int> v;
    v.push_back(1);
  });
  CHECK(n == 2);
}

TEST_CASE("a step is resolved lazily: query says not yet until the device reaches its markers", "[timer]") {
  FakeTimerDevice dev;
  FakeTimer t("train", FakeTimerBackend(&dev), no_warmup());
  // Host at 0: the step's markers are recorded at device times 0 (start), 1 ms (stop, step).
  t.start("forward");
  dev.kernel(0, 1e-3);
  t.stop("forward");
  t.step();
  // step() asked once (1 query) and did not wait.
  CHECK(t.summary().counters.pending_steps == 1);
  CHECK(t.summary().counters.resolved_steps == 0);
  CHECK(dev.queries == 1);
  CHECK(dev.waits == 0);
  CHECK(dev.elapsed_calls == 0);
  dev.advance(0.5e-3);  // the device is half-way through the kernel
  CHECK(t.poll() == 0);
  CHECK(dev.queries == 2);
  dev.advance(0.5e-3);  // host and device at 1 ms: every marker reached
  CHECK(t.poll() == 1);
  CHECK(dev.queries == 3);
  CHECK(dev.waits == 0);
  const auto s = t.summary();
  CHECK(s.counters.host_synchronizations == 0);
  CHECK(s.counters.pending_steps == 0);
  REQUIRE(s.window.gpu_time_s.p50);
  CHECK(*s.window.gpu_time_s.p50 == Approx(1e-3));
  const auto fwd = region_named(s, "forward");
  REQUIRE(fwd.window.time_per_step_s.p50);
  CHECK(*fwd.window.time_per_step_s.p50 == Approx(1e-3));
  REQUIRE(fwd.window.share_of_step);
  CHECK(*fwd.window.share_of_step == Approx(1.0));
  // Markers went back to the pool: only the last step boundary (the next step's start) is held.
  CHECK(dev.in_use() == 1);
}

TEST_CASE("the window summarizes the last W steps with type-7 percentiles and totals cover all", "[timer]") {
  FakeTimerDevice dev;
  gauge::TimerConfig c = no_warmup();
  c.window = 5;
  c.peak_flop_per_s = 1e12;
  c.peak_source = "test";
  FakeTimer t("train", FakeTimerBackend(&dev), c);
  const auto r = t.region("forward");
  // Step i (0..6) runs one kernel of d_i = (i + 1) ms; the host waits for the device after each
  // step, so step i is called at host time S_i = d_0 + ... + d_{i-1}.
  for (int i = 0; i < 7; ++i) {
    t.start(r);
    dev.kernel(0, (i + 1) * 1e-3);
    t.stop(r);
    t.step(gauge::StepWork().tokens(1000).flop(1e9));
    dev.run_until_idle();
    t.poll();
  }
  const auto s = t.summary();
  // Window: steps 2..6. GPU time per step = d_i: {3, 4, 5, 6, 7} ms.
  CHECK(s.window.steps == 5);
  CHECK(*s.window.first_step == 2);
  CHECK(*s.window.last_step == 6);
  const auto& g = s.window.gpu_time_s;
  CHECK(g.n == 5);
  CHECK(*g.min == Approx(3e-3));
  CHECK(*g.max == Approx(7e-3));
  CHECK(*g.p50 == Approx(5e-3));
  // p90: h = (5 - 1) * 0.9 = 3.6 -> x[3] + 0.6 (x[4] - x[3]) = 6 + 0.6 = 6.6 ms.
  CHECK(*g.p90 == Approx(6.6e-3));
  // p10: h = 0.4 -> 3 + 0.4 = 3.4 ms.
  CHECK(*g.p10 == Approx(3.4e-3));
  CHECK(*g.mean == Approx(5e-3));
  // stddev: sqrt((4 + 1 + 0 + 1 + 4) / 4) ms = sqrt(2.5) ms = 1.58114 ms.
  CHECK(*g.stddev == Approx(1.58114e-3).epsilon(1e-5));
  // Wall time of step i = S_i - S_{i-1} = d_{i-1} = i ms (step 0: 0, from the first call):
  // window {2, 3, 4, 5, 6} ms, median 4 ms, sum 20 ms.
  CHECK(*s.window.wall_time_s.p50 == Approx(4e-3));
  // Throughput over the GPU step time (3 + 4 + 5 + 6 + 7 = 25 ms), not the host's 20 ms:
  // 5 x 1000 tokens / 25 ms = 200 000 tokens/s; 5e9 FLOP / 25 ms = 2e11 FLOP/s, MFU 2e11 / 1e12 = 0.2.
  CHECK(*s.window.throughput.item_per_second("tokens") == Approx(200000));
  CHECK(*s.window.throughput.flop_per_second == Approx(2e11));
  CHECK(*s.window.throughput.mfu == Approx(0.2));
  CHECK_FALSE(s.window.throughput.item_per_second("samples"));  // never declared
  const auto fwd = region_named(s, "forward");
  CHECK(fwd.window.steps == 5);
  CHECK(*fwd.window.time_per_step_s.p50 == Approx(5e-3));
  CHECK(*fwd.window.share_of_step == Approx(1.0));
  // Totals over all 7 steps: GPU {1..7} ms: n 7, sum 28 ms, mean 4 ms, stddev sqrt(28 / 6) ms.
  const auto& tg = s.total.gpu_time_s;
  CHECK(s.total.steps == 7);
  CHECK(tg.n == 7);
  CHECK(*tg.sum == Approx(28e-3));
  CHECK(*tg.mean == Approx(4e-3));
  CHECK(*tg.stddev == Approx(std::sqrt(28.0 / 6.0) * 1e-3));
  CHECK(*tg.min == Approx(1e-3));
  CHECK(*tg.max == Approx(7e-3));
  // Histogram percentiles: nearest rank k = ceil(0.5 * 7) = 4 -> 4 ms, within 0.5 %;
  // p99: k = ceil(6.93) = 7 -> 7 ms (clamped to the max), within 0.5 %.
  CHECK(*tg.p50 == Approx(4e-3).epsilon(0.005));
  CHECK(*tg.p99 == Approx(7e-3).epsilon(0.005));
  // Total wall {0, 1, ..., 6} ms = 21 ms; throughput over the 28 ms of GPU step time:
  // 7000 tokens / 28 ms = 250 000 tokens/s, 7e9 FLOP / 28 ms / 1e12 = MFU 0.25.
  CHECK(*s.total.wall_time_s.sum == Approx(21e-3));
  CHECK(*s.total.throughput.item_per_second("tokens") == Approx(250000));
  CHECK(*s.total.throughput.mfu == Approx(0.25));
  CHECK(*region_named(s, "forward").total.share_of_step == Approx(1.0));
}

TEST_CASE("a rate is reported only when every step of the set declared that work", "[timer]") {
  FakeTimerDevice dev;
  FakeTimer t("train", FakeTimerBackend(&dev), no_warmup());
  for (int i = 0; i < 4; ++i) {
    dev.kernel(0, 1e-3);
    t.step(i % 2 ? gauge::StepWork().tokens(10).samples(2) : gauge::StepWork().samples(2));
    dev.run_until_idle();
    t.poll();
  }
  const auto s = t.summary();
  // Step 0 takes 0 s: the Timer starts at its first call, here step() itself, after the kernel
  // was enqueued (its first marker lands at 1 ms, with the step's). Steps 1..3 take 1 ms each on
  // the device: 4 x 2 samples / 3 ms.
  CHECK(*s.total.gpu_time_s.min == 0.0);
  CHECK_FALSE(s.total.throughput.item_per_second("tokens"));  // steps 0 and 2 declared no tokens
  REQUIRE(s.total.throughput.item_per_second("samples"));
  CHECK(*s.total.throughput.item_per_second("samples") == Approx(8 / 3e-3));
  CHECK_FALSE(s.total.throughput.mfu);  // no FLOP, no peak
}

TEST_CASE("steady state: one marker per boundary, no host synchronization, bounded pool, no allocation",
          "[timer]") {
  FakeTimerDevice dev;
  gauge::TimerConfig c;
  c.warmup_steps = 20;
  FakeTimer t("train", FakeTimerBackend(&dev), c);
  const auto a = t.region("forward"), b = t.region("backward"), o = t.region("optimizer");
  // A step: the host takes 350 us, then enqueues 100 + 200 + 50 us of kernels. The device finishes
  // step k when the host starts step k + 1, so step() resolves the previous step (up to rounding of
  // the virtual clock, one more) and the pool stops growing after the first steps.
  auto one_step = [&] {
    dev.advance(350e-6);
    t.start(a);
    dev.kernel(0, 100e-6);
    t.stop(a);
    {
      auto s = t.scope(b);
      dev.kernel(0, 200e-6);
    }
    t.start(o);
    dev.kernel(0, 50e-6);
    t.stop(o);
    t.step(gauge::StepWork().tokens(4096));
  };
  for (int i = 0; i < 100; ++i) one_step();
  const std::size_t pool_at_100 = dev.created;
  const long allocations = allocations_of([&] {
    for (int i = 100; i < 10000; ++i) one_step();
  });
  CHECK(allocations == 0);                 // no heap allocation in 9900 steady-state steps
  CHECK(dev.created == pool_at_100);       // the pool did not grow: markers are recycled
  CHECK(dev.created <= 1 + 3 * 7);         // at most 3 steps' markers (7 each) + the first call's
  CHECK(dev.waits == 0);                   // no host synchronization
  auto s = t.summary();
  // 1 marker at the first call + 7 per step (6 region boundaries + the step boundary).
  CHECK(s.counters.markers_recorded == 1 + 7 * 10000);
  CHECK(s.counters.region_boundaries == 6 * 10000);
  CHECK(s.counters.host_synchronizations == 0);
  CHECK(s.counters.markers_created_after_warmup == 0);
  const auto f = t.finish();
  // finish() waited once, for the last step (its marker is 350 us ahead of the host's clock).
  CHECK(f.counters.host_synchronizations == 1);
  CHECK(dev.waits == 1);
  CHECK(f.final);
  CHECK(f.total.steps == 10000 - 20);
  CHECK(f.counters.warmup_steps == 20);
  CHECK(*f.total.gpu_time_s.mean == Approx(350e-6));
  CHECK(*f.total.wall_time_s.mean == Approx(350e-6));
  CHECK(*region_named(f, "backward").total.share_of_step == Approx(200.0 / 350.0));
  // 4096 tokens per 350 us step.
  CHECK(*f.total.throughput.item_per_second("tokens") == Approx(4096 / 350e-6));
}

TEST_CASE("nested regions are timed on their own and repeated occurrences in a step add up", "[timer]") {
  FakeTimerDevice dev;
  FakeTimer t("train", FakeTimerBackend(&dev), no_warmup());
  const auto outer = t.region("outer");
  // outer [ 1 ms, inner [2 ms], 0.5 ms, inner [1 ms] ] = 4.5 ms; inner = 2 + 1 = 3 ms in 2 occurrences.
  t.start(outer);
  dev.kernel(0, 1e-3);
  {
    auto s = t.scope("inner");
    dev.kernel(0, 2e-3);
  }
  dev.kernel(0, 0.5e-3);
  {
    auto s = t.scope("inner");
    dev.kernel(0, 1e-3);
  }
  t.stop(outer);
  t.step();
  dev.run_until_idle();
  t.poll();
  const auto s = t.summary();
  const auto o = region_named(s, "outer");
  const auto in = region_named(s, "inner");
  CHECK(*o.window.time_per_step_s.p50 == Approx(4.5e-3));
  CHECK(*in.window.time_per_step_s.p50 == Approx(3e-3));
  CHECK(in.window.occurrences == 2);
  CHECK(in.window.steps == 1);
  CHECK(in.parent == "outer");
  CHECK(o.parent.empty());
  // Shares of the 4.5 ms step: outer 1, inner 3 / 4.5 = 2/3 (nested shares overlap).
  CHECK(*o.window.share_of_step == Approx(1.0));
  CHECK(*in.window.share_of_step == Approx(2.0 / 3.0));
}

TEST_CASE("start_offset_s: the window median of where each region first starts in its step", "[timer]") {
  FakeTimerDevice dev;
  auto c = no_warmup();
  c.window = 9;
  FakeTimer t("train", FakeTimerBackend(&dev), c);
  const auto comm = t.region("comm");
  // Step i: "forward" (1, 2 or 3 ms), then "comm" 0.5 ms twice (two occurrences: the first
  // counts), then "tail" 0.25 ms. comm's first start is 1, 2 or 3 ms into the step: the median of
  // {1, 2, 3, 1, 2, 3, 1, 2, 3} ms is 2 ms; forward's is 0; tail's 1 + 1 = 2, 2 + 1 = 3, 3 + 1 = 4
  // ms, median 3 ms.
  for (int i = 0; i < 9; ++i) {
    t.phase("forward");
    dev.kernel(0, (1 + i % 3) * 1e-3);
    t.phase("between");
    t.start(comm);
    dev.kernel(0, 0.5e-3);
    t.stop(comm);
    t.start(comm);
    dev.kernel(0, 0.5e-3);
    t.stop(comm);
    t.phase("tail");
    dev.kernel(0, 0.25e-3);
    t.step();
    dev.run_until_idle();
    t.poll();
  }
  // Reads per step: 1 (the step) + 5 (each interval's time: comm twice) + 2 (the starts of
  // forward and comm, each on a marker of its own); between and tail start on the marker where
  // the previous phase stopped, whose offset is known: no read.
  CHECK(dev.elapsed_calls == 9 * 8);
  const auto s = t.summary();
  CHECK(*region_named(s, "forward").window.start_offset_s == Approx(0).margin(1e-12));
  CHECK(*region_named(s, "comm").window.start_offset_s == Approx(2e-3));
  CHECK(*region_named(s, "between").window.start_offset_s == Approx(2e-3));
  CHECK(*region_named(s, "tail").window.start_offset_s == Approx(3e-3));
  CHECK(*region_named(s, "comm").window.time_per_step_s.p50 == Approx(1e-3));
  // A region that never ran in the window has no offset.
  const auto idle = t.region("idle");
  (void)idle;
  CHECK_FALSE(region_named(t.summary(), "idle").window.start_offset_s.has_value());
}

TEST_CASE("name_region_straggler: the last to arrive where early ranks wait, else the slowest", "[timer][ranks]") {
  auto ranked = [](double lo, int lo_rank, double hi, int hi_rank) {
    gauge::records::RankedValue v;
    v.min = lo;
    v.min_rank = lo_rank;
    v.max = hi;
    v.max_rank = hi_rank;
    return v;
  };
  gauge::records::RankedRegion collective; // rank 3 arrives 19 ms late; rank 0 waits 19 ms inside
  collective.time_per_step_s = ranked(0.2e-3, 3, 19.2e-3, 0);
  collective.start_offset_s = ranked(1e-3, 0, 20e-3, 3);
  gauge::detail::name_region_straggler(collective);
  CHECK(collective.straggler_rank == 3);
  CHECK(collective.straggler_by == "arrival");
  gauge::records::RankedRegion compute; // all start at once; rank 3 takes 19 ms longer
  compute.time_per_step_s = ranked(1e-3, 0, 20e-3, 3);
  compute.start_offset_s = ranked(0, 1, 0.01e-3, 2);
  gauge::detail::name_region_straggler(compute);
  CHECK(compute.straggler_rank == 3);
  CHECK(compute.straggler_by == "time");
  // The boundary: arrivals spread by exactly half the time spread count as arrival.
  gauge::records::RankedRegion half;
  half.time_per_step_s = ranked(1e-3, 0, 3e-3, 1);
  half.start_offset_s = ranked(0, 0, 1e-3, 2);
  gauge::detail::name_region_straggler(half);
  CHECK(half.straggler_rank == 2);
  CHECK(half.straggler_by == "arrival");
  // A report from before schema 1.8 (no offsets): the slowest; nothing at all: none.
  gauge::records::RankedRegion old;
  old.time_per_step_s = ranked(1e-3, 0, 2e-3, 1);
  gauge::detail::name_region_straggler(old);
  CHECK(old.straggler_rank == 1);
  CHECK(old.straggler_by == "time");
  gauge::records::RankedRegion empty;
  gauge::detail::name_region_straggler(empty);
  CHECK_FALSE(empty.straggler_rank.has_value());
  CHECK(empty.straggler_by.empty());
}

TEST_CASE("phases share one marker per boundary: k phases cost k + 1 markers per step", "[timer]") {
  FakeTimerDevice dev;
  FakeTimer t("train", FakeTimerBackend(&dev), no_warmup());
  for (int i = 0; i < 10; ++i) {
    t.phase("forward");
    dev.kernel(0, 1e-3);
    t.phase("backward");
    dev.kernel(0, 2e-3);
    t.phase("optimizer");
    dev.kernel(0, 0.5e-3);
    t.step();  // ends "optimizer" at the step's marker
    dev.run_until_idle();
    t.poll();
  }
  const auto s = t.summary();
  // 1 marker at the first call, then 3 phases + 1 step = 4 per step; 3 phases x 2 boundaries.
  CHECK(s.counters.markers_recorded == 1 + 4 * 10);
  CHECK(s.counters.region_boundaries == 6 * 10);
  CHECK(*region_named(s, "forward").window.time_per_step_s.p50 == Approx(1e-3));
  CHECK(*region_named(s, "backward").window.time_per_step_s.p50 == Approx(2e-3));
  CHECK(*region_named(s, "optimizer").window.time_per_step_s.p50 == Approx(0.5e-3));
  // Step 3.5 ms: shares 1/3.5, 2/3.5, 0.5/3.5.
  CHECK(*s.window.gpu_time_s.p50 == Approx(3.5e-3));
  CHECK(*region_named(s, "backward").window.share_of_step == Approx(2.0 / 3.5));
  CHECK(region_named(s, "forward").kind == "phase");
  CHECK(dev.in_use() == 1);  // all shared markers released exactly once
  CHECK(dev.bad_releases == 0);
}

TEST_CASE("flush waits once for the last step and resolves every pending step", "[timer]") {
  FakeTimerDevice dev;
  FakeTimer t("train", FakeTimerBackend(&dev), no_warmup());
  // The host never advances: 10 steps of 1 ms are enqueued at host time 0 and none completes.
  for (int i = 0; i < 10; ++i) {
    auto s = t.scope("forward");
    dev.kernel(0, 1e-3);
    s.stop();
    t.step(gauge::StepWork().tokens(100));
  }
  CHECK(t.summary().counters.pending_steps == 10);
  CHECK(dev.waits == 0);
  t.flush();
  // One wait, on the last step's marker at 10 ms; then every step is complete.
  CHECK(dev.waits == 1);
  CHECK(dev.host == Approx(10e-3));
  auto s = t.summary();
  CHECK(s.counters.pending_steps == 0);
  CHECK(s.counters.resolved_steps == 10);
  CHECK(s.counters.host_synchronizations == 1);
  CHECK(s.window.steps == 10);
  CHECK(*s.window.gpu_time_s.p50 == Approx(1e-3));
  // The host ran ahead (0 s of host time per step): throughput comes from the steps' time on the
  // device clock, 100 tokens per 1 ms, not from the host's clock (which would say infinite).
  CHECK(*s.window.wall_time_s.max == 0.0);
  CHECK(*s.window.throughput.item_per_second("tokens") == Approx(100 / 1e-3));
  const auto f = t.finish();  // nothing left to wait for
  CHECK(dev.waits == 1);
  CHECK(f.final);
  for (const auto& w : f.warnings) CHECK(w.code != std::string(gauge::warning_code::timer_unresolved_steps));
}

TEST_CASE("a region on another stream resolves when its own stop marker completes", "[timer]") {
  FakeTimerDevice dev;
  FakeTimer t("train", FakeTimerBackend(&dev), no_warmup());
  const auto comm = t.region("allreduce");
  // Step 0: stream 1 runs 5 ms inside the region; the Timer's stream runs 1 ms. Host at 0.
  t.start(comm, gauge::testing::FakeTimerStream{1});
  dev.kernel(1, 5e-3);
  t.stop(comm);
  dev.kernel(0, 1e-3);
  t.step();
  dev.advance(1e-3);  // the step marker (1 ms) is reached, the region's stop (5 ms) is not
  CHECK(t.poll() == 0);
  dev.advance(4e-3);
  CHECK(t.poll() == 1);
  auto s = t.summary();
  const auto r = region_named(s, "allreduce");
  CHECK(r.stream == "other");
  CHECK(*r.window.time_per_step_s.p50 == Approx(5e-3));
  CHECK(*s.window.gpu_time_s.p50 == Approx(1e-3));
  CHECK(*r.window.share_of_step == Approx(5.0));  // overlaps the step's stream: shares can exceed 1
  // Step 1, host at 5 ms: stream 1 runs 5..10 ms, stream 0 runs 5..6 ms. flush() waits for the
  // step marker (6 ms) and then for the other stream's stop (10 ms): two host synchronizations.
  t.start(comm, gauge::testing::FakeTimerStream{1});
  dev.kernel(1, 5e-3);
  t.stop(comm);
  dev.kernel(0, 1e-3);
  t.step();
  t.flush();
  CHECK(dev.waits == 2);
  CHECK(dev.host == Approx(10e-3));
  s = t.summary();
  CHECK(s.counters.host_synchronizations == 2);
  // Step 1's GPU time: from step 0's marker (1 ms) to its own (6 ms) = 5 ms.
  CHECK(*s.window.gpu_time_s.max == Approx(5e-3));
  CHECK(region_named(s, "allreduce").window.steps == 2);
}

TEST_CASE("more pending steps than max_pending_steps force a counted wait", "[timer]") {
  FakeTimerDevice dev;
  gauge::TimerConfig c = no_warmup();
  c.max_pending_steps = 4;
  FakeTimer t("train", FakeTimerBackend(&dev), c);
  // Host never advances by itself; step i's marker completes at (i + 1) ms. Steps 0..3 stay
  // pending; from step 4 on, each step() finds 5 pending and waits for the oldest: 6 waits.
  for (int i = 0; i < 10; ++i) {
    dev.kernel(0, 1e-3);
    t.step();
  }
  auto s = t.summary();
  CHECK(s.counters.forced_waits == 6);
  CHECK(s.counters.host_synchronizations == 6);
  CHECK(s.counters.pending_steps == 4);
  CHECK(s.counters.resolved_steps == 6);
  bool warned = false;
  for (const auto& w : s.warnings)
    if (w.code == std::string(gauge::warning_code::timer_forced_wait)) warned = contains(w.message, "6 step(s)");
  CHECK(warned);
}

TEST_CASE("warm-up steps are excluded from every summary", "[timer]") {
  FakeTimerDevice dev;
  gauge::TimerConfig c;
  c.warmup_steps = 3;
  FakeTimer t("train", FakeTimerBackend(&dev), c);
  // Steps of 10, 10, 10 (warm-up), then 1 and 2 ms.
  for (double d : {10e-3, 10e-3, 10e-3, 1e-3, 2e-3}) {
    t.start("forward");
    dev.kernel(0, d);
    t.stop("forward");
    t.step();
    dev.run_until_idle();
    t.poll();
  }
  const auto s = t.summary();
  CHECK(s.counters.warmup_steps == 3);
  CHECK(s.counters.resolved_steps == 5);
  CHECK(s.window.steps == 2);
  CHECK(*s.window.first_step == 3);
  CHECK(*s.window.gpu_time_s.mean == Approx(1.5e-3));
  CHECK(s.total.gpu_time_s.n == 2);
  CHECK(*s.total.gpu_time_s.max == Approx(2e-3));
  CHECK(region_named(s, "forward").total.steps == 2);
  CHECK(*region_named(s, "forward").total.time_per_step_s.mean == Approx(1.5e-3));
}

TEST_CASE("a region above the Timer's level is a no-op: no backend call, no allocation, no record", "[timer]") {
  FakeTimerDevice dev;
  FakeTimer t("train", FakeTimerBackend(&dev), no_warmup());  // level 1 (normal)
  const auto fine = t.region("per_layer", gauge::timer_level::detailed);
  const std::size_t calls = dev.calls;
  const long allocations = allocations_of([&] {
    for (int i = 0; i < 1000; ++i) {
      t.start(fine);
      t.stop(fine);
      { auto s = t.scope(fine); }
      t.phase(fine);
      t.start("attention", 2);
      t.stop("attention", 2);
      { auto s = t.scope("mlp", 2); }
      t.phase("comm", 2);
    }
  });
  CHECK(allocations == 0);
  CHECK(dev.calls == calls);  // not even the clock was read
  CHECK(dev.records == 0);
  const auto s = t.summary();
  CHECK(s.regions.size() == 1);  // the disabled names were never registered
  // Level 2: the same region records (1 marker at the first call + start + stop).
  t.level(gauge::timer_level::detailed);
  t.start(fine);
  t.stop(fine);
  CHECK(dev.records == 3);
  // Level -1 (off): every region is a no-op, the step itself is still timed.
  t.step();
  t.level(gauge::timer_level::off);
  const std::size_t before = dev.records;
  t.start("forward", 0);
  t.stop("forward", 0);
  t.step();
  CHECK(dev.records == before + 1);
}

TEST_CASE("levels: unknown values throw ConfigError naming them and the level changes only between steps", "[timer]") {
  FakeTimerDevice dev;
  FakeTimer t("train", FakeTimerBackend(&dev), no_warmup());
  CHECK(contains(config_error_of([&] { t.level(3); }), "level 3"));
  CHECK(contains(config_error_of([&] { t.level(-2); }), "level -2"));
  CHECK(contains(config_error_of([&] { t.region("x", -1); }), "level -1"));
  CHECK(contains(config_error_of([&] { t.start("x", 7); }), "level 7"));
  CHECK(contains(config_error_of([&] { (void)t.scope("x", 9); }), "level 9"));
  t.start("forward");
  CHECK(contains(config_error_of([&] { t.level(2); }), "'forward' is open"));
  t.stop("forward");
  t.step();
  CHECK(config_error_of([&] { t.level(2); }).empty());
  CHECK(t.level() == 2);
  gauge::TimerConfig c;
  c.level = 5;
  CHECK(contains(config_error_of([&] { FakeTimer bad("x", FakeTimerBackend(&dev), c); }), "got 5"));
}

TEST_CASE("misuse throws ConfigError naming the region or the value, and loses nothing", "[timer]") {
  FakeTimerDevice dev;
  FakeTimer t("train", FakeTimerBackend(&dev), no_warmup());
  const auto fwd = t.region("forward");
  CHECK(contains(config_error_of([&] { t.stop(fwd); }), "stop of region 'forward', which was not started"));
  CHECK(contains(config_error_of([&] { t.stop("never"); }), "'never', which was never started"));
  t.start(fwd);
  CHECK(contains(config_error_of([&] { t.start(fwd); }), "'forward', which is already started"));
  CHECK(contains(config_error_of([&] { t.phase(fwd); }), "'forward' is a start/stop region"));
  {  // helper-17 #4: starting the open phase names its kind, not "already started"
    FakeTimer p("phases", FakeTimerBackend(&dev), no_warmup());
    const auto y = p.region("y");
    p.phase(y);
    CHECK(contains(config_error_of([&] { p.start(y); }), "'y' is a phase (use phase()) and cannot also be a start/stop region"));
  }
  CHECK(contains(config_error_of([&] { t.region("forward", 2); }), "registered at level 1 and is used at level 2"));
  CHECK(contains(config_error_of([&] { t.start(gauge::TimerRegion{42, 1}); }), "region handle 42"));
  {  // helper-17 #6: a handle of another Timer whose id is valid here is refused, not timed here
    FakeTimer other("other", FakeTimerBackend(&dev), no_warmup());
    const auto foreign = other.region("x");  // id 0, as t's first region "forward"
    REQUIRE(foreign.id == fwd.id);
    for (const std::string& e : {config_error_of([&] { t.start(foreign); }), config_error_of([&] { t.stop(foreign); }),
                                 config_error_of([&] { t.phase(foreign); }), config_error_of([&] { (void)t.scope(foreign); })})
      CHECK(contains(e, "region handle 0 does not belong to this Timer (another Timer returned it)"));
    CHECK(contains(config_error_of([&] { t.stop(gauge::TimerRegion{fwd.id, fwd.level}); }), "not returned by a Timer's region()"));
    t.stop(fwd);  // still open: the refused calls changed nothing
    other.start(foreign);  // and the handle works on its own Timer
    other.stop(foreign);
    t.start(fwd);
  }
  CHECK(contains(config_error_of([&] { t.region(""); }), "must not be empty"));
  CHECK(contains(config_error_of([&] { gauge::StepWork().tokens(-1); }), "tokens"));
  CHECK(contains(config_error_of([&] { gauge::StepWork().flop(std::nan("")); }), "flop"));
  CHECK(contains(config_error_of([&] { FakeTimer bad("", FakeTimerBackend(&dev)); }), "name"));
  gauge::TimerConfig c;
  c.window = 0;
  CHECK(contains(config_error_of([&] { FakeTimer bad("x", FakeTimerBackend(&dev), c); }), "window"));
  c = gauge::TimerConfig{};
  c.max_pending_steps = 0;
  CHECK(contains(config_error_of([&] { FakeTimer bad("x", FakeTimerBackend(&dev), c); }), "max_pending_steps"));
  c = gauge::TimerConfig{};
  c.peak_flop_per_s = -1;
  CHECK(contains(config_error_of([&] { FakeTimer bad("x", FakeTimerBackend(&dev), c); }), "got -1"));
  c = gauge::TimerConfig{};
  c.confidence_level = 1.5;
  CHECK(contains(config_error_of([&] { FakeTimer bad("x", FakeTimerBackend(&dev), c); }), "1.5"));
  // After all that, the open region still stops and the step is timed.
  dev.kernel(0, 2e-3);
  t.stop(fwd);
  t.step();
  CHECK(settled_window_median(t, dev, "forward") == Approx(2e-3));
}

TEST_CASE("an error stopping a scope is kept and thrown by the next step()", "[timer]") {
  FakeTimerDevice dev;
  FakeTimer t("train", FakeTimerBackend(&dev), no_warmup());
  const auto r = t.region("forward");
  {
    auto s = t.scope(r);
    dev.kernel(0, 1e-3);
    t.stop(r);  // stopped by hand: the scope's own stop will fail in its destructor
  }
  const std::string e = config_error_of([&] { t.step(); });
  CHECK(contains(e, "at the end of a scope"));
  CHECK(contains(e, "'forward'"));
  t.step();  // the error was reported once; the interval stopped by hand belongs to this step
  CHECK(settled_window_median(t, dev, "forward") == Approx(1e-3));
}

TEST_CASE("a failed resolution drops that step only and keeps everything resolved before", "[timer]") {
  FakeTimerDevice dev;
  FakeTimer t("train", FakeTimerBackend(&dev), no_warmup());
  // Each step reads 3 elapsed times (the step, the region, and where the region starts in the
  // step, its own marker): step 1's first read is call 3.
  dev.fail_elapsed_call = 3;
  for (int i = 0; i < 3; ++i) {
    t.start("forward");
    dev.kernel(0, (i + 1) * 1e-3);
    t.stop("forward");
    t.step();
    dev.run_until_idle();
    if (i == 1) {
      CHECK_THROWS_AS(t.poll(), std::runtime_error);
    } else {
      CHECK(t.poll() == 1);
    }
  }
  const auto s = t.summary();
  CHECK(s.counters.failed_steps == 1);
  CHECK(s.counters.resolved_steps == 2);
  CHECK(s.total.gpu_time_s.n == 2);  // steps 0 (1 ms) and 2 (3 ms)
  CHECK(*s.total.gpu_time_s.mean == Approx(2e-3));
  CHECK(*region_named(s, "forward").total.time_per_step_s.mean == Approx(2e-3));
  bool warned = false;
  for (const auto& w : s.warnings)
    if (w.code == std::string(gauge::warning_code::timer_resolution_failed))
      warned = contains(w.message, "step 1") && contains(w.message, "scripted device fault");
  CHECK(warned);
  CHECK(dev.in_use() == 1);  // the failed step's markers were released
  CHECK(dev.bad_releases == 0);
}

TEST_CASE("the destructor gives every marker back, open regions and pending steps included", "[timer]") {
  FakeTimerDevice dev;
  {
    FakeTimer t("train", FakeTimerBackend(&dev), no_warmup());
    for (int i = 0; i < 5; ++i) {
      t.phase("forward");
      t.start("outer");
      dev.kernel(0, 1e-3);
      t.stop("outer");
      t.step();
    }
    t.start("open");
    t.phase("forward");
    CHECK(dev.in_use() > 10);
  }
  CHECK(dev.in_use() == 0);
  CHECK(dev.bad_releases == 0);
}

TEST_CASE("a sink registered with the default config runs every 100 steps after warm-up", "[timer]") {
  // The new user's trap: on_log(ConsoleSink{}) with log_every at its old default 0 never printed.
  FakeTimerDevice dev;
  gauge::TimerConfig c;
  CHECK(c.log_every == 100);
  FakeTimer t("train", FakeTimerBackend(&dev), c);
  std::vector<std::size_t> logged;
  t.on_log([&](const gauge::TimerSummary& s) { logged.push_back(*s.window.last_step); });
  // 20 warm-up steps (0..19), then measured steps 20..; by hand, the 100th and 200th measured
  // steps are steps 119 and 219.
  for (int i = 0; i < 250; ++i) {
    t.phase("forward");
    dev.kernel(0, 1e-4);
    t.step();
    dev.run_until_idle();
    t.poll();
  }
  CHECK(logged == std::vector<std::size_t>{119, 219});
}

TEST_CASE("logging every N steps calls the sinks with the window: JSON Lines and console", "[timer]") {
  const fs::path dir = fresh_dir("log");
  FakeTimerDevice dev;
  gauge::TimerConfig c;
  c.warmup_steps = 1;
  c.log_every = 2;
  FakeTimer t("train", FakeTimerBackend(&dev), c);
  std::vector<std::size_t> logged_steps, window_sizes;
  t.on_log([&](const gauge::TimerSummary& s) {
    logged_steps.push_back(*s.window.last_step);
    window_sizes.push_back(s.window.steps);
  });
  t.on_log(gauge::JsonLinesSink(dir / "train.jsonl"));
  std::FILE* console = std::tmpfile();
  REQUIRE(console);
  t.on_log(gauge::ConsoleSink{console});
  CHECK_THROWS_AS(t.on_log(gauge::TimerSink{}), gauge::ConfigError);
  // Steps 0..4, each resolved at once; step 0 is warm-up, so steps 1..4 are measured and the
  // sinks run after the 2nd and 4th measured steps: steps 2 and 4.
  for (int i = 0; i < 5; ++i) {
    t.phase("forward");
    dev.kernel(0, 1e-3);
    t.step(gauge::StepWork().tokens(100));
    dev.run_until_idle();
    t.poll();
  }
  CHECK(logged_steps == std::vector<std::size_t>{2, 4});
  CHECK(window_sizes == std::vector<std::size_t>{2, 4});
  std::ifstream in(dir / "train.jsonl");
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  REQUIRE(lines.size() == 2);
  CHECK(lines[0]["timer"] == "train");
  CHECK(lines[0]["step"] == 2);
  CHECK(lines[1]["step"] == 4);
  CHECK(lines[1]["regions"]["forward"]["p50"].get<double>() == Approx(1e-3));
  CHECK(lines[1]["throughput"]["tokens_per_s"].get<double>() == Approx(100 / 1e-3));
  CHECK(lines[1]["throughput"]["mfu"].is_null());
  std::rewind(console);
  char buf[512] = {};
  REQUIRE(std::fgets(buf, sizeof buf, console));
  std::fclose(console);
  const std::string first(buf);
  CHECK(contains(first, "timer train step 2"));
  CHECK(contains(first, "forward 1 ms 100 %"));
  CHECK(contains(first, "100 Ktokens/s (mean step)"));
  CHECK_THROWS_AS(gauge::JsonLinesSink(dir / "missing" / "x.jsonl"), gauge::ReportError);
}

TEST_CASE("the Timer's JSON has nulls where undefined and goes into the report's timers list", "[timer]") {
  FakeTimerDevice dev;
  FakeTimer t("train", FakeTimerBackend(&dev), no_warmup());
  (void)t.region("forward");
  nlohmann::json empty = t.summary();
  CHECK(empty["window"]["gpu_time_per_step_s"]["p50"].is_null());
  CHECK(empty["total"]["gpu_time_per_step_s"]["mean"].is_null());
  CHECK(empty["total"]["throughput"]["mfu"].is_null());
  CHECK(empty["config"]["peak_flop_per_s"].is_null());
  CHECK(empty["regions"][0]["parent"].is_null());
  CHECK(empty["window"]["first_step"].is_null());
  for (int i = 0; i < 3; ++i) {
    t.start("forward");
    dev.kernel(0, 2e-3);
    t.stop("forward");
    t.step();
  }
  const auto final_state = t.finish();
  nlohmann::json j = final_state;
  CHECK(j["final"] == true);
  CHECK(j["counters"]["host_synchronizations"] == 1);
  CHECK(j["window"]["gpu_time_per_step_s"]["p50"].get<double>() == Approx(2e-3));
  CHECK(j["regions"][0]["window"]["time_per_step_s"]["n"] == 3);
  CHECK(j["total"]["gpu_time_per_step_s"]["percentile_method"].get<std::string>().find("type 1") != std::string::npos);
  CHECK_NOTHROW(nlohmann::json::parse(j.dump()));  // strict JSON: no NaN

  const fs::path dir = fresh_dir("report");
  gauge::Environment env;
  env.gauge_version = "test";
  gauge::Report report(dir / "r.json", env);
  report.add(final_state);
  report.write();
  std::ifstream in(dir / "r.json");
  const auto doc = nlohmann::json::parse(in);
  REQUIRE(doc["timers"].size() == 1);
  CHECK(doc["timers"][0]["name"] == "train");
  CHECK(doc["experiments"].empty());
  const std::string text = report.summary();
  CHECK(contains(text, "timer train: 3 steps after 0 warm-up"));
}

TEST_CASE("LogHistogram: buckets 1 % wide, quantiles within 0.5 % of the order statistic", "[timer]") {
  using gauge::stats::LogHistogram;
  // ln(1e4 / 1e-9) / ln(1.01) = 29.9336 / 0.00995033 = 3008.3 -> 3009 regular buckets.
  CHECK(gauge::stats::LogHistogram::regular_buckets() == 3009);
  CHECK(gauge::stats::LogHistogram::bucket(0.0) == 0);
  CHECK(gauge::stats::LogHistogram::bucket(0.5e-9) == 0);
  CHECK(gauge::stats::LogHistogram::bucket(1e-9) == 1);
  // 2 ns: ln 2 / ln 1.01 = 69.66 -> bucket 69 + 1 = 70.
  CHECK(gauge::stats::LogHistogram::bucket(2e-9) == 70);
  CHECK(gauge::stats::LogHistogram::bucket(1e5) == 3010);
  gauge::stats::LogHistogram h;
  for (int i = 1; i <= 100; ++i) h.add(i * 1e-6);  // 1, 2, ..., 100 us
  // Nearest rank k = ceil(q n / 100): p50 -> x(50) = 50 us, p90 -> 90 us, p99 -> 99 us, p0 -> 1 us.
  CHECK(*h.percentile(50, 1e-6, 100e-6) == Approx(50e-6).epsilon(0.005));
  CHECK(*h.percentile(90, 1e-6, 100e-6) == Approx(90e-6).epsilon(0.005));
  CHECK(*h.percentile(99, 1e-6, 100e-6) == Approx(99e-6).epsilon(0.005));
  CHECK(*h.percentile(0, 1e-6, 100e-6) == Approx(1e-6).epsilon(0.005));
  CHECK(*h.percentile(100, 1e-6, 100e-6) == Approx(100e-6).epsilon(0.005));
  CHECK_FALSE(gauge::stats::LogHistogram().percentile(50, 0, 1));
}

TEST_CASE("LogHistogram: the bucket of every edge and of random values, by the definition", "[timer]") {
  using gauge::stats::LogHistogram;
  // Bucket k + 1 holds [1e-9 * 1.01^k, 1e-9 * 1.01^(k+1)) (1e-9 and 1.01 as doubles): with the
  // edges computed a second way (long double, rounded), within an ulp of gauge's, the double one ulp
  // above an edge is in its bucket and the one two ulps below in the bucket before.
  std::size_t edge_misses = 0;
  const long double lo = 1e-9, g = 1.01;
  for (std::size_t k = 0; k < gauge::stats::LogHistogram::regular_buckets(); ++k) {
    const double edge = static_cast<double>(lo * std::pow(g, static_cast<long double>(k)));
    if (gauge::stats::LogHistogram::bucket(std::nextafter(edge, HUGE_VAL)) != k + 1) ++edge_misses;
    if (k > 0 && gauge::stats::LogHistogram::bucket(std::nextafter(std::nextafter(edge, 0.0), 0.0)) != k) ++edge_misses;
  }
  CHECK(edge_misses == 0);
  // Log-uniform values from 1e-10 to 1e5 s against floor(ln(x / 1e-9) / ln(1.01)) + 1.
  std::mt19937_64 gen(7);
  std::uniform_real_distribution<double> exponent(-10, 5);
  std::size_t misses = 0;
  for (int i = 0; i < 200000; ++i) {
    const double x = std::pow(10.0, exponent(gen));
    std::size_t expected = 0;
    if (x >= 1e4) expected = 3010;
    else if (x >= 1e-9) expected = std::min<std::size_t>(3009, static_cast<std::size_t>(std::floor(std::log(x / 1e-9) / std::log(1.01))) + 1);
    if (gauge::stats::LogHistogram::bucket(x) != expected) ++misses;
  }
  CHECK(misses == 0);
  CHECK(gauge::stats::LogHistogram::bucket(std::nan("")) == 0);
  CHECK(gauge::stats::LogHistogram::bucket(-1.0) == 0);
  CHECK(gauge::stats::LogHistogram::bucket(std::nextafter(1e4, 0.0)) == 3009);
  CHECK(gauge::stats::LogHistogram::bucket(1e4) == 3010);
}

TEST_CASE("RunningStats: Welford moments and exact extremes in fixed memory", "[timer]") {
  gauge::stats::RunningStats r;
  CHECK(r.summary().n == 0);
  CHECK_FALSE(r.summary().mean);
  for (double x : {1.0, 2.0, 3.0, 4.0}) r.add(x);
  const auto s = r.summary();
  // mean 2.5; stddev sqrt(((1.5^2 + 0.5^2) * 2) / 3) = sqrt(5 / 3) = 1.29099.
  CHECK(*s.mean == Approx(2.5));
  CHECK(*s.stddev == Approx(std::sqrt(5.0 / 3.0)));
  CHECK(*s.sum == Approx(10.0));
  CHECK(*s.min == 1.0);
  CHECK(*s.max == 4.0);
  gauge::stats::RunningStats one;
  one.add(3.0);
  CHECK_FALSE(one.summary().stddev);  // undefined for n = 1, never 0
}

TEST_CASE("HostTimerBackend times a CPU-only loop with no pending steps and no waits", "[timer]") {
  gauge::TimerConfig c;
  c.warmup_steps = 2;
  gauge::Timer<gauge::HostTimerBackend> t("cpu", gauge::HostTimerBackend{}, c);
  volatile double sink = 0;
  for (int i = 0; i < 20; ++i) {
    {
      auto s = t.scope("work");
      for (int k = 0; k < 20000; ++k) sink = sink + std::sqrt(static_cast<double>(k));
    }
    t.step(gauge::StepWork().samples(1));
    CHECK(t.summary().counters.pending_steps == 0);  // host markers complete at once
  }
  const auto s = t.finish();
  CHECK(s.backend == std::string("host"));
  CHECK(s.counters.host_synchronizations == 0);
  CHECK(s.total.steps == 18);
  const auto w = region_named(s, "work");
  REQUIRE(w.total.time_per_step_s.p50);
  CHECK(*w.total.time_per_step_s.min > 0);
  // The region is inside the step: its share is in (0, 1].
  REQUIRE(w.total.share_of_step);
  CHECK(*w.total.share_of_step > 0);
  CHECK(*w.total.share_of_step <= 1.0);
  CHECK(t.backend().markers_created() <= 4);  // begin + start + stop + step, recycled
}

TEST_CASE("many region names: each found again by name past the hash index, and a warning", "[timer]") {
  FakeTimerDevice dev;
  FakeTimer t("names", FakeTimerBackend(&dev), no_warmup());
  // Step 0: 1200 regions, region i runs a kernel of (i + 1) µs. Step 1: the same names again, in
  // reverse, each 2 × (i + 1) µs: a name must find its own region (1200 regions, not 2400).
  for (int pass = 0; pass < 2; ++pass) {
    for (int k = 0; k < 1200; ++k) {
      const int i = pass == 0 ? k : 1199 - k;
      const std::string name = "layer." + std::to_string(i);
      t.start(name);
      dev.kernel(0, (pass + 1) * (i + 1) * 1e-6);
      t.stop(name);
    }
    t.step();
    dev.run_until_idle();
    t.poll();
  }
  const auto s = t.finish();
  REQUIRE(s.regions.size() == 1200);
  for (int i : {0, 15, 16, 17, 777, 1199}) {
    const auto& r = region_named(s, "layer." + std::to_string(i));
    CHECK(r.total.steps == 2);
    // Mean of (i + 1) µs and 2 (i + 1) µs.
    CHECK(*r.total.time_per_step_s.mean == Approx(1.5 * (i + 1) * 1e-6).epsilon(1e-9));
  }
  bool warned = false;
  for (const auto& w : s.warnings)
    if (w.code == "timer_many_regions") warned = w.message.rfind("1200 distinct region names (more than 1000)", 0) == 0;
  CHECK(warned);
  // A Timer with a few regions has no such warning.
  FakeTimer few("few", FakeTimerBackend(&dev), no_warmup());
  few.start("a");
  few.stop("a");
  few.step();
  dev.run_until_idle();
  for (const auto& w : few.finish().warnings) CHECK(w.code != "timer_many_regions");
}

TEST_CASE("Timer and Experiment share the work and throughput vocabulary", "[timer]") {
  // A Work (the Experiment's type) is a StepWork: FLOP, bytes and the items tokens and samples.
  gauge::Work w;
  w.flop = 6e9;
  w.bytes = 2048;
  w.items = {{"tokens", 4096}, {"samples", 8}};
  const gauge::StepWork s = w;
  CHECK(*s.flop() == 6e9);
  CHECK(*s.bytes() == 2048);
  CHECK(*s.tokens() == 4096);
  CHECK(*s.samples() == 8);
  const gauge::Work back = s.to_work();
  CHECK(back.flop == w.flop);
  CHECK(back.bytes == w.bytes);
  CHECK(back.items == w.items);
  CHECK(gauge::StepWork().to_work().empty());
  gauge::Work images;
  images.items["images"] = 3;
  CHECK(contains(config_error_of([&] { gauge::StepWork bad = images; (void)bad; }), "\"images\""));
  // The Timer's throughput is a Throughput: tokens/s is the item "tokens". Two steps of 1 ms and
  // 3 ms of device time, 500 tokens and 2e9 FLOP each: 1000 tokens / 4 ms = 250000 tokens/s.
  FakeTimerDevice dev;
  FakeTimer t("train", FakeTimerBackend(&dev), no_warmup());
  t.work(w);  // a Work where a StepWork is taken
  const auto r = t.region("forward");
  for (double d : {1e-3, 3e-3}) {
    t.start(r);
    dev.kernel(0, d);
    t.stop(r);
    t.step(gauge::StepWork().tokens(500).flop(2e9));
    dev.run_until_idle();
    t.poll();
  }
  const gauge::TimerSummary sum = t.summary();
  const gauge::Throughput& rate = sum.total.throughput;  // the core's type
  REQUIRE(rate.item_per_second("tokens"));
  CHECK(*rate.item_per_second("tokens") == Approx(250000));
  CHECK(*rate.flop_per_second == Approx(1e12));
  CHECK_FALSE(rate.item_per_second("samples"));
  CHECK_FALSE(rate.bytes_per_second);
}

TEST_CASE("a host Timer's console summary says real time, a CUDA one GPU time", "[timer]") {
  gauge::TimerSummary s;
  s.name = "train";
  s.backend = "host";
  CHECK(contains(gauge::detail::timer_summary_text(s), "(real time)"));
  CHECK_FALSE(contains(gauge::detail::timer_summary_text(s), "GPU"));
  s.backend = "cuda";
  CHECK(contains(gauge::detail::timer_summary_text(s), "(GPU time)"));
}

}  // namespace gauge_test_timer
