#pragma once
/// \file gauge/report.hpp
/// gauge::Report: one JSON file per program run, with the environment once and every
/// experiment's result. The output path is checked when the Report is made, before anything is
/// measured; writing is atomic.
///
/// This header is light: the environment capture, the JSON writer and the console summary are
/// gauge's compiled part (gauge/implementation.hpp): built once per build tree by the CMake
/// targets, or in the one file that defines GAUGE_IMPLEMENTATION in a plain build.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gauge/env/compiler.hpp"


namespace gauge {

struct Environment;   // gauge/core/environment.hpp
struct Result;        // gauge/core/result.hpp
struct TimerSummary;  // gauge/core/timer_summary.hpp (the Timer's state)
struct InterleavedResult;  // gauge/core/interleaved.hpp (gauge::interleave's outcome)

namespace records {
struct InterleavedRecord;  // gauge/core/interleaved.hpp

struct SkippedPoint;       // gauge/core/skipped.hpp (a point a suite skipped)
}  // namespace records

struct StoredReport;       // gauge/report/document.hpp (the report document)

/// Collects results and writes the report.
///
/// \code
///   gauge::Report report("gemm.json");      // throws ReportError now if it cannot be written
///   report.add(experiment.run());
///   report.write();                          // atomic: temporary file, then rename
///   std::fputs(report.summary().c_str(), stdout);
/// \endcode
class Report {
 public:
  /// Captures the environment now (host, CUDA, GPUs with NVML, tools), with the compiler of the
  /// file that makes the Report (gauge::compiler_info(), inline here for that reason).
  /// \param path where write() puts the report. Throws ReportError if a file cannot be created
  ///   there (missing directory, no permission, a directory of that name).
  explicit Report(std::string path) : Report(std::move(path), CapturedWith{detail::compiler_info()}) {}
  /// Records the given environment instead of capturing one. Throws as above.
  Report(std::string path, Environment environment);
  Report(const Report&);
  Report(Report&&) noexcept;
  Report& operator=(const Report&);
  Report& operator=(Report&&) noexcept;
  ~Report();

  /// Adds a result (ok or failed); the report keeps them in order.
  void add(Result result);
  /// Adds a Timer's state (usually `timer.finish()`); written to the report's `timers` list.
  void add(TimerSummary timer);
  /// Adds an interleaved A/B run (gauge::interleave): its results A and B, in that order, to the
  /// experiments, and its paired ratio, verdict and settings to the report's `interleaved` list,
  /// naming A and B by their index in the experiments.
  void add(InterleavedResult interleaved);
  /// Adds a point a suite skipped (the report's `skipped` list).
  void add(records::SkippedPoint skipped);

  /// The results added so far.
  const std::vector<Result>& results() const;
  /// The Timer summaries added so far.
  const std::vector<TimerSummary>& timers() const;
  /// The interleaved runs added so far (their results are in results()).
  const std::vector<records::InterleavedRecord>& interleaved() const;
  /// The skipped points added so far.
  const std::vector<records::SkippedPoint>& skipped() const;
  /// The environment recorded.
  const Environment& environment() const;
  /// Where write() writes.
  const std::string& path() const;

  /// The report as JSON text (schema, schema_version, gauge_version, created_utc, environment,
  /// experiments, timers), indented by `indent` spaces. Invalid UTF-8 in a name, dimension or
  /// error message becomes U+FFFD instead of losing the whole report.
  std::string json_text(int indent = 2) const;

  /// The report document as write() would write it now (this version's schema, `created_utc`
  /// now, `source` the path): what every export format writes (gauge::export_text in
  /// gauge/report/formats.hpp, `gauge::formats::find_export_format(name).write(doc, options)`).
  StoredReport document() const;

  /// Writes the report atomically (temporary file, then rename; see write_file_atomic: a kill -9
  /// leaves no temporary file where the file system has O_TMPFILE). A symbolic link at the path is
  /// followed: its target is written and the link kept. Throws ReportError naming the path and the
  /// system error.
  void write() const;

  /// The console summary: the export format `console` of document() (the machine line, the
  /// table, every warning in full, the interleaved verdicts, then the Timers' summaries).
  std::string summary() const;

 private:
  /// The compiler of the file that called Report(path), for the environment's `compiler`.
  struct CapturedWith {
    env::CompilerInfo compiler;
  };
  Report(std::string path, CapturedWith captured);

  struct Data;  // path, environment, results, timers: defined with the implementation
  std::unique_ptr<Data> d_;
};

}  // namespace gauge
