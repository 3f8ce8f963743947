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
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gauge/report/dump.hpp"
#include "gauge/core/error.hpp"
#include "gauge/core/ranks.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/core/timer_summary.hpp"
#include "gauge/experiment.hpp"
#include "gauge/report/json.hpp"

namespace gauge::mpi {

/// How the ranks measure together (see the file comment).
enum class Mode {
  collective,   ///< same decisions on every rank; a round's time is the slowest rank's
  independent,  ///< each rank runs the plain protocol on its own
};

/// "collective" or "independent".
inline const char* to_string(Mode m) { return m == Mode::collective ? "collective" : "independent"; }

/// The settings of a Session, with their defaults.
struct Options {
  Mode mode = Mode::collective;  ///< see Mode
  /// Time limit of every agreement (and of the report's gather). 60 s: far above a round (10 ms
  /// by default) and a warm-up round, so only a rank that stalled or died reaches it.
  std::chrono::duration<double> agreement_timeout = std::chrono::seconds(60);
  /// On a timed-out agreement: rank 0 writes the report (when report_to() was called) and calls
  /// MPI_Abort; other ranks wait one more timeout, then call MPI_Abort. False: the experiment
  /// fails with AgreementError and the caller decides (the communicator is then unusable).
  bool abort_on_timeout = true;
  /// The exit code MPI_Abort passes to mpirun.
  int abort_code = 3;
};

/// An agreement that did not complete within Options::agreement_timeout.
class AgreementError : public Error {
 public:
  /// \param agreement the agreement's name ("stop", "round steps", ...).
  /// \param unresponsive the ranks known not to have reached it (known on rank 0 only).
  AgreementError(const std::string& what, std::string agreement, std::vector<int> unresponsive)
      : Error(what), agreement_(std::move(agreement)), unresponsive_(std::move(unresponsive)) {}
  /// The agreement's name.
  const std::string& agreement() const noexcept { return agreement_; }
  /// Ranks that did not reach it (rank 0's knowledge; empty elsewhere or when unknown).
  const std::vector<int>& unresponsive_ranks() const noexcept { return unresponsive_; }

