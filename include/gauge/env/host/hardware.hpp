#pragma once
/// \file gauge/env/host/hardware.hpp
/// Host detection of the hardware: the CPU (model, sockets, cores, logical CPUs, frequencies,
/// governors), the memory sizes and the NUMA nodes (`detail::host::detect_cpu`, `detect_memory`,
/// `detect_numa`). Part of gauge/env/host.hpp.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gauge/core/host_info.hpp>
#include <gauge/env/host/files.hpp>

namespace gauge {
namespace detail::host {

inline void detect_cpu(const Reader& r, env::HostInfo& info) {
  env::CpuInfo& cpu = info.cpu;
  std::string why;
  const auto cpu_ids = r.numbered_entries("sys/devices/system/cpu", "cpu");

  if (auto text = r.read("proc/cpuinfo", &why)) {
    const auto records = cpuinfo_records(*text);
    if (!records.empty()) cpu.logical_cpus = static_cast<int>(records.size());
    for (const auto& rec : records) {
      if (auto it = rec.find("model name"); it != rec.end() && !it->second.empty()) {
        cpu.model_name = it->second;
        break;
      }
    }
    if (!cpu.model_name) {
      std::string hint;
      if (!records.empty()) {
        const auto& rec = records.front();
        auto imp = rec.find("CPU implementer");
        auto part = rec.find("CPU part");
        if (imp != rec.end() && part != rec.end())
          hint = " (CPU implementer " + imp->second + ", CPU part " + part->second + ")";
      }
      info.notes.push_back("CPU model unknown: no \"model name\" in /proc/cpuinfo" + hint);
    }
    bool all_package = !records.empty();
    bool all_core = !records.empty();
    std::set<std::string> packages;
    std::set<std::pair<std::string, std::string>> cores;
    for (const auto& rec : records) {
      auto pkg = rec.find("physical id");
      auto core = rec.find("core id");
      if (pkg == rec.end()) {
        all_package = all_core = false;
        break;
      }
      packages.insert(pkg->second);
      if (core == rec.end())
        all_core = false;
      else
        cores.emplace(pkg->second, core->second);
    }
    if (all_package) cpu.sockets = static_cast<int>(packages.size());
    if (all_core) cpu.physical_cores = static_cast<int>(cores.size());
  } else {
    info.notes.push_back("CPU model, sockets, cores and logical CPUs unknown: " + why);
  }

  // Topology fallback (e.g. aarch64, whose /proc/cpuinfo has no physical id / core id).
  if ((!cpu.sockets || !cpu.physical_cores) && !cpu_ids.empty()) {
    std::set<int> packages;
    std::set<std::pair<int, int>> cores;
    bool ok = true;
    for (int id : cpu_ids) {
      const std::string base = "sys/devices/system/cpu/cpu" + std::to_string(id) + "/topology/";
      auto pkg = r.read_value(base + "physical_package_id");
      auto core = r.read_value(base + "core_id");
      auto p = pkg ? parse_int(*pkg) : std::nullopt;
      auto c = core ? parse_int(*core) : std::nullopt;
      if (!p || !c || *p < 0) {
        ok = false;
        break;
      }
      packages.insert(*p);
      cores.emplace(*p, *c);
    }
    if (ok) {
      if (!cpu.sockets) cpu.sockets = static_cast<int>(packages.size());
      if (!cpu.physical_cores) cpu.physical_cores = static_cast<int>(cores.size());
      info.notes.push_back(
          "CPU sockets and cores taken from /sys/devices/system/cpu/cpuN/topology (not in "
          "/proc/cpuinfo)");
    }
  }
  if (!cpu.sockets) info.notes.push_back("CPU socket count unknown");
  if (!cpu.physical_cores) info.notes.push_back("physical core count unknown");

  if (r.live()) {
    const unsigned hc = std::thread::hardware_concurrency();
    if (hc > 0) cpu.hardware_concurrency = static_cast<int>(hc);
    if (!cpu.logical_cpus && cpu.hardware_concurrency) {
      cpu.logical_cpus = cpu.hardware_concurrency;
      info.notes.push_back("logical CPU count from std::thread::hardware_concurrency()");
    }
  }

  // Frequencies of cpu0, in kHz in sysfs.
  const std::string freq = "sys/devices/system/cpu/cpu0/cpufreq/";
  auto khz_to_mhz = [&](const std::string& file, const char* what) -> std::optional<double> {
    std::string w;
    auto v = r.read_value(freq + file, &w);
    if (!v) {
      info.notes.push_back(std::string(what) + " unknown: " + w);
      return std::nullopt;
    }
    auto n = parse_u64(*v);
    if (!n) {
      info.notes.push_back(std::string(what) + " unknown: " + Reader::shown(freq + file) +
                           " holds \"" + *v + "\", not a number of kHz");
      return std::nullopt;
    }
    return static_cast<double>(*n) / 1000.0;
  };
  cpu.max_frequency_mhz = khz_to_mhz("cpuinfo_max_freq", "maximum CPU frequency");
  cpu.current_frequency_mhz = khz_to_mhz("scaling_cur_freq", "current CPU frequency");

  // Governors.
  std::string gwhy;
  cpu.governor = r.read_value(freq + "scaling_governor", &gwhy);
  std::set<std::string> governors;
  if (cpu.governor) governors.insert(*cpu.governor);
  for (int id : cpu_ids) {
    if (id == 0) continue;
    if (auto g = r.read_value("sys/devices/system/cpu/cpu" + std::to_string(id) +
                              "/cpufreq/scaling_governor"))
      governors.insert(*g);
  }
  if (!cpu.governor)
    info.notes.push_back("CPU frequency governor unknown: " + gwhy +
                         " (no cpufreq driver; common in VMs and containers)");
  if (!governors.empty() &&
      (governors.size() > 1 || !cpu.governor || *governors.begin() != *cpu.governor))
    cpu.distinct_governors.assign(governors.begin(), governors.end());
}

inline void detect_memory(const Reader& r, env::HostInfo& info) {
  std::string why;
  auto text = r.read("proc/meminfo", &why);
  if (!text) {
    info.notes.push_back("memory sizes unknown: " + why);
    return;
  }
  const auto m = meminfo_bytes(*text);
  auto get = [&](const char* key) -> std::optional<std::uint64_t> {
    if (auto it = m.find(key); it != m.end()) return it->second;
    info.notes.push_back(std::string("no ") + key + " in /proc/meminfo");
    return std::nullopt;
  };
  info.memory.total_bytes = get("MemTotal");
  info.memory.available_bytes = get("MemAvailable");
  info.memory.swap_total_bytes = get("SwapTotal");
}

inline void detect_numa(const Reader& r, env::HostInfo& info) {
  const std::string dir = "sys/devices/system/node";
  if (!r.exists(dir)) {
    info.notes.push_back("NUMA layout unknown: " + Reader::shown(dir) + " not found");
    return;
  }
  const auto ids = r.numbered_entries(dir, "node");
  if (ids.empty()) {
    info.notes.push_back("NUMA layout unknown: no node directories in " + Reader::shown(dir));
    return;
  }
  for (int id : ids) {
    env::NumaNode node;
    node.id = id;
    const std::string base = dir + "/node" + std::to_string(id) + "/";
    std::string why;
    if (auto text = r.read(base + "cpulist", &why)) {
      node.cpulist = std::string(trim(*text));
      node.cpus = detail::parse_cpulist(*node.cpulist, &info.notes, Reader::shown(base + "cpulist"));
    } else {
      info.notes.push_back("CPUs of NUMA node " + std::to_string(id) + " unknown: " + why);
    }
    if (auto text = r.read(base + "meminfo", &why)) {
      const auto m = meminfo_bytes(*text);
      if (auto it = m.find("MemTotal"); it != m.end())
        node.memory_total_bytes = it->second;
      else
        info.notes.push_back("memory of NUMA node " + std::to_string(id) +
                             " unknown: no MemTotal in " + Reader::shown(base + "meminfo"));
    } else {
      info.notes.push_back("memory of NUMA node " + std::to_string(id) + " unknown: " + why);
    }
    info.numa_nodes.push_back(std::move(node));
  }
}

}  // namespace detail::host

}  // namespace gauge
