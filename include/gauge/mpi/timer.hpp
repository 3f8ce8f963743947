#pragma once
/// \file gauge/mpi/timer.hpp
/// gauge::Timer's windows combined across ranks without a per-step synchronization:
/// `TimerAcrossRanks` (one non-blocking MPI_Iallreduce per log, completed at a later step's poll)
/// and `console_line`, one line of a combined window. Part of gauge/mpi.hpp.

#include <mpi.h>

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/error.hpp"
#include "gauge/core/format.hpp"
#include "gauge/core/ranks.hpp"
#include "gauge/core/timer_summary.hpp"
#include "gauge/detail/fmt.hpp"
#include "gauge/mpi/options.hpp"
#include "gauge/mpi/support.hpp"

namespace gauge::mpi {

/// gauge::Timer's window summaries combined across ranks without a per-step synchronization.
///
/// At every `log_every` step the Timer calls the sink (`sink()`, registered with
/// `timer.on_log(...)`), which packs the window's median step time and each region's window
/// median, *starts* one MPI_Iallreduce (MPI_MAXLOC over {value, rank} pairs; the minimum as the
/// maximum of the negated values) and returns at once. Each region also carries its window median
/// start offset in the step (TimerRegionWindow::start_offset_s: when the rank arrived at it). The
/// loop calls `poll()` at every step (an MPI_Test, never waits): the reduction completes at a later
/// step and `on_combined` receives the min / max over ranks and the rank of each, and per region
/// the straggler (RankedRegion::straggler_rank): in a collective, the ranks that arrive first wait
/// longest, so the straggler is the rank that arrives last, not the one with the longest time. Reductions still
/// in flight at the next log stay queued (MPI matches non-blocking collectives in the order they
/// start, so every rank starts one per log and none waits for a slow rank); poll() delivers them
/// in order. finish() completes what is in flight (polling, with a time limit). Every rank must
/// register the same regions in the same order (checked: the names' hash is reduced too) and log
/// at the same steps (the same log_every and warm-up; checked).
///
/// Against Megatron-LM's timers (megatron/core/timers.py, `Timers.log(..., barrier=False)` with
/// `--timing-log-option minmax`): Megatron reports the same min / max over ranks, but gathers every
/// rank's elapsed times with a blocking all-gather (`torch.distributed.all_gather_into_tensor`)
/// at log time, optionally after a barrier, and each timer's start/stop calls
/// `torch.cuda.synchronize()`: every log is a synchronization point of all ranks. Here a log
/// costs one non-blocking call, and completion is observed at a later step's poll().
class TimerAcrossRanks {
 public:
  /// \param comm the communicator (every rank of it runs the loop).
  /// \param on_combined receives each combined window (on every rank), at a later poll().
  /// \param max_regions regions a window can carry (the message has a fixed size on every rank).
  TimerAcrossRanks(MPI_Comm comm, std::function<void(const records::TimerRanksWindow&)> on_combined, std::size_t max_regions = 64)
      : comm_(comm), on_combined_(std::move(on_combined)), max_regions_(max_regions) {
    detail::check(MPI_Comm_rank(comm, &rank_), "MPI_Comm_rank");
    detail::check(MPI_Comm_size(comm, &size_), "MPI_Comm_size");
  }
  TimerAcrossRanks(const TimerAcrossRanks&) = delete;
  TimerAcrossRanks& operator=(const TimerAcrossRanks&) = delete;
  ~TimerAcrossRanks() {
    try {
      finish(std::chrono::seconds(5));
    } catch (...) {
      // A destructor does not throw; call finish() to see the error.
    }
  }

  /// The sink for `timer.on_log(...)`: starts the reduction of this window (never waits).
  std::function<void(const TimerSummary&)> sink() {
    return [this](const TimerSummary& s) { start(s); };
  }

