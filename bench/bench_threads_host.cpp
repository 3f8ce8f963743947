// A host step on several threads at once (Experiment::threads), beside what a user would
// otherwise write: Google Benchmark's ->Threads(n) (where Debian's libbenchmark-dev is installed)
// and a hand-written loop (n std::threads, a start barrier, each thread running the step N times,
// the wall time over N). The step is a fixed chain of dependent multiply-adds (about 2 µs, the
// same instructions on every thread, no memory traffic), so with n at most the free cores the
// true time per step is the one-thread time: what each tool adds on top is its cost.
//
// Each tool measures each thread count 5 times, interleaved; the table gives the median and the
// spread ((max − min) / median) of the 5 per-step times. gauge: the result's median per step
// (real time, Config::quick()); Google Benchmark: real time per iteration (its per-thread time,
// averaged over the threads), --benchmark_min_time 0.5 s; the loop: wall / N, N = 20 000.
//
// Build: CMake target bench_threads_host (gauge::host; Google Benchmark when found), or
//   g++ -std=c++17 -O2 -DNDEBUG -DGAUGE_NO_CUDA -Iinclude bench/bench_threads_host.cpp -lfmt -pthread -ldl [-lbenchmark]
//
//   bench_threads_host [--threads 1,2,4] [--runs 5]

#define GAUGE_IMPLEMENTATION
#include <gauge/gauge.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#if __has_include(<benchmark/benchmark.h>) && !defined(GAUGE_BENCH_NO_GBENCH)
#include <benchmark/benchmark.h>
#define GAUGE_BENCH_GBENCH 1
#else
#define GAUGE_BENCH_GBENCH 0
#endif

namespace {

using clock_type = std::chrono::steady_clock;

/// The step: 4000 dependent multiply-adds on a thread-local value.
double work(double x) {
  for (int i = 0; i < 4000; ++i) x = x * 0.999999 + 1e-7;
  return x;
}
std::atomic<double> sink{0};

double gauge_step_time(unsigned threads) {
  std::vector<double> acc(threads, 1.0);
  auto exp = gauge::make_experiment<gauge::HostBackend>("chain", [&](gauge::HostStream s) {
    acc[s.thread] = work(acc[s.thread]);
  });
  exp.config(gauge::Config::quick()).threads(threads);
  const gauge::Result r = exp.run();
  double total = 0;
  for (double a : acc) total += a;
  sink.store(sink.load() + total);
  return r.status == gauge::Status::ok && r.gpu_time.p50 ? *r.gpu_time.p50 : -1.0;
}

double loop_step_time(unsigned threads, long n) {
  std::atomic<unsigned> ready{0};
  std::atomic<bool> go{false};
  std::vector<double> acc(threads, 1.0);
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back([&, t] {
      ++ready;
      while (!go.load()) std::this_thread::yield();
      for (long i = 0; i < n; ++i) acc[t] = work(acc[t]);
    });
  while (ready.load() + 1 < threads) std::this_thread::yield();
  const auto t0 = clock_type::now();
  go = true;
  for (long i = 0; i < n; ++i) acc[0] = work(acc[0]);
  for (auto& th : pool) th.join();
  const double wall = std::chrono::duration<double>(clock_type::now() - t0).count();
  double total = 0;
  for (double a : acc) total += a;
  sink.store(sink.load() + total);
  return wall / static_cast<double>(n);
}

#if GAUGE_BENCH_GBENCH
/// Keeps the last run's real time per iteration.
class LastRun : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) seconds = r.GetAdjustedRealTime() * 1e-9;  // the default unit is ns
  }
  double seconds = -1;
};
double gbench_step_time(unsigned threads) {
  benchmark::ClearRegisteredBenchmarks();
  benchmark::RegisterBenchmark("chain", [](benchmark::State& state) {
    double x = 1.0;
    for (auto _ : state) {
      x = work(x);
      benchmark::DoNotOptimize(x);
    }
  })->Threads(static_cast<int>(threads))->UseRealTime();
  LastRun reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  return reporter.seconds;
}
#endif

std::vector<unsigned> parse_threads(const char* text) {
  std::vector<unsigned> out;
  std::string s(text);
  std::size_t pos = 0;
  while (pos <= s.size()) {
    const std::size_t comma = s.find(',', pos);
    const std::string item = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    char* end = nullptr;
    const long v = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || v < 1 || v > 256) {
      std::fprintf(stderr, "bench_threads_host: --threads wants a list of counts in [1, 256], got '%s'\n", text);
      std::exit(2);
    }
    out.push_back(static_cast<unsigned>(v));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<unsigned> counts = {1, 2};
  int runs = 5;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) counts = parse_threads(argv[++i]);
    else if (!std::strcmp(argv[i], "--runs") && i + 1 < argc) runs = std::max(1, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr, "usage: bench_threads_host [--threads 1,2,4] [--runs 5]\n");
      return 2;
    }
  }
#if GAUGE_BENCH_GBENCH
  int gb_argc = 2;
  char arg0[] = "bench_threads_host", arg1[] = "--benchmark_min_time=0.5s";
  char* gb_argv[] = {arg0, arg1, nullptr};
  benchmark::Initialize(&gb_argc, gb_argv);
#endif
  struct Row {
    std::string tool;
    unsigned threads;
    std::vector<double> s;
  };
  std::vector<Row> rows;
  for (unsigned n : counts) {
    rows.push_back({"gauge threads(n)", n, {}});
#if GAUGE_BENCH_GBENCH
    rows.push_back({"Google Benchmark ->Threads(n)", n, {}});
#endif
    rows.push_back({"hand loop (wall / N)", n, {}});
  }
  for (int r = 0; r < runs; ++r)
    for (auto& row : rows) {
      if (row.tool[0] == 'g') row.s.push_back(gauge_step_time(row.threads));
#if GAUGE_BENCH_GBENCH
      else if (row.tool[0] == 'G') row.s.push_back(gbench_step_time(row.threads));
#endif
      else row.s.push_back(loop_step_time(row.threads, 20000));
    }
  std::printf("gauge %s; %u hardware threads; %d runs per row, interleaved\n\n", gauge::version_string,
              std::thread::hardware_concurrency(), runs);
  std::printf("| threads | tool | median µs per step | spread %% | vs the hand loop |\n|---:|---|---:|---:|---:|\n");
  for (unsigned n : counts) {
    double loop = 0;
    for (auto& row : rows)
      if (row.threads == n && row.tool[0] == 'h') {
        std::sort(row.s.begin(), row.s.end());
        loop = row.s[row.s.size() / 2];
      }
    for (auto& row : rows) {
      if (row.threads != n) continue;
      std::sort(row.s.begin(), row.s.end());
      const double med = row.s[row.s.size() / 2];
      std::printf("| %u | %s | %.4f | %.2f | %+.2f %% |\n", n, row.tool.c_str(), med * 1e6,
                  100 * (row.s.back() - row.s.front()) / med, 100 * (med / loop - 1));
    }
  }
  std::printf("\n(sink %.3g)\n", sink.load());
  return 0;
}
