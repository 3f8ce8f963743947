#pragma once
/// \file gauge/report/json.hpp
/// JSON serialization of gauge's types (nlohmann/json ADL hooks `to_json`) and the atomic report
/// writer. Units: seconds for time (keys end in `_s`), bytes, MHz. Non-finite numbers and absent
/// values are written as `null`, never NaN.

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gauge/core/config.hpp"
#include "gauge/core/dimensions.hpp"
#include "gauge/core/environment.hpp"
#include "gauge/core/error.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/core/telemetry.hpp"
#include "gauge/core/warnings.hpp"
#include "gauge/core/work.hpp"
#include "gauge/report/host_json.hpp"
#include "gauge/version.hpp"

namespace gauge {

namespace detail {
/// A finite double as a JSON number, anything else as null.
inline nlohmann::json number_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }
/// An optional finite double as a JSON number, else null.
inline nlohmann::json number_or_null(const std::optional<double>& v) {
  return v ? number_or_null(*v) : nlohmann::json(nullptr);
}
/// An optional string as JSON, else null.
inline nlohmann::json string_or_null(const std::optional<std::string>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}
}  // namespace detail

/// Dimension value → JSON integer, number, string or bool. (DimensionValue is a std::variant,
/// so ADL would not find a `to_json` for it in this namespace: call this function.)
inline nlohmann::json dimension_json(const DimensionValue& v) {
  nlohmann::json j;
  std::visit([&](const auto& x) { j = x; }, v);
  return j;
}

/// Work → {"flop_per_step", "bytes_per_step", "items_per_step": {name: count}}.
inline void to_json(nlohmann::json& j, const Work& w) {
  j = nlohmann::json{{"flop_per_step", detail::number_or_null(w.flop)},
                     {"bytes_per_step", detail::number_or_null(w.bytes)},
                     {"items_per_step", w.items}};
}

/// Throughput → {"flop_per_s", "bytes_per_s", "items_per_s": {name: rate}}.
inline void to_json(nlohmann::json& j, const Throughput& t) {
  nlohmann::json items = nlohmann::json::object();
  for (const auto& [k, v] : t.items_per_second) items[k] = detail::number_or_null(v);
  j = nlohmann::json{{"flop_per_s", detail::number_or_null(t.flop_per_second)},
                     {"bytes_per_s", detail::number_or_null(t.bytes_per_second)},
                     {"items_per_s", items}};
}

/// Warning → {"code", "severity", "message"}.
inline void to_json(nlohmann::json& j, const Warning& w) {
  j = nlohmann::json{{"code", w.code}, {"severity", to_string(w.severity)}, {"message", w.message}};
}

/// Confidence interval → {"low", "high", "level", "coverage", "lower_rank", "upper_rank"}.
inline void to_json(nlohmann::json& j, const ConfidenceInterval& ci) {
  j = nlohmann::json{{"low", detail::number_or_null(ci.low)},
                     {"high", detail::number_or_null(ci.high)},
                     {"level", ci.level},
                     {"coverage", detail::number_or_null(ci.coverage)},
                     {"lower_rank", ci.lower_rank},
                     {"upper_rank", ci.upper_rank}};
}

/// Summary → every statistic by name (null where undefined), plus the methods used.
inline void to_json(nlohmann::json& j, const Summary& s) {
  using detail::number_or_null;
  j = nlohmann::json{
      {"n", s.n},
      {"min", number_or_null(s.min)},
      {"p1", number_or_null(s.p1)},
      {"p5", number_or_null(s.p5)},
      {"p10", number_or_null(s.p10)},
      {"p25", number_or_null(s.p25)},
      {"p50", number_or_null(s.p50)},
      {"p75", number_or_null(s.p75)},
      {"p90", number_or_null(s.p90)},
      {"p95", number_or_null(s.p95)},
      {"p99", number_or_null(s.p99)},
      {"max", number_or_null(s.max)},
      {"mean", number_or_null(s.mean)},
      {"stddev", number_or_null(s.stddev)},
      {"cv", number_or_null(s.cv)},
      {"mad", number_or_null(s.mad)},
      {"iqr", number_or_null(s.iqr)},
      {"median_ci", s.median_ci ? nlohmann::json(*s.median_ci) : nlohmann::json(nullptr)},
      {"median_ci_relative_width", number_or_null(s.median_ci_relative_width)},
      {"confidence_level", s.confidence_level},
      {"outliers",
       {{"low_severe", s.outliers.low_severe},
        {"low_mild", s.outliers.low_mild},
        {"high_mild", s.outliers.high_mild},
        {"high_severe", s.outliers.high_severe}}},
      {"percentile_method", Summary::percentile_method},
      {"median_ci_method", Summary::median_ci_method},
      {"outlier_method", Summary::outlier_method},
  };
}

