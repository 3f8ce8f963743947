#pragma once
// A deterministic fake backend for gauge::Timer: one virtual clock shared by the host and the
// device, virtual streams with scripted kernel durations, and markers that complete at the device
// time their stream reaches them. It counts what the Timer promises to keep low: marker records,
// queries, host synchronizations (waits), markers created (the pool's allocations), and calls of
// any kind (so a disabled region can be shown to make none).
//
// Model. The host clock moves only by `advance(dt)`, by `record_cost` per record, and by waits.
// A stream runs its kernels in order: a kernel starts at max(host clock at launch, the stream's
// previous end). A marker recorded on a stream completes at max(host clock, the stream's end) and
// is "reached" once the clock is there: `query` says not yet before that, `wait` moves the clock
// there, and `elapsed` of a marker not reached is a bug in the Timer (it throws std::logic_error).

#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace gauge::testing {

class FakeTimerDevice {
 public:
  // ---- script ----
  double record_cost = 0;  ///< host seconds per marker record
  /// When >= 0, the elapsed() call with this ordinal (0-based, counting all calls) throws a
  /// std::runtime_error, as cudaEventElapsedTime would after a device fault.
  long fail_elapsed_call = -1;

  // ---- state ----
  double host = 0;                  ///< the virtual clock, seconds
  std::size_t records = 0;          ///< markers recorded
  std::size_t queries = 0;          ///< completion queries
  std::size_t waits = 0;            ///< host synchronizations
  std::size_t created = 0;          ///< markers created (allocations of the fake pool)
  std::size_t elapsed_calls = 0;    ///< elapsed() calls
  std::size_t calls = 0;            ///< every backend call (acquire, record, query, wait, elapsed, release, now)
  std::size_t bad_releases = 0;     ///< releases of a marker not in use (a Timer bug)

  /// Moves the host clock forward by `dt` seconds.
  void advance(double dt) { host += dt; }
  /// Moves the host clock to when every stream is idle.
  void run_until_idle() {
    for (double f : stream_free_) host = std::max(host, f);
  }
  /// Launches a kernel of `seconds` on stream `s` (0 is the Timer's stream).
  void kernel(int s, double seconds) {
    double& free = stream_end(s);
    free = std::max(free, host) + seconds;
  }
  /// Device time at which stream `s` becomes idle.
  double stream_free(int s) { return stream_end(s); }
  /// Markers handed out and not released.
  std::size_t in_use() const {
    std::size_t n = 0;
    for (bool b : in_use_) n += b ? 1 : 0;
    return n;
  }

  // ---- used by the backend ----
  std::size_t acquire() {
    ++calls;
    if (free_.empty()) {
      ++created;
      time_.push_back(std::numeric_limits<double>::quiet_NaN());
      in_use_.push_back(false);
      free_.push_back(time_.size() - 1);
    }
    const std::size_t m = free_.back();
    free_.pop_back();
    in_use_[m] = true;
    time_[m] = std::numeric_limits<double>::quiet_NaN();
    return m;
  }
  void release(std::size_t m) {
    ++calls;
    if (m >= in_use_.size() || !in_use_[m]) {
      ++bad_releases;
      return;
    }
    in_use_[m] = false;
    free_.push_back(m);
  }
  void record(std::size_t m, int s) {
    ++calls;
    ++records;
    host += record_cost;
    if (!in_use_.at(m)) throw std::logic_error("fake: record of a marker not acquired");
    time_[m] = std::max(host, stream_end(s));
  }
  bool query(std::size_t m) {
    ++calls;
    ++queries;
    return reached(m);
  }
  void wait(std::size_t m) {
    ++calls;
    ++waits;
    host = std::max(host, recorded(m));
  }
  double elapsed(std::size_t a, std::size_t b) {
    ++calls;
    const long call = static_cast<long>(elapsed_calls++);
    if (call == fail_elapsed_call) throw std::runtime_error("fake: cudaEventElapsedTime failed (scripted device fault)");
    if (!reached(a) || !reached(b)) throw std::logic_error("fake: elapsed() of a marker the device has not reached");
    return time_[b] - time_[a];
  }
  double now() {
    ++calls;
    return host;
  }

 private:
  double& stream_end(int s) {
    if (s < 0) throw std::logic_error("fake: negative stream id");
    if (static_cast<std::size_t>(s) >= stream_free_.size()) stream_free_.resize(static_cast<std::size_t>(s) + 1, 0.0);
    return stream_free_[static_cast<std::size_t>(s)];
  }
  double recorded(std::size_t m) const {
    const double t = time_.at(m);
    if (std::isnan(t)) throw std::logic_error("fake: marker " + std::to_string(m) + " was never recorded");
    return t;
  }
  bool reached(std::size_t m) const { return recorded(m) <= host; }

  std::vector<double> stream_free_;
  std::vector<double> time_;
  std::vector<bool> in_use_;
  std::vector<std::size_t> free_;
};

/// A virtual stream: a small integer; 0 is the Timer's stream.
struct FakeTimerStream {
  int id = 0;
};

/// The Timer backend over a FakeTimerDevice (held by pointer: the test scripts the device).
class FakeTimerBackend {
 public:
  using stream_type = FakeTimerStream;
  using marker_type = std::size_t;
  static constexpr const char* name = "fake";

  explicit FakeTimerBackend(FakeTimerDevice* device) : dev_(device) {}

  stream_type stream() const { return {0}; }
  bool is_timer_stream(stream_type s) const { return s.id == 0; }
  double now() const { return dev_->now(); }
  marker_type acquire() { return dev_->acquire(); }
  void release(marker_type m) noexcept { dev_->release(m); }
  void record(marker_type m, stream_type s) { dev_->record(m, s.id); }
  bool query(marker_type m) { return dev_->query(m); }
  void wait(marker_type m) { dev_->wait(m); }
  double elapsed(marker_type a, marker_type b) const { return dev_->elapsed(a, b); }
  std::size_t markers_created() const { return dev_->created; }
  double timer_resolution() const { return 0.5e-6; }

 private:
  FakeTimerDevice* dev_;
};

}  // namespace gauge::testing
