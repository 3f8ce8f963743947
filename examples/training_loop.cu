// A real training loop timed by gauge::Timer: a small MLP trained with cuBLAS on synthetic data.
//
//   training_loop [--steps 3000] [--batch 4096] [--hidden 4096] [--layers 3] [--lr 1e-3]
//                 [--warmup 50] [--log-every 500] [--timer-level 1] [--kernels] [--peak-tflops 989]
//                 [--jsonl training-loop.jsonl] [-o training-loop.json] [--help] [--version]
//
// Options take their value as `--opt value` or `--opt=value` (CLI11); -o is short for --out.
//
// The model. `layers` fully connected layers of hidden × hidden bf16 weights (fp32 master copies),
// ReLU between them, no bias; a batch is `batch` tokens, each a column of `hidden` features
// (column-major, as cuBLAS). The data: 4 fixed batches of uniform random inputs X in [-1, 1) and
// targets T = W_teacher X from a random linear teacher, cycled. The loss: 0.5 / batch · Σ (Y − T)².
// One step:
//   data       a device-to-device copy of the batch into the input buffer (stands for the loader)
//   forward    per layer: Z = W · A (cublasGemmEx, bf16 in and out, fp32 accumulation), ReLU
//   loss       dY = (Y − T) / batch and the loss, reduced on the device, written to mapped host
//              memory (read by the host without waiting)
//   backward   per layer, last to first: dW = dZ · Aᵀ, and (except the first) dA = Wᵀ · dZ,
//              dZ = dA ⊙ [A > 0]
//   optimizer  plain SGD on the fp32 master weights, then a bf16 copy for the next forward
// Model FLOPs per step (what MFU counts): the GEMMs the step computes, 2 · hidden² · batch each:
// `layers` forward + `layers` weight gradients + `layers − 1` input gradients (the first layer's
// input gradient is not needed). The 6 · parameters · tokens rule would count one GEMM more.
//
// The Timer: the five parts of the step are *phases* (k phases cost k + 1 CUDA events per step),
// with per-layer regions at level 2 nested inside forward and backward (no-ops at the default
// level 1; `--timer-level 2` times them). Every `--log-every` steps it prints one line and appends
// one JSON line; at the end its final state goes into the JSON report with the environment.
// `--kernels` (with `--timer-level 2`) also traces one step every `--log-every` steps with CUPTI
// and lists the kernels each region launched (cuBLAS's by name) with their durations.
//
// MFU is against `--peak-tflops`, by default 989 TFLOP/s: NVIDIA's H200 SXM datasheet gives
// 1,979 TFLOPS for BF16 Tensor Core "with sparsity", so 989.5 dense (the H100 SXM's figure). It is
// the user's number, not measured by gauge; pass your GPU's.
//
// Under MPI (the target training_loop_mpi, this file built with GAUGE_TRAINING_LOOP_MPI, where MPI is
// found): `mpirun -np 2 training_loop_mpi --slow-rank 1` runs one rank per GPU (the local rank picks
// the device), each training its own copy (no gradient exchange: the point is the timing). Every
// --log-every steps the Timer's window is combined across ranks by gauge::mpi::TimerAcrossRanks: a
// non-blocking MPI_Iallreduce started at the log and completed by an MPI_Test at a later step (no
// host synchronization, no barrier); rank 0 prints min .. max per region and the straggler rank.
// --slow-rank R adds a spin kernel of --slow-us µs to rank R's forward phase. Rank 0 writes one
// report (gauge/mpi.hpp: its Timer, and the last combined window under `ranks.timers`); each rank
// writes its own JSON Lines log (<jsonl>.rank<R>). Exit 1 when the straggler is not the slowed rank.
//
// Exit codes: 0 ok; 77 no CUDA GPU (CTest reports the test skipped); 1 the loss did not go down or
// was not finite, or an error; 2 bad arguments. The host synchronizes with the device only at
// setup, after step 0 (to read the initial loss) and at the end: the Timer adds none.

#include <CLI/CLI.hpp>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#define GAUGE_IMPLEMENTATION  // this file compiles gauge's implementation (once per program)
#include <gauge/gauge.hpp>
#include <gauge/tracing.hpp>  // kernel tracing (--kernels): through CMake, link gauge::tracing
#include <gauge/report/timer_json.hpp>
#include <gauge/timer.hpp>

#include "relu_kernels.cuh"

#ifdef GAUGE_TRAINING_LOOP_MPI
#include <mpi.h>

#include <gauge/env/environment.hpp>
#include <gauge/mpi.hpp>

