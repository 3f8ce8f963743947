#pragma once
/// \file gauge/experiment.hpp
/// gauge::Experiment: a named `step(stream)` with its dimensions, work and settings, measured by
/// `run()` through the protocol of DESIGN.md (prepare, warm up until steady, measure GPU time and
/// wall time in rounds, stop on a confidence-interval target, verify, summarize).
///
/// This header is the light builder. `run()` hands the step and the backend to the protocol
/// through the seam in gauge/protocol/seam.hpp; the protocol itself is compiled once per
/// program, in the file that defines GAUGE_IMPLEMENTATION (gauge/implementation.hpp).
///
/// The backend interface. A Backend (CudaBackend, HostBackend, or a test fake) provides:
///   - `using stream_type`: what the step receives; `static constexpr const char* name`;
///     optionally `time_label` ("GPU time" by default) and `time_clock` ("CUDA events");
///   - `backend_parts::GateSupport gate_support()`, `bool graph_supported()`, `bool flush_supported()`;
///   - `DeviceRecord prepare(const Config&)` (device, stream, context), `void finish() noexcept`;
///   - `stream_type stream()`; `double now()`: host clock in seconds;
///   - `std::size_t record()`: a marker on the stream; `double elapsed(a, b)`: seconds between two
///     markers once they completed; `void reset_markers()`;
///   - `void synchronize()`: wait for all device work (device-wide);
///   - `void gate_close(Nanoseconds timeout)`, `void gate_open()`, `bool gate_timed_out()`;
///   - `void flush_cache()`: enqueue an L2 flush; `template <class F> void capture(F)`,
///     `void launch_graph()`: CUDA graph mode; `double timer_resolution()`: seconds;
///   - optionally, a pool of streams: `stream_count()`, `select_stream(i)`, `caller_stream()`
///     (the pool has `config.measure.streams` streams, or 1 when measuring on the caller's), and
///     `adopt_stream(stream)` for `Experiment::stream`;
///   - optionally, the per-round SM clock probe: `clock_probe_supported()`, `clock_probe_start()`,
///     `clock_probe_stop()`, `clock_probe_read()` (an optional value with `sm_clock_mhz`, `sms`,
///     `sm_spread`; gauge/cuda/clock_probe.hpp);
///   - optionally: `reset_persisting_l2()`; `cache_flush_record()` (how the flush works, for
///     the report's `sampling.cache_flush`); `telemetry_probe(std::string& reason)`;
///     `memory_snapshot()` with `reset_memory_watermarks()`; `kernel_binary(fn, name)` with
///     `own_kernels()`; `host_memory()`, `host_memory_total()`, `process_id()` (the real process's
///     otherwise).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "gauge/core/config.hpp"
#include "gauge/core/dimensions.hpp"
#include "gauge/core/error.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/work.hpp"
#include "gauge/protocol/seam.hpp"

#include "gauge/detail/backend_traits.hpp"
#include "gauge/detail/cuda_available.hpp"
#if GAUGE_HAS_CUDA_RUNTIME
#include "gauge/backends/cuda_backend.hpp"
#define GAUGE_HAS_CUDA_BACKEND 1
#else
#define GAUGE_HAS_CUDA_BACKEND 0
#endif
/// Experiment::setup (an untimed setup before every step) exists.
#define GAUGE_EXPERIMENT_HAS_SETUP 1
#include "gauge/backends/host_backend.hpp"

#if defined(_MSC_VER)
#define GAUGE_NOINLINE __declspec(noinline)
#else
#define GAUGE_NOINLINE __attribute__((noinline))
#endif

#if !defined(NDEBUG) || !defined(__OPTIMIZE__)
#define GAUGE_DETAIL_DEBUG_BUILD true
#else
#define GAUGE_DETAIL_DEBUG_BUILD false
#endif

