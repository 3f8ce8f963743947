#pragma once
/// \file gauge/suite/point.hpp
/// `gauge::Point`, what a benchmark's body receives for one point of its sweep (axis values,
/// configuration, work, the step it runs), with its modes (measure, --profile, --interleave) and
/// --profile's one profiled step (`detail::profile_point`). Part of gauge/suite/registry.hpp.
/// Light: no JSON, {fmt} or CLI11 here.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "gauge/core/config.hpp"
#include "gauge/core/dimensions.hpp"
#include "gauge/core/error.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/work.hpp"
#include "gauge/experiment.hpp"
#include "gauge/suite/nvtx.hpp"

#if GAUGE_HAS_CUDA_BACKEND
#include <cuda_profiler_api.h>
#endif

namespace gauge {
namespace suite {
/// What a point's `run()` does.
enum class PointMode {
  measure,  ///< run the Experiment (the protocol) and keep its Result
  profile,  ///< --profile: a short warm-up, then exactly one step between cudaProfilerStart/Stop
  /// --interleave: run() builds the Experiment as in `measure` mode, then hands its spec and seam
  /// to the runner's handler (Point::set_interleave) instead of measuring it; the runner measures
  /// it interleaved with another point's while both bodies wait inside run().
  interleave,
};

/// The runner's handler of a point in PointMode::interleave: receives the experiment's spec and
/// seam, valid until it returns.
using InterleaveHandler = std::function<void(const detail::ExperimentSpec&, detail::ProtocolBackend&)>;

/// The warm-up of --profile: steps (each followed by a synchronize) until at least `min_steps`
/// and `min_time`, or `max_time`. Short on purpose: it only has to load modules, JIT and autotune
/// before the one step a profiler captures.
struct ProfileSettings {
  std::size_t min_steps = 10;                                     ///< fewest warm-up steps
  Nanoseconds min_time = std::chrono::milliseconds(100);          ///< least warm-up time
  Nanoseconds max_time = std::chrono::seconds(2);                 ///< most warm-up time
};

/// A setup that does nothing (the default of Point::run).
struct NoSetup {
  template <class Stream>
  void operator()(Stream) const {}
};
}  // namespace suite

namespace detail {

#define GAUGE_DETAIL_SUITE_HAS(trait, expr)                                     \
  template <class B, class = void>                                              \
  struct trait : std::false_type {};                                            \
  template <class B>                                                            \
  struct trait<B, std::void_t<decltype(expr)>> : std::true_type {};
GAUGE_DETAIL_SUITE_HAS(backend_has_profiler, std::declval<B&>().profiler_start())
#undef GAUGE_DETAIL_SUITE_HAS

/// cudaProfilerStart for the CUDA backend, the backend's own `profiler_start()` where it has one
/// (test fakes), nothing otherwise.
template <class Backend>
void profiler_start(Backend& b) {
  if constexpr (backend_has_profiler<Backend>::value) b.profiler_start();
#if GAUGE_HAS_CUDA_BACKEND
  else if constexpr (std::is_same_v<Backend, CudaBackend>) GAUGE_CUDA_CHECK(cudaProfilerStart());
#endif
  else (void)b;
}
/// The matching stop.
template <class Backend>
void profiler_stop(Backend& b) {
  if constexpr (backend_has_profiler<Backend>::value) b.profiler_stop();
#if GAUGE_HAS_CUDA_BACKEND
  else if constexpr (std::is_same_v<Backend, CudaBackend>) GAUGE_CUDA_CHECK(cudaProfilerStop());
#endif
  else (void)b;
}

/// --profile for one point: prepare the backend, warm up (`settings`; setup before every step),
/// setup once more, then one step inside an NVTX range named `label` and cudaProfilerStart/Stop,
/// synchronized, with no timing. Returns the warm-up steps run. Throws what the step throws.
template <class Backend, class Step, class Setup>
std::size_t profile_point(Backend& b, Step& step, Setup& setup, const Config& config, const std::string& label,
                          const suite::ProfileSettings& settings) {
  struct Finish {
    Backend& b;
    ~Finish() { b.finish(); }
  } finish{b};
  b.prepare(config);
  auto stream = b.stream();
  const double start = b.now();
  std::size_t steps = 0;
  {
    NvtxRange range("warm-up " + label);
    for (;;) {
      setup(stream);
      step(stream);
      b.synchronize();
      ++steps;
      const double t = b.now() - start;
      if ((steps >= settings.min_steps && t >= to_seconds(settings.min_time)) || t >= to_seconds(settings.max_time)) break;
    }
  }
  setup(stream);
  b.synchronize();
  {
    NvtxRange range(label);
    profiler_start(b);
    step(stream);
    b.synchronize();
    profiler_stop(b);
  }
  return steps;
}

}  // namespace detail

/// One point of a benchmark's sweep: its axis values, its configuration, and the work and step
/// its body declares. The runner makes one per point and passes it to the body.
class Point {
 public:
  /// The runner's constructor: `values` are the axis values in axis order.
  Point(std::string benchmark, std::vector<std::pair<std::string, DimensionValue>> values, Config config,
        suite::PointMode mode = suite::PointMode::measure, suite::ProfileSettings profile = {})
      : benchmark_(std::move(benchmark)), values_(std::move(values)), config_(std::move(config)), mode_(mode),
        profile_(profile) {}

