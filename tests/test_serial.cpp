// One description per serialized type (gauge/report/fields.hpp): a report with every feature
// reads back equal; every member of Config, Result and TimerSummary is written, under the key
// written down here from reading the structs; the schema file covers exactly the keys and types of
// the description; older reports (schema 1.0, 1.1) still read; errors name the key path.
// Expected values are the hand-set numbers of tests/full_report.hpp, never output of the code
// under test.

#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "catch.hpp"
#include "full_report.hpp"
#include "test_helpers.hpp"
#include "gauge/backends/host_backend.hpp"
#include "gauge/report/compare.hpp"
#include "gauge/report/json.hpp"
#include "gauge/report/read.hpp"
#include "gauge/report/serial.hpp"
#include "gauge/report/timer_json.hpp"

// This file's own namespace: the unity build compiles several test files as one.
namespace gauge_test_serial {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path data_dir = GAUGE_TEST_DATA_DIR;
const fs::path source_dir = data_dir.parent_path().parent_path();

json load(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return json::parse(ss.str());
}

/// The full report of tests/full_report.hpp as gauge writes it.
json full_document() {
  using namespace gauge::testing;
  return gauge::detail::report_json(document(full_environment(), {full_result(), failed_host_result()}, {full_timer()},
                                              "2026-11-30T13:58:08Z"));
}

// ---- completeness: every member written, at its key --------------------------------------------

// A different value of a member, of any type the report holds. Structs: their first member (each
// of these structs has its own keys; a struct member is "written" when a change inside shows).
template <class T> struct is_vec : std::false_type {};
template <class T> struct is_vec<std::vector<T>> : std::true_type {};
template <class T> struct is_opt : std::false_type {};
template <class T> struct is_opt<std::optional<T>> : std::true_type {};
template <class T> struct is_map : std::false_type {};
template <class K, class V> struct is_map<std::map<K, V>> : std::true_type {};

template <class T> void perturb(T& x);
void perturb(gauge::WarmupConfig& x) { perturb(x.min_steps); }
void perturb(gauge::MeasureConfig& x) { perturb(x.min_samples); }
void perturb(gauge::Config& x) { perturb(x.device); }
void perturb(gauge::Work& x) { perturb(x.flop); }
void perturb(gauge::records::DeviceRecord& x) { perturb(x.ordinal); }
void perturb(gauge::records::WarmupRecord& x) { perturb(x.steps); }
void perturb(gauge::records::SamplingRecord& x) { perturb(x.rounds); }
void perturb(gauge::records::StoppingRecord& x) { perturb(x.reason); }
void perturb(gauge::records::StreamsRecord& x) { perturb(x.scope); }
void perturb(gauge::records::ClockRecord& x) { perturb(x.source); }
void perturb(gauge::records::CpuCountersRecord& x) { perturb(x.status); }
void perturb(gauge::Summary& x) { perturb(x.n); }
void perturb(gauge::Throughput& x) { perturb(x.flop_per_second); }
void perturb(gauge::records::TelemetryRecord& x) { perturb(x.available); }
void perturb(gauge::records::MemoryRecord& x) { perturb(x.peak_source); }
void perturb(gauge::records::KernelTraceRecord& x) { perturb(x.status); }
void perturb(gauge::records::PeaksRecord& x) { perturb(x.status); }
void perturb(gauge::records::TimerKernelTrace& x) { perturb(x.status); }
void perturb(gauge::TimerConfig& x) { perturb(x.window); }
void perturb(gauge::records::TimerCounters& x) { perturb(x.steps); }
void perturb(gauge::records::TimerStepWindow& x) { perturb(x.steps); }
void perturb(gauge::records::TimerStepTotal& x) { perturb(x.steps); }

template <class T>
void perturb(T& x) {
  if constexpr (std::is_same_v<T, bool>) {
    x = !x;
  } else if constexpr (std::is_enum_v<T>) {
    x = static_cast<T>(static_cast<int>(x) + 1);  // every enum here has at least two values
  } else if constexpr (std::is_integral_v<T>) {
    x = static_cast<T>(x + 1);
  } else if constexpr (std::is_floating_point_v<T>) {
    x = std::isfinite(x) ? 2 * x + 1 : 1;
  } else if constexpr (std::is_same_v<T, gauge::Nanoseconds>) {
    x += 1ms;
  } else if constexpr (std::is_same_v<T, std::string>) {
    x += "~";
  } else if constexpr (is_opt<T>::value) {
    if (x) perturb(*x);
    else x.emplace();
  } else if constexpr (is_vec<T>::value) {
    x.emplace_back();
  } else if constexpr (std::is_same_v<T, std::set<std::string>>) {
    x.insert("~");
  } else if constexpr (is_map<T>::value) {
    x["~"];
  } else {
    static_assert(sizeof(T) == 0, "perturb: add an overload for this member type");
  }
}

/// The members of `T` whose change does not change the JSON at their key: for each member (in
/// declaration order, from `bind`: a structured binding of all of them, so a member added to `T`
/// fails to compile here until it is listed) a default `T` is written, then one with that member
/// changed; the value at its JSON pointer `pointers[i]` must appear or change. A list in the wrong
/// order fails too (a member changes another's key, not its own).
///
/// Limits: a structured binding sees the direct data members of a class without bases (Config,
/// Result and TimerSummary are such aggregates); the count of members is checked by the compiler,
/// without sizeof, but only where a binding is written. It shows that each member is written at
/// its key, not that it reads back unchanged (the round-trip test does), and a member whose change
/// does not show in JSON by design (none today) would need a perturbation of its own.
template <class T, class Bind, std::size_t... I>
std::vector<std::string> unwritten_members(const std::vector<std::string>& pointers, Bind bind, std::index_sequence<I...>) {
  std::vector<std::string> unwritten;
  const json before = T{};
  auto check = [&](auto index) {
    constexpr std::size_t i = decltype(index)::value;
    T changed{};
    perturb(std::get<i>(bind(changed)));
    const json after = changed;
    const json::json_pointer p(pointers.at(i));
    if (!after.contains(p) || (before.contains(p) && before.at(p) == after.at(p))) unwritten.push_back(pointers[i]);
  };
  (check(std::integral_constant<std::size_t, I>{}), ...);
  return unwritten;
}
template <class T, class Bind>
std::vector<std::string> unwritten_members(const std::vector<std::string>& pointers, Bind bind) {
  constexpr std::size_t n = std::tuple_size_v<decltype(bind(std::declval<T&>()))>;
  REQUIRE(pointers.size() == n);  // one key per member
  return unwritten_members<T>(pointers, bind, std::make_index_sequence<n>{});
}

/// The top-level keys of the first component of each pointer ("/throughput/gpu" → "throughput").
std::set<std::string> top_keys(const std::vector<std::string>& pointers) {
  std::set<std::string> keys;
  for (const auto& p : pointers) keys.insert(p.substr(1, p.find('/', 1) - 1));
  return keys;
}
/// `pointers`, each below `prefix`.
std::vector<std::string> under(const std::string& prefix, std::vector<std::string> pointers) {
  for (auto& p : pointers) p = prefix + p;
  return pointers;
}
std::set<std::string> keys_of(const json& object) {
  std::set<std::string> keys;
  for (auto it = object.begin(); it != object.end(); ++it) keys.insert(it.key());
  return keys;
}

// Written down from reading the structs (core/config.hpp, core/result.hpp, core/timer_summary.hpp),
// in declaration order: each member's JSON pointer in the object gauge writes.
const std::vector<std::string> config_keys = {
    "/warmup", "/measure", "/device", "/silenced_warnings", "/max_samples_in_report",
    "/telemetry_interval_s", "/memory_growth_tolerance_bytes", "/sm_clock_warning_fraction",
    "/trace_kernels"};
const std::vector<std::string> warmup_config_keys = {"/min_steps",    "/min_time_s", "/max_steps",      "/max_time_s",
                                                     "/round_time_s", "/window",     "/drift_tolerance"};
const std::vector<std::string> measure_config_keys = {
    "/min_samples",         "/max_samples",         "/min_time_s",          "/max_time_s",
    "/target_relative_ci_width", "/confidence_level", "/round_time_s",      "/max_steps_per_round",
    "/steps_per_sample",    "/event_overhead_budget_s", "/max_sample_time_s", "/gate_timeout_s",
    "/wall_round_fraction", "/cache",               "/gpu_timing",          "/streams"};
const std::vector<std::string> result_keys = {
    "/name", "/dimensions", "/work", "/config", "/backend", "/time_label", "/time_clock", "/device", "/status",
    "/error", "/repetition", "/warmup", "/sampling", "/stopping", "/streams", "/gpu_time_s", "/wall_time_s", "/cpu_time_s", "/cpu_counters", "/throughput/gpu",
    "/throughput/wall", "/host_overhead_per_step_s", "/gpu_busy_fraction", "/clock", "/telemetry", "/memory", "/kernels", "/kernel_trace",
    "/peaks", "/samples/gpu_time_per_step_s", "/samples/wall_time_per_step_s", "/samples/cpu_time_per_step_s", "/warnings", "/total_time_s"};
const std::vector<std::string> timer_summary_keys = {"/name",     "/backend", "/config", "/final", "/timer_resolution_s",
                                                     "/counters", "/window",  "/total",  "/regions", "/warnings",
                                                     "/kernel_trace"};
const std::vector<std::string> timer_config_keys = {"/warmup_steps", "/window", "/log_every", "/level",
                                                    "/max_pending_steps", "/confidence_level", "/peak_flop_per_s",
                                                    "/peak_source", "/trace_kernels"};

// ---- the schema's coverage ---------------------------------------------------------------------

/// A JSON Schema node reduced to what the comparison looks at.
struct Shape {
  std::set<std::string> types;               ///< JSON types allowed ("integer" apart from "number")
  std::optional<std::set<std::string>> values;  ///< enum / const values (dumped)
  const json* properties = nullptr;
  std::set<std::string> required;
  const json* additional = nullptr;          ///< additionalProperties
  const json* items = nullptr;
};

std::string type_of(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "boolean";
  if (v.is_number_integer()) return "integer";
  if (v.is_number()) return "number";
  if (v.is_string()) return "string";
  return v.is_array() ? "array" : "object";
}

Shape shape_of(const json& node, const json& root) {
  if (node.contains("$ref")) {
    const std::string ref = node["$ref"].get<std::string>();
    REQUIRE(ref.rfind("#/", 0) == 0);
    return shape_of(root.at(json::json_pointer(ref.substr(1))), root);
  }
  Shape s;
  for (const char* any : {"oneOf", "anyOf"})
    if (node.contains(any)) {
      for (const auto& alternative : node[any]) {
        const Shape a = shape_of(alternative, root);
        s.types.insert(a.types.begin(), a.types.end());
        if (a.properties) s.properties = a.properties;
        if (!a.required.empty()) s.required = a.required;
        if (a.additional) s.additional = a.additional;
        if (a.items) s.items = a.items;
      }
      return s;
    }
  if (node.contains("const") || node.contains("enum")) {
    s.values.emplace();
    const json values = node.contains("const") ? json::array({node["const"]}) : node["enum"];
    for (const auto& v : values) {
      s.types.insert(type_of(v));
      s.values->insert(v.dump());
    }
  }
  if (node.contains("type")) {
    s.types.clear();
    if (node["type"].is_string()) s.types.insert(node["type"].get<std::string>());
    else
      for (const auto& t : node["type"]) s.types.insert(t.get<std::string>());
  }
  if (node.contains("properties")) s.properties = &node["properties"];
  if (node.contains("required"))
    for (const auto& k : node["required"]) s.required.insert(k.get<std::string>());
  if (node.contains("additionalProperties") && node["additionalProperties"].is_object()) s.additional = &node["additionalProperties"];
  if (node.contains("items")) s.items = &node["items"];
  return s;
}

std::string join(const std::set<std::string>& v) {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : ", ") + x;
  return "{" + out + "}";
}

