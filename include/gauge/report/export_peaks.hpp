#pragma once
/// \file gauge/report/export_peaks.hpp
/// The speed of light in the exports (issue "Speed of light"): every throughput's fraction of
/// each known peak, and the roofline position, as the CSV, Markdown and Google Benchmark exports
/// (gauge/report/export.hpp) write them, from the result's `peaks` (gauge/core/peak_fractions.hpp).
///
/// Names, one per peak, in the field's terms: `pct_of_peak_<quantity>_<basis>`, in percent
/// (100 × rate / peak), where
/// - `<quantity>` is `memory_bw` (DRAM bandwidth, bytes/s) or `<dtype>_dense` (the dense compute
///   peak of the declared type: `bf16_dense`, `fp8_dense`, `fp32_dense`, ...);
/// - `<basis>` is `theoretical` (the formula at the device's maximum boost clock), `theoretical_run_clock`
///   (the same formula at the clock measured during the run), `datasheet` (NVIDIA's dense figure)
///   or `measured` (gauge-peaks' cached figure for this GPU); another clock basis of a theoretical
///   peak is `theoretical_<clock_basis>`.
/// For example `pct_of_peak_bf16_dense_theoretical` and `pct_of_peak_memory_bw_measured`. A result
/// without peaks (host backend, no bytes or FLOP declared, an unknown dtype) has no such value:
/// an empty cell, a missing counter, never 0.

#include "gauge/core/peak_tables.hpp"
#include "gauge/detail/fmt.hpp"

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "gauge/core/peak_fractions.hpp"
#include "gauge/core/peaks.hpp"
#include "gauge/core/work.hpp"
#include "gauge/core/format.hpp"

