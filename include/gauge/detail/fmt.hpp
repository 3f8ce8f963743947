#pragma once
/// \file gauge/detail/fmt.hpp
/// The one place gauge includes {fmt}: every gauge header that formats includes this, so that
/// GAUGE_FMT_HEADER_ONLY (fmt's header-only mode: nothing to link) takes effect whichever gauge
/// header a file includes first. gauge links the compiled libfmt otherwise (`-lfmt`; CMake:
/// fmt::fmt): the header-only mode costs about 2.5 s of compile time in every file that uses it.

#if defined(GAUGE_FMT_HEADER_ONLY) && !defined(FMT_HEADER_ONLY)
#define FMT_HEADER_ONLY 1
#endif

#include <fmt/format.h>
