#pragma once
/// \file gauge/backends/host_threads.hpp
/// detail::HostThreadTeam: the threads of a host step that runs on several threads at once
/// (`Experiment::threads(n)`, HostBackend). Declared here, compiled once with gauge's compiled part
/// (gauge/implementation/protocol.hpp), so that a file that defines experiments does not parse
/// <thread> and <condition_variable>.

#include <cstddef>
#include <memory>

namespace gauge::detail {

/// `threads` threads that run a job together: the calling thread is thread 0, and `threads − 1`
/// workers, started by the constructor and joined by the destructor, are the others. Not copyable.
class HostThreadTeam {
 public:
  /// What every thread runs: `job(context, thread, threads, steps)`, thread in [0, threads).
  using Job = void (*)(void* context, unsigned thread, unsigned threads, std::size_t steps);

  /// Starts `threads − 1` workers. \throws ConfigError for threads == 0; std::system_error when a
  /// thread cannot be started.
  explicit HostThreadTeam(unsigned threads);
  HostThreadTeam(const HostThreadTeam&) = delete;
  HostThreadTeam& operator=(const HostThreadTeam&) = delete;
  /// Stops and joins the workers.
  ~HostThreadTeam();

  /// Runs `job(context, t, threads, steps)` on every thread t at once (the caller is thread 0) and
  /// returns when all of them returned: one wake-up and one wait per call, whatever `steps` is. A
  /// job that throws on any thread: the first exception is rethrown here, after every thread
  /// finished.
  void run(Job job, void* context, std::size_t steps);

  /// The number of threads, the caller included.
  unsigned threads() const noexcept { return threads_; }

 private:
  void stop() noexcept;  // stops and joins the workers
  struct Shared;
  unsigned threads_;
  std::unique_ptr<Shared> shared_;
};

}  // namespace gauge::detail
