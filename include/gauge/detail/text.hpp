#pragma once
/// \file gauge/detail/text.hpp
/// {fmt} for gauge's messages and text outputs. Formatting through fmt is locale-independent:
/// fmt ignores the global locale unless a format asks for it ('L'), so a decimal comma in the
/// user's locale never reaches a report, a CSV file or a warning.
///
/// gauge links the compiled libfmt (`-lfmt`; CMake: fmt::fmt); define GAUGE_FMT_HEADER_ONLY to use
/// fmt header-only instead (gauge/detail/fmt.hpp, the one place gauge includes {fmt}).

#include "gauge/detail/fmt.hpp"

#include <string>

#include "gauge/core/format.hpp"

namespace gauge::detail {

/// Times in human units for messages, 3 significant digits: "12.3 us" (core/format.hpp).
inline std::string human_time(double s) { return format_time(s, 3); }

}  // namespace gauge::detail
