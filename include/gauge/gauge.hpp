#pragma once
/// \file gauge/gauge.hpp
/// What a file that defines experiments needs: Experiment with the CUDA and host backends,
/// Config, Result and Report. The Timer for training loops is <gauge/timer.hpp>. Light: it includes neither JSON, {fmt}, NVML nor the
/// protocol, which are compiled once per program in the file that defines GAUGE_IMPLEMENTATION:
/// \code
///   #define GAUGE_IMPLEMENTATION   // in exactly one source file of the program
///   #include <gauge/gauge.hpp>
/// \endcode
///
/// Compile the file that runs a GPU experiment with nvcc (a .cu file) to get the launch gate;
/// from a host compiler everything works, but GPU steps are timed without the gate.

#include "gauge/version.hpp"
#include "gauge/core/config.hpp"
#include "gauge/core/dimensions.hpp"
#include "gauge/core/do_not_optimize.hpp"
#include "gauge/core/error.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/stop.hpp"
#include "gauge/core/warnings.hpp"
#include "gauge/core/work.hpp"
#include "gauge/backends/host_backend.hpp"
#include "gauge/experiment.hpp"
#include "gauge/interleave.hpp"
#include "gauge/report.hpp"

namespace gauge {
// The eight sub-namespaces by concept (docs/names.md), each declared here so that a program that
// includes only this header can name all of them, e.g. in the one-line migration from 0.2.0's
// flat names (CHANGELOG.md): namespace gauge { using namespace records; ... }.
namespace stats {}
namespace records {}
namespace env {}
namespace peaks {}
namespace compare {}
namespace formats {}
namespace suite {}
namespace backend_parts {}
}  // namespace gauge

// The compiled part is host code only: nvcc's device pass (__CUDA_ARCH__ defined) skips it.
#if defined(GAUGE_IMPLEMENTATION) && !defined(__CUDA_ARCH__)
#include "gauge/implementation.hpp"
#endif
