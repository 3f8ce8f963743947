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
#include <utility>
#include <vector>

#include "catch.hpp"
#include "test_helpers.hpp"
#include "fake_backend.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/detail/sorted_runs.hpp"
#include "gauge/env/tools.hpp"
#include "gauge/experiment.hpp"
#include "gauge/report/json.hpp"
#include "gauge/report/read.hpp"
#include "gauge/report/timer_json.hpp"

// This file's own namespace: the unity build compiles several test files as one.
namespace gauge_test_hardening {

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

/// The message of the ReportError that `f` throws; fails the test if it throws none (any other
/// exception propagates and fails it too).
template <class F>
std::string report_error_of(F&& f) {
  const std::string message = gauge::testing::error_of<gauge::ReportError>(std::forward<F>(f));
  if (message.empty()) FAIL("no ReportError");
  return message;
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
  CHECK(report_error_of([&] { gauge::detail::report_from_json(top, "m"); }).find("m: JSON nested deeper than 256") == 0);
}

TEST_CASE("hardening: a summary whose interval or order statistics are impossible is refused", "[hardening][read]") {
  // The review's baseline: median 2.0 with the interval [4.0, 0.67] (low > high, not holding the
  // median). Every case below is impossible for a distribution: the reader refuses it, naming the key.
  const nlohmann::json good = nlohmann::json::parse(read_text(reports_dir / "base.json"));
  const double p50 = good["experiments"][0]["gpu_time_s"]["p50"].get<double>();
  auto with = [&](auto&& edit) {
    nlohmann::json doc = good;
    edit(doc["experiments"][0]["gpu_time_s"]);
    return report_error_of([&] { gauge::parse_report(doc.dump(), "edited.json"); });
  };
  std::string what = with([&](nlohmann::json& s) {
    s["median_ci"]["low"] = 2 * p50;
    s["median_ci"]["high"] = 0.335 * p50;
  });
  CHECK(what.find("edited.json: experiments[0].gpu_time_s.median_ci: low") != std::string::npos);
  CHECK(what.find("> high") != std::string::npos);
  what = with([&](nlohmann::json& s) {
    s["median_ci"]["low"] = 1.1 * p50;
    s["median_ci"]["high"] = 1.2 * p50;
  });
  CHECK(what.find("does not contain the median p50") != std::string::npos);
  what = with([&](nlohmann::json& s) { s["p90"] = 0.5 * p50; });
  CHECK(what.find("experiments[0].gpu_time_s: p90") != std::string::npos);
  CHECK(what.find("is below p75") != std::string::npos);
  what = with([&](nlohmann::json& s) { s["mean"] = 10 * s["max"].get<double>(); });
  CHECK(what.find("mean") != std::string::npos);
  // The unedited report and every stored report of the test data still read.
  CHECK_NOTHROW(gauge::parse_report(good.dump(), "good.json"));
  std::size_t read = 0;
  for (const auto& e : fs::directory_iterator(reports_dir)) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() != ".json" || name.find("wrong") != std::string::npos || name.find("bad") != std::string::npos ||
        name.find("invalid") != std::string::npos || name.find("future") != std::string::npos)
      continue;
    INFO(name);
    try {
      gauge::read_report(e.path());
      ++read;
    } catch (const gauge::ReportError& x) {
      // only errors the reader gave before this check are acceptable here
      CHECK(std::string(x.what()).find("order statistics") == std::string::npos);
      CHECK(std::string(x.what()).find("median_ci") == std::string::npos);
    }
  }
  CHECK(read >= 5);
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

// ---- the atomic writer ----------------------------------------------------------------------

TEST_CASE("hardening: report names of 233 to 255 bytes are written (the temporary name stays short)", "[hardening][write]") {
  const fs::path dir = fresh_dir("names");
  for (std::size_t length : {200u, 233u, 240u, 255u}) {
    const std::string name = std::string(length - 5, 'r') + ".json";
    REQUIRE(name.size() == length);
    gauge::detail::check_writable(dir / name);
    gauge::detail::write_file_atomic(dir / name, "{\"n\": " + std::to_string(length) + "}\n");
    CHECK(read_text(dir / name) == "{\"n\": " + std::to_string(length) + "}\n");
  }
  // A named temporary file is at most 32 bytes whatever the report's name.
  CHECK(gauge::detail::temporary_sibling(dir / std::string(255, 'x')).filename().string().size() <= 32);
  // Nothing else is left in the directory.
  CHECK(names_in(dir).size() == 4);
  // 256 bytes is over NAME_MAX: the system's error, naming the path.
  const std::string too_long = std::string(256, 'r');
  const std::string what = report_error_of([&] { gauge::detail::write_file_atomic(dir / too_long, "x"); });
  CHECK(what.find("File name too long") != std::string::npos);
  CHECK(names_in(dir).size() == 4);
  fs::remove_all(dir);
}