/// Holds the stream for about `ns` nanoseconds (the deliberately slow rank's extra work).
__global__ void spin_for(long long ns) {
  long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}
#endif

namespace {

struct Options {
  long steps = 3000, batch = 4096, hidden = 4096, layers = 3, warmup = 50, log_every = 500;
  int timer_level = gauge::timer_level::normal;
  bool kernels = false;
  double lr = 1e-3;
  double peak_tflops = 989.0;
  std::string jsonl = "training-loop.jsonl";
  std::string out = "training-loop.json";
  long slow_rank = -1;    ///< MPI: the rank whose forward phase gets a spin kernel (-1: none)
  double slow_us = 2000;  ///< MPI: the spin kernel's length, microseconds
};

[[noreturn]] void usage_error(const std::string& what) {
  std::fprintf(stderr, "training_loop: error: %s (see --help)\n", what.c_str());
  std::exit(2);
}

/// Parses the command line with CLI11: --help and --version print and exit 0; a usage error prints
/// one line naming the bad text (and a hint) to stderr and exits 2.
Options parse(int argc, char** argv) {
  Options o;
  CLI::App app("A small MLP trained with cuBLAS on synthetic data, timed by gauge::Timer: one log line\n"
               "every --log-every steps, then the Timer's final state in a JSON report.",
               "training_loop");
  app.set_version_flag("--version", std::string("gauge ") + gauge::version_string, "Print gauge's version and exit");
  app.option_defaults()->always_capture_default();
  app.get_formatter()->column_width(30);
  app.footer("Exit status: 0 trained and reported; 1 the loss did not go down or was not finite, or an error;\n"
             "2 bad usage, with a one-line reason on stderr; 77 no CUDA GPU found (CTest: skipped).");
  // A decimal integer in [lo, hi], handed on in canonical form (CLI11 alone would read "010" as octal).
  auto integer_in = [](long lo, long hi) {
    const std::string range = "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    return CLI::Validator(
        [lo, hi, range](std::string& text) -> std::string {
          const std::string digits = !text.empty() && text[0] == '-' ? text.substr(1) : text;
          const bool decimal = !digits.empty() && digits.size() <= 9 && digits.find_first_not_of("0123456789") == std::string::npos;
          const long v = decimal ? std::stol(text) : lo - 1;
          if (v < lo || v > hi) return "'" + text + "' is not an integer in " + range;
          text = std::to_string(v);
          return "";
        },
        "INT in " + range);
  };
  app.add_option("--steps", o.steps, "Training steps")->transform(integer_in(1, 100000000));
  app.add_option("--batch", o.batch, "Tokens per batch, a multiple of 8")->transform(integer_in(8, 65536));
  app.add_option("--hidden", o.hidden, "Features per layer, a multiple of 8")->transform(integer_in(8, 32768));
  app.add_option("--layers", o.layers, "Fully connected layers")->transform(integer_in(1, 64));
  auto positive = [](const std::string& text) -> std::string {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || !end || *end || !(v > 0) || !std::isfinite(v)) return "'" + text + "' is not a number > 0";
    return "";
  };
  app.add_option("--lr", o.lr, "SGD learning rate")->check(positive);
  app.add_option("--warmup", o.warmup, "Steps the Timer leaves out as warm-up")->transform(integer_in(0, 100000000));
  app.add_option("--log-every", o.log_every, "Steps between log lines (0: none)")->transform(integer_in(0, 100000000));
  app.add_option("--timer-level", o.timer_level, "Timer level: -1 off (steps only), 0 coarse, 1 normal (the\nphases), 2 detailed (per-layer regions)")
      ->transform(integer_in(-1, 2));
  app.add_option("--peak-tflops", o.peak_tflops, "Peak TFLOP/s that MFU is computed against (default: H200\nSXM, dense BF16)")
      ->check(positive);
  app.add_option("--jsonl", o.jsonl, "JSON Lines log, one line per log step");
  app.add_option("-o,--out", o.out, "The JSON report to write");
  app.add_flag("--kernels", o.kernels, "Trace one step every --log-every steps with CUPTI: each region's kernels by name\nand duration (needs --timer-level 2 and --log-every > 0)");
#ifdef GAUGE_TRAINING_LOOP_MPI
  app.add_option("--slow-rank", o.slow_rank, "MPI: the rank made slower by a spin kernel in its forward phase (-1: none)")
      ->check(CLI::Range(-1L, 1L << 20));
  app.add_option("--slow-us", o.slow_us, "MPI: the spin kernel's length, microseconds")->check(CLI::Range(0.0, 1e6));