namespace gauge {

template <class ExperimentA, class ExperimentB>
class Interleave;  // gauge/interleave.hpp

namespace detail {

/// The backend half of the seam for a concrete backend: everything but the step. For
/// HostBackend it is compiled once, with the implementation (explicit instantiation below); for
/// other backends in the translation unit that calls run() (so a .cu file gets the CUDA backend
/// compiled by nvcc, with its gate).
template <class Backend>
class BackendAdaptorBase : public ProtocolBackend {
 public:
  explicit BackendAdaptorBase(Backend& b) : b_(b) {}

  const char* name() const override { return Backend::name; }
  const char* time_label() const override {
    if constexpr (backend_has_time_label<Backend>::value) return Backend::time_label;
    else return "GPU time";
  }
  const char* time_clock() const override {
    if constexpr (backend_has_time_label<Backend>::value) return Backend::time_clock;
    else return "CUDA events";
  }
  backend_parts::GateSupport gate_support() const override { return b_.gate_support(); }
  bool graph_supported() const override { return b_.graph_supported(); }
  bool flush_supported() const override { return b_.flush_supported(); }
  records::DeviceRecord prepare(const Config& c) override { return b_.prepare(c); }
  std::size_t stream_count() const override {
    if constexpr (backend_has_streams<Backend>::value) return b_.stream_count();
    else return 1;
  }
  void select_stream(std::size_t i) override {
    if constexpr (backend_has_streams<Backend>::value) b_.select_stream(i);
    else (void)i;
  }
  bool caller_stream() const override {
    if constexpr (backend_has_streams<Backend>::value) return b_.caller_stream();
    else return false;
  }
  void finish() noexcept override { b_.finish(); }
  double now() const override { return b_.now(); }
  std::size_t record() override { return b_.record(); }
  double elapsed(std::size_t a, std::size_t b) const override { return b_.elapsed(a, b); }
  void reset_markers() override { b_.reset_markers(); }
  void synchronize() override { b_.synchronize(); }
  void gate_close(Nanoseconds timeout) override { b_.gate_close(timeout); }
  void gate_open() override { b_.gate_open(); }
  bool gate_timed_out() const override { return b_.gate_timed_out(); }
  void flush_cache() override { b_.flush_cache(); }
  bool has_clock_probe() const override {
    if constexpr (backend_has_clock_probe<Backend>::value) return b_.clock_probe_supported();
    else return false;
  }
  void clock_probe_start() override {
    if constexpr (backend_has_clock_probe<Backend>::value) b_.clock_probe_start();
  }
  void clock_probe_stop() override {
    if constexpr (backend_has_clock_probe<Backend>::value) b_.clock_probe_stop();
  }
  std::optional<records::SmClockReading> clock_probe_read() override {
    if constexpr (backend_has_clock_probe<Backend>::value) {
      const auto r = b_.clock_probe_read();
      if (!r) return std::nullopt;
      return records::SmClockReading{r->sm_clock_mhz, r->sms, r->sm_spread};
    } else {
      return std::nullopt;
    }
  }
  void reset_persisting_l2() override {
    if constexpr (backend_has_reset_persisting_l2<Backend>::value) b_.reset_persisting_l2();
  }
  std::optional<records::CacheFlushRecord> cache_flush_record() override {
    if constexpr (backend_has_cache_flush_record<Backend>::value) return b_.cache_flush_record();
    else return std::nullopt;
  }
  std::optional<peaks::DeviceAttributes> device_attributes() const override {
    if constexpr (backend_has_device_attributes<Backend>::value) return b_.device_attributes();
    else return std::nullopt;
  }
  void launch_graph() override { b_.launch_graph(); }
  double timer_resolution() const override { return b_.timer_resolution(); }
  bool has_telemetry() const override { return backend_has_telemetry<Backend>::value; }
  std::unique_ptr<env::TelemetryProbe> telemetry_probe(std::string& reason) override {
    if constexpr (backend_has_telemetry<Backend>::value) return b_.telemetry_probe(reason);
    else {
      reason = std::string("the ") + Backend::name + " backend has no telemetry";
      return nullptr;
    }
  }
  bool has_memory() const override { return backend_has_memory<Backend>::value; }
  records::DeviceMemorySnapshot memory_snapshot() override {
    if constexpr (backend_has_memory<Backend>::value) return b_.memory_snapshot();
    else return {};
  }
  void reset_memory_watermarks() override {
    if constexpr (backend_has_memory<Backend>::value) b_.reset_memory_watermarks();
  }
  bool has_kernels() const override { return backend_has_kernels<Backend>::value; }
  records::KernelBinaryRecord kernel_binary(const void* fn, const std::string& kernel_name) override {
    if constexpr (backend_has_kernels<Backend>::value) return b_.kernel_binary(fn, kernel_name);
    else throw ConfigError(std::string("the ") + Backend::name + " backend cannot inspect kernel binaries");
  }
  std::vector<std::pair<std::string, const void*>> own_kernels() const override {
    if constexpr (backend_has_kernels<Backend>::value) return b_.own_kernels();
    else return {};
  }
  records::ProcessMemory host_memory() override {
    if constexpr (backend_has_host_memory<Backend>::value) return b_.host_memory();
    else return read_host_process_memory();
  }
  bool reset_host_memory_peak() override {
    if constexpr (backend_has_host_memory<Backend>::value) return true;  // the backend's own numbers
    else return reset_host_process_memory_peak();
  }
  std::optional<std::uint64_t> host_memory_total() override {
    if constexpr (backend_has_host_memory<Backend>::value) return b_.host_memory_total();
    else return read_host_memory_total();
  }
  unsigned process_id() const override {
    if constexpr (backend_has_host_memory<Backend>::value) return b_.process_id();
    else return current_process_id();
  }

