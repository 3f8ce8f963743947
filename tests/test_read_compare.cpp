// Reading reports back and comparing two reports, on stored reports
// (tests/data/reports/, written by tests/data/gen_reports.py from the real H200 report) and on
// reports written by gauge itself. Expected numbers come from SciPy/NumPy (the calls are in the
// comments) or by hand, never from the code under test.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

#include "catch.hpp"
#include "test_helpers.hpp"
#include "fake_backend.hpp"
#include "gauge/experiment.hpp"
#include "gauge/report/compare.hpp"
#include "gauge/report/console.hpp"
#include "gauge/report/export.hpp"
#include "gauge/report/json.hpp"
#include "gauge/report/read.hpp"

// This file's own namespace: the unity build compiles several test files as one.
namespace gauge_test_read_compare {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

const fs::path data_dir = GAUGE_TEST_DATA_DIR;
const fs::path reports_dir = data_dir / "reports";
const fs::path source_dir = data_dir.parent_path().parent_path();

gauge::StoredReport stored(const std::string& name) { return gauge::read_report(reports_dir / name); }

std::string read_text(const fs::path& p) { return gauge::testing::read_text(p.string()); }

/// The message of the ReportError `f` throws ("" if it throws none).
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const gauge::ReportError& e) {
    return e.what();
  }
  return "";
}

/// True when every key of `part` is in `whole` with an equal value (recursively for objects):
/// what a reader of schema 1.0 keeps, a newer writer writes unchanged.
/// `doc` without the keys added to the report after schema 1.0.0 (telemetry, memory, kernels,
/// round times, NVML, tools), which this reader leaves in StoredReport::document.
nlohmann::json without_newer_keys(nlohmann::json doc) {
  static const char* const newer[] = {"telemetry", "memory", "kernels", "round_start_s", "round_end_s",
                                      "round_samples", "nvml", "tools", "numa_node", "local_cpulist"};
  if (doc.is_object()) {
    for (const char* k : newer) doc.erase(k);
    for (auto& [k, v] : doc.items()) v = without_newer_keys(v);
  } else if (doc.is_array()) {
    for (auto& v : doc) v = without_newer_keys(v);
  }
  return doc;
}

bool subset_equal(const nlohmann::json& part, const nlohmann::json& whole, std::string& where) {
  if (part.is_object()) {
    if (!whole.is_object()) return false;
    for (auto it = part.begin(); it != part.end(); ++it) {
      // A method's name is that of the gauge that writes: the outlier fences became aware of the
      // clock's tick after the stored report was written.
      if (it.key() == "outlier_method" && it->is_string() && whole.contains(it.key())) continue;
      if (!whole.contains(it.key())) {
        where += "." + it.key() + " (missing)";
        return false;
      }
      if (!subset_equal(*it, whole.at(it.key()), where)) {
        where = "." + it.key() + where;
        return false;
      }
    }
    return true;
  }
  if (part.is_array()) {
    if (!whole.is_array() || whole.size() != part.size()) return false;
    for (std::size_t i = 0; i < part.size(); ++i)
      if (!subset_equal(part[i], whole[i], where)) {
        where = "[" + std::to_string(i) + "]" + where;
        return false;
      }
    return true;
  }
  if (part.is_number() && whole.is_number()) return part.get<double>() == whole.get<double>();
  return part == whole;
}

gauge::Result fake_result(const std::string& name, double seconds) {
  gauge::testing::FakeDevice dev;
  auto exp = gauge::testing::fake_experiment(dev, [&](gauge::testing::FakeStream s) { s.kernel(seconds); }, name.c_str());
  exp.config(gauge::testing::fast_config(1500us));
  exp.dimension("M", 4096).dimension("dtype", "bf16").dimension("scale", 0.5).dimension("transposed", false);
  exp.flop(2.0 * 4096 * 4096 * 4096).bytes(3.0 * 4096 * 4096 * 2).items("tiles", 1024);
  return exp.run();
}

}  // namespace

TEST_CASE("read_report: the stored H200 report reads back into gauge's types", "[read]") {
  const auto r = gauge::read_report(source_dir / "tests" / "data" / "reports" / "h200-first.json");
  // Values as they stand in the file.
  CHECK(r.schema == "gauge.report");
  CHECK(r.schema_version == "1.0.0");
  CHECK(r.created_utc == "2026-11-30T13:58:08Z");
  REQUIRE(r.results.size() == 1);
  const gauge::Result& g = r.results[0];
  CHECK(g.name == "gemm");
  CHECK(g.status == gauge::Status::ok);
  CHECK(g.backend == "cuda");
  CHECK(g.device.name == "NVIDIA H200");
  CHECK(g.device.uuid == std::optional<std::string>("GPU-f6fb3145-6909-9d20-6108-bb12b7c2bdc3"));
  CHECK(std::get<std::int64_t>(g.dimensions.at("M")) == 8192);
  CHECK(std::get<std::string>(g.dimensions.at("dtype")) == "bf16");
  CHECK(*g.work.flop == 1099511627776.0);
  CHECK(g.config.measure.min_samples == 20);
  CHECK(g.config.warmup.min_time == 20ms);
  CHECK(g.config.measure.event_overhead_budget == 50ns);
  CHECK(g.config.measure.wall_round_fraction == 0.5);
  CHECK(g.warmup.curve.size() == 11);
  CHECK(g.warmup.curve[0].time_per_step_s == 0.08917715454101563);
  CHECK(g.sampling.method == "gated");
  CHECK(g.stopping.reason == "noise_target_met");
  CHECK(g.gpu_time.n == 98);
  CHECK(*g.gpu_time.p50 == 0.0016156480312347413);
  REQUIRE(g.gpu_time.median_ci);
  CHECK(g.gpu_time.median_ci->lower_rank == 39);
  CHECK(g.gpu_time.outliers.high_mild == 6);
  CHECK(g.gpu_samples_s.size() == 98);
  CHECK(g.wall_samples_s.size() == 14);
  REQUIRE(g.warnings.size() == 1);
  CHECK(g.warnings[0].code == "outliers");
  CHECK(g.warnings[0].severity == gauge::Severity::info);
  REQUIRE(r.environment.cuda.devices.size() == 1);
  const auto& d = r.environment.cuda.devices[0];
  CHECK(d.compute_capability_major == 9);
  CHECK(d.compute_capability_minor == 0);
  CHECK(d.multiprocessors == 132);
  CHECK(*d.sm_clock_max_mhz == 1980.0);
  CHECK(r.environment.cuda.driver_version == std::optional<int>(13000));
  CHECK(r.environment.host.cpu.model_name == std::optional<std::string>("Intel(R) Xeon(R) Processor"));
  CHECK(r.environment.compiler.cuda_compiler_version == std::optional<std::string>("13.0.88"));
  CHECK(r.environment.environment_variables.size() == 10);

  // Written again, every key of the stored experiment comes back unchanged.
  nlohmann::json again;
  gauge::to_json(again, g);
  std::string where;
  const bool experiment_same = subset_equal(r.document["experiments"][0], again, where);
  INFO("first difference at " << where);
  CHECK(experiment_same);
  nlohmann::json env;
  gauge::to_json(env, r.environment);
  std::string env_where;
  const bool environment_same = subset_equal(r.document["environment"], env, env_where);
  INFO("first difference at " << env_where);
  CHECK(environment_same);
}

TEST_CASE("read_report: a report gauge writes reads back to the same JSON", "[read]") {
  gauge::Environment env;
  env.gauge_version = gauge::version_string;
  env.cuda.error = "no CUDA-capable device is detected";
  env.environment_variables = {{"CUDA_LAUNCH_BLOCKING", std::nullopt}, {"OMP_NUM_THREADS", "4"}};
  gauge::Result failed;
  failed.name = "broken";
  failed.status = gauge::Status::failed;
  failed.error = "step 3: it broke";
  std::vector<gauge::Result> results = {fake_result("gemm", 20e-6), failed};
  results[0].gpu_samples_s.push_back(std::nan(""));  // a non-finite sample is written as null
  const nlohmann::json doc = gauge::detail::report_json(gauge::testing::document(env, results, {}, "2026-11-30T00:00:00Z"));
  const auto back = gauge::parse_report(doc.dump(2), "written");
  REQUIRE(back.results.size() == 2);
  CHECK(back.results[0].config.measure.min_time == 1500us);
  CHECK(std::get<double>(back.results[0].dimensions.at("scale")) == 0.5);
  CHECK(std::get<bool>(back.results[0].dimensions.at("transposed")) == false);
  CHECK(back.results[0].work.items.at("tiles") == 1024);
  CHECK(std::isnan(back.results[0].gpu_samples_s.back()));
  CHECK(back.results[1].status == gauge::Status::failed);
  CHECK(back.results[1].error == std::optional<std::string>("step 3: it broke"));
  CHECK(back.environment.environment_variables[1].second == std::optional<std::string>("4"));
  const nlohmann::json again = gauge::detail::report_json(back);
  CHECK(without_newer_keys(again) == without_newer_keys(doc));
}

