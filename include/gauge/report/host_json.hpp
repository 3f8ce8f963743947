#pragma once
/// \file gauge/report/host_json.hpp
/// JSON conversion (nlohmann::json, found by ADL) of the structs in gauge/core/host_info.hpp, and
/// of the list `relevant_environment_variables()` returns.
///
/// Keys are the field names (snake_case, units in the name: `total_bytes`, `max_frequency_mhz`).
/// `std::nullopt` is written as `null`. Reading accepts a missing key or `null` as "unknown"
/// (so reports from older minor versions of the schema still load); a value of the wrong type
/// throws `nlohmann::json::exception`.

#include <gauge/core/host_info.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gauge {

namespace detail::host_json {

template <class T>
void put(nlohmann::json& j, const char* key, const std::optional<T>& value) {
  if (value)
    j[key] = *value;
  else
    j[key] = nullptr;
}

template <class T>
void get(const nlohmann::json& j, const char* key, std::optional<T>& value) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null())
    value.reset();
  else
    value = it->template get<T>();
}

/// Reads a non-optional field; leaves `value` as is when the key is missing or null.
template <class T>
void get_or_keep(const nlohmann::json& j, const char* key, T& value) {
  const auto it = j.find(key);
  if (it != j.end() && !it->is_null()) it->get_to(value);
}

}  // namespace detail::host_json

/// Writes `{"model_name", "sockets", "physical_cores", "logical_cpus", "hardware_concurrency",
/// "max_frequency_mhz", "current_frequency_mhz", "governor", "distinct_governors"}`.
inline void to_json(nlohmann::json& j, const CpuInfo& c) {
  using detail::host_json::put;
  j = nlohmann::json::object();
  put(j, "model_name", c.model_name);
  put(j, "sockets", c.sockets);
  put(j, "physical_cores", c.physical_cores);
  put(j, "logical_cpus", c.logical_cpus);
  put(j, "hardware_concurrency", c.hardware_concurrency);
  put(j, "max_frequency_mhz", c.max_frequency_mhz);
  put(j, "current_frequency_mhz", c.current_frequency_mhz);
  put(j, "governor", c.governor);
  j["distinct_governors"] = c.distinct_governors;
}
/// Reads what `to_json(json&, const CpuInfo&)` writes.
inline void from_json(const nlohmann::json& j, CpuInfo& c) {
  using detail::host_json::get;
  c = CpuInfo{};
  get(j, "model_name", c.model_name);
  get(j, "sockets", c.sockets);
  get(j, "physical_cores", c.physical_cores);
  get(j, "logical_cpus", c.logical_cpus);
  get(j, "hardware_concurrency", c.hardware_concurrency);
  get(j, "max_frequency_mhz", c.max_frequency_mhz);
  get(j, "current_frequency_mhz", c.current_frequency_mhz);
  get(j, "governor", c.governor);
  detail::host_json::get_or_keep(j, "distinct_governors", c.distinct_governors);
}

/// Writes `{"total_bytes", "available_bytes", "swap_total_bytes"}`.
inline void to_json(nlohmann::json& j, const MemoryInfo& m) {
  using detail::host_json::put;
  j = nlohmann::json::object();
  put(j, "total_bytes", m.total_bytes);
  put(j, "available_bytes", m.available_bytes);
  put(j, "swap_total_bytes", m.swap_total_bytes);
}
/// Reads what `to_json(json&, const MemoryInfo&)` writes.
inline void from_json(const nlohmann::json& j, MemoryInfo& m) {
  using detail::host_json::get;
  m = MemoryInfo{};
  get(j, "total_bytes", m.total_bytes);
  get(j, "available_bytes", m.available_bytes);
  get(j, "swap_total_bytes", m.swap_total_bytes);
}

/// Writes `{"id", "cpulist", "cpus", "memory_total_bytes"}`.
inline void to_json(nlohmann::json& j, const NumaNode& n) {
  using detail::host_json::put;
  j = nlohmann::json::object();
  j["id"] = n.id;
  put(j, "cpulist", n.cpulist);
  j["cpus"] = n.cpus;
  put(j, "memory_total_bytes", n.memory_total_bytes);
}
/// Reads what `to_json(json&, const NumaNode&)` writes; `id` is required.
inline void from_json(const nlohmann::json& j, NumaNode& n) {
  using detail::host_json::get;
  n = NumaNode{};
  j.at("id").get_to(n.id);
  get(j, "cpulist", n.cpulist);
  detail::host_json::get_or_keep(j, "cpus", n.cpus);
  get(j, "memory_total_bytes", n.memory_total_bytes);
}