namespace gauge::detail::export_ {

/// "memory_bw" for memory bandwidth, else "<dtype>_dense" ("compute_dense" without a type).
inline std::string peak_quantity_tag(const std::string& quantity, const std::string& dtype) {
  if (quantity == "memory_bandwidth") return "memory_bw";
  return (dtype.empty() ? std::string("compute") : dtype) + "_dense";
}

/// "theoretical" (max_boost), "theoretical_run_clock" (run_measured), "theoretical_<clock_basis>"
/// (another clock basis), "datasheet" or "measured".
inline std::string peak_basis_tag(const std::string& basis, const std::string& clock_basis) {
  if (basis != "theoretical") return basis;
  if (clock_basis == "max_boost" || clock_basis.empty()) return "theoretical";
  if (clock_basis == "run_measured") return "theoretical_run_clock";
  return "theoretical_" + clock_basis;
}

/// "pct_of_peak_<quantity>_<basis>" (see the file comment).
inline std::string pct_of_peak_name(const std::string& quantity, const std::string& dtype, const std::string& basis,
                                    const std::string& clock_basis) {
  return "pct_of_peak_" + peak_quantity_tag(quantity, dtype) + "_" + peak_basis_tag(basis, clock_basis);
}

/// The order of a peak's column: memory first, then the compute types in peak_dtypes() order;
/// within one, theoretical, theoretical at the run's clock, datasheet, measured, others.
inline std::tuple<int, int, std::string> pct_of_peak_rank(const std::string& quantity, const std::string& dtype,
                                                         const std::string& basis, const std::string& clock_basis) {
  int q = 0;
  if (quantity != "memory_bandwidth") {
    q = 1 + static_cast<int>(detail::peak_dtypes().size());
    for (std::size_t i = 0; i < detail::peak_dtypes().size(); ++i)
      if (detail::peak_dtypes()[i] == dtype) q = 1 + static_cast<int>(i);
  }
  const std::string b = peak_basis_tag(basis, clock_basis);
  const int order = b == "theoretical" ? 0 : b == "theoretical_run_clock" ? 1 : b == "datasheet" ? 2 : b == "measured" ? 3 : 4;
  return {q, order, b};
}

/// One percent-of-peak value of a row, with its column's order.
struct PctOfPeak {
  std::tuple<int, int, std::string> rank;  ///< pct_of_peak_rank
  std::string name;                        ///< pct_of_peak_name
  std::string quantity;                    ///< peak_quantity_tag ("memory_bw", "bf16_dense")
  double pct = 0;                          ///< 100 × fraction
};

/// The percent-of-peak values of `rec` for one throughput ("gpu" or "wall"), in column order; the
/// first fraction of a name wins (gauge-peaks caches one measured peak per quantity and type).
inline std::vector<PctOfPeak> pct_of_peak(const records::PeaksRecord& rec, const std::string& throughput) {
  std::map<std::tuple<int, int, std::string>, PctOfPeak> by_rank;
  for (const auto& f : rec.fractions) {
    if (f.throughput != throughput) continue;
    auto rank = pct_of_peak_rank(f.quantity, f.dtype, f.basis, f.clock_basis);
    by_rank.emplace(rank, PctOfPeak{rank, pct_of_peak_name(f.quantity, f.dtype, f.basis, f.clock_basis),
                                    peak_quantity_tag(f.quantity, f.dtype), 100 * f.fraction});
  }
  std::vector<PctOfPeak> out;
  for (auto& [rank, v] : by_rank) out.push_back(std::move(v));
  return out;
}

/// The percent of every peak of `rec` for a time of `seconds` per step of `work` (the Google
/// Benchmark export's counters, whose time is the entry's): 100 × (work / seconds) / peak, by
/// name in column order; empty for a time that is not positive and finite.
inline std::vector<PctOfPeak> pct_of_peak_at(const records::PeaksRecord& rec, const Work& work, double seconds) {
  std::map<std::tuple<int, int, std::string>, PctOfPeak> by_rank;
  if (!(seconds > 0) || !(seconds < 1e300)) return {};
  for (const auto& p : rec.peaks) {
    const auto& per_step = p.quantity == "compute" ? work.flop : work.bytes;
    if (!per_step || !(p.value > 0)) continue;
    auto rank = pct_of_peak_rank(p.quantity, p.dtype, p.basis, p.clock_basis);
    by_rank.emplace(rank, PctOfPeak{rank, pct_of_peak_name(p.quantity, p.dtype, p.basis, p.clock_basis),
                                    peak_quantity_tag(p.quantity, p.dtype), 100 * (*per_step / seconds) / p.value});
  }
  std::vector<PctOfPeak> out;
  for (auto& [rank, v] : by_rank) out.push_back(std::move(v));
  return out;
}

/// The Markdown cell of a row's GPU fractions: "bf16 dense 62.6 % theoretical (max boost), 82.6 %
/// theoretical (run clock), 93.1 % measured; memory 5.1 % theoretical (max boost)", or "-".
inline std::string pct_of_peak_text(const records::PeaksRecord& rec) {
  std::string out, group;
  int current = -1;
  for (const auto& f : pct_of_peak(rec, "gpu")) {
    const int q = std::get<0>(f.rank);
    const std::string& b = std::get<2>(f.rank);
    if (q != current) {
      if (!group.empty()) out += (out.empty() ? "" : "; ") + group;
      current = q;
      const std::string& tag = f.quantity;  // "memory_bw" or "<dtype>_dense"
      group = tag == "memory_bw" ? std::string("memory ") : tag.substr(0, tag.size() - 6) + " dense ";
    } else {
      group += ", ";
    }
    const std::string basis = b == "theoretical" ? "theoretical (max boost)"
                              : b == "theoretical_run_clock" ? "theoretical (run clock)" : b;
    group += format_general(f.pct, 3) + " % " + basis;
  }
  if (!group.empty()) out += (out.empty() ? "" : "; ") + group;
  return out.empty() ? "-" : out;
}

/// The Markdown cell of a roofline: "memory-bound (0.0833 FLOP/B, ridge 319 FLOP/B, theoretical)", or "-".
inline std::string roofline_text(const std::optional<records::RooflineRecord>& r) {
  if (!r) return "-";
  return fmt::format("{}-bound ({} FLOP/B, ridge {} FLOP/B, {})", r->bound, format_general(r->arithmetic_intensity, 3),
                     format_general(r->ridge_point, 3), r->basis);
}

}  // namespace gauge::detail::export_
