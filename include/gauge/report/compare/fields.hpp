#pragma once
/// \file gauge/report/compare/fields.hpp
/// The comparison's JSON (`gauge-compare --format json`, schema "gauge.comparison") as field
/// descriptions (gauge/report/serial.hpp), as the report's own types are: one description per
/// type, from which the writer makes the document. Keys follow the report's conventions: the new
/// side is "new" (the members say `candidate`), times end in `_s`, a non-finite number is null.
/// Written only: no C++ reader reads a comparison back (gauge-plot reads it in Python).

#include <nlohmann/json.hpp>

#include <string>
#include <utility>

#include "gauge/core/two_sample.hpp"
#include "gauge/report/compare/differences.hpp"
#include "gauge/report/compare/modes.hpp"
#include "gauge/report/compare/types.hpp"
#include "gauge/report/serial.hpp"

namespace gauge::detail::comparing {
/// The verdict rule and methods in one paragraph (gauge/report/compare/render.hpp).
inline std::string rule_text(const CompareOptions& o);

/// A computed key's reader where there is none: the comparison is written, never read.
struct NotRead {
  template <class T>
  void operator()(const nlohmann::json&, T&) const {}
};

/// A ratio's interval, with the method of the level that decided: the run level's
/// (RunVariation::method) over several runs per side, the summaries' (summary_interval_method)
/// where a side stored no samples or a subsample, else the bootstrap's (RatioInterval::method).
inline nlohmann::json interval_json(const compare::ExperimentComparison& e, const stats::RatioInterval& r) {
  return nlohmann::json{{"estimate", r.estimate}, {"low", r.low}, {"high", r.high}, {"level", r.level},
                        {"resamples", r.resamples}, {"seed", r.seed},
                        {"method", e.run_variation  ? compare::RunVariation::method
                                   : e.from_summary ? summary_interval_method
                                                    : stats::RatioInterval::method}};
}
/// interval_json with the statistic's name beside it.
inline nlohmann::json statistic_json(const compare::ExperimentComparison& e, const stats::StatisticRatio& s) {
  nlohmann::json j = interval_json(e, s.interval);
  j["statistic"] = to_string(s.statistic);
  return j;
}
}  // namespace gauge::detail::comparing

