#pragma once
/// \file gauge/env/tools.hpp
/// Runs the seed's environment commands (`nvidia-smi --query-gpu=...`, `ncu --version`,
/// `nsys --version`) with a timeout. A missing, failing or hung tool gives a record with the
/// reason and never stalls the run: the child runs in its own process group, which is killed
/// when the timeout passes.

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/environment.hpp"
#include "gauge/core/format.hpp"

extern char** environ;

namespace gauge {

namespace detail {
/// The seed's query line: "nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,
/// clocks.mem,temperature.gpu,power.draw,memory.total --format=csv".
inline std::vector<std::string> nvidia_smi_query_command() {
  return {"nvidia-smi",
          "--query-gpu=name,driver_version,pstate,clocks.sm,clocks.mem,temperature.gpu,power.draw,memory.total",
          "--format=csv"};
}

/// The first executable `name` in the colon-separated `path` (or `name` itself if it has a '/').
/// Only absolute directories are searched: an empty entry (an empty PATH, a leading, trailing or
/// doubled ':') or a relative one ("." or "bin") is skipped, where a shell would search the
/// current directory, so that gauge never runs a `nvidia-smi` planted in the directory it was
/// started from.
inline std::optional<std::string> find_executable(const std::string& name, const std::string& path) {
  if (name.find('/') != std::string::npos) {
    if (::access(name.c_str(), X_OK) == 0) return name;
    return std::nullopt;
  }
  std::stringstream ss(path);
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    if (dir.empty() || dir[0] != '/') continue;  // the current directory, or relative to it
    std::string candidate = dir + "/" + name;
    struct stat st{};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
  }
  return std::nullopt;
}

/// Runs `argv` (argv[0] looked up in the absolute directories of `search_path`, default $PATH, or
/// "/usr/bin:/bin" where PATH is unset), capturing standard output, for at most `timeout`. The
/// pipe is close-on-exec, so programs that other threads start meanwhile do not inherit it (and
/// cannot hold the tool's output open past its exit). Never throws. Errors: "not found in PATH", "timed out after X s (killed)",
/// "exited with status N", "killed by signal N".
inline env::ToolRecord run_tool(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                           std::optional<std::string> search_path = std::nullopt) {
  env::ToolRecord rec;
  for (const auto& a : argv) rec.command += (rec.command.empty() ? "" : " ") + a;
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  if (argv.empty()) {
    rec.error = "empty command";
    return rec;
  }
  const char* env_path = std::getenv("PATH");
  const std::string path = search_path ? *search_path : (env_path ? env_path : "/usr/bin:/bin");
  auto exe = detail::find_executable(argv[0], path);
  if (!exe) {
    rec.error = argv[0] + " not found in PATH";
    return rec;
  }
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) {
    rec.error = std::string("pipe: ") + std::strerror(errno);
    return rec;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);  // its own process group, so a timeout kills its children too
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = ::posix_spawn(&pid, exe->c_str(), &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(out[1]);
  if (rc != 0) {
    ::close(out[0]);
    rec.error = "cannot run " + *exe + ": " + std::strerror(rc);
    return rec;
  }
  std::string text;
  bool timed_out = false;
  const double limit = std::chrono::duration<double>(timeout).count();
  char buf[4096];
  while (true) {
    const double left = limit - elapsed();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{out[0], POLLIN, 0};
    int n = ::poll(&p, 1, static_cast<int>(left * 1000) + 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) continue;
    ssize_t got = ::read(out[0], buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;  // EOF: the child closed its output
    text.append(buf, static_cast<std::size_t>(got));
    if (text.size() > (1u << 20)) break;
  }
  ::close(out[0]);
  int status = 0;
  if (timed_out) {
    ::kill(-pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    rec.seconds = elapsed();
    rec.error = "timed out after " + detail::format_general(limit, 3) + " s (killed)";  // locale-independent
    return rec;
  }
  // Output closed; wait for the exit within what is left of the timeout.
  while (true) {
    pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (elapsed() >= limit) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      rec.seconds = elapsed();
      rec.error = "timed out waiting for exit (killed)";
      return rec;
    }
    ::usleep(1000);
  }
  rec.seconds = elapsed();
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\r')) text.pop_back();
  if (WIFEXITED(status)) {
    rec.exit_code = WEXITSTATUS(status);
    rec.output = text;
    if (*rec.exit_code != 0) rec.error = "exited with status " + std::to_string(*rec.exit_code);
  } else if (WIFSIGNALED(status)) {
    rec.error = "killed by signal " + std::to_string(WTERMSIG(status));
  }
  return rec;
}

/// The seed's three tool records: "nvidia_smi" (the --query-gpu line), "ncu" and "nsys" (--version).
inline std::vector<std::pair<std::string, env::ToolRecord>> capture_tools(std::chrono::milliseconds timeout,
                                                                     std::optional<std::string> search_path = std::nullopt) {
  return {{"nvidia_smi", run_tool(nvidia_smi_query_command(), timeout, search_path)},
          {"ncu", run_tool({"ncu", "--version"}, timeout, search_path)},
          {"nsys", run_tool({"nsys", "--version"}, timeout, search_path)}};
}
}  // namespace detail

}  // namespace gauge
