#pragma once
/// \file gauge/env/host.hpp
/// Detects the host environment a measurement runs in (CPU, memory, NUMA, OS, container / WSL /
/// VM), the compiler that built the benchmark, and the environment variables that change how CUDA
/// code behaves.
///
/// `detect_host(root)` reads every file below `root` (default "/"), so tests can point it at a fake
/// tree holding `proc/`, `sys/`, `etc/` and `run/`. Data that only the live system can give
/// (`uname`, `std::thread::hardware_concurrency()`, `KUBERNETES_SERVICE_HOST`, CPUID) is used only
/// when `root` is "/". Detection never throws: what cannot be read is `std::nullopt`, and
/// `HostInfo::notes` says why. Linux only.

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <gauge/core/host_info.hpp>
#include <gauge/env/compiler.hpp>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__)) && \
    __has_include(<cpuid.h>)
#include <cpuid.h>
#define GAUGE_DETAIL_HAVE_CPUID 1
#else
#define GAUGE_DETAIL_HAVE_CPUID 0
#endif

#if !defined(_GNU_SOURCE)
// <unistd.h> declares `environ` only with _GNU_SOURCE (which g++ and clang++ define on Linux).
extern "C" char** environ;
#endif

namespace gauge {

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

/// The fixed list of environment variables `relevant_environment_variables()` always reports
/// (set or not), in this order: they change how CUDA code, cuBLAS or OpenMP behave.
/// - CUDA_VISIBLE_DEVICES: which GPUs the process sees, and their order.
/// - CUDA_MODULE_LOADING: LAZY / EAGER module loading (first-launch cost).
/// - CUDA_LAUNCH_BLOCKING: 1 makes every launch synchronous (distorts timings).
/// - CUDA_DEVICE_MAX_CONNECTIONS: number of hardware work queues (concurrency between streams).
/// - CUDA_CACHE_DISABLE: disables the JIT (PTX) cache.
/// - CUDA_FORCE_PTX_JIT: forces JIT compilation of PTX instead of using SASS.
/// - CUDA_DISABLE_PTX_JIT: forbids JIT compilation of PTX.
/// - CUBLAS_WORKSPACE_CONFIG: cuBLAS workspace size (deterministic mode).
/// - NVIDIA_TF32_OVERRIDE: 0 disables TF32 in cuBLAS/cuDNN.
/// - OMP_NUM_THREADS: OpenMP thread count of host code.
inline constexpr std::array<const char*, 10> relevant_environment_variable_names = {
    "CUDA_VISIBLE_DEVICES", "CUDA_MODULE_LOADING",
    "CUDA_LAUNCH_BLOCKING", "CUDA_DEVICE_MAX_CONNECTIONS",
    "CUDA_CACHE_DISABLE",   "CUDA_FORCE_PTX_JIT",
    "CUDA_DISABLE_PTX_JIT", "CUBLAS_WORKSPACE_CONFIG",
    "NVIDIA_TF32_OVERRIDE", "OMP_NUM_THREADS"};

/// Reads the process's real environment (not a fake root): every name of
/// `relevant_environment_variable_names` in that order, with its value or `nullopt` when unset,
/// then every set variable whose name starts with "GAUGE_", sorted by name.
inline std::vector<std::pair<std::string, std::optional<std::string>>>
relevant_environment_variables() {
  std::vector<std::pair<std::string, std::optional<std::string>>> vars;
  for (const char* name : relevant_environment_variable_names) {
    const char* value = std::getenv(name);
    vars.emplace_back(name, value ? std::optional<std::string>(value) : std::nullopt);
  }
  std::map<std::string, std::string> gauge_vars;
  if (environ != nullptr) {
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string_view entry(*e);
      if (entry.rfind("GAUGE_", 0) != 0) continue;
      const auto eq = entry.find('=');
      if (eq == std::string_view::npos) continue;
      gauge_vars.emplace(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
    }
  }
  for (auto& [name, value] : gauge_vars) vars.emplace_back(name, std::move(value));
  return vars;
}

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

inline void detect_cpu(const Reader& r, HostInfo& info) {
  CpuInfo& cpu = info.cpu;
  std::string why;
  const auto cpu_ids = r.numbered_entries("sys/devices/system/cpu", "cpu");

  if (auto text = r.read("proc/cpuinfo", &why)) {
    const auto records = cpuinfo_records(*text);
    if (!records.empty()) cpu.logical_cpus = static_cast<int>(records.size());
    for (const auto& rec : records) {
      if (auto it = rec.find("model name"); it != rec.end() && !it->second.empty()) {
        cpu.model_name = it->second;
        break;
      }
    }
    if (!cpu.model_name) {
      std::string hint;
      if (!records.empty()) {
        const auto& rec = records.front();
        auto imp = rec.find("CPU implementer");
        auto part = rec.find("CPU part");
        if (imp != rec.end() && part != rec.end())
          hint = " (CPU implementer " + imp->second + ", CPU part " + part->second + ")";
      }
      info.notes.push_back("CPU model unknown: no \"model name\" in /proc/cpuinfo" + hint);
    }
    bool all_package = !records.empty();
    bool all_core = !records.empty();
    std::set<std::string> packages;
    std::set<std::pair<std::string, std::string>> cores;
    for (const auto& rec : records) {
      auto pkg = rec.find("physical id");
      auto core = rec.find("core id");
      if (pkg == rec.end()) {
        all_package = all_core = false;
        break;
      }
      packages.insert(pkg->second);
      if (core == rec.end())
        all_core = false;
      else
        cores.emplace(pkg->second, core->second);
    }
    if (all_package) cpu.sockets = static_cast<int>(packages.size());
    if (all_core) cpu.physical_cores = static_cast<int>(cores.size());
  } else {
    info.notes.push_back("CPU model, sockets, cores and logical CPUs unknown: " + why);
  }

  // Topology fallback (e.g. aarch64, whose /proc/cpuinfo has no physical id / core id).
  if ((!cpu.sockets || !cpu.physical_cores) && !cpu_ids.empty()) {
    std::set<int> packages;
    std::set<std::pair<int, int>> cores;
    bool ok = true;
    for (int id : cpu_ids) {
      const std::string base = "sys/devices/system/cpu/cpu" + std::to_string(id) + "/topology/";
      auto pkg = r.read_value(base + "physical_package_id");
      auto core = r.read_value(base + "core_id");
      auto p = pkg ? parse_int(*pkg) : std::nullopt;
      auto c = core ? parse_int(*core) : std::nullopt;
      if (!p || !c || *p < 0) {
        ok = false;
        break;
      }
      packages.insert(*p);
      cores.emplace(*p, *c);
    }
    if (ok) {
      if (!cpu.sockets) cpu.sockets = static_cast<int>(packages.size());
      if (!cpu.physical_cores) cpu.physical_cores = static_cast<int>(cores.size());
      info.notes.push_back(
          "CPU sockets and cores taken from /sys/devices/system/cpu/cpuN/topology (not in "
          "/proc/cpuinfo)");
    }
  }
  if (!cpu.sockets) info.notes.push_back("CPU socket count unknown");
  if (!cpu.physical_cores) info.notes.push_back("physical core count unknown");

  if (r.live()) {
    const unsigned hc = std::thread::hardware_concurrency();
    if (hc > 0) cpu.hardware_concurrency = static_cast<int>(hc);
    if (!cpu.logical_cpus && cpu.hardware_concurrency) {
      cpu.logical_cpus = cpu.hardware_concurrency;
      info.notes.push_back("logical CPU count from std::thread::hardware_concurrency()");
    }
  }

  // Frequencies of cpu0, in kHz in sysfs.
  const std::string freq = "sys/devices/system/cpu/cpu0/cpufreq/";
  auto khz_to_mhz = [&](const std::string& file, const char* what) -> std::optional<double> {
    std::string w;
    auto v = r.read_value(freq + file, &w);
    if (!v) {
      info.notes.push_back(std::string(what) + " unknown: " + w);
      return std::nullopt;
    }
    auto n = parse_u64(*v);
    if (!n) {
      info.notes.push_back(std::string(what) + " unknown: " + Reader::shown(freq + file) +
                           " holds \"" + *v + "\", not a number of kHz");
      return std::nullopt;
    }
    return static_cast<double>(*n) / 1000.0;
  };
  cpu.max_frequency_mhz = khz_to_mhz("cpuinfo_max_freq", "maximum CPU frequency");
  cpu.current_frequency_mhz = khz_to_mhz("scaling_cur_freq", "current CPU frequency");

  // Governors.
  std::string gwhy;
  cpu.governor = r.read_value(freq + "scaling_governor", &gwhy);
  std::set<std::string> governors;
  if (cpu.governor) governors.insert(*cpu.governor);
  for (int id : cpu_ids) {
    if (id == 0) continue;
    if (auto g = r.read_value("sys/devices/system/cpu/cpu" + std::to_string(id) +
                              "/cpufreq/scaling_governor"))
      governors.insert(*g);
  }
  if (!cpu.governor)
    info.notes.push_back("CPU frequency governor unknown: " + gwhy +
                         " (no cpufreq driver; common in VMs and containers)");
  if (!governors.empty() &&
      (governors.size() > 1 || !cpu.governor || *governors.begin() != *cpu.governor))
    cpu.distinct_governors.assign(governors.begin(), governors.end());
}

inline void detect_memory(const Reader& r, HostInfo& info) {
  std::string why;
  auto text = r.read("proc/meminfo", &why);
  if (!text) {
    info.notes.push_back("memory sizes unknown: " + why);
    return;
  }
  const auto m = meminfo_bytes(*text);
  auto get = [&](const char* key) -> std::optional<std::uint64_t> {
    if (auto it = m.find(key); it != m.end()) return it->second;
    info.notes.push_back(std::string("no ") + key + " in /proc/meminfo");
    return std::nullopt;
  };
  info.memory.total_bytes = get("MemTotal");
  info.memory.available_bytes = get("MemAvailable");
  info.memory.swap_total_bytes = get("SwapTotal");
}

inline void detect_numa(const Reader& r, HostInfo& info) {
  const std::string dir = "sys/devices/system/node";
  if (!r.exists(dir)) {
    info.notes.push_back("NUMA layout unknown: " + Reader::shown(dir) + " not found");
    return;
  }
  const auto ids = r.numbered_entries(dir, "node");
  if (ids.empty()) {
    info.notes.push_back("NUMA layout unknown: no node directories in " + Reader::shown(dir));
    return;
  }
  for (int id : ids) {
    NumaNode node;
    node.id = id;
    const std::string base = dir + "/node" + std::to_string(id) + "/";
    std::string why;
    if (auto text = r.read(base + "cpulist", &why)) {
      node.cpulist = std::string(trim(*text));
      node.cpus = parse_cpulist(*node.cpulist, &info.notes, Reader::shown(base + "cpulist"));
    } else {
      info.notes.push_back("CPUs of NUMA node " + std::to_string(id) + " unknown: " + why);
    }
    if (auto text = r.read(base + "meminfo", &why)) {
      const auto m = meminfo_bytes(*text);
      if (auto it = m.find("MemTotal"); it != m.end())
        node.memory_total_bytes = it->second;
      else
        info.notes.push_back("memory of NUMA node " + std::to_string(id) +
                             " unknown: no MemTotal in " + Reader::shown(base + "meminfo"));
    } else {
      info.notes.push_back("memory of NUMA node " + std::to_string(id) + " unknown: " + why);
    }
    info.numa_nodes.push_back(std::move(node));
  }
}

inline void detect_os(const Reader& r, HostInfo& info) {
  OsInfo& os = info.os;
  std::string why;
  auto text = r.read("etc/os-release", &why);
  if (!text) {
    std::string why2;
    text = r.read("usr/lib/os-release", &why2);
    if (!text) why += " and " + why2;
  }
  if (text) {
    const auto f = os_release_fields(*text);
    auto get = [&](const char* key) -> std::optional<std::string> {
      if (auto it = f.find(key); it != f.end() && !it->second.empty()) return it->second;
      return std::nullopt;
    };
    os.pretty_name = get("PRETTY_NAME");
    os.id = get("ID");
    os.version_id = get("VERSION_ID");
  } else {
    info.notes.push_back("OS name and version unknown: " + why);
  }

  struct utsname uts {};
  const bool have_uname = r.live() && ::uname(&uts) == 0;

  // `out` from the file at `path` in the tree, else from uname()'s `uname_value`, else a note.
  auto file_or_uname = [&](std::optional<std::string>& out, const char* path, const char* uname_value,
                           const char* what) {
    out = r.read_value(path, &why);
    if (out) return;
    if (have_uname) out = std::string(uname_value);
    else info.notes.push_back(std::string(what) + " unknown: " + why);
  };
  file_or_uname(os.kernel_release, "proc/sys/kernel/osrelease", uts.release, "kernel release");
  file_or_uname(os.hostname, "proc/sys/kernel/hostname", uts.nodename, "host name");
  if (have_uname) {
    os.architecture = std::string(uts.machine);
  } else if (!r.live()) {
    os.architecture = r.read_value("proc/sys/kernel/arch", &why);
    if (!os.architecture) info.notes.push_back("architecture unknown: " + why);
  } else {
    info.notes.push_back("architecture unknown: uname() failed");
  }
}

/// (hypervisor name, raw vendor signature) from CPUID leaf 0x40000000, when CPUID.1:ECX bit 31
/// (hypervisor present) is set. Reads the CPU this runs on, so only meaningful for the live root.
inline std::optional<std::pair<std::string, std::string>> cpuid_hypervisor() {
#if GAUGE_DETAIL_HAVE_CPUID
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 31))) return std::nullopt;
  __cpuid(0x40000000u, a, b, c, d);
  char sig[13] = {};
  std::memcpy(sig + 0, &b, 4);
  std::memcpy(sig + 4, &c, 4);
  std::memcpy(sig + 8, &d, 4);
  const std::string s(sig);
  static const std::pair<const char*, const char*> known[] = {
      {"KVMKVMKVM", "KVM"},          {"Microsoft Hv", "Microsoft Hyper-V"},
      {"VMwareVMware", "VMware"},    {"XenVMMXenVMM", "Xen"},
      {"TCGTCGTCGTCG", "QEMU"},      {"VBoxVBoxVBox", "VirtualBox"},
      {" lrpepyh  vr", "Parallels"}, {"bhyve bhyve ", "bhyve"},
      {"ACRNACRNACRN", "ACRN"},      {"QNXQVMBSQG", "QNX"}};
  for (const auto& [signature, name] : known)
    if (s == signature) return std::make_pair(std::string(name), s);
  return std::make_pair(std::string("unknown"), s);
