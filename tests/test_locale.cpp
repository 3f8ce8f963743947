// Text output does not depend on the global locale: CSV, Markdown, Google Benchmark JSON, the
// console summary and compare's text and Markdown are byte-identical under the classic locale and
// under a locale whose decimal point is ',' and thousands separator '.' (a C++ numpunct facet
// installed with std::locale::global, and, where one is installed, a C locale such as
// de_DE.UTF-8 set with setlocale). Numbers are checked against values computed by hand.

#include <clocale>
#include <cstdlib>
#include <cstdint>
#include <filesystem>
#include <locale>
#include <string>
#include <vector>

#include "catch.hpp"
#include "test_helpers.hpp"
#include "gauge/report/compare.hpp"
#include "gauge/report/console.hpp"
#include "gauge/report/export.hpp"
#include "gauge/report/read.hpp"
#include "gauge/core/timer_summary.hpp"
#include "gauge/core/warmup.hpp"

// This file's own namespace: the unity build compiles several test files as one.
namespace gauge_test_locale {

using gauge::testing::contains;

namespace {

/// A numpunct facet as many European locales have it: 1.234.567,89.
struct CommaNumpunct : std::numpunct<char> {
 protected:
  char do_decimal_point() const override { return ','; }
  char do_thousands_sep() const override { return '.'; }
  std::string do_grouping() const override { return "\3"; }
};

/// Saves the global C++ locale and the C locale; restores both when it goes out of scope, also
/// when a REQUIRE fails inside it.
class LocaleGuard {
 public:
  LocaleGuard() : cpp_(std::locale()), c_(std::setlocale(LC_ALL, nullptr)) {}
  ~LocaleGuard() {
    std::locale::global(cpp_);          // a named locale also sets the C locale: restore C after
    std::setlocale(LC_ALL, c_.c_str());
  }
  LocaleGuard(const LocaleGuard&) = delete;
  LocaleGuard& operator=(const LocaleGuard&) = delete;