/// Every difference between what gauge's description says (`derived`, from
/// serial::collect_schema) and what the schema file says (`schema`), one line each: keys on one
/// side only, required keys, JSON types, enum values, and keys added after 1.0 whose description
/// does not say "(schema 1.N".
void compare_schemas(const json& derived, const json& droot, const json& schema, const json& sroot, const std::string& path,
                     std::vector<std::string>& out) {
  const Shape d = shape_of(derived, droot);
  const Shape s = shape_of(schema, sroot);
  const std::string at = path.empty() ? "(top)" : path;
  if (d.types != s.types) out.push_back(at + ": gauge writes " + join(d.types) + ", the schema allows " + join(s.types));
  if (d.values && d.values != s.values)
    out.push_back(at + ": gauge writes one of " + join(*d.values) + ", the schema allows " + (s.values ? join(*s.values) : "any"));
  if (d.properties) {
    if (!s.properties) {
      out.push_back(at + ": the schema lists no properties");
    } else {
      for (auto it = d.properties->begin(); it != d.properties->end(); ++it) {
        const std::string key = it.key();
        const std::string sub = path.empty() ? key : path + "." + key;
        if (!s.properties->contains(key)) {
          out.push_back(sub + ": gauge writes this key, the schema does not describe it");
          continue;
        }
        const json& in_schema = (*s.properties)[key];
        if (it->contains("x-since")) {
          const std::string since = "(schema " + (*it)["x-since"].get<std::string>();
          if (in_schema.value("description", "").find(since) == std::string::npos)
            out.push_back(sub + ": added by " + since.substr(1) + ", but its description does not say \"" + since + "\"");
        }
        compare_schemas(*it, droot, in_schema, sroot, sub, out);
      }
      for (auto it = s.properties->begin(); it != s.properties->end(); ++it)
        if (!d.properties->contains(it.key()))
          out.push_back((path.empty() ? "" : path + ".") + it.key() + ": the schema describes this key, gauge does not write it");
      if (d.required != s.required)
        out.push_back(at + ": gauge requires " + join(d.required) + ", the schema requires " + join(s.required));
    }
  }
  if (d.additional) {
    if (!s.additional) out.push_back(at + ": the schema does not describe the values of this object");
    else compare_schemas(*d.additional, droot, *s.additional, sroot, path + ".*", out);
  }
  if (d.items) {
    if (!s.items) out.push_back(at + ": the schema does not describe the items of this array");
    else compare_schemas(*d.items, droot, *s.items, sroot, path + "[]", out);
  }
}

