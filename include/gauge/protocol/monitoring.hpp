#pragma once
/// \file gauge/protocol/monitoring.hpp
/// Monitoring during a run, behind the backend seam: GPU telemetry (a sampler thread over the
/// backend's probe), device and host memory (peaks, growth, whether the workload fits), the
/// binaries of the named kernels (JIT check), and the warnings they imply. Part of the protocol
/// (gauge/protocol/protocol.hpp); compiled once per program.

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/result.hpp"
#include "gauge/core/warning_sink.hpp"
#include "gauge/core/warnings.hpp"
#include "gauge/detail/text.hpp"
#include "gauge/env/nvml.hpp"
#include "gauge/env/telemetry.hpp"
#include "gauge/protocol/seam.hpp"

namespace gauge::detail {

/// Telemetry, memory and kernel checks for one run.
class Monitor {
 public:
  Monitor(const ExperimentSpec& spec, ProtocolBackend& backend) : spec_(spec), b_(backend) {}

  /// A reading at a round boundary when there is no background thread (interval 0).
  void round_boundary() {
    if (sampler_ && spec_.config.telemetry_interval.count() == 0) sampler_->sample_now();
  }

  /// What the memory readings have shown so far.
  struct MemoryTracking {
    std::optional<records::DeviceMemorySnapshot> last;
    std::optional<std::uint64_t> used_peak;
    std::optional<std::uint64_t> used_at_start, used_at_end;
    std::optional<std::uint64_t> rss_at_start, rss_at_end;
    std::map<std::string, std::uint64_t> allocator_peaks;
    std::vector<std::pair<unsigned, std::uint64_t>> processes_at_start;
  };

 public:

  /// Reads device memory and the allocator probes (at every round boundary).
  void observe_memory() {
    if (b_.has_memory()) {
      records::DeviceMemorySnapshot m = b_.memory_snapshot();
      memory_.used_peak = std::max(memory_.used_peak.value_or(0), m.used_bytes);
      memory_.last = m;
    }
    for (const auto& [probe_name, bytes] : spec_.allocator_probes) {
      const std::uint64_t b = bytes();
      auto& peak = memory_.allocator_peaks[probe_name];
      peak = std::max(peak, b);
    }
  }

  /// Starts telemetry (NVML through the backend), resets the pool watermarks, reads the kernels' binaries.
  void start(Result& r, WarningSink& sink, double t_begin) {
    t_begin_ = t_begin;
    r.telemetry.interval_s = to_seconds(spec_.config.telemetry_interval);
    if (b_.has_telemetry()) {
      std::string reason;
      auto probe = b_.telemetry_probe(reason);
      if (probe) {
        r.telemetry.available = true;
        r.telemetry.sm_clock_max_mhz = probe->sm_clock_max_mhz();
        memory_.processes_at_start = probe->processes();
        sampler_ = std::make_unique<env::TelemetrySampler>(std::move(probe), spec_.config.telemetry_interval,
                                                      [this] { return b_.now(); }, t_begin_);
        sampler_->sample_now();
        sampler_->start();
      } else {
        r.telemetry.unavailable_reason = reason;
        sink.add(warning_code::telemetry_unavailable, Severity::info,
                 "no GPU telemetry (" + reason + "): clocks, power, throttling and per-process memory "
                 "during the run are unknown.");
      }
    } else {
      r.telemetry.unavailable_reason = std::string("the ") + b_.name() + " backend has no telemetry";
    }
    if (b_.has_memory()) {
      b_.reset_memory_watermarks();
    }
    host_peak_reset_ = b_.reset_host_memory_peak();
    observe_memory();
    if (b_.has_kernels()) {
      auto all = spec_.kernels;
      for (const auto& k : b_.own_kernels()) all.push_back(k);
      for (const auto& [kernel_name, fn] : all) {
        try {
          r.kernels.push_back(b_.kernel_binary(fn, kernel_name));
        } catch (const std::exception& e) {
          sink.add(warning_code::jit_compiled, Severity::info,
                   "cannot read the binary of kernel '" + kernel_name + "': " + e.what());
        }
      }
    } else if (!spec_.kernels.empty()) {
      sink.add(warning_code::jit_compiled, Severity::info,
               std::string("the ") + b_.name() + " backend cannot inspect kernel binaries; the JIT check was skipped");
    }
  }

