#pragma once
/// \file gauge/suite/registry.hpp
/// Benchmarks declared once and swept over axes: `gauge::Benchmark` (a name, a body and its axes),
/// the registry `GAUGE_BENCHMARK` adds to, and `gauge::Point`, what the body receives for one
/// point of the cartesian product of the axes.
///
/// \code
///   void triad(gauge::Point& p) {
///     const auto n = p.get_int64("N");                     // this point's value of axis N
///     if (n > free_memory() / 24) return p.skip("does not fit in device memory");
///     ... allocate a, b, c ...
///     p.bytes(3.0 * n * sizeof(float));                    // work per step: throughput = work / time
///     p.run([&](cudaStream_t s) { triad_kernel<<<grid, block, 0, s>>>(a, b, c, n); });
///     ... free ...
///   }
///   GAUGE_BENCHMARK(triad).int64_axis("N", gauge::pow2(12, 30));
///
///   template <class T> void copy(gauge::Point& p) { ... }
///   GAUGE_BENCHMARK_TEMPLATE(copy, "T", float, double).int64_axis("N", {1 << 20, 1 << 24});
/// \endcode
///
/// Each point is one gauge::Experiment named after the benchmark, whose dimensions are the axis
/// values (so reports, gauge-compare and the Catch2 matchers work per point unchanged). The runner
/// (gauge/suite/runner.hpp, `GAUGE_MAIN()`) enumerates, filters and runs the points. Light: no
/// JSON, {fmt} or CLI11 here.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
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
#include "gauge/experiment.hpp"
#include "gauge/suite/axes.hpp"
#include "gauge/suite/nvtx.hpp"

#if GAUGE_HAS_CUDA_BACKEND
#include <cuda_profiler_api.h>
#endif

namespace gauge {

class Point;

/// What a benchmark runs for each point: reads the point's axis values, prepares data, declares
/// work and calls `p.run(step)` once (or `p.skip(reason)`).
using BenchmarkBody = std::function<void(Point&)>;

/// A benchmark: a name, a body, and axes whose cartesian product are its points.
class Benchmark {
 public:
  /// \param name the benchmark's name (non-empty; the experiments' name in the report).
  /// \param body called once per point. ConfigError for an empty name or body.
  Benchmark(std::string name, BenchmarkBody body) : name_(std::move(name)), body_(std::move(body)) {
    if (name_.empty()) throw ConfigError("a benchmark's name must not be empty");
    if (!body_) throw ConfigError("benchmark '" + name_ + "': empty body");
  }

  /// An integer axis with these values, in this order. AxisError for an empty list or a name
  /// already used.
  Benchmark& int64_axis(const std::string& axis, std::vector<std::int64_t> values) {
    return int64_axis(axis, Int64Values{std::move(values), false});
  }
  /// An integer axis from gauge::pow2 or gauge::range (a power-of-two axis is plotted on a log axis).
  Benchmark& int64_axis(const std::string& axis, Int64Values values) {
    std::vector<DimensionValue> v(values.values.begin(), values.values.end());
    return add_axis(Axis{axis, AxisKind::int64, std::move(v), values.power_of_two});
  }
  /// A real-valued axis.
  Benchmark& float64_axis(const std::string& axis, const std::vector<double>& values) {
    std::vector<DimensionValue> v;
    for (double x : values) v.emplace_back(detail::to_dimension_value(x));
    return add_axis(Axis{axis, AxisKind::float64, std::move(v), false});
  }
  /// A string axis (an algorithm, a layout).
  Benchmark& string_axis(const std::string& axis, const std::vector<std::string>& values) {
    return add_axis(Axis{axis, AxisKind::string, std::vector<DimensionValue>(values.begin(), values.end()), false});
  }
  /// Adjusts the Config of every point of this benchmark (before the runner's overrides, such as
  /// --max-time, apply): `.configure([](gauge::Config& c) { c.measure.max_time = 2s; })`.
  Benchmark& configure(std::function<void(Config&)> f) {
    configure_ = std::move(f);
    return *this;
  }
  /// Adds an axis (any kind). AxisError for an empty name, no values, or a name used twice.
  Benchmark& add_axis(Axis axis) {
    if (axis.name.empty()) throw AxisError("benchmark '" + name_ + "': an axis name must not be empty");
    if (axis.values.empty()) throw AxisError("benchmark '" + name_ + "': axis '" + axis.name + "' has no values");
    if (find_axis(axis.name)) throw AxisError("benchmark '" + name_ + "': axis '" + axis.name + "' declared twice");
    axes_.push_back(std::move(axis));
    return *this;
  }