std::vector<std::string> schema_differences(const json& schema) {
  const json derived = gauge::serial::collect_schema<gauge::StoredReport>();
  std::vector<std::string> out;
  compare_schemas(derived, derived, schema, schema, "", out);
  return out;
}

/// Keys of `doc` that the description does not list, and listed keys `doc` lacks (for a document
/// in which every key is written).
void compare_keys(const json& doc, const json& derived, const json& droot, const std::string& path,
                  std::vector<std::string>& out) {
  const Shape d = shape_of(derived, droot);
  if (doc.is_object() && d.properties) {
    for (auto it = doc.begin(); it != doc.end(); ++it) {
      if (!d.properties->contains(it.key())) out.push_back(path + "." + it.key() + ": written, not described");
      else compare_keys(*it, (*d.properties)[it.key()], droot, path + "." + it.key(), out);
    }
    for (auto it = d.properties->begin(); it != d.properties->end(); ++it)
      if (!doc.contains(it.key())) out.push_back(path + "." + it.key() + ": described, not written");
  } else if (doc.is_object() && d.additional) {
    for (auto it = doc.begin(); it != doc.end(); ++it) compare_keys(*it, *d.additional, droot, path + "." + it.key(), out);
  } else if (doc.is_array() && d.items) {
    for (std::size_t i = 0; i < doc.size(); ++i) compare_keys(doc[i], *d.items, droot, path + "[" + std::to_string(i) + "]", out);
  }
}

}  // namespace