TEST_CASE("read_report: a key twice in one object is refused naming the key and where, anywhere in the document",
          "[read][hardening]") {
  const nlohmann::json good = gauge::detail::report_json(gauge::testing::document(gauge::Environment{}, {fake_result("gemm", 20e-6)}, {}, "2026-11-30T00:00:00Z"));
  const std::string text = good.dump();
  REQUIRE_NOTHROW(gauge::parse_report(text, "r.json"));
  // nlohmann keeps the last of two values: "p50": 1 then "p50": <the true median> would read as
  // the median silently. Each case inserts a second key by hand right after an object opens.
  struct Case {
    std::string after;   // the text the duplicate goes after (a key, or an object's opening, as dumped)
    std::string insert;  // the duplicate, with its comma
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"\"created_utc\":", "\"2026-11-30T00:00:00Z\",\"created_utc\":", "r.json: duplicate key \"created_utc\" at the top level"},
      {"\"gpu_time_s\":{", "\"p50\":1.0,", "r.json: duplicate key \"p50\" in experiments[0].gpu_time_s"},
      {"\"dimensions\":{", "\"x\":1,\"x\":2,", "r.json: duplicate key \"x\" in experiments[0].dimensions"},
      // A key spelled with escapes is the same key: "p\u0035\u0030" is "p50".
      {"\"gpu_time_s\":{", "\"p\\u0035\\u0030\":1.0,", "r.json: duplicate key \"p50\" in experiments[0].gpu_time_s"},
  };
  for (const auto& c : cases) {
    std::string bad = text;
    const auto at = bad.find(c.after);
    REQUIRE(at != std::string::npos);
    bad.insert(at + c.after.size(), c.insert);
    INFO(c.expected);
    const std::string error = gauge::testing::error_of<gauge::ReportError>([&] { gauge::parse_report(bad, "r.json"); });
    CHECK(error.rfind(c.expected, 0) == 0);
    CHECK(error.find("refused") != std::string::npos);
  }
  // A key that holds a quote, a dot or brackets is quoted in the message (JSON's escapes), and so
  // is such a key on the path: by hand, the object under "a.b" holding "q\"]}" twice.
  {
    std::string bad = text;
    const std::string after = "\"dimensions\":{";
    const auto at = bad.find(after);
    REQUIRE(at != std::string::npos);
    bad.insert(at + after.size(), "\"a.b\":{\"q\\\"]}\":1,\"q\\\"]}\":2},");
    const std::string error = gauge::testing::error_of<gauge::ReportError>([&] { gauge::parse_report(bad, "r.json"); });
    CHECK(error.rfind("r.json: duplicate key \"q\\\"]}\" in experiments[0].dimensions[\"a.b\"]", 0) == 0);
  }
  // The same key in two different objects is no duplicate.
  CHECK(text.find("\"p50\"") != text.rfind("\"p50\""));
}

TEST_CASE("read_report: bad input gives a one-line reason naming what is wrong", "[read]") {
  struct Case {
    const char* file;
    std::vector<const char*> expected;
  };
  const std::vector<Case> cases = {
      {"empty.json", {"invalid JSON", "the file is empty"}},
      {"malformed.json", {"invalid JSON at line 3, column 15", "expected '}'"}},
      {"truncated.json", {"invalid JSON at line", "unexpected end of input"}},
      {"nan.json", {"invalid JSON at line", "invalid literal"}},
      {"newer-major.json", {"schema_version \"2.0.0\" is newer than this gauge", "major version 1", "update gauge"}},
      {"wrong-schema.json", {"not a gauge report", "\"nvbench.report\"", "expected \"gauge.report\""}},
      {"gbench.json", {"not a gauge report", "no \"schema\" key", "Google Benchmark"}},
      {"missing-key.json", {"experiments[0].gpu_time_s", "missing required key \"p50\""}},
      {"wrong-type.json", {"experiments[0].sampling.steps_per_sample", "expected an integer, got a string"}},
      {"no-such-report.json", {"cannot read report", "no such file"}},
  };
  for (const auto& c : cases) {
    const fs::path path = reports_dir / c.file;
    const std::string what = error_of([&] { gauge::read_report(path); });
    INFO(c.file << ": " << what);
    CHECK(what.find(path.string()) != std::string::npos);  // names the file
    CHECK(what.find('\n') == std::string::npos);               // one line
    for (const char* e : c.expected) CHECK(what.find(e) != std::string::npos);
  }
  const std::string dir = error_of([&] { gauge::read_report(reports_dir); });
  CHECK(dir.find("is a directory") != std::string::npos);
  CHECK(error_of([] { gauge::parse_report("[1, 2]", "x"); }) == "x: not a gauge report: the top level is an array, expected an object");
  CHECK(error_of([] { gauge::parse_report("{\"schema\": \"gauge.report\", \"schema_version\": \"1.0\"}", "x"); })
            .rfind("x: schema_version \"1.0\" is not MAJOR.MINOR.PATCH (semantic versioning): this gauge", 0) == 0);
}

TEST_CASE("read_report: newer minor versions with unknown keys are read and the keys kept in the document", "[read]") {
  const auto r = stored("telemetry-throttled.json");
  CHECK(r.schema_version == "1.7.3");
  REQUIRE(r.results.size() == 1);
  CHECK(r.document["another_future_key"] == "ignored");
  CHECK(r.document["experiments"][0]["telemetry"]["series"]["sm_clock_mhz"].size() == 19);
  CHECK(r.results[0].gpu_samples_s.size() == 60);
}

TEST_CASE("read_report: every key the schema requires is required by the reader too", "[read][schema]") {
  const nlohmann::json schema = nlohmann::json::parse(read_text(source_dir / "schema" / "gauge-report.schema.json"));
  const nlohmann::json doc = nlohmann::json::parse(read_text(reports_dir / "base.json"));
  // (object schema, where such an object sits in base.json)
  const std::vector<std::pair<std::string, std::string>> places = {
      {"", ""},
      {"/definitions/experiment", "/experiments/0"},
      {"/definitions/experiment/properties/warmup", "/experiments/0/warmup"},
      {"/definitions/experiment/properties/warmup/properties/curve/items", "/experiments/0/warmup/curve/0"},
      {"/definitions/experiment/properties/sampling", "/experiments/0/sampling"},
      {"/definitions/experiment/properties/stopping", "/experiments/0/stopping"},
      {"/definitions/experiment/properties/throughput", "/experiments/0/throughput"},
      {"/definitions/experiment/properties/samples", "/experiments/0/samples"},
      {"/definitions/summary", "/experiments/0/gpu_time_s"},
      {"/definitions/summary/properties/outliers", "/experiments/0/wall_time_s/outliers"},
      {"/definitions/confidence_interval", "/experiments/0/gpu_time_s/median_ci"},
      {"/definitions/work", "/experiments/0/work"},
      {"/definitions/throughput", "/experiments/0/throughput/gpu"},
      {"/definitions/warning", "/experiments/0/warnings/0"},
      {"/definitions/device_record", "/experiments/0/device"},
      {"/definitions/config", "/experiments/0/config"},
      {"/definitions/config/properties/warmup", "/experiments/0/config/warmup"},
      {"/definitions/config/properties/measure", "/experiments/0/config/measure"},
      {"/definitions/environment", "/environment"},
      {"/definitions/environment/properties/host", "/environment/host"},
      {"/definitions/environment/properties/compiler", "/environment/compiler"},
      {"/definitions/environment/properties/cuda", "/environment/cuda"},
      {"/definitions/cuda_device", "/environment/cuda/devices/0"},
  };
  std::size_t checked = 0;
  for (const auto& [schema_at, doc_at] : places) {
    const auto& object_schema = schema.at(nlohmann::json::json_pointer(schema_at));
    REQUIRE(object_schema.contains("required"));
    for (const auto& key : object_schema["required"]) {
      nlohmann::json copy = doc;
      copy.at(nlohmann::json::json_pointer(doc_at)).erase(key.get<std::string>());
      const std::string what = error_of([&] { gauge::detail::report_from_json(copy, "r.json"); });
      INFO(doc_at << "/" << key.get<std::string>() << ": " << what);
      CHECK(what.find("\"" + key.get<std::string>() + "\"") != std::string::npos);
      ++checked;
    }
  }
  CHECK(checked > 150);
}