 private:
  std::string agreement_;
  std::vector<int> unresponsive_;
};

namespace detail {

/// Throws gauge::Error naming the MPI call and MPI's error string unless `rc` is MPI_SUCCESS.
inline void check(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  throw Error(std::string(call) + " failed: " + std::string(text, static_cast<std::size_t>(length)));
}

/// Polls `request` with MPI_Test (never blocks) until it completes (true) or `timeout_s` passed
/// (false; the request stays pending). Yields the core between polls, so ranks oversubscribed on
/// few cores still progress.
inline bool test_until(MPI_Request& request, double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (unsigned polls = 0;; ++polls) {
    int done = 0;
    check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    if (polls > 64) std::this_thread::sleep_for(std::chrono::microseconds(polls > 4096 ? 200 : 10));
    else std::this_thread::yield();
  }
}

/// FNV-1a (64 bits) of `text`, cut to 52 bits so it travels exactly as a double.
inline double text_hash(const std::string& text) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return static_cast<double>(h & ((std::uint64_t{1} << 52) - 1));
}

/// This host's name (gethostname), "" when unavailable.
inline std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

/// NUMA node of the PCI device `bus_id` ("0000:19:00.0"; CUDA's 8-digit domain is shortened),
/// from /sys/bus/pci/devices/<id>/numa_node; empty when unknown or -1.
inline std::optional<int> numa_node_of(std::string bus_id) {
  for (auto& c : bus_id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto colon = bus_id.find(':');
  if (colon != std::string::npos && colon > 4) bus_id = bus_id.substr(colon - 4);
  std::ifstream in("/sys/bus/pci/devices/" + bus_id + "/numa_node");
  int node = -1;
  if (!(in >> node) || node < 0) return std::nullopt;
  return node;
}

/// Ranks' entries into agreements, told to rank 0 by non-blocking sends (tag `tag`), so that rank
/// 0 can name the ranks that never reached an agreement that timed out.
class Arrivals {
 public:
  static constexpr int tag = 7713;
  Arrivals(MPI_Comm comm, int rank, int size) : comm_(comm), rank_(rank), last_(static_cast<std::size_t>(size), -1) {}
  Arrivals(const Arrivals&) = delete;
  Arrivals& operator=(const Arrivals&) = delete;
  ~Arrivals() {
    for (auto& s : sends_) MPI_Request_free(&s->request);  // eager 16-byte sends: complete locally
  }
  /// This rank enters agreement number `seq` of experiment `experiment`.
  void enter(long long experiment, long long seq) {
    if (rank_ == 0) {
      last_[0] = seq;
      drain(experiment);
      return;
    }
    prune();
    auto s = std::make_unique<Send>();
    s->message = {experiment, seq};
    check(MPI_Isend(s->message.data(), 2, MPI_LONG_LONG, 0, tag, comm_, &s->request), "MPI_Isend");
    sends_.push_back(std::move(s));
  }
  /// Rank 0: the ranks whose last agreement of `experiment` is before `seq`.
  std::vector<int> behind(long long experiment, long long seq) {
    drain(experiment);
    std::vector<int> out;
    for (std::size_t r = 0; r < last_.size(); ++r)
      if (last_[r] < seq) out.push_back(static_cast<int>(r));
    return out;
  }

 private:
  struct Send {
    std::array<long long, 2> message{};
    MPI_Request request = MPI_REQUEST_NULL;
  };
  void drain(long long experiment) {
    while (true) {
      int there = 0;
      MPI_Status status;
      check(MPI_Iprobe(MPI_ANY_SOURCE, tag, comm_, &there, &status), "MPI_Iprobe");
      if (!there) return;
      std::array<long long, 2> m{};
      check(MPI_Recv(m.data(), 2, MPI_LONG_LONG, status.MPI_SOURCE, tag, comm_, MPI_STATUS_IGNORE), "MPI_Recv");
      if (m[0] == experiment) last_[static_cast<std::size_t>(status.MPI_SOURCE)] = std::max(last_[static_cast<std::size_t>(status.MPI_SOURCE)], m[1]);
    }
  }
  void prune() {
    for (auto it = sends_.begin(); it != sends_.end();) {
      int done = 0;
      check(MPI_Test(&(*it)->request, &done, MPI_STATUS_IGNORE), "MPI_Test");
      it = done ? sends_.erase(it) : it + 1;
    }
  }
  MPI_Comm comm_;
  int rank_;
  std::vector<long long> last_;
  std::vector<std::unique_ptr<Send>> sends_;
};

}  // namespace detail

/// This process's place on its node: its rank among the ranks of `comm` that share its memory
/// (MPI_Comm_split_type with MPI_COMM_TYPE_SHARED: the ranks on the same host) and their count.
/// One GPU per rank of a node is then GPU `rank` of that node. Throws Error naming a failing call.
struct NodeRank {
  int rank = 0;  ///< 0-based, among the ranks on this node
  int size = 1;  ///< ranks on this node
};
inline NodeRank node_rank(MPI_Comm comm = MPI_COMM_WORLD) {
  int world = 0;
  detail::check(MPI_Comm_rank(comm, &world), "MPI_Comm_rank");
  MPI_Comm node = MPI_COMM_NULL;
  detail::check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, world, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  NodeRank r;
  MPI_Comm_rank(node, &r.rank);
  MPI_Comm_size(node, &r.size);
  MPI_Comm_free(&node);
  return r;
}

/// The collective-mode RankCoordinator over an MPI communicator (one per experiment run; see the
/// file comment for the rules). Every decision is one MPI_Iallreduce (MPI_MAX over a small header
/// of doubles: the agreement's kind and sequence number, the failure flag and the lowest failed
/// rank, and two values, each with its negation so that one reduction gives minimum and maximum),
/// polled with MPI_Test; combining a round adds a second reduction of the round's samples.
class Coordinator final : public gauge::detail::RankCoordinator {
 public:
  /// \param comm the communicator (Session uses its own duplicate); \param experiment its index,
  /// which tags the arrival notices; \param timeout_s the limit of each agreement, seconds.
  Coordinator(MPI_Comm comm, long long experiment, double timeout_s)
      : comm_(comm), experiment_(experiment), timeout_s_(timeout_s) {
    detail::check(MPI_Comm_rank(comm, &rank_), "MPI_Comm_rank");
    detail::check(MPI_Comm_size(comm, &size_), "MPI_Comm_size");
    arrivals_ = std::make_unique<detail::Arrivals>(comm, rank_, size_);
  }

  bool end_warmup(bool steady_here, bool capped_here) override {
    const auto h = vote(kind_warmup, "warm-up end", steady_here ? 1 : 0, capped_here ? 1 : 0);
    return min_of(h, 0) >= 1 || max_of(h, 1) >= 1;
  }
  std::size_t round_steps(std::size_t steps_here) override {
    const auto h = vote(kind_round, "round steps", static_cast<double>(steps_here), 0);
    return static_cast<std::size_t>(min_of(h, 0));
  }
  std::size_t steps_per_sample(std::size_t k_here) override {
    const auto h = vote(kind_k, "steps per sample", static_cast<double>(k_here), 0);
    return static_cast<std::size_t>(max_of(h, 0));
  }
  std::string stop(const std::string& reason_here) override {
    static const char* const names[] = {"", "rule", "max_samples", "max_time"};
    const int code = reason_here.empty() ? 0 : reason_here == "max_samples" ? 2 : reason_here == "max_time" ? 3 : 1;
    const auto h = vote(kind_stop, "stop", code, 0);
    const int lowest = static_cast<int>(min_of(h, 0)), highest = static_cast<int>(max_of(h, 0));
    if (lowest >= 1) return reason_here;  // every rank's rule or limit says stop
    if (highest >= 2) return reason_here.empty() ? names[highest] : reason_here;  // a limit on some rank
    return "";
  }
  bool combine_round(std::vector<double>& per_step_s, bool timed_out_here) override {
    const double count = timed_out_here ? -1.0 : static_cast<double>(per_step_s.size());
    const auto h = vote(kind_combine, "round time", count, 0);
    if (min_of(h, 0) != max_of(h, 0) || min_of(h, 0) < 0) return false;
    std::vector<double> slowest(per_step_s.size());
    MPI_Request request = MPI_REQUEST_NULL;
    detail::check(MPI_Iallreduce(per_step_s.data(), slowest.data(), static_cast<int>(per_step_s.size()), MPI_DOUBLE,
                                 MPI_MAX, comm_, &request),
                  "MPI_Iallreduce");
    if (!detail::test_until(request, timeout_s_)) timed_out("round time (samples)");
    own_.insert(own_.end(), per_step_s.begin(), per_step_s.end());
    per_step_s = std::move(slowest);
    return true;
  }
  void finish() override { vote(kind_finish, "end of run", 0, 0); }
  void abandon(const std::string& error) noexcept override {
    if (stopped_) return;
    try {
      failed_here_ = true;
      error_ = error;
      vote(kind_finish, "end of run (failed)", 0, 0, true);
    } catch (...) {
      // The failure is known here; the agreement's own error (timeout) is recorded by vote().
    }
  }

