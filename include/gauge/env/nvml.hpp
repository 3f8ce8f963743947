#pragma once
/// \file gauge/env/nvml.hpp
/// NVML, loaded at run time with `dlopen("libnvidia-ml.so.1")`: no link-time dependency, and its
/// absence is recorded with the reason. Only the entries gauge uses are declared, with the
/// signatures and constants of NVIDIA's NVML API Reference (R580). Tests swap the function table
/// for a fake.

#include <dlfcn.h>

#include <cctype>
#include <type_traits>

#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/environment.hpp"

namespace gauge::nvml {

/// nvmlReturn_t.
using Return = int;
/// nvmlDevice_t (opaque handle).
using Device = struct nvmlDevice_st*;

inline constexpr Return success = 0;                ///< NVML_SUCCESS
inline constexpr Return error_not_supported = 3;    ///< NVML_ERROR_NOT_SUPPORTED
inline constexpr Return error_insufficient_size = 7;  ///< NVML_ERROR_INSUFFICIENT_SIZE
inline constexpr Return error_not_found = 6;        ///< NVML_ERROR_NOT_FOUND

inline constexpr int clock_graphics = 0;  ///< NVML_CLOCK_GRAPHICS
inline constexpr int clock_sm = 1;        ///< NVML_CLOCK_SM
inline constexpr int clock_mem = 2;       ///< NVML_CLOCK_MEM
inline constexpr int temperature_gpu = 0; ///< NVML_TEMPERATURE_GPU

/// Clock event ("throttle") reason bits (nvmlClocksEventReason*).
inline constexpr std::uint64_t reason_gpu_idle = 0x1;
inline constexpr std::uint64_t reason_applications_clocks_setting = 0x2;
inline constexpr std::uint64_t reason_sw_power_cap = 0x4;
inline constexpr std::uint64_t reason_hw_slowdown = 0x8;
inline constexpr std::uint64_t reason_sync_boost = 0x10;
inline constexpr std::uint64_t reason_sw_thermal_slowdown = 0x20;
inline constexpr std::uint64_t reason_hw_thermal_slowdown = 0x40;
inline constexpr std::uint64_t reason_hw_power_brake_slowdown = 0x80;
inline constexpr std::uint64_t reason_display_clock_setting = 0x100;
/// Bits that mean the clocks are held down by power or heat (idle, application-clock and display
/// settings are not throttling).
inline constexpr std::uint64_t throttling_reasons = reason_sw_power_cap | reason_hw_slowdown | reason_sync_boost |
                                                    reason_sw_thermal_slowdown | reason_hw_thermal_slowdown |
                                                    reason_hw_power_brake_slowdown;

/// Names of the set bits of a clock event reason mask, e.g. {"sw_power_cap", "hw_slowdown"}.
inline std::vector<std::string> reason_names(std::uint64_t mask) {
  static const std::pair<std::uint64_t, const char*> names[] = {
      {reason_gpu_idle, "gpu_idle"},
      {reason_applications_clocks_setting, "applications_clocks_setting"},
      {reason_sw_power_cap, "sw_power_cap"},
      {reason_hw_slowdown, "hw_slowdown"},
      {reason_sync_boost, "sync_boost"},
      {reason_sw_thermal_slowdown, "sw_thermal_slowdown"},
      {reason_hw_thermal_slowdown, "hw_thermal_slowdown"},
      {reason_hw_power_brake_slowdown, "hw_power_brake_slowdown"},
      {reason_display_clock_setting, "display_clock_setting"},
  };
  std::vector<std::string> out;
  std::uint64_t known = 0;
  for (const auto& [bit, name] : names) {
    known |= bit;
    if (mask & bit) out.emplace_back(name);
  }
  if (mask & ~known) out.emplace_back("other");
  return out;
}

/// nvmlPciInfo_t.
struct PciInfo {
  char bus_id_legacy[16];
  unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
};
/// nvmlMemory_t (bytes).
struct Memory {
  unsigned long long total, free, used;
};
/// nvmlProcessInfo_t (as returned by nvmlDeviceGetComputeRunningProcesses_v3).
struct ProcessInfo {
  unsigned pid;
  unsigned long long used_gpu_memory;
  unsigned gpu_instance_id;
  unsigned compute_instance_id;
};

/// The NVML entries gauge uses; a null pointer is an entry the library lacks.
struct Api {
  Return (*init)() = nullptr;                                            ///< nvmlInit_v2
  Return (*shutdown)() = nullptr;                                        ///< nvmlShutdown
  const char* (*error_string)(Return) = nullptr;                         ///< nvmlErrorString
  Return (*system_get_driver_version)(char*, unsigned) = nullptr;        ///< nvmlSystemGetDriverVersion
  Return (*device_get_count)(unsigned*) = nullptr;                       ///< nvmlDeviceGetCount_v2
  Return (*device_get_handle_by_index)(unsigned, Device*) = nullptr;     ///< nvmlDeviceGetHandleByIndex_v2
  Return (*device_get_handle_by_uuid)(const char*, Device*) = nullptr;   ///< nvmlDeviceGetHandleByUUID
  Return (*device_get_handle_by_pci_bus_id)(const char*, Device*) = nullptr;  ///< nvmlDeviceGetHandleByPciBusId_v2
  Return (*device_get_index)(Device, unsigned*) = nullptr;               ///< nvmlDeviceGetIndex
  Return (*device_get_name)(Device, char*, unsigned) = nullptr;          ///< nvmlDeviceGetName
  Return (*device_get_uuid)(Device, char*, unsigned) = nullptr;          ///< nvmlDeviceGetUUID
  Return (*device_get_pci_info)(Device, PciInfo*) = nullptr;             ///< nvmlDeviceGetPciInfo_v3
  Return (*device_get_performance_state)(Device, int*) = nullptr;        ///< nvmlDeviceGetPerformanceState
  Return (*device_get_clock_info)(Device, int, unsigned*) = nullptr;     ///< nvmlDeviceGetClockInfo
  Return (*device_get_max_clock_info)(Device, int, unsigned*) = nullptr; ///< nvmlDeviceGetMaxClockInfo
  Return (*device_get_applications_clock)(Device, int, unsigned*) = nullptr;  ///< nvmlDeviceGetApplicationsClock
  Return (*device_get_default_applications_clock)(Device, int, unsigned*) = nullptr;  ///< nvmlDeviceGetDefaultApplicationsClock
  Return (*device_get_temperature)(Device, int, unsigned*) = nullptr;    ///< nvmlDeviceGetTemperature
  Return (*device_get_power_usage)(Device, unsigned*) = nullptr;         ///< nvmlDeviceGetPowerUsage (mW)
  Return (*device_get_enforced_power_limit)(Device, unsigned*) = nullptr;  ///< nvmlDeviceGetEnforcedPowerLimit (mW)
  Return (*device_get_memory_info)(Device, Memory*) = nullptr;           ///< nvmlDeviceGetMemoryInfo
  Return (*device_get_ecc_mode)(Device, int*, int*) = nullptr;           ///< nvmlDeviceGetEccMode
  Return (*device_get_persistence_mode)(Device, int*) = nullptr;         ///< nvmlDeviceGetPersistenceMode
  Return (*device_get_compute_mode)(Device, int*) = nullptr;             ///< nvmlDeviceGetComputeMode
  Return (*device_get_mig_mode)(Device, unsigned*, unsigned*) = nullptr; ///< nvmlDeviceGetMigMode
  Return (*device_get_curr_pcie_link_generation)(Device, unsigned*) = nullptr;  ///< nvmlDeviceGetCurrPcieLinkGeneration
  Return (*device_get_curr_pcie_link_width)(Device, unsigned*) = nullptr;       ///< nvmlDeviceGetCurrPcieLinkWidth
  Return (*device_get_max_pcie_link_generation)(Device, unsigned*) = nullptr;   ///< nvmlDeviceGetMaxPcieLinkGeneration
  Return (*device_get_max_pcie_link_width)(Device, unsigned*) = nullptr;        ///< nvmlDeviceGetMaxPcieLinkWidth
  /// nvmlDeviceGetCurrentClocksEventReasons (or the older ...ClocksThrottleReasons).
  Return (*device_get_clocks_event_reasons)(Device, unsigned long long*) = nullptr;
  /// nvmlDeviceGetComputeRunningProcesses_v3.
  Return (*device_get_compute_running_processes)(Device, unsigned*, ProcessInfo*) = nullptr;
};

/// NVML loaded and initialized (or the reason it is not). Shared by every user in the process;
/// nvmlShutdown runs when the last reference goes.
class Library {
 public:
  /// Loads `soname` with dlopen and initializes NVML. Never throws: failures land in error().
  static std::shared_ptr<Library> load(const char* soname = "libnvidia-ml.so.1") {
    auto lib = std::shared_ptr<Library>(new Library());
    lib->handle_ = ::dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!lib->handle_) {
      const char* e = ::dlerror();
      lib->error_ = std::string("cannot load ") + soname + ": " + (e ? e : "unknown error");
      return lib;
    }
    auto sym = [&](auto& fn, const char* name, const char* fallback = nullptr) {
      void* p = ::dlsym(lib->handle_, name);
      if (!p && fallback) p = ::dlsym(lib->handle_, fallback);
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
    };
    Api& a = lib->api_;
    sym(a.init, "nvmlInit_v2", "nvmlInit");
    sym(a.shutdown, "nvmlShutdown");
    sym(a.error_string, "nvmlErrorString");
    sym(a.system_get_driver_version, "nvmlSystemGetDriverVersion");
    sym(a.device_get_count, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount");
    sym(a.device_get_handle_by_index, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex");
    sym(a.device_get_handle_by_uuid, "nvmlDeviceGetHandleByUUID");
    sym(a.device_get_handle_by_pci_bus_id, "nvmlDeviceGetHandleByPciBusId_v2", "nvmlDeviceGetHandleByPciBusId");
    sym(a.device_get_index, "nvmlDeviceGetIndex");
    sym(a.device_get_name, "nvmlDeviceGetName");
    sym(a.device_get_uuid, "nvmlDeviceGetUUID");
    sym(a.device_get_pci_info, "nvmlDeviceGetPciInfo_v3");
    sym(a.device_get_performance_state, "nvmlDeviceGetPerformanceState");
    sym(a.device_get_clock_info, "nvmlDeviceGetClockInfo");
    sym(a.device_get_max_clock_info, "nvmlDeviceGetMaxClockInfo");
    sym(a.device_get_applications_clock, "nvmlDeviceGetApplicationsClock");
    sym(a.device_get_default_applications_clock, "nvmlDeviceGetDefaultApplicationsClock");
    sym(a.device_get_temperature, "nvmlDeviceGetTemperature");
    sym(a.device_get_power_usage, "nvmlDeviceGetPowerUsage");
    sym(a.device_get_enforced_power_limit, "nvmlDeviceGetEnforcedPowerLimit");
    sym(a.device_get_memory_info, "nvmlDeviceGetMemoryInfo");
    sym(a.device_get_ecc_mode, "nvmlDeviceGetEccMode");
    sym(a.device_get_persistence_mode, "nvmlDeviceGetPersistenceMode");
    sym(a.device_get_compute_mode, "nvmlDeviceGetComputeMode");
    sym(a.device_get_mig_mode, "nvmlDeviceGetMigMode");
    sym(a.device_get_curr_pcie_link_generation, "nvmlDeviceGetCurrPcieLinkGeneration");
    sym(a.device_get_curr_pcie_link_width, "nvmlDeviceGetCurrPcieLinkWidth");
    sym(a.device_get_max_pcie_link_generation, "nvmlDeviceGetMaxPcieLinkGeneration");
    sym(a.device_get_max_pcie_link_width, "nvmlDeviceGetMaxPcieLinkWidth");
    sym(a.device_get_clocks_event_reasons, "nvmlDeviceGetCurrentClocksEventReasons",
        "nvmlDeviceGetCurrentClocksThrottleReasons");
    sym(a.device_get_compute_running_processes, "nvmlDeviceGetComputeRunningProcesses_v3");
    lib->initialize();
    return lib;
  }

  /// Wraps a ready function table (tests). `init` is called unless it is null.
  static std::shared_ptr<Library> from_api(const Api& api) {
    auto lib = std::shared_ptr<Library>(new Library());
    lib->api_ = api;
    lib->initialize();
    return lib;
  }

  /// The process-wide NVML (loaded once, kept for the process's lifetime).
  static std::shared_ptr<Library> shared() {
    static std::shared_ptr<Library> lib = load();
    return lib;
  }

  ~Library() {
    if (initialized_ && api_.shutdown) api_.shutdown();
    if (handle_) ::dlclose(handle_);
  }
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  /// True when NVML is loaded and initialized.
  bool ok() const { return initialized_; }
  /// Why it is not (empty when ok()).
  const std::optional<std::string>& error() const { return error_; }
  /// The function table.
  const Api& api() const { return api_; }
  /// NVML's text for an error code, e.g. "Not Supported".
  std::string describe(Return r) const {
    if (api_.error_string) {
      const char* s = api_.error_string(r);
      if (s) return s;
    }
    return "NVML error " + std::to_string(r);
  }

 private:
  Library() = default;
  void initialize() {
    if (!api_.init) {
      error_ = "libnvidia-ml has no nvmlInit_v2";
      return;
    }
    Return r = api_.init();
    if (r != success) {
      error_ = "nvmlInit_v2 failed: " + describe(r);
      return;
    }
    initialized_ = true;
  }

  void* handle_ = nullptr;
  Api api_;
  bool initialized_ = false;
  std::optional<std::string> error_;
};

namespace detail {
/// Lower-case PCI bus id with a 4-digit domain ("00000000:19:00.0" → "0000:19:00.0") so CUDA's
/// and NVML's spellings compare equal.
inline std::string normalize_bus_id(std::string id) {
  for (auto& c : id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto colon = id.find(':');
  if (colon != std::string::npos && colon > 4) id = id.substr(colon - 4);
  return id;
}
}  // namespace detail

/// Reads every static and current field of one GPU. Fields NVML refuses are recorded in
/// `unavailable` with the reason; never throws.
inline NvmlGpuInfo query_gpu(const Library& lib, Device dev) {
  const Api& a = lib.api();
  NvmlGpuInfo g;
  auto fail = [&](const char* field, Return r) { g.unavailable.emplace_back(field, lib.describe(r)); };
  auto missing = [&](const char* field) { g.unavailable.emplace_back(field, "function not in this libnvidia-ml"); };
  char buf[256];
  if (a.device_get_index) {
    unsigned i = 0;
    if (a.device_get_index(dev, &i) == success) g.index = i;
  }
  if (!a.device_get_name) missing("name");
  else if (Return r = a.device_get_name(dev, buf, sizeof buf); r == success) g.name = buf;
  else fail("name", r);
  if (!a.device_get_uuid) missing("uuid");
  else if (Return r = a.device_get_uuid(dev, buf, sizeof buf); r == success) g.uuid = buf;
  else fail("uuid", r);
  if (!a.device_get_pci_info) missing("pci_bus_id");
  else {
    PciInfo p{};
    if (Return r = a.device_get_pci_info(dev, &p); r == success) g.pci_bus_id = std::string(p.bus_id);
    else fail("pci_bus_id", r);
  }
  if (!a.device_get_performance_state) missing("pstate");
  else {
    int ps = 0;
    if (Return r = a.device_get_performance_state(dev, &ps); r == success) g.pstate = ps;
    else fail("pstate", r);
  }
  auto clock = [&](auto fn, int type, std::optional<double>& out, const char* field) {
    if (!fn) return missing(field);
    unsigned mhz = 0;
    if (Return r = fn(dev, type, &mhz); r == success) out = mhz;
    else fail(field, r);
  };
  clock(a.device_get_clock_info, clock_sm, g.sm_clock_mhz, "sm_clock_mhz");
  clock(a.device_get_max_clock_info, clock_sm, g.sm_clock_max_mhz, "sm_clock_max_mhz");
  clock(a.device_get_applications_clock, clock_sm, g.sm_clock_application_mhz, "sm_clock_application_mhz");
  clock(a.device_get_default_applications_clock, clock_sm, g.sm_clock_default_application_mhz,
        "sm_clock_default_application_mhz");
  clock(a.device_get_clock_info, clock_mem, g.memory_clock_mhz, "memory_clock_mhz");
  clock(a.device_get_max_clock_info, clock_mem, g.memory_clock_max_mhz, "memory_clock_max_mhz");
  clock(a.device_get_applications_clock, clock_mem, g.memory_clock_application_mhz, "memory_clock_application_mhz");
  clock(a.device_get_default_applications_clock, clock_mem, g.memory_clock_default_application_mhz,
        "memory_clock_default_application_mhz");
  if (!a.device_get_temperature) missing("temperature_c");
  else {
    unsigned t = 0;
    if (Return r = a.device_get_temperature(dev, temperature_gpu, &t); r == success) g.temperature_c = t;
    else fail("temperature_c", r);
  }
  if (!a.device_get_power_usage) missing("power_draw_w");
  else {
    unsigned mw = 0;
    if (Return r = a.device_get_power_usage(dev, &mw); r == success) g.power_draw_w = mw / 1000.0;
    else fail("power_draw_w", r);
  }
  if (!a.device_get_enforced_power_limit) missing("power_limit_w");
  else {
    unsigned mw = 0;
    if (Return r = a.device_get_enforced_power_limit(dev, &mw); r == success) g.power_limit_w = mw / 1000.0;
    else fail("power_limit_w", r);
  }
  if (!a.device_get_memory_info) missing("memory");
  else {
    Memory m{};
    if (Return r = a.device_get_memory_info(dev, &m); r == success) {
      g.memory_total_bytes = m.total;
      g.memory_used_bytes = m.used;
    } else {
      fail("memory", r);
    }
  }
  if (!a.device_get_ecc_mode) missing("ecc_enabled");
  else {
    int cur = 0, pend = 0;
    if (Return r = a.device_get_ecc_mode(dev, &cur, &pend); r == success) g.ecc_enabled = cur != 0;
    else fail("ecc_enabled", r);
  }
  if (!a.device_get_persistence_mode) missing("persistence_mode");
  else {
    int m = 0;
    if (Return r = a.device_get_persistence_mode(dev, &m); r == success) g.persistence_mode = m != 0;
    else fail("persistence_mode", r);
  }
  if (!a.device_get_compute_mode) missing("compute_mode");
  else {
    int m = 0;
    if (Return r = a.device_get_compute_mode(dev, &m); r == success) {
      g.compute_mode = m == 0 ? "default" : m == 1 ? "exclusive_thread" : m == 2 ? "prohibited"
                     : m == 3 ? "exclusive_process" : "unknown(" + std::to_string(m) + ")";
    } else {
      fail("compute_mode", r);
    }
  }
  if (!a.device_get_mig_mode) missing("mig_enabled");
  else {
    unsigned cur = 0, pend = 0;
    if (Return r = a.device_get_mig_mode(dev, &cur, &pend); r == success) g.mig_enabled = cur != 0;
    else fail("mig_enabled", r);
  }
  auto link = [&](auto fn, std::optional<unsigned>& out, const char* field) {
    if (!fn) return missing(field);
    unsigned v = 0;
    if (Return r = fn(dev, &v); r == success) out = v;
    else fail(field, r);
  };
  link(a.device_get_curr_pcie_link_generation, g.pcie_generation, "pcie_generation");
  link(a.device_get_curr_pcie_link_width, g.pcie_width, "pcie_width");
  link(a.device_get_max_pcie_link_generation, g.pcie_generation_max, "pcie_generation_max");
  link(a.device_get_max_pcie_link_width, g.pcie_width_max, "pcie_width_max");
  if (!a.device_get_clocks_event_reasons) missing("clock_event_reasons");
  else {
    unsigned long long m = 0;
    if (Return r = a.device_get_clocks_event_reasons(dev, &m); r == success) {
      g.clock_event_reasons = m;
      g.clock_event_reason_names = reason_names(m);
    } else {
      fail("clock_event_reasons", r);
    }
  }
  if (!a.device_get_compute_running_processes) missing("processes");
  else {
    std::vector<ProcessInfo> infos(64);
    unsigned n = static_cast<unsigned>(infos.size());
    Return r = a.device_get_compute_running_processes(dev, &n, infos.data());
    if (r == error_insufficient_size) {
      infos.resize(n + 16);
      n = static_cast<unsigned>(infos.size());
      r = a.device_get_compute_running_processes(dev, &n, infos.data());
    }
    if (r == success) {
      for (unsigned i = 0; i < n && i < infos.size(); ++i) g.processes.emplace_back(infos[i].pid, infos[i].used_gpu_memory);
    } else {
      fail("processes", r);
    }
  }
  // Clocks locked: application clocks moved from their defaults, or NVML says the clocks are held
  // by the applications-clocks setting (which `nvidia-smi -lgc` also sets).
  if (g.clock_event_reasons && (*g.clock_event_reasons & reason_applications_clocks_setting)) {
    g.clocks_locked = true;
    g.clocks_locked_evidence = "clock event reason applications_clocks_setting is active";
  } else if (g.sm_clock_application_mhz && g.sm_clock_default_application_mhz &&
             *g.sm_clock_application_mhz != *g.sm_clock_default_application_mhz) {
    g.clocks_locked = true;
    g.clocks_locked_evidence = "application SM clock differs from its default";
  } else if (g.clock_event_reasons || g.sm_clock_application_mhz) {
    g.clocks_locked = false;
    g.clocks_locked_evidence = "application clocks at their defaults and no applications-clocks reason";
  }
  return g;
}

/// Finds NVML's handle for a CUDA device: by UUID first, then by PCI bus id (never by ordinal:
/// with CUDA_VISIBLE_DEVICES set, CUDA's ordinals differ from NVML's indices).
inline std::optional<std::pair<Device, std::string>> find_device(const Library& lib, const std::optional<std::string>& uuid,
                                                                  const std::optional<std::string>& pci_bus_id) {
  const Api& a = lib.api();
  if (!lib.ok()) return std::nullopt;
  Device d = nullptr;
  if (uuid && a.device_get_handle_by_uuid && a.device_get_handle_by_uuid(uuid->c_str(), &d) == success && d)
    return std::make_pair(d, std::string("uuid"));
  if (pci_bus_id && a.device_get_handle_by_pci_bus_id &&
      a.device_get_handle_by_pci_bus_id(pci_bus_id->c_str(), &d) == success && d)
    return std::make_pair(d, std::string("pci_bus_id"));
  // Fall back to a scan comparing identifiers (some drivers reject one spelling of the bus id).
  unsigned count = 0;
  if (!a.device_get_count || a.device_get_count(&count) != success) return std::nullopt;
  for (unsigned i = 0; i < count; ++i) {
    if (!a.device_get_handle_by_index || a.device_get_handle_by_index(i, &d) != success) continue;
    char buf[96];
    if (uuid && a.device_get_uuid && a.device_get_uuid(d, buf, sizeof buf) == success && *uuid == buf)
      return std::make_pair(d, std::string("uuid"));
    PciInfo p{};
    if (pci_bus_id && a.device_get_pci_info && a.device_get_pci_info(d, &p) == success &&
        detail::normalize_bus_id(p.bus_id) == detail::normalize_bus_id(*pci_bus_id))
      return std::make_pair(d, std::string("pci_bus_id"));
  }
  return std::nullopt;
}

/// Fills `env.nvml` and each CUDA device's `nvml` record (matched by UUID or bus id).
inline void describe_gpus(const Library& lib, Environment& env) {
  env.nvml.available = lib.ok();
  env.nvml.error = lib.error();
  if (!lib.ok()) return;
  const Api& a = lib.api();
  char buf[96];
  if (a.system_get_driver_version && a.system_get_driver_version(buf, sizeof buf) == success) env.nvml.driver_version = buf;
  unsigned count = 0;
  if (a.device_get_count && a.device_get_count(&count) == success) env.nvml.device_count = count;
  for (auto& dev : env.cuda.devices) {
    auto found = find_device(lib, dev.uuid, dev.pci_bus_id);
    if (!found) continue;
    dev.nvml = query_gpu(lib, found->first);
    dev.nvml->matched_by = found->second;
  }
}

}  // namespace gauge::nvml