TEST_CASE("hardening: a symbolic link at the report's path is followed: the target is written, the link kept", "[hardening][write]") {
  const fs::path dir = fresh_dir("links");
  fs::create_directories(dir / "results");
  std::ofstream(dir / "results" / "old.json") << "old";
  fs::create_symlink("results/old.json", dir / "latest.json");       // relative to the link's directory
  fs::create_symlink(dir / "latest.json", dir / "chain.json");         // a link to a link
  fs::create_symlink("results/new.json", dir / "dangling.json");      // its target does not exist yet
  gauge::detail::check_writable(dir / "chain.json");
  gauge::detail::write_file_atomic(dir / "chain.json", "one");
  CHECK(fs::is_symlink(dir / "chain.json"));
  CHECK(fs::is_symlink(dir / "latest.json"));
  CHECK(read_text(dir / "results" / "old.json") == "one");
  gauge::detail::write_file_atomic(dir / "dangling.json", "two");
  CHECK(fs::is_symlink(dir / "dangling.json"));
  CHECK(read_text(dir / "results" / "new.json") == "two");
  CHECK(names_in(dir / "results") == std::vector<std::string>{"new.json", "old.json"});
  // A loop of links is an error, not a hang.
  fs::create_symlink("loop-b", dir / "loop-a");
  fs::create_symlink("loop-a", dir / "loop-b");
  CHECK(report_error_of([&] { gauge::detail::write_file_atomic(dir / "loop-a", "x"); }).find("too many levels of symbolic links") !=
        std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("hardening: a link planted in a sticky world-writable directory is not followed", "[hardening][write]") {
  // The review's case: /tmp/x.json -> a file of the user running gauge, planted by another user.
  // The kernel (fs.protected_symlinks) refuses to follow such a link for anyone but its owner and
  // the directory's owner; gauge's writer follows links itself, so it must refuse it too.
  const fs::path dir = fresh_dir("sticky");
  fs::permissions(dir, fs::perms::all | fs::perms::sticky_bit);  // 1777, as /tmp
  const fs::path victim = fresh_dir("sticky-victim") / "precious.txt";
  std::ofstream(victim) << "precious";
  const fs::path link = dir / "x.json";
  fs::create_symlink(victim, link);
  const uid_t other = ::geteuid() == 0 ? 12345 : ::geteuid();
  if (::geteuid() != 0 || ::lchown(link.c_str(), other, other) != 0) {
    WARN("skipped: giving the link to another user needs root (lchown)");
  } else {
    std::string why;
    CHECK_FALSE(gauge::detail::link_may_be_followed(link, &why));
    const std::string what = report_error_of([&] { gauge::detail::write_file_atomic(link, "{}"); });
    CHECK(what.find("sticky world-writable") != std::string::npos);
    CHECK(what.find("uid 12345") != std::string::npos);
    CHECK(report_error_of([&] { gauge::detail::check_writable(link); }).find("fs.protected_symlinks") != std::string::npos);
    CHECK(read_text(victim) == "precious");  // untouched
    CHECK(fs::is_symlink(link));
    // The link's owner may follow it, and so may the directory's owner: a link of this user is written through.
    REQUIRE(::lchown(link.c_str(), ::geteuid(), ::getegid()) == 0);
    CHECK(gauge::detail::link_may_be_followed(link));
    gauge::detail::write_file_atomic(link, "mine");
    CHECK(read_text(victim) == "mine");
  }
  fs::remove_all(dir);
  fs::remove_all(victim.parent_path());
}

TEST_CASE("hardening: a report written over a file keeps the file's mode", "[hardening][write]") {
  const fs::path dir = fresh_dir("mode");
  const fs::path path = dir / "r.json";
  std::ofstream(path) << "old";
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);  // 0640
  gauge::detail::write_file_atomic(path, "new");
  CHECK(read_text(path) == "new");
  CHECK((fs::status(path).permissions() & fs::perms::mask) ==
        (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));
  // A new file gets the usual 0644 less the umask.
  const mode_t mask = ::umask(022);
  ::umask(mask);
  gauge::detail::write_file_atomic(dir / "fresh.json", "x");
  CHECK(static_cast<unsigned>(fs::status(dir / "fresh.json").permissions() & fs::perms::mask) == (0644u & ~mask));
  fs::remove_all(dir);
}

TEST_CASE("hardening: a JSON Lines sink's descriptor is close-on-exec", "[hardening][timer]") {
  const fs::path dir = fresh_dir("jsonl");
  const fs::path path = dir / "train.jsonl";
  gauge::JsonLinesSink sink(path);
  // Found through /proc/self/fd (the file system's own view), not through the sink.
  int found = -1;
  for (const auto& e : fs::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    if (fs::read_symlink(e.path(), ec) == path) found = std::stoi(e.path().filename().string());
  }
  REQUIRE(found >= 0);
  CHECK((::fcntl(found, F_GETFD) & FD_CLOEXEC) != 0);
  fs::remove_all(dir);
}

TEST_CASE("hardening: kill -9 while a report is written leaves no temporary file", "[hardening][write]") {
  const fs::path dir = fresh_dir("kill");
  const std::string big(128u << 20, 'x');  // 128 MiB: the child is still writing when it is killed
  for (int attempt = 0; attempt < 3; ++attempt) {
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      try {
        gauge::detail::write_file_atomic(dir / "r.json", big);
      } catch (...) {
      }
      ::_exit(0);
    }
    ::usleep(20000);
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
  }
  // Whether a kill came before or after the rename, at most the complete report is there.
  const auto names = names_in(dir);
  INFO(names.size() << " entries");
  CHECK((names.empty() || names == std::vector<std::string>{"r.json"}));
  if (!names.empty()) CHECK(fs::file_size(dir / "r.json") == big.size());
  fs::remove_all(dir);
}

