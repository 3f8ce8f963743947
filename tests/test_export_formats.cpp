// The registry of export formats (gauge/report/export_format.hpp): every format gauge-export
// offers is registered once, found by name, and an unknown name is an error naming the choices.

#include <string>

#include "catch.hpp"
#include "gauge/report/formats.hpp"

TEST_CASE("export formats: the registry holds the four formats, in order, once each", "[export]") {
  std::string names;
  for (const auto& f : gauge::export_formats()) names += f.name + ",";
  CHECK(names == "gbench,csv,markdown,console,");
  CHECK(gauge::find_export_format("csv").description == "one row per experiment (RFC 4180)");
}

TEST_CASE("export formats: an unknown name names itself and the registered ones", "[export]") {
  try {
    gauge::find_export_format("xml");
    FAIL("no error for an unknown format");
  } catch (const gauge::ConfigError& e) {
    CHECK(std::string(e.what()) == "no export format 'xml' (registered: gbench, csv, markdown, console)");
  }
}

TEST_CASE("export formats: console writes the summary of a stored report, csv matches csv_table", "[export]") {
  gauge::StoredReport report;
  gauge::Result r;
  r.name = "copy";
  r.gpu_samples_s = {2e-6, 2e-6};
  r.gpu_time.n = 2;
  r.gpu_time.p50 = 2e-6;
  r.gpu_time.p99 = 2e-6;
  report.results.push_back(r);
  const std::string console = gauge::find_export_format("console").write(report, {});
  CHECK(console.find("copy") != std::string::npos);
  CHECK(console.find("2 us") != std::string::npos);  // 2e-6 s, by hand
  CHECK(gauge::find_export_format("csv").write(report, {}) == gauge::csv_table(report.results));
}
