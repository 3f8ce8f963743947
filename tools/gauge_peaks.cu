// gauge-peaks: the achievable speed of light of this GPU, measured once per GPU and driver with
// gauge's own protocol, and cached for every later experiment (issue "Speed of light";
// gauge/report/peaks_cache.hpp). Measures:
//   - memory bandwidth: a 16-byte-vector copy kernel and a STREAM triad (fp64) over arrays of
//     --bytes each (1 GiB: far beyond the L2), bytes counted as read + written;
//   - dense GEMM rates: cuBLAS cublasGemmEx for bf16, fp16 (fp32 accumulate), fp32 and tf32
//     (CUBLAS_COMPUTE_32F / _FAST_TF32), and cuBLASLt for fp8 (E4M3 inputs, bf16 output, fp32
//     accumulate, TN as FP8 requires), M = N = K = --gemm-size, 2·M·N·K FLOP per step,
//     warmed up 3 s so the power-capped sustained clock is the one measured;
// and prints each beside the theoretical peak (at the maximum boost clock) and the datasheet's.
//
//   gauge-peaks [--bytes B] [--gemm-size N] [--max-time S] [--out report.json] [--no-cache]
//
// The cache file is <dir>/<GPU UUID>.json (GAUGE_PEAKS_CACHE_DIR, else $XDG_CACHE_HOME/gauge/peaks,
// else ~/.cache/gauge/peaks), keyed by the driver version (NVML's).
#define GAUGE_IMPLEMENTATION
#include <gauge/core/peak_tables.hpp>
#include <gauge/gauge.hpp>
#include <gauge/report/console.hpp>
#include <gauge/report/json.hpp>
#include <gauge/report/peaks_cache.hpp>

#include <CLI/CLI.hpp>
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

#define PEAKS_CUBLAS(call)                                                                     \
  do {                                                                                         \
    const cublasStatus_t st_ = (call);                                                         \
    if (st_ != CUBLAS_STATUS_SUCCESS)                                                          \
      throw std::runtime_error(std::string(#call) + " failed: cuBLAS status " + std::to_string(int(st_))); \
  } while (0)

__global__ void copy_kernel(const uint4* __restrict__ a, uint4* __restrict__ b, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    b[i] = a[i];
}
/// a = b + s·c over `n` double2 vectors (16-byte loads and stores).
__global__ void triad_kernel(double2* __restrict__ a, const double2* __restrict__ b, const double2* __restrict__ c, double s,
                             std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    const double2 x = b[i], y = c[i];
    a[i] = make_double2(x.x + s * y.x, x.y + s * y.y);
  }
}
/// Blocks of 256 threads for one thread per 16-byte vector: a full grid. On the H200 a grid of
/// 8 blocks per SM with a grid-stride loop reached 4.12 TB/s for the triad where the full grid
/// of examples/sweep reached 4.39 TB/s (docs/benchmarks.md §17).
inline unsigned full_grid(std::size_t vectors) {
  const std::size_t blocks = (vectors + 255) / 256;
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks > 0x7fffffffu ? 0x7fffffffu : blocks);
}
/// Fills `n` elements with values in [-1, 1) from a hash of the index (no zeros: realistic power).
template <class T>
__global__ void fill_kernel(T* p, std::size_t n, unsigned seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    unsigned h = static_cast<unsigned>(i) * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    p[i] = T(static_cast<float>(h & 0xffff) / 32768.0f - 1.0f);
  }
}

struct Buffer {
  void* p = nullptr;
  explicit Buffer(std::size_t bytes) { GAUGE_CUDA_CHECK(cudaMalloc(&p, bytes)); }
  ~Buffer() { (void)cudaFree(p); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};

struct Options {
  std::size_t bytes = std::size_t(1) << 30;
  int gemm = 8192;
  double max_time_s = 3;
  std::string out;
  bool no_cache = false;
};

/// One measured peak, and the result it came from.
struct Measured {
  std::string label;
  std::optional<gauge::peaks::Peak> peak; ///< empty when the measurement failed
  std::string error;
};

void apply(gauge::Config& c, const Options& o, bool gemm) {
  c.measure.max_time = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(o.max_time_s));
  if (gemm) {  // the power-capped sustained regime, not the first second's boost (docs/benchmarks.md)
    c.warmup.min_time = std::chrono::seconds(3);
    c.warmup.max_time = std::chrono::seconds(6);
  }
}

