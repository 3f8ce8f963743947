// Issue 21 ("Same code, same verdict") for the exports: the Bencher Metric Format export on hand-made
// results, and the Google Benchmark export's median, which must be gauge's own median. Every
// expected number is worked out by hand in the comments.

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "catch.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/report/formats.hpp"  // every format, registered in the tool's order

// This file's own namespace: the unity build compiles several test files as one.
namespace gauge_test_export_bencher {

namespace {

gauge::stats::ConfidenceInterval interval(double low, double high) {
  gauge::stats::ConfidenceInterval ci;
  ci.low = low;
  ci.high = high;
  ci.level = 0.95;
  return ci;
}

/// An ok result of `name` whose median GPU time per step is `p50` seconds, with `ci` as the
/// interval of the median.
gauge::Result measured(const std::string& name, std::optional<double> p50,
                       std::optional<gauge::stats::ConfidenceInterval> ci = std::nullopt) {
  gauge::Result r;
  r.name = name;
  r.backend = "cuda";
  r.gpu_time.n = p50 ? 100 : 0;
  r.gpu_time.p50 = p50;
  r.gpu_time.median_ci = ci;
  return r;
}

/// Two repetitions (0 and 1) of point k/A:1 at 1 and 2 us, then "dup" twice, at 5 and 6 us.
std::vector<gauge::Result> repetitions_and_duplicates() {
  std::vector<gauge::Result> results;
  for (std::size_t i = 0; i < 2; ++i) {
    gauge::Result r = measured("k", 1e-6 * static_cast<double>(i + 1));
    r.dimensions = {{"A", std::int64_t{1}}};
    r.repetition = i;
    results.push_back(r);
  }
  results.push_back(measured("dup", 5e-6));
  results.push_back(measured("dup", 6e-6));
  return results;
}

/// Every number anywhere in `j` is finite (nlohmann writes a non-finite double as null).
bool all_finite_numbers(const nlohmann::json& j) {
  if (j.is_null()) return false;
  if (j.is_number()) return std::isfinite(j.get<double>());
  if (j.is_object() || j.is_array()) {
    for (const auto& x : j)
      if (!all_finite_numbers(x)) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("bencher: latency in ns with the median's interval, rates inverted, failures left out", "[export][bencher]") {
  std::vector<gauge::Result> results;
  // A GEMM: median 1.5 ms, its interval [1.4 ms, 1.6 ms]; 3e12 FLOP, 6e9 bytes, 4096 tokens per step.
  gauge::Result gemm = measured("gemm", 1.5e-3, interval(1.4e-3, 1.6e-3));
  gemm.dimensions = {{"dtype", std::string("bf16")}, {"M", std::int64_t{8192}}};
  gemm.work.flop = 3e12;
  gemm.work.bytes = 6e9;
  gemm.work.items = {{"tokens", 4096.0}};
  results.push_back(gemm);
  // A failed experiment, even with a median: left out.
  gauge::Result broken = measured("broken", 1e-3, interval(0.9e-3, 1.1e-3));
  broken.status = gauge::Status::failed;
  broken.error = "cuBLAS said no";
  results.push_back(broken);
  // No samples, no median: left out; a NaN median: left out.
  results.push_back(measured("empty", std::nullopt));
  results.push_back(measured("nan", std::numeric_limits<double>::quiet_NaN()));
  // An interval reaching 0 s: the rate from its low end would be infinite and is left out.
  gauge::Result copy = measured("copy", 2e-5, interval(0.0, 3e-5));
  copy.work.bytes = 1e6;
  results.push_back(copy);
  // No interval, no work: latency alone, without bounds.
  results.push_back(measured("tiny", 4e-6));

  const nlohmann::json doc = gauge::formats::bencher_metric_format(results);
  INFO(doc.dump(2));
  REQUIRE(doc.size() == 3);
  // The name: the experiment's, then its dimensions in key order ("M" < "dtype" in ASCII).
  REQUIRE(doc.contains("gemm/M:8192/dtype:bf16"));
  const auto& g = doc["gemm/M:8192/dtype:bf16"];
  CHECK(g.size() == 4);  // latency and three rates
  // 1.5 ms = 1.5e6 ns; the interval 1.4e6 .. 1.6e6 ns.
  CHECK(g["latency"]["value"].get<double>() == Approx(1.5e6).epsilon(1e-15));
  CHECK(g["latency"]["lower_value"].get<double>() == Approx(1.4e6).epsilon(1e-15));
  CHECK(g["latency"]["upper_value"].get<double>() == Approx(1.6e6).epsilon(1e-15));
  // 3e12 FLOP / 1.5e-3 s = 2e15 FLOP/s; the lower bound from the interval's high time:
  // 3e12 / 1.6e-3 = 1.875e15; the upper from its low time: 3e12 / 1.4e-3 = 2.142857142857143e15.
  CHECK(g["flop-per-second"]["value"].get<double>() == Approx(2e15).epsilon(1e-15));
  CHECK(g["flop-per-second"]["lower_value"].get<double>() == Approx(1.875e15).epsilon(1e-15));
  CHECK(g["flop-per-second"]["upper_value"].get<double>() == Approx(2.142857142857143e15).epsilon(1e-15));
  // 6e9 B / 1.5e-3 s = 4e12 B/s; 6e9 / 1.6e-3 = 3.75e12; 6e9 / 1.4e-3 = 4.285714285714286e12.
  CHECK(g["bytes-per-second"]["value"].get<double>() == Approx(4e12).epsilon(1e-15));
  CHECK(g["bytes-per-second"]["lower_value"].get<double>() == Approx(3.75e12).epsilon(1e-15));
  CHECK(g["bytes-per-second"]["upper_value"].get<double>() == Approx(4.285714285714286e12).epsilon(1e-15));
  // 4096 / 1.5e-3 = 2730666.67 tokens/s; 4096 / 1.6e-3 = 2560000; 4096 / 1.4e-3 = 2925714.29.
  CHECK(g["tokens-per-second"]["value"].get<double>() == Approx(2730666.6666666667).epsilon(1e-15));
  CHECK(g["tokens-per-second"]["lower_value"].get<double>() == Approx(2560000.0).epsilon(1e-15));
  CHECK(g["tokens-per-second"]["upper_value"].get<double>() == Approx(2925714.2857142857).epsilon(1e-15));
  for (const char* m : {"flop-per-second", "bytes-per-second", "tokens-per-second"}) {
    CHECK(g[m]["lower_value"].get<double>() < g[m]["value"].get<double>());
    CHECK(g[m]["value"].get<double>() < g[m]["upper_value"].get<double>());
  }
  CHECK_FALSE(doc.contains("broken"));
  CHECK_FALSE(doc.contains("empty"));
  CHECK_FALSE(doc.contains("nan"));
  // copy: 2e-5 s = 2e4 ns, interval 0 .. 3e4 ns; 1e6 B / 2e-5 s = 5e10 B/s, lower 1e6 / 3e-5 =
  // 3.333e10, no upper (1e6 / 0 s).
  const auto& c = doc["copy"];
  CHECK(c["latency"]["value"].get<double>() == Approx(2e4).epsilon(1e-15));
  CHECK(c["latency"]["lower_value"].get<double>() == 0.0);
  CHECK(c["latency"]["upper_value"].get<double>() == Approx(3e4).epsilon(1e-15));
  CHECK(c["bytes-per-second"]["value"].get<double>() == Approx(5e10).epsilon(1e-15));
  CHECK(c["bytes-per-second"]["lower_value"].get<double>() == Approx(1e6 / 3e-5).epsilon(1e-15));
  CHECK_FALSE(c["bytes-per-second"].contains("upper_value"));
  // tiny: 4e-6 s = 4000 ns, nothing else.
  CHECK(doc["tiny"] == nlohmann::json::parse(R"({"latency": {"value": 4000.0}})"));
  CHECK(all_finite_numbers(doc));
}

TEST_CASE("bencher: process CPU time per step as cpu-time in ns, with its median's interval, where it was measured",
          "[export][bencher]") {
  gauge::Result host = measured("sort", 1e-3, interval(0.9e-3, 1.1e-3));
  host.backend = "host";
  host.cpu_time = gauge::stats::summarize({3e-3, 1e-3, 2e-3, 2.5e-3, 1.5e-3}); // median 2 ms (by hand)
  const gauge::Result gpu = measured("gemm", 2e-3, interval(1.9e-3, 2.1e-3));
  const nlohmann::json doc = gauge::formats::bencher_metric_format({host, gpu});
  const auto& cpu = doc.at("sort").at("cpu-time");
  CHECK(cpu.at("value").get<double>() == Approx(2e6));
  // 5 samples are too few for a distribution-free 95 % interval: value alone, no bounds.
  CHECK_FALSE(host.cpu_time.median_ci.has_value());
  CHECK_FALSE(cpu.contains("lower_value"));
  CHECK(doc.at("sort").at("latency").at("value").get<double>() == Approx(1e6));  // real time, unchanged
  CHECK_FALSE(doc.at("gemm").contains("cpu-time"));
  // With an interval (set by hand): its bounds in ns; --metric wall does not change it.
  host.cpu_time.median_ci = interval(1.5e-3, 2.5e-3);
  gauge::ExportOptions wall;
  wall.metric = "wall";
  host.wall_time = host.gpu_time;
  const nlohmann::json with = gauge::formats::bencher_metric_format({host}, wall);
  CHECK(with.at("sort").at("cpu-time").at("lower_value").get<double>() == Approx(1.5e6));
  CHECK(with.at("sort").at("cpu-time").at("upper_value").get<double>() == Approx(2.5e6));
  CHECK(with.at("sort").at("cpu-time").at("value").get<double>() == Approx(2e6));
}

TEST_CASE("bencher: a negative time (a report edited by hand) exports no measure, never a negative number",
          "[export][bencher]") {
  gauge::Result r = measured("sort", -1e-6, interval(-2e-6, 1e-6));
  r.backend = "host";
  r.cpu_time.p50 = -1e-6;
  gauge::Result ok = measured("copy", 1e-6, interval(-1e-6, 2e-6));  // a negative bound only
  const nlohmann::json doc = gauge::formats::bencher_metric_format({r, ok});
  CHECK_FALSE(doc.contains("sort"));  // nothing left to export for it
  CHECK(doc.at("copy").at("latency").at("value").get<double>() == Approx(1000));
  CHECK_FALSE(doc.at("copy").at("latency").contains("lower_value"));
  CHECK(doc.at("copy").at("latency").at("upper_value").get<double>() == Approx(2000));
}

TEST_CASE("bencher: the registered format writes valid JSON that parses back to the document", "[export][bencher]") {
  gauge::StoredReport report;
  gauge::Result gemm = measured("gemm", 1.5e-3, interval(1.4e-3, 1.6e-3));
  gemm.work.flop = 3e12;
  gemm.wall_time.p50 = 2e-3;  // wall time per step 2 ms, no interval
  report.results.push_back(gemm);
  gauge::Result broken = measured("broken", 1e-3);
  broken.status = gauge::Status::failed;
  report.results.push_back(broken);
  const gauge::formats::ExportFormat& format = gauge::formats::find_export_format("bencher");
  CHECK(format.description == "Bencher Metric Format JSON (bencher run --adapter json)");
  const std::string text = format.write(report, gauge::ExportOptions{});
  REQUIRE(!text.empty());
  CHECK(text.back() == '\n');
  for (const char* bad : {"null", "NaN", "Infinity", "broken"}) CHECK(text.find(bad) == std::string::npos);
  const nlohmann::json back = nlohmann::json::parse(text);
  CHECK(back == gauge::formats::bencher_metric_format(report.results));
  CHECK(back["gemm"]["latency"]["value"].get<double>() == Approx(1.5e6).epsilon(1e-15));
  // BMF's schema: every measure an object with a numeric "value".
  for (const auto& [name, measures] : back.items())
    for (const auto& [measure, metric] : measures.items()) {
      INFO(name << " " << measure);
      CHECK(metric.at("value").is_number());
    }
  // --metric wall: the wall time's median, 2 ms = 2e6 ns; 3e12 / 2e-3 = 1.5e15 FLOP/s.
  gauge::ExportOptions wall;
  wall.metric = "wall";
  const nlohmann::json w = nlohmann::json::parse(format.write(report, wall));
  CHECK(w["gemm"]["latency"] == nlohmann::json::parse(R"({"value": 2000000.0})"));
  CHECK(w["gemm"]["flop-per-second"]["value"].get<double>() == Approx(1.5e15).epsilon(1e-15));
  gauge::ExportOptions bad;
  bad.metric = "cpu";
  CHECK_THROWS_WITH(gauge::formats::bencher_metric_format(report.results, bad),
                    "bencher_metric_format: metric must be \"gpu\" or \"wall\", got \"cpu\"");
  // Nothing to export: an empty object.
  CHECK(gauge::formats::bencher_metric_format({broken}) == nlohmann::json::object());
}

TEST_CASE("bencher: repetitions of a point are benchmarks of their own, and names stay unique", "[export][bencher]") {
  std::vector<gauge::Result> results = repetitions_and_duplicates();
  results.push_back(measured("dup", 7e-6));
  const nlohmann::json doc = gauge::formats::bencher_metric_format(results);
  INFO(doc.dump(2));
  CHECK(doc.size() == 5);
  CHECK(doc["k/A:1/repetition:0"]["latency"]["value"].get<double>() == Approx(1000.0));
  CHECK(doc["k/A:1/repetition:1"]["latency"]["value"].get<double>() == Approx(2000.0));
  CHECK(doc["dup"]["latency"]["value"].get<double>() == Approx(5000.0));
  CHECK(doc["dup/occurrence:2"]["latency"]["value"].get<double>() == Approx(6000.0));
  CHECK(doc["dup/occurrence:3"]["latency"]["value"].get<double>() == Approx(7000.0));
}

TEST_CASE("gbench: repetitions of a point and repeated names are benchmarks of their own, as in bencher",
          "[export][gbench]") {
  // The suite runner's --repetitions 2 of one point, then one name twice (helper-1 #7: three
  // families all named "slow/k:1", with their aggregates, which compare.py confuses).
  std::vector<gauge::Result> results = repetitions_and_duplicates();
  for (auto& r : results) r.gpu_samples_s.assign(10, *r.gpu_time.p50);  // gbench needs samples
  gauge::formats::GoogleBenchmarkOptions o;
  o.repetitions = false;  // one entry per result: its median
  const nlohmann::json doc = gauge::formats::google_benchmark_json(gauge::Environment{}, results, o);
  std::vector<std::string> names;
  for (const auto& b : doc["benchmarks"]) names.push_back(b["name"].get<std::string>());
  REQUIRE(names == std::vector<std::string>{"k/A:1/repetition:0", "k/A:1/repetition:1", "dup", "dup/occurrence:2"});
  CHECK(doc["benchmarks"][1]["real_time"].get<double>() == Approx(2000.0));  // 2 us in ns
  CHECK(doc["benchmarks"][3]["real_time"].get<double>() == Approx(6000.0));
}

TEST_CASE("gbench: the _median aggregate is gauge's median, not the median of the groups' means", "[export][gbench]") {
  // 200 samples, so 100 repetition entries of 2 consecutive samples each. Pair 0 is (1 us, 1 us),
  // pairs 1..99 are (1 us, 3 us): 101 samples of 1 us and 99 of 3 us.
  std::vector<double> samples = {1e-6, 1e-6};
  for (int i = 1; i < 100; ++i) {
    samples.push_back(1e-6);
    samples.push_back(3e-6);
  }
  gauge::Result r;
  r.name = "noisy";
  r.backend = "host";
  r.work.flop = 2000.0;
  r.sampling.steps_per_sample = 1;
  r.sampling.steps = samples.size();
  r.gpu_samples_s = samples;
  r.gpu_time = gauge::stats::summarize(samples);
  // By hand: sorted, the 100th and 101st of 200 samples are both 1 us (101 samples of 1 us), so
  // the median is 1 us. The groups' means are 1 us once and 2 us 99 times: their median is 2 us.
  REQUIRE(r.gpu_time.p50.value() == Approx(1e-6).epsilon(1e-15));
  const nlohmann::json j = gauge::formats::google_benchmark_json(gauge::Environment{}, {r});
  const auto& b = j["benchmarks"];
  INFO(j.dump(1));
  REQUIRE(b.size() == 100 + 4);
  CHECK(b[0]["real_time"].get<double>() == Approx(1000.0).epsilon(1e-12));  // (1 + 1) / 2 us
  CHECK(b[1]["real_time"].get<double>() == Approx(2000.0).epsilon(1e-12));  // (1 + 3) / 2 us
  CHECK(b[1]["iterations"] == 2);
  auto aggregate = [&](const std::string& which) -> const nlohmann::json& {
    for (const auto& x : b)
      if (x.value("aggregate_name", "") == which) return x;
    FAIL("no aggregate " << which);
    return b[0];
  };
  const auto& median = aggregate("median");
  CHECK(median["name"] == "noisy_median");
  CHECK(median["run_type"] == "aggregate");
  CHECK(median["time_unit"] == "ns");
  CHECK(median["real_time"].get<double>() == Approx(1000.0).epsilon(1e-12));  // gauge's 1 us, not 2 us
  CHECK(median["cpu_time"].get<double>() == Approx(1000.0).epsilon(1e-12));
  CHECK(median["real_time"].get<double>() == Approx(*r.gpu_time.p50 * 1e9).epsilon(1e-15));
  CHECK(median["flop_per_second"].get<double>() == Approx(2e9).epsilon(1e-12));  // 2000 FLOP / 1 us
  // The mean: (101 x 1 + 99 x 3) / 200 = 1.99 us. The entries' stddev (n - 1): one entry 0.99 us
  // below the mean, 99 entries 0.01 us above: (0.9801 + 99 x 0.0001) / 99 = 0.01 us², so 0.1 us;
  // cv = 0.1 / 1.99.
  CHECK(aggregate("mean")["real_time"].get<double>() == Approx(1990.0).epsilon(1e-12));
  CHECK(aggregate("stddev")["real_time"].get<double>() == Approx(100.0).epsilon(1e-9));
  CHECK(aggregate("cv")["real_time"].get<double>() == Approx(0.1 / 1.99).epsilon(1e-9));

  // One entry per experiment: also gauge's median, in the chosen unit (1 us).
  gauge::formats::GoogleBenchmarkOptions one;
  one.repetitions = false;
  one.time_unit = "us";
  const nlohmann::json single = gauge::formats::google_benchmark_json(gauge::Environment{}, {r}, one);
  REQUIRE(single["benchmarks"].size() == 1);
  CHECK(single["benchmarks"][0]["real_time"].get<double>() == Approx(1.0).epsilon(1e-12));

  // The summary decides, not the stored samples (a report keeps at most max_samples_in_report):
  // a result whose summary says 1.25 us exports 1250 ns whatever its stored samples say.
  gauge::Result truncated = r;
  truncated.gpu_time.p50 = 1.25e-6;
  const nlohmann::json t = gauge::formats::google_benchmark_json(gauge::Environment{}, {truncated});
  CHECK(t["benchmarks"][101]["aggregate_name"] == "median");
  CHECK(t["benchmarks"][101]["real_time"].get<double>() == Approx(1250.0).epsilon(1e-12));
}

}  // namespace gauge_test_export_bencher
