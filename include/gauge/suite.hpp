#pragma once
/// \file gauge/suite.hpp
/// Benchmark suites: benchmarks declared once and swept over axes (`GAUGE_BENCHMARK`,
/// `gauge::Point`), and the runner with its command line (`GAUGE_MAIN()`). See docs/suite.md.
/// \code
///   #define GAUGE_IMPLEMENTATION   // in the one file with GAUGE_MAIN(): the runner, the protocol, the report
///   #include <gauge/suite.hpp>
///   void triad(gauge::Point& p) { ... p.run([&](cudaStream_t s) { ... }); }
///   GAUGE_BENCHMARK(triad).int64_axis("N", gauge::pow2(12, 30));
///   GAUGE_MAIN()
/// \endcode
/// Light in every file that only declares benchmarks; the runner's CLI11 parsing and report
/// writing are compiled where GAUGE_IMPLEMENTATION is defined (CLI11 is then a dependency of that
/// program only).

#include "gauge/gauge.hpp"
#include "gauge/suite/axes.hpp"
#include "gauge/suite/nvtx.hpp"
#include "gauge/suite/registry.hpp"
#include "gauge/suite/runner.hpp"

#if defined(GAUGE_IMPLEMENTATION) && !defined(__CUDA_ARCH__)
#include "gauge/suite/implementation.hpp"
#endif