TEST_CASE("serial: a report with every feature reads back equal, field by field", "[serial][report]") {
  const json doc = full_document();
  const std::string text = doc.dump(2);
  CHECK(text.find("NaN") == std::string::npos);
  const gauge::StoredReport back = gauge::parse_report(text, "full.json");

  // Written again from what was read: the same document, key for key, value for value.
  CHECK(gauge::detail::report_json(back) == doc);
  CHECK(back.schema_version == "1.9.0");
  CHECK(back.created_utc == "2026-11-30T13:58:08Z");

  // The typed values, against the numbers set in tests/full_report.hpp.
  REQUIRE(back.results.size() == 2);
  const gauge::Result& r = back.results[0];
  CHECK(r.repetition == std::optional<std::size_t>(2));
  CHECK_FALSE(back.results[1].repetition.has_value());
  const auto& c = r.config;
  CHECK(c.warmup.min_steps == 11);
  CHECK(c.warmup.min_time == 21ms);
  CHECK(c.warmup.max_time == 2500ms);
  CHECK(c.warmup.drift_tolerance == 0.03);
  CHECK(c.measure.max_time == 7s);
  CHECK(c.measure.event_overhead_budget == 75ns);
  CHECK(c.measure.steps_per_sample == 4);
  CHECK(c.measure.cache == gauge::CacheState::cold);
  CHECK(c.measure.gpu_timing == gauge::GpuTiming::graph);
  CHECK(c.device == 1);
  CHECK(c.silenced_warnings == std::set<std::string>{"clocks_not_locked", "outliers"});
  CHECK(c.max_samples_in_report == 1000);
  CHECK(c.telemetry_interval == 15ms);
  CHECK(c.memory_growth_tolerance_bytes == 1099511627776ull);
  CHECK(c.sm_clock_warning_fraction == 0.8);
  CHECK(r.time_label == "GPU time");
  CHECK(r.time_clock == "CUDA events");
  CHECK(std::get<std::int64_t>(r.dimensions.at("M")) == 8192);
  CHECK(std::get<bool>(r.dimensions.at("transposed")));
  CHECK(r.work.items.at("tokens") == 8192.0);
  CHECK(r.device.pci_bus_id == std::optional<std::string>("0000:19:00.0"));
  REQUIRE(r.warmup.curve.size() == 3);
  CHECK(std::isnan(r.warmup.curve[2].time_per_step_s));  // NaN → null → NaN
  CHECK(r.sampling.round_samples == std::vector<std::size_t>{3, 3});
  CHECK(r.sampling.cache == "cold");
  CHECK(r.stopping.relative_ci_width == std::optional<double>(0.02));
  REQUIRE(r.gpu_samples_s.size() == 6);
  CHECK(std::isnan(r.gpu_samples_s[4]));
  CHECK(r.gpu_samples_s[5] == 1.65e-3);
  CHECK(r.gpu_time.n == 5);
  CHECK(r.gpu_time.p50 == std::optional<double>(1.62e-3));  // the median of 1.60 ... 1.65 ms
  CHECK(r.gpu_throughput.items_per_second.at("tokens") == 5.0e6);
  const auto& t = r.telemetry;
  CHECK(t.available);
  CHECK(t.interval_s == 0.015);
  CHECK(t.sm_clock_mhz.mean == std::optional<double>(1700.0));
  CHECK_FALSE(t.temperature_c.max.has_value());
  CHECK(t.throttle_reasons_seen == 0x80000000000ull);
  CHECK(t.throttled_samples == std::vector<std::size_t>{1, 3});
  REQUIRE(t.series.size() == 2);
  CHECK(t.series[0].process_memory_bytes == std::optional<std::uint64_t>(5ull << 30));
  CHECK(t.series[0].clock_event_reasons == std::optional<std::uint64_t>(4));
  CHECK(t.series[1].t_s == 0.315);
  CHECK_FALSE(t.series[1].sm_clock_mhz.has_value());
  const auto& m = r.memory;
  CHECK(m.device_growth_bytes == std::optional<std::int64_t>(-1048576));
  CHECK(m.allocator_peak_bytes.at("torch") == 3ull << 30);
  CHECK(m.fits == std::optional<bool>(false));
  CHECK(m.grew_during_measurement);
  REQUIRE(r.kernels.size() == 2);
  CHECK(r.kernels[1].name == "my_kernel");
  CHECK(r.kernels[1].ptx_version == 80);
  CHECK(r.kernels[1].jit_compiled);
  REQUIRE(r.kernel_trace.has_value());
  const auto& kt = *r.kernel_trace;
  CHECK(kt.status == "traced");
  CHECK(kt.attribution == "external correlation");
  CHECK(kt.steps == 24);
  CHECK(kt.steps_per_unit == 4);
  CHECK(kt.dropped_records == 5000000000ull);
  CHECK(kt.tracing_overhead == std::optional<double>(0.0125));
  CHECK(kt.closure == std::optional<double>(-6.2e-4));
  REQUIRE(kt.kernels.size() == 2);
  CHECK(kt.kernels[0].name == "sm90_xmma_gemm_bf16bf16_bf16f32");
  CHECK(kt.kernels[0].grid == std::vector<int>{132, 1, 1});
  CHECK(kt.kernels[0].dynamic_shared_bytes == 232448);
  CHECK(kt.kernels[0].streams == std::vector<std::uint32_t>{13, 14});
  CHECK(kt.kernels[1].bytes == 1ull << 33);
  CHECK_FALSE(kt.kernels[1].share_of_step.has_value());
  REQUIRE(kt.sample_step.size() == 2);
  CHECK(kt.sample_step[1].start_s == 1.5e-3);
  CHECK(kt.sample_step[1].kind == "memcpy");
  REQUIRE(back.timers.at(0).kernel_trace.has_value());
  const auto& tk = *back.timers[0].kernel_trace;
  CHECK(back.timers[0].config.trace_kernels);
  CHECK(tk.step == std::optional<std::size_t>(110));
  REQUIRE(tk.regions.size() == 2);
  CHECK(tk.regions[0].region == "forward");
  CHECK(tk.regions[0].kernels.at(0).launches == 3);
  CHECK(tk.regions[1].kernel_time_s == 5e-4);
  REQUIRE(r.warnings.size() == 2);
  CHECK(r.warnings[1].severity == gauge::Severity::info);

  const gauge::Result& f = back.results[1];
  CHECK(f.status == gauge::Status::failed);
  CHECK(f.error == std::optional<std::string>("measurement (step 3): cuBLAS said no"));
  CHECK(f.time_label == "real time");
  CHECK(f.time_clock == "host steady clock");
  CHECK(f.device.ordinal == -1);
  CHECK(std::isnan(f.total_time_s));
  CHECK(f.telemetry.unavailable_reason == std::optional<std::string>("the host backend has no telemetry"));

  const gauge::Environment& e = back.environment;
  CHECK(e.host.numa_nodes.size() == 2);
  CHECK(e.host.numa_nodes[0].cpus == std::vector<int>{0, 1, 2});
  CHECK(e.host.virtualization.container == std::optional<std::string>("docker"));
  CHECK(e.compiler.cplusplus == 201703);
  REQUIRE(e.cuda.devices.size() == 1);
  const auto& d = e.cuda.devices[0];
  CHECK(d.compute_capability_major == 9);
  CHECK(d.persisting_l2_max_bytes == 51904512);
  CHECK(d.local_cpulist == std::optional<std::string>("0-31"));
  REQUIRE(d.nvml.has_value());
  CHECK(d.nvml->index == 3);
  CHECK(d.nvml->clock_event_reasons == std::optional<std::uint64_t>(0x8000000000000001ull));  // not negative
  CHECK(d.nvml->clocks_locked == std::optional<bool>(true));
  REQUIRE(d.nvml->processes.size() == 1);
  CHECK(d.nvml->processes[0] == std::pair<unsigned, std::uint64_t>(4242u, 5ull << 30));
  REQUIRE(d.nvml->unavailable.size() == 1);
  CHECK(d.nvml->unavailable[0].second == "Not Supported");
  CHECK(e.nvml.driver_version == std::optional<std::string>("580.159.04"));
  CHECK(e.nvml.device_count == std::optional<unsigned>(8));
  REQUIRE(e.tools.size() == 2);
  CHECK(e.tools[1].first == "nsys");
  CHECK(e.tools[1].second.error == std::optional<std::string>("nsys not found in PATH"));
  CHECK_FALSE(e.tools[1].second.exit_code.has_value());

  REQUIRE(back.timers.size() == 1);
  const gauge::TimerSummary& s = back.timers[0];
  CHECK(s.name == "train");
  CHECK(s.final);
  CHECK(s.config.level == 2);
  CHECK(s.config.peak_flop_per_s == std::optional<double>(989e12));
  CHECK(s.config.peak_source == "NVIDIA H200 datasheet, dense BF16");
  CHECK(s.counters.queries == 900);
  CHECK(s.counters.markers_created == 24);
  CHECK(s.window.first_step == std::optional<std::size_t>(115));
  CHECK(s.window.gpu_time_s.p50 == std::optional<double>(3.1e-3));
  CHECK(s.window.throughput.mfu == std::optional<double>(0.4));
  CHECK_FALSE(s.window.throughput.bytes_per_second.has_value());
  CHECK(s.total.gpu_time_s.sum == std::optional<double>(0.35));
  CHECK(s.total.wall_time_s.p99 == std::optional<double>(3.45e-3));
  REQUIRE(s.regions.size() == 2);
  CHECK(s.regions[0].parent.empty());
  CHECK(s.regions[1].parent == "forward");
  CHECK(s.regions[1].window.occurrences == 4);
  CHECK_FALSE(s.regions[1].window.share_of_step.has_value());
  CHECK(s.regions[0].window.start_offset_s == std::optional<double>(0.0));
  CHECK(s.regions[1].window.start_offset_s == std::optional<double>(2.5e-4));
  CHECK(s.regions[0].total.time_per_step_s.p90 == std::optional<double>(1.1e-3));
  REQUIRE(s.warnings.size() == 1);
  CHECK(s.warnings[0].code == "timer_unresolved_steps");
}

