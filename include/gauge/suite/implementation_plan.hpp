#pragma once
/// \file gauge/suite/implementation_plan.hpp
/// The runner's planning (`plan_points`, gauge/suite/runner.hpp declares it): --axis replacing
/// axis values, --filter, the devices --device asks for, the bound on the number of points, and
/// the points in order (the last axis varies fastest).
/// A compiled part of gauge/suite/implementation.hpp, which includes it: host code only, and
/// empty under GAUGE_LINKS_SUITE_IMPLEMENTATION, as that header is.
/// Part of gauge/suite/implementation.hpp only: not a header to include on its own (the header
/// isolation test leaves it out; src/suite_implementation.cpp compiles it with the others).

#if !defined(__CUDA_ARCH__) && !defined(GAUGE_LINKS_SUITE_IMPLEMENTATION)

#include <algorithm>
#include <cstdint>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gauge/detail/cuda_available.hpp"
#include "gauge/detail/fmt.hpp"
#include "gauge/report/escape.hpp"
#include "gauge/suite/axes.hpp"
#include "gauge/suite/registry.hpp"
#include "gauge/suite/runner.hpp"

#if GAUGE_HAS_CUDA_RUNTIME
#include <cuda_runtime.h>
#endif

namespace gauge {
namespace detail::suite_run {

inline int cuda_device_count() {
#if GAUGE_HAS_CUDA_RUNTIME
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) throw UsageError(std::string("--device all: cudaGetDeviceCount failed: ") + cudaGetErrorString(e));
  return n;
#else
  throw UsageError("--device: this program was built without CUDA (GAUGE_NO_CUDA): there is no device to choose");
#endif
}

/// The devices --device asks for (empty: the current device).
inline std::vector<int> devices_of(const suite::RunOptions& o, const suite::SuiteIo& io) {
  if (!o.device) return {};
  const std::string& d = *o.device;
  if (d == "all") {
    const int n = io.device_count ? io.device_count() : cuda_device_count();
    if (n <= 0) throw UsageError("--device all: no CUDA device found");
    std::vector<int> out;
    for (int i = 0; i < n; ++i) out.push_back(i);
    return out;
  }
  std::int64_t v = -1;
  try {
    v = axes::parse_int(d);
  } catch (const AxisError&) {
    throw UsageError("--device '" + d + "': expected a device ordinal (0, 1, ...) or 'all'");
  }
  if (v < 0 || v > 1023) throw UsageError("--device '" + d + "': expected a device ordinal (0, 1, ...) or 'all'");
  if (io.device_count || GAUGE_HAS_CUDA_RUNTIME) {
    const int n = io.device_count ? io.device_count() : cuda_device_count();
    if (v >= n) throw UsageError("--device '" + d + "': there are " + std::to_string(n) + " devices (0 to " + std::to_string(n - 1) + ")");
  } else {
    cuda_device_count();  // throws: no CUDA in this build
  }
  return {static_cast<int>(v)};
}

/// The deepest nesting of groups a --filter may have: std::regex's compiler recurses once per
/// group (30,000 nested parentheses overflowed the stack).
inline constexpr std::size_t max_filter_depth = 32;

/// How deeply `pattern` nests its groups, "(" outside brackets and not escaped (ECMAScript).
inline std::size_t group_depth(const std::string& pattern) {
  std::size_t depth = 0, deepest = 0;
  bool in_class = false;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\') {
      ++i;
    } else if (in_class) {
      if (c == ']') in_class = false;
    } else if (c == '[') {
      in_class = true;
    } else if (c == '(') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ')' && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

/// --filter as a regular expression that cannot exhaust the stack or backtrack exponentially: at
/// most max_filter_bytes long and max_filter_depth groups deep, and matched by libstdc++'s
/// breadth-first (Thompson) executor (`regex_constants::__polynomial`: time linear in the label
/// per start position, no recursion over the input) where that library is used. Back-references
/// (\\1) are refused there: they need backtracking.
/// \throws UsageError naming the filter and what is wrong.
inline std::regex compile_filter(const std::string& text) {
  auto refuse = [&](const std::string& why) {
    const std::string shown = text.size() > 80 ? text.substr(0, 80) + "..." : text;
    return UsageError("--filter '" + shown + "': " + why);
  };
  if (text.size() > detail::max_filter_bytes)
    throw refuse(fmt::format("{} bytes, more than the {} a filter may have", text.size(), detail::max_filter_bytes));
  if (const std::size_t depth = group_depth(text); depth > max_filter_depth)
    throw refuse(fmt::format("groups nested {} deep, more than {}", depth, max_filter_depth));
  auto flags = std::regex::ECMAScript;
#if defined(__GLIBCXX__)
  flags |= std::regex_constants::__polynomial;
#endif
  try {
    return std::regex(text, flags);
  } catch (const std::regex_error& e) {
    throw refuse(std::string("not a regular expression (") + e.what() + ")");
  }
}

}  // namespace detail::suite_run

