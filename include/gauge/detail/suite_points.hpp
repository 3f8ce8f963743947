#pragma once
/// \file gauge/detail/suite_points.hpp
/// Internal: what the suite runner's ways of running points share (gauge/suite/implementation.hpp
/// runs them one after the other, gauge/suite/interleave_run.hpp two of them interleaved): the
/// Config of a point, a failed result for a point that never measured, running a body with its
/// exceptions caught, the host clock and writing text.

#include <chrono>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <utility>

#include "gauge/report/escape.hpp"
#include "gauge/core/config.hpp"
#include "gauge/core/result.hpp"
#include "gauge/suite/registry.hpp"
#include "gauge/suite/runner.hpp"

namespace gauge::detail::suite_run {

inline double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// The configuration of a point: gauge's defaults, the benchmark's `configure`, the command line.
inline Config point_config(const suite::Benchmark& b, const suite::RunOptions& o, std::optional<int> device) {
  Config c;
  if (b.configuration()) b.configuration()(c);
  if (o.min_time) c.measure.min_time = *o.min_time;
  if (o.max_time) {
    c.measure.max_time = *o.max_time;
    if (!o.min_time && c.measure.min_time > c.measure.max_time) c.measure.min_time = c.measure.max_time;
  }
  if (o.target_ci) c.measure.target_relative_ci_width = *o.target_ci;
  if (o.warmup_max_time) {
    c.warmup.max_time = *o.warmup_max_time;
    if (c.warmup.min_time > c.warmup.max_time) c.warmup.min_time = c.warmup.max_time;
  }
  if (o.cold) c.measure.cache = CacheState::cold;
  if (o.graph) c.measure.gpu_timing = GpuTiming::graph;
  if (o.kernels) c.trace_kernels = true;
  if (device) c.device = *device;
  return c;
}

/// The point's Config into `c` (point_config); the error when the benchmark's configure() threw,
/// which fails that point and no other.
inline std::optional<std::string> configure_point(Config& c, const suite::PlannedPoint& pp, const suite::RunOptions& o) {
  try {
    c = point_config(*pp.benchmark, o, pp.device);
    return std::nullopt;
  } catch (const std::exception& e) {
    return std::string("configuring the point threw: ") + e.what();
  } catch (...) {
    return std::string("configuring the point threw an unknown exception");
  }
}

/// A failed result for a point whose body threw or never ran its step.
inline Result failed_point(const Point& p, const Config& c, std::string error) {
  Result r;
  r.name = p.benchmark();
  r.dimensions = p.dimensions();
  r.config = c;
  r.backend = "none";
  r.status = Status::failed;
  r.error = std::move(error);
  r.stopping.reason = "failed";
  return r;
}

/// Writes `s` to `f` and flushes it. Returns whether all of it was written (a full disk, a closed
/// descriptor: false, with errno set).
inline bool write_text(std::FILE* f, const std::string& raw) {
  const std::string s = escape::terminal_text(raw);  // names and errors never drive the terminal
  const bool written = std::fwrite(s.data(), 1, s.size(), f) == s.size();
  return std::fflush(f) == 0 && written && !std::ferror(f);
}

/// Runs `pp`'s body on `p`; the error text when it threw ("the benchmark threw: ..."), else none.
inline std::optional<std::string> run_body(const suite::PlannedPoint& pp, Point& p) {
  try {
    pp.benchmark->body()(p);
    return std::nullopt;
  } catch (const std::exception& e) {
    return std::string("the benchmark threw: ") + e.what();
  } catch (...) {
    return std::string("the benchmark threw an unknown exception");
  }
}

}  // namespace gauge::detail::suite_run