  /// This rank's own per-sample times of the kept rounds, in order (before the maximum).
  const std::vector<double>& own_samples() const { return own_; }
  /// The lowest rank that failed and told the others (empty: none).
  std::optional<int> failed_rank() const { return failed_rank_; }
  /// Whether this rank's own run failed (it told the others).
  bool failed_here() const { return failed_here_; }
  /// Set when an agreement timed out: the error (with the agreement and, on rank 0, the ranks
  /// that did not reach it).
  const std::optional<AgreementError>& timeout() const { return timeout_; }

 private:
  enum Kind { kind_warmup = 1, kind_round, kind_k, kind_stop, kind_combine, kind_finish };
  static constexpr int header_size = 10;
  using Header = std::array<double, header_size>;
  // Header slots (MPI_MAX): 0 kind, 1 -kind, 2 seq, 3 -seq, 4 failed, 5 -(lowest failed rank),
  // 6 value a, 7 -a, 8 value b, 9 -b.
  static double max_of(const Header& h, int value) { return h[static_cast<std::size_t>(6 + 2 * value)]; }
  static double min_of(const Header& h, int value) { return -h[static_cast<std::size_t>(7 + 2 * value)]; }

  Header vote(Kind kind, const char* what, double a, double b, bool failing = false) {
    if (stopped_) throw Error(std::string("agreement '") + what + "' after the ranks stopped");
    const long long seq = seq_++;
    arrivals_->enter(experiment_, seq);
    const double big = std::numeric_limits<double>::max();
    Header mine = {double(kind), -double(kind), double(seq), -double(seq), failing ? 1.0 : 0.0,
                   failing ? -double(rank_) : -big, a, -a, b, -b};
    Header all{};
    MPI_Request request = MPI_REQUEST_NULL;
    detail::check(MPI_Iallreduce(mine.data(), all.data(), header_size, MPI_DOUBLE, MPI_MAX, comm_, &request),
                  "MPI_Iallreduce");
    if (!detail::test_until(request, timeout_s_)) timed_out(what, seq);
    if (all[4] > 0) {
      stopped_ = true;
      failed_rank_ = static_cast<int>(-all[5]);
      if (failing) return all;
      throw Error("stopped at the agreement '" + std::string(what) + "' because rank " + std::to_string(*failed_rank_) +
                  " failed (its error is in the report's ranks section)");
    }
    if (all[0] != -all[1] || all[2] != -all[3]) {
      stopped_ = true;
      throw Error("ranks out of step at the agreement '" + std::string(what) + "' (agreement " + std::to_string(seq) +
                  " of this rank): every rank must run the same experiments with the same configuration");
    }
    if (kind == kind_finish) stopped_ = true;
    return all;
  }

  [[noreturn]] void timed_out(const char* what, long long seq = -1) {
    stopped_ = true;
    std::vector<int> behind;
    if (rank_ == 0 && seq >= 0) behind = arrivals_->behind(experiment_, seq);
    std::string ranks;
    for (int r : behind) ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
    const std::string message =
        "the agreement '" + std::string(what) + "' timed out after " + fmt::format("{:g}", timeout_s_) + " s: " +
        (rank_ == 0 ? (behind.empty() ? std::string("every rank reached it, but the reduction did not complete")
                                      : "rank" + std::string(behind.size() > 1 ? "s " : " ") + ranks + " did not reach it")
                    : std::string("not every rank reached it (rank 0's report names them)"));
    timeout_ = AgreementError(message, what, behind);
    throw *timeout_;
  }