  /// The benchmark's name.
  const std::string& benchmark() const { return benchmark_; }
  /// The axis values, in axis order.
  const std::vector<std::pair<std::string, DimensionValue>>& values() const { return values_; }
  /// "name/axis=value/..." in axis order, e.g. "triad/T=float/N=4096" (what --filter matches).
  std::string label() const {
    std::string s = benchmark_;
    for (const auto& [k, v] : values_) s += "/" + k + "=" + gauge::to_string(v);
    for (const auto& [k, v] : extra_) s += "/" + k + "=" + gauge::to_string(v);
    return s;
  }
  /// The result's dimensions: the axis values, and what the runner adds (the device, when several).
  Dimensions dimensions() const {
    Dimensions d(extra_.begin(), extra_.end());
    for (const auto& [k, v] : values_) d[k] = v;
    return d;
  }
  /// Adds a dimension that is not an axis (the runner: "device" with --device all).
  void add_dimension(const std::string& key, DimensionValue value) { extra_.emplace_back(key, std::move(value)); }

  /// This point's value of the integer axis `axis`. ConfigError when there is no such axis or it
  /// holds another kind of value.
  std::int64_t get_int64(const std::string& axis) const { return get<std::int64_t>(axis, "an integer"); }
  /// This point's value of the real axis `axis` (an integer axis's value converts). ConfigError
  /// as get_int64.
  double get_float64(const std::string& axis) const {
    const DimensionValue& v = find(axis);
    if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
    return get<double>(axis, "a real number");
  }
  /// This point's value of the string or type axis `axis` (a type axis's value is the type's
  /// name, e.g. "float"). ConfigError as get_int64.
  const std::string& get_string(const std::string& axis) const { return get<std::string>(axis, "a string"); }

  /// The configuration the point runs with (the benchmark's, then the command line's overrides).
  Config& config() { return config_; }
  /// The CUDA device ordinal the point runs on (-1: the current device).
  int device() const { return config_.device; }

  /// Floating-point operations per step (see Experiment::flop).
  Point& flop(double per_step) { return set_work(flop_, "flop", per_step); }
  /// Bytes moved per step (see Experiment::bytes).
  Point& bytes(double per_step) { return set_work(bytes_, "bytes", per_step); }
  /// Named items per step (see Experiment::items).
  Point& items(const std::string& item, double per_step) {
    detail::check_work_amount(item.c_str(), per_step);
    items_.emplace_back(item, per_step);
    return *this;
  }
  /// Cold cache (see Experiment::cold_cache).
  Point& cold_cache(bool cold = true) {
    config_.measure.cache = cold ? CacheState::cold : CacheState::hot;
    return *this;
  }
  /// CUDA graph replays (see Experiment::graph).
  Point& graph(bool yes = true) {
    config_.measure.gpu_timing = yes ? GpuTiming::graph : GpuTiming::automatic;
    return *this;
  }
  /// The step synchronizes the host (see Experiment::synchronizes_host).
  Point& synchronizes_host(bool yes = true) {
    config_.measure.gpu_timing = yes ? GpuTiming::ungated : GpuTiming::automatic;
    return *this;
  }
  /// A check after measurement (see Experiment::verify).
  Point& verify(std::function<bool()> check) {
    verify_ = std::move(check);
    return *this;
  }

  /// Skips this point: it is not run, and the report lists it with `reason` under `skipped` (a
  /// skip is not a failure). Return from the body after it; a later run() does nothing.
  /// \throws ConfigError after run() (the point was measured: skip before it, or fail it by throwing).
  void skip(std::string reason) {
    if (ran_)
      throw ConfigError("point " + label() + ": skip(\"" + reason +
                        "\") after run(): the point was already measured; skip before run(), or throw to fail it");
    skip_reason_ = std::move(reason);
  }

