#pragma once
/// \file gauge/detail/timer_state.hpp
/// gauge::detail::TimerState: the part of gauge::Timer that does not depend on its backend. It
/// keeps the regions (names, levels, kinds, nesting, which are open), the step in progress, the
/// rolling window and the totals of the resolved steps, the counters and the errors kept for later,
/// and does the bookkeeping on them: registration and misuse checks, opening and closing regions,
/// ending a step, folding a resolved step's times in. TimerCore<Backend>
/// (gauge/detail/timer_core.hpp) adds what depends on the backend: the markers, the streams and
/// the backend's calls (record, query, wait, elapsed, release); gauge/detail/timer_summarize.hpp
/// builds summaries from a TimerState.
///
/// No template: this code is compiled once per translation unit, whatever the backends the
/// Timers in it use.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gauge/core/error.hpp"
#include "gauge/core/timer_summary.hpp"
#include "gauge/detail/ring.hpp"

namespace gauge::detail {

/// No region: the parent of a region first started outside any other, or no open phase.
inline constexpr std::uint32_t no_region = std::numeric_limits<std::uint32_t>::max();

/// Throws ConfigError unless `level` is a valid region level (0..2).
inline void check_region_level(int level, std::string_view name) {
  if (level < timer_level::coarse || level > timer_level::max)
    throw ConfigError("region '" + std::string(name) + "': level " + std::to_string(level) +
                      " is not a region level (0 coarse, 1 normal, 2 detailed)");
}

/// For a call above the Timer's level (a no-op): a level above the highest is still an error.
inline void check_disabled_level(int level, std::string_view name) {
  if (level > timer_level::max) check_region_level(level, name);
}

/// What a region is used as; fixed by its first start or phase.
enum class TimerRegionKind : unsigned char { unused, region, phase };

/// A region's sample of one resolved step in its window: the sum of its occurrences in the step.
struct TimerWindowEntry {
  std::size_t step = 0;   ///< the step's index
  double value = 0;       ///< seconds
  std::size_t count = 0;  ///< occurrences
  /// Seconds from the step's start boundary to the region's first start in it (negative when
  /// that occurrence started in an earlier step); NaN when it could not be read.
  double start_offset = std::numeric_limits<double>::quiet_NaN();
};

/// One resolved step in the Timer's window.
struct TimerStepEntry {
  std::size_t step = 0;            ///< the step's index
  double gpu_s = 0, wall_s = 0;    ///< its GPU time and wall time, seconds
  StepWork work;                   ///< its work
};

/// A region's state apart from its markers (Timer<Backend> keeps the start marker and the stream
/// of the open occurrence).
struct TimerRegionState {
  std::string name;
  int level = timer_level::normal;
  TimerRegionKind kind = TimerRegionKind::unused;
  std::uint32_t parent = no_region;  ///< the innermost region open at its first start
  bool seen = false;                 ///< started at least once
  bool first_foreign = false;        ///< its first start was on another stream than the Timer's
  bool open = false;                 ///< started and not stopped
  bool foreign = false;              ///< the open occurrence is on another stream
  double accum = 0;                  ///< its time in the step being resolved, seconds
  std::size_t accum_count = 0;       ///< its occurrences in the step being resolved
  double accum_offset = std::numeric_limits<double>::quiet_NaN();  ///< its first start's offset in that step
  std::size_t offset_step = static_cast<std::size_t>(-1);  ///< the step whose first start was read
  Ring<TimerWindowEntry> window;     ///< its samples of the last `window` steps it occurred in
  stats::RunningStats total;         ///< its per-step time over all measured steps
  std::size_t total_steps = 0, total_occurrences = 0;
};

/// An ended step apart from its markers: what step() knew when it ended it.
struct TimerStepRecord {
  std::size_t index = 0;      ///< 0-based
  double wall_s = 0;          ///< host time since the previous step() (or the first call)
  StepWork work;              ///< the work given to step()
  std::size_t intervals = 0;  ///< region occurrences that stopped in it
  std::size_t foreign = 0;    ///< of which on another stream
};

/// The resolved steps after warm-up: the rolling window and the totals.
struct TimerHistory {
  Ring<TimerStepEntry> window;         ///< the last `TimerConfig::window` steps
  stats::RunningStats gpu_total, wall_total; ///< GPU and wall time per step, all steps
  WorkSums work_total;                 ///< work, all steps
  std::size_t measured_steps = 0;      ///< steps folded in
};

/// What folding a resolved step did (TimerState::fold).
enum class TimerFold : unsigned char {
  warmup,     ///< a warm-up step: left out
  warmed_up,  ///< the last warm-up step: the Timer is warm from now on
  measured,   ///< folded into the window and the totals
  log_due,    ///< folded in, and a multiple of `log_every` steps have been
};

/// gauge::Timer's backend-independent state; see the file comment. The names in the messages of
/// its ConfigErrors are the Timer's and its regions'.
class TimerState {
 public:
  /// \throws ConfigError for an empty name or invalid settings.
  TimerState(std::string name, TimerConfig config) : name_(std::move(name)), config_(std::move(config)) {
    if (name_.empty()) throw ConfigError("Timer name must not be empty");
    validate(config_);
    level_ = config_.level;
    history_.window.reserve(config_.window);
    if (config_.warmup_steps == 0) warm_ = true;
  }

