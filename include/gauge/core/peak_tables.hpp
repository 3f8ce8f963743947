#pragma once
/// \file gauge/core/peak_tables.hpp
/// The peaks' tables and formulas (gauge/core/peaks.hpp states the three bases): the dense FLOP
/// per SM per clock of each compute capability and type (`compute_rates`, every row naming its
/// source), the per-model memory corrections, NVIDIA's datasheet figures, and the pure functions
/// that compute a device's peaks from its attributes. Apart from the peaks' data so that a file
/// that only defines experiments does not parse them; tested on a CPU (tests/test_peaks.cpp).

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gauge/core/peaks.hpp"

namespace gauge {

namespace detail {
/// The data types of the compute peaks, in the report's order.
inline const std::vector<std::string>& peak_dtypes() {
  static const std::vector<std::string> d = {"fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8"};
  return d;
}

/// The canonical peak type of a declared data type ("bf16", "bfloat16", "half", "float",
/// "e4m3", "int8_t", ...; case-insensitive), or nullopt for a name gauge does not know.
inline std::optional<std::string> canonical_dtype(std::string t) {
  for (auto& c : t) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  struct Alias {
    const char* name;
    const char* canonical;
  };
  static constexpr Alias aliases[] = {
      {"fp64", "fp64"}, {"f64", "fp64"}, {"double", "fp64"}, {"float64", "fp64"},
      {"fp32", "fp32"}, {"f32", "fp32"}, {"float", "fp32"}, {"float32", "fp32"}, {"sgemm", "fp32"},
      {"tf32", "tf32"},
      {"bf16", "bf16"}, {"bfloat16", "bf16"},
      {"fp16", "fp16"}, {"f16", "fp16"}, {"half", "fp16"}, {"float16", "fp16"},
      {"fp8", "fp8"}, {"e4m3", "fp8"}, {"e5m2", "fp8"}, {"fp8_e4m3", "fp8"}, {"fp8_e5m2", "fp8"},
      {"int8", "int8"}, {"i8", "int8"}, {"int8_t", "int8"}, {"s8", "int8"},
  };
  for (const auto& a : aliases)
    if (t == a.name) return std::string(a.canonical);
  return std::nullopt;
}
}  // namespace detail

namespace peaks {
/// One row of the compute table: dense operations per SM per clock for a compute capability (and,
/// where products of one capability differ, a name fragment) and a data type.
struct ComputeRate {
  int major;                  ///< compute capability major
  int minor;                  ///< compute capability minor
  const char* name_contains;  ///< "" for every device of this capability; else a fragment of the name
  const char* dtype;          ///< canonical type
  double per_sm_per_clock;    ///< dense FLOP (OP for int8) per SM per clock; an FMA counts 2
  bool tensor;                ///< tensor cores (else the vector units)
  const char* source;         ///< where the number comes from, with the arithmetic
};
}  // namespace peaks

namespace detail {
/// Dense rates per SM per clock. Each is a datasheet figure divided by SMs × the clock it implies;
/// the row says which. Rows with a name fragment come first and win over the capability's default.
inline constexpr peaks::ComputeRate compute_rates[] = {
    // Ampere GA100 (sm_80). "NVIDIA A100 Tensor Core GPU Architecture" whitepaper (2020), Table 1:
    // A100 SXM4, 108 SMs, 1410 MHz boost.
    {8, 0, "", "fp64", 128, true, "A100 whitepaper: FP64 Tensor 19.5 TFLOP/s / (108 SMs x 1.41 GHz) = 128"},
    {8, 0, "", "fp32", 128, false, "A100 whitepaper: FP32 19.5 TFLOP/s / (108 SMs x 1.41 GHz) = 128 (64 lanes x FMA)"},
    {8, 0, "", "tf32", 1024, true, "A100 whitepaper: TF32 Tensor 156 TFLOP/s dense / (108 x 1.41 GHz) = 1024"},
    {8, 0, "", "bf16", 2048, true, "A100 whitepaper: BF16 Tensor 312 TFLOP/s dense / (108 x 1.41 GHz) = 2048"},
    {8, 0, "", "fp16", 2048, true, "A100 whitepaper: FP16 Tensor 312 TFLOP/s dense / (108 x 1.41 GHz) = 2048"},
    {8, 0, "", "int8", 4096, true, "A100 whitepaper: INT8 Tensor 624 TOPS dense / (108 x 1.41 GHz) = 4096"},
    // Ada AD10x (sm_89). "NVIDIA ADA GPU Architecture" whitepaper (v2.1), Appendix A: GeForce RTX 4090,
    // 128 SMs, 2520 MHz boost; GeForce parts run FP16/BF16/FP8 with FP32 accumulation at half rate.
    {8, 9, "GeForce", "bf16", 512, true, "Ada whitepaper: RTX 4090 BF16 (FP32 acc.) 165.2 TFLOP/s / (128 x 2.52 GHz) = 512"},
    {8, 9, "GeForce", "fp16", 512, true, "Ada whitepaper: RTX 4090 FP16 (FP32 acc.) 165.2 TFLOP/s / (128 x 2.52 GHz) = 512"},
    {8, 9, "GeForce", "fp8", 1024, true, "Ada whitepaper: RTX 4090 FP8 (FP32 acc.) 330.3 TFLOP/s / (128 x 2.52 GHz) = 1024"},
    {8, 9, "GeForce", "tf32", 256, true, "Ada whitepaper: RTX 4090 TF32 82.6 TFLOP/s / (128 x 2.52 GHz) = 256"},
    // Ada datacenter (L40S): "NVIDIA L40S GPU datasheet" (2023), 142 SMs, 2520 MHz boost.
    {8, 9, "", "fp32", 256, false, "L40S datasheet: FP32 91.6 TFLOP/s / (142 x 2.52 GHz) = 256"},
    {8, 9, "", "tf32", 512, true, "L40S datasheet: TF32 Tensor 183 TFLOP/s dense / (142 x 2.52 GHz) = 512"},
    {8, 9, "", "bf16", 1024, true, "L40S datasheet: BF16 Tensor 362.05 TFLOP/s dense / (142 x 2.52 GHz) = 1024"},
    {8, 9, "", "fp16", 1024, true, "L40S datasheet: FP16 Tensor 362.05 TFLOP/s dense / (142 x 2.52 GHz) = 1024"},
    {8, 9, "", "fp8", 2048, true, "L40S datasheet: FP8 Tensor 733 TFLOP/s dense / (142 x 2.52 GHz) = 2048"},
    {8, 9, "", "int8", 2048, true, "L40S datasheet: INT8 Tensor 733 TOPS dense / (142 x 2.52 GHz) = 2048"},
    // Hopper GH100 (sm_90). "NVIDIA H100 Tensor Core GPU Architecture" whitepaper (v1.04) and the
    // H100/H200 datasheets: H100 SXM5, 132 SMs. The tensor figures imply 1830 MHz, FP32/FP64 1980 MHz.
    {9, 0, "", "fp64", 256, true, "H100 whitepaper: FP64 Tensor 66.9 TFLOP/s / (132 x 1.98 GHz) = 256"},
    {9, 0, "", "fp32", 256, false, "H100 whitepaper: FP32 66.9 TFLOP/s / (132 x 1.98 GHz) = 256 (128 lanes x FMA)"},
    {9, 0, "", "tf32", 2048, true, "H100 whitepaper: TF32 Tensor 494.7 TFLOP/s dense / (132 x 1.83 GHz) = 2048"},
    {9, 0, "", "bf16", 4096, true, "H100 whitepaper: BF16 Tensor 989.4 TFLOP/s dense / (132 x 1.83 GHz) = 4096"},
    {9, 0, "", "fp16", 4096, true, "H100 whitepaper: FP16 Tensor 989.4 TFLOP/s dense / (132 x 1.83 GHz) = 4096"},
    {9, 0, "", "fp8", 8192, true, "H100 whitepaper: FP8 Tensor 1978.9 TFLOP/s dense / (132 x 1.83 GHz) = 8192"},
    {9, 0, "", "int8", 8192, true, "H100 whitepaper: INT8 Tensor 1978.9 TOPS dense / (132 x 1.83 GHz) = 8192"},
    // Blackwell GB100 (sm_100). "NVIDIA HGX B200 datasheet" (2024), per GPU, dense: FP8 4.5 PFLOP/s,
    // BF16/FP16 2.25, TF32 1.1, FP64 Tensor 40 TFLOP/s; 148 SMs. NVIDIA states no clock for these:
    // the rates below are 2x Hopper's per SM per clock, which the figures match at 1.856 GHz (derived).
    {10, 0, "", "tf32", 4096, true, "HGX B200 datasheet: TF32 1.1 PFLOP/s dense ~ 148 x 1.856 GHz x 4096 (derived clock)"},
    {10, 0, "", "bf16", 8192, true, "HGX B200 datasheet: BF16 2.25 PFLOP/s dense = 148 x 1.856 GHz x 8192 (derived clock)"},
    {10, 0, "", "fp16", 8192, true, "HGX B200 datasheet: FP16 2.25 PFLOP/s dense = 148 x 1.856 GHz x 8192 (derived clock)"},
    {10, 0, "", "fp8", 16384, true, "HGX B200 datasheet: FP8 4.5 PFLOP/s dense = 148 x 1.856 GHz x 16384 (derived clock)"},
    {10, 0, "", "int8", 16384, true, "HGX B200 datasheet: INT8 4.5 POP/s dense = 148 x 1.856 GHz x 16384 (derived clock)"},
};
}  // namespace detail

namespace peaks {
/// A per-model correction of the memory formula's inputs, where the reported attribute is known to
/// be wrong.
struct MemoryCorrection {
  const char* name_contains;  ///< a fragment of the device's name
  int bus_width_bits;         ///< the bus width to use, bits
  const char* source;         ///< why
};
}  // namespace peaks

namespace detail {
/// Models whose reported bus width is wrong.
inline constexpr peaks::MemoryCorrection memory_corrections[] = {
    {"B200", 7680, "cudaDevAttrGlobalMemoryBusWidth reports 8192 bits on B200; gauge uses 7680 (issue \"Speed of light\")"},
};
}  // namespace detail

namespace peaks {
/// One published (datasheet) peak of a model, dense.
struct DatasheetPeak {
  const char* name_contains;  ///< a fragment of the device's name ("H200", "H100 80GB HBM3", ...)
  const char* dtype;          ///< "" for memory bandwidth; else the canonical type
  double value;               ///< bytes/s for memory, FLOP/s (OP/s) for compute
  const char* source;         ///< the datasheet
};
}  // namespace peaks

namespace detail {
/// NVIDIA's datasheet peaks, dense (the "with sparsity" figures halved). Rows for a more specific
/// name ("H200 NVL") come before the general one ("H200"); the first match of a name wins.
inline constexpr peaks::DatasheetPeak datasheet_peaks[] = {
    {"H200 NVL", "", 4.8e12, "NVIDIA H200 NVL datasheet (2024): 4.8 TB/s"},
    {"H200 NVL", "bf16", 835.5e12, "NVIDIA H200 NVL datasheet (2024): BF16 1671 TFLOP/s with sparsity / 2"},
    {"H200 NVL", "fp16", 835.5e12, "NVIDIA H200 NVL datasheet (2024): FP16 1671 TFLOP/s with sparsity / 2"},
    {"H200 NVL", "fp8", 1670.5e12, "NVIDIA H200 NVL datasheet (2024): FP8 3341 TFLOP/s with sparsity / 2"},
    {"H200", "", 4.8e12, "NVIDIA H200 Tensor Core GPU datasheet (2024): 4.8 TB/s"},
    {"H200", "fp64", 67e12, "NVIDIA H200 datasheet: FP64 Tensor 67 TFLOP/s"},
    {"H200", "fp32", 67e12, "NVIDIA H200 datasheet: FP32 67 TFLOP/s"},
    {"H200", "tf32", 494.5e12, "NVIDIA H200 datasheet: TF32 Tensor 989 TFLOP/s with sparsity / 2"},
    {"H200", "bf16", 989.5e12, "NVIDIA H200 datasheet: BF16 Tensor 1979 TFLOP/s with sparsity / 2"},
    {"H200", "fp16", 989.5e12, "NVIDIA H200 datasheet: FP16 Tensor 1979 TFLOP/s with sparsity / 2"},
    {"H200", "fp8", 1979e12, "NVIDIA H200 datasheet: FP8 Tensor 3958 TFLOP/s with sparsity / 2"},
    {"H200", "int8", 1979e12, "NVIDIA H200 datasheet: INT8 Tensor 3958 TOPS with sparsity / 2"},
    {"H100 80GB HBM3", "", 3.35e12, "NVIDIA H100 Tensor Core GPU datasheet (SXM5): 3.35 TB/s"},
    {"H100 80GB HBM3", "fp64", 67e12, "NVIDIA H100 datasheet (SXM5): FP64 Tensor 67 TFLOP/s"},
    {"H100 80GB HBM3", "fp32", 67e12, "NVIDIA H100 datasheet (SXM5): FP32 67 TFLOP/s"},
    {"H100 80GB HBM3", "tf32", 494.5e12, "NVIDIA H100 datasheet (SXM5): TF32 Tensor 989 TFLOP/s with sparsity / 2"},
    {"H100 80GB HBM3", "bf16", 989.5e12, "NVIDIA H100 datasheet (SXM5): BF16 Tensor 1979 TFLOP/s with sparsity / 2"},
    {"H100 80GB HBM3", "fp16", 989.5e12, "NVIDIA H100 datasheet (SXM5): FP16 Tensor 1979 TFLOP/s with sparsity / 2"},
    {"H100 80GB HBM3", "fp8", 1979e12, "NVIDIA H100 datasheet (SXM5): FP8 Tensor 3958 TFLOP/s with sparsity / 2"},
    {"H100 80GB HBM3", "int8", 1979e12, "NVIDIA H100 datasheet (SXM5): INT8 Tensor 3958 TOPS with sparsity / 2"},
    {"A100-SXM4-80GB", "", 2.039e12, "NVIDIA A100 Tensor Core GPU datasheet (80GB SXM): 2039 GB/s"},
    {"A100-SXM4-80GB", "fp64", 19.5e12, "NVIDIA A100 datasheet: FP64 Tensor 19.5 TFLOP/s"},
    {"A100-SXM4-80GB", "fp32", 19.5e12, "NVIDIA A100 datasheet: FP32 19.5 TFLOP/s"},
    {"A100-SXM4-80GB", "tf32", 156e12, "NVIDIA A100 datasheet: TF32 Tensor 156 TFLOP/s"},
    {"A100-SXM4-80GB", "bf16", 312e12, "NVIDIA A100 datasheet: BF16 Tensor 312 TFLOP/s"},
    {"A100-SXM4-80GB", "fp16", 312e12, "NVIDIA A100 datasheet: FP16 Tensor 312 TFLOP/s"},
    {"A100-SXM4-80GB", "int8", 624e12, "NVIDIA A100 datasheet: INT8 Tensor 624 TOPS"},
    {"L40S", "", 864e9, "NVIDIA L40S datasheet: 864 GB/s"},
    {"L40S", "bf16", 362.05e12, "NVIDIA L40S datasheet: BF16 Tensor 362.05 TFLOP/s"},
    {"L40S", "fp16", 362.05e12, "NVIDIA L40S datasheet: FP16 Tensor 362.05 TFLOP/s"},
    {"L40S", "fp8", 733e12, "NVIDIA L40S datasheet: FP8 Tensor 733 TFLOP/s"},
    {"B200", "", 8e12, "NVIDIA HGX B200 datasheet (2024), per GPU: 8 TB/s"},
    {"B200", "bf16", 2.25e15, "NVIDIA HGX B200 datasheet, per GPU: BF16 2.25 PFLOP/s dense"},
    {"B200", "fp8", 4.5e15, "NVIDIA HGX B200 datasheet, per GPU: FP8 4.5 PFLOP/s dense"},
};

inline bool name_matches(const std::string& name, const char* fragment) {
  return fragment[0] == '\0' || name.find(fragment) != std::string::npos;
}
/// `v` with 6 significant digits in the classic locale ("1830", "2.52"), whatever the global one.
inline std::string peak_number(double v) {
  char buf[32];  // %.6g in the "C" locale (std::to_chars with a precision)
  const auto w = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 6);
  return std::string(buf, w.ptr);
}

/// The compute-table row for a device and type (a named product's row before the capability's
/// default), or nullptr when the table has none.
inline const peaks::ComputeRate* find_compute_rate(const peaks::DeviceAttributes& a, const std::string& dtype) {
  const peaks::ComputeRate* fallback = nullptr;
  for (const auto& r : compute_rates) {
    if (r.major != a.compute_capability_major || r.minor != a.compute_capability_minor || dtype != r.dtype) continue;
    if (r.name_contains[0] != '\0') {
      if (detail::name_matches(a.name, r.name_contains)) return &r;
    } else if (!fallback) {
      fallback = &r;
    }
  }
  return fallback;
}

/// The memory correction for a device, or nullptr.
inline const peaks::MemoryCorrection* find_memory_correction(const std::string& name) {
  for (const auto& c : memory_corrections)
    if (detail::name_matches(name, c.name_contains)) return &c;
  return nullptr;
}

/// The theoretical memory bandwidth, bytes/s: 2 × `memory_clock_mhz` × 10⁶ × bus width / 8, the bus
/// width corrected per `memory_corrections`; nullopt without a clock or bus width (`why` says).
inline std::optional<peaks::Peak> theoretical_memory_peak(const peaks::DeviceAttributes& a, std::optional<double> memory_clock_mhz,
                                                   const std::string& clock_basis, std::string* why = nullptr) {
  if (!memory_clock_mhz || !(*memory_clock_mhz > 0) || !a.memory_bus_width_bits || *a.memory_bus_width_bits <= 0) {
    if (why) *why = "memory bandwidth: no memory clock or bus width reported";
    return std::nullopt;
  }
  int bits = *a.memory_bus_width_bits;
  std::string note;
  if (const auto* c = find_memory_correction(a.name)) {
    note = "; bus width " + std::to_string(c->bus_width_bits) + " bits, not the reported " + std::to_string(bits) + ": " +
           c->source;
    bits = c->bus_width_bits;
  }
  peaks::Peak p;
  p.quantity = "memory_bandwidth";
  p.unit = "bytes/s";
  p.basis = "theoretical";
  p.clock_basis = clock_basis;
  p.clock_mhz = *memory_clock_mhz;
  p.value = 2.0 * *memory_clock_mhz * 1e6 * bits / 8.0;
  p.source = "2 x memory clock " + detail::peak_number(*memory_clock_mhz) + " MHz x bus width " + std::to_string(bits) +
             " bits / 8" + note;
  return p;
}

/// The theoretical dense compute peak of `dtype`, FLOP/s (OP/s for int8): SMs × `sm_clock_mhz` ×
/// 10⁶ × the table's rate; nullopt when the table has no row or the clock is unknown (`why` says).
inline std::optional<peaks::Peak> theoretical_compute_peak(const peaks::DeviceAttributes& a, const std::string& dtype,
                                                    std::optional<double> sm_clock_mhz, const std::string& clock_basis,
                                                    std::string* why = nullptr) {
  const peaks::ComputeRate* r = find_compute_rate(a, dtype);
  if (!r) {
    if (why)
      *why = dtype + ": no table row for sm_" + std::to_string(a.compute_capability_major) +
             std::to_string(a.compute_capability_minor);
    return std::nullopt;
  }
  if (!sm_clock_mhz || !(*sm_clock_mhz > 0) || a.multiprocessors <= 0) {
    if (why) *why = dtype + ": no SM clock or SM count reported";
    return std::nullopt;
  }
  peaks::Peak p;
  p.quantity = "compute";
  p.dtype = dtype;
  p.unit = dtype == "int8" ? "OP/s" : "FLOP/s";
  p.basis = "theoretical";
  p.clock_basis = clock_basis;
  p.clock_mhz = *sm_clock_mhz;
  p.value = static_cast<double>(a.multiprocessors) * *sm_clock_mhz * 1e6 * r->per_sm_per_clock;
  p.source = std::to_string(a.multiprocessors) + " SMs x " + detail::peak_number(*sm_clock_mhz) + " MHz x " +
             detail::peak_number(r->per_sm_per_clock) + " dense " + (dtype == "int8" ? "OP" : "FLOP") + "/clock/SM (" +
             (r->tensor ? "tensor cores" : "vector units") + "; " + r->source + ")";
  return p;
}

/// The datasheet peaks of the device's model (the first name fragment that matches decides the
/// model), in table order.
inline std::vector<peaks::Peak> datasheet_peaks_of(const std::string& name) {
  std::vector<peaks::Peak> out;
  const char* model = nullptr;
  for (const auto& d : datasheet_peaks) {
    if (!model && detail::name_matches(name, d.name_contains) && d.name_contains[0] != '\0') model = d.name_contains;
    if (!model || std::string(d.name_contains) != model) continue;
    peaks::Peak p;
    p.quantity = d.dtype[0] == '\0' ? "memory_bandwidth" : "compute";
    p.dtype = d.dtype;
    p.unit = d.dtype[0] == '\0' ? "bytes/s" : std::string(d.dtype) == "int8" ? "OP/s" : "FLOP/s";
    p.basis = "datasheet";
    p.clock_basis = "datasheet";
    p.value = d.value;
    p.source = d.source;
    out.push_back(p);
  }
  return out;
}
}  // namespace detail

