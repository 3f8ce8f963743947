#pragma once
/// \file gauge/report/atomic_file.hpp
/// The atomic writer of gauge's files (reports, gauge-peaks' cache): check_writable before
/// anything is measured, write_file_atomic after (a temporary file beside the target, fsync,
/// rename; O_TMPFILE where the file system has it), symbolic links followed only where the
/// kernel would. No JSON here: a part that writes a file without the report's document (the
/// peaks cache) compiles none of it.

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/vfs.h>
#endif

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>

#include "gauge/core/error.hpp"

namespace gauge {

namespace detail {

/// Prefix of the named temporary files of write_file_atomic: ".gauge-tmp-<pid>-<8 hex digits>",
/// 32 bytes at most whatever the report's name (a name of 255 bytes, NAME_MAX, still works).
inline constexpr const char* temporary_prefix = ".gauge-tmp-";

/// A named temporary file beside `path`: "<dir>/.gauge-tmp-<pid>-<random hex>".
inline std::filesystem::path temporary_sibling(const std::filesystem::path& path) {
  std::random_device rd;
  char name[64];
  std::snprintf(name, sizeof name, "%s%ld-%08x", temporary_prefix, static_cast<long>(::getpid()),
                static_cast<unsigned>(rd()));
  return path.parent_path() / name;
}
inline std::filesystem::path directory_of(const std::filesystem::path& path) {
  auto dir = path.parent_path();
  return dir.empty() ? std::filesystem::path(".") : dir;
}

/// Whether the kernel would follow the symbolic link `link` for this process under Linux's
/// fs.protected_symlinks rule (on by default since Linux 3.6; see proc(5), "protected_symlinks"):
/// a link in a sticky world-writable directory (/tmp) is followed only when its owner is the
/// follower (the effective user) or the directory's owner. Elsewhere any link is followed. A
/// writer that follows links itself must apply the rule itself, or a link planted in /tmp would
/// make it replace another file of the user.
inline bool link_may_be_followed(const std::filesystem::path& link, std::string* why = nullptr) {
  struct stat l {}, d {};
  if (::lstat(link.c_str(), &l) != 0) return true;  // gone: nothing is followed
  const std::filesystem::path dir = link.parent_path().empty() ? std::filesystem::path(".") : link.parent_path();
  if (::stat(dir.c_str(), &d) != 0) return true;
  const bool sticky_world_writable = (d.st_mode & S_ISVTX) && (d.st_mode & S_IWOTH);
  if (!sticky_world_writable || l.st_uid == ::geteuid() || l.st_uid == d.st_uid) return true;
  if (why)
    *why = "the symbolic link is in a sticky world-writable directory (" + dir.string() + ") and belongs to uid " +
           std::to_string(l.st_uid) + ", neither this user (uid " + std::to_string(::geteuid()) +
           ") nor the directory's owner: refused, as the kernel refuses it (fs.protected_symlinks)";
  return false;
}

/// `path` with its symbolic links followed to the file they name (which may not exist yet), so
/// that writing a report through a link writes the link's target and keeps the link. Each link is
/// followed only where the kernel would follow it (link_may_be_followed). At most 40 links
/// (Linux's MAXSYMLINKS).
/// \throws ReportError naming the path for a loop, an unreadable link or a link the kernel's rule refuses.
inline std::filesystem::path follow_links(std::filesystem::path path) {
  namespace fs = std::filesystem;
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(path, ec))) return path;
    std::string why;
    if (!link_may_be_followed(path, &why)) throw ReportError("cannot write report to " + path.string() + ": " + why);
    const fs::path target = fs::read_symlink(path, ec);
    if (ec) throw ReportError("cannot write report to " + path.string() + ": " + ec.message());
    path = target.is_absolute() ? target : path.parent_path() / target;
  }
  throw ReportError("cannot write report to " + path.string() + ": too many levels of symbolic links");
}

/// The kind of a file system where no file can be created by design (the kernel's pseudo file
/// systems: proc, sysfs, cgroup, ...) that holds `dir`, as " (/proc is a proc file system: ...)";
/// "" for any other (or where statfs cannot tell). Said after a failed create, whose errno there
/// (ENOENT for /proc) would otherwise read as if the directory were missing.
inline std::string pseudo_file_system_note(const std::filesystem::path& dir) {
#if defined(__linux__)
  struct statfs fs {};
  if (::statfs(dir.c_str(), &fs) != 0) return {};
  static const struct {
    unsigned long magic;
    const char* name;
  } kinds[] = {{0x9fa0, "proc"},          {0x62656572, "sysfs"},  {0x27e0eb, "cgroup"},   {0x63677270, "cgroup2"},
               {0x64626720, "debugfs"},   {0x74726163, "tracefs"}, {0x73636673, "securityfs"}, {0x6165676c, "pstore"},
               {0xcafe4a11, "bpf"},       {0x62656570, "configfs"}, {0xde5e81e4, "efivarfs"}, {0x1cd1, "devpts"},
               {0xf97cff8c, "selinuxfs"}, {0x6e736673, "nsfs"}};
  for (const auto& k : kinds)
    if (static_cast<unsigned long>(fs.f_type) == k.magic)
      return std::string(" (") + dir.string() + " is on a " + k.name +
             " file system, the kernel's own view of itself: no file can be created there)";
#else
  (void)dir;
#endif
  return {};
}

