#pragma once
/// \file gauge/report/fields/report.hpp
/// The descriptions (gauge/report/fields.hpp) of the rest of a report and of its top level:
/// skipped points, many ranks, interleaved A/B runs, and `ReportFields` / `ReportView`.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gauge/core/dimensions.hpp"
#include "gauge/core/environment.hpp"
#include "gauge/core/interleaved.hpp"
#include "gauge/core/ranks.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/skipped.hpp"
#include "gauge/core/timer_summary.hpp"
#include "gauge/report/serial.hpp"
#include "gauge/report/fields/experiment.hpp"
#include "gauge/report/fields/timer.hpp"

namespace gauge {

namespace serial {

// ---- skipped points (suites) --------------------------------------------------------------------

/// SkippedPoint → {"name", "dimensions", "reason"}.
GAUGE_SERIAL_DESCRIBE(records::SkippedPoint, "skipped_point", name, dimensions, reason)

// ---- many ranks (gauge/mpi.hpp) ------------------------------------------------------------------

/// RankRecord → one entry of `ranks.ranks`.
GAUGE_SERIAL_DESCRIBE(records::RankRecord, "rank", rank, host, process_id, gpu_name, gpu_uuid, gpu_pci_bus_id, numa_node,
    status, error)
/// CrossRankStatistics → `ranks.experiments[i].statistics` (seconds; skew is a ratio).
GAUGE_SERIAL_DESCRIPTION(records::CrossRankStatistics, "cross_rank_statistics", NoFlags) {
  v("medians_s", x.medians_s);
  v("min_median_s", x.min_median_s);
  v("median_median_s", x.median_median_s);
  v("max_median_s", x.max_median_s);
  v("skew", x.skew);
  v("straggler_rank", x.straggler_rank);
  v("fastest_rank", x.fastest_rank);
}
/// RankExperiment → one entry of `ranks.experiments`.
GAUGE_SERIAL_DESCRIBE(records::RankExperiment, "rank_experiment", name, dimensions, statistics, results)
/// RankedValue → {"min", "max", "min_rank", "max_rank"}.
GAUGE_SERIAL_DESCRIBE(records::RankedValue, "ranked_value", min, max, min_rank, max_rank)
/// RankedRegion → {"name", "time_per_step_s", and since schema 1.8 "start_offset_s",
/// "straggler_rank", "straggler_by" (null when none)}.
GAUGE_SERIAL_DESCRIPTION(records::RankedRegion, "ranked_region", NoFlags) {
  GAUGE_SERIAL_FIELDS(name, time_per_step_s);
  v("start_offset_s", x.start_offset_s, since_1_8);
  v("straggler_rank", x.straggler_rank, since_1_8);
  v("straggler_by", x.straggler_by, empty_as_null, since_1_8);
}
/// TimerRanksWindow → one entry of `ranks.timers`.
GAUGE_SERIAL_DESCRIPTION(records::TimerRanksWindow, "timer_ranks_window", NoFlags) {
  GAUGE_SERIAL_FIELDS(timer, steps, ranks);
  v("step_time_s", x.step_time_s);
  v("regions", x.regions);
}
/// RanksRecord → the report's `ranks` object (schema 1.4).
GAUGE_SERIAL_DESCRIBE(records::RanksRecord, "ranks", mode, size, nodes, agreement_timeout_s, ranks, experiments, timers, error,
    unresponsive_ranks)

// ---- interleaved A/B runs (gauge/interleave.hpp) --------------------------------------------------

/// InterleaveConfig → every setting, max_time in seconds (schema 1.5).
GAUGE_SERIAL_DESCRIPTION(InterleaveConfig, "interleave_config", NoFlags) {
  GAUGE_SERIAL_FIELDS(threshold, confidence_level, target_relative_ci_width, min_pairs);
  v("max_time_s", x.max_time);
  GAUGE_SERIAL_FIELDS(resamples, seed);
}

/// PairedRatio → {"estimate", "low", "high", "level", "pairs", "blocks", "resamples", "seed"} (schema 1.5).
GAUGE_SERIAL_DESCRIBE(stats::PairedRatio, "paired_ratio", estimate, low, high, level, pairs, blocks, resamples, seed)

/// PairedDifference → {"estimate_s", "low_s", "high_s", "level", "blocks"} (schema 1.6).
GAUGE_SERIAL_DESCRIBE(stats::PairedDifference, "paired_difference", estimate_s, low_s, high_s, level, blocks)

/// InterleavedRecord → one entry of the report's `interleaved` list (schema 1.5): A and B as
/// indices into `experiments`, the paired ratio B / A (null with too few pairs), the verdict, and
/// the rule (a constant of this gauge: checked to be a string when read, otherwise ignored).
GAUGE_SERIAL_DESCRIPTION(records::InterleavedRecord, "interleaved", NoFlags) {
  GAUGE_SERIAL_FIELDS(a, b, ratio, verdict, reason, order, stopping_reason);
  v("measure_time_s", x.measure_time_s, nan_as_null);
  GAUGE_SERIAL_FIELDS(pair_ratios, config);
  v("difference", x.difference, since_1_6);
  v("pair_differences_s", x.pair_differences_s, since_1_6);
  v.constant("rule", records::InterleavedOutcome::rule);
}

// ---- the report ------------------------------------------------------------------------------

/// The top level of a report: {"schema", "schema_version", "gauge_version", "created_utc",
/// "environment", "experiments", "timers", "skipped"}, for any `C` with those members (`results`
/// for the experiments): gauge::StoredReport when read, ReportView when written.
struct ReportFields {
  static constexpr const char* name = "report";
  template <class V, class C>
  static void describe(V& v, C& x) {
    GAUGE_SERIAL_FIELDS(schema, schema_version, gauge_version, created_utc, environment);
    v("experiments", x.results);
    v("timers", x.timers, since_1_1);
    v("skipped", x.skipped, since_1_3);
    v("ranks", x.ranks, since_1_4);
    v("interleaved", x.interleaved, since_1_5);
    v("axes", x.axes, since_1_9);
  }
};

/// What report_json writes: the top level by reference (nothing is copied).
struct ReportView {
  std::string schema;                     ///< "gauge.report"
  std::string schema_version;             ///< report_schema_version
  std::string gauge_version;              ///< version_string
  std::string created_utc;                ///< ISO 8601 UTC
  const Environment& environment;         ///< measured once
  const std::vector<Result>& results;     ///< the experiments, in order
  const std::vector<TimerSummary>& timers;  ///< Timer summaries, in order
  const std::vector<records::SkippedPoint>& skipped; ///< points of a sweep that were skipped, in order
  const std::optional<records::RanksRecord>& ranks; ///< many ranks (gauge/mpi.hpp); null for one process
  const std::vector<records::InterleavedRecord>& interleaved; ///< interleaved A/B runs, in order
  const std::map<std::string, std::vector<std::string>>& axes;  ///< declared axis order by benchmark
};
template <>
struct Fields<ReportView> : ReportFields {};

}  // namespace serial
}  // namespace gauge
