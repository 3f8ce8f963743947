#pragma once
/// \file gauge/implementation/protocol.hpp
/// The protocol's compiled part: Experiment's run (the measurement protocol with its diagnosis
/// and monitoring, gauge/protocol/protocol.hpp) and the interleaved A/B run. Part of
/// gauge/implementation.hpp (src/protocol.cpp through CMake); host code only, and empty where
/// the program links the library CMake built (GAUGE_LINKS_IMPLEMENTATION).

#if !defined(__CUDA_ARCH__) && !defined(GAUGE_LINKS_IMPLEMENTATION)

#include <string>
#include <utility>

#include "gauge/backends/host_backend.hpp"
#include "gauge/detail/kernel_tracer.hpp"
#include "gauge/detail/timer_trace.hpp"
#include "gauge/experiment.hpp"
#include "gauge/protocol/interleave.hpp"
#include "gauge/protocol/protocol.hpp"
#include "gauge/protocol/seam.hpp"

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

Result run_protocol(const ExperimentSpec& spec, ProtocolBackend& backend) {
  Protocol protocol(spec, backend);
  return protocol.run();
}

InterleavedResult run_interleaved(const ExperimentSpec& a, ProtocolBackend& backend_a, const ExperimentSpec& b,
                                  ProtocolBackend& backend_b, const InterleaveConfig& config) {
  InterleavedRun run(a, backend_a, b, backend_b, config);
  return run.run();
}

}  // namespace gauge::detail

#endif  // !defined(__CUDA_ARCH__) && !defined(GAUGE_LINKS_IMPLEMENTATION)
