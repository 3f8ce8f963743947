// Exports: Google Benchmark JSON, CSV and Markdown, on stored reports. Expected numbers come from
// NumPy on the stored samples (the calls are in the comments). That Google Benchmark's own
// compare.py reads the export is tested in tests/test_tools.py.

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "catch.hpp"
#include "gauge/core/peak_assessment.hpp"
#include "gauge/report/export.hpp"
#include "gauge/report/read.hpp"

// This file's own namespace: the unity build compiles several test files as one.
namespace gauge_test_export {

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

TEST_CASE("export: Google Benchmark JSON refuses a name it would copy into every entry, above 64 KiB", "[export]") {
  auto report = stored("base.json");
  const std::string dims = gauge::detail::export_::benchmark_name(report.results[0]).substr(report.results[0].name.size());
  report.results[0].name = std::string(65536 - dims.size(), 'x');  // exactly at the limit: written
  CHECK(gauge::formats::google_benchmark_json(report)["benchmarks"][0]["name"].get<std::string>().size() == 65536);
  report.results[0].name += "x";  // one byte more: refused, with the size
  CHECK_THROWS_WITH(gauge::formats::google_benchmark_json(report),
                    Catch::Contains("the name of experiment 0 is 65537 bytes (it begins \"xxxx") &&
                        Catch::Contains("names above 65536 bytes are refused"));
}

TEST_CASE("export: Google Benchmark JSON's cpu_time is process CPU time for a host result", "[export]") {
  auto report = stored("base.json");
  gauge::Result& r = report.results[0];
  r.backend = "host";
  r.time_label = "real time";
  r.cpu_samples_s = {2e-3, 3e-3, 4e-3};
  r.cpu_time = gauge::stats::summarize(r.cpu_samples_s); // median 3 ms
  gauge::formats::GoogleBenchmarkOptions o;
  o.time_unit = "ms";
  o.repetitions = false;
  const nlohmann::json one = gauge::formats::google_benchmark_json(report, o)["benchmarks"][0];
  CHECK(one["cpu_time"].get<double>() == Approx(3.0).epsilon(1e-12));
  CHECK(one["real_time"].get<double>() == Approx(*r.gpu_time.p50 * 1e3).epsilon(1e-12));
  // Repetitions: each entry's cpu_time is its real_time x (3 ms / the median real time).
  o.repetitions = true;
  const nlohmann::json b = gauge::formats::google_benchmark_json(report, o)["benchmarks"];
  const double ratio = 3e-3 / *r.gpu_time.p50;
  CHECK(b[0]["cpu_time"].get<double>() == Approx(b[0]["real_time"].get<double>() * ratio).epsilon(1e-12));
  for (const auto& e : b)
    if (e.value("aggregate_name", "") == "median") CHECK(e["cpu_time"].get<double>() == Approx(3.0).epsilon(1e-12));
  // The context names the host's clock, not CUDA events, and has no peak counters to explain.
  r.time_clock = "host steady clock";
  const nlohmann::json context = gauge::formats::google_benchmark_json(report, o)["context"];
  CHECK(context["time_source"] == "real_time: real time per step (host steady clock); cpu_time: process CPU time per "
                                  "step where the result has it, else real_time");
  CHECK_FALSE(context.contains("gauge_peak_counters"));
  // A host report of schema 1.2 to 1.6 called the steady clock's real time "CPU time"; a failed
  // result without a time adds nothing.
  r.time_label = "CPU time";
  gauge::Result failed = r;
  failed.time_label = "GPU time";
  failed.time_clock = "CUDA events";
  failed.status = gauge::Status::failed;
  failed.gpu_time = gauge::Summary{};
  gauge::StoredReport with_failed = report;  // r stays valid: report.results is not grown
  with_failed.results.push_back(failed);
  CHECK(gauge::formats::google_benchmark_json(with_failed, o)["context"]["time_source"] ==
        "real_time: real time per step (host steady clock); cpu_time: process CPU time per step where the result has "
        "it, else real_time");
  r.time_label = "real time";
  // A report with a GPU result beside it names both, each as its result says.
  gauge::StoredReport both = report;
  both.results.push_back(stored("base.json").results[0]);
  CHECK(gauge::formats::google_benchmark_json(both, o)["context"]["time_source"] ==
        "real_time: GPU time per step (CUDA events) or real time per step (host steady clock), as each result's "
        "time_label says; cpu_time: process CPU time per step where the result has it, else real_time");
}

TEST_CASE("export: Google Benchmark JSON with one repetition per sample (60 <= 100) and the aggregates", "[export]") {
  const auto report = stored("base.json");
  const nlohmann::json j = gauge::formats::google_benchmark_json(report);
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
  CHECK(!j["context"].contains("gauge_skipped"));  // skips are entries, as Google Benchmark writes them
}

TEST_CASE("export: Google Benchmark JSON options (one entry per experiment, units, wall time)", "[export]") {
  const auto report = stored("multi-base.json");
  gauge::formats::GoogleBenchmarkOptions o;
  o.repetitions = false;
  o.time_unit = "us";
  const nlohmann::json j = gauge::formats::google_benchmark_json(report, o);
  REQUIRE(j["benchmarks"].size() == 3);
  CHECK(j["benchmarks"][2]["name"] == "copy/bytes:67108864");
  CHECK(j["benchmarks"][2]["time_unit"] == "us");
  CHECK(j["benchmarks"][2]["real_time"].get<double>() == Approx(*report.results[2].gpu_time.p50 * 1e6).epsilon(1e-14));
  CHECK(j["benchmarks"][2]["iterations"] == report.results[2].sampling.steps);
  // Google Benchmark's indices: a family per benchmark name, an instance per point of it (gemm at
  // 4096 and 8192 are instances 0 and 1 of family 0; copy is family 1)
  CHECK(j["benchmarks"][0]["family_index"] == 0);
  CHECK(j["benchmarks"][0]["per_family_instance_index"] == 0);
  CHECK(j["benchmarks"][1]["family_index"] == 0);
  CHECK(j["benchmarks"][1]["per_family_instance_index"] == 1);
  CHECK(j["benchmarks"][2]["family_index"] == 1);
  CHECK(j["benchmarks"][2]["per_family_instance_index"] == 0);
  o.metric = gauge::Metric::wall_time;
  o.repetitions = true;
  const nlohmann::json w = gauge::formats::google_benchmark_json(report, o);
  CHECK(w["benchmarks"].size() == 3 * (8 + 4));  // 8 wall rounds each
  o.time_unit = "fortnights";
  CHECK_THROWS_AS(gauge::formats::google_benchmark_json(report, o), gauge::ConfigError);
  // A failed experiment is one entry marked as Google Benchmark marks an error (SkipWithError).
  const nlohmann::json f = gauge::formats::google_benchmark_json(stored("failed.json"));
  REQUIRE(f["benchmarks"].size() == 1);
  CHECK(f["benchmarks"][0]["error_occurred"] == true);
  CHECK(f["benchmarks"][0]["error_message"] ==
        "step 3 of measurement: cublasGemmEx failed: CUBLAS_STATUS_EXECUTION_FAILED");  // failed.json's "error"
  CHECK(f["benchmarks"][0]["iterations"] == 0);
  CHECK(!f["benchmarks"][0].contains("skipped"));  // an error, not a skip
}

TEST_CASE("export: CSV has a header and one row per result and quotes by RFC 4180", "[export]") {
  const auto report = stored("multi-base.json");
  const std::string csv = gauge::formats::csv_table(report.results);
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
  const std::string q = gauge::formats::csv_table({r});
  CHECK(q.find("\"say \"\"hi\"\"\"") != std::string::npos);
  CHECK(q.find("\"line one\nline two\"") != std::string::npos);
}

TEST_CASE("export: CSV column names stay unique when a work item is named like another column", "[export]") {
  // An item named "bytes" made a second "bytes_per_s" column (and "wall_flop" a second
  // "wall_flop_per_s"): csv.DictReader then silently kept the item's value as bytes_per_s.
  auto report = stored("multi-base.json");
  gauge::Result r = report.results[0];
  r.work.bytes = 1e6;
  r.work.items = {{"bytes", 10.0}, {"wall_flop", 3.0}, {"tokens", 7.0}};
  r.gpu_throughput = gauge::throughput(r.work, r.gpu_time.p50);
  const std::string csv = gauge::formats::csv_table({r});
  const std::string header = csv.substr(0, csv.find('\n'));
  std::vector<std::string> names;
  for (std::size_t at = 0; at <= header.size();) {
    const std::size_t comma = std::min(header.find(',', at), header.size());
    names.push_back(header.substr(at, comma - at));
    at = comma + 1;
  }
  CHECK(std::set<std::string>(names.begin(), names.end()).size() == names.size());
  for (const char* want : {"bytes_per_s", "item.bytes_per_s", "wall_flop_per_s", "item.wall_flop_per_s", "tokens_per_s"})
    CHECK(std::count(names.begin(), names.end(), std::string(want)) == 1);
  // The item's column holds the item's rate: 10 per step / the median (by hand).
  const std::string row = csv.substr(csv.find('\n') + 1);
  std::vector<std::string> fields(1);  // RFC 4180: a quoted field may hold commas ("none (alpha=1, beta=0)")
  bool quoted = false;
  for (const char c : row) {
    if (c == '"') quoted = !quoted;
    else if (c == ',' && !quoted) fields.emplace_back();
    else if (c != '\n' || quoted) fields.back() += c;
  }
  REQUIRE(fields.size() == names.size());
  const auto column = [&](const std::string& name) {
    return fields.at(static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin()));
  };
  CHECK(std::stod(column("item.bytes_per_s")) == Approx(10.0 / *r.gpu_time.p50).epsilon(1e-12));
  CHECK(std::stod(column("bytes_per_s")) == Approx(1e6 / *r.gpu_time.p50).epsilon(1e-12));
  CHECK(std::stod(column("tokens_per_s")) == Approx(7.0 / *r.gpu_time.p50).epsilon(1e-12));
}