TEST_CASE("read_report: the reader refuses what the schema refuses, anywhere in the document", "[read][schema]") {
  // A report gauge writes, with a traced step and a pool of 2 streams: it reads back.
  gauge::Environment env;
  env.gauge_version = gauge::version_string;
  std::vector<gauge::Result> results = {fake_result("gemm", 20e-6)};
  gauge::records::KernelTraceRecord trace;
  trace.status = "traced";
  trace.attribution = "external correlation";
  trace.period_s = 20e-6;
  trace.sample_step = {{"k1", "kernel", 7, 0.0, 5e-6}, {"k2", "kernel", 7, 6e-6, 19e-6}};
  results[0].kernel_trace = trace;
  results[0].streams.scope = "stream pool";
  results[0].streams.count = 2;
  results[0].streams.samples = {3, 2};
  results[0].streams.medians_s = {20e-6, 21e-6};
  const nlohmann::json good = gauge::detail::report_json(gauge::testing::document(env, results, {}, "2026-11-30T00:00:00Z"));
  REQUIRE_NOTHROW(gauge::detail::report_from_json(good, "r.json"));
  // Each change breaks one thing the schema (or a record's own fields) rules out; the message
  // names the path, the bad value and the rule. The expected texts are the schema's own values.
  struct Case {
    const char* what;
    std::function<void(nlohmann::json&)> change;
    std::vector<std::string> expected;
  };
  const std::vector<Case> cases = {
      {"a status outside its enum", [](nlohmann::json& d) { d["experiments"][0]["kernel_trace"]["status"] = "half traced"; },
       {"experiments[0].kernel_trace.status", "\"half traced\" is not one of", "\"traced\", \"unavailable\", \"disabled\", \"not run\""}},
      {"a negative period", [](nlohmann::json& d) { d["experiments"][0]["kernel_trace"]["period_s"] = -1e-6; },
       {"experiments[0].kernel_trace.period_s", "-1e-06 is below the schema's minimum 0"}},
      {"a span that ends before it starts", [](nlohmann::json& d) { d["experiments"][0]["kernel_trace"]["sample_step"][1]["end_s"] = 1e-6; },
       {"experiments[0].kernel_trace.sample_step[1]", "end_s (1e-06) is before start_s (6e-06)"}},
      {"a pool of 0 streams", [](nlohmann::json& d) { d["experiments"][0]["streams"]["count"] = 0; },
       {"experiments[0].streams.count", "0 is below the schema's minimum 1"}},
      {"a pool of 65 streams", [](nlohmann::json& d) { d["experiments"][0]["streams"]["count"] = 65; },
       {"experiments[0].streams.count", "65 is above the schema's maximum 64"}},
      {"300,000 medians for 2 streams", [](nlohmann::json& d) { d["experiments"][0]["streams"]["medians_s"] = std::vector<double>(300000, 2e-5); },
       {"experiments[0].streams.medians_s", "300000 entries for 2 streams"}},
      {"3 sample counts for 2 streams", [](nlohmann::json& d) { d["experiments"][0]["streams"]["samples"].push_back(1); },
       {"experiments[0].streams.samples", "3 entries for 2 streams"}},
      {"a warning code off its pattern", [](nlohmann::json& d) {
         d["experiments"][0]["warnings"] = nlohmann::json::array({{{"code", "Not Snake"}, {"severity", "info"}, {"message", "m"}}});
       },
       {"experiments[0].warnings[0].code", "does not match the schema's pattern ^[a-z0-9_]+$"}},
      {"a severity outside its enum", [](nlohmann::json& d) {
         d["experiments"][0]["warnings"] = nlohmann::json::array({{{"code", "x"}, {"severity", "fatal"}, {"message", "m"}}});
       },
       {"experiments[0].warnings[0].severity", "\"fatal\" is not one of"}},
      {"a creation time that is not ISO 8601 UTC", [](nlohmann::json& d) { d["created_utc"] = "yesterday"; },
       {"created_utc", "does not match the schema's pattern"}},
      {"a confidence level of 0", [](nlohmann::json& d) { d["experiments"][0]["gpu_time_s"]["confidence_level"] = 0; },
       {"experiments[0].gpu_time_s.confidence_level", "0 is not above the schema's exclusive minimum 0"}},
  };
  for (const auto& c : cases) {
    nlohmann::json bad = good;
    c.change(bad);
    const std::string what = error_of([&] { gauge::detail::report_from_json(bad, "r.json"); });
    INFO(c.what << ": " << what);
    CHECK(what.rfind("r.json: ", 0) == 0);
    CHECK(what.find('\n') == std::string::npos);
    CHECK(what.size() < 400);  // a long array is not echoed back
    for (const auto& e : c.expected) CHECK(what.find(e) != std::string::npos);
  }
  // One stream records no per-stream arrays: that is not an inconsistency.
  nlohmann::json one = good;
  one["experiments"][0]["streams"]["count"] = 1;
  one["experiments"][0]["streams"]["samples"] = nlohmann::json::array();
  one["experiments"][0]["streams"]["medians_s"] = nlohmann::json::array();
  CHECK_NOTHROW(gauge::detail::report_from_json(one, "r.json"));
}

TEST_CASE("read_report: an integer with a zero fraction is an integer, and messages are one bounded line", "[read][schema]") {
  const nlohmann::json doc = nlohmann::json::parse(read_text(reports_dir / "base.json"));
  for (const char* text : {"2.0", "2e0", "20E-1"}) {
    nlohmann::json d = doc;
    d["experiments"][0]["sampling"]["steps_per_sample"] = nlohmann::json::parse(text);
    const auto r = gauge::detail::report_from_json(d, "r.json");
    CHECK(r.results[0].sampling.steps_per_sample == 2);  // JSON Schema: 2.0 is the integer 2
  }
  nlohmann::json frac = doc;
  frac["experiments"][0]["sampling"]["steps_per_sample"] = 2.5;
  CHECK(error_of([&] { gauge::detail::report_from_json(frac, "r.json"); }).find("expected an integer") != std::string::npos);
  // A newline in a value, a 1 MB value, a duration of 1e300: one line, at most 400 bytes after the source.
  nlohmann::json newline = doc;
  newline["experiments"][0]["config"]["measure"]["cache"] = "hot\nline two";
  const std::string a = error_of([&] { gauge::detail::report_from_json(newline, "r.json"); });
  CHECK(a.find('\n') == std::string::npos);
  CHECK(a.find("hot\\nline two") != std::string::npos);  // escaped, as two characters
  nlohmann::json big = doc;
  big["experiments"][0]["config"]["measure"]["cache"] = std::string(1 << 20, 'x');
  const std::string b = error_of([&] { gauge::detail::report_from_json(big, "r.json"); });
  CHECK(!b.empty());
  CHECK(b.size() <= std::string("r.json: ").size() + 400);
  nlohmann::json huge = doc;
  huge["experiments"][0]["config"]["measure"]["min_time_s"] = 1e300;
  const std::string c = error_of([&] { gauge::detail::report_from_json(huge, "r.json"); });
  CHECK(c.find("1e+300") != std::string::npos);
  CHECK(c.size() < 200);
}

