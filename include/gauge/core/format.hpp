#pragma once
/// \file gauge/core/format.hpp
/// Numbers for people: a time with a unit chosen for reading, a rate with an SI prefix, a number
/// with a given count of significant digits. Used by warnings, the console summary, the exports
/// and the Timer's log lines. Formatted by std::to_chars, which writes what printf writes in the
/// "C" locale (C++17 [charconv]), so the decimal point is always '.' and digits are never grouped,
/// whatever the global C++ locale or the C locale (`std::locale::global`, `setlocale`) of the
/// program is; and neither {fmt} nor iostreams is compiled into every file that includes it.

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>

namespace gauge::detail {

/// `v` with `digits` significant digits, as printf's "%.*g" in the "C" locale: "13.44", "1e-05".
/// `digits` above 17 count as 17 (a double holds 17 significant decimal digits; printf would go on
/// with the binary value's exact expansion); below 0, as 6 (printf's default).
inline std::string format_general(double v, int digits) {
  char buf[64];  // the longest "%.17g" is 24 characters
  const int d = digits < 0 ? 6 : (digits > 17 ? 17 : digits);
  const auto w = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, d);
  return w.ec == std::errc() ? std::string(buf, w.ptr) : std::string("?");
}

/// `v` with `decimals` digits after the point, as printf's "%.*f" in the "C" locale ("0.210");
/// "?" where it does not fit 64 characters (|v| of 10^60 and more: callers bound their values).
inline std::string format_fixed(double v, int decimals) {
  char buf[64];
  const auto w = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
  return w.ec == std::errc() ? std::string(buf, w.ptr) : std::string("?");
}

/// Seconds as "12.35 us" / "1.5 ms" / "2 s" with `digits` significant digits; "-" when absent or
/// not finite.
/// `v` rounded to `digits` significant digits (as "%.*g" prints it), so that a unit is chosen for
/// the number that will be printed: 0.99999e-6 s at 4 digits prints "1 us", not "1000 ns".
/// A finite `v` stays finite: rounding up near the largest double (1.7977e308 at 4 digits) would
/// overflow to infinity, and `v` itself is kept then.
inline double rounded_to_digits(double v, int digits) {
  // std::from_chars, not strtod: strtod reads in the C locale, where a decimal comma (setlocale
  // "de_DE") read "1.5" as 1 and printed 1.5 ms as "0 ns".
  const std::string text = format_general(v, digits);
  double r = v;
  if (std::from_chars(text.data(), text.data() + text.size(), r).ec != std::errc()) return v;
  return std::isfinite(v) && !std::isfinite(r) ? v : r;
}

inline std::string format_time(const std::optional<double>& seconds, int digits = 4) {
  if (!seconds || !std::isfinite(*seconds)) return "-";
  const double s = rounded_to_digits(*seconds, digits), a = std::fabs(s);
  if (a >= 1) return format_general(s, digits) + " s";
  if (a >= 1e-3) return format_general(s * 1e3, digits) + " ms";
  if (a >= 1e-6) return format_general(s * 1e6, digits) + " us";
  return format_general(s * 1e9, digits) + " ns";
}

/// A rate with an SI prefix and 4 significant digits: "791 TFLOP/s"; "-" when absent or not finite.
inline std::string format_rate(const std::optional<double>& value, const char* unit) {
  if (!value || !std::isfinite(*value)) return "-";
  static const char* prefixes[] = {"", "K", "M", "G", "T", "P", "E"};
  double x = rounded_to_digits(*value, 4);
  int i = 0;
  while (std::fabs(x) >= 1000 && i < 6) {
    x = rounded_to_digits(x / 1000, 4);
    ++i;
  }
  return format_general(x, 4) + " " + prefixes[i] + unit;
}

/// Seconds as "42.1 ms" or "930 us" (under 0.1 s, three significant digits; "< 1 ns" below a
/// nanosecond), "0.4 s", "12.3 s", "2 min 05 s", "1 h 02 min", and "1.16e+08 s" from 10^8 s on ("0.0
/// s" for 0, "?" when negative or not finite): a run's length in the suite runner's progress line
/// and summaries.
inline std::string format_duration(double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds)) return "?";
  if (seconds >= 1e8) return format_general(seconds, 3) + " s";  // about 3 years: no hours count
  if (seconds == 0) return "0.0 s";                                // -0.0 too
  if (seconds < 1e-9) return "< 1 ns";
  // Under 0.1 s: not "0.0 s" for the runner's 40 ms. Rounded to three digits first, so that a
  // value that rounds up to 0.1 s reads so, and three digits never take an exponent ("930 us").
  if (rounded_to_digits(seconds, 3) < 0.1) return format_time(seconds, 3);
  if (seconds < 0.1) seconds = 0.1;
  const auto two = [](long long v) { return (v < 10 ? "0" : "") + std::to_string(v); };
  if (seconds < 60) return format_fixed(seconds, 1) + " s";
  const auto s = static_cast<long long>(std::llround(seconds));
  if (s < 3600) return std::to_string(s / 60) + " min " + two(s % 60) + " s";
  return std::to_string(s / 3600) + " h " + two((s % 3600) / 60) + " min";
}

/// A ratio as gauge's verdict lines write it: four decimals ("1.0123"); from 10^6 on, and for
/// values that are not finite, five significant digits ("1.2346e+300", "inf"), not 300 digits.
inline std::string format_ratio(double v) {
  return std::isfinite(v) && std::fabs(v) < 1e6 ? format_fixed(v, 4) : format_general(v, 5);
}

/// The "ci +-%" cell of gauge's tables: the half-width of the median's confidence interval in
/// percent of the median, `relative_width` being the interval's whole width over the median.
/// Three decimals ("0.210"); "<0.001" when narrower but not zero; and where the interval has no
/// width (its bounding order statistics are equal: samples quantized by the clock), the bound the
/// clock gives, "<=" one tick per step over the median ("<=0.029"; `resolution_per_step` and
/// `median` in seconds), or "0.000" when the tick is unknown. "-" when absent or not finite, or
/// when the tick is 1000 % of the median or more; ">999" for a half-width of 1000 % or more.
inline std::string ci_half_width_text(const std::optional<double>& relative_width, const std::optional<double>& median,
                                      double resolution_per_step) {
  if (!relative_width || !std::isfinite(*relative_width) || *relative_width < 0) return "-";
  const double half = 50 * *relative_width;
  if (half >= 1000) return ">999";  // wider than the column, and than any use of the number
  if (half >= 0.0005) return format_fixed(half, 3);
  if (half > 0) return "<0.001";
  if (resolution_per_step > 0 && std::isfinite(resolution_per_step) && median && *median > 0 && std::isfinite(*median)) {
    const double tick = 100 * (resolution_per_step / *median);
    if (!(tick < 1000)) return "-";  // a tick of ten medians or more bounds nothing
    return tick >= 0.0005 ? "<=" + format_fixed(tick, 3) : "<0.001";
  }
  return format_fixed(0, 3);
}

}  // namespace gauge::detail

namespace gauge {
/// Seconds for people, as gauge's tables and logs write them: "12.35 us", "1.5 ms", "2 s" (`digits`
/// significant digits, default 4; "-" when absent or not finite). Locale-independent.
using detail::format_time;
}  // namespace gauge
