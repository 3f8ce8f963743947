#pragma once
/// \file gauge/implementation.hpp
/// gauge's compiled part, for exactly one translation unit of a program: the measurement
/// protocol, its diagnosis and monitoring (NVML), the environment capture, the JSON report and
/// the console summary. Either
/// \code
///   #define GAUGE_IMPLEMENTATION   // in one source file of the program, before the include
///   #include <gauge/gauge.hpp>
/// \endcode
/// or include this header once. Every other file includes only what it uses (gauge/gauge.hpp),
/// so they compile in about a second. The compiled part is host code: in a .cu file, nvcc's
/// device pass skips it, so include the headers of what the file calls itself (e.g.
/// gauge/report/json.hpp for `write_file_atomic`) rather than relying on this one. Forgetting it gives linker errors naming
/// `gauge::detail::run_protocol` or `gauge::Report::write`.
///
/// The header-only promise holds: nothing to build or link beyond the CUDA runtime; {fmt} is
/// used header-only (gauge/detail/text.hpp).

#if !defined(__CUDA_ARCH__)  // host code only: nvcc's device pass skips the whole file

#include <unistd.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "gauge/detail/text.hpp"
#include "gauge/experiment.hpp"
#include "gauge/env/environment.hpp"
#include "gauge/env/nvml.hpp"
#include "gauge/env/process.hpp"
#include "gauge/env/telemetry.hpp"
#include "gauge/protocol/protocol.hpp"
#include "gauge/protocol/seam.hpp"
#include "gauge/core/timer_summary.hpp"
#include "gauge/core/environment.hpp"
#include "gauge/core/result.hpp"
#include "gauge/report.hpp"
#include "gauge/report/console.hpp"
#include "gauge/report/json.hpp"
#include "gauge/report/timer_json.hpp"

namespace gauge {
namespace detail {

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

ProcessMemory read_host_process_memory() { return read_process_memory(); }
std::optional<std::uint64_t> read_host_memory_total() { return read_memory_total(); }
unsigned current_process_id() { return static_cast<unsigned>(::getpid()); }

std::unique_ptr<TelemetryProbe> make_nvml_probe(const std::optional<std::string>& uuid,
                                                const std::optional<std::string>& pci_bus_id, std::string& reason) {
  auto lib = nvml::Library::shared();
  if (!lib->ok()) {
    reason = lib->error().value_or("NVML not available");
    return nullptr;
  }
  auto found = nvml::find_device(*lib, uuid, pci_bus_id);
  if (!found) {
    reason = "NVML has no device with UUID " + uuid.value_or("?") + " or bus id " + pci_bus_id.value_or("?");
    return nullptr;
  }
  return std::make_unique<NvmlProbe>(lib, found->first);
}

}  // namespace detail

struct Report::Data {
  std::string path;
  Environment env;
  std::vector<Result> results;
  std::vector<TimerSummary> timers;
};

Report::Report(std::string path) : Report(std::move(path), capture_environment()) {}

Report::Report(std::string path, Environment environment)
    : d_(std::make_unique<Data>(Data{std::move(path), std::move(environment), {}, {}})) {
  check_writable(d_->path);
}

Report::Report(const Report& o) : d_(std::make_unique<Data>(*o.d_)) {}
Report::Report(Report&&) noexcept = default;
Report& Report::operator=(const Report& o) {
  if (this != &o) d_ = std::make_unique<Data>(*o.d_);
  return *this;
}
Report& Report::operator=(Report&&) noexcept = default;
Report::~Report() = default;

void Report::add(Result result) { d_->results.push_back(std::move(result)); }
void Report::add(TimerSummary timer) { d_->timers.push_back(std::move(timer)); }
const std::vector<Result>& Report::results() const { return d_->results; }
const std::vector<TimerSummary>& Report::timers() const { return d_->timers; }
const Environment& Report::environment() const { return d_->env; }
const std::string& Report::path() const { return d_->path; }

std::string Report::json_text(int indent) const {
  nlohmann::json j = report_json(d_->env, d_->results);
  j["timers"] = d_->timers;
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

void Report::write() const {
  std::string text;
  try {
    text = json_text(2);
  } catch (const std::exception& e) {
    throw ReportError("cannot write report to " + d_->path + ": " + e.what());
  }
  write_file_atomic(d_->path, text);
}

std::string Report::summary() const {
  std::string timers;
  for (const auto& t : d_->timers) timers += timer_summary_text(t);
  return environment_line(d_->env) + summary_table(d_->results) + kernel_table(d_->results) +
         warnings_text(d_->results, d_->env) + timers;
}

}  // namespace gauge

#endif  // !defined(__CUDA_ARCH__)