/// Writes `{"pretty_name", "id", "version_id", "kernel_release", "hostname", "architecture"}`.
inline void to_json(nlohmann::json& j, const OsInfo& o) {
  using detail::host_json::put;
  j = nlohmann::json::object();
  put(j, "pretty_name", o.pretty_name);
  put(j, "id", o.id);
  put(j, "version_id", o.version_id);
  put(j, "kernel_release", o.kernel_release);
  put(j, "hostname", o.hostname);
  put(j, "architecture", o.architecture);
}
/// Reads what `to_json(json&, const OsInfo&)` writes.
inline void from_json(const nlohmann::json& j, OsInfo& o) {
  using detail::host_json::get;
  o = OsInfo{};
  get(j, "pretty_name", o.pretty_name);
  get(j, "id", o.id);
  get(j, "version_id", o.version_id);
  get(j, "kernel_release", o.kernel_release);
  get(j, "hostname", o.hostname);
  get(j, "architecture", o.architecture);
}

/// Writes `{"container", "container_evidence", "wsl", "wsl_evidence", "virtual_machine",
/// "virtual_machine_evidence"}`.
inline void to_json(nlohmann::json& j, const VirtualizationInfo& v) {
  using detail::host_json::put;
  j = nlohmann::json::object();
  put(j, "container", v.container);
  put(j, "container_evidence", v.container_evidence);
  j["wsl"] = v.wsl;
  put(j, "wsl_evidence", v.wsl_evidence);
  put(j, "virtual_machine", v.virtual_machine);
  put(j, "virtual_machine_evidence", v.virtual_machine_evidence);
}
/// Reads what `to_json(json&, const VirtualizationInfo&)` writes.
inline void from_json(const nlohmann::json& j, VirtualizationInfo& v) {
  using detail::host_json::get;
  v = VirtualizationInfo{};
  get(j, "container", v.container);
  get(j, "container_evidence", v.container_evidence);
  detail::host_json::get_or_keep(j, "wsl", v.wsl);
  get(j, "wsl_evidence", v.wsl_evidence);
  get(j, "virtual_machine", v.virtual_machine);
  get(j, "virtual_machine_evidence", v.virtual_machine_evidence);
}

/// Writes `{"cpu", "memory", "numa_nodes", "os", "virtualization", "notes"}`.
inline void to_json(nlohmann::json& j, const HostInfo& h) {
  j = nlohmann::json::object();
  j["cpu"] = h.cpu;
  j["memory"] = h.memory;
  j["numa_nodes"] = h.numa_nodes;
  j["os"] = h.os;
  j["virtualization"] = h.virtualization;
  j["notes"] = h.notes;
}
/// Reads what `to_json(json&, const HostInfo&)` writes; missing parts stay default (unknown).
inline void from_json(const nlohmann::json& j, HostInfo& h) {
  using detail::host_json::get_or_keep;
  h = HostInfo{};
  get_or_keep(j, "cpu", h.cpu);
  get_or_keep(j, "memory", h.memory);
  get_or_keep(j, "numa_nodes", h.numa_nodes);
  get_or_keep(j, "os", h.os);
  get_or_keep(j, "virtualization", h.virtualization);
  get_or_keep(j, "notes", h.notes);
}

/// Writes `{"id", "version", "cuda_compiler", "cuda_compiler_version", "standard_library",
/// "cplusplus", "ndebug", "optimized"}`.
inline void to_json(nlohmann::json& j, const CompilerInfo& c) {
  using detail::host_json::put;
  j = nlohmann::json::object();
  j["id"] = c.id;
  j["version"] = c.version;
  put(j, "cuda_compiler", c.cuda_compiler);
  put(j, "cuda_compiler_version", c.cuda_compiler_version);
  j["standard_library"] = c.standard_library;
  j["cplusplus"] = c.cplusplus;
  j["ndebug"] = c.ndebug;
  j["optimized"] = c.optimized;
}
/// Reads what `to_json(json&, const CompilerInfo&)` writes.
inline void from_json(const nlohmann::json& j, CompilerInfo& c) {
  using detail::host_json::get;
  using detail::host_json::get_or_keep;
  c = CompilerInfo{};
  get_or_keep(j, "id", c.id);
  get_or_keep(j, "version", c.version);
  get(j, "cuda_compiler", c.cuda_compiler);
  get(j, "cuda_compiler_version", c.cuda_compiler_version);
  get_or_keep(j, "standard_library", c.standard_library);
  get_or_keep(j, "cplusplus", c.cplusplus);
  get_or_keep(j, "ndebug", c.ndebug);
  get_or_keep(j, "optimized", c.optimized);
}

/// The list from `relevant_environment_variables()` as a JSON object `{name: value or null}`
/// (an unset variable is `null`; nlohmann::json sorts the keys).
inline nlohmann::json environment_variables_to_json(
    const std::vector<std::pair<std::string, std::optional<std::string>>>& vars) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, value] : vars) {
    if (value)
      j[name] = *value;
    else
      j[name] = nullptr;
  }
  return j;
}

/// Reads what `environment_variables_to_json` writes, sorted by name.
inline std::vector<std::pair<std::string, std::optional<std::string>>>
environment_variables_from_json(const nlohmann::json& j) {
  std::vector<std::pair<std::string, std::optional<std::string>>> vars;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it->is_null())
      vars.emplace_back(it.key(), std::nullopt);
    else
      vars.emplace_back(it.key(), it->get<std::string>());
  }
  return vars;
}

}  // namespace gauge
