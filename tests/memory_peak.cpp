// Each experiment's host memory peak is its own (issue 25): the first experiment's step touches
// 256 MiB (allocated and freed in each step, so RSS returns to the OS), the second touches nothing.
// Expected, from /proc/self/status read here independently: the first's host_rss_peak_bytes is at
// least 256 MiB above the process's RSS before it; the second's is below the first's by at least
// 200 MiB (it would equal it if the process-lifetime VmHWM were reported). Where
// /proc/self/clear_refs cannot be written the peak must be absent instead. Not sanitized (ASan's
// quarantine keeps freed memory resident).
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>

#include <gauge/env/process.hpp>
#include <gauge/gauge.hpp>

int main() {
  const std::size_t big = std::size_t{256} << 20;
  const bool can_reset = static_cast<bool>(std::ofstream("/proc/self/clear_refs"));
  const auto before = gauge::detail::read_process_memory().rss_bytes.value_or(0);
  gauge::Config c;
  c.warmup.max_time = std::chrono::milliseconds(50);
  c.measure.max_time = std::chrono::milliseconds(200);
  c.measure.min_samples = 5;
  auto heavy = gauge::make_experiment<gauge::HostBackend>("touch 256 MiB", [&](gauge::HostStream) {
    std::unique_ptr<char[]> p(new char[big]);
    std::memset(p.get(), 1, big);
    gauge::do_not_optimize(p[big - 1]);
  });
  heavy.config(c);
  const gauge::Result a = heavy.run();
  auto light = gauge::make_experiment<gauge::HostBackend>("touch nothing", [&](gauge::HostStream) { gauge::clobber_memory(); });
  light.config(c);
  const gauge::Result b = light.run();
  const auto pa = a.memory.host_rss_peak_bytes, pb = b.memory.host_rss_peak_bytes;
  std::printf("clear_refs writable: %d; RSS before %.1f MiB; peaks: heavy %.1f MiB, light %.1f MiB\n", can_reset ? 1 : 0,
              double(before) / (1 << 20), pa ? double(*pa) / (1 << 20) : -1.0, pb ? double(*pb) / (1 << 20) : -1.0);
  if (!can_reset) {
    if (pa || pb) {
      std::fprintf(stderr, "FAIL: without a writable /proc/self/clear_refs the peaks must be absent\n");
      return 1;
    }
    return 0;
  }
  if (!pa || !pb) {
    std::fprintf(stderr, "FAIL: a peak is missing although /proc/self/clear_refs is writable\n");
    return 1;
  }
  int failed = 0;
  if (*pa < before + big) {
    std::fprintf(stderr, "FAIL: the heavy experiment's peak is not 256 MiB above the RSS before it\n");
    failed = 1;
  }
  if (*pb + (std::size_t{200} << 20) > *pa) {
    std::fprintf(stderr, "FAIL: the light experiment's peak carries the heavy one's\n");
    failed = 1;
  }
  return failed;
}
