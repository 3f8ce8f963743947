// gauge/mpi.hpp on the CPU: the agreement protocol over MPI ranks, on the deterministic fake
// backend (tests/fake_backend.hpp: a virtual clock per rank, so every rank's measurement is exactly
// reproducible in-process) and on the host Timer backend. Run by CTest under
// `mpirun -np 4 --oversubscribe` (tests/CMakeLists.txt):
//
//   gauge_mpi_tests SCENARIO REPORT
//
// Scenarios: speeds (ranks of different speeds), noise (rank 2's noise target is met later),
// failure (rank 2's step throws), stall (rank 3 stalls: the agreement times out; rank 0 writes the
// report and aborts, checked by tests/mpi/check_abort.cmake), timer (the Timer across ranks),
// independent (each rank on its own), names (a rank runs another experiment: that experiment
// fails everywhere, the session goes on), fewer (a rank runs one experiment fewer: the job ends,
// checked by tests/mpi/check_abort.cmake). Rank 0 reads the written report back and checks it value by
// value against values computed here independently; the exit status is 0 only when every check
// on every rank passed. Each failed check prints "FAIL rank R: what".

#include <mpi.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#define GAUGE_IMPLEMENTATION
#include <gauge/gauge.hpp>
#include <gauge/backends/timer_backends.hpp>
#include <gauge/env/environment.hpp>
#include <gauge/mpi.hpp>
#include <gauge/timer.hpp>

#include "fake_backend.hpp"

using gauge::testing::FakeDevice;
using gauge::testing::FakeStream;
using json = nlohmann::json;

namespace {

int rank = 0, size = 1;
int failures = 0;

void check(bool ok, const std::string& what) {
  if (ok) return;
  ++failures;
  std::fprintf(stderr, "FAIL rank %d: %s\n", rank, what.c_str());
}
template <class A, class B>
void check_eq(const A& a, const B& b, const std::string& what) {
  if (a == b) return;
  auto text = [](const json& j) {
    const std::string t = j.dump();
    return t.size() > 200 ? t.substr(0, 200) + "..." : t;
  };
  check(false, what + ": " + text(json(a)) + " != " + text(json(b)));
}

/// A deterministic value in [0, 1) from an integer (splitmix64).
double unit(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  x ^= x >> 31;
  return static_cast<double>(x >> 11) / 9007199254740992.0;
}

/// Kernel seconds of step `i` of rank `r` in a scenario.
using Script = std::function<double(int r, std::size_t i)>;

/// The default configuration, except: one stream, and no minimum times. Each rank's fake device
/// has its own virtual clock, which runs at its own step's speed (on real GPUs the ranks of a
/// collective wait for each other, so their clocks run together): with the minimum times the
/// faster ranks' clocks would need more steps to reach them. Counts and samples decide instead.
gauge::Config fake_config() {
  gauge::Config c;
  c.measure.streams = 1;
  c.warmup.min_time = std::chrono::nanoseconds(0);
  c.measure.min_time = std::chrono::nanoseconds(0);
  return c;
}

/// The experiment of rank `r` running `script` on its own fake device.
gauge::Result run_fake(FakeDevice& dev, const Script& script, int r, gauge::mpi::Session* session,
                       std::function<void(std::size_t)> hook = {}) {
  std::size_t i = 0;
  auto e = gauge::testing::fake_experiment(
      dev,
      [&, r](FakeStream s) {
        if (hook) hook(i);
        s.kernel(script(r, i++));
      },
      "fake-step");
  e.config(fake_config()).bytes(1e6);
  return session ? session->run(e) : e.run();
}

/// Hyndman-Fan type 7 median, computed here (not with gauge's code).
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const double h = 0.5 * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(h);
  return lo + 1 < v.size() ? v[lo] + (h - static_cast<double>(lo)) * (v[lo + 1] - v[lo]) : v[lo];
}

std::vector<double> samples_of(const json& result) {
  return result.at("samples").at("gpu_time_per_step_s").get<std::vector<double>>();
}