TEST_CASE("read_report: the schema's patterns match as ECMAScript regular expressions do, in linear time", "[read][schema]") {
  // Second method: std::regex (ECMAScript, the dialect JSON Schema names), on short strings only.
  const std::vector<std::string> patterns = {
      "^[a-z0-9_]+$", "^[0-9]+\\.[0-9]+$",
      "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?Z$",
      "^1\\.(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\\+[0-9A-Za-z.-]+)?$", "ab|c", "x(ab)*y", "a{2,3}$", "[.-]"};
  const std::vector<std::string> texts = {
      "", "a", "ab", "abc", "aa", "aaa", "aaaa", "xy", "xaby", "xababy", "xaay", "c", "zc", "under_score", "Upper", "a-b", "9.0",
      "90", "9.", ".9", "10.12", "2026-11-30T00:00:00Z", "2026-11-30T00:00:00.123Z", "2026-11-30T00:00:00", "2026-11-30 00:00:00Z",
      "1.0.0", "1.01.0", "1.10.3-rc.1+build.5", "1.2.3-", "2.0.0", "1.2.3+x", "1.2.3extra", "x.y", "-"};
  std::size_t compared = 0;
  for (const auto& p : patterns) {
    const gauge::detail::schema_check::Pattern ours(p);
    const std::regex theirs(p, std::regex::ECMAScript);
    for (const auto& t : texts) {
      INFO("pattern " << p << " on \"" << t << "\"");
      CHECK(ours.matches(t) == std::regex_search(t, theirs));
      ++compared;
    }
  }
  CHECK(compared == patterns.size() * texts.size());
  // A 256 KB string (10 times the 25 KB label whose match overflowed std::regex's stack) is
  // matched, and one bad byte at its end is found.
  std::string long_code(std::size_t{256} << 10, 'a');
  const gauge::detail::schema_check::Pattern code("^[a-z0-9_]+$");
  CHECK(code.matches(long_code));
  long_code.back() = 'A';
  CHECK_FALSE(code.matches(long_code));
  // Syntax outside the subset is refused when the schema is loaded, naming the pattern.
  auto refusal = [](const char* pattern) {
    try {
      gauge::detail::schema_check::Pattern{pattern};
    } catch (const std::logic_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(refusal("(?=x)").find("\"(?=x)\"") != std::string::npos);
  CHECK(refusal("[^a]").find("negated") != std::string::npos);
  // The embedded schema loads (every keyword and pattern it uses is supported).
  CHECK_NOTHROW(gauge::detail::schema_check::report_schema());
}

TEST_CASE("read_report: schema versions follow semantic versioning", "[read]") {
  const auto v = gauge::detail::parse_schema_version("1.12.3-rc.1+build.5");
  CHECK(v.major == 1);
  CHECK(v.minor == 12);
  CHECK(v.patch == 3);
  CHECK(v.suffix == "-rc.1+build.5");
  for (const char* bad : {"", "1", "1.0", "1.0.0.0", "01.0.0", "1.a.0", "v1.0.0", "1.0.0x"})
    CHECK_THROWS_AS(gauge::detail::parse_schema_version(bad), gauge::ReportError);
  CHECK(gauge::detail::supported_report_major() == 1);
}

TEST_CASE("read_report: a NUL byte in a value is shown escaped in the message, not cut there", "[read][hardening]") {
  // JSON "\u0000" is a NUL byte in the string read. A message is a C string (what()): before, it
  // ended at the NUL ("experiments[0].config.measure.cache: \"ho"), losing the value's rest and
  // the reason. Now the NUL shows as \0, as other control characters show as \n, \x01.
  const std::string text = read_text(reports_dir / "base.json");
  const auto with = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    const auto at = t.find(from);
    REQUIRE(at != std::string::npos);
    return t.replace(at, from.size(), to);
  };
  const std::string cache = error_of([&] { gauge::parse_report(with("\"cache\": \"hot\"", "\"cache\": \"ho\\u0000t\""), "r.json"); });
  CHECK(cache == "r.json: experiments[0].config.measure.cache: \"ho\\0t\" is not one of hot, cold");
  const std::string status = error_of([&] { gauge::parse_report(with("\"status\": \"ok\"", "\"status\": \"o\\u0000k\\u0001\""), "r.json"); });
  CHECK(status == "r.json: experiments[0].status: \"o\\0k\\x01\" is not one of ok, failed");
  const std::string version =
      error_of([&] { gauge::parse_report(with("\"schema_version\": \"1.0.0\"", "\"schema_version\": \"1\\u0000.0.0\""), "r.json"); });
  CHECK(version.rfind("r.json: schema_version \"1\\0.0.0\" is not MAJOR.MINOR.PATCH (semantic versioning): this gauge (", 0) == 0);
  for (const std::string& m : {cache, status, version}) CHECK(m.find('\0') == std::string::npos);
  // The exception type itself keeps a message with a NUL whole (what() is a C string).
  CHECK(std::string(gauge::ReportError(std::string("a\0b", 3)).what()) == "a\\0b");
  CHECK(std::string(gauge::ConfigError(std::string("\0\0", 2)).what()) == "\\0\\0");
}

TEST_CASE("read_report: an integer beyond its field's type is refused naming the key, never wrapped or rounded",
          "[read][hardening]") {
  gauge::Environment env;
  env.gauge_version = gauge::version_string;
  const nlohmann::json good = gauge::detail::report_json(gauge::testing::document(env, {fake_result("gemm", 20e-6)}, {}, "2026-11-30T00:00:00Z"));
  // A JSON text with `value` (written as is) at `pointer`: the parser sees the literal.
  const auto text_with = [&](const char* pointer, const std::string& value) {
    nlohmann::json d = good;
    d[nlohmann::json::json_pointer(pointer)] = 987654321987654321;  // a marker, once in the text
    std::string t = d.dump();
    const auto at = t.find("987654321987654321");
    REQUIRE(t.find("987654321987654321", at + 1) == std::string::npos);
    return t.replace(at, 18, value);
  };
  const auto read = [&](const char* pointer, const std::string& value) { return gauge::parse_report(text_with(pointer, value), "r.json"); };
  const auto refusal = [&](const char* pointer, const std::string& value) {
    return error_of([&] { read(pointer, value); });
  };
  // Within the field's type: read exactly (size_t and uint64 hold 2^64 - 1, int64 holds -2^63).
  CHECK(read("/experiments/0/sampling/steps_per_sample", "18446744073709551615").results[0].sampling.steps_per_sample ==
        18446744073709551615ull);
  CHECK(read("/experiments/0/memory/host_rss_peak_bytes", "18446744073709551615").results[0].memory.host_rss_peak_bytes ==
        std::optional<std::uint64_t>(18446744073709551615ull));
  CHECK(read("/experiments/0/memory/host_rss_growth_bytes", "-9223372036854775808").results[0].memory.host_rss_growth_bytes ==
        std::optional<std::int64_t>(INT64_MIN));
  CHECK(read("/experiments/0/config/device", "2147483647").results[0].config.device == 2147483647);
  // Below 2^53 a float holds the integer exactly; from 2^53 on it may be a rounded one (2^53 + 1,
  // "9007199254740993e0", and 2^53 + 0.5 both read as 2^53): refused, 2^53 itself too.
  CHECK(read("/experiments/0/sampling/steps", "9007199254740991.0").results[0].sampling.steps == 9007199254740991ull);
  for (const char* rounded : {"9007199254740992.0", "9007199254740993e0", "9007199254740992.5"})
    CHECK(refusal("/experiments/0/sampling/steps", rounded).find("is written as a floating-point number at or beyond 2^53") !=
          std::string::npos);
  CHECK(refusal("/experiments/0/sampling/steps", "9.007199254740994e15") ==
        "r.json: experiments[0].sampling.steps: integer 9007199254740994 is written as a floating-point number at or beyond 2^53 "
        "= 9007199254740992, where a double no longer holds every integer (its exact value is unknown): write it as an "
        "integer literal, an integer from 0 to 18446744073709551615");
  // Beyond the field's type: refused, the key, the value and the type's range named.
  CHECK(refusal("/experiments/0/memory/host_rss_growth_bytes", "9223372036854775808") ==
        "r.json: experiments[0].memory.host_rss_growth_bytes: integer 9223372036854775808 is out of range: expected an "
        "integer from -9223372036854775808 to 9223372036854775807");
  CHECK(refusal("/experiments/0/config/device", "2147483648") ==
        "r.json: experiments[0].config.device: integer 2147483648 is out of range: expected an integer from -2147483648 "
        "to 2147483647");
  CHECK(refusal("/experiments/0/gpu_time_s/n", "-1") == "r.json: experiments[0].gpu_time_s.n: expected a non-negative integer, got -1");
  // Beyond 64 bits (the parser would make it a double: 2^64 + 1 read as 2^64, -2^63 - 1 as -2^63,
  // an integer dimension as a real one): refused wherever it is, naming the key.
  const std::string beyond = " is beyond 64 bits: gauge reads integers from -9223372036854775808 to 18446744073709551615 "
                             "exactly, and would read this one rounded to a double";
  CHECK(refusal("/experiments/0/memory/host_rss_peak_bytes", "18446744073709551616")
            .rfind("r.json: experiments[0].memory.host_rss_peak_bytes: integer 18446744073709551616" + beyond, 0) == 0);
  CHECK(refusal("/experiments/0/memory/host_rss_growth_bytes", "-9223372036854775809")
            .rfind("r.json: experiments[0].memory.host_rss_growth_bytes: integer -9223372036854775809" + beyond, 0) == 0);
  CHECK(refusal("/experiments/0/dimensions/M", "18446744073709551617")
            .rfind("r.json: experiments[0].dimensions.M: integer 18446744073709551617" + beyond, 0) == 0);
  CHECK(refusal("/experiments/0/sampling/round_samples/1", "100000000000000000000000")
            .rfind("r.json: experiments[0].sampling.round_samples[1]: integer 100000000000000000000000" + beyond, 0) == 0);
  CHECK(refusal("/experiments/0/work/flop_per_step", "-100000000000000000000")
            .rfind("r.json: experiments[0].work.flop_per_step: integer -100000000000000000000" + beyond, 0) == 0);
  // A real number of that size, written as one, is not an integer literal.
  CHECK(read("/experiments/0/work/flop_per_step", "1e30").results[0].work.flop == std::optional<double>(1e30));
  // A document given as JSON (report_from_json): the 2^53 rule still refuses a rounded value.
  nlohmann::json doc = good;
  doc["experiments"][0]["memory"]["host_rss_peak_bytes"] = 18446744073709551616.0;
  CHECK(error_of([&] { gauge::detail::report_from_json(doc, "r.json"); }).rfind(
            "r.json: experiments[0].memory.host_rss_peak_bytes: integer 18446744073709551616 is written as a floating-point "
            "number at or beyond 2^53", 0) == 0);
}

TEST_CASE("read_report: a negative host memory value is refused naming the key, as a negative GPU memory value is",
          "[read][hardening]") {
  gauge::Environment env;
  env.gauge_version = gauge::version_string;
  const nlohmann::json good = gauge::detail::report_json(gauge::testing::document(env, {fake_result("gemm", 20e-6)}, {}, "2026-11-30T00:00:00Z"));
  REQUIRE_NOTHROW(gauge::detail::report_from_json(good, "r.json"));
  const std::vector<std::string> keys = {
      "/experiments/0/memory/device_used_peak_bytes",  // GPU memory: the rule the others follow
      "/experiments/0/memory/host_rss_peak_bytes",          "/experiments/0/memory/host_rss_at_measure_start_bytes",
      "/experiments/0/memory/host_rss_at_measure_end_bytes", "/experiments/0/memory/host_memory_total_bytes",
      "/environment/host/memory/total_bytes",               "/environment/host/memory/available_bytes",
      "/environment/host/memory/swap_total_bytes",          "/environment/host/numa_nodes/0/memory_total_bytes"};
  for (const auto& pointer : keys) {
    nlohmann::json bad = good;
    bad["environment"]["host"]["numa_nodes"] = nlohmann::json::array({{{"id", 0}, {"memory_total_bytes", 1 << 30}}});
    bad[nlohmann::json::json_pointer(pointer)] = -5;
    // The path as messages write it: experiments[0].memory.x, environment.host.numa_nodes[0].y.
    std::string path;
    std::stringstream parts(pointer.substr(1));
    for (std::string part; std::getline(parts, part, '/');)
      path += part.find_first_not_of("0123456789") == std::string::npos ? "[" + part + "]" : (path.empty() ? "" : ".") + part;
    INFO(pointer);
    CHECK(error_of([&] { gauge::detail::report_from_json(bad, "r.json"); }) ==
          "r.json: " + path + ": expected a non-negative integer, got -5");
    // Second route: the schema itself (what a JSON Schema validator applies) refuses it too.
    CHECK(gauge::detail::schema_check::report_schema().check(bad) == path + ": -5 is below the schema's minimum 0");
  }
  // Growth is a difference (end - start): negative when the process shrank. Read as written.
  nlohmann::json shrank = good;
  shrank["experiments"][0]["memory"]["host_rss_growth_bytes"] = -4096;
  CHECK(gauge::detail::report_from_json(shrank, "r.json").results[0].memory.host_rss_growth_bytes == std::optional<std::int64_t>(-4096));
}

TEST_CASE("read_report: every refusal of schema_version names the value seen and what is accepted", "[read]") {
  const nlohmann::json base = nlohmann::json::parse(read_text(reports_dir / "base.json"));
  const std::string accepted = std::string("this gauge (") + gauge::version_string + ") reads a string \"1.MINOR.PATCH\" " +
                               "(semantic versioning, major version 1; it writes \"" + gauge::report_schema_version + "\")";
  const auto message = [&](const nlohmann::json* value) {
    nlohmann::json d = base;
    if (value) d["schema_version"] = *value;
    else d.erase("schema_version");
    return error_of([&] { gauge::detail::report_from_json(d, "r.json"); });
  };
  const auto of = [&](const nlohmann::json& v) { return message(&v); };
  CHECK(message(nullptr) == "r.json: missing required key \"schema_version\": " + accepted);
  CHECK(of(1) == "r.json: schema_version is 1 (an integer), not a string: " + accepted);
  CHECK(of(nullptr) == "r.json: schema_version is null (null), not a string: " + accepted);
  CHECK(of(1.5) == "r.json: schema_version is 1.5 (a number), not a string: " + accepted);
  for (const char* text : {"abc", "1", "1.x.0", "", "01.0.0", "1.0.0.0", "1.0.0\n"}) {
    INFO(text);
    std::string shown = text;
    if (!shown.empty() && shown.back() == '\n') shown = shown.substr(0, shown.size() - 1) + "\\n";
    CHECK(of(text) == "r.json: schema_version \"" + shown + "\" is not MAJOR.MINOR.PATCH (semantic versioning): " + accepted);
  }
  CHECK(of("2.0.0") == std::string("r.json: schema_version \"2.0.0\" is newer than this gauge (") + gauge::version_string +
                           ") reads: it reads major version 1 (" + gauge::report_schema_version +
                           " and later minor versions); update gauge to read this report");
  CHECK(of("0.9.0") == "r.json: schema_version \"0.9.0\" is an older major version than this gauge reads: " + accepted);
  // A long value is cut (80 bytes shown), so that what is accepted stays in the bounded line.
  CHECK(of(std::string(1000, 'x')) == "r.json: schema_version \"" + std::string(77, 'x') +
                                         "...\" is not MAJOR.MINOR.PATCH (semantic versioning): " + accepted);
  std::string sevens = "[";  // the first 77 bytes of [7,7,...,7]: "[" and 38 times "7,"
  for (int i = 0; i < 38; ++i) sevens += "7,";
  CHECK(of(nlohmann::json(std::vector<int>(100, 7))) == "r.json: schema_version is " + sevens + "... (an array), not a string: " + accepted);
  // Accepted: any minor and patch of major 1, with a pre-release or build suffix.
  for (const char* text : {"1.0.0", "1.99.0", "1.8.0-rc.1", "1.8.0+build.5"}) {
    INFO(text);
    CHECK(of(text).empty());
  }
}

TEST_CASE("read_report: keys of a summary are matched exactly, look-alikes of statistics are unknown keys, never p50",
          "[read][schema]") {
  // The rule (schema/gauge-report.schema.json, "summary"): the schema lists the statistics and
  // does not forbid other keys (forward compatibility: a newer minor version may add one), so an
  // unknown key is accepted and ignored, kept in StoredReport::document. A key is the statistic
  // only when written exactly so: "P50", "p50 ", " p50", "p51", "median2", "Median" are unknown
  // keys. Nothing reads them as p50 or median, and no consistency check looks at them.
  nlohmann::json doc = nlohmann::json::parse(read_text(reports_dir / "base.json"));
  nlohmann::json& g = doc["experiments"][0]["gpu_time_s"];
  const double p50 = g.at("p50").get<double>();
  const double p90 = g.at("p90").get<double>();
  for (const char* key : {"P50", "p50 ", " p50", "p51", "median2", "Median", "p50\u200b", "p90x"}) g[key] = 1e9;  // far off
  g["p50\t"] = "not even a number";
  const auto r = gauge::detail::report_from_json(doc, "r.json");
  CHECK(r.results[0].gpu_time.p50 == std::optional<double>(p50));
  CHECK(r.results[0].gpu_time.p90 == std::optional<double>(p90));
  CHECK(r.document["experiments"][0]["gpu_time_s"]["P50"] == 1e9);  // kept as read
  // The exports take the median from p50, not a look-alike: CSV's time_median_s is p50.
  const std::string csv = gauge::formats::csv_table(r.results);
  const auto cells = [](const std::string& line) {  // RFC 4180: a quoted cell may hold commas
    std::vector<std::string> out(1);
    bool quoted = false;
    for (const char c : line) {
      if (c == '"') quoted = !quoted;
      else if (c == ',' && !quoted) out.emplace_back();
      else out.back() += c;
    }
    return out;
  };
  const auto header = cells(csv.substr(0, csv.find('\n')));
  const auto row = cells(csv.substr(csv.find('\n') + 1, csv.find('\n', csv.find('\n') + 1) - csv.find('\n') - 1));
  const auto column = std::find(header.begin(), header.end(), "time_median_s") - header.begin();
  REQUIRE(static_cast<std::size_t>(column) < row.size());
  CHECK(std::stod(row[static_cast<std::size_t>(column)]) == p50);
  // A look-alike does not stand in for a missing p50, and the real `median` key is held to p50.
  nlohmann::json missing = doc;
  missing["experiments"][0]["gpu_time_s"].erase("p50");
  CHECK(error_of([&] { gauge::detail::report_from_json(missing, "r.json"); }) ==
        "r.json: experiments[0].gpu_time_s: missing required key \"p50\"");
  nlohmann::json median = doc;
  median["experiments"][0]["gpu_time_s"]["median"] = 2 * p50;
  CHECK(error_of([&] { gauge::detail::report_from_json(median, "r.json"); }).find("differs from p50") != std::string::npos);
}

TEST_CASE("compare: Mann-Whitney U and its p-value equal SciPy's", "[compare]") {
  using gauge::stats::MannWhitneyMethod;
  // Ties within and across the samples.
  // scipy.stats.mannwhitneyu(x, y, alternative="two-sided", method="asymptotic") -> (15.5, 0.0036296483390068084)
  const std::vector<double> x = {1.83, 1.91, 1.78, 2.05, 1.95, 1.88, 1.91, 2.10, 1.79, 1.95, 1.86, 1.93};
  const std::vector<double> y = {1.95, 2.02, 2.15, 1.98, 2.20, 2.08, 1.91, 2.31, 2.05, 2.12};
  auto t = gauge::stats::mann_whitney_u(x, y);
  CHECK(t.method == "asymptotic");
  CHECK(t.u == 15.5);
  CHECK(t.p_value == Approx(0.0036296483390068084).epsilon(1e-12));
  CHECK(gauge::stats::mann_whitney_u(y, x).u == 12 * 10 - 15.5); // U1 + U2 = n1 n2
  CHECK(gauge::stats::mann_whitney_u(y, x).p_value == Approx(t.p_value).epsilon(1e-14));

  // Small samples without ties: exact by default, as SciPy's "auto".
  // mannwhitneyu(x2, y2, method="exact") -> (3.0, 0.030303030303030304)
  // mannwhitneyu(x2, y2, method="asymptotic") -> (3.0, 0.03576376659097789)
  const std::vector<double> x2 = {3.1, 1.2, 4.5, 2.2, 5.0};
  const std::vector<double> y2 = {6.1, 7.3, 2.9, 8.8, 5.5, 9.1};
  t = gauge::stats::mann_whitney_u(x2, y2);
  CHECK(t.method == "exact");
  CHECK(t.u == 3.0);
  CHECK(t.p_value == Approx(0.030303030303030304).epsilon(1e-12));
  CHECK(gauge::stats::mann_whitney_u(x2, y2, gauge::stats::MannWhitneyMethod::asymptotic).p_value == Approx(0.03576376659097789).epsilon(1e-12));
  // mannwhitneyu(x3, y3, method="exact") -> (14.0, 0.06495726495726495); "asymptotic" -> 0.06608191591670358
  const std::vector<double> x3 = {0.31, 0.52, 0.12, 0.77, 0.45, 0.91, 0.28, 0.66};
  const std::vector<double> y3 = {0.58, 0.83, 0.95, 0.71, 0.49, 0.99, 0.87, 0.62};
  CHECK(gauge::stats::mann_whitney_u(x3, y3).p_value == Approx(0.06495726495726495).epsilon(1e-12));
  CHECK(gauge::stats::mann_whitney_u(x3, y3, gauge::stats::MannWhitneyMethod::asymptotic).p_value == Approx(0.06608191591670358).epsilon(1e-12));
  // By hand: x = {1, 2}, y = {3}: U1 = 0; the three orders give U = 0, 1, 2; p = 2 P(U >= 2) = 2/3.
  t = gauge::stats::mann_whitney_u({1, 2}, {3});
  CHECK(t.u == 0);
  CHECK(t.p_value == Approx(2.0 / 3.0).epsilon(1e-15));
  // Every value tied: U = n1 n2 / 2 and no evidence of a difference.
  t = gauge::stats::mann_whitney_u({5, 5, 5, 5, 5, 5, 5, 5, 5}, {5, 5, 5, 5, 5, 5, 5, 5, 5, 5});
  CHECK(t.u == 45);
  CHECK(t.p_value == 1);
  // The stored samples (60 per side).
  // mannwhitneyu(base, slower, method="asymptotic") -> (16.0, 7.902493913434392e-21)
  // mannwhitneyu(base, same, method="asymptotic") -> (1662.0, 0.47048642205878966)
  const auto base = stored("base.json").results[0].gpu_samples_s;
  t = gauge::stats::mann_whitney_u(base, stored("slower.json").results[0].gpu_samples_s);
  CHECK(t.u == 16.0);
  CHECK(t.p_value == Approx(7.902493913434392e-21).epsilon(1e-9));
  t = gauge::stats::mann_whitney_u(base, stored("same.json").results[0].gpu_samples_s);
  CHECK(t.u == 1662.0);
  CHECK(t.p_value == Approx(0.47048642205878966).epsilon(1e-12));

  CHECK_THROWS_AS(gauge::stats::mann_whitney_u({}, {1.0}), gauge::ConfigError);
  CHECK_THROWS_AS(gauge::stats::mann_whitney_u({1.0, NAN}, {1.0}), gauge::ConfigError);
  CHECK_THROWS_AS(gauge::stats::mann_whitney_u({1.0, 2.0}, {2.0, 3.0}, gauge::stats::MannWhitneyMethod::exact), gauge::ConfigError);
}

TEST_CASE("compare: the bootstrap interval of the ratio of medians matches the exact bootstrap distribution", "[compare]") {
  // For odd n the median of a resample of sorted x is x(j) with P(median <= x(j)) =
  // P(Binomial(n, j/n) >= (n + 1) / 2): the bootstrap distribution of median(y)/median(x) is known
  // exactly. Computed with NumPy/SciPy (stats.binom.sf over the 11 x 13 support pairs): the
  // interval of [x : P(R < x) <= q + e and P(R <= x) >= q - e], e = 4 sqrt(q (1 - q) / B), B = 20000,
  // is where a Monte Carlo percentile bound at level q may fall.
  const std::vector<double> x = {1.021, 0.987, 1.112, 0.953, 1.045, 1.003, 0.972, 1.088, 1.015, 0.995, 1.061};
  const std::vector<double> y = {1.102, 1.075, 1.160, 1.051, 1.133, 1.089, 1.121, 1.067, 1.098, 1.145, 1.083, 1.110, 1.058};
  auto r = gauge::stats::bootstrap_median_ratio(x, y, 0.90, 20000, 7);
  CHECK(r.estimate == Approx(1.0817733990147784).epsilon(1e-14));  // np.median(y) / np.median(x)
  CHECK(r.low == Approx(1.0363636363636364).epsilon(1e-12));       // q = 0.05: a single support point
  CHECK(r.high >= 1.1155778894472363 - 1e-12);                      // q = 0.95: [1.11557..., 1.11651...]
  CHECK(r.high <= 1.1165146909827761 + 1e-12);
  r = gauge::stats::bootstrap_median_ratio(x, y, 0.95, 20000, 8);
  CHECK(r.low >= 1.0263901979264844 - 1e-12);                       // q = 0.025: [1.02639..., 1.02870...]
  CHECK(r.low <= 1.0287081339712918 + 1e-12);
  CHECK(r.high >= 1.1176470588235294 - 1e-12);                      // q = 0.975: [1.11764..., 1.12462...]
  CHECK(r.high <= 1.1246200607902737 + 1e-12);
  CHECK(r.level == 0.95);
  CHECK(r.resamples == 20000);
  CHECK(r.seed == 8);

  // Even n, by hand: the median of a resample of {1, 2} is 1, 1.5 or 2 with probabilities 1/4,
  // 1/2, 1/4, and {1, 1, 1, 1} always gives 1, so new/base is 1, 2/3 or 1/2 with probabilities
  // 1/4, 1/2, 1/4. Its 0.3 and 0.7 quantiles are both 2/3; its 0.2 and 0.8 quantiles 1/2 and 1
  // (4 standard errors of a quantile from 20000 resamples, 0.013, stay inside each atom).
  r = gauge::stats::bootstrap_median_ratio({1, 2}, {1, 1, 1, 1}, 0.4, 20000, 9);
  CHECK(r.estimate == Approx(1 / 1.5).epsilon(1e-15));
  CHECK(r.low == Approx(2.0 / 3.0).epsilon(1e-15));
  CHECK(r.high == Approx(2.0 / 3.0).epsilon(1e-15));
  r = gauge::stats::bootstrap_median_ratio({2, 1}, {1, 1, 1, 1}, 0.6, 20000, 10);
  CHECK(r.low == 0.5);
  CHECK(r.high == 1.0);

  // Seeded: the same seed gives the same interval, another seed another one.
  const auto a = gauge::stats::bootstrap_median_ratio(x, y, 0.95, 2000, 1);
  const auto b = gauge::stats::bootstrap_median_ratio(x, y, 0.95, 2000, 1);
  const auto c = gauge::stats::bootstrap_median_ratio(x, y, 0.95, 2000, 2);
  CHECK(a.low == b.low);
  CHECK(a.high == b.high);
  CHECK((a.low != c.low || a.high != c.high));

  CHECK_THROWS_AS(gauge::stats::bootstrap_median_ratio({}, y), gauge::ConfigError);
  CHECK_THROWS_AS(gauge::stats::bootstrap_median_ratio({1.0, 0.0}, y), gauge::ConfigError);
  CHECK_THROWS_AS(gauge::stats::bootstrap_median_ratio(x, {1.0, INFINITY}), gauge::ConfigError);
  CHECK_THROWS_AS(gauge::stats::bootstrap_median_ratio(x, y, 1.0), gauge::ConfigError);
  CHECK_THROWS_AS(gauge::stats::bootstrap_median_ratio(x, y, 0.95, 99), gauge::ConfigError);
}

TEST_CASE("compare: verdicts on stored reports follow the rule", "[compare]") {
  const auto base = stored("base.json");
  auto one = [&](const char* other, gauge::CompareOptions o = {}) {
    auto c = gauge::compare_reports(base, stored(other), o);
    REQUIRE(c.experiments.size() == 1);
    return c;
  };
  // Same distribution, other seed: np.median(same) / np.median(base) = 1.0006102928077703.
  auto c = one("same.json");
  CHECK(c.experiments[0].verdict == gauge::Verdict::same);
  CHECK(c.experiments[0].ratio->estimate == Approx(1.0006102928077703).epsilon(1e-14));
  CHECK(c.experiments[0].ratio->low >= 0.98);
  CHECK(c.experiments[0].ratio->high <= 1.02);
  CHECK_FALSE(c.any_regression());
  CHECK(c.comparable());
  CHECK(c.environment_differences.empty());
  // 5 % slower: ratio 1.0494286736880882; slower at 2 %, same at 10 %.
  c = one("slower.json");
  CHECK(c.experiments[0].verdict == gauge::Verdict::slower);
  CHECK(c.experiments[0].ratio->estimate == Approx(1.0494286736880882).epsilon(1e-14));
  CHECK(c.experiments[0].ratio->low > 1.02);
  CHECK(c.experiments[0].mann_whitney->p_value == Approx(7.902493913434392e-21).epsilon(1e-9));
  CHECK(c.any_regression());
  gauge::CompareOptions loose;
  loose.threshold = 0.10;
  CHECK(one("slower.json", loose).experiments[0].verdict == gauge::Verdict::same);
  // Reversed: faster.
  c = gauge::compare_reports(stored("slower.json"), base);
  CHECK(c.experiments[0].verdict == gauge::Verdict::faster);
  CHECK_FALSE(c.any_regression());
  // 8 % noise, n = 20: the interval straddles 1 - 2 %.
  c = one("noisy.json");
  CHECK(c.experiments[0].verdict == gauge::Verdict::inconclusive);
  CHECK(c.experiments[0].reason.find("straddles") != std::string::npos);
  // 4 samples: too few for a 95 % distribution-free CI of the median (n >= 6 by 1 - 2^(1-n) >= 0.95).
  c = one("few-samples.json");
  CHECK(c.experiments[0].verdict == gauge::Verdict::inconclusive);
  CHECK(c.experiments[0].reason.find("n = 60 (base) and 4 (new); 6 or more") != std::string::npos);
  // A failed new experiment: inconclusive, and a regression.
  c = one("failed.json");
  CHECK(c.experiments[0].verdict == gauge::Verdict::inconclusive);
  CHECK(c.experiments[0].candidate_failed);
  CHECK(c.experiments[0].regression());
  CHECK(c.experiments[0].reason.find("CUBLAS_STATUS_EXECUTION_FAILED") != std::string::npos);
  // Wall time instead of GPU time.
  gauge::CompareOptions wall;
  wall.metric = gauge::Metric::wall_time;
  c = one("slower.json", wall);
  CHECK(c.experiments[0].base_n == 14);
  CHECK(c.experiments[0].metric == gauge::Metric::wall_time);

  // The median moves up 5 % while the bulk of the distribution moves down. Base: 140 x 1.0 and
  // 60 x 3.0 (median 1.0); new: 70 x 0.5 and 130 x 1.05 (median 1.05): every bootstrap median
  // ratio is 1.05, beyond 1 + 2 %. mannwhitneyu(base, new, method="asymptotic") -> (21800.0,
  // 0.10352759761669464); with every count tripled -> (196200.0, 0.004760503016234488). Both sides
  // have two modes (70 % / 30 % and 35 % / 65 %, nothing between them), so the median does not
  // decide (the base's middle half spans 1.0 to 3.0): the mean (0.8575 / 1.6 = 0.5359375) and p90
  // (1.05 / 3.0 = 0.35) are far below 1, but the median is steady against a tenth of the steps
  // (Q40 and Q60 are 1.0 and 1.05 on their sides) and moved +5 %: the shape changed, and the
  // verdict is "inconclusive", never "slower" (it was "faster" before the median could veto).
  for (int k : {1, 3}) {
    gauge::Result bimodal_base, bimodal_new;
    bimodal_base.name = bimodal_new.name = "bimodal";
    bimodal_base.gpu_samples_s.assign(static_cast<std::size_t>(140 * k), 1.0);
    bimodal_base.gpu_samples_s.insert(bimodal_base.gpu_samples_s.end(), static_cast<std::size_t>(60 * k), 3.0);
    bimodal_new.gpu_samples_s.assign(static_cast<std::size_t>(70 * k), 0.5);
    bimodal_new.gpu_samples_s.insert(bimodal_new.gpu_samples_s.end(), static_cast<std::size_t>(130 * k), 1.05);
    const auto e = gauge::compare_results(bimodal_base, bimodal_new);
    INFO("k = " << k << ": " << e.reason);
    CHECK(e.ratio->low == Approx(1.05).epsilon(1e-15));
    CHECK(e.mann_whitney->u == (k == 1 ? 21800.0 : 196200.0));
    CHECK(e.mann_whitney->p_value == Approx(k == 1 ? 0.10352759761669464 : 0.004760503016234488).epsilon(1e-10));
    CHECK(e.bimodal);
    REQUIRE(e.base_modes);
    CHECK(e.base_modes->lower.weight == Approx(0.7));
    CHECK(e.candidate_modes->upper.median == 1.05);
    CHECK(e.statistics[1].interval.estimate == Approx(0.5359375).epsilon(1e-14));
    CHECK(e.statistics[2].interval.estimate == Approx(0.35).epsilon(1e-14));
    CHECK(e.verdict == gauge::Verdict::inconclusive);
    CHECK(e.reason.find("bimodal") != std::string::npos);
    CHECK(e.reason.find("the distribution changed shape") != std::string::npos);
  }

  for (double bad : {0.0, 1.0, -0.1, std::nan("")}) {
    gauge::CompareOptions o;
    o.threshold = bad;
    CHECK_THROWS_AS(gauge::compare_reports(base, base, o), gauge::ConfigError);
  }
  gauge::CompareOptions few;
  few.resamples = 10;
  CHECK_THROWS_AS(gauge::compare_reports(base, base, few), gauge::ConfigError);
}

TEST_CASE("compare: an ignored dimension matches bf16 against fp32", "[compare]") {
  const auto fp32 = stored("fp32.json");
  const auto bf16 = stored("base.json");
  auto c = gauge::compare_reports(fp32, bf16);
  CHECK(c.experiments.empty());
  CHECK(c.only_in_base.size() == 1);
  REQUIRE(c.notes.size() == 1);
  CHECK(c.notes[0].find("dtype: fp32 → bf16") != std::string::npos);
  CHECK(c.notes[0].find("--ignore-dimension dtype") != std::string::npos);
  gauge::CompareOptions o;
  o.ignored_dimensions = {"dtype"};
  c = gauge::compare_reports(fp32, bf16, o);
  REQUIRE(c.experiments.size() == 1);
  const auto& e = c.experiments[0];
  CHECK(e.verdict == gauge::Verdict::faster);
  CHECK(e.ratio->estimate == Approx(0.074080718676881).epsilon(1e-12));  // np.median(bf16) / np.median(fp32)
  CHECK(e.ratio->high < 0.98);
  // mannwhitneyu(fp32, bf16, method="asymptotic") -> (2400.0, 3.1828235731890007e-17)
  CHECK(e.mann_whitney->u == 2400.0);
  CHECK(e.mann_whitney->p_value == Approx(3.1828235731890007e-17).epsilon(1e-9));
  REQUIRE(e.dimension_differences.size() == 1);
  CHECK(e.dimension_differences[0] == "dtype: fp32 → bf16");
  CHECK(c.comparable());  // the bytes per step differ, but that does not invalidate it
  bool bytes = false;
  for (const auto& d : e.differences) bytes = bytes || (d.what == "work: bytes per step" && !d.invalidates);
  CHECK(bytes);
}

TEST_CASE("compare: environment differences that invalidate a comparison are listed", "[compare]") {
  auto c = gauge::compare_reports(stored("base.json"), stored("different-gpu.json"));
  CHECK_FALSE(c.comparable());
  auto has = [](const std::vector<gauge::compare::EnvironmentDifference>& ds, const std::string& what, const std::string& a,
                const std::string& b) {
    for (const auto& d : ds)
      if (d.what == what && d.base == a && d.candidate == b && d.invalidates) return true;
    return false;
  };
  CHECK(has(c.environment_differences, "GPU 0 model", "NVIDIA H200", "NVIDIA A100-SXM4-80GB"));
  CHECK(has(c.environment_differences, "CUDA driver (highest CUDA version it supports)", "13.0", "12.4"));
  CHECK(has(c.environment_differences, "GPU 0 maximum SM clock (MHz)", "1980", "1410"));
  CHECK(has(c.environment_differences, "GPU 0 compute capability", "9.0", "8.0"));
  CHECK(has(c.experiments[0].differences, "device", "NVIDIA H200", "NVIDIA A100-SXM4-80GB"));
  CHECK(gauge::compare::to_text(c).find("NOT COMPARABLE") != std::string::npos);

  // Telemetry: mean SM clock 1980 vs 1500 MHz while measuring (more than 5 % apart).
  c = gauge::compare_reports(stored("telemetry.json"), stored("telemetry-throttled.json"));
  CHECK(c.experiments[0].verdict == gauge::Verdict::same);
  CHECK_FALSE(c.comparable());
  CHECK(has(c.experiments[0].differences, "mean SM clock while measuring (differs by more than 5 %)", "1980 MHz", "1500 MHz"));
  // The same report against itself: nothing differs.
  CHECK(gauge::compare::environment_differences(stored("base.json").environment, stored("same.json").environment).empty());
}

TEST_CASE("compare: experiments are matched by name and dimensions", "[compare]") {
  const auto c = gauge::compare_reports(stored("multi-base.json"), stored("multi-new.json"));
  REQUIRE(c.experiments.size() == 2);
  CHECK(c.experiments[0].label == "gemm/K=4096/M=4096/N=4096");
  CHECK(c.experiments[0].verdict == gauge::Verdict::same);
  CHECK(c.experiments[0].ratio->estimate == Approx(0.9997238972116588).epsilon(1e-13));
  CHECK(c.experiments[1].label == "gemm/K=8192/M=8192/N=8192");
  CHECK(c.experiments[1].verdict == gauge::Verdict::slower);
  CHECK(c.experiments[1].ratio->estimate == Approx(1.0996185479161675).epsilon(1e-13));
  REQUIRE(c.only_in_base.size() == 1);
  CHECK(c.only_in_base[0] == "copy/bytes=67108864");
  REQUIRE(c.only_in_candidate.size() == 1);
  CHECK(c.only_in_candidate[0] == "scan/n=16777216");
}

TEST_CASE("compare: the text and Markdown and JSON renderings carry the verdicts", "[compare]") {
  const auto c = gauge::compare_reports(stored("multi-base.json"), stored("multi-new.json"));
  const std::string text = gauge::compare::to_text(c);
  CHECK(text.find("gemm/K=8192/M=8192/N=8192") != std::string::npos);
  CHECK(text.find("slower") != std::string::npos);
  CHECK(text.find("only in base: copy") != std::string::npos);
  // A note that every experiment carries (one run per side, here both) is written once, after them.
  auto count = [](const std::string& t, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = t.find(what); at != std::string::npos; at = t.find(what, at + 1)) ++n;
    return n;
  };
  CHECK(count(text, "one run per side") == 1);
  CHECK(text.find("  every experiment: one run per side: the interval covers") != std::string::npos);
  CHECK(count(gauge::compare::to_markdown(c), "one run per side: the interval covers") == 1);
  CHECK(gauge::compare::to_markdown(c).find("\n- every experiment: one run per side") != std::string::npos);
  // The rule in one sentence at the end (its threshold and level), the whole rule in the JSON.
  CHECK(text.find("Efron & Tibshirani 1993") == std::string::npos);
  CHECK(text.find("Verdict rule: slower / faster where the 95 % interval of the median's ratio excludes 1 and its estimate "
                  "is beyond 1 ± 2 %") != std::string::npos);
  CHECK(text.size() - text.rfind("Verdict rule:") < 400);
  CHECK(nlohmann::json(c)["rule"].get<std::string>().find("Efron & Tibshirani 1993") != std::string::npos);
  // The sentence keeps the level's digits (helper-1 #11: 0.9999999 read "100 %").
  gauge::CompareOptions fine;
  fine.confidence_level = 0.9999999;
  fine.threshold = 0.015;
  // The whole rule names SM cycles for GPU time only: CPU and wall time are never normalized.
  gauge::CompareOptions cpu_metric;
  cpu_metric.metric = gauge::Metric::cpu_time;
  CHECK(gauge::detail::comparing::rule_text(cpu_metric).find("SM cycles") == std::string::npos);
  CHECK(gauge::detail::comparing::rule_text(cpu_metric).find("median of process CPU time (host-backend results) per step (never normalized by the SM clock)") != std::string::npos);
  CHECK(gauge::detail::comparing::rule_text(gauge::CompareOptions{}).find("(of SM cycles per step where the work scales with the SM clock: --clock-normalization auto)") != std::string::npos);
  const std::string rule = gauge::detail::comparing::short_rule_text(fine);
  CHECK(rule.find("where the 99.99999 % interval") != std::string::npos);
  CHECK(rule.find("beyond 1 ± 1.5 %") != std::string::npos);
  const std::string md = gauge::compare::to_markdown(c);
  CHECK(md.find("| experiment | base median | new median | new/base [95 % CI] | change | p (U or t test) | verdict |") != std::string::npos);
  // Each p-value names its test (helper-15 #11: the "p (U)" header over Student t values): one
  // run per side, the Mann-Whitney U test.
  for (const auto& e : c.experiments)
    if (e.mann_whitney) CHECK(text.find(gauge::detail::comparing::format_p(e.mann_whitney->p_value) + " U") != std::string::npos);
  // Names in Markdown: the brackets (and *, `, <, >) backslash-escaped, rendered as written.
  CHECK(md.find("| gemm/K=8192/M=8192/N=8192 | 1.601 ms | 1.76 ms |") != std::string::npos);
  CHECK(gauge::detail::escape::markdown_name("st*r [x](y) <b>`c`|_u") == "st\\*r \\[x\\](y) \\<b\\>\\`c\\`\\|_u");
  // Bidirectional controls (U+202E RIGHT-TO-LEFT OVERRIDE, U+2066 LRI) never reach a reader raw
  // (helper-1 #9): escaped by visible(), the terminal and every Markdown cell; other UTF-8 kept.
  const std::string rlo = "a\xE2\x80\xAE" "b\xE2\x81\xA6" "c \xC3\xA9";
  CHECK(gauge::detail::escape::visible(rlo) == "a\\u202eb\\u2066c \xC3\xA9");
  CHECK(gauge::detail::escape::terminal_text(rlo) == "a\\u202eb\\u2066c \xC3\xA9");
  CHECK(gauge::detail::escape::markdown_cell(rlo) == "a\\\\u202eb\\\\u2066c \xC3\xA9");
  CHECK(gauge::detail::escape::visible("\xE2\x80\x94 dash") == "\xE2\x80\x94 dash");  // U+2014: kept
  CHECK(gauge::detail::escape::visible("\xE2\x80") == "\xE2\x80");                  // cut short: kept
  nlohmann::json j = c;
  const auto back = nlohmann::json::parse(j.dump());
  CHECK(back["schema"] == "gauge.comparison");
  CHECK(back["any_regression"] == true);
  CHECK(back["experiments"][1]["verdict"] == "slower");
  CHECK(back["experiments"][1]["ratio"]["seed"] == gauge::CompareOptions{}.seed);
  CHECK(back["only_in_new"][0] == "scan/n=16777216");
}