TEST_CASE("hardening: named temporary files of dead processes are removed, others are kept", "[hardening][write]") {
  const fs::path dir = fresh_dir("stale");
  const pid_t dead = ::fork();
  REQUIRE(dead >= 0);
  if (dead == 0) ::_exit(0);
  ::waitpid(dead, nullptr, 0);  // reaped: kill(dead, 0) now says ESRCH
  const std::string prefix = gauge::detail::temporary_prefix;
  const std::string old_dead = prefix + std::to_string(dead) + "-0000abcd";
  const std::string new_dead = prefix + std::to_string(dead) + "-0000abce";
  const std::string old_alive = prefix + std::to_string(::getpid()) + "-0000abcf";
  const std::string not_ours = "report.json.tmp-1-2";
  for (const auto& n : {old_dead, new_dead, old_alive, not_ours}) std::ofstream(dir / n) << "partial";
  const auto two_minutes_ago = fs::file_time_type::clock::now() - std::chrono::minutes(2);
  for (const auto& n : {old_dead, old_alive, not_ours}) fs::last_write_time(dir / n, two_minutes_ago);
  gauge::detail::remove_stale_temporaries(dir, 60);
  std::vector<std::string> expected = {new_dead, old_alive, not_ours};
  std::sort(expected.begin(), expected.end());
  CHECK(names_in(dir) == expected);
  fs::remove_all(dir);
}

// ---- running tools --------------------------------------------------------------------------

TEST_CASE("hardening: an empty or relative PATH entry never runs a tool from the current directory", "[hardening][tools]") {
  const fs::path dir = fresh_dir("path");
  {
    std::ofstream script(dir / "nvidia-smi");
    script << "#!/bin/sh\necho planted\n";
  }
  fs::permissions(dir / "nvidia-smi", fs::perms::owner_all);
  fs::create_directories(dir / "bin");
  fs::copy_file(dir / "nvidia-smi", dir / "bin" / "nvidia-smi");
  const fs::path before = fs::current_path();
  fs::current_path(dir);
  for (const char* path : {"", ":", "::", ".", "bin", "./bin", ":/nonexistent"}) {
    INFO("search path \"" << path << "\"");
    const gauge::env::ToolRecord rec = gauge::detail::run_tool({"nvidia-smi"}, 2s, std::string(path));
    CHECK(!rec.output);
    CHECK(rec.error == std::optional<std::string>("nvidia-smi not found in PATH"));
  }
  // The same through $PATH.
  const char* saved = std::getenv("PATH");
  const std::string saved_path = saved ? saved : "";
  ::setenv("PATH", "", 1);
  const gauge::env::ToolRecord rec = gauge::detail::run_tool({"nvidia-smi"}, 2s);
  ::setenv("PATH", saved_path.c_str(), 1);
  fs::current_path(before);
  CHECK(!rec.output);
  // An absolute directory is searched as before.
  const gauge::env::ToolRecord found = gauge::detail::run_tool({"nvidia-smi"}, 2s, (dir / "bin").string());
  CHECK(found.output == std::optional<std::string>("planted"));
  fs::remove_all(dir);
}

