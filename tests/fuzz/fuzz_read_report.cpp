// libFuzzer target for the report reader (issue 11): any input either reads as a report or is
// refused with gauge::ReportError; anything else (a crash, a stack overflow, a sanitizer report,
// another exception) is a bug. A report that reads is written back and must read again.
//
// Build: clang++ -fsanitize=fuzzer,address,undefined (CMake: -DGAUGE_BUILD_FUZZERS=ON with clang).
// Run:   gauge_fuzz_read_report -max_total_time=30 CORPUS_DIR SEED_DIR   (scripts/test.sh does,
//        with tests/data/reports/*.json as the seeds)

#include <gauge/report/json.hpp>
#include <gauge/report/read.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  gauge::StoredReport report;
  try {
    report = gauge::parse_report(text, "fuzz");
  } catch (const gauge::ReportError&) {
    return 0;  // refused, with a message: the expected outcome for most inputs
  }
  // Read: gauge's writer must write it, and the reader read that back.
  const std::string written =
      gauge::detail::report_json(report).dump(2);
  (void)gauge::parse_report(written, "fuzz (written back)");
  return 0;
}
