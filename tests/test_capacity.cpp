// Telemetry during the run, throttling, JIT, memory peaks and the warnings they imply, on the fake
// backend with scripted telemetry and memory.

#include <chrono>
#include <cstdint>
#include <unistd.h>

#include "catch.hpp"
#include "test_helpers.hpp"
#include "fake_backend.hpp"
#include "gauge/experiment.hpp"
#include "gauge/report/json.hpp"

// This file's own namespace: the unity build compiles several test files as one.
namespace gauge_test_capacity {

using namespace std::chrono_literals;
using gauge::testing::FakeBackend;
using gauge::testing::FakeDevice;
using gauge::testing::FakeStream;

namespace {

/// An experiment of `step` on the fake backend, with telemetry read at round boundaries only.
template <class Step>
auto telemetry_experiment(FakeDevice& dev, Step step) {
  auto exp = gauge::testing::fake_experiment(dev, step);
  gauge::Config c = gauge::testing::fast_config(20ms);
  c.warmup.round_time = 1ms;
  c.telemetry_interval = 0ms;  // readings at round boundaries only: deterministic on the virtual clock
  exp.config(c);
  return exp;
}

/// Full clocks, no throttling.
gauge::records::TelemetrySample healthy(double) {
  gauge::records::TelemetrySample s;
  s.sm_clock_mhz = 1980;
  s.memory_clock_mhz = 3201;
  s.power_w = 300;
  s.temperature_c = 45;
  s.clock_event_reasons = 0;
  return s;
}

}  // namespace

TEST_CASE("telemetry is summarized over the measured region", "[capacity][telemetry]") {
  FakeDevice dev;
  dev.telemetry = healthy;
  auto exp = telemetry_experiment(dev, [](FakeStream s) { s.kernel(10e-6); });
  auto r = exp.run();
  REQUIRE(r.status == gauge::Status::ok);
  CHECK(r.telemetry.available);
  CHECK(r.telemetry.series.size() >= 10);
  CHECK(*r.telemetry.sm_clock_mhz.mean == 1980);
  CHECK(*r.telemetry.sm_clock_mhz.min == 1980);
  CHECK(*r.telemetry.power_w.max == 300);
  CHECK(*r.telemetry.sm_clock_max_mhz == 1980);
  CHECK(r.telemetry.throttled_samples.empty());
  CHECK(r.telemetry.measure_end_s > r.telemetry.measure_start_s);
  CHECK_FALSE(r.has_warning("throttling"));
  CHECK_FALSE(r.has_warning("sm_clock_below_max"));
  nlohmann::json j = r;
  CHECK(j["telemetry"]["series"]["t_s"].size() == r.telemetry.series.size());
  CHECK(j["telemetry"]["sm_clock_mhz"]["mean"] == 1980);
}

TEST_CASE("steps measured while throttled are identified", "[capacity][telemetry]") {
  FakeDevice dev;
  double throttle_from = 0, throttle_to = 0;
  // Power-capped (sw_power_cap, 0x4) at 1400 MHz in a window of virtual time, else healthy.
  dev.telemetry = [&](double t) {
    gauge::records::TelemetrySample s = healthy(t);
    if (t >= throttle_from && t < throttle_to) {
      s.sm_clock_mhz = 1400;
      s.clock_event_reasons = 0x4;
    }
    return s;
  };
  // First a run to learn when measurement happens, then throttle the middle of that window.
  {
    FakeDevice probe_dev;
    probe_dev.telemetry = healthy;
    auto e = telemetry_experiment(probe_dev, [](FakeStream s) { s.kernel(10e-6); });
    auto pr = e.run();
    throttle_from = pr.telemetry.measure_start_s + 0.4 * (pr.telemetry.measure_end_s - pr.telemetry.measure_start_s);
    throttle_to = pr.telemetry.measure_start_s + 0.6 * (pr.telemetry.measure_end_s - pr.telemetry.measure_start_s);
  }
  auto exp = telemetry_experiment(dev, [](FakeStream s) { s.kernel(10e-6); });
  auto r = exp.run();
  REQUIRE(r.status == gauge::Status::ok);
  CHECK(r.has_warning("throttling"));
  CHECK(r.telemetry.throttle_reason_names == std::vector<std::string>{"sw_power_cap"});
  CHECK(*r.telemetry.sm_clock_mhz.min == 1400);
  // The throttled samples are exactly those of rounds whose readings were throttled. Readings
  // are taken at each round's end (interval 0), so a round is throttled when its end-of-round
  // reading falls in the window.
  std::vector<std::size_t> expected;
  std::size_t first = 0;
  for (std::size_t i = 0; i < r.sampling.round_samples.size(); ++i) {
    bool throttled = false;
    for (const auto& x : r.telemetry.series)
      if (x.t_s >= r.sampling.round_start_s[i] && x.t_s <= r.sampling.round_end_s[i] && x.clock_event_reasons == 0x4u)
        throttled = true;
    if (throttled)
      for (std::size_t j = 0; j < r.sampling.round_samples[i]; ++j) expected.push_back(first + j);
    first += r.sampling.round_samples[i];
  }
  CHECK_FALSE(expected.empty());
  CHECK(expected.size() < r.gpu_samples_s.size());
  CHECK(r.telemetry.throttled_samples == expected);
}

TEST_CASE("a low SM clock warns sm_clock_below_max with the numbers", "[capacity][telemetry]") {
  FakeDevice dev;
  dev.telemetry = [](double t) {
    auto s = healthy(t);
    s.sm_clock_mhz = 1200;
    return s;
  };
  auto exp = telemetry_experiment(dev, [](FakeStream s) { s.kernel(10e-6); });
  auto r = exp.run();
  REQUIRE(r.has_warning("sm_clock_below_max"));
  for (const auto& w : r.warnings)
    if (w.code == "sm_clock_below_max") {
      CHECK(w.message.find("1200 MHz") != std::string::npos);
      CHECK(w.message.find("61 %") != std::string::npos);  // 1200 / 1980 = 60.6 %
    }
}

TEST_CASE("other processes on the GPU are reported", "[capacity][telemetry]") {
  FakeDevice dev;
  dev.telemetry = healthy;
  dev.processes = {{static_cast<unsigned>(::getpid()), 2ull << 30}, {999999, 3ull << 30}};
  auto exp = telemetry_experiment(dev, [](FakeStream s) { s.kernel(10e-6); });
  auto r = exp.run();
  CHECK(r.has_warning("other_processes_on_gpu"));
  CHECK(*r.memory.other_processes_bytes == (3ull << 30));
}

TEST_CASE("no telemetry source is recorded with the reason", "[capacity][telemetry]") {
  FakeDevice dev;
  auto exp = telemetry_experiment(dev, [](FakeStream s) { s.kernel(10e-6); });
  auto r = exp.run();
  CHECK_FALSE(r.telemetry.available);
  CHECK(*r.telemetry.unavailable_reason == "fake device without telemetry");
  CHECK(r.has_warning("telemetry_unavailable"));
}

TEST_CASE("a kernel compiled from older PTX warns jit_compiled, and a native one does not", "[capacity][jit]") {
  FakeDevice dev;
  dev.kernel_binaries["ptx_only"] = gauge::records::KernelBinaryRecord{"ptx_only", 90, 75, 90, true};
  dev.kernel_binaries["native"] = gauge::records::KernelBinaryRecord{"native", 90, 90, 90, false};
  auto step = [](FakeStream s) { s.kernel(10e-6); };
  auto exp = telemetry_experiment(dev, step);
  exp.kernel("native", +[] {});
  auto r = exp.run();
  CHECK_FALSE(r.has_warning("jit_compiled"));
  REQUIRE(r.kernels.size() == 1);
  auto exp2 = telemetry_experiment(dev, step);
  exp2.kernel("ptx_only", +[] {});
  auto r2 = exp2.run();
  REQUIRE(r2.has_warning("jit_compiled"));
  for (const auto& w : r2.warnings)
    if (w.code == "jit_compiled") CHECK(w.message.find("compute_75") != std::string::npos);
}

TEST_CASE("memory: peak, transient allocations, growth and fit", "[capacity][memory]") {
  FakeDevice dev;
  dev.device_total = 80ull << 30;
  dev.device_used = 1ull << 30;  // resident before the experiment
  dev.telemetry = healthy;
  // Each step allocates 256 MiB and the synchronize after the round frees it (stream-ordered
  // pool trimmed at synchronization): visible between enqueue and synchronize.
  auto exp = telemetry_experiment(dev, [&](FakeStream s) {
    dev.device_used = (1ull << 30) + (256ull << 20);
    s.kernel(10e-6);
  });
  std::uint64_t framework = 0;
  exp.allocator_probe("framework", [&] { return framework += 1024; });
  auto r = exp.run();
  REQUIRE(r.status == gauge::Status::ok);
  // 1 GiB resident + 256 MiB transient = 1.25 GiB.
  CHECK(*r.memory.device_used_peak_bytes == (1ull << 30) + (256ull << 20));
  CHECK(*r.memory.peak_bytes == (1ull << 30) + (256ull << 20));
  CHECK(r.memory.allocator_peak_bytes.at("framework") > 0);
  CHECK(*r.memory.device_total_bytes == (80ull << 30));
  CHECK(*r.memory.fits);
  CHECK_FALSE(r.memory.grew_during_measurement);
  CHECK_FALSE(r.has_warning("memory_grew_during_measurement"));
}

TEST_CASE("memory that grows during measurement warns and does not fit", "[capacity][memory]") {
  FakeDevice dev;
  // Leaks 1 MiB per step.
  auto exp = telemetry_experiment(dev, [&](FakeStream s) {
    dev.device_used += 1ull << 20;
    s.kernel(10e-6);
  });
  auto r = exp.run();
  REQUIRE(r.status == gauge::Status::ok);
  CHECK(r.memory.grew_during_measurement);
  CHECK(*r.memory.device_growth_bytes > (16ll << 20));
  CHECK(r.has_warning("memory_grew_during_measurement"));
  CHECK_FALSE(*r.memory.fits);
  CHECK(r.has_warning("may_not_fit"));
}

TEST_CASE("a workload within 5 % of device memory may not fit", "[capacity][memory]") {
  FakeDevice dev;
  dev.device_total = 80ull << 30;
  dev.device_used = 79ull << 30;  // 98.75 %
  auto exp = telemetry_experiment(dev, [](FakeStream s) { s.kernel(10e-6); });
  auto r = exp.run();
  CHECK_FALSE(*r.memory.fits);
  CHECK(r.memory.fits_reason.find("98.8 %") != std::string::npos);
  CHECK(r.has_warning("may_not_fit"));
}

}  // namespace gauge_test_capacity
