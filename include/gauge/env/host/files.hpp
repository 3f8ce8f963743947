#pragma once
/// \file gauge/env/host/files.hpp
/// What host detection reads its files with: the parser of Linux CPU lists
/// (`parse_cpulist`), the reader of files below the root it is pointed at (`detail::host::Reader`,
/// which never throws) and the parsers of /proc/cpuinfo, meminfo and os-release. Part of
/// gauge/env/host.hpp.

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <ios>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace gauge {

namespace detail {
/// Parses a Linux CPU list such as sysfs `cpulist` files write ("0-3,8-11,15") into ascending,
/// duplicate-free CPU ids ({0,1,2,3,8,9,10,11,15}). Surrounding whitespace is ignored; an empty
/// list gives an empty result. Malformed input ("3-1", "a", "1,,2", ids above 65535, the kernel's
/// rarely printed stride syntax "0-7:2/4") gives an empty result and, when `notes` is given,
/// appends a note naming `source` and the text. Never throws except `std::bad_alloc`.
inline std::vector<int> parse_cpulist(std::string_view text,
                                      std::vector<std::string>* notes = nullptr,
                                      std::string_view source = "cpulist") {
  constexpr int max_cpu_id = 65535;
  auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  std::vector<int> cpus;
  if (text.empty()) return cpus;

  auto fail = [&](const std::string& why) {
    if (notes)
      notes->push_back(std::string(source) + " \"" + std::string(text) + "\" is malformed (" + why +
                       "); its CPU list is left empty");
    return std::vector<int>{};
  };
  auto parse_id = [&](std::string_view s, int& out) {
    if (s.empty()) return false;
    for (char c : s)
      if (c < '0' || c > '9') return false;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc{} && ptr == s.data() + s.size() && out <= max_cpu_id;
  };

  std::string_view rest = text;
  while (true) {
    const auto comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    const auto dash = item.find('-');
    int first = 0;
    int last = 0;
    if (dash == std::string_view::npos) {
      if (!parse_id(item, first))
        return fail("\"" + std::string(item) + "\" is not a CPU id from 0 to 65535");
      last = first;
    } else {
      if (!parse_id(item.substr(0, dash), first) || !parse_id(item.substr(dash + 1), last))
        return fail("\"" + std::string(item) + "\" is not a range of CPU ids from 0 to 65535");
      if (first > last) return fail("range \"" + std::string(item) + "\" is descending");
    }
    for (int c = first; c <= last; ++c) cpus.push_back(c);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}
}  // namespace detail

namespace detail::host {

namespace fs = std::filesystem;

inline std::string_view trim(std::string_view s) {
  auto sp = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0'; };
  while (!s.empty() && sp(s.front())) s.remove_prefix(1);
  while (!s.empty() && sp(s.back())) s.remove_suffix(1);
  return s;
}

inline std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

inline std::optional<std::uint64_t> parse_u64(std::string_view s) {
  s = trim(s);
  if (s.empty()) return std::nullopt;
  std::uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

inline std::optional<int> parse_int(std::string_view s) {
  s = trim(s);
  if (s.empty()) return std::nullopt;
  int v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

inline std::vector<std::string_view> lines(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    out.push_back(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

/// Reads files below a root directory without throwing.
class Reader {
 public:
  Reader(fs::path root, bool live) : root_(std::move(root)), live_(live) {}

  bool live() const { return live_; }
  fs::path at(std::string_view rel) const { return root_ / fs::path(std::string(rel)); }
  /// The path as it would be on the system described, for notes and evidence: "/proc/cpuinfo".
  static std::string shown(std::string_view rel) { return "/" + std::string(rel); }

  bool exists(std::string_view rel) const {
    std::error_code ec;
    return fs::exists(at(rel), ec) && !ec;
  }

  /// The file's whole content, or nullopt with `why` set ("/proc/cpuinfo not found").
  std::optional<std::string> read(std::string_view rel, std::string* why = nullptr) const {
    const fs::path p = at(rel);
    std::error_code ec;
    const fs::file_status st = fs::status(p, ec);
    if (!fs::exists(st)) {
      if (why)
        *why = shown(rel) + (ec && ec != std::errc::no_such_file_or_directory
                                 ? " cannot be accessed (" + ec.message() + ")"
                                 : std::string(" not found"));
      return std::nullopt;
    }
    if (fs::is_directory(st)) {
      if (why) *why = shown(rel) + " is a directory";
      return std::nullopt;
    }
    std::ifstream in(p, std::ios::in | std::ios::binary);
    if (!in) {
      if (why) *why = shown(rel) + " cannot be opened (" + std::strerror(errno) + ")";
      return std::nullopt;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad()) {
      if (why) *why = shown(rel) + " cannot be read";
      return std::nullopt;
    }
    return std::move(ss).str();
  }

  /// The trimmed first line of the file; nullopt when missing or empty.
  std::optional<std::string> read_value(std::string_view rel, std::string* why = nullptr) const {
    auto text = read(rel, why);
    if (!text) return std::nullopt;
    const auto all = lines(*text);
    const std::string_view first = all.empty() ? std::string_view{} : trim(all.front());
    if (first.empty()) {
      if (why) *why = shown(rel) + " is empty";
      return std::nullopt;
    }
    return std::string(first);
  }

  /// Numbers N of the entries `<prefix>N` of a directory, ascending; empty if it is unreadable.
  std::vector<int> numbered_entries(std::string_view rel_dir, std::string_view prefix) const {
    std::vector<int> out;
    std::error_code ec;
    fs::directory_iterator it(at(rel_dir), ec);
    const fs::directory_iterator end;
    for (; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
      const std::string_view digits = std::string_view(name).substr(prefix.size());
      if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
        continue;
      if (auto n = parse_int(digits)) out.push_back(*n);
    }
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  fs::path root_;
  bool live_;
};

/// "key : value" records of /proc/cpuinfo, one map per `processor` entry.
inline std::vector<std::map<std::string, std::string>> cpuinfo_records(std::string_view text) {
  std::vector<std::map<std::string, std::string>> records;
  for (std::string_view line : lines(text)) {
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string key(trim(line.substr(0, colon)));
    const std::string value(trim(line.substr(colon + 1)));
    if (key == "processor") records.emplace_back();
    if (!records.empty()) records.back().emplace(key, value);
  }
  return records;
}

/// /proc/meminfo or nodeN/meminfo as name -> bytes ("kB" values times 1024; unit-less values as
/// is).
inline std::map<std::string, std::uint64_t> meminfo_bytes(std::string_view text) {
  std::map<std::string, std::uint64_t> out;
  for (std::string_view line : lines(text)) {
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = trim(line.substr(0, colon));
    if (key.rfind("Node ", 0) == 0) {  // "Node 0 MemTotal"
      const auto sp = key.find(' ', 5);
      if (sp == std::string_view::npos) continue;
      key = trim(key.substr(sp + 1));
    }
    std::string_view value = trim(line.substr(colon + 1));
    std::uint64_t scale = 1;
    if (value.size() > 2 && value.substr(value.size() - 2) == "kB") {
      scale = 1024;
      value = trim(value.substr(0, value.size() - 2));
    }
    const auto n = parse_u64(value);
    if (!n || *n > std::numeric_limits<std::uint64_t>::max() / scale) continue;
    out.emplace(std::string(key), *n * scale);
  }
  return out;
}

/// KEY=VALUE lines of os-release(5), with quotes and backslash escapes removed.
inline std::map<std::string, std::string> os_release_fields(std::string_view text) {
  std::map<std::string, std::string> out;
  for (std::string_view line : lines(text)) {
    line = trim(line);
    if (line.empty() || line.front() == '#') continue;
    const auto eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string key(trim(line.substr(0, eq)));
    std::string_view raw = trim(line.substr(eq + 1));
    std::string value;
    if (!raw.empty() && (raw.front() == '"' || raw.front() == '\'')) {
      const char quote = raw.front();
      for (std::size_t i = 1; i < raw.size() && raw[i] != quote; ++i) {
        if (quote == '"' && raw[i] == '\\' && i + 1 < raw.size()) ++i;
        value.push_back(raw[i]);
      }
    } else {
      value = std::string(raw);
    }
    out[key] = value;
  }
  return out;
}

}  // namespace detail::host

}  // namespace gauge