#else
  return std::nullopt;
#endif
}

inline void detect_virtualization(const Reader& r, HostInfo& info) {
  VirtualizationInfo& v = info.virtualization;

  // --- container ---
  auto set_container = [&](const char* name, std::string evidence) {
    if (v.container) return;
    v.container = name;
    v.container_evidence = std::move(evidence);
  };
  std::vector<std::pair<std::string, std::string>> cgroups;  // (shown path, content)
  for (const char* rel : {"proc/1/cgroup", "proc/self/cgroup"})
    if (auto text = r.read(rel)) cgroups.emplace_back(Reader::shown(rel), std::move(*text));
  auto cgroup_mentions = [&](std::initializer_list<const char*> needles, const char* name) {
    for (const auto& [path, text] : cgroups)
      for (const char* needle : needles)
        if (text.find(needle) != std::string::npos) {
          set_container(name, path + " mentions \"" + needle + "\"");
          return;
        }
  };
  if (r.live() && std::getenv("KUBERNETES_SERVICE_HOST") != nullptr)
    set_container("kubernetes", "environment variable KUBERNETES_SERVICE_HOST is set");
  cgroup_mentions({"kubepods"}, "kubernetes");
  if (r.exists("run/.containerenv")) set_container("podman", "/run/.containerenv exists");
  if (r.exists(".dockerenv")) set_container("docker", "/.dockerenv exists");
  cgroup_mentions({"/docker/", "docker-"}, "docker");
  cgroup_mentions({"libpod"}, "podman");
  cgroup_mentions({"containerd"}, "containerd");
  cgroup_mentions({"/lxc/", "lxc.payload"}, "lxc");

  // --- WSL ---
  std::optional<std::string> kernel_text;  // for WSL2 recognition
  for (const char* rel : {"proc/version", "proc/sys/kernel/osrelease"}) {
    auto text = r.read(rel);
    if (!text) continue;
    const char* needle = nullptr;
    if (lower(*text).find("microsoft") != std::string::npos)
      needle = "microsoft";
    else if (text->find("WSL") != std::string::npos)
      needle = "WSL";
    if (needle) {
      v.wsl = true;
      v.wsl_evidence = Reader::shown(rel) + " contains \"" + needle + "\"";
      kernel_text = std::move(text);
      break;
    }
  }

  // --- virtual machine ---
  auto set_vm = [&](std::string name, std::string evidence) {
    if (v.virtual_machine) return;
    v.virtual_machine = std::move(name);
    v.virtual_machine_evidence = std::move(evidence);
  };
  const auto vendor = r.read_value("sys/class/dmi/id/sys_vendor");
  const auto product = r.read_value("sys/class/dmi/id/product_name");
  {
    const std::string ven = vendor.value_or("");
    const std::string prod = product.value_or("");
    const std::string ven_ev = "/sys/class/dmi/id/sys_vendor is \"" + ven + "\"";
    const std::string prod_ev = "/sys/class/dmi/id/product_name is \"" + prod + "\"";
    auto has = [](const std::string& s, const char* needle) {
      return !s.empty() && s.find(needle) != std::string::npos;
    };
    struct Rule {
      const char* needle;
      const char* name;
    };
    // Checked in order on sys_vendor, then on product_name.
    static const Rule rules[] = {
        {"KVM", "KVM"},
        {"QEMU", "QEMU"},
        {"VMware", "VMware"},
        {"VMW", "VMware"},
        {"innotek GmbH", "VirtualBox"},
        {"VirtualBox", "VirtualBox"},
        {"Xen", "Xen"},
        {"HVM domU", "Xen"},
        {"Google Compute Engine", "Google Compute Engine"},
        {"OpenStack", "OpenStack"},
        {"KubeVirt", "KubeVirt"},
        {"Parallels", "Parallels"},
        {"Bochs", "Bochs"},
        {"BHYVE", "bhyve"},
        {"Firecracker", "Firecracker"},
        {"Alibaba Cloud", "Alibaba Cloud"},
        {"DigitalOcean", "DigitalOcean"},
        {"Hetzner", "Hetzner Cloud"},
        {"Apple Virtualization", "Apple Virtualization"},
    };
    if (has(ven, "Microsoft Corporation") && prod == "Virtual Machine") {
      set_vm("Microsoft Hyper-V", ven_ev + " and " + prod_ev);
    } else if (has(ven, "Amazon EC2")) {
      if (prod.size() > 6 && prod.compare(prod.size() - 6, 6, ".metal") == 0)
        info.notes.push_back("Amazon EC2 bare-metal instance (" + prod_ev + "): not a VM");
      else
        set_vm("Amazon EC2", ven_ev);
    } else if (has(ven, "Google") && has(prod, "Google Compute Engine")) {
      set_vm("Google Compute Engine", ven_ev + " and " + prod_ev);
    } else {
      for (const auto& rule : rules) {
        if (has(ven, rule.needle)) {
          set_vm(rule.name, ven_ev);
          break;
        }
        if (has(prod, rule.needle)) {
          set_vm(rule.name, prod_ev);
          break;
        }
      }
    }
  }
  // QEMU machine emulation is usually accelerated by KVM; CPUID tells them apart on the live
  // system.
  if (r.live() && v.virtual_machine == std::optional<std::string>("QEMU")) {
    if (auto cpuid = cpuid_hypervisor(); cpuid && cpuid->first == "KVM") {
      v.virtual_machine = "KVM";
      v.virtual_machine_evidence =
          *v.virtual_machine_evidence + " and CPUID hypervisor leaf says KVM";
    }
  }
  if (auto type = r.read_value("sys/hypervisor/type")) {
    set_vm(lower(*type) == "xen" ? std::string("Xen") : *type,
           "/sys/hypervisor/type is \"" + *type + "\"");
  }
  if (r.live()) {
    if (auto cpuid = cpuid_hypervisor())
      set_vm(cpuid->first,
             "CPUID hypervisor leaf 0x40000000 vendor signature \"" + cpuid->second + "\"");
  }
  if (v.wsl && kernel_text &&
      (kernel_text->find("WSL2") != std::string::npos ||
       kernel_text->find("microsoft-standard") != std::string::npos))
    set_vm("Microsoft Hyper-V", "WSL2 (" + *v.wsl_evidence + ") runs in a Hyper-V utility VM");
  if (auto text = r.read("proc/cpuinfo")) {
    for (const auto& rec : cpuinfo_records(*text)) {
      auto it = rec.find("flags");
      if (it == rec.end()) continue;
      const std::string flags = " " + it->second + " ";
      if (flags.find(" hypervisor ") != std::string::npos)
        set_vm("unknown", "/proc/cpuinfo flags contain \"hypervisor\"");
      break;
    }
  }
}

}  // namespace detail::host