TEST_CASE("export: Google Benchmark JSON writes a skipped point and a result without samples as Google Benchmark writes a skip",
          "[export]") {
  // Google Benchmark (1.8+) writes a benchmark that called State::SkipWithMessage as an entry
  // with "skipped": true and "skip_message", no iterations and zero times (its json_reporter.cc);
  // gauge used to leave such points out, naming them in a key of its own, context.gauge_skipped,
  // which no reader of Google Benchmark JSON knows (compare.py reads only context.json_schema_version).
  auto report = stored("multi-base.json");
  REQUIRE(report.results.size() == 3);
  report.results[2].gpu_samples_s.clear();  // copy: ok, but no samples
  const std::vector<gauge::records::SkippedPoint> skipped = {
      {"gemm", {{"M", std::int64_t{65536}}, {"dtype", std::string("fp64")}}, "does not fit in device memory"},
      {"gemm", {{"M", std::int64_t{65536}}, {"dtype", std::string("fp64")}}, "again"}};
  const nlohmann::json j = gauge::formats::google_benchmark_json(report.environment, report.results, {}, "", skipped);
  const auto& b = j["benchmarks"];
  REQUIRE(b.size() == 2 * (30 + 4) + 1 + 2);  // two gemm results (30 samples and 4 aggregates), then 3 skips
  CHECK(b[68] == nlohmann::json::parse(R"({"name": "copy/bytes:67108864", "family_index": 1,
      "per_family_instance_index": 0, "run_name": "copy/bytes:67108864", "run_type": "iteration", "repetitions": 1,
      "repetition_index": 0, "threads": 1, "skipped": true, "skip_message": "no samples", "iterations": 0,
      "real_time": 0.0, "cpu_time": 0.0, "time_unit": "ns"})"));
  // the skipped gemm point is the third instance of the gemm family (after M=4096 and M=8192)
  CHECK(b[69] == nlohmann::json::parse(R"({"name": "gemm/M:65536/dtype:fp64", "family_index": 0,
      "per_family_instance_index": 2, "run_name": "gemm/M:65536/dtype:fp64", "run_type": "iteration", "repetitions": 1,
      "repetition_index": 0, "threads": 1, "skipped": true, "skip_message": "does not fit in device memory",
      "iterations": 0, "real_time": 0.0, "cpu_time": 0.0, "time_unit": "ns"})"));
  CHECK(b[70]["name"] == "gemm/M:65536/dtype:fp64/occurrence:2");  // names stay apart
  CHECK(b[70]["family_index"] == 0);  // the same point again: the same family, an instance of its own
  CHECK(b[70]["per_family_instance_index"] == 3);  // (a run name of its own, as Google Benchmark has one per instance)
  CHECK(b[34]["family_index"] == 0);
  CHECK(b[34]["per_family_instance_index"] == 1);
  CHECK(!j["context"].contains("gauge_skipped"));
  // A report read back brings its skipped points (the suite runner's --format gbench, gauge-export).
  report.skipped = skipped;
  CHECK(gauge::formats::google_benchmark_json(report)["benchmarks"] == b);
}