#endif
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    std::exit(app.exit(e));
  } catch (const CLI::ParseError& e) {
    usage_error(e.what());
  }
  if (o.hidden % 8) usage_error("--hidden " + std::to_string(o.hidden) + " is not a multiple of 8 (16-byte aligned bf16 rows)");
  if (o.batch % 8) usage_error("--batch " + std::to_string(o.batch) + " is not a multiple of 8 (16-byte aligned bf16 rows)");
  if (o.kernels && o.timer_level < gauge::timer_level::detailed)
    usage_error("--kernels traces at Timer level 2: add --timer-level 2 (it is " + std::to_string(o.timer_level) + ")");
  if (o.kernels && o.log_every == 0) usage_error("--kernels samples one step every --log-every steps: --log-every must be > 0");
  return o;
}

void cublas_check(cublasStatus_t s, const char* call) {
  if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(call) + " failed: " + cublasGetStatusString(s));
}
#define CUBLAS_CHECK(call) cublas_check((call), #call)

using bf16 = __nv_bfloat16;

/// Uniform values in [-scale, scale) from a counter-based hash of (i, seed).
template <class T>
__global__ void fill_uniform(T* x, std::size_t n, std::uint32_t seed, float scale) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    std::uint32_t h = static_cast<std::uint32_t>(i) * 2654435761u ^ (seed * 0x9e3779b9u);
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    const float v = (static_cast<float>(h >> 8) * (2.0f / 16777216.0f) - 1.0f) * scale;
    x[i] = static_cast<T>(v);
  }
}

__global__ void to_bf16(const float* in, bf16* out, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    out[i] = __float2bfloat16(in[i]);
}

using mlp_kernels::relu;
using mlp_kernels::relu_backward;

/// dY = (Y - T) / batch; adds 0.5 / batch · Σ (Y - T)² to *loss (block sums, one atomic per block).
__global__ void mse_grad(const bf16* y, const bf16* t, bf16* dy, std::size_t n, float inv_batch, float* loss) {
  __shared__ float partial[256];
  float sum = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    const float d = __bfloat162float(y[i]) - __bfloat162float(t[i]);
    dy[i] = __float2bfloat16(d * inv_batch);
    sum += d * d;
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(loss, 0.5f * inv_batch * partial[0]);
}

/// What the device publishes to mapped host memory every step: the loss of the step that wrote it.
struct Published {
  float loss;
  std::int32_t step;
};

/// Copies the accumulated loss to mapped host memory and resets the accumulator.
__global__ void publish_loss(float* loss, Published* host, std::int32_t step) {
  host->loss = *loss;
  host->step = step;
  __threadfence_system();
  *loss = 0.0f;
}

/// SGD: w32 -= lr · g; w16 = bf16(w32).
__global__ void sgd(float* w32, bf16* w16, const bf16* g, float lr, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    const float w = w32[i] - lr * __bfloat162float(g[i]);
    w32[i] = w;
    w16[i] = __float2bfloat16(w);
  }
}

constexpr int kThreads = 256;
constexpr int kBlocks = 132 * 8;  // 8 blocks per SM of an H200 (132 SMs); grid-stride beyond

struct Mlp {
  Options o;
  std::size_t h, b, act, wsz;
  cudaStream_t stream = nullptr;
  cublasHandle_t handle = nullptr;
  static constexpr int batches = 4;
  std::vector<bf16*> x, t;          // data: inputs and targets, `batches` of each (h × b)
  bf16* input = nullptr;            // the current batch (h × b)
  std::vector<bf16*> w;             // bf16 weights (h × h), per layer
  std::vector<float*> w32;          // fp32 master weights
  std::vector<bf16*> dw;            // weight gradients
  std::vector<bf16*> a;             // activations after each layer (a[l] = output of layer l)
  bf16 *grad = nullptr, *grad2 = nullptr;  // dZ / dA ping-pong (h × b)
  float* loss = nullptr;
  Published* published = nullptr;   // mapped host memory
  std::vector<void*> owned;

