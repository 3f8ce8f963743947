#pragma once
/// \file gauge/protocol/protocol.hpp
/// The measurement protocol of DESIGN.md as a recipe: one `Protocol` object per `run()`, holding
/// that run's state, whose `run()` reads as its steps: prepare, choose the method, start
/// monitoring, warm up, calibrate k, measure, verify, then summarize and diagnose. Compiled
/// once per program (gauge/implementation.hpp); include it directly only to test its parts.
///
/// Parts a reader finds by name: monitoring (telemetry, memory, kernels) in
/// gauge/protocol/monitoring.hpp; the diagnosis rules, one function per warning, in
/// gauge/protocol/diagnosis.hpp; kernel tracing (`trace_kernels`, after measuring) in
/// gauge/protocol/tracing.hpp, over the seam of gauge/detail/kernel_tracer.hpp.
/// The class and its state are in gauge/protocol/phases.hpp; its longer phases in rounds.hpp,
/// calibration.hpp, measurement.hpp and conclusion.hpp beside it.

#include "gauge/protocol/phases.hpp"
#include "gauge/protocol/rounds.hpp"
#include "gauge/protocol/calibration.hpp"
#include "gauge/protocol/measurement.hpp"
#include "gauge/protocol/tracing.hpp"
#include "gauge/protocol/conclusion.hpp"
