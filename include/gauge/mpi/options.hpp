#pragma once
/// \file gauge/mpi/options.hpp
/// How a gauge::mpi::Session measures and waits: `Mode`, `Options`, and `AgreementError`, the
/// error of an agreement that did not complete in time. Part of gauge/mpi.hpp (see its file
/// comment for the modes and the failure rules).

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/error.hpp"

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
  /// With report_to(): after every experiment the ranks' results are gathered and rank 0 rewrites
  /// the report (atomically), so that a rank that dies, a rank 0 that hangs or a SIGTERM from the
  /// job's scheduler loses at most the experiment running then. One agreement and one gather per
  /// experiment, between experiments (never inside the measurement). False: only write_report()
  /// (and a timed-out agreement) write.
  bool write_after_each_experiment = true;
  /// While an experiment runs (Session::run), SIGINT, SIGTERM, SIGHUP and SIGQUIT ask it to stop
  /// (as the suite runner does) instead of killing the rank at once: the experiment ends on every
  /// rank at the next agreed round boundary (an interrupt on one rank is a limit for all), is
  /// recorded `failed` with stopping reason "interrupted" and its samples, and rank 0 rewrites the
  /// report (write_after_each_experiment); then the signal is delivered as before (the program's
  /// own handler, or the default action: the rank ends). A second signal during the experiment
  /// ends the rank at once. Between experiments signals are untouched. False: no handlers (a rank
  /// killed by SIGTERM loses the experiment running then).
  bool stop_on_signals = true;
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

}  // namespace gauge::mpi