TEST_CASE("export: CSV and Markdown tell a point's repetitions apart by a repetition column", "[export]") {
  // The suite runner's --repetitions 2 writes a point twice, with one name and the same
  // dimensions: before, its two CSV rows differed in the numbers only.
  const auto report = stored("multi-base.json");
  gauge::Result first = report.results[2], second = report.results[2], once = report.results[1];
  first.repetition = 0;
  second.repetition = 1;
  const std::string csv = gauge::formats::csv_table({first, second, once});
  const std::string header = csv.substr(0, csv.find('\n'));
  // After the dimensions, before status (dims: K, M, N, alignment_bytes, bytes, compute, dtype,
  // epilogue, layout, library, transa, transb).
  CHECK(header.find(",dim.transb,repetition,status,backend,device,steps_per_sample,time_n,") != std::string::npos);
  std::vector<std::string> rows;
  for (std::size_t at = csv.find('\n') + 1, end; (end = csv.find('\n', at)) != std::string::npos; at = end + 1)
    rows.push_back(csv.substr(at, end - at));
  REQUIRE(rows.size() == 3);
  // The same point: the same cells up to the dimensions, then 0 and 1.
  const std::string dims_of_copy = "copy,,,,,67108864,,,,,,,,";  // name, 12 dimension cells (only bytes set)
  CHECK(rows[0].rfind(dims_of_copy + "0,ok,", 0) == 0);
  CHECK(rows[1].rfind(dims_of_copy + "1,ok,", 0) == 0);
  CHECK(rows[2].find(",n,n,,ok,") != std::string::npos);  // ran once: an empty repetition cell
  const std::string md = gauge::formats::markdown_table({first, second});
  CHECK(md.find("| copy/bytes=67108864 (repetition 0) | ok |") != std::string::npos);
  CHECK(md.find("| copy/bytes=67108864 (repetition 1) | ok |") != std::string::npos);
}