TEST_CASE("hardening: the tool's pipe is close-on-exec: the tool inherits only its standard streams", "[hardening][tools]") {
  // The descriptors of this process that a child inherits (no FD_CLOEXEC), counted independently.
  std::set<int> inherited = {0, 1, 2};
  for (const auto& e : fs::directory_iterator("/proc/self/fd")) {
    const int fd = std::stoi(e.path().filename().string());
    const int flags = ::fcntl(fd, F_GETFD);
    if (flags >= 0 && !(flags & FD_CLOEXEC)) inherited.insert(fd);
  }
  // `ls` lists the shell's descriptors (`; true` keeps the shell from becoming `ls`).
  const gauge::env::ToolRecord rec =
      gauge::detail::run_tool({"/bin/sh", "-c", "ls /proc/$$/fd; true"}, 5s);
  REQUIRE(rec.output);
  std::set<int> seen;
  std::istringstream lines(*rec.output);
  for (std::string line; std::getline(lines, line);) seen.insert(std::stoi(line));
  for (int fd : seen) {
    INFO("descriptor " << fd << " in the tool");
    CHECK(inherited.count(fd) == 1);
  }
}

// ---- the stopping rule's order statistics ---------------------------------------------------

TEST_CASE("hardening: order statistics of sorted runs equal those of all samples sorted", "[hardening][statistics]") {
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int> quantized(0, 40);  // many ties, as a coarse clock gives
  std::normal_distribution<double> normal(1e-6, 1e-7);
  gauge::detail::SortedRuns runs;
  std::vector<double> sorted;  // all samples so far, sorted by the standard library (std::sort + std::inplace_merge)
  std::size_t hint_n = 0, hint_l = 0;
  for (int round = 0; round < 300; ++round) {
    std::vector<double> batch(1 + static_cast<std::size_t>(rng() % 700));
    for (auto& x : batch) x = round % 3 == 0 ? 1e-6 + 0.05e-6 * quantized(rng) : normal(rng);
    runs.add(batch);
    std::sort(batch.begin(), batch.end());
    const auto before = static_cast<std::ptrdiff_t>(sorted.size());
    sorted.insert(sorted.end(), batch.begin(), batch.end());
    std::inplace_merge(sorted.begin(), sorted.begin() + before, sorted.end());
    REQUIRE(runs.size() == sorted.size());
    CHECK(runs.runs() <= 1 + static_cast<std::size_t>(std::log2(static_cast<double>(sorted.size()))));
    for (std::size_t k : {std::size_t{0}, sorted.size() / 3, sorted.size() / 2, sorted.size() - 1})
      REQUIRE(runs.at(k) == sorted[k]);
    REQUIRE(runs.percentile(50) == gauge::stats::percentile_sorted(sorted, 50));
    const auto expected = gauge::stats::median_confidence_interval(sorted, 0.95);
    const auto got = runs.median_ci(0.95, hint_n, hint_l);
    REQUIRE(got.has_value() == expected.has_value());
    if (got) {
      REQUIRE(got->lower_rank == expected->lower_rank);
      REQUIRE(got->low == expected->low);
      REQUIRE(got->high == expected->high);
      REQUIRE(got->coverage == expected->coverage);
      hint_n = runs.size();
      hint_l = got->lower_rank;
    }
  }
  // Negative values and zeros order as doubles do.
  gauge::detail::SortedRuns signs;
  signs.add({3.0, -1.5, 0.0, -0.0, 2.0, -7.25});
  signs.add({-1.5, 1e-300, -1e300});
  const std::vector<double> expected = {-1e300, -7.25, -1.5, -1.5, 0.0, 0.0, 1e-300, 2.0, 3.0};
  for (std::size_t k = 0; k < expected.size(); ++k) CHECK(signs.at(k) == expected[k]);
  CHECK_THROWS_AS(signs.add({std::numeric_limits<double>::infinity()}), gauge::ConfigError);
}

