#pragma once
/// \file gauge/suite/implementation.hpp
/// The runner's compiled part (gauge/suite/runner.hpp): the command line (CLI11), planning the
/// points, running them with progress and NVTX ranges, the tables and the JSON report. Included
/// by <gauge/suite.hpp> in the one file that defines GAUGE_IMPLEMENTATION (or include it once
/// yourself, beside gauge/implementation.hpp). Host code only. Needs CLI11 (2.1 or later).
/// Through CMake, the target gauge::suite compiles it once per build tree
/// (src/suite_implementation.cpp) and defines GAUGE_LINKS_SUITE_IMPLEMENTATION, which makes this
/// header empty: a program that still defines GAUGE_IMPLEMENTATION builds unchanged.

#if !defined(__CUDA_ARCH__) && !defined(GAUGE_LINKS_SUITE_IMPLEMENTATION)

#include <CLI/CLI.hpp>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <mutex>
#include <regex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gauge/report/dump.hpp"
#include "gauge/core/skipped.hpp"
#include "gauge/detail/cuda_available.hpp"
#include "gauge/detail/suite_points.hpp"
#include "gauge/env/environment.hpp"
#include "gauge/report/console.hpp"
#include "gauge/report/export.hpp"
#include "gauge/report/json.hpp"
#include "gauge/suite/axes.hpp"
#include "gauge/suite/interleave_run.hpp"
#include "gauge/suite/nvtx.hpp"
#include "gauge/suite/progress.hpp"
#include "gauge/suite/registry.hpp"
#include "gauge/suite/runner.hpp"
#include "gauge/report/sweep_table.hpp"
#include "gauge/version.hpp"

#include "gauge/suite/implementation_plan.hpp"
#include "gauge/suite/implementation_run.hpp"
#include "gauge/suite/implementation_cli.hpp"

#endif  // !defined(__CUDA_ARCH__) && !defined(GAUGE_LINKS_SUITE_IMPLEMENTATION)
