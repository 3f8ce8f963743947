#pragma once
/// \file gauge/detail/timer_trace.hpp
/// The Timer's seam to kernel tracing (TimerConfig::trace_kernels): a session interface whose
/// CUPTI implementation is compiled once per program, in kernel tracing's compiled part
/// (gauge/tracing.hpp; gauge/implementation/tracing.hpp registers it at start-up), so a file that
/// uses the Timer does not pay for CUPTI's declarations. Without that part the factory is null and
/// the Timer's summary says tracing was unavailable and how to get it.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gauge/core/timer_summary.hpp"

namespace gauge::detail {

/// One traced step of a Timer. Ids are small integers: 0 for the step outside its regions, a
/// region's id + 1 for a region. Calls come from the Timer's thread only.
class TimerTraceSession {
 public:
  virtual ~TimerTraceSession() = default;
  /// Starts recording; "" on success, else the reason (status "unavailable" or, when it starts
  /// with "disabled: ", another CUPTI client is attached).
  virtual std::string start() = 0;
  /// Work launched from now on belongs to `id` until the matching pop (nested: the innermost).
  virtual void push(std::uint32_t id) = 0;
  /// Ends `id` (not necessarily the innermost: regions may stop out of order).
  virtual void pop(std::uint32_t id) = 0;
  /// The id pushed over the whole step after the traced one: its first activity marks where the
  /// traced step ended on the device clock.
  static constexpr std::uint32_t next_step = 0xFFFFFFFFu;
  /// The trace, once every activity of the step (and, with `with_next`, of the next step) has
  /// completed: `names[i]` is the name of id i + 1; `step_gpu_time_s` the step's time from the
  /// Timer's markers (0: unknown).
  virtual records::TimerKernelTrace collect(const std::vector<std::string>& names, double step_gpu_time_s, bool with_next) = 0;
};

/// Makes a session; null where the program has no compiled part.
using TimerTraceFactory = std::unique_ptr<TimerTraceSession> (*)();
/// The factory the Timer uses (set by gauge/implementation/tracing.hpp; tests may replace it).
inline TimerTraceFactory& timer_trace_factory() {
  static TimerTraceFactory f = nullptr;
  return f;
}
/// Kernel tracing's factory (CUPTI), defined in gauge/implementation/tracing.hpp.
std::unique_ptr<TimerTraceSession> make_cupti_timer_trace_session();

}  // namespace gauge::detail
