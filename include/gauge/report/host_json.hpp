#pragma once
/// \file gauge/report/host_json.hpp
/// JSON of the structs in gauge/core/host_info.hpp (their descriptions, gauge/report/serial.hpp,
/// give nlohmann::json's `to_json` and `from_json`, found by ADL), and of the list
/// `relevant_environment_variables()` returns.
///
/// Keys are the field names (snake_case, units in the name: `total_bytes`, `max_frequency_mhz`).
/// `std::nullopt` is written as `null`. Read on its own (`j.get<gauge::env::HostInfo>()`), a missing
/// key or `null` is "unknown" (so reports from older minor versions of the schema still load);
/// a value of the wrong type throws `ReportError` naming the key. Inside a report
/// (gauge/report/read.hpp) the keys the schema requires must be there.

#include <gauge/core/host_info.hpp>
#include <gauge/report/serial.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gauge::serial {

/// CpuInfo → {"model_name", "sockets", "physical_cores", "logical_cpus", "hardware_concurrency",
/// "max_frequency_mhz", "current_frequency_mhz", "governor", "distinct_governors"}.
GAUGE_SERIAL_DESCRIBE_AS(env::CpuInfo, "cpu", AllKeysOptionalLenientAlone, model_name, sockets, physical_cores,
    logical_cpus, hardware_concurrency, max_frequency_mhz, current_frequency_mhz, governor,
    distinct_governors)

/// MemoryInfo → {"total_bytes", "available_bytes", "swap_total_bytes"}.
GAUGE_SERIAL_DESCRIBE_AS(env::MemoryInfo, "host_memory", AllKeysOptionalLenientAlone, total_bytes,
    available_bytes, swap_total_bytes)

/// NumaNode → {"id" (required), "cpulist", "cpus", "memory_total_bytes"}.
template <>
struct Fields<env::NumaNode> : LenientAlone {
  static constexpr const char* name = "numa_node";
  template <class V, class C>
  static void describe(V& v, C& x) {
    v("id", x.id);
    v("cpulist", x.cpulist, not_required);
    v("cpus", x.cpus, not_required);
    v("memory_total_bytes", x.memory_total_bytes, not_required);
  }
};

/// OsInfo → {"pretty_name", "id", "version_id", "kernel_release", "hostname", "architecture"}.
GAUGE_SERIAL_DESCRIBE_AS(env::OsInfo, "os", AllKeysOptionalLenientAlone, pretty_name, id, version_id,
    kernel_release, hostname, architecture)

/// VirtualizationInfo → {"container", "container_evidence", "wsl", "wsl_evidence",
/// "virtual_machine", "virtual_machine_evidence"}.
GAUGE_SERIAL_DESCRIBE_AS(env::VirtualizationInfo, "virtualization", AllKeysOptionalLenientAlone, container,
    container_evidence, wsl, wsl_evidence, virtual_machine, virtual_machine_evidence)

/// HostInfo → {"cpu", "memory", "numa_nodes", "os", "virtualization", "notes"}.
GAUGE_SERIAL_DESCRIBE_AS(env::HostInfo, "host", LenientAlone, cpu, memory, numa_nodes, os, virtualization, notes)

/// CompilerInfo → {"id", "version", "cuda_compiler", "cuda_compiler_version", "standard_library",
/// "cplusplus", "ndebug", "optimized"}.
GAUGE_SERIAL_DESCRIBE_AS(env::CompilerInfo, "compiler", LenientAlone, id, version, cuda_compiler,
    cuda_compiler_version, standard_library, cplusplus, ndebug, optimized)

}  // namespace gauge::serial

namespace gauge {

namespace detail {
/// The list from `relevant_environment_variables()` as a JSON object `{name: value or null}`
/// (an unset variable is `null`; nlohmann::json sorts the keys).
inline nlohmann::json environment_variables_to_json(
    const std::vector<std::pair<std::string, std::optional<std::string>>>& vars) {
  return serial::encode(vars);
}

/// Reads what `environment_variables_to_json` writes, sorted by name.
/// \throws ReportError naming the variable whose value is neither a string nor null.
inline std::vector<std::pair<std::string, std::optional<std::string>>>
environment_variables_from_json(const nlohmann::json& j) {
  std::vector<std::pair<std::string, std::optional<std::string>>> vars;
  serial::decode(j, vars, serial::Mode::strict);
  return vars;
}
}  // namespace detail

}  // namespace gauge
