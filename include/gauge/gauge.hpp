#pragma once
/// \file gauge/gauge.hpp
/// The usual set: Experiment with the CUDA and host backends, Timer, the environment, the report.
///
/// Compile the translation unit that includes it with nvcc (a .cu file) to get the launch gate;
/// from a host compiler everything works, but GPU steps are timed without the gate.

#include "gauge/version.hpp"
#include "gauge/core/config.hpp"
#include "gauge/core/dimensions.hpp"
#include "gauge/core/environment.hpp"
#include "gauge/core/error.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/core/warnings.hpp"
#include "gauge/core/work.hpp"
#include "gauge/backends/host_backend.hpp"
#include "gauge/backends/cuda_backend.hpp"
#include "gauge/env/environment.hpp"
#include "gauge/experiment.hpp"
#include "gauge/timer.hpp"
#include "gauge/report.hpp"
