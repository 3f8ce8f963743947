#pragma once
/// \file gauge/core/ranks.hpp
/// What a report says about a run over many processes (ranks of an MPI communicator; gauge/mpi.hpp
/// gathers it, DESIGN.md "Beyond one machine"): every rank's host, GPU and status, each
/// experiment's per-rank results and their cross-rank statistics, and the Timers' last window
/// combined across ranks. The standard library only (core layer). Times are seconds.

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/result.hpp"

namespace gauge {
namespace records {
/// One rank (process) of the communicator and where it ran.
struct RankRecord {
  int rank = 0;                                ///< rank in the communicator, 0-based
  std::string host;                            ///< host name (gethostname); ranks on one node share it
  unsigned process_id = 0;                     ///< the process id on that host
  std::optional<std::string> gpu_name;         ///< the device of its first experiment (absent: host backend)
  std::optional<std::string> gpu_uuid;         ///< CUDA UUID ("GPU-…"): identifies the GPU across hosts
  std::optional<std::string> gpu_pci_bus_id;   ///< e.g. "0000:19:00.0"
  /// NUMA node of the GPU (/sys/bus/pci/devices/<bus id>/numa_node); absent when unknown or -1.
  std::optional<int> numa_node;
  std::string status = "ok";                   ///< "ok", or "failed" when one of its experiments failed
  std::optional<std::string> error;            ///< its first failure, as its result says it
};

/// Statistics of one experiment across ranks, from each rank's own median GPU time per step
/// (`Result::gpu_time.p50` of its per-rank result). The median of the medians is Hyndman–Fan
/// type 7 (with an even count, the mean of the two middle values), as every percentile of gauge.
struct CrossRankStatistics {
  std::vector<std::optional<double>> medians_s;  ///< per rank, in rank order (null: no samples)
  std::optional<double> min_median_s;            ///< smallest per-rank median
  std::optional<double> median_median_s;         ///< median of the per-rank medians
  std::optional<double> max_median_s;            ///< largest per-rank median
  std::optional<double> skew;                    ///< max_median_s / min_median_s (1 = balanced)
  std::optional<int> straggler_rank;             ///< the rank with the largest median (lowest on ties)
  std::optional<int> fastest_rank;               ///< the rank with the smallest median (lowest on ties)
};
}  // namespace records

namespace detail {
/// Computes CrossRankStatistics from per-rank medians (null entries are left out).
inline records::CrossRankStatistics cross_rank_statistics(const std::vector<std::optional<double>>& medians_s) {
  records::CrossRankStatistics s;
  s.medians_s = medians_s;
  std::vector<std::pair<double, int>> known;
  for (std::size_t i = 0; i < medians_s.size(); ++i)
    if (medians_s[i]) known.emplace_back(*medians_s[i], static_cast<int>(i));
  if (known.empty()) return s;
  std::vector<double> values;
  for (const auto& [v, rank] : known) values.push_back(v);
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  // Type 7 at p = 0.5: h = (n - 1) / 2.
  const double h = 0.5 * static_cast<double>(n - 1);
  const auto lo = static_cast<std::size_t>(h);
  const double frac = h - static_cast<double>(lo);
  s.median_median_s = lo + 1 < n ? values[lo] + frac * (values[lo + 1] - values[lo]) : values[lo];
  auto max_it = known.begin(), min_it = known.begin();
  for (auto it = known.begin(); it != known.end(); ++it) {
    if (it->first > max_it->first) max_it = it;
    if (it->first < min_it->first) min_it = it;
  }
  s.min_median_s = min_it->first;
  s.max_median_s = max_it->first;
  s.straggler_rank = max_it->second;
  s.fastest_rank = min_it->second;
  if (min_it->first > 0) s.skew = max_it->first / min_it->first;
  return s;
}
}  // namespace detail

namespace records {
/// One experiment over every rank.
struct RankExperiment {
  std::string name;              ///< the experiment's name (as in `experiments`)
  Dimensions dimensions;         ///< its dimensions
  CrossRankStatistics statistics;  ///< from the per-rank medians
  /// Every rank's own result, in rank order. In collective mode its GPU-time samples and summary
  /// are the rank's own (the report's `experiments` entry holds the slowest rank's per sample).
  std::vector<Result> results;
};

/// A value across ranks: the smallest and largest, and which rank had them.
struct RankedValue {
  std::optional<double> min;  ///< smallest over the ranks that have one
  std::optional<double> max;  ///< largest
  std::optional<int> min_rank;  ///< the rank of min (lowest on ties)
  std::optional<int> max_rank;  ///< the rank of max: the straggler (lowest on ties)
};

/// One Timer region's window median across ranks.
struct RankedRegion {
  std::string name;               ///< the region's name
  /// Its window median time per step, seconds. In a collective the ranks that arrive first wait
  /// longest, so this max_rank is then the rank that waited most, not the straggler.
  RankedValue time_per_step_s;
  /// Its window median start offset in the step (TimerRegionWindow::start_offset_s): when each
  /// rank arrived at it; max_rank arrived last (schema 1.8).
  RankedValue start_offset_s;
  /// The rank that held the others up in this region (schema 1.8): where the ranks' arrivals
  /// spread by at least half as much as their times do (a region whose early ranks wait, such as a
  /// collective), the rank that arrived last (`straggler_by` "arrival"); otherwise, the ranks
  /// arrived together and it is the rank that took longest ("time"). None without values.
  std::optional<int> straggler_rank;
  std::string straggler_by;  ///< "arrival" or "time"; "" when straggler_rank is none
};
}  // namespace records

namespace detail {

/// The straggler of a region across ranks from its arrivals and times (RankedRegion's rule):
/// sets `r.straggler_rank` and `r.straggler_by`.
inline void name_region_straggler(records::RankedRegion& r) {
  r.straggler_rank.reset();
  r.straggler_by.clear();
  const records::RankedValue& t = r.time_per_step_s;
  const records::RankedValue& a = r.start_offset_s;
  const bool have_time = t.min && t.max && t.max_rank, have_arrival = a.min && a.max && a.max_rank;
  if (have_arrival && (!have_time || *a.max - *a.min >= 0.5 * (*t.max - *t.min))) {
    r.straggler_rank = a.max_rank;
    r.straggler_by = "arrival";
  } else if (have_time) {
    r.straggler_rank = t.max_rank;
    r.straggler_by = "time";
  }
}

}  // namespace detail

namespace records {
/// A Timer's window combined across ranks (gauge::mpi::TimerAcrossRanks): per region, the min
/// and max over ranks of the window's median, and the straggler rank.
struct TimerRanksWindow {
  std::string timer;               ///< the Timer's name
  std::size_t steps = 0;           ///< steps resolved on each rank when the window was taken
  int ranks = 0;                   ///< ranks combined
  RankedValue step_time_s;         ///< the window's median GPU time per step
  std::vector<RankedRegion> regions;  ///< in registration order
};

/// A report's account of a run over many ranks (the `ranks` key, schema 1.4).
struct RanksRecord {
  /// "collective" (every rank took the same protocol decisions; each `experiments` entry holds the
  /// slowest rank's time per sample) or "independent" (each rank measured on its own; each
  /// `experiments` entry is rank 0's result).
  std::string mode = "collective";
  int size = 0;                  ///< ranks in the communicator
  int nodes = 0;                 ///< distinct host names among them
  double agreement_timeout_s = 0;  ///< the time limit of every agreement, seconds
  std::vector<RankRecord> ranks;  ///< in rank order (those that answered the gather)
  std::vector<RankExperiment> experiments;  ///< in the order of the report's experiments
  std::vector<TimerRanksWindow> timers;     ///< the last combined window of each Timer
  /// The failure that ended the run, when one did: which rank failed with what, or which
  /// agreement timed out and which ranks did not answer it.
  std::optional<std::string> error;
  std::vector<int> unresponsive_ranks;  ///< ranks that did not answer the agreement that timed out
};
}  // namespace records

}  // namespace gauge