gauge::peaks::Peak peak_of(const gauge::Result& r, const std::string& quantity, const std::string& dtype, const std::string& what) {
  gauge::peaks::Peak p;
  p.quantity = quantity;
  p.dtype = dtype;
  p.unit = quantity == "memory_bandwidth" ? "bytes/s" : dtype == "int8" ? "OP/s" : "FLOP/s";
  p.basis = "measured";
  p.clock_basis = "as_measured";
  p.clock_mhz = quantity == "memory_bandwidth" ? r.clock.memory_clock_mhz : r.clock.sm_clock_mhz;
  const auto& rate = quantity == "memory_bandwidth" ? r.gpu_throughput.bytes_per_second : r.gpu_throughput.flop_per_second;
  if (r.status != gauge::Status::ok || !rate) throw std::runtime_error(r.error.value_or("no throughput"));
  p.value = *rate;
  p.source = "gauge-peaks " + std::string(gauge::version_string) + ": " + what + ", median of " +
             std::to_string(r.gpu_time.n) + " samples";
  return p;
}

/// A GEMM through cublasGemmEx (bf16, fp16, fp32, tf32) or cuBLASLt (fp8).
class Gemm {
 public:
  Gemm(const std::string& dtype, int n) : dtype_(dtype), n_(n) {
    const std::size_t e = std::size_t(n) * n;
    const bool fp8 = dtype == "fp8";
    in_elem_ = fp8 ? 1 : (dtype == "fp32" || dtype == "tf32") ? 4 : 2;
    out_elem_ = fp8 ? 2 : in_elem_;
    a_ = std::make_unique<Buffer>(e * in_elem_);
    b_ = std::make_unique<Buffer>(e * in_elem_);
    c_ = std::make_unique<Buffer>(e * out_elem_);
    for (void* p : {a_->p, b_->p}) {
      if (dtype == "bf16") fill_kernel<<<1024, 256>>>(static_cast<__nv_bfloat16*>(p), e, 7u);
      else if (dtype == "fp16") fill_kernel<<<1024, 256>>>(static_cast<__half*>(p), e, 7u);
      else if (fp8) fill_kernel<<<1024, 256>>>(static_cast<__nv_fp8_e4m3*>(p), e, 7u);
      else fill_kernel<<<1024, 256>>>(static_cast<float*>(p), e, 7u);
    }
    GAUGE_CUDA_CHECK(cudaGetLastError());
    GAUGE_CUDA_CHECK(cudaDeviceSynchronize());
    if (fp8) setup_lt();
    else PEAKS_CUBLAS(cublasCreate(&blas_));
  }
  ~Gemm() {
    if (blas_) cublasDestroy(blas_);
    if (pref_) cublasLtMatmulPreferenceDestroy(pref_);
    for (auto l : {la_, lb_, lc_})
      if (l) cublasLtMatrixLayoutDestroy(l);
    if (op_) cublasLtMatmulDescDestroy(op_);
    if (lt_) cublasLtDestroy(lt_);
  }
  Gemm(const Gemm&) = delete;
  Gemm& operator=(const Gemm&) = delete;

  void operator()(cudaStream_t s) {
    const float alpha = 1, beta = 0;
    if (lt_) {
      PEAKS_CUBLAS(cublasLtMatmul(lt_, op_, &alpha, a_->p, la_, b_->p, lb_, &beta, c_->p, lc_, c_->p, lc_, &algo_,
                                  workspace_->p, workspace_bytes, s));
      return;
    }
    PEAKS_CUBLAS(cublasSetStream(blas_, s));
    const cudaDataType t = dtype_ == "bf16" ? CUDA_R_16BF : dtype_ == "fp16" ? CUDA_R_16F : CUDA_R_32F;
    const cublasComputeType_t compute = dtype_ == "tf32" ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    PEAKS_CUBLAS(cublasGemmEx(blas_, CUBLAS_OP_N, CUBLAS_OP_N, n_, n_, n_, &alpha, a_->p, t, n_, b_->p, t, n_, &beta, c_->p,
                              t, n_, compute, CUBLAS_GEMM_DEFAULT));
  }
  double flop() const { return 2.0 * double(n_) * double(n_) * double(n_); }
  double bytes() const { return double(n_) * double(n_) * double(2 * in_elem_ + out_elem_); }
  std::string what() const {
    const std::string size = std::to_string(n_) + "^3";
    if (lt_) return "cublasLtMatmul fp8 e4m3 TN " + size + " (bf16 out, fp32 accumulate)";
    if (dtype_ == "tf32") return "cublasGemmEx fp32 " + size + " with CUBLAS_COMPUTE_32F_FAST_TF32";
    return "cublasGemmEx " + dtype_ + " " + size + " (CUBLAS_COMPUTE_32F)";
  }

