// Compile-time benchmark, program A written with Google Benchmark: the same std::sort benchmark.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <random>
#include <vector>

static void sort_benchmark(benchmark::State& state) {
  std::vector<int> v(1 << 16);
  std::mt19937 rng(1);
  for (auto _ : state) {
    for (auto& x : v) x = static_cast<int>(rng());
    std::sort(v.begin(), v.end());
    benchmark::DoNotOptimize(v.data());
  }
  state.SetItemsProcessed(state.iterations() * (1 << 16));
}
BENCHMARK(sort_benchmark);
