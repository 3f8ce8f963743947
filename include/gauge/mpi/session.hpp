#pragma once
/// \file gauge/mpi/session.hpp
/// `gauge::mpi::Session`, one rank's part of a run over many ranks: runs experiments in a Mode,
/// keeps this rank's results, and gathers one report on rank 0 (`gather_text`); on a timed-out
/// agreement, writes what it has and aborts the job. Part of gauge/mpi.hpp.

#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gauge/core/error.hpp"
#include "gauge/core/ranks.hpp"
#include "gauge/core/result.hpp"
#include "gauge/core/thinning.hpp"
#include "gauge/core/statistics.hpp"
#include "gauge/core/stop.hpp"
#include "gauge/core/timer_summary.hpp"
#include "gauge/core/work.hpp"
#include "gauge/detail/fmt.hpp"
#include "gauge/experiment.hpp"
#include "gauge/mpi/coordinator.hpp"
#include "gauge/mpi/options.hpp"
#include "gauge/mpi/support.hpp"
#include "gauge/report/dump.hpp"
#include "gauge/report/json.hpp"

namespace gauge::mpi {
namespace detail {

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
}  // namespace detail

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
        gauge::detail::check_writable(path);
      } catch (const std::exception& e) {
        problem = e.what();
      }
    }
    // The outcome travels as `b` (it may differ between ranks); `a` must agree (0 on every rank).
    const auto all = agree(kind_report_path, "report path", 0, problem.empty() ? 1.0 : 0.0);
    if (all.b_min == 0)
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
    // Options::stop_on_signals: a signal while the experiment runs stops it at an agreed round
    // boundary; once the report holds it, the signal is delivered as before (see Options).
    std::optional<gauge::detail::StopOnSignals> signals;
    if (options_.stop_on_signals && !stop_requested()) signals.emplace();
    Result r = run_experiment(e);
    if (signals) {
      const int signal = gauge::detail::stop_signal();
      signals.reset();  // the handlers the program had, back; the request cleared
      if (signal > 0) std::raise(signal);
    }
    return r;
  }

  /// This rank's own results so far (collective mode: with its own samples), in order.
  const std::vector<Result>& own_results() const { return own_; }
  /// The results run() returned, in order.
  const std::vector<Result>& results() const { return combined_; }
  /// Records a Timer's window combined across ranks (TimerAcrossRanks) for the report; the
  /// last one per Timer name is kept.
  void add(const records::TimerRanksWindow& window) {
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
  records::RanksRecord write_report(const std::vector<TimerSummary>& timers = {}) {
    if (!path_) throw ReportError("gauge::mpi::Session::write_report: no report path (call report_to first)");
    // Every rank is at write_report with the same number of experiments before the gather (a
    // gather matched against another rank's agreement would corrupt both).
    agree(kind_write, "write_report", double(combined_.size()), 0);
    records::RanksRecord record = gather("write_report()");
    if (rank_ == 0) write(record, timers);
    return record;
  }

 private:
  /// run()'s work: the agreement on the experiment, then the run in the session's mode.
  template <class Step, class Backend>
  Result run_experiment(Experiment<Step, Backend>& e) {
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
      checkpoint();
      return r;
    }
    if (options_.mode == Mode::independent) {
      Result r = e.run();
      own_.push_back(r);
      combined_.push_back(r);
      checkpoint();
      return r;
    }
    detail::Coordinator c(comm_, index, options_.agreement_timeout.count());
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
      own.gpu_time = stats::summarize(own.gpu_samples_s, r.config.measure.confidence_level, r.sampling.resolution_per_step());
      own.gpu_throughput = throughput(own.work, own.gpu_time.p50);
      gauge::detail::thin_samples(own, r.config.max_samples_in_report);
    }
    if (c.failed_rank()) failed_rank_ = failed_rank_ ? std::min(*failed_rank_, *c.failed_rank()) : *c.failed_rank();
    own_.push_back(own);
    combined_.push_back(r);
    if (c.timeout()) on_timeout(*c.timeout());
    checkpoint();
    return r;
  }

  nlohmann::json own_part() const {
    records::RankRecord me;
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

  records::RanksRecord base_record() const {
    records::RanksRecord record;
    record.mode = to_string(options_.mode);
    record.size = size_;
    record.agreement_timeout_s = options_.agreement_timeout.count();
    record.timers = timers_;
    return record;
  }

  /// Fills ranks, experiments, nodes and error from the parts of the ranks (rank order).
  void assemble(records::RanksRecord& record, const std::vector<nlohmann::json>& parts) const {
    std::set<std::string> hosts;
    std::vector<std::vector<Result>> results;
    for (const auto& part : parts) {
      record.ranks.push_back(part.at("rank").get<records::RankRecord>());
      hosts.insert(record.ranks.back().host);
      results.push_back(part.at("results").get<std::vector<Result>>());
    }
    record.nodes = static_cast<int>(hosts.size());
    for (std::size_t i = 0; i < combined_.size(); ++i) {
      records::RankExperiment x;
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
      x.statistics = gauge::detail::cross_rank_statistics(medians);
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

  /// After an experiment (Options::write_after_each_experiment): every rank's results so far to
  /// rank 0, which rewrites the report. A write that fails is a warning on rank 0 (the run goes
  /// on; write_report() tries again and throws).
  void checkpoint() {
    if (!path_ || !options_.write_after_each_experiment || broken_) return;
    agree(kind_checkpoint, "the report after an experiment", double(combined_.size()), 0);
    records::RanksRecord record = gather("the report after experiment #" + std::to_string(combined_.size() - 1));
    if (rank_ != 0) return;
    try {
      write(record, {});
    } catch (const std::exception& e) {
      std::fprintf(stderr, "gauge: rank 0: warning: the report after experiment #%zu was not written: %s (the run goes on)\n",
                   combined_.size() - 1, e.what());
    }
  }

  /// \param where what the ranks were to reach (for the timeout's message).
  records::RanksRecord gather(const std::string& where) {
    records::RanksRecord record = base_record();
    const auto parts = detail::gather_text(comm_, gauge::detail::json_dump(own_part()), options_.agreement_timeout.count());
    if (!parts) {
      AgreementError error("the report's gather timed out after " + fmt::format("{:g}", options_.agreement_timeout.count()) +
                               " s: not every rank reached " + where,
                           "report gather", {});
      on_timeout(error);
      throw error;
    }
    if (rank_ != 0) return {};
    std::vector<nlohmann::json> docs;
    for (const auto& text : *parts) docs.push_back(nlohmann::json::parse(text));
    assemble(record, docs);
    gathered_ = std::move(docs);
    return record;
  }

  void write(const records::RanksRecord& record, const std::vector<TimerSummary>& timers) const {
    StoredReport doc;
    doc.environment = environment_;
    doc.results = combined_;
    doc.timers = timers;
    doc.ranks = record;
    gauge::detail::write_file_atomic(*path_, gauge::detail::json_dump(gauge::detail::report_json(doc), 2) + "\n");
  }

  /// A timed-out agreement: rank 0 writes what it has (its own part only) with the error, then
  /// every rank aborts (Options::abort_on_timeout); without abort, the caller gets the error.
  void on_timeout(const AgreementError& error) {
    broken_ = true;
    if (!options_.abort_on_timeout) throw error;
    if (rank_ == 0 && path_) {
      try {
        // Every rank's part as the last gather had it (the experiments finished everywhere before),
        // rank 0's own as it is now.
        records::RanksRecord record = base_record();
        std::vector<nlohmann::json> parts = gathered_;
        if (parts.empty()) parts.emplace_back();
        parts[0] = own_part();
        assemble(record, parts);
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
  static constexpr double kind_begin = 11, kind_write = 12, kind_report_path = 13, kind_checkpoint = 14;

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
  std::vector<nlohmann::json> gathered_;  // rank 0: every rank's part at the last gather
  std::vector<records::TimerRanksWindow> timers_;
  std::optional<int> failed_rank_;
};

}  // namespace gauge::mpi