 protected:
  Backend& b_;
};

// The host backend's half is compiled once, in gauge/implementation.hpp.
extern template class BackendAdaptorBase<HostBackend>;

/// The seam for a concrete backend and step: the step's half, instantiated where run() is called.
template <class Backend, class Step>
class BackendAdaptor final : public BackendAdaptorBase<Backend> {
 public:
  using Setup = std::function<void(typename Backend::stream_type)>;
  BackendAdaptor(Backend& b, Step& step, const Setup& setup) : BackendAdaptorBase<Backend>(b), step_(step), setup_(setup) {}

  // Never inlined: every round (warm-up, gated, wall) runs the same machine code of the step.
  // Inlined at each call site, a host step was compiled differently per round (1.68 ms per step
  // in gated rounds vs 1.41 ms in wall rounds for the same CPU GEMM, g++ 12 -O3).
  GAUGE_NOINLINE void call_step() override {
    if constexpr (backend_has_threads<Backend>::value)
      if (this->b_.threads() > 1) return this->b_.run_threads(step_, 1);
    step_(this->b_.stream());
  }
  unsigned threads() const override {
    if constexpr (backend_has_threads<Backend>::value) return this->b_.threads();
    else return 1;
  }
  bool threads_declared() const override {
    if constexpr (backend_has_threads<Backend>::value) return this->b_.threads_declared();
    else return false;
  }
  void call_steps(std::size_t k) override {
    if constexpr (backend_has_threads<Backend>::value)
      if (this->b_.threads() > 1) return this->b_.run_threads(step_, k);
    for (std::size_t i = 0; i < k; ++i) call_step();
  }
  bool has_setup() const override { return static_cast<bool>(setup_); }
  void call_setup() override { setup_(this->b_.stream()); }
  void capture(std::size_t steps) override {
    this->b_.capture([this, steps] {
      for (std::size_t i = 0; i < steps; ++i) call_step();
    });
  }
  bool debug_build() const override { return GAUGE_DETAIL_DEBUG_BUILD; }