/// Config → every setting, durations in seconds (`_s`).
inline void to_json(nlohmann::json& j, const Config& c) {
  const auto& w = c.warmup;
  const auto& m = c.measure;
  j = nlohmann::json{
      {"warmup",
       {{"min_steps", w.min_steps},
        {"min_time_s", to_seconds(w.min_time)},
        {"max_steps", w.max_steps},
        {"max_time_s", to_seconds(w.max_time)},
        {"round_time_s", to_seconds(w.round_time)},
        {"window", w.window},
        {"drift_tolerance", w.drift_tolerance}}},
      {"measure",
       {{"min_samples", m.min_samples},
        {"max_samples", m.max_samples},
        {"min_time_s", to_seconds(m.min_time)},
        {"max_time_s", to_seconds(m.max_time)},
        {"target_relative_ci_width", m.target_relative_ci_width},
        {"confidence_level", m.confidence_level},
        {"round_time_s", to_seconds(m.round_time)},
        {"max_steps_per_round", m.max_steps_per_round},
        {"steps_per_sample", m.steps_per_sample},
        {"event_overhead_budget_s", to_seconds(m.event_overhead_budget)},
        {"max_sample_time_s", to_seconds(m.max_sample_time)},
        {"gate_timeout_s", to_seconds(m.gate_timeout)},
        {"wall_round_fraction", m.wall_round_fraction},
        {"cache", to_string(m.cache)},
        {"gpu_timing", to_string(m.gpu_timing)}}},
      {"device", c.device},
      {"silenced_warnings", c.silenced_warnings},
      {"max_samples_in_report", c.max_samples_in_report},
  };
}

/// Warm-up round → {"start_s", "steps", "time_per_step_s"}.
inline void to_json(nlohmann::json& j, const WarmupRound& r) {
  j = nlohmann::json{{"start_s", detail::number_or_null(r.start_s)},
                     {"steps", r.steps},
                     {"time_per_step_s", detail::number_or_null(r.time_per_step_s)}};
}

/// Device record → {"ordinal", "name", "uuid", "pci_bus_id"}.
inline void to_json(nlohmann::json& j, const DeviceRecord& d) {
  j = nlohmann::json{{"ordinal", d.ordinal},
                     {"name", d.name},
                     {"uuid", detail::string_or_null(d.uuid)},
                     {"pci_bus_id", detail::string_or_null(d.pci_bus_id)}};
}

namespace detail {
inline nlohmann::json u64_or_null(const std::optional<std::uint64_t>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}
inline nlohmann::json i64_or_null(const std::optional<std::int64_t>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}
}  // namespace detail

/// Telemetry statistic → {"min", "mean", "max"}.
inline void to_json(nlohmann::json& j, const TelemetryStat& t) {
  j = nlohmann::json{{"min", detail::number_or_null(t.min)},
                     {"mean", detail::number_or_null(t.mean)},
                     {"max", detail::number_or_null(t.max)}};
}