  // ---- settings -----------------------------------------------------------------------------

  const std::string& name() const { return name_; }
  const TimerConfig& config() const { return config_; }
  int level() const { return level_; }
  /// ConfigError for a level outside -1..2 or while a region is open.
  void set_level(int level) {
    if (level < timer_level::off || level > timer_level::max)
      throw ConfigError("Timer '" + name_ + "': level " + std::to_string(level) + " is not in [-1, 2]");
    if (!open_stack_.empty())
      throw ConfigError("Timer '" + name_ + "': the level cannot change while region '" +
                        regions_[open_stack_.back()].name + "' is open; change it after step()");
    level_ = level;
    config_.level = level;
  }

  // ---- regions --------------------------------------------------------------------------------

  /// The region named `name`, or no_region: a linear search over a few regions (no hashing on
  /// the common path), a hash lookup beyond `linear_regions` (3·10⁴ names took 20 s linearly).
  std::uint32_t find(std::string_view name) const {
    const std::size_t n = regions_.size();
    if (n <= linear_regions) {
      // From the region after the one found last: a loop's phases and regions come in order.
      for (std::size_t k = 0, i = next_hint_ < n ? next_hint_ : 0; k < n; ++k, i = i + 1 == n ? 0 : i + 1)
        if (regions_[i].name == name) {
          next_hint_ = i + 1;
          return static_cast<std::uint32_t>(i);
        }
      return no_region;
    }
    const std::size_t mask = slots_.size() - 1;  // open addressing, linear probing
    for (std::size_t i = std::hash<std::string_view>{}(name) & mask;; i = (i + 1) & mask) {
      const std::uint32_t id = slots_[i];
      if (id == no_region) return no_region;
      if (regions_[id].name == name) return id;
    }
  }
  /// Regions searched linearly; the hash index serves beyond.
  static constexpr std::size_t linear_regions = 16;
  /// The region `name` used at `level`, or no_region if there is none yet (add_region() registers
  /// it). ConfigError for a level outside 0..2, a name registered at another level, or an empty
  /// name.
  std::uint32_t find_for_use(std::string_view name, int level) const {
    check_region_level(level, name);
    const std::uint32_t id = find(name);
    if (id != no_region) {
      if (regions_[id].level != level)
        throw ConfigError("Timer '" + name_ + "': region '" + std::string(name) + "' was registered at level " +
                          std::to_string(regions_[id].level) + " and is used at level " + std::to_string(level));
      return id;
    }
    if (name.empty()) throw ConfigError("Timer '" + name_ + "': a region name must not be empty");
    return no_region;
  }
  /// Registers a region that find_for_use() did not find; returns its id (allocates).
  std::uint32_t add_region(std::string_view name, int level) {
    TimerRegionState r;
    r.name = std::string(name);
    r.level = level;
    r.window.reserve(config_.window);
    regions_.push_back(std::move(r));
    const auto id = static_cast<std::uint32_t>(regions_.size() - 1);
    if (2 * regions_.size() > slots_.size()) {  // at most half full: rebuild at twice the size
      std::size_t n = 64;
      while (n < 4 * regions_.size()) n *= 2;  // a power of 2: `& (n - 1)` is the modulo
      slots_.assign(n, no_region);
      for (std::uint32_t k = 0; k < id; ++k) insert_slot(k);
    }
    insert_slot(id);
    open_stack_.reserve(regions_.size());
    touched_.reserve(regions_.size());
    return id;
  }
  /// The region `name` for a stop by name: ConfigError if there is none.
  std::uint32_t find_started(std::string_view name) const {
    const std::uint32_t id = find(name);
    if (id == no_region)
      throw ConfigError("Timer '" + name_ + "': stop of region '" + std::string(name) + "', which was never started");
    return id;
  }
  std::size_t region_count() const { return regions_.size(); }
  /// The regions, by id.
  const std::vector<TimerRegionState>& regions() const { return regions_; }

