#pragma once
/// \file gauge/mpi.hpp
/// gauge over many processes: MPI as the control plane (DESIGN.md, "Beyond one machine"; the
/// `ranks` layer). Optional: include it (and link MPI, CMake target `gauge::mpi`) only where MPI
/// is used; nothing else in gauge includes <mpi.h>. gauge builds no transport: every message here
/// is an MPI call, and a step's own collectives are the user's (NCCL, MPI).
///
/// Two modes (`Mode`):
/// - *collective* (the step holds a collective, e.g. ncclAllReduce): every rank takes the same
///   protocol decisions, agreed at round boundaries by MPI reductions outside every timed
///   interval (gauge/protocol/seam.hpp, `RankCoordinator`): warm-up ends when every rank is steady
///   or one reached its cap; round sizes are the minimum over ranks; k (steps per sample) is the
///   maximum; measuring stops when every rank's stopping rule is met, or when one rank reached
///   max_time or max_samples. *A round's time is the slowest rank's*, per sample: after each
///   round every sample becomes the maximum over ranks of that sample (a synchronous collective
///   completes with its slowest rank, so this is the time of the collective step as the job sees
///   it). The stopping rule then runs on those combined samples, identical on every rank. Each
///   rank's own samples are kept too, in its per-rank result;
/// - *independent* (each rank measures its own step, e.g. one GEMM per GPU): each rank runs the
///   plain protocol concurrently; only the report is gathered.
///
/// Rank 0 writes one report: `experiments` holds, per experiment, the collective result (mode
/// collective: the slowest rank's time per sample) or rank 0's (mode independent); `ranks` holds
/// every rank's host, GPU (UUID, PCI bus id, NUMA node), status and own results, and per
/// experiment the cross-rank statistics of the per-rank medians (min, median, max, skew = max /
/// min, the straggler), the communicator size and the node count (distinct host names).
///
/// Failures and time limits. Every agreement is a non-blocking reduction (MPI_Iallreduce) polled
/// with MPI_Test until `Options::agreement_timeout` (60 s by default). A rank whose step,
/// verification or backend fails tells the others at the agreement they wait in; each of them
/// fails its experiment with "rank R failed", and rank 0's report names rank R and its error. An
/// agreement that times out (a rank stalled, crashed or is stuck in a collective) fails the
/// experiment with AgreementError naming the agreement and, on rank 0, the ranks that did not
/// reach it (each rank tells rank 0 with a small non-blocking send when it enters an agreement).
/// Then, by default (`Options::abort_on_timeout`), rank 0 writes the report with what was measured
/// and the error, and calls MPI_Abort, which ends every rank, the stalled one included (mpirun
/// exits non-zero); the other ranks wait one more timeout for rank 0 to write, then call MPI_Abort
/// themselves. MPI_Finalize is never reached with a rank missing, so nothing hangs.
///
/// Limits. A rank stuck *inside* a device collective (a peer never launched it) is not released
/// by MPI: gauge's agreement times out and aborts the job, but a device hang needs NCCL's own
/// handling (ncclCommAbort, NCCL's watchdogs). Every rank must run the same experiments, in the
/// same order, with the same configuration; a rank out of step is detected at the next agreement
/// (its kind or sequence number differs) and fails every rank.
///
/// \code
///   MPI_Init(&argc, &argv);
///   {
///     gauge::mpi::Session session;  // MPI_COMM_WORLD, collective mode
///     session.report_to("allreduce.json", gauge::capture_environment());
///     auto e = gauge::Experiment("allreduce", step).bytes(bus_bytes);
///     session.run(e);
///     session.write_report();  // gathers; rank 0 writes
///   }
///   MPI_Finalize();
/// \endcode

#include <mpi.h>

#include "gauge/mpi/options.hpp"
#include "gauge/mpi/support.hpp"
#include "gauge/mpi/coordinator.hpp"
#include "gauge/mpi/session.hpp"
#include "gauge/mpi/timer.hpp"
