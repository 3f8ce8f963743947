// NCCL collectives measured like nccl-tests, by gauge's protocol in collective mode (gauge/mpi.hpp):
// one process per GPU under mpirun, every rank running the same experiments, each round's time the
// slowest rank's.
//
//   mpirun -np 2 allreduce [--ops all_reduce,all_gather,reduce_scatter] [--types float,bf16]
//                          [--min-bytes 8] [--max-bytes 1G] [--places out,in] [--max-time 2]
//                          [-o allreduce.json]
//
// Sizes are min-bytes, 2·min-bytes, … max-bytes (×2, as `all_reduce_perf -b 8 -e 1G -f 2`). The
// size of an operation is nccl-tests' S: the buffer of `count` elements an all-reduce reduces, the
// whole output of an all-gather (n × the send count), the whole input of a reduce-scatter. A size
// that leaves fewer than one element per rank is skipped (nccl-tests does the same).
//
// Bandwidths, with nccl-tests' definitions (nccl-tests/doc/PERFORMANCE.md, "Algorithm bandwidth"
// and "Bus bandwidth"): algbw = S / t; busbw = algbw · 2(n−1)/n for all-reduce, algbw · (n−1)/n
// for all-gather and reduce-scatter (the factor that makes busbw comparable with the hardware's
// bandwidth whatever n). Each experiment declares `bytes` = S · factor, so gauge's throughput
// (`gpu_throughput.bytes_per_second`, bytes / median time per step) *is* the bus bandwidth, and the
// item `algorithm_bytes` = S, so its rate is the algorithm bandwidth. t is gauge's median time per
// step (nccl-tests prints the mean of 20 iterations after 5 warm-up ones).
//
// Exit codes: 0 ok; 77 no CUDA GPU for this rank (CTest: skipped); 1 an error or a failed
// experiment; 2 bad arguments.

#include <CLI/CLI.hpp>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#define GAUGE_IMPLEMENTATION  // this file compiles gauge's implementation (once per program)
#include <gauge/env/environment.hpp>
#include <gauge/gauge.hpp>
#include <gauge/mpi.hpp>