 private:
  Step& step_;
  const Setup& setup_;
};

/// What measures an Experiment other than its own run() reaches it through: the suite runner's
/// --interleave (gauge/suite/registry.hpp, Point in PointMode::interleave) hands the spec and
/// the seam of a point's experiment to the runner, which runs two of them at once.
struct ExperimentAccess {
  /// Calls `f(spec, seam)` with `e`'s spec and a seam over its backend, step and setup; the seam
  /// lives until `f` returns. Returns what `f` returns.
  template <class E, class F>
  static decltype(auto) with_seam(E& e, F&& f) {
    using Backend = std::remove_reference_t<decltype(e.backend_)>;
    BackendAdaptor<Backend, decltype(e.step_)> seam(e.backend_, e.step_, e.setup_);
    return std::forward<F>(f)(static_cast<const ExperimentSpec&>(e.spec_), static_cast<ProtocolBackend&>(seam));
  }
};

}  // namespace detail

/// An experiment: a named step with dimensions and work, measured by `run()`.
///
/// \tparam Step callable as `step(Backend::stream_type)`; it enqueues one step's work on the given
///   stream (a kernel, a cuBLAS call, a forward pass). It may throw; run() then reports the
///   experiment as failed with the error.
/// \tparam Backend CudaBackend (default), HostBackend, or a test backend (see the file comment).
///
/// Fluent configuration reads like a sentence:
/// \code
///   auto result = gauge::Experiment("gemm", step)
///                     .dimension("M", 8192).dimension("dtype", "bf16")
///                     .flop(2.0 * M * N * K)
///                     .run();
/// \endcode
template <class Step,
#if GAUGE_HAS_CUDA_BACKEND
          class Backend = CudaBackend
#else
          class Backend = HostBackend
#endif
          >
class Experiment {
 public:
  using stream_type = typename Backend::stream_type;
  static_assert(std::is_invocable_v<Step&, stream_type>,
                "gauge::Experiment: the step must be callable as step(stream), with the backend's stream "
                "type (cudaStream_t for the default CudaBackend). For a CPU step use "
                "gauge::make_experiment<gauge::HostBackend>(name, [](gauge::HostStream) { ... }).");

  /// \param name experiment name (non-empty; ConfigError otherwise at run()).
  /// \param step the work of one step, see the class comment.
  /// \param backend the backend instance (e.g. CudaBackend(stream) to adopt a stream).
  Experiment(std::string name, Step step, Backend backend = Backend{})
      : step_(std::move(step)), backend_(std::move(backend)) {
    spec_.name = std::move(name);
  }

