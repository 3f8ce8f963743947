#pragma once
/// \file gauge/core/host_info.hpp
/// Plain data describing the host a measurement was taken on: CPU, memory, NUMA layout, operating
/// system, virtualization; the compiler that built the benchmark is gauge/core/compiler_info.hpp
/// (included here).
///
/// Every datum that could not be read is `std::nullopt` (JSON `null`); `HostInfo::notes` says why.
/// Filled by `gauge::detect_host()` and `gauge::compiler_info()` (gauge/env/host.hpp); written to
/// JSON by gauge/report/host_json.hpp. Standard library only.

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "gauge/core/compiler_info.hpp"

namespace gauge {
namespace env {
/// The host's CPUs, from /proc/cpuinfo and /sys/devices/system/cpu.
struct CpuInfo {
  /// `model name` of the first processor in /proc/cpuinfo, e.g. "AMD EPYC 9654 96-Core Processor".
  std::optional<std::string> model_name;
  /// Number of CPU sockets (packages): distinct `physical id` values in /proc/cpuinfo, else
  /// distinct /sys/devices/system/cpu/cpuN/topology/physical_package_id values. Count.
  std::optional<int> sockets;
  /// Number of physical cores: distinct (`physical id`, `core id`) pairs over all processors (sysfs
  /// topology as fallback). Count.
  std::optional<int> physical_cores;
  /// Number of logical CPUs (hardware threads): `processor` entries in /proc/cpuinfo; when those
  /// are missing and the live system is read, `hardware_concurrency`. Count. Note: in a container
  /// this is the host's count, not the CPUs the process may run on.
  std::optional<int> logical_cpus;
  /// `std::thread::hardware_concurrency()`; set only when the live system ("/") is read and it is
  /// non-zero. Count.
  std::optional<int> hardware_concurrency;
  /// Maximum frequency of cpu0 in MHz (cpufreq `cpuinfo_max_freq`, which is in kHz, divided by
  /// 1000).
  std::optional<double> max_frequency_mhz;
  /// Current frequency of cpu0 in MHz at detection time (cpufreq `scaling_cur_freq` kHz / 1000).
  std::optional<double> current_frequency_mhz;
  /// cpufreq scaling governor of cpu0, e.g. "performance", "powersave", "schedutil". `nullopt`
  /// when there is no cpufreq driver (common in VMs and containers); a note says so.
  std::optional<std::string> governor;
  /// Distinct scaling governors over all CPUs, sorted; empty when every CPU that has a governor
  /// uses `governor` (the usual case). Non-empty means the CPUs disagree (or cpu0 has none).
  std::vector<std::string> distinct_governors;
};

/// System memory, from /proc/meminfo (which is in kB = KiB; stored here in bytes).
struct MemoryInfo {
  /// `MemTotal`: usable RAM in bytes.
  std::optional<std::uint64_t> total_bytes;
  /// `MemAvailable`: memory available for new allocations without swapping, in bytes, at
  /// detection time.
  std::optional<std::uint64_t> available_bytes;
  /// `SwapTotal`: total swap space in bytes (0 when there is no swap).
  std::optional<std::uint64_t> swap_total_bytes;
};

/// One NUMA node, from /sys/devices/system/node/nodeN/.
struct NumaNode {
  /// Node number N (from the directory name `nodeN`).
  int id = 0;
  /// The node's `cpulist` file as written by the kernel, trimmed, e.g. "0-3,8-11". `nullopt` if
  /// unreadable.
  std::optional<std::string> cpulist;
  /// `cpulist` parsed into logical CPU ids, ascending and without duplicates. Empty when the node
  /// has no CPUs or the list was unreadable or malformed (then a note says so).
  std::vector<int> cpus;
  /// `Node N MemTotal` from nodeN/meminfo, in bytes.
  std::optional<std::uint64_t> memory_total_bytes;
};

/// The operating system.
struct OsInfo {
  /// `PRETTY_NAME` from /etc/os-release (or /usr/lib/os-release), e.g. "Ubuntu 22.04.4 LTS".
  std::optional<std::string> pretty_name;
  /// `ID` from os-release, e.g. "ubuntu", "debian", "rhel".
  std::optional<std::string> id;
  /// `VERSION_ID` from os-release, e.g. "22.04".
  std::optional<std::string> version_id;
  /// Kernel release from /proc/sys/kernel/osrelease, e.g. "5.15.0-105-generic".
  std::optional<std::string> kernel_release;
  /// Host name from /proc/sys/kernel/hostname (in a container: the container's).
  std::optional<std::string> hostname;
  /// Machine architecture, e.g. "x86_64", "aarch64": `uname -m` for the live system, else the
  /// root's proc/sys/kernel/arch file if present.
  std::optional<std::string> architecture;
};

/// Whether the benchmark ran in a container, under WSL, or in a virtual machine, and the evidence.
struct VirtualizationInfo {
  /// Container runtime: "docker", "podman", "kubernetes", "containerd" or "lxc"; `nullopt` when
  /// no evidence of a container was found (which does not prove there is none).
  std::optional<std::string> container;
  /// What showed the container, e.g. "/.dockerenv exists" or "/proc/1/cgroup mentions
  /// \"kubepods\"". `nullopt` when `container` is.
  std::optional<std::string> container_evidence;
  /// True when running under Windows Subsystem for Linux (1 or 2).
  bool wsl = false;
  /// What showed WSL, e.g. "/proc/version contains \"microsoft\"". `nullopt` when `wsl` is false.
  std::optional<std::string> wsl_evidence;
  /// Hypervisor name, e.g. "KVM", "QEMU", "VMware", "Microsoft Hyper-V", "Xen", "Amazon EC2",
  /// "Google Compute Engine", "VirtualBox"; "unknown" when the CPU reports a hypervisor that could
  /// not be named; `nullopt` when no evidence of a VM was found.
  std::optional<std::string> virtual_machine;
  /// What showed the VM, e.g. "/sys/class/dmi/id/sys_vendor is \"QEMU\"". `nullopt` when
  /// `virtual_machine` is.
  std::optional<std::string> virtual_machine_evidence;
};

/// Everything `gauge::detect_host()` found out about the host.
struct HostInfo {
  /// CPUs.
  CpuInfo cpu;
  /// System memory.
  MemoryInfo memory;
  /// NUMA nodes, ascending by id; empty when /sys/devices/system/node is missing (a note says so).
  std::vector<NumaNode> numa_nodes;
  /// Operating system.
  OsInfo os;
  /// Container / WSL / VM.
  VirtualizationInfo virtualization;
  /// Human-readable reasons why data is missing or was taken from a fallback source.
  std::vector<std::string> notes;

