#pragma once
/// \file gauge/core/result.hpp
/// The result of one experiment: what was measured, how, and what might be wrong with it.
/// Serialized into the report by gauge/report/json.hpp. All times are seconds.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gauge/core/clock.hpp"
#include "gauge/core/config.hpp"
#include "gauge/core/cpu_counters_record.hpp"
#include "gauge/core/dimensions.hpp"
#include "gauge/core/kernel_trace.hpp"
#include "gauge/core/peak_fractions.hpp"
#include "gauge/core/summary.hpp"
#include "gauge/core/telemetry.hpp"
#include "gauge/core/warnings.hpp"
#include "gauge/core/work.hpp"

namespace gauge {

/// Whether an experiment produced a result.
enum class Status {
  ok,      ///< measured to the end
  failed,  ///< the step (or verification, or the backend) failed; `error` says why, and what was
           ///< measured before the failure is kept
};

/// Text name of a Status ("ok", "failed").
inline const char* to_string(Status s) { return s == Status::ok ? "ok" : "failed"; }

namespace records {
/// The device an experiment ran on.
struct DeviceRecord {
  int ordinal = -1;                 ///< CUDA device ordinal in this process (-1 for the host)
  std::string name;                 ///< e.g. "NVIDIA H200", or the CPU model for the host backend
  std::optional<std::string> uuid;  ///< CUDA device UUID ("GPU-…"), when known
  std::optional<std::string> pci_bus_id;  ///< e.g. "0000:19:00.0", when known
  /// The device's theoretical memory bandwidth, bytes/s: 2 (double data rate) × its peak memory
  /// clock × its bus width / 8, from cudaDevAttrMemoryClockRate and cudaDevAttrGlobalMemoryBusWidth
  /// (schema 1.5; null on the host backend). The comparison's automatic clock rule reads it
  /// (gauge/report/compare.hpp, ClockNormalization), so a Result alone can be compared.
  std::optional<double> memory_bandwidth_bytes_per_s;
};

/// One warm-up round: `steps` steps timed together, started `start_s` after warm-up began.
struct WarmupRound {
  double start_s = 0;          ///< seconds since warm-up began (host clock), at the round's start
  std::size_t steps = 0;       ///< steps in the round
  double time_per_step_s = 0;  ///< GPU time of the round / steps, seconds
};

/// What warm-up did and whether it reached steady state.
struct WarmupRecord {
  /// Time of the very first step, seconds: from an event recorded before the first call to one
  /// after it, ungated, so host-side first-call costs (module loading, JIT) are included.
  std::optional<double> first_step_time_s;
  std::size_t steps = 0;                    ///< steps run during warm-up
  double time_s = 0;                        ///< host time spent in warm-up, seconds
  bool converged = false;                   ///< the steady-state rule was met (not a cap)
  double relative_drift = 0;                ///< the rule's last drift figure
  std::string reason;                       ///< the rule's verdict in words, with numbers
  std::vector<WarmupRound> curve;           ///< every warm-up round, in order
};

/// How a cold cache was made (Experiment::cold_cache(); schema 1.6): the L2 flush before every
/// step, as the backend did it (gauge/cuda/l2_flush.hpp for the CUDA backend).
struct CacheFlushRecord {
  /// "read" (a kernel reads a buffer, leaving no dirty lines), "write" (cudaMemsetAsync over a
  /// buffer: the next step pays the write-backs), or what another backend names.
  std::string method;
  /// The method in words with its numbers, e.g. "read of 100663296 bytes by ld.global.cg (2 x L2
  /// size 50331648 bytes), no dirty lines left".
  std::string description;
  std::optional<std::uint64_t> bytes;           ///< bytes one flush reads (or writes)
  std::optional<std::uint64_t> l2_cache_bytes;  ///< the device's L2 size, bytes
  /// The flush is enqueued before the step's first event, so its time is outside every timed
  /// interval (GPU time); wall rounds include it (their time is flush + step).
  bool outside_timed_interval = true;
  /// The persisting-L2 set-aside found when measurement began (cudaLimitPersistingL2CacheSize),
  /// bytes; 0 when none; null when the backend cannot read it.
  std::optional<std::uint64_t> persisting_l2_set_aside_bytes;
  /// Persisting lines were reset to normal before every cold round (cudaCtxResetPersistingL2Cache),
  /// so no line of an access-policy window survives the flush. The set-aside itself is left as
  /// the caller set it (normal accesses use it when no persisting access does).
  bool persisting_lines_reset = false;
};

/// How the GPU-time samples were taken: the granularity the reader must know to judge them.
struct SamplingRecord {
  /// "gated" (steps held behind the launch gate, then run back to back), "ungated" (no gate:
  /// declared, unavailable or timed out), or "graph" (CUDA graph replays).
  std::string method;
  /// Steps between the two events of one sample (k). 1 = per-step samples; k > 1 = each sample is
  /// the mean step time of a batch of k consecutive steps.
  std::size_t steps_per_sample = 1;
  std::optional<double> event_overhead_s;  ///< measured device cost of one extra event between steps
  std::string steps_per_sample_reason;     ///< why this k, with numbers
  std::string cache = "hot";               ///< "hot" or "cold"
  std::size_t rounds = 0;                  ///< gated rounds kept
  std::size_t discarded_rounds = 0;        ///< rounds dropped (gate timeout)
  std::size_t steps = 0;                   ///< steps timed by GPU-time samples
  std::size_t calibration_steps = 0;       ///< steps run to measure the event cost (untimed)
  std::size_t wall_rounds = 0;             ///< wall-time rounds
  std::size_t wall_steps = 0;              ///< steps run in wall-time rounds
  double timer_resolution_s = 0;           ///< resolution of the GPU timer (events: ~0.5 µs)
  std::vector<double> round_start_s;       ///< each kept gated round's start, seconds since run() began
  std::vector<double> round_end_s;         ///< its end (after the synchronize)
  std::vector<std::size_t> round_samples;  ///< GPU-time samples it gave (in order: they index gpu_samples_s)
  /// The stream of the pool (0-based, see StreamsRecord) each kept gated round, and the wall
  /// round after it, ran on.
  std::vector<std::size_t> round_stream;
  /// Calls of the untimed setup (Experiment::setup; 0 without one) over the whole run, and the
  /// mean host time of one call, seconds (for a setup that enqueues device work, its enqueue cost).
  std::size_t setup_calls = 0;
  std::optional<double> setup_host_time_s;
  /// With a cold cache: how the L2 was flushed (schema 1.6); empty for a hot cache, and in
  /// reports older than 1.6.
  std::optional<CacheFlushRecord> cache_flush;

