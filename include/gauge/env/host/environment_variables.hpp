#pragma once
/// \file gauge/env/host/environment_variables.hpp
/// The environment variables that change how CUDA code, cuBLAS or OpenMP behave, and gauge's own
/// (GAUGE_*), as the process sees them (`relevant_environment_variables()`). Part of
/// gauge/env/host.hpp.

#include <unistd.h>

#include <array>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#if !defined(_GNU_SOURCE)
// <unistd.h> declares `environ` only with _GNU_SOURCE (which g++ and clang++ define on Linux).
extern "C" char** environ;
#endif

namespace gauge {

namespace detail {
/// The fixed list of environment variables `relevant_environment_variables()` always reports
/// (set or not), in this order: they change how CUDA code, cuBLAS or OpenMP behave.
/// - CUDA_VISIBLE_DEVICES: which GPUs the process sees, and their order.
/// - CUDA_MODULE_LOADING: LAZY / EAGER module loading (first-launch cost).
/// - CUDA_LAUNCH_BLOCKING: 1 makes every launch synchronous (distorts timings).
/// - CUDA_DEVICE_MAX_CONNECTIONS: number of hardware work queues (concurrency between streams).
/// - CUDA_CACHE_DISABLE: disables the JIT (PTX) cache.
/// - CUDA_FORCE_PTX_JIT: forces JIT compilation of PTX instead of using SASS.
/// - CUDA_DISABLE_PTX_JIT: forbids JIT compilation of PTX.
/// - CUBLAS_WORKSPACE_CONFIG: cuBLAS workspace size (deterministic mode).
/// - NVIDIA_TF32_OVERRIDE: 0 disables TF32 in cuBLAS/cuDNN.
/// - OMP_NUM_THREADS: OpenMP thread count of host code.
inline constexpr std::array<const char*, 10> relevant_environment_variable_names = {
    "CUDA_VISIBLE_DEVICES", "CUDA_MODULE_LOADING",
    "CUDA_LAUNCH_BLOCKING", "CUDA_DEVICE_MAX_CONNECTIONS",
    "CUDA_CACHE_DISABLE",   "CUDA_FORCE_PTX_JIT",
    "CUDA_DISABLE_PTX_JIT", "CUBLAS_WORKSPACE_CONFIG",
    "NVIDIA_TF32_OVERRIDE", "OMP_NUM_THREADS"};

/// Whether a variable's value is a secret a report must not carry: its name contains TOKEN,
/// SECRET, PASSWORD, PASSWD, CREDENTIAL, AUTH or KEY (case-insensitive), e.g. GAUGE_UPLOAD_TOKEN.
inline bool secret_environment_variable(std::string_view name) {
  std::string upper(name);
  for (char& c : upper) c = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
  for (const char* word : {"TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH", "KEY"})
    if (upper.find(word) != std::string::npos) return true;
  return false;
}

/// The value a report records for a secret variable (secret_environment_variable).
inline constexpr const char* redacted_environment_value = "(redacted)";

/// Reads the process's real environment (not a fake root): every name of
/// `relevant_environment_variable_names` in that order, with its value or `nullopt` when unset,
/// then every set variable whose name starts with "GAUGE_", sorted by name; the value of one
/// whose name says it is a secret (secret_environment_variable) is recorded as "(redacted)".
inline std::vector<std::pair<std::string, std::optional<std::string>>>
relevant_environment_variables() {
  std::vector<std::pair<std::string, std::optional<std::string>>> vars;
  for (const char* name : relevant_environment_variable_names) {
    const char* value = std::getenv(name);
    vars.emplace_back(name, value ? std::optional<std::string>(value) : std::nullopt);
  }
  std::map<std::string, std::string> gauge_vars;
  if (environ != nullptr) {
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string_view entry(*e);
      if (entry.rfind("GAUGE_", 0) != 0) continue;
      const auto eq = entry.find('=');
      if (eq == std::string_view::npos) continue;
      const std::string_view name = entry.substr(0, eq);
      gauge_vars.emplace(std::string(name), detail::secret_environment_variable(name) ? std::string(detail::redacted_environment_value)
                                                                              : std::string(entry.substr(eq + 1)));
    }
  }
  for (auto& [name, value] : gauge_vars) vars.emplace_back(name, std::move(value));
  return vars;
}
}  // namespace detail

}  // namespace gauge
