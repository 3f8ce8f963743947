#pragma once
/// \file gauge/implementation/host_threads.hpp
/// The compiled part of detail::HostThreadTeam (gauge/backends/host_threads.hpp). Part of
/// gauge/implementation/protocol.hpp (src/protocol.cpp through CMake); host code only.

#if !defined(__CUDA_ARCH__) && !defined(GAUGE_LINKS_IMPLEMENTATION)

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "gauge/backends/host_threads.hpp"
#include "gauge/core/error.hpp"

namespace gauge::detail {

/// What the team's threads share: the job of the current generation, who finished it, the first
/// error. Workers sleep on `wake` between jobs; the caller sleeps on `done` until all finished.
struct HostThreadTeam::Shared {
  std::mutex m;
  std::condition_variable wake, done;
  std::uint64_t generation = 0;  // bumped by run(): a worker runs each generation once
  bool stopping = false;
  Job job = nullptr;
  void* context = nullptr;
  std::size_t steps = 0;
  unsigned finished = 0;  // workers that finished the current generation
  std::exception_ptr error;
  std::vector<std::thread> workers;
};

HostThreadTeam::HostThreadTeam(unsigned threads) : threads_(threads), shared_(std::make_unique<Shared>()) {
  if (threads == 0) throw ConfigError("threads must be at least 1, got 0");
  Shared& s = *shared_;
  s.workers.reserve(threads - 1);
  try {
    for (unsigned t = 1; t < threads; ++t)
      s.workers.emplace_back([&s, t, threads] {
        std::uint64_t seen = 0;
        for (;;) {
          std::unique_lock<std::mutex> lock(s.m);
          s.wake.wait(lock, [&] { return s.stopping || s.generation != seen; });
          if (s.stopping) return;
          seen = s.generation;
          const Job job = s.job;
          void* const context = s.context;
          const std::size_t steps = s.steps;
          lock.unlock();
          std::exception_ptr error;
          try {
            job(context, t, threads, steps);
          } catch (...) {
            error = std::current_exception();
          }
          lock.lock();
          if (error && !s.error) s.error = error;
          if (++s.finished == threads - 1) s.done.notify_one();
        }
      });
  } catch (const std::system_error& e) {
    const std::size_t started = s.workers.size();
    stop();  // joins the workers started so far
    throw Error("cannot start thread " + std::to_string(started + 1) + " of the " + std::to_string(threads - 1) +
                " a step on " + std::to_string(threads) + " threads needs (std::thread: " + e.what() +
                "); ask for fewer threads");
  } catch (...) {
    stop();
    throw;
  }
}

HostThreadTeam::~HostThreadTeam() { stop(); }

void HostThreadTeam::stop() noexcept {
  if (!shared_) return;
  {
    std::lock_guard<std::mutex> lock(shared_->m);
    shared_->stopping = true;
  }
  shared_->wake.notify_all();
  for (std::thread& w : shared_->workers)
    if (w.joinable()) w.join();
  shared_->workers.clear();
}

void HostThreadTeam::run(Job job, void* context, std::size_t steps) {
  Shared& s = *shared_;
  {
    std::lock_guard<std::mutex> lock(s.m);
    s.job = job;
    s.context = context;
    s.steps = steps;
    s.finished = 0;
    s.error = nullptr;
    ++s.generation;
  }
  s.wake.notify_all();
  std::exception_ptr error;
  try {
    job(context, 0, threads_, steps);
  } catch (...) {
    error = std::current_exception();
  }
  std::unique_lock<std::mutex> lock(s.m);
  s.done.wait(lock, [&] { return s.finished == threads_ - 1; });
  if (!error) error = s.error;
  lock.unlock();
  if (error) std::rethrow_exception(error);
}

}  // namespace gauge::detail

#endif  // !defined(__CUDA_ARCH__) && !defined(GAUGE_LINKS_IMPLEMENTATION)