  /// The timer's tick per step, seconds: a sample of k steps reads in steps of
  /// timer_resolution_s / k (0 when the resolution is unknown).
  double resolution_per_step() const {
    if (!(timer_resolution_s > 0)) return 0;
    return timer_resolution_s / static_cast<double>(steps_per_sample > 0 ? steps_per_sample : 1);
  }
};

/// The streams the GPU-time samples were measured on, and the stream's effect on them (issue
/// "Honest intervals"; the method is in gauge/core/stream_effect.hpp). Times in seconds.
struct StreamsRecord {
  /// What the interval of the median covers: "stream pool" (rounds rotated over `count` streams
  /// gauge created; the interval includes the between-stream effect, so it covers what a rerun on
  /// new streams would see), "caller's stream" (`Experiment::stream` or `CudaBackend(stream)`:
  /// how fast on that stream only), or "one stream" (a pool of 1, or a backend without streams,
  /// e.g. the host backend).
  std::string scope = "one stream";
  std::size_t count = 1;                      ///< streams the rounds rotated over
  std::vector<std::size_t> samples;           ///< GPU-time samples taken on each stream
  std::vector<std::optional<double>> medians_s;  ///< median GPU time per step on each stream (null: none)
  /// (max − min) / median of the stream medians: the between-stream spread (2 streams or more).
  std::optional<double> relative_spread;
  std::optional<double> within_ci_low_s;      ///< the samples' own distribution-free interval of the median
  std::optional<double> within_ci_high_s;     ///< (before widening for the stream effect)
  std::optional<double> cluster_variance_s2;  ///< V_CR of the stream medians, seconds²
  std::optional<double> excess_variance_s2;   ///< max(0, V_CR − se_w²): the variance the within interval misses
  std::optional<double> t_quantile;           ///< Student-t quantile with (streams − 1) degrees of freedom
  bool widened = false;  ///< gpu_time_s.median_ci was widened for the stream effect
};

/// Why measurement stopped.
struct StoppingRecord {
  /// "noise_target_met", "stream_effect" (the samples' own interval met the target, and what
  /// keeps the interval wider is the between-stream effect, which more samples do not narrow),
  /// "max_time" or "max_samples" (or "failed").
  std::string reason;
  double measure_time_s = 0;                      ///< host time spent measuring, seconds
  std::optional<double> relative_ci_width;        ///< achieved (CI high − low) / median
  double target_relative_ci_width = 0;            ///< the target from the configuration
  bool target_met = false;                        ///< relative_ci_width <= target
};
}  // namespace records

namespace detail {
/// What the per-step samples of a result (or a Timer) from `backend` are, by default: {"real
/// time", "host steady clock"} for "host" (reports before schema 1.7 named it "CPU time"; it was always
/// the steady clock's real time), else {"GPU time", "CUDA events"}. Used for reports
/// written before schema 1.2 (results of 1.2 and later carry `time_label` and `time_clock`) and
/// for Timer summaries, which name only their backend.
inline std::pair<std::string, std::string> legacy_time_names(const std::string& backend) {
  if (backend == "host") return {"real time", "host steady clock"};
  return {"GPU time", "CUDA events"};
}
}  // namespace detail

/// The result of one experiment (one entry of the report's `experiments` list).
struct Result {
  std::string name;                ///< experiment name as given
  Dimensions dimensions;           ///< dimensions as given (Report::add stores a non-finite real as its text "nan", "inf", "-inf": JSON has no NaN)
  Work work;                       ///< work per step as declared
  Config config;                   ///< complete configuration, defaults included
  std::string backend;             ///< "cuda", "host", or a test backend's name
  std::string time_label = "GPU time";  ///< what the per-step samples are: "GPU time" (CUDA events) or "real time" (host steady clock)
  std::string time_clock = "CUDA events";  ///< the clock behind them
  records::DeviceRecord device;    ///< where it ran
  Status status = Status::ok;      ///< ok, or failed with `error`
  std::optional<std::string> error;  ///< the failure, with the phase and step where it happened
  /// Which repetition of its point this result is, 0-based, when the suite runner ran every
  /// point several times (`--repetitions N`, N > 1: N rounds over the whole suite, so the
  /// repetitions of a point are apart in time); empty when the experiment ran once. The results
  /// of one name and dimensions in a report are runs of the same code.
  std::optional<std::size_t> repetition;

