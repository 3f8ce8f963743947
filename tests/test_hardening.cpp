// Hardening (issue 11, from an adversarial review): each failing input of the review is a test
// here, asserting the error or behaviour, with the expected values computed by hand or by an
// independent route (a full sort, a count made by construction, the file system itself).

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "gauge/report/read.hpp"

using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

const fs::path reports_dir = fs::path(GAUGE_TEST_DATA_DIR) / "reports";

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The message of the ReportError that `f` throws; fails the test if it throws anything else.
template <class F>
std::string report_error_of(F&& f) {
  try {
    f();
  } catch (const gauge::ReportError& e) {
    return e.what();
  } catch (const std::exception& e) {
    FAIL("not a ReportError: " << e.what());
  }
  FAIL("no exception");
  return {};
}

/// A fresh empty directory under the system's temporary directory.
fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("gauge-hardening-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

/// The names in `dir`, sorted.
std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

/// `depth` nested arrays: "[[[...]]]".
std::string nested_arrays(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

}  // namespace

// ---- reading hostile JSON -------------------------------------------------------------------

TEST_CASE("hardening: JSON nested 100000 deep is refused with a ReportError, not a stack overflow", "[hardening][read]") {
  // The review's input: {"schema": [[[...]]]} with 100,000 brackets each way (200 KB).
  const std::string deep = "{\"schema\":" + nested_arrays(100000) + "}";
  REQUIRE(deep.size() == 10 + 200000 + 1);
  const std::string what = report_error_of([&] { gauge::parse_report(deep, "deep.json"); });
  CHECK(what.rfind("deep.json: JSON nested deeper than 256 levels", 0) == 0);
  // The first '[' is level 2 (inside the object): level 257 is at byte 10 + 255 = 265.
  CHECK(what.find("(byte 265)") != std::string::npos);

  // Under a key the schema allows (unknown keys are kept), a little past the limit.
  const std::string base = read_text(reports_dir / "base.json");
  REQUIRE(base.front() == '{');
  const std::string past = "{\"user_key\": " + nested_arrays(256) + "," + base.substr(1);
  CHECK(report_error_of([&] { gauge::parse_report(past, "p"); }).find("nested deeper than 256") != std::string::npos);
  // At the limit it reads: the object is level 1, so 255 arrays inside reach level 256.
  const std::string at_limit = "{\"user_key\": " + nested_arrays(255) + "," + base.substr(1);
  const gauge::StoredReport r = gauge::parse_report(at_limit, "a");
  CHECK(r.results.size() == gauge::parse_report(base, "b").results.size());
  // Brackets inside strings are text, not nesting.
  const std::string in_string = "{\"user_key\": \"" + std::string(1000, '[') + "\\\"[\"," + base.substr(1);
  CHECK_NOTHROW(gauge::parse_report(in_string, "s"));

  // A document built in memory (report_from_json) is checked the same way.
  nlohmann::json doc = nlohmann::json::array();
  for (int i = 0; i < 1000; ++i) doc = nlohmann::json::array({std::move(doc)});
  nlohmann::json top = {{"schema", std::move(doc)}};
  CHECK(report_error_of([&] { gauge::report_from_json(top, "m"); }).find("m: JSON nested deeper than 256") == 0);
}

TEST_CASE("hardening: a number beyond a double (1e309) is a ReportError", "[hardening][read]") {
  for (const char* text : {"[1e309]", "{\"schema\": \"gauge.report\", \"x\": -1e400}", "{\"a\": 1e999999}"}) {
    INFO(text);
    const std::string what = report_error_of([&] { gauge::parse_report(text, "n.json"); });
    CHECK(what.rfind("n.json: invalid JSON: number out of range of a double", 0) == 0);
    CHECK(what.find('\n') == std::string::npos);
  }
  // The largest double is a number like any other (here under an unknown key).
  const std::string base = read_text(reports_dir / "base.json");
  CHECK_NOTHROW(gauge::parse_report("{\"user_key\": 1.7976931348623157e308," + base.substr(1), "max"));
}

TEST_CASE("hardening: the deep and out-of-range inputs are refused by read_report from a file", "[hardening][read]") {
  const fs::path dir = fresh_dir("read");
  {
    std::ofstream(dir / "deep.json") << "{\"schema\":" << nested_arrays(100000) << "}";
    std::ofstream(dir / "big.json") << "[1e309]";
  }
  CHECK(report_error_of([&] { gauge::read_report(dir / "deep.json"); }).find("nested deeper than 256") != std::string::npos);
  CHECK(report_error_of([&] { gauge::read_report(dir / "big.json"); }).find("number out of range") != std::string::npos);
  fs::remove_all(dir);
}

