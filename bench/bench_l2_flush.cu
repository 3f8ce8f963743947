// A cold cache that is really cold (issue "Speed of light"), and the memory-peak warning:
//
// 1. A read-only step over 3/4 of the L2 (a reduction, nothing written), timed four ways:
//    - reference ("clean cold", constructed here, not by gauge): before every sample a memset of a
//      2 x L2 scratch (evicts everything), then a read of a *second* 2 x L2 scratch (evicts the
//      memset's dirty lines: their write-back happens here), then a host synchronize, so nothing of
//      the flush is in flight or dirty when the step's event pair starts; the event pair and the
//      step are then queued behind gauge's launch gate and released together, so the idle GPU's
//      launch latency after the synchronize is not timed (without the gate it was: +2 us);
//    - gauge's cold_cache() (gauge/cuda/l2_flush.hpp: a read of 2 x L2 before each step's events);
//    - the old write flush (a memset of 2 x L2 right before the event pair, as gauge did: its dirty
//      lines are written back while the step runs);
//    - hot (no flush), for scale.
//    Prints each median and its ratio to the reference; gauge's must be within 5 %.
// 2. A hot device-to-device copy of 16 MiB (fits in L2) through gauge: its report must warn
//    above_memory_peak and name the L2; a 1 GiB copy: its fraction of the memory peak.
//
//   bench_l2_flush [--samples N]
#define GAUGE_IMPLEMENTATION
#include <gauge/gauge.hpp>
#include <gauge/cuda/gate.hpp>
#include <gauge/report/console.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

__global__ void read_step(const uint4* __restrict__ data, std::size_t n, unsigned* sink) {
  unsigned acc = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    const uint4 v = data[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9e3779b9u) *sink = acc;  // never: the buffer holds zeros
}

