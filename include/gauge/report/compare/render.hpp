#pragma once
/// \file gauge/report/compare/render.hpp
/// The renderings of a Comparison (gauge/report/compare.hpp) for `gauge-compare`: text for a
/// terminal (`to_text`), GitHub-flavoured Markdown (`to_markdown`) and JSON (the field
/// descriptions of gauge/report/compare/fields.hpp), with the verdict rule in words
/// (detail::comparing::rule_text).

#include "gauge/detail/fmt.hpp"
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "gauge/core/format.hpp"
#include "gauge/core/two_sample.hpp"
#include "gauge/core/verdict.hpp"
#include "gauge/report/escape.hpp"
#include "gauge/report/compare/types.hpp"
#include "gauge/report/compare/differences.hpp"
#include "gauge/report/compare/fields.hpp"
#include "gauge/report/compare/format.hpp"
#include "gauge/report/dump.hpp"

namespace gauge {

namespace detail::comparing {

/// The notes every experiment of `c` carries (when there are two or more): written once, after the
/// experiments' reasons, instead of under each (the one-run-per-side note under every row).
inline std::vector<std::string> common_notes(const Comparison& c) {
  std::vector<std::string> common;
  if (c.experiments.size() < 2) return common;
  for (const auto& n : c.experiments.front().notes) {
    bool everywhere = std::find(common.begin(), common.end(), n) == common.end();
    for (std::size_t i = 1; i < c.experiments.size() && everywhere; ++i)
      everywhere = std::find(c.experiments[i].notes.begin(), c.experiments[i].notes.end(), n) != c.experiments[i].notes.end();
    if (everywhere) common.push_back(n);
  }
  return common;
}

/// The verdict rule and methods in one paragraph, for the renderings.
inline std::string rule_text(const CompareOptions& o) {
  return fmt::format(
      "Verdict: the ratio new/base of the median of {} per step ({}), of p90 (n >= 100) and, on a GPU, p99 (n >= 1000); the mean is shown, never "
      "decides (except for a bimodal side too small for p90: then it prices the slow mode). One run per side: percentile-bootstrap intervals ({} resamples, seed {}; Efron & Tibshirani 1993) at {:g} % "
      "together (Bonferroni), widened by each side's stream effect (Student t), by drift between its rounds (its single "
      "rounds, then blocks of 2, 4, ... consecutive rounds while at least 8 blocks remain, the largest widening kept: "
      "Flyvbjerg & Petersen 1989) and by --run-spread; the median does not "
      "decide when a side has two modes more than {:g} % apart and separated by their spread (Ashman's D > 2), unless the middle half of "
      "each such side's steps spans <= the threshold (then a quarter of the steps must change mode to move it), and a median "
      "steady so against a tenth of them that moved beyond it vetoes faster, and same (with the same two modes on both sides, "
      "only where the mean moved beyond it too). Several runs per side: the run is a random effect (ratio "
      "of the runs' geometric-mean medians, pooled between-run variance, Student t with runs - 2 degrees of freedom). "
      "slower: the median's interval excludes 1 and its estimate is above 1 + {:g} %, or a tail's whole interval is above "
      "it; faster: likewise below 1 - {:g} %, and none slower; same: the median's interval within 1 ± {:g} % (and, with one run per side on a GPU, no decile moved beyond "
      "it with a two-sided Mann-Whitney U test at p < {:g}); otherwise inconclusive. Over several experiments: {}. "
      "Without samples: the summaries' median intervals (each at the level asked).",
      o.metric == Metric::gpu_time    ? "GPU time (real time for host-backend results)"
      : o.metric == Metric::wall_time ? "wall time"
                                      : "process CPU time (host-backend results)",
      // Only GPU time is ever normalized by the SM clock (results.hpp, compare_clock).
      o.metric == Metric::gpu_time
          ? "of SM cycles per step where the work scales with the SM clock: --clock-normalization " +
                std::string(to_string(o.clock_normalization))
          : std::string("never normalized by the SM clock"),
      o.resamples, o.seed, 100 * o.confidence_level, 100 * o.threshold,
      100 * o.threshold, 100 * o.threshold, 100 * o.threshold, 1 - o.confidence_level,
      o.multiplicity == compare::Multiplicity::fdr    ? "Benjamini-Hochberg false-discovery rate at 1 - c"
      : o.multiplicity == compare::Multiplicity::fwer ? "Holm family-wise error rate at 1 - c"
                                             : "no multiplicity control");
}

/// The verdict rule in one sentence, for the text rendering (the whole rule, rule_text, is in
/// `gauge-compare --help` and the JSON's "rule"; issue "Every user's first day", #4: a
/// 1,300-character paragraph closed every comparison).
inline std::string short_rule_text(const CompareOptions& o) {
  const double t = 100 * o.threshold;
  return fmt::format(
      "Verdict rule: slower / faster where the {} % interval of the median's ratio excludes 1 and its estimate is beyond "
      "1 ± {} % (or a tail's whole interval is), same where the interval lies within 1 ± {} %, else inconclusive "
      "(all of it: gauge-compare --help, or \"rule\" in --format json).",
      fmt::format("{:.10g}", 100 * o.confidence_level), fmt::format("{:.10g}", t), fmt::format("{:.10g}", t));
}

/// The verdict with "(bimodal)" or "(summary)" when it applies.
inline std::string verdict_text(const compare::ExperimentComparison& e) {
  std::string v = to_string(e.verdict);
  if (e.bimodal) v += " (bimodal)";
  if (e.from_summary) v += " (summary)";
  return v;
}

/// The statistic the table shows: the median, or the first deciding one when the median does
/// not decide (a bimodal side: its median jumps between modes and must not be read as a change).
inline const stats::StatisticRatio* shown_statistic(const compare::ExperimentComparison& e) {
  if (e.headline) return &*e.headline;
  if (e.statistics.empty()) return nullptr;
  if (e.deciding.empty() || e.deciding.front() == stats::Statistic::median || e.statistics.front().statistic != stats::Statistic::median)
    return &e.statistics.front();
  for (const auto& s : e.statistics)
    if (s.statistic == e.deciding.front()) return &s;
  return &e.statistics.front();
}
inline std::string ratio_text(const compare::ExperimentComparison& e) {
  const stats::StatisticRatio* s = shown_statistic(e);
  if (!s) return "-";
  std::string name = s->statistic == stats::Statistic::median ? "" : std::string(to_string(s->statistic)) + " ";
  if (e.decided_on == "cycles") name = "cycles " + name;
  auto num = [](double x) { return std::fabs(x) >= 1e4 || (x != 0 && std::fabs(x) < 1e-3) ? fmt::format("{:.4e}", x) : fmt::format("{:.4f}", x); };
  return fmt::format("{}{} [{}, {}]", name, num(s->interval.estimate), num(s->interval.low), num(s->interval.high));
}
inline std::string change_text(const compare::ExperimentComparison& e) {
  const stats::StatisticRatio* s = shown_statistic(e);
  return s ? signed_percent(s->interval.estimate - 1) : "-";
}
/// The p-value with its test: "U" (two-sided Mann-Whitney U, one run per side) or "t" (the run
/// level's Student t, several runs per side); "-" when there is none.
inline std::string p_text(const compare::ExperimentComparison& e) {
  return e.mann_whitney ? format_p(e.mann_whitney->p_value) + " U"
         : e.p_value    ? format_p(*e.p_value) + (e.run_variation ? " t" : "")
                        : "-";
}
/// Text for a Markdown table cell: control characters visible, '\\' and '|' escaped
/// (detail::escape::markdown_cell).
inline std::string md_cell(const std::string& s) { return detail::escape::markdown_cell(s); }

}  // namespace detail::comparing

namespace compare {
/// The comparison as text for a terminal: sources, settings, one line per experiment (medians,
/// ratio with its interval, change, p-value, verdict), the reasons, differences, unmatched
/// experiments and the verdict rule in one sentence (short_rule_text). Ends with a newline.
inline std::string to_text(const Comparison& c) {
  using namespace detail::comparing;
  auto sources = [](const std::string& first, const std::vector<std::string>& all) {
    return all.size() > 1 ? fmt::format("{} (+{} more: {} runs)", first, all.size() - 1, all.size()) : first;
  };
  std::string out = fmt::format("base: {}\nnew:  {}\n", sources(c.base_source, c.base_sources),
                                sources(c.candidate_source, c.candidate_sources));
  const std::string ci_head = fmt::format("new/base [{:g} % CI]", 100 * c.options.confidence_level);
  std::size_t width = 10;
  for (const auto& e : c.experiments) width = std::max(width, e.label.size());
  out += fmt::format("{:<{}}  {:>11}  {:>11}  {:<30}  {:>9}  {:>9}  {}\n", "experiment", width, "base median", "new median",
                     ci_head, "change", "p (test)", "verdict");
  for (const auto& e : c.experiments) {
    out += fmt::format("{:<{}}  {:>11}  {:>11}  {:<30}  {:>9}  {:>9}  {}\n", detail::escape::visible(e.label), width,
                       detail::format_time(e.base_median_s), detail::format_time(e.candidate_median_s), ratio_text(e),
                       change_text(e), p_text(e), verdict_text(e));
  }
  const std::vector<std::string> common = common_notes(c);
  const auto is_common = [&](const std::string& n) { return std::find(common.begin(), common.end(), n) != common.end(); };
  for (const auto& e : c.experiments) {
    out += fmt::format("  {}: {}: {}\n", detail::escape::visible(e.label), verdict_text(e), detail::escape::visible(e.reason));
    for (const auto& dd : e.dimension_differences) out += fmt::format("    ignored dimension {}\n", dd);
    for (const auto& n : e.notes)
      if (!is_common(n)) out += fmt::format("    {}\n", detail::escape::visible(n));
  }
  for (const auto& n : common) out += fmt::format("  every experiment: {}\n", detail::escape::visible(n));
  if (!c.multiplicity_rule.empty()) out += "over the experiments: " + c.multiplicity_rule + "\n";
  bool any_invalid = !c.comparable();
  if (any_invalid) out += "NOT COMPARABLE: differences that can change the numbers without a change of code:\n";
  for (const auto& d : c.environment_differences)
    if (d.invalidates) out += fmt::format("  ! {}: {} → {}\n", d.what, d.base, d.candidate);
  for (const auto& e : c.experiments)
    for (const auto& d : e.differences)
      if (d.invalidates) out += fmt::format("  ! {}: {}: {} → {}\n", e.label, d.what, d.base, d.candidate);
  std::string notes;
  for (const auto& d : c.environment_differences)
    if (!d.invalidates) notes += fmt::format("  {}: {} → {}\n", d.what, d.base, d.candidate);
  for (const auto& e : c.experiments)
    for (const auto& d : e.differences)
      if (!d.invalidates) notes += fmt::format("  {}: {}: {} → {}\n", e.label, d.what, d.base, d.candidate);
  if (!notes.empty()) out += "other differences:\n" + notes;
  if (!any_invalid) out += "environment: no difference that invalidates the comparison\n";
  for (const auto& l : c.only_in_base) out += "only in base: " + detail::escape::visible(l) + "\n";
  for (const auto& l : c.only_in_candidate) out += "only in new:  " + detail::escape::visible(l) + "\n";
  for (const auto& n : c.notes) out += "note: " + n + "\n";
  out += short_rule_text(c.options) + "\n";
  return out;
}

/// The comparison as GitHub-flavoured Markdown: a table of experiments, then the differences,
/// unmatched experiments and the verdict rule, folded in a <details> block. Ends with a newline.
inline std::string to_markdown(const Comparison& c) {
  using namespace detail::comparing;
  auto runs = [](const std::vector<std::string>& all) { return all.size() > 1 ? fmt::format(" ({} runs)", all.size()) : std::string(); };
  std::string out = fmt::format("**base** `{}`{} → **new** `{}`{}\n\n", md_cell(c.base_source), runs(c.base_sources),
                                md_cell(c.candidate_source), runs(c.candidate_sources));
  out += fmt::format("| experiment | base median | new median | new/base [{:g} % CI] | change | p (U or t test) | verdict |\n",
                     100 * c.options.confidence_level);
  out += "|---|---:|---:|---|---:|---:|---|\n";
  if (c.experiments.empty()) out += "| (no experiment matched: see below) | | | | | | |\n";
  for (const auto& e : c.experiments)
    out += fmt::format("| {} | {} | {} | {} | {} | {} | **{}** |\n", detail::escape::markdown_name(e.label), detail::format_time(e.base_median_s),
                       detail::format_time(e.candidate_median_s), ratio_text(e), change_text(e), p_text(e), verdict_text(e));
  out += "\n";
  const std::vector<std::string> common = common_notes(c);
  const auto is_common = [&](const std::string& n) { return std::find(common.begin(), common.end(), n) != common.end(); };
  for (const auto& e : c.experiments) {
    out += fmt::format("- {}: {}\n", detail::escape::markdown_name(e.label), md_cell(e.reason));
    for (const auto& dd : e.dimension_differences) out += fmt::format("  - ignored dimension {}\n", md_cell(dd));
    // Notes carry text from the reports (warning messages): escaped as names are, so that no
    // HTML, link, image or code span of a report renders in a pull request's comment.
    for (const auto& n : e.notes)
      if (!is_common(n)) out += fmt::format("  - {}\n", detail::escape::markdown_name(n));
  }
  for (const auto& n : common) out += fmt::format("- every experiment: {}\n", detail::escape::markdown_name(n));
  if (!c.multiplicity_rule.empty()) out += "\nOver the experiments: " + md_cell(c.multiplicity_rule) + ".\n";
  std::string invalid, other;
  for (const auto& d : c.environment_differences)
    (d.invalidates ? invalid : other) += fmt::format("- {}: `{}` → `{}`\n", md_cell(d.what), md_cell(d.base), md_cell(d.candidate));
  for (const auto& e : c.experiments)
    for (const auto& d : e.differences)
      (d.invalidates ? invalid : other) +=
          fmt::format("- {}: {}: `{}` → `{}`\n", detail::escape::markdown_name(e.label), md_cell(d.what), md_cell(d.base), md_cell(d.candidate));
  if (!invalid.empty()) out += "\n**Not comparable**: differences that can change the numbers without a change of code:\n\n" + invalid;
  else out += "\nEnvironment: no difference that invalidates the comparison.\n";
  if (!other.empty()) out += "\nOther differences:\n\n" + other;
  if (!c.only_in_base.empty() || !c.only_in_candidate.empty()) out += "\n";
  for (const auto& l : c.only_in_base) out += "- only in base: " + detail::escape::markdown_name(l) + "\n";
  for (const auto& l : c.only_in_candidate) out += "- only in new: " + detail::escape::markdown_name(l) + "\n";
  for (const auto& n : c.notes) out += "- note: " + detail::escape::markdown_name(n) + "\n";
  // The whole rule, folded (GitHub renders <details> closed): a pull request's comment stays short.
  out += "\n<details><summary>Verdict rule</summary>\n\n" + md_cell(rule_text(c.options)) + "\n\n</details>\n";
  return out;
}
}  // namespace compare

}  // namespace gauge

// The three comparison formats of gauge-compare, registered (gauge/report/compare/format.hpp).
namespace gauge::detail::comparing {
/// The comparison as JSON, indented by 2 (the document gauge/report/compare/fields.hpp describes).
inline std::string write_json(const Comparison& c) { return detail::json_dump(nlohmann::json(c), 2) + "\n"; }
/// to_text, through the registry.
inline std::string write_text(const Comparison& c) { return compare::to_text(c); }
/// to_markdown, through the registry.
inline std::string write_markdown(const Comparison& c) { return compare::to_markdown(c); }
}  // namespace gauge::detail::comparing
GAUGE_REGISTER_COMPARISON_FORMAT(text, "a text table for a terminal, the verdict rule and notes", ::gauge::detail::comparing::write_text)
GAUGE_REGISTER_COMPARISON_FORMAT(markdown, "a Markdown table (a pull request's comment)", ::gauge::detail::comparing::write_markdown)
GAUGE_REGISTER_COMPARISON_FORMAT(json, "the comparison as JSON (schema gauge.comparison; gauge-plot compare --comparison reads it)",
                                 ::gauge::detail::comparing::write_json)
