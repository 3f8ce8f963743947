#pragma once
/// \file gauge/implementation.hpp
/// gauge's compiled part: the measurement protocol, its diagnosis and monitoring (NVML), the
/// environment capture, the JSON report and the console summary. Compiled once per program:
/// - **through CMake** (`gauge::gauge`, `gauge::host`, from find_package, add_subdirectory or
///   FetchContent), gauge builds it for you as a static library in your build tree, with your
///   compiler and flags (src/implementation.cpp). Those targets define
///   `GAUGE_LINKS_IMPLEMENTATION`, which makes this header (and `GAUGE_IMPLEMENTATION`) declare
///   nothing more, so a program that still defines the macro builds unchanged, without duplicate
///   symbols;
/// - **in a plain build** (nvcc or g++ on the command line), in exactly one source file:
/// \code
///   #define GAUGE_IMPLEMENTATION   // in one source file of the program, before the include
///   #include <gauge/gauge.hpp>
/// \endcode
///   or include this header once. Forgetting it gives linker errors naming
///   `gauge::detail::run_protocol` or `gauge::Report::write`.
///
/// Every other file includes only what it uses (gauge/gauge.hpp), so they compile in about a
/// second. The compiled part is host code: in a .cu file, nvcc's device pass skips it, so include
/// the headers of what the file calls itself (e.g. gauge/report/json.hpp for `write_file_atomic`)
/// rather than relying on this one. Nothing to link beyond the CUDA runtime (and {fmt}, as the
/// CMake targets do; see gauge/detail/text.hpp for its header-only mode).

#if !defined(__CUDA_ARCH__)  // host code only: nvcc's device pass skips the whole file

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gauge/report/dump.hpp"
#include "gauge/detail/text.hpp"
#include "gauge/detail/timer_trace.hpp"
#include "gauge/env/cupti.hpp"
#include "gauge/experiment.hpp"
#include "gauge/env/environment.hpp"
#include "gauge/env/nvml.hpp"
#include "gauge/env/process.hpp"
#include "gauge/env/telemetry.hpp"
#include "gauge/protocol/interleave.hpp"
#include "gauge/protocol/protocol.hpp"
#include "gauge/protocol/seam.hpp"
#include "gauge/core/timer_summary.hpp"
#include "gauge/core/environment.hpp"
#include "gauge/core/result.hpp"
#include "gauge/report.hpp"
#include "gauge/report/console.hpp"
#include "gauge/report/json.hpp"
#include "gauge/report/peaks_cache.hpp"
#include "gauge/report/timer_json.hpp"

// Linked from the library CMake built (GAUGE_LINKS_IMPLEMENTATION): the definitions are there.
#if !defined(GAUGE_LINKS_IMPLEMENTATION)