  /// Starts combining `s` (what sink() does), after delivering what completed (poll()).
  /// \throws ConfigError when the Timer has more than max_regions regions.
  void start(const TimerSummary& s) {
    poll();
    if (s.regions.size() > max_regions_)
      throw ConfigError("TimerAcrossRanks: the Timer '" + s.name + "' has " + std::to_string(s.regions.size()) +
                        " regions, more than max_regions = " + std::to_string(max_regions_));
    auto f = std::make_unique<InFlight>();
    f->window.timer = s.name;
    f->window.steps = s.counters.resolved_steps;
    f->window.ranks = size_;
    std::uint64_t hash = 1469598103934665603ull;  // FNV-1a of the region names, in order
    for (const auto& r : s.regions) {
      for (char ch : r.name + '\n') hash = (hash ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
      records::RankedRegion region;
      region.name = r.name;
      f->window.regions.push_back(std::move(region));
    }
    f->send.resize(2 * (3 + 2 * max_regions_));
    f->recv.resize(f->send.size());
    std::size_t i = 0;
    auto put = [&](std::optional<double> v) {
      const double lowest = -std::numeric_limits<double>::infinity();
      f->send[i++] = {v ? *v : lowest, rank_};   // max over ranks
      f->send[i++] = {v ? -*v : lowest, rank_};  // min over ranks, negated
    };
    put(static_cast<double>(hash >> 12));  // exact in a double
    put(static_cast<double>(s.counters.resolved_steps));
    put(s.window.gpu_time_s.p50);
    for (std::size_t r = 0; r < max_regions_; ++r)
      put(r < s.regions.size() ? s.regions[r].window.time_per_step_s.p50 : std::nullopt);
    for (std::size_t r = 0; r < max_regions_; ++r)
      put(r < s.regions.size() ? s.regions[r].window.start_offset_s : std::nullopt);
    detail::check(MPI_Iallreduce(f->send.data(), f->recv.data(), static_cast<int>(f->send.size()), MPI_DOUBLE_INT,
                                 MPI_MAXLOC, comm_, &f->request),
                  "MPI_Iallreduce");
    in_flight_.push_back(std::move(f));
    ++started_;
  }

  /// MPI_Test on the oldest reduction in flight (never waits), delivering each that completed, in
  /// order. Call at every step. Returns true when nothing is in flight any more.
  bool poll() {
    while (!in_flight_.empty()) {
      int done = 0;
      detail::check(MPI_Test(&in_flight_.front()->request, &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (!done) return false;
      deliver();
    }
    return true;
  }

  /// Completes every reduction in flight, polling up to `timeout` for each.
  /// \throws AgreementError on timeout; ConfigError when the ranks' windows do not match.
  void finish(std::chrono::duration<double> timeout = std::chrono::seconds(60)) {
    while (!in_flight_.empty()) {
      if (!detail::test_until(in_flight_.front()->request, timeout.count()))
        throw AgreementError("TimerAcrossRanks: the combined window of '" + in_flight_.front()->window.timer +
                                 "' did not complete in " + fmt::format("{:g}", timeout.count()) + " s",
                             "timer window", {});
      deliver();
    }
  }

  std::size_t started() const { return started_; }      ///< reductions started (one per log)
  std::size_t completed() const { return completed_; }  ///< reductions delivered
  std::size_t in_flight() const { return in_flight_.size(); }  ///< reductions not completed yet
  /// The last combined window (empty timer name: none yet).
  const records::TimerRanksWindow& last() const { return last_; }

 private:
  struct DoubleInt {  // MPI_DOUBLE_INT
    double value;
    int rank;
  };
  struct InFlight {
    records::TimerRanksWindow window;
    std::vector<DoubleInt> send, recv;
    MPI_Request request = MPI_REQUEST_NULL;
  };

  static records::RankedValue value_at(const InFlight& f, std::size_t i) {
    records::RankedValue v;
    const auto& hi = f.recv[2 * i];
    const auto& lo = f.recv[2 * i + 1];
    if (std::isfinite(hi.value)) {
      v.max = hi.value;
      v.max_rank = hi.rank;
    }
    if (std::isfinite(lo.value)) {
      v.min = -lo.value;
      v.min_rank = lo.rank;
    }
    return v;
  }

  void deliver() {
    std::unique_ptr<InFlight> f = std::move(in_flight_.front());
    in_flight_.erase(in_flight_.begin());
    ++completed_;
    const records::RankedValue hash = value_at(*f, 0), steps = value_at(*f, 1);
    if (hash.min != hash.max)
      throw ConfigError("TimerAcrossRanks: the Timer '" + f->window.timer +
                        "' has different regions on different ranks (every rank must register the same regions in "
                        "the same order)");
    if (steps.min != steps.max)
      throw ConfigError("TimerAcrossRanks: the ranks logged the Timer '" + f->window.timer + "' at different steps (" +
                        fmt::format("{:g} and {:g}", steps.min.value_or(0), steps.max.value_or(0)) +
                        "): use the same log_every and warm-up");
    f->window.step_time_s = value_at(*f, 2);
    for (std::size_t r = 0; r < f->window.regions.size(); ++r) {
      records::RankedRegion& region = f->window.regions[r];
      region.time_per_step_s = value_at(*f, 3 + r);
      region.start_offset_s = value_at(*f, 3 + max_regions_ + r);
      gauge::detail::name_region_straggler(region);
    }
    last_ = f->window;
    if (on_combined_) on_combined_(last_);
  }

  MPI_Comm comm_;
  std::function<void(const records::TimerRanksWindow&)> on_combined_;
  std::size_t max_regions_;
  int rank_ = 0, size_ = 1;
  std::vector<std::unique_ptr<InFlight>> in_flight_;
  records::TimerRanksWindow last_;
  std::size_t started_ = 0, completed_ = 0;
};

/// One console line of a combined window: `timer train across 2 ranks, step 1200 | step 1.52 ms
/// .. 1.60 ms (rank 1) | forward 0.50 ms .. 0.61 ms (rank 1; straggler rank 1 by time) | allreduce
/// 0.10 ms .. 0.21 ms (rank 0; straggler rank 1 by arrival) | ...`: each range's max rank, and each
/// region's straggler with the rule that named it.
inline std::string console_line(const records::TimerRanksWindow& w) {
  auto range = [](const records::RankedValue& v) {
    return gauge::detail::format_time(v.min) + " .. " + gauge::detail::format_time(v.max) +
           (v.max_rank ? " (rank " + std::to_string(*v.max_rank) + ")" : std::string());
  };
  auto region_range = [&](const records::RankedRegion& r) {
    std::string s = range(r.time_per_step_s);
    if (r.straggler_rank) {
      const std::string note = "straggler rank " + std::to_string(*r.straggler_rank) + " by " + r.straggler_by;
      s = r.time_per_step_s.max_rank ? s.substr(0, s.size() - 1) + "; " + note + ")" : s + " (" + note + ")";
    }
    return s;
  };
  std::string line = "timer " + w.timer + " across " + std::to_string(w.ranks) + " ranks, step " +
                     std::to_string(w.steps) + " | step " + range(w.step_time_s) +
                     (w.step_time_s.max_rank ? " straggler rank " + std::to_string(*w.step_time_s.max_rank) : "");
  for (const auto& r : w.regions) line += " | " + r.name + " " + region_range(r);
  return line;
}

}  // namespace gauge::mpi
