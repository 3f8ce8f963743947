#pragma once
/// \file gauge/suite/progress.hpp
/// The runner's progress line on stderr: run i of N (points × repetitions), its name and axis
/// values, which repetition it is (with `--repetitions N`, N > 1), the median so far
/// of the point running (or, between points, the last point's), the time elapsed and an estimate
/// of the time left. Shown only for runs longer than
/// `progress_delay` and only when stderr is a terminal (never with --quiet), redrawn in place.

#include "gauge/detail/fmt.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>

#include "gauge/core/format.hpp"

namespace gauge {

namespace detail {
/// Runs shorter than this stay silent (no progress line at all).
inline constexpr std::chrono::milliseconds progress_delay{2000};

/// What the progress line shows.
struct ProgressState {
  std::size_t index = 0;   ///< the point running now, 1-based, counted over all repetitions
  std::size_t total = 0;   ///< runs of points in the run (points × repetitions)
  std::size_t repetition = 1;   ///< the repetition running, 1-based (`--repetitions`)
  std::size_t repetitions = 1;  ///< repetitions of every point (1: the line does not mention them)
  std::string label;       ///< its name and axis values, e.g. "triad/T=float/N=4096"
  std::optional<double> last_median_s;  ///< median time per step of the last point finished, seconds
  /// The running point's median time per step so far, seconds, and its samples (after its first
  /// measured round; reset when a point begins).
  std::optional<double> median_so_far_s;
  std::size_t samples_so_far = 0;
  std::string last_time_label = "GPU time";  ///< what that median is (GPU time, real time)
  double elapsed_s = 0;    ///< seconds since the run began
  std::size_t finished = 0;  ///< points finished so far
  /// Seconds since the run began when the last point finished (`elapsed_s` then); the running
  /// point has spent elapsed_s − finished_elapsed_s.
  double finished_elapsed_s = 0;
};

/// Time left, from the mean time m of the points finished so far (finished_elapsed_s / finished):
/// m for every point not begun, and for the running point m less what it has spent, at least 0:
/// m × (total − finished − 1) + max(0, m − (elapsed_s − finished_elapsed_s)). So the estimate
/// never grows while a point runs (it did: elapsed / finished × (total − finished)). Empty before
/// the first point has finished.
inline std::optional<double> progress_remaining_s(const ProgressState& s) {
  if (s.finished == 0 || s.total < s.finished) return std::nullopt;
  const double mean = s.finished_elapsed_s / static_cast<double>(s.finished);
  if (s.total == s.finished) return 0.0;
  const double spent = std::max(0.0, s.elapsed_s - s.finished_elapsed_s);
  return mean * static_cast<double>(s.total - s.finished - 1) + std::max(0.0, mean - spent);
}

/// The progress line (no newline), e.g.
/// "[3/40] triad/T=float/N=4096 | median so far 12.35 us (240 samples) | 4.1 s elapsed, ~50.0 s left",
/// or "| last median 12.35 us" before the running point's first round; with repetitions
/// "[43/80] triad/T=float/N=4096 (repetition 2/2) | ...".
inline std::string progress_line(const ProgressState& s) {
  std::string line = fmt::format("[{}/{}] {}", s.index, s.total, s.label);
  if (s.repetitions > 1) line += fmt::format(" (repetition {}/{})", s.repetition, s.repetitions);
  if (s.median_so_far_s)
    line += fmt::format(" | median so far {} ({} samples)", detail::format_time(s.median_so_far_s), s.samples_so_far);
  else if (s.last_median_s)
    line += " | last median " + detail::format_time(s.last_median_s);
  line += " | " + format_duration(s.elapsed_s) + " elapsed";
  if (const auto left = progress_remaining_s(s)) line += ", ~" + format_duration(*left) + " left";
  return line;
}
}  // namespace detail

}  // namespace gauge