__global__ void copy_step(const uint4* __restrict__ a, uint4* __restrict__ b, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    b[i] = a[i];
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void* device_zeros(std::size_t bytes) {
  void* p = nullptr;
  GAUGE_CUDA_CHECK(cudaMalloc(&p, bytes));
  GAUGE_CUDA_CHECK(cudaMemset(p, 0, bytes));
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  int samples = 200;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--samples") == 0) samples = std::max(10, std::atoi(argv[i + 1]));
  try {
    int l2 = 0, sms = 0;
    GAUGE_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    GAUGE_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const std::size_t step_bytes = std::size_t(l2) / 4 * 3 / 16 * 16;
    const std::size_t scratch = 2 * std::size_t(l2);
    auto* x = static_cast<const uint4*>(device_zeros(step_bytes));
    auto* sink = static_cast<unsigned*>(device_zeros(16));
    void* w = device_zeros(scratch);
    auto* r = static_cast<const uint4*>(device_zeros(scratch));
    const unsigned blocks = 4u * static_cast<unsigned>(sms);
    cudaStream_t s;
    GAUGE_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaEvent_t a, b;
    GAUGE_CUDA_CHECK(cudaEventCreate(&a));
    GAUGE_CUDA_CHECK(cudaEventCreate(&b));
    auto step = [&](cudaStream_t st) { read_step<<<blocks, 512, 0, st>>>(x, step_bytes / 16, sink); };
    // Manual timing: `before` enqueues the flush; `sync` waits for it before the event pair, which
    // is then queued with the step behind the launch gate and released at once.
    gauge::backend_parts::LaunchGate gate;
    auto timed = [&](auto before, bool sync) {
      std::vector<double> t;
      for (int i = 0; i < samples + 10; ++i) {
        before();
        if (sync) {
          GAUGE_CUDA_CHECK(cudaStreamSynchronize(s));
          gate.close(s, std::chrono::seconds(1));
        }
        GAUGE_CUDA_CHECK(cudaEventRecord(a, s));
        step(s);
        GAUGE_CUDA_CHECK(cudaEventRecord(b, s));
        if (sync) gate.open();
        GAUGE_CUDA_CHECK(cudaEventSynchronize(b));
        float ms = 0;
        GAUGE_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
        if (i >= 10) t.push_back(ms * 1e-3);  // the first 10: warm-up
      }
      return median(t);
    };
    const double reference = timed(
        [&] {
          GAUGE_CUDA_CHECK(cudaMemsetAsync(w, 0x5a, scratch, s));
          read_step<<<blocks, 512, 0, s>>>(r, scratch / 16, sink);
        },
        true);
    const double old_write = timed([&] { GAUGE_CUDA_CHECK(cudaMemsetAsync(w, 0x5a, scratch, s)); }, false);
    const double hot = timed([] {}, false);
    auto exp = gauge::Experiment("cold_read_step", step);
    exp.cold_cache().bytes(double(step_bytes)).dimension("bytes", static_cast<std::int64_t>(step_bytes));
    const gauge::Result cold = exp.run();
    const double gauge_cold = cold.gpu_time.p50.value_or(NAN);
    const double ratio = gauge_cold / reference;
    std::printf("cold read-only step over %.1f MiB (3/4 of the %.1f MiB L2), %d samples each:\n", step_bytes / 1048576.0,
                l2 / 1048576.0, samples);
    std::printf("  %-78s %12s %10s\n", "method", "median", "vs ref");
    std::printf("  %-78s %9.2f us %10.3f\n",
                "reference: memset 2xL2, read another 2xL2, host sync, then the gated event pair", reference * 1e6, 1.0);
    std::printf("  %-78s %9.2f us %10.3f  within 5 %%: %s\n",
                (std::string("gauge cold_cache(): ") + gauge::backend_parts::L2Flush::method()).c_str(), gauge_cold * 1e6, ratio,
                std::fabs(ratio - 1) <= 0.05 ? "yes" : "NO");
    std::printf("  %-78s %9.2f us %10.3f\n", "old write flush: memset 2xL2, then the event pair (dirty lines)",
                old_write * 1e6, old_write / reference);
    std::printf("  %-78s %9.2f us %10.3f\n", "hot: no flush", hot * 1e6, hot / reference);

    // 2. Copies through gauge: 16 MiB hot (in L2) and 1 GiB.
    std::vector<gauge::Result> copies;
    for (std::size_t bytes : {std::size_t(16) << 20, std::size_t(1) << 30}) {
      auto* src = static_cast<const uint4*>(device_zeros(bytes));
      auto* dst = static_cast<uint4*>(device_zeros(bytes));
      auto copy = gauge::Experiment(bytes < (std::size_t(1) << 30) ? "copy_16MiB_hot" : "copy_1GiB_hot", [=](cudaStream_t st) {
        copy_step<<<blocks * 2, 256, 0, st>>>(src, dst, bytes / 16);
      });
      copy.bytes(2.0 * double(bytes)).dimension("bytes", static_cast<std::int64_t>(bytes));
      copy.config().measure.max_time = std::chrono::seconds(2);
      copies.push_back(copy.run());
      GAUGE_CUDA_CHECK(cudaFree(const_cast<uint4*>(src)));
      GAUGE_CUDA_CHECK(cudaFree(dst));
    }
    std::fputs(gauge::formats::peaks_table(copies).c_str(), stdout);
    bool warned = false;
    for (const auto& c : copies)
      for (const auto& wn : c.warnings)
        if (wn.code == gauge::warning_code::above_memory_peak) {
          std::printf("[%s] %s: %s: %s\n", gauge::to_string(wn.severity), c.name.c_str(), wn.code.c_str(), wn.message.c_str());
          warned = warned || c.name == "copy_16MiB_hot";
        }
    if (!warned) std::printf("copy_16MiB_hot: NO above_memory_peak warning\n");
    return std::fabs(ratio - 1) <= 0.05 && warned ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_l2_flush: error: %s\n", e.what());
    return 1;
  }
}
