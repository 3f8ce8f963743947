#pragma once
/// \file gauge/protocol/tracing.hpp
/// Protocol's kernel tracing after measuring (Config::trace_kernels, `trace_kernels`): a traced
/// round between two untraced ones, over the KernelTracer seam (gauge/detail/kernel_tracer.hpp:
/// CUPTI and gauge/core/kernel_trace_summary.hpp, where kernel tracing's compiled part is in the
/// program). Part of gauge/protocol/protocol.hpp.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/config.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/warning_sink.hpp"
#include "gauge/core/warnings.hpp"
#include "gauge/detail/kernel_tracer.hpp"
#include "gauge/protocol/phases.hpp"

namespace gauge::detail {

// ---- kernel tracing -------------------------------------------------------------------------

/// After measuring (Config::trace_kernels): an untraced round, a traced round and another
/// untraced round of the same size on the pool's first stream, and the report's `kernel_trace`
/// from the activity records of the traced one (gauge/core/kernel_trace.hpp); the untraced
/// period is the mean of the rounds around it, so a clock that drifts (a power-capped GPU)
/// does not read as tracing overhead. Tracing that cannot run is recorded with the reason and
/// a warning; it never fails the run.
inline void Protocol::trace_kernels(Result& r, WarningSink& sink) {
  records::KernelTraceRecord t;
  auto give_up = [&](const std::string& status, const std::string& reason) {
    t.status = status;
    t.reason = reason;
    if (status == "disabled")
      sink.add(warning_code::profiler_attached, Severity::warning,
               "kernel tracing was asked but is disabled: " + reason +
                   ". Two CUPTI clients in one process disturb each other; the numbers are the profiler's run.");
    else
      sink.add(warning_code::kernel_trace_unavailable, Severity::info, "kernel tracing was asked but did not run: " + reason);
    r.kernel_trace = t;
  };
  if (!b_.has_kernels()) return give_up("unavailable", std::string("the ") + b_.name() + " backend runs no GPU kernels");
  const KernelTracerFactory make = kernel_tracer_factory();
  if (!make) {
    // Asked for and not built in: a warning, so that the run does not pass for a traced one.
    t.status = "unavailable";
    t.reason = tracing_not_compiled_in();
    sink.add(warning_code::kernel_trace_unavailable, Severity::warning,
             std::string("kernel tracing was asked but did not run: ") + t.reason);
    r.kernel_trace = t;
    return;
  }
  const std::unique_ptr<KernelTracer> made = make();
  KernelTracer& tracer = *made;
  t.tool = tracer.tool();
  bool disabled = false;
  if (const std::string why = tracer.check(disabled); !why.empty()) return give_up(disabled ? "disabled" : "unavailable", why);

  const auto& s = r.sampling;
  const bool graph_mode = config_.measure.gpu_timing == GpuTiming::graph;
  const std::size_t k = std::max<std::size_t>(1, s.steps_per_sample);
  // The size of a measured round, at least 20 steps where they take under 0.25 s (a few steps
  // of a long step read one clock state of a power-capped GPU: on an H200, 3 traced steps of a
  // 1.6 ms GEMM ran 13 % faster than the median), at least 3 launches (two spans), at most 2000.
  std::size_t steps = s.rounds ? s.steps / s.rounds : k;
  const std::size_t in_quarter_second = estimate_ > 0 ? floor_ratio(0.25, estimate_) : 20;
  steps = std::max(steps, std::min<std::size_t>(20, in_quarter_second));
  steps = std::clamp<std::size_t>(steps, 3 * k, std::max<std::size_t>(3 * k, 2000));
  steps = std::max(3 * k, steps / k * k);
  b_.select_stream(0);
  const auto untraced = timed_round(steps, k, graph_mode);
  if (const std::string why = tracer.start(); !why.empty()) return give_up("unavailable", why);
  trace_base_ = (std::uint64_t{++trace_sessions()} << 32);
  trace_units_ = 0;
  tracer_ = &tracer;
  RoundOutcome traced;
  try {
    traced = timed_round(steps, k, graph_mode);
  } catch (...) {
    tracer_ = nullptr;
    tracer.stop();
    throw;
  }
  tracer_ = nullptr;
  cupti::Collected c = tracer.stop();
  const auto untraced_after = timed_round(steps, k, graph_mode);
  if (untraced.timed_out || traced.timed_out || untraced_after.timed_out)
    return give_up("unavailable", "the launch gate timed out in the traced rounds (the step synchronizes the host)");
  if (!c.error.empty()) return give_up("unavailable", "CUPTI failed while tracing: " + c.error);
  if (c.external.empty() && (has_setup_ || cold()))
    return give_up("unavailable",
                   "CUPTI delivered no external correlation records, and with " +
                       std::string(has_setup_ ? "a setup" : "a cold cache (an L2 flush)") +
                       " between steps the records cannot be tied to the step by launch order");
  // Tie each record to the launch that made it.
  const std::uint64_t units = trace_units_;
  std::vector<records::Activity> acts;
  acts.reserve(c.activities.size());
  const bool external = !c.external.empty();
  for (auto& a : c.activities) {
    if (external) {
      auto it = c.external.find(a.correlation_id);
      if (it != c.external.end() && it->second >= trace_base_ && it->second - trace_base_ < units)
        a.unit = it->second - trace_base_;
    } else if (a.name.rfind("gauge::", 0) == 0 || a.name.rfind("void gauge::", 0) == 0) {
      continue;  // launch order: gauge's own gate and flush are not the step's
    }
    acts.push_back(std::move(a));
  }
  auto mean = [](const std::vector<double>& v) {
    double sum = 0;
    for (double x : v) sum += x;
    return v.empty() ? std::optional<double>() : std::optional<double>(sum / static_cast<double>(v.size()));
  };
  const std::size_t per_unit = graph_mode ? k : 1;
  t = tracer.summarize(std::move(acts), std::max<std::uint64_t>(1, units), per_unit, mean(traced.per_step_s));
  t.tool = tracer.tool();
  t.dropped_records = c.dropped;
  const auto before = mean(untraced.per_step_s), after = mean(untraced_after.per_step_s);
  if (before && after) t.untraced_period_s = 0.5 * (*before + *after);
  if (t.period_s && t.untraced_period_s && *t.untraced_period_s > 0)
    t.tracing_overhead = *t.period_s / *t.untraced_period_s - 1;
  if (t.attributed_records == 0) {
    t.status = "unavailable";
    t.reason = c.activities.empty() ? "CUPTI delivered no kernel, memcpy or memset records"
                                    : "no record could be tied to a launch of the step";
    sink.add(warning_code::kernel_trace_unavailable, Severity::info, "kernel tracing ran but " + t.reason);
  }
  r.kernel_trace = std::move(t);
}

}  // namespace gauge::detail