/// Telemetry record → summary plus the series as parallel arrays (t_s, sm_clock_mhz, …).
inline void to_json(nlohmann::json& j, const TelemetryRecord& t) {
  using detail::number_or_null;
  nlohmann::json series = {{"t_s", nlohmann::json::array()},
                           {"sm_clock_mhz", nlohmann::json::array()},
                           {"memory_clock_mhz", nlohmann::json::array()},
                           {"power_w", nlohmann::json::array()},
                           {"temperature_c", nlohmann::json::array()},
                           {"clock_event_reasons", nlohmann::json::array()},
                           {"process_memory_bytes", nlohmann::json::array()}};
  for (const auto& x : t.series) {
    series["t_s"].push_back(number_or_null(x.t_s));
    series["sm_clock_mhz"].push_back(number_or_null(x.sm_clock_mhz));
    series["memory_clock_mhz"].push_back(number_or_null(x.memory_clock_mhz));
    series["power_w"].push_back(number_or_null(x.power_w));
    series["temperature_c"].push_back(number_or_null(x.temperature_c));
    series["clock_event_reasons"].push_back(detail::u64_or_null(x.clock_event_reasons));
    series["process_memory_bytes"].push_back(detail::u64_or_null(x.process_memory_bytes));
  }
  j = nlohmann::json{{"available", t.available},
                     {"unavailable_reason", detail::string_or_null(t.unavailable_reason)},
                     {"interval_s", t.interval_s},
                     {"warmup_start_s", number_or_null(t.warmup_start_s)},
                     {"measure_start_s", number_or_null(t.measure_start_s)},
                     {"measure_end_s", number_or_null(t.measure_end_s)},
                     {"sm_clock_mhz", t.sm_clock_mhz},
                     {"memory_clock_mhz", t.memory_clock_mhz},
                     {"power_w", t.power_w},
                     {"temperature_c", t.temperature_c},
                     {"sm_clock_max_mhz", number_or_null(t.sm_clock_max_mhz)},
                     {"throttle_reasons_seen", t.throttle_reasons_seen},
                     {"throttle_reason_names", t.throttle_reason_names},
                     {"throttled_samples", t.throttled_samples},
                     {"series", series}};
}

/// Memory record → bytes everywhere, null where unknown.
inline void to_json(nlohmann::json& j, const MemoryRecord& m) {
  using detail::u64_or_null;
  j = nlohmann::json{{"peak_bytes", u64_or_null(m.peak_bytes)},
                     {"peak_source", m.peak_source},
                     {"device_total_bytes", u64_or_null(m.device_total_bytes)},
                     {"device_used_peak_bytes", u64_or_null(m.device_used_peak_bytes)},
                     {"device_used_at_measure_start_bytes", u64_or_null(m.device_used_at_measure_start_bytes)},
                     {"device_used_at_measure_end_bytes", u64_or_null(m.device_used_at_measure_end_bytes)},
                     {"process_peak_bytes", u64_or_null(m.process_peak_bytes)},
                     {"other_processes_bytes", u64_or_null(m.other_processes_bytes)},
                     {"pool_used_high_bytes", u64_or_null(m.pool_used_high_bytes)},
                     {"pool_reserved_high_bytes", u64_or_null(m.pool_reserved_high_bytes)},
                     {"allocator_peak_bytes", m.allocator_peak_bytes},
                     {"host_rss_peak_bytes", u64_or_null(m.host_rss_peak_bytes)},
                     {"host_rss_at_measure_start_bytes", u64_or_null(m.host_rss_at_measure_start_bytes)},
                     {"host_rss_at_measure_end_bytes", u64_or_null(m.host_rss_at_measure_end_bytes)},
                     {"host_memory_total_bytes", u64_or_null(m.host_memory_total_bytes)},
                     {"device_growth_bytes", detail::i64_or_null(m.device_growth_bytes)},
                     {"host_rss_growth_bytes", detail::i64_or_null(m.host_rss_growth_bytes)},
                     {"grew_during_measurement", m.grew_during_measurement},
                     {"fits", m.fits ? nlohmann::json(*m.fits) : nlohmann::json(nullptr)},
                     {"fits_reason", m.fits_reason}};
}

/// Kernel binary → {"name", "binary_version", "ptx_version", "device_version", "jit_compiled"}.
inline void to_json(nlohmann::json& j, const KernelBinaryRecord& k) {
  j = nlohmann::json{{"name", k.name},
                     {"binary_version", k.binary_version},
                     {"ptx_version", k.ptx_version},
                     {"device_version", k.device_version},
                     {"jit_compiled", k.jit_compiled}};
}

