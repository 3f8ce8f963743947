// gauge's Python module (gauge._gauge), bound with nanobind: the protocol (Experiment.run on the
// CUDA backend through cuda_run.cu, or on the host backend here), the report, the reader, the
// comparison and the test checks. The Python package (python/gauge/__init__.py) is the public
// surface; this module's names start with an underscore where the package wraps them.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <gauge/backends/host_backend.hpp>
#include <gauge/experiment.hpp>
#include <gauge/report.hpp>
#include <gauge/report/checks.hpp>
#include <gauge/report/compare.hpp>
#include <gauge/report/json.hpp>
#include <gauge/report/read.hpp>
#include <gauge/report/serial.hpp>
#include <gauge/timer.hpp>
#include <gauge/version.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "settings.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace gauge::python {
namespace {

/// A stream gauge hands a Python step: its handle, and `__cuda_stream__` (the CUDA stream
/// protocol: (version 0, handle)) so that torch.cuda.ExternalStream, CuPy and cuda.core take it.
struct Stream {
  std::uintptr_t handle = 0;
};

/// Unknown keys of `user` (a config patch) against `known` (the default Config's JSON), as
/// dotted paths.
void unknown_keys(const nlohmann::json& user, const nlohmann::json& known, const std::string& prefix,
                  std::vector<std::string>& out) {
  for (auto it = user.begin(); it != user.end(); ++it) {
    const std::string path = prefix.empty() ? it.key() : prefix + "." + it.key();
    const auto k = known.find(it.key());
    if (k == known.end()) out.push_back(path);
    else if (it->is_object() && k->is_object()) unknown_keys(*it, *k, path, out);
  }
}

/// The Config that `patch_text` (JSON: the report's `config` keys, e.g.
/// {"measure": {"max_time_s": 2}}) makes of the defaults. \throws ConfigError naming an unknown
/// key or a value of the wrong type.
Config config_from_patch(const std::string& patch_text) {
  Config c;
  if (patch_text.empty()) return c;
  nlohmann::json patch;
  try {
    patch = nlohmann::json::parse(patch_text);
  } catch (const std::exception& e) {
    throw ConfigError(std::string("config: not JSON: ") + e.what());
  }
  if (!patch.is_object()) throw ConfigError("config: expected a dict of the report's config keys, e.g. {\"measure\": {\"max_time_s\": 2}}");
  nlohmann::json j = c;
  std::vector<std::string> unknown;
  unknown_keys(patch, j, "", unknown);
  if (!unknown.empty()) {
    std::string known;
    for (auto it = j.begin(); it != j.end(); ++it) known += (known.empty() ? "" : ", ") + it.key();
    throw ConfigError("config: unknown key \"" + unknown.front() + "\" (the report's config keys: " + known + ")");
  }
  j.merge_patch(patch);
  try {
    serial::decode(j, c, serial::Mode::strict);
  } catch (const std::exception& e) {
    throw ConfigError(std::string("config: ") + e.what());
  }
  return c;
}

/// One declared experiment, as the Python package passes it.
struct Declared {
  std::string name;
  std::vector<std::pair<std::string, std::int64_t>> int_dimensions;
  std::vector<std::pair<std::string, double>> float_dimensions;
  std::vector<std::pair<std::string, std::string>> string_dimensions;
  std::vector<std::pair<std::string, bool>> bool_dimensions;
  std::optional<double> flop, bytes;
  std::vector<std::pair<std::string, double>> items;
  std::string config_json;
  bool cold_cache = false, graph = false, synchronizes_host = false;
};

Settings settings_of(const Declared& d) {
  Settings s;
  s.name = d.name;
  for (const auto& [k, v] : d.int_dimensions) s.dimensions[k] = detail::to_dimension_value(v);
  for (const auto& [k, v] : d.float_dimensions) s.dimensions[k] = detail::to_dimension_value(v);
  for (const auto& [k, v] : d.string_dimensions) s.dimensions[k] = detail::to_dimension_value(v);
  for (const auto& [k, v] : d.bool_dimensions) s.dimensions[k] = detail::to_dimension_value(v);
  s.flop = d.flop;
  s.bytes = d.bytes;
  s.items = d.items;
  s.config = config_from_patch(d.config_json);
  s.cold_cache = d.cold_cache;
  s.graph = d.graph;
  s.synchronizes_host = d.synchronizes_host;
  return s;
}

/// Calls a Python callable from inside the protocol. A Python exception becomes a C++ exception
/// whose text is Python's traceback (nb::python_error), so the protocol reports the step failed
/// with it; a KeyboardInterrupt is remembered and raised again once run() has returned.
struct PythonCall {
  nb::object fn;
  std::shared_ptr<bool> interrupted;

