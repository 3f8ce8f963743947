// Benchmark of gauge::Timer in a training-loop-shaped workload (issue 5), on the H200.
//
// One step: forward (3 GEMMs + 2 ReLUs), backward (5 GEMMs + 2 ReLU backwards), optimizer
// (3 SGD updates), all cuBLAS bf16 GEMMs and small kernels on one stream, no host synchronization.
// Two sizes: "1ms" (hidden 4096, batch 3072: ~1.3 ms per step on an H200) and "0.1ms" (hidden
// 1024, batch 1024: ~0.1 ms per step). The same loop, in one run, timed five ways:
//   untimed          no timing at all (the reference)
//   gauge phases     gauge::Timer, the 3 parts as phases (4 events per step)
//   gauge regions    gauge::Timer, the 3 parts as start/stop regions (7 events per step)
//   naive            an event pair per region + cudaEventSynchronize + cudaEventElapsedTime
//   megatron-style   cudaDeviceSynchronize at every start and stop, host clock (megatron/core/timers.py)
// Modes alternate within each round (rotating order) so drift hits all alike; throughput ratios
// are per round, then the median over rounds.
//
// Reported per mode: steps/s; the ratio to untimed (median over rounds, with min and max); the
// time added per step (1 / steps/s - untimed); event records per region boundary and host
// synchronizations per step in steady state (counted by wrappers: a counting Timer backend, and
// the bench's own wrappers for naive and megatron-style); host time spent inside the timing calls
// per region (steady_clock around each call, less the same clock reads around nothing). In a loop
// whose host runs ahead, that last figure is mostly waiting for a full launch queue, which any
// call may absorb. So the host *cost* is measured apart, with the stream held by gauge's launch
// gate (nothing drains, nothing blocks): a loop of {start, empty kernel, stop} (a step every 10
// regions) against the loop of empty kernels alone, the same with phases, and a disabled region
// (no-op level) in a tight loop.
//
// Targets (issue 5): gauge at most 1 event record per region boundary, 0 host synchronizations in
// steady state, <= 2 us host time added per region (gated measurement), >= 99 % of the untimed
// throughput at >= 1 ms steps. The last table says met / MISSED for each, for phases and regions.
//
//   bench_timer [--out bench_timer.json] [--rounds 7] [--quick]

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#define GAUGE_IMPLEMENTATION  // this file compiles gauge's implementation (once per program)
#include <gauge/gauge.hpp>
#include <gauge/timer.hpp>
// What this file uses beyond gauge.hpp (GAUGE_IMPLEMENTATION declares nothing in nvcc's device pass).
#include <gauge/env/environment.hpp>
#include <gauge/report/console.hpp>
#include <gauge/report/json.hpp>

#include "../examples/relu_kernels.cuh"

namespace {

using bf16 = __nv_bfloat16;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void cublas_check(cublasStatus_t s, const char* call) {
  if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(call) + " failed: " + cublasGetStatusString(s));
}
#define CUBLAS_CHECK(call) cublas_check((call), #call)

__global__ void fill(bf16* x, std::size_t n, std::uint32_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    std::uint32_t h = static_cast<std::uint32_t>(i) * 2654435761u ^ (seed * 0x9e3779b9u);
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    x[i] = __float2bfloat16((static_cast<float>(h >> 8) * (2.0f / 16777216.0f) - 1.0f) * 0.05f);
  }
}
using mlp_kernels::relu;
using mlp_kernels::relu_backward;
__global__ void sgd(bf16* w, const bf16* g, float lr, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    w[i] = __float2bfloat16(__bfloat162float(w[i]) - lr * __bfloat162float(g[i]));
}
__global__ void empty_kernel() {}

/// The training-step workload: an MLP-shaped forward, backward and optimizer on one stream.
struct Workload {
  std::size_t h, b;
  cudaStream_t stream = nullptr;
  cublasHandle_t handle = nullptr;
  std::vector<bf16*> w, dw, a;
  bf16 *g = nullptr, *g2 = nullptr;
  std::vector<void*> owned;

