// GPU tests: run where a CUDA device exists; elsewhere the executable exits with 77, which CTest
// reports as skipped (never passed). One translation unit, compiled by nvcc.
//
// Ground truth is a kernel that busy-waits a given time on %globaltimer and stamps its own start
// and end, so gauge's GPU time can be compared with the kernel's own span.

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "catch.hpp"
#include "gauge/env/environment.hpp"
#include "gauge/gauge.hpp"
#include "test_checks.hpp"

using namespace std::chrono_literals;

namespace {

__device__ __forceinline__ std::uint64_t globaltimer() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/// Busy-waits `ns` nanoseconds; thread 0 writes its start and end (ns) to stamps[0..1].
__global__ void spin_kernel(std::uint64_t ns, std::uint64_t* stamps) {
  const std::uint64_t start = globaltimer();
  std::uint64_t now = start;
  while (now - start < ns) now = globaltimer();
  if (threadIdx.x == 0 && blockIdx.x == 0 && stamps) {
    stamps[0] = start;
    stamps[1] = now;
  }
}

/// Reads `n` floats and writes their sum per block (memory-bound; for the cold-cache test).
__global__ void read_kernel(const float4* x, std::size_t n4, float* out) {
  float acc = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n4; i += std::size_t(gridDim.x) * blockDim.x) {
    float4 v = x[i];
    acc += v.x + v.y + v.z + v.w;
  }
  if (acc == 12345.678f) *out = acc;  // keeps the loads alive
}

/// The median span of `ns`-kernels launched back to back, from their own stamps (seconds).
double own_span(std::uint64_t ns) {
  std::uint64_t* stamps = nullptr;
  GAUGE_CUDA_CHECK(cudaMalloc(&stamps, 2 * sizeof(std::uint64_t)));
  std::vector<double> spans;
  for (int i = 0; i < 21; ++i) {
    spin_kernel<<<1, 32>>>(ns, stamps);
    GAUGE_CUDA_CHECK(cudaDeviceSynchronize());
    std::uint64_t h[2];
    GAUGE_CUDA_CHECK(cudaMemcpy(h, stamps, sizeof h, cudaMemcpyDeviceToHost));
    spans.push_back(double(h[1] - h[0]) * 1e-9);
  }
  cudaFree(stamps);
  std::sort(spans.begin(), spans.end());
  return spans[spans.size() / 2];
}

gauge::Config quick() {
  gauge::Config c;
  c.measure.max_time = 2s;
  return c;
}

}  // namespace

TEST_CASE("GPU time of a 100 us busy-wait kernel matches its own span", "[gpu]") {
  const std::uint64_t ns = 100000;
  auto exp = gauge::Experiment("spin100us", [&](cudaStream_t s) { spin_kernel<<<1, 32, 0, s>>>(ns, nullptr); });
  exp.config(quick());
  auto r = exp.run();
  REQUIRE(r.status == gauge::Status::ok);
  const double span = own_span(ns);
  const double offset = *r.gpu_time.p50 - span;
  std::printf("spin 100 us: gauge median %.4f us, own span %.4f us, offset %.3f us, k = %zu, event cost %.3f us\n",
              *r.gpu_time.p50 * 1e6, span * 1e6, offset * 1e6, r.sampling.steps_per_sample,
              r.sampling.event_overhead_s.value_or(-1) * 1e6);
  CHECK(r.sampling.method == "gated");
  CHECK(offset > -0.5e-6);
  CHECK(offset < 2.5e-6);
  CHECK_FALSE(r.has_warning("work_not_on_stream"));
}