  MPI_Comm comm_;
  long long experiment_;
  double timeout_s_;
  int rank_ = 0, size_ = 1;
  long long seq_ = 0;
  bool stopped_ = false;
  bool failed_here_ = false;
  std::string error_;
  std::optional<int> failed_rank_;
  std::optional<AgreementError> timeout_;
  std::vector<double> own_;
  std::unique_ptr<detail::Arrivals> arrivals_;
};

/// Gathers `text` from every rank to rank 0 (MPI_Igather of the lengths, then MPI_Igatherv),
/// polled until `timeout_s`. Returns the texts on rank 0 (empty elsewhere); empty optional on
/// timeout.
inline std::optional<std::vector<std::string>> gather_text(MPI_Comm comm, const std::string& text, double timeout_s) {
  int rank = 0, size = 1;
  detail::check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  detail::check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  if (text.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw Error("gather: this rank's results are more than 2 GiB of JSON");
  int length = static_cast<int>(text.size());
  std::vector<int> lengths(rank == 0 ? static_cast<std::size_t>(size) : 0);
  MPI_Request request = MPI_REQUEST_NULL;
  detail::check(MPI_Igather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm, &request), "MPI_Igather");
  if (!detail::test_until(request, timeout_s)) return std::nullopt;
  std::vector<int> offsets(lengths.size(), 0);
  std::size_t total = 0;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    if (total + static_cast<std::size_t>(lengths[i]) > static_cast<std::size_t>(std::numeric_limits<int>::max()))
      throw Error("gather: the ranks' results are more than 2 GiB of JSON");
    offsets[i] = static_cast<int>(total);
    total += static_cast<std::size_t>(lengths[i]);
  }
  std::string all(total, '\0');
  detail::check(MPI_Igatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
                             comm, &request),
                "MPI_Igatherv");
  if (!detail::test_until(request, timeout_s)) return std::nullopt;
  std::vector<std::string> out;
  for (std::size_t i = 0; i < lengths.size(); ++i)
    out.push_back(all.substr(static_cast<std::size_t>(offsets[i]), static_cast<std::size_t>(lengths[i])));
  return out;
}

