#pragma once
/// \file gauge/core/format.hpp
/// Numbers for people: a time with a unit chosen for reading, a rate with an SI prefix. Used by
/// warnings, the console summary and the Timer's log lines (standard library only).

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

namespace gauge::detail {

/// Seconds as "12.35 us" / "1.5 ms" / "2 s" with `digits` significant digits; "-" when absent or
/// not finite.
inline std::string format_time(const std::optional<double>& seconds, int digits = 4) {
  if (!seconds || !std::isfinite(*seconds)) return "-";
  const double s = *seconds, a = std::fabs(s);
  char buf[48];
  if (a >= 1) std::snprintf(buf, sizeof buf, "%.*g s", digits, s);
  else if (a >= 1e-3) std::snprintf(buf, sizeof buf, "%.*g ms", digits, s * 1e3);
  else if (a >= 1e-6) std::snprintf(buf, sizeof buf, "%.*g us", digits, s * 1e6);
  else std::snprintf(buf, sizeof buf, "%.*g ns", digits, s * 1e9);
  return buf;
}

/// A rate with an SI prefix and 4 significant digits: "791 TFLOP/s"; "-" when absent or not finite.
inline std::string format_rate(const std::optional<double>& value, const char* unit) {
  if (!value || !std::isfinite(*value)) return "-";
  static const char* prefixes[] = {"", "K", "M", "G", "T", "P", "E"};
  double x = *value;
  int i = 0;
  while (std::fabs(x) >= 1000 && i < 6) {
    x /= 1000;
    ++i;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g %s%s", x, prefixes[i], unit);
  return buf;
}

}  // namespace gauge::detail
