#pragma once
/// \file gauge/backends/cuda_device.hpp
/// detail::CudaDevice: the part of CudaBackend that does not depend on the compiler of the
/// translation unit (its device, streams, events, CUDA graph and memory queries), declared here
/// and compiled once with gauge's compiled part (gauge/implementation/cuda_device.hpp). CudaBackend
/// (gauge/backends/cuda_backend.hpp) adds what needs nvcc in the benchmark's own file: the launch
/// gate, the L2 flush's read kernel and the SM clock probe.

#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "gauge/core/config.hpp"
#include "gauge/core/peaks.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/telemetry.hpp"

namespace gauge::detail {

/// CudaBackend's device, streams and events (see the file comment). Not copyable; movable; a
/// moved-from CudaDevice holds nothing and may only be destroyed or assigned to. Every function
/// that talks to the device throws CudaError naming the CUDA call that failed, unless it says
/// otherwise.
class CudaDevice {
 public:
  /// Measures on streams of the process's pool (created at prepare()).
  CudaDevice();
  /// Measures on `stream` (not destroyed by gauge).
  explicit CudaDevice(cudaStream_t stream);
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;
  CudaDevice(CudaDevice&&) noexcept;
  CudaDevice& operator=(CudaDevice&&) noexcept;
  /// finish().
  ~CudaDevice();

  /// Measures on `stream` from the next prepare() on (after finish()).
  void adopt_stream(cudaStream_t stream);
  /// Selects `config.device` (restored at finish()), creates the context outside any timing, takes
  /// `config.measure.streams` streams of the process's pool (or of its own when another
  /// experiment holds the pool), reads the device's identity and attributes. Throws ConfigError for
  /// a device that does not exist, CudaError otherwise.
  records::DeviceRecord prepare(const Config& config);
  /// Releases the events, the graph and the streams (or gives the pool back), restores the
  /// caller's device. Never throws.
  void finish() noexcept;

  /// The stream being measured on (inline: the step receives it every call).
  cudaStream_t stream() const noexcept { return stream_; }
  /// Streams in the pool (1 on the caller's stream); valid after prepare().
  std::size_t stream_count() const noexcept;
  /// Makes stream i (modulo the count) of the pool current.
  void select_stream(std::size_t i);
  /// True when measuring on the caller's stream.
  bool caller_stream() const noexcept;
  /// SMs of the device (after prepare()).
  int multiprocessors() const noexcept;
  /// The device ordinal in use (after prepare()); -1 before.
  int device() const noexcept;

  /// Records an event on the stream, from a pool that grows on demand; returns its index.
  std::size_t record();
  /// Seconds between events a and b (both completed). Throws std::out_of_range for an index that
  /// was never recorded.
  double elapsed(std::size_t a, std::size_t b) const;
  /// Makes the event pool's events reusable (the next record() is event 0 again).
  void reset_markers() noexcept;
  /// cudaDeviceSynchronize.
  void synchronize();

  /// Starts capturing the stream into a CUDA graph (replacing a previous one).
  void begin_capture();
  /// Ends the capture begun by begin_capture() and instantiates the graph. `failure` is what the
  /// captured code threw (empty: nothing). Throws Error when the capture failed, or when it holds
  /// no kernel, copy or memset (the step launched on another stream).
  void end_capture(const std::string& failure);
  /// Launches the captured graph on the stream.
  void launch_graph();

  /// The device's peak-relevant attributes, read at prepare().
  std::optional<peaks::DeviceAttributes> device_attributes() const;
  /// An NVML telemetry probe for the device, matched by UUID or PCI bus id; null with `reason`
  /// set when NVML is absent or does not know the device.
  std::unique_ptr<env::TelemetryProbe> telemetry_probe(std::string& reason);
  /// cudaMemGetInfo and the default memory pool's high watermarks.
  records::DeviceMemorySnapshot memory_snapshot();
  /// Resets the default pool's high watermarks. Never throws.
  void reset_memory_watermarks() noexcept;
  /// The binary of kernel `func` (gauge/cuda/jit.hpp).
  records::KernelBinaryRecord kernel_binary(const void* func, const std::string& kernel_name);

 private:
  struct State;
  std::unique_ptr<State> s_;
  cudaStream_t stream_ = nullptr;  // s_'s current stream, kept here for stream()
};

}  // namespace gauge::detail