/// Whether an anonymous file (O_TMPFILE) can later be linked in here: linkat needs its name
/// under /proc/self/fd (without /proc, named temporary files are used instead).
inline bool proc_fd_available() { return ::access("/proc/self/fd", X_OK) == 0; }

/// Removes named temporary files (".gauge-tmp-<pid>-…") in `dir` that a killed writer left: the
/// process <pid> no longer exists (kill(pid, 0) says ESRCH) and the file is older than
/// `min_age_s`. Best effort: errors are ignored. Called before every write.
inline void remove_stale_temporaries(const std::filesystem::path& dir, double min_age_s = 60) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const std::string prefix = temporary_prefix;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    char* after = nullptr;
    const long pid = std::strtol(name.c_str() + prefix.size(), &after, 10);
    if (pid <= 0 || after == nullptr || *after != '-') continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    std::error_code time_ec;
    const auto written = fs::last_write_time(it->path(), time_ec);
    if (time_ec) continue;
    const auto age = fs::file_time_type::clock::now() - written;
    if (std::chrono::duration<double>(age).count() < min_age_s) continue;
    fs::remove(it->path(), time_ec);
  }
}

/// An open file beside `path` that becomes `path` at publish(): an anonymous file (O_TMPFILE,
/// Linux 3.11+ on ext4, xfs, btrfs, tmpfs) that a crash or kill -9 cannot leave behind, linked in
/// only when complete; else a named temporary file (temporary_sibling). The stale named ones of
/// dead processes are removed first either way.
class PendingFile {
 public:
  /// \throws ReportError naming `path` and the system error when no file can be created there.
  explicit PendingFile(const std::filesystem::path& path) : path_(path) {
    // Named temporary files of killed writers: left by the fallback below, or by a kill in the
    // instant between linkat and rename.
    remove_stale_temporaries(directory_of(path));
#ifdef O_TMPFILE
    if (proc_fd_available()) {
      fd_ = ::open(directory_of(path).c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
      if (fd_ >= 0) return;
    }
#endif
    open_named();
  }
  PendingFile(const PendingFile&) = delete;
  PendingFile& operator=(const PendingFile&) = delete;
  ~PendingFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!tmp_.empty()) ::unlink(tmp_.c_str());
  }
  /// Writes all of `text`. \throws ReportError with the system error (ENOSPC, EIO, ...).
  void write(const std::string& text) { write_bytes(text.data(), text.size()); }
  /// fsync, then the file replaces `path` atomically (rename), with the mode (and, where this
  /// process may set it, the owner and group) of the file it replaces. \throws ReportError.
  void publish() {
    struct stat old {};
    if (::stat(path_.c_str(), &old) == 0 && S_ISREG(old.st_mode)) {
      ::fchmod(fd_, old.st_mode & 07777);
      if (old.st_uid != ::geteuid() || old.st_gid != ::getegid()) {
        if (::fchown(fd_, old.st_uid, old.st_gid) != 0) (void)!::fchown(fd_, static_cast<uid_t>(-1), old.st_gid);
      }
    }
    if (::fsync(fd_) != 0) throw error(std::strerror(errno));
    if (tmp_.empty()) {
      // Link the anonymous file in under a short temporary name, then rename it over `path`
      // (linkat cannot replace an existing file). Only this instant can leave a named file.
      const std::string proc = "/proc/self/fd/" + std::to_string(fd_);
      const auto named = temporary_sibling(path_);
      if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, named.c_str(), AT_SYMLINK_FOLLOW) == 0) {
        tmp_ = named;
      } else {
        // /proc went away, or the link is refused: copy the bytes into a named temporary file.
        const int anonymous = fd_;
        fd_ = -1;
        try {
          open_named();
          if (old.st_mode) ::fchmod(fd_, old.st_mode & 07777);
          copy_from(anonymous);
        } catch (...) {
          ::close(anonymous);
          throw;
        }
        ::close(anonymous);
        if (::fsync(fd_) != 0) throw error(std::strerror(errno));
      }
    }
    const int closed = ::close(fd_);
    fd_ = -1;
    if (closed != 0) throw error(std::strerror(errno));
    if (::rename(tmp_.c_str(), path_.c_str()) != 0) throw error(std::strerror(errno));
    tmp_.clear();
  }

 private:
  ReportError error(const std::string& what) const {
    return ReportError("cannot write report to " + path_.string() + ": " + what);
  }
  /// A named temporary file beside path_ (the fallback of the anonymous one). Its failure names
  /// what failed: creating a file in the directory (the report is written to a new file there,
  /// then renamed over path_), with the system's reason and, on a pseudo file system, that no file
  /// can be created there ("/proc/version: No such file or directory" read as if it did not exist).
  void open_named() {
    tmp_ = temporary_sibling(path_);
    fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd_ < 0) {
      const int e = errno;
      tmp_.clear();
      const std::filesystem::path dir = directory_of(path_);
      throw error("cannot create a file in " + dir.string() + " (the report is written to a new file there, then renamed " +
                  "into place): " + std::strerror(e) + pseudo_file_system_note(dir));
    }
  }
  /// Appends everything in the open file `from` (read from its start) to fd_.
  void copy_from(int from) {
    char buffer[1 << 16];
    off_t at = 0;
    for (;;) {
      const ssize_t n = ::pread(from, buffer, sizeof buffer, at);
      if (n < 0) {
        if (errno == EINTR) continue;
        throw error(std::strerror(errno));
      }
      if (n == 0) return;
      at += n;
      write_bytes(buffer, static_cast<std::size_t>(n));
    }
  }
  /// Writes all `size` bytes at `p` to fd_, retrying on EINTR. \throws ReportError.
  void write_bytes(const char* p, std::size_t size) {
    while (size > 0) {
      const ssize_t n = ::write(fd_, p, size);
      if (n < 0) {
        if (errno == EINTR) continue;
        throw error(std::strerror(errno));
      }
      p += n;
      size -= static_cast<std::size_t>(n);
    }
  }
  std::filesystem::path path_;
  std::filesystem::path tmp_;  // the named temporary file, once there is one
  int fd_ = -1;
};

