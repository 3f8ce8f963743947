#pragma once
/// \file gauge/detail/cuda_available.hpp
/// Whether this translation unit uses the CUDA runtime: GAUGE_HAS_CUDA_RUNTIME is 1 when
/// cuda_runtime.h can be included (or nvcc compiles the file) and GAUGE_NO_CUDA is not defined.
/// The CMake target gauge::host defines GAUGE_NO_CUDA, so a CPU-only program needs neither the
/// CUDA headers nor libcudart, even on a machine that has them; without CMake, pass
/// -DGAUGE_NO_CUDA.

#if defined(GAUGE_NO_CUDA)
#define GAUGE_HAS_CUDA_RUNTIME 0
#elif defined(__CUDACC__) || __has_include(<cuda_runtime.h>)
#define GAUGE_HAS_CUDA_RUNTIME 1
#else
#define GAUGE_HAS_CUDA_RUNTIME 0
#endif