  /// The benchmark's name.
  const std::string& name() const { return name_; }
  /// Its axes, in declaration order (the first varies slowest).
  const std::vector<Axis>& axes() const { return axes_; }
  /// The axis named `axis`, or nullptr.
  const Axis* find_axis(const std::string& axis) const {
    for (const auto& a : axes_)
      if (a.name == axis) return &a;
    return nullptr;
  }
  /// Replaces the values of an existing axis (the runner's --axis). AxisError if there is none.
  void set_axis_values(const std::string& axis, std::vector<DimensionValue> values, bool power_of_two) {
    for (auto& a : axes_)
      if (a.name == axis) {
        a.values = std::move(values);
        a.power_of_two = power_of_two;
        return;
      }
    throw AxisError("benchmark '" + name_ + "' has no axis '" + axis + "'");
  }
  /// The body.
  const BenchmarkBody& body() const { return body_; }
  /// The per-benchmark configuration hook (may be empty).
  const std::function<void(Config&)>& configuration() const { return configure_; }

 private:
  std::string name_;
  BenchmarkBody body_;
  std::vector<Axis> axes_;
  std::function<void(Config&)> configure_;
};

/// The benchmarks of a program, in registration order.
class Registry {
 public:
  /// Adds a benchmark; the reference stays valid for the registry's lifetime. ConfigError when a
  /// benchmark of that name exists.
  Benchmark& add(std::string name, BenchmarkBody body) {
    for (const auto& b : benchmarks_)
      if (b->name() == name) throw ConfigError("benchmark '" + name + "' registered twice");
    benchmarks_.push_back(std::make_unique<Benchmark>(std::move(name), std::move(body)));
    return *benchmarks_.back();
  }
  /// The benchmarks, in registration order.
  const std::vector<std::unique_ptr<Benchmark>>& benchmarks() const { return benchmarks_; }
  /// The program's registry, which GAUGE_BENCHMARK adds to and GAUGE_MAIN runs.
  static Registry& global() {
    static Registry r;
    return r;
  }

