#pragma once
/// \file gauge/core/compiler_info.hpp
/// CompilerInfo: the compiler and flags of the translation unit that called
/// `gauge::detail::compiler_info()` (gauge/env/compiler.hpp). Apart from gauge/core/host_info.hpp
/// so that gauge/report.hpp, which every benchmark file includes, does not parse the host's
/// description. Standard library only.

#include <optional>
#include <string>

namespace gauge {
namespace env {
/// The compiler that built the translation unit calling `gauge::compiler_info()`.
struct CompilerInfo {
  /// Host C++ compiler: "gcc", "clang", "intel-llvm" or "unknown".
  std::string id;
  /// Host compiler version "MAJOR.MINOR.PATCH", e.g. "12.2.0"; empty when unknown.
  std::string version;
  /// CUDA compiler when the unit was compiled as CUDA: "nvcc" or "clang"; `nullopt` otherwise.
  std::optional<std::string> cuda_compiler;
  /// CUDA compiler version "MAJOR.MINOR.BUILD" from `__CUDACC_VER_MAJOR__` etc., e.g. "12.4.131";
  /// `nullopt` when not compiled by a CUDA compiler that defines them.
  std::optional<std::string> cuda_compiler_version;
  /// C++ standard library: "libstdc++ 12", "libc++ 17000", or "unknown".
  std::string standard_library;
  /// Value of `__cplusplus`, e.g. 201703 for C++17.
  long cplusplus = 0;
  /// True when `NDEBUG` was defined (assertions off).
  bool ndebug = false;
  /// True when `__OPTIMIZE__` was defined (gcc/clang: any -O level above -O0).
  bool optimized = false;
};

/// Field-wise equality.
inline bool operator==(const CompilerInfo& a, const CompilerInfo& b) {
  return a.id == b.id && a.version == b.version && a.cuda_compiler == b.cuda_compiler &&
         a.cuda_compiler_version == b.cuda_compiler_version && a.standard_library == b.standard_library &&
         a.cplusplus == b.cplusplus && a.ndebug == b.ndebug && a.optimized == b.optimized;
}
/// Field-wise inequality.
inline bool operator!=(const CompilerInfo& a, const CompilerInfo& b) { return !(a == b); }
}  // namespace env

}  // namespace gauge