  /// Adds a dimension (integer, real, string or bool), e.g. ("M", 8192), ("dtype", "bf16").
  /// ConfigError for an empty name or a non-finite real.
  template <class T>
  Experiment& dimension(const std::string& key, T&& value) {
    if (key.empty()) throw ConfigError("a dimension's name must not be empty");
    try {
      spec_.set_dimension(key, detail::to_dimension_value(std::forward<T>(value)));
    } catch (const ConfigError& e) {
      throw ConfigError("dimension '" + key + "': " + e.what());
    }
    return *this;
  }
  /// Runs every step on `n` threads at once (host backend): a step is n calls of the step, one per
  /// thread, each given `HostStream{thread, n}`; its time runs from before the threads are woken
  /// until the last one returned (in a batch of k steps per sample, each thread runs its k calls
  /// between one wake-up and one wait). The declared work (flop, bytes, items) is per call: the
  /// throughput counts n calls per step. Adds the dimension `threads`. An untimed setup runs once
  /// per step, on the measuring thread. \throws ConfigError for 0 or more than 4096; a backend
  /// without threads (CUDA) does not compile.
  template <class Int, std::enable_if_t<std::is_integral_v<Int> && !std::is_same_v<Int, bool>, int> = 0>
  Experiment& threads(Int n) {
    static_assert(detail::backend_has_threads<Backend>::value,
                  "gauge::Experiment::threads: only the host backend (gauge::HostBackend) runs a step on several threads");
    if constexpr (detail::backend_has_threads<Backend>::value) {
      backend_.set_threads(n);
      spec_.set_dimension("threads", static_cast<std::int64_t>(n));
    }
    return *this;
  }
  /// Declares floating-point operations per step (e.g. 2·M·N·K for a GEMM). ConfigError if < 0.
  Experiment& flop(double per_step) {
    detail::check_work_amount("flop", per_step);
    spec_.work.flop = per_step;
    return *this;
  }
  /// Declares bytes moved per step. ConfigError if < 0 or not finite.
  Experiment& bytes(double per_step) {
    detail::check_work_amount("bytes", per_step);
    spec_.work.bytes = per_step;
    return *this;
  }
  /// Declares named items per step, e.g. ("tokens", batch × sequence). ConfigError if < 0.
  Experiment& items(const std::string& item, double per_step) {
    detail::check_work_amount(item.c_str(), per_step);
    if (item.empty()) throw ConfigError("work item name must not be empty");
    spec_.set_item(item, per_step);
    return *this;
  }
  /// Replaces the whole configuration.
  Experiment& config(const Config& c) {
    spec_.config = c;
    return *this;
  }
  /// The configuration, for in-place changes: `exp.config().measure.max_time = 2s;`.
  Config& config() { return spec_.config; }
  /// Cold cache: flush L2 before every step (outside the timed interval).
  Experiment& cold_cache(bool cold = true) {
    spec_.config.measure.cache = cold ? CacheState::cold : CacheState::hot;
    return *this;
  }
  /// Declares that the step synchronizes the host (e.g. copies a result back): gauge then times
  /// it without the launch gate, which it would otherwise deadlock behind until the gate's timeout.
  /// `false` undoes only this declaration. \throws ConfigError when graph() was declared (a step
  /// that synchronizes the host cannot be captured in a CUDA graph): the later call never silently
  /// undoes the earlier one.
  Experiment& synchronizes_host(bool yes = true) {
    set_timing(GpuTiming::ungated, yes, "synchronizes_host()");
    return *this;
  }
  /// Traces what ran inside the step with CUPTI (Config::trace_kernels): after measuring, a traced
  /// round between two untraced ones on the pool's first stream gives the result's `kernel_trace`,
  /// each kernel's, memcpy's and memset's launches per step, median and p99 duration and share of
  /// the step, and the step's busy time and gaps. libcupti is loaded at run time; without it the
  /// result says why and warns `kernel_trace_unavailable`; with ncu or nsys attached it warns
  /// `profiler_attached` and does not trace.
  Experiment& trace_kernels(bool yes = true) {
    spec_.config.trace_kernels = yes;
    return *this;
  }
  /// Times replays of a CUDA graph of k captured steps instead of the steps themselves. `false`
  /// undoes only this declaration. \throws ConfigError when synchronizes_host() was declared.
  Experiment& graph(bool yes = true) {
    set_timing(GpuTiming::graph, yes, "graph()");
    return *this;
  }
  /// An untimed setup, run before every step on the step's stream, outside the timed interval:
  /// it resets what an in-place step changed (a sort's input, a scan's output, a counter), as
  /// Google Benchmark's PauseTiming or hyperfine's --prepare. It may run host code or enqueue
  /// work on the stream (a cudaMemcpyAsync, a reset kernel). Every step then has its own event
  /// pair (k = 1: an event between steps costs ~2 µs of device time on an H200, which short steps
  /// include), the gate holds setups and steps alike, wall-time rounds run setup + step (so the
  /// wall time includes the setup, and the host-overhead, busy-fraction and wrong-stream
  /// diagnoses that compare it with the GPU time are left out), and the report records the setup's
  /// calls and host time per call (`sampling.setup_calls`, `sampling.setup_host_time_s`).
  /// Cannot be combined with graph(). ConfigError for an empty function.
  Experiment& setup(std::function<void(stream_type)> fn) {
    if (!fn) throw ConfigError("setup: empty function");
    setup_ = std::move(fn);
    return *this;
  }
  /// Calls `fn(median_s, samples)` after every measured round, on the thread that runs run(), with
  /// the median GPU time per step so far (seconds) and the samples taken: a progress display.
  /// It must be quick and must not throw (an exception fails the experiment). ConfigError for an
  /// empty function.
  Experiment& on_round(std::function<void(double, std::size_t)> fn) {
    if (!fn) throw ConfigError("on_round: empty function");
    spec_.on_round = std::move(fn);
    return *this;
  }
  /// Measures on the caller's stream `s` (the one their loop uses) instead of a pool of streams
  /// gauge creates: the answer to "how fast on this stream". The device's launch gap depends on
  /// the stream (its hardware queue), so the interval then covers this stream only (the report's
  /// `streams.scope` is "caller's stream"); by default gauge rotates its rounds over
  /// `measure.streams` new streams and the interval covers the stream effect. The stream must
  /// belong to the configured device and outlive run(). Needs a backend with streams (CudaBackend).
  Experiment& stream(stream_type s) {
    static_assert(detail::backend_has_adopt_stream<Backend>::value,
                  "gauge::Experiment::stream: this backend has no streams to adopt (use CudaBackend)");
    backend_.adopt_stream(s);
    return *this;
  }
  /// A check run once after measurement; returning false (or throwing) marks the experiment
  /// failed, so an "optimization" cannot win by doing less work.
  Experiment& verify(std::function<bool()> check) {
    spec_.verify = std::move(check);
    return *this;
  }
  /// Names a kernel the step launches, for the JIT check (`jit_compiled` when the driver had to
  /// compile its PTX): `exp.kernel("my_kernel", my_kernel)`. Needs a backend with kernel_binary().
  template <class F>
  Experiment& kernel(const std::string& kernel_name, F* function) {
    if (!function) throw ConfigError("kernel '" + kernel_name + "': null function pointer");
    spec_.kernels.emplace_back(kernel_name, reinterpret_cast<const void*>(function));
    return *this;
  }
  /// A hook into another allocator (a framework's caching allocator): `bytes()` returns the bytes
  /// it holds now; gauge reads it at every round boundary and reports its peak under `name`.
  Experiment& allocator_probe(const std::string& probe_name, std::function<std::uint64_t()> bytes) {
    if (!bytes) throw ConfigError("allocator_probe '" + probe_name + "': empty function");
    spec_.allocator_probes.emplace_back(probe_name, std::move(bytes));
    return *this;
  }
  /// Runs the protocol's decisions through `c` (null: a single process, the default): the seam
  /// gauge/mpi.hpp's collective mode uses (gauge::mpi::Session::run sets it for the run). `c` must
  /// outlive run().
  Experiment& coordinator(detail::RankCoordinator* c) {
    spec_.coordinator = c;
    return *this;
  }
  /// The backend, e.g. for tests that script it.
  Backend& backend() { return backend_; }
  /// The name given.
  const std::string& name() const { return spec_.name; }
  /// The dimensions given (dimension()), by key.
  const Dimensions& dimensions() const { return spec_.dimensions; }