TEST_CASE("interleaved A/B: a 100 us kernel against one 2 % longer reads slower, and against itself same",
          "[gpu][interleave]") {
  const std::uint64_t ns = 100000, ns_b = 102000;
  auto a = gauge::Experiment("spin100us", [&](cudaStream_t s) { spin_kernel<<<1, 32, 0, s>>>(ns, nullptr); });
  auto b = gauge::Experiment("spin102us", [&](cudaStream_t s) { spin_kernel<<<1, 32, 0, s>>>(ns_b, nullptr); });
  auto same = gauge::Experiment("spin100us", [&](cudaStream_t s) { spin_kernel<<<1, 32, 0, s>>>(ns, nullptr); });
  a.config(quick());
  b.config(quick());
  same.config(quick());
  const double truth = own_span(ns_b) / own_span(ns);
  const auto r = gauge::interleave(a, b).threshold(0.005).max_time(3s).run();
  REQUIRE(r.a.status == gauge::Status::ok);
  REQUIRE(r.b.status == gauge::Status::ok);
  REQUIRE(r.ratio);
  std::printf("interleaved 100 us vs 102 us: B/A %.5f [%.5f, %.5f] over %zu pairs, own spans %.5f, %s\n", r.ratio->estimate,
              r.ratio->low, r.ratio->high, r.ratio->pairs, truth, r.reason.c_str());
  CHECK(r.verdict == gauge::stats::PairedVerdict::slower);
  // Events measure the period (span + the launch gap, ~1 us of 100 us): within 0.3 % of the spans' ratio.
  CHECK(std::abs(r.ratio->estimate / truth - 1) < 0.003);
  CHECK(r.a.sampling.steps_per_sample == r.b.sampling.steps_per_sample);

  const auto s = gauge::interleave(a, same).threshold(0.005).max_time(3s).run();
  REQUIRE(s.ratio);
  std::printf("interleaved 100 us vs itself: B/A %.5f [%.5f, %.5f], %s\n", s.ratio->estimate, s.ratio->low, s.ratio->high,
              s.reason.c_str());
  CHECK(s.verdict == gauge::stats::PairedVerdict::same);
}

TEST_CASE("kernel tracing names the step's kernel and memset, with durations that match the kernel's own span",
          "[gpu][kernels]") {
  const std::uint64_t ns = 20000;
  void* buf = nullptr;
  GAUGE_CUDA_CHECK(cudaMalloc(&buf, 4096));
  auto step = [&](cudaStream_t s) {
    spin_kernel<<<1, 32, 0, s>>>(ns, nullptr);
    GAUGE_CUDA_CHECK(cudaMemsetAsync(buf, 0, 4096, s));
  };
  for (const bool graph : {false, true}) {
    INFO((graph ? "graph replays" : "steps"));
    auto exp = gauge::Experiment("traced", step);
    exp.config(quick()).trace_kernels().graph(graph);
    auto r = exp.run();
    REQUIRE(r.status == gauge::Status::ok);
    REQUIRE(r.kernel_trace.has_value());
    const auto& t = *r.kernel_trace;
    INFO(t.reason);
    REQUIRE(t.status == "traced");
    CHECK(t.attribution == "external correlation");
    CHECK(t.steps_per_unit == (graph ? r.sampling.steps_per_sample : 1));
    const gauge::records::TracedKernel* spin = nullptr;
    const gauge::records::TracedKernel* memset = nullptr;
    for (const auto& k : t.kernels) {
      if (k.name.find("spin_kernel") != std::string::npos) spin = &k;
      if (k.kind == "memset") memset = &k;
    }
    REQUIRE(spin);
    REQUIRE(memset);
    CHECK(spin->launches_per_step == 1.0);
    CHECK(memset->launches_per_step == 1.0);
    CHECK(memset->bytes == 4096);
    CHECK(spin->block == std::vector<int>{32, 1, 1});
    const double span = own_span(ns);
    std::printf("traced%s: spin median %.4f us (own span %.4f us), period %.4f us (events) / %.4f us (CUPTI), "
                "busy %.1f %%, kernels + gaps %.3f %% of the period, overhead %+.3f %%\n",
                graph ? " (graph)" : "", *spin->median_s * 1e6, span * 1e6, t.period_s.value_or(0) * 1e6,
                t.device_period_s.value_or(0) * 1e6, 100 * t.busy_fraction.value_or(0), 100 * (1 + t.closure.value_or(-1)),
                100 * t.tracing_overhead.value_or(0));
    // CUPTI's duration runs from the grid's start to its end: it holds the kernel's own stamped
    // span (thread 0's first to last clock read) and, on an H200, about 0.6 us more (block launch
    // before the first read, the store and exit after the last); it stays below the period.
    CHECK(*spin->median_s >= span);
    CHECK(*spin->median_s - span < 1e-6);
    CHECK(*spin->median_s < *t.period_s);
    CHECK(std::abs(*t.closure) < 0.02);
    // The traced round's period against the untraced one (about +9 % for this 23 us step with a
    // memset on an H200): measured, not bounded tightly; it must be a real, modest overhead.
    CHECK(*t.tracing_overhead > -0.02);
    CHECK(*t.tracing_overhead < 0.5);
    CHECK(*t.busy_fraction > 0.5);
    CHECK_FALSE(r.has_warning("kernel_trace_unavailable"));
  }
  cudaFree(buf);
}

/// Adds 1 to every element, in place.
__global__ void increment_kernel(int* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1;
}

