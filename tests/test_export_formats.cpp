// The registry of export formats (gauge/report/export_format.hpp): every format gauge-export
// offers is registered once, found by name, and an unknown name is an error naming the choices.

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "catch.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/report/compare.hpp"
#include "gauge/report/formats.hpp"

// This file's own namespace: the unity build compiles several test files as one.
namespace gauge_test_export_formats {

TEST_CASE("export formats: the registry holds the ten formats, in order, once each", "[export]") {
  std::string names;
  for (const auto& f : gauge::formats::export_formats()) names += f.name + ",";
  CHECK(names == "gbench,csv,markdown,console,bencher,github_benchmark,json,sweep,sweep_markdown,line,interleaved,interleaved_markdown,");
  CHECK(gauge::formats::find_export_format("csv").description == "one row per experiment and per timer region (RFC 4180)");
}

TEST_CASE("export formats: an unknown name names itself and the registered ones", "[export]") {
  try {
    gauge::formats::find_export_format("xml");
    FAIL("no error for an unknown format");
  } catch (const gauge::ConfigError& e) {
    CHECK(std::string(e.what()) == "no export format 'xml' (registered: gbench, csv, markdown, console, bencher, github_benchmark, json, sweep, sweep_markdown, line, interleaved, interleaved_markdown)");
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
  const std::string console = gauge::formats::find_export_format("console").write(report, {});
  CHECK(console.find("copy") != std::string::npos);
  CHECK(console.find("2 us") != std::string::npos);  // 2e-6 s, by hand
  CHECK(gauge::formats::find_export_format("csv").write(report, {}) == gauge::formats::csv_table(report.results));
}

namespace {
/// A report with one host-backend result and one host Timer with a region, built by hand.
gauge::StoredReport report_with_timer() {
  gauge::StoredReport report;
  gauge::Result r;
  r.name = "sort";
  r.backend = "host";
  r.time_label = "real time";
  r.gpu_time = gauge::stats::summarize({1e-3, 1e-3});
  r.cpu_samples_s = {3e-3, 1e-3, 2e-3};  // process CPU time: 3 rounds, median 2 ms
  r.cpu_time = gauge::stats::summarize(r.cpu_samples_s);
  report.results.push_back(r);
  gauge::TimerSummary t;
  t.name = "train";
  t.backend = "host";
  t.window.steps = 3;
  t.window.gpu_time_s = gauge::stats::summarize({1e-3, 2e-3, 3e-3}); // median 2 ms
  t.window.wall_time_s = gauge::stats::summarize({1e-3, 2e-3, 4e-3}); // median 2 ms
  t.window.throughput.items_per_second["tokens"] = 1e6;
  t.warnings.push_back(gauge::make_warning(gauge::warning_code::timer_unfinished, "open"));
  gauge::records::TimerRegionSummary fwd;
  fwd.name = "forward";
  fwd.window.steps = 3;
  fwd.window.time_per_step_s = gauge::stats::summarize({5e-4, 6e-4, 7e-4}); // median 0.6 ms
  fwd.window.share_of_step = 0.3;
  t.regions.push_back(fwd);
  gauge::records::TimerRegionSummary unused; // never occurred in the window: no row
  unused.name = "eval";
  t.regions.push_back(unused);
  report.timers.push_back(t);
  return report;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  for (std::size_t at = 0, end; (end = text.find('\n', at)) != std::string::npos; at = end + 1)
    lines.push_back(text.substr(at, end - at));
  return lines;
}
}  // namespace

TEST_CASE("export formats: csv and markdown have a row per timer region, marked, and never say gpu on the host",
          "[export]") {
  const gauge::StoredReport report = report_with_timer();
  const std::string csv = gauge::formats::find_export_format("csv").write(report, {});
  const auto rows = lines_of(csv);
  REQUIRE(rows.size() == 4);  // header, sort, train's step, train's forward
  CHECK(rows[0] ==
        "name,repetition,status,backend,device,steps_per_sample,time_n,time_median_s,time_ci_low_s,time_ci_high_s,time_min_s,"
        "time_p5_s,time_p25_s,time_p75_s,time_p95_s,time_p99_s,time_max_s,time_mean_s,time_stddev_s,wall_n,"
        "wall_median_s,cpu_n,cpu_median_s,flop_per_s,bytes_per_s,tokens_per_s,wall_flop_per_s,wall_bytes_per_s,warnings,error,kind,"
        "time_label,share_of_step,peaks_status,peaks_reason,peak_dtype,roofline_bound,roofline_basis,"
        "arithmetic_intensity_flop_per_byte,ridge_point_flop_per_byte");
  // No peaks on the host: "none" and empty cells, never zeros; Timer rows have no peaks at all.
  CHECK(rows[1].size() > 10);
  CHECK(rows[1].substr(rows[1].size() - 11) == ",none,,,,,,");      // status none, 6 empty cells
  CHECK(rows[2].substr(rows[2].size() - 18) == ",real time,,,,,,,,");  // no share, 7 empty cells
  CHECK(csv.find("gpu") == std::string::npos);
  CHECK(rows[1].rfind("sort,,ok,host,,1,2,0.001,", 0) == 0);  // ran once: no repetition
  CHECK(rows[1].find(",experiment,real time,") != std::string::npos);
  // Its wall time: n 0, no median; its CPU time: n 3, median 2 ms.
  CHECK(rows[1].find(",0,,3,0.002,") != std::string::npos);
  // The step row: n 3, median 2 ms, wall n 3 and median 2 ms, 1e6 tokens/s, the Timer's warning.
  CHECK(rows[2].rfind("timer:train/step,,ok,host,,1,3,0.002,", 0) == 0);
  CHECK(rows[2].find(",3,0.002,,,,,1000000,,,timer_unfinished,,timer_step,real time,") != std::string::npos);
  // The region row: median 0.6 ms, no wall time, its share of the step last.
  CHECK(rows[3].rfind("timer:train/forward,,ok,host,,1,3,0.0006,", 0) == 0);
  CHECK(rows[3].find(",,,,,,,,,timer_region,real time,0.3") != std::string::npos);

  const std::string md = gauge::formats::find_export_format("markdown").write(report, {});
  CHECK(lines_of(md).size() == 2 + 3);
  // Process CPU time per step, where a row has it (host timing): sort's median is 2 ms (of 3, 1,
  // 2 ms), its wall time none; the Timer rows have none.
  CHECK(lines_of(md)[0].find("| wall/step | cpu/step | throughput |") != std::string::npos);
  CHECK(lines_of(md)[2].find("| - | 2 ms | ") != std::string::npos);
  CHECK(lines_of(md)[3].find("| 2 ms | - | 1 Mtokens/s |") != std::string::npos);
  // Without CPU time anywhere (GPU results), no such column.
  gauge::StoredReport gpu_only = report;
  gpu_only.results[0].cpu_time = gauge::Summary{};
  gpu_only.results[0].cpu_samples_s.clear();
  gpu_only.timers.clear();
  CHECK(gauge::formats::find_export_format("markdown").write(gpu_only, {}).find("cpu/step") == std::string::npos);
  CHECK(md.find("| timer:train/step (timer step) | ok | 2 ms |") != std::string::npos);
  CHECK(md.find("| timer:train/forward (timer region, 30 % of the step) | ok | 600 us |") != std::string::npos);
  CHECK(md.find("1 Mtokens/s") != std::string::npos);

  const std::string console = gauge::formats::find_export_format("console").write(report, {});
  CHECK(console.find("timer train: ") != std::string::npos);
  CHECK(console.find("(real time)") != std::string::npos);
  CHECK(console.find("timer train: timer_unfinished: open") != std::string::npos);
}

TEST_CASE("comparison formats: gauge-compare's text, markdown and json, and one more by registration alone", "[export][compare]") {
  std::string names;
  for (const auto& f : gauge::compare::comparison_formats()) names += f.name + ",";
  CHECK(names.rfind("text,markdown,json,", 0) == 0);
  // A comparison of one result against a copy 10 % slower (200 samples each: by hand the median
  // ratio is exactly 1.1), through each registered writer.
  gauge::StoredReport a, b;
  gauge::Result r;
  r.name = "copy";
  for (int i = 0; i < 200; ++i) r.gpu_samples_s.push_back(1e-3 * (1 + 1e-4 * i));
  a.results.push_back(r);
  for (auto& x : r.gpu_samples_s) x *= 1.1;
  b.results.push_back(r);
  const gauge::Comparison c = gauge::compare_reports(a, b);
  const nlohmann::json j = nlohmann::json::parse(gauge::compare::find_comparison_format("json").write(c));
  CHECK(j["schema"] == "gauge.comparison");
  CHECK(j["experiments"][0]["verdict"] == "slower");
  CHECK(j["experiments"][0]["ratio"]["estimate"].get<double>() == Approx(1.1).epsilon(1e-12));
  CHECK(gauge::compare::find_comparison_format("text").write(c) == gauge::compare::to_text(c));
  CHECK(gauge::compare::find_comparison_format("markdown").write(c) == gauge::compare::to_markdown(c));
  // A new format is its registration: found by name, listed after the others.
  gauge::compare::register_comparison_format({"verdicts", "one verdict a line", [](const gauge::Comparison& x) {
                                       std::string out;
                                       for (const auto& e : x.experiments) out += e.label + " " + gauge::to_string(e.verdict) + "\n";
                                       return out;
                                     }});
  CHECK(gauge::compare::find_comparison_format("verdicts").write(c) == "copy slower\n");
  CHECK(gauge::compare::comparison_formats().back().name == "verdicts");
  try {
    gauge::compare::find_comparison_format("html");
    FAIL("no error for an unknown format");
  } catch (const gauge::ConfigError& e) {
    CHECK(std::string(e.what()) == "no comparison format 'html' (registered: text, markdown, json, verdicts)");
  }
  gauge::detail::registered<gauge::compare::ComparisonFormat>().pop_back(); // as it was, for the other tests
}

TEST_CASE("export formats: sweep orders, groups and labels points exactly (the review's cases)", "[export][sweep]") {
  auto result = [](std::string name, gauge::Dimensions d, std::optional<std::size_t> repetition = std::nullopt) {
    gauge::Result r;
    r.name = std::move(name);
    r.dimensions = std::move(d);
    r.repetition = repetition;
    r.gpu_time.n = 3;
    r.gpu_time.p50 = 1e-6;
    return r;
  };
  auto rows_of = [](const std::string& text) {
    std::vector<std::string> lines;
    std::size_t at = 0;
    while (at < text.size()) {
      const std::size_t end = text.find('\n', at);
      lines.push_back(text.substr(at, end - at));
      at = end + 1;
    }
    return lines;
  };
  const auto sweep = gauge::formats::find_export_format("sweep");
  SECTION("integers beyond 2^53 sort exactly") {
    gauge::StoredReport doc;
    for (std::int64_t x : {std::int64_t{9007199254740993}, std::int64_t{9007199254740992}, INT64_MAX, INT64_MAX - 1})
      doc.results.push_back(result("big", {{"x", x}}));
    const auto lines = rows_of(sweep.write(doc, {}));
    REQUIRE(lines.size() >= 6);
    CHECK(lines[2].rfind("   9007199254740992  ok", 0) == 0);  // right-aligned to 19 digits
    CHECK(lines[3].rfind("   9007199254740993  ok", 0) == 0);
    CHECK(lines[4].rfind("9223372036854775806  ok", 0) == 0);
    CHECK(lines[5].rfind("9223372036854775807  ok", 0) == 0);
  }
  SECTION("-0.0 and 0.0 are two points, each with its repetitions together; N counts this benchmark's") {
    gauge::StoredReport doc;
    for (std::size_t rep : {0, 1})
      for (double x : {-0.0, 0.0}) doc.results.push_back(result("z", {{"x", x}}, rep));
    doc.results.push_back(result("other", {}, 0));
    const auto lines = rows_of(sweep.write(doc, {}));
    REQUIRE(lines.size() >= 10);
    CHECK(lines[2].rfind("-0         1/2  ok", 0) == 0);
    CHECK(lines[3].rfind("-0         2/2  ok", 0) == 0);
    CHECK(lines[4].rfind(" 0         1/2  ok", 0) == 0);
    CHECK(lines[5].rfind(" 0         2/2  ok", 0) == 0);
    CHECK(lines[7] == "other");
    CHECK(lines[9].rfind("       1/1  ok", 0) == 0);
  }
  SECTION("a declared axis named device is one column; names are made visible; a skipped-only report has rows") {
    gauge::StoredReport doc;
    doc.skipped.push_back(gauge::records::SkippedPoint{"a\nb", {{"device", std::int64_t{5}}}, "no room"});
    CHECK(sweep.has_content(doc));
    gauge::ExportOptions declared;
    declared.axes["a\nb"] = {"device"};
    const auto lines = rows_of(sweep.write(doc, declared));
    REQUIRE(lines.size() >= 3);
    CHECK(lines[0] == "a\\nb");
    CHECK(lines[1].rfind("device  status", 0) == 0);
    CHECK(lines[2].rfind("     5  skipped", 0) == 0);
    const std::string md = gauge::formats::find_export_format("sweep_markdown").write(doc, declared);
    CHECK(md.rfind("## a\\\\nb\n", 0) == 0);  // the visible "\n", its backslash escaped for Markdown
  }
  SECTION("a repetition at the largest index does not wrap to 0") {
    gauge::StoredReport doc;
    doc.results.push_back(result("r", {}, std::numeric_limits<std::size_t>::max()));
    const std::string text = sweep.write(doc, {});
    CHECK(text.find("18446744073709551615+1/18446744073709551615") != std::string::npos);
  }
  SECTION("results without a repetition follow the numbered ones; an integer 1 and a real 1.0 read apart") {
    gauge::StoredReport doc;
    doc.results.push_back(result("m", {{"x", std::int64_t{1}}}, 2));
    doc.results.push_back(result("m", {{"x", std::int64_t{1}}}));  // merged from a run without repetitions
    doc.results.push_back(result("m", {{"x", std::int64_t{1}}}, 0));
    doc.results.push_back(result("m", {{"x", 1.0}}));
    doc.results.push_back(result("m", {{"x", 2.5}}));
    const auto lines = rows_of(sweep.write(doc, {}));
    REQUIRE(lines.size() >= 7);
    CHECK(lines[2].rfind("  1         1/3  ok", 0) == 0);
    CHECK(lines[3].rfind("  1         3/3  ok", 0) == 0);
    CHECK(lines[4].rfind("  1           -  ok", 0) == 0);
    CHECK(lines[5].rfind("1.0           -  ok", 0) == 0);
    CHECK(lines[6].rfind("2.5           -  ok", 0) == 0);
  }
}

}  // namespace gauge_test_export_formats

namespace gauge_test_export_formats {

TEST_CASE("export formats: interleaved names its points, escapes the record's text and refuses a record it cannot place",
          "[export][interleave]") {
  auto result = [](std::string name, gauge::Dimensions d, double median) {
    gauge::Result r;
    r.name = std::move(name);
    r.dimensions = std::move(d);
    r.gpu_time.n = 10;
    r.gpu_time.p50 = median;
    return r;
  };
  gauge::StoredReport doc;
  doc.results.push_back(result("k", {{"B", std::string("x")}, {"A", std::int64_t{1}}}, 1e-6));
  doc.results.push_back(result("k", {{"B", std::string("x")}, {"A", std::int64_t{3}}}, 3e-6));
  doc.results.push_back(result("other", {}, 2e-6));
  doc.axes["k"] = {"A", "B"};
  gauge::records::InterleavedRecord x;
  x.a = 0;
  x.b = 1;
  x.order = "AB\nBA";
  x.stopping_reason = "max_time\n  B/A = 1.0000: same";
  x.verdict = gauge::stats::PairedVerdict::slower;
  x.reason = "B is slower";
  x.measure_time_s = -0.0;
  doc.interleaved.push_back(x);
  const std::string text = gauge::formats::find_export_format("interleaved").write(doc, {});
  // Labels in the declared axis order, as --list prints them; the record's text on its own lines.
  CHECK(text.find("A     k/A=1/B=x  ok") != std::string::npos);
  CHECK(text.find("B     k/A=3/B=x  ok") != std::string::npos);
  CHECK(text.find("interleaved A/B (AB\\nBA rounds): A = k/A=1/B=x, B = k/A=3/B=x; 0 round pairs in 0.0 s, stopped: "
                  "max_time\\n  B/A = 1.0000: same\n") != std::string::npos);
  // The result of no record follows, side "-".
  CHECK(text.find("\n-     other") != std::string::npos);
  // Markdown: the user's text renders as written (no link, image or HTML), in both tables and the reason.
  gauge::StoredReport md_doc = doc;
  md_doc.results[0].dimensions["B"] = std::string("[x](y)");
  md_doc.interleaved[0].reason = "<img src=x> [c](u)";
  const std::string md = gauge::formats::find_export_format("interleaved_markdown").write(md_doc, {});
  CHECK(md.find("| A | k/A=1/B=\\[x\\](y) | ok |") != std::string::npos);
  CHECK(md.find("\n\\<img src=x\\> \\[c\\](u)\n") != std::string::npos);
  CHECK(md.find("[x](y)") == std::string::npos);
  // Two runs: a blank line between the first one's text and the second one's table.
  gauge::StoredReport two = doc;
  two.results.push_back(doc.results[0]);
  two.results.push_back(doc.results[1]);
  gauge::records::InterleavedRecord y = x;
  y.a = 3;
  y.b = 4;
  two.interleaved.push_back(y);
  const std::string both = gauge::formats::find_export_format("interleaved").write(two, {});
  CHECK(both.find("  B is slower\n\nside  point") != std::string::npos);
  // With a ratio, the reason's restatement of the line above is left out: by hand, the ratio line
  // "B/A = 1.1000, 95 % CI [1.0500, 1.1500], threshold 2 %: slower", then only the why.
  gauge::StoredReport rated = doc;
  gauge::stats::PairedRatio p;
  p.estimate = 1.1;
  p.low = 1.05;
  p.high = 1.15;
  p.level = 0.95;
  p.pairs = 40;
  rated.interleaved[0].ratio = p;
  rated.interleaved[0].config.threshold = 0.02;
  rated.interleaved[0].verdict = gauge::detail::paired_verdict(p, 0.02, rated.interleaved[0].reason);
  REQUIRE(rated.interleaved[0].reason ==
          "B/A 1.1000 [1.0500, 1.1500] at 95 % over 40 round pairs: B is slower: the interval lies above 1 and the "
          "estimate above 1 + 2 %");
  const std::string r = gauge::formats::find_export_format("interleaved").write(rated, {});
  CHECK(r.find("  B/A = 1.1000, 95 % CI [1.0500, 1.1500], threshold 2 %: slower\n"
               "  why: the interval lies above 1 and the estimate above 1 + 2 %\n") != std::string::npos);
  // A ratio of 1e300 (a hostile report) in five significant digits, not 300 digits, and the why
  // still found.
  p.estimate = 1e300;
  p.low = 1e299;
  p.high = std::numeric_limits<double>::infinity();
  rated.interleaved[0].ratio = p;
  rated.interleaved[0].verdict = gauge::detail::paired_verdict(p, 0.02, rated.interleaved[0].reason);
  CHECK(rated.interleaved[0].reason.rfind("B/A 1e+300 [1e+299, inf] at 95 % over 40 round pairs: ", 0) == 0);
  const std::string huge = gauge::formats::find_export_format("interleaved").write(rated, {});
  CHECK(huge.find("  B/A = 1e+300, 95 % CI [1e+299, inf], threshold 2 %: slower\n  why: ") != std::string::npos);
  CHECK(gauge::formats::find_export_format("interleaved_markdown").write(rated, {}).find("| 1e+300 | 1e+299 | inf |") != std::string::npos);
  CHECK(gauge::detail::format_ratio(1.23456) == "1.2346");
  CHECK(gauge::detail::format_ratio(999999.5) == "999999.5000");
  CHECK(gauge::detail::format_ratio(1234567.0) == "1.2346e+06");
  // A reason written otherwise (another version's words) is printed whole.
  rated.interleaved[0].reason = "B/A 1.1 looked slower";
  CHECK(gauge::formats::find_export_format("interleaved").write(rated, {}).find("\n  B/A 1.1 looked slower\n") != std::string::npos);
  // A record whose A and B are one experiment, or out of range: refused, naming it.
  doc.interleaved[0].b = 0;
  CHECK_THROWS_WITH(gauge::formats::find_export_format("interleaved").write(doc, {}),
                    "interleaved[0]: A and B are the same experiment 0");
  doc.interleaved[0].b = 7;
  CHECK_THROWS_WITH(gauge::formats::find_export_format("interleaved_markdown").write(doc, {}),
                    "interleaved[0] names experiment 7, but the report has 3");
}

TEST_CASE("point labels: name/axis=value, declared axes first, the others in key order", "[export][labels]") {
  const gauge::Dimensions d{{"device", std::int64_t{1}}, {"N", std::int64_t{4096}}, {"T", std::string("float")}};
  CHECK(gauge::detail::point_label("triad", d, {"T", "N"}) == "triad/T=float/N=4096/device=1");
  CHECK(gauge::detail::point_label("triad", d) == "triad/N=4096/T=float/device=1");
  CHECK(gauge::detail::point_label("triad", d, {"T", "T", "missing"}) == "triad/T=float/N=4096/device=1");
  CHECK(gauge::detail::point_label("triad", {}) == "triad");
}

}  // namespace gauge_test_export_formats