 private:
  static constexpr std::size_t workspace_bytes = 32u << 20;
  void setup_lt() {
    PEAKS_CUBLAS(cublasLtCreate(&lt_));
    PEAKS_CUBLAS(cublasLtMatmulDescCreate(&op_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;  // FP8 needs TN
    PEAKS_CUBLAS(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    PEAKS_CUBLAS(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    PEAKS_CUBLAS(cublasLtMatrixLayoutCreate(&la_, CUDA_R_8F_E4M3, n_, n_, n_));
    PEAKS_CUBLAS(cublasLtMatrixLayoutCreate(&lb_, CUDA_R_8F_E4M3, n_, n_, n_));
    PEAKS_CUBLAS(cublasLtMatrixLayoutCreate(&lc_, CUDA_R_16BF, n_, n_, n_));
    workspace_ = std::make_unique<Buffer>(workspace_bytes);
    PEAKS_CUBLAS(cublasLtMatmulPreferenceCreate(&pref_));
    const std::size_t ws = workspace_bytes;
    PEAKS_CUBLAS(cublasLtMatmulPreferenceSetAttribute(pref_, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
    cublasLtMatmulHeuristicResult_t h{};
    int found = 0;
    PEAKS_CUBLAS(cublasLtMatmulAlgoGetHeuristic(lt_, op_, la_, lb_, lc_, lc_, pref_, 1, &h, &found));
    if (found < 1) throw std::runtime_error("cuBLASLt found no fp8 algorithm");
    algo_ = h.algo;
  }
  std::string dtype_;
  int n_;
  std::size_t in_elem_ = 2, out_elem_ = 2;
  std::unique_ptr<Buffer> a_, b_, c_, workspace_;
  cublasHandle_t blas_ = nullptr;
  cublasLtHandle_t lt_ = nullptr;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t la_ = nullptr, lb_ = nullptr, lc_ = nullptr;
  cublasLtMatmulPreference_t pref_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
};

std::string rate(double v, const std::string& quantity) {
  return quantity == "memory_bandwidth" ? gauge::detail::format_rate(v, "B/s") : gauge::detail::format_rate(v, "FLOP/s");
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"gauge-peaks: measure this GPU's achievable memory bandwidth and GEMM rates once, and cache them"};
  app.add_option("--bytes", o.bytes, "Bytes per array of the copy and triad (default 1 GiB)")->check(CLI::Range(std::size_t(1) << 20, std::size_t(1) << 36));
  app.add_option("--gemm-size", o.gemm, "M = N = K of the GEMMs (default 8192)")->check(CLI::Range(256, 32768));
  app.add_option("--max-time", o.max_time_s, "Most measuring time per peak, seconds (default 3)")->check(CLI::Range(0.05, 60.0));
  app.add_option("-o,--out", o.out, "Also write the measurements as a gauge report");
  app.add_flag("--no-cache", o.no_cache, "Print only: do not write the cache");
  CLI11_PARSE(app, argc, argv);
  try {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
      std::fprintf(stderr, "gauge-peaks: no CUDA device\n");
      return 77;
    }
    gauge::Report report(o.out.empty() ? std::string("gauge-peaks-report.json") : o.out);
    const auto& env = report.environment();
    if (env.cuda.devices.empty() || !env.cuda.devices[0].uuid) throw std::runtime_error("device 0 has no UUID");
    const auto& dev = env.cuda.devices[0];
    std::vector<Measured> measured;
    auto run = [&](const std::string& label, auto&& body) {
      Measured m;
      m.label = label;
      try {
        m.peak = body();
      } catch (const std::exception& e) {
        m.error = e.what();
      }
      measured.push_back(std::move(m));
    };
    run("memory (copy)", [&] {
      const std::size_t n = o.bytes / 16;
      Buffer a(n * 16), b(n * 16);
      GAUGE_CUDA_CHECK(cudaMemset(a.p, 1, n * 16));
      auto exp = gauge::Experiment("peak_copy", [&](cudaStream_t s) {
        copy_kernel<<<full_grid(n), 256, 0, s>>>(static_cast<const uint4*>(a.p), static_cast<uint4*>(b.p), n);
      });
      exp.dimension("bytes", static_cast<std::int64_t>(n * 16)).bytes(2.0 * double(n * 16));
      apply(exp.config(), o, false);
      auto r = exp.run();
      auto p = peak_of(r, "memory_bandwidth", "", "copy kernel, 2 x " + std::to_string(n * 16 >> 20) + " MiB per step");
      report.add(std::move(r));
      return p;
    });
    run("memory (triad)", [&] {
      const std::size_t n = o.bytes / 8;
      Buffer a(n * 8), b(n * 8), c(n * 8);
      GAUGE_CUDA_CHECK(cudaMemset(b.p, 0, n * 8));
      GAUGE_CUDA_CHECK(cudaMemset(c.p, 0, n * 8));
      auto exp = gauge::Experiment("peak_triad", [&](cudaStream_t s) {
        triad_kernel<<<full_grid(n / 2), 256, 0, s>>>(static_cast<double2*>(a.p), static_cast<const double2*>(b.p),
                                                       static_cast<const double2*>(c.p), 2.0, n / 2);
      });
      exp.dimension("bytes", static_cast<std::int64_t>(n * 8)).bytes(3.0 * double(n * 8));
      apply(exp.config(), o, false);
      auto r = exp.run();
      auto p = peak_of(r, "memory_bandwidth", "", "STREAM triad (fp64), 3 x " + std::to_string(n * 8 >> 20) + " MiB per step");
      report.add(std::move(r));
      return p;
    });
    for (const std::string dtype : {"bf16", "fp16", "fp8", "tf32", "fp32"}) {
      run(dtype + " dense", [&] {
        Gemm gemm(dtype, o.gemm);
        auto exp = gauge::Experiment("peak_gemm_" + dtype, std::ref(gemm));
        exp.dimension("M", o.gemm).dimension("N", o.gemm).dimension("K", o.gemm).dimension("dtype", dtype);
        exp.flop(gemm.flop()).bytes(gemm.bytes());
        apply(exp.config(), o, true);
        auto r = exp.run();
        auto p = peak_of(r, "compute", dtype, gemm.what());
        report.add(std::move(r));
        return p;
      });
    }
    // The cache: the better of copy and triad is the memory peak; one compute peak per type.
    gauge::peaks::PeaksCacheFile file;
    file.uuid = *dev.uuid;
    file.name = dev.name;
    file.driver_version = env.nvml.driver_version.value_or("");
    file.created_utc = gauge::detail::utc_timestamp();
    file.tool = std::string("gauge-peaks ") + gauge::version_string;
    const gauge::peaks::Peak* memory = nullptr;
    for (const auto& m : measured)
      if (m.peak && m.peak->quantity == "memory_bandwidth" && (!memory || m.peak->value > memory->value)) memory = &*m.peak;
    if (memory) file.peaks.push_back(*memory);
    for (const auto& m : measured)
      if (m.peak && m.peak->quantity == "compute") file.peaks.push_back(*m.peak);

    const std::vector<gauge::peaks::Peak> known = dev.peaks ? dev.peaks->peaks : std::vector<gauge::peaks::Peak>{};
    std::printf("gauge-peaks: %s (%s), driver %s, %d SMs\n", dev.name.c_str(), dev.uuid->c_str(),
                file.driver_version.empty() ? "unknown" : file.driver_version.c_str(), dev.multiprocessors);
    std::printf("%-16s %16s %26s %16s %10s %10s %12s\n", "peak", "measured", "theoretical (max boost)", "datasheet",
                "meas/theo", "meas/data", "clock (MHz)");
    for (const auto& m : measured) {
      if (!m.peak) {
        std::printf("%-16s failed: %s\n", m.label.c_str(), m.error.c_str());
        continue;
      }
      const auto& p = *m.peak;
      const gauge::peaks::Peak* theo = gauge::detail::find_peak(known, p.quantity, p.dtype, "theoretical", "max_boost");
      const gauge::peaks::Peak* data = gauge::detail::find_peak(known, p.quantity, p.dtype, "datasheet");
      auto pct = [&](const gauge::peaks::Peak* q) {
        char b[32];
        if (!q) return std::string("-");
        std::snprintf(b, sizeof b, "%.1f %%", 100 * p.value / q->value);
        return std::string(b);
      };
      std::printf("%-16s %16s %26s %16s %10s %10s %12s\n", m.label.c_str(), rate(p.value, p.quantity).c_str(),
                  theo ? rate(theo->value, p.quantity).c_str() : "-", data ? rate(data->value, p.quantity).c_str() : "-",
                  pct(theo).c_str(), pct(data).c_str(), p.clock_mhz ? std::to_string(int(*p.clock_mhz + 0.5)).c_str() : "-");
    }
    if (!o.no_cache && !file.peaks.empty()) std::printf("cache: %s\n", gauge::detail::write_peaks_cache(file).c_str());
    if (!o.out.empty()) report.write();
    for (const auto& m : measured)
      if (!m.peak) return 1;
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gauge-peaks: error: %s\n", e.what());
    return 1;
  }
}
