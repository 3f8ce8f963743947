// gauge-compare: compares two gauge reports and says, per experiment, whether the new one is
// faster, slower, the same or inconclusive, with the interval and the test behind the verdict.
//
//   gauge-compare [options] BASE.json NEW.json
//   gauge-compare [options] BASE1.json BASE2.json ... -- NEW1.json NEW2.json ...   (runs per side)
//   options: [--threshold 2%] [--confidence 95%] [--fail-on-regression] [--format text|markdown|json]
//            [--metric time|wall|cpu] [--ignore-dimension KEY]... [--clock-normalization auto|cycles|time]
//            [--run-spread PERCENT] [--multiplicity fdr|fwer|none] [--resamples 2000] [--seed N]
//            [--help] [--version]
// A quoted glob ('base-*.json') is expanded here, for shells and CI runners that do not.
//
// Options take their value as `--opt value` or `--opt=value` (CLI11; see tools/cli.hpp).
// Exit status (gauge::compare::gate): 0 compared (with --fail-on-regression: every experiment same or
// faster, and comparable); with --fail-on-regression: 1 a regression (slower, failed where the
// base did not, or missing from the new report), 3 not comparable (unless
// --allow-not-comparable), 4 inconclusive or nothing compared (unless --allow-inconclusive);
// 2 bad input or usage, 74 standard output not written, with a one-line reason on stderr.

#include <gauge/report/dump.hpp>
#include <gauge/report/compare.hpp>
#include <gauge/report/read.hpp>

#include <glob.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <map>
#include <string>
#include <system_error>
#include <vector>

#include "cli.hpp"

