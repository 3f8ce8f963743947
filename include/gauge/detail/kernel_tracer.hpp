#pragma once
/// \file gauge/detail/kernel_tracer.hpp
/// The protocol's seam to kernel tracing (Config::trace_kernels): the traced round talks to a
/// KernelTracer, whose CUPTI implementation is kernel tracing's compiled part
/// (gauge/tracing.hpp, gauge/implementation/tracing.hpp), registered in kernel_tracer_factory()
/// when the program starts. A program without that part compiles no CUPTI code; its report's
/// `kernel_trace` then says how to get it.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gauge/core/kernel_trace.hpp"

namespace gauge::detail::cupti {

/// What one tracing session collected.
struct Collected {
  std::vector<records::Activity> activities;                 ///< kernels, memcpys, memsets
  std::map<std::uint32_t, std::uint64_t> external;           ///< correlation id → gauge's external id
  std::size_t api_records = 0;                               ///< runtime/driver API records seen
  std::uint64_t dropped = 0;                                 ///< records CUPTI dropped
  std::size_t incomplete = 0;                                ///< buffers that ended at an incomplete record
  /// The first CUPTI call that failed while tracing (push, pop, flush, reading records), with
  /// CUPTI's text; empty when none did. Records may then be missing or misattributed.
  std::string error;
};

}  // namespace gauge::detail::cupti

namespace gauge::detail {

/// One tracing session of the protocol: check, start, external correlation ids pushed around each
/// traced launch, stop. Calls come from the measuring thread only.
class KernelTracer {
 public:
  virtual ~KernelTracer() = default;
  /// The tracing tool and its version (the report's `kernel_trace.tool`); "" when unknown.
  virtual std::string tool() const = 0;
  /// "" when tracing can run; else the reason, with `disabled` set when another client (a
  /// profiler) holds the tool, which makes the run the profiler's.
  virtual std::string check(bool& disabled) = 0;
  /// Starts recording; "" on success, else the reason.
  virtual std::string start() = 0;
  /// Work launched from now on carries external correlation id `id` until the matching pop.
  virtual void push(std::uint64_t id) = 0;
  virtual void pop() = 0;
  /// Stops recording and returns every record completed since start().
  virtual cupti::Collected stop() = 0;
  /// The report's `kernel_trace` from the records of `units` traced launches (summarize_trace,
  /// gauge/core/kernel_trace_summary.hpp; here so that the protocol does not compile it).
  virtual records::KernelTraceRecord summarize(std::vector<records::Activity> activities, std::size_t units, std::size_t steps_per_unit,
                                      std::optional<double> period_s) = 0;
};

/// Makes a tracer; null where the program has no kernel tracing compiled in.
using KernelTracerFactory = std::unique_ptr<KernelTracer> (*)();
/// The factory the protocol uses (set by kernel tracing's compiled part at start-up).
inline KernelTracerFactory& kernel_tracer_factory() {
  static KernelTracerFactory f = nullptr;
  return f;
}
/// Kernel tracing's factory (CUPTI), defined in gauge/implementation/tracing.hpp.
std::unique_ptr<KernelTracer> make_cupti_kernel_tracer();
/// Sets kernel_tracer_factory() and the Timer's timer_trace_factory() to CUPTI's; returns true.
/// Defined in gauge/implementation/tracing.hpp (run at start-up; gauge/core/config.hpp names it
/// where the program links gauge::tracing).
bool register_kernel_tracing();

/// Why a program cannot trace: the text of `kernel_trace.reason` and of the Timer's summary.
inline const char* tracing_not_compiled_in() {
  return "kernel tracing is not compiled into this program: link gauge::tracing through CMake, or include "
         "<gauge/tracing.hpp> in the file that defines GAUGE_IMPLEMENTATION";
}

}  // namespace gauge::detail
