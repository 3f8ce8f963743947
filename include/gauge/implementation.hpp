#pragma once
/// \file gauge/implementation.hpp
/// gauge's compiled part: the measurement protocol, its diagnosis and monitoring (NVML), the
/// environment capture, the JSON report and the console summary, in four parts
/// (gauge/implementation/protocol.hpp, environment.hpp, report.hpp, peaks_cache.hpp). Kernel
/// tracing (CUPTI) is a part of its own, gauge/implementation/tracing.hpp, compiled only where the program asks for it
/// (gauge/tracing.hpp). Compiled once per program:
/// - **through CMake** (`gauge::gauge`, `gauge::host`, from find_package, add_subdirectory or
///   FetchContent), gauge builds it for you as a static library in your build tree, with your
///   compiler and flags (src/protocol.cpp, environment.cpp, report.cpp, peaks_cache.cpp, compiled in parallel;
///   gauge::tracing adds src/tracing.cpp). Those targets define
///   `GAUGE_LINKS_IMPLEMENTATION`, which makes this header (and `GAUGE_IMPLEMENTATION`) declare
///   nothing more, so a program that still defines the macro builds unchanged, without duplicate
///   symbols;
/// - **in a plain build** (nvcc or g++ on the command line), in exactly one source file:
/// \code
///   #define GAUGE_IMPLEMENTATION   // in one source file of the program, before the include
///   #include <gauge/gauge.hpp>
/// \endcode
///   or include this header once. Forgetting it gives linker errors naming
///   `gauge::detail::run_protocol` or `gauge::Report::write`. A program that traces kernels
///   (Config::trace_kernels, TimerConfig::trace_kernels) also includes <gauge/tracing.hpp> in that
///   file; without it the report's `kernel_trace` says tracing is not compiled in.
///
/// Every other file includes only what it uses (gauge/gauge.hpp), so they compile in about a
/// second. The compiled part is host code: in a .cu file, nvcc's device pass skips it, so include
/// the headers of what the file calls itself (e.g. gauge/report/json.hpp for `write_file_atomic`)
/// rather than relying on this one. Nothing to link beyond the CUDA runtime (and {fmt}, as the
/// CMake targets do; see gauge/detail/text.hpp for its header-only mode).

// Host code only (each part checks): nvcc's device pass skips them. Each part is empty where the
// program links the library CMake built (GAUGE_LINKS_IMPLEMENTATION).
#include "gauge/implementation/environment.hpp"
#include "gauge/implementation/peaks_cache.hpp"
#include "gauge/implementation/protocol.hpp"
#include "gauge/implementation/report.hpp"