/// The steps of each warm-up round of a result.
std::vector<std::size_t> curve_steps(const json& result) {
  std::vector<std::size_t> out;
  for (const auto& round : result.at("warmup").at("curve")) out.push_back(round.at("steps").get<std::size_t>());
  return out;
}

/// The host names of all ranks (MPI_Allgather), for the node count.
std::set<std::string> all_hosts() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  std::vector<char> all(256 * static_cast<std::size_t>(size));
  MPI_Allgather(name, 256, MPI_CHAR, all.data(), 256, MPI_CHAR, MPI_COMM_WORLD);
  std::set<std::string> hosts;
  for (int r = 0; r < size; ++r) hosts.insert(std::string(all.data() + 256 * r));
  return hosts;
}

/// The same value on every rank? (MPI_Allreduce of min and max.)
void check_same_on_all(double v, const std::string& what) {
  double lo = 0, hi = 0;
  MPI_Allreduce(&v, &lo, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&v, &hi, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  check(lo == hi, what + " differs across ranks: " + std::to_string(lo) + " .. " + std::to_string(hi));
}

json read_report(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

/// The checks every collective report passes: sizes, hosts, the decisions equal on every rank,
/// the combined samples the per-sample maximum of the ranks' own, and the cross-rank statistics.
void check_collective_report(const json& doc, const std::set<std::string>& hosts) {
  const json& ranks = doc.at("ranks");
  check_eq(ranks.at("mode").get<std::string>(), std::string("collective"), "mode");
  check_eq(ranks.at("size").get<int>(), size, "communicator size");
  check_eq(ranks.at("nodes").get<int>(), static_cast<int>(hosts.size()), "node count");
  check_eq(ranks.at("ranks").size(), static_cast<std::size_t>(size), "rank records");
  for (int r = 0; r < size; ++r) {
    check_eq(ranks["ranks"][r].at("rank").get<int>(), r, "rank order");
    check(hosts.count(ranks["ranks"][r].at("host").get<std::string>()) == 1, "host name of rank " + std::to_string(r));
  }
  const json& x = ranks.at("experiments").at(0);
  const json& results = x.at("results");
  check_eq(results.size(), static_cast<std::size_t>(size), "per-rank results");
  const json& combined = doc.at("experiments").at(0);
  for (int r = 1; r < size; ++r) {
    for (const char* key : {"steps", "rounds", "steps_per_sample", "wall_rounds", "wall_steps", "calibration_steps"})
      check_eq(results[r]["sampling"][key], results[0]["sampling"][key], std::string("sampling.") + key + " of rank " + std::to_string(r));
    check_eq(results[r]["warmup"]["steps"], results[0]["warmup"]["steps"], "warm-up steps of rank " + std::to_string(r));
    check_eq(curve_steps(results[r]), curve_steps(results[0]), "warm-up round sizes of rank " + std::to_string(r));
    check_eq(results[r]["sampling"]["round_samples"], results[0]["sampling"]["round_samples"],
             "round sizes of rank " + std::to_string(r));
    check_eq(results[r]["stopping"]["reason"], results[0]["stopping"]["reason"], "stop reason of rank " + std::to_string(r));
  }
  // A round's time is the slowest rank's: every combined sample is the maximum of the ranks' own.
  const auto slowest = samples_of(combined);
  check(!slowest.empty(), "combined samples");
  for (int r = 0; r < size; ++r) check_eq(samples_of(results[r]).size(), slowest.size(), "sample count of rank " + std::to_string(r));
  for (std::size_t i = 0; i < slowest.size(); ++i) {
    double m = -1;
    for (int r = 0; r < size; ++r) m = std::max(m, samples_of(results[r])[i]);
    if (m != slowest[i]) {
      check(false, "combined sample " + std::to_string(i) + " is " + std::to_string(slowest[i]) + ", the ranks' maximum " + std::to_string(m));
      break;
    }
  }
  check_eq(combined["gpu_time_s"]["p50"].get<double>(), median(slowest), "combined median");
  // Cross-rank statistics from the per-rank medians, recomputed.
  std::vector<double> medians;
  for (int r = 0; r < size; ++r) {
    const double own = median(samples_of(results[r]));
    check_eq(results[r]["gpu_time_s"]["p50"].get<double>(), own, "median of rank " + std::to_string(r));
    medians.push_back(own);
  }
  const json& st = x.at("statistics");
  check_eq(st.at("medians_s").get<std::vector<double>>(), medians, "statistics.medians_s");
  const auto mx = std::max_element(medians.begin(), medians.end());
  const auto mn = std::min_element(medians.begin(), medians.end());
  check_eq(st.at("max_median_s").get<double>(), *mx, "max_median_s");
  check_eq(st.at("min_median_s").get<double>(), *mn, "min_median_s");
  check_eq(st.at("median_median_s").get<double>(), median(medians), "median_median_s");
  check_eq(st.at("skew").get<double>(), *mx / *mn, "skew");
  check_eq(st.at("straggler_rank").get<int>(), static_cast<int>(mx - medians.begin()), "straggler_rank");
  check_eq(st.at("fastest_rank").get<int>(), static_cast<int>(mn - medians.begin()), "fastest_rank");
  check(ranks.at("error").is_null(), "no error: " + ranks.at("error").dump());
}

gauge::Environment small_environment() {
  gauge::env::EnvironmentOptions o;
  o.run_tools = false;
  o.query_cuda = false;
  return gauge::capture_environment(o);
}

// ---- scenarios --------------------------------------------------------------------------------------

/// Rank r's step takes (10 + 4r) µs, ±2 % by step: rank 3 is the straggler.
int scenario_speeds(const std::string& path) {
  const Script script = [](int r, std::size_t i) {
    return (10e-6 + 4e-6 * r) * (1 + 0.02 * unit(i * 4 + static_cast<std::size_t>(r)));
  };
  gauge::mpi::Session session;
  session.report_to(path, small_environment());
  FakeDevice dev;
  const auto r = run_fake(dev, script, rank, &session);
  check(r.status == gauge::Status::ok, "status: " + r.error.value_or(""));
  // Every rank took the same decisions (seen here, not only in the report).
  check_same_on_all(static_cast<double>(r.sampling.rounds), "rounds");
  check_same_on_all(static_cast<double>(r.warmup.steps), "warm-up steps");
  check_same_on_all(static_cast<double>(r.sampling.steps_per_sample), "k");
  check_same_on_all(static_cast<double>(r.gpu_samples_s.size()), "samples");
  const auto hosts = all_hosts();
  session.write_report();
  if (rank == 0) {
    const json doc = read_report(path);
    check_collective_report(doc, hosts);
    const json& st = doc["ranks"]["experiments"][0]["statistics"];
    check_eq(st["straggler_rank"].get<int>(), size - 1, "the slowest rank is the straggler");
    check_eq(st["fastest_rank"].get<int>(), 0, "the fastest rank");
    // Each rank's own median is its own step time (10 + 4r µs, +0..2 %), not the slowest's.
    for (int q = 0; q < size; ++q) {
      const double m = doc["ranks"]["experiments"][0]["results"][q]["gpu_time_s"]["p50"].get<double>();
      const double base = 10e-6 + 4e-6 * q;
      check(m >= base * (1 - 1e-9) && m <= base * 1.02 * (1 + 1e-9), "own median of rank " + std::to_string(q) + ": " + std::to_string(m));
    }
  }
  return failures;
}

/// Ranks 0, 1, 3: a constant 10 µs. Rank 2: 20 µs ± 15 % (uniform), slower than every other
/// sample, so the slowest rank's samples are rank 2's own and the collective run must stop exactly
/// where rank 2 alone stops, later than a quiet rank alone.
int scenario_noise(const std::string& path) {
  const Script script = [](int r, std::size_t i) {
    return r == 2 ? 20e-6 * (0.85 + 0.3 * unit(i)) : 10e-6;
  };
  // The plain protocol on one process, per script (the independent computation).
  FakeDevice alone_noisy, alone_quiet;
  const auto noisy = run_fake(alone_noisy, script, 2, nullptr);
  const auto quiet = run_fake(alone_quiet, script, 0, nullptr);
  check(quiet.sampling.rounds < noisy.sampling.rounds,
        "the noisy rank alone needs more rounds (" + std::to_string(noisy.sampling.rounds) + ") than a quiet one (" +
            std::to_string(quiet.sampling.rounds) + ")");
  gauge::mpi::Session session;
  session.report_to(path, small_environment());
  FakeDevice dev;
  const auto r = run_fake(dev, script, rank, &session);
  check(r.status == gauge::Status::ok, "status: " + r.error.value_or(""));
  check_eq(r.sampling.rounds, noisy.sampling.rounds, "rounds (= rank 2 alone)");
  check_eq(r.warmup.steps, noisy.warmup.steps, "warm-up steps (= rank 2 alone)");
  check_eq(r.stopping.reason, noisy.stopping.reason, "stop reason (= rank 2 alone)");
  check_eq(r.gpu_samples_s, noisy.gpu_samples_s, "combined samples (= rank 2 alone)");
  const auto hosts = all_hosts();
  session.write_report();
  if (rank == 0) {
    const json doc = read_report(path);
    check_collective_report(doc, hosts);
    check_eq(doc["ranks"]["experiments"][0]["statistics"]["straggler_rank"].get<int>(), 2, "straggler");
    check_eq(doc["experiments"][0]["sampling"]["rounds"].get<std::size_t>(), noisy.sampling.rounds, "rounds in the report");
  }
  return failures;
}

/// Rank 2's step throws at its 400th call (in measurement): every rank stops with it.
int scenario_failure(const std::string& path) {
  const Script script = [](int, std::size_t) { return 10e-6; };
  gauge::mpi::Session session;
  session.report_to(path, small_environment());
  FakeDevice dev;
  const auto r = run_fake(dev, script, rank, &session, [](std::size_t i) {
    if (rank == 2 && i == 400) throw std::runtime_error("injected failure on rank 2");
  });
  check(r.status == gauge::Status::failed, "every rank's result failed");
  if (rank == 2) check(r.error && r.error->find("injected failure on rank 2") != std::string::npos, "rank 2's own error");
  else check(r.error && r.error->find("because rank 2 failed") != std::string::npos, "the others name rank 2: " + r.error.value_or(""));
  session.write_report();
  if (rank == 0) {
    const json doc = read_report(path);
    const json& ranks = doc["ranks"];
    check(ranks["error"].is_string(), "ranks.error");
    const std::string error = ranks["error"].is_string() ? ranks["error"].get<std::string>() : "";
    check(error.rfind("rank 2 failed: ", 0) == 0, "ranks.error names rank 2: " + error);
    check(error.find("(step 401): injected failure on rank 2") != std::string::npos, "ranks.error has the step and error: " + error);
    for (int q = 0; q < size; ++q) check_eq(ranks["ranks"][q]["status"].get<std::string>(), std::string("failed"), "status of rank " + std::to_string(q));
    check_eq(doc["experiments"][0]["status"].get<std::string>(), std::string("failed"), "the experiment failed");
  }
  return failures;
}

/// Rank 3 stalls for 60 s in its 300th step; the agreement limit is 2 s. Rank 0 writes the report
/// and calls MPI_Abort (tests/mpi/check_abort.cmake checks the exit, the time and the report).
int scenario_stall(const std::string& path) {
  const Script script = [](int, std::size_t) { return 10e-6; };
  gauge::mpi::Options o;
  o.agreement_timeout = std::chrono::seconds(2);
  gauge::mpi::Session session(MPI_COMM_WORLD, o);
  session.report_to(path, small_environment());
  FakeDevice dev;
  run_fake(dev, script, rank, &session, [](std::size_t i) {
    if (rank == 3 && i == 300) std::this_thread::sleep_for(std::chrono::seconds(60));
  });
  std::fprintf(stderr, "FAIL rank %d: the run returned although rank 3 stalled\n", rank);
  return 1;
}

/// A rank dies during the third experiment ("dies": rank 3 gets SIGKILL; "root_dies": rank 0
/// does): mpirun ends the job, and the report on disk holds the two
/// experiments every rank finished, with all four ranks' results (Options::
/// write_after_each_experiment; tests/mpi/check_abort.cmake checks it with EXPERIMENTS=2).
int scenario_dies(const std::string& path, int victim, int signal) {
  const Script script = [](int, std::size_t) { return 10e-6; };
  gauge::mpi::Session session;
  session.report_to(path, small_environment());
  FakeDevice dev;
  for (int i = 0; i < 2; ++i) run_fake(dev, script, rank, &session);
  run_fake(dev, script, rank, &session, [victim, signal](std::size_t step) {
    if (rank == victim && step == 50) ::raise(signal);
  });
  std::fprintf(stderr, "FAIL rank %d: the third experiment returned although rank %d was killed\n", rank, victim);
  return 1;
}

/// A scheduler's SIGTERM reaches rank 3 in the 50th step of the third experiment (Options::
/// stop_on_signals, on by default): the experiment stops on every rank at the next agreed round
/// boundary, recorded failed, "interrupted", with its samples; rank 0 rewrites the report; then
/// rank 3 gets the signal as before and dies of it, and mpirun ends the job.
/// tests/mpi/check_abort.cmake checks (EXPERIMENTS=3, LAST_INTERRUPTED) that the report holds the
/// two finished experiments and the interrupted one, with every rank's result.
int scenario_sigterm(const std::string& path) {
  // Noisy steps (10-20 us): the noise target is not met within a round or two, so the stop request
  // decides, not the rule.
  const Script script = [](int r, std::size_t i) { return 10e-6 * (1 + unit(1000003 * static_cast<std::uint64_t>(r) + i)); };
  gauge::mpi::Session session;
  session.report_to(path, small_environment());
  FakeDevice dev;
  for (int i = 0; i < 2; ++i) check(run_fake(dev, script, rank, &session).status == gauge::Status::ok, "experiment " + std::to_string(i + 1) + " is ok");
  const auto third = run_fake(dev, script, rank, &session, [](std::size_t step) {
    if (rank == 3 && step == 50) ::raise(SIGTERM);
  });
  if (rank == 3) {
    std::fprintf(stderr, "FAIL rank 3: run() returned although SIGTERM reached this rank during it\n");
    return 1;
  }
  check(third.status == gauge::Status::failed && third.stopping.reason == "interrupted",
        "the third experiment is failed, interrupted, on every rank (" + third.stopping.reason + ")");
  run_fake(dev, script, rank, &session);  // waits at its start for rank 3, until mpirun ends the job
  std::fprintf(stderr, "FAIL rank %d: a fourth experiment returned although rank 3 died of SIGTERM\n", rank);
  return 1;
}

/// Ranks out of step, by name: rank 3 runs "other" where the others run "fake-step"; then every
/// rank runs "fake-step" again. The first experiment fails on every rank naming the mismatch (the
/// session goes on); the second is measured; the report has both.
int scenario_names(const std::string& path) {
  const Script script = [](int, std::size_t) { return 10e-6; };
  gauge::mpi::Session session;
  session.report_to(path, small_environment());
  FakeDevice dev;
  auto other = gauge::testing::fake_experiment(dev, [](FakeStream s) { s.kernel(20e-6); }, rank == 3 ? "other" : "fake-step");
  other.config(fake_config()).bytes(1e6);
  const auto first = session.run(other);
  check(first.status == gauge::Status::failed, "the mismatched experiment failed on every rank");
  check(first.error.value_or("").find("ranks out of step at experiment #0: this rank runs '" +
                                      std::string(rank == 3 ? "other" : "fake-step") + "'") != std::string::npos,
        "the error names the experiment: " + first.error.value_or(""));
  const auto second = run_fake(dev, script, rank, &session);
  check(second.status == gauge::Status::ok, "the next experiment runs: " + second.error.value_or(""));
  session.write_report();
  if (rank == 0) {
    const json doc = read_report(path);
    check_eq(doc["experiments"].size(), std::size_t{2}, "both experiments in the report");
    check_eq(doc["experiments"][0]["status"].get<std::string>(), std::string("failed"), "experiments[0] failed");
    check_eq(doc["experiments"][1]["status"].get<std::string>(), std::string("ok"), "experiments[1] ok");
  }
  return failures;
}

/// Ranks out of step, by count: rank 3 skips the second experiment and goes to write_report while
/// the others start it. Checked by tests/mpi/check_abort.cmake: the job ends at once
/// (rank 0 writes the report naming the cause, then MPI_Abort), no hang, no heap corruption.
int scenario_fewer(const std::string& path) {
  const Script script = [](int, std::size_t) { return 10e-6; };
  gauge::mpi::Options o;
  o.agreement_timeout = std::chrono::seconds(20);
  gauge::mpi::Session session(MPI_COMM_WORLD, o);
  session.report_to(path, small_environment());
  FakeDevice dev;
  run_fake(dev, script, rank, &session);
  if (rank != 3) run_fake(dev, script, rank, &session);
  session.write_report();
  std::fprintf(stderr, "FAIL rank %d: write_report returned although rank 3 ran one experiment fewer\n", rank);
  return 1;
}

/// gauge::Timer on the host backend; rank r's "forward" region takes 1 ms (rank 3: 20 ms), the
/// "optimizer" 0.2 ms on all, then "sync", an MPI_Barrier: ranks 0-2 wait there about 19 ms for
/// rank 3, which arrives last and waits not at all. Windows are combined across ranks by
/// TimerAcrossRanks; each combined window is checked against the ranks' own window medians,
/// gathered here with a blocking MPI_Allgather after the loop, and the straggler of "sync" must
/// be rank 3 (by arrival), not the rank that waited longest.
int scenario_timer(const std::string& path) {
  gauge::TimerConfig c;
  c.warmup_steps = 2;
  c.window = 10;
  c.log_every = 10;
  gauge::Timer<gauge::HostTimerBackend> timer("train", gauge::HostTimerBackend(), c);
  const auto fwd = timer.region("forward");
  const auto opt = timer.region("optimizer");
  const auto sync = timer.region("sync");
  std::vector<gauge::records::TimerRanksWindow> combined;
  std::vector<std::vector<double>> own;  // per log: step, forward, optimizer window medians
  gauge::mpi::TimerAcrossRanks across(MPI_COMM_WORLD, [&](const gauge::records::TimerRanksWindow& w) { combined.push_back(w); });
  timer.on_log([&](const gauge::TimerSummary& s) {
    own.push_back({*s.window.gpu_time_s.p50, *s.regions[0].window.time_per_step_s.p50,
                   *s.regions[1].window.time_per_step_s.p50});
  });
  timer.on_log(across.sink());
  // Sleeps, not spins: 4 ranks share 2 cores in CI, and a spinning rank preempted for a time
  // slice would read slower than rank 3 by chance.
  auto spin = [](double seconds) { std::this_thread::sleep_for(std::chrono::duration<double>(seconds)); };
  const int steps = 62;
  for (int i = 0; i < steps; ++i) {
    timer.start(fwd);
    spin(rank == 3 ? 20e-3 : 1e-3);
    timer.stop(fwd);
    timer.start(opt);
    spin(0.2e-3);
    timer.stop(opt);
    timer.start(sync);
    MPI_Barrier(MPI_COMM_WORLD);
    timer.stop(sync);
    timer.step();
    across.poll();
  }
  across.finish();
  const auto summary = timer.finish();
  check_eq(summary.counters.host_synchronizations, std::size_t{0}, "host synchronizations (host backend: none)");
  check_eq(across.started(), own.size(), "reductions started (one per log)");
  check_eq(across.completed(), across.started(), "reductions completed");
  check(!combined.empty(), "combined windows delivered");
  check_same_on_all(static_cast<double>(combined.size()), "combined windows");
  // The ranks' own medians at every log, gathered (blocking, after the loop: the check only).
  const std::size_t logs = own.size();
  std::vector<double> mine;
  for (const auto& v : own) mine.insert(mine.end(), v.begin(), v.end());
  std::vector<double> all(mine.size() * static_cast<std::size_t>(size));
  MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(), static_cast<int>(mine.size()), MPI_DOUBLE,
                MPI_COMM_WORLD);
  check_eq(combined.size(), logs, "one combined window per log");
  // The k-th combined window is the k-th log's (reductions complete in the order they started).
  gauge::mpi::Session session;
  for (std::size_t log = 0; log < combined.size() && log < logs; ++log) {
    const auto& w = combined[log];
    for (int value = 0; value < 3; ++value) {
      double lo = 1e300, hi = -1;
      int lo_rank = -1, hi_rank = -1;
      for (int q = 0; q < size; ++q) {
        const double v = all[static_cast<std::size_t>(q) * mine.size() + log * 3 + static_cast<std::size_t>(value)];
        if (v > hi) hi = v, hi_rank = q;
        if (v < lo) lo = v, lo_rank = q;
      }
      const gauge::records::RankedValue& got = value == 0 ? w.step_time_s : w.regions[static_cast<std::size_t>(value - 1)].time_per_step_s;
      const std::string what = "log " + std::to_string(log) + " value " + std::to_string(value);
      check_eq(*got.max, hi, what + " max");
      check_eq(*got.min, lo, what + " min");
      check_eq(*got.max_rank, hi_rank, what + " max rank");
      check_eq(*got.min_rank, lo_rank, what + " min rank");
    }
    check_eq(*w.regions[0].time_per_step_s.max_rank, 3, "forward's longest time is rank 3's");
    check_eq(w.regions[0].straggler_rank.value_or(-1), 3, "forward's straggler is rank 3");
    check_eq(w.regions[0].straggler_by, std::string("time"), "forward's straggler, by time");
    // sync: rank 3 arrives ~19 ms after the others and waits least; the others wait longest.
    const auto& s = w.regions[2];
    const std::string at = "log " + std::to_string(log) + ": ";
    check(s.time_per_step_s.max_rank.value_or(3) != 3, at + "sync's longest time is not rank 3's");
    check_eq(s.start_offset_s.max_rank.value_or(-1), 3, at + "sync: rank 3 arrives last");
    check(s.start_offset_s.max.value_or(0) - s.start_offset_s.min.value_or(0) > 15e-3, at + "sync: arrivals ~19 ms apart");
    check_eq(s.straggler_rank.value_or(-1), 3, "sync's straggler is rank 3, the last to arrive");
    check_eq(s.straggler_by, std::string("arrival"), "sync's straggler, by arrival");
  }
  session.add(combined.back());
  session.report_to(path, small_environment());
  session.write_report({summary});
  if (rank == 0) {
    const json doc = read_report(path);
    check_eq(doc["ranks"]["timers"].size(), std::size_t{1}, "ranks.timers");
    check_eq(doc["ranks"]["timers"][0]["regions"][0]["time_per_step_s"]["max_rank"].get<int>(), 3, "report: forward's straggler");
    check_eq(doc["ranks"]["timers"][0]["regions"][2]["straggler_rank"].get<int>(), 3, "report: sync's straggler");
    check_eq(doc["ranks"]["timers"][0]["regions"][2]["straggler_by"].get<std::string>(), std::string("arrival"),
             "report: sync's straggler, by arrival");
  }
  return failures;
}

/// Independent mode: each rank runs the plain protocol; the report's experiment is rank 0's.
int scenario_independent(const std::string& path) {
  const Script script = [](int r, std::size_t i) { return (10e-6 + 4e-6 * r) * (1 + 0.02 * unit(i)); };
  FakeDevice alone;
  const auto expected = run_fake(alone, script, rank, nullptr);
  gauge::mpi::Options o;
  o.mode = gauge::mpi::Mode::independent;
  gauge::mpi::Session session(MPI_COMM_WORLD, o);
  session.report_to(path, small_environment());
  FakeDevice dev;
  const auto r = run_fake(dev, script, rank, &session);
  check_eq(r.gpu_samples_s, expected.gpu_samples_s, "independent mode = the plain protocol");
  session.write_report();
  if (rank == 0) {
    const json doc = read_report(path);
    check_eq(doc["ranks"]["mode"].get<std::string>(), std::string("independent"), "mode");
    check_eq(samples_of(doc["experiments"][0]), expected.gpu_samples_s, "experiments[0] is rank 0's");
    check_eq(doc["ranks"]["experiments"][0]["statistics"]["straggler_rank"].get<int>(), size - 1, "straggler");
  }
  return failures;
}

/// report_to a path rank 0 cannot write (a directory that does not exist), on every rank: each rank
/// gets a ReportError at once (not after the agreement limit, not "ranks out of step"); rank 0's
/// names the path and the cause, the others say rank 0 cannot write it, naming the path too.
int scenario_unwritable(const std::string& path) {
  const std::string bad = path + ".missing-dir/r.json";
  gauge::mpi::Options o;
  o.agreement_timeout = std::chrono::seconds(20);
  gauge::mpi::Session session(MPI_COMM_WORLD, o);
  const auto start = std::chrono::steady_clock::now();
  std::string what;
  try {
    session.report_to(bad, small_environment());
  } catch (const gauge::ReportError& e) {
    what = e.what();
  }
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  check(!what.empty(), "report_to an unwritable path throws ReportError");
  check(what.find(bad) != std::string::npos, "the error names the path: " + what);
  check(what.find("out of step") == std::string::npos, "not 'ranks out of step': " + what);
  if (rank != 0) check(what.find("rank 0 cannot write the report") != std::string::npos, "says rank 0 cannot write it: " + what);
  check(took < 10, "at once, not after the 20-s agreement limit (" + std::to_string(took) + " s)");
  return failures;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 3) {
    if (rank == 0) std::fprintf(stderr, "usage: gauge_mpi_tests SCENARIO REPORT\n");
    MPI_Finalize();
    return 2;
  }
  const std::string scenario = argv[1], path = argv[2];
  if (size != 4) {
    if (rank == 0) std::fprintf(stderr, "gauge_mpi_tests: run with 4 ranks (mpirun -np 4), got %d\n", size);
    MPI_Finalize();
    return 2;
  }
  int failed = 0;
  try {
    if (scenario == "speeds") failed = scenario_speeds(path);
    else if (scenario == "noise") failed = scenario_noise(path);
    else if (scenario == "failure") failed = scenario_failure(path);
    else if (scenario == "stall") failed = scenario_stall(path);
    else if (scenario == "timer") failed = scenario_timer(path);
    else if (scenario == "independent") failed = scenario_independent(path);
    else if (scenario == "names") failed = scenario_names(path);
    else if (scenario == "fewer") failed = scenario_fewer(path);
    else if (scenario == "dies") failed = scenario_dies(path, 3, SIGKILL);
    else if (scenario == "sigterm") failed = scenario_sigterm(path);
    else if (scenario == "root_dies") failed = scenario_dies(path, 0, SIGKILL);
    else if (scenario == "unwritable") failed = scenario_unwritable(path);
    else {
      std::fprintf(stderr, "gauge_mpi_tests: unknown scenario '%s'\n", scenario.c_str());
      failed = 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAIL rank %d: exception: %s\n", rank, e.what());
    failed = 1;
  }
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) std::printf("%s: %s\n", scenario.c_str(), any ? "FAILED" : "passed");
  MPI_Finalize();
  return any ? 1 : 0;
}
