#pragma once
/// \file gauge/suite/nvtx.hpp
/// `gauge::NvtxRange`: an NVTX range in gauge's domain ("gauge") for the lifetime of an object,
/// for the suite runner's points and for your own code (see gauge/detail/nvtx.hpp).

#include "gauge/detail/nvtx.hpp"
