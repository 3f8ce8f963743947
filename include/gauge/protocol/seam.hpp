#pragma once
/// \file gauge/protocol/seam.hpp
/// The backend seam of the measurement protocol (DESIGN.md, "The backend seam").
///
/// `Experiment<Step, Backend>` is a thin, templated builder. Its `run()` wraps the step and the
/// backend into a `detail::ProtocolBackend` (a small virtual interface, instantiated in the
/// user's translation unit, so a .cu file still gets the launch gate) and calls
/// `detail::run_protocol`, which is compiled once per program: in the translation unit that
/// defines `GAUGE_IMPLEMENTATION` before including `<gauge/gauge.hpp>` (see
/// gauge/implementation.hpp). So the protocol, its statistics and diagnosis, NVML and the report
/// cost their compile time once, not in every file that defines an experiment.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/clock.hpp"
#include "gauge/core/config.hpp"
#include "gauge/core/dimensions.hpp"
#include "gauge/core/peaks.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/telemetry.hpp"
#include "gauge/core/work.hpp"

namespace gauge {
namespace env {
struct CompilerInfo;       // gauge/core/host_info.hpp
}  // namespace env

struct Environment;        // gauge/core/environment.hpp
struct InterleaveConfig;   // gauge/core/interleaved.hpp
struct InterleavedResult;  // gauge/core/interleaved.hpp

namespace backend_parts {
/// What a backend offers for the launch gate (a backend's `gate_support()`).
enum class GateSupport {
  not_needed,   ///< steps run synchronously (host backend): nothing to hold back
  available,    ///< the gate can hold the stream
  unavailable,  ///< the gate would be needed but cannot be used (no nvcc): timed ungated
};
}  // namespace backend_parts

namespace detail {

/// The protocol's decisions agreed across processes: the seam of gauge/mpi.hpp's *collective mode*
/// (DESIGN.md, "Beyond one machine"). When an ExperimentSpec has one, the protocol consults it at
/// each decision point, always at a round boundary and outside every timed interval, so that every
/// rank runs the same warm-up rounds, the same k, the same round sizes, and stops at the same round
/// (a step holding a collective then never waits for a rank that is not there). Without one
/// (`ExperimentSpec::coordinator == nullptr`, the default) the protocol is unchanged.
///
/// Every call is made by every rank in the same order; each may throw gauge::Error (another rank
/// failed, or an agreement timed out), which fails the experiment like a failing step.
class RankCoordinator {
 public:
  virtual ~RankCoordinator() = default;
  /// Warm-up ends when every rank's steady-state rule is met (`steady_here` on all) or any rank
  /// reached its warm-up cap (`capped_here` on one). Called before every warm-up round.
  virtual bool end_warmup(bool steady_here, bool capped_here) = 0;
  /// The steps of the next round (warm-up, calibration or measuring): the minimum over ranks.
  virtual std::size_t round_steps(std::size_t steps_here) = 0;
  /// Steps per sample (k): the maximum over ranks (every rank's event-overhead budget is met).
  virtual std::size_t steps_per_sample(std::size_t k_here) = 0;
  /// The stopping decision before every measuring round. `reason_here` is this rank's own reason
  /// ("" to go on; "noise_target_met", "stream_effect", "max_samples", "max_time"). Returns the
  /// agreed reason ("" to go on): stop when every rank would stop, or when any rank reached a
  /// limit (max_samples, max_time); a rank that would go on stops with the other's limit.
  virtual std::string stop(const std::string& reason_here) = 0;
  /// After every measuring round: replaces `per_step_s` (one value per sample) by the slowest
  /// rank's, per sample (the maximum over ranks), and keeps this rank's own values. Returns false
  /// when the round cannot be combined (a rank's round timed out: `timed_out_here` on one, or the
  /// ranks' sample counts differ): every rank then discards it.
  virtual bool combine_round(std::vector<double>& per_step_s, bool timed_out_here) = 0;
  /// The end of a run that did not fail here: the last agreement (a rank failing in its
  /// verification is still seen by the others).
  virtual void finish() = 0;
  /// This rank's run failed with `error`: tells the other ranks at the agreement they wait in
  /// (nothing when the failure came from an agreement). Never throws.
  virtual void abandon(const std::string& error) noexcept = 0;
};

/// Everything the builder collected: what to run and how.
struct ExperimentSpec {
  // Out of line (gauge/implementation.hpp): files that define experiments do not compile them.
  ExperimentSpec();
  ExperimentSpec(const ExperimentSpec&);
  ExperimentSpec(ExperimentSpec&&) noexcept;
  ExperimentSpec& operator=(const ExperimentSpec&);
  ExperimentSpec& operator=(ExperimentSpec&&) noexcept;
  ~ExperimentSpec();
  /// dimensions[key] = value, out of line (the map's code is compiled once, not in every file).
  void set_dimension(const std::string& key, DimensionValue value);
  /// work.items[item] = per_step, out of line likewise.
  void set_item(const std::string& item, double per_step);