/// Throws ReportError unless a file can be created at `path` (its directory exists and is
/// writable, and `path` is not a directory). A symbolic link is followed where the kernel would
/// follow it (fs.protected_symlinks; else ReportError): its target is checked (and later written,
/// see write_file_atomic). Creates a temporary file beside it and removes it.
inline void check_writable(const std::filesystem::path& requested) {
  namespace fs = std::filesystem;
  if (requested.empty()) throw ReportError("report path is empty");
  const fs::path path = detail::follow_links(requested);
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw ReportError("cannot write report to " + path.string() + ": it is a directory");
  // The atomic rename would replace whatever is there: only a regular file may be.
  if (fs::exists(path, ec) && !fs::is_regular_file(path, ec))
    throw ReportError("cannot write report to " + path.string() + ": it exists and is not a regular file");
  const fs::path dir = detail::directory_of(path);
  if (!fs::is_directory(dir, ec)) {
    // The real reason: a component that is a file ("/tmp/afile/sub.json"), or a folder missing.
    for (fs::path p = dir; !p.empty(); p = p.parent_path()) {
      std::error_code e;
      const auto st = fs::status(p, e);
      if (st.type() == fs::file_type::not_found) {
        if (p == p.parent_path()) break;
        continue;
      }
      if (e) throw ReportError("cannot write report to " + path.string() + ": " + p.string() + ": " + e.message());
      if (st.type() != fs::file_type::directory)
        throw ReportError("cannot write report to " + path.string() + ": " + p.string() + " is not a directory");
      break;
    }
    throw ReportError("cannot write report to " + path.string() + ": directory " + dir.string() + " does not exist");
  }
  detail::PendingFile probe(path);  // removed unpublished
}

/// Writes `text` to `path` atomically: a temporary file in the same directory, fsync, rename.
/// A crash never leaves a half-written file at `path`, and (where the file system supports
/// O_TMPFILE) a crash or kill -9 while writing leaves no temporary file either: the data goes to
/// an anonymous file that is linked in only when complete. Elsewhere the temporary file is named
/// ".gauge-tmp-<pid>-<hex>" (short: a report name of up to NAME_MAX bytes works), and the ones
/// of processes that no longer exist are removed by the next write in that directory.
/// A symbolic link at `path` is followed where the kernel would follow it (a link in a sticky
/// world-writable directory only when it is this user's or the directory owner's; else
/// ReportError): its target is replaced, with the target's mode (and owner where permitted), and
/// the link kept. Without /proc the data goes through a named temporary file.
/// Throws ReportError naming the path and the system error (no temporary file is left then).
inline void write_file_atomic(const std::filesystem::path& path, const std::string& text) {
  const std::filesystem::path target = detail::follow_links(path);
  detail::PendingFile file(target);
  file.write(text);
  file.publish();
}
}  // namespace detail

}  // namespace gauge