/// Result → one entry of the report's `experiments` list.
inline void to_json(nlohmann::json& j, const Result& r) {
  using detail::number_or_null;
  nlohmann::json dims = nlohmann::json::object();
  for (const auto& [k, v] : r.dimensions) dims[k] = dimension_json(v);
  nlohmann::json curve = nlohmann::json::array();
  for (const auto& round : r.warmup.curve) curve.push_back(round);
  auto numbers = [](const std::vector<double>& v) {
    nlohmann::json a = nlohmann::json::array();
    for (double x : v) a.push_back(number_or_null(x));
    return a;
  };
  j = nlohmann::json{
      {"name", r.name},
      {"status", to_string(r.status)},
      {"error", detail::string_or_null(r.error)},
      {"backend", r.backend},
      {"device", r.device},
      {"dimensions", dims},
      {"work", r.work},
      {"config", r.config},
      {"warmup",
       {{"first_step_time_s", number_or_null(r.warmup.first_step_time_s)},
        {"steps", r.warmup.steps},
        {"time_s", number_or_null(r.warmup.time_s)},
        {"converged", r.warmup.converged},
        {"relative_drift", number_or_null(r.warmup.relative_drift)},
        {"reason", r.warmup.reason},
        {"curve", curve}}},
      {"sampling",
       {{"method", r.sampling.method},
        {"steps_per_sample", r.sampling.steps_per_sample},
        {"granularity", r.sampling.steps_per_sample == 1 ? "per_step" : "per_batch"},
        {"steps_per_sample_reason", r.sampling.steps_per_sample_reason},
        {"event_overhead_s", number_or_null(r.sampling.event_overhead_s)},
        {"cache", r.sampling.cache},
        {"rounds", r.sampling.rounds},
        {"discarded_rounds", r.sampling.discarded_rounds},
        {"steps", r.sampling.steps},
        {"calibration_steps", r.sampling.calibration_steps},
        {"wall_rounds", r.sampling.wall_rounds},
        {"wall_steps", r.sampling.wall_steps},
        {"timer_resolution_s", number_or_null(r.sampling.timer_resolution_s)},
        {"round_start_s", numbers(r.sampling.round_start_s)},
        {"round_end_s", numbers(r.sampling.round_end_s)},
        {"round_samples", r.sampling.round_samples}}},
      {"stopping",
       {{"reason", r.stopping.reason},
        {"measure_time_s", number_or_null(r.stopping.measure_time_s)},
        {"relative_ci_width", number_or_null(r.stopping.relative_ci_width)},
        {"target_relative_ci_width", number_or_null(r.stopping.target_relative_ci_width)},
        {"target_met", r.stopping.target_met}}},
      {"gpu_time_s", r.gpu_time},
      {"wall_time_s", r.wall_time},
      {"throughput", {{"gpu", r.gpu_throughput}, {"wall", r.wall_throughput}}},
      {"host_overhead_per_step_s", number_or_null(r.host_overhead_per_step_s)},
      {"gpu_busy_fraction", number_or_null(r.gpu_busy_fraction)},
      {"telemetry", r.telemetry},
      {"memory", r.memory},
      {"kernels", r.kernels},
      {"warnings", r.warnings},
      {"samples", {{"gpu_time_per_step_s", numbers(r.gpu_samples_s)}, {"wall_time_per_step_s", numbers(r.wall_samples_s)}}},
      {"total_time_s", number_or_null(r.total_time_s)},
  };
}