  // ---- recording ------------------------------------------------------------------------------

  /// Before a start of region `id`: ConfigError for a handle of another Timer, a region already
  /// open, or a phase.
  void check_start(std::uint32_t id) {
    TimerRegionState& r = region_of(id);
    set_kind(r, TimerRegionKind::region);  // first: the open phase is a phase, not a started region
    if (r.open) throw ConfigError("Timer '" + name_ + "': start of region '" + r.name + "', which is already started");
  }
  /// Before a stop of region `id`: ConfigError for a handle of another Timer or a region not open.
  void check_stop(std::uint32_t id) {
    const TimerRegionState& r = region_of(id);
    if (!r.open)
      throw ConfigError("Timer '" + name_ + "': stop of region '" + r.name +
                        "', which was not started (or was already stopped)");
  }
  /// Before region `id` becomes the phase: ConfigError for a handle of another Timer or a
  /// start/stop region.
  void check_phase(std::uint32_t id) { set_kind(region_of(id), TimerRegionKind::phase); }

  /// Region `id` starts (on another stream than the Timer's if `foreign`).
  void open_region(std::uint32_t id, bool foreign) {
    TimerRegionState& r = regions_[id];
    r.open = true;
    r.foreign = foreign;
    if (!r.seen) {
      r.seen = true;
      r.parent = open_stack_.empty() ? no_region : open_stack_.back();
      r.first_foreign = foreign;
    }
    open_stack_.push_back(id);
    ++counters_.region_boundaries;
  }
  /// Region `id` stops: one more occurrence in the step in progress.
  void close_region(std::uint32_t id) {
    TimerRegionState& r = regions_[id];
    ++cur_intervals_;
    if (r.foreign) ++cur_foreign_;
    r.open = false;
    for (std::size_t i = open_stack_.size(); i-- > 0;) {
      if (open_stack_[i] == id) {
        open_stack_.erase(open_stack_.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
    }
    if (open_phase_ == id) open_phase_ = no_region;
    ++counters_.region_boundaries;
  }
  /// Whether the open occurrence of region `id` is on another stream.
  bool foreign(std::uint32_t id) const { return regions_[id].foreign; }
  /// The open regions, innermost last.
  const std::vector<std::uint32_t>& open_regions() const { return open_stack_; }
  /// The open phase, or no_region.
  std::uint32_t open_phase() const { return open_phase_; }
  /// Region `id` (just opened) is the open phase.
  void set_open_phase(std::uint32_t id) { open_phase_ = id; }

  /// The first step starts at host time `now`.
  void begin(double now) { last_step_host_ = now; }
  /// Ends the step in progress at host time `now`; the next starts there.
  TimerStepRecord end_step(const StepWork& work, double now) {
    TimerStepRecord ps;
    ps.index = steps_++;
    ps.wall_s = now - last_step_host_;
    ps.work = work;
    ps.intervals = cur_intervals_;
    ps.foreign = cur_foreign_;
    cur_intervals_ = cur_foreign_ = 0;
    last_step_host_ = now;
    return ps;
  }
  /// Steps ended so far.
  std::size_t steps() const { return steps_; }
  /// Region occurrences stopped in the step in progress.
  std::size_t unended_intervals() const { return cur_intervals_; }

  /// Keeps the first error of a Scope's destructor for rethrow_deferred().
  void defer_error(const char* what) noexcept {
    try {
      if (deferred_error_.empty()) deferred_error_ = std::string("at the end of a scope: ") + what;
    } catch (...) {
    }
  }
  /// Throws the error kept by defer_error() (once) as a ConfigError.
  void rethrow_deferred() {
    if (deferred_error_.empty()) return;
    std::string e;
    e.swap(deferred_error_);
    throw ConfigError("Timer '" + name_ + "': " + e);
  }

  // ---- resolution -----------------------------------------------------------------------------

  records::TimerCounters& counters() { return counters_; }
  const records::TimerCounters& counters() const { return counters_; }
  /// Where Timer<Backend> reads the times of a step's region occurrences, in order.
  std::vector<double>& scratch() { return scratch_; }
  /// Throws Error if step `index`'s GPU time or one in scratch() is not finite.
  void check_finite(std::size_t index, double gpu) const {
    if (!std::isfinite(gpu)) throw Error("elapsed time of step " + std::to_string(index) + " is not finite");
    for (double x : scratch_)
      if (!std::isfinite(x))
        throw Error("elapsed time of a region in step " + std::to_string(index) + " is not finite");
  }
  /// Whether an occurrence of region `id` is its first in step `index` (then its start offset
  /// is read): true once per region and step.
  bool first_in_step(std::uint32_t id, std::size_t index) {
    TimerRegionState& r = regions_[id];
    if (r.offset_step == index) return false;
    r.offset_step = index;
    return true;
  }
  /// Adds an occurrence of region `id` of `seconds` to the step being resolved; `start_offset`
  /// (seconds from the step's start boundary to this occurrence's start) counts for its first.
  void accumulate(std::uint32_t id, double seconds, double start_offset = std::numeric_limits<double>::quiet_NaN()) {
    TimerRegionState& r = regions_[id];
    if (r.accum_count == 0) {
      touched_.push_back(id);
      r.accum_offset = start_offset;
    }
    r.accum += seconds;
    ++r.accum_count;
  }
  /// Step `index` could not be read and is dropped: counts it, keeps the message for the
  /// summary's warning, and rethrows `error`.
  [[noreturn]] void fail_step(std::size_t index, const std::exception_ptr& error) {
    ++counters_.failed_steps;
    clear_touched();
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      last_error_ = "step " + std::to_string(index) + ": " + e.what();
    } catch (...) {
      last_error_ = "step " + std::to_string(index) + ": unknown error";
    }
    std::rethrow_exception(error);
  }
  /// Folds resolved step `ps` of GPU time `gpu` and the occurrences accumulate() added into the
  /// window and the totals, or leaves it out as warm-up.
  TimerFold fold(const TimerStepRecord& ps, double gpu) {
    ++counters_.resolved_steps;
    if (ps.index < config_.warmup_steps) {
      ++counters_.warmup_steps;
      clear_touched();
      if (ps.index + 1 != config_.warmup_steps) return TimerFold::warmup;
      warm_ = true;
      return TimerFold::warmed_up;
    }
    TimerHistory& h = history_;
    if (h.window.size() == config_.window) h.window.pop_front();
    TimerStepEntry e;
    e.step = ps.index;
    e.gpu_s = gpu;
    e.wall_s = ps.wall_s;
    e.work = ps.work;
    h.window.push_back(e);
    h.gpu_total.add(std::max(0.0, gpu));
    h.wall_total.add(std::max(0.0, ps.wall_s));
    h.work_total.add(ps.work);
    for (std::uint32_t id : touched_) {
      TimerRegionState& r = regions_[id];
      if (r.window.size() == config_.window) r.window.pop_front();
      r.window.push_back({ps.index, r.accum, r.accum_count, r.accum_offset});
      r.total.add(std::max(0.0, r.accum));
      ++r.total_steps;
      r.total_occurrences += r.accum_count;
      r.accum = 0;
      r.accum_count = 0;
    }
    touched_.clear();
    ++h.measured_steps;
    return config_.log_every > 0 && h.measured_steps % config_.log_every == 0 ? TimerFold::log_due
                                                                               : TimerFold::measured;
  }
  /// Whether warm-up is over.
  bool warm() const { return warm_; }
  /// The backend's markers created when warm-up ended (to tell whether the pool grew after it).
  void set_pool_at_warm(std::size_t markers_created) { pool_at_warm_ = markers_created; }
  const std::optional<std::size_t>& pool_at_warm() const { return pool_at_warm_; }
  /// The resolved steps after warm-up.
  const TimerHistory& history() const { return history_; }
  /// The error of the last step that could not be resolved ("" if none).
  const std::string& last_error() const { return last_error_; }

 private:
  // The checks of every start, stop and phase: the common path inline, the errors' messages apart.
  TimerRegionState& region_of(std::uint32_t id) {
    if (id >= regions_.size()) throw_foreign_handle(id);
    return regions_[id];
  }
  void set_kind(TimerRegionState& r, TimerRegionKind k) {
    if (r.kind == k) return;
    if (r.kind != TimerRegionKind::unused) throw_other_kind(r, k);
    r.kind = k;
  }
  [[noreturn]] void throw_foreign_handle(std::uint32_t id) const {
    throw ConfigError("Timer '" + name_ + "': region handle " + std::to_string(id) +
                      " does not belong to this Timer (it has " + std::to_string(regions_.size()) + " regions)");
  }
  [[noreturn]] void throw_other_kind(const TimerRegionState& r, TimerRegionKind k) const {
    using K = TimerRegionKind;
    throw ConfigError("Timer '" + name_ + "': region '" + r.name + "' is a " +
                      (r.kind == K::phase ? "phase (use phase())" : "start/stop region (use start/stop or scope)") +
                      " and cannot also be a " + (k == K::phase ? "phase" : "start/stop region"));
  }
  void clear_touched() {
    for (std::uint32_t id : touched_) {
      regions_[id].accum = 0;
      regions_[id].accum_count = 0;
    }
    touched_.clear();
  }

  std::string name_;
  TimerConfig config_;
  int level_ = timer_level::normal;

  std::vector<TimerRegionState> regions_;
  mutable std::size_t next_hint_ = 0;  // find(): where the linear search starts
  std::vector<std::uint32_t> slots_;  // ids by the hash of their names (no_region: empty), a power of 2
  void insert_slot(std::uint32_t id) {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = std::hash<std::string_view>{}(regions_[id].name) & mask;
    while (slots_[i] != no_region) i = (i + 1) & mask;
    slots_[i] = id;
  }
  std::vector<std::uint32_t> open_stack_;
  std::uint32_t open_phase_ = no_region;

  double last_step_host_ = 0;
  std::size_t steps_ = 0;
  std::size_t cur_intervals_ = 0, cur_foreign_ = 0;

  TimerHistory history_;
  bool warm_ = false;
  std::optional<std::size_t> pool_at_warm_;

  std::vector<double> scratch_;
  std::vector<std::uint32_t> touched_;
  records::TimerCounters counters_;
  std::string deferred_error_;
  std::string last_error_;
};

}  // namespace gauge::detail