  explicit Mlp(const Options& opt)
      : o(opt), h(std::size_t(opt.hidden)), b(std::size_t(opt.batch)), act(h * b), wsz(h * h) {
    GAUGE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CUBLAS_CHECK(cublasCreate(&handle));
    CUBLAS_CHECK(cublasSetStream(handle, stream));
    for (int i = 0; i < batches; ++i) {
      x.push_back(alloc<bf16>(act));
      t.push_back(alloc<bf16>(act));
    }
    input = alloc<bf16>(act);
    for (long l = 0; l < o.layers; ++l) {
      w.push_back(alloc<bf16>(wsz));
      w32.push_back(alloc<float>(wsz));
      dw.push_back(alloc<bf16>(wsz));
      a.push_back(alloc<bf16>(act));
    }
    grad = alloc<bf16>(act);
    grad2 = alloc<bf16>(act);
    loss = alloc<float>(1);
    GAUGE_CUDA_CHECK(cudaMemsetAsync(loss, 0, sizeof(float), stream));
    GAUGE_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&published), sizeof(Published), cudaHostAllocMapped));
    published->loss = NAN;
    published->step = -1;
    // Weights: He-uniform, U(-a, a) with a = sqrt(6 / h) (variance 2 / h for ReLU layers).
    const float he = std::sqrt(6.0f / static_cast<float>(h));
    for (long l = 0; l < o.layers; ++l) {
      fill_uniform<<<kBlocks, kThreads, 0, stream>>>(w32[l], wsz, 100 + std::uint32_t(l), he);
      to_bf16<<<kBlocks, kThreads, 0, stream>>>(w32[l], w[l], wsz);
    }
    // Data: X uniform in [-1, 1); T = W_teacher X with W_teacher uniform, variance 1 / h.
    bf16* teacher = alloc<bf16>(wsz);
    fill_uniform<<<kBlocks, kThreads, 0, stream>>>(teacher, wsz, 7, std::sqrt(3.0f / static_cast<float>(h)));
    for (int i = 0; i < batches; ++i) {
      fill_uniform<<<kBlocks, kThreads, 0, stream>>>(x[i], act, 1000 + std::uint32_t(i), 1.0f);
      gemm(CUBLAS_OP_N, CUBLAS_OP_N, h, b, h, teacher, x[i], t[i]);
    }
    GAUGE_CUDA_CHECK(cudaGetLastError());
    GAUGE_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  ~Mlp() {
    if (handle) cublasDestroy(handle);
    for (void* p : owned) cudaFree(p);
    if (published) cudaFreeHost(published);
    if (stream) cudaStreamDestroy(stream);
  }
  Mlp(const Mlp&) = delete;
  Mlp& operator=(const Mlp&) = delete;

  template <class T>
  T* alloc(std::size_t n) {
    void* p = nullptr;
    GAUGE_CUDA_CHECK(cudaMalloc(&p, n * sizeof(T)));
    owned.push_back(p);
    return static_cast<T*>(p);
  }

  /// C (m × n) = op(A) · op(B), column-major, bf16 in and out, fp32 accumulation.
  void gemm(cublasOperation_t ta, cublasOperation_t tb, std::size_t m, std::size_t n, std::size_t k, const bf16* A,
            const bf16* B, bf16* C) {
    const float alpha = 1.0f, beta = 0.0f;
    const int lda = int(ta == CUBLAS_OP_N ? m : k), ldb = int(tb == CUBLAS_OP_N ? k : n);
    CUBLAS_CHECK(cublasGemmEx(handle, ta, tb, int(m), int(n), int(k), &alpha, A, CUDA_R_16BF, lda, B, CUDA_R_16BF, ldb,
                              &beta, C, CUDA_R_16BF, int(m), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }

  /// FLOP per step: (3 · layers − 1) GEMMs of 2 · h² · b.
  double flop_per_step() const { return double(3 * o.layers - 1) * 2.0 * double(h) * double(h) * double(b); }

  void data(long step) {
    GAUGE_CUDA_CHECK(cudaMemcpyAsync(input, x[step % batches], act * sizeof(bf16), cudaMemcpyDeviceToDevice, stream));
  }
  void forward_layer(long l) {
    const bf16* in = l == 0 ? input : a[l - 1];
    gemm(CUBLAS_OP_N, CUBLAS_OP_N, h, b, h, w[l], in, a[l]);
    if (l + 1 < o.layers) relu<<<kBlocks, kThreads, 0, stream>>>(a[l], act);
  }
  void loss_and_grad(long step) {
    mse_grad<<<kBlocks, kThreads, 0, stream>>>(a[o.layers - 1], t[step % batches], grad, act,
                                                1.0f / static_cast<float>(b), loss);
    publish_loss<<<1, 1, 0, stream>>>(loss, published, static_cast<std::int32_t>(step));
  }
  /// Backward of layer l; `grad` holds dZ of layer l on entry and dZ of layer l − 1 on exit.
  void backward_layer(long l) {
    const bf16* in = l == 0 ? input : a[l - 1];
    gemm(CUBLAS_OP_N, CUBLAS_OP_T, h, h, b, grad, in, dw[l]);  // dW = dZ · inᵀ
    if (l > 0) {
      gemm(CUBLAS_OP_T, CUBLAS_OP_N, h, b, h, w[l], grad, grad2);  // dA = Wᵀ · dZ
      relu_backward<<<kBlocks, kThreads, 0, stream>>>(grad2, a[l - 1], act);
      std::swap(grad, grad2);
    }
  }
  void optimizer() {
    for (long l = 0; l < o.layers; ++l)
      sgd<<<kBlocks, kThreads, 0, stream>>>(w32[l], w[l], dw[l], static_cast<float>(o.lr), wsz);
    GAUGE_CUDA_CHECK(cudaGetLastError());
  }
};

}  // namespace