  /// Runs `step(stream)` as this point's Experiment on the default backend (CudaBackend where the
  /// CUDA runtime is available, else HostBackend). Call once per point. A failing step gives a
  /// failed result (the runner reports it); ConfigError when called twice.
  template <class Step>
  void run(Step step) {
    run_on(default_backend{}, std::move(step), suite::NoSetup{});
  }
  /// As run(step), with an untimed `setup(stream)` before every step (resetting what an in-place
  /// step changed): outside the timed interval (needs Experiment::setup).
  template <class Step, class Setup>
  void run(Step step, Setup setup) {
    run_on(default_backend{}, std::move(step), std::move(setup));
  }
  /// As run(), on a given backend (HostBackend for a CPU step, a test fake).
  template <class Backend, class Step, class Setup = suite::NoSetup>
  void run_on(Backend backend, Step step, Setup setup = Setup{}) {
    if (skip_reason_) return;
    if (ran_) throw ConfigError("point " + label() + ": run() called twice (a point runs one step)");
    ran_ = true;
    if (mode_ == suite::PointMode::profile) {
      profile_warmup_steps_ = detail::profile_point(backend, step, setup, config_, label(), profile_);
      return;
    }
    auto exp = make_experiment<Backend>(benchmark_, std::move(step), std::move(backend));
    exp.config(config_);
    const Dimensions dims = dimensions();
    for (auto it = dims.begin(); it != dims.end(); ++it) {
      const std::string& key = it->first;
      std::visit([&exp, &key](const auto& x) { exp.dimension(key, x); }, it->second);
    }
    if (flop_) exp.flop(*flop_);
    if (bytes_) exp.bytes(*bytes_);
    for (const auto& [item, n] : items_) exp.items(item, n);
    if (verify_) exp.verify(verify_);
    if (on_round_) exp.on_round(on_round_);
    if constexpr (!std::is_same_v<Setup, suite::NoSetup>) exp.setup(std::move(setup));
    if (mode_ == suite::PointMode::interleave) {
      if (!interleave_) throw ConfigError("point " + label() + ": interleave mode without a handler");
      detail::ExperimentAccess::with_seam(exp, interleave_);
      return;
    }
    result_ = exp.run();
  }

  // ---- what the runner reads after the body returned ----

  /// The runner's: called after every measured round of this point's experiment with the median
  /// so far and the samples taken (the progress line).
  void set_on_round(std::function<void(double, std::size_t)> fn) { on_round_ = std::move(fn); }
  /// The runner's (--interleave): what run() hands the experiment to in PointMode::interleave.
  void set_interleave(suite::InterleaveHandler fn) { interleave_ = std::move(fn); }
  /// The skip reason, when skip() was called.
  const std::optional<std::string>& skip_reason() const { return skip_reason_; }
  /// Whether run() was called (measured or profiled).
  bool ran() const { return ran_; }
  /// The Experiment's result (measure mode, after run()).
  std::optional<Result>& result() { return result_; }
  /// Warm-up steps run before the profiled step (profile mode).
  std::size_t profile_warmup_steps() const { return profile_warmup_steps_; }

 private:
#if GAUGE_HAS_CUDA_BACKEND
  using default_backend = CudaBackend;
#else
  using default_backend = HostBackend;
#endif

  const DimensionValue& find(const std::string& axis) const {
    for (const auto& [k, v] : values_)
      if (k == axis) return v;
    for (const auto& [k, v] : extra_)
      if (k == axis) return v;
    std::string names;
    for (const auto& [k, v] : values_) names += (names.empty() ? "" : ", ") + k;
    throw ConfigError("benchmark '" + benchmark_ + "' has no axis '" + axis + "' (its axes: " +
                      (names.empty() ? "none" : names) + ")");
  }
  template <class T>
  const T& get(const std::string& axis, const char* what) const {
    const DimensionValue& v = find(axis);
    if (const T* x = std::get_if<T>(&v)) return *x;
    throw ConfigError("benchmark '" + benchmark_ + "': axis '" + axis + "' is not " + what + " (its value here is '" +
                      gauge::to_string(v) + "')");
  }
  Point& set_work(std::optional<double>& slot, const char* what, double per_step) {
    detail::check_work_amount(what, per_step);
    slot = per_step;
    return *this;
  }

  std::string benchmark_;
  std::vector<std::pair<std::string, DimensionValue>> values_;
  std::vector<std::pair<std::string, DimensionValue>> extra_;
  Config config_;
  suite::PointMode mode_;
  suite::ProfileSettings profile_;
  std::optional<double> flop_, bytes_;
  std::vector<std::pair<std::string, double>> items_;
  std::function<bool()> verify_;
  std::function<void(double, std::size_t)> on_round_;
  suite::InterleaveHandler interleave_;
  std::optional<std::string> skip_reason_;
  bool ran_ = false;
  std::optional<Result> result_;
  std::size_t profile_warmup_steps_ = 0;
};

}  // namespace gauge