  records::WarmupRecord warmup;
  records::SamplingRecord sampling;
  records::StoppingRecord stopping;
  records::StreamsRecord streams;  ///< the streams measured on and their effect on the interval

  /// GPU time per step, seconds (from events). Its `median_ci` covers the stream effect: when
  /// `streams.widened`, low and high are the widened bounds (the ranks and coverage are those of
  /// the samples' own interval, kept in `streams.within_ci_*`).
  Summary gpu_time;
  Summary wall_time;               ///< wall time per step, seconds (one value per wall round)
  /// Process CPU time per step, seconds (gauge/core/cpu_clock.hpp: user + system time of every
  /// thread), one value per measured round, the setup's CPU time taken out; recorded by host
  /// timing only (`sampling.method` "host"), n = 0 elsewhere. cpu / real time is the step's
  /// parallelism (≈ 1 single-threaded, ≈ N with N busy threads, ≪ 1 when it sleeps or waits).
  Summary cpu_time;
  /// The calling thread's CPU cycles and instructions per step, user mode, from perf_event (host
  /// timing; gauge/core/cpu_counters.hpp), or why not (status and reason). Schema 1.7.
  records::CpuCountersRecord cpu_counters;
  Throughput gpu_throughput;       ///< work / median GPU time per step
  Throughput wall_throughput;      ///< work / median wall time per step
  /// Median wall time minus median GPU time per step, seconds: host work the device waits for.
  std::optional<double> host_overhead_per_step_s;
  /// GPU time / wall time of the wall rounds (1 = the device never idles between steps).
  std::optional<double> gpu_busy_fraction;

  /// The SM clock of every measured round and the cycles per step it implies (schema 1.5).
  records::ClockRecord clock;
  records::TelemetryRecord telemetry;  ///< GPU clocks, power, temperature, throttling while it ran
  records::MemoryRecord memory;        ///< peak memory and whether the workload fits
  std::vector<records::KernelBinaryRecord> kernels; ///< binaries of the named kernels (and gauge's gate)
  /// What ran inside the step and for how long (Config::trace_kernels); empty when not asked.
  std::optional<records::KernelTraceRecord> kernel_trace;
  /// Every throughput as a fraction of the device's peaks, and the roofline (schema 1.5;
  /// gauge/core/peak_fractions.hpp). `status` "none" with the reason where no peak is known.
  records::PeaksRecord peaks;

  std::vector<double> gpu_samples_s;   ///< GPU time per step of each sample, in order taken
  std::vector<double> wall_samples_s;  ///< wall time per step of each wall round, in order
  std::vector<double> cpu_samples_s;   ///< process CPU time per step of each measured round (host timing), in order
  std::vector<Warning> warnings;       ///< what might be wrong with these numbers
  double total_time_s = 0;             ///< host time of the whole run() call, seconds

  /// True when a warning with this code is attached.
  bool has_warning(const std::string& code) const {
    for (const auto& w : warnings)
      if (w.code == code) return true;
    return false;
  }
};

}  // namespace gauge
