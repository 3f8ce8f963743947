// Exports: Google Benchmark JSON, CSV and Markdown, on stored reports. Expected numbers come from
// NumPy on the stored samples (the calls are in the comments). That Google Benchmark's own
// compare.py reads the export is tested in tests/test_tools.py.

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "catch.hpp"
#include "gauge/report/export.hpp"
#include "gauge/report/read.hpp"

namespace fs = std::filesystem;

namespace {
const fs::path reports_dir = fs::path(GAUGE_TEST_DATA_DIR) / "reports";
gauge::StoredReport stored(const std::string& name) { return gauge::read_report(reports_dir / name); }

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}
}  // namespace

TEST_CASE("export: Google Benchmark JSON with one repetition per sample (60 <= 100) and the aggregates", "[export]") {
  const auto report = stored("base.json");
  const nlohmann::json j = gauge::google_benchmark_json(report);
  REQUIRE(j.contains("context"));
  REQUIRE(j["benchmarks"].is_array());
  const auto& b = j["benchmarks"];
  REQUIRE(b.size() == 60 + 4);  // 60 samples, then mean, median, stddev, cv
  const std::string name = b[0]["name"];
  CHECK(name.rfind("gemm/K:8192/M:8192/N:8192/", 0) == 0);
  CHECK(name.find("/dtype:bf16/") != std::string::npos);
  for (std::size_t i = 0; i < 60; ++i) {
    CHECK(b[i]["name"] == name);
    CHECK(b[i]["run_type"] == "iteration");
    CHECK(b[i]["repetition_index"] == i);
    CHECK(b[i]["repetitions"] == 60);
    CHECK(b[i]["time_unit"] == "ns");
    CHECK(b[i]["iterations"] == 1);
  }
  // json.load(open("tests/data/reports/base.json"))["experiments"][0]["samples"]["gpu_time_per_step_s"][0]
  CHECK(b[0]["real_time"].get<double>() == Approx(0.001674420336137885 * 1e9).epsilon(1e-14));
  CHECK(b[0]["cpu_time"] == b[0]["real_time"]);
  CHECK(b[0]["flop_per_second"].get<double>() == Approx(1099511627776.0 / 0.001674420336137885).epsilon(1e-14));
  CHECK(b[0]["bytes_per_second"].get<double>() == Approx(402653184.0 / 0.001674420336137885).epsilon(1e-14));
  // np.mean, np.median, np.std(ddof=1), np.std(ddof=1) / np.mean of the 60 samples.
  auto aggregate = [&](std::size_t i, const char* which) {
    CHECK(b[i]["name"] == name + "_" + which);
    CHECK(b[i]["run_type"] == "aggregate");
    CHECK(b[i]["aggregate_name"] == which);
    CHECK(b[i]["run_name"] == name);
    return b[i]["real_time"].get<double>();
  };
  CHECK(aggregate(60, "mean") == Approx(0.0016020134443930844 * 1e9).epsilon(1e-12));
  CHECK(aggregate(61, "median") == Approx(0.0016001170117444308 * 1e9).epsilon(1e-14));
  CHECK(aggregate(62, "stddev") == Approx(1.4461466385068698e-05 * 1e9).epsilon(1e-10));
  CHECK(aggregate(63, "cv") == Approx(0.0090270568175833).epsilon(1e-10));
  CHECK(b[63]["aggregate_unit"] == "percentage");
  CHECK(b[61]["aggregate_unit"] == "time");
  CHECK(j["context"]["gpu"] == "NVIDIA H200");
  CHECK(j["context"]["num_cpus"] == 16);
  CHECK(j["context"]["library_build_type"] == "release");
  CHECK(j["context"]["gauge_skipped"].empty());
}