namespace {

void nccl_check(ncclResult_t r, const char* call) {
  if (r != ncclSuccess) throw std::runtime_error(std::string(call) + ": " + ncclGetErrorString(r));
}
void cuda_check(cudaError_t r, const char* call) {
  if (r != cudaSuccess) throw std::runtime_error(std::string(call) + ": " + cudaGetErrorString(r));
}

struct Options {
  std::vector<std::string> ops{"all_reduce", "all_gather", "reduce_scatter"};
  std::vector<std::string> types{"float", "bf16"};
  std::vector<std::string> places{"out", "in"};
  std::size_t min_bytes = 8, max_bytes = std::size_t(1) << 30;
  double max_time_s = 2;
  std::string out = "allreduce.json";
};

/// The bus-bandwidth factor of nccl-tests (doc/PERFORMANCE.md): 2(n−1)/n for all-reduce, (n−1)/n
/// for all-gather and reduce-scatter.
double bus_factor(const std::string& op, int n) {
  const double f = double(n - 1) / double(n);
  return op == "all_reduce" ? 2 * f : f;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app("NCCL all-reduce, all-gather and reduce-scatter measured by gauge in collective mode, one rank per\n"
               "GPU under mpirun; bandwidths as nccl-tests defines them.",
               "allreduce");
  app.add_option("--ops", o.ops, "Collectives")->delimiter(',')->check(CLI::IsMember({"all_reduce", "all_gather", "reduce_scatter"}));
  app.add_option("--types", o.types, "Element types")->delimiter(',')->check(CLI::IsMember({"float", "bf16"}));
  app.add_option("--places", o.places, "out (out of place) and/or in (in place)")->delimiter(',')->check(CLI::IsMember({"out", "in"}));
  app.add_option("--min-bytes", o.min_bytes, "Smallest size S, bytes (suffixes K, M, G)")
      ->transform(CLI::AsSizeValue(false))->check(CLI::Range(std::size_t(1), std::size_t(1) << 40));
  app.add_option("--max-bytes", o.max_bytes, "Largest size S, bytes (suffixes K, M, G)")
      ->transform(CLI::AsSizeValue(false))->check(CLI::Range(std::size_t(1), std::size_t(1) << 40));
  app.add_option("--max-time", o.max_time_s, "measure.max_time per experiment, seconds")->check(CLI::PositiveNumber);
  app.add_option("-o,--out", o.out, "The JSON report rank 0 writes");
  // Parse before MPI_Init: --help and bad arguments end here on every rank alike.
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;  // --help: 0; a usage error: 2
  }
  if (o.min_bytes > o.max_bytes) {
    std::fprintf(stderr, "allreduce: error: --min-bytes %zu is above --max-bytes %zu\n", o.min_bytes, o.max_bytes);
    return 2;
  }
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const gauge::mpi::NodeRank node = gauge::mpi::node_rank();
  const int local_rank = node.rank, local_size = node.size;
  int devices = 0;
  // One GPU per rank of a node: NCCL refuses two ranks on one GPU ("invalid usage").
  int has_gpu = cudaGetDeviceCount(&devices) == cudaSuccess && devices >= local_size ? 1 : 0, all_have = 0;
  MPI_Allreduce(&has_gpu, &all_have, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_have) {
    if (rank == 0)
      std::fprintf(stderr, "allreduce: a node has fewer CUDA GPUs than ranks (one GPU per rank is needed): skipped\n");
    MPI_Finalize();
    return 77;
  }
  int status = 0;
  try {
    const int device = local_rank % devices;  // one rank per GPU of its node
    cuda_check(cudaSetDevice(device), "cudaSetDevice");
    ncclUniqueId id;
    if (rank == 0) nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId");
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    ncclComm_t comm;
    nccl_check(ncclCommInitRank(&comm, size, id, rank), "ncclCommInitRank");
    // Buffers for the largest size: send and receive (in place: the receive buffer only).
    void* send = nullptr;
    void* recv = nullptr;
    cuda_check(cudaMalloc(&send, o.max_bytes), "cudaMalloc");
    cuda_check(cudaMalloc(&recv, o.max_bytes), "cudaMalloc");
    cuda_check(cudaMemset(send, 0, o.max_bytes), "cudaMemset");
    cuda_check(cudaMemset(recv, 0, o.max_bytes), "cudaMemset");

    gauge::mpi::Session session;  // collective mode
    session.report_to(o.out, gauge::capture_environment());
    if (rank == 0)
      std::printf("%-15s %-6s %-5s %14s %12s %12s %12s  %s\n", "op", "type", "place", "size_B", "time_us", "algbw_GB/s",
                  "busbw_GB/s", "straggler");
    for (const auto& op : o.ops)
      for (const auto& type : o.types)
        for (const auto& place : o.places)
          for (std::size_t bytes = o.min_bytes; bytes <= o.max_bytes; bytes *= 2) {
            const std::size_t elem = type == "float" ? sizeof(float) : sizeof(__nv_bfloat16);
            const ncclDataType_t dtype = type == "float" ? ncclFloat : ncclBfloat16;
            // count: elements per rank's send (all-gather) or receive (reduce-scatter) buffer.
            const std::size_t total = bytes / elem;
            const std::size_t count = op == "all_reduce" ? total : total / std::size_t(size);
            if (count == 0) continue;
            const std::size_t S = (op == "all_reduce" ? count : count * std::size_t(size)) * elem;
            const bool in_place = place == "in";
            // In place: all-gather's send is the rank's slice of recv, reduce-scatter's recv is the
            // rank's slice of send (NCCL's in-place convention).
            char* r8 = static_cast<char*>(recv);
            char* s8 = static_cast<char*>(send);
            auto step = [&, op, count, dtype, in_place, elem, r8, s8](cudaStream_t s) {
              if (op == "all_reduce")
                nccl_check(ncclAllReduce(in_place ? r8 : s8, r8, count, dtype, ncclSum, comm, s), "ncclAllReduce");
              else if (op == "all_gather")
                nccl_check(ncclAllGather(in_place ? r8 + std::size_t(rank) * count * elem : s8, r8, count, dtype, comm, s),
                           "ncclAllGather");
              else
                nccl_check(ncclReduceScatter(s8, in_place ? s8 + std::size_t(rank) * count * elem : r8, count, dtype, ncclSum,
                                             comm, s),
                           "ncclReduceScatter");
            };
            gauge::Experiment e(op, step);
            e.dimension("type", type).dimension("place", in_place ? "in" : "out").dimension("bytes", static_cast<std::int64_t>(S))
                .dimension("ranks", size)
                .bytes(double(S) * bus_factor(op, size))
                .items("algorithm_bytes", double(S));
            e.config().measure.max_time = std::chrono::duration_cast<gauge::Nanoseconds>(std::chrono::duration<double>(o.max_time_s));
            const gauge::Result r = session.run(e);
            if (r.status != gauge::Status::ok) status = 1;
            if (rank == 0) {
              const double t = r.gpu_time.p50.value_or(0);
              const double algbw = r.gpu_throughput.item_per_second("algorithm_bytes").value_or(0);
              const double busbw = r.gpu_throughput.bytes_per_second.value_or(0);
              std::printf("%-15s %-6s %-5s %14zu %12.2f %12.2f %12.2f  %s\n", op.c_str(), type.c_str(), place.c_str(), S,
                          t * 1e6, algbw / 1e9, busbw / 1e9,
                          r.status == gauge::Status::ok ? "" : r.error.value_or("failed").c_str());
              std::fflush(stdout);
            }
          }
    const auto record = session.write_report();
    if (rank == 0) {
      std::printf("report: %s (%d ranks on %d node%s)\n", o.out.c_str(), record.size, record.nodes, record.nodes == 1 ? "" : "s");
      for (const auto& x : record.experiments)
        if (x.statistics.skew && *x.statistics.skew > 1.05) {
          std::string label = x.name;
          for (const auto& [key, value] : x.dimensions) label += " " + key + "=" + gauge::to_string(value);
          std::printf("  %s: per-rank medians differ by %.1f %% (straggler rank %d)\n", label.c_str(),
                      100 * (*x.statistics.skew - 1), x.statistics.straggler_rank.value_or(-1));
        }
    }
    cudaFree(send);
    cudaFree(recv);
    ncclCommDestroy(comm);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "allreduce: rank %d: error: %s\n", rank, e.what());
    status = 1;
  }
  MPI_Finalize();
  return status;
}