TEST_CASE("serial: every member of Config is written, under the key listed here", "[serial][completeness]") {
  // Every key gauge writes for a Config is in the lists, and every key of the lists is written.
  const json written = gauge::Config{};
  CHECK(keys_of(written) == top_keys(config_keys));
  CHECK(keys_of(written.at("warmup")) == top_keys(warmup_config_keys));
  CHECK(keys_of(written.at("measure")) == top_keys(measure_config_keys));
  // Changing any member changes the JSON at its key. The structured bindings name every member: a
  // member added to the struct does not compile here until it is added to the lists above.
  CHECK(unwritten_members<gauge::Config>(config_keys, [](gauge::Config& x) {
          auto& [a, b, c, d, e, f, g, h, i] = x;
          return std::tie(a, b, c, d, e, f, g, h, i);
        }) == std::vector<std::string>{});
  CHECK(unwritten_members<gauge::Config>(under("/warmup", warmup_config_keys), [](gauge::Config& x) {
          auto& [a, b, c, d, e, f, g] = x.warmup;
          return std::tie(a, b, c, d, e, f, g);
        }) == std::vector<std::string>{});
  CHECK(unwritten_members<gauge::Config>(under("/measure", measure_config_keys), [](gauge::Config& x) {
          auto& [a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p] = x.measure;
          return std::tie(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p);
        }) == std::vector<std::string>{});
}

TEST_CASE("serial: every member of Result is written, under the key listed here", "[serial][completeness]") {
  CHECK(keys_of(json(gauge::Result{})) == top_keys(result_keys));
  CHECK(unwritten_members<gauge::Result>(result_keys, [](gauge::Result& x) {
          auto& [a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, y, z, aa, ab, ac, ad, ae, af, ag, ah, ai] = x;
          return std::tie(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, y, z, aa, ab, ac, ad, ae, af, ag, ah, ai);
        }) == std::vector<std::string>{});
}

TEST_CASE("serial: every member of TimerSummary is written, under the key listed here", "[serial][completeness]") {
  const json written = gauge::TimerSummary{};
  CHECK(keys_of(written) == top_keys(timer_summary_keys));
  CHECK(keys_of(written.at("config")) == top_keys(timer_config_keys));
  CHECK(unwritten_members<gauge::TimerSummary>(timer_summary_keys, [](gauge::TimerSummary& x) {
          auto& [a, b, c, d, e, f, g, h, i, j, k] = x;
          return std::tie(a, b, c, d, e, f, g, h, i, j, k);
        }) == std::vector<std::string>{});
  // peak_source is written only with a peak (null otherwise): the changed side gets one.
  CHECK(unwritten_members<gauge::TimerSummary>(under("/config", timer_config_keys), [](gauge::TimerSummary& x) {
          x.config.peak_flop_per_s = 1e15;
          auto& [a, b, c, d, e, f, g, h, i] = x.config;
          return std::tie(a, b, c, d, e, f, g, h, i);
        }) == std::vector<std::string>{});
}

