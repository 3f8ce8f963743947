#pragma once
// Catch2 checks shared by the tests of several backends (the fake backend's tests and the GPU
// tests): what every run that meets a gate timeout must show.

#include <chrono>

#include "catch.hpp"
#include "gauge/core/config.hpp"
#include "gauge/core/result.hpp"

namespace gauge::testing {

/// Runs `exp` with `config` and a gate timeout of `timeout`; requires an ok result that warns
/// gate_timeout, and returns that result for the checks of the caller's case.
template <class Exp>
gauge::Result run_expecting_gate_timeout(Exp& exp, gauge::Config config, std::chrono::nanoseconds timeout) {
  config.measure.gate_timeout = timeout;
  exp.config(config);
  gauge::Result r = exp.run();
  REQUIRE(r.status == gauge::Status::ok);
  CHECK(r.has_warning("gate_timeout"));
  return r;
}

}  // namespace gauge::testing
