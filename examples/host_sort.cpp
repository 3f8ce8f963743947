// A CPU-only benchmark on gauge's host backend: sorting ints, written to a JSON report. It needs
// no GPU, so comparisons (gauge-compare, tools/gauge-ab, scripts/cpu-verdict.sh) can be tried on
// any machine.
//
//   host_sort [-o host-sort-report.json] [--slower F] [--min-time S] [--max-time S] [--help] [--version]
//
// One step copies each of 10 shuffled arrays of 8192 ints (fixed seeds) into a work buffer and
// sorts it with std::sort: 10 units of identical work, ~4 ms on a 2-core VM (so a 1 s run has a
// few hundred samples). --slower F (0.1, 10%, ... up to 1) sorts
// 10·F more such arrays per step, i.e. F more work: a regression of known size. The result's
// dimensions say it: slower = F (absent at the default 0; compare against a base with
// --ignore-dimension slower). Options take `--opt value` or `--opt=value` (CLI11). Exit status:
// 0 measured and verified; 1 an error or a failed experiment; 2 bad usage (one line on stderr).

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#define GAUGE_IMPLEMENTATION  // this file compiles gauge's implementation (once per program)
#include <gauge/gauge.hpp>

namespace {

constexpr std::size_t ints_per_array = 8192;  ///< 8K ints: 32 KiB (L1/L2), a sort of ~0.4 ms
constexpr int base_arrays = 10;                ///< arrays per step without --slower: its unit is 1/10

struct Options {
  std::string out = "host-sort-report.json";
  double slower = 0;  ///< --slower: added work as a fraction of the step's (a multiple of 0.1)
  double min_time_s = -1, max_time_s = -1;
};

/// "10%" -> 0.1, "0.1" -> 0.1: --slower's value, a multiple of 1/base_arrays in [0, 1]; the reason
/// in words when `text` is not one.
std::string parse_slower(const std::string& text, double& fraction) {
  const bool percent = !text.empty() && text.back() == '%';
  const std::string number = percent ? text.substr(0, text.size() - 1) : text;
  char* end = nullptr;
  const double v = std::strtod(number.c_str(), &end);
  if (number.empty() || !end || *end || !std::isfinite(v))
    return "'" + text + "' is not a fraction such as 0.1 or a percentage such as 10%";
  fraction = percent ? v / 100 : v;
  const double units = fraction * base_arrays;
  if (!(fraction >= 0 && fraction <= 1) || std::fabs(units - std::round(units)) > 1e-9)
    return "'" + text + "' is not one of 0, 0.1, 0.2, ..., 1 (a step sorts 10 arrays; each 0.1 adds one)";
  return "";
}

/// Parses the command line with CLI11: --help and --version print and exit 0; a usage error prints
/// one line naming the bad text (and a hint) to stderr and exits 2.
Options parse(int argc, char** argv) {
  Options o;
  CLI::App app("Sorts 10 arrays of 8192 ints per step (std::sort) on gauge's host backend and writes a JSON report.",
               "host_sort");
  app.set_version_flag("--version", std::string("gauge ") + gauge::version_string, "Print gauge's version and exit");
  app.option_defaults()->always_capture_default();
  app.get_formatter()->column_width(28);
  app.footer("Exit status: 0 measured and verified; 1 an error or a failed experiment;\n"
             "2 bad usage, with a one-line reason on stderr.");
  app.add_option("-o,--out", o.out, "The JSON report to write");
  std::string slower = "0";
  app.add_option("--slower", slower,
                 "A regression of known size: sort this fraction more arrays per step (0.1 or 10% is one more of 10)")
      ->type_name("F")
      ->check(CLI::Validator([](std::string& text) { double ignored = 0; return parse_slower(text, ignored); }, ""));
  auto seconds = [](const std::string& text) -> std::string {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || !end || *end || !(v >= 0) || v > 3600) return "'" + text + "' is not seconds in [0, 3600]";
    return "";
  };
  app.add_option("--min-time", o.min_time_s, "Least measuring time, seconds (default: gauge's, 40 ms)")
      ->type_name("S")->default_str("")->check(seconds);
  app.add_option("--max-time", o.max_time_s, "Most measuring time, seconds (default: 2 s)")
      ->type_name("S")->default_str("")->check(seconds);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    std::exit(app.exit(e));
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "host_sort: error: %s (see --help)\n", e.what());
    std::exit(2);
  }
  parse_slower(slower, o.slower);  // validated above
  return o;
}

/// The workload: `arrays` shuffled arrays (fixed seeds) and a work buffer sorted from each.
struct SortStep {
  std::vector<std::vector<std::int32_t>> sources;
  std::vector<std::int32_t> work;
  explicit SortStep(int arrays) : work(ints_per_array) {
    for (int a = 0; a < arrays; ++a) {
      std::vector<std::int32_t> v(ints_per_array);
      std::iota(v.begin(), v.end(), 0);
      std::shuffle(v.begin(), v.end(), std::mt19937(static_cast<std::uint32_t>(1000 + a)));
      sources.push_back(std::move(v));
    }
  }
  /// One step: copy and sort every array.
  void operator()(gauge::HostStream) {
    for (const auto& s : sources) {
      std::copy(s.begin(), s.end(), work.begin());
      std::sort(work.begin(), work.end());
    }
  }
  /// The last sort's output is 0, 1, ..., 8191.
  bool verify() const {
    for (std::size_t i = 0; i < work.size(); ++i)
      if (work[i] != static_cast<std::int32_t>(i)) return false;
    return true;
  }
};

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  try {
    gauge::Report report(o.out);  // checks the output path before anything is measured
    const int extra = static_cast<int>(std::lround(o.slower * base_arrays));
    SortStep step(base_arrays + extra);
    auto exp = gauge::make_experiment<gauge::HostBackend>("sort_int32", std::ref(step));
    exp.dimension("n", static_cast<std::int64_t>(ints_per_array)).dimension("arrays", base_arrays)
        .dimension("algorithm", "std::sort");
    if (extra > 0) exp.dimension("slower", o.slower);  // what --slower added (nothing at the default 0)
    exp.items("ints", double(base_arrays) * ints_per_array);  // the base work: --slower does more for the same
    exp.bytes(double(base_arrays) * ints_per_array * sizeof(std::int32_t));
    exp.verify([&] { return step.verify(); });
    exp.config().measure.max_time = std::chrono::seconds(2);
    auto ns = [](double s) { return std::chrono::nanoseconds(static_cast<long long>(s * 1e9)); };
    if (o.min_time_s >= 0) exp.config().measure.min_time = ns(o.min_time_s);
    if (o.max_time_s >= 0) exp.config().measure.max_time = ns(o.max_time_s);
    if (exp.config().measure.max_time < exp.config().measure.min_time)
      exp.config().measure.max_time = exp.config().measure.min_time;
    if (extra > 0)
      std::printf("slower: %d more array(s) of %zu ints per step (%g more work)\n", extra, ints_per_array, o.slower);
    report.add(exp.run());
    report.write();
    std::fputs(report.summary().c_str(), stdout);
    std::printf("report: %s\n", o.out.c_str());
    for (const auto& r : report.results())
      if (r.status != gauge::Status::ok) return 1;
    return 0;
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "host_sort: %s\n", ex.what());
    return 1;
  }
}
