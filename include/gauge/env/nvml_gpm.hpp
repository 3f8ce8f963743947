#pragma once
/// \file gauge/env/nvml_gpm.hpp
/// NVML GPM (GPU Performance Monitoring, Hopper and newer): two samples of the device's counters
/// and NVML's metrics between them (gauge/core/gpm.hpp says what gauge does with them). Only the
/// structs, constants and functions gauge uses are declared, as NVIDIA's NVML API Reference
/// defines them (https://docs.nvidia.com/deploy/nvml-api/group__nvmlGpmStructs.html,
/// .../group__nvmlGpmEnums.html, .../group__nvmlGpmFunctions.html); the functions are resolved
/// with the rest of NVML (gauge/env/nvml.hpp, `Api::gpm_*`).
///
/// The sequence, as the reference for nvmlGpmMetricsGet gives it: allocate two sample buffers
/// (nvmlGpmSampleAlloc), fill in each metric's id and the count, set the version to
/// NVML_GPM_METRICS_GET_VERSION, take two samples (nvmlGpmSampleGet) more than 100 ms apart, call
/// nvmlGpmMetricsGet, read each metric's `nvmlReturn` and `value`, free the buffers.

#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "gauge/core/gpm.hpp"
#include "gauge/env/nvml.hpp"

namespace gauge::detail::nvml {

/// nvmlGpmSupport_t: {version (IN: NVML_GPM_SUPPORT_VERSION), isSupportedDevice (OUT)}.
struct GpmSupport {
  unsigned version;
  unsigned is_supported_device;
};
/// NVML_GPM_SUPPORT_VERSION (nvml.h: `#define NVML_GPM_SUPPORT_VERSION 1`).
inline constexpr unsigned gpm_support_version = 1;

/// nvmlGpmMetric_t: {metricId (IN), nvmlReturn (OUT), value (OUT, valid when nvmlReturn is
/// NVML_SUCCESS), metricInfo {shortName, longName, unit} (OUT, may be null)}.
struct GpmMetric {
  unsigned metric_id;
  Return nvml_return;
  double value;
  struct {
    char* short_name;
    char* long_name;
    char* unit;
  } metric_info;
};

/// Entries of GpmMetricsGet::metrics. NVML declares the array as metrics[NVML_GPM_METRIC_MAX], a
/// value that grew across releases (98 in R525's nvml.h, more since the per-link NVLink metrics
/// were added); NVML reads and fills the first `numMetrics` entries ("IN: How many metrics to
/// retrieve in metrics[]"), so an array at least as long as any release's is safe with all of them.
inline constexpr unsigned gpm_metrics_capacity = 512;

/// nvmlGpmMetricsGet_t, in its declaration order: {version (IN: NVML_GPM_METRICS_GET_VERSION),
/// numMetrics (IN), sample1, sample2 (IN), metrics[NVML_GPM_METRIC_MAX] (IN/OUT)}
/// (https://docs.nvidia.com/deploy/nvml-api/api/structnvmlGpmMetricsGet__t.html).
struct GpmMetricsGet {
  unsigned version;
  unsigned num_metrics;
  GpmSample sample1;
  GpmSample sample2;
  GpmMetric metrics[gpm_metrics_capacity];
};
/// NVML_GPM_METRICS_GET_VERSION (nvml.h: `#define NVML_GPM_METRICS_GET_VERSION 1`): the value
/// GpmMetricsGet::version must hold.
inline constexpr unsigned gpm_metrics_get_version = 1;

/// nvmlGpmMetricId_t values gauge asks for (NVML API Reference, "GPM Enums").
inline constexpr unsigned gpm_metric_sm_util = 2;        ///< NVML_GPM_METRIC_SM_UTIL: % of SMs busy
inline constexpr unsigned gpm_metric_sm_occupancy = 3;   ///< NVML_GPM_METRIC_SM_OCCUPANCY: % of warps active vs the maximum
inline constexpr unsigned gpm_metric_dram_bw_util = 10;  ///< NVML_GPM_METRIC_DRAM_BW_UTIL: % of DRAM bandwidth vs its maximum

/// Two GPM samples of one device and the metrics between them. begin() takes the first, end()
/// the second; the buffers are allocated once and freed by the destructor. Never throws.
class GpmSampler {
 public:
  /// \param lib a loaded NVML (may lack GPM: begin() then says so); \param dev the device.
  GpmSampler(std::shared_ptr<Library> lib, Device dev) : lib_(std::move(lib)), dev_(dev) {}
  ~GpmSampler() {
    const Api& a = lib_->api();
    if (!a.gpm_sample_free) return;
    if (first_) a.gpm_sample_free(first_);
    if (second_) a.gpm_sample_free(second_);
  }
  GpmSampler(const GpmSampler&) = delete;
  GpmSampler& operator=(const GpmSampler&) = delete;