TEST_CASE("an in-place GPU kernel with an untimed reset: every step starts from the reset, and the reset is not timed",
          "[gpu][setup]") {
  const int n = 1 << 20;
  int* x = nullptr;
  GAUGE_CUDA_CHECK(cudaMalloc(&x, n * sizeof(int)));
  std::size_t setups = 0;
  auto exp = gauge::Experiment("increment_in_place", [&](cudaStream_t s) { increment_kernel<<<(n + 255) / 256, 256, 0, s>>>(x, n); });
  exp.config(quick());
  exp.setup([&](cudaStream_t s) {
    ++setups;
    GAUGE_CUDA_CHECK(cudaMemsetAsync(x, 0, n * sizeof(int), s));
    spin_kernel<<<1, 32, 0, s>>>(1000000, nullptr);  // a 1 ms reset: far longer than the step
  });
  exp.verify([&] {
    std::vector<int> h(n);
    GAUGE_CUDA_CHECK(cudaMemcpy(h.data(), x, n * sizeof(int), cudaMemcpyDeviceToHost));
    return std::all_of(h.begin(), h.end(), [](int v) { return v == 1; });  // one step after the last reset
  });
  auto r = exp.run();
  cudaFree(x);
  REQUIRE(r.status == gauge::Status::ok);
  std::printf("in-place increment of 4 MiB with a 1 ms reset: median %.3f us, k = %zu, setups %zu, setup host time %.2f us\n",
              *r.gpu_time.p50 * 1e6, r.sampling.steps_per_sample, r.sampling.setup_calls,
              r.sampling.setup_host_time_s.value_or(-1) * 1e6);
  CHECK(r.sampling.steps_per_sample == 1);
  CHECK(r.sampling.setup_calls == setups);
  CHECK(*r.gpu_time.p50 < 100e-6);  // the 1 ms reset is outside the event pair
  CHECK(r.sampling.method == "gated");
}

TEST_CASE("rounds rotate over a pool of 8 streams, or stay on the caller's stream", "[gpu][streams]") {
  auto step = [](cudaStream_t s) { spin_kernel<<<1, 32, 0, s>>>(10000, nullptr); };
  auto pooled = gauge::Experiment("spin10us_pool", step);
  pooled.config(quick());
  auto r = pooled.run();
  REQUIRE(r.status == gauge::Status::ok);
  CHECK(r.streams.scope == "stream pool");
  CHECK(r.streams.count == 8);
  std::string medians;
  for (std::size_t i = 0; i < 8; ++i) {
    CHECK(r.streams.samples[i] > 0);
    if (r.streams.medians_s[i]) medians += " " + std::to_string(*r.streams.medians_s[i] * 1e6);
  }
  std::printf("spin 10 us, 8 streams: median %.4f us, stream medians (us):%s, spread %.4f %%, widened %d, CI [%.4f, %.4f] us "
              "(own [%.4f, %.4f])\n",
              *r.gpu_time.p50 * 1e6, medians.c_str(), 100 * r.streams.relative_spread.value_or(-1), int(r.streams.widened),
              r.gpu_time.median_ci->low * 1e6, r.gpu_time.median_ci->high * 1e6, *r.streams.within_ci_low_s * 1e6,
              *r.streams.within_ci_high_s * 1e6);
  cudaStream_t mine = nullptr;
  GAUGE_CUDA_CHECK(cudaStreamCreateWithFlags(&mine, cudaStreamNonBlocking));
  auto own = gauge::Experiment("spin10us_mine", step);
  own.config(quick());
  own.stream(mine);
  auto m = own.run();
  cudaStreamDestroy(mine);
  REQUIRE(m.status == gauge::Status::ok);
  CHECK(m.streams.scope == "caller's stream");
  CHECK(m.streams.count == 1);
  CHECK_FALSE(m.streams.widened);
}

TEST_CASE("the gate removes launch latency from a 2 us kernel", "[gpu]") {
  const std::uint64_t ns = 2000;
  auto step = [&](cudaStream_t s) { spin_kernel<<<1, 32, 0, s>>>(ns, nullptr); };
  auto gated = gauge::Experiment("spin2us", step);
  gated.config(quick());
  auto r = gated.run();
  REQUIRE(r.status == gauge::Status::ok);
  const double span = own_span(ns);
  std::printf("spin 2 us: gauge median %.4f us, own span %.4f us, wall/step %.4f us, busy %.3f, k = %zu\n",
              *r.gpu_time.p50 * 1e6, span * 1e6, *r.wall_time.p50 * 1e6, r.gpu_busy_fraction.value_or(-1),
              r.sampling.steps_per_sample);
  CHECK(*r.gpu_time.p50 - span < 2.5e-6);
  CHECK(*r.gpu_time.p50 - span > -0.5e-6);
}

