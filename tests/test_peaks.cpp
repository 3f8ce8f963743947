// The device's speed of light (issue "Speed of light"): the peak formulas and tables on a fake
// device's attributes, every fraction and the roofline by hand, the warnings above a peak and their
// absence at 95 % of it, the comparison's speed-up check, the measured-peaks cache, and reports
// with and without peaks written and read back. Every expected number is computed here by hand
// from the attributes (SMs x clock x rate; 2 x memory clock x bus width / 8), never copied from
// gauge's output.

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "fake_backend.hpp"
#include "test_helpers.hpp"
#include "gauge/core/gpm_assessment.hpp"
#include "gauge/core/peak_assessment.hpp"
#include "gauge/core/peak_fractions.hpp"
#include "gauge/core/peaks.hpp"
#include "gauge/experiment.hpp"
#include "gauge/protocol/diagnosis.hpp"
#include "gauge/report/console.hpp"
#include "gauge/report/json.hpp"
#include "gauge/report/peaks_cache.hpp"
#include "gauge/report/read.hpp"
#include "gauge/report/speedup_check.hpp"

// This file's own namespace: the unity build compiles several test files as one.
namespace gauge_test_peaks {

using gauge::testing::FakeDevice;
using gauge::testing::FakeStream;
using gauge::testing::fake_experiment;

namespace {

/// An H100-SXM-like device: 132 SMs, 1980 MHz maximum SM clock, 2619 MHz memory clock, 5120 bits.
gauge::peaks::DeviceAttributes hopper() {
  gauge::peaks::DeviceAttributes a;
  a.name = "NVIDIA H100 80GB HBM3";
  a.compute_capability_major = 9;
  a.compute_capability_minor = 0;
  a.multiprocessors = 132;
  a.sm_clock_max_mhz = 1980;
  a.memory_clock_max_mhz = 2619;
  a.memory_bus_width_bits = 5120;
  a.l2_cache_bytes = 50u << 20;
  return a;
}

// By hand: 2 x 2619e6 x 5120 / 8 = 3.35232e12 B/s; 132 x 1980e6 = 2.6136e11 SM-clocks/s.
constexpr double hopper_memory = 3.35232e12;
constexpr double hopper_bf16 = 2.6136e11 * 4096;  // 1.07053056e15
constexpr double hopper_fp32 = 2.6136e11 * 256;   // 6.690816e13

double value_of(const std::vector<gauge::peaks::Peak>& peaks, const std::string& quantity, const std::string& dtype,
                const std::string& basis, const std::string& clock = "") {
  const gauge::peaks::Peak* p = gauge::detail::find_peak(peaks, quantity, dtype, basis, clock);
  return p ? p->value : -1;
}

/// Points the measured-peaks cache at a fresh temporary directory for one test.
struct TempCache {
  std::filesystem::path dir;
  TempCache() {
    dir = std::filesystem::temp_directory_path() / ("gauge-peaks-test-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    ::setenv("GAUGE_PEAKS_CACHE_DIR", dir.c_str(), 1);
  }
  ~TempCache() {
    ::unsetenv("GAUGE_PEAKS_CACHE_DIR");
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

}  // namespace

TEST_CASE("Peaks: the memory formula 2 x clock x bus width / 8, by hand", "[peaks]") {
  const auto m = gauge::detail::theoretical_memory_peak(hopper(), 2619.0, "max_boost");
  REQUIRE(m);
  CHECK(m->value == Approx(hopper_memory).epsilon(1e-12));
  CHECK(m->unit == "bytes/s");
  CHECK(m->basis == "theoretical");
  CHECK(m->clock_basis == "max_boost");
  CHECK(*m->clock_mhz == 2619.0);
  CHECK_THAT(m->source, Catch::Contains("5120 bits"));
  // At a measured memory clock of 1593 MHz: 2 x 1593e6 x 5120 / 8 = 2.03904e12.
  CHECK(gauge::detail::theoretical_memory_peak(hopper(), 1593.0, "run_measured")->value == Approx(2.03904e12).epsilon(1e-12));
  // Without a clock or bus width: none, and why.
  std::string why;
  auto a = hopper();
  a.memory_bus_width_bits.reset();
  CHECK_FALSE(gauge::detail::theoretical_memory_peak(a, 2619.0, "max_boost", &why));
  CHECK_THAT(why, Catch::Contains("bus width"));
  CHECK_FALSE(gauge::detail::theoretical_memory_peak(hopper(), std::nullopt, "run_measured"));
}

TEST_CASE("Peaks: a model whose reported bus width is wrong uses the table's", "[peaks]") {
  gauge::peaks::DeviceAttributes b;
  b.name = "NVIDIA B200";
  b.compute_capability_major = 10;
  b.multiprocessors = 148;
  b.sm_clock_max_mhz = 1965;
  b.memory_clock_max_mhz = 4000;
  b.memory_bus_width_bits = 8192;
  // 2 x 4000e6 x 7680 / 8 = 7.68e12 (not 8192 bits: 8.192e12).
  const auto m = gauge::detail::theoretical_memory_peak(b, 4000.0, "max_boost");
  REQUIRE(m);
  CHECK(m->value == Approx(7.68e12).epsilon(1e-12));
  CHECK_THAT(m->source, Catch::Contains("not the reported 8192"));
  // B200 bf16: 148 x 1965e6 x 8192 = 2.38239744e15.
  CHECK(gauge::detail::theoretical_compute_peak(b, "bf16", 1965.0, "max_boost")->value == Approx(2.38239744e15).epsilon(1e-12));
}

TEST_CASE("Peaks: compute = SMs x clock x dense FLOP per SM per clock, per type, by hand", "[peaks]") {
  const auto d = gauge::peaks::device_peaks(hopper());
  CHECK(value_of(d.peaks, "compute", "bf16", "theoretical") == Approx(hopper_bf16).epsilon(1e-12));
  CHECK(value_of(d.peaks, "compute", "fp16", "theoretical") == Approx(hopper_bf16).epsilon(1e-12));
  CHECK(value_of(d.peaks, "compute", "fp8", "theoretical") == Approx(2 * hopper_bf16).epsilon(1e-12));
  CHECK(value_of(d.peaks, "compute", "int8", "theoretical") == Approx(2 * hopper_bf16).epsilon(1e-12));
  CHECK(value_of(d.peaks, "compute", "tf32", "theoretical") == Approx(hopper_bf16 / 2).epsilon(1e-12));
  CHECK(value_of(d.peaks, "compute", "fp32", "theoretical") == Approx(hopper_fp32).epsilon(1e-12));
  CHECK(value_of(d.peaks, "compute", "fp64", "theoretical") == Approx(hopper_fp32).epsilon(1e-12));
  CHECK(value_of(d.peaks, "memory_bandwidth", "", "theoretical") == Approx(hopper_memory).epsilon(1e-12));
  CHECK(gauge::detail::find_peak(d.peaks, "compute", "int8", "theoretical")->unit == "OP/s");
  CHECK(*d.l2_cache_bytes == 50u << 20);
  CHECK(d.unknown.empty());
  // The datasheet's dense figures for the model, beside them.
  CHECK(value_of(d.peaks, "compute", "bf16", "datasheet") == Approx(989.5e12));
  CHECK(value_of(d.peaks, "memory_bandwidth", "", "datasheet") == Approx(3.35e12));
  // A100 (sm_80), whitepaper: 108 SMs x 1410 MHz x 2048 = 3.1186944e14 (the 312 TFLOP/s of the paper).
  gauge::peaks::DeviceAttributes a100 = hopper();
  a100.name = "NVIDIA A100-SXM4-80GB";
  a100.compute_capability_major = 8;
  a100.multiprocessors = 108;
  a100.sm_clock_max_mhz = 1410;
  const auto a = gauge::peaks::device_peaks(a100);
  CHECK(value_of(a.peaks, "compute", "bf16", "theoretical") == Approx(3.1186944e14).epsilon(1e-12));
  CHECK(value_of(a.peaks, "compute", "fp64", "theoretical") == Approx(108 * 1410e6 * 128).epsilon(1e-12));
  // No FP8 tensor cores on sm_80: unknown, with the reason.
  CHECK(gauge::detail::find_peak(a.peaks, "compute", "fp8", "theoretical") == nullptr);
  REQUIRE(a.unknown.size() == 1);
  CHECK(a.unknown[0] == "fp8: no table row for sm_80");
}

TEST_CASE("Peaks: table lookups by capability and name, datasheet rows by the most specific name", "[peaks]") {
  gauge::peaks::DeviceAttributes ada;
  ada.compute_capability_major = 8;
  ada.compute_capability_minor = 9;
  ada.name = "NVIDIA GeForce RTX 4090";
  CHECK(gauge::detail::find_compute_rate(ada, "bf16")->per_sm_per_clock == 512);  // GeForce: half-rate FP32 accumulate
  CHECK(gauge::detail::find_compute_rate(ada, "fp32")->per_sm_per_clock == 256);  // the capability's default row
  ada.name = "NVIDIA L40S";
  CHECK(gauge::detail::find_compute_rate(ada, "bf16")->per_sm_per_clock == 1024);
  gauge::peaks::DeviceAttributes volta;
  volta.compute_capability_major = 7;
  CHECK(gauge::detail::find_compute_rate(volta, "bf16") == nullptr);
  for (const auto& r : gauge::detail::compute_rates) {  // every row names its source
    INFO(r.dtype);
    CHECK(std::string(r.source).size() > 10);
  }
  const auto nvl = gauge::detail::datasheet_peaks_of("NVIDIA H200 NVL");
  const auto sxm = gauge::detail::datasheet_peaks_of("NVIDIA H200");
  CHECK(value_of(nvl, "compute", "bf16", "datasheet") == Approx(835.5e12));
  CHECK(value_of(sxm, "compute", "bf16", "datasheet") == Approx(989.5e12));
  CHECK(value_of(sxm, "memory_bandwidth", "", "datasheet") == Approx(4.8e12));
  CHECK(gauge::detail::datasheet_peaks_of("Some GPU").empty());
}

TEST_CASE("Peaks: declared data types by name", "[peaks]") {
  CHECK(*gauge::detail::canonical_dtype("BF16") == "bf16");
  CHECK(*gauge::detail::canonical_dtype("bfloat16") == "bf16");
  CHECK(*gauge::detail::canonical_dtype("half") == "fp16");
  CHECK(*gauge::detail::canonical_dtype("float") == "fp32");
  CHECK(*gauge::detail::canonical_dtype("e4m3") == "fp8");
  CHECK(*gauge::detail::canonical_dtype("int8_t") == "int8");
  CHECK_FALSE(gauge::detail::canonical_dtype("fp4"));
  std::string why;
  CHECK_FALSE(gauge::detail::declared_dtype({{"dtype", std::string("q3")}}, &why));
  CHECK_THAT(why, Catch::Contains("\"q3\""));
  CHECK_FALSE(gauge::detail::declared_dtype({}, &why));
  CHECK_THAT(why, Catch::Contains("no \"dtype\" dimension"));
}

TEST_CASE("Peaks: every throughput's fraction of every peak, and the roofline, by hand", "[peaks]") {
  // An 8192^3 bf16 GEMM: 2 x 8192^3 FLOP, 3 x 8192^2 x 2 bytes.
  gauge::Work w;
  w.flop = 2.0 * 8192.0 * 8192.0 * 8192.0;
  w.bytes = 3.0 * 8192.0 * 8192.0 * 2.0;
  gauge::Throughput gpu, wall;
  gpu.flop_per_second = 670e12;
  gpu.bytes_per_second = 670e12 * *w.bytes / *w.flop;
  wall.flop_per_second = 660e12;
  gauge::detail::PeakInputs in;
  in.device = hopper();
  in.run_sm_clock_mhz = 1500;
  in.gpu_busy_fraction = 0.99;
  gauge::peaks::Peak measured;
  measured.quantity = "compute";
  measured.dtype = "bf16";
  measured.basis = "measured";
  measured.clock_basis = "as_measured";
  measured.value = 720e12;
  in.measured = {measured};
  const auto rec = gauge::detail::assess_peaks(w, {{"dtype", std::string("bf16")}}, gpu, wall, in);
  CHECK(rec.status == "known");
  REQUIRE(rec.dtype);
  CHECK(*rec.dtype == "bf16");
  const auto* max = gauge::detail::find_fraction(rec, "gpu", "compute", "theoretical", "max_boost");
  REQUIRE(max);
  CHECK(max->fraction == Approx(670e12 / 1.07053056e15).epsilon(1e-12));  // 0.6259
  // At the run's 1500 MHz: 132 x 1500e6 x 4096 = 8.11008e14.
  CHECK(gauge::detail::find_fraction(rec, "gpu", "compute", "theoretical", "run_measured")->fraction ==
        Approx(670e12 / 8.11008e14).epsilon(1e-12));
  CHECK(gauge::detail::find_fraction(rec, "gpu", "compute", "datasheet")->fraction == Approx(670.0 / 989.5));
  CHECK(gauge::detail::find_fraction(rec, "gpu", "compute", "measured")->fraction == Approx(670.0 / 720.0));
  CHECK(gauge::detail::find_fraction(rec, "wall", "compute", "measured")->fraction == Approx(660.0 / 720.0));
  CHECK(gauge::detail::find_fraction(rec, "gpu", "memory_bandwidth", "theoretical", "max_boost")->fraction ==
        Approx(*gpu.bytes_per_second / hopper_memory));
  // No memory clock measured in the run: no run-clock memory peak.
  CHECK(gauge::detail::find_peak(rec.peaks, "memory_bandwidth", "", "theoretical", "run_measured") == nullptr);
  // Roofline on the measured compute peak? No measured memory peak: theoretical ones. 8192^3 GEMM:
  // intensity 2 x 8192 / 6 = 2730.67 FLOP/B; ridge 1.07053056e15 / 3.35232e12 = 319.34.
  REQUIRE(rec.roofline);
  CHECK(rec.roofline->arithmetic_intensity == Approx(8192.0 / 3.0));
  CHECK(rec.roofline->ridge_point == Approx(1.07053056e15 / 3.35232e12));
  CHECK(rec.roofline->basis == "theoretical");
  CHECK(rec.roofline->bound == "compute");
  // A triad: 2 FLOP per 24 bytes, far below the ridge: memory-bound; launch-bound when the device idles.
  gauge::Work triad;
  triad.flop = 2.0;
  triad.bytes = 24.0;
  CHECK(gauge::detail::assess_peaks(triad, {{"dtype", std::string("fp64")}}, gpu, wall, in).roofline->bound == "memory");
  in.gpu_busy_fraction = 0.3;
  CHECK(gauge::detail::assess_peaks(triad, {{"dtype", std::string("fp64")}}, gpu, wall, in).roofline->bound == "launch");
}

TEST_CASE("Peaks: no peaks, reasons instead", "[peaks]") {
  gauge::Work w;
  w.flop = 1e9;
  gauge::Throughput t;
  t.flop_per_second = 1e12;
  gauge::detail::PeakInputs none;
  none.no_device_reason = "the host backend knows no device peaks";
  const auto host = gauge::detail::assess_peaks(w, {}, t, t, none);
  CHECK(host.status == "none");
  CHECK(host.reason == "the host backend knows no device peaks");
  CHECK(host.fractions.empty());
  gauge::detail::PeakInputs in;
  in.device = hopper();
  const auto undeclared = gauge::detail::assess_peaks(w, {}, t, t, in);  // FLOP but no dtype
  CHECK(undeclared.status == "none");
  CHECK_THAT(undeclared.reason, Catch::Contains("no \"dtype\" dimension"));
  CHECK_FALSE(undeclared.roofline);
}

namespace {
/// A result on the Hopper-like device with this GPU throughput, for the rules.
gauge::Result result_with(std::optional<double> bytes_per_s, std::optional<double> flop_per_s, const char* cache = "hot") {
  gauge::Result r;
  r.name = "copy";
  r.dimensions["dtype"] = std::string("bf16");
  r.work.bytes = 32.0 * 1048576;  // a 16 MiB copy: 32 MiB moved per step
  if (flop_per_s) r.work.flop = 1e9;
  r.gpu_throughput.bytes_per_second = bytes_per_s;
  r.gpu_throughput.flop_per_second = flop_per_s;
  r.sampling.cache = cache;
  gauge::detail::PeakInputs in;
  in.device = hopper();
  r.peaks = gauge::detail::assess_peaks(r.work, r.dimensions, r.gpu_throughput, r.wall_throughput, in);
  return r;
}
std::vector<gauge::Warning> diagnose(const gauge::Result& r) {
  gauge::WarningSink sink;
  gauge::detail::RunFacts facts;
  gauge::detail::rule_above_memory_peak(r, facts, sink);
  gauge::detail::rule_above_compute_peak(r, facts, sink);
  return sink.warnings();
}
}  // namespace

TEST_CASE("Warnings: above the memory peak names the working set, the L2 and cold_cache()", "[peaks][warnings]") {
  const auto above = diagnose(result_with(1.05 * hopper_memory, std::nullopt));
  REQUIRE(above.size() == 1);
  CHECK(above[0].code == gauge::warning_code::above_memory_peak);
  CHECK(above[0].severity == gauge::Severity::warning);
  CHECK_THAT(above[0].message, Catch::Contains("105 %"));
  CHECK_THAT(above[0].message, Catch::Contains("32 MiB per step against an L2 of 50 MiB"));
  CHECK_THAT(above[0].message, Catch::Contains("L2 bandwidth"));
  CHECK_THAT(above[0].message, Catch::Contains("cold_cache()"));
  CHECK(diagnose(result_with(0.95 * hopper_memory, std::nullopt)).empty());
  // Cold already: the message points at the bytes counted.
  const auto cold = diagnose(result_with(1.05 * hopper_memory, std::nullopt, "cold"));
  REQUIRE(cold.size() == 1);
  CHECK_THAT(cold[0].message, Catch::Contains("counted twice"));
}

TEST_CASE("Warnings: above the compute peak of the declared type names the likely causes", "[peaks][warnings]") {
  const auto above = diagnose(result_with(std::nullopt, 2.0 * 0.67 * hopper_bf16));
  REQUIRE(above.size() == 1);
  CHECK(above[0].code == gauge::warning_code::above_compute_peak);
  CHECK_THAT(above[0].message, Catch::Contains("134 %"));
  CHECK_THAT(above[0].message, Catch::Contains("counted twice"));
  CHECK_THAT(above[0].message, Catch::Contains("sparsity"));
  CHECK(diagnose(result_with(std::nullopt, 0.95 * hopper_bf16)).empty());
}

TEST_CASE("Warnings: the comparison's speed-up check beyond 10x", "[peaks][warnings]") {
  const auto w = gauge::detail::implausible_speedup_warning(10.5e-3, 1e-3, "gemm");
  REQUIRE(w);
  CHECK(w->code == gauge::warning_code::implausible_speedup);
  CHECK_THAT(w->message, Catch::Contains("'gemm' is 10.5x faster"));
  CHECK_THAT(w->message, Catch::Contains("still does its work"));
  CHECK_FALSE(gauge::detail::implausible_speedup_warning(9.5e-3, 1e-3));
  CHECK_FALSE(gauge::detail::implausible_speedup_warning(1e-3, 10.5e-3));  // a slow-down is not this check's
  CHECK(gauge::detail::implausible_speedup_warning(1e-3, 0.0));
  CHECK_THROWS_AS(gauge::detail::implausible_speedup_warning(-1.0, 1.0), gauge::ConfigError);
  CHECK_THROWS_AS(gauge::detail::implausible_speedup_warning(1.0, 1.0, "", 0.5), gauge::ConfigError);
}

TEST_CASE("Peaks cache: written, read back, keyed by UUID and driver", "[peaks]") {
  TempCache cache;
  gauge::peaks::PeaksCacheFile f;
  f.uuid = "GPU-1234";
  f.name = "NVIDIA H100 80GB HBM3";
  f.driver_version = "580.1";
  f.tool = "test";
  gauge::peaks::Peak p;
  p.quantity = "memory_bandwidth";
  p.unit = "bytes/s";
  p.basis = "measured";
  p.clock_basis = "as_measured";
  p.value = 3.0e12;
  p.source = "copy kernel";
  f.peaks = {p};
  const auto path = gauge::detail::write_peaks_cache(f);
  CHECK(path == cache.dir / "GPU-1234.json");
  std::string why;
  const auto back = gauge::detail::read_peaks_cache("GPU-1234", "580.1", why);
  REQUIRE(back);
  REQUIRE(back->peaks.size() == 1);
  CHECK(back->peaks[0].value == 3.0e12);
  CHECK_FALSE(gauge::detail::read_peaks_cache("GPU-1234", "590.0", why));
  CHECK_THAT(why, Catch::Contains("driver 580.1, this is 590.0"));
  CHECK_FALSE(gauge::detail::read_peaks_cache("GPU-9999", "", why));
  CHECK_THAT(why, Catch::Contains("run gauge-peaks"));
  CHECK_THROWS_AS(gauge::detail::peaks_cache_path("../x"), gauge::ConfigError);
}

TEST_CASE("Peaks through the protocol: a fake device's run gets fractions, warnings and a report that reads", "[peaks]") {
  TempCache cache;
  FakeDevice dev;
  dev.attributes = hopper();
  dev.uuid = "GPU-fake";
  // A 1 ms step declaring 1.05 x the memory peak's bytes per ms: above it.
  auto exp = fake_experiment(dev, [](FakeStream s) { s.kernel(1e-3); }, "hot_copy");
  exp.config(gauge::testing::fast_config());
  exp.bytes(1.05 * hopper_memory * 1e-3).dimension("dtype", "fp32");
  const gauge::Result r = exp.run();
  REQUIRE(r.status == gauge::Status::ok);
  CHECK(r.peaks.status == "known");
  CHECK(r.has_warning(gauge::warning_code::above_memory_peak));
  const auto* f = gauge::detail::find_fraction(r.peaks, "gpu", "memory_bandwidth", "theoretical", "max_boost");
  REQUIRE(f);
  CHECK(f->fraction == Approx(1.05).epsilon(1e-3));
  CHECK_THAT(gauge::formats::peaks_table({r}), Catch::Contains("% of peak hot_copy memory: 105.0 %"));
  // Measured peaks: none cached yet, and the record says where it looked.
  CHECK_THAT(r.peaks.reason, Catch::Contains("GPU-fake.json"));

  // The same at 95 % of the peak: no warning.
  auto calm = fake_experiment(dev, [](FakeStream s) { s.kernel(1e-3); }, "copy");
  calm.config(gauge::testing::fast_config());
  calm.bytes(0.95 * hopper_memory * 1e-3);
  CHECK_FALSE(calm.run().has_warning(gauge::warning_code::above_memory_peak));

  // A device without attributes (as the host backend): no peaks, the reason, and it still reads.
  FakeDevice plain;
  auto none = fake_experiment(plain, [](FakeStream s) { s.kernel(1e-3); }, "no_peaks");
  none.config(gauge::testing::fast_config());
  none.bytes(1e12);
  const gauge::Result n = none.run();
  CHECK(n.peaks.status == "none");
  CHECK(n.peaks.reason == "the fake backend knows no device peaks");
  CHECK_FALSE(n.has_warning(gauge::warning_code::above_memory_peak));

  gauge::Environment env;
  gauge::env::CudaDeviceInfo d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.peaks = gauge::peaks::device_peaks(hopper());
  env.cuda.devices.push_back(d);
  const std::string text = gauge::detail::report_json(gauge::testing::document(env, {r, n})).dump();
  const auto back = gauge::parse_report(text, "peaks.json");
  REQUIRE(back.results.size() == 2);
  CHECK(back.results[0].peaks.fractions.size() == r.peaks.fractions.size());
  CHECK(back.results[0].peaks.peaks[0].source == r.peaks.peaks[0].source);
  CHECK(back.results[1].peaks.status == "none");
  REQUIRE(back.environment.cuda.devices[0].peaks);
  CHECK(back.environment.cuda.devices[0].peaks->peaks.size() == d.peaks->peaks.size());
  CHECK(gauge::formats::peaks_table(back.results) == gauge::formats::peaks_table({r, n}));
}

TEST_CASE("Peaks through the protocol: the measured cache is used by a later run", "[peaks]") {
  TempCache cache;
  gauge::peaks::PeaksCacheFile f;
  f.uuid = "GPU-fake";
  f.driver_version = gauge::detail::nvml_driver_version();  // the reader's key: "" without NVML, else the driver's
  gauge::peaks::Peak p;
  p.quantity = "compute";
  p.dtype = "bf16";
  p.unit = "FLOP/s";
  p.basis = "measured";
  p.clock_basis = "as_measured";
  p.value = 800e12;
  f.peaks = {p};
  gauge::detail::write_peaks_cache(f);
  FakeDevice dev;
  dev.attributes = hopper();
  dev.uuid = "GPU-fake";
  auto exp = fake_experiment(dev, [](FakeStream s) { s.kernel(1e-3); }, "gemm");
  exp.config(gauge::testing::fast_config());
  exp.flop(600e12 * 1e-3).dimension("dtype", "bf16");  // 600 TFLOP/s
  const gauge::Result r = exp.run();
  const auto* m = gauge::detail::find_fraction(r.peaks, "gpu", "compute", "measured");
  REQUIRE(m);
  CHECK(m->fraction == Approx(600.0 / 800.0).epsilon(1e-3));
  CHECK(gauge::detail::find_fraction(r.peaks, "gpu", "compute", "theoretical", "max_boost")->fraction ==
        Approx(600e12 / hopper_bf16).epsilon(1e-3));
  CHECK_FALSE(r.has_warning(gauge::warning_code::above_compute_peak));
}

TEST_CASE("GPM: the cross-check's arithmetic on hand-made numbers, and its rule at each edge", "[peaks][gpm]") {
  // 2000 steps of 1 GB each in 1 s: 2e12 B/s declared. GPM: 40 % of 3.35232e12 = 1.340928e12 B/s.
  gauge::detail::GpmReading g;
  g.dram_bw_util_pct = 40.0;
  g.sm_util_pct = 91.0;
  g.sm_occupancy_pct = 48.5;
  gauge::detail::GpmInputs in;
  in.interval_s = 1.0;
  in.steps = 2000;
  in.bytes_per_step = 1e9;
  in.memory_peak_bytes_per_s = hopper_memory;
  in.memory_peak_basis = "theoretical";
  auto rec = gauge::detail::assess_gpm(g, in);
  CHECK(rec.status == "measured");
  CHECK(rec.reason.empty());
  CHECK(rec.sm_util_pct == std::optional<double>(91.0));
  CHECK(rec.sm_occupancy_pct == std::optional<double>(48.5));
  CHECK(*rec.declared_bytes_per_s == Approx(2e12));
  CHECK(*rec.gpm_bytes_per_s == Approx(1.340928e12));
  CHECK(*rec.declared_to_gpm_ratio == Approx(2e12 / 1.340928e12));  // 1.4915: within [1/2, 2]
  CHECK(rec.cross_check == "agrees");
  // 3 GB per step: 6e12 declared, 4.4745 x GPM: a hot L2 served the bytes.
  in.bytes_per_step = 3e9;
  rec = gauge::detail::assess_gpm(g, in);
  CHECK(*rec.declared_to_gpm_ratio == Approx(6e12 / 1.340928e12));
  CHECK(rec.cross_check == "declared_above_gpm");
  // 0.3 GB per step: 6e11 declared, 0.447 x GPM.
  in.bytes_per_step = 0.3e9;
  CHECK(gauge::detail::assess_gpm(g, in).cross_check == "declared_below_gpm");
  // A cold cache adds the flush's bytes to every step: (0.3 GB + 0.5 GB) x 2000 / 1 s = 1.6e12.
  in.flush_bytes_per_step = 0.5e9;
  rec = gauge::detail::assess_gpm(g, in);
  CHECK(*rec.declared_bytes_per_s == Approx(1.6e12));
  CHECK(rec.cross_check == "agrees");
  // Exactly 2x is still agreement (the rule is "more than 2x"): 2.681856e12 B/s declared.
  in.flush_bytes_per_step.reset();
  in.bytes_per_step = 2 * 1.340928e12 * 1.0 / 2000;
  CHECK(gauge::detail::assess_gpm(g, in).cross_check == "agrees");
  in.bytes_per_step = 1.01 * 2 * 1.340928e12 * 1.0 / 2000;
  CHECK(gauge::detail::assess_gpm(g, in).cross_check == "declared_above_gpm");
  // Not checked: below NVML's 100 ms, without bytes, without a peak, without DRAM_BW_UTIL.
  in.interval_s = 0.09;
  CHECK(gauge::detail::assess_gpm(g, in).cross_check == "not_checked: interval below NVML's 0.1 s minimum");
  // Above NVML's minimum but below 1 s (10 refresh periods): not trusted either.
  in.interval_s = 0.999;
  CHECK(gauge::detail::assess_gpm(g, in).cross_check ==
        "not_checked: interval below 1 s (10 of NVML's refresh periods; shorter readings vary)");
  in.interval_s = 1.0;
  in.bytes_per_step.reset();
  rec = gauge::detail::assess_gpm(g, in);
  CHECK(rec.cross_check == "not_checked: the step declares no bytes");
  CHECK_FALSE(rec.declared_bytes_per_s);
  in.bytes_per_step = 1e9;
  in.memory_peak_bytes_per_s.reset();
  rec = gauge::detail::assess_gpm(g, in);
  CHECK(rec.cross_check == "not_checked: no memory peak known");
  CHECK_FALSE(rec.gpm_bytes_per_s);
  in.memory_peak_bytes_per_s = hopper_memory;
  g.dram_bw_util_pct.reset();
  g.unavailable = {{"dram_bw_util", "Not Supported"}};
  rec = gauge::detail::assess_gpm(g, in);
  CHECK(rec.cross_check == "not_checked: NVML gave no DRAM_BW_UTIL");
  CHECK(rec.reason == "dram_bw_util: Not Supported");
  CHECK_FALSE(rec.dram_bw_util_pct);  // absent, never 0
  // GPM read 0 % while the step declares bytes: declared above, no ratio (no division by 0).
  g.dram_bw_util_pct = 0.0;
  rec = gauge::detail::assess_gpm(g, in);
  CHECK(rec.cross_check == "declared_above_gpm");
  CHECK_FALSE(rec.declared_to_gpm_ratio);
}

TEST_CASE("GPM through the protocol: two samples around the measured rounds, the warning past 2x, a reason without GPM",
          "[peaks][gpm]") {
  FakeDevice dev;
  dev.attributes = hopper();
  dev.telemetry = [](double) { return gauge::records::TelemetrySample{}; };
  gauge::detail::GpmReading g;
  g.dram_bw_util_pct = 25.0;
  g.sm_util_pct = 99.0;
  g.sm_occupancy_pct = 12.0;
  dev.gpm = g;
  auto run = [&](double bytes_per_step) {
    auto exp = fake_experiment(dev, [](FakeStream s) { s.kernel(1e-3); }, "copy");
    exp.config(gauge::testing::fast_config(std::chrono::milliseconds(1100)));  // past the check's 1 s
    exp.bytes(bytes_per_step);
    return exp.run();
  };
  // 1 GB per 1 ms step: about 1e12 B/s declared (the device is nearly always busy) against GPM's
  // 25 % of 3.35232e12 = 8.3808e11 B/s.
  gauge::Result r = run(1e9);
  REQUIRE(r.status == gauge::Status::ok);
  const auto& gpm = r.telemetry.gpm;
  REQUIRE(gpm.status == "measured");
  const double interval = dev.gpm_end_host - dev.gpm_begin_host;
  CHECK(interval >= 1.0);
  CHECK(*gpm.interval_s == Approx(interval));
  // The samples bracket every measured step: the timed and the wall rounds'.
  CHECK(*gpm.steps == r.sampling.steps + r.sampling.wall_steps);
  const double declared = 1e9 * static_cast<double>(r.sampling.steps + r.sampling.wall_steps) / interval;
  CHECK(*gpm.declared_bytes_per_s == Approx(declared));
  CHECK(*gpm.gpm_bytes_per_s == Approx(0.25 * hopper_memory));
  CHECK(*gpm.memory_peak_bytes_per_s == Approx(hopper_memory));
  CHECK(gpm.memory_peak_basis == "theoretical");
  CHECK(*gpm.declared_to_gpm_ratio == Approx(declared / (0.25 * hopper_memory)));
  CHECK(declared / (0.25 * hopper_memory) < 2.0);
  CHECK(gpm.cross_check == "agrees");
  CHECK_FALSE(r.has_warning(gauge::warning_code::gpm_bandwidth_mismatch));
  // 3 GB per step: about 3.6x GPM's bandwidth: the warning, with the numbers.
  r = run(3e9);
  const double declared3 =
      3e9 * static_cast<double>(r.sampling.steps + r.sampling.wall_steps) / (dev.gpm_end_host - dev.gpm_begin_host);
  CHECK(declared3 / (0.25 * hopper_memory) > 2.0);
  CHECK(r.telemetry.gpm.cross_check == "declared_above_gpm");
  REQUIRE(r.has_warning(gauge::warning_code::gpm_bandwidth_mismatch));
  for (const auto& w : r.warnings)
    if (w.code == gauge::warning_code::gpm_bandwidth_mismatch) CHECK_THAT(w.message, Catch::Contains("hot cache"));
  // The record reads back from the report, with its meaning.
  const auto back = gauge::parse_report(gauge::detail::report_json(gauge::testing::document(gauge::Environment{}, {r})).dump(), "gpm.json");
  CHECK(back.results[0].telemetry.gpm.declared_to_gpm_ratio == r.telemetry.gpm.declared_to_gpm_ratio);
  CHECK(back.results[0].telemetry.gpm.cross_check == "declared_above_gpm");
  CHECK_THAT(gauge::detail::report_json(gauge::testing::document(gauge::Environment{}, {r})).dump(), Catch::Contains("NVML_GPM_METRIC_DRAM_BW_UTIL"));

  // No GPM on the device: the probe's reason, no numbers.
  dev.gpm.reset();
  r = run(1e9);
  CHECK(r.telemetry.gpm.status == "unavailable");
  CHECK(r.telemetry.gpm.reason == "fake device without GPM");
  CHECK_FALSE(r.telemetry.gpm.dram_bw_util_pct);
  CHECK_FALSE(r.has_warning(gauge::warning_code::gpm_bandwidth_mismatch));
  // No telemetry at all: the telemetry's reason.
  FakeDevice bare;
  auto exp = fake_experiment(bare, [](FakeStream s) { s.kernel(1e-3); }, "bare");
  exp.config(gauge::testing::fast_config());
  const gauge::Result b = exp.run();
  CHECK(b.telemetry.gpm.status == "unavailable");
  CHECK(b.telemetry.gpm.reason == "fake device without telemetry");
}

TEST_CASE("Cold cache: the report says how L2 was flushed, and the flush's bytes count in GPM's cross-check", "[peaks][gpm]") {
  FakeDevice dev;
  dev.attributes = hopper();
  dev.telemetry = [](double) { return gauge::records::TelemetrySample{}; };
  gauge::detail::GpmReading g;
  g.dram_bw_util_pct = 50.0;
  dev.gpm = g;
  gauge::records::CacheFlushRecord f;
  f.method = "read";
  f.description = "read of 104857600 bytes by ld.global.cg, 2 x L2 size 52428800 bytes";
  f.bytes = 104857600;
  f.l2_cache_bytes = 52428800;
  f.persisting_l2_set_aside_bytes = 4194304;
  f.persisting_lines_reset = true;
  dev.flush_record = f;
  auto exp = fake_experiment(dev, [](FakeStream s) { s.kernel(1e-3); }, "cold_copy");
  exp.config(gauge::testing::fast_config(std::chrono::milliseconds(200)));
  exp.bytes(1e9).cold_cache();
  const gauge::Result r = exp.run();
  REQUIRE(r.status == gauge::Status::ok);
  CHECK(r.sampling.cache == "cold");
  REQUIRE(r.sampling.cache_flush);
  CHECK(r.sampling.cache_flush->method == "read");
  CHECK(r.sampling.cache_flush->bytes == std::optional<std::uint64_t>(104857600));
  CHECK(r.sampling.cache_flush->persisting_l2_set_aside_bytes == std::optional<std::uint64_t>(4194304));
  CHECK(r.sampling.cache_flush->outside_timed_interval);
  // (1e9 + 104857600) bytes x the steps between the GPM samples / their interval.
  const double steps = static_cast<double>(r.sampling.steps + r.sampling.wall_steps);
  CHECK(*r.telemetry.gpm.flush_bytes_per_step == 104857600.0);
  CHECK(*r.telemetry.gpm.declared_bytes_per_s ==
        Approx((1e9 + 104857600.0) * steps / (dev.gpm_end_host - dev.gpm_begin_host)));
  // Written and read back.
  const auto back = gauge::parse_report(gauge::detail::report_json(gauge::testing::document(gauge::Environment{}, {r})).dump(), "cold.json");
  REQUIRE(back.results[0].sampling.cache_flush);
  CHECK(back.results[0].sampling.cache_flush->description == f.description);
  CHECK(back.results[0].sampling.cache_flush->l2_cache_bytes == std::optional<std::uint64_t>(52428800));
  CHECK(back.results[0].sampling.cache_flush->persisting_lines_reset);

  // A hot cache has no flush record; a backend that does not describe its flush says so.
  auto hot = fake_experiment(dev, [](FakeStream s) { s.kernel(1e-3); }, "hot");
  hot.config(gauge::testing::fast_config());
  CHECK_FALSE(hot.run().sampling.cache_flush);
  dev.flush_record.reset();
  auto quiet = fake_experiment(dev, [](FakeStream s) { s.kernel(1e-3); }, "quiet");
  quiet.config(gauge::testing::fast_config());
  quiet.cold_cache();
  const gauge::Result q = quiet.run();
  REQUIRE(q.sampling.cache_flush);
  CHECK(q.sampling.cache_flush->method == "unknown");
  CHECK(q.sampling.cache_flush->description == "the fake backend does not describe its flush");
  CHECK_FALSE(q.sampling.cache_flush->bytes);
}

}  // namespace gauge_test_peaks
