#pragma once
/// \file gauge/cuda/device_guard.hpp
/// RAII selection of a CUDA device that restores the caller's device on scope exit.

#include <cuda_runtime.h>

#include "gauge/cuda/check.hpp"

namespace gauge::backend_parts {

/// Makes `device` current for the guard's lifetime and restores the previous device afterwards.
/// Throws CudaError when the device cannot be selected. A negative ordinal keeps the current one.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    GAUGE_CUDA_CHECK(cudaGetDevice(&previous_));
    if (device >= 0 && device != previous_) {
      GAUGE_CUDA_CHECK(cudaSetDevice(device));
      changed_ = true;
    }
  }
  ~DeviceGuard() {
    if (changed_) (void)cudaSetDevice(previous_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = 0;
  bool changed_ = false;
};

}  // namespace gauge::backend_parts
