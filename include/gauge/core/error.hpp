#pragma once
/// \file gauge/core/error.hpp
/// gauge's exception types. Every error says what failed and with which value.

#include <stdexcept>
#include <string>

namespace gauge {

/// Base class of every exception gauge throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A configuration value or argument is invalid; the message names it and the value given.
class ConfigError : public Error {
 public:
  using Error::Error;
};

/// A CUDA runtime call failed; the message names the call, the device and `cudaGetErrorString`.
class CudaError : public Error {
 public:
  /// \param call the CUDA call as written, \param device the device ordinal (-1 if unknown),
  /// \param code the `cudaError_t` value, \param text the CUDA error string.
  CudaError(const std::string& call, int device, int code, const std::string& text)
      : Error(call + " failed on device " + std::to_string(device) + ": " + text + " (cudaError " +
              std::to_string(code) + ")"),
        code_(code), device_(device) {}
  /// The `cudaError_t` value.
  int code() const noexcept { return code_; }
  /// The CUDA device ordinal current at the call (-1 if unknown).
  int device() const noexcept { return device_; }

 private:
  int code_;
  int device_;
};

/// Writing or reading a report failed (unwritable path, invalid JSON, schema mismatch).
class ReportError : public Error {
 public:
  using Error::Error;
};

}  // namespace gauge
