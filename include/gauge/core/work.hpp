#pragma once
/// \file gauge/core/work.hpp
/// The useful work one step does, and the throughput it implies: the one vocabulary of
/// gauge::Experiment and gauge::Timer. Work is FLOP, bytes and named items ("tokens", "samples",
/// "images", ...) per step; throughput is the same per second (`*_per_second` in C++, `*_per_s`
/// in JSON).
///
/// Seed: "throughput = useful work / wall time ... Define it so an optimization cannot 'win' by
/// silently doing less work." Work is declared per step by the user (e.g. 2·M·N·K FLOP for a GEMM)
/// and never inferred from the time.

#include <cmath>
#include <map>
#include <optional>
#include <string>

#include "gauge/core/error.hpp"

namespace gauge {

/// Work done by one step. Every field is per step; absent fields are not reported.
struct Work {
  std::optional<double> flop;                ///< floating-point operations per step
  std::optional<double> bytes;               ///< bytes moved per step (as the user counts them)
  std::map<std::string, double> items;       ///< named items per step: "tokens", "images", ...

  /// True when no work was declared (then no throughput is reported).
  bool empty() const { return !flop && !bytes && items.empty(); }
};

/// Throughput: work per second (of one step at a time per step, or of many steps over their
/// summed time). Units: FLOP/s, bytes/s, items/s.
struct Throughput {
  std::optional<double> flop_per_second;            ///< FLOP/s
  std::optional<double> bytes_per_second;           ///< bytes/s
  std::map<std::string, double> items_per_second;   ///< per item name, items/s

  /// The rate of item `name` ("tokens", ...) in items/s; nullopt when it was not declared.
  std::optional<double> item_per_second(const std::string& name) const {
    const auto it = items_per_second.find(name);
    if (it == items_per_second.end()) return std::nullopt;
    return it->second;
  }
};

namespace detail {
inline void check_work_amount(const char* what, double amount) {
  if (!std::isfinite(amount) || amount < 0) {
    throw ConfigError(std::string("work ") + what + " must be a finite number >= 0, got " +
                      std::to_string(amount));
  }
}
}  // namespace detail

/// The work of one step in a fluent, allocation-free form, for a loop that declares it every step
/// (gauge::Timer): FLOP, bytes, and the two items a training loop counts, tokens and samples (the
/// items "tokens" and "samples" of a Work). `gauge::StepWork().tokens(4096).flop(6.0 * params *
/// 4096)`. Absent fields are not reported. Setters throw ConfigError naming the value when it is
/// negative or not finite. Seed: define the work so an optimization cannot "win" by doing less.
class StepWork {
 public:
  /// No work declared.
  StepWork() = default;
  /// The same work as `w` (implicit: a Timer takes a Work where it takes a StepWork). Throws
  /// ConfigError for an item other than "tokens" and "samples", or an amount < 0 or not finite.
  StepWork(const Work& w) {  // NOLINT(google-explicit-constructor): one vocabulary, either form
    if (w.flop) flop(*w.flop);
    if (w.bytes) bytes(*w.bytes);
    for (const auto& [name, count] : w.items) {
      if (name == "tokens") tokens(count);
      else if (name == "samples") samples(count);
      else throw ConfigError("StepWork counts the items \"tokens\" and \"samples\", not \"" + name + "\"");
    }
  }
  /// Sets the tokens of the step (e.g. batch × sequence length). ConfigError if < 0 or not finite.
  StepWork& tokens(double v) { return set(tokens_, "tokens", v); }
  /// Sets the samples of the step (sequences, images, requests). ConfigError if < 0 or not finite.
  StepWork& samples(double v) { return set(samples_, "samples", v); }
  /// Sets the model FLOP of the step (what MFU counts). ConfigError if < 0 or not finite.
  StepWork& flop(double v) { return set(flop_, "flop", v); }
  /// Sets the bytes the step moves, as the user counts them. ConfigError if < 0 or not finite.
  StepWork& bytes(double v) { return set(bytes_, "bytes", v); }

  /// Tokens per step, if declared.
  std::optional<double> tokens() const { return tokens_; }
  /// Samples per step, if declared.
  std::optional<double> samples() const { return samples_; }
  /// FLOP per step, if declared.
  std::optional<double> flop() const { return flop_; }
  /// Bytes per step, if declared.
  std::optional<double> bytes() const { return bytes_; }
  /// True when nothing was declared.
  bool empty() const { return !tokens_ && !samples_ && !flop_ && !bytes_; }
  /// The same work as a Work (tokens and samples as the items "tokens" and "samples").
  Work to_work() const {
    Work w;
    w.flop = flop_;
    w.bytes = bytes_;
    if (tokens_) w.items["tokens"] = *tokens_;
    if (samples_) w.items["samples"] = *samples_;
    return w;
  }

 private:
  StepWork& set(std::optional<double>& field, const char* what, double v) {
    detail::check_work_amount(what, v);
    field = v;
    return *this;
  }
  std::optional<double> tokens_, samples_, flop_, bytes_;
};

/// Throughput of `work` when one step takes `seconds_per_step`; nullopt fields where the work
/// is absent or the time is not positive and finite.
inline Throughput throughput(const Work& work, std::optional<double> seconds_per_step) {
  Throughput t;
  if (!seconds_per_step || !std::isfinite(*seconds_per_step) || *seconds_per_step <= 0) return t;
  const double s = *seconds_per_step;
  if (work.flop) t.flop_per_second = *work.flop / s;
  if (work.bytes) t.bytes_per_second = *work.bytes / s;
  for (const auto& [name, count] : work.items) t.items_per_second[name] = count / s;
  return t;
}

}  // namespace gauge