TEST_CASE("a step that synchronizes the host falls back to ungated timing", "[gpu]") {
  auto exp = gauge::Experiment("sync_step", [](cudaStream_t s) {
    spin_kernel<<<1, 32, 0, s>>>(20000, nullptr);
    GAUGE_CUDA_CHECK(cudaStreamSynchronize(s));
  });
  auto r = gauge::testing::run_expecting_gate_timeout(exp, quick(), 100ms);
  CHECK(r.sampling.method == "ungated");
  CHECK(*r.gpu_time.p50 >= 20e-6);
}

TEST_CASE("work launched on another stream is flagged", "[gpu]") {
  cudaStream_t other = nullptr;
  GAUGE_CUDA_CHECK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
  auto exp = gauge::Experiment("other_stream", [&](cudaStream_t) { spin_kernel<<<1, 32, 0, other>>>(1000000, nullptr); });
  auto c = quick();
  c.measure.max_time = 500ms;
  exp.config(c);
  auto r = exp.run();
  cudaStreamDestroy(other);
  REQUIRE(r.status == gauge::Status::ok);
  std::printf("other stream: gauge median %.4f us, wall/step %.4f us\n", *r.gpu_time.p50 * 1e6, *r.wall_time.p50 * 1e6);
  CHECK(r.has_warning("work_not_on_stream"));
  CHECK(*r.wall_time.p50 >= 1e-3);
}

TEST_CASE("cold cache makes an L2-resident read slower than hot", "[gpu]") {
  const std::size_t bytes = 16u << 20;  // 16 MiB: fits in the H200's 60 MB L2
  float4* x = nullptr;
  float* out = nullptr;
  GAUGE_CUDA_CHECK(cudaMalloc(&x, bytes));
  GAUGE_CUDA_CHECK(cudaMalloc(&out, sizeof(float)));
  GAUGE_CUDA_CHECK(cudaMemset(x, 0, bytes));
  auto step = [&](cudaStream_t s) { read_kernel<<<264, 512, 0, s>>>(x, bytes / 16, out); };
  auto hot = gauge::Experiment("read16MiB_hot", step);
  hot.config(quick());
  auto h = hot.run();
  auto cold = gauge::Experiment("read16MiB_cold", step);
  cold.config(quick());
  cold.cold_cache();
  auto c = cold.run();
  cudaFree(x);
  cudaFree(out);
  REQUIRE(h.status == gauge::Status::ok);
  REQUIRE(c.status == gauge::Status::ok);
  std::printf("16 MiB read: hot %.3f us, cold %.3f us\n", *h.gpu_time.p50 * 1e6, *c.gpu_time.p50 * 1e6);
  CHECK(c.sampling.cache == "cold");
  CHECK(*c.gpu_time.p50 > *h.gpu_time.p50);
}

TEST_CASE("graph mode times replays and an uncapturable step fails with a clear error", "[gpu]") {
  auto exp = gauge::Experiment("graph10us", [](cudaStream_t s) { spin_kernel<<<1, 32, 0, s>>>(10000, nullptr); });
  exp.config(quick());
  exp.graph();
  auto r = exp.run();
  REQUIRE(r.status == gauge::Status::ok);
  CHECK(r.sampling.method == "graph");
  CHECK(*r.gpu_time.p50 > 10e-6);
  CHECK(*r.gpu_time.p50 < 13e-6);

  auto bad = gauge::Experiment("graph_sync", [](cudaStream_t s) {
    spin_kernel<<<1, 32, 0, s>>>(1000, nullptr);
    GAUGE_CUDA_CHECK(cudaStreamSynchronize(s));
  });
  bad.config(quick());
  bad.graph();
  auto b = bad.run();
  CHECK(b.status == gauge::Status::failed);
  REQUIRE(b.error);
  CHECK(b.error->find("cannot be captured") != std::string::npos);
  // The device is still usable afterwards.
  GAUGE_CUDA_CHECK(cudaDeviceSynchronize());
}