namespace gauge::serial {

GAUGE_SERIAL_DESCRIPTION(compare::EnvironmentDifference, "environment_difference", NoFlags) {
  v("what", x.what);
  v("base", x.base);
  v("new", x.candidate);
  v("invalidates", x.invalidates);
}

// ::gauge::stats::Mode: inside gauge::serial, Mode is the reading mode.
GAUGE_SERIAL_DESCRIPTION(::gauge::stats::Mode, "mode", NoFlags) {
  v("median_s", x.median);
  v("weight", x.weight);
  v("n", x.n);
  v("low_s", x.low);
  v("high_s", x.high);
}

GAUGE_SERIAL_DESCRIPTION(stats::Modes, "modes", NoFlags) {
  GAUGE_SERIAL_FIELDS(bimodal, lower, upper, middle_fraction);
  v.constant("method", stats::Modes::method);
}

GAUGE_SERIAL_DESCRIPTION(stats::MannWhitney, "mann_whitney", NoFlags) { GAUGE_SERIAL_FIELDS(u, p_value, z, method, n1, n2); }

GAUGE_SERIAL_DESCRIPTION(compare::ClockComparison, "clock_comparison", NoFlags) {
  v("source", x.source);
  v("base_sm_clock_mhz", x.base_sm_clock_mhz);
  v("new_sm_clock_mhz", x.candidate_sm_clock_mhz);
  GAUGE_SERIAL_FIELDS(relative_difference, scales_with_clock, rule, explains_difference);
}

GAUGE_SERIAL_DESCRIPTION(compare::RunVariation, "run_variation", NoFlags) {
  v("base_medians", x.base_medians);
  v("new_medians", x.candidate_medians);
  GAUGE_SERIAL_FIELDS(relative_sd, degrees_of_freedom, t_quantile, between_variance, within_variance);
  v.constant("method", compare::RunVariation::method);
}

GAUGE_SERIAL_DESCRIPTION(CompareOptions, "compare_options", NoFlags) {
  GAUGE_SERIAL_FIELDS(threshold, confidence_level, resamples, seed, metric, ignored_dimensions, clock_tolerance,
                      clock_normalization, run_spread, multiplicity);
}

GAUGE_SERIAL_DESCRIPTION(compare::ExperimentComparison, "experiment_comparison", NoFlags) {
  using E = compare::ExperimentComparison;
  namespace cmp = ::gauge::detail::comparing;
  constexpr unsigned object_or_null = json_object | json_null;
  GAUGE_SERIAL_FIELDS(name, label, dimensions, dimension_differences, metric, base_n);
  v("new_n", x.candidate_n);
  v("base_median_s", x.base_median_s);
  v("new_median_s", x.candidate_median_s);
  v.computed("ratio", object_or_null, x, [](const E& e) {
    return e.ratio ? cmp::interval_json(e, *e.ratio) : nlohmann::json(nullptr);
  }, cmp::NotRead{});
  v.computed("statistics", json_array, x, [](const E& e) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& s : e.statistics) a.push_back(cmp::statistic_json(e, s));
    return a;
  }, cmp::NotRead{});
  v("deciding", x.deciding);
  v.computed("largest_decile_shift", object_or_null, x, [](const E& e) {
    if (!e.largest_decile_shift) return nlohmann::json(nullptr);
    return nlohmann::json{{"percentile", e.largest_decile_shift->first}, {"change", e.largest_decile_shift->second}};
  }, cmp::NotRead{});
  v("bimodal", x.bimodal);
  v("base_modes", x.base_modes);
  v("new_modes", x.candidate_modes);
  GAUGE_SERIAL_FIELDS(from_summary, stream_variance, stream_half_width, mann_whitney, base_runs);
  v("new_runs", x.candidate_runs);
  v("decided_on", x.decided_on);
  v.computed("clock_normalized_ratio", object_or_null, x, [](const E& e) {
    return e.clock_normalized_ratio ? cmp::interval_json(e, *e.clock_normalized_ratio) : nlohmann::json(nullptr);
  }, cmp::NotRead{});
  GAUGE_SERIAL_FIELDS(clock, run_variation, p_value);
  v.computed("headline", object_or_null, x, [](const E& e) {
    return e.headline ? cmp::statistic_json(e, *e.headline) : nlohmann::json(nullptr);
  }, cmp::NotRead{});
  GAUGE_SERIAL_FIELDS(notes, verdict, reason, base_failed);
  v("new_failed", x.candidate_failed);
  v.computed("regression", json_boolean, x, [](const E& e) { return nlohmann::json(e.regression()); }, cmp::NotRead{});
  v.computed("comparable", json_boolean, x, [](const E& e) { return nlohmann::json(e.comparable()); }, cmp::NotRead{});
  v("differences", x.differences);
}

GAUGE_SERIAL_DESCRIPTION(Comparison, "comparison", NoFlags) {
  using Cmp = Comparison;
  namespace cmp = ::gauge::detail::comparing;
  v.constant("schema", "gauge.comparison");
  v.constant("schema_version", "1.3.0");
  v("options", x.options);
  v("base", x.base_source);
  v("new", x.candidate_source);
  v.computed("comparable", json_boolean, x, [](const Cmp& c) { return nlohmann::json(c.comparable()); }, cmp::NotRead{});
  v.computed("any_regression", json_boolean, x, [](const Cmp& c) { return nlohmann::json(c.any_regression()); }, cmp::NotRead{});
  v.computed("any_inconclusive", json_boolean, x, [](const Cmp& c) { return nlohmann::json(c.any_inconclusive()); },
             cmp::NotRead{});
  GAUGE_SERIAL_FIELDS(environment_differences, experiments, only_in_base);
  v("only_in_new", x.only_in_candidate);
  v("notes", x.notes);
  v("base_reports", x.base_sources);
  v("new_reports", x.candidate_sources);
  v("multiplicity_rule", x.multiplicity_rule);
  v.computed("rule", json_string, x, [](const Cmp& c) { return nlohmann::json(cmp::rule_text(c.options)); }, cmp::NotRead{});
}

}  // namespace gauge::serial
