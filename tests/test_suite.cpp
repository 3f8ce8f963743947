// Suites (issue 12): axes and their text grammar, the cartesian product, the runner's command line
// (--list, --filter, --axis, --device, exit codes), skipped points in the report, failures that
// keep what was measured, the tables, the progress line, --profile and --interleave (two points in
// ABBA rounds, the paired ratio B/A), on the fake backend.

#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "catch.hpp"
#include "fake_backend.hpp"
#include "fake_cupti.hpp"
#include "test_helpers.hpp"
#include "gauge/report/read.hpp"
#include "gauge/report/formats.hpp"
#include "gauge/suite.hpp"
#include "gauge/suite/implementation.hpp"

// This file's own namespace: the unity build compiles several test files as one.
namespace gauge_test_suite {

using gauge::testing::FakeBackend;
using gauge::testing::FakeDevice;
using gauge::testing::FakeStream;
namespace fs = std::filesystem;

namespace {

std::vector<std::int64_t> ints(const std::vector<gauge::DimensionValue>& v) {
  std::vector<std::int64_t> out;
  for (const auto& x : v) out.push_back(std::get<std::int64_t>(x));
  return out;
}

std::string axis_error(gauge::suite::AxisKind kind, const std::string& text, const std::vector<gauge::DimensionValue>& allowed = {}) {
  return gauge::testing::error_of<gauge::AxisError>([&] { gauge::suite::parse_axis_values(kind, text, allowed); });
}

/// Captured stdout/stderr of one runner call.
struct Run {
  int code = -1;
  std::string out, err;
};

std::string slurp(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string s;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  std::fclose(f);
  return s;
}

/// Runs gauge::main over `registry` with `args` (argv[0] = "suite"), stdout and stderr captured.
Run run_main(gauge::suite::Registry& registry, std::vector<std::string> args, gauge::suite::SuiteIo io = {}) {
  args.insert(args.begin(), "suite");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  io.out = std::tmpfile();
  io.err = std::tmpfile();
  io.err_is_terminal = false;
  if (!io.environment) io.environment = [] {
    gauge::Environment env;
    env.gauge_version = gauge::version_string;
    return env;
  };
  if (!io.device_count) io.device_count = [] { return 2; };
  Run r;
  r.code = gauge::main(static_cast<int>(argv.size()), argv.data(), registry, io);
  r.out = slurp(io.out);
  r.err = slurp(io.err);
  return r;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (c == '\n') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

fs::path fresh_dir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("gauge-suite-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

/// A registry with one benchmark "k" over A (int) × B (string) on the fake device: a kernel of
/// A microseconds. `hook(p)` runs first (to skip or throw at chosen points).
struct FakeSuite {
  FakeDevice dev;
  gauge::suite::Registry registry;
  std::vector<std::string> ran;  // labels, in the order the bodies ran
  std::function<void(gauge::Point&)> hook;
  FakeSuite() {
    registry
        .add("k",
             [this](gauge::Point& p) {
               ran.push_back(std::to_string(p.get_int64("A")) + p.get_string("B"));
               if (hook) hook(p);
               if (p.skip_reason()) return;
               const double us = static_cast<double>(p.get_int64("A"));
               p.bytes(1000);
               p.run_on(FakeBackend(&dev), [us](FakeStream s) { s.kernel(us * 1e-6); });
             })
        .int64_axis("A", {1, 2, 3})
        .string_axis("B", {"x", "y"})
        .configure([](gauge::Config& c) { c = gauge::testing::fast_config(); });
  }
};

/// Runs gauge::main over a FakeSuite with `hook` in a forked child, which exits with the runner's
/// code; returns the child's wait status (so a test can see it die of a signal).
int status_of_child_run(std::function<void(gauge::Point&)> hook, std::vector<std::string> args) {
  std::fflush(nullptr);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    FakeSuite c;
    c.hook = std::move(hook);
    const Run r = run_main(c.registry, std::move(args));
    ::_exit(r.code);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  return status;
}

}  // namespace

TEST_CASE("suite: axis values from the text grammar", "[suite][axes]") {
  using gauge::suite::AxisKind;
  // Powers of two, exponents 10..30 step 2: 11 values, each 4 times the previous.
  auto [p2, is_pow2] = gauge::suite::parse_axis_values(gauge::suite::AxisKind::int64, "2^[10:30:2]");
  std::vector<std::int64_t> expected;
  for (std::int64_t v = 1024; v <= (std::int64_t{1} << 30); v *= 4) expected.push_back(v);
  CHECK(expected.size() == 11);
  CHECK(ints(p2) == expected);
  CHECK(is_pow2);
  CHECK(ints(gauge::suite::parse_axis_values(gauge::suite::AxisKind::int64, "[1:10:3]").first) == std::vector<std::int64_t>{1, 4, 7, 10});
  CHECK(ints(gauge::suite::parse_axis_values(gauge::suite::AxisKind::int64, "[1024, 4096]").first) == std::vector<std::int64_t>{1024, 4096});
  CHECK(ints(gauge::suite::parse_axis_values(gauge::suite::AxisKind::int64, "[3:5]").first) == std::vector<std::int64_t>{3, 4, 5});
  CHECK(ints(gauge::suite::parse_axis_values(gauge::suite::AxisKind::int64, "7").first) == std::vector<std::int64_t>{7});
  CHECK(ints(gauge::suite::parse_axis_values(gauge::suite::AxisKind::int64, "2^[3,5]").first) == std::vector<std::int64_t>{8, 32});
  // nvbench's spelling N[pow2]=[...]
  const auto ov = gauge::detail::parse_axis_override("N[pow2]=[2:4]");
  CHECK(ov.name == "N");
  CHECK(ints(gauge::suite::parse_axis_values(gauge::suite::AxisKind::int64, ov.values_text, {}, ov.power_of_two).first) ==
        std::vector<std::int64_t>{4, 8, 16});
  const auto reals = gauge::suite::parse_axis_values(gauge::suite::AxisKind::float64, "[0.5:2:0.5]").first;
  REQUIRE(reals.size() == 4);
  for (std::size_t i = 0; i < 4; ++i) CHECK(std::get<double>(reals[i]) == 0.5 * static_cast<double>(i + 1));
  const auto strings = gauge::suite::parse_axis_values(gauge::suite::AxisKind::string, "[nn, nt]").first;
  CHECK(strings == std::vector<gauge::DimensionValue>{std::string("nn"), std::string("nt")});
  // gauge::pow2 and gauge::range as declarations
  CHECK(gauge::pow2(12, 16, 2).values == std::vector<std::int64_t>{4096, 16384, 65536});
  // A step past the last exponent: the first value alone (the int sum overflowed at INT_MAX and
  // listed 63 values, 2^62 down to 2^0).
  CHECK(gauge::pow2(62, 62, 2147483647).values == std::vector<std::int64_t>{std::int64_t{1} << 62});
  CHECK(gauge::pow2(0, 62, 2147483647).values == std::vector<std::int64_t>{1});
  CHECK(gauge::range(0, 10, 5).values == std::vector<std::int64_t>{0, 5, 10});
}

TEST_CASE("suite: bad axis text names the bad part", "[suite][axes]") {
  using gauge::suite::AxisKind;
  CHECK(axis_error(gauge::suite::AxisKind::int64, "2^[10:x]") == "'x' is not an integer");
  CHECK(axis_error(gauge::suite::AxisKind::int64, "[1,2.5]") == "'2.5' is not an integer");
  CHECK(axis_error(gauge::suite::AxisKind::int64, "[1:10:0]") == "step '0' must be positive");
  CHECK(axis_error(gauge::suite::AxisKind::int64, "[10:1]") == "range [10:1] is empty (first > last)");
  CHECK(axis_error(gauge::suite::AxisKind::int64, "2^[10:70]") == "exponent '63' is outside [0, 62]");
  CHECK(axis_error(gauge::suite::AxisKind::int64, "[1,,2]") == "'[1,,2]' has an empty value");
  CHECK(axis_error(gauge::suite::AxisKind::int64, "[1:2:3:4]") == "'[1:2:3:4]' is not a range: expected [first:last] or [first:last:step]");
  CHECK(axis_error(gauge::suite::AxisKind::int64, "[1:1000000000]") == "range [1:1000000000:1] has more than 100000 values");
  CHECK(axis_error(gauge::suite::AxisKind::float64, "[0.5,abc]") == "'abc' is not a finite real number");
  CHECK(axis_error(gauge::suite::AxisKind::float64, "[1e-400]") ==
        "'1e-400' is too small for a double: it would read as 0 (the smallest is about 4.9e-324)");
  CHECK(gauge::suite::parse_axis_values(gauge::suite::AxisKind::float64, "[0e5,0.0,4.9e-324]", {}, false).first.size() == 3); // zeros and the smallest denormal read
  // Float values label as the shortest text that reads back as the same double: distinct values
  // never share a label (1e-20 and 2e-20 both printed "0" once).
  const auto tiny = gauge::suite::parse_axis_values(gauge::suite::AxisKind::float64, "[1e-20,2e-20,0.1,1e+300]", {}, false).first;
  std::vector<std::string> tiny_labels;
  for (const auto& v : tiny) tiny_labels.push_back(gauge::to_string(v));
  CHECK(tiny_labels == std::vector<std::string>{"1e-20", "2e-20", "0.1", "1e+300"});
  // In a string axis ':' belongs to the value: "[std::sort,a:b]" is two strings, not a range.
  const auto names = gauge::suite::parse_axis_values(gauge::suite::AxisKind::string, "[std::sort,a:b]", {}, false).first;
  CHECK(names == std::vector<gauge::DimensionValue>{std::string("std::sort"), std::string("a:b")});
  CHECK(axis_error(gauge::suite::AxisKind::type, "[half]", {std::string("float"), std::string("double")}) ==
        "'half' is not one of the types of this axis (float, double)");
  CHECK(gauge::testing::error_of<gauge::AxisError>([] { gauge::detail::parse_axis_override("N"); }) ==
        "no '=': expected NAME=VALUES, e.g. N=[1024,4096] or N=2^[10:30:2]");
}

TEST_CASE("suite: the points are the cartesian product of the axes, first axis slowest", "[suite][plan]") {
  FakeSuite s;
  const auto points = gauge::suite::plan_points(s.registry, gauge::suite::RunOptions{});
  std::vector<std::string> expected;  // nested loops, written independently of the odometer
  for (int a : {1, 2, 3})
    for (const char* b : {"x", "y"}) expected.push_back("k/A=" + std::to_string(a) + "/B=" + b);
  std::vector<std::string> labels;
  for (const auto& p : points) labels.push_back(p.label);
  CHECK(labels == expected);

  const Run list = run_main(s.registry, {"--list"});
  CHECK(list.code == 0);
  CHECK(lines(list.out) == expected);
  CHECK(s.ran.empty());  // --list runs nothing
}

TEST_CASE("suite: --filter and --axis select and replace points", "[suite][plan]") {
  FakeSuite s;
  CHECK(lines(run_main(s.registry, {"--list", "--filter", "B=y"}).out) ==
        std::vector<std::string>{"k/A=1/B=y", "k/A=2/B=y", "k/A=3/B=y"});
  CHECK(lines(run_main(s.registry, {"--list", "--filter", "A=[23]/B=x"}).out) ==
        std::vector<std::string>{"k/A=2/B=x", "k/A=3/B=x"});
  CHECK(lines(run_main(s.registry, {"--list", "--axis", "A=2^[3:4]", "--axis=B=[z]"}).out) ==
        std::vector<std::string>{"k/A=8/B=z", "k/A=16/B=z"});
  // --device all: each point on each device (2 here), the device a dimension.
  const auto all = lines(run_main(s.registry, {"--list", "--device", "all", "--filter", "A=1/B=x"}).out);
  CHECK(all == std::vector<std::string>{"k/A=1/B=x/device=0", "k/A=1/B=x/device=1"});
}

TEST_CASE("suite: hostile --filter, --axis and labels are usage errors, never a crash or a hang", "[suite][cli][hardening]") {
  FakeSuite s;
  auto usage_of = [&](std::vector<std::string> args) {
    const Run r = run_main(s.registry, std::move(args));
    CHECK(r.code == 2);
    CHECK(lines(r.err).size() == 1);
    CHECK(s.ran.empty());
    return r.err;
  };
  // 30,000 nested parentheses overflowed std::regex's compiler: refused by depth (and length).
  const std::string nested = std::string(30000, '(') + "a" + std::string(30000, ')');
  CHECK(usage_of({"--filter", nested}).find("60001 bytes, more than the 1024") != std::string::npos);
  const std::string deep = std::string(40, '(') + "A" + std::string(40, ')');
  CHECK(usage_of({"--filter", deep}).find("groups nested 40 deep, more than 32") != std::string::npos);
  // Parentheses inside a class or escaped do not count: "[(]" and "\\(" are 0 deep.
  CHECK(gauge::detail::suite_run::group_depth("[((((]\\(\\(x") == 0);
  CHECK(gauge::detail::suite_run::group_depth("(a(b)(c(d)))") == 3);
  // A pattern that backtracks exponentially, (.*)*x$, on labels of 9 characters and on a longer
  // name: answered at once (libstdc++'s breadth-first executor), matching nothing.
  gauge::suite::Registry long_names;
  long_names.add(std::string(200, 'q'), [](gauge::Point&) {}).int64_axis("A", {1});
  const Run slow = run_main(long_names, {"--list", "--filter", "(.*)*x$"});
  CHECK(slow.code == 2);
  CHECK(slow.err.find("matches no point") != std::string::npos);
  // A label beyond 4096 bytes (a 25 KB string axis value) is refused by its size.
  const std::string big = "B=[" + std::string(25000, 'a') + "]";
  CHECK(usage_of({"--list", "--axis", big}).find("has a label of 25") != std::string::npos);
  // A 120 KB --axis is refused before it is parsed.
  const std::string huge = "A=[" + std::string(120000, '1') + "]";
  CHECK(usage_of({"--axis", huge}).find("120004 bytes, more than the 65536") != std::string::npos);
  // --list with a filter that matches nothing is the usage error a run with it is.
  CHECK(usage_of({"--list", "--filter", "nomatch"}) == "suite: error: --filter 'nomatch' matches no point (see --help)\n");
  // An empty registry still lists nothing, successfully.
  gauge::suite::Registry none;
  const Run empty = run_main(none, {"--list"});
  CHECK(empty.code == 0);
  CHECK(empty.out.empty());
}

TEST_CASE("suite: bad usage exits 2 with one line naming the bad text", "[suite][cli]") {
  FakeSuite s;
  auto check_usage = [&](std::vector<std::string> args, const std::string& line) {
    const Run r = run_main(s.registry, std::move(args));
    CHECK(r.code == 2);
    CHECK(r.err == "suite: error: " + line + " (see --help)\n");
    CHECK(r.out.empty());
  };
  check_usage({"--axis", "A=2^[10:x]"}, "--axis 'A=2^[10:x]': 'x' is not an integer");
  check_usage({"--axis", "Q=[1]"}, "--axis 'Q=[1]': no benchmark has an axis 'Q' (axes: 'A', 'B')");
  const Run regex = run_main(s.registry, {"--filter", "(A"});
  CHECK(regex.code == 2);
  CHECK(regex.err.rfind("suite: error: --filter '(A': not a regular expression (", 0) == 0);
  CHECK(lines(regex.err).size() == 1);
  check_usage({"--filter", "nothing"}, "--filter 'nothing' matches no point");
  check_usage({"--device", "5"}, "--device '5': there are 2 devices (0 to 1)");
  check_usage({"--device", "gpu0"}, "--device 'gpu0': expected a device ordinal (0, 1, ...) or 'all'");
  check_usage({"--min-time", "fast"}, "--min-time 'fast' is not seconds (e.g. 0.5, 0.5s, 500ms)");
  check_usage({"--target-ci", "2"}, "--target-ci '2' is not in (0, 1) (e.g. 0.005 or 0.5%)");
  check_usage({"--bogus"}, "unknown option or argument '--bogus'");
  CHECK(s.ran.empty());
  const Run version = run_main(s.registry, {"--version"});
  CHECK(version.code == 0);
  CHECK(version.out == std::string("gauge ") + gauge::version_string + "\n");
}

TEST_CASE("suite: skip() after run(), and a throw after skip(), fail the point instead of vanishing", "[suite][run]") {
  FakeDevice dev;
  gauge::suite::Registry registry;
  registry
      .add("k",
           [&dev](gauge::Point& p) {
             const auto a = p.get_int64("A");
             if (a == 2) {
               p.skip("two is skipped");
               throw std::runtime_error("boom after the skip");
             }
             p.run_on(FakeBackend(&dev), [](FakeStream st) { st.kernel(1e-6); });
             if (a == 3) p.skip("too late");  // throws ConfigError: the point was measured
           })
      .int64_axis("A", {1, 2, 3})
      .configure([](gauge::Config& c) { c = gauge::testing::fast_config(); });
  const fs::path dir = fresh_dir("skip-late");
  const std::string out = (dir / "r.json").string();
  const Run r = run_main(registry, {"--out", out, "--quiet"});
  CHECK(r.code == 1);  // two failed points
  const auto report = gauge::read_report(out);
  CHECK(report.skipped.empty());
  REQUIRE(report.results.size() == 3);
  CHECK(report.results[0].status == gauge::Status::ok);
  CHECK(report.results[1].status == gauge::Status::failed);
  CHECK(report.results[1].error.value_or("").find("boom after the skip (after skip(\"two is skipped\"))") != std::string::npos);
  CHECK(report.results[2].status == gauge::Status::failed);  // measured, kept, failed
  CHECK(report.results[2].error.value_or("").find("skip(\"too late\") after run()") != std::string::npos);
  CHECK(report.results[2].gpu_time.p50.value() == Approx(1e-6));
}

TEST_CASE("suite: skipped points are listed in the report, not failed, and the run exits 0", "[suite][run]") {
  FakeSuite s;
  s.hook = [](gauge::Point& p) {
    if (p.get_int64("A") == 2) p.skip("A=2 does not fit");
  };
  const fs::path dir = fresh_dir("skip");
  const std::string out = (dir / "r.json").string();
  const Run r = run_main(s.registry, {"--out", out, "--quiet"});
  CHECK(r.code == 0);
  CHECK(r.err.empty());  // --quiet
  const auto report = gauge::read_report(out);
  REQUIRE(report.results.size() == 4);  // 6 points, 2 skipped
  for (const auto& res : report.results) {
    CHECK(res.status == gauge::Status::ok);
    CHECK(std::get<std::int64_t>(res.dimensions.at("A")) != 2);
    // a kernel of A us: the median per step is A us (the fake device is exact)
    CHECK(res.gpu_time.p50.value() == Approx(static_cast<double>(std::get<std::int64_t>(res.dimensions.at("A"))) * 1e-6));
  }
  REQUIRE(report.skipped.size() == 2);
  CHECK(report.skipped[0].name == "k");
  CHECK(report.skipped[0].reason == "A=2 does not fit");
  CHECK(std::get<std::int64_t>(report.skipped[0].dimensions.at("A")) == 2);
  CHECK(std::get<std::string>(report.skipped[1].dimensions.at("B")) == "y");
  // The console table: a row per point in run order, the skipped ones with their reason.
  const auto table = lines(r.out);
  REQUIRE(table.size() >= 8);
  CHECK(table[0] == "k");
  CHECK(gauge::testing::contains(table[1], "A  B  status"));
  CHECK(gauge::testing::contains(table[4], "2  x  skipped"));
  CHECK(gauge::testing::contains(table[4], "A=2 does not fit"));
  CHECK(gauge::testing::contains(table[2], "1  x  ok"));
  CHECK(gauge::testing::contains(table[2], "1 us"));
  // 1000 bytes per 3 us step = 333.3 MB/s
  INFO(r.out);
  CHECK(gauge::testing::contains(table[7], "3  y  ok"));
  CHECK(gauge::testing::contains(table[7], "333.3 MB/s"));
}

TEST_CASE("suite: the runner's console and markdown views are the registered sweep formats of the report it wrote",
          "[suite][run][export]") {
  // Axes declared Z (int, descending) then B (text): neither alphabetical nor ascending.
  FakeDevice dev;
  gauge::suite::Registry registry;
  registry
      .add("t",
           [&dev](gauge::Point& p) {
             if (p.get_int64("Z") == 2 && p.get_string("B") == "y") return p.skip("no room");
             const double us = static_cast<double>(p.get_int64("Z"));
             p.run_on(FakeBackend(&dev), [us](FakeStream s) { s.kernel(us * 1e-6); });
           })
      .int64_axis("Z", {3, 2, 1})
      .string_axis("B", {"y", "x"})
      .configure([](gauge::Config& c) { c = gauge::testing::fast_config(); });
  const fs::path dir = fresh_dir("sweep-format");
  const std::string out = (dir / "r.json").string();
  const Run console = run_main(registry, {"--out", out, "--quiet"});
  REQUIRE(console.code == 0);
  auto doc = gauge::read_report(out);
  // The report keeps the declared order (`axes`, schema 1.9): the same text from the report read
  // back, through the registry, with no option.
  REQUIRE(doc.axes.count("t") == 1);
  CHECK(doc.axes.at("t") == std::vector<std::string>{"Z", "B"});
  CHECK(gauge::formats::find_export_format("sweep").write(doc, {}) == console.out);
  const Run markdown = run_main(registry, {"--format", "markdown", "--quiet"});
  REQUIRE(markdown.code == 0);
  CHECK(gauge::formats::find_export_format("sweep_markdown").write(doc, {}) == markdown.out);
  // ExportOptions::axes overrides the report's order.
  gauge::ExportOptions reversed;
  reversed.axes["t"] = {"B", "Z"};
  CHECK(lines(gauge::formats::find_export_format("sweep").write(doc, reversed))[1].rfind("B  Z  status", 0) == 0);
  // Columns in the declared order; rows by Z ascending, then B as declared (y before x), the
  // skipped point in its place; without a declared order, the columns are alphabetical.
  const auto table = lines(console.out);
  REQUIRE(table.size() == 9);
  CHECK(table[0] == "t");
  CHECK(table[1].rfind("Z  B  status", 0) == 0);
  const char* order[] = {"1  y  ok", "1  x  ok", "2  y  skipped", "2  x  ok", "3  y  ok", "3  x  ok"};
  for (std::size_t i = 0; i < 6; ++i) {
    INFO(console.out);
    CHECK(table[2 + i].rfind(order[i], 0) == 0);
  }
  doc.axes.clear();  // a report without `axes` (before schema 1.9)
  const auto alphabetical = lines(gauge::formats::find_export_format("sweep").write(doc, gauge::ExportOptions{}));
  REQUIRE(alphabetical.size() == 9);
  CHECK(alphabetical[1].rfind("B  Z  status", 0) == 0);
  CHECK(alphabetical[2].rfind("y  1  ok", 0) == 0);
  CHECK(alphabetical[3].rfind("y  2  skipped", 0) == 0);
}

TEST_CASE("suite: a failing point exits 1 and the points before it stay in the report", "[suite][run]") {
  FakeSuite s;
  s.hook = [](gauge::Point& p) {
    if (p.get_int64("A") == 3 && p.get_string("B") == "x") throw std::runtime_error("cuBLAS said no");
  };
  const fs::path dir = fresh_dir("fail");
  const std::string out = (dir / "r.json").string();
  const Run r = run_main(s.registry, {"--out", out, "--format", "markdown"});
  CHECK(r.code == 1);
  const auto report = gauge::read_report(out);
  REQUIRE(report.results.size() == 6);
  for (std::size_t i = 0; i < 6; ++i) CHECK(report.results[i].status == (i == 4 ? gauge::Status::failed : gauge::Status::ok));
  CHECK(report.results[4].error.value() == "the benchmark threw: cuBLAS said no");
  CHECK(std::get<std::int64_t>(report.results[4].dimensions.at("A")) == 3);
  // Markdown: a heading and a table per benchmark; the summary line counts the points.
  CHECK(gauge::testing::contains(r.out, "## k\n\n| A | B | status | samples | median | ci +-% | throughput | notes |\n"));
  CHECK(gauge::testing::contains(r.out, "| 3 | x | failed | 0 | - | - | - | error: the benchmark threw: cuBLAS said no |"));
  CHECK(gauge::testing::contains(r.err, "gauge: 6 points (5 ok, 1 failed, 0 skipped)"));

  // A body that neither runs nor skips fails its point.
  gauge::suite::Registry lazy;
  lazy.add("lazy", [](gauge::Point&) {});
  const Run l = run_main(lazy, {"--quiet", "--format", "json"});
  CHECK(l.code == 1);
  const auto doc = nlohmann::json::parse(l.out);
  CHECK(doc["experiments"][0]["error"] ==
        "the benchmark neither ran nor skipped the point (call p.run(step) or p.skip(reason))");
}

TEST_CASE("suite: the report is on disk after every point, and SIGTERM stops the run keeping what was measured",
          "[suite][run][signals]") {
  FakeSuite s;
  const fs::path dir = fresh_dir("sigterm");
  const std::string out = (dir / "r.json").string();
  std::vector<std::size_t> on_disk;  // experiments in the file when each point's body starts
  s.hook = [&](gauge::Point& p) {
    on_disk.push_back(fs::exists(out) ? gauge::read_report(out).results.size() : 0);
    if (p.get_int64("A") == 2 && p.get_string("B") == "y") std::raise(SIGTERM);  // the 4th point, before its run
  };
  const Run r = run_main(s.registry, {"--out", out, "--quiet"});
  CHECK(r.code == 128 + SIGTERM);
  CHECK(on_disk == std::vector<std::size_t>{0, 1, 2, 3});
  const auto report = gauge::read_report(out);
  REQUIRE(report.results.size() == 4);  // points 5 and 6 never started
  for (std::size_t i = 0; i < 3; ++i) CHECK(report.results[i].status == gauge::Status::ok);
  CHECK(report.results[3].status == gauge::Status::failed);
  CHECK(report.results[3].stopping.reason == "interrupted");
  CHECK(gauge::testing::contains(report.results[3].error.value_or(""), "interrupted: a stop was requested (SIGTERM)"));
  CHECK(!report.results[3].gpu_samples_s.empty());  // measured until the signal: kept
  CHECK(gauge::testing::contains(r.err, "gauge: interrupted by SIGTERM: 4 point runs measured, 2 not run"));
  // The handlers are put back and the request cleared: the next run goes to its end.
  CHECK(!gauge::stop_requested());
  s.hook = nullptr;
  CHECK(run_main(s.registry, {"--quiet"}).code == 0);
}

TEST_CASE("suite: a value twice on an axis, or a name with '/', '=' or a newline, is a usage error", "[suite][cli][hardening]") {
  FakeSuite s;
  const Run twice = run_main(s.registry, {"--axis", "A=[1,2,1]"});
  CHECK(twice.code == 2);
  CHECK(gauge::testing::contains(twice.err, "axis 'A' lists the value 1 more than once"));
  for (const char* name : {"a/b", "a=b", "a\nb"}) {
    gauge::suite::Registry bad;
    bad.add(name, [](gauge::Point& p) { p.skip("never runs"); });
    const Run r = run_main(bad, {"--list"});
    CHECK(r.code == 2);
    CHECK(gauge::testing::contains(r.err, "rename the benchmark"));
  }
}

TEST_CASE("suite: --axis 'BENCH/AXIS=...' targets one of two benchmarks sharing an axis name", "[suite][cli][axes]") {
  gauge::suite::Registry r;
  for (const char* name : {"k", "m"})
    r.add(name, [](gauge::Point& p) { p.skip("listed only"); }).int64_axis("A", {1, 2, 3}).string_axis("B", {"x"});
  const Run one = run_main(r, {"--list", "--axis", "m/A=[7,8]"});
  REQUIRE(one.code == 0);
  // k keeps A = 1, 2, 3; m's A is 7, 8 (the labels as --list prints them, one per line).
  for (const char* label : {"k/A=1/B=x", "k/A=2/B=x", "k/A=3/B=x", "m/A=7/B=x", "m/A=8/B=x"})
    CHECK(gauge::testing::contains(one.out, label));
  CHECK(!gauge::testing::contains(one.out, "m/A=1/"));
  CHECK(!gauge::testing::contains(one.out, "k/A=7/"));
  const Run all = run_main(r, {"--list", "--axis", "A=[5]"});  // no prefix: both
  CHECK(gauge::testing::contains(all.out, "k/A=5/B=x"));
  CHECK(gauge::testing::contains(all.out, "m/A=5/B=x"));
  const Run nobody = run_main(r, {"--list", "--axis", "q/A=[1]"});
  CHECK(nobody.code == 2);
  CHECK(gauge::testing::contains(nobody.err, "no benchmark is named 'q' (benchmarks: 'k', 'm')"));
  const Run no_axis = run_main(r, {"--list", "--axis", "k/C=[1]"});
  CHECK(no_axis.code == 2);
  CHECK(gauge::testing::contains(no_axis.err, "benchmark 'k' has no axis 'C' (its axes: 'A', 'B')"));
}

// Declarations with mistakes, in the program's registry, at static initialization (as
// GAUGE_BENCHMARK declares): before, each threw there and ended gauge_tests before main
// (std::terminate). Now they are recorded, and only a run over the global registry sees them.
static std::size_t declared_bodies_run = 0;
static void declared_body(gauge::Point& p) {
  ++declared_bodies_run;
  p.skip("never runs");
}
static void nan_axis(gauge::Point& p) { declared_body(p); }
[[maybe_unused]] static gauge::suite::Benchmark& unnamed_benchmark = gauge::suite::register_benchmark("", declared_body);
GAUGE_BENCHMARK(nan_axis).float64_axis("alpha", {0.5, std::nan("")});

TEST_CASE("suite: a declaration with a mistake never ends the program at static initialization: the runner names it, exit 2",
          "[suite][cli][hardening]") {
  // The program's registry holds the two declarations above (an empty name, a NaN axis value).
  const Run r = run_main(gauge::suite::Registry::global(), {"--quiet"});
  CHECK(r.code == 2);
  CHECK(r.err ==
        "suite: error: benchmark 1 of 2 in registration order is declared wrongly: its name is empty: give it one "
        "(GAUGE_BENCHMARK(fn) names it \"fn\", register_benchmark(name, body) by its first argument) (and 1 more "
        "declaration problem); nothing was run (see --help)\n");
  CHECK(r.out.empty());
  CHECK(run_main(gauge::suite::Registry::global(), {"--list"}).code == 2);  // --list plans the points too
  CHECK(declared_bodies_run == 0);

  // Each mistake alone, in a registry of its own: the benchmark, the axis and the value named.
  struct Case {
    std::function<void(gauge::suite::Registry&)> declare;
    std::string message;
  };
  const auto body = [](gauge::Point& p) { p.skip("never runs"); };
  const std::vector<Case> cases = {
      {[&](gauge::suite::Registry& g) { g.add("k", body).float64_axis("alpha", {0.5, std::nan("")}); },
       "benchmark 'k' is declared wrongly: axis 'alpha' has the value nan: an axis value must be a finite number"},
      {[&](gauge::suite::Registry& g) { g.add("k", body).float64_axis("alpha", {HUGE_VAL}); },
       "benchmark 'k' is declared wrongly: axis 'alpha' has the value inf: an axis value must be a finite number"},
      {[&](gauge::suite::Registry& g) { g.add("k", body).float64_axis("alpha", {1.0, -HUGE_VAL}); },
       "benchmark 'k' is declared wrongly: axis 'alpha' has the value -inf: an axis value must be a finite number"},
      {[&](gauge::suite::Registry& g) {
         g.add("a", body);
         g.add("", body);
       },
       "benchmark 2 of 2 in registration order (after 'a') is declared wrongly: its name is empty"},
      {[&](gauge::suite::Registry& g) {
         g.add("k", body).int64_axis("N", {1});
         g.add("k", body).int64_axis("N", {2});
       },
       "benchmark 'k' is declared wrongly: its name is registered twice: give each benchmark its own name"},
      {[&](gauge::suite::Registry& g) { g.add("k", body).int64_axis("", {1}); },
       "benchmark 'k' is declared wrongly: an axis name is empty: name the axis"},
      {[&](gauge::suite::Registry& g) { g.add("k", body).int64_axis("N", std::vector<std::int64_t>{}); },
       "benchmark 'k' is declared wrongly: axis 'N' has no values: give it at least one"},
      {[&](gauge::suite::Registry& g) { g.add("k", body).int64_axis("N", {1}).string_axis("N", {"x"}); },
       "benchmark 'k' is declared wrongly: axis 'N' is declared twice: give each axis its own name"},
      {[&](gauge::suite::Registry& g) { g.add("k", body).int64_axis("N", gauge::pow2(10, 70)); },
       "benchmark 'k' is declared wrongly: axis 'N': gauge::pow2(10, 70, 1): exponent '70' is outside [0, 62]"},
      {[&](gauge::suite::Registry& g) { g.add("k", body).int64_axis("N", gauge::range(5, 1)); },
       "benchmark 'k' is declared wrongly: axis 'N': gauge::range(5, 1, 1): range [5:1] is empty"},
      {[&](gauge::suite::Registry& g) { g.add("k", gauge::suite::BenchmarkBody{}); },
       "benchmark 'k' is declared wrongly: its body is empty: give it a function of a gauge::Point&"},
      {[&](gauge::suite::Registry& g) { gauge::suite::register_benchmark_types<float, double>(g, "t", "T", {"float"}, [](auto, gauge::Point&) {}); },
       "benchmark 't' is declared wrongly: 1 type names for 2 types: give one name per type"},
  };
  for (const auto& c : cases) {
    gauge::suite::Registry g;
    REQUIRE_NOTHROW(c.declare(g));
    const Run bad = run_main(g, {"--list"});
    INFO(bad.err);
    CHECK(bad.code == 2);
    CHECK(bad.out.empty());
    CHECK(bad.err.rfind("suite: error: " + c.message, 0) == 0);
    CHECK(gauge::testing::contains(bad.err, "; nothing was run (see --help)\n"));
  }
}

TEST_CASE("suite: an axis value with '/' or '=', or 0 beside -0, is a usage error", "[suite][cli][hardening]") {
  FakeSuite s;
  const Run slash = run_main(s.registry, {"--list", "--axis", "B=[x/A=2,x]"});
  CHECK(slash.code == 2);
  CHECK(gauge::testing::contains(slash.err, "axis 'B' has the value 'x/A=2' with '/', which separates a label's parts"));
  const Run equals = run_main(s.registry, {"--list", "--axis", "B=[a=b]"});
  CHECK(equals.code == 2);
  CHECK(gauge::testing::contains(equals.err, "with '='"));
  gauge::suite::Registry r;
  r.add("f", [](gauge::Point& p) { p.skip("listed only"); }).float64_axis("F", {1.0});
  const Run zeros = run_main(r, {"--list", "--axis", "F=[0,-0]"});
  CHECK(zeros.code == 2);
  CHECK(gauge::testing::contains(zeros.err, "lists the value"));
}

TEST_CASE("suite: an ignored signal stays ignored, and a second signal of another kind ends the process", "[suite][run][signals]") {
  // SIG_IGN (as nohup leaves SIGHUP): the runner must not turn it into a stop.
  FakeSuite s;
  struct sigaction ignore {}, old {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  REQUIRE(::sigaction(SIGHUP, &ignore, &old) == 0);
  s.hook = [&](gauge::Point& p) {
    if (p.get_int64("A") == 2 && p.get_string("B") == "y") std::raise(SIGHUP);
  };
  const Run ignored = run_main(s.registry, {"--quiet"});
  struct sigaction after {};
  ::sigaction(SIGHUP, &old, &after);
  CHECK(ignored.code == 0);  // all 6 points ran
  CHECK(after.sa_handler == SIG_IGN);  // and the disposition was left as it was
  // SIGINT asks for a stop, then SIGTERM ends the process at once (in a child: it dies of SIGTERM;
  // the child's exit code 0 is not reached).
  const int status = status_of_child_run(
      [](gauge::Point& p) {
        if (p.get_int64("A") == 2) {
          std::raise(SIGINT);
          std::raise(SIGTERM);
        }
      },
      {"--quiet"});
  CHECK(WIFSIGNALED(status));
  CHECK((WIFSIGNALED(status) ? WTERMSIG(status) : 0) == SIGTERM);
}

TEST_CASE("suite: the same signal twice at once is one stop request (timeout forwards it twice)", "[suite][run][signals]") {
  // GNU timeout sends SIGTERM to the runner and then to its process group: two deliveries within
  // microseconds. In a child: it must exit 143 with the report of what ran, not die of SIGTERM.
  const fs::path dir = fresh_dir("double_signal");
  const std::string out = (dir / "r.json").string();
  const int status = status_of_child_run(
      [](gauge::Point& p) {
        if (p.get_int64("A") == 2 && p.get_string("B") == "x") {
          std::raise(SIGTERM);
          std::raise(SIGTERM);
        }
      },
      {"--quiet", "--out", out});
  INFO("died of signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0));
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 143);
  // The points before the signal ran; the one that raised it was interrupted; none after started.
  const auto report = gauge::read_report(out);
  CHECK(report.results.size() >= 1);
  CHECK(report.results.size() < 6);
}

TEST_CASE("suite: overrides of the common settings reach every point's Config", "[suite][run]") {
  FakeSuite s;
  const fs::path dir = fresh_dir("config");
  const std::string out = (dir / "r.json").string();
  const Run r = run_main(s.registry, {"--out", out, "--quiet", "--filter", "A=1/B=x", "--max-time", "250ms",
                                      "--target-ci", "1%", "--cold", "--device", "1"});
  CHECK(r.code == 0);
  const auto report = gauge::read_report(out);
  REQUIRE(report.results.size() == 1);
  const gauge::Config& c = report.results[0].config;
  CHECK(c.measure.max_time == std::chrono::milliseconds(250));
  CHECK(c.measure.target_relative_ci_width == Approx(0.01));
  CHECK(c.measure.cache == gauge::CacheState::cold);
  CHECK(c.device == 1);
  CHECK(report.results[0].dimensions.count("device") == 0);  // one device: not a dimension
}

TEST_CASE("suite: --quick caps warm-up and measuring at 1 s and asks for a 2 % interval", "[suite][run]") {
  FakeSuite s;
  const fs::path dir = fresh_dir("quick");
  const std::string out = (dir / "r.json").string();
  REQUIRE(run_main(s.registry, {"--out", out, "--quiet", "--filter", "A=1/B=x", "--quick"}).code == 0);
  const gauge::Config c = gauge::read_report(out).results.at(0).config;
  CHECK(c.measure.max_time == std::chrono::seconds(1));
  CHECK(c.warmup.max_time == std::chrono::seconds(1));
  CHECK(c.measure.target_relative_ci_width == Approx(0.02));
  CHECK(c.measure.min_time <= c.measure.max_time);
  // Explicit settings win over --quick.
  REQUIRE(run_main(s.registry, {"--out", out, "--quiet", "--filter", "A=1/B=x", "--quick", "--target-ci", "1%",
                                "--max-time", "300ms"}).code == 0);
  const gauge::Config d = gauge::read_report(out).results.at(0).config;
  CHECK(d.measure.max_time == std::chrono::milliseconds(300));
  CHECK(d.measure.target_relative_ci_width == Approx(0.01));
  // The library's own quick settings are the same numbers.
  const gauge::Config q = gauge::Config::quick();
  CHECK(q.measure.max_time == std::chrono::seconds(1));
  CHECK(q.warmup.max_time == std::chrono::seconds(1));
  CHECK(q.measure.target_relative_ci_width == Approx(0.02));
  CHECK_NOTHROW(gauge::validate(q));
}

TEST_CASE("suite: an error text that is not UTF-8 is written, not lost", "[suite][run]") {
  FakeSuite s;
  s.hook = [](gauge::Point& p) {
    if (p.get_int64("A") == 2) throw std::runtime_error("bad bytes \xff\xfe here");
  };
  const fs::path dir = fresh_dir("utf8");
  const std::string out = (dir / "r.json").string();
  const Run r = run_main(s.registry, {"--out", out, "--quiet", "--format", "json", "--filter", "B=x"});
  CHECK(r.code == 1);  // a failed point, not a failed write
  const auto doc = nlohmann::json::parse(r.out);
  REQUIRE(doc["experiments"].size() == 3);
  CHECK(doc["experiments"][1]["error"] == "the benchmark threw: bad bytes \xEF\xBF\xBD\xEF\xBF\xBD here");  // U+FFFD twice
  const auto report = gauge::read_report(out);
  CHECK(report.results.size() == 3);
  CHECK(report.results[2].status == gauge::Status::ok);
}

TEST_CASE("suite: --kernels traces every point and prints its kernels", "[suite][run]") {
  FakeSuite s;
  gauge::testing::ScopedFakeCupti cupti;
  cupti.fake.attach(s.dev);
  const fs::path dir = fresh_dir("kernels");
  const std::string out = (dir / "r.json").string();
  const Run r = run_main(s.registry, {"--out", out, "--quiet", "--filter", "A=2/B=x", "--kernels"});
  CHECK(r.code == 0);
  const auto report = gauge::read_report(out);
  REQUIRE(report.results.size() == 1);
  CHECK(report.results[0].config.trace_kernels);
  REQUIRE(report.results[0].kernel_trace.has_value());
  const auto& t = *report.results[0].kernel_trace;
  CHECK(t.status == "traced");
  REQUIRE(t.kernels.size() == 1);
  CHECK(t.kernels[0].name == "fake_kernel()");
  CHECK(t.kernels[0].median_s.value() == Approx(2e-6).epsilon(1e-6));  // a kernel of A = 2 us
  INFO(r.out);
  CHECK(gauge::testing::contains(r.out, "kernels of k ("));
  CHECK(gauge::testing::contains(r.out, "\n  fake_kernel() "));
  // Without the flag: no tracing, no table.
  const Run plain = run_main(s.registry, {"--quiet", "--filter", "A=2/B=x"});
  CHECK_FALSE(gauge::testing::contains(plain.out, "kernels of"));
}

TEST_CASE("suite: a template benchmark has a type axis named after its types", "[suite][types]") {
  gauge::suite::Registry registry;
  std::vector<std::size_t> sizes;
  gauge::suite::register_benchmark_types<float, double>(registry, "copy", "T", gauge::detail::split_type_names("float, double"),
                                                 [&](auto t, gauge::Point& p) {
                                                   sizes.push_back(sizeof(typename decltype(t)::type));
                                                   p.skip("not measured here");
                                                 })
      .int64_axis("N", {1, 2});
  const Run r = run_main(registry, {"--quiet"});
  CHECK(r.code == 0);
  CHECK(sizes == std::vector<std::size_t>{4, 4, 8, 8});
  CHECK(lines(run_main(registry, {"--list", "--axis", "T=[double]"}).out) ==
        std::vector<std::string>{"copy/T=double/N=1", "copy/T=double/N=2"});
  CHECK(run_main(registry, {"--list", "--axis", "T=[half]"}).err ==
        "suite: error: --axis 'T=[half]': 'half' is not one of the types of this axis (float, double) (see --help)\n");
}

TEST_CASE("suite: the progress line says where the run is and how long is left", "[suite][progress]") {
  gauge::detail::ProgressState s;
  s.index = 3;
  s.total = 40;
  s.label = "triad/T=float/N=4096";
  s.elapsed_s = 4.0;
  CHECK(gauge::detail::progress_line(s) == "[3/40] triad/T=float/N=4096 | 4.0 s elapsed");
  s.finished = 2;
  s.finished_elapsed_s = 4.0;
  s.last_median_s = 12.346e-6;
  // 4 s for 2 points: 2 s each, 38 left: 76 s.
  CHECK(gauge::detail::progress_line(s) == "[3/40] triad/T=float/N=4096 | last median 12.35 us | 4.0 s elapsed, ~1 min 16 s left");
  // While a point runs: its own median so far, after its first measured round.
  s.median_so_far_s = 11.04e-6;
  s.samples_so_far = 240;
  CHECK(gauge::detail::progress_line(s) ==
        "[3/40] triad/T=float/N=4096 | median so far 11.04 us (240 samples) | 4.0 s elapsed, ~1 min 16 s left");
  // The estimate does not grow while the point runs: 1.5 s into it, 37 × 2 s + 0.5 s = 74.5 s;
  // at 3 s and at 10 s (longer than the mean), 37 × 2 s = 74 s.
  s.elapsed_s = 5.5;
  CHECK(*gauge::detail::progress_remaining_s(s) == Approx(74.5).epsilon(1e-12));
  s.elapsed_s = 7.0;
  CHECK(*gauge::detail::progress_remaining_s(s) == Approx(74.0).epsilon(1e-12));
  s.elapsed_s = 14.0;
  CHECK(*gauge::detail::progress_remaining_s(s) == Approx(74.0).epsilon(1e-12));
  // The last point running: only its own remainder; all finished: 0.
  s.finished = 39;
  s.finished_elapsed_s = 78.0;  // 2 s per point
  s.elapsed_s = 79.5;
  CHECK(*gauge::detail::progress_remaining_s(s) == Approx(0.5).epsilon(1e-12));
  s.finished = 40;
  CHECK(*gauge::detail::progress_remaining_s(s) == 0.0);
  CHECK(gauge::detail::format_duration(3725) == "1 h 02 min");
  CHECK(gauge::detail::format_duration(59.94) == "59.9 s");
  CHECK(gauge::detail::format_duration(-0.0) == "0.0 s");
  CHECK(gauge::detail::format_duration(9.3e18) == "9.3e+18 s");  // no wrap past llround's range
  CHECK(gauge::detail::format_duration(9.99e7) == "27750 h 00 min");
  CHECK(gauge::detail::format_duration(1e8) == "1e+08 s");
  CHECK(gauge::detail::format_duration(-1) == "?");
  CHECK(gauge::detail::format_duration(0.0421) == "42.1 ms");
  CHECK(gauge::detail::format_duration(0.00093) == "930 us");  // three digits, never "9.3e+02 us"
  CHECK(gauge::detail::format_duration(0.0005) == "500 us");
  CHECK(gauge::detail::format_duration(0.09999) == "0.1 s");   // rounds up to the next form
  CHECK(gauge::detail::format_duration(0.0995) == "99.5 ms");
  CHECK(gauge::detail::format_duration(1e-320) == "< 1 ns");
  CHECK(gauge::detail::format_duration(0.1) == "0.1 s");
}

TEST_CASE("suite: --repetitions 3 runs every point 3 times, in rounds over the whole suite", "[suite][repetitions]") {
  FakeSuite s;
  s.hook = [](gauge::Point& p) {
    if (p.get_int64("A") == 2 && p.get_string("B") == "y") p.skip("A=2/B=y does not fit");
  };
  const fs::path dir = fresh_dir("repetitions");
  const std::string out = (dir / "r.json").string();
  const Run r = run_main(s.registry, {"--out", out, "--filter", "A=[12]", "--repetitions", "3"});
  INFO(r.err);
  CHECK(r.code == 0);
  // 4 points (A=1,2 x B=x,y), one of them skipped: all points once, then all again, then again;
  // the skipped point ran its body once only.
  CHECK(s.ran == std::vector<std::string>{"1x", "1y", "2x", "2y", "1x", "1y", "2x", "1x", "1y", "2x"});
  const auto report = gauge::read_report(out);
  REQUIRE(report.results.size() == 9);
  const std::vector<std::string> labels = {"1x0", "1y0", "2x0", "1x1", "1y1", "2x1", "1x2", "1y2", "2x2"};
  for (std::size_t i = 0; i < 9; ++i) {
    const auto& res = report.results[i];
    INFO(i);
    CHECK(res.name == "k");
    CHECK(res.status == gauge::Status::ok);
    REQUIRE(res.repetition.has_value());
    CHECK(std::to_string(std::get<std::int64_t>(res.dimensions.at("A"))) + std::get<std::string>(res.dimensions.at("B")) +
              std::to_string(*res.repetition) ==
          labels[i]);
    // a kernel of A us: the median per step is A us in every repetition (the fake device is exact)
    CHECK(res.gpu_time.p50.value() == Approx(static_cast<double>(std::get<std::int64_t>(res.dimensions.at("A"))) * 1e-6));
  }
  REQUIRE(report.skipped.size() == 1);
  CHECK(report.skipped[0].reason == "A=2/B=y does not fit");
  // As written: the key and its 0-based index.
  std::ifstream in(out);
  const auto doc = nlohmann::json::parse(in);
  for (std::size_t i = 0; i < 9; ++i) CHECK(doc["experiments"][i]["repetition"] == i / 3);
  // The table: a repetition column, the repetitions of a point side by side.
  const auto table = lines(r.out);
  REQUIRE(table.size() >= 12);
  CHECK(gauge::testing::contains(table[1], "A  B  repetition  status"));
  CHECK(gauge::testing::contains(table[2], "1  x         1/3  ok"));
  CHECK(gauge::testing::contains(table[3], "1  x         2/3  ok"));
  CHECK(gauge::testing::contains(table[4], "1  x         3/3  ok"));
  CHECK(gauge::testing::contains(table[11], "2  y           -  skipped"));
  CHECK(gauge::testing::contains(r.err, "gauge: 4 points x 3 repetitions (9 ok, 0 failed, 1 skipped)"));

  // One repetition (the default): no repetition index, no column, the old summary line.
  FakeSuite once;
  const Run one = run_main(once.registry, {"--filter", "A=1/B=x", "--format", "json"});
  CHECK(one.code == 0);
  const auto single = nlohmann::json::parse(one.out);
  REQUIRE(single["experiments"].size() == 1);
  CHECK(single["experiments"][0]["repetition"].is_null());
  CHECK(gauge::testing::contains(one.err, "gauge: 1 point (1 ok, 0 failed, 0 skipped)"));
  const Run md = run_main(once.registry, {"--filter", "A=1/B=x", "--format", "markdown", "--repetitions", "2", "--quiet"});
  CHECK(gauge::testing::contains(md.out, "| A | B | repetition | status |"));
  CHECK(gauge::testing::contains(md.out, "| 1 | x | 2/2 | ok |"));
  // Alignment: the integer axis A and the repetition right, the string axis B left, status left,
  // samples ... throughput right, notes left.
  CHECK(gauge::testing::contains(md.out, "|---:|---|---:|---|---:|---:|---:|---:|---|"));
  // --list is unchanged.
  CHECK(run_main(once.registry, {"--list", "--repetitions", "3"}).out == run_main(once.registry, {"--list"}).out);
}

TEST_CASE("suite: --repetitions takes a whole number >= 1, else exits 2 naming the flag and the value", "[suite][cli][repetitions]") {
  FakeSuite s;
  for (const std::string bad : {"0", "abc", "-2", "1.5", ""}) {
    const Run r = run_main(s.registry, {"--repetitions", bad});
    INFO(bad);
    CHECK(r.code == 2);
    CHECK(r.err == "suite: error: --repetitions '" + bad + "': expected a whole number >= 1 (see --help)\n");
    CHECK(r.out.empty());
  }
  // An empty --out would measure everything and write nothing.
  const Run no_out = run_main(s.registry, {"--out", ""});
  CHECK(no_out.code == 2);
  CHECK(no_out.err == "suite: error: --out '': the report's path is empty (an unset variable?): name a file, or leave --out "
                      "out to write no report (see --help)\n");
  const Run profile = run_main(s.registry, {"--profile", "--repetitions", "2"});
  CHECK(profile.code == 2);
  CHECK(profile.err == "suite: error: --profile runs one step per point: --repetitions does not apply (see --help)\n");
  CHECK(s.ran.empty());
  gauge::suite::RunOptions zero; // from code: an error, not a silent single run
  zero.repetitions = 0;
  CHECK_THROWS_WITH(gauge::suite::run_suite({}, zero), "run_suite: RunOptions::repetitions must be >= 1, got 0");
  gauge::suite::RunOptions xml; // from code: a format nothing writes is refused before any point runs
  xml.format = "xml";
  CHECK_THROWS_AS(gauge::suite::run_suite(gauge::suite::plan_points(s.registry, {}), xml), gauge::UsageError);
  CHECK(s.ran.empty());
  try {
    gauge::suite::run_suite({}, xml);
  } catch (const gauge::UsageError& e) {
    CHECK(std::string(e.what()).rfind("--format 'xml' is not one of console, markdown, ", 0) == 0);
    CHECK(std::string(e.what()).find("gbench") != std::string::npos);
  }
  // The progress line says which repetition runs (1-based) where there are several.
  gauge::detail::ProgressState p;
  p.index = 5;
  p.total = 12;
  p.label = "k/A=2/B=x";
  p.repetition = 2;
  p.repetitions = 3;
  p.elapsed_s = 4.0;
  CHECK(gauge::detail::progress_line(p) == "[5/12] k/A=2/B=x (repetition 2/3) | 4.0 s elapsed");
  p.repetitions = 1;
  p.repetition = 1;
  CHECK(gauge::detail::progress_line(p) == "[5/12] k/A=2/B=x | 4.0 s elapsed");
}

TEST_CASE("suite: the progress line shows on a terminal only after the delay, never with --quiet", "[suite][progress]") {
  FakeSuite s;
  std::atomic<int> readings{0};
  gauge::suite::SuiteIo io;
  io.clock = [&readings] { return 10.0 * ++readings; };  // every reading 10 s later: the delay passes at once
  Run r;
  {
    gauge::suite::SuiteIo t = io;
    std::vector<std::string> args{"suite", "--filter", "A=1/B=x"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    t.out = std::tmpfile();
    t.err = std::tmpfile();
    t.err_is_terminal = true;
    t.environment = [] { return gauge::Environment{}; };
    r.code = gauge::main(static_cast<int>(argv.size()), argv.data(), s.registry, t);
    r.out = slurp(t.out);
    r.err = slurp(t.err);
  }
  CHECK(r.code == 0);
  CHECK(gauge::testing::contains(r.err, "\r\033[K[1/1] k/A=1/B=x | "));
  const Run quiet = run_main(s.registry, {"--filter", "A=1/B=x", "--quiet"});
  CHECK(quiet.err.empty());
}

namespace {
/// The fake backend with a profiler: records the kernels launched between start and stop.
struct ProfilingBackend : FakeBackend {
  using FakeBackend::FakeBackend;
  FakeDevice* device = nullptr;
  std::size_t* captured = nullptr;
  std::size_t at_start = 0;
  void profiler_start() { at_start = device->kernels; }
  void profiler_stop() { *captured += device->kernels - at_start; }
};
}  // namespace

TEST_CASE("suite: --profile runs a short warm-up, then exactly one step inside the profiler range, untimed", "[suite][profile]") {
  FakeDevice dev;
  std::size_t captured = 0, steps = 0, setups = 0;
  gauge::suite::Registry registry;
  registry.add("p", [&](gauge::Point& p) {
    ProfilingBackend b(&dev);
    b.device = &dev;
    b.captured = &captured;
    p.run_on(std::move(b), [&](FakeStream st) { ++steps; st.kernel(20e-3); }, [&](FakeStream) { ++setups; });
  });
  const Run r = run_main(registry, {"--profile"});
  CHECK(r.code == 0);
  CHECK(captured == 1);  // exactly the step's kernel, nothing of gauge's
  // Warm-up: at least 10 steps and 100 ms; 20 ms steps reach 100 ms at 5, so 10 steps; then one.
  CHECK(steps == 11);
  CHECK(setups == 11);  // before every step, outside the profiled range
  CHECK(dev.markers_recorded == 0);  // no timing at all
  CHECK(r.err == "gauge: p: profiled one step after 10 warm-up steps\n");
  CHECK(run_main(registry, {"--profile", "--out", "x.json"}).code == 2);
}

TEST_CASE("suite: a point's untimed setup runs before every step, outside the timing", "[suite][setup]") {
  // A 1 ms setup (a reset kernel on the stream) before a 10 us step: the median stays 10 us.
  FakeDevice dev;
  std::size_t steps = 0, setups = 0;
  gauge::suite::Registry registry;
  registry.add("s", [&](gauge::Point& p) {
    p.run_on(FakeBackend(&dev), [&](FakeStream st) { ++steps; st.kernel(10e-6); }, [&](FakeStream st) {
      ++setups;
      st.kernel(1e-3);
    });
  });
  const Run r = run_main(registry, {"--quiet", "--format", "json", "--max-time", "0.5"});
  CHECK(r.code == 0);
  const auto j = nlohmann::json::parse(r.out)["experiments"][0];
  CHECK(j["status"] == "ok");
  CHECK(j["gpu_time_s"]["p50"].get<double>() == Approx(10e-6).epsilon(1e-9));
  CHECK(j["sampling"]["steps_per_sample"] == 1);
  CHECK(j["sampling"]["setup_calls"].get<std::size_t>() == setups);
  CHECK(setups == steps);  // one setup per step (the step counted here includes warm-up and wall rounds)
}

TEST_CASE("suite: the adversarial review's inputs end cleanly", "[suite][hardening]") {
  // An integer range whose step would wrap the offset past the span: three values, by hand
  // (-2^63, -2^63 + (2^63 - 1) = -1, -1 + (2^63 - 1) = 2^63 - 2), no endless loop.
  const auto wide = gauge::range(INT64_MIN, INT64_MAX, INT64_MAX);
  CHECK(wide.values == std::vector<std::int64_t>{INT64_MIN, -1, INT64_MAX - 1});
  // A real range whose step cannot move its first value.
  CHECK(axis_error(gauge::suite::AxisKind::float64, "[1:1:1e-300]") ==
        "range [1:1:1e-300]: step '1e-300' is too small to change 1");
  CHECK(axis_error(gauge::suite::AxisKind::float64, "[1:2:1e-300]") == "range [1:2:1e-300] has more than 100000 values");

  // A product of axes past max_points: usage error naming the axes, before planning.
  FakeSuite s;
  const Run big = run_main(s.registry, {"--list", "--axis", "A=[1:99999]", "--axis", "B=[a,b,c,d,e,f,g,h,i,j,k]"});
  CHECK(big.code == 2);
  CHECK(big.err ==
        "suite: error: benchmark 'k' would have 1.1e+06 points (99999 (A) x 11 (B)), more than 1000000: narrow its axes "
        "with --axis (see --help)\n");

  // A configure() that throws fails its points, not the program; the other benchmark runs.
  FakeDevice dev;
  gauge::suite::Registry r;
  r.add("bad", [&](gauge::Point& p) { p.run_on(FakeBackend(&dev), [](FakeStream st) { st.kernel(1e-5); }); })
      .configure([](gauge::Config&) { throw std::runtime_error("no such GPU model"); });
  r.add("good", [&](gauge::Point& p) { p.run_on(FakeBackend(&dev), [](FakeStream st) { st.kernel(1e-5); }); })
      .configure([](gauge::Config& c) { c = gauge::testing::fast_config(); });
  const Run cfg = run_main(r, {"--quiet", "--format", "json"});
  CHECK(cfg.code == 1);
  const auto doc = nlohmann::json::parse(cfg.out);
  REQUIRE(doc["experiments"].size() == 2);
  CHECK(doc["experiments"][0]["status"] == "failed");
  CHECK(doc["experiments"][0]["error"] == "configuring the point threw: no such GPU model");
  CHECK(doc["experiments"][1]["status"] == "ok");

  // The report's folder vanishes during the run: the tables still print, exit 74 names the file.
  const fs::path dir = fresh_dir("vanish");
  const std::string out = (dir / "r.json").string();
  FakeSuite v;
  v.hook = [&](gauge::Point&) { fs::remove_all(dir); };
  const Run gone = run_main(v.registry, {"--out", out, "--format", "markdown"});
  CHECK(gone.code == 74);
  CHECK(gauge::testing::contains(gone.out, "## k\n"));
  CHECK(gauge::testing::contains(gone.err, "gauge: error: the report was not written: "));
  CHECK(gauge::testing::contains(gone.err, "r.json"));
}

// ---- --interleave A B: two points in ABBA rounds, the paired ratio B/A ------------------------

TEST_CASE("suite: --interleave measures two values of an axis in ABBA rounds: B/A is the ratio of their kernels",
          "[suite][interleave]") {
  // Point A runs a 1 us kernel, point B a 3 us one (the fake device is exact): B/A = 3 by the script.
  FakeSuite s;
  const fs::path dir = fresh_dir("interleave");
  const std::string out = (dir / "r.json").string();
  const Run r = run_main(s.registry, {"--interleave", "k/A=1/B=x", "k/A=3/B=x", "--out", out, "--threshold", "5%"});
  INFO(r.err);
  INFO(r.out);
  CHECK(r.code == 0);
  // Each body ran once, A's first (B's ran inside A's run()); no other point of the suite ran.
  CHECK(s.ran == std::vector<std::string>{"1x", "3x"});
  const auto report = gauge::read_report(out);
  REQUIRE(report.results.size() == 2);
  CHECK(std::get<std::int64_t>(report.results[0].dimensions.at("A")) == 1);
  CHECK(std::get<std::int64_t>(report.results[1].dimensions.at("A")) == 3);
  REQUIRE(report.interleaved.size() == 1);
  const auto& x = report.interleaved[0];
  CHECK(x.a == 0);
  CHECK(x.b == 1);
  CHECK(x.order == "ABBA");
  REQUIRE(x.ratio.has_value());
  CHECK(x.ratio->estimate == Approx(3.0).epsilon(1e-9));
  CHECK(x.ratio->low <= 3.0 + 1e-9);
  CHECK(x.ratio->high >= 3.0 - 1e-9);
  CHECK(x.ratio->pairs >= 32);  // min_pairs
  CHECK(x.verdict == gauge::stats::PairedVerdict::slower);
  CHECK(x.config.threshold == Approx(0.05));  // --threshold 5%
  // A second method: the two results' own medians, each over its own rounds.
  CHECK(report.results[1].gpu_time.p50.value() / report.results[0].gpu_time.p50.value() == Approx(3.0).epsilon(1e-9));
  CHECK(report.results[0].stopping.reason == "interleaved");
  // The console: both points, the paired ratio with its interval, the threshold and the verdict.
  CHECK(gauge::testing::contains(r.out, "interleaved A/B (ABBA rounds): A = k/A=1/B=x, B = k/A=3/B=x; "));
  CHECK(gauge::testing::contains(r.out, "  B/A = 3.0000, 95 % CI [3.0000, 3.0000], threshold 5 %: slower\n"));
  // The reason below says why, not the ratio and the verdict again (a new user read them twice).
  CHECK(gauge::testing::contains(r.out, "\n  why: the interval lies above 1 and the estimate above 1 + 5 %\n"));
  CHECK_FALSE(gauge::testing::contains(r.out, "B is slower"));
  CHECK(x.reason.find("round pairs: B is slower: the interval lies above 1") != std::string::npos);  // the report keeps it whole
  const auto table = lines(r.out);
  REQUIRE(table.size() >= 3);
  // Text columns (side, point) are left-aligned, as text reads (helper-2 #10).
  CHECK(table[0].rfind("side  point      status", 0) == 0);
  CHECK(table[1].rfind("A     k/A=1/B=x  ok", 0) == 0);
  CHECK(gauge::testing::contains(table[1], "1 us"));
  CHECK(table[2].rfind("B     k/A=3/B=x  ok", 0) == 0);
  CHECK(gauge::testing::contains(table[2], "3 us"));
  CHECK(gauge::testing::contains(r.err, "gauge: interleaved 2 points (2 ok, 0 failed, 0 skipped)"));
  // The view is the registered format `interleaved` (gauge-export --format interleaved prints it
  // from the report), and --format markdown is `interleaved_markdown`.
  CHECK(r.out == gauge::formats::find_export_format("interleaved").write(report, {}));
  const Run md = run_main(s.registry, {"--interleave", "k/A=1/B=x", "k/A=3/B=x", "--out", out, "--format", "markdown", "--quiet"});
  CHECK(md.code == 0);
  const std::string md_text = gauge::formats::find_export_format("interleaved_markdown").write(gauge::read_report(out), {});
  CHECK(md.out == md_text);
  CHECK(md_text.rfind("## points\n\n| side | point | status |", 0) == 0);
  // Named by its registered name, the view is on stdout once (not again on stderr, as for csv).
  const Run named = run_main(s.registry, {"--interleave", "k/A=1/B=x", "k/A=3/B=x", "--format", "interleaved", "--quiet"});
  CHECK(gauge::testing::contains(named.out, "B/A = 3.0000"));
  CHECK(!gauge::testing::contains(named.err, "B/A = 3.0000"));
  const Run csv = run_main(s.registry, {"--interleave", "k/A=1/B=x", "k/A=3/B=x", "--format", "csv", "--quiet"});
  CHECK(gauge::testing::contains(csv.err, "B/A = 3.0000"));
  CHECK(gauge::testing::contains(md_text, "| k/A=1/B=x | k/A=3/B=x | 3.0000 | 3.0000 | 3.0000 | 95 % |"));
}

TEST_CASE("suite: --interleave compares two benchmarks: the interval covers the known factor", "[suite][interleave]") {
  // "candidate" is 5 % slower than "base" at every moment; both drift by +0.1 % per ms and carry
  // a 1 % noise (uniform, seeded): the paired ratio's interval covers 1.05.
  FakeDevice dev;
  std::mt19937_64 gen(20261201);
  auto step_time = [&](double base) {
    const double u = static_cast<double>(gen() >> 11) * 0x1.0p-53;
    return base * std::exp(1.0 * dev.host) * (1 + 0.01 * std::sqrt(12.0) * (u - 0.5));
  };
  gauge::suite::Registry registry;
  for (const auto& [name, base] : {std::pair<const char*, double>{"base", 10e-6}, {"candidate", 10.5e-6}})
    registry
        .add(name,
             [&, b = base](gauge::Point& p) {
               p.run_on(FakeBackend(&dev), [&, b](FakeStream st) { st.kernel(step_time(b)); });
             })
        .configure([](gauge::Config& c) { c = gauge::testing::fast_config(); });
  const Run r = run_main(registry, {"--interleave", "base", "candidate", "--format", "json", "--quiet", "--max-time", "5"});
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(r.err.empty());  // --quiet
  const auto doc = nlohmann::json::parse(r.out);
  REQUIRE(doc["experiments"].size() == 2);
  CHECK(doc["experiments"][0]["name"] == "base");
  CHECK(doc["experiments"][1]["name"] == "candidate");
  REQUIRE(doc["interleaved"].size() == 1);
  const auto& x = doc["interleaved"][0];
  INFO(x["reason"].get<std::string>());
  CHECK(x["a"] == 0);
  CHECK(x["b"] == 1);
  CHECK(x["ratio"]["low"].get<double>() <= 1.05);
  CHECK(x["ratio"]["high"].get<double>() >= 1.05);
  CHECK(std::abs(x["ratio"]["estimate"].get<double>() / 1.05 - 1) < 0.005);
  CHECK(x["verdict"] == "slower");  // 5 % beyond the default threshold of 2 %
  CHECK(x["config"]["threshold"].get<double>() == Approx(0.02));
  CHECK(x["config"]["max_time_s"].get<double>() == Approx(5.0));  // --max-time: the interleaved rounds'
}

TEST_CASE("suite: --interleave names its points as --list does, in any axis order", "[suite][interleave][cli]") {
  FakeSuite s;
  // B has one value after --axis: it may be left out; the axes may come in any order.
  const Run r = run_main(s.registry, {"--list", "--axis", "B=[x]", "--interleave", "k/A=3", "k/B=x/A=1"});
  CHECK(r.code == 0);
  CHECK(r.out == "k/A=3/B=x\nk/A=1/B=x\n");
  // With --device all the device is part of the point's name.
  const Run d = run_main(s.registry, {"--list", "--device", "all", "--interleave", "k/A=1/B=x/device=0", "k/A=1/B=x/device=1"});
  CHECK(d.code == 0);
  CHECK(d.out == "k/A=1/B=x/device=0\nk/A=1/B=x/device=1\n");
  CHECK(s.ran.empty());
}

TEST_CASE("suite: --interleave with a point that is not exactly one exits 2 naming the text and what exists",
          "[suite][interleave][cli]") {
  FakeSuite s;
  auto check_usage = [&](std::vector<std::string> args, const std::string& line) {
    const Run r = run_main(s.registry, std::move(args));
    CHECK(r.code == 2);
    CHECK(r.err == "suite: error: " + line + " (see --help)\n");
    CHECK(r.out.empty());
  };
  check_usage({"--interleave", "k/A=1/B=x", "k/B=x/A=1"},
              "--interleave: A and B are the same point 'k/A=1/B=x': name two different points");
  check_usage({"--interleave", "k/A=1", "k/A=3/B=x"},
              "--interleave 'k/A=1': matches 2 points (k/A=1/B=x, k/A=1/B=y): name a value of B too");
  check_usage({"--interleave", "k", "k/A=3/B=x"},
              "--interleave 'k': matches 6 points (k/A=1/B=x, k/A=1/B=y, k/A=2/B=x, k/A=2/B=y, k/A=3/B=x, k/A=3/B=y): "
              "name a value of A, B too");
  check_usage({"--interleave", "k/A=5/B=x", "k/A=1/B=x"},
              "--interleave 'k/A=5/B=x': axis 'A' of benchmark 'k' has no value '5' (its values: 1, 2, 3)");
  check_usage({"--interleave", "k/A=1/B=x", "k/A=2/B=z"},
              "--interleave 'k/A=2/B=z': axis 'B' of benchmark 'k' has no value 'z' with the values before it (its values: x, y)");
  check_usage({"--interleave", "q/A=1", "k/A=1/B=x"}, "--interleave 'q/A=1': no benchmark 'q' among the points (benchmarks: k)");
  check_usage({"--interleave", "k/C=1", "k/A=1/B=x"}, "--interleave 'k/C=1': benchmark 'k' has no axis 'C' (its axes: A, B)");
  check_usage({"--interleave", "k/A", "k/A=1/B=x"},
              "--interleave 'k/A': 'A' is not AXIS=VALUE: expected NAME/AXIS=VALUE/... as --list prints it");
  check_usage({"--interleave", "k/A=1/A=2", "k/A=1/B=x"}, "--interleave 'k/A=1/A=2': axis 'A' is named twice");
  // --filter selects the points --interleave names from.
  check_usage({"--filter", "B=y", "--interleave", "k/A=1/B=x", "k/A=1/B=y"},
              "--interleave 'k/A=1/B=x': axis 'B' of benchmark 'k' has no value 'x' with the values before it (its values: y)");
  check_usage({"--threshold", "2%"}, "--threshold '2%' applies to --interleave only (the paired verdict)");
  check_usage({"--interleave", "k/A=1/B=x", "k/A=2/B=x", "--threshold", "1.5"},
              "--threshold '1.5' is not in (0, 1) (e.g. 0.02 or 2%)");
  check_usage({"--interleave", "k/A=1/B=x", "k/A=2/B=x", "--repetitions", "2"},
              "--interleave measures A and B in alternating rounds of one run: --repetitions does not apply");
  check_usage({"--interleave", "k/A=1/B=x", "k/A=2/B=x", "--max-time", "0"},
              "--max-time 0: the interleaved rounds need a time > 0 (both points together)");
  const Run one = run_main(s.registry, {"--interleave", "k/A=1/B=x"});  // CLI11: two texts expected
  CHECK(one.code == 2);
  CHECK(lines(one.err).size() == 1);
  CHECK(one.err.rfind("suite: error: ", 0) == 0);
  CHECK(s.ran.empty());  // nothing ran
}

TEST_CASE("suite: --interleave of points that cannot share rounds exits 2 before measuring", "[suite][interleave][cli]") {
  // Different stream pools: gauge::interleave refuses them before anything is measured.
  FakeDevice dev;
  gauge::suite::Registry registry;
  for (std::size_t streams : {std::size_t{8}, std::size_t{2}})
    registry
        .add("s" + std::to_string(streams),
             [&](gauge::Point& p) { p.run_on(FakeBackend(&dev), [](FakeStream st) { st.kernel(5e-6); }); })
        .configure([streams](gauge::Config& c) {
          c = gauge::testing::fast_config();
          c.measure.streams = streams;
        });
  const Run r = run_main(registry, {"--interleave", "s8", "s2", "--quiet"});
  CHECK(r.code == 2);
  CHECK(r.err ==
        "gauge: error: --interleave s8 s2: interleave: A measures on a pool of 8 streams and B on 2: both must use the "
        "same pool (measure.streams), so that each round pair runs on one stream\n");
  CHECK(dev.markers_recorded == 0);  // nothing was timed
  CHECK(dev.kernels == 0);           // nor run
  CHECK(r.out.empty());
}

TEST_CASE("suite: --interleave with a point whose body fails or skips exits 1 naming it, nothing interleaved",
          "[suite][interleave][run]") {
  FakeSuite s;
  s.hook = [](gauge::Point& p) {
    if (p.get_int64("A") == 3) throw std::runtime_error("no memory for A=3");
    if (p.get_int64("A") == 2) p.skip("A=2 does not fit");
  };
  const fs::path dir = fresh_dir("interleave-fail");
  const std::string out = (dir / "r.json").string();
  const Run r = run_main(s.registry, {"--interleave", "k/A=1/B=x", "k/A=3/B=x", "--out", out});
  CHECK(r.code == 1);
  CHECK(s.ran == std::vector<std::string>{"1x", "3x"});
  CHECK(gauge::testing::contains(r.err, "gauge: --interleave: B (k/A=3/B=x) failed: the benchmark threw: no memory for A=3\n"));
  const auto report = gauge::read_report(out);
  REQUIRE(report.results.size() == 1);
  CHECK(report.results[0].status == gauge::Status::failed);
  CHECK(std::get<std::int64_t>(report.results[0].dimensions.at("A")) == 3);
  CHECK(report.interleaved.empty());
  // No interleaved run was recorded: the point is listed with side "-" (the report does not say
  // which side it was; standard error did, above).
  const auto rows = lines(r.out);
  REQUIRE(rows.size() >= 3);
  CHECK(rows[0] == "no interleaved A/B run in this report; its points:");
  CHECK(rows[2].rfind("-     k/A=3/B=x  failed", 0) == 0);
  CHECK(r.out == gauge::formats::find_export_format("interleaved").write(report, {}));
  // A skipped by its benchmark: B never runs.
  FakeSuite t;
  t.hook = s.hook;
  const Run k = run_main(t.registry, {"--interleave", "k/A=2/B=x", "k/A=1/B=x", "--quiet", "--format", "json"});
  CHECK(k.code == 1);
  CHECK(t.ran == std::vector<std::string>{"2x"});
  CHECK(gauge::testing::contains(k.err, "gauge: --interleave: A (k/A=2/B=x) was skipped by its benchmark: A=2 does not fit\n"));
  const auto doc = nlohmann::json::parse(k.out);
  CHECK(doc["experiments"].empty());
  REQUIRE(doc["skipped"].size() == 1);
  CHECK(doc["skipped"][0]["reason"] == "A=2 does not fit");
  CHECK(doc["interleaved"].empty());
}

TEST_CASE("suite: --interleave stopped by SIGTERM records both points failed, interrupted, as a plain run does",
          "[suite][interleave][signals]") {
  // B's body asks for the stop (SIGTERM) before its run(): the warm-ups end, one ABBA block is
  // measured, and the rounds stop. Both results keep their samples but are failed with stopping
  // reason "interrupted" (they were "ok", stopped "interleaved": numbers that looked finished).
  FakeSuite s;
  s.hook = [](gauge::Point& p) {
    if (p.get_int64("A") == 3) std::raise(SIGTERM);
  };
  const fs::path dir = fresh_dir("interleave-sigterm");
  const std::string out = (dir / "r.json").string();
  const Run r = run_main(s.registry, {"--interleave", "k/A=1/B=x", "k/A=3/B=x", "--out", out});
  INFO(r.err);
  CHECK(r.code == 128 + SIGTERM);
  const auto report = gauge::read_report(out);
  REQUIRE(report.results.size() == 2);
  for (const auto& result : report.results) {
    CHECK(result.status == gauge::Status::failed);
    CHECK(result.stopping.reason == "interrupted");
    CHECK(result.error == std::optional<std::string>("interrupted: a stop was requested (SIGTERM) before the stopping rule "
                                                     "was met; the samples measured until then are kept"));
    CHECK(result.gpu_samples_s.size() >= 2);  // one whole ABBA block: two rounds of each side, kept
  }
  REQUIRE(report.interleaved.size() == 1);
  const auto& x = report.interleaved[0];
  CHECK(x.stopping_reason == "interrupted");
  CHECK(x.verdict == gauge::stats::PairedVerdict::inconclusive);
  CHECK(x.reason == "interrupted: a stop was requested after " + std::to_string(x.pair_ratios.size()) +
                        " round pairs, before the stopping rule was met");
  CHECK(gauge::testing::contains(r.err, "gauge: interrupted by SIGTERM: the interleaved rounds stopped early\n"));
  CHECK(gauge::testing::contains(r.err, "gauge: interleaved 2 points (0 ok, 2 failed, 0 skipped)"));
  CHECK(!gauge::stop_requested());  // cleared: the next run goes to its end
}

TEST_CASE("suite: a report that cannot be written names the real reason, and is never named as written",
          "[suite][cli][hardening]") {
  // /proc/version exists but no file can be created in /proc (the report is written to a new
  // file beside it, then renamed): the message said "No such file or directory".
  struct statfs proc {};
  if (::statfs("/proc", &proc) == 0 && proc.f_type == 0x9fa0) {
    FakeSuite s;
    const Run r = run_main(s.registry, {"--out", "/proc/version", "--quiet"});
    CHECK(r.code == 2);
    CHECK(gauge::testing::contains(r.err, "suite: error: cannot write report to /proc/version: cannot create a file in /proc "
                                          "(the report is written to a new file there, then renamed into place): "));
    CHECK(gauge::testing::contains(r.err, " (/proc is on a proc file system, the kernel's own view of itself: no file can "
                                          "be created there)\n"));
    CHECK(s.ran.empty());  // refused before anything ran
  }
  // A write that fails during the run (the folder removed, then SIGTERM): the run ends with the
  // reason and exit 74 semantics, and no line says "report: <path>" as if it had been written.
  FakeSuite v;
  const fs::path dir = fresh_dir("vanish-stop");
  const std::string out = (dir / "r.json").string();
  v.hook = [&](gauge::Point& p) {
    fs::remove_all(dir);
    if (p.get_int64("A") == 2) std::raise(SIGTERM);
  };
  const Run gone = run_main(v.registry, {"--out", out});
  CHECK(gone.code == 74);
  CHECK(gauge::testing::contains(gone.err, "gauge: error: the report was not written: cannot write report to " + out));
  CHECK(gauge::testing::contains(gone.err, "gauge: interrupted by SIGTERM: 3 point runs measured, 3 not run\n"));
  CHECK(!gauge::testing::contains(gone.err, "report: " + out));
  CHECK(!gauge::testing::contains(gone.err, "the report holds what was measured"));
  // The same for --interleave.
  FakeSuite w;
  const fs::path idir = fresh_dir("vanish-interleave");
  const std::string iout = (idir / "r.json").string();
  w.hook = [&](gauge::Point&) { fs::remove_all(idir); };
  const Run il = run_main(w.registry, {"--interleave", "k/A=1/B=x", "k/A=2/B=x", "--out", iout});
  CHECK(il.code == 74);
  CHECK(gauge::testing::contains(il.err, "gauge: error: the report was not written: cannot write report to " + iout));
  CHECK(gauge::testing::contains(il.err, "gauge: interleaved 2 points (2 ok, 0 failed, 0 skipped) in "));
  CHECK(!gauge::testing::contains(il.err, "report: " + iout));
}

TEST_CASE("suite: --list --format json prints the points as JSON, other formats with --list exit 2 naming them",
          "[suite][cli]") {
  FakeSuite s;
  const Run r = run_main(s.registry, {"--list", "--format", "json", "--axis", "A=[1,3]"});
  CHECK(r.code == 0);
  // By hand: A (slowest) x B, labels as the text list prints them, values typed as in the report.
  CHECK(nlohmann::json::parse(r.out) == nlohmann::json::parse(R"([
    {"label": "k/A=1/B=x", "benchmark": "k", "axes": {"A": 1, "B": "x"}, "device": null},
    {"label": "k/A=1/B=y", "benchmark": "k", "axes": {"A": 1, "B": "y"}, "device": null},
    {"label": "k/A=3/B=x", "benchmark": "k", "axes": {"A": 3, "B": "x"}, "device": null},
    {"label": "k/A=3/B=y", "benchmark": "k", "axes": {"A": 3, "B": "y"}, "device": null}])"));
  // The axes keep their declared order (A before B), as the labels do.
  CHECK(r.out.find("\"A\": 1") < r.out.find("\"B\": \"x\""));
  // The text list is the same points.
  CHECK(run_main(s.registry, {"--list", "--axis", "A=[1,3]"}).out == "k/A=1/B=x\nk/A=1/B=y\nk/A=3/B=x\nk/A=3/B=y\n");
  // A real axis, a device of --device all, and --interleave's two points.
  gauge::suite::Registry g;
  g.add("f", [](gauge::Point& p) { p.skip("listed only"); }).float64_axis("F", {0.5});
  const Run d = run_main(g, {"--list", "--format", "json", "--device", "all"});
  CHECK(nlohmann::json::parse(d.out) == nlohmann::json::parse(R"([
    {"label": "f/F=0.5/device=0", "benchmark": "f", "axes": {"F": 0.5}, "device": 0},
    {"label": "f/F=0.5/device=1", "benchmark": "f", "axes": {"F": 0.5}, "device": 1}])"));
  const Run il = run_main(s.registry, {"--list", "--format", "json", "--interleave", "k/A=3/B=y", "k/A=1/B=x"});
  CHECK(il.code == 0);
  CHECK(nlohmann::json::parse(il.out) == nlohmann::json::parse(R"([
    {"label": "k/A=3/B=y", "benchmark": "k", "axes": {"A": 3, "B": "y"}, "device": null},
    {"label": "k/A=1/B=x", "benchmark": "k", "axes": {"A": 1, "B": "x"}, "device": null}])"));
  // A results format has nothing to hold for --list: refused, naming both.
  for (const char* format : {"csv", "markdown", "gbench"}) {
    const Run bad = run_main(s.registry, {"--list", "--format", format});
    CHECK(bad.code == 2);
    CHECK(bad.out.empty());
    CHECK(bad.err == std::string("suite: error: --list prints the points as text, or as JSON with --format json: --format ") +
                         format + " writes results, and --list runs nothing (see --help)\n");
  }
  CHECK(s.ran.empty());
}

}  // namespace gauge_test_suite
