#pragma once
/// \file gauge/suite/registry.hpp
/// Benchmarks declared once and swept over axes: `gauge::suite::Benchmark` (a name, a body and its axes),
/// the registry `GAUGE_BENCHMARK` adds to, and `gauge::Point`, what the body receives for one
/// point of the cartesian product of the axes.
///
/// \code
///   void triad(gauge::Point& p) {
///     const auto n = p.get_int64("N");                     // this point's value of axis N
///     if (n > free_memory() / 24) return p.skip("does not fit in device memory");
///     ... allocate a, b, c ...
///     p.bytes(3.0 * n * sizeof(float));                    // work per step: throughput = work / time
///     p.run([&](cudaStream_t s) { triad_kernel<<<grid, block, 0, s>>>(a, b, c, n); });
///     ... free ...
///   }
///   GAUGE_BENCHMARK(triad).int64_axis("N", gauge::pow2(12, 30));
///
///   template <class T> void copy(gauge::Point& p) { ... }
///   GAUGE_BENCHMARK_TEMPLATE(copy, "T", float, double).int64_axis("N", {1 << 20, 1 << 24});
/// \endcode
///
/// Each point is one gauge::Experiment named after the benchmark, whose dimensions are the axis
/// values (so reports, gauge-compare and the Catch2 matchers work per point unchanged). The runner
/// (gauge/suite/runner.hpp, `GAUGE_MAIN()`) enumerates, filters and runs the points. Light: no
/// JSON, {fmt} or CLI11 here.

#include "gauge/suite/benchmark.hpp"
#include "gauge/suite/point.hpp"
#include "gauge/suite/register.hpp"
