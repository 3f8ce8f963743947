#pragma once
/// \file gauge/env/host/system.hpp
/// Host detection of the system: the OS (os-release, kernel release, host name, architecture)
/// and what it runs in: a container, WSL or a virtual machine, with the evidence of each
/// (`detail::host::detect_os`, `detect_virtualization`, CPUID's hypervisor leaf). Part of
/// gauge/env/host.hpp.

#include <sys/utsname.h>

#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gauge/core/host_info.hpp>
#include <gauge/env/host/files.hpp>

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__)) && \
    __has_include(<cpuid.h>)
#include <cpuid.h>
#define GAUGE_DETAIL_HAVE_CPUID 1
#else
#define GAUGE_DETAIL_HAVE_CPUID 0
#endif

namespace gauge {
namespace detail::host {

inline void detect_os(const Reader& r, env::HostInfo& info) {
  env::OsInfo& os = info.os;
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

inline void detect_virtualization(const Reader& r, env::HostInfo& info) {
  env::VirtualizationInfo& v = info.virtualization;

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

}  // namespace gauge