TEST_CASE("graph mode: a step whose work is on another stream fails naming the cause", "[gpu][trust]") {
  // The capture sees nothing of a kernel launched on a private stream: replays would time an empty
  // graph (~0.05 us for a 1 ms kernel). It must fail, not report "ok".
  cudaStream_t other = nullptr;
  GAUGE_CUDA_CHECK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
  auto exp = gauge::Experiment("graph_other_stream", [&](cudaStream_t) { spin_kernel<<<1, 32, 0, other>>>(1000000, nullptr); });
  exp.config(quick());
  exp.graph();
  auto r = exp.run();
  GAUGE_CUDA_CHECK(cudaStreamSynchronize(other));
  cudaStreamDestroy(other);
  INFO(r.error.value_or("(no error)"));
  CHECK(r.status == gauge::Status::failed);
  REQUIRE(r.error);
  CHECK(r.error->find("holds no kernel, copy or memset") != std::string::npos);
  CHECK(r.error->find("another stream") != std::string::npos);
}

TEST_CASE("a step that allocates names the likely cause of the gate timeout", "[gpu][trust]") {
  auto exp = gauge::Experiment("alloc_step", [](cudaStream_t s) {
    void* p = nullptr;
    GAUGE_CUDA_CHECK(cudaMalloc(&p, 1 << 20));
    spin_kernel<<<1, 32, 0, s>>>(20000, nullptr);
    GAUGE_CUDA_CHECK(cudaFree(p));
  });
  auto r = gauge::testing::run_expecting_gate_timeout(exp, quick(), 100ms);
  bool named = false;
  for (const auto& w : r.warnings)
    if (w.code == "gate_timeout") named = w.message.find("cudaMalloc/cudaFree") != std::string::npos;
  CHECK(named);
}

/// Writes through a null-page pointer: an illegal address, which loses the CUDA context.
__global__ void illegal_write_kernel(int* p) { p[threadIdx.x] = 1; }

TEST_CASE("after an illegal memory access, later experiments fail fast naming the lost context", "[gpu][trust]") {
  // Its own process (each GPU test case runs alone): the context cannot be recovered.
  auto bad = gauge::Experiment("illegal", [](cudaStream_t s) { illegal_write_kernel<<<1, 1, 0, s>>>(reinterpret_cast<int*>(0x8)); });
  auto r1 = bad.run();
  REQUIRE(r1.status == gauge::Status::failed);
  REQUIRE(r1.error);
  INFO(*r1.error);
  CHECK(r1.error->find(cudaGetErrorString(cudaErrorIllegalAddress)) != std::string::npos);
  CHECK(r1.error->find("the CUDA context is lost") != std::string::npos);
  const auto t0 = std::chrono::steady_clock::now();
  auto next = gauge::Experiment("after", [](cudaStream_t s) { spin_kernel<<<1, 32, 0, s>>>(1000, nullptr); });
  auto r2 = next.run();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE(r2.status == gauge::Status::failed);
  REQUIRE(r2.error);
  INFO(*r2.error);
  CHECK(r2.error->find("the CUDA context was lost by an earlier error") != std::string::npos);
  CHECK(r2.error->find(cudaGetErrorString(cudaErrorIllegalAddress)) != std::string::npos);
  CHECK(r2.error->find("restart the process") != std::string::npos);
  CHECK(seconds < 1.0);  // fails fast
}

TEST_CASE("a failing CUDA call names the call, the device and the CUDA error", "[gpu]") {
  void* p = nullptr;
  try {
    GAUGE_CUDA_CHECK(cudaMalloc(&p, std::size_t(1) << 62));
    FAIL("no exception");
  } catch (const gauge::CudaError& e) {
    const std::string what = e.what();
    CHECK(what.find("cudaMalloc") != std::string::npos);
    CHECK(what.find("device 0") != std::string::npos);
    CHECK(what.find(cudaGetErrorString(cudaErrorMemoryAllocation)) != std::string::npos);
  }
  auto exp = gauge::Experiment("bad_launch", [](cudaStream_t s) {
    spin_kernel<<<1, 4096, 0, s>>>(1000, nullptr);  // 4096 threads per block: invalid
    GAUGE_CUDA_CHECK(cudaGetLastError());
  });
  auto r = exp.run();
  CHECK(r.status == gauge::Status::failed);
  REQUIRE(r.error);
  CHECK(r.error->find("cudaGetLastError") != std::string::npos);
}

TEST_CASE("the environment records the GPU", "[gpu]") {
  auto env = gauge::capture_environment();
  REQUIRE(env.cuda.devices.size() >= 1);
  CHECK_FALSE(env.cuda.devices[0].name.empty());
  CHECK(env.cuda.devices[0].multiprocessors > 0);
  CHECK(env.cuda.devices[0].l2_cache_bytes > 0);
  CHECK(env.cuda.runtime_version.value_or(0) >= 12000);
  CHECK(env.cuda.driver_version.value_or(0) >= *env.cuda.runtime_version);
  std::printf("GPU: %s, %d SMs, L2 %llu bytes, driver %d, runtime %d\n", env.cuda.devices[0].name.c_str(),
              env.cuda.devices[0].multiprocessors, (unsigned long long)env.cuda.devices[0].l2_cache_bytes,
              *env.cuda.driver_version, *env.cuda.runtime_version);
}