TEST_CASE("export: Google Benchmark JSON options (one entry per experiment, units, wall time)", "[export]") {
  const auto report = stored("multi-base.json");
  gauge::GoogleBenchmarkOptions o;
  o.repetitions = false;
  o.time_unit = "us";
  const nlohmann::json j = gauge::google_benchmark_json(report, o);
  REQUIRE(j["benchmarks"].size() == 3);
  CHECK(j["benchmarks"][2]["name"] == "copy/bytes:67108864");
  CHECK(j["benchmarks"][2]["time_unit"] == "us");
  CHECK(j["benchmarks"][2]["real_time"].get<double>() == Approx(*report.results[2].gpu_time.p50 * 1e6).epsilon(1e-14));
  CHECK(j["benchmarks"][2]["iterations"] == report.results[2].sampling.steps);
  CHECK(j["benchmarks"][0]["family_index"] == 0);
  CHECK(j["benchmarks"][2]["family_index"] == 2);
  o.metric = gauge::Metric::wall_time;
  o.repetitions = true;
  const nlohmann::json w = gauge::google_benchmark_json(report, o);
  CHECK(w["benchmarks"].size() == 3 * (8 + 4));  // 8 wall rounds each
  o.time_unit = "fortnights";
  CHECK_THROWS_AS(gauge::google_benchmark_json(report, o), gauge::ConfigError);
  // A failed experiment is one entry marked as Google Benchmark marks an error (SkipWithError).
  const nlohmann::json f = gauge::google_benchmark_json(stored("failed.json"));
  REQUIRE(f["benchmarks"].size() == 1);
  CHECK(f["benchmarks"][0]["error_occurred"] == true);
  CHECK(f["benchmarks"][0]["error_message"] ==
        "step 3 of measurement: cublasGemmEx failed: CUBLAS_STATUS_EXECUTION_FAILED");  // failed.json's "error"
  CHECK(f["benchmarks"][0]["iterations"] == 0);
  CHECK(f["context"]["gauge_skipped"].empty());
}

TEST_CASE("export: CSV has a header and one row per result and quotes by RFC 4180", "[export]") {
  const auto report = stored("multi-base.json");
  const std::string csv = gauge::csv_table(report.results);
  CHECK(count(csv, "\n") == 4);
  const std::string header = csv.substr(0, csv.find('\n'));
  CHECK(header.rfind("name,dim.K,dim.M,dim.N,dim.alignment_bytes,dim.bytes,", 0) == 0);
  CHECK(header.find(",status,backend,device,steps_per_sample,time_n,time_median_s,time_ci_low_s,time_ci_high_s,") != std::string::npos);
  CHECK(header.find(",warnings,error") != std::string::npos);
  // The epilogue "none (alpha=1, beta=0)" holds a comma: quoted.
  CHECK(count(csv, ",\"none (alpha=1, beta=0)\",") == 2);
  // copy has no M: an empty field; its median at round-trip precision.
  const std::string copy_row = csv.substr(csv.find("\ncopy,") + 1);
  CHECK(copy_row.rfind("copy,,,,,67108864,", 0) == 0);
  CHECK(copy_row.find("," + gauge::detail::format_number(*report.results[2].gpu_time.p50) + ",") != std::string::npos);
  // Quotes are doubled.
  gauge::Result r;
  r.name = "say \"hi\"";
  r.error = "line one\nline two";
  const std::string q = gauge::csv_table({r});
  CHECK(q.find("\"say \"\"hi\"\"\"") != std::string::npos);
  CHECK(q.find("\"line one\nline two\"") != std::string::npos);
}

TEST_CASE("export: Markdown table with readable units and escaped bars", "[export]") {
  const auto report = stored("multi-base.json");
  const std::string md = gauge::markdown_table(report.results);
  CHECK(md.rfind("| experiment | status | median | CI of the median | p99 | wall/step | throughput | warnings |\n|---|", 0) == 0);
  CHECK(count(md, "\n") == 2 + 3);
  CHECK(md.find("| copy (bytes=67108864) | ok | 20") != std::string::npos);
  gauge::Result r;
  r.name = "a|b";
  CHECK(gauge::markdown_table({r}).find("| a\\|b | ok | - | - |") != std::string::npos);
}