  Workload(std::size_t hidden, std::size_t batch, cudaStream_t s) : h(hidden), b(batch), stream(s) {
    CUBLAS_CHECK(cublasCreate(&handle));
    CUBLAS_CHECK(cublasSetStream(handle, stream));
    for (int l = 0; l < 3; ++l) {
      w.push_back(alloc(h * h, 10 + l));
      dw.push_back(alloc(h * h, 20 + l));
    }
    for (int l = 0; l < 4; ++l) a.push_back(alloc(h * b, 30 + l));
    g = alloc(h * b, 40);
    g2 = alloc(h * b, 41);
    GAUGE_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  ~Workload() {
    if (handle) cublasDestroy(handle);
    for (void* p : owned) cudaFree(p);
  }
  Workload(const Workload&) = delete;
  Workload& operator=(const Workload&) = delete;

  bf16* alloc(std::size_t n, std::uint32_t seed) {
    void* p = nullptr;
    GAUGE_CUDA_CHECK(cudaMalloc(&p, n * sizeof(bf16)));
    owned.push_back(p);
    fill<<<1056, 256, 0, stream>>>(static_cast<bf16*>(p), n, seed);
    GAUGE_CUDA_CHECK(cudaGetLastError());
    return static_cast<bf16*>(p);
  }
  void gemm(cublasOperation_t ta, cublasOperation_t tb, std::size_t m, std::size_t n, std::size_t k, const bf16* A,
            const bf16* B, bf16* C) {
    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasGemmEx(handle, ta, tb, int(m), int(n), int(k), &alpha, A, CUDA_R_16BF,
                              int(ta == CUBLAS_OP_N ? m : k), B, CUDA_R_16BF, int(tb == CUBLAS_OP_N ? k : n), &beta, C,
                              CUDA_R_16BF, int(m), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }
  void forward() {
    for (int l = 0; l < 3; ++l) {
      gemm(CUBLAS_OP_N, CUBLAS_OP_N, h, b, h, w[l], a[l], a[l + 1]);
      if (l < 2) relu<<<1056, 256, 0, stream>>>(a[l + 1], h * b);
    }
  }
  void backward() {
    for (int l = 2; l >= 0; --l) {
      gemm(CUBLAS_OP_N, CUBLAS_OP_T, h, h, b, g, a[l], dw[l]);
      if (l > 0) {
        gemm(CUBLAS_OP_T, CUBLAS_OP_N, h, b, h, w[l], g, g2);
        relu_backward<<<1056, 256, 0, stream>>>(g2, a[l], h * b);
        std::swap(g, g2);
      }
    }
  }
  void optimizer() {
    for (int l = 0; l < 3; ++l) sgd<<<1056, 256, 0, stream>>>(w[l], dw[l], 1e-6f, h * h);
    GAUGE_CUDA_CHECK(cudaGetLastError());
  }
  double flop() const { return 8 * 2.0 * double(h) * double(h) * double(b); }
};

/// A CudaTimerBackend that counts what the Timer asks of it.
struct CountingBackend : gauge::CudaTimerBackend {
  using gauge::CudaTimerBackend::CudaTimerBackend;
  static constexpr const char* name = "cuda (counting)";
  std::size_t records = 0, queries = 0, waits = 0;
  void record(marker_type m, stream_type s) {
    ++records;
    gauge::CudaTimerBackend::record(m, s);
  }
  bool query(marker_type m) {
    ++queries;
    return gauge::CudaTimerBackend::query(m);
  }
  void wait(marker_type m) {
    ++waits;
    gauge::CudaTimerBackend::wait(m);
  }
};
using CountingTimer = gauge::Timer<CountingBackend>;

enum class Mode { untimed, gauge_phases, gauge_regions, naive, megatron };
const char* mode_name(Mode m) {
  switch (m) {
    case Mode::untimed: return "untimed";
    case Mode::gauge_phases: return "gauge phases";
    case Mode::gauge_regions: return "gauge regions";
    case Mode::naive: return "naive event pair+sync";
    case Mode::megatron: return "megatron-style sync";
  }
  return "?";
}
constexpr Mode kModes[] = {Mode::untimed, Mode::gauge_phases, Mode::gauge_regions, Mode::naive, Mode::megatron};

/// What one mode did over all its measured rounds.
struct Tally {
  std::vector<double> round_s;      // wall time per round
  std::size_t steps = 0, records = 0, syncs = 0, boundaries = 0, regions = 0;
  double host_in_calls_s = 0;       // steady_clock around the timing calls (clock cost included)
  std::size_t timed_calls = 0;      // calls measured that way
};

/// Runs the loop in one mode, timing each timing call on the host.
class Runner {
 public:
  Runner(Workload& w, Mode mode, CountingTimer* timer) : w_(w), mode_(mode), timer_(timer) {
    GAUGE_CUDA_CHECK(cudaEventCreate(&ea_));
    GAUGE_CUDA_CHECK(cudaEventCreate(&eb_));
    if (timer_) {
      fwd_ = timer_->region("forward");
      bwd_ = timer_->region("backward");
      opt_ = timer_->region("optimizer");
    }
  }
  ~Runner() {
    cudaEventDestroy(ea_);
    cudaEventDestroy(eb_);
  }

  /// Runs `steps` steps; adds to `t` unless `warmup`.
  void run(std::size_t steps, Tally& t, bool warmup) {
    const std::size_t rec0 = timer_ ? timer_->backend().records : 0;
    const std::size_t sync0 = timer_ ? timer_->backend().waits : 0;
    records_ = syncs_ = 0;
    in_calls_ = 0;
    calls_ = 0;
    GAUGE_CUDA_CHECK(cudaDeviceSynchronize());
    const auto t0 = Clock::now();
    for (std::size_t i = 0; i < steps; ++i) {
      begin(0);
      w_.forward();
      end(0);
      begin(1);
      w_.backward();
      end(1);
      begin(2);
      w_.optimizer();
      end(2);
      step_boundary();
    }
    GAUGE_CUDA_CHECK(cudaStreamSynchronize(w_.stream));
    const double wall = seconds_since(t0);
    if (warmup) return;
    t.round_s.push_back(wall);
    t.steps += steps;
    t.regions += 3 * steps;
    t.records += records_ + (timer_ ? timer_->backend().records - rec0 : 0);
    t.syncs += syncs_ + (timer_ ? timer_->backend().waits - sync0 : 0);
    t.boundaries += mode_ == Mode::untimed ? 0 : 6 * steps + (timer_ ? steps : 0);
    t.host_in_calls_s += in_calls_;
    t.timed_calls += calls_;
  }

 private:
  gauge::TimerRegion region(int r) const { return r == 0 ? fwd_ : r == 1 ? bwd_ : opt_; }
  void begin(int r) {
    const auto t0 = Clock::now();
    switch (mode_) {
      case Mode::untimed: break;
      case Mode::gauge_phases: timer_->phase(region(r)); break;
      case Mode::gauge_regions: timer_->start(region(r)); break;
      case Mode::naive:
        GAUGE_CUDA_CHECK(cudaEventRecord(ea_, w_.stream));
        ++records_;
        break;
      case Mode::megatron:
        GAUGE_CUDA_CHECK(cudaDeviceSynchronize());
        ++syncs_;
        host_start_ = Clock::now();
        break;
    }
    in_calls_ += seconds_since(t0);
    ++calls_;
  }
  void end(int r) {
    const auto t0 = Clock::now();
    switch (mode_) {
      case Mode::untimed: break;
      case Mode::gauge_phases: break;  // a phase ends at the next phase or the step
      case Mode::gauge_regions: timer_->stop(region(r)); break;
      case Mode::naive: {
        GAUGE_CUDA_CHECK(cudaEventRecord(eb_, w_.stream));
        ++records_;
        GAUGE_CUDA_CHECK(cudaEventSynchronize(eb_));
        ++syncs_;
        float ms = 0;
        GAUGE_CUDA_CHECK(cudaEventElapsedTime(&ms, ea_, eb_));
        sink_ += ms;
        break;
      }
      case Mode::megatron:
        GAUGE_CUDA_CHECK(cudaDeviceSynchronize());
        ++syncs_;
        sink_ += static_cast<float>(seconds_since(host_start_));
        break;
    }
    in_calls_ += seconds_since(t0);
    ++calls_;
  }
  void step_boundary() {
    const auto t0 = Clock::now();
    if (timer_) timer_->step();
    in_calls_ += seconds_since(t0);
    ++calls_;
  }

  Workload& w_;
  Mode mode_;
  CountingTimer* timer_;
  gauge::TimerRegion fwd_, bwd_, opt_;
  cudaEvent_t ea_ = nullptr, eb_ = nullptr;
  Clock::time_point host_start_;
  std::size_t records_ = 0, syncs_ = 0, calls_ = 0;
  double in_calls_ = 0;
  float sink_ = 0;
};

struct Row {
  Mode mode;
  double steps_per_s, ratio, ratio_min, ratio_max, added_per_step_s, records_per_boundary, syncs_per_step,
      host_per_region_s;
};

struct SizeResult {
  std::string name;
  std::size_t hidden, batch;
  double step_s;
  std::vector<Row> rows;
  gauge::TimerSummary phases_summary;
};

SizeResult run_size(const std::string& name, std::size_t hidden, std::size_t batch, std::size_t steps, int rounds,
                    cudaStream_t stream) {
  Workload w(hidden, batch, stream);
  gauge::TimerConfig config;
  config.warmup_steps = 20;
  CountingTimer phases("phases_" + name, CountingBackend(stream), config);
  CountingTimer regions("regions_" + name, CountingBackend(stream), config);
  phases.work(gauge::StepWork().tokens(double(batch)).flop(w.flop()));
  regions.work(gauge::StepWork().tokens(double(batch)).flop(w.flop()));
  Runner r_untimed(w, Mode::untimed, nullptr), r_phases(w, Mode::gauge_phases, &phases),
      r_regions(w, Mode::gauge_regions, &regions), r_naive(w, Mode::naive, nullptr), r_mega(w, Mode::megatron, nullptr);
  Runner* by_mode[] = {&r_untimed, &r_phases, &r_regions, &r_naive, &r_mega};
  Tally tallies[5];
  // Warm-up: cuBLAS heuristics, module loading, clocks, the Timers' pools (one round each).
  for (int m = 0; m < 5; ++m) by_mode[m]->run(steps, tallies[m], true);
  for (int round = 0; round < rounds; ++round)
    for (int k = 0; k < 5; ++k) {
      const int m = (k + round) % 5;
      by_mode[m]->run(steps, tallies[m], false);
    }
  SizeResult out;
  out.name = name;
  out.hidden = hidden;
  out.batch = batch;
  out.step_s = median(tallies[0].round_s) / double(steps);
  const double untimed_calls_per_call = tallies[0].host_in_calls_s / double(std::max<std::size_t>(1, tallies[0].timed_calls));
  for (int m = 0; m < 5; ++m) {
    const Tally& t = tallies[m];
    std::vector<double> ratios;
    for (int round = 0; round < rounds; ++round) ratios.push_back(tallies[0].round_s[round] / t.round_s[round]);
    Row row;
    row.mode = kModes[m];
    row.steps_per_s = double(steps) / median(t.round_s);
    row.ratio = median(ratios);
    row.ratio_min = *std::min_element(ratios.begin(), ratios.end());
    row.ratio_max = *std::max_element(ratios.begin(), ratios.end());
    row.added_per_step_s = median(t.round_s) / double(steps) - out.step_s;
    row.records_per_boundary = t.boundaries ? double(t.records) / double(t.boundaries) : 0.0;
    row.syncs_per_step = double(t.syncs) / double(t.steps);
    // Host time inside the timing calls, less the clock reads around an empty call, per region.
    row.host_per_region_s =
        (t.host_in_calls_s - untimed_calls_per_call * double(t.timed_calls)) / double(std::max<std::size_t>(1, t.regions));
    out.rows.push_back(row);
  }
  out.phases_summary = phases.finish();
  return out;
}

/// Host cost of the Timer's calls with the stream held by the launch gate, so that nothing drains
/// and no call blocks: batches of 100 iterations of {start, empty kernel, stop} with a step every
/// 10 (310 queue entries behind the gate), of {phase, empty kernel} likewise, and of the empty
/// kernel alone; each batch's host time, the median over batches. Plus a disabled region.
struct Micro {
  double kernel_only_s, region_iter_s, phase_iter_s;  // host time per iteration
  double region_added_s, phase_added_s;                // per region, step share included
  double noop_pair_s, baseline_pair_s;
  std::size_t gate_timeouts = 0;
};

Micro run_micro(cudaStream_t stream) {
  gauge::TimerConfig config;
  config.warmup_steps = 10;
  CountingTimer regions("micro_regions", CountingBackend(stream), config);
  CountingTimer phases("micro_phases", CountingBackend(stream), config);
  const auto r = regions.region("tiny");
  const auto p = phases.region("tiny");
  const auto off = regions.region("disabled", gauge::timer_level::detailed);
  gauge::backend_parts::LaunchGate gate;
  std::vector<double> kernel_only, with_regions, with_phases;
  Micro m;
  for (int batch = 0; batch < 60; ++batch) {
    for (int variant = 0; variant < 3; ++variant) {
      GAUGE_CUDA_CHECK(cudaStreamSynchronize(stream));
      gate.close(stream, std::chrono::seconds(2));
      const auto t0 = Clock::now();
      for (int i = 0; i < 100; ++i) {
        if (variant == 1) regions.start(r);
        if (variant == 2) phases.phase(p);
        empty_kernel<<<1, 32, 0, stream>>>();
        if (variant == 1) regions.stop(r);
        if (i % 10 == 9) {
          if (variant == 1) regions.step();
          if (variant == 2) phases.step();
        }
      }
      const double s = seconds_since(t0) / 100;
      gate.open();
      GAUGE_CUDA_CHECK(cudaStreamSynchronize(stream));
      if (gate.timed_out()) ++m.gate_timeouts;
      if (batch >= 10) (variant == 0 ? kernel_only : variant == 1 ? with_regions : with_phases).push_back(s);
    }
  }
  GAUGE_CUDA_CHECK(cudaGetLastError());
  (void)regions.finish();
  (void)phases.finish();
  m.kernel_only_s = median(kernel_only);
  m.region_iter_s = median(with_regions);
  m.phase_iter_s = median(with_phases);
  m.region_added_s = m.region_iter_s - m.kernel_only_s;  // 1 region per iteration (+ 1/10 step)
  m.phase_added_s = m.phase_iter_s - m.kernel_only_s;
  // The disabled region: start + stop of a level-2 region at level 1, with a compiler barrier in
  // each iteration so the loop is not folded away; the same loop with the barrier alone.
  const int n = 10000000;
  std::vector<double> noop, base;
  for (int rep = 0; rep < 5; ++rep) {
    auto t0 = Clock::now();
    for (int i = 0; i < n; ++i) {
      regions.start(off);
      regions.stop(off);
      asm volatile("" ::: "memory");
    }
    noop.push_back(seconds_since(t0) / n);
    t0 = Clock::now();
    for (int i = 0; i < n; ++i) asm volatile("" ::: "memory");
    base.push_back(seconds_since(t0) / n);
  }
  m.noop_pair_s = median(noop);
  m.baseline_pair_s = median(base);
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out = "bench_timer.json";
  int rounds = 9;
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
    else if (!std::strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--quick")) quick = true;
    else {
      std::fprintf(stderr, "usage: bench_timer [--out FILE.json] [--rounds N] [--quick]\n");
      return 2;
    }
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    (void)cudaGetLastError();
    std::printf("SKIPPED: no CUDA GPU found\n");
    return 77;
  }
  try {
    gauge::detail::check_writable(out);
    const gauge::Environment env = gauge::capture_environment();
    cudaStream_t stream = nullptr;
    GAUGE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    std::vector<SizeResult> sizes;
    sizes.push_back(run_size("1ms", 4096, 3072, quick ? 60 : 300, quick ? 3 : rounds, stream));
    sizes.push_back(run_size("0.1ms", 1024, 1024, quick ? 300 : 2000, quick ? 3 : rounds, stream));
    const Micro micro = run_micro(stream);
    GAUGE_CUDA_CHECK(cudaStreamDestroy(stream));

    std::fputs(gauge::formats::environment_line(env).c_str(), stdout);
    nlohmann::json jsizes = nlohmann::json::array();
    for (const auto& s : sizes) {
      std::printf("\nstep %s (hidden %zu, batch %zu): untimed %.4g ms per step, 3 regions per step\n", s.name.c_str(),
                  s.hidden, s.batch, s.step_s * 1e3);
      std::printf("%-22s %10s %10s %17s %12s %15s %10s %15s\n", "mode", "steps/s", "vs untimed", "(min..max)",
                  "us/step", "events/boundary", "syncs/step", "in-call us/reg");
      nlohmann::json jrows = nlohmann::json::array();
      for (const auto& r : s.rows) {
        std::printf("%-22s %10.1f %9.2f%% %8.2f..%6.2f%% %+12.2f %15.3f %10.2f %15.2f\n", mode_name(r.mode),
                    r.steps_per_s, 100 * r.ratio, 100 * r.ratio_min, 100 * r.ratio_max, r.added_per_step_s * 1e6,
                    r.records_per_boundary, r.syncs_per_step, r.host_per_region_s * 1e6);
        jrows.push_back({{"mode", mode_name(r.mode)},
                         {"steps_per_s", r.steps_per_s},
                         {"throughput_vs_untimed", r.ratio},
                         {"throughput_vs_untimed_min", r.ratio_min},
                         {"throughput_vs_untimed_max", r.ratio_max},
                         {"time_added_per_step_s", r.added_per_step_s},
                         {"event_records_per_region_boundary", r.records_per_boundary},
                         {"host_synchronizations_per_step", r.syncs_per_step},
                         {"host_time_in_timing_calls_per_region_s_incl_queue_waits", r.host_per_region_s}});
      }
      jsizes.push_back({{"name", s.name},
                        {"hidden", s.hidden},
                        {"batch", s.batch},
                        {"untimed_step_s", s.step_s},
                        {"rows", jrows},
                        {"gauge_phases_timer", s.phases_summary}});
    }
    std::printf("\nin-call us/reg: host time inside the timing calls per region, including waits for a full launch\n"
                "queue (the host runs ahead); us/step: time added per step against untimed (device time of events).\n");
    std::printf("\nhost cost, stream held by the launch gate (%zu gate timeouts), per iteration of 100:\n"
                "  empty kernel alone %.3f us; + region start/stop %.3f us (%.3f us added per region);\n"
                "  + phase %.3f us (%.3f us added per region); a step() every 10 regions is included\n",
                micro.gate_timeouts, micro.kernel_only_s * 1e6, micro.region_iter_s * 1e6, micro.region_added_s * 1e6,
                micro.phase_iter_s * 1e6, micro.phase_added_s * 1e6);
    std::printf("disabled region (level 2 at level 1): %.3f ns per start+stop, loop alone %.3f ns: %.3f ns added\n",
                micro.noop_pair_s * 1e9, micro.baseline_pair_s * 1e9, (micro.noop_pair_s - micro.baseline_pair_s) * 1e9);

    // Targets for gauge (both ways of using it) at the >= 1 ms size.
    const auto& big = sizes[0];
    const Row& ph = big.rows[1];
    const Row& rg = big.rows[2];
    const bool step_ok = big.step_s >= 1e-3;
    struct Target {
      const char* what;
      double phases, regions, limit;
      bool upper;  // value must be <= limit (else >=)
    };
    const Target targets[] = {
        {"event records per region boundary", ph.records_per_boundary, rg.records_per_boundary, 1.0, true},
        {"host synchronizations per step (steady state)", ph.syncs_per_step, rg.syncs_per_step, 0.0, true},
        {"host time added per region (gated), us", micro.phase_added_s * 1e6, micro.region_added_s * 1e6, 2.0, true},
        {"throughput vs untimed at >= 1 ms steps, %", 100 * ph.ratio, 100 * rg.ratio, 99.0, false},
    };
    std::printf("\ntargets (gauge at the 1 ms size; untimed step %.4g ms%s):\n", big.step_s * 1e3,
                step_ok ? "" : ", BELOW 1 ms: the throughput target does not apply as stated");
    std::printf("%-50s %10s %10s %8s  %s\n", "target", "phases", "regions", "limit", "verdict");
    nlohmann::json jtargets = nlohmann::json::array();
    for (const auto& t : targets) {
      auto ok = [&](double v) { return t.upper ? v <= t.limit + 1e-12 : v >= t.limit; };
      const bool met = ok(t.phases) && ok(t.regions);
      std::printf("%-50s %10.3f %10.3f %8.3g  %s\n", t.what, t.phases, t.regions, t.limit,
                  met ? "met" : (ok(t.phases) ? "MISSED by regions (phases met)" : "MISSED"));
      jtargets.push_back({{"target", t.what},
                          {"gauge_phases", t.phases},
                          {"gauge_regions", t.regions},
                          {"limit", t.limit},
                          {"kind", t.upper ? "at most" : "at least"},
                          {"met_by_phases", ok(t.phases)},
                          {"met_by_regions", ok(t.regions)}});
    }
    // Regions record 3 more events per step than phases: the difference of their added time per
    // step, over 3, estimates the device time of one event between kernels.
    const double per_event = (rg.added_per_step_s - ph.added_per_step_s) / 3;
    std::printf("device time per event between kernels, (regions - phases) / 3 events: %.3f us; so k events per\n"
                "step cost about k x that of a %.4g ms step\n",
                per_event * 1e6, big.step_s * 1e3);

    nlohmann::json doc = {
        {"device_time_per_event_s", per_event},
        {"benchmark", "bench_timer"},
        {"gauge_version", gauge::version_string},
        {"environment", env},
        {"sizes", jsizes},
        {"host_cost_gated",
         {{"kernel_only_per_iteration_s", micro.kernel_only_s},
          {"region_per_iteration_s", micro.region_iter_s},
          {"phase_per_iteration_s", micro.phase_iter_s},
          {"region_host_time_added_s", micro.region_added_s},
          {"phase_host_time_added_s", micro.phase_added_s},
          {"gate_timeouts", micro.gate_timeouts},
          {"disabled_region_start_stop_s", micro.noop_pair_s},
          {"empty_loop_iteration_s", micro.baseline_pair_s},
          {"disabled_region_added_s", micro.noop_pair_s - micro.baseline_pair_s}}},
        {"targets", jtargets},
    };
    gauge::detail::write_file_atomic(out, doc.dump(2) + "\n");
    std::printf("json: %s\n", out.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_timer: %s\n", e.what());
    return 1;
  }
}