/// One rank's part of a run over many ranks: runs experiments in a Mode, keeps this rank's own
/// results, and gathers one report on rank 0. MPI must be initialized (MPI_Init or
/// MPI_Init_thread) before and finalized after its lifetime; it works on a duplicate of the
/// communicator, so its messages never mix with the program's. Not thread-safe.
class Session {
 public:
  /// \throws Error when MPI is not initialized, or naming the failing MPI call.
  explicit Session(MPI_Comm comm = MPI_COMM_WORLD, Options options = {}) : options_(options) {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) throw Error("gauge::mpi::Session: MPI is not initialized (call MPI_Init first)");
    if (!(options_.agreement_timeout.count() > 0))
      throw ConfigError("gauge::mpi::Options.agreement_timeout must be > 0 s, got " +
                        fmt::format("{:g}", options_.agreement_timeout.count()));
    detail::check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
    detail::check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
    detail::check(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session() {
    if (comm_ != MPI_COMM_NULL && !broken_) MPI_Comm_free(&comm_);
  }

  int rank() const { return rank_; }  ///< this process's rank
  int size() const { return size_; }  ///< ranks in the communicator
  Mode mode() const { return options_.mode; }  ///< the mode
  MPI_Comm communicator() const { return comm_; }  ///< gauge's duplicate of the communicator

  /// Where write_report() (and, after a timed-out agreement, rank 0 before MPI_Abort) writes the
  /// report, and the environment it records (rank 0's is written). Checks on rank 0 that the path
  /// is writable (ReportError otherwise).
  Session& report_to(std::filesystem::path path, Environment environment) {
    // Rank 0 checks the path; every rank learns the outcome (an agreement), so a path rank 0
    // cannot write fails every rank at once instead of leaving the others waiting.
    std::string problem;
    if (rank_ == 0) {
      try {
        check_writable(path);
      } catch (const std::exception& e) {
        problem = e.what();
      }
    }
    const auto all = agree(kind_report_path, "report path", problem.empty() ? 1.0 : 0.0, 0);
    if (all.a_min == 0)
      throw ReportError(rank_ == 0 ? problem
                                   : "rank 0 cannot write the report to " + path.string() + " (its error names the cause)");
    path_ = std::move(path);
    environment_ = std::move(environment);
    return *this;
  }

  /// Runs `e` on this rank in the session's mode and returns the result every rank shares in
  /// collective mode (its GPU-time samples are the slowest rank's per sample) or this rank's own.
  /// Call on every rank, in the same order. A failure on any rank fails every rank's result
  /// (collective mode); a timed-out agreement aborts the job (Options::abort_on_timeout).
  /// \throws ConfigError for an invalid configuration (after telling the other ranks).
  template <class Step, class Backend>
  Result run(Experiment<Step, Backend>& e) {
    const long long index = static_cast<long long>(combined_.size());
    // Every rank is at the same experiment: the same index, name and dimensions (an agreement
    // before anything runs). A rank at another point of the program (write_report, another
    // count of experiments) breaks the session; another name fails this experiment everywhere.
    std::string label = e.name();
    for (const auto& [key, value] : e.dimensions()) label += " " + key + "=" + gauge::to_string(value);
    const auto all = agree(kind_begin, "experiment start", double(index), detail::text_hash(label));
    if (all.b_min != all.b_max) {
      Result r;
      r.name = e.name();
      r.dimensions = e.dimensions();
      r.status = Status::failed;
      r.error = "ranks out of step at experiment #" + std::to_string(index) + ": this rank runs '" + label +
                "', and not every rank runs an experiment of that name and dimensions there";
      own_.push_back(r);
      combined_.push_back(r);
      return r;
    }
    if (options_.mode == Mode::independent) {
      Result r = e.run();
      own_.push_back(r);
      combined_.push_back(r);
      return r;
    }
    Coordinator c(comm_, index, options_.agreement_timeout.count());
    e.coordinator(&c);
    Result r;
    try {
      r = e.run();
    } catch (const std::exception& error) {
      e.coordinator(nullptr);
      c.abandon(error.what());
      throw;
    }
    e.coordinator(nullptr);
    Result own = r;
    if (!c.own_samples().empty() || r.gpu_samples_s.empty()) {
      own.gpu_samples_s = c.own_samples();
      own.gpu_time = summarize(own.gpu_samples_s, r.config.measure.confidence_level, r.sampling.resolution_per_step());
      own.gpu_throughput = throughput(own.work, own.gpu_time.p50);
      if (own.gpu_samples_s.size() > r.config.max_samples_in_report) own.gpu_samples_s.resize(r.config.max_samples_in_report);
    }
    if (c.failed_rank()) failed_rank_ = failed_rank_ ? std::min(*failed_rank_, *c.failed_rank()) : *c.failed_rank();
    own_.push_back(own);
    combined_.push_back(r);
    if (c.timeout()) on_timeout(*c.timeout());
    return r;
  }

  /// This rank's own results so far (collective mode: with its own samples), in order.
  const std::vector<Result>& own_results() const { return own_; }
  /// The results run() returned, in order.
  const std::vector<Result>& results() const { return combined_; }
  /// Records a Timer's window combined across ranks (TimerAcrossRanks) for the report; the
  /// last one per Timer name is kept.
  void add(const TimerRanksWindow& window) {
    for (auto& w : timers_)
      if (w.timer == window.timer) {
        w = window;
        return;
      }
    timers_.push_back(window);
  }

  /// Gathers every rank's results and host to rank 0, which writes the report to the path given
  /// to report_to() (atomically). Call on every rank. Returns the gathered record on rank 0 (an
  /// empty one elsewhere). \param timers Timer summaries of rank 0 to include (`timers`).
  /// \throws ReportError (no report_to(), or the file cannot be written), AgreementError when the
  /// gather times out (after rank 0 wrote what it has, unless abort_on_timeout aborts first).
  RanksRecord write_report(const std::vector<TimerSummary>& timers = {}) {
    if (!path_) throw ReportError("gauge::mpi::Session::write_report: no report path (call report_to first)");
    // Every rank is at write_report with the same number of experiments before the gather (a
    // gather matched against another rank's agreement would corrupt both).
    agree(kind_write, "write_report", double(combined_.size()), 0);
    RanksRecord record = gather();
    if (rank_ == 0) write(record, timers);
    return record;
  }

 private:
  nlohmann::json own_part() const {
    RankRecord me;
    me.rank = rank_;
    me.host = detail::host_name();
    me.process_id = static_cast<unsigned>(::getpid());
    for (const auto& r : own_) {
      if (r.device.ordinal >= 0) {
        me.gpu_name = r.device.name;
        me.gpu_uuid = r.device.uuid;
        me.gpu_pci_bus_id = r.device.pci_bus_id;
        if (r.device.pci_bus_id) me.numa_node = detail::numa_node_of(*r.device.pci_bus_id);
        break;
      }
    }
    for (const auto& r : own_)
      if (r.status == Status::failed) {
        me.status = "failed";
        me.error = r.error;
        break;
      }
    return nlohmann::json{{"rank", me}, {"results", own_}};
  }

  RanksRecord base_record() const {
    RanksRecord record;
    record.mode = to_string(options_.mode);
    record.size = size_;
    record.agreement_timeout_s = options_.agreement_timeout.count();
    record.timers = timers_;
    return record;
  }

  /// Fills ranks, experiments, nodes and error from the parts of the ranks (rank order).
  void assemble(RanksRecord& record, const std::vector<nlohmann::json>& parts) const {
    std::set<std::string> hosts;
    std::vector<std::vector<Result>> results;
    for (const auto& part : parts) {
      record.ranks.push_back(part.at("rank").get<RankRecord>());
      hosts.insert(record.ranks.back().host);
      results.push_back(part.at("results").get<std::vector<Result>>());
    }
    record.nodes = static_cast<int>(hosts.size());
    for (std::size_t i = 0; i < combined_.size(); ++i) {
      RankExperiment x;
      x.name = combined_[i].name;
      x.dimensions = combined_[i].dimensions;
      std::vector<std::optional<double>> medians;
      for (const auto& rank_results : results) {
        if (i < rank_results.size()) {
          x.results.push_back(rank_results[i]);
          medians.push_back(rank_results[i].gpu_time.p50);
        } else {
          medians.push_back(std::nullopt);
        }
      }
      x.statistics = cross_rank_statistics(medians);
      record.experiments.push_back(std::move(x));
    }
    // The failure: the lowest rank that failed on its own (collective mode: it told the others),
    // else the first rank whose result failed (independent mode).
    std::optional<int> culprit = failed_rank_;
    if (!culprit)
      for (const auto& r : record.ranks)
        if (r.status == "failed") {
          culprit = r.rank;
          break;
        }
    if (culprit)
      for (const auto& r : record.ranks)
        if (r.rank == *culprit) record.error = "rank " + std::to_string(r.rank) + " failed: " + r.error.value_or("(no error text)");
  }

  RanksRecord gather() {
    RanksRecord record = base_record();
    const auto parts = gather_text(comm_, json_dump(own_part()), options_.agreement_timeout.count());
    if (!parts) {
      AgreementError error("the report's gather timed out after " + fmt::format("{:g}", options_.agreement_timeout.count()) +
                               " s: not every rank reached write_report()",
                           "report gather", {});
      on_timeout(error);
      throw error;
    }
    if (rank_ != 0) return {};
    std::vector<nlohmann::json> docs;
    for (const auto& text : *parts) docs.push_back(nlohmann::json::parse(text));
    assemble(record, docs);
    return record;
  }

  void write(const RanksRecord& record, const std::vector<TimerSummary>& timers) const {
    const std::optional<RanksRecord> ranks = record;
    const auto doc = report_json(environment_, combined_, timers, {}, ranks, utc_timestamp());
    write_file_atomic(*path_, json_dump(doc, 2) + "\n");
  }

  /// A timed-out agreement: rank 0 writes what it has (its own part only) with the error, then
  /// every rank aborts (Options::abort_on_timeout); without abort, the caller gets the error.
  void on_timeout(const AgreementError& error) {
    broken_ = true;
    if (!options_.abort_on_timeout) throw error;
    if (rank_ == 0 && path_) {
      try {
        RanksRecord record = base_record();
        assemble(record, {own_part()});
        record.error = "rank 0: " + std::string(error.what());
        record.unresponsive_ranks = error.unresponsive_ranks();
        write(record, {});
        std::fprintf(stderr, "gauge: %s; wrote %s, aborting every rank\n", error.what(), path_->c_str());
      } catch (const std::exception& e) {
        std::fprintf(stderr, "gauge: %s; the report could not be written (%s); aborting every rank\n", error.what(), e.what());
      }
    } else {
      std::fprintf(stderr, "gauge: rank %d: %s; waiting for rank 0 to write the report, then aborting\n", rank_,
                   error.what());
      std::this_thread::sleep_for(options_.agreement_timeout);
    }
    std::fflush(stderr);
    MPI_Abort(comm_, options_.abort_code);
    std::abort();  // MPI_Abort does not return
  }

  // ---- the session's own agreements --------------------------------------------------------------

  // Kinds after the Coordinator's (1..6): an agreement of the session met by a rank in another
  // agreement is an out-of-step program, detected on both sides (every agreement is one
  // MPI_Iallreduce of the same 10 doubles, so they pair up in order whatever their kind).
  static constexpr double kind_begin = 11, kind_write = 12, kind_report_path = 13;

  struct Agreed {
    double a_min = 0, a_max = 0, b_min = 0, b_max = 0;
  };

  /// One agreement of the session (the Coordinator's header layout): every rank must be in the
  /// same kind with the same `a` (index or count); `b` may differ (the caller decides). A kind or
  /// `a` that differs, or a time-out, ends the session as a timed-out agreement does (rank 0
  /// writes what it has with the error; MPI_Abort unless abort_on_timeout is off).
  Agreed agree(double kind, const char* what, double a, double b) {
    if (broken_) throw Error(std::string("gauge::mpi::Session: '") + what + "' after the session broke");
    const double seq = double(session_seq_++);
    const double big = std::numeric_limits<double>::max();
    std::array<double, 10> mine = {kind, -kind, seq, -seq, 0.0, -big, a, -a, b, -b}, all{};
    MPI_Request request = MPI_REQUEST_NULL;
    detail::check(MPI_Iallreduce(mine.data(), all.data(), 10, MPI_DOUBLE, MPI_MAX, comm_, &request), "MPI_Iallreduce");
    if (!detail::test_until(request, options_.agreement_timeout.count()))
      on_timeout(AgreementError("the agreement '" + std::string(what) + "' timed out after " +
                                    fmt::format("{:g}", options_.agreement_timeout.count()) +
                                    " s: not every rank reached it",
                                what, {}));
    const bool same_kind = all[0] == -all[1], same_a = all[6] == -all[7];
    if (!same_kind || !same_a || all[2] != -all[3])
      on_timeout(AgreementError("ranks out of step at '" + std::string(what) + "': " +
                                    (!same_kind ? std::string("another rank is at a different point of the program "
                                                              "(running an experiment, or at write_report)")
                                                : "the ranks have run different numbers of experiments") +
                                    "; every rank must run the same experiments in the same order",
                                what, {}));
    return {-all[7], all[6], -all[9], all[8]};
  }

  Options options_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  long long session_seq_ = 0;
  bool broken_ = false;
  std::optional<std::filesystem::path> path_;
  Environment environment_;
  std::vector<Result> own_, combined_;
  std::vector<TimerRanksWindow> timers_;
  std::optional<int> failed_rank_;
};

/// gauge::Timer's window summaries combined across ranks without a per-step synchronization.
///
/// At every `log_every` step the Timer calls the sink (`sink()`, registered with
/// `timer.on_log(...)`), which packs the window's median step time and each region's window
/// median, *starts* one MPI_Iallreduce (MPI_MAXLOC over {value, rank} pairs; the minimum as the
/// maximum of the negated values) and returns at once. The loop calls `poll()` at every step (an
/// MPI_Test, never waits): the reduction completes at a later step and `on_combined` receives the
/// min / max over ranks and the rank of each (the max's rank is the straggler). Reductions still
/// in flight at the next log stay queued (MPI matches non-blocking collectives in the order they
/// start, so every rank starts one per log and none waits for a slow rank); poll() delivers them
/// in order. finish() completes what is in flight (polling, with a time limit). Every rank must
/// register the same regions in the same order (checked: the names' hash is reduced too) and log
/// at the same steps (the same log_every and warm-up; checked).
///
/// Against Megatron-LM's timers (megatron/core/timers.py, `Timers.log(..., barrier=False)` with
/// `--timing-log-option minmax`): Megatron reports the same min / max over ranks, but gathers every
/// rank's elapsed times with a blocking all-gather (`torch.distributed.all_gather_into_tensor`)
/// at log time, optionally after a barrier, and each timer's start/stop calls
/// `torch.cuda.synchronize()`: every log is a synchronization point of all ranks. Here a log
/// costs one non-blocking call, and completion is observed at a later step's poll().
class TimerAcrossRanks {
 public:
  /// \param comm the communicator (every rank of it runs the loop).
  /// \param on_combined receives each combined window (on every rank), at a later poll().
  /// \param max_regions regions a window can carry (the message has a fixed size on every rank).
  TimerAcrossRanks(MPI_Comm comm, std::function<void(const TimerRanksWindow&)> on_combined, std::size_t max_regions = 64)
      : comm_(comm), on_combined_(std::move(on_combined)), max_regions_(max_regions) {
    detail::check(MPI_Comm_rank(comm, &rank_), "MPI_Comm_rank");
    detail::check(MPI_Comm_size(comm, &size_), "MPI_Comm_size");
  }
  TimerAcrossRanks(const TimerAcrossRanks&) = delete;
  TimerAcrossRanks& operator=(const TimerAcrossRanks&) = delete;
  ~TimerAcrossRanks() {
    try {
      finish(std::chrono::seconds(5));
    } catch (...) {
      // A destructor does not throw; call finish() to see the error.
    }
  }