 private:
  std::vector<std::unique_ptr<Benchmark>> benchmarks_;
};

/// Registers a benchmark in the global registry (what GAUGE_BENCHMARK expands to).
inline Benchmark& register_benchmark(std::string name, BenchmarkBody body) {
  return Registry::global().add(std::move(name), std::move(body));
}

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
                          const ProfileSettings& settings) {
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
        PointMode mode = PointMode::measure, ProfileSettings profile = {})
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
  void skip(std::string reason) { skip_reason_ = std::move(reason); }

  /// Runs `step(stream)` as this point's Experiment on the default backend (CudaBackend where the
  /// CUDA runtime is available, else HostBackend). Call once per point. A failing step gives a
  /// failed result (the runner reports it); ConfigError when called twice.
  template <class Step>
  void run(Step step) {
    run_on(default_backend{}, std::move(step), NoSetup{});
  }
  /// As run(step), with an untimed `setup(stream)` before every step (resetting what an in-place
  /// step changed): outside the timed interval (needs Experiment::setup).
  template <class Step, class Setup>
  void run(Step step, Setup setup) {
    run_on(default_backend{}, std::move(step), std::move(setup));
  }
  /// As run(), on a given backend (HostBackend for a CPU step, a test fake).
  template <class Backend, class Step, class Setup = NoSetup>
  void run_on(Backend backend, Step step, Setup setup = Setup{}) {
    if (skip_reason_) return;
    if (ran_) throw ConfigError("point " + label() + ": run() called twice (a point runs one step)");
    ran_ = true;
    if (mode_ == PointMode::profile) {
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
    if constexpr (!std::is_same_v<Setup, NoSetup>) exp.setup(std::move(setup));
    if (mode_ == PointMode::interleave) {
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
  void set_interleave(InterleaveHandler fn) { interleave_ = std::move(fn); }
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
  PointMode mode_;
  ProfileSettings profile_;
  std::optional<double> flop_, bytes_;
  std::vector<std::pair<std::string, double>> items_;
  std::function<bool()> verify_;
  std::function<void(double, std::size_t)> on_round_;
  InterleaveHandler interleave_;
  std::optional<std::string> skip_reason_;
  bool ran_ = false;
  std::optional<Result> result_;
  std::size_t profile_warmup_steps_ = 0;
};

namespace detail {
/// The body of a template benchmark: runs the instantiation named by the point's value of `axis`.
inline BenchmarkBody make_type_dispatch(std::string axis, std::vector<std::string> names, std::vector<BenchmarkBody> bodies) {
  return [axis = std::move(axis), names = std::move(names), bodies = std::move(bodies)](Point& p) {
    const std::string& type = p.get_string(axis);
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == type) return bodies[i](p);
    throw ConfigError("benchmark '" + p.benchmark() + "' has no instantiation for " + axis + "=" + type);
  };
}
/// "float, __half" (the stringized type list) → {"float", "__half"}.
inline std::vector<std::string> split_type_names(const std::string& text) { return axes::split_top_level(text, ','); }
}  // namespace detail

/// A type as a value, for the generic lambda of a template benchmark: `typename decltype(t)::type`.
template <class T>
struct type_tag {
  using type = T;
};

/// Registers in `registry` a benchmark instantiated over the types `Ts`, with a type axis `axis`
/// whose values are `type_names` (one per type, e.g. {"float", "__half"}): `body(type_tag<T>{}, point)`
/// runs a point of type T. ConfigError when the counts differ.
template <class... Ts, class F>
Benchmark& register_benchmark_types(Registry& registry, std::string name, const std::string& axis,
                                    const std::vector<std::string>& type_names, F body) {
  static_assert(sizeof...(Ts) > 0, "a template benchmark needs at least one type");
  if (type_names.size() != sizeof...(Ts))
    throw ConfigError("benchmark '" + name + "': " + std::to_string(type_names.size()) + " type names for " +
                      std::to_string(sizeof...(Ts)) + " types");
  std::vector<BenchmarkBody> bodies{BenchmarkBody([body](Point& p) { body(type_tag<Ts>{}, p); })...};
  return registry.add(std::move(name), detail::make_type_dispatch(axis, type_names, std::move(bodies)))
      .add_axis(Axis{axis, AxisKind::type, std::vector<DimensionValue>(type_names.begin(), type_names.end()), false});
}

}  // namespace gauge

#define GAUGE_DETAIL_SUITE_CAT2(a, b) a##b
#define GAUGE_DETAIL_SUITE_CAT(a, b) GAUGE_DETAIL_SUITE_CAT2(a, b)

/// Registers `fn` (a `void fn(gauge::Point&)`) as a benchmark named "fn" in the global registry;
/// chain axes after it: `GAUGE_BENCHMARK(triad).int64_axis("N", gauge::pow2(12, 30));`.
#define GAUGE_BENCHMARK(fn)                                                                      \
  [[maybe_unused]] static ::gauge::Benchmark& GAUGE_DETAIL_SUITE_CAT(gauge_benchmark_, __COUNTER__) = \
      ::gauge::register_benchmark(#fn, fn)

/// Registers the function template `fn` (`template <class T> void fn(gauge::Point&)`) instantiated
/// over the types after `axis`; the type axis `axis` takes their names as written:
/// `GAUGE_BENCHMARK_TEMPLATE(copy, "T", float, __half).int64_axis("N", {1 << 20});` gives points
/// T=float and T=__half.
#define GAUGE_BENCHMARK_TEMPLATE(fn, axis, ...)                                                  \
  [[maybe_unused]] static ::gauge::Benchmark& GAUGE_DETAIL_SUITE_CAT(gauge_benchmark_, __COUNTER__) = \
      ::gauge::register_benchmark_types<__VA_ARGS__>(                                            \
          ::gauge::Registry::global(), #fn, axis, ::gauge::detail::split_type_names(#__VA_ARGS__), \
          [](auto gauge_type, ::gauge::Point& gauge_point) { fn<typename decltype(gauge_type)::type>(gauge_point); })