  /// True only if at least one CPU frequency governor is known and every known governor
  /// (`cpu.governor` and `cpu.distinct_governors`) is "performance". False when no governor is
  /// known: check `cpu.governor` to tell "unknown" from "not performance".
  bool governor_is_performance() const {
    bool any = false;
    if (cpu.governor) {
      if (*cpu.governor != "performance") return false;
      any = true;
    }
    for (const auto& g : cpu.distinct_governors) {
      if (g != "performance") return false;
      any = true;
    }
    return any;
  }
};


/// Field-wise equality.
inline bool operator==(const CpuInfo& a, const CpuInfo& b) {
  return std::tie(a.model_name, a.sockets, a.physical_cores, a.logical_cpus, a.hardware_concurrency,
                  a.max_frequency_mhz, a.current_frequency_mhz, a.governor, a.distinct_governors) ==
         std::tie(b.model_name, b.sockets, b.physical_cores, b.logical_cpus, b.hardware_concurrency,
                  b.max_frequency_mhz, b.current_frequency_mhz, b.governor, b.distinct_governors);
}
/// Field-wise equality.
inline bool operator==(const MemoryInfo& a, const MemoryInfo& b) {
  return std::tie(a.total_bytes, a.available_bytes, a.swap_total_bytes) ==
         std::tie(b.total_bytes, b.available_bytes, b.swap_total_bytes);
}
/// Field-wise equality.
inline bool operator==(const NumaNode& a, const NumaNode& b) {
  return std::tie(a.id, a.cpulist, a.cpus, a.memory_total_bytes) ==
         std::tie(b.id, b.cpulist, b.cpus, b.memory_total_bytes);
}
/// Field-wise equality.
inline bool operator==(const OsInfo& a, const OsInfo& b) {
  return std::tie(a.pretty_name, a.id, a.version_id, a.kernel_release, a.hostname,
                  a.architecture) ==
         std::tie(b.pretty_name, b.id, b.version_id, b.kernel_release, b.hostname, b.architecture);
}
/// Field-wise equality.
inline bool operator==(const VirtualizationInfo& a, const VirtualizationInfo& b) {
  return std::tie(a.container, a.container_evidence, a.wsl, a.wsl_evidence, a.virtual_machine,
                  a.virtual_machine_evidence) == std::tie(b.container, b.container_evidence, b.wsl,
                                                          b.wsl_evidence, b.virtual_machine,
                                                          b.virtual_machine_evidence);
}
/// Field-wise equality.
inline bool operator==(const HostInfo& a, const HostInfo& b) {
  return std::tie(a.cpu, a.memory, a.numa_nodes, a.os, a.virtualization, a.notes) ==
         std::tie(b.cpu, b.memory, b.numa_nodes, b.os, b.virtualization, b.notes);
}

/// Field-wise inequality.
inline bool operator!=(const CpuInfo& a, const CpuInfo& b) { return !(a == b); }
/// Field-wise inequality.
inline bool operator!=(const MemoryInfo& a, const MemoryInfo& b) { return !(a == b); }
/// Field-wise inequality.
inline bool operator!=(const NumaNode& a, const NumaNode& b) { return !(a == b); }
/// Field-wise inequality.
inline bool operator!=(const OsInfo& a, const OsInfo& b) { return !(a == b); }
/// Field-wise inequality.
inline bool operator!=(const VirtualizationInfo& a, const VirtualizationInfo& b) {
  return !(a == b);
}
/// Field-wise inequality.
inline bool operator!=(const HostInfo& a, const HostInfo& b) { return !(a == b); }
}  // namespace env

}  // namespace gauge
