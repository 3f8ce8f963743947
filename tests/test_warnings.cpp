// The warning catalogue (gauge/core/warnings.hpp) is the one list of warning codes: every
// `warning_code::` constant in the headers is in it, and docs/method.md's table says the same.

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "catch.hpp"
#include "test_helpers.hpp"
#include "gauge/core/warnings.hpp"

#ifndef GAUGE_SOURCE_DIR
#error "GAUGE_SOURCE_DIR must be defined (tests/CMakeLists.txt)"
#endif

// This file's own namespace: the unity build compiles several test files as one.
namespace gauge_test_warnings {

namespace {

std::string read_file(const std::string& path) {
  const std::string text = gauge::testing::read_text(path);
  REQUIRE_FALSE(text.empty());
  return text;
}

}  // namespace

TEST_CASE("every warning_code constant in the headers is in the catalogue, once", "[warnings]") {
  std::set<std::string> catalogue;
  for (const auto& w : gauge::warning_catalogue) {
    INFO(w.code);
    CHECK(catalogue.insert(w.code).second);  // no duplicates
    CHECK(std::string(w.meaning).size() > 10);
    CHECK(std::string(w.threshold).size() > 5);
  }
  // The constants, read from the headers' text (a second source: the declarations themselves).
  std::set<std::string> declared;
  const std::regex decl(R"re(inline constexpr const char\* (\w+) = "(\w+)";)re");
  // Every header is read: a `warning_code` block anywhere but core/warnings.hpp fails the test.
  std::set<std::string> files_with_codes;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(std::string(GAUGE_SOURCE_DIR) + "/include")) {
    if (entry.path().extension() != ".hpp") continue;
    const std::string text = read_file(entry.path().string());
    const auto ns = text.find("namespace warning_code {");
    if (ns == std::string::npos) continue;
    files_with_codes.insert(entry.path().filename().string());
    const std::string block = text.substr(ns, text.find("}  // namespace warning_code", ns) - ns);
    for (std::sregex_iterator it(block.begin(), block.end(), decl), end; it != end; ++it) {
      CHECK((*it)[1] == (*it)[2]);  // the constant's name is its code
      declared.insert((*it)[2]);
    }
  }
  CHECK(files_with_codes == std::set<std::string>{"warnings.hpp"});
  CHECK(declared.size() == 43);  // counted by hand: 36 of Experiment and environment (threads_not_parallel the last added), 1 of the comparison, 6 of the Timer (timer_many_regions the last added)
  CHECK(declared == catalogue);
  CHECK(std::string(gauge::warning_code::timer_forced_wait) == "timer_forced_wait");
}

TEST_CASE("make_warning takes the severity from the catalogue", "[warnings]") {
  const gauge::Warning forced = gauge::make_warning(gauge::warning_code::timer_forced_wait, "waited");
  CHECK(forced.code == "timer_forced_wait");
  CHECK(forced.severity == gauge::Severity::warning);  // README: timer_forced_wait | warning
  CHECK(forced.message == "waited");
  CHECK(gauge::make_warning(gauge::warning_code::timer_resolution_failed, "x").severity == gauge::Severity::error);
  CHECK(gauge::make_warning(gauge::warning_code::timer_unfinished, "x").severity == gauge::Severity::info);
  CHECK(gauge::make_warning(gauge::warning_code::work_not_on_stream, "x").severity == gauge::Severity::error);
  REQUIRE(gauge::detail::find_warning_info("outliers") != nullptr);
  CHECK(gauge::detail::find_warning_info("outliers")->severity == gauge::Severity::info);
  CHECK(gauge::detail::find_warning_info("no_such_code") == nullptr);
  CHECK(gauge::make_warning("no_such_code", "x").severity == gauge::Severity::warning);
}

TEST_CASE("docs/method.md's table of warnings equals the catalogue", "[warnings]") {
  const std::string readme = read_file(std::string(GAUGE_SOURCE_DIR) + "/docs/method.md");
  const auto start = readme.find("### Warnings");
  REQUIRE(start != std::string::npos);
  const std::regex row(R"re(\| `(\w+)` \| (\w+) \| ([^|]*) \| ([^|]*) \|)re");
  std::size_t i = 0;
  const std::string section = readme.substr(start, readme.find("\n\n", readme.find("| code |", start)) - start);
  for (std::sregex_iterator it(section.begin(), section.end(), row), end; it != end; ++it, ++i) {
    REQUIRE(i < std::size(gauge::warning_catalogue));
    const auto& w = gauge::warning_catalogue[i];
    INFO("docs/method.md row " << i + 1 << ": " << (*it)[0]);
    CHECK((*it)[1] == w.code);
    CHECK((*it)[2] == gauge::to_string(w.severity));
    CHECK((*it)[3] == w.meaning);
    CHECK((*it)[4] == w.threshold);
  }
  CHECK(i == std::size(gauge::warning_catalogue));
}

}  // namespace gauge_test_warnings