 private:
  std::locale cpp_;
  std::string c_;
};

/// Results built by hand. gemm: GPU samples 13, 13.44 and 14 us, so the median is 1.344e-05 s;
/// 1.5e9 FLOP per step, so 1.5e9 / 1.344e-05 = 1.116071428...e14 FLOP/s ("111.6 TFLOP/s");
/// a real-valued dimension 0.5. copy: 2^30 bytes per step and a median of 2^-10 s = 976.5625 us,
/// so 2^40 = 1099511627776 B/s ("1.1 TB/s").
std::vector<gauge::Result> hand_made_results() {
  gauge::Result gemm;
  gemm.name = "gemm";
  gemm.dimensions = {{"M", std::int64_t{8192}}, {"dtype", std::string("bf16")}, {"scale", 0.5}};
  gemm.backend = "cuda";
  gemm.device.name = "NVIDIA H200";
  gemm.work.flop = 1.5e9;
  gemm.sampling.steps_per_sample = 1;
  gemm.sampling.steps = 3;
  gemm.sampling.wall_rounds = 2;
  gemm.sampling.wall_steps = 20;
  gemm.gpu_samples_s = {1.4e-05, 1.3e-05, 1.344e-05};
  gemm.gpu_time = gauge::stats::summarize(gemm.gpu_samples_s);
  gemm.wall_samples_s = {2.0e-05, 2.5e-05};
  gemm.wall_time = gauge::stats::summarize(gemm.wall_samples_s);
  gemm.gpu_throughput.flop_per_second = 1.5e9 / 1.344e-05;
  gemm.wall_throughput.flop_per_second = 1.5e9 / 2.25e-05;

  gauge::Result copy;
  copy.name = "copy";
  copy.dimensions = {{"bytes", std::int64_t{1} << 30}};
  copy.backend = "cuda";
  copy.device.name = "NVIDIA H200";
  copy.work.bytes = 1073741824.0;
  copy.sampling.steps_per_sample = 4;
  copy.sampling.steps = 40;
  const double a = 0.0009765625;  // 2^-10 s; the sorted samples' 5th and 6th are a
  copy.gpu_samples_s = {a, a, 1.25 * a, 0.75 * a, a, a, 1.5 * a, a, 0.75 * a, 1.25 * a};
  copy.gpu_time = gauge::stats::summarize(copy.gpu_samples_s);
  copy.gpu_throughput.bytes_per_second = 1073741824.0 / a;
  return {gemm, copy};
}

/// A Timer's state built by hand: window step median 1.52 ms, forward 32.9 % of the step,
/// 2.69e6 tokens/s ("2.69 Mtokens/s"), MFU 41.2 %, 7000 markers for 6000 boundaries (1.17).
gauge::TimerSummary hand_made_timer() {
  gauge::TimerSummary t;
  t.name = "train";
  t.window.last_step = 1199;
  t.window.gpu_time_s = gauge::stats::summarize({1.5e-3, 1.52e-3, 1.6e-3});
  t.window.throughput.items_per_second["tokens"] = 2.69e6;
  t.window.throughput.mfu = 0.412;
  gauge::records::TimerRegionSummary forward;
  forward.name = "forward";
  forward.window.steps = 3;
  forward.window.time_per_step_s = gauge::stats::summarize({5e-4});
  forward.window.share_of_step = 0.329;
  forward.total.steps = 1000;
  forward.total.share_of_step = 0.329;
  t.regions.push_back(forward);
  t.total.steps = 1000;
  t.total.throughput.items_per_second["tokens"] = 2.69e6;
  t.total.throughput.mfu = 0.412;
  t.counters.steps = 1000;
  t.counters.region_boundaries = 5000;
  t.counters.markers_recorded = 7000;
  return t;
}

/// Warm-up rounds whose last 5 take 1.53 ms per step and the 5 before 1.5 ms: drift 0.03 / 1.53
/// = 1.96 %.
std::vector<gauge::records::WarmupRound> hand_made_warmup() {
  std::vector<gauge::records::WarmupRound> rounds(11);
  for (std::size_t i = 0; i < rounds.size(); ++i) rounds[i].time_per_step_s = i < 6 ? 1.5e-3 : 1.53e-3;
  return rounds;
}

/// Everything a person or a tool reads as text, rendered under the current global locale.
struct Rendered {
  std::string csv, markdown, gbench, summary, compare_text, compare_markdown, timer, warmup;
};

Rendered render() {
  const auto results = hand_made_results();
  gauge::Environment env;
  env.gauge_version = "0.1.0";
  Rendered out;
  out.csv = gauge::formats::csv_table(results);
  out.markdown = gauge::formats::markdown_table(results);
  out.gbench = gauge::formats::google_benchmark_json(env, results, {}, "2024-01-01T00:00:00Z").dump(2);
  out.summary = gauge::formats::summary_table(results);
  const auto dir = std::filesystem::path(GAUGE_TEST_DATA_DIR) / "reports";
  const gauge::Comparison c =
      gauge::compare_reports(gauge::read_report(dir / "base.json"), gauge::read_report(dir / "slower.json"));
  out.compare_text = gauge::compare::to_text(c);
  out.compare_markdown = gauge::compare::to_markdown(c);
  const gauge::TimerSummary timer = hand_made_timer();
  out.timer = gauge::detail::timer_console_line(timer) + "\n" + gauge::detail::timer_summary_text(timer);
  out.warmup = gauge::stats::steady_state(hand_made_warmup(), gauge::WarmupConfig{}).reason;
  return out;
}

void check_same(const Rendered& expected, const Rendered& got) {
  CHECK(got.csv == expected.csv);
  CHECK(got.markdown == expected.markdown);
  CHECK(got.gbench == expected.gbench);
  CHECK(got.summary == expected.summary);
  CHECK(got.compare_text == expected.compare_text);
  CHECK(got.compare_markdown == expected.compare_markdown);
  CHECK(got.timer == expected.timer);
  CHECK(got.warmup == expected.warmup);
}

}  // namespace

/// Where no comma locale is installed (a bare CI machine), de_DE.UTF-8 compiled by glibc's
/// localedef from its sources into a temporary folder, read through LOCPATH (which glibc reads at
/// each setlocale, and which this leaves set: the caller unsets it, LocpathGuard); null when that
/// cannot be done. Compiled once per process.
static const char* compiled_comma_locale() {
  static const bool made = [] {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / "gauge-test-locales";
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    const std::string command =
        "localedef -i de_DE -f UTF-8 '" + (dir / "de_DE.UTF-8").string() + "' >/dev/null 2>&1";
    if (!std::filesystem::exists(dir / "de_DE.UTF-8" / "LC_NUMERIC") && std::system(command.c_str()) != 0 &&
        !std::filesystem::exists(dir / "de_DE.UTF-8" / "LC_NUMERIC"))
      return false;
    return true;
  }();
  if (!made) return nullptr;
  const std::string dir = (std::filesystem::temp_directory_path() / "gauge-test-locales").string();
  ::setenv("LOCPATH", dir.c_str(), 1);
  const bool comma = std::setlocale(LC_ALL, "de_DE.UTF-8") && std::localeconv()->decimal_point == std::string(",");
  std::setlocale(LC_ALL, "C");
  return comma ? "de_DE.UTF-8" : nullptr;
}

/// Unsets LOCPATH when the test ends (with LOCPATH set, glibc looks for locales only there).
struct LocpathGuard {
  ~LocpathGuard() { ::unsetenv("LOCPATH"); }
};

TEST_CASE("locale: text output is the same under a comma decimal point", "[export][locale]") {
  LocaleGuard guard;
  std::locale::global(std::locale::classic());
  std::setlocale(LC_ALL, "C");
  const Rendered classic = render();

  // The hand-computed numbers, with '.' as the decimal point.
  CHECK(contains(classic.csv, ",1.344e-05,"));        // gemm time_median_s
  CHECK(contains(classic.csv, ",0.0009765625,"));     // copy time_median_s
  CHECK(contains(classic.csv, ",1099511627776,"));    // copy bytes_per_s, no grouping
  CHECK(contains(classic.csv, "gemm,8192,,bf16,0.5,"));  // dimensions M, bytes (none), dtype, scale
  CHECK(contains(classic.markdown, "| gemm/M=8192/dtype=bf16/scale=0.5 | ok | 13.44 us |"));
  CHECK(contains(classic.markdown, "| 111.6 TFLOP/s |"));
  CHECK(contains(classic.summary, "13.44 us"));
  CHECK(contains(classic.summary, "111.6 TFLOP/s"));
  CHECK(contains(classic.summary, "976.6 us"));
  CHECK(contains(classic.summary, "1.1 TB/s"));
  CHECK(contains(classic.timer, "| forward 500 us 32.9 % |"));
  CHECK(contains(classic.timer, "| 2.69 Mtokens/s | MFU 41.2 % |"));
  CHECK(contains(classic.timer, "| 1.17 timing markers per region boundary, 0 host syncs\n"));
  CHECK(contains(classic.warmup, "rounds 0.00153 s vs 0.0015 s in the 5 before: drift 1.96 % <= tolerance 2 %"));
  CHECK(contains(classic.gbench, "\"name\": \"gemm/M:8192/dtype:bf16/scale:0.5\""));

  SECTION("a numpunct facet with ',' and '.' as the global C++ locale") {
    std::locale::global(std::locale(std::locale::classic(), new CommaNumpunct));
    check_same(classic, render());
  }
  // A C locale with a comma decimal point, where one is installed (the section exists only then,
  // so a machine without one reports the case as not run instead of as passed).
  const char* names[] = {"de_DE.UTF-8", "de_DE.utf8", "de_DE", "fr_FR.UTF-8", "fr_FR.utf8", "nl_NL.UTF-8"};
  const char* found = nullptr;
  for (const char* name : names) {
    if (std::setlocale(LC_ALL, name) && std::localeconv()->decimal_point == std::string(",")) {
      found = name;
      break;
    }
  }
  std::setlocale(LC_ALL, "C");
  LocpathGuard locpath;
  if (!found) found = compiled_comma_locale();
  if (!found)
    WARN("no locale with a comma decimal point is installed (tried de_DE, fr_FR, nl_NL) and localedef could not make "
         "de_DE.UTF-8 (Debian's package 'locales' has its sources): C locale case not run");
  if (found) {
    SECTION("a C locale with a comma decimal point (setlocale)") {
      INFO("C locale " << found);
      std::setlocale(LC_ALL, found);
      check_same(classic, render());
      // Both at once: the named C++ locale (its numpunct) and the C locale.
      std::locale::global(std::locale(found));
      check_same(classic, render());
    }
  }
}

}  // namespace gauge_test_locale