TEST_CASE("hardening: the median CI's lower rank from a hint equals the binary search's", "[hardening][statistics]") {
  // Ranks without a hint are those of median_confidence_interval (test_statistics checks them
  // against SciPy); a hint from any earlier n must give the same rank.
  for (double level : {0.5, 0.95, 0.99}) {
    std::size_t hint_n = 0, hint_l = 0;
    for (std::size_t n = 2; n < 3000; n += 1 + n / 50) {
      const std::size_t expected = gauge::detail::median_ci_lower_rank(n, level);
      REQUIRE(gauge::detail::median_ci_lower_rank(n, level, hint_n, hint_l) == expected);
      if (expected > 0) hint_n = n, hint_l = expected;
    }
    for (std::size_t n : {100000u, 100512u, 1000000u, 10000000u, 10000512u}) {
      const std::size_t expected = gauge::detail::median_ci_lower_rank(n, level);
      INFO("n = " << n << ", level = " << level);
      REQUIRE(gauge::detail::median_ci_lower_rank(n, level, hint_n, hint_l) == expected);
      // A bad hint (from far more samples) still gives the right rank.
      REQUIRE(gauge::detail::median_ci_lower_rank(n, level, 50 * n, 20 * n) == expected);
      hint_n = n, hint_l = expected;
    }
  }
  // n = 10: the 95 % interval is [x(2), x(9)] (coverage 1 - 2 * 11 / 1024 = 0.978515625).
  CHECK(gauge::detail::median_ci_lower_rank(10, 0.95) == 2);
}

// ---- experiments ------------------------------------------------------------------------------

TEST_CASE("hardening: an unsigned dimension above INT64_MAX is refused, not written as -1", "[hardening][experiment]") {
  auto exp = gauge::make_experiment<gauge::HostBackend>("d", [](gauge::HostStream) {});
  try {
    exp.dimension("N", std::numeric_limits<std::uint64_t>::max());
    FAIL("no exception");
  } catch (const gauge::ConfigError& e) {
    const std::string what = e.what();
    CHECK(what.find("dimension 'N'") != std::string::npos);
    CHECK(what.find("18446744073709551615") != std::string::npos);
  }
  CHECK_THROWS_AS(exp.dimension("N", std::uint64_t{9223372036854775808u}), gauge::ConfigError);
  exp.dimension("N", std::uint64_t{9223372036854775807u});  // INT64_MAX fits
  CHECK(gauge::detail::dimension_json(gauge::detail::to_dimension_value(std::uint64_t{9223372036854775807u})).dump() ==
        "9223372036854775807");
}

TEST_CASE("hardening: steps_per_sample far beyond max_time is capped so that the run ends", "[hardening][protocol]") {
  for (std::size_t k : {std::size_t{100000000}, std::numeric_limits<std::size_t>::max()}) {
    INFO("steps_per_sample " << k);
    gauge::testing::FakeDevice dev;
    auto exp = gauge::make_experiment<gauge::testing::FakeBackend>(
        "huge_k", [](gauge::testing::FakeStream s) { s.kernel(10e-6); }, gauge::testing::FakeBackend(&dev));
    auto& c = exp.config();
    c.warmup.max_time = 20ms;
    c.measure.max_time = 100ms;
    c.measure.min_time = 0ms;
    c.measure.steps_per_sample = k;
    c.measure.max_steps_per_round = std::numeric_limits<std::size_t>::max();
    c.measure.max_samples = std::numeric_limits<std::size_t>::max();
    const auto t0 = std::chrono::steady_clock::now();
    const gauge::Result r = exp.run();
    CHECK(std::chrono::steady_clock::now() - t0 < 60s);
    REQUIRE(r.status == gauge::Status::ok);
    // 100 ms / 10 us = 10,000 steps per sample at most.
    CHECK(r.sampling.steps_per_sample == 10000);
    CHECK(r.sampling.steps_per_sample_reason.find("capped to 10000") != std::string::npos);
    CHECK(r.stopping.reason == "max_time");
    REQUIRE(r.gpu_time.p50);
    // 10 us per step, plus the sample's one-off costs (a launch of 2 us) spread over 10,000 steps.
    CHECK(*r.gpu_time.p50 == Approx(10e-6).epsilon(1e-4));
  }
}

TEST_CASE("hardening: a thrown const char* or std::string keeps its text in the failure", "[hardening][protocol]") {
  auto throws_text = gauge::make_experiment<gauge::HostBackend>("c", [](gauge::HostStream) { throw "out of tiles"; });
  const gauge::Result a = throws_text.run();
  CHECK(a.status == gauge::Status::failed);
  REQUIRE(a.error);
  CHECK(a.error->find("out of tiles") != std::string::npos);
  auto throws_string =
      gauge::make_experiment<gauge::HostBackend>("s", [](gauge::HostStream) { throw std::string("bad shape 7x3"); });
  const gauge::Result b = throws_string.run();
  CHECK(b.status == gauge::Status::failed);
  REQUIRE(b.error);
  CHECK(b.error->find("bad shape 7x3") != std::string::npos);
}

}  // namespace gauge_test_hardening