  template <class... A>
  nb::object operator()(A&&... args) const {
    try {
      return fn(std::forward<A>(args)...);
    } catch (nb::python_error& e) {
      if (e.matches(PyExc_KeyboardInterrupt)) *interrupted = true;
      throw;
    }
  }
};

/// The step (or setup) of a CUDA experiment: `fn(Stream)`, one Stream object per handle.
std::function<void(std::uintptr_t)> stream_callable(PythonCall call) {
  auto streams = std::make_shared<std::map<std::uintptr_t, nb::object>>();
  return [call = std::move(call), streams](std::uintptr_t handle) {
    auto it = streams->find(handle);
    if (it == streams->end()) it = streams->emplace(handle, nb::cast(Stream{handle})).first;
    call(it->second);
  };
}

/// The host time of one call from gauge's protocol into Python, seconds: the median of 11 batches of
/// 100 calls of an empty Python function (a lambda) through the same path a step takes (std::function -> PythonCall ->
/// the interpreter, one argument), measured in this process just before the run. It is the floor
/// of what calling a Python step costs per step, before the step's own work.
double python_call_seconds() {
  // An empty Python function of one argument: the call and its frame, nothing of a body.
  nb::object noop = nb::module_::import_("builtins").attr("eval")("lambda stream: None");
  PythonCall call{noop, std::make_shared<bool>(false)};
  std::function<void(std::uintptr_t)> through = stream_callable(call);
  for (int i = 0; i < 20; ++i) through(1);
  // 11 batches of 100 calls, each timed as a whole (the clock read costs as much as the call).
  std::vector<double> t;
  for (int b = 0; b < 11; ++b) {
    const auto a = std::chrono::steady_clock::now();
    for (int i = 0; i < 100; ++i) through(1);
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count() / 100);
  }
  std::nth_element(t.begin(), t.begin() + 5, t.end());
  return t[5];
}

/// Runs a declared experiment: backend "cuda" or "host" (the package resolves "auto").
Result run(const Declared& d, nb::object step, nb::object setup, nb::object verify, const std::string& backend,
           std::optional<std::uintptr_t> stream) {
  const Settings s = settings_of(d);
  auto interrupted = std::make_shared<bool>(false);
  PythonCall step_call{step, interrupted};
  std::function<bool()> verify_fn;
  if (!verify.is_none())
    verify_fn = [call = PythonCall{verify, interrupted}]() { return nb::cast<bool>(call()); };
  Result r;
  if (backend == "cuda") {
#if GAUGE_PYTHON_HAS_CUDA
    std::function<void(std::uintptr_t)> setup_fn;
    if (!setup.is_none()) setup_fn = stream_callable(PythonCall{setup, interrupted});
    r = run_on_cuda(s, stream_callable(step_call), setup_fn, verify_fn, stream);
#else
    throw ConfigError("backend \"cuda\": this build of gauge's Python package has no CUDA backend (built without nvcc)");
#endif
  } else if (backend == "host") {
    if (stream) throw ConfigError("stream: the host backend has no streams");
    auto e = make_experiment<HostBackend>(s.name, std::function<void(HostStream)>([step_call](HostStream) { step_call(nb::none()); }));
    apply(e, s);
    if (!setup.is_none())
      e.setup([call = PythonCall{setup, interrupted}](HostStream) { call(nb::none()); });
    if (verify_fn) e.verify(verify_fn);
    r = e.run();
  } else {
    throw ConfigError("backend: expected \"auto\", \"cuda\" or \"host\", got \"" + backend + "\"");
  }
  if (*interrupted) {  // Ctrl-C in a step: the run is over (failed); raise it in the caller too
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw nb::python_error();
  }
  return r;
}