namespace {

const char* const exit_codes =
    "Exit status:\n"
    "  0  compared; with --fail-on-regression: every experiment same or faster, and comparable\n"
    "  1  with --fail-on-regression: a regression (an experiment slower, failed where the base did\n"
    "     not, or missing from the new report), listed on stderr\n"
    "  2  bad usage or bad input (missing file, invalid JSON, not a gauge report, newer major\n"
    "     schema version, missing key), with a one-line reason on stderr\n"
    "  3  with --fail-on-regression: not comparable (another GPU, driver, clocks or method), unless\n"
    "     --allow-not-comparable\n"
    "  4  with --fail-on-regression: an experiment inconclusive, or none compared, unless\n"
    "     --allow-inconclusive\n"
    "  74 standard output could not be written (full disk, /dev/full), with a one-line reason";

/// "2%" → 0.02, "0.02" → 0.02; the reason in words when `text` is not a fraction in (0, 1)
/// (a bare number >= 1 is ambiguous and refused).
std::string parse_fraction(const std::string& text, double& fraction) {
  const bool percent = !text.empty() && text.back() == '%';
  const std::string number = percent ? text.substr(0, text.size() - 1) : text;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(number.c_str(), &end);
  if (number.empty() || errno || !end || *end || !std::isfinite(v))
    return "must be a percentage such as 2% or a fraction such as 0.02, got '" + text + "'";
  if (!percent && v >= 1 && v < 100)
    return "'" + text + "' is ambiguous: write " + text + "% for a percentage, or a fraction below 1";
  fraction = percent ? v / 100 : v;
  if (!(fraction > 0 && fraction < 1)) return "must be above 0 and below 100 % (0 and 1 excluded), got '" + text + "'";
  return "";
}

/// A validator of parse_fraction's input.
CLI::Validator fraction_or_percent() {
  return CLI::Validator(
      [](std::string& text) {
        double ignored = 0;
        return parse_fraction(text, ignored);
      },
      "");
}

struct Arguments {
  std::vector<std::string> base, candidate;  // one report or several (runs) per side
  gauge::CompareOptions options;
  bool fail_on_regression = false;
  bool allow_not_comparable = false;
  bool allow_inconclusive = false;
  std::string format = "text";
};

/// The paths `pattern` names: itself, or where it holds *, ? or [ and no file has that name, the
/// files the glob matches (sorted). A pattern that matches nothing is bad input, named.
std::vector<std::string> expand(const std::string& pattern) {
  if (pattern.find_first_of("*?[") == std::string::npos) return {pattern};
  if (std::FILE* f = std::fopen(pattern.c_str(), "r")) {  // a file of that very name
    std::fclose(f);
    return {pattern};
  }
  glob_t g{};
  const int rc = ::glob(pattern.c_str(), 0, nullptr, &g);
  std::vector<std::string> out;
  for (std::size_t i = 0; rc == 0 && i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
  globfree(&g);
  if (out.empty()) throw gauge::tools::BadInput{"'" + pattern + "' matches no file"};
  return out;
}

const char* const sides_help =
    "Reports: BASE NEW compares two reports. BASE1 BASE2 ... -- NEW1 NEW2 ... compares several runs per side (separate "
    "processes, e.g. tools/gauge-ab's): all results of one name and dimensions on a side are its runs, the run is a "
    "random effect, and the interval covers run-to-run variation. Options go before '--' (only reports follow it); a "
    "report whose name starts with '-' is given as ./-name.";

Arguments parse(int argc, char** argv) {
  Arguments a;
  CLI::App app("Compares gauge reports: per experiment, whether NEW is faster, slower, the same or "
               "inconclusive against BASE, with the interval of the ratio of medians behind the verdict (the "
               "rule: below, docs/comparing.md, and \"rule\" in --format json; every comparison ends with it in one sentence).",
               "gauge-compare");
  gauge::tools::configure(app, exit_codes);
  // The whole rule (at the defaults), then the recipe and the exit codes.
  app.footer(gauge::tools::wrap(gauge::detail::comparing::rule_text(gauge::CompareOptions{}), 100) + "\n\n" +
             gauge::tools::wrap(sides_help, 100) + "\n\nRecipe: tools/gauge-ab runs base and new alternately (B N N B B N), 3 "
             "runs each, then this; docs/comparing.md has it as a GitHub Actions job.\n\n" + exit_codes);
  // "--" splits the sides; CLI11 would swallow it, so the new side is taken out first.
  std::vector<char*> front;
  std::vector<std::string> after;
  bool split = false;
  for (int i = 0; i < argc; ++i) {
    if (!split && i > 0 && std::string(argv[i]) == "--") {
      split = true;
      continue;
    }
    if (split) after.emplace_back(argv[i]);
    else front.push_back(argv[i]);
  }
  std::vector<std::string> positional;
  app.add_option("REPORTS", positional, "BASE NEW, or BASE... -- NEW... (see below)")->type_name("REPORT.json");
  std::string clock = "auto", multiplicity = "fdr", run_spread;
  app.add_option("--clock-normalization", clock,
                 "Decide on SM cycles per step (time x the rounds' measured SM clock) where the work scales with the clock "
                 "(auto: the step declares FLOP and is not memory-bound), always (cycles), or never (time); the time ratio "
                 "is always shown")
      ->check(gauge::tools::one_of({"auto", "cycles", "time"}));
  app.add_option("--run-spread", run_spread,
                 "The workload's known run-to-run spread of its median (relative SD, e.g. 1%, from an earlier comparison of "
                 "several runs per side): with one report per side it widens the interval, and a direction smaller than it "
                 "is not claimed")
      ->type_name("PERCENT")
      ->check(fraction_or_percent());
  app.add_option("--multiplicity", multiplicity,
                 "Control of false verdicts over all experiments compared: Benjamini-Hochberg false-discovery rate (fdr), "
                 "Holm family-wise error rate (fwer), or none")
      ->check(gauge::tools::one_of({"fdr", "fwer", "none"}));
  std::string threshold = "2%", confidence = "95%", metric = "gpu";
  app.add_option("--threshold", threshold,
                 "Noise threshold on the ratios new/base (median, mean, p90, p99): changes within 1 +- threshold are 'same' "
                 "(a percentage such as 2% or a fraction below 1 such as 0.02)")
      ->type_name("PERCENT")
      ->check(fraction_or_percent());
  app.add_option("--confidence", confidence,
                 "Confidence level of the interval; the U test's significance level is 1 - confidence")
      ->type_name("PERCENT")
      ->check(fraction_or_percent());
  app.add_flag("--fail-on-regression", a.fail_on_regression,
               "Gate: exit 1 when an experiment is slower, failed where the base did not, or is missing from NEW; "
               "3 when the reports are not comparable; 4 when an experiment is inconclusive");
  app.add_flag("--allow-not-comparable", a.allow_not_comparable,
               "With --fail-on-regression: pass a comparison of different GPUs, drivers, clocks or methods");
  app.add_flag("--allow-inconclusive", a.allow_inconclusive,
               "With --fail-on-regression: pass experiments whose verdict is inconclusive");
  std::string formats_help;
  for (const auto& f : gauge::compare::comparison_formats()) formats_help += (formats_help.empty() ? "Output: " : "; ") + f.name + ": " + f.description;
  app.add_option("--format", a.format, formats_help)->check(gauge::tools::one_of(gauge::detail::entry_names<gauge::compare::ComparisonFormat>()));
  app.add_option("--metric", metric,
                 "Samples to compare: time (the per-step samples: GPU time, or real time on the host backend; "
                 "'gpu' is the same), wall (wall time per step) or cpu (process CPU time per step, host backend)")
      ->check(gauge::tools::one_of({"time", "gpu", "wall", "cpu"}, {"gpu_time", "wall_time", "cpu_time"}));
  std::vector<std::string> ignored;
  app.add_option("--ignore-dimension", ignored,
                 "A dimension left out when matching experiments (e.g. dtype, to compare bf16 against fp32); repeatable")
      ->type_name("KEY")
      ->default_str("")
      ->allow_extra_args(false)
      ->take_all();
  app.add_option("--resamples", a.options.resamples, "Bootstrap resamples of the interval, 100 to 10000000")
      ->type_name("N")
      ->transform(gauge::tools::integer_in(100, 10000000));
  app.add_option("--seed", a.options.seed, "Seed of the bootstrap's generator (the same seed gives the same interval)")
      ->type_name("N")
      ->transform(gauge::tools::unsigned_integer());
  gauge::tools::parse_or_exit(app, static_cast<int>(front.size()), front.data());
  auto expand_all = [](const std::vector<std::string>& v) {
    std::vector<std::string> out;
    for (const auto& p : v)
      for (auto& x : expand(p)) out.push_back(std::move(x));
    return out;
  };
  if (split) {
    a.base = expand_all(positional);
    for (const auto& x : after)
      if (!x.empty() && x[0] == '-')
        throw gauge::tools::BadInput{x == "--" ? std::string("'--' given twice: BASE... -- NEW... has one")
                                               : "'" + x + "' after '--': options go before '--', which only reports follow "
                                                 "(a report named -x.json is ./-x.json)"};
    a.candidate = expand_all(after);
    if (a.base.empty() || a.candidate.empty())
      throw gauge::tools::BadInput{std::string("'--' needs at least one report on each side: BASE... -- NEW...")};
  } else {
    if (positional.size() != 2)
      throw gauge::tools::BadInput{std::to_string(positional.size()) +
                                 " report(s) given: compare BASE NEW, or several per side as BASE... -- NEW... (see --help)"};
    a.base = expand_all({positional[0]});
    a.candidate = expand_all({positional[1]});
  }
  // A report given twice on one side would count as two runs with no variation between them,
  // which makes the run-level interval claim more than was measured (a glob can do it too).
  for (const auto* side : {&a.base, &a.candidate}) {
    std::map<std::string, std::string> seen;  // canonical path → as given
    for (const auto& path : *side) {
      std::error_code ec;
      const std::string key = std::filesystem::weakly_canonical(path, ec).string();
      const auto [at, fresh] = seen.emplace(ec ? path : key, path);
      if (!fresh)
        throw gauge::tools::BadInput{"report '" + path + "' is given twice on the " +
                                     std::string(side == &a.base ? "base" : "new") + " side (also as '" + at->second +
                                     "'): each report is one run, so a run counted twice would fake their agreement"};
    }
  }
  a.options.clock_normalization = clock == "cycles" ? gauge::compare::ClockNormalization::sm_cycles
                                  : clock == "time" ? gauge::compare::ClockNormalization::time
                                                    : gauge::compare::ClockNormalization::automatic;
  a.options.multiplicity = multiplicity == "fwer" ? gauge::compare::Multiplicity::fwer
                           : multiplicity == "none" ? gauge::compare::Multiplicity::none
                                                    : gauge::compare::Multiplicity::fdr;
  if (!run_spread.empty()) parse_fraction(run_spread, a.options.run_spread);
  parse_fraction(threshold, a.options.threshold);  // validated above
  parse_fraction(confidence, a.options.confidence_level);
  a.options.metric = metric.rfind("wall", 0) == 0  ? gauge::Metric::wall_time
                     : metric.rfind("cpu", 0) == 0 ? gauge::Metric::cpu_time
                                                   : gauge::Metric::gpu_time;  // time, gpu, gpu_time
  a.options.ignored_dimensions.insert(ignored.begin(), ignored.end());
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  return gauge::tools::guarded_main("gauge-compare", [&] {
    const Arguments args = parse(argc, argv);
    std::vector<gauge::StoredReport> base, candidate;
    try {
      for (const auto& p : args.base) base.push_back(gauge::read_report(p));
      for (const auto& p : args.candidate) candidate.push_back(gauge::read_report(p));
    } catch (const gauge::ReportError& e) {
      throw gauge::tools::BadInput{e.what()};
    }
    const gauge::Comparison c = gauge::compare_reports(base, candidate, args.options);
    // Written whole (a NUL in a name is written, not an end) and checked (e.g. > /dev/full).
    const std::string text = gauge::compare::find_comparison_format(args.format).write(c);
    if (!gauge::tools::write_stdout("gauge-compare", text)) return gauge::tools::exit_output;
    if (!args.fail_on_regression) return 0;
    switch (gauge::compare::gate(c, args.allow_not_comparable, args.allow_inconclusive)) {
      case gauge::compare::GateOutcome::pass:
        return 0;
      case gauge::compare::GateOutcome::regression: {
        std::string list;
        for (const auto& e : c.experiments)
          if (e.regression())
            list += (list.empty() ? "" : ", ") + e.label + " (" + (e.candidate_failed ? "failed" : gauge::to_string(e.verdict)) + ")";
        for (const auto& l : c.only_in_base) list += (list.empty() ? "" : ", ") + l + " (missing from the new report)";
        // One line: a label's newline or escape sequence is made visible.
        std::fprintf(stderr, "gauge-compare: regression: %s\n", gauge::detail::escape::visible(list).c_str());
        return 1;
      }
      case gauge::compare::GateOutcome::not_comparable:
        std::fprintf(stderr, "gauge-compare: not comparable: a difference of environment or method can change the numbers "
                             "without a change of code (listed above; --allow-not-comparable to pass)\n");
        return 3;
      case gauge::compare::GateOutcome::inconclusive: {
        std::string list;
        for (const auto& e : c.experiments)
          if (e.verdict == gauge::Verdict::inconclusive) list += (list.empty() ? "" : ", ") + e.label;
        std::fprintf(stderr, "gauge-compare: inconclusive: %s (--allow-inconclusive to pass)\n",
                     list.empty() ? "no experiment was compared" : gauge::detail::escape::visible(list).c_str());
        return 4;
      }
    }
    return 0;
  });
}