const void* gauge_test_ptx_kernel_address();
void gauge_test_launch_ptx_kernel(cudaStream_t s);

TEST_CASE("a PTX-only kernel is reported jit_compiled and a native sm_90 one is not", "[gpu]") {
  auto exp = gauge::Experiment("jit", [](cudaStream_t s) {
    gauge_test_launch_ptx_kernel(s);
    spin_kernel<<<1, 32, 0, s>>>(1000, nullptr);
  });
  exp.config(quick());
  exp.kernel("ptx_only", gauge_test_ptx_kernel_address()).kernel("spin_kernel", spin_kernel);
  auto r = exp.run();
  REQUIRE(r.status == gauge::Status::ok);
  for (const auto& k : r.kernels)
    std::printf("kernel %s: binary sm_%d, ptx compute_%d, device %d, jit %s\n", k.name.c_str(), k.binary_version,
                k.ptx_version, k.device_version, k.jit_compiled ? "yes" : "no");
  REQUIRE(r.kernels.size() >= 2);
  CHECK(r.kernels[0].name == "ptx_only");
  CHECK(r.kernels[0].jit_compiled);
  CHECK_FALSE(r.kernels[1].jit_compiled);
  CHECK(r.has_warning("jit_compiled"));
}

TEST_CASE("1 GiB resident plus 256 MiB transient per step reports a peak of at least 1.25 GiB", "[gpu]") {
  void* resident = nullptr;
  GAUGE_CUDA_CHECK(cudaMalloc(&resident, std::size_t(1) << 30));
  GAUGE_CUDA_CHECK(cudaMemset(resident, 0, std::size_t(1) << 30));
  auto exp = gauge::Experiment("alloc_256MiB_per_step", [](cudaStream_t s) {
    void* p = nullptr;
    GAUGE_CUDA_CHECK(cudaMallocAsync(&p, std::size_t(256) << 20, s));
    GAUGE_CUDA_CHECK(cudaMemsetAsync(p, 1, std::size_t(256) << 20, s));
    GAUGE_CUDA_CHECK(cudaFreeAsync(p, s));
  });
  exp.config(quick());
  auto r = exp.run();
  cudaFree(resident);
  REQUIRE(r.status == gauge::Status::ok);
  const auto& m = r.memory;
  auto gib = [](const std::optional<std::uint64_t>& v) { return v ? double(*v) / (1u << 30) : -1.0; };
  std::printf("memory: peak %.3f GiB (%s), device-wide used peak %.3f GiB, NVML process peak %.3f GiB, pool reserved high %.3f GiB, "
              "used high %.3f GiB, fits %s (%s)\n",
              gib(m.peak_bytes), m.peak_source.c_str(), gib(m.device_used_peak_bytes), gib(m.process_peak_bytes),
              gib(m.pool_reserved_high_bytes), gib(m.pool_used_high_bytes), m.fits ? (*m.fits ? "yes" : "no") : "?",
              m.fits_reason.c_str());
  REQUIRE(m.peak_bytes);
  CHECK(*m.peak_bytes >= (std::uint64_t(5) << 28));  // 1.25 GiB
  CHECK(*m.pool_used_high_bytes >= (std::uint64_t(256) << 20));
}

TEST_CASE("telemetry is sampled during the run", "[gpu]") {
  auto exp = gauge::Experiment("telemetry_spin", [](cudaStream_t s) { spin_kernel<<<1, 32, 0, s>>>(50000, nullptr); });
  auto c = quick();
  exp.config(c);
  auto r = exp.run();
  REQUIRE(r.status == gauge::Status::ok);
  if (!r.telemetry.available) {
    std::printf("telemetry unavailable: %s\n", r.telemetry.unavailable_reason.value_or("?").c_str());
    SUCCEED("no NVML on this machine");
    return;
  }
  std::printf("telemetry: %zu readings, SM clock mean %.0f MHz (min %.0f, max %.0f, device max %.0f), power mean %.0f W, "
              "throttle reasons: %zu\n",
              r.telemetry.series.size(), r.telemetry.sm_clock_mhz.mean.value_or(-1), r.telemetry.sm_clock_mhz.min.value_or(-1),
              r.telemetry.sm_clock_mhz.max.value_or(-1), r.telemetry.sm_clock_max_mhz.value_or(-1),
              r.telemetry.power_w.mean.value_or(-1), r.telemetry.throttle_reason_names.size());
  CHECK(r.telemetry.series.size() >= 2);
  CHECK(r.telemetry.sm_clock_mhz.mean);
  CHECK(r.memory.process_peak_bytes);
}

