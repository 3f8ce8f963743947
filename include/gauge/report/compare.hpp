#pragma once
/// \file gauge/report/compare.hpp
/// Comparison of two reports (seed: "report enough of the distribution that a reader can judge
/// whether a change is real").
///
/// Experiments are matched by name and dimensions. For each pair, on the stored per-step samples
/// (GPU time by default):
/// - the ratio of medians new / base with a percentile-bootstrap confidence interval
///   (`bootstrap_median_ratio`, Efron & Tibshirani 1993), seeded so that a comparison is
///   reproducible;
/// - a two-sided Mann–Whitney U test (`mann_whitney_u`, Mann & Whitney 1947);
/// - a verdict, `faster` / `slower` / `same` / `inconclusive`, against a noise threshold
///   (the rule is stated at `Verdict`).
/// Differences of environment that can change the numbers without a change of code (another
/// GPU, driver, clocks, measurement method) are listed, and mark the comparison as not
/// comparable. Text, Markdown and JSON renderings are provided for `gauge-compare`.

#include "gauge/report/compare/types.hpp"        // Metric, CompareOptions, ExperimentComparison, Comparison, gate
#include "gauge/report/compare/differences.hpp"  // shared helpers, environment_differences
#include "gauge/report/compare/samples.hpp"      // the statistics of one verdict (detail::comparing)
#include "gauge/report/compare/summaries.hpp"    // the verdict from the summaries (detail::comparing)
#include "gauge/report/compare/results.hpp"      // the SM clock, compare_results
#include "gauge/report/compare/runs.hpp"         // several runs per side, compare_runs
#include "gauge/report/compare/reports.hpp"      // Timers, multiplicity, compare_reports
#include "gauge/report/compare/render.hpp"       // to_text, to_markdown, to_json

#include "gauge/report/console.hpp"  // not used by the parts; this header has always brought it in