  /// Runs the protocol and returns the result. Never throws for a failing step or backend: the
  /// result is then `failed` with the error, and whatever was measured before is kept. Throws
  /// ConfigError only for an invalid configuration (before anything runs).
  Result run() {
    detail::BackendAdaptor<Backend, Step> seam(backend_, step_, setup_);
    return detail::run_protocol(spec_, seam);
  }

 private:
  /// graph() and synchronizes_host(): `mode` on (`yes`) or, if it is the one set, off.
  void set_timing(GpuTiming mode, bool yes, const char* call) {
    GpuTiming& t = spec_.config.measure.gpu_timing;
    if (!yes) {
      if (t == mode) t = GpuTiming::automatic;
      return;
    }
    if (t != GpuTiming::automatic && t != mode)
      throw ConfigError("experiment \"" + spec_.name + "\": " + call + " after " +
                        (t == GpuTiming::graph ? "graph()" : "synchronizes_host()") +
                        ": a step that synchronizes the host cannot be captured in a CUDA graph; declare one of them");
    t = mode;
  }

  template <class ExperimentA, class ExperimentB>
  friend class Interleave;  // runs two experiments' seams at once
  friend struct detail::ExperimentAccess;  // the suite runner's --interleave

  detail::ExperimentSpec spec_;
  Step step_;
  Backend backend_;
  std::function<void(stream_type)> setup_;
};

/// Makes an Experiment with an explicit backend type: `gauge::make_experiment<HostBackend>("x", f)`.
template <class Backend, class Step>
Experiment<Step, Backend> make_experiment(std::string name, Step step, Backend backend = Backend{}) {
  return Experiment<Step, Backend>(std::move(name), std::move(step), std::move(backend));
}

}  // namespace gauge
