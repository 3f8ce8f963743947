// NVML through a fake function table, the seed's tools through fake executables, and the
// environment warnings, all on a CPU.

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "catch.hpp"
#include "gauge/env/environment.hpp"
#include "gauge/env/nvml.hpp"
#include "gauge/env/nvml_gpm.hpp"
#include "gauge/env/telemetry.hpp"
#include "gauge/env/tools.hpp"
#include "gauge/report/json.hpp"

// This file's own namespace: the unity build compiles several test files as one.
namespace gauge_test_env_nvml {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

// ---- a fake NVML: two GPUs whose NVML order is the reverse of CUDA's ----------------------------
struct FakeGpu {
  const char* uuid;
  const char* bus;
  unsigned sm_clock, sm_max, app_sm, default_app_sm;
  unsigned long long reasons;
  unsigned power_mw;
};
FakeGpu fake_gpus[2] = {
    // NVML index 0 is CUDA's device 1 (uuid B), NVML index 1 is CUDA's device 0 (uuid A).
    {"GPU-bbbbbbbb-0000-0000-0000-000000000002", "00000000:41:00.0", 1755, 1980, 1755, 1755, 0x4, 650000},
    {"GPU-aaaaaaaa-0000-0000-0000-000000000001", "00000000:19:00.0", 1980, 1980, 1980, 1980, 0x0, 120000},
};
int init_result = 0;
bool temperature_supported = true;
char handle_storage[2];
// Opaque handles: addresses NVML would hand out; only compared, never dereferenced.
gauge::detail::nvml::Device handle(int i) { return reinterpret_cast<gauge::detail::nvml::Device>(&handle_storage[i]); }

int idx(gauge::detail::nvml::Device d) { return d == handle(0) ? 0 : 1; }
int f_init() { return init_result; }
int f_shutdown() { return 0; }
const char* f_error(int r) { return r == 3 ? "Not Supported" : r == 9 ? "Driver Not Loaded" : "Unknown Error"; }
int f_driver(char* b, unsigned n) { std::snprintf(b, n, "580.159.04"); return 0; }
int f_count(unsigned* c) { *c = 2; return 0; }
int f_by_index(unsigned i, gauge::detail::nvml::Device* d) { if (i > 1) return 2; *d = handle(i); return 0; }
int f_by_uuid(const char* u, gauge::detail::nvml::Device* d) {
  for (int i = 0; i < 2; ++i) if (!std::strcmp(u, fake_gpus[i].uuid)) { *d = handle(i); return 0; }
  return gauge::detail::nvml::error_not_found;
}
int f_by_uuid_broken(const char*, gauge::detail::nvml::Device*) { return gauge::detail::nvml::error_not_supported; }
int f_by_bus(const char* b, gauge::detail::nvml::Device* d) {
  for (int i = 0; i < 2; ++i)
    if (gauge::detail::nvml::detail::normalize_bus_id(b) == gauge::detail::nvml::detail::normalize_bus_id(fake_gpus[i].bus)) { *d = handle(i); return 0; }
  return gauge::detail::nvml::error_not_found;
}
int f_index(gauge::detail::nvml::Device d, unsigned* i) { *i = unsigned(idx(d)); return 0; }
int f_name(gauge::detail::nvml::Device, char* b, unsigned n) { std::snprintf(b, n, "NVIDIA H200"); return 0; }
int f_uuid(gauge::detail::nvml::Device d, char* b, unsigned n) { std::snprintf(b, n, "%s", fake_gpus[idx(d)].uuid); return 0; }
int f_pci(gauge::detail::nvml::Device d, gauge::detail::nvml::PciInfo* p) {
  std::memset(p, 0, sizeof *p);
  std::snprintf(p->bus_id, sizeof p->bus_id, "%s", fake_gpus[idx(d)].bus);
  return 0;
}
int f_pstate(gauge::detail::nvml::Device, int* p) { *p = 0; return 0; }
int f_clock(gauge::detail::nvml::Device d, int type, unsigned* v) { *v = type == 1 ? fake_gpus[idx(d)].sm_clock : 3201; return 0; }
int f_max_clock(gauge::detail::nvml::Device d, int type, unsigned* v) { *v = type == 1 ? fake_gpus[idx(d)].sm_max : 3201; return 0; }
int f_app_clock(gauge::detail::nvml::Device d, int type, unsigned* v) { *v = type == 1 ? fake_gpus[idx(d)].app_sm : 3201; return 0; }
int f_default_app_clock(gauge::detail::nvml::Device d, int type, unsigned* v) { *v = type == 1 ? fake_gpus[idx(d)].default_app_sm : 3201; return 0; }
int f_temp(gauge::detail::nvml::Device, int, unsigned* t) { if (!temperature_supported) return 3; *t = 41; return 0; }
int f_power(gauge::detail::nvml::Device d, unsigned* mw) { *mw = fake_gpus[idx(d)].power_mw; return 0; }
int f_limit(gauge::detail::nvml::Device, unsigned* mw) { *mw = 700000; return 0; }
int f_mem(gauge::detail::nvml::Device, gauge::detail::nvml::Memory* m) { m->total = 150ull << 30; m->used = 2ull << 30; m->free = m->total - m->used; return 0; }
int f_ecc(gauge::detail::nvml::Device, int* c, int* p) { *c = 1; *p = 1; return 0; }
int f_persist(gauge::detail::nvml::Device, int* m) { *m = 1; return 0; }
int f_compute(gauge::detail::nvml::Device, int* m) { *m = 3; return 0; }
int f_mig(gauge::detail::nvml::Device, unsigned*, unsigned*) { return 3; } // "Not Supported"
int f_gen(gauge::detail::nvml::Device, unsigned* g) { *g = 5; return 0; }
int f_width(gauge::detail::nvml::Device, unsigned* w) { *w = 16; return 0; }
int f_reasons(gauge::detail::nvml::Device d, unsigned long long* r) { *r = fake_gpus[idx(d)].reasons; return 0; }
int f_procs(gauge::detail::nvml::Device d, unsigned* n, gauge::detail::nvml::ProcessInfo* p) {
  if (idx(d) == 1) { *n = 0; return 0; }
  if (*n < 2) { *n = 2; return gauge::detail::nvml::error_insufficient_size; }
  p[0] = {4242, 3ull << 30, 0, 0};
  p[1] = {4343, 1ull << 30, 0, 0};
  *n = 2;
  return 0;
}

gauge::detail::nvml::Api fake_api() {
  gauge::detail::nvml::Api a;
  a.init = f_init; a.shutdown = f_shutdown; a.error_string = f_error; a.system_get_driver_version = f_driver;
  a.device_get_count = f_count; a.device_get_handle_by_index = f_by_index; a.device_get_handle_by_uuid = f_by_uuid;
  a.device_get_handle_by_pci_bus_id = f_by_bus; a.device_get_index = f_index; a.device_get_name = f_name;
  a.device_get_uuid = f_uuid; a.device_get_pci_info = f_pci; a.device_get_performance_state = f_pstate;
  a.device_get_clock_info = f_clock; a.device_get_max_clock_info = f_max_clock;
  a.device_get_applications_clock = f_app_clock; a.device_get_default_applications_clock = f_default_app_clock;
  a.device_get_temperature = f_temp; a.device_get_power_usage = f_power; a.device_get_enforced_power_limit = f_limit;
  a.device_get_memory_info = f_mem; a.device_get_ecc_mode = f_ecc; a.device_get_persistence_mode = f_persist;
  a.device_get_compute_mode = f_compute; a.device_get_mig_mode = f_mig;
  a.device_get_curr_pcie_link_generation = f_gen; a.device_get_curr_pcie_link_width = f_width;
  a.device_get_max_pcie_link_generation = f_gen; a.device_get_max_pcie_link_width = f_width;
  a.device_get_clocks_event_reasons = f_reasons; a.device_get_compute_running_processes = f_procs;
  return a;
}

// ---- a fake NVML GPM: device 0 supports it, device 1 does not ---------------------------------
// Opaque sample handles, as handle(): only compared; `gpm_taken` counts nvmlGpmSampleGet per buffer.
char gpm_storage[2];
int gpm_taken[2] = {0, 0};
gauge::detail::nvml::GpmSample gpm_buffer(int i) { return reinterpret_cast<gauge::detail::nvml::GpmSample>(&gpm_storage[i]); }
int gpm_index(gauge::detail::nvml::GpmSample s) { return s == gpm_buffer(0) ? 0 : 1; }
int gpm_allocs = 0, gpm_frees = 0;
unsigned gpm_seen_version = 0, gpm_seen_count = 0, gpm_seen_ids[3] = {0, 0, 0};
bool gpm_samples_distinct = false;
int f_gpm_support(gauge::detail::nvml::Device d, gauge::detail::nvml::GpmSupport* s) {
  if (s->version != 1) return 25;  // NVML_ERROR_ARGUMENT_VERSION_MISMATCH
  s->is_supported_device = idx(d) == 1 ? 1 : 0;  // NVML index 1 is CUDA's device 0 (uuid A)
  return 0;
}
int f_gpm_alloc(gauge::detail::nvml::GpmSample* s) {
  if (gpm_allocs >= 2) return 2;
  *s = gpm_buffer(gpm_allocs++);
  return 0;
}
int f_gpm_free(gauge::detail::nvml::GpmSample) { ++gpm_frees; return 0; }
int f_gpm_get(gauge::detail::nvml::Device, gauge::detail::nvml::GpmSample s) { ++gpm_taken[gpm_index(s)]; return 0; }
int f_gpm_metrics(gauge::detail::nvml::GpmMetricsGet* m) {
  gpm_seen_version = m->version;
  gpm_seen_count = m->num_metrics;
  gpm_samples_distinct = m->sample1 && m->sample2 && m->sample1 != m->sample2 && gpm_taken[0] == 1 && gpm_taken[1] == 1;
  if (m->version != 1) return 25;
  for (unsigned i = 0; i < m->num_metrics && i < 3; ++i) {
    gpm_seen_ids[i] = m->metrics[i].metric_id;
    const unsigned id = m->metrics[i].metric_id;
    m->metrics[i].nvml_return = id == 3 ? gauge::detail::nvml::error_not_supported : 0; // occupancy refused
    m->metrics[i].value = id == 10 ? 37.5 : id == 2 ? 98.25 : 0.0;
  }
  return 0;
}

/// Two CUDA devices in CUDA's order: A (ordinal 0), B (ordinal 1).
gauge::Environment two_cuda_devices() {
  gauge::Environment env;
  for (int i = 0; i < 2; ++i) {
    gauge::env::CudaDeviceInfo d;
    d.ordinal = i;
    d.name = "NVIDIA H200";
    d.uuid = i == 0 ? "GPU-aaaaaaaa-0000-0000-0000-000000000001" : "GPU-bbbbbbbb-0000-0000-0000-000000000002";
    d.pci_bus_id = i == 0 ? "0000:19:00.0" : "0000:41:00.0";
    env.cuda.devices.push_back(d);
  }
  return env;
}

fs::path temp_dir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("gauge-env-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

void write_script(const fs::path& p, const std::string& body) {
  std::ofstream(p) << "#!/bin/sh\n" << body << "\n";
  fs::permissions(p, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
}

/// Options that read only the fake root `name` under tests/data/fake_roots: no NVML, no tools, no
/// CUDA runtime.
gauge::env::EnvironmentOptions offline_options(const std::string& name) {
  gauge::env::EnvironmentOptions o;
  o.root = fs::path(GAUGE_TEST_DATA_DIR) / "fake_roots" / name;
  o.nvml = gauge::detail::nvml::Library::load("libgauge-no-such-nvml.so.1");
  o.run_tools = false;
  o.query_cuda = false;
  return o;
}

}  // namespace

TEST_CASE("NVML absent: recorded with the reason, nothing else fails", "[env][nvml]") {
  auto lib = gauge::detail::nvml::Library::load("libgauge-no-such-nvml.so.1");
  CHECK_FALSE(lib->ok());
  REQUIRE(lib->error());
  CHECK(lib->error()->find("libgauge-no-such-nvml.so.1") != std::string::npos);
  auto env = two_cuda_devices();
  gauge::detail::nvml::describe_gpus(*lib, env);
  CHECK_FALSE(env.nvml.available);
  CHECK(env.nvml.error == lib->error());
  CHECK_FALSE(env.cuda.devices[0].nvml);
  nlohmann::json j = env;
  CHECK(j["nvml"]["available"] == false);
  CHECK(j["cuda"]["devices"][0]["nvml"].is_null());
}

TEST_CASE("NVML init failing is recorded with NVML's error string", "[env][nvml]") {
  init_result = 9;
  auto lib = gauge::detail::nvml::Library::from_api(fake_api());
  init_result = 0;
  CHECK_FALSE(lib->ok());
  CHECK(*lib->error() == "nvmlInit_v2 failed: Driver Not Loaded");
}

TEST_CASE("GPUs are matched by UUID even when NVML's order differs from CUDA's", "[env][nvml]") {
  auto lib = gauge::detail::nvml::Library::from_api(fake_api());
  REQUIRE(lib->ok());
  auto env = two_cuda_devices();
  gauge::detail::nvml::describe_gpus(*lib, env);
  CHECK(env.nvml.available);
  CHECK(*env.nvml.driver_version == "580.159.04");
  CHECK(*env.nvml.device_count == 2);
  const auto& a = *env.cuda.devices[0].nvml;
  const auto& b = *env.cuda.devices[1].nvml;
  CHECK(a.matched_by == "uuid");
  CHECK(*a.uuid == "GPU-aaaaaaaa-0000-0000-0000-000000000001");
  CHECK(a.index == 1);  // CUDA ordinal 0 is NVML index 1
  CHECK(b.index == 0);
  CHECK(*b.sm_clock_mhz == 1755);
  CHECK(*a.sm_clock_mhz == 1980);
  CHECK(*b.power_draw_w == Approx(650.0));
  CHECK(*b.power_limit_w == Approx(700.0));
  CHECK(*b.clock_event_reasons == 0x4);
  CHECK(b.clock_event_reason_names == std::vector<std::string>{"sw_power_cap"});
  CHECK(*b.compute_mode == "exclusive_process");
  CHECK(*b.pcie_generation == 5);
  CHECK(*b.memory_total_bytes == (150ull << 30));
  REQUIRE(b.processes.size() == 2);  // needed a second call with a larger buffer
  CHECK(b.processes[0].first == 4242);
  CHECK(b.processes[0].second == (3ull << 30));
  CHECK(a.processes.empty());
}

TEST_CASE("GPUs are matched by PCI bus id when the UUID lookup fails", "[env][nvml]") {
  auto api = fake_api();
  api.device_get_handle_by_uuid = f_by_uuid_broken;
  api.device_get_uuid = nullptr;  // and the scan cannot compare UUIDs either
  auto lib = gauge::detail::nvml::Library::from_api(api);
  auto env = two_cuda_devices();
  gauge::detail::nvml::describe_gpus(*lib, env);
  REQUIRE(env.cuda.devices[0].nvml);
  CHECK(env.cuda.devices[0].nvml->matched_by == "pci_bus_id");
  CHECK(env.cuda.devices[0].nvml->index == 1);
  CHECK(*env.cuda.devices[1].nvml->pci_bus_id == "00000000:41:00.0");
}

TEST_CASE("fields NVML does not support are null and listed with the reason", "[env][nvml]") {
  temperature_supported = false;
  auto lib = gauge::detail::nvml::Library::from_api(fake_api());
  auto env = two_cuda_devices();
  gauge::detail::nvml::describe_gpus(*lib, env);
  temperature_supported = true;
  const auto& g = *env.cuda.devices[0].nvml;
  CHECK_FALSE(g.temperature_c);
  CHECK_FALSE(g.mig_enabled);
  std::vector<std::pair<std::string, std::string>> expected = {{"temperature_c", "Not Supported"}, {"mig_enabled", "Not Supported"}};
  CHECK(g.unavailable == expected);
  nlohmann::json j = g;
  CHECK(j["temperature_c"].is_null());
  CHECK(j["unavailable"]["mig_enabled"] == "Not Supported");
}

TEST_CASE("clock locking is inferred from application clocks and reasons", "[env][nvml]") {
  fake_gpus[1].app_sm = 1500;  // CUDA device 0: application clock moved from its 1980 MHz default
  auto lib = gauge::detail::nvml::Library::from_api(fake_api());
  auto env = two_cuda_devices();
  gauge::detail::nvml::describe_gpus(*lib, env);
  fake_gpus[1].app_sm = 1980;
  CHECK(*env.cuda.devices[0].nvml->clocks_locked);
  CHECK(*env.cuda.devices[1].nvml->clocks_locked == false);
  gauge::detail::add_environment_warnings(env);
  bool info = false;
  for (const auto& w : env.warnings)
    if (w.code == "clocks_not_locked") info = w.severity == gauge::Severity::info && w.message.find("GPU 1") != std::string::npos;
  CHECK(info);
}

TEST_CASE("GPM: the NVML structs as the reference gives them, two samples, three metrics, reasons where absent", "[env][nvml][gpm]") {
  // Layout of nvmlGpmMetric_t and nvmlGpmMetricsGet_t (NVML API Reference, GPM Structs) on LP64:
  // metricId 4 + nvmlReturn 4 + value 8 + three pointers 24 = 40; version and numMetrics at 0 and
  // 4, the sample handles at 8 and 16, metrics[] from 24.
  CHECK(sizeof(gauge::detail::nvml::GpmMetric) == 40);
  CHECK(offsetof(gauge::detail::nvml::GpmMetric, value) == 8);
  CHECK(offsetof(gauge::detail::nvml::GpmMetricsGet, num_metrics) == 4);
  CHECK(offsetof(gauge::detail::nvml::GpmMetricsGet, sample1) == 8);
  CHECK(offsetof(gauge::detail::nvml::GpmMetricsGet, sample2) == 16);
  CHECK(offsetof(gauge::detail::nvml::GpmMetricsGet, metrics) == 24);

  auto api = fake_api();
  api.gpm_query_device_support = f_gpm_support;
  api.gpm_sample_alloc = f_gpm_alloc;
  api.gpm_sample_free = f_gpm_free;
  api.gpm_sample_get = f_gpm_get;
  api.gpm_metrics_get = f_gpm_metrics;
  auto lib = gauge::detail::nvml::Library::from_api(api);
  {
    gauge::env::NvmlProbe probe(lib, handle(1)); // supports GPM
    REQUIRE(probe.gpm_begin() == "");
    std::string reason;
    const auto g = probe.gpm_end(reason);
    REQUIRE(g);
    CHECK(gpm_seen_version == 1);  // NVML_GPM_METRICS_GET_VERSION
    CHECK(gpm_seen_count == 3);
    CHECK(gpm_seen_ids[0] == 10);  // NVML_GPM_METRIC_DRAM_BW_UTIL
    CHECK(gpm_seen_ids[1] == 2);   // NVML_GPM_METRIC_SM_UTIL
    CHECK(gpm_seen_ids[2] == 3);   // NVML_GPM_METRIC_SM_OCCUPANCY
    CHECK(gpm_samples_distinct);
    CHECK(g->dram_bw_util_pct == std::optional<double>(37.5));
    CHECK(g->sm_util_pct == std::optional<double>(98.25));
    CHECK_FALSE(g->sm_occupancy_pct);  // refused: named with NVML's error, never 0
    REQUIRE(g->unavailable.size() == 1);
    CHECK(g->unavailable[0] == std::make_pair(std::string("sm_occupancy"), std::string("Not Supported")));
    // A second end() without a begin() has no first sample.
    CHECK_FALSE(probe.gpm_end(reason));
    CHECK(reason == "no first GPM sample");
  }
  CHECK(gpm_frees == 2);  // both buffers freed with the probe
  gauge::env::NvmlProbe older(lib, handle(0));
  CHECK(older.gpm_begin() == "the device does not support GPM (NVML GPM needs Hopper or newer)");
  gauge::env::NvmlProbe no_gpm(gauge::detail::nvml::Library::from_api(fake_api()), handle(1));
  CHECK(no_gpm.gpm_begin() == "this libnvidia-ml has no GPM functions (nvmlGpmMetricsGet: driver R520 or later)");
}

TEST_CASE("the seed's tools: found, missing, failing and hanging", "[env][tools]") {
  auto dir = temp_dir("tools");
  write_script(dir / "nvidia-smi", "echo 'name, driver_version'; echo 'NVIDIA H200, 580.159.04'");
  write_script(dir / "ncu", "echo 'ncu: broken install' >&2; exit 3");
  write_script(dir / "nsys", "sleep 30");
  const auto t0 = std::chrono::steady_clock::now();
  auto tools = gauge::detail::capture_tools(300ms, dir.string());
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE(tools.size() == 3);
  const auto& smi = tools[0].second;
  CHECK(tools[0].first == "nvidia_smi");
  CHECK(*smi.exit_code == 0);
  CHECK(*smi.output == "name, driver_version\nNVIDIA H200, 580.159.04");
  CHECK_FALSE(smi.error);
  CHECK(smi.command.find("--query-gpu=name,driver_version,pstate,clocks.sm,clocks.mem,temperature.gpu,power.draw,memory.total") !=
        std::string::npos);
  const auto& ncu = tools[1].second;
  CHECK(*ncu.exit_code == 3);
  CHECK(*ncu.error == "exited with status 3");
  const auto& nsys = tools[2].second;
  CHECK_FALSE(nsys.exit_code);
  REQUIRE(nsys.error);
  CHECK(nsys.error->find("timed out") != std::string::npos);
  CHECK(nsys.seconds < 1.0);
  CHECK(took < 1.5);  // the hung tool did not stall the capture
  auto missing = gauge::detail::run_tool({"nvidia-smi"}, 300ms, (dir / "empty").string());
  CHECK(*missing.error == "nvidia-smi not found in PATH");
  CHECK_FALSE(missing.output);
  fs::remove_all(dir);
}

TEST_CASE("the environment from a fake root: container, governor, NUMA, GPU locality", "[env]") {
  auto o = offline_options("docker_two_numa");
  auto env = gauge::capture_environment(o);
  CHECK(*env.host.virtualization.container == "docker");
  CHECK(env.host.numa_nodes.size() == 2);
  bool governor = false;
  for (const auto& w : env.warnings)
    if (w.code == "cpu_governor_not_performance") governor = w.message.find("powersave") != std::string::npos;
  CHECK(governor);
  CHECK_FALSE(env.nvml.available);
  CHECK(env.tools.empty());

  // GPU locality from sysfs: /sys/bus/pci/devices/<bus id>/numa_node and local_cpulist.
  auto root = temp_dir("pci");
  fs::create_directories(root / "sys/bus/pci/devices/0000:41:00.0");
  std::ofstream(root / "sys/bus/pci/devices/0000:41:00.0/numa_node") << "1\n";
  std::ofstream(root / "sys/bus/pci/devices/0000:41:00.0/local_cpulist") << "4-7\n";
  auto env2 = two_cuda_devices();
  gauge::detail::attach_pci_locality(env2, root);
  CHECK_FALSE(env2.cuda.devices[0].numa_node);
  CHECK(*env2.cuda.devices[1].numa_node == 1);
  CHECK(*env2.cuda.devices[1].local_cpulist == "4-7");
  fs::remove_all(root);
}

TEST_CASE("WSL is recorded from a fake root", "[env]") {
  auto o = offline_options("wsl");
  auto env = gauge::capture_environment(o);
  CHECK(env.host.virtualization.wsl);
}

TEST_CASE("no_gpu speaks where the CUDA runtime found no device, not in a host-only build", "[env]") {
  auto codes = [](const gauge::Environment& e) {
    std::vector<std::string> c;
    for (const auto& w : e.warnings) c.push_back(w.code);
    return c;
  };
  auto has = [&](const gauge::Environment& e) {
    const auto c = codes(e);
    return std::find(c.begin(), c.end(), "no_gpu") != c.end();
  };
  gauge::Environment runtime_no_device;  // a CUDA program on a machine without a usable GPU
  runtime_no_device.cuda.runtime_version = 13000;
  runtime_no_device.cuda.error = "no CUDA-capable device is detected";
  gauge::detail::add_environment_warnings(runtime_no_device);
  CHECK(has(runtime_no_device));
  gauge::Environment host_only;  // built without the runtime: no versions known
  host_only.cuda.error = "built without the CUDA runtime (GAUGE_NO_CUDA, or no cuda_runtime.h)";
  gauge::detail::add_environment_warnings(host_only);
  CHECK_FALSE(has(host_only));
}

TEST_CASE("GAUGE_SILENCE drops environment warnings by code", "[env]") {
  ::setenv("GAUGE_SILENCE", "cpu_governor_not_performance, no_gpu", 1);
  auto o = offline_options("docker_two_numa");
  auto env = gauge::capture_environment(o);
  ::unsetenv("GAUGE_SILENCE");
  CHECK(env.warnings.empty());
}

}  // namespace gauge_test_env_nvml
