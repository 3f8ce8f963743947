#pragma once
/// \file gauge/suite/benchmark.hpp
/// `gauge::Benchmark` (a name, a body and its axes) and `gauge::Registry`, the program's
/// benchmarks that GAUGE_BENCHMARK adds to. Part of gauge/suite/registry.hpp. Light: no JSON,
/// {fmt} or CLI11 here.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/config.hpp"
#include "gauge/core/dimensions.hpp"
#include "gauge/core/error.hpp"
#include "gauge/suite/axes.hpp"

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

}  // namespace gauge
