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
/// so they compile in about a second. Forgetting it gives linker errors naming
/// `gauge::detail::run_protocol` or `gauge::Report::write`.
///
/// The header-only promise holds: nothing to build or link beyond the CUDA runtime; {fmt} is
/// used header-only (gauge/detail/text.hpp).

#include <unistd.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "gauge/detail/text.hpp"
#include "gauge/env/environment.hpp"
#include "gauge/env/nvml.hpp"
#include "gauge/env/process.hpp"
#include "gauge/env/telemetry.hpp"
#include "gauge/protocol/protocol.hpp"
#include "gauge/protocol/seam.hpp"
#include "gauge/report.hpp"
#include "gauge/report/console.hpp"
#include "gauge/report/json.hpp"
#include "gauge/report/timer_json.hpp"

namespace gauge {
namespace detail {

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

Report::Report(std::string path) : Report(std::move(path), capture_environment()) {}

Report::Report(std::string path, Environment environment)
    : path_(std::move(path)), env_(std::move(environment)) {
  check_writable(path_);
}

std::string Report::json_text(int indent) const {
  nlohmann::json j = report_json(env_, results_);
  j["timers"] = timers_;
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

void Report::write() const {
  std::string text;
  try {
    text = json_text(2);
  } catch (const std::exception& e) {
    throw ReportError("cannot write report to " + path_ + ": " + e.what());
  }
  write_file_atomic(path_, text);
}

std::string Report::summary() const {
  std::string timers;
  for (const auto& t : timers_) timers += timer_summary_text(t);
  return environment_line(env_) + summary_table(results_) + warnings_text(results_, env_) + timers;
}

}  // namespace gauge