namespace {
/// Spins `cycles` SM cycles on %clock64 (its time follows the SM clock, unlike spin_kernel).
__global__ void cycle_spin_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}
}  // namespace

TEST_CASE("the clock probe reads each round's mean SM clock, and cycles per step of a clock-bound step are steady",
          "[gpu][clock]") {
  // A step of 200,000 SM cycles on every SM: its cycles per step are 2e5 (+ the launch) whatever the
  // clock; its time is 2e5 / f. The probe's clock (%clock64 against %globaltimer) and NVML's mean
  // are two independent readings of the same clock.
  int sms = 0;
  GAUGE_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  auto exp = gauge::Experiment("cycles200k", [&](cudaStream_t s) { cycle_spin_kernel<<<sms, 32, 0, s>>>(200000); });
  exp.flop(1e6);
  exp.config(quick());
  auto r = exp.run();
  REQUIRE(r.status == gauge::Status::ok);
  REQUIRE(r.clock.source == "probe");
  REQUIRE(r.clock.sm_clock_mhz);
  const double cycles = *r.clock.cycles.p50;
  std::printf("clock probe: %zu rounds, mean %.1f MHz (rounds spread %.3f %%, SMs spread %.4f %%), NVML mean %.1f MHz, memory "
              "%.0f MHz; cycles per step median %.0f (time %.4f us); probe/NVML %.4f\n",
              r.clock.round_sm_clock_mhz.size(), *r.clock.sm_clock_mhz, 100 * r.clock.relative_spread.value_or(-1),
              100 * r.clock.sm_spread.value_or(-1), r.clock.telemetry_sm_clock_mhz.value_or(-1),
              r.clock.memory_clock_mhz.value_or(-1), cycles, *r.gpu_time.p50 * 1e6,
              r.clock.telemetry_sm_clock_mhz ? *r.clock.sm_clock_mhz / *r.clock.telemetry_sm_clock_mhz : -1.0);
  // The kernel spins 2e5 cycles; launch and drain add a few thousand at most.
  CHECK(cycles > 2.0e5);
  CHECK(cycles < 2.1e5);
  CHECK(*r.clock.sm_clock_mhz > 500);
  CHECK(*r.clock.sm_clock_mhz < 3000);
  CHECK(r.clock.sm_spread.value_or(1) < 0.01);  // one clock domain: every SM at one clock
  if (r.clock.telemetry_sm_clock_mhz) CHECK(std::fabs(*r.clock.sm_clock_mhz / *r.clock.telemetry_sm_clock_mhz - 1) < 0.02);
}