TEST_CASE("compare: labels name one point of both reports, and colliding labels are not one experiment", "[compare][labels]") {
  // Base holds two/z=1 and two/z=2 with b=x and b=y; new holds only b=x. The rows must say b=x
  // (the base's b=y points are other points), in the declared order z, b.
  auto with = [](const std::string& name, gauge::Dimensions d) {
    gauge::Result r = fake_result(name, 20e-6);
    r.dimensions = std::move(d);
    return r;
  };
  gauge::StoredReport base, candidate;
  for (std::int64_t z : {1, 2})
    for (const char* b : {"x", "y"}) base.results.push_back(with("two", {{"z", z}, {"b", std::string(b)}}));
  for (std::int64_t z : {1, 2}) candidate.results.push_back(with("two", {{"z", z}, {"b", std::string("x")}}));
  base.axes["two"] = {"z", "b"};
  candidate.axes["two"] = {"z", "b"};
  const auto c = gauge::compare_reports(base, candidate);
  REQUIRE(c.experiments.size() == 2);
  CHECK(c.experiments[0].label == "two/z=1/b=x");
  CHECK(c.experiments[1].label == "two/z=2/b=x");
  REQUIRE(c.only_in_base.size() == 2);
  CHECK(c.only_in_base[0] == "two/z=1/b=y");  // declared order, not alphabetical
  // Markdown of a report: its declared order too.
  CHECK(gauge::formats::find_export_format("markdown").write(base, {}).find("| two/z=1/b=y |") != std::string::npos);

  // "k/x=1" with no dimensions and "k" with x = 1 read alike, but are two experiments: no note
  // that one of them is in the report twice.
  gauge::StoredReport a, b;
  a.results = {with("k/x=1", {}), with("k", {{"x", std::int64_t{1}}})};
  b.results = a.results;
  const auto d = gauge::compare_reports(a, b);
  CHECK(d.experiments.size() == 2);
  for (const auto& note : d.notes) CHECK(note.find("more than once") == std::string::npos);
  // The same experiment twice is still named.
  a.results.push_back(with("k", {{"x", std::int64_t{1}}}));
  const auto e = gauge::compare_reports(a, b);
  CHECK(std::any_of(e.notes.begin(), e.notes.end(), [](const std::string& n) { return n.find("k/x=1: more than once in the base report") == 0; }));

  // The integer 1, the real 1.0 and the string "1" of one axis are three points that print "1":
  // the rows spell them by type (by hand: "k/x=1", "k/x=1.0", "k/x=\"1\""); 0.5 among them
  // stays "0.5", and a name whose points do not collide keeps the plain spelling.
  gauge::StoredReport t;
  t.results = {with("k", {{"x", std::int64_t{1}}}), with("k", {{"x", 1.0}}), with("k", {{"x", std::string("1")}}),
               with("k", {{"x", 0.5}}), with("j", {{"x", 2.0}}), with("j", {{"x", std::int64_t{3}}})};
  const auto typed = gauge::compare_reports(t, t);
  REQUIRE(typed.experiments.size() == 6);
  std::vector<std::string> labels;
  for (const auto& x : typed.experiments) labels.push_back(x.label);
  CHECK(labels == std::vector<std::string>{"k/x=1", "k/x=1.0", "k/x=\"1\"", "k/x=0.5", "j/x=2", "j/x=3"});
  for (const auto& note : typed.notes) CHECK(note.find("more than once") == std::string::npos);
  const std::string table = gauge::formats::summary_table(t.results);
  CHECK(table.find("k/x=1.0 ") != std::string::npos);
  CHECK(table.find("k/x=\"1\" ") != std::string::npos);

  // A lookup by a NaN dimension finds the result Report::add stored with "nan".
  gauge::StoredReport n;
  n.results.push_back(with("k", {{"x", std::string("nan")}}));
  CHECK(n.find("k", {{"x", std::nan("")}}) == &n.results[0]);
}

}  // namespace gauge_test_read_compare
