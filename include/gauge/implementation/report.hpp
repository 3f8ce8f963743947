#pragma once
/// \file gauge/implementation/report.hpp
/// The report's compiled part: `Report` (the JSON document, the atomic write, the console
/// summary; the environment it captures when made comes from gauge/implementation/environment.hpp). Part of gauge/implementation.hpp
/// (src/report.cpp through CMake); host code only, and empty where the program links the library
/// CMake built (GAUGE_LINKS_IMPLEMENTATION).

#if !defined(__CUDA_ARCH__) && !defined(GAUGE_LINKS_IMPLEMENTATION)

#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/environment.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/timer_summary.hpp"
#include "gauge/protocol/seam.hpp"
#include "gauge/report.hpp"
#include "gauge/report/console.hpp"
#include "gauge/report/dump.hpp"
#include "gauge/report/json.hpp"
#include "gauge/report/timer_json.hpp"

namespace gauge {

struct Report::Data {
  std::string path;
  Environment env;
  std::vector<Result> results;
  std::vector<TimerSummary> timers;
  std::vector<InterleavedRecord> interleaved;
};

Report::Report(std::string path, CapturedWith captured)
    : Report(std::move(path), detail::capture_report_environment(std::move(captured.compiler))) {}

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

#endif  // !defined(__CUDA_ARCH__) && !defined(GAUGE_LINKS_IMPLEMENTATION)
