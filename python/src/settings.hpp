#pragma once
/// \file python/src/settings.hpp
/// What the Python `gauge.Experiment` declares, in C++ types, and how it is applied to a
/// gauge::Experiment of either backend. Shared by module.cpp (host compiler: the bindings and the
/// host backend) and cuda_run.cu (nvcc: the CUDA backend with the launch gate).

#include <gauge/core/config.hpp>
#include <gauge/core/dimensions.hpp>
#include <gauge/core/result.hpp>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace gauge::python {

/// An experiment as declared from Python: name, dimensions, work per step (FLOP, bytes, items) and
/// the settings of run(). The step, setup and verify callables travel beside it.
struct Settings {
  std::string name;
  Dimensions dimensions;
  std::optional<double> flop, bytes;
  std::vector<std::pair<std::string, double>> items;
  Config config;
  bool cold_cache = false;
  bool graph = false;
  bool synchronizes_host = false;
};

/// Declares `s` on `e` (a gauge::Experiment of any backend), in the order the C++ builder checks.
template <class E>
void apply(E& e, const Settings& s) {
  e.config(s.config);
  for (const auto& entry : s.dimensions) {
    const std::string& key = entry.first;
    std::visit([&](const auto& v) { e.dimension(key, v); }, entry.second);
  }
  if (s.flop) e.flop(*s.flop);
  if (s.bytes) e.bytes(*s.bytes);
  for (const auto& [item, n] : s.items) e.items(item, n);
  if (s.cold_cache) e.cold_cache();
  if (s.graph) e.graph();
  if (s.synchronizes_host) e.synchronizes_host();
}

/// The CUDA side (cuda_run.cu, compiled by nvcc so that the launch gate exists), absent in a build
/// without nvcc (GAUGE_PYTHON_HAS_CUDA 0).
#if GAUGE_PYTHON_HAS_CUDA
/// Whether a CUDA device can be used now; otherwise `why` says why (the CUDA runtime's message).
bool cuda_device_available(std::string& why);
/// Runs the protocol on the CUDA backend: step(stream) and setup(stream) receive the stream handle
/// as an integer. Never throws for a failing step (the result is failed); ConfigError as run().
Result run_on_cuda(const Settings& s, std::function<void(std::uintptr_t)> step,
                   std::function<void(std::uintptr_t)> setup, std::function<bool()> verify,
                   std::optional<std::uintptr_t> caller_stream);
#endif

}  // namespace gauge::python