#ifdef GAUGE_TRAINING_LOOP_MPI
int run(Options o);
int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  MPI_Init(&argc, &argv);
  const int status = run(o);
  MPI_Finalize();
  return status;
}
int run(Options o) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int local_rank = gauge::mpi::node_rank().rank;
  o.jsonl += ".rank" + std::to_string(rank);
#else
int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
#endif
  int devices = 0;
  const cudaError_t e = cudaGetDeviceCount(&devices);
  (void)cudaGetLastError();
  if (e != cudaSuccess || devices == 0) {
    std::printf("SKIPPED: no CUDA GPU found (%s)\n", e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
    return 77;  // the exit code CTest's SKIP_RETURN_CODE reports as skipped
  }
  try {
#ifdef GAUGE_TRAINING_LOOP_MPI
    GAUGE_CUDA_CHECK(cudaSetDevice(local_rank % devices));  // one rank per GPU of its node
    gauge::mpi::Session session;
    session.report_to(o.out, gauge::capture_environment());
    std::vector<gauge::records::TimerRanksWindow> combined;
    gauge::mpi::TimerAcrossRanks across(session.communicator(), [&](const gauge::records::TimerRanksWindow& w) {
      combined.push_back(w);
      session.add(w);
      if (rank == 0) std::printf("  %s\n", gauge::mpi::console_line(w).c_str());
    });
    std::printf("rank %d of %d: GPU %d%s\n", rank, size, local_rank % devices,
                rank == o.slow_rank ? fmt::format(", slowed by a {:g} us spin kernel per step", o.slow_us).c_str() : "");
#else
    gauge::Report report(o.out);  // checks the output path before anything runs
#endif
    Mlp mlp(o);
    const double flop = mlp.flop_per_step();
    std::printf("MLP: %ld layers of %ld x %ld (bf16, fp32 accumulation), batch %ld tokens, lr %g, %ld steps; "
                "%.4g GFLOP per step; MFU against %.4g TFLOP/s\n",
                o.layers, o.hidden, o.hidden, o.batch, o.lr, o.steps, flop * 1e-9, o.peak_tflops);

    gauge::TimerConfig config;
    config.warmup_steps = std::size_t(o.warmup);
    config.log_every = std::size_t(o.log_every);
    config.level = o.timer_level;
    config.trace_kernels = o.kernels;
    config.peak_flop_per_s = o.peak_tflops * 1e12;
    config.peak_source = o.peak_tflops == 989.0
                             ? "NVIDIA H200 SXM datasheet: BF16 Tensor Core 1,979 TFLOPS with sparsity, 989 dense (default of --peak-tflops)"
                             : "--peak-tflops given by the user";
    gauge::Timer timer("mlp_train", gauge::CudaTimerBackend(mlp.stream), config);
    timer.work(gauge::StepWork().tokens(double(o.batch)).flop(flop));
#ifdef GAUGE_TRAINING_LOOP_MPI
    if (rank == 0) timer.on_log(gauge::ConsoleSink{});
    timer.on_log(across.sink());
#else
    timer.on_log(gauge::ConsoleSink{});
#endif
    timer.on_log(gauge::JsonLinesSink(o.jsonl));
    timer.on_log([&](const gauge::TimerSummary&) {
      // Mapped host memory: the latest loss the device published; no waiting.
      const volatile Published* p = mlp.published;
      std::printf("  loss %.6g (published by step %d, read without waiting)\n", static_cast<double>(p->loss),
                  static_cast<int>(p->step));
    });
    const auto data = timer.region("data"), forward = timer.region("forward"), loss = timer.region("loss"),
               backward = timer.region("backward"), optimizer = timer.region("optimizer");
    std::vector<gauge::TimerRegion> fwd_layer, bwd_layer;
    for (long l = 0; l < o.layers; ++l) {
      fwd_layer.push_back(timer.region("forward.layer" + std::to_string(l), gauge::timer_level::detailed));
      bwd_layer.push_back(timer.region("backward.layer" + std::to_string(l), gauge::timer_level::detailed));
    }

    double initial_loss = NAN;
    for (long step = 0; step < o.steps; ++step) {
      timer.phase(data);
      mlp.data(step);
      timer.phase(forward);
      for (long l = 0; l < o.layers; ++l) {
        auto s = timer.scope(fwd_layer[std::size_t(l)]);
        mlp.forward_layer(l);
      }
#ifdef GAUGE_TRAINING_LOOP_MPI
      if (rank == o.slow_rank) spin_for<<<1, 1, 0, mlp.stream>>>(static_cast<long long>(o.slow_us * 1e3));
#endif
      timer.phase(loss);
      mlp.loss_and_grad(step);
      timer.phase(backward);
      for (long l = o.layers - 1; l >= 0; --l) {
        auto s = timer.scope(bwd_layer[std::size_t(l)]);
        mlp.backward_layer(l);
      }
      timer.phase(optimizer);
      mlp.optimizer();
      timer.step();
#ifdef GAUGE_TRAINING_LOOP_MPI
      across.poll();  // one MPI_Test: completes an earlier log's reduction, never waits
#endif
      if (step == 0) {  // setup, inside warm-up: read the initial loss once
        GAUGE_CUDA_CHECK(cudaStreamSynchronize(mlp.stream));
        initial_loss = static_cast<double>(mlp.published->loss);
      }
    }
    const gauge::TimerSummary final_state = timer.finish();  // one wait for the last steps
    GAUGE_CUDA_CHECK(cudaStreamSynchronize(mlp.stream));
    const double final_loss = static_cast<double>(mlp.published->loss);
#ifdef GAUGE_TRAINING_LOOP_MPI
    across.finish();  // the last log's reduction (polled, with a time limit)
    const auto record = session.write_report({final_state});
    if (rank == 0 && !combined.empty()) {
      const auto& w = combined.back();
      std::printf("straggler: rank %d (window median step %s on rank %d, %s on rank %d; %zu windows combined across "
                  "%d ranks)\n",
                  w.step_time_s.max_rank.value_or(-1), gauge::format_time(w.step_time_s.max).c_str(),
                  w.step_time_s.max_rank.value_or(-1), gauge::format_time(w.step_time_s.min).c_str(),
                  w.step_time_s.min_rank.value_or(-1), combined.size(), size);
      std::printf("report: %s (%d ranks on %d node%s)\n", o.out.c_str(), record.size, record.nodes, record.nodes == 1 ? "" : "s");
    }
    if (o.slow_rank >= 0 && !combined.empty() && combined.back().step_time_s.max_rank != o.slow_rank) {
      std::fprintf(stderr, "training_loop: rank %d: the straggler is rank %d, not the slowed rank %ld\n", rank,
                   combined.back().step_time_s.max_rank.value_or(-1), o.slow_rank);
      return 1;
    }
#else
    report.add(final_state);
    report.write();
    std::fputs(report.summary().c_str(), stdout);
#endif
    const auto& c = final_state.counters;
    std::printf("timer: %zu events for %zu region boundaries and %zu steps (%.3g per boundary), %zu queries, "
                "%zu host synchronizations (finish), %zu forced waits, %zu events created\n",
                c.markers_recorded, c.region_boundaries, c.steps,
                double(c.markers_recorded) / double(c.region_boundaries + c.steps), c.queries, c.host_synchronizations,
                c.forced_waits, c.markers_created);
    std::printf("loss: %.6g at step 0, %.6g at step %ld (%s)\n", initial_loss, final_loss, o.steps - 1,
                final_loss < initial_loss ? "trained" : "NOT decreasing");
    std::printf("report: %s, log: %s\n", o.out.c_str(), o.jsonl.c_str());
    if (!std::isfinite(final_loss) || !std::isfinite(initial_loss) || !(final_loss < initial_loss)) {
      std::fprintf(stderr, "training_loop: the loss did not go down (%g -> %g)\n", initial_loss, final_loss);
      return 1;
    }
    return 0;
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "training_loop: %s\n", ex.what());
    return 1;
  }
}
