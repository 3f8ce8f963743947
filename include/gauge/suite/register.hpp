#pragma once
/// \file gauge/suite/register.hpp
/// Registering benchmarks: `GAUGE_BENCHMARK`, and template benchmarks (`GAUGE_BENCHMARK_TEMPLATE`,
/// `register_benchmark_types` over `type_tag`, with the type axis's dispatch). Part of
/// gauge/suite/registry.hpp. Light: no JSON, {fmt} or CLI11 here.

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/error.hpp"
#include "gauge/suite/axes.hpp"
#include "gauge/suite/benchmark.hpp"
#include "gauge/suite/point.hpp"

namespace gauge {

namespace detail {
/// The body of a template benchmark: runs the instantiation named by the point's value of `axis`.
inline suite::BenchmarkBody make_type_dispatch(std::string axis, std::vector<std::string> names, std::vector<suite::BenchmarkBody> bodies) {
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

namespace suite {
/// A type as a value, for the generic lambda of a template benchmark: `typename decltype(t)::type`.
template <class T>
struct type_tag {
  using type = T;
};

/// Registers in `registry` a benchmark instantiated over the types `Ts`, with a type axis `axis`
/// whose values are `type_names` (one per type, e.g. {"float", "__half"}): `body(type_tag<T>{}, point)`
/// runs a point of type T. Never throws (see Benchmark): counts that differ are recorded in the
/// benchmark's problems().
template <class... Ts, class F>
Benchmark& register_benchmark_types(Registry& registry, std::string name, const std::string& axis,
                                    const std::vector<std::string>& type_names, F body) {
  static_assert(sizeof...(Ts) > 0, "a template benchmark needs at least one type");
  std::vector<BenchmarkBody> bodies{BenchmarkBody([body](Point& p) { body(type_tag<Ts>{}, p); })...};
  Benchmark& b = registry.add(std::move(name), detail::make_type_dispatch(axis, type_names, std::move(bodies)));
  if (type_names.size() != sizeof...(Ts))
    return b.add_problem(std::to_string(type_names.size()) + " type names for " + std::to_string(sizeof...(Ts)) +
                         " types: give one name per type");
  return b.add_axis(Axis{axis, AxisKind::type, std::vector<DimensionValue>(type_names.begin(), type_names.end()), false});
}

}  // namespace suite
}  // namespace gauge

#define GAUGE_DETAIL_SUITE_CAT2(a, b) a##b
#define GAUGE_DETAIL_SUITE_CAT(a, b) GAUGE_DETAIL_SUITE_CAT2(a, b)

/// Registers `fn` (a `void fn(gauge::Point&)`) as a benchmark named "fn" in the global registry;
/// chain axes after it: `GAUGE_BENCHMARK(triad).int64_axis("N", gauge::pow2(12, 30));`.
#define GAUGE_BENCHMARK(fn)                                                                      \
  [[maybe_unused]] static ::gauge::suite::Benchmark& GAUGE_DETAIL_SUITE_CAT(gauge_benchmark_, __COUNTER__) = \
      ::gauge::suite::register_benchmark(#fn, fn)

/// Registers the function template `fn` (`template <class T> void fn(gauge::Point&)`) instantiated
/// over the types after `axis`; the type axis `axis` takes their names as written:
/// `GAUGE_BENCHMARK_TEMPLATE(copy, "T", float, __half).int64_axis("N", {1 << 20});` gives points
/// T=float and T=__half.
#define GAUGE_BENCHMARK_TEMPLATE(fn, axis, ...)                                                  \
  [[maybe_unused]] static ::gauge::suite::Benchmark& GAUGE_DETAIL_SUITE_CAT(gauge_benchmark_, __COUNTER__) = \
      ::gauge::suite::register_benchmark_types<__VA_ARGS__>(                                            \
          ::gauge::suite::Registry::global(), #fn, axis, ::gauge::detail::split_type_names(#__VA_ARGS__), \
          [](auto gauge_type, ::gauge::Point& gauge_point) { fn<typename decltype(gauge_type)::type>(gauge_point); })
