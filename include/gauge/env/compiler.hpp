#pragma once
/// \file gauge/env/compiler.hpp
/// `gauge::compiler_info()`: the compiler and flags of the translation unit that calls it, from
/// predefined macros. Light (standard library only), so that gauge's inline entry points (e.g.
/// `Report(path)`) can call it from the benchmark's own file: the report then names the compiler
/// that built the benchmark, not the one that built gauge's compiled part.

#include <string>

#include "gauge/core/compiler_info.hpp"

namespace gauge {

namespace detail {
/// The compiler, standard library and flags (`NDEBUG`, `__OPTIMIZE__`) of the translation unit
/// that calls this, from predefined macros. Call it from the benchmark's own source file: an inline
/// function compiled into several units with different flags is merged into one copy by the linker.
inline env::CompilerInfo compiler_info() {
  env::CompilerInfo c;
  auto dotted = [](long a, long b, long d) {
    return std::to_string(a) + "." + std::to_string(b) + "." + std::to_string(d);
  };
#if defined(__NVCOMPILER)
  c.id = "nvhpc";
  c.version = dotted(__NVCOMPILER_MAJOR__, __NVCOMPILER_MINOR__, __NVCOMPILER_PATCHLEVEL__);
#elif defined(__INTEL_LLVM_COMPILER)
  c.id = "intel-llvm";
  c.version = std::to_string(__INTEL_LLVM_COMPILER);
#elif defined(__clang__)
  c.id = "clang";
  c.version = dotted(__clang_major__, __clang_minor__, __clang_patchlevel__);
#elif defined(__GNUC__)
  c.id = "gcc";
  c.version = dotted(__GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#else
  c.id = "unknown";
#endif
#if defined(__CUDACC__)
#if defined(__NVCC__)
  c.cuda_compiler = "nvcc";
#elif defined(__clang__)
  c.cuda_compiler = "clang";
#endif
#if defined(__CUDACC_VER_MAJOR__) && defined(__CUDACC_VER_MINOR__) && defined(__CUDACC_VER_BUILD__)
  c.cuda_compiler_version =
      dotted(__CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__, __CUDACC_VER_BUILD__);
#endif
#endif
#if defined(_LIBCPP_VERSION)
  c.standard_library = "libc++ " + std::to_string(_LIBCPP_VERSION);
#elif defined(_GLIBCXX_RELEASE)
  c.standard_library = "libstdc++ " + std::to_string(_GLIBCXX_RELEASE);
#else
  c.standard_library = "unknown";
#endif
  c.cplusplus = static_cast<long>(__cplusplus);
#if defined(NDEBUG)
  c.ndebug = true;
#endif
#if defined(__OPTIMIZE__)
  c.optimized = true;
#endif
  return c;
}
}  // namespace detail

}  // namespace gauge