  /// GPM over the measured rounds (gauge/core/gpm.hpp): the two samples, when and after how many
  /// steps each was taken, or why there are none.
  struct GpmWindow {
    bool begun = false;
    std::string reason = "GPM was not sampled";  ///< why there is no reading
    double start_s = 0, end_s = 0;               ///< host clock at the two samples, seconds
    std::uint64_t start_steps = 0, end_steps = 0;  ///< the protocol's step count at each
    std::optional<detail::GpmReading> reading;
  };

  /// Measurement begins (`steps`: steps run so far): memory, and GPM's first sample.
  void mark_measure_start(Result& r, std::uint64_t steps) {
    r.telemetry.measure_start_s = b_.now() - t_begin_;
    observe_memory();
    if (memory_.last) memory_.used_at_start = memory_.last->used_bytes;
    memory_.rss_at_start = b_.host_memory().rss_bytes;
    if (sampler_) {  // calibration's last round was synchronized: its steps are not in the interval
      gpm_.reason = sampler_->probe().gpm_begin();
      gpm_.begun = gpm_.reason.empty();
      gpm_.start_s = b_.now();
      gpm_.start_steps = steps;
    } else {
      gpm_.reason = r.telemetry.unavailable_reason.value_or("no telemetry source");
    }
  }
  /// Measurement ended (`steps`: steps run so far): memory, and GPM's second sample.
  void mark_measure_end(Result& r, std::uint64_t steps) {
    r.telemetry.measure_end_s = b_.now() - t_begin_;
    b_.synchronize();
    observe_memory();
    if (memory_.last) memory_.used_at_end = memory_.last->used_bytes;
    memory_.rss_at_end = b_.host_memory().rss_bytes;
    if (gpm_.begun) {
      gpm_.begun = false;
      gpm_.end_s = b_.now();
      gpm_.end_steps = steps;
      gpm_.reading = sampler_->probe().gpm_end(gpm_.reason);
    }
  }
  /// What GPM gave over the measured rounds (after mark_measure_end).
  const GpmWindow& gpm_window() const { return gpm_; }

  /// Stops the sampler and keeps its series.
  void stop(Result& r) noexcept {
    if (!sampler_) return;
    try {
      sampler_->stop();
      r.telemetry.series = sampler_->samples();
    } catch (...) {
    }
  }

