#pragma once
/// \file gauge/core/peak_assessment.hpp
/// The result's `peaks` record computed (gauge/core/peak_fractions.hpp holds its data): the
/// declared data type, every throughput as a fraction of each applicable peak, and the roofline
/// position. Pure functions, tested on a CPU (tests/test_peaks.cpp); the protocol calls them.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/dimensions.hpp"
#include "gauge/core/peak_fractions.hpp"
#include "gauge/core/peak_tables.hpp"
#include "gauge/core/work.hpp"

namespace gauge {

namespace detail {
/// The declared data type of an experiment: its `dtype` dimension, canonical; nullopt when absent
/// or not a known type (then `why` says which).
inline std::optional<std::string> declared_dtype(const Dimensions& dims, std::string* why = nullptr) {
  const auto it = dims.find("dtype");
  if (it == dims.end()) {
    if (why) *why = "no \"dtype\" dimension: no compute peak applies";
    return std::nullopt;
  }
  const std::string text = to_string(it->second);
  auto t = canonical_dtype(text);
  if (!t && why) *why = "dtype \"" + text + "\" is none of fp64, fp32, tf32, bf16, fp16, fp8, int8: no compute peak applies";
  return t;
}

/// The inputs of assess_peaks besides the work: what the run measured.
struct PeakInputs {
  std::optional<peaks::DeviceAttributes> device; ///< the device's attributes (none: the backend knows no peaks)
  std::string no_device_reason;            ///< why there are none (e.g. "host backend")
  std::vector<peaks::Peak> measured;       ///< gauge-peaks' cached peaks for this GPU (may be empty)
  std::string measured_source;             ///< the cache file, or why there is none
  std::optional<double> run_sm_clock_mhz;  ///< the run's measured SM clock (ClockRecord), MHz
  std::optional<double> run_memory_clock_mhz;  ///< the run's memory clock (NVML), MHz
  std::optional<double> gpu_busy_fraction;  ///< the result's, for the roofline's launch bound
  double launch_bound_busy_fraction = 0.5;  ///< below it the roofline says "launch"
};

/// The peaks record of a result with `work`, `dimensions` and throughputs `gpu` and `wall`: the
/// device's theoretical peaks at its maximum clocks and at the run's clocks, the datasheet's and
/// the measured ones; each throughput's fraction of every applicable peak; the roofline position.
inline records::PeaksRecord assess_peaks(const Work& work, const Dimensions& dimensions, const Throughput& gpu,
                                const Throughput& wall, const PeakInputs& in) {
  records::PeaksRecord rec;
  if (!in.device) {
    rec.reason = in.no_device_reason.empty() ? "the backend knows no device peaks" : in.no_device_reason;
    return rec;
  }
  const peaks::DeviceAttributes& a = *in.device;
  if (a.l2_cache_bytes > 0) rec.l2_cache_bytes = a.l2_cache_bytes;
  std::string why;
  rec.dtype = declared_dtype(dimensions, &why);
  std::vector<std::string> notes;
  if (!rec.dtype && work.flop) notes.push_back(why);
  // Which peaks apply: memory when bytes are declared, the declared type's compute when FLOP are.
  auto add = [&](std::optional<peaks::Peak> p) {
    if (p) rec.peaks.push_back(std::move(*p));
  };
  if (work.bytes) {
    add(theoretical_memory_peak(a, a.memory_clock_max_mhz, "max_boost"));
    add(theoretical_memory_peak(a, in.run_memory_clock_mhz, "run_measured"));
  }
  if (work.flop && rec.dtype) {
    add(theoretical_compute_peak(a, *rec.dtype, a.sm_clock_max_mhz, "max_boost", &why));
    if (rec.peaks.empty() || rec.peaks.back().quantity != "compute") notes.push_back(why);
    add(theoretical_compute_peak(a, *rec.dtype, in.run_sm_clock_mhz, "run_measured"));
  }
  for (const auto& p : datasheet_peaks_of(a.name))
    if ((p.quantity == "memory_bandwidth" && work.bytes) || (p.quantity == "compute" && work.flop && rec.dtype && p.dtype == *rec.dtype))
      rec.peaks.push_back(p);
  for (const auto& p : in.measured)
    if ((p.quantity == "memory_bandwidth" && work.bytes) || (p.quantity == "compute" && work.flop && rec.dtype && p.dtype == *rec.dtype))
      rec.peaks.push_back(p);
  if (in.measured.empty() && !in.measured_source.empty()) notes.push_back("measured peaks: " + in.measured_source);
  for (const auto& [name, t] : {std::pair<const char*, const Throughput*>{"gpu", &gpu}, {"wall", &wall}}) {
    for (const auto& p : rec.peaks) {
      const auto& rate = p.quantity == "compute" ? t->flop_per_second : t->bytes_per_second;
      if (!rate || !(p.value > 0)) continue;
      rec.fractions.push_back(records::PeakFraction{name, p.quantity, p.dtype, p.basis, p.clock_basis, p.value, *rate, *rate / p.value});
    }
  }
  if (work.flop && work.bytes && *work.bytes > 0) {
    for (const char* basis : {"measured", "theoretical", "datasheet"}) {
      const peaks::Peak* c = find_peak(rec.peaks, "compute", rec.dtype.value_or(""), basis, std::string(basis) == "theoretical" ? "max_boost" : "");
      const peaks::Peak* m = find_peak(rec.peaks, "memory_bandwidth", "", basis, std::string(basis) == "theoretical" ? "max_boost" : "");
      if (!c || !m || !(m->value > 0)) continue;
      records::RooflineRecord r;
      r.arithmetic_intensity = *work.flop / *work.bytes;
      r.ridge_point = c->value / m->value;
      r.basis = basis;
      const bool launch = in.gpu_busy_fraction && *in.gpu_busy_fraction < in.launch_bound_busy_fraction;
      r.bound = launch ? "launch" : r.arithmetic_intensity < r.ridge_point ? "memory" : "compute";
      rec.roofline = r;
      break;
    }
  }
  rec.status = rec.peaks.empty() ? "none" : "known";
  if (rec.peaks.empty() && notes.empty()) notes.push_back(work.flop || work.bytes ? "no peak known for this device and work" : "no FLOP or bytes declared");
  for (const auto& n : notes) rec.reason += (rec.reason.empty() ? "" : "; ") + n;
  return rec;
}

/// The fraction of `rec` for this throughput, quantity and basis (and clock basis, when not
/// empty), or nullptr.
inline const records::PeakFraction* find_fraction(const records::PeaksRecord& rec, const std::string& throughput, const std::string& quantity,
                                         const std::string& basis, const std::string& clock_basis = "") {
  for (const auto& f : rec.fractions)
    if (f.throughput == throughput && f.quantity == quantity && f.basis == basis &&
        (clock_basis.empty() || f.clock_basis == clock_basis))
      return &f;
  return nullptr;
}
}  // namespace detail

}  // namespace gauge