/// NVML's record of a GPU → every field by name (units in the keys), null where NVML refused,
/// and `unavailable`: {field: NVML error}.
inline void to_json(nlohmann::json& j, const NvmlGpuInfo& g) {
  using detail::number_or_null;
  using detail::string_or_null;
  auto opt_bool = [](const std::optional<bool>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  auto opt_uint = [](const std::optional<unsigned>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  nlohmann::json processes = nlohmann::json::array();
  for (const auto& [pid, bytes] : g.processes) processes.push_back({{"pid", pid}, {"used_memory_bytes", bytes}});
  nlohmann::json unavailable = nlohmann::json::object();
  for (const auto& [field, why] : g.unavailable) unavailable[field] = why;
  j = nlohmann::json{{"index", g.index},
                     {"matched_by", g.matched_by},
                     {"name", string_or_null(g.name)},
                     {"uuid", string_or_null(g.uuid)},
                     {"pci_bus_id", string_or_null(g.pci_bus_id)},
                     {"pstate", g.pstate ? nlohmann::json(*g.pstate) : nlohmann::json(nullptr)},
                     {"sm_clock_mhz", number_or_null(g.sm_clock_mhz)},
                     {"sm_clock_max_mhz", number_or_null(g.sm_clock_max_mhz)},
                     {"sm_clock_application_mhz", number_or_null(g.sm_clock_application_mhz)},
                     {"sm_clock_default_application_mhz", number_or_null(g.sm_clock_default_application_mhz)},
                     {"memory_clock_mhz", number_or_null(g.memory_clock_mhz)},
                     {"memory_clock_max_mhz", number_or_null(g.memory_clock_max_mhz)},
                     {"memory_clock_application_mhz", number_or_null(g.memory_clock_application_mhz)},
                     {"memory_clock_default_application_mhz", number_or_null(g.memory_clock_default_application_mhz)},
                     {"clocks_locked", opt_bool(g.clocks_locked)},
                     {"clocks_locked_evidence", string_or_null(g.clocks_locked_evidence)},
                     {"temperature_c", number_or_null(g.temperature_c)},
                     {"power_draw_w", number_or_null(g.power_draw_w)},
                     {"power_limit_w", number_or_null(g.power_limit_w)},
                     {"memory_total_bytes", detail::u64_or_null(g.memory_total_bytes)},
                     {"memory_used_bytes", detail::u64_or_null(g.memory_used_bytes)},
                     {"ecc_enabled", opt_bool(g.ecc_enabled)},
                     {"persistence_mode", opt_bool(g.persistence_mode)},
                     {"compute_mode", string_or_null(g.compute_mode)},
                     {"mig_enabled", opt_bool(g.mig_enabled)},
                     {"pcie_generation", opt_uint(g.pcie_generation)},
                     {"pcie_width", opt_uint(g.pcie_width)},
                     {"pcie_generation_max", opt_uint(g.pcie_generation_max)},
                     {"pcie_width_max", opt_uint(g.pcie_width_max)},
                     {"clock_event_reasons", detail::u64_or_null(g.clock_event_reasons)},
                     {"clock_event_reason_names", g.clock_event_reason_names},
                     {"processes", processes},
                     {"unavailable", unavailable}};
}

/// NVML status → {"available", "error", "driver_version", "device_count"}.
inline void to_json(nlohmann::json& j, const NvmlInfo& n) {
  j = nlohmann::json{{"available", n.available},
                     {"error", detail::string_or_null(n.error)},
                     {"driver_version", detail::string_or_null(n.driver_version)},
                     {"device_count", n.device_count ? nlohmann::json(*n.device_count) : nlohmann::json(nullptr)}};
}

/// Tool record → {"command", "exit_code", "output", "error", "seconds"}.
inline void to_json(nlohmann::json& j, const ToolRecord& t) {
  j = nlohmann::json{{"command", t.command},
                     {"exit_code", t.exit_code ? nlohmann::json(*t.exit_code) : nlohmann::json(nullptr)},
                     {"output", detail::string_or_null(t.output)},
                     {"error", detail::string_or_null(t.error)},
                     {"seconds", detail::number_or_null(t.seconds)}};
}

/// CUDA device → JSON (units in the keys).
inline void to_json(nlohmann::json& j, const CudaDeviceInfo& g) {
  using detail::number_or_null;
  j = nlohmann::json{
      {"ordinal", g.ordinal},
      {"name", g.name},
      {"uuid", detail::string_or_null(g.uuid)},
      {"pci_bus_id", detail::string_or_null(g.pci_bus_id)},
      {"compute_capability", std::to_string(g.compute_capability_major) + "." + std::to_string(g.compute_capability_minor)},
      {"multiprocessors", g.multiprocessors},
      {"total_memory_bytes", g.total_memory_bytes},
      {"l2_cache_bytes", g.l2_cache_bytes},
      {"persisting_l2_max_bytes", g.persisting_l2_max_bytes},
      {"sm_clock_max_mhz", number_or_null(g.sm_clock_max_mhz)},
      {"memory_clock_max_mhz", number_or_null(g.memory_clock_max_mhz)},
      {"memory_bus_width_bits", g.memory_bus_width_bits ? nlohmann::json(*g.memory_bus_width_bits) : nlohmann::json(nullptr)},
      {"shared_memory_per_block_optin_bytes", g.shared_memory_per_block_optin_bytes},
      {"max_threads_per_multiprocessor", g.max_threads_per_multiprocessor},
      {"ecc_enabled", g.ecc_enabled},
      {"integrated", g.integrated},
      {"numa_node", g.numa_node ? nlohmann::json(*g.numa_node) : nlohmann::json(nullptr)},
      {"local_cpulist", detail::string_or_null(g.local_cpulist)},
      {"nvml", g.nvml ? nlohmann::json(*g.nvml) : nlohmann::json(nullptr)},
  };
}

/// CUDA info → {"runtime_version", "driver_version", "device_count", "error", "devices"}.
inline void to_json(nlohmann::json& j, const CudaInfo& c) {
  auto opt_int = [](const std::optional<int>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  j = nlohmann::json{{"runtime_version", opt_int(c.runtime_version)},
                     {"driver_version", opt_int(c.driver_version)},
                     {"device_count", c.device_count},
                     {"error", detail::string_or_null(c.error)},
                     {"devices", c.devices}};
}

/// Environment → {"gauge_version", "host", "compiler", "environment_variables", "cuda", "warnings"}.
inline void to_json(nlohmann::json& j, const Environment& e) {
  nlohmann::json vars = nlohmann::json::object();
  for (const auto& [k, v] : e.environment_variables) vars[k] = detail::string_or_null(v);
  nlohmann::json tools = nlohmann::json::object();
  for (const auto& [name, rec] : e.tools) tools[name] = rec;
  j = nlohmann::json{{"gauge_version", e.gauge_version},
                     {"host", e.host},
                     {"compiler", e.compiler},
                     {"environment_variables", vars},
                     {"cuda", e.cuda},
                     {"nvml", e.nvml},
                     {"tools", tools},
                     {"warnings", e.warnings}};
}

/// The current UTC time as ISO 8601, e.g. "2026-11-30T13:45:00Z".
inline std::string utc_timestamp() {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

/// The whole report document: schema, version, creation time, environment, experiments.
inline nlohmann::json report_json(const Environment& env, const std::vector<Result>& results,
                                  const std::string& created_utc = utc_timestamp()) {
  nlohmann::json experiments = nlohmann::json::array();
  for (const auto& r : results) experiments.push_back(r);
  return nlohmann::json{{"schema", report_schema_name},
                        {"schema_version", report_schema_version},
                        {"gauge_version", version_string},
                        {"created_utc", created_utc},
                        {"environment", env},
                        {"experiments", experiments}};
}

namespace detail {
inline std::filesystem::path temporary_sibling(const std::filesystem::path& path) {
  std::random_device rd;
  return path.parent_path() / (path.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" +
                               std::to_string(rd()));
}
inline std::filesystem::path directory_of(const std::filesystem::path& path) {
  auto dir = path.parent_path();
  return dir.empty() ? std::filesystem::path(".") : dir;
}
}  // namespace detail

/// Throws ReportError unless a file can be created at `path` (its directory exists and is
/// writable, and `path` is not a directory). Creates and removes a temporary file beside it.
inline void check_writable(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  if (path.empty()) throw ReportError("report path is empty");
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw ReportError("cannot write report to " + path.string() + ": it is a directory");
  // The atomic rename would replace whatever is there: only a regular file may be.
  if (fs::exists(path, ec) && !fs::is_regular_file(path, ec))
    throw ReportError("cannot write report to " + path.string() + ": it exists and is not a regular file");
  const fs::path dir = detail::directory_of(path);
  if (!fs::is_directory(dir, ec))
    throw ReportError("cannot write report to " + path.string() + ": directory " + dir.string() + " does not exist");
  const fs::path probe = detail::temporary_sibling(path);
  int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0)
    throw ReportError("cannot write report to " + path.string() + ": " + std::strerror(errno));
  ::close(fd);
  fs::remove(probe, ec);
}

/// Writes `text` to `path` atomically: a temporary file in the same directory, fsync, rename.
/// A crash never leaves a half-written file at `path`. Throws ReportError naming the path and
/// the system error.
inline void write_file_atomic(const std::filesystem::path& path, const std::string& text) {
  const auto tmp = detail::temporary_sibling(path);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) throw ReportError("cannot write report to " + path.string() + ": " + std::strerror(errno));
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string err = std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      throw ReportError("cannot write report to " + path.string() + ": " + err);
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  const int synced = ::fsync(fd);
  const int sync_errno = errno;
  const int closed = ::close(fd);
  if (synced != 0 || closed != 0) {
    const std::string err = std::strerror(synced != 0 ? sync_errno : errno);
    ::unlink(tmp.c_str());
    throw ReportError("cannot write report to " + path.string() + ": " + err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string err = std::strerror(errno);
    ::unlink(tmp.c_str());
    throw ReportError("cannot write report to " + path.string() + ": " + err);
  }
}

}  // namespace gauge