/// Detects the host by reading `/proc`, `/sys`, `/etc` and `/run` below `root` (an empty path
/// means "/"). When `root` is the live root "/", also uses `uname()`,
/// `std::thread::hardware_concurrency()`, `KUBERNETES_SERVICE_HOST` and CPUID. Never throws on
/// missing, unreadable or malformed files: the affected fields are `std::nullopt` and
/// `HostInfo::notes` says why; an unexpected failure inside one part (CPU, memory, NUMA, OS,
/// virtualization) becomes a note too.
inline HostInfo detect_host(const std::filesystem::path& root = "/") {
  HostInfo info;
  const std::filesystem::path r = root.empty() ? std::filesystem::path("/") : root;
  std::error_code ec;
  const bool live = std::filesystem::equivalent(r, "/", ec) && !ec;
  const detail::host::Reader reader(r, live);
  auto guarded = [&](const char* part, void (*fn)(const detail::host::Reader&, HostInfo&)) {
    try {
      fn(reader, info);
    } catch (const std::exception& e) {
      info.notes.push_back(std::string(part) + " detection failed: " + e.what());
    } catch (...) {
      info.notes.push_back(std::string(part) + " detection failed");
    }
  };
  guarded("CPU", &detail::host::detect_cpu);
  guarded("memory", &detail::host::detect_memory);
  guarded("NUMA", &detail::host::detect_numa);
  guarded("OS", &detail::host::detect_os);
  guarded("virtualization", &detail::host::detect_virtualization);
  return info;
}

}  // namespace gauge