namespace gauge {
namespace detail {

template class BackendAdaptorBase<HostBackend>;

ExperimentSpec::ExperimentSpec() = default;
ExperimentSpec::ExperimentSpec(const ExperimentSpec&) = default;
ExperimentSpec::ExperimentSpec(ExperimentSpec&&) noexcept = default;
ExperimentSpec& ExperimentSpec::operator=(const ExperimentSpec&) = default;
ExperimentSpec& ExperimentSpec::operator=(ExperimentSpec&&) noexcept = default;
ExperimentSpec::~ExperimentSpec() = default;
void ExperimentSpec::set_dimension(const std::string& key, DimensionValue value) { dimensions[key] = std::move(value); }
void ExperimentSpec::set_item(const std::string& item, double per_step) { work.items[item] = per_step; }

/// The Timer's traced step over CUPTI (gauge/detail/timer_trace.hpp): every activity launched
/// while an id is pushed belongs to it; the innermost id wins (CUPTI's external correlation).
class CuptiTimerTraceSession final : public TimerTraceSession {
 public:
  CuptiTimerTraceSession() : lib_(cupti::Library::active()), tracer_(lib_) {}
  ~CuptiTimerTraceSession() override {
    for (; !stack_.empty(); stack_.pop_back()) tracer_.pop();  // CUPTI's stack as it was found
  }
  CuptiTimerTraceSession(const CuptiTimerTraceSession&) = delete;
  CuptiTimerTraceSession& operator=(const CuptiTimerTraceSession&) = delete;
  std::string start() override {
    if (!lib_.available()) return lib_.error();
    if (const std::string other = cupti::other_client(lib_); !other.empty()) return "disabled: " + other;
    return tracer_.start();
  }
  void push(std::uint32_t id) override {
    stack_.push_back(id);
    tracer_.push(base + id);
  }
  void pop(std::uint32_t id) override {
    // CUPTI's ids are a stack; a region that stops out of order takes the ones above it off and
    // puts them back.
    const auto it = std::find(stack_.rbegin(), stack_.rend(), id);
    if (it == stack_.rend()) return;
    const std::size_t at = static_cast<std::size_t>(stack_.rend() - it) - 1;
    const std::vector<std::uint32_t> above(stack_.begin() + static_cast<std::ptrdiff_t>(at) + 1, stack_.end());
    for (std::size_t i = stack_.size(); i > at; --i) tracer_.pop();
    stack_.resize(at);
    for (std::uint32_t a : above) push(a);
  }
  TimerKernelTrace collect(const std::vector<std::string>& names, double step_gpu_time_s, bool with_next) override {
    for (; !stack_.empty(); stack_.pop_back()) tracer_.pop();
    cupti::Collected c = tracer_.stop();
    TimerKernelTrace t;
    t.status = "traced";
    if (!c.error.empty()) {
      t.status = "unavailable";
      t.reason = "CUPTI failed while tracing: " + c.error;
      t.tool = lib_.description();
      return t;
    }
    t.tool = lib_.description();
    t.records = c.activities.size();
    if (step_gpu_time_s > 0) t.step_gpu_time_s = step_gpu_time_s;
    std::vector<std::vector<Activity>> by_id(names.size() + 1);
    std::optional<std::uint64_t> next_start;  // the next step's first activity
    std::optional<std::uint64_t> first;       // the traced step's first activity
    std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;
    for (auto& a : c.activities) {
      const auto e = c.external.find(a.correlation_id);
      if (e == c.external.end() || e->second < base) continue;
      if (e->second - base == TimerTraceSession::next_step) {
        if (with_next) next_start = std::min(next_start.value_or(a.start_ns), a.start_ns);
        continue;
      }
      if (e->second - base > names.size()) continue;
      a.unit = 0;
      first = std::min(first.value_or(a.start_ns), a.start_ns);
      spans.emplace_back(a.start_ns, a.end_ns);
      by_id[e->second - base].push_back(std::move(a));
      ++t.attributed_records;
    }
    if (t.attributed_records == 0) {
      t.status = "unavailable";
      t.reason = c.activities.empty() ? "CUPTI delivered no kernel, memcpy or memset records"
                                      : "no record could be tied to the sampled step";
      return t;
    }
    double total = 0;
    for (std::size_t i = 1; i <= names.size() + 1; ++i) {
      const std::size_t id = i % (names.size() + 1);  // regions in order, then 0: outside them
      if (by_id[id].empty()) continue;
      const KernelTraceRecord k = summarize_trace(std::move(by_id[id]), 1, 1, t.step_gpu_time_s);
      TimerRegionKernels r;
      r.region = id ? names[id - 1] : "(outside regions)";
      r.kernel_time_s = k.kernel_time_per_step_s.value_or(0);
      r.kernels = k.kernels;
      total += r.kernel_time_s;
      t.regions.push_back(std::move(r));
    }
    t.kernel_time_s = total;
    t.busy_s = static_cast<double>(union_length(spans)) * 1e-9;
    if (first && next_start && *next_start >= *first) {
      t.device_period_s = static_cast<double>(*next_start - *first) * 1e-9;
      t.gaps_s = *t.device_period_s - *t.busy_s;
      if (t.step_gpu_time_s) t.closure = (total + *t.gaps_s) / *t.step_gpu_time_s - 1;
    }
    return t;
  }

