#pragma once
/// \file gauge/core/error.hpp
/// gauge's exception types. Every error says what failed and with which value.

#include <cstddef>
#include <stdexcept>
#include <string>

namespace gauge {

namespace detail {
/// `what` with every NUL byte written as the two characters `\0` (as detail::escape::visible
/// writes it): `what()` is a C string, so a NUL would cut the message there (a report's value
/// holding "\u0000" showed as `"o` instead of `"o\0k"`).
inline std::string without_nul(std::string what) {
  for (std::size_t at = what.find('\0'); at != std::string::npos; at = what.find('\0', at + 2)) what.replace(at, 1, "\\0");
  return what;
}
}  // namespace detail

/// Base class of every exception gauge throws. Its message is the whole text given, a NUL byte
/// in it written as `\0` (what() is a C string and would end at the NUL).
class Error : public std::runtime_error {
 public:
  /// \param what the message; a NUL byte in it is kept visible as `\0`.
  explicit Error(const std::string& what) : std::runtime_error(detail::without_nul(what)) {}
  /// \param what the message (a C string: it ends at its first NUL).
  explicit Error(const char* what) : std::runtime_error(what) {}
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