  /// Telemetry statistics over the measured region, throttled samples, memory peaks, and the
  /// warnings they imply.
  void summarize(Result& r, WarningSink& sink) {
    auto& t = r.telemetry;
    // ---- telemetry ----
    if (t.available && t.measure_end_s > t.measure_start_s) {
      const double pad = t.interval_s;
      auto stat = [&](auto get) {
        records::TelemetryStat st;
        double sum = 0;
        std::size_t n = 0;
        for (const auto& x : t.series) {
          if (x.t_s < t.measure_start_s - pad || x.t_s > t.measure_end_s + pad) continue;
          auto v = get(x);
          if (!v) continue;
          st.min = std::min(st.min.value_or(*v), *v);
          st.max = std::max(st.max.value_or(*v), *v);
          sum += *v;
          ++n;
        }
        if (n) st.mean = sum / static_cast<double>(n);
        return st;
      };
      t.sm_clock_mhz = stat([](const records::TelemetrySample& x) { return x.sm_clock_mhz; });
      t.memory_clock_mhz = stat([](const records::TelemetrySample& x) { return x.memory_clock_mhz; });
      t.power_w = stat([](const records::TelemetrySample& x) { return x.power_w; });
      t.temperature_c = stat([](const records::TelemetrySample& x) { return x.temperature_c; });
      std::size_t throttled_readings = 0, readings = 0;
      for (const auto& x : t.series) {
        if (x.t_s < t.measure_start_s || x.t_s > t.measure_end_s + pad) continue;
        ++readings;
        if (x.clock_event_reasons && (*x.clock_event_reasons & nvml::throttling_reasons)) {
          ++throttled_readings;
          t.throttle_reasons_seen |= (*x.clock_event_reasons & nvml::throttling_reasons);
        }
      }
      t.throttle_reason_names = nvml::reason_names(t.throttle_reasons_seen);
      // GPU-time samples from rounds that overlap a throttled reading.
      std::size_t first = 0;
      const auto& sm = r.sampling;
      for (std::size_t i = 0; i < sm.round_samples.size(); ++i) {
        bool throttled = false;
        for (const auto& x : t.series) {
          if (x.t_s < sm.round_start_s[i] - pad || x.t_s > sm.round_end_s[i]) continue;
          if (x.clock_event_reasons && (*x.clock_event_reasons & nvml::throttling_reasons)) throttled = true;
        }
        if (throttled)
          for (std::size_t j = 0; j < sm.round_samples[i]; ++j)
            if (first + j < r.gpu_samples_s.size()) t.throttled_samples.push_back(first + j);
        first += sm.round_samples[i];
      }
      if (throttled_readings > 0) {
        std::string names;
        for (const auto& n : t.throttle_reason_names) names += (names.empty() ? "" : ", ") + n;
        sink.add(warning_code::throttling, Severity::warning,
                 fmt::format("the GPU was throttled ({}) in {} of {} telemetry readings during "
                                 "measurement; {} of {} GPU-time samples come from rounds with a throttled "
                                 "reading (telemetry.throttled_samples lists them). The numbers describe a "
                                 "throttled GPU.",
                                 names, throttled_readings, readings, t.throttled_samples.size(),
                                 r.gpu_samples_s.size()));
      }
      if (t.sm_clock_mhz.mean && t.sm_clock_max_mhz && *t.sm_clock_max_mhz > 0 &&
          *t.sm_clock_mhz.mean < spec_.config.sm_clock_warning_fraction * *t.sm_clock_max_mhz) {
        sink.add(warning_code::sm_clock_below_max, Severity::warning,
                 fmt::format("the SM clock averaged {:.0f} MHz during measurement (min {:.0f}, max {:.0f}), {:.0f} % "
                                 "of its {:.0f} MHz maximum: a compute-bound step runs correspondingly slower.",
                                 *t.sm_clock_mhz.mean, t.sm_clock_mhz.min.value_or(0), t.sm_clock_mhz.max.value_or(0),
                                 100 * *t.sm_clock_mhz.mean / *t.sm_clock_max_mhz, *t.sm_clock_max_mhz));
      }
    }
    // ---- other processes ----
    {
      const unsigned self = b_.process_id();
      std::uint64_t others_bytes = 0;
      std::string pids;
      std::size_t others = 0;
      for (const auto& [pid, bytes] : memory_.processes_at_start) {
        if (pid == self) continue;
        ++others;
        others_bytes += bytes;
        pids += (pids.empty() ? "" : ", ") + std::to_string(pid);
      }
      if (t.available) r.memory.other_processes_bytes = others_bytes;
      if (others > 0) {
        sink.add(warning_code::other_processes_on_gpu, Severity::warning,
                 fmt::format("{} other process(es) had a compute context on this GPU (pid {}, {:.3g} GiB): "
                                 "they may have competed for it during the run.",
                                 others, pids, static_cast<double>(others_bytes) / (1u << 30)));
      }
    }
    // ---- JIT ----
    for (const auto& k : r.kernels) {
      if (!k.jit_compiled) continue;
      sink.add(warning_code::jit_compiled, Severity::warning,
               fmt::format("kernel '{}' was compiled by the driver from PTX (compute_{}) for this sm_{} device: "
                               "no native sm_{} code in the binary, so the first launch paid for JIT compilation and "
                               "the code is not what nvcc would emit for this GPU. Build with "
                               "-gencode arch=compute_{},code=sm_{} (CMake: CUDA_ARCHITECTURES {}).",
                               k.name, k.ptx_version, k.device_version, k.device_version, k.device_version,
                               k.device_version, k.device_version));
    }
    // ---- memory ----
    auto& mem = r.memory;
    const double gib = 1024.0 * 1024 * 1024;
    if (memory_.last) {
      mem.device_total_bytes = memory_.last->total_bytes;
      mem.pool_used_high_bytes = memory_.last->pool_used_high_bytes;
      mem.pool_reserved_high_bytes = memory_.last->pool_reserved_high_bytes;
    }
    mem.device_used_peak_bytes = memory_.used_peak;
    mem.device_used_at_measure_start_bytes = memory_.used_at_start;
    mem.device_used_at_measure_end_bytes = memory_.used_at_end;
    for (const auto& x : t.series)
      if (x.process_memory_bytes) mem.process_peak_bytes = std::max(mem.process_peak_bytes.value_or(0), *x.process_memory_bytes);
    mem.allocator_peak_bytes = memory_.allocator_peaks;
    const records::ProcessMemory pm = b_.host_memory();
    // VmHWM is the process's peak since the reset at this experiment's start; where that reset
    // failed it could be an earlier experiment's, and is left out.
    if (host_peak_reset_) mem.host_rss_peak_bytes = pm.rss_peak_bytes;
    mem.host_rss_at_measure_start_bytes = memory_.rss_at_start;
    mem.host_rss_at_measure_end_bytes = memory_.rss_at_end;
    mem.host_memory_total_bytes = b_.host_memory_total();
    auto consider = [&](std::optional<std::uint64_t> v, const std::string& source) {
      if (v && (!mem.peak_bytes || *v > *mem.peak_bytes)) {
        mem.peak_bytes = v;
        mem.peak_source = source;
      }
    };
    consider(mem.process_peak_bytes, "NVML per-process usage");
    if (mem.device_used_peak_bytes) {
      const std::uint64_t others = mem.other_processes_bytes.value_or(0);
      consider(*mem.device_used_peak_bytes > others ? *mem.device_used_peak_bytes - others : 0,
               mem.other_processes_bytes ? "cudaMemGetInfo, device-wide, minus other processes (NVML)"
                                         : "cudaMemGetInfo, device-wide (other processes included)");
    }
    for (const auto& [probe_name, bytes] : mem.allocator_peak_bytes) consider(bytes, "allocator probe '" + probe_name + "'");
    if (memory_.used_at_start && memory_.used_at_end)
      mem.device_growth_bytes = static_cast<std::int64_t>(*memory_.used_at_end) - static_cast<std::int64_t>(*memory_.used_at_start);
    if (memory_.rss_at_start && memory_.rss_at_end)
      mem.host_rss_growth_bytes = static_cast<std::int64_t>(*memory_.rss_at_end) - static_cast<std::int64_t>(*memory_.rss_at_start);
    const auto tol = static_cast<std::int64_t>(spec_.config.memory_growth_tolerance_bytes);
    const bool device_grew = mem.device_growth_bytes && *mem.device_growth_bytes > tol;
    const bool host_grew = mem.host_rss_growth_bytes && *mem.host_rss_growth_bytes > tol;
    mem.grew_during_measurement = device_grew || host_grew;
    if (r.status == Status::ok && mem.grew_during_measurement) {
      sink.add(warning_code::memory_grew_during_measurement, Severity::warning,
               fmt::format("memory grew during measurement: device {:+.1f} MiB, host RSS {:+.1f} MiB (tolerance {:.1f} "
                               "MiB): a leak, or an allocator still growing after warm-up; steady state was not reached.",
                               static_cast<double>(mem.device_growth_bytes.value_or(0)) / (1 << 20),
                               static_cast<double>(mem.host_rss_growth_bytes.value_or(0)) / (1 << 20),
                               static_cast<double>(tol) / (1 << 20)));
    }
    // Fits: within device memory with headroom, not growing, host RSS within host memory.
    std::string why;
    bool fits = true, known = false;
    if (mem.peak_bytes && mem.device_total_bytes) {
      known = true;
      const double frac = static_cast<double>(*mem.peak_bytes) / static_cast<double>(*mem.device_total_bytes);
      why += fmt::format("peak {:.3g} GiB of {:.3g} GiB device memory ({:.1f} %)", static_cast<double>(*mem.peak_bytes) / gib,
                             static_cast<double>(*mem.device_total_bytes) / gib, 100 * frac);
      if (frac > 0.95) {
        fits = false;
        why += ", within 5 % of capacity: allocations may spill or evict (managed-memory oversubscription is not "
               "measured directly)";
      }
    }
    if (mem.host_rss_peak_bytes && mem.host_memory_total_bytes) {
      known = true;
      const double frac = static_cast<double>(*mem.host_rss_peak_bytes) / static_cast<double>(*mem.host_memory_total_bytes);
      why += std::string(why.empty() ? "" : "; ") +
             fmt::format("host RSS peak {:.3g} GiB of {:.3g} GiB ({:.1f} %)", static_cast<double>(*mem.host_rss_peak_bytes) / gib,
                             static_cast<double>(*mem.host_memory_total_bytes) / gib, 100 * frac);
      if (frac > 0.9) {
        fits = false;
        why += ", near host capacity: swapping likely";
      }
    }
    if (mem.grew_during_measurement) {
      fits = false;
      why += "; memory grew during measurement";
    }
    if (known) {
      mem.fits = fits;
      mem.fits_reason = why;
      if (!fits && r.status == Status::ok)
        sink.add(warning_code::may_not_fit, Severity::warning, "the workload may not fit: " + why + ".");
    } else {
      mem.fits_reason = "no memory readings";
    }
  }

 private:
  const ExperimentSpec& spec_;
  ProtocolBackend& b_;
  double t_begin_ = 0;
  std::unique_ptr<env::TelemetrySampler> sampler_;
  MemoryTracking memory_;
  GpmWindow gpm_;
  bool host_peak_reset_ = false;  // VmHWM reset at this experiment's start (reset_host_memory_peak)
};

}  // namespace gauge::detail