TEST_CASE("export: Markdown table with readable units and escaped bars", "[export]") {
  const auto report = stored("multi-base.json");
  const std::string md = gauge::formats::markdown_table(report.results);
  CHECK(md.rfind("| experiment | status | median | CI of the median | p99 | wall/step | throughput | warnings | % of peak | "
                 "roofline |\n|---|", 0) == 0);
  CHECK(count(md, "\n") == 2 + 3);
  CHECK(md.find("| copy/bytes=67108864 | ok | 20") != std::string::npos);
  gauge::Result r;
  r.name = "a|b";
  CHECK(gauge::formats::markdown_table({r}).find("| a\\|b | ok | - | - |") != std::string::npos);
  CHECK(gauge::formats::markdown_table({r}).find("| - | - |\n") != std::string::npos); // no peaks, no roofline
}

namespace {
/// An 8192^3 bf16 GEMM on an H100-SXM-like device (132 SMs, 1980 MHz, 2619 MHz x 5120 bits),
/// 1.6 ms GPU time and 1.7 ms wall time per step, with its peaks as the protocol records them.
gauge::Result gemm_with_peaks() {
  gauge::Result r;
  r.name = "gemm";
  r.backend = "cuda";
  r.dimensions = {{"dtype", std::string("bf16")}};
  r.work.flop = 2.0 * 8192.0 * 8192.0 * 8192.0;
  r.work.bytes = 3.0 * 8192.0 * 8192.0 * 2.0;
  r.gpu_samples_s = {1.6e-3, 1.6e-3, 1.6e-3};
  r.wall_samples_s = {1.7e-3, 1.7e-3};
  r.gpu_time = gauge::stats::summarize(r.gpu_samples_s);
  r.wall_time = gauge::stats::summarize(r.wall_samples_s);
  r.sampling.steps = 3;
  r.gpu_throughput = gauge::throughput(r.work, r.gpu_time.p50);
  r.wall_throughput = gauge::throughput(r.work, r.wall_time.p50);
  gauge::detail::PeakInputs in;
  gauge::peaks::DeviceAttributes a;
  a.name = "NVIDIA H100 80GB HBM3";
  a.compute_capability_major = 9;
  a.multiprocessors = 132;
  a.sm_clock_max_mhz = 1980;
  a.memory_clock_max_mhz = 2619;
  a.memory_bus_width_bits = 5120;
  in.device = a;
  in.gpu_busy_fraction = 0.94;
  r.peaks = gauge::detail::assess_peaks(r.work, r.dimensions, r.gpu_throughput, r.wall_throughput, in);
  return r;
}

/// A host result: no device peaks.
gauge::Result host_sort() {
  gauge::Result r;
  r.name = "sort";
  r.backend = "host";
  r.work.bytes = 1e6;
  r.gpu_samples_s = {1e-3, 1e-3};
  r.gpu_time = gauge::stats::summarize(r.gpu_samples_s);
  r.sampling.steps = 2;
  r.gpu_throughput = gauge::throughput(r.work, r.gpu_time.p50);
  r.peaks.reason = "the host backend knows no device peaks";
  return r;
}

std::vector<std::string> csv_cells(const std::string& line) {
  std::vector<std::string> out(1);
  for (char c : line) {
    if (c == ',') out.emplace_back();
    else out.back() += c;
  }
  return out;
}

// By hand: bf16 dense peak 132 x 1980e6 x 4096 = 1.07053056e15 FLOP/s; memory 2 x 2619e6 x 5120 / 8
// = 3.35232e12 B/s; datasheet (H100 SXM5) 989.5e12 FLOP/s and 3.35e12 B/s.
constexpr double gemm_flop = 2.0 * 8192.0 * 8192.0 * 8192.0, gemm_bytes = 3.0 * 8192.0 * 8192.0 * 2.0;
constexpr double bf16_peak = 132 * 1980e6 * 4096, memory_peak = 2 * 2619e6 * 5120 / 8;
}  // namespace

