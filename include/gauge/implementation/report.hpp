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
#include "gauge/report/export_console.hpp"
#include "gauge/report/json.hpp"
#include "gauge/report/timer_json.hpp"

namespace gauge {

struct Report::Data {
  std::string path;
  StoredReport doc;  // source, schema and versions stay empty: report_json writes this version's
};

Report::Report(std::string path, CapturedWith captured)
    : Report(std::move(path), detail::capture_report_environment(std::move(captured.compiler))) {}

Report::Report(std::string path, Environment environment)
    : d_(std::make_unique<Data>()) {
  d_->path = std::move(path);
  d_->doc.environment = std::move(environment);
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

void Report::add(Result result) {
  detail::finite_dimensions(result.dimensions);
  d_->doc.results.push_back(std::move(result));
}
void Report::add(TimerSummary timer) { d_->doc.timers.push_back(std::move(timer)); }
void Report::add(records::SkippedPoint skipped) {
  detail::finite_dimensions(skipped.dimensions);
  d_->doc.skipped.push_back(std::move(skipped));
}
void Report::add(InterleavedResult interleaved) {
  records::InterleavedRecord record;
  static_cast<records::InterleavedOutcome&>(record) = std::move(static_cast<records::InterleavedOutcome&>(interleaved));
  record.a = d_->doc.results.size();
  record.b = record.a + 1;
  detail::finite_dimensions(interleaved.a.dimensions);
  detail::finite_dimensions(interleaved.b.dimensions);
  d_->doc.results.push_back(std::move(interleaved.a));
  d_->doc.results.push_back(std::move(interleaved.b));
  d_->doc.interleaved.push_back(std::move(record));
}
const std::vector<records::InterleavedRecord>& Report::interleaved() const { return d_->doc.interleaved; }
const std::vector<Result>& Report::results() const { return d_->doc.results; }
const std::vector<TimerSummary>& Report::timers() const { return d_->doc.timers; }
const std::vector<records::SkippedPoint>& Report::skipped() const { return d_->doc.skipped; }
const Environment& Report::environment() const { return d_->doc.environment; }
const std::string& Report::path() const { return d_->path; }

StoredReport Report::document() const {
  StoredReport doc = d_->doc;
  doc.source = d_->path;
  doc.schema = report_schema_name;
  doc.schema_version = report_schema_version;
  doc.gauge_version = version_string;
  doc.created_utc = detail::utc_timestamp();
  return doc;
}

std::string Report::json_text(int indent) const {
  return detail::json_dump(detail::report_json(d_->doc), indent) + "\n";
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

std::string Report::summary() const { return detail::export_::write_console(document(), ExportOptions{}); }

}  // namespace gauge

#endif  // !defined(__CUDA_ARCH__) && !defined(GAUGE_LINKS_IMPLEMENTATION)