TEST_CASE("serial: the key collector lists exactly the keys the writer writes", "[serial][completeness]") {
  // The same lists as above, from the description's third visitor.
  auto collected = [](const json& schema) { return keys_of(schema.at("properties")); };
  CHECK(collected(gauge::serial::collect_schema<gauge::Config>()) == top_keys(config_keys));
  CHECK(collected(gauge::serial::collect_schema<gauge::WarmupConfig>()) == top_keys(warmup_config_keys));
  CHECK(collected(gauge::serial::collect_schema<gauge::MeasureConfig>()) == top_keys(measure_config_keys));
  CHECK(collected(gauge::serial::collect_schema<gauge::Result>()) == top_keys(result_keys));
  CHECK(collected(gauge::serial::collect_schema<gauge::TimerSummary>()) == top_keys(timer_summary_keys));
  // And everywhere in a report with every feature: each object holds exactly the described keys.
  const json derived = gauge::serial::collect_schema<gauge::StoredReport>();
  std::vector<std::string> differences;
  compare_keys(full_document(), derived, derived, "", differences);
  CHECK(differences == std::vector<std::string>{});
  // Keys added after schema 1.0 are marked.
  CHECK(derived.at("definitions").at("config").at("properties").at("telemetry_interval_s").at("x-since") == "1.2");
  CHECK(derived.at("definitions").at("experiment").at("properties").at("telemetry").at("x-since") == "1.1");
}

TEST_CASE("serial: the schema file describes exactly the keys, types and required keys gauge writes", "[serial][schema]") {
  const json schema = load(source_dir / "schema" / "gauge-report.schema.json");
  const auto differences = schema_differences(schema);
  CHECK(differences == std::vector<std::string>{});

  // The comparison has teeth: a key missing from the schema, a wrong type, a wrong required list
  // and an undocumented newer key are each found.
  json broken = schema;
  broken["definitions"]["config"]["properties"].erase("sm_clock_warning_fraction");
  broken["definitions"]["timer_counters"]["properties"]["queries"] = {{"type", "string"}};
  broken["definitions"]["kernel"]["required"].erase(0);
  broken["definitions"]["experiment"]["properties"]["time_label"].erase("description");
  broken["definitions"]["nvml"]["properties"]["extra"] = {{"type", "string"}};
  const auto found = schema_differences(broken);
  auto has = [&](const std::string& text) {
    for (const auto& f : found)
      if (f.find(text) != std::string::npos) return true;
    return false;
  };
  INFO(found.size() << " differences");
  CHECK(has("experiments[].config.sm_clock_warning_fraction: gauge writes this key, the schema does not describe it"));
  CHECK(has("timers[].counters.queries: gauge writes {integer}, the schema allows {string}"));
  CHECK(has("experiments[].kernels[]: gauge requires"));
  CHECK(has("experiments[].time_label: added by schema 1.2"));
  CHECK(has("environment.nvml.extra: the schema describes this key, gauge does not write it"));
}

TEST_CASE("serial: reports of schema 1.0 and 1.1 read, and what they lack is defaulted or derived", "[serial][read]") {
  // 1.0 (the first real H200 report): no time_label, telemetry or the newer settings.
  const auto first = gauge::read_report(data_dir / "reports" / "h200-first.json");
  REQUIRE(first.results.size() == 1);
  CHECK(first.results[0].time_label == "GPU time");
  CHECK(first.results[0].time_clock == "CUDA events");
  CHECK(first.results[0].config.telemetry_interval == 20ms);  // the default
  CHECK(first.results[0].config.sm_clock_warning_fraction == 0.9);
  CHECK_FALSE(first.results[0].telemetry.available);
  CHECK(first.timers.empty());

  // 1.1 with partial telemetry and memory (tests/data/reports/telemetry.json).
  const auto tel = gauge::read_report(data_dir / "reports" / "telemetry.json");
  const auto& t = tel.results.at(0).telemetry;
  CHECK(t.available);
  CHECK(t.interval_s == 0.02);
  CHECK(t.sm_clock_mhz.mean == std::optional<double>(1980.0));
  REQUIRE(t.series.size() == 19);
  CHECK(t.series[0].sm_clock_mhz == std::optional<double>(1755.0));
  CHECK(t.series[2].power_w == std::optional<double>(420.0));
  CHECK_FALSE(t.series[0].temperature_c.has_value());  // no such array in the file
  CHECK(tel.results[0].memory.peak_bytes == std::optional<std::uint64_t>(1207959552));
  CHECK(tel.results[0].memory.fits == std::optional<bool>(true));
  CHECK(tel.environment.nvml.driver_version == std::optional<std::string>("580.159.04"));

  // 1.1 written by gauge on an H200: kernels, tools, NVML of the GPU, an empty timers list.
  const auto h200 = gauge::read_report(source_dir / "examples" / "reports" / "gemm-h200.json");
  REQUIRE(h200.results.at(0).kernels.size() == 1);
  CHECK(h200.results[0].kernels[0].name == "gauge::gate_kernel");
  CHECK(h200.results[0].kernels[0].binary_version == 90);
  CHECK(h200.environment.tools.size() == 3);
  REQUIRE(h200.environment.cuda.devices.at(0).nvml.has_value());
  CHECK(h200.environment.cuda.devices[0].nvml->matched_by == "uuid");

  // A host result of schema 1.1 says "real time" (its samples were always the steady clock's); the three settings keep their defaults.
  json doc = full_document();
  doc["schema_version"] = "1.1.0";
  for (auto& e : doc["experiments"]) {
    e.erase("time_label");
    e.erase("time_clock");
    for (const char* k : {"telemetry_interval_s", "memory_growth_tolerance_bytes", "sm_clock_warning_fraction"})
      e["config"].erase(k);
  }
  const auto old = gauge::detail::report_from_json(doc, "old.json");
  CHECK(old.results[0].time_label == "GPU time");
  CHECK(old.results[1].backend == "host");
  CHECK(old.results[1].time_label == "real time");
  CHECK(old.results[1].time_clock == "host steady clock");
  CHECK(old.results[0].config.telemetry_interval == 20ms);
  CHECK(old.results[0].config.memory_growth_tolerance_bytes == 16ull << 20);

  // 1.5: no sampling.cache_flush, no telemetry.gpm. The flush reads as unknown (null), GPM as
  // unavailable with the reason, never as zeros.
  json v15 = full_document();
  v15["schema_version"] = "1.5.0";
  REQUIRE(v15["experiments"][0]["sampling"].contains("cache_flush"));
  REQUIRE(v15["experiments"][0]["telemetry"].contains("gpm"));
  for (auto& e : v15["experiments"]) {
    e["sampling"].erase("cache_flush");
    e["telemetry"].erase("gpm");
  }
  const auto r15 = gauge::detail::report_from_json(v15, "v15.json");
  CHECK(r15.results[0].sampling.cache == "cold");
  CHECK_FALSE(r15.results[0].sampling.cache_flush);
  CHECK(r15.results[0].telemetry.gpm.status == "unavailable");
  CHECK(r15.results[0].telemetry.gpm.reason == "not recorded (a report older than schema 1.6)");
  CHECK_FALSE(r15.results[0].telemetry.gpm.dram_bw_util_pct);
  CHECK(r15.results[0].telemetry.available);  // the rest of the telemetry is kept
  // And the 1.6 document reads its values.
  const auto r16 = gauge::detail::report_from_json(full_document(), "v16.json");
  REQUIRE(r16.results[0].sampling.cache_flush);
  CHECK(r16.results[0].sampling.cache_flush->bytes == std::optional<std::uint64_t>(282066944));
  CHECK(r16.results[0].telemetry.gpm.dram_bw_util_pct == std::optional<double>(62.5));
  // (1e9 + 282066944) x 300 / 1 s = 3.84620083e11 B/s against 62.5 % of 4.8e12 = 3e12 B/s.
  CHECK(*r16.results[0].telemetry.gpm.declared_bytes_per_s == Approx(3.84620083e11));
  CHECK(r16.results[0].telemetry.gpm.cross_check == "declared_below_gpm");
}