namespace {
/// b = a over `n4` float4 (memory-bound: 32 bytes moved per element pair).
__global__ void copy_kernel(const float4* __restrict__ a, float4* __restrict__ b, std::size_t n4) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n4; i += std::size_t(gridDim.x) * blockDim.x)
    b[i] = a[i];
}
/// C = A · B, n × n fp32, 16 × 16 shared-memory tiles (compute-heavy: 2n³ FLOP over 3 × 4n² bytes).
__global__ void sgemm_kernel(const float* A, const float* B, float* C, int n) {
  __shared__ float As[16][16], Bs[16][16];
  const int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
  float acc = 0;
  for (int t = 0; t < n; t += 16) {
    As[threadIdx.y][threadIdx.x] = A[row * n + t + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(t + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < 16; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  C[row * n + col] = acc;
}
void print_gpm(const char* what, const gauge::Result& r) {
  const auto& g = r.telemetry.gpm;
  std::printf("GPM %s: status %s%s%s | dram_bw_util %.1f %% | sm_util %.1f %% | sm_occupancy %.1f %% | interval %.3f s, %llu steps"
              " | declared %.1f GB/s vs GPM %.1f GB/s (ratio %.3f): %s | GPU time %.1f us/step, %.1f GB/s on the GPU's own time\n",
              what, g.status.c_str(), g.reason.empty() ? "" : ": ", g.reason.c_str(), g.dram_bw_util_pct.value_or(-1),
              g.sm_util_pct.value_or(-1), g.sm_occupancy_pct.value_or(-1), g.interval_s.value_or(-1),
              static_cast<unsigned long long>(g.steps.value_or(0)), g.declared_bytes_per_s.value_or(0) / 1e9,
              g.gpm_bytes_per_s.value_or(0) / 1e9, g.declared_to_gpm_ratio.value_or(-1), g.cross_check.c_str(),
              r.gpu_time.p50.value_or(0) * 1e6, r.gpu_throughput.bytes_per_second.value_or(0) / 1e9);
}
}  // namespace

TEST_CASE("NVML GPM over the measured rounds: a 1 GiB copy reads as DRAM-bound, a GEMM as SM-bound", "[gpu][gpm]") {
  // The copy moves 2 GiB per step through DRAM (a working set 7x the H200's L2): GPM's DRAM
  // bandwidth must agree with the declared bytes within 2x. The GEMM (2048^3 fp32, tiled) keeps
  // the SMs busy and DRAM mostly idle.
  const std::size_t bytes = std::size_t(1) << 30, n4 = bytes / sizeof(float4);
  float4 *a = nullptr, *b = nullptr;
  GAUGE_CUDA_CHECK(cudaMalloc(&a, bytes));
  GAUGE_CUDA_CHECK(cudaMalloc(&b, bytes));
  GAUGE_CUDA_CHECK(cudaMemset(a, 0, bytes));
  int sms = 0;
  GAUGE_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  auto copy = gauge::Experiment("gpm_copy_1GiB", [&](cudaStream_t s) { copy_kernel<<<4 * sms, 512, 0, s>>>(a, b, n4); });
  // GPM's cross-check needs 1 s of measured rounds (gpm_check_interval_s).
  gauge::Config long_enough = quick();
  long_enough.measure.min_time = std::chrono::milliseconds(1500);
  long_enough.measure.max_time = std::chrono::seconds(3);
  copy.bytes(2.0 * double(bytes)).config(long_enough);
  const auto rc = copy.run();
  REQUIRE(rc.status == gauge::Status::ok);
  print_gpm("copy 1 GiB", rc);
  const int n = 2048;
  float *A = nullptr, *B = nullptr, *C = nullptr;
  GAUGE_CUDA_CHECK(cudaMalloc(&A, sizeof(float) * n * n));
  GAUGE_CUDA_CHECK(cudaMalloc(&B, sizeof(float) * n * n));
  GAUGE_CUDA_CHECK(cudaMalloc(&C, sizeof(float) * n * n));
  GAUGE_CUDA_CHECK(cudaMemset(A, 0, sizeof(float) * n * n));
  GAUGE_CUDA_CHECK(cudaMemset(B, 0, sizeof(float) * n * n));
  auto gemm = gauge::Experiment("gpm_sgemm_2048", [&](cudaStream_t s) {
    sgemm_kernel<<<dim3(n / 16, n / 16), dim3(16, 16), 0, s>>>(A, B, C, n);
  });
  gemm.flop(2.0 * n * n * double(n)).bytes(3.0 * sizeof(float) * n * n).dimension("dtype", "fp32").config(long_enough);
  const auto rg = gemm.run();
  REQUIRE(rg.status == gauge::Status::ok);
  print_gpm("sgemm 2048", rg);
  for (void* p : {static_cast<void*>(a), static_cast<void*>(b), static_cast<void*>(A), static_cast<void*>(B), static_cast<void*>(C)})
    cudaFree(p);
  if (rc.telemetry.gpm.status != "measured") {
    // Absent GPM is said with a reason, never with numbers.
    CHECK_FALSE(rc.telemetry.gpm.reason.empty());
    CHECK_FALSE(rc.telemetry.gpm.dram_bw_util_pct);
    SUCCEED("no GPM here: " + rc.telemetry.gpm.reason);
    return;
  }
  REQUIRE(rc.telemetry.gpm.dram_bw_util_pct);
  CHECK(*rc.telemetry.gpm.dram_bw_util_pct > 30);  // a DRAM-bound copy
  CHECK(rc.telemetry.gpm.cross_check == "agrees");
  CHECK_FALSE(rc.has_warning(gauge::warning_code::gpm_bandwidth_mismatch));
  REQUIRE(rg.telemetry.gpm.sm_util_pct);
  CHECK(*rg.telemetry.gpm.sm_util_pct > 50);  // the GEMM keeps the SMs busy
  CHECK(*rg.telemetry.gpm.dram_bw_util_pct < *rc.telemetry.gpm.dram_bw_util_pct);
}