TEST_CASE("export: every throughput's percent of each peak and the roofline, in CSV, Markdown and Google Benchmark",
          "[export][peaks]") {
  const std::vector<gauge::Result> results = {gemm_with_peaks(), host_sort()};
  // CSV: a column per peak, GPU then wall; the host row's cells empty.
  const std::string csv = gauge::formats::csv_table(results);
  const std::vector<std::string> header = csv_cells(csv.substr(0, csv.find('\n')));
  const std::string rest = csv.substr(csv.find('\n') + 1);
  const std::vector<std::string> gemm = csv_cells(rest.substr(0, rest.find('\n')));
  const std::string host_line = rest.substr(rest.find('\n') + 1);
  const std::vector<std::string> host = csv_cells(host_line.substr(0, host_line.find('\n')));
  REQUIRE(gemm.size() == header.size());
  REQUIRE(host.size() == header.size());
  auto column = [&](const std::string& name) {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return i;
    FAIL("no column " << name);
    return std::size_t{0};
  };
  auto number = [&](const std::string& name) { return std::stod(gemm.at(column(name))); };
  CHECK(number("pct_of_peak_bf16_dense_theoretical") == Approx(100 * gemm_flop / 1.6e-3 / bf16_peak).epsilon(1e-12));  // 64.19
  CHECK(number("pct_of_peak_bf16_dense_datasheet") == Approx(100 * gemm_flop / 1.6e-3 / 989.5e12).epsilon(1e-12));     // 69.45
  CHECK(number("pct_of_peak_memory_bw_theoretical") == Approx(100 * gemm_bytes / 1.6e-3 / memory_peak).epsilon(1e-12)); // 7.507
  CHECK(number("pct_of_peak_memory_bw_datasheet") == Approx(100 * gemm_bytes / 1.6e-3 / 3.35e12).epsilon(1e-12));
  CHECK(number("wall_pct_of_peak_bf16_dense_theoretical") == Approx(100 * gemm_flop / 1.7e-3 / bf16_peak).epsilon(1e-12));
  // Memory first, then the compute type; theoretical before datasheet; GPU before wall.
  CHECK(column("pct_of_peak_memory_bw_theoretical") < column("pct_of_peak_bf16_dense_theoretical"));
  CHECK(column("pct_of_peak_bf16_dense_theoretical") < column("pct_of_peak_bf16_dense_datasheet"));
  CHECK(column("pct_of_peak_bf16_dense_datasheet") < column("wall_pct_of_peak_memory_bw_theoretical"));
  // The roofline: intensity 2 x 8192 / 6 FLOP/B against the ridge 1.07053056e15 / 3.35232e12.
  CHECK(gemm.at(column("roofline_bound")) == "compute");
  CHECK(gemm.at(column("roofline_basis")) == "theoretical");
  CHECK(number("arithmetic_intensity_flop_per_byte") == Approx(8192.0 / 3.0));
  CHECK(number("ridge_point_flop_per_byte") == Approx(bf16_peak / memory_peak));
  CHECK(gemm.at(column("peaks_status")) == "known");
  CHECK(gemm.at(column("peak_dtype")) == "bf16");
  // The host result: "none" with the reason, and empty cells, never zeros.
  CHECK(host.at(column("peaks_status")) == "none");
  CHECK(host.at(column("peaks_reason")) == "the host backend knows no device peaks");
  for (const char* c : {"pct_of_peak_memory_bw_theoretical", "pct_of_peak_bf16_dense_theoretical", "roofline_bound",
                        "arithmetic_intensity_flop_per_byte", "wall_pct_of_peak_bf16_dense_theoretical"})
    CHECK(host.at(column(c)).empty());

  // Markdown: the GPU percentages and the roofline, "-" for the host.
  const std::string md = gauge::formats::markdown_table(results);
  CHECK(md.rfind("| experiment | status | median | CI of the median | p99 | wall/step | throughput | warnings | % of peak | "
                 "roofline |\n", 0) == 0);
  CHECK(md.find("| memory 7.51 % theoretical (max boost), 7.51 % datasheet; bf16 dense 64.2 % theoretical (max boost), "
                "69.4 % datasheet | compute-bound (2.73e+03 FLOP/B, ridge 319 FLOP/B, theoretical) |") != std::string::npos);
  CHECK(md.find("| sort | ok |") != std::string::npos);
  CHECK(md.substr(md.rfind("| sort")).find("| - | - |\n") != std::string::npos);

  // Google Benchmark: user counters on every entry, relative to that entry's time.
  gauge::Environment env;
  gauge::formats::GoogleBenchmarkOptions o;
  o.repetitions = false;
  const nlohmann::json j = gauge::formats::google_benchmark_json(env, results, o);
  REQUIRE(j["benchmarks"].size() == 2);
  const auto& g = j["benchmarks"][0];
  CHECK(g["pct_of_peak_bf16_dense_theoretical"].get<double>() == Approx(100 * gemm_flop / 1.6e-3 / bf16_peak).epsilon(1e-12));
  CHECK(g["pct_of_peak_memory_bw_theoretical"].get<double>() == Approx(100 * gemm_bytes / 1.6e-3 / memory_peak).epsilon(1e-12));
  CHECK(g["arithmetic_intensity_flop_per_byte"].get<double>() == Approx(8192.0 / 3.0));
  CHECK(g["label"] == "roofline: compute-bound (theoretical peaks)");
  for (const auto& [key, value] : j["benchmarks"][1].items()) {
    CHECK(key.rfind("pct_of_peak", 0) != 0);
    CHECK(key != "label");
  }
  CHECK(j["context"]["gauge_peak_counters"].get<std::string>().find("pct_of_peak_<quantity>_<basis>") == 0);
  // The key follows the counters themselves, whatever the record's status says.
  std::vector<gauge::Result> odd = results;
  odd[0].peaks.status = "none";
  const nlohmann::json oj = gauge::formats::google_benchmark_json(env, odd, o);
  REQUIRE(oj["benchmarks"][0].contains("pct_of_peak_bf16_dense_theoretical"));
  CHECK(oj["context"].contains("gauge_peak_counters"));
  // With wall time as real_time the counters follow it: 1.7 ms.
  o.metric = gauge::Metric::wall_time;
  const nlohmann::json w = gauge::formats::google_benchmark_json(env, results, o);
  CHECK(w["benchmarks"][0]["pct_of_peak_bf16_dense_theoretical"].get<double>() ==
        Approx(100 * gemm_flop / 1.7e-3 / bf16_peak).epsilon(1e-12));
  // Repetitions: each entry's counter at its own time (all 1.6 ms here), the median's too.
  const nlohmann::json reps = gauge::formats::google_benchmark_json(env, {gemm_with_peaks()});
  for (const auto& b : reps["benchmarks"])
    if (b["run_type"] == "iteration" || b.value("aggregate_name", "") == "median")
      CHECK(b["pct_of_peak_bf16_dense_theoretical"].get<double>() == Approx(100 * gemm_flop / 1.6e-3 / bf16_peak).epsilon(1e-12));
}

}  // namespace gauge_test_export