  std::string name;
  Dimensions dimensions;
  Work work;
  Config config;
  std::function<bool()> verify;                                        ///< optional
  /// Optional: called after every measured round with the median so far (seconds per step) and
  /// the samples taken (Experiment::on_round; the suite runner's progress line).
  std::function<void(double, std::size_t)> on_round;
  std::vector<std::pair<std::string, const void*>> kernels;            ///< for the JIT check
  std::vector<std::pair<std::string, std::function<std::uint64_t()>>> allocator_probes;
  /// Agreement across ranks (gauge/mpi.hpp, collective mode); null: a single process, unchanged.
  RankCoordinator* coordinator = nullptr;
};

/// The protocol's view of a backend and the step (one object per run()). Every timing call the
/// protocol makes goes through here; the optional parts (telemetry, memory, kernels) say
/// whether they exist.
class ProtocolBackend {
 public:
  virtual ~ProtocolBackend() = default;
  /// Runs one step on the backend's stream.
  virtual void call_step() = 0;
  /// Threads a step runs on at once (the host backend's Experiment::threads; 1 otherwise).
  virtual unsigned threads() const { return 1; }
  /// Whether the threads were asked for (then the result has the dimension `threads`, 1 included).
  virtual bool threads_declared() const { return false; }
  /// Runs `k` steps: with threads() > 1, k calls on each thread with one wake-up and one wait for
  /// all of them (a sample's batch), else k × call_step().
  virtual void call_steps(std::size_t k) {
    for (std::size_t i = 0; i < k; ++i) call_step();
  }
  /// Whether the experiment has an untimed setup (Experiment::setup), and runs it on the stream.
  virtual bool has_setup() const = 0;
  virtual void call_setup() = 0;
  virtual const char* name() const = 0;        ///< "cuda", "host", or a test backend's name
  virtual const char* time_label() const = 0;  ///< "GPU time" or "real time"
  virtual const char* time_clock() const = 0;  ///< "CUDA events" or "host steady clock"
  virtual backend_parts::GateSupport gate_support() const = 0;
  virtual bool graph_supported() const = 0;
  virtual bool flush_supported() const = 0;
  virtual records::DeviceRecord prepare(const Config&) = 0;
  /// Streams in the measuring pool after prepare() (1: one stream); select_stream(i) makes stream
  /// i of the pool the one that steps, markers, the gate, the flush and graph launches use.
  virtual std::size_t stream_count() const = 0;
  virtual void select_stream(std::size_t i) = 0;
  /// True when the backend measures on a stream the caller gave (the interval covers that one).
  virtual bool caller_stream() const = 0;
  virtual void finish() noexcept = 0;
  virtual double now() const = 0;  ///< host clock, seconds
  virtual std::size_t record() = 0;  ///< a marker on the stream
  virtual double elapsed(std::size_t a, std::size_t b) const = 0;  ///< seconds between markers
  virtual void reset_markers() = 0;
  virtual void synchronize() = 0;
  virtual void gate_close(Nanoseconds timeout) = 0;
  virtual void gate_open() = 0;
  virtual bool gate_timed_out() const = 0;
  virtual void flush_cache() = 0;
  /// The per-round SM clock probe (gauge/cuda/clock_probe.hpp): whether it exists, its two halves
  /// (enqueued before a round's first event and after its last, outside every event pair), and
  /// its reading once the round was synchronized. Defaults: no probe.
  virtual bool has_clock_probe() const { return false; }
  virtual void clock_probe_start() {}
  virtual void clock_probe_stop() {}
  virtual std::optional<records::SmClockReading> clock_probe_read() { return std::nullopt; }
  virtual void reset_persisting_l2() = 0;
  /// How flush_cache() flushes L2, for the report's `sampling.cache_flush` (after the flush ran
  /// once); nullopt for a backend that does not say. Default: none.
  virtual std::optional<records::CacheFlushRecord> cache_flush_record() { return std::nullopt; }
  /// The device's peak-relevant attributes (gauge/core/peaks.hpp), after prepare(); nullopt for a
  /// backend that knows no device peaks (the host backend). Default: none.
  virtual std::optional<peaks::DeviceAttributes> device_attributes() const { return std::nullopt; }
  /// Captures `steps` steps into a graph (replacing a previous one).
  virtual void capture(std::size_t steps) = 0;
  virtual void launch_graph() = 0;
  virtual double timer_resolution() const = 0;  ///< seconds
  /// Telemetry probe for the device, or null with `reason` (also null when unsupported).
  virtual std::unique_ptr<env::TelemetryProbe> telemetry_probe(std::string& reason) = 0;
  virtual bool has_telemetry() const = 0;
  virtual bool has_memory() const = 0;
  virtual records::DeviceMemorySnapshot memory_snapshot() = 0;
  virtual void reset_memory_watermarks() = 0;
  virtual bool has_kernels() const = 0;
  virtual records::KernelBinaryRecord kernel_binary(const void* fn, const std::string& name) = 0;
  virtual std::vector<std::pair<std::string, const void*>> own_kernels() const = 0;
  virtual records::ProcessMemory host_memory() = 0;           ///< this process's RSS
  /// Resets this process's peak RSS (VmHWM), so that host_memory()'s peak covers this experiment
  /// only; false where it cannot (the peak is then not reported).
  virtual bool reset_host_memory_peak() = 0;
  virtual std::optional<std::uint64_t> host_memory_total() = 0;  ///< MemTotal, bytes
  virtual unsigned process_id() const = 0;                    ///< to tell this process from others
  /// Whether the step's translation unit was built without optimization or without NDEBUG.
  virtual bool debug_build() const = 0;
};

/// Runs the measurement protocol (gauge/protocol/protocol.hpp) and returns the result. Defined
/// in gauge/implementation/protocol.hpp. Throws ConfigError only for an invalid configuration.
Result run_protocol(const ExperimentSpec& spec, ProtocolBackend& backend);

/// Runs experiments A and B in interleaved ABBA rounds (gauge/protocol/interleave.hpp) and
/// returns both results with the paired ratio B / A. Defined in gauge/implementation/protocol.hpp.
/// Throws ConfigError only for invalid settings, different backends or devices.
InterleavedResult run_interleaved(const ExperimentSpec& a, ProtocolBackend& backend_a, const ExperimentSpec& b,
                                  ProtocolBackend& backend_b, const InterleaveConfig& config);

/// This process's RSS (from /proc/self/status), MemTotal, and pid: the host's side of the
/// seam, for backends that do not provide their own. Defined in gauge/implementation/environment.hpp.
records::ProcessMemory read_host_process_memory();
bool reset_host_process_memory_peak();
std::optional<std::uint64_t> read_host_memory_total();
unsigned current_process_id();

/// The measured peaks gauge-peaks cached for the GPU with this UUID and the current driver
/// (gauge/report/peaks_cache.hpp), or none, with `source` saying which file or why not. Never
/// throws. Defined in gauge/implementation/environment.hpp.
std::vector<peaks::Peak> read_measured_peaks(const std::optional<std::string>& uuid, std::string& source);
/// NVML's driver version ("580.95.05"), or "" without NVML: the key of gauge-peaks' cache beside
/// the GPU's UUID.
std::string nvml_driver_version();

/// The environment a Report made by Report(path) records: capture_environment() with the
/// compiler of the file that made it and each CUDA device's measured peaks appended. Defined in
/// gauge/implementation/environment.hpp.
Environment capture_report_environment(env::CompilerInfo compiler);

/// An NVML telemetry probe for the device with this UUID or PCI bus id; null with `reason` when
/// NVML is absent or does not know the device. Defined in gauge/implementation/environment.hpp.
std::unique_ptr<env::TelemetryProbe> make_nvml_probe(const std::optional<std::string>& uuid,
                                                const std::optional<std::string>& pci_bus_id, std::string& reason);

}  // namespace detail
}  // namespace gauge