namespace suite {
std::vector<PlannedPoint> plan_points(const Registry& registry, const RunOptions& o, const SuiteIo& io) {
  // Mistakes of the declarations (recorded at registration, which never throws: it runs in static
  // initializers), before anything else: the first, naming its benchmark, and how many more.
  std::size_t problems = 0;
  std::string first;
  for (std::size_t bi = 0; bi < registry.benchmarks().size(); ++bi) {
    const Benchmark& b = *registry.benchmarks()[bi];
    for (const std::string& what : b.problems()) {
      if (problems++ > 0) continue;
      std::string who = "benchmark '" + detail::escape::visible(b.name()) + "'";
      if (b.name().empty()) {
        who = fmt::format("benchmark {} of {} in registration order", bi + 1, registry.benchmarks().size());
        if (bi > 0) who += " (after '" + detail::escape::visible(registry.benchmarks()[bi - 1]->name()) + "')";
      }
      first = who + " is declared wrongly: " + detail::escape::visible(what);
    }
  }
  if (problems)
    throw UsageError(first + (problems > 1 ? fmt::format(" (and {} more declaration problem{})", problems - 1, problems > 2 ? "s" : "")
                                           : std::string()) +
                     "; nothing was run");
  // --axis: each must name an axis of some benchmark; its values are parsed per benchmark's kind.
  std::vector<std::vector<Axis>> axes;
  for (const auto& b : registry.benchmarks()) axes.push_back(b->axes());
  for (const std::string& text : o.axes) {
    if (text.size() > detail::max_axis_bytes)
      throw UsageError(fmt::format("--axis '{}...': {} bytes, more than the {} an --axis may have", text.substr(0, 40),
                                   text.size(), detail::max_axis_bytes));
    try {
      // 'BENCH/AXIS=...' targets one benchmark's axis (names hold no '/': one is a separator);
      // 'AXIS=...' every benchmark's axis of that name.
      std::string target;
      std::string spec = text;
      if (const auto slash = text.find('/'); slash != std::string::npos && slash < text.find('=')) {
        target = text.substr(0, slash);
        spec = text.substr(slash + 1);
        bool named = false;
        for (const auto& b : registry.benchmarks()) named = named || b->name() == target;
        if (!named) {
          std::string names;
          for (const auto& b : registry.benchmarks()) names += (names.empty() ? "'" : ", '") + b->name() + "'";
          throw AxisError("no benchmark is named '" + target + "' (benchmarks: " + (names.empty() ? "none" : names) + ")");
        }
      }
      const AxisOverride ov = detail::parse_axis_override(spec);
      bool found = false;
      for (std::size_t bi = 0; bi < axes.size(); ++bi)
        for (auto& a : axes[bi])
          if (a.name == ov.name && (target.empty() || registry.benchmarks()[bi]->name() == target)) {
            auto [values, pow2] = parse_axis_values(a.kind, ov.values_text, a.values, ov.power_of_two);
            a.values = std::move(values);
            a.power_of_two = pow2;
            found = true;
          }
      if (!found && !target.empty()) {
        std::string names;
        for (std::size_t bi = 0; bi < axes.size(); ++bi)
          if (registry.benchmarks()[bi]->name() == target)
            for (const auto& a : axes[bi]) names += (names.empty() ? "'" : ", '") + a.name + "'";
        throw AxisError("benchmark '" + target + "' has no axis '" + ov.name + "' (its axes: " + (names.empty() ? "none" : names) + ")");
      }
      if (!found) {
        std::string names;
        for (const auto& list : axes)
          for (const auto& a : list)
            if (names.find("'" + a.name + "'") == std::string::npos) names += (names.empty() ? "" : ", ") + ("'" + a.name + "'");
        throw AxisError("no benchmark has an axis '" + ov.name + "' (axes: " + (names.empty() ? "none" : names) + ")");
      }
    } catch (const AxisError& e) {
      throw UsageError("--axis '" + text + "': " + e.what());
    }
  }
  // Names that make a point's label ambiguous ("k/A=1" is benchmark k with A = 1): no '/', '=' or
  // control character in a benchmark's or an axis's name, no control character in a value; and no
  // value twice on one axis (two identical points, told apart only by their position).
  const auto bad_name = [](const std::string& n) {
    if (n.empty()) return std::string("is empty");
    for (unsigned char c : n) {
      if (c == '/' || c == '=') return std::string("contains '") + static_cast<char>(c) + "' (it separates a label's parts)";
      if (c < 0x20 || c == 0x7f) return fmt::format("contains the control character 0x{:02x}", static_cast<unsigned>(c));
    }
    return std::string();
  };
  for (std::size_t bi = 0; bi < registry.benchmarks().size(); ++bi) {
    const std::string& name = registry.benchmarks()[bi]->name();
    if (const std::string why = bad_name(name); !why.empty())
      throw UsageError("benchmark name '" + detail::escape::visible(name) + "' " + why + ": rename the benchmark");
    for (const auto& a : axes[bi]) {
      if (const std::string why = bad_name(a.name); !why.empty())
        throw UsageError("benchmark '" + name + "': axis name '" + detail::escape::visible(a.name) + "' " + why + ": rename the axis");
      std::set<std::string> seen;
      for (const auto& v : a.values) {
        const std::string text = gauge::to_string(v);
        for (unsigned char c : text) {
          if (c < 0x20 || c == 0x7f)
            throw UsageError("benchmark '" + name + "': axis '" + a.name + "' has the value '" + detail::escape::visible(text) +
                             "' with a control character: labels and tables could not show it");
          if (c == '/' || c == '=')
            throw UsageError("benchmark '" + name + "': axis '" + a.name + "' has the value '" + text + "' with '" +
                             static_cast<char>(c) + "', which separates a label's parts (k/A=1/B=x): its label would be "
                             "ambiguous; choose a value without it");
        }
        // -0 and 0 are one point (equal numbers, one label apart).
        if (!seen.insert(text == "-0" ? std::string("0") : text).second)
          throw UsageError("benchmark '" + name + "': axis '" + a.name + "' lists the value " + text +
                           " more than once: its points would be identical (list each value once)");
      }
    }
  }
  std::optional<std::regex> filter;
  if (o.filter) filter = detail::suite_run::compile_filter(*o.filter);
  const std::vector<int> devices = detail::suite_run::devices_of(o, io);
  std::vector<std::optional<int>> device_list;
  if (devices.empty()) device_list.push_back(std::nullopt);
  for (int d : devices) device_list.emplace_back(d);

  // The product of the axes (times the devices) is bounded before anything is planned: 10^5
  // values on each of two axes would be 10^10 points.
  for (std::size_t bi = 0; bi < registry.benchmarks().size(); ++bi) {
    double product = static_cast<double>(device_list.size());
    std::string sizes;
    for (const auto& a : axes[bi]) {
      product *= static_cast<double>(a.values.size());
      sizes += (sizes.empty() ? "" : " x ") + std::to_string(a.values.size()) + " (" + a.name + ")";
    }
    if (product > static_cast<double>(detail::max_points))
      throw UsageError("benchmark '" + registry.benchmarks()[bi]->name() + "' would have " + fmt::format("{:.3g}", product) +
                       " points (" + sizes + (device_list.size() > 1 ? " x " + std::to_string(device_list.size()) + " devices" : "") +
                       "), more than " + std::to_string(detail::max_points) + ": narrow its axes with --axis");
  }
  std::vector<PlannedPoint> out;
  for (std::size_t bi = 0; bi < registry.benchmarks().size(); ++bi) {
    const Benchmark& b = *registry.benchmarks()[bi];
    const std::vector<Axis>& list = axes[bi];
    std::vector<std::size_t> idx(list.size(), 0);  // odometer: the last axis varies fastest
    for (bool more = true; more;) {
      for (const auto& device : device_list) {
        PlannedPoint p;
        p.benchmark = &b;
        p.device = device;
        p.device_dimension = device_list.size() > 1;
        p.label = b.name();
        for (std::size_t i = 0; i < list.size(); ++i) {
          p.values.emplace_back(list[i].name, list[i].values[idx[i]]);
          p.label += "/" + list[i].name + "=" + gauge::to_string(list[i].values[idx[i]]);
        }
        if (p.device_dimension) p.label += "/device=" + std::to_string(*device);
        if (p.label.size() > detail::max_label_bytes)
          throw UsageError(fmt::format("benchmark '{}': the point '{}...' has a label of {} bytes, more than {}: shorten "
                                       "its name or axis values", b.name(), p.label.substr(0, 60), p.label.size(),
                                       detail::max_label_bytes));
        if (!filter || std::regex_search(p.label, *filter)) out.push_back(std::move(p));
      }
      more = false;
      for (std::size_t i = list.size(); i-- > 0;) {
        if (++idx[i] < list[i].values.size()) {
          more = true;
          break;
        }
        idx[i] = 0;
      }
    }
  }
  return out;
}
}  // namespace suite

}  // namespace gauge

#endif  // !defined(__CUDA_ARCH__) && !defined(GAUGE_LINKS_SUITE_IMPLEMENTATION)