/// gauge::Timer on either backend: the CUDA one records events on the training loop's stream,
/// the host one reads the steady clock.
class PyTimer {
 public:
  PyTimer(const std::string& name, const std::string& backend, std::optional<std::uintptr_t> stream, const TimerConfig& config) {
    if (backend == "cuda") {
#if GAUGE_PYTHON_HAS_CUDA
      cuda_ = std::make_unique<Timer<CudaTimerBackend>>(
          name, CudaTimerBackend(reinterpret_cast<cudaStream_t>(stream.value_or(0))), config);
#else
      throw ConfigError("Timer backend \"cuda\": this build of gauge's Python package has no CUDA backend");
#endif
    } else if (backend == "host") {
      if (stream) throw ConfigError("Timer: the host backend has no streams");
      host_ = std::make_unique<Timer<HostTimerBackend>>(name, HostTimerBackend{}, config);
    } else {
      throw ConfigError("Timer backend: expected \"cuda\" or \"host\", got \"" + backend + "\"");
    }
  }
  template <class F>
  decltype(auto) with(F&& f) {
#if GAUGE_PYTHON_HAS_CUDA
    if (cuda_) return f(*cuda_);
#endif
    return f(*host_);
  }
  std::uint32_t region(const std::string& name, int level) {
    return with([&](auto& t) { return store(t.region(name, level)); });
  }
  void start(std::uint32_t r) { with([&](auto& t) { t.start(regions_.at(r)); }); }
  void stop(std::uint32_t r) { with([&](auto& t) { t.stop(regions_.at(r)); }); }
  void phase(std::uint32_t r) { with([&](auto& t) { t.phase(regions_.at(r)); }); }
  void step(std::optional<double> tokens, std::optional<double> samples, std::optional<double> flop, std::optional<double> bytes) {
    StepWork w;
    if (tokens) w.tokens(*tokens);
    if (samples) w.samples(*samples);
    if (flop) w.flop(*flop);
    if (bytes) w.bytes(*bytes);
    with([&](auto& t) { t.step(w); });
  }
  std::size_t poll() { return with([](auto& t) { return t.poll(); }); }
  void flush() { with([](auto& t) { t.flush(); }); }
  TimerSummary summary() { return with([](auto& t) { return t.summary(); }); }
  TimerSummary finish() { return with([](auto& t) { return t.finish(); }); }

 private:
  std::uint32_t store(TimerRegion r) {
    regions_.push_back(r);
    return static_cast<std::uint32_t>(regions_.size() - 1);
  }
#if GAUGE_PYTHON_HAS_CUDA
  std::unique_ptr<Timer<CudaTimerBackend>> cuda_;
#endif
  std::unique_ptr<Timer<HostTimerBackend>> host_;
  std::vector<TimerRegion> regions_;
};

std::string json_of(const Result& r) {
  nlohmann::json j = r;
  return j.dump();
}

CompareOptions options_from(double threshold, double confidence_level, const std::string& metric,
                            const std::vector<std::string>& ignore_dimensions, const std::string& clock,
                            const std::string& multiplicity, double run_spread, double clock_tolerance,
                            std::size_t resamples, std::uint64_t seed) {
  CompareOptions o;
  o.threshold = threshold;
  o.confidence_level = confidence_level;
  if (metric == "gpu_time" || metric == "gpu" || metric == "time") o.metric = Metric::gpu_time;
  else if (metric == "wall_time" || metric == "wall") o.metric = Metric::wall_time;
  else if (metric == "cpu_time" || metric == "cpu") o.metric = Metric::cpu_time;
  else throw ConfigError("metric: expected \"gpu_time\" (\"time\"), \"wall_time\" or \"cpu_time\", got \"" + metric + "\"");
  o.ignored_dimensions = std::set<std::string>(ignore_dimensions.begin(), ignore_dimensions.end());
  if (clock == "auto") o.clock_normalization = compare::ClockNormalization::automatic;
  else if (clock == "cycles") o.clock_normalization = compare::ClockNormalization::sm_cycles;
  else if (clock == "time") o.clock_normalization = compare::ClockNormalization::time;
  else throw ConfigError("clock: expected \"auto\", \"cycles\" or \"time\", got \"" + clock + "\"");
  if (multiplicity == "fdr") o.multiplicity = compare::Multiplicity::fdr;
  else if (multiplicity == "fwer") o.multiplicity = compare::Multiplicity::fwer;
  else if (multiplicity == "none") o.multiplicity = compare::Multiplicity::none;
  else throw ConfigError("multiplicity: expected \"fdr\", \"fwer\" or \"none\", got \"" + multiplicity + "\"");
  o.run_spread = run_spread;
  o.clock_tolerance = clock_tolerance;
  o.resamples = resamples;
  o.seed = seed;
  validate(o);
  return o;
}

}  // namespace
}  // namespace gauge::python