  /// The sink for `timer.on_log(...)`: starts the reduction of this window (never waits).
  std::function<void(const TimerSummary&)> sink() {
    return [this](const TimerSummary& s) { start(s); };
  }

  /// Starts combining `s` (what sink() does), after delivering what completed (poll()).
  /// \throws ConfigError when the Timer has more than max_regions regions.
  void start(const TimerSummary& s) {
    poll();
    if (s.regions.size() > max_regions_)
      throw ConfigError("TimerAcrossRanks: the Timer '" + s.name + "' has " + std::to_string(s.regions.size()) +
                        " regions, more than max_regions = " + std::to_string(max_regions_));
    auto f = std::make_unique<InFlight>();
    f->window.timer = s.name;
    f->window.steps = s.counters.resolved_steps;
    f->window.ranks = size_;
    std::uint64_t hash = 1469598103934665603ull;  // FNV-1a of the region names, in order
    for (const auto& r : s.regions) {
      for (char ch : r.name + '\n') hash = (hash ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
      f->window.regions.push_back(RankedRegion{r.name, {}});
    }
    f->send.resize(2 * (3 + max_regions_));
    f->recv.resize(f->send.size());
    std::size_t i = 0;
    auto put = [&](std::optional<double> v) {
      const double lowest = -std::numeric_limits<double>::infinity();
      f->send[i++] = {v ? *v : lowest, rank_};   // max over ranks
      f->send[i++] = {v ? -*v : lowest, rank_};  // min over ranks, negated
    };
    put(static_cast<double>(hash >> 12));  // exact in a double
    put(static_cast<double>(s.counters.resolved_steps));
    put(s.window.gpu_time_s.p50);
    for (std::size_t r = 0; r < max_regions_; ++r)
      put(r < s.regions.size() ? s.regions[r].window.time_per_step_s.p50 : std::nullopt);
    detail::check(MPI_Iallreduce(f->send.data(), f->recv.data(), static_cast<int>(f->send.size()), MPI_DOUBLE_INT,
                                 MPI_MAXLOC, comm_, &f->request),
                  "MPI_Iallreduce");
    in_flight_.push_back(std::move(f));
    ++started_;
  }

  /// MPI_Test on the oldest reduction in flight (never waits), delivering each that completed, in
  /// order. Call at every step. Returns true when nothing is in flight any more.
  bool poll() {
    while (!in_flight_.empty()) {
      int done = 0;
      detail::check(MPI_Test(&in_flight_.front()->request, &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (!done) return false;
      deliver();
    }
    return true;
  }

  /// Completes every reduction in flight, polling up to `timeout` for each.
  /// \throws AgreementError on timeout; ConfigError when the ranks' windows do not match.
  void finish(std::chrono::duration<double> timeout = std::chrono::seconds(60)) {
    while (!in_flight_.empty()) {
      if (!detail::test_until(in_flight_.front()->request, timeout.count()))
        throw AgreementError("TimerAcrossRanks: the combined window of '" + in_flight_.front()->window.timer +
                                 "' did not complete in " + fmt::format("{:g}", timeout.count()) + " s",
                             "timer window", {});
      deliver();
    }
  }

  std::size_t started() const { return started_; }      ///< reductions started (one per log)
  std::size_t completed() const { return completed_; }  ///< reductions delivered
  std::size_t in_flight() const { return in_flight_.size(); }  ///< reductions not completed yet
  /// The last combined window (empty timer name: none yet).
  const TimerRanksWindow& last() const { return last_; }

 private:
  struct DoubleInt {  // MPI_DOUBLE_INT
    double value;
    int rank;
  };
  struct InFlight {
    TimerRanksWindow window;
    std::vector<DoubleInt> send, recv;
    MPI_Request request = MPI_REQUEST_NULL;
  };

  static RankedValue value_at(const InFlight& f, std::size_t i) {
    RankedValue v;
    const auto& hi = f.recv[2 * i];
    const auto& lo = f.recv[2 * i + 1];
    if (std::isfinite(hi.value)) {
      v.max = hi.value;
      v.max_rank = hi.rank;
    }
    if (std::isfinite(lo.value)) {
      v.min = -lo.value;
      v.min_rank = lo.rank;
    }
    return v;
  }

  void deliver() {
    std::unique_ptr<InFlight> f = std::move(in_flight_.front());
    in_flight_.erase(in_flight_.begin());
    ++completed_;
    const RankedValue hash = value_at(*f, 0), steps = value_at(*f, 1);
    if (hash.min != hash.max)
      throw ConfigError("TimerAcrossRanks: the Timer '" + f->window.timer +
                        "' has different regions on different ranks (every rank must register the same regions in "
                        "the same order)");
    if (steps.min != steps.max)
      throw ConfigError("TimerAcrossRanks: the ranks logged the Timer '" + f->window.timer + "' at different steps (" +
                        fmt::format("{:g} and {:g}", steps.min.value_or(0), steps.max.value_or(0)) +
                        "): use the same log_every and warm-up");
    f->window.step_time_s = value_at(*f, 2);
    for (std::size_t r = 0; r < f->window.regions.size(); ++r) f->window.regions[r].time_per_step_s = value_at(*f, 3 + r);
    last_ = f->window;
    if (on_combined_) on_combined_(last_);
  }

  MPI_Comm comm_;
  std::function<void(const TimerRanksWindow&)> on_combined_;
  std::size_t max_regions_;
  int rank_ = 0, size_ = 1;
  std::vector<std::unique_ptr<InFlight>> in_flight_;
  TimerRanksWindow last_;
  std::size_t started_ = 0, completed_ = 0;
};

/// One console line of a combined window: `ranks 2 step 1200 | step 1.52 ms .. 1.60 ms (straggler
/// rank 1) | forward 0.50 ms .. 0.61 ms (rank 1) | ...`.
inline std::string console_line(const TimerRanksWindow& w) {
  auto range = [](const RankedValue& v) {
    return gauge::detail::format_time(v.min) + " .. " + gauge::detail::format_time(v.max) +
           (v.max_rank ? " (rank " + std::to_string(*v.max_rank) + ")" : std::string());
  };
  std::string line = "timer " + w.timer + " across " + std::to_string(w.ranks) + " ranks, step " +
                     std::to_string(w.steps) + " | step " + range(w.step_time_s) +
                     (w.step_time_s.max_rank ? " straggler rank " + std::to_string(*w.step_time_s.max_rank) : "");
  for (const auto& r : w.regions) line += " | " + r.name + " " + range(r.time_per_step_s);
  return line;
}

}  // namespace gauge::mpi
