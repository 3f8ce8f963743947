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

namespace gauge::detail::nvml {

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

/// nvmlGpmSample_t (opaque handle to a GPM sample buffer).
using GpmSample = struct nvmlGpmSample_st*;
struct GpmSupport;     // nvmlGpmSupport_t: gauge/env/nvml_gpm.hpp
struct GpmMetricsGet;  // nvmlGpmMetricsGet_t: gauge/env/nvml_gpm.hpp

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
  // GPM, Hopper and newer (R520 and later; gauge/env/nvml_gpm.hpp).
  Return (*gpm_query_device_support)(Device, GpmSupport*) = nullptr;  ///< nvmlGpmQueryDeviceSupport
  Return (*gpm_sample_alloc)(GpmSample*) = nullptr;                    ///< nvmlGpmSampleAlloc
  Return (*gpm_sample_free)(GpmSample) = nullptr;                      ///< nvmlGpmSampleFree
  Return (*gpm_sample_get)(Device, GpmSample) = nullptr;               ///< nvmlGpmSampleGet
  Return (*gpm_metrics_get)(GpmMetricsGet*) = nullptr;                 ///< nvmlGpmMetricsGet
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
    sym(a.gpm_query_device_support, "nvmlGpmQueryDeviceSupport");
    sym(a.gpm_sample_alloc, "nvmlGpmSampleAlloc");
    sym(a.gpm_sample_free, "nvmlGpmSampleFree");
    sym(a.gpm_sample_get, "nvmlGpmSampleGet");
    sym(a.gpm_metrics_get, "nvmlGpmMetricsGet");
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
inline env::NvmlGpuInfo query_gpu(const Library& lib, Device dev) {
  const Api& a = lib.api();
  env::NvmlGpuInfo g;
  auto fail = [&](const char* field, Return r) { g.unavailable.emplace_back(field, lib.describe(r)); };
  auto missing = [&](const char* field) { g.unavailable.emplace_back(field, "function not in this libnvidia-ml"); };
  char buf[256];
  if (a.device_get_index) {
    unsigned i = 0;
    if (a.device_get_index(dev, &i) == success) g.index = i;
  }
  // One NVML query of `field`: calls `fn(dev, args...)` (its out-parameters among `args`) and, on
  // success, `use`; a function this libnvidia-ml lacks, or a failing call, lands in `unavailable`.
  auto query = [&](const char* field, auto fn, auto use, auto... args) {
    if (!fn) return missing(field);
    if (Return r = fn(dev, args...); r == success) use();
    else fail(field, r);
  };
  query("name", a.device_get_name, [&] { g.name = buf; }, buf, unsigned(sizeof buf));
  query("uuid", a.device_get_uuid, [&] { g.uuid = buf; }, buf, unsigned(sizeof buf));
  PciInfo pci{};
  query("pci_bus_id", a.device_get_pci_info, [&] { g.pci_bus_id = std::string(pci.bus_id); }, &pci);
  int pstate = 0;
  query("pstate", a.device_get_performance_state, [&] { g.pstate = pstate; }, &pstate);
  // An unsigned reading of `field` (MHz, degrees, lanes, a generation) written to `out`.
  auto reading = [&](auto fn, auto& out, const char* field, auto... args) {
    unsigned v = 0;
    query(field, fn, [&] { out = v; }, args..., &v);
  };
  reading(a.device_get_clock_info, g.sm_clock_mhz, "sm_clock_mhz", clock_sm);
  reading(a.device_get_max_clock_info, g.sm_clock_max_mhz, "sm_clock_max_mhz", clock_sm);
  reading(a.device_get_applications_clock, g.sm_clock_application_mhz, "sm_clock_application_mhz", clock_sm);
  reading(a.device_get_default_applications_clock, g.sm_clock_default_application_mhz,
          "sm_clock_default_application_mhz", clock_sm);
  reading(a.device_get_clock_info, g.memory_clock_mhz, "memory_clock_mhz", clock_mem);
  reading(a.device_get_max_clock_info, g.memory_clock_max_mhz, "memory_clock_max_mhz", clock_mem);
  reading(a.device_get_applications_clock, g.memory_clock_application_mhz, "memory_clock_application_mhz", clock_mem);
  reading(a.device_get_default_applications_clock, g.memory_clock_default_application_mhz,
          "memory_clock_default_application_mhz", clock_mem);
  reading(a.device_get_temperature, g.temperature_c, "temperature_c", temperature_gpu);
  unsigned power_mw = 0, power_limit_mw = 0;
  query("power_draw_w", a.device_get_power_usage, [&] { g.power_draw_w = power_mw / 1000.0; }, &power_mw);
  query("power_limit_w", a.device_get_enforced_power_limit, [&] { g.power_limit_w = power_limit_mw / 1000.0; },
        &power_limit_mw);
  Memory memory{};
  query("memory", a.device_get_memory_info, [&] {
    g.memory_total_bytes = memory.total;
    g.memory_used_bytes = memory.used;
  }, &memory);
  int ecc = 0, ecc_pending = 0;
  query("ecc_enabled", a.device_get_ecc_mode, [&] { g.ecc_enabled = ecc != 0; }, &ecc, &ecc_pending);
  int persistence = 0;
  query("persistence_mode", a.device_get_persistence_mode, [&] { g.persistence_mode = persistence != 0; }, &persistence);
  int compute = 0;
  query("compute_mode", a.device_get_compute_mode, [&] {
    g.compute_mode = compute == 0 ? "default" : compute == 1 ? "exclusive_thread" : compute == 2 ? "prohibited"
                   : compute == 3 ? "exclusive_process" : "unknown(" + std::to_string(compute) + ")";
  }, &compute);
  unsigned mig = 0, mig_pending = 0;
  query("mig_enabled", a.device_get_mig_mode, [&] { g.mig_enabled = mig != 0; }, &mig, &mig_pending);
  reading(a.device_get_curr_pcie_link_generation, g.pcie_generation, "pcie_generation");
  reading(a.device_get_curr_pcie_link_width, g.pcie_width, "pcie_width");
  reading(a.device_get_max_pcie_link_generation, g.pcie_generation_max, "pcie_generation_max");
  reading(a.device_get_max_pcie_link_width, g.pcie_width_max, "pcie_width_max");
  unsigned long long reasons = 0;
  query("clock_event_reasons", a.device_get_clocks_event_reasons, [&] {
    g.clock_event_reasons = reasons;
    g.clock_event_reason_names = reason_names(reasons);
  }, &reasons);
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

}  // namespace gauge::detail::nvml