 private:
  static constexpr std::uint64_t base = std::uint64_t{1} << 40;  // the Timer's ids; the protocol's are below
  cupti::Library& lib_;
  cupti::Tracer tracer_;
  std::vector<std::uint32_t> stack_;
};

std::unique_ptr<TimerTraceSession> make_cupti_timer_trace_session() { return std::make_unique<CuptiTimerTraceSession>(); }
/// Registers the Timer's kernel tracing when the program starts.
const bool timer_trace_registered = (timer_trace_factory() = &make_cupti_timer_trace_session, true);

Result run_protocol(const ExperimentSpec& spec, ProtocolBackend& backend) {
  Protocol protocol(spec, backend);
  return protocol.run();
}

InterleavedResult run_interleaved(const ExperimentSpec& a, ProtocolBackend& backend_a, const ExperimentSpec& b,
                                  ProtocolBackend& backend_b, const InterleaveConfig& config) {
  InterleavedRun run(a, backend_a, b, backend_b, config);
  return run.run();
}

ProcessMemory read_host_process_memory() { return detail::read_process_memory(); }
bool reset_host_process_memory_peak() { return detail::reset_process_memory_peak(); }
std::optional<std::uint64_t> read_host_memory_total() { return detail::read_memory_total(); }
unsigned current_process_id() { return static_cast<unsigned>(::getpid()); }

/// NVML's driver version ("580.95.05"), or "" without NVML: the cache key beside the UUID.
std::string nvml_driver_version() {
  auto lib = nvml::Library::shared();
  char buf[96] = {0};
  const auto& a = lib->api();
  if (lib->ok() && a.system_get_driver_version && a.system_get_driver_version(buf, sizeof buf) == nvml::success) return buf;
  return "";
}

std::vector<Peak> read_measured_peaks(const std::optional<std::string>& uuid, std::string& source) {
  if (!uuid || uuid->empty()) {
    source = "no GPU UUID: measured peaks not looked up";
    return {};
  }
  std::string why, path;
  auto file = detail::read_peaks_cache(*uuid, nvml_driver_version(), why, &path);
  if (!file) {
    source = why;
    return {};
  }
  source = path;
  return file->peaks;
}

/// `env` with each CUDA device's measured peaks (gauge-peaks' cache) appended to its peaks.
Environment with_measured_peaks(Environment env) {
  for (auto& d : env.cuda.devices) {
    if (!d.peaks) continue;
    std::string source;
    auto measured = read_measured_peaks(d.uuid, source);
    d.peaks->measured_source = source;
    for (auto& p : measured) d.peaks->peaks.push_back(std::move(p));
  }
  return env;
}

std::unique_ptr<TelemetryProbe> make_nvml_probe(const std::optional<std::string>& uuid,
                                                const std::optional<std::string>& pci_bus_id, std::string& reason) {
  auto lib = nvml::Library::shared();
  if (!lib->ok()) {
    reason = lib->error().value_or("NVML not available");
    return nullptr;
  }
  auto found = nvml::find_device(*lib, uuid, pci_bus_id);
  if (!found) {
    reason = "NVML has no device with UUID " + uuid.value_or("?") + " or bus id " + pci_bus_id.value_or("?");
    return nullptr;
  }
  return std::make_unique<NvmlProbe>(lib, found->first);
}

}  // namespace detail

struct Report::Data {
  std::string path;
  Environment env;
  std::vector<Result> results;
  std::vector<TimerSummary> timers;
  std::vector<InterleavedRecord> interleaved;
};

Report::Report(std::string path, CapturedWith captured)
    : Report(std::move(path), detail::with_measured_peaks([&] {
               Environment env = capture_environment();
               env.compiler = std::move(captured.compiler);
               return env;
             }())) {}

Report::Report(std::string path, Environment environment)
    : d_(std::make_unique<Data>(Data{std::move(path), std::move(environment), {}, {}, {}})) {
  detail::check_writable(d_->path);
}

Report::Report(const Report& o) : d_(std::make_unique<Data>(*o.d_)) {}
Report::Report(Report&&) noexcept = default;
Report& Report::operator=(const Report& o) {
  if (this != &o) d_ = std::make_unique<Data>(*o.d_);
  return *this;
}
Report& Report::operator=(Report&&) noexcept = default;
Report::~Report() = default;

void Report::add(Result result) { d_->results.push_back(std::move(result)); }
void Report::add(TimerSummary timer) { d_->timers.push_back(std::move(timer)); }
void Report::add(InterleavedResult interleaved) {
  InterleavedRecord record;
  static_cast<InterleavedOutcome&>(record) = std::move(static_cast<InterleavedOutcome&>(interleaved));
  record.a = d_->results.size();
  record.b = record.a + 1;
  d_->results.push_back(std::move(interleaved.a));
  d_->results.push_back(std::move(interleaved.b));
  d_->interleaved.push_back(std::move(record));
}
const std::vector<InterleavedRecord>& Report::interleaved() const { return d_->interleaved; }
const std::vector<Result>& Report::results() const { return d_->results; }
const std::vector<TimerSummary>& Report::timers() const { return d_->timers; }
const Environment& Report::environment() const { return d_->env; }
const std::string& Report::path() const { return d_->path; }

std::string Report::json_text(int indent) const {
  static const std::optional<RanksRecord> one_process;
  const nlohmann::json j =
      detail::report_json(d_->env, d_->results, d_->timers, {}, one_process, d_->interleaved, detail::utc_timestamp());
  return detail::json_dump(j, indent) + "\n";
}

void Report::write() const {
  std::string text;
  try {
    text = json_text(2);
  } catch (const std::exception& e) {
    throw ReportError("cannot write report to " + d_->path + ": " + e.what());
  }
  detail::write_file_atomic(d_->path, text);
}

std::string Report::summary() const {
  std::string timers;
  for (const auto& t : d_->timers) timers += detail::timer_summary_text(t);
  std::string interleaved;
  for (const auto& x : d_->interleaved)
    interleaved += "interleaved A/B, B \"" + d_->results.at(x.b).name + "\" / A \"" + d_->results.at(x.a).name +
                   "\": " + to_string(x.verdict) + ": " + x.reason + "\n";
  return environment_line(d_->env) + summary_table(d_->results) + peaks_table(d_->results) + kernel_table(d_->results) +
         warnings_text(d_->results, d_->env) + interleaved + timers;
}

}  // namespace gauge

#endif  // !defined(GAUGE_LINKS_IMPLEMENTATION)
#endif  // !defined(__CUDA_ARCH__)