TEST_CASE("serial: a wrong type names the key path and the expected type", "[serial][read]") {
  struct Case {
    const char* pointer;
    json value;
    const char* expected;
  };
  const std::vector<Case> cases = {
      {"/experiments/0/config/telemetry_interval_s", "20ms", "experiments[0].config.telemetry_interval_s: expected a number, got a string"},
      {"/experiments/0/config/memory_growth_tolerance_bytes", -1, "experiments[0].config.memory_growth_tolerance_bytes: expected a non-negative integer, got -1"},
      {"/experiments/0/time_label", 1, "experiments[0].time_label: expected a string, got an integer"},
      {"/experiments/0/telemetry/series/sm_clock_mhz/1", "fast", "experiments[0].telemetry.series.sm_clock_mhz[1]: expected a number, got a string"},
      {"/experiments/0/telemetry/series/power_w", json::array({1.0}), "experiments[0].telemetry.series.power_w: has 1 entries, "},
      {"/experiments/0/memory/peak_bytes", 1.5, "experiments[0].memory.peak_bytes: expected an integer, got a number"},
      {"/experiments/0/kernels/1/jit_compiled", "yes", "experiments[0].kernels[1].jit_compiled: expected a boolean, got a string"},
      {"/experiments/0/config/measure/cache", "warm", "experiments[0].config.measure.cache: \"warm\" is not one of hot, cold"},
      {"/environment/cuda/devices/0/nvml/processes/0/pid", json(nullptr), "environment.cuda.devices[0].nvml.processes[0].pid: expected an integer, got null"},
      {"/environment/tools/ncu/seconds", "0.02", "environment.tools.ncu.seconds: expected a number, got a string"},
      {"/timers/0/regions/1/window/steps", -2, "timers[0].regions[1].window.steps: expected a non-negative integer, got -2"},
      {"/timers/0/config/peak_source", 3, "timers[0].config.peak_source: expected a string or null, got an integer"},
  };
  for (const auto& c : cases) {
    json doc = full_document();
    doc[json::json_pointer(c.pointer)] = c.value;
    INFO(c.pointer);
    CHECK_THROWS_WITH(gauge::detail::report_from_json(doc, "r.json"), Catch::Matchers::StartsWith(std::string("r.json: ") + c.expected));
  }
  // A key required since 1.0 stays required; one of a type whose records may be partial does not.
  json doc = full_document();
  doc["experiments"][0]["kernels"][0].erase("ptx_version");
  CHECK_THROWS_WITH(gauge::detail::report_from_json(doc, "r.json"),
                    "r.json: experiments[0].kernels[0]: missing required key \"ptx_version\"");
  doc = full_document();
  doc["experiments"][0]["memory"].erase("peak_bytes");
  CHECK_NOTHROW(gauge::detail::report_from_json(doc, "r.json"));
}

