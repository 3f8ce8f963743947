#pragma once
/// \file gauge/suite/benchmark.hpp
/// `gauge::suite::Benchmark` (a name, a body and its axes) and `gauge::suite::Registry`, the program's
/// benchmarks that GAUGE_BENCHMARK adds to. Part of gauge/suite/registry.hpp. Light: no JSON,
/// {fmt} or CLI11 here.

#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "gauge/core/config.hpp"
#include "gauge/core/dimensions.hpp"
#include "gauge/core/error.hpp"
#include "gauge/suite/axes.hpp"

namespace gauge {

class Point;

namespace suite {
/// What a benchmark runs for each point: reads the point's axis values, prepares data, declares
/// work and calls `p.run(step)` once (or `p.skip(reason)`).
using BenchmarkBody = std::function<void(Point&)>;

/// A benchmark: a name, a body, and axes whose cartesian product are its points.
///
/// Declaring never throws: GAUGE_BENCHMARK declares in a static initializer, where an exception
/// ends the program before main() (std::terminate, no report, no line naming the benchmark). A
/// mistake (an empty name or body, an axis with no values, an empty or repeated axis name, a NaN
/// or infinite value, bad arguments of gauge::pow2 or gauge::range, a name registered twice) is
/// recorded in problems() instead, and the runner refuses to start while any benchmark has one:
/// exit 2 with one line naming the benchmark and the axis, before anything runs.
class Benchmark {
 public:
  /// \param name the benchmark's name (non-empty; the experiments' name in the report).
  /// \param body called once per point. An empty name or body is recorded in problems().
  Benchmark(std::string name, BenchmarkBody body) : name_(std::move(name)), body_(std::move(body)) {
    if (name_.empty())
      add_problem("its name is empty: give it one (GAUGE_BENCHMARK(fn) names it \"fn\", register_benchmark(name, body) by "
                  "its first argument)");
    if (!body_) add_problem("its body is empty: give it a function of a gauge::Point&");
  }

  /// An integer axis with these values, in this order. An empty list or a name already used is
  /// recorded in problems().
  Benchmark& int64_axis(const std::string& axis, std::vector<std::int64_t> values) {
    return int64_axis(axis, suite::Int64Values{std::move(values), false, {}});
  }
  /// An integer axis from gauge::pow2 or gauge::range (a power-of-two axis is plotted on a log
  /// axis); their error (bad arguments) is recorded in problems().
  Benchmark& int64_axis(const std::string& axis, suite::Int64Values values) {
    if (!values.error.empty()) {
      add_problem("axis '" + axis + "': " + values.error);
      return *this;
    }
    std::vector<DimensionValue> v(values.values.begin(), values.values.end());
    return add_axis(Axis{axis, suite::AxisKind::int64, std::move(v), values.power_of_two});
  }
  /// A real-valued axis. A NaN or infinite value is recorded in problems() (a dimension is a
  /// finite number: NaN would never equal itself in a report or a comparison).
  Benchmark& float64_axis(const std::string& axis, const std::vector<double>& values) {
    return add_axis(Axis{axis, suite::AxisKind::float64, std::vector<DimensionValue>(values.begin(), values.end()), false});
  }
  /// A string axis (an algorithm, a layout).
  Benchmark& string_axis(const std::string& axis, const std::vector<std::string>& values) {
    return add_axis(Axis{axis, suite::AxisKind::string, std::vector<DimensionValue>(values.begin(), values.end()), false});
  }
  /// Adjusts the Config of every point of this benchmark (before the runner's overrides, such as
  /// --max-time, apply): `.configure([](gauge::Config& c) { c.measure.max_time = 2s; })`.
  Benchmark& configure(std::function<void(Config&)> f) {
    configure_ = std::move(f);
    return *this;
  }
  /// Adds an axis (any kind). An empty name, no values, a name used twice or a real value that
  /// is NaN or infinite is recorded in problems(), and the axis is not added.
  Benchmark& add_axis(Axis axis) {
    if (axis.name.empty()) {
      add_problem("an axis name is empty: name the axis");
      return *this;
    }
    if (axis.values.empty()) {
      add_problem("axis '" + axis.name + "' has no values: give it at least one");
      return *this;
    }
    if (find_axis(axis.name)) {
      add_problem("axis '" + axis.name + "' is declared twice: give each axis its own name");
      return *this;
    }
    for (const auto& v : axis.values)
      if (const double* d = std::get_if<double>(&v); d && !std::isfinite(*d)) {
        add_problem("axis '" + axis.name + "' has the value " + (std::isnan(*d) ? "nan" : *d > 0 ? "inf" : "-inf") +
                    ": an axis value must be a finite number");
        return *this;
      }
    axes_.push_back(std::move(axis));
    return *this;
  }
  /// Records a mistake in this benchmark's declaration (what is wrong and how to mend it); the
  /// runner refuses to start while any benchmark has one (exit 2, naming it). Never throws.
  Benchmark& add_problem(std::string what) {
    problems_.push_back(std::move(what));
    return *this;
  }
  /// The mistakes of this benchmark's declaration, in the order they were made (empty: none).
  const std::vector<std::string>& problems() const { return problems_; }

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
  const suite::BenchmarkBody& body() const { return body_; }
  /// The per-benchmark configuration hook (may be empty).
  const std::function<void(Config&)>& configuration() const { return configure_; }

 private:
  std::string name_;
  suite::BenchmarkBody body_;
  std::vector<Axis> axes_;
  std::function<void(Config&)> configure_;
  std::vector<std::string> problems_;
};

/// The benchmarks of a program, in registration order.
class Registry {
 public:
  /// Adds a benchmark; the reference stays valid for the registry's lifetime. Never throws (see
  /// Benchmark): a name that a benchmark already has is recorded in the new one's problems().
  Benchmark& add(std::string name, suite::BenchmarkBody body) {
    bool taken = false;
    for (const auto& b : benchmarks_) taken = taken || (!name.empty() && b->name() == name);
    benchmarks_.push_back(std::make_unique<Benchmark>(std::move(name), std::move(body)));
    if (taken) benchmarks_.back()->add_problem("its name is registered twice: give each benchmark its own name");
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

}  // namespace suite
}  // namespace gauge
