// gauge-compare: compares two gauge reports and says, per experiment, whether the new one is
// faster, slower, the same or inconclusive, with the interval and the test behind the verdict.
//
//   gauge-compare BASE.json NEW.json [--threshold 2%] [--confidence 95%] [--fail-on-regression]
//                 [--format text|markdown|json] [--metric gpu|wall] [--ignore-dimension KEY]...
//                 [--resamples 2000] [--seed N]
//
// Exit status: 0 compared (no regression, or --fail-on-regression not given); 1 a regression
// (an experiment slower, or failed where the base did not) with --fail-on-regression; 2 bad
// input or usage (missing file, invalid JSON, not a gauge report, newer major schema version,
// missing key, unknown option), with a one-line reason on stderr.

#include <gauge/report/compare.hpp>
#include <gauge/report/read.hpp>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

namespace {

const char* const usage =
    "usage: gauge-compare BASE.json NEW.json [--threshold 2%] [--confidence 95%] [--fail-on-regression] "
    "[--format text|markdown|json] [--metric gpu|wall] [--ignore-dimension KEY]... [--resamples N] [--seed N]";

/// A usage or input error: printed as one line, exit status 2.
struct BadInput {
  std::string reason;
};

/// "2%" → 0.02, "0.02" → 0.02; a bare number >= 1 is ambiguous and refused.
double parse_fraction(const std::string& flag, const std::string& text) {
  const bool percent = !text.empty() && text.back() == '%';
  const std::string number = percent ? text.substr(0, text.size() - 1) : text;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(number.c_str(), &end);
  if (number.empty() || errno || !end || *end || !std::isfinite(v))
    throw BadInput{flag + " must be a percentage such as 2% or a fraction such as 0.02, got '" + text + "'"};
  const double fraction = percent ? v / 100 : v;
  if (!percent && v >= 1)
    throw BadInput{flag + " " + text + " is ambiguous: write " + text + "% for a percentage, or a fraction below 1"};
  if (!(fraction > 0 && fraction < 1)) throw BadInput{flag + " must be between 0 and 100 %, got '" + text + "'"};
  return fraction;
}

std::uint64_t parse_unsigned(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || text[0] == '-' || errno || !end || *end)
    throw BadInput{flag + " must be a non-negative integer, got '" + text + "'"};
  return static_cast<std::uint64_t>(v);
}

struct Arguments {
  std::vector<std::string> reports;
  gauge::CompareOptions options;
  bool fail_on_regression = false;
  std::string format = "text";
};

Arguments parse(int argc, char** argv) {
  Arguments a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    std::string flag = arg, inline_value;
    bool has_inline = false;
    if (arg.rfind("--", 0) == 0) {
      const auto eq = arg.find('=');
      if (eq != std::string::npos) {
        flag = arg.substr(0, eq);
        inline_value = arg.substr(eq + 1);
        has_inline = true;
      }
    }
    auto value = [&]() -> std::string {
      if (has_inline) return inline_value;
      if (i + 1 >= argc) throw BadInput{flag + " needs a value"};
      return argv[++i];
    };
    if (flag == "--threshold") a.options.threshold = parse_fraction(flag, value());
    else if (flag == "--confidence") a.options.confidence_level = parse_fraction(flag, value());
    else if (flag == "--fail-on-regression") a.fail_on_regression = true;
    else if (flag == "--format") {
      a.format = value();
      if (a.format != "text" && a.format != "markdown" && a.format != "json")
        throw BadInput{"--format must be text, markdown or json, got '" + a.format + "'"};
    } else if (flag == "--metric") {
      const std::string m = value();
      if (m == "gpu" || m == "gpu_time") a.options.metric = gauge::Metric::gpu_time;
      else if (m == "wall" || m == "wall_time") a.options.metric = gauge::Metric::wall_time;
      else throw BadInput{"--metric must be gpu or wall, got '" + m + "'"};
    } else if (flag == "--ignore-dimension") {
      a.options.ignored_dimensions.insert(value());
    } else if (flag == "--resamples") {
      const std::uint64_t n = parse_unsigned(flag, value());
      if (n < 100 || n > 10000000) throw BadInput{"--resamples must be between 100 and 10000000, got " + std::to_string(n)};
      a.options.resamples = static_cast<std::size_t>(n);
    } else if (flag == "--seed") {
      a.options.seed = parse_unsigned(flag, value());
    } else if (flag == "--help" || flag == "-h") {
      std::printf("%s\n", usage);
      std::exit(0);
    } else if (!arg.empty() && arg[0] == '-' && arg != "-") {
      throw BadInput{"unknown option '" + arg + "'"};
    } else {
      a.reports.push_back(arg);
    }
  }
  if (a.reports.size() != 2)
    throw BadInput{"expected two reports (BASE.json NEW.json), got " + std::to_string(a.reports.size())};
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Arguments args = parse(argc, argv);
    gauge::StoredReport base, candidate;
    try {
      base = gauge::read_report(args.reports[0]);
      candidate = gauge::read_report(args.reports[1]);
    } catch (const gauge::ReportError& e) {
      throw BadInput{e.what()};
    }
    const gauge::Comparison c = gauge::compare_reports(base, candidate, args.options);
    if (args.format == "json") {
      nlohmann::json j = c;
      std::printf("%s\n", j.dump(2).c_str());
    } else if (args.format == "markdown") {
      std::fputs(gauge::to_markdown(c).c_str(), stdout);
    } else {
      std::fputs(gauge::to_text(c).c_str(), stdout);
    }
    std::fflush(stdout);
    if (args.fail_on_regression && c.any_regression()) {
      std::fprintf(stderr, "gauge-compare: regression: ");
      bool first = true;
      for (const auto& e : c.experiments)
        if (e.regression()) {
          std::fprintf(stderr, "%s%s (%s)", first ? "" : ", ", e.label.c_str(),
                       e.candidate_failed ? "failed" : gauge::to_string(e.verdict));
          first = false;
        }
      for (const auto& l : c.only_in_base) {
        std::fprintf(stderr, "%s%s (missing from the new report)", first ? "" : ", ", l.c_str());
        first = false;
      }
      std::fprintf(stderr, "\n");
      return 1;
    }
    return 0;
  } catch (const BadInput& e) {
    std::fprintf(stderr, "gauge-compare: error: %s\n", e.reason.c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gauge-compare: error: %s\n", e.what());
    return 2;
  }
}