TEST_CASE("serial: every integer of a full report reads back exactly, or is refused naming its key", "[serial][read][hardening]") {
  // Every integer the writer writes (in the first entry of each array), set to the edges of
  // 64 bits: read back and written again, the same literal comes back (read exactly, within the
  // field's type), or the read is refused with a message that starts with that key's path. Never
  // another value: wrapped (2^64 - 1 as -1), clamped (-2^63 - 1 as -2^63) or rounded to a double.
  const json doc = full_document();
  std::vector<std::pair<std::string, std::string>> leaves;  // JSON pointer, the path messages name
  std::vector<std::tuple<const json*, std::string, std::string>> stack{{&doc, "", ""}};
  while (!stack.empty()) {
    const auto [j, pointer, path] = stack.back();
    stack.pop_back();
    if (j->is_object()) {
      for (auto it = j->begin(); it != j->end(); ++it)
        if (it.key().find_first_of("/~.") == std::string::npos)
          stack.emplace_back(&*it, pointer + "/" + it.key(), path.empty() ? it.key() : path + "." + it.key());
    } else if (j->is_array()) {
      for (std::size_t i = 0; i < j->size() && i < 1; ++i)
        stack.emplace_back(&(*j)[i], pointer + "/" + std::to_string(i), path + "[" + std::to_string(i) + "]");
    } else if (j->is_number_integer()) {
      leaves.emplace_back(pointer, path);
    }
  }
  REQUIRE(leaves.size() > 100);
  // (Beyond 64 bits, 2^64 and -2^63 - 1, the text is refused before any field is read: the
  // reader's tests check that apart, test_read_compare.cpp.)
  const std::vector<std::string> literals = {"9223372036854775808", "18446744073709551615", "-1", "-9223372036854775808"};
  std::size_t exact = 0, refused = 0;
  for (const auto& [pointer, path] : leaves)
    for (const std::string& literal : literals) {
      json d = doc;
      d[json::json_pointer(pointer)] = json::parse(literal);  // as the parser reads the literal
      INFO(path << " = " << literal);
      try {
        const auto back = gauge::detail::report_from_json(d, "r.json");
        const json again = gauge::detail::report_json(back);
        REQUIRE(again.contains(json::json_pointer(pointer)));
        CHECK(again[json::json_pointer(pointer)].dump() == literal);
        ++exact;
      } catch (const gauge::ReportError& e) {
        CHECK(std::string(e.what()).rfind("r.json: " + path + ": ", 0) == 0);
        ++refused;
      }
    }
  // Both happen: size_t and uint64 fields hold 2^64 - 1, signed and narrower ones refuse it.
  CHECK(exact > 0);
  CHECK(refused > 0);
}

TEST_CASE("serial: a summary's median is its p50, and the reader holds them to it", "[serial][read]") {
  json doc = full_document();
  const json& g = doc["experiments"][0]["gpu_time_s"];
  REQUIRE(g.at("p50").is_number());
  CHECK(g.at("median") == g.at("p50"));
  const double p50 = g.at("p50").get<double>();
  // One ulp apart: the same statistic (a writer that rounds rounds both alike).
  doc["experiments"][0]["gpu_time_s"]["median"] = std::nextafter(p50, 1.0);
  CHECK_NOTHROW(gauge::detail::report_from_json(doc, "r.json"));
  doc["experiments"][0]["gpu_time_s"]["median"] = 2 * p50;
  CHECK_THROWS_WITH(gauge::detail::report_from_json(doc, "r.json"),
                    Catch::Matchers::StartsWith("r.json: experiments[0].gpu_time_s.median: median ") &&
                        Catch::Contains("differs from p50") && Catch::Contains("they are one statistic"));
  doc["experiments"][0]["gpu_time_s"]["median"] = nullptr;
  CHECK_THROWS_WITH(gauge::detail::report_from_json(doc, "r.json"),
                    "r.json: experiments[0].gpu_time_s.median: median is null but p50 is not (they are one statistic)");
  doc["experiments"][0]["gpu_time_s"]["median"] = p50;
  doc["experiments"][0]["gpu_time_s"]["p50"] = nullptr;
  CHECK_THROWS_WITH(gauge::detail::report_from_json(doc, "r.json"),
                    Catch::Matchers::StartsWith("r.json: experiments[0].gpu_time_s.median: median is ") &&
                        Catch::Contains("but p50 is null"));
  // A 1.6 report has no median: it reads.
  doc = full_document();
  doc["schema_version"] = "1.6.0";
  for (auto& e : doc["experiments"]) {
    for (const char* k : {"gpu_time_s", "wall_time_s", "cpu_time_s"}) e[k].erase("median");
    e.erase("cpu_time_s");
    e["samples"].erase("cpu_time_per_step_s");
    e["clock"]["cycles_per_step"].erase("median");
  }
  CHECK_NOTHROW(gauge::detail::report_from_json(doc, "old.json"));
}

TEST_CASE("serial: compare reads NVML and telemetry from the typed values", "[serial][compare]") {
  const gauge::Environment a = gauge::testing::full_environment();
  gauge::Environment b = a;
  b.nvml.driver_version = "575.57.08";
  b.cuda.devices[0].nvml->clocks_locked = false;
  const auto d = gauge::compare::environment_differences(a, b);
  auto has = [&](const std::string& what, const std::string& base, const std::string& candidate) {
    for (const auto& x : d)
      if (x.what == what && x.base == base && x.candidate == candidate && x.invalidates) return true;
    return false;
  };
  CHECK(has("NVIDIA driver", "580.159.04", "575.57.08"));
  CHECK(has("GPU 0 clocks locked", "true", "false"));
  CHECK(d.size() == 2);
  // The SM clock: the telemetry's mean, else the median of the series.
  gauge::records::TelemetryRecord t;
  CHECK_FALSE(gauge::detail::comparing::measured_sm_clock_mhz(t).has_value());
  for (double mhz : {1500.0, 1980.0, 1700.0}) {
    gauge::records::TelemetrySample s;
    s.sm_clock_mhz = mhz;
    t.series.push_back(s);
  }
  CHECK(gauge::detail::comparing::measured_sm_clock_mhz(t) == std::optional<double>(1700.0));
  t.sm_clock_mhz.mean = 1600.0;
  CHECK(gauge::detail::comparing::measured_sm_clock_mhz(t) == std::optional<double>(1600.0));
}

TEST_CASE("serial: the backend names its time, and older reports get it from the backend's name", "[serial]") {
  CHECK(std::string(gauge::HostBackend::time_label) == "real time");
  CHECK(std::string(gauge::HostBackend::time_clock) == "host steady clock");
  CHECK(gauge::detail::legacy_time_names(gauge::HostBackend::name) ==
        std::pair<std::string, std::string>(gauge::HostBackend::time_label, gauge::HostBackend::time_clock));
  CHECK(gauge::detail::legacy_time_names("cuda") == std::pair<std::string, std::string>("GPU time", "CUDA events"));
  const gauge::Result r;
  CHECK(r.time_label == "GPU time");
  CHECK(r.time_clock == "CUDA events");
}

}  // namespace gauge_test_serial