NB_MODULE(_gauge, m) {
  using namespace gauge;
  using namespace gauge::python;
  m.doc() = "gauge's C++ core (the Python package gauge wraps it)";
  m.attr("version") = gauge::version_string;
#if GAUGE_PYTHON_HAS_CUDA
  m.attr("has_cuda") = true;
#else
  m.attr("has_cuda") = false;
#endif

  nb::exception<ConfigError>(m, "ConfigError", PyExc_ValueError);
  nb::exception<ReportError>(m, "ReportError", PyExc_OSError);

  m.def("cuda_available", []() -> std::pair<bool, std::string> {
#if GAUGE_PYTHON_HAS_CUDA
    std::string why;
    const bool ok = cuda_device_available(why);
    return {ok, why};
#else
    return {false, "this build of gauge's Python package has no CUDA backend (built without nvcc)"};
#endif
  });

  nb::class_<Stream>(m, "Stream", "A CUDA stream gauge hands a step: `handle` (cudaStream_t as an int) and `__cuda_stream__`.")
      .def_ro("handle", &Stream::handle, "cudaStream_t as an integer")
      .def("__cuda_stream__", [](const Stream& s) { return std::make_pair(0, s.handle); },
           "The CUDA stream protocol: (0, handle), for torch.cuda.ExternalStream, CuPy and cuda.core")
      .def("__int__", [](const Stream& s) { return s.handle; })
      .def("__repr__", [](const Stream& s) { return "gauge.Stream(handle=" + std::to_string(s.handle) + ")"; });

  nb::class_<Declared>(m, "_Declared")
      .def(nb::init<>())
      .def_rw("name", &Declared::name)
      .def_rw("int_dimensions", &Declared::int_dimensions)
      .def_rw("float_dimensions", &Declared::float_dimensions)
      .def_rw("string_dimensions", &Declared::string_dimensions)
      .def_rw("bool_dimensions", &Declared::bool_dimensions)
      .def_rw("flop", &Declared::flop)
      .def_rw("bytes", &Declared::bytes)
      .def_rw("items", &Declared::items)
      .def_rw("config_json", &Declared::config_json)
      .def_rw("cold_cache", &Declared::cold_cache)
      .def_rw("graph", &Declared::graph)
      .def_rw("synchronizes_host", &Declared::synchronizes_host);

  m.def("_default_config_json", []() {
    nlohmann::json j = Config{};
    return j.dump();
  });
  m.def("_check_config", [](const std::string& patch) { (void)config_from_patch(patch); }, "patch"_a);

  nb::class_<Result>(m, "_Result")
      .def("json", &json_of)
      .def_prop_ro("name", [](const Result& r) { return r.name; })
      .def_prop_ro("ok", [](const Result& r) { return r.status == Status::ok; });

  m.def("_result_from_json", [](const std::string& text) {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(text);
    } catch (const std::exception& e) {
      throw ReportError(std::string("Result.from_dict: not JSON: ") + e.what());
    }
    Result r;
    serial::decode(j, r, serial::Mode::strict);
    return r;
  }, "text"_a);
  m.def("_run", &run, "declared"_a, "step"_a, "setup"_a.none(), "verify"_a.none(), "backend"_a, "stream"_a.none());
  m.def("_python_call_seconds", &python_call_seconds);

  nb::class_<Report>(m, "_Report")
      .def(nb::init<std::string>(), "path"_a)
      .def("add", [](Report& r, const Result& result) { r.add(result); }, "result"_a)
      .def("add_timer", [](Report& r, const TimerSummary& t) { r.add(t); }, "timer"_a)
      .def("write", &Report::write)
      .def("summary", &Report::summary)
      .def("json", &Report::json_text, "indent"_a = 2)
      .def_prop_ro("path", &Report::path)
      .def_prop_ro("results", [](const Report& r) { return r.results(); });

  nb::class_<TimerConfig>(m, "TimerConfig", "The Timer's settings (gauge::TimerConfig)")
      .def(nb::init<>())
      .def_rw("warmup_steps", &TimerConfig::warmup_steps, "steps left out of the statistics at the start")
      .def_rw("window", &TimerConfig::window, "steps in the rolling window")
      .def_rw("log_every", &TimerConfig::log_every, "log every this many resolved steps after warm-up; 0: never")
      .def_rw("level", &TimerConfig::level, "regions above this level are no-ops (-1 .. 2)")
      .def_rw("max_pending_steps", &TimerConfig::max_pending_steps, "steps in flight before the Timer waits (counted)")
      .def_rw("confidence_level", &TimerConfig::confidence_level)
      .def_rw("peak_flop_per_s", &TimerConfig::peak_flop_per_s, "the peak FLOP/s MFU divides by; None: no MFU")
      .def_rw("peak_source", &TimerConfig::peak_source);
  nb::class_<TimerSummary>(m, "_TimerSummary")
      .def("json", [](const TimerSummary& t) {
        nlohmann::json j = t;
        return j.dump();
      })
      .def("text", [](const TimerSummary& t) { return gauge::detail::timer_summary_text(t); });
  nb::class_<PyTimer>(m, "_Timer")
      .def(nb::init<const std::string&, const std::string&, std::optional<std::uintptr_t>, const TimerConfig&>(), "name"_a,
           "backend"_a, "stream"_a.none(), "config"_a)
      .def("region", &PyTimer::region, "name"_a, "level"_a)
      .def("start", &PyTimer::start)
      .def("stop", &PyTimer::stop)
      .def("phase", &PyTimer::phase)
      .def("step", &PyTimer::step, "tokens"_a.none(), "samples"_a.none(), "flop"_a.none(), "bytes"_a.none())
      .def("poll", &PyTimer::poll)
      .def("flush", &PyTimer::flush)
      .def("summary", &PyTimer::summary)
      .def("finish", &PyTimer::finish);

  nb::class_<StoredReport>(m, "_StoredReport")
      .def_ro("source", &StoredReport::source)
      .def_ro("results", &StoredReport::results)
      .def("json", [](const StoredReport& s) { return s.document.dump(); });
  m.def("_read_report", [](const std::string& path) { return read_report(path); }, "path"_a);
  m.def("_parse_report", [](const std::string& text, const std::string& source) { return parse_report(text, source); },
        "text"_a, "source"_a);
  m.def("_stored_from_report", [](const Report& r) {
    StoredReport s;
    s.source = r.path();
    s.environment = r.environment();
    s.results = r.results();
    s.timers = r.timers();
    s.document = nlohmann::json::parse(r.json_text(0));
    return s;
  });
  m.def("_stored_from_results", [](const std::vector<Result>& results, const std::string& source) {
    StoredReport s;
    s.source = source;
    s.results = results;
    return s;
  });

  nb::class_<Comparison>(m, "_Comparison")
      .def("json", [](const Comparison& c) {
        nlohmann::json j = c;
        return j.dump();
      })
      .def("text", [](const Comparison& c) { return compare::to_text(c); })
      .def("markdown", [](const Comparison& c) { return compare::to_markdown(c); })
      .def("gate", [](const Comparison& c, bool allow_not_comparable, bool allow_inconclusive) {
        return std::string(to_string(gauge::compare::gate(c, allow_not_comparable, allow_inconclusive)));
      }, "allow_not_comparable"_a = false, "allow_inconclusive"_a = false);
  m.def("_compare", [](const std::vector<StoredReport>& base, const std::vector<StoredReport>& candidate, double threshold,
                       double confidence_level, const std::string& metric, const std::vector<std::string>& ignore_dimensions,
                       const std::string& clock, const std::string& multiplicity, double run_spread, double clock_tolerance,
                       std::size_t resamples, std::uint64_t seed) {
    const CompareOptions o = options_from(threshold, confidence_level, metric, ignore_dimensions, clock, multiplicity,
                                          run_spread, clock_tolerance, resamples, seed);
    return compare_reports(base, candidate, o);
  });

  m.def("_no_slower_than", [](const std::vector<Result>& baselines, const Result& result, double tolerance, double confidence_level,
                              const std::string& metric, bool allow_other_device) {
    detail::checks::validate_no_slower_than(baselines, tolerance);
    CompareOptions o = options_from(0.02, confidence_level, metric, {}, "auto", "fdr", 0, 0.05, CompareOptions{}.resamples,
                                    CompareOptions{}.seed);
    const auto outcome = detail::checks::no_slower_than(baselines, result, tolerance, o, allow_other_device);
    return std::make_pair(outcome.ok, outcome.text);
  });
  m.def("_throughput_at_least", [](const Result& result, double floor, const std::string& quantity, double confidence_level,
                                   const std::string& metric) {
    detail::checks::validate_throughput_floor(floor);
    detail::check_level("throughput_at_least", confidence_level);
    const CompareOptions o = options_from(0.02, 0.95, metric, {}, "auto", "fdr", 0, 0.05, CompareOptions{}.resamples,
                                          CompareOptions{}.seed);
    const auto outcome = detail::checks::throughput_at_least(result, floor, quantity, confidence_level, o.metric);
    return std::make_pair(outcome.ok, outcome.text);
  });
}
