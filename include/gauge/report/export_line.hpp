#pragma once
/// \file gauge/report/export_line.hpp
/// Export format `line`: one line per experiment, "name/k=v/...: status, <time label> median
/// <time> (n = N), wall time median <time> (n = N)" — what Catch2 prints for a gauge::Result in a
/// failed check (gauge/catch2.hpp's StringMaker is this format), and a grep-able list of a report.

#include <string>
#include <vector>

#include "gauge/core/dimensions.hpp"
#include "gauge/core/format.hpp"
#include "gauge/core/result.hpp"
#include "gauge/detail/fmt.hpp"
#include "gauge/report/document.hpp"
#include "gauge/report/escape.hpp"
#include "gauge/report/export_format.hpp"

namespace gauge::detail::export_ {

/// The line of one result (no newline), e.g. "gemm/M=8192/dtype=bf16: ok, GPU time median
/// 1.616 ms (n = 98), wall time median 1.629 ms (n = 14)" (the result's `time_label`: "real time"
/// on the host backend). Its label is detail::point_label with the `declared` axes (the report's
/// `axes` for its name); control characters made visible.
inline std::string result_line(const Result& r, const std::vector<std::string>& declared = {}) {
  return escape::visible(fmt::format("{}: {}, {} median {} (n = {}), wall time median {} (n = {})",
                                     point_label(r.name, r.dimensions, declared), to_string(r.status), r.time_label,
                                     format_time(r.gpu_time.p50), r.gpu_time.n, format_time(r.wall_time.p50),
                                     r.wall_time.n));
}

/// The `line` export format: result_line of every experiment, one per line.
inline std::string write_line(const StoredReport& report, const ExportOptions&) {
  std::string out;
  static const std::vector<std::string> none;
  for (const auto& r : report.results) {
    const auto axes = report.axes.find(r.name);
    out += result_line(r, axes == report.axes.end() ? none : axes->second) + "\n";
  }
  return out;
}

}  // namespace gauge::detail::export_

GAUGE_REGISTER_EXPORT_FORMAT(line, "one line per experiment: name, dimensions, status, medians (Catch2's text of a Result)",
                             ::gauge::detail::export_::write_line)
