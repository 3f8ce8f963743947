// Tests of gauge/env/host.hpp and gauge/report/host_json.hpp against fake /proc, /sys, /etc trees
// in tests/data/fake_roots/. Every expected number below was computed by hand from the values
// written in those files (kB * 1024 = bytes, kHz / 1000 = MHz).

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <gauge/core/host_info.hpp>
#include <gauge/env/host.hpp>
#include <gauge/report/host_json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "catch.hpp"

// This file's own namespace: the unity build compiles several test files as one.
namespace gauge_test_env_host {

namespace {

namespace fs = std::filesystem;

fs::path fake_root(const char* name) { return fs::path(GAUGE_TEST_DATA_DIR) / "fake_roots" / name; }

bool has_note(const gauge::env::HostInfo& h, const std::string& part) {
  for (const auto& n : h.notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}

bool has_note(const std::vector<std::string>& notes, const std::string& part) {
  for (const auto& n : notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}

std::string all_notes(const gauge::env::HostInfo& h) {
  std::string s;
  for (const auto& n : h.notes) s += "\n  " + n;
  return s;
}

using OptStr = std::optional<std::string>;
using OptInt = std::optional<int>;
using OptU64 = std::optional<std::uint64_t>;
using OptDbl = std::optional<double>;

/// Checks every field of an OS record against the fake root's files (nullopt: no such field).
void check_os(const gauge::env::OsInfo& os, const OptStr& pretty_name, const OptStr& id, const OptStr& version_id,
              const OptStr& kernel_release, const OptStr& hostname, const OptStr& architecture) {
  CHECK(os.pretty_name == pretty_name);
  CHECK(os.id == id);
  CHECK(os.version_id == version_id);
  CHECK(os.kernel_release == kernel_release);
  CHECK(os.hostname == hostname);
  CHECK(os.architecture == architecture);
}

/// Checks a memory record against the fake root's /proc/meminfo, in bytes (nullopt: not read).
void check_memory(const gauge::env::MemoryInfo& m, const OptU64& total, const OptU64& available, const OptU64& swap_total) {
  CHECK(m.total_bytes == total);
  CHECK(m.available_bytes == available);
  CHECK(m.swap_total_bytes == swap_total);
}

// to_json, text, parse, from_json: must give back the same struct.
gauge::env::HostInfo json_round_trip(const gauge::env::HostInfo& h) {
  const nlohmann::json j = h;
  return nlohmann::json::parse(j.dump()).get<gauge::env::HostInfo>();
}

}  // namespace

TEST_CASE("parse_cpulist parses ranges and single CPU ids", "[env]") {
  std::vector<std::string> notes;
  CHECK(gauge::detail::parse_cpulist("0-3,8-11,15", &notes) ==
        std::vector<int>{0, 1, 2, 3, 8, 9, 10, 11, 15});
  CHECK(gauge::detail::parse_cpulist("0", &notes) == std::vector<int>{0});
  CHECK(gauge::detail::parse_cpulist("0-1\n", &notes) == std::vector<int>{0, 1});  // as read from sysfs
  CHECK(gauge::detail::parse_cpulist("5-5", &notes) == std::vector<int>{5});
  CHECK(gauge::detail::parse_cpulist("3,1-2,2", &notes) == std::vector<int>{1, 2, 3});  // sorted, unique
  CHECK(gauge::detail::parse_cpulist("", &notes).empty());  // a node without CPUs
  CHECK(gauge::detail::parse_cpulist(" \n", &notes).empty());
  CHECK(notes.empty());
}

TEST_CASE("parse_cpulist gives an empty list and a note on malformed input", "[env]") {
  for (const char* bad : {"3-1", "a", "1,,2", "0-", "-1", "1-a", "0,", "99999", "0-7:2/4", "+1"}) {
    INFO("input: " << bad);
    std::vector<std::string> notes;
    CHECK(gauge::detail::parse_cpulist(bad, &notes, "/sys/x/cpulist").empty());
    REQUIRE(notes.size() == 1);
    CHECK(notes[0].find("/sys/x/cpulist") != std::string::npos);
    CHECK(notes[0].find(std::string("\"") + bad + "\"") != std::string::npos);
  }
  std::vector<std::string> notes;
  gauge::detail::parse_cpulist("3-1", &notes);
  CHECK(has_note(notes, "descending"));
  CHECK(gauge::detail::parse_cpulist("a").empty());  // no notes vector: still no throw
}

TEST_CASE("detect_host: Docker container, two sockets, two NUMA nodes, powersave", "[env]") {
  const gauge::env::HostInfo h = gauge::detail::detect_host(fake_root("docker_two_numa"));
  INFO("notes:" << all_notes(h));

  CHECK(h.cpu.model_name == OptStr("Intel(R) Xeon(R) Gold 6248R CPU @ 3.00GHz"));
  CHECK(h.cpu.sockets == OptInt(2));
  CHECK(h.cpu.physical_cores == OptInt(4));  // 2 sockets x core ids {0,1}
  CHECK(h.cpu.logical_cpus == OptInt(8));
  CHECK_FALSE(h.cpu.hardware_concurrency.has_value());   // fake root: not the live system
  CHECK(h.cpu.max_frequency_mhz == OptDbl(4000.0));      // 4000000 kHz
  CHECK(h.cpu.current_frequency_mhz == OptDbl(1200.0));  // cpu0: 1200000 kHz
  CHECK(h.cpu.governor == OptStr("powersave"));
  CHECK(h.cpu.distinct_governors.empty());  // all 8 CPUs agree
  CHECK_FALSE(h.governor_is_performance());

  // 32505856 kB, 30408704 kB, 2097152 kB
  check_memory(h.memory, 33285996544ULL, 31138512896ULL, 2147483648ULL);

  REQUIRE(h.numa_nodes.size() == 2);
  CHECK(h.numa_nodes[0].id == 0);
  CHECK(h.numa_nodes[0].cpulist == OptStr("0-3"));
  CHECK(h.numa_nodes[0].cpus == std::vector<int>{0, 1, 2, 3});
  CHECK(h.numa_nodes[0].memory_total_bytes == OptU64(17179869184ULL));  // 16777216 kB = 16 GiB
  CHECK(h.numa_nodes[1].id == 1);
  CHECK(h.numa_nodes[1].cpulist == OptStr("4-7"));
  CHECK(h.numa_nodes[1].cpus == std::vector<int>{4, 5, 6, 7});
  CHECK(h.numa_nodes[1].memory_total_bytes == OptU64(17179869184ULL));

  check_os(h.os, "Ubuntu 22.04.4 LTS", "ubuntu", "22.04", "5.15.0-105-generic", "3f2a1b9c8d7e", "x86_64");

  CHECK(h.virtualization.container == OptStr("docker"));
  CHECK(h.virtualization.container_evidence == OptStr("/.dockerenv exists"));
  CHECK_FALSE(h.virtualization.wsl);
  CHECK_FALSE(h.virtualization.wsl_evidence.has_value());
  CHECK_FALSE(h.virtualization.virtual_machine.has_value());  // DMI says Dell PowerEdge
  CHECK_FALSE(h.virtualization.virtual_machine_evidence.has_value());

  CHECK(h.notes.empty());  // everything was there
}

TEST_CASE("detect_host: WSL2", "[env]") {
  const gauge::env::HostInfo h = gauge::detail::detect_host(fake_root("wsl"));
  INFO("notes:" << all_notes(h));

  CHECK(h.virtualization.wsl);
  CHECK(h.virtualization.wsl_evidence == OptStr("/proc/version contains \"microsoft\""));
  CHECK(h.virtualization.virtual_machine == OptStr("Microsoft Hyper-V"));
  REQUIRE(h.virtualization.virtual_machine_evidence.has_value());
  CHECK(h.virtualization.virtual_machine_evidence->find("WSL2") != std::string::npos);
  CHECK_FALSE(h.virtualization.container.has_value());

  CHECK(h.cpu.model_name == OptStr("AMD Ryzen 9 5950X 16-Core Processor"));
  CHECK(h.cpu.sockets == OptInt(1));
  CHECK(h.cpu.physical_cores == OptInt(2));
  CHECK(h.cpu.logical_cpus == OptInt(4));
  CHECK_FALSE(h.cpu.governor.has_value());  // WSL2 has no cpufreq
  CHECK_FALSE(h.cpu.max_frequency_mhz.has_value());
  CHECK_FALSE(h.cpu.current_frequency_mhz.has_value());
  CHECK(has_note(h, "scaling_governor not found"));
  CHECK_FALSE(h.governor_is_performance());

  // 16252928 kB = 15.5 GiB, 15204352 kB = 14.5 GiB, 4194304 kB = 4 GiB
  check_memory(h.memory, 16642998272ULL, 15569256448ULL, 4294967296ULL);
  REQUIRE(h.numa_nodes.size() == 1);
  CHECK(h.numa_nodes[0].cpus == std::vector<int>{0, 1, 2, 3});
  CHECK(h.numa_nodes[0].memory_total_bytes == OptU64(16642998272ULL));

  // no proc/sys/kernel/arch in this tree: no architecture
  check_os(h.os, "Ubuntu 24.04 LTS", "ubuntu", "24.04", "5.15.153.1-microsoft-standard-WSL2", "DESKTOP-7K2QF9L",
           std::nullopt);
  CHECK(has_note(h, "architecture unknown"));
}

TEST_CASE("detect_host: a bare root gives nullopt everywhere and does not throw", "[env]") {
  gauge::env::HostInfo h;
  REQUIRE_NOTHROW(h = gauge::detail::detect_host(fake_root("bare")));
  INFO("notes:" << all_notes(h));

  CHECK_FALSE(h.cpu.model_name.has_value());
  CHECK_FALSE(h.cpu.sockets.has_value());
  CHECK_FALSE(h.cpu.physical_cores.has_value());
  CHECK_FALSE(h.cpu.logical_cpus.has_value());
  CHECK_FALSE(h.cpu.hardware_concurrency.has_value());
  CHECK_FALSE(h.cpu.max_frequency_mhz.has_value());
  CHECK_FALSE(h.cpu.current_frequency_mhz.has_value());
  CHECK_FALSE(h.cpu.governor.has_value());
  CHECK(h.cpu.distinct_governors.empty());
  CHECK_FALSE(h.governor_is_performance());
  check_memory(h.memory, std::nullopt, std::nullopt, std::nullopt);
  CHECK(h.numa_nodes.empty());
  check_os(h.os, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt);
  CHECK_FALSE(h.virtualization.container.has_value());
  CHECK_FALSE(h.virtualization.wsl);
  CHECK_FALSE(h.virtualization.virtual_machine.has_value());

  CHECK(has_note(h, "/proc/cpuinfo not found"));
  CHECK(has_note(h, "/proc/meminfo not found"));
  CHECK(has_note(h, "/sys/devices/system/node not found"));
  CHECK(has_note(h, "/etc/os-release not found"));
  CHECK(has_note(h, "/proc/sys/kernel/osrelease not found"));
  CHECK(has_note(h, "scaling_governor not found"));
}

TEST_CASE("detect_host: a root that does not exist does not throw", "[env]") {
  gauge::env::HostInfo h;
  REQUIRE_NOTHROW(h = gauge::detail::detect_host(fake_root("no_such_root_dir")));
  CHECK_FALSE(h.cpu.logical_cpus.has_value());
  CHECK_FALSE(h.notes.empty());
}

TEST_CASE("detect_host: QEMU/KVM virtual machine via DMI", "[env]") {
  const gauge::env::HostInfo h = gauge::detail::detect_host(fake_root("kvm_qemu"));
  INFO("notes:" << all_notes(h));

  CHECK(h.virtualization.virtual_machine == OptStr("QEMU"));
  CHECK(h.virtualization.virtual_machine_evidence ==
        OptStr("/sys/class/dmi/id/sys_vendor is \"QEMU\""));
  CHECK_FALSE(h.virtualization.container.has_value());
  CHECK_FALSE(h.virtualization.wsl);

  CHECK(h.cpu.model_name == OptStr("Intel Xeon Processor (Icelake)"));
  CHECK(h.cpu.sockets == OptInt(1));
  CHECK(h.cpu.physical_cores == OptInt(4));
  CHECK(h.cpu.logical_cpus == OptInt(4));
  CHECK_FALSE(h.cpu.governor.has_value());
  CHECK(has_note(h, "CPU frequency governor unknown"));

  check_memory(h.memory, 8589934592ULL, 7516192768ULL, 0);  // 8388608 kB = 8 GiB, 7340032 kB = 7 GiB, none
  REQUIRE(h.numa_nodes.size() == 1);
  CHECK(h.numa_nodes[0].memory_total_bytes == OptU64(8589934592ULL));

  // ID is quoted in the file; no proc/sys/kernel/arch in this tree
  check_os(h.os, "Rocky Linux 9.3 (Blue Onyx)", "rocky", "9.3", "5.14.0-362.8.1.el9_3.x86_64", "gpu-vm-01",
           std::nullopt);
}

TEST_CASE("detect_host: aarch64 Kubernetes pod, sysfs topology, mixed governors, odd NUMA nodes",
          "[env]") {
  const gauge::env::HostInfo h = gauge::detail::detect_host(fake_root("arm_kubernetes_mixed_governors"));
  INFO("notes:" << all_notes(h));

  CHECK_FALSE(h.cpu.model_name.has_value());  // aarch64 /proc/cpuinfo has no "model name"
  CHECK(has_note(h, "CPU part 0xd4f"));
  CHECK(h.cpu.logical_cpus == OptInt(4));
  CHECK(h.cpu.sockets == OptInt(1));         // from sysfs topology
  CHECK(h.cpu.physical_cores == OptInt(4));  // from sysfs topology
  CHECK(has_note(h, "topology"));
  CHECK(h.cpu.max_frequency_mhz == OptDbl(3447.0));
  CHECK(h.cpu.current_frequency_mhz == OptDbl(3375.0));
  CHECK(h.cpu.governor == OptStr("performance"));
  CHECK(h.cpu.distinct_governors == std::vector<std::string>{"performance", "schedutil"});
  CHECK_FALSE(h.governor_is_performance());  // cpu2 runs schedutil

  check_memory(h.memory, 17179869184ULL, 16106127360ULL, 0);  // 16777216 kB, 15728640 kB = 15 GiB, no swap

  REQUIRE(h.numa_nodes.size() == 3);
  CHECK(h.numa_nodes[0].cpus == std::vector<int>{0, 1, 2, 3});
  CHECK(h.numa_nodes[0].memory_total_bytes == OptU64(17179869184ULL));
  CHECK(h.numa_nodes[1].cpulist == OptStr(""));  // memory-only node
  CHECK(h.numa_nodes[1].cpus.empty());
  CHECK(h.numa_nodes[1].memory_total_bytes == OptU64(0));
  CHECK(h.numa_nodes[2].cpulist == OptStr("3-1"));
  CHECK(h.numa_nodes[2].cpus.empty());
  CHECK_FALSE(h.numa_nodes[2].memory_total_bytes.has_value());
  CHECK(has_note(h, "/sys/devices/system/node/node2/cpulist \"3-1\" is malformed"));
  CHECK(has_note(h, "memory of NUMA node 2 unknown"));

  // PRETTY_NAME is single-quoted in the file
  check_os(h.os, "Ubuntu 24.04 LTS", "ubuntu", "24.04", "6.8.0-1008-nvidia-64k", "trainer-7d9f8b6c5-x2x4q", "aarch64");

  CHECK(h.virtualization.container == OptStr("kubernetes"));  // kubepods wins over containerd
  CHECK(h.virtualization.container_evidence == OptStr("/proc/self/cgroup mentions \"kubepods\""));
  CHECK_FALSE(h.virtualization.virtual_machine.has_value());
}

TEST_CASE("HostInfo::governor_is_performance", "[env]") {
  gauge::env::HostInfo h;
  CHECK_FALSE(h.governor_is_performance());  // nothing known
  h.cpu.governor = "performance";
  CHECK(h.governor_is_performance());
  h.cpu.distinct_governors = {"performance", "powersave"};
  CHECK_FALSE(h.governor_is_performance());
  h.cpu.governor = std::nullopt;
  h.cpu.distinct_governors = {"performance"};
  CHECK(h.governor_is_performance());
  h.cpu.governor = "ondemand";
  h.cpu.distinct_governors.clear();
  CHECK_FALSE(h.governor_is_performance());
}

TEST_CASE("HostInfo JSON: round trip, null for nullopt, snake_case keys with units", "[env]") {
  for (const char* name :
       {"docker_two_numa", "wsl", "bare", "kvm_qemu", "arm_kubernetes_mixed_governors"}) {
    INFO("root: " << name);
    const gauge::env::HostInfo h = gauge::detail::detect_host(fake_root(name));
    CHECK(json_round_trip(h) == h);
  }

  const nlohmann::json bare = gauge::detail::detect_host(fake_root("bare"));
  for (const char* key : {"cpu", "memory", "numa_nodes", "os", "virtualization", "notes"})
    CHECK(bare.contains(key));
  CHECK(bare["cpu"]["model_name"].is_null());
  CHECK(bare["cpu"]["max_frequency_mhz"].is_null());
  CHECK(bare["cpu"]["governor"].is_null());
  CHECK(bare["memory"]["total_bytes"].is_null());
  CHECK(bare["os"]["hostname"].is_null());
  CHECK(bare["virtualization"]["container"].is_null());
  CHECK(bare["virtualization"]["wsl"] == false);
  CHECK(bare["numa_nodes"].is_array());
  CHECK(bare["numa_nodes"].empty());

  const nlohmann::json docker = gauge::detail::detect_host(fake_root("docker_two_numa"));
  CHECK(docker["cpu"]["max_frequency_mhz"] == 4000.0);
  CHECK(docker["cpu"]["sockets"] == 2);
  CHECK(docker["memory"]["total_bytes"] == 33285996544ULL);
  CHECK(docker["numa_nodes"][1]["memory_total_bytes"] == 17179869184ULL);
  CHECK(docker["numa_nodes"][1]["cpulist"] == "4-7");
  CHECK(docker["numa_nodes"][1]["cpus"] == nlohmann::json({4, 5, 6, 7}));
  CHECK(docker["virtualization"]["container"] == "docker");
  CHECK(docker["virtualization"]["virtual_machine"].is_null());

  // Missing keys (an older report) read as unknown / default.
  const auto partial =
      nlohmann::json::parse(R"({"cpu": {"sockets": 2}, "numa_nodes": [{"id": 1}]})")
          .get<gauge::env::HostInfo>();
  CHECK(partial.cpu.sockets == OptInt(2));
  CHECK_FALSE(partial.cpu.model_name.has_value());
  REQUIRE(partial.numa_nodes.size() == 1);
  CHECK(partial.numa_nodes[0].id == 1);
  CHECK_FALSE(partial.numa_nodes[0].memory_total_bytes.has_value());
  CHECK_FALSE(partial.virtualization.wsl);
}

TEST_CASE("compiler_info reflects the predefined macros and round-trips through JSON", "[env]") {
  const gauge::env::CompilerInfo c = gauge::detail::compiler_info();
  CHECK_FALSE(c.id.empty());
  CHECK(c.cplusplus == static_cast<long>(__cplusplus));
  CHECK(c.cplusplus >= 201703L);
#if defined(NDEBUG)
  CHECK(c.ndebug);
#else
  CHECK_FALSE(c.ndebug);
#endif
#if defined(__OPTIMIZE__)
  CHECK(c.optimized);
#else
  CHECK_FALSE(c.optimized);
#endif
#if defined(__GNUC__) && !defined(__clang__)
  CHECK(c.id == "gcc");
  CHECK(c.version == std::to_string(__GNUC__) + "." + std::to_string(__GNUC_MINOR__) + "." +
                         std::to_string(__GNUC_PATCHLEVEL__));
#endif
  CHECK_FALSE(c.cuda_compiler.has_value());  // this file is compiled as C++, not CUDA
  CHECK_FALSE(c.cuda_compiler_version.has_value());

  const nlohmann::json j = c;
  CHECK(j["cuda_compiler_version"].is_null());
  CHECK(nlohmann::json::parse(j.dump()).get<gauge::env::CompilerInfo>() == c);
}

TEST_CASE("relevant_environment_variables reads the fixed list and GAUGE_*", "[env]") {
  REQUIRE(::setenv("GAUGE_ENV_TEST_B", "2", 1) == 0);
  REQUIRE(::setenv("GAUGE_ENV_TEST_A", "one=1", 1) == 0);
  const auto vars = gauge::detail::relevant_environment_variables();
  ::unsetenv("GAUGE_ENV_TEST_A");
  ::unsetenv("GAUGE_ENV_TEST_B");

  REQUIRE(vars.size() >= gauge::detail::relevant_environment_variable_names.size() + 2);
  for (std::size_t i = 0; i < gauge::detail::relevant_environment_variable_names.size(); ++i) {
    const char* name = gauge::detail::relevant_environment_variable_names[i];
    CHECK(vars[i].first == name);
    const char* real = std::getenv(name);
    CHECK(vars[i].second == (real ? OptStr(real) : std::nullopt));
  }
  std::vector<std::pair<std::string, OptStr>> ours;
  for (std::size_t i = gauge::detail::relevant_environment_variable_names.size(); i < vars.size(); ++i) {
    CHECK(vars[i].first.rfind("GAUGE_", 0) == 0);
    if (vars[i].first.rfind("GAUGE_ENV_TEST_", 0) == 0) ours.push_back(vars[i]);
  }
  CHECK(ours == std::vector<std::pair<std::string, OptStr>>{{"GAUGE_ENV_TEST_A", OptStr("one=1")},
                                                            {"GAUGE_ENV_TEST_B", OptStr("2")}});

  const nlohmann::json j = gauge::detail::environment_variables_to_json(vars);
  CHECK(j.contains("CUDA_VISIBLE_DEVICES"));
  CHECK(j["GAUGE_ENV_TEST_A"] == "one=1");
  const auto back = gauge::detail::environment_variables_from_json(j);
  CHECK(back.size() == vars.size());
  CHECK(gauge::detail::environment_variables_to_json(back) == j);
}

TEST_CASE("relevant_environment_variables records a GAUGE_* secret's name, never its value", "[env][hardening]") {
  // Names that say "secret" (token, key, password, credential, auth), any case; others verbatim.
  const std::vector<std::pair<std::string, bool>> cases = {
      {"GAUGE_UPLOAD_TOKEN", true}, {"GAUGE_API_KEY", true},        {"GAUGE_db_password", true},
      {"GAUGE_S3_SECRET", true},    {"GAUGE_AUTH_HEADER", true},    {"GAUGE_CREDENTIALS_FILE", true},
      {"GAUGE_TOLERANCE", false},   {"GAUGE_BASELINE", false},      {"GAUGE_SILENCE", false}};
  for (const auto& [name, secret] : cases) REQUIRE(::setenv(name.c_str(), "hunter2-value", 1) == 0);
  const auto vars = gauge::detail::relevant_environment_variables();
  const std::string json_text = gauge::detail::environment_variables_to_json(vars).dump();
  for (const auto& entry : cases) {
    const std::string& name = entry.first;
    const bool secret = entry.second;
    ::unsetenv(name.c_str());
    const auto it = std::find_if(vars.begin(), vars.end(), [&](const auto& v) { return v.first == name; });
    REQUIRE(it != vars.end());
    CHECK(it->second == OptStr(secret ? "(redacted)" : "hunter2-value"));
  }
  // The secret's value is nowhere in the JSON (the three plain ones carry it, 3 times).
  std::size_t count = 0;
  for (std::size_t at = json_text.find("hunter2-value"); at != std::string::npos; at = json_text.find("hunter2-value", at + 1)) ++count;
  CHECK(count == 3);
}

TEST_CASE("detect_host on the live system does not throw", "[env]") {
  gauge::env::HostInfo h;
  REQUIRE_NOTHROW(h = gauge::detail::detect_host());
  REQUIRE(h.cpu.logical_cpus.has_value());
  CHECK(*h.cpu.logical_cpus >= 1);
  CHECK(h.cpu.hardware_concurrency.value_or(1) >= 1);
  const nlohmann::json j = h;
  CHECK(json_round_trip(h) == h);
  CHECK(j.contains("virtualization"));
}

}  // namespace gauge_test_env_host

#include "gauge/detail/cuda_available.hpp"
#if GAUGE_HAS_CUDA_RUNTIME
#include "gauge/env/cuda.hpp"

namespace gauge_test_env_host_cuda {
TEST_CASE("env: without a CUDA driver the error says there is none, not an old one", "[env]") {
  const gauge::env::CudaInfo c = gauge::detail::detect_cuda();
  if (!c.driver_version) {
    // The CI machine: the toolkit's runtime, no driver. The runtime's own words follow in brackets.
    REQUIRE(c.error);
    CHECK_THAT(*c.error, Catch::Matchers::StartsWith("no CUDA driver is installed (cudaDriverGetVersion reports none; "
                                                     "cudaGetDeviceCount: "));
  } else {
    // A driver (the H200): whatever went wrong, it is not called missing.
    CHECK(c.error.value_or("").find("no CUDA driver is installed") == std::string::npos);
  }
}
}  // namespace gauge_test_env_host_cuda
#endif
