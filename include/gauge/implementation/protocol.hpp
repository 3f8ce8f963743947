#pragma once
/// \file gauge/implementation/protocol.hpp
/// The protocol's compiled part: Experiment's run (the measurement protocol with its diagnosis
/// and monitoring, gauge/protocol/protocol.hpp) and the interleaved A/B run. Part of
/// gauge/implementation.hpp (src/protocol.cpp through CMake); host code only, and empty where
/// the program links the library CMake built (GAUGE_LINKS_IMPLEMENTATION).

#if !defined(__CUDA_ARCH__) && !defined(GAUGE_LINKS_IMPLEMENTATION)

#include <cmath>
#include <string>
#include <utility>

#include "gauge/backends/host_backend.hpp"
#include "gauge/core/interleaved_statistics.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/detail/kernel_tracer.hpp"
#include "gauge/detail/timer_trace.hpp"
#include "gauge/experiment.hpp"
#include "gauge/implementation/host_threads.hpp"
#include "gauge/protocol/interleave.hpp"
#include "gauge/protocol/protocol.hpp"
#include "gauge/protocol/seam.hpp"

namespace gauge {

void validate(const InterleaveConfig& c) {
  if (!(c.threshold > 0 && c.threshold < 1))
    throw ConfigError("interleave: threshold must be a fraction in (0, 1) (0.02 = 2 %), got " + detail::format_number(c.threshold));
  if (!(c.confidence_level > 0 && c.confidence_level < 1))
    throw ConfigError("interleave: confidence_level must be in (0, 1), got " + detail::format_number(c.confidence_level));
  if (!(c.target_relative_ci_width > 0) || !std::isfinite(c.target_relative_ci_width))
    throw ConfigError("interleave: target_relative_ci_width must be > 0, got " + detail::format_number(c.target_relative_ci_width));
  if (c.min_pairs < 4)
    throw ConfigError("interleave: min_pairs must be >= 4 (two ABBA blocks), got " + std::to_string(c.min_pairs));
  if (c.max_time <= Nanoseconds::zero()) throw ConfigError("interleave: max_time must be > 0");
  if (c.resamples < 100)
    throw ConfigError("interleave: resamples must be >= 100 (the percentile interval needs its tails), got " +
                      std::to_string(c.resamples));
}

}  // namespace gauge

namespace gauge::detail {

template class BackendAdaptorBase<HostBackend>;

ExperimentSpec::ExperimentSpec() = default;
ExperimentSpec::ExperimentSpec(const ExperimentSpec&) = default;
ExperimentSpec::ExperimentSpec(ExperimentSpec&&) noexcept = default;
ExperimentSpec& ExperimentSpec::operator=(const ExperimentSpec&) = default;
ExperimentSpec& ExperimentSpec::operator=(ExperimentSpec&&) noexcept = default;
ExperimentSpec::~ExperimentSpec() = default;
void ExperimentSpec::set_dimension(const std::string& key, DimensionValue value) { dimensions[key] = std::move(value); }
void ExperimentSpec::set_item(const std::string& item, double per_step) { work.items[item] = per_step; }

/// `spec` for a backend whose steps run on n threads at once (asked for, 1 included): its work per
/// step is the declared work (per call) times n, and it has the dimension `threads` (n, unless set).
static ExperimentSpec work_per_step(const ExperimentSpec& spec, const ProtocolBackend& backend) {
  ExperimentSpec s = spec;
  const double n = backend.threads();
  if (s.dimensions.find("threads") == s.dimensions.end())
    s.dimensions["threads"] = static_cast<std::int64_t>(backend.threads());
  if (s.work.flop) *s.work.flop *= n;
  if (s.work.bytes) *s.work.bytes *= n;
  for (auto& item : s.work.items) item.second *= n;
  return s;
}

Result run_protocol(const ExperimentSpec& spec, ProtocolBackend& backend) {
  if (backend.threads() > 1 || backend.threads_declared()) {
    const ExperimentSpec scaled = work_per_step(spec, backend);
    Protocol protocol(scaled, backend);
    return protocol.run();
  }
  Protocol protocol(spec, backend);
  return protocol.run();
}

InterleavedResult run_interleaved(const ExperimentSpec& a, ProtocolBackend& backend_a, const ExperimentSpec& b,
                                  ProtocolBackend& backend_b, const InterleaveConfig& config) {
  if (backend_a.threads() > 1 || backend_b.threads() > 1 || backend_a.threads_declared() || backend_b.threads_declared()) {
    const ExperimentSpec sa = work_per_step(a, backend_a), sb = work_per_step(b, backend_b);
    InterleavedRun run(sa, backend_a, sb, backend_b, config);
    return run.run();
  }
  InterleavedRun run(a, backend_a, b, backend_b, config);
  return run.run();
}

}  // namespace gauge::detail

#endif  // !defined(__CUDA_ARCH__) && !defined(GAUGE_LINKS_IMPLEMENTATION)