namespace peaks {
/// Every theoretical peak at the device's maximum clocks, then the datasheet's: memory bandwidth
/// and one compute peak per type of `peak_dtypes()` the table knows. What is not known is listed
/// in `unknown` with the reason.
inline DevicePeaks device_peaks(const DeviceAttributes& a) {
  DevicePeaks d;
  if (a.l2_cache_bytes > 0) d.l2_cache_bytes = a.l2_cache_bytes;
  std::string why;
  if (auto m = detail::theoretical_memory_peak(a, a.memory_clock_max_mhz, "max_boost", &why)) d.peaks.push_back(*m);
  else d.unknown.push_back(why);
  for (const auto& t : detail::peak_dtypes()) {
    if (auto c = detail::theoretical_compute_peak(a, t, a.sm_clock_max_mhz, "max_boost", &why)) d.peaks.push_back(*c);
    else d.unknown.push_back(why);
  }
  for (auto& p : detail::datasheet_peaks_of(a.name)) d.peaks.push_back(std::move(p));
  d.measured_source = "not read";
  return d;
}
}  // namespace peaks

namespace detail {
/// The first peak of `quantity` (and `dtype` for compute) with this `basis` (and clock basis, when
/// not empty), or nullptr.
inline const peaks::Peak* find_peak(const std::vector<peaks::Peak>& peaks, const std::string& quantity, const std::string& dtype,
                             const std::string& basis, const std::string& clock_basis = "") {
  for (const auto& p : peaks)
    if (p.quantity == quantity && (quantity != "compute" || p.dtype == dtype) && p.basis == basis &&
        (clock_basis.empty() || p.clock_basis == clock_basis))
      return &p;
  return nullptr;
}

/// The peak a throughput must not exceed, for the warnings: the theoretical one at the maximum
/// clock, else the datasheet's; nullptr when neither is known.
inline const peaks::Peak* ceiling_peak(const std::vector<peaks::Peak>& peaks, const std::string& quantity, const std::string& dtype) {
  if (const peaks::Peak* p = find_peak(peaks, quantity, dtype, "theoretical", "max_boost")) return p;
  return find_peak(peaks, quantity, dtype, "datasheet");
}
}  // namespace detail

}  // namespace gauge