  /// Takes the first sample. Returns "" when taken, else why GPM is unavailable: no GPM in this
  /// libnvidia-ml, the device does not support it (GPUs before Hopper), or NVML's error.
  std::string begin() {
    const Api& a = lib_->api();
    if (!lib_->ok()) return lib_->error().value_or("NVML not available");
    if (!a.gpm_query_device_support || !a.gpm_sample_alloc || !a.gpm_sample_free || !a.gpm_sample_get ||
        !a.gpm_metrics_get)
      return "this libnvidia-ml has no GPM functions (nvmlGpmMetricsGet: driver R520 or later)";
    GpmSupport support{gpm_support_version, 0};
    if (Return r = a.gpm_query_device_support(dev_, &support); r != success)
      return "nvmlGpmQueryDeviceSupport failed: " + lib_->describe(r);
    if (!support.is_supported_device) return "the device does not support GPM (NVML GPM needs Hopper or newer)";
    for (GpmSample* s : {&first_, &second_})
      if (!*s)
        if (Return r = a.gpm_sample_alloc(s); r != success) return "nvmlGpmSampleAlloc failed: " + lib_->describe(r);
    if (Return r = a.gpm_sample_get(dev_, first_); r != success) return "nvmlGpmSampleGet failed: " + lib_->describe(r);
    begun_ = true;
    return "";
  }

  /// Takes the second sample and returns DRAM_BW_UTIL, SM_UTIL and SM_OCCUPANCY between the two
  /// (each empty, with NVML's error in `unavailable`, where NVML refused it); nullopt with
  /// `reason` when no begin() succeeded or a call failed.
  std::optional<gauge::detail::GpmReading> end(std::string& reason) {
    const Api& a = lib_->api();
    if (!begun_) {
      reason = "no first GPM sample";
      return std::nullopt;
    }
    begun_ = false;
    if (Return r = a.gpm_sample_get(dev_, second_); r != success) {
      reason = "nvmlGpmSampleGet failed: " + lib_->describe(r);
      return std::nullopt;
    }
    auto get = std::make_unique<GpmMetricsGet>();  // zeroed; ~20 KB: not on the stack
    get->version = gpm_metrics_get_version;
    get->sample1 = first_;
    get->sample2 = second_;
    static constexpr std::pair<unsigned, const char*> wanted[] = {
        {gpm_metric_dram_bw_util, "dram_bw_util"}, {gpm_metric_sm_util, "sm_util"}, {gpm_metric_sm_occupancy, "sm_occupancy"}};
    for (const auto& [id, name] : wanted) get->metrics[get->num_metrics++].metric_id = id;
    if (Return r = a.gpm_metrics_get(get.get()); r != success) {
      reason = "nvmlGpmMetricsGet failed: " + lib_->describe(r);
      return std::nullopt;
    }
    gauge::detail::GpmReading g;
    std::optional<double>* out[] = {&g.dram_bw_util_pct, &g.sm_util_pct, &g.sm_occupancy_pct};
    for (unsigned i = 0; i < 3; ++i) {
      const GpmMetric& m = get->metrics[i];
      if (m.nvml_return == success) *out[i] = m.value;
      else g.unavailable.emplace_back(wanted[i].second, lib_->describe(m.nvml_return));
    }
    return g;
  }

 private:
  std::shared_ptr<Library> lib_;
  Device dev_;
  GpmSample first_ = nullptr;
  GpmSample second_ = nullptr;
  bool begun_ = false;
};

}  // namespace gauge::detail::nvml
