#pragma once
/// \file gauge/mpi/coordinator.hpp
/// `gauge::mpi::detail::Coordinator`, collective mode's RankCoordinator: every protocol decision agreed by
/// one polled MPI_Iallreduce, and each round's samples combined into the slowest rank's. Part of
/// gauge/mpi.hpp, whose file comment states the rules.

#include <mpi.h>

#include <array>
#include <cstddef>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/error.hpp"
#include "gauge/detail/fmt.hpp"
#include "gauge/mpi/options.hpp"
#include "gauge/mpi/support.hpp"
#include "gauge/protocol/seam.hpp"

namespace gauge::mpi::detail {

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
    // A stop request (a signal on any rank: "interrupted") is a limit, as the caps are: every rank
    // stops at this round, not only once every rank's rule agrees.
    static const char* const names[] = {"", "rule", "max_samples", "max_time", "interrupted"};
    const int code = reason_here.empty()                ? 0
                     : reason_here == "max_samples"    ? 2
                     : reason_here == "max_time"       ? 3
                     : reason_here == "interrupted"    ? 4
                                                       : 1;
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

}  // namespace gauge::mpi::detail
