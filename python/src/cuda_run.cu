// The CUDA backend for the Python module: compiled by nvcc, so that gauge's launch gate (a kernel)
// holds the stream while Python enqueues a round of steps, and the Python call's host cost stays
// out of the GPU time wherever the GPU is the bottleneck.
#include "settings.hpp"

#include <gauge/experiment.hpp>

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>

namespace gauge::python {

bool cuda_device_available(std::string& why) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    // Without any NVIDIA driver the runtime reports an "insufficient" one: say what it means.
    why = std::string(e == cudaErrorInsufficientDriver ? "no NVIDIA driver, or one older than this CUDA runtime: " : "") +
          "the CUDA runtime reports " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e);
    cudaGetLastError();  // clear it
    return false;
  }
  if (count == 0) {
    why = "the CUDA runtime finds no device";
    return false;
  }
  return true;
}

Result run_on_cuda(const Settings& s, std::function<void(std::uintptr_t)> step, std::function<void(std::uintptr_t)> setup,
                   std::function<bool()> verify, std::optional<std::uintptr_t> caller_stream) {
  auto e = Experiment(s.name, [step = std::move(step)](cudaStream_t stream) {
    step(reinterpret_cast<std::uintptr_t>(stream));
  });
  apply(e, s);
  if (setup) e.setup([setup = std::move(setup)](cudaStream_t stream) { setup(reinterpret_cast<std::uintptr_t>(stream)); });
  if (verify) e.verify(std::move(verify));
  if (caller_stream) e.stream(reinterpret_cast<cudaStream_t>(*caller_stream));
  return e.run();
}

}  // namespace gauge::python
