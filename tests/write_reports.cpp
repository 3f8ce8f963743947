// Writes reports with gauge's own writer into a directory, so that tests/test_tools.py can
// validate every one against schema/gauge-report.schema.json and read them back with the tools.
// Covers: ok, failed, never-ran and one-sample results; every dimension type; FLOP, bytes and
// items of work; batched samples (k > 1); cold cache; graph mode; silenced warnings; telemetry;
// a hand-made environment with a GPU, and the live environment of this machine (host backend);
// and full.json, every feature of the format set by hand (tests/full_report.hpp: every setting,
// telemetry series, memory, kernels, NVML, tools, a failed host experiment, a Timer summary).
//
//   gauge_write_reports DIR

#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "consumer/sum4096.hpp"
#include "fake_backend.hpp"
#include "test_helpers.hpp"
#include "full_report.hpp"
#include "gauge/backends/host_backend.hpp"
#include "gauge/experiment.hpp"
#include "gauge/report.hpp"
#include "gauge/implementation.hpp"

using namespace std::chrono_literals;
using gauge::testing::FakeBackend;
using gauge::testing::FakeDevice;
using gauge::testing::FakeStream;

namespace {

gauge::Config quick() { return gauge::testing::fast_config(2ms); }

template <class Step>
gauge::Result fake(FakeDevice& dev, const std::string& name, Step step, gauge::Config c = quick()) {
  auto exp = gauge::testing::fake_experiment(dev, step, name.c_str());
  exp.config(c);
  exp.dimension("M", 4096).dimension("dtype", "bf16").dimension("scale", 0.5).dimension("transposed", true);
  exp.flop(2.0 * 4096 * 4096 * 4096).bytes(3.0 * 4096 * 4096 * 2).items("tokens", 4096);
  return exp.run();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: gauge_write_reports DIR\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  try {
    std::filesystem::create_directories(dir);
    {
      gauge::Report report(dir / "fake-gpu.json", gauge::testing::full_environment());
      FakeDevice dev;
      dev.telemetry = [](double t) {
        gauge::records::TelemetrySample s;
        s.t_s = t;
        s.sm_clock_mhz = t < 0.001 ? 1755.0 : 1980.0;
        s.power_w = 500;
        s.temperature_c = 45;
        return s;
      };
      report.add(fake(dev, "gemm", [](FakeStream s) { s.kernel(50e-6); }));
      FakeDevice short_steps;
      short_steps.event_device_cost = 2e-6;  // an event between 100 ns steps: k > 1
      report.add(fake(short_steps, "tiny", [](FakeStream s) { s.kernel(100e-9); }));
      FakeDevice cold;
      gauge::Config c = quick();
      c.measure.cache = gauge::CacheState::cold;
      c.silenced_warnings = {"outliers"};
      report.add(fake(cold, "cold", [](FakeStream s) { s.kernel(30e-6); }, c));
      FakeDevice graph;
      gauge::Config g = quick();
      g.measure.gpu_timing = gauge::GpuTiming::graph;
      report.add(fake(graph, "graph", [](FakeStream s) { s.kernel(5e-6); }, g));
      FakeDevice broken;
      int calls = 0;
      report.add(fake(broken, "broken", [&](FakeStream s) {
        if (++calls == 4) throw std::runtime_error("cuBLAS said no");
        s.kernel(10e-6);
      }));
      gauge::Result never;
      never.name = "never-ran";
      report.add(never);
      gauge::Result one;
      one.name = "one-sample";
      one.gpu_samples_s = {3e-6};
      one.gpu_time = gauge::stats::summarize(one.gpu_samples_s);
      report.add(one);
      report.write();
    }
    {
      gauge::Report report(dir / "full.json", gauge::testing::full_environment());
      report.add(gauge::testing::full_result());
      report.add(gauge::testing::failed_host_result());
      report.add(gauge::testing::full_timer());
      report.write();
    }
    {
      gauge::Report report(dir / "host.json");  // the live environment of this machine
      std::vector<double> v(4096, 1.0);
      double sink = 0;
      auto exp = sum4096_experiment(v, sink);
      exp.config().measure.max_time = 100ms;
      exp.config().warmup.max_time = 50ms;
      exp.dimension("n", 4096);
      report.add(exp.run());
      report.write();
      if (sink <= 0) return 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gauge_write_reports: %s\n", e.what());
    return 1;
  }
  std::printf("wrote %s/fake-gpu.json, %s/full.json and %s/host.json\n", dir.c_str(), dir.c_str(), dir.c_str());
  return 0;
}
