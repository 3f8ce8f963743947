// The github_benchmark export format (github-action-benchmark's customSmallerIsBetter JSON) on
// hand-made results. Every expected number is worked out by hand in the comments.

#include <optional>
#include <string>
#include <vector>

#include "catch.hpp"
#include "gauge/report/formats.hpp"  // every format, registered in the tool's order

// This file's own namespace: the unity build compiles several test files as one.
namespace gauge_test_export_github {

namespace {

gauge::Result measured(const std::string& name, std::optional<double> p50, double low = 0, double high = 0) {
  gauge::Result r;
  r.name = name;
  r.backend = "cuda";
  r.gpu_time.n = p50 ? 100 : 0;
  r.gpu_time.p50 = p50;
  if (high > 0) {
    gauge::stats::ConfidenceInterval ci;
    ci.low = low;
    ci.high = high;
    ci.level = 0.95;
    r.gpu_time.median_ci = ci;
  }
  return r;
}

}  // namespace

TEST_CASE("github_benchmark: the median in the unit asked, the interval's larger half-width as range", "[export]") {
  std::vector<gauge::Result> results;
  // Median 1.5 ms, interval [1.4 ms, 1.7 ms]: the half-widths are 0.1 and 0.2 ms, so the range is
  // ± 0.2 ms = ± 200 us; in us the value is 1500.
  gauge::Result gemm = measured("gemm", 1.5e-3, 1.4e-3, 1.7e-3);
  gemm.dimensions = {{"dtype", std::string("bf16")}, {"M", std::int64_t{8192}}};
  results.push_back(gemm);
  // A failed result and one without samples are left out.
  gauge::Result failed = measured("broken", 1e-3, 0.9e-3, 1.1e-3);
  failed.status = gauge::Status::failed;
  results.push_back(failed);
  results.push_back(measured("empty", std::nullopt));
  // A second repetition of a suite point, median 2 us, no interval: no range.
  gauge::Result rep = measured("copy", 2e-6);
  rep.repetition = 1;
  results.push_back(rep);

  gauge::ExportOptions o;
  o.time_unit = "us";
  const nlohmann::json doc = gauge::formats::github_benchmark_json(results, o);
  REQUIRE(doc.is_array());
  REQUIRE(doc.size() == 2);
  CHECK(doc[0]["name"] == "gemm/M:8192/dtype:bf16");
  CHECK(doc[0]["unit"] == "us");
  CHECK(doc[0]["value"].get<double>() == Approx(1500.0).epsilon(1e-12));
  CHECK(doc[0]["range"] == "± 200");
  CHECK(doc[0]["extra"] == "median 1.5 ms, 95 % interval [1.4 ms, 1.7 ms], n = 100, GPU time");
  CHECK(doc[1]["name"] == "copy/repetition:1");
  CHECK(doc[1]["value"].get<double>() == Approx(2.0).epsilon(1e-12));
  CHECK_FALSE(doc[1].contains("range"));
  // Through the registry, as gauge-export writes it (default unit ns: 1.5 ms = 1.5e6 ns).
  gauge::StoredReport report;
  report.results = {gemm};
  const auto text = gauge::formats::find_export_format("github_benchmark").write(report, {});
  const auto parsed = nlohmann::json::parse(text);
  CHECK(parsed[0]["value"].get<double>() == Approx(1.5e6).epsilon(1e-12));
  CHECK(parsed[0]["range"] == "± 200000");
  // Wall time with --metric wall; a metric or unit it does not know is a ConfigError naming it.
  gauge::Result walled = gemm;
  walled.wall_time.n = 5;
  walled.wall_time.p50 = 1.6e-3;
  gauge::ExportOptions w;
  w.metric = "wall";
  w.time_unit = "ms";
  const auto wall = gauge::formats::github_benchmark_json({walled}, w);
  CHECK(wall[0]["value"].get<double>() == Approx(1.6).epsilon(1e-12));
  CHECK(wall[0]["extra"] == "median 1.6 ms, n = 5, wall time");
  gauge::ExportOptions bad;
  bad.metric = "cpu";
  CHECK_THROWS_WITH(gauge::formats::github_benchmark_json(results, bad),
                    "github_benchmark_json: metric must be \"gpu\" or \"wall\", got \"cpu\"");
  bad = {};
  bad.time_unit = "min";
  CHECK_THROWS_WITH(gauge::formats::github_benchmark_json(results, bad), Catch::Contains("got \"min\""));
  // The same experiment twice: the second is named apart. A median of 1e300 s is 1e309 ns, beyond
  // a double: refused, naming it, rather than written as null. An interval with a negative bound
  // (no time is negative) gives no range.
  const auto twice = gauge::formats::github_benchmark_json({gemm, gemm});
  CHECK(twice[1]["name"] == "gemm/M:8192/dtype:bf16/occurrence:2");
  CHECK_THROWS_WITH(gauge::formats::github_benchmark_json({measured("huge", 1e300, 0.9e300, 1.1e300)}),
                    "github_benchmark_json: the median of huge (1e+300 s) is not a finite number in ns");
  const auto negative = gauge::formats::github_benchmark_json({measured("neg", 1e-3, -1.0, 2e-3)});
  CHECK_FALSE(negative[0].contains("range"));
  CHECK(negative[0]["value"].get<double>() == Approx(1e6).epsilon(1e-12));
}

}  // namespace gauge_test_export_github
