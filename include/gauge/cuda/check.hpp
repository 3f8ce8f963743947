#pragma once
/// \file gauge/cuda/check.hpp
/// Error checking for CUDA runtime calls: a failing call throws gauge::CudaError naming the
/// call, the current device and `cudaGetErrorString`.

#include <cuda_runtime.h>

#include <string>

#include "gauge/core/error.hpp"

namespace gauge::detail {

/// True for the errors after which, in the CUDA Runtime API reference's words, "the process
/// [is left] in an inconsistent state and any further CUDA work will return the same error": an
/// illegal address, a launch timeout, a device-side assert, a hardware stack error, an illegal
/// instruction, a misaligned address, an invalid address space, an invalid PC, a launch failure.
inline bool is_sticky_cuda_error(cudaError_t code) {
  switch (code) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
      return true;
    default:
      return false;
  }
}

/// The first sticky error this process saw ("<call>: <error>"), empty while the context is whole.
/// One per program (an inline function's static).
inline std::string& lost_context_record() {
  static std::string first;
  return first;
}

/// Throws CudaError for `code` unless it is cudaSuccess. `call` is the call's source text.
/// Clears the (non-sticky) error state so later calls are not blamed for this one. A sticky error
/// (is_sticky_cuda_error) is recorded the first time; its message, and that of every later
/// failure while the context is lost, says so: the process must restart to use the GPU again.
inline void cuda_check(cudaError_t code, const char* call) {
  if (code == cudaSuccess) return;
  int device = -1;
  if (cudaGetDevice(&device) != cudaSuccess) device = -1;
  (void)cudaGetLastError();
  std::string what = cudaGetErrorString(code);
  std::string& lost = lost_context_record();
  if (!lost.empty()) {
    what += "; the CUDA context was lost by an earlier error (" + lost +
            "): every later CUDA call in this process fails, restart the process";
  } else if (is_sticky_cuda_error(code)) {
    lost = std::string(call) + ": " + cudaGetErrorString(code);
    what += "; the CUDA context is lost: every later CUDA call in this process fails, restart the process";
  }
  throw CudaError(call, device, static_cast<int>(code), what);
}

/// Throws Error at once when an earlier sticky error lost the context (see cuda_check): later
/// experiments fail fast with the first error named, instead of at a confusing call.
inline void check_context_alive() {
  const std::string& lost = lost_context_record();
  if (lost.empty()) return;
  throw Error("the CUDA context was lost by an earlier error (" + lost +
              "): every later CUDA call in this process fails; restart the process to measure on the GPU again");
}

/// A CUDA device UUID in nvidia-smi's spelling: "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx".
inline std::string uuid_string(const cudaUUID_t& u) {
  static const char* hex = "0123456789abcdef";
  std::string s = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    auto b = static_cast<unsigned char>(u.bytes[i]);
    s += hex[b >> 4];
    s += hex[b & 15];
  }
  return s;
}

/// Sets the identity of CUDA device `ordinal`, whose properties are `p`, in `out` (a DeviceRecord
/// or a CudaDeviceInfo): ordinal, name, UUID, and the PCI bus id where the runtime gives one.
template <class DeviceIdentity>
void set_device_identity(DeviceIdentity& out, int ordinal, const cudaDeviceProp& p) {
  out.ordinal = ordinal;
  out.name = p.name;
  out.uuid = uuid_string(p.uuid);
  char bus[32] = {};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, ordinal) == cudaSuccess) out.pci_bus_id = bus;
}

}  // namespace gauge::detail

/// Evaluates a CUDA runtime call and throws gauge::CudaError (call text, device, error string)
/// when it does not return cudaSuccess.
#define GAUGE_CUDA_CHECK(call) ::gauge::detail::cuda_check((call), #call)
