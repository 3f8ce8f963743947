#pragma once
/// \file gauge/detail/text.hpp
/// {fmt} for gauge's messages and text outputs. Formatting through fmt is locale-independent:
/// fmt ignores the global locale unless a format asks for it ('L'), so a decimal comma in the
/// user's locale never reaches a report, a CSV file or a warning.
///
/// gauge links the compiled libfmt (`-lfmt`; CMake: fmt::fmt): fmt's header-only mode costs
/// about 2.5 s of compile time in every file that includes it. Define GAUGE_FMT_HEADER_ONLY to
/// use it anyway (nothing to link).

#if defined(GAUGE_FMT_HEADER_ONLY) && !defined(FMT_HEADER_ONLY)
#define FMT_HEADER_ONLY 1
#endif

#include <fmt/format.h>

#include <string>

#include "gauge/core/format.hpp"

namespace gauge::detail {

/// Times in human units for messages, 3 significant digits: "12.3 us" (core/format.hpp).
inline std::string human_time(double s) { return format_time(s, 3); }

}  // namespace gauge::detail
