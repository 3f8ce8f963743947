// The JSON report: strict JSON (no NaN), nulls for undefined statistics, round trip, atomic
// write, an unwritable path rejected before anything is measured, failed experiments kept.

#include <chrono>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

#include "catch.hpp"
#include "test_helpers.hpp"
#include "fake_backend.hpp"
#include "gauge/experiment.hpp"
#include "gauge/report.hpp"
#include "gauge/report/compare.hpp"
#include "gauge/report/console.hpp"
#include "gauge/report/formats.hpp"
#include "gauge/report/json.hpp"
#include "gauge/report/read.hpp"
#include "gauge/version.hpp"

// This file's own namespace: the unity build compiles several test files as one.
namespace gauge_test_report {

using namespace std::chrono_literals;
using gauge::testing::FakeBackend;
using gauge::testing::FakeDevice;
using gauge::testing::FakeStream;
namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("gauge-test-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string read_file(const fs::path& p) { return gauge::testing::read_text(p.string()); }

gauge::Config quick_config() { return gauge::testing::fast_config(); }

gauge::Result fake_result(const char* name, bool throws = false) {
  FakeDevice dev;
  std::size_t call = 0;
  auto exp = gauge::testing::fake_experiment(
      dev,
      [&](FakeStream s) {
        if (throws && ++call == 3) throw std::runtime_error("cuBLAS said no");
        s.kernel(10e-6);
      },
      name);
  exp.config(quick_config());
  exp.dimension("M", 8192).dimension("dtype", "bf16").dimension("scale", 0.5).dimension("transposed", true);
  exp.flop(2.0 * 8192 * 8192 * 8192);
  return exp.run();
}

/// An environment that does not depend on the machine the tests run on.
gauge::Environment fixed_environment() {
  gauge::Environment env;
  env.gauge_version = gauge::version_string;
  env.cuda.error = "no CUDA-capable device is detected";
  return env;
}

}  // namespace

TEST_CASE("a result serializes every statistic, with null where undefined", "[report]") {
  auto r = fake_result("gemm");
  nlohmann::json j = r;
  CHECK(j["name"] == "gemm");
  CHECK(j["status"] == "ok");
  CHECK(j["dimensions"]["M"] == 8192);
  CHECK(j["dimensions"]["dtype"] == "bf16");
  CHECK(j["dimensions"]["scale"] == 0.5);
  CHECK(j["dimensions"]["transposed"] == true);
  CHECK(j["work"]["flop_per_step"] == Approx(2.0 * 8192 * 8192 * 8192));
  CHECK(j["gpu_time_s"]["p50"] == Approx(10e-6));
  CHECK(j["gpu_time_s"]["n"] == r.gpu_samples_s.size());
  CHECK(j["config"]["measure"]["round_time_s"] == Approx(1e-3));
  CHECK(j["config"]["warmup"]["max_time_s"] == Approx(3.0));
  CHECK(j["samples"]["gpu_time_per_step_s"].size() == r.gpu_samples_s.size());

  // 0 samples: every statistic but n is null; 1 sample: spread figures are null.
  gauge::Result empty;
  nlohmann::json e = empty;
  CHECK(e["gpu_time_s"]["n"] == 0);
  for (const char* key : {"min", "p1", "p50", "p99", "max", "mean", "stddev", "cv", "mad", "iqr", "median_ci"})
    CHECK(e["gpu_time_s"][key].is_null());
  gauge::Result one;
  one.gpu_time = gauge::stats::summarize({3e-6});
  nlohmann::json o = one;
  CHECK(o["gpu_time_s"]["p50"] == Approx(3e-6));
  CHECK(o["gpu_time_s"]["stddev"].is_null());
  CHECK(o["gpu_time_s"]["median_ci"].is_null());
}

TEST_CASE("non-finite numbers are written as null and the text parses strictly", "[report]") {
  gauge::Result r;
  r.name = "nonfinite";
  r.total_time_s = std::nan("");
  r.host_overhead_per_step_s = INFINITY;
  r.gpu_samples_s = {1e-6, std::nan(""), -INFINITY};
  std::string text = nlohmann::json(r).dump();
  CHECK(text.find("NaN") == std::string::npos);
  CHECK(text.find("nan") == std::string::npos);
  CHECK(text.find("Infinity") == std::string::npos);
  // Python's json module is strict too where it matters; nlohmann rejects NaN literals.
  REQUIRE_NOTHROW(nlohmann::json::parse(text));
  auto back = nlohmann::json::parse(text);
  CHECK(back["total_time_s"].is_null());
  CHECK(back["host_overhead_per_step_s"].is_null());
  CHECK(back["samples"]["gpu_time_per_step_s"][1].is_null());
  CHECK_THROWS(nlohmann::json::parse("{\"x\": NaN}"));
}

TEST_CASE("the report round-trips through its text unchanged", "[report]") {
  auto r = fake_result("gemm");
  nlohmann::json doc = gauge::detail::report_json(gauge::testing::document(fixed_environment(), {r}, {}, "2026-11-30T00:00:00Z"));
  nlohmann::json back = nlohmann::json::parse(doc.dump(2));
  CHECK(back == doc);
  // Doubles survive the text exactly (nlohmann writes the shortest round-trip form).
  CHECK(back["experiments"][0]["samples"]["gpu_time_per_step_s"][0].get<double>() == r.gpu_samples_s[0]);
  CHECK(back["schema"] == "gauge.report");
  CHECK(back["schema_version"] == gauge::report_schema_version);
  CHECK(back["created_utc"] == "2026-11-30T00:00:00Z");
}

TEST_CASE("a non-finite dimension set directly on a Result is kept as its text and the report reads back", "[report]") {
  const auto dir = fresh_dir("nonfinite-dimension");
  gauge::Report report((dir / "r.json").string(), fixed_environment());
  gauge::Result r = fake_result("scale");
  r.dimensions = {{"a", std::nan("")}, {"b", INFINITY}, {"c", -INFINITY}, {"d", 0.5}};
  report.add(r);
  report.add(gauge::records::SkippedPoint{"scale", {{"a", std::nan("")}}, "not run"});
  // In memory: what the file will hold (the setters refuse these values; a Dimensions filled
  // directly could hold them, and JSON has no NaN).
  const gauge::Dimensions expected{{"a", std::string("nan")}, {"b", std::string("inf")}, {"c", std::string("-inf")}, {"d", 0.5}};
  CHECK(report.results()[0].dimensions == expected);
  report.write();
  const gauge::StoredReport back = gauge::read_report(dir / "r.json");
  REQUIRE(back.results.size() == 1);
  CHECK(back.results[0].dimensions == expected);
  CHECK(back.skipped[0].dimensions == gauge::Dimensions{{"a", std::string("nan")}});
  // A document built without Report (the writer alone) is readable too.
  gauge::StoredReport doc = report.document();
  doc.results[0].dimensions["e"] = std::nan("");
  const nlohmann::json j = gauge::detail::report_json(doc);
  CHECK(j["experiments"][0]["dimensions"]["e"] == "nan");
}

TEST_CASE("Report builds one document: its file, its export formats and its summary all come from it", "[report][export]") {
  const auto dir = fresh_dir("one-document");
  gauge::Report report((dir / "r.json").string(), fixed_environment());
  report.add(fake_result("gemm"));
  report.add(gauge::records::SkippedPoint{"gemm", {{"M", std::int64_t{4}}}, "too small"});
  report.write();
  const gauge::StoredReport back = gauge::read_report(dir / "r.json");
  REQUIRE(back.results.size() == 1);
  REQUIRE(back.skipped.size() == 1);
  CHECK(back.skipped[0].reason == "too small");
  CHECK(report.skipped().size() == 1);
  // The registry from a Report: every format writes what it writes from the report read back
  // (created_utc aside: both are "now"), and the summary is the console format.
  gauge::StoredReport doc = report.document();
  CHECK(doc.schema_version == gauge::report_schema_version);
  CHECK(doc.source == (dir / "r.json").string());
  for (const char* format : {"csv", "markdown", "sweep", "sweep_markdown", "console", "bencher", "interleaved", "interleaved_markdown"})
    CHECK(gauge::export_text(report, format) == gauge::formats::find_export_format(format).write(back, {}));
  CHECK(report.summary() == gauge::export_text(report, "console"));
  CHECK(report.summary().find("skipped: gemm/M=4: too small\n") != std::string::npos);  // by hand from the add()
  // Host results without hardware counters: the reason once, with its count.
  gauge::StoredReport counted = report.document();
  for (int i = 0; i < 3; ++i) {
    gauge::Result h = fake_result("sort");
    h.cpu_counters.status = i < 2 ? "unavailable" : "measured";
    h.cpu_counters.reason = i < 2 ? "perf_event_open(CPU cycles): No such file or directory" : "";
    counted.results.push_back(h);
  }
  const std::string console = gauge::formats::find_export_format("console").write(counted, {});
  CHECK(console.find("cpu counters (cycles, instructions): unavailable for 2 of 3 host results: "
                     "perf_event_open(CPU cycles): No such file or directory\n") != std::string::npos);
  CHECK(report.summary().find("gemm") != std::string::npos);
  // The sweep view holds the skipped point's row with its reason, by hand from the add() above.
  CHECK(gauge::export_text(report, "sweep").find("too small") != std::string::npos);
  // json: the same document as the file, up to created_utc.
  nlohmann::json a = nlohmann::json::parse(gauge::export_text(report, "json")), b = nlohmann::json::parse(gauge::testing::read_text((dir / "r.json").string()));
  a.erase("created_utc");
  b.erase("created_utc");
  CHECK(a == b);
  gauge::ExportOptions wall;
  wall.metric = "wall";
  // gbench writes created_utc as context.date: "now" on each side, which may be a second apart.
  nlohmann::json g1 = nlohmann::json::parse(gauge::export_text(report, "gbench", wall));
  nlohmann::json g2 = nlohmann::json::parse(gauge::formats::find_export_format("gbench").write(back, wall));
  g1["context"].erase("date");
  g2["context"].erase("date");
  CHECK(g1 == g2);
  // An unknown format names itself and the registered ones; nothing is lost (the report stays).
  try {
    (void)gauge::export_text(report, "xml");
    FAIL("no error for an unknown format");
  } catch (const gauge::ConfigError& e) {
    CHECK(std::string(e.what()).rfind("no export format 'xml' (registered: gbench, csv,", 0) == 0);
  }
  CHECK(report.results().size() == 1);
}

TEST_CASE("an unwritable report path is an error before anything is measured", "[report]") {
  auto dir = fresh_dir("unwritable");
  // Missing directory.
  try {
    gauge::Report report(dir / "missing" / "r.json", fixed_environment());
    FAIL("no error for a missing directory");
  } catch (const gauge::ReportError& e) {
    CHECK(std::string(e.what()).find("does not exist") != std::string::npos);
    CHECK(std::string(e.what()).find((dir / "missing").string()) != std::string::npos);
  }
  // A directory where the file should be.
  fs::create_directories(dir / "isdir.json");
  CHECK_THROWS_AS(gauge::Report(dir / "isdir.json", fixed_environment()), gauge::ReportError);
  // A regular file where a directory should be.
  std::ofstream(dir / "file.txt") << "x";
  CHECK(gauge::testing::error_of<gauge::ReportError>([&] { gauge::Report(dir / "file.txt" / "r.json", fixed_environment()); }) ==
        "cannot write report to " + (dir / "file.txt" / "r.json").string() + ": " + (dir / "file.txt").string() +
            " is not a directory");
  CHECK(gauge::testing::error_of<gauge::ReportError>([&] { gauge::Report(dir / "file.txt" / "a" / "b" / "r.json", fixed_environment()); }).find(
            ": " + (dir / "file.txt").string() + " is not a directory") != std::string::npos);
  // Nothing was left behind by the checks.
  std::size_t entries = 0;
  for (auto& e : fs::directory_iterator(dir)) { (void)e; ++entries; }
  CHECK(entries == 2);
  fs::remove_all(dir);
}

TEST_CASE("writing is atomic: a temporary file, then rename, and nothing left behind", "[report]") {
  auto dir = fresh_dir("atomic");
  const fs::path path = dir / "report.json";
  gauge::Report report(path, fixed_environment());
  report.add(fake_result("a"));
  report.write();
  auto first = nlohmann::json::parse(read_file(path));
  CHECK(first["experiments"].size() == 1);
  report.add(fake_result("b"));
  report.write();
  auto second = nlohmann::json::parse(read_file(path));
  CHECK(second["experiments"].size() == 2);
  std::size_t entries = 0;
  for (auto& e : fs::directory_iterator(dir)) { (void)e; ++entries; }
  CHECK(entries == 1);  // no temporary file remains

  // When the final rename fails (a non-empty directory took the report's place), write() throws
  // naming the path, and no temporary file is left.
  fs::remove(path);
  fs::create_directories(path / "blocker");
  try {
    report.write();
    FAIL("no error when the rename fails");
  } catch (const gauge::ReportError& e) {
    CHECK(std::string(e.what()).find(path.string()) != std::string::npos);
  }
  entries = 0;
  for (auto& e : fs::directory_iterator(dir)) { (void)e; ++entries; }
  CHECK(entries == 1);
  fs::remove_all(dir);
}

TEST_CASE("a failed experiment is reported beside the others", "[report]") {
  auto dir = fresh_dir("failed");
  gauge::Report report(dir / "r.json", fixed_environment());
  report.add(fake_result("broken", true));
  report.add(fake_result("fine"));
  report.write();
  auto doc = nlohmann::json::parse(read_file(dir / "r.json"));
  REQUIRE(doc["experiments"].size() == 2);
  CHECK(doc["experiments"][0]["status"] == "failed");
  CHECK(doc["experiments"][0]["error"].get<std::string>().find("cuBLAS said no") != std::string::npos);
  CHECK(doc["experiments"][1]["status"] == "ok");
  CHECK(doc["experiments"][1]["error"].is_null());
  const std::string summary = report.summary();
  CHECK(summary.find("broken") != std::string::npos);
  CHECK(summary.find("failed") != std::string::npos);
  CHECK(summary.find("cuBLAS said no") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("the ci +-% cell never reads 0.000 for an interval the clock cannot resolve", "[report]") {
  using gauge::detail::ci_half_width_text;
  // A new user's friction: quantized host samples gave "ci +-% 0.000". At a 1 ns tick (k = 1 step
  // per sample), 100 samples of 3.499 us, 1000 of 3.5 us and 100 of 3.501 us: the median's
  // interval lies between equal samples and has no width. One tick over the median, by hand:
  // 100 * 1e-9 / 3.5e-6 = 0.02857 %, "<=0.029".
  gauge::Result r;
  r.name = "quantized";
  r.backend = "host";
  std::vector<double> samples(100, 3.499e-6);
  samples.insert(samples.end(), 1000, 3.5e-6);
  samples.insert(samples.end(), 100, 3.501e-6);
  r.gpu_time = gauge::stats::summarize(samples);
  r.sampling.timer_resolution_s = 1e-9;
  r.sampling.steps_per_sample = 1;
  REQUIRE(r.gpu_time.median_ci_relative_width);
  CHECK(*r.gpu_time.median_ci_relative_width == 0.0);
  CHECK(*r.gpu_time.p50 == 3.5e-6);
  CHECK(ci_half_width_text(r.gpu_time.median_ci_relative_width, r.gpu_time.p50, r.sampling.resolution_per_step()) ==
        "<=0.029");
  const std::string table = gauge::formats::summary_table({r});
  INFO(table);
  CHECK_THAT(table, Catch::Contains("<=0.029"));
  CHECK_THAT(table, !Catch::Contains("0.000"));
  // 1000 steps per sample: a tick per step of 1e-12 s, 100 * 1e-12 / 3.5e-6 = 2.9e-5 %: "<0.001".
  CHECK(ci_half_width_text(0.0, 3.5e-6, 1e-12) == "<0.001");
  // No tick known: the interval's own width, 0.000.
  CHECK(ci_half_width_text(0.0, 3.5e-6, 0) == "0.000");
  // A width that rounds to 0.000 at three decimals but is not zero: 50 * 4e-6 = 0.0002 %.
  CHECK(ci_half_width_text(4e-6, 1.0, 1e-9) == "<0.001");
  // The ordinary case, as before: 50 * 0.0042 = 0.21 %.
  CHECK(ci_half_width_text(0.0042, 1.0, 1e-9) == "0.210");
  CHECK(ci_half_width_text(std::nullopt, 1.0, 1e-9) == "-");
  CHECK(ci_half_width_text(std::numeric_limits<double>::quiet_NaN(), 1.0, 1e-9) == "-");
  // Extremes (an adversarial review's): never "?", never wider than the column.
  CHECK(ci_half_width_text(1e60, 1.0, 1e-9) == ">999");
  CHECK(ci_half_width_text(20.0, 1.0, 1e-9) == ">999");  // 50 * 20 = 1000 %
  CHECK(ci_half_width_text(0.0, 1e-300, 1e-9) == "-");
  CHECK(ci_half_width_text(0.0, 5e-324, 1e-9) == "-");
  CHECK(ci_half_width_text(0.0, 1e-12, 1.0) == "-");
  CHECK(ci_half_width_text(0.0, 1e-9, 1e-9) == "<=100.000");
  CHECK(ci_half_width_text(0.0, 1.0, std::numeric_limits<double>::infinity()) == "0.000");
}

TEST_CASE("the console summary shows median, p99 and throughput in readable units", "[report]") {
  auto r = fake_result("gemm");
  std::string table = gauge::formats::summary_table({r});
  CHECK(table.find("10 us") != std::string::npos);
  // 2 * 8192^3 FLOP / 10 us = 1.0995e17 FLOP/s = 110 PFLOP/s.
  CHECK(table.find("110 PFLOP/s") != std::string::npos);
  CHECK(gauge::detail::format_time(std::optional<double>(1.5e-3)) == "1.5 ms");
  CHECK(gauge::detail::format_rate(std::optional<double>(7.91e14), "FLOP/s") == "791 TFLOP/s");
  // The unit is chosen for the rounded number: 0.99999 us at 4 digits rounds to 1.000 us, "1 us"
  // (it printed "1000 ns" beside "1 us"); the same at every unit boundary, and for rates.
  CHECK(gauge::detail::format_time(std::optional<double>(0.99999e-6)) == "1 us");
  CHECK(gauge::detail::format_time(std::optional<double>(0.99999e-3)) == "1 ms");
  CHECK(gauge::detail::format_time(std::optional<double>(0.99999)) == "1 s");
  CHECK(gauge::detail::format_time(std::optional<double>(0.9994e-6)) == "999.4 ns");  // stays below
  CHECK(gauge::detail::format_time(std::optional<double>(-0.99999e-6)) == "-1 us");
  CHECK(gauge::detail::format_rate(std::optional<double>(999.99e9), "B/s") == "1 TB/s");
  CHECK(gauge::detail::format_rate(std::optional<double>(999.94), "B/s") == "999.9 B/s");
  // Near the largest double the rounding would overflow: the number is written, never "inf"
  // (helper-1 #12: a cpu_time_s of 1.79e308 s showed "inf s"). By hand: 1.797693e308 at 4 digits
  // is "1.798e+308", which strtod overflows.
  CHECK(gauge::detail::format_time(std::optional<double>(1.7976931348623157e308)) == "1.798e+308 s");
  CHECK(gauge::detail::format_rate(std::optional<double>(1.7976931348623157e308), "B/s").find("inf") == std::string::npos);
  // More than 17 digits count as 17 (a double's), by hand from printf's "%.17g": 1e300 is
  // 1.0000000000000001e+300; it printed "0 ns" at 60 digits, and stack bytes at INT_MAX.
  CHECK(gauge::detail::format_time(std::optional<double>(1e300), 60) == "1.0000000000000001e+300 s");
  CHECK(gauge::detail::format_general(1.5, 2147483647) == "1.5");
  CHECK(gauge::detail::format_general(0.1, 40) == "0.10000000000000001");
  CHECK(gauge::detail::format_general(1234.5, -3) == "1234.5");  // printf's default, 6
}

TEST_CASE("the console summary tells same-named results apart by the dimensions that differ", "[report]") {
  // One experiment run at 1, 2 and 4 threads into one report (KiB the same in all), beside
  // another experiment of its own name: the rows read "fnv1a/threads=1" ... and "gemm".
  std::vector<gauge::Result> results;
  for (std::int64_t n : {1, 2, 4}) {
    auto r = fake_result("fnv1a");
    r.dimensions = {{"KiB", std::int64_t{256}}, {"threads", n}};
    results.push_back(r);
  }
  results.push_back(fake_result("gemm"));
  const std::string table = gauge::formats::summary_table(results);
  CHECK(table.find("\nfnv1a/threads=1 ") != std::string::npos);
  CHECK(table.find("\nfnv1a/threads=2 ") != std::string::npos);
  CHECK(table.find("\nfnv1a/threads=4 ") != std::string::npos);
  CHECK(table.find("KiB=") == std::string::npos);  // the same in all three: not shown
  CHECK(table.find("\ngemm ") != std::string::npos);
}

TEST_CASE("gauge-compare labels same-named results with the declared axes first (a report's axes)", "[report][compare]") {
  // Two points of "k" that differ in both Z and B: the labels list Z before B where the base
  // report declares that order (schema 1.9), alphabetically (B, Z) where it declares none.
  gauge::StoredReport base;
  for (std::int64_t z : {1, 2}) {
    auto r = fake_result("k");
    r.dimensions = {{"Z", z}, {"B", std::string(z == 1 ? "x" : "y")}};
    base.results.push_back(r);
  }
  const gauge::StoredReport candidate = base;
  std::vector<std::string> labels;
  for (const auto& e : gauge::compare_reports(base, candidate).experiments) labels.push_back(e.label);
  CHECK(labels == std::vector<std::string>{"k/B=x/Z=1", "k/B=y/Z=2"});
  base.axes["k"] = {"Z", "B"};
  labels.clear();
  for (const auto& e : gauge::compare_reports(base, candidate).experiments) labels.push_back(e.label);
  CHECK(labels == std::vector<std::string>{"k/Z=1/B=x", "k/Z=2/B=y"});
}

TEST_CASE("the console summary of no results is empty: a Timer-only report has no bare table header", "[report]") {
  CHECK(gauge::formats::summary_table({}).empty());
  CHECK(gauge::formats::summary_table({fake_result("gemm")}).rfind("experiment ", 0) == 0);
}

TEST_CASE("the console legend says where wall/step includes the untimed setup or the cache flush", "[report]") {
  const std::string note = "wall/step: wall time per step (the untimed setup and cache flush included";
  CHECK(gauge::formats::summary_table({fake_result("plain")}).find("wall/step: wall time per step; ") != std::string::npos);
  CHECK(gauge::formats::summary_table({fake_result("plain")}).find(note) == std::string::npos);
  auto with_setup = fake_result("with_setup");
  with_setup.sampling.setup_calls = 12;
  CHECK(gauge::formats::summary_table({fake_result("plain"), with_setup}).find(note) != std::string::npos);
  auto cold = fake_result("cold");
  cold.config.measure.cache = gauge::CacheState::cold;
  CHECK(gauge::formats::summary_table({cold}).find(note) != std::string::npos);
}

TEST_CASE("the console's machine line: no CUDA versions in a CPU-only build, both with a driver", "[report]") {
  gauge::Environment env = fixed_environment();
  env.host.cpu.model_name = "Test CPU";
  env.cuda.error = "built without the CUDA runtime (GAUGE_NO_CUDA, or no cuda_runtime.h)";
  const std::string host = gauge::formats::environment_line(env);
  CHECK(host == "host only: built without the CUDA runtime (GAUGE_NO_CUDA, or no cuda_runtime.h) | Test CPU | gauge " +
                    std::string(gauge::version_string) + "\n");
  // A driver without a visible GPU still says so, with its versions (13000 = 13.0, 12080 = 12.8).
  env.cuda.error = "no CUDA-capable device is detected";
  env.cuda.driver_version = 13000;
  env.cuda.runtime_version = 12080;
  const std::string driver = gauge::formats::environment_line(env);
  CHECK(driver.rfind("no GPU (no CUDA-capable device is detected) | CUDA driver 13.0 runtime 12.8 | Test CPU", 0) == 0);
}

TEST_CASE("invalid UTF-8 in a name or error does not lose the report", "[report]") {
  auto dir = fresh_dir("utf8");
  gauge::Report report(dir / "r.json", fixed_environment());
  auto bad = fake_result("broken", true);
  bad.name = "bad \xff\xfe name";
  bad.error = std::string("bad \xff bytes");
  report.add(bad);
  report.add(fake_result("fine"));
  REQUIRE_NOTHROW(report.write());
  auto doc = nlohmann::json::parse(read_file(dir / "r.json"));
  REQUIRE(doc["experiments"].size() == 2);
  CHECK(doc["experiments"][0]["name"] == "bad \xEF\xBF\xBD\xEF\xBF\xBD name");  // U+FFFD twice
  CHECK(doc["experiments"][1]["status"] == "ok");
  fs::remove_all(dir);
}

TEST_CASE("a report path that exists and is not a regular file is refused", "[report]") {
  auto dir = fresh_dir("fifo");
  const auto fifo = dir / "pipe.json";
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  try {
    gauge::Report report(fifo, fixed_environment());
    FAIL("a FIFO was accepted");
  } catch (const gauge::ReportError& e) {
    CHECK(std::string(e.what()).find("not a regular file") != std::string::npos);
  }
  CHECK(fs::is_fifo(fifo));  // untouched
  fs::remove_all(dir);
}

}  // namespace gauge_test_report
