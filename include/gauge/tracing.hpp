#pragma once
/// \file gauge/tracing.hpp
/// Kernel tracing: the kernels, copies and memsets inside a step, read with CUPTI after
/// measuring (Config::trace_kernels, Experiment::trace_kernels(); the report's `kernel_trace`,
/// gauge/core/kernel_trace.hpp) and in a Timer's sampled step (TimerConfig::trace_kernels). Its
/// CUPTI code is a part of gauge's compiled part of its own, so that a program that does not trace
/// does not compile it:
/// - **through CMake**, link `gauge::tracing` (gauge::gauge plus src/tracing.cpp, built once per
///   build tree); it defines `GAUGE_LINKS_TRACING`, which makes this header declare nothing more.
///   gauge::gauge alone does not compile or link it (a GEMM benchmark that does not trace compiles
///   no CUPTI code), nor does gauge::host, for CPU programs;
/// - **in a plain build**, include this header in the file that defines GAUGE_IMPLEMENTATION:
/// \code
///   #define GAUGE_IMPLEMENTATION
///   #include <gauge/gauge.hpp>
///   #include <gauge/tracing.hpp>   // kernel tracing's compiled part, in this file only
/// \endcode
/// A program that asks for tracing without it runs and reports `kernel_trace.status`
/// "unavailable" with the reason, and a warning-level `kernel_trace_unavailable`.

#include "gauge/core/kernel_trace.hpp"

#if defined(GAUGE_IMPLEMENTATION) && !defined(__CUDA_ARCH__)
#include "gauge/implementation/tracing.hpp"
#endif
