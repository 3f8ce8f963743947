#pragma once
/// \file gauge/implementation/tracing.hpp
/// Kernel tracing's compiled part: the CUPTI implementations of the protocol's KernelTracer
/// (Config::trace_kernels) and of the Timer's TimerTraceSession (TimerConfig::trace_kernels),
/// registered when the program starts. Included by <gauge/tracing.hpp> in the file that defines
/// GAUGE_IMPLEMENTATION (src/tracing.cpp through CMake, in the library behind gauge::tracing); host
/// code only, and empty where the program links that library (GAUGE_LINKS_TRACING).

#if !defined(__CUDA_ARCH__) && !defined(GAUGE_LINKS_TRACING)

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/kernel_trace.hpp"
#include "gauge/core/kernel_trace_summary.hpp"
#include "gauge/core/timer_summary.hpp"
#include "gauge/detail/kernel_tracer.hpp"
#include "gauge/detail/timer_trace.hpp"
#include "gauge/env/cupti.hpp"

namespace gauge::detail {

/// The protocol's traced round over CUPTI (gauge/detail/kernel_tracer.hpp).
class CuptiKernelTracer final : public KernelTracer {
 public:
  CuptiKernelTracer() : lib_(cupti::Library::active()), tracer_(lib_) {}
  std::string tool() const override { return lib_.description(); }
  std::string check(bool& disabled) override {
    disabled = false;
    if (!lib_.available()) return lib_.error();
    std::string other = cupti::other_client(lib_);
    disabled = !other.empty();
    return other;
  }
  std::string start() override { return tracer_.start(); }
  void push(std::uint64_t id) override { tracer_.push(id); }
  void pop() override { tracer_.pop(); }
  cupti::Collected stop() override { return tracer_.stop(); }
  records::KernelTraceRecord summarize(std::vector<records::Activity> activities, std::size_t units, std::size_t steps_per_unit,
                              std::optional<double> period_s) override {
    return summarize_trace(std::move(activities), units, steps_per_unit, period_s);
  }

 private:
  cupti::Library& lib_;
  cupti::Tracer tracer_;
};

std::unique_ptr<KernelTracer> make_cupti_kernel_tracer() { return std::make_unique<CuptiKernelTracer>(); }

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
  records::TimerKernelTrace collect(const std::vector<std::string>& names, double step_gpu_time_s, bool with_next) override {
    for (; !stack_.empty(); stack_.pop_back()) tracer_.pop();
    cupti::Collected c = tracer_.stop();
    records::TimerKernelTrace t;
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
    std::vector<std::vector<records::Activity>> by_id(names.size() + 1);
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
      const records::KernelTraceRecord k = summarize_trace(std::move(by_id[id]), 1, 1, t.step_gpu_time_s);
      records::TimerRegionKernels r;
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

bool register_kernel_tracing() {
  kernel_tracer_factory() = &make_cupti_kernel_tracer;
  timer_trace_factory() = &make_cupti_timer_trace_session;
  return true;
}
/// Registers kernel tracing, the protocol's and the Timer's, when the program starts.
const bool kernel_tracing_registered = register_kernel_tracing();

}  // namespace gauge::detail

#endif  // !defined(__CUDA_ARCH__) && !defined(GAUGE_LINKS_TRACING)
