#pragma once
/// \file gauge/env/cupti_tracer.hpp
/// One CUPTI tracing session (`cupti::Tracer`) and what it collects (`cupti::Collected`, declared
/// in gauge/detail/kernel_tracer.hpp): the buffer callbacks, the records of each completed buffer
/// converted to Activities (kernel names demangled), and whether another CUPTI client is attached
/// (`other_client`). Part of gauge/env/cupti.hpp.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <new>
#include <string>
#include <utility>
#include <vector>

#if defined(__GNUG__) || defined(__clang__)
#include <cxxabi.h>
#endif

#include "gauge/core/kernel_trace_summary.hpp"
#include "gauge/detail/kernel_tracer.hpp"
#include "gauge/env/cupti_api.hpp"
#include "gauge/env/cupti_library.hpp"

namespace gauge::detail::cupti {

/// Demangles a C++ symbol name (Itanium ABI); returns it unchanged when it is not one.
inline std::string demangle(const char* name) {
  if (!name) return "(unnamed)";
#if defined(__GNUG__) || defined(__clang__)
  int status = 0;
  char* out = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status == 0 && out) {
    std::string s(out);
    std::free(out);
    return s;
  }
  std::free(out);
#endif
  return name;
}

namespace detail {

/// A memcpy or memset record (the same fields at the same offsets) as an Activity.
template <class Record>
records::Activity transfer(records::ActivityKind kind, const char* name, const Record& r) {
  records::Activity a;
  a.kind = kind;
  a.name = name;
  a.start_ns = r.start;
  a.end_ns = r.end < r.start ? r.start : r.end;
  a.stream_id = r.stream_id;
  a.correlation_id = r.correlation_id;
  a.bytes = r.bytes;
  return a;
}

/// Converts the records of one completed buffer, appending to `out`.
inline void parse_buffer(const Api& api, std::uint8_t* buffer, std::size_t valid, Collected& out) {
  void* rec = nullptr;
  for (;;) {
    const Result next = api.activity_get_next_record(buffer, valid, &rec);
    if (next == error_max_limit_reached) break;  // the end of the buffer
    // An incomplete record (work still running at a forced flush: steps launched after the
    // traced ones) ends what can be read of this buffer; records are in launch order, so what was
    // traced comes before it.
    if (next == error_invalid_kind) {
      ++out.incomplete;
      break;
    }
    if (next != success || !rec) {
      if (out.error.empty()) out.error = "cuptiActivityGetNextRecord returned CUPTI error " + std::to_string(next);
      break;
    }
    std::uint32_t k = 0;
    std::memcpy(&k, rec, sizeof k);
    if (k == static_cast<std::uint32_t>(kind::concurrent_kernel) || k == static_cast<std::uint32_t>(kind::kernel)) {
      record::Kernel r;
      std::memcpy(&r, rec, sizeof r);
      records::Activity a;
      a.kind = records::ActivityKind::kernel;
      a.name = demangle(r.name);
      a.start_ns = r.start;
      a.end_ns = r.end < r.start ? r.start : r.end;
      a.stream_id = r.stream_id;
      a.correlation_id = r.correlation_id;
      a.grid[0] = r.grid_x, a.grid[1] = r.grid_y, a.grid[2] = r.grid_z;
      a.block[0] = r.block_x, a.block[1] = r.block_y, a.block[2] = r.block_z;
      a.registers_per_thread = r.registers_per_thread;
      a.static_shared_bytes = r.static_shared_memory;
      a.dynamic_shared_bytes = r.dynamic_shared_memory;
      out.activities.push_back(std::move(a));
    } else if (k == static_cast<std::uint32_t>(kind::memcpy)) {
      record::Memcpy r;
      std::memcpy(&r, rec, sizeof r);
      static const char* const names[] = {"memcpy", "memcpy HtoD", "memcpy DtoH", "memcpy HtoA", "memcpy AtoH",
                                          "memcpy AtoA", "memcpy AtoD", "memcpy DtoA", "memcpy DtoD", "memcpy HtoH",
                                          "memcpy PtoP"};
      out.activities.push_back(transfer(records::ActivityKind::memcpy, r.copy_kind < std::size(names) ? names[r.copy_kind] : "memcpy", r));
    } else if (k == static_cast<std::uint32_t>(kind::memset)) {
      record::Memset r;
      std::memcpy(&r, rec, sizeof r);
      out.activities.push_back(transfer(records::ActivityKind::memset, "memset", r));
    } else if (k == static_cast<std::uint32_t>(kind::external_correlation)) {
      record::ExternalCorrelation r;
      std::memcpy(&r, rec, sizeof r);
      if (r.external_kind == static_cast<std::uint32_t>(external_kind_gauge)) out.external[r.correlation_id] = r.external_id;
    } else if (k == static_cast<std::uint32_t>(kind::runtime) || k == static_cast<std::uint32_t>(kind::driver)) {
      ++out.api_records;
    }
  }
  if (api.activity_get_num_dropped_records) {
    std::size_t dropped = 0;
    if (api.activity_get_num_dropped_records(nullptr, 0, &dropped) == success) out.dropped += dropped;
  }
}

/// The session whose buffers CUPTI's callbacks fill (CUPTI's callbacks carry no user pointer).
struct Sink {
  std::mutex mutex;
  const Api* api = nullptr;
  Collected* out = nullptr;
  static Sink& get() {
    static Sink s;
    return s;
  }
};

inline constexpr std::size_t buffer_bytes = 8u << 20;

inline void on_buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  // CUPTI requires 8-byte alignment; operator new gives at least that.
  *buffer = static_cast<std::uint8_t*>(::operator new(buffer_bytes, std::nothrow));
  *size = *buffer ? buffer_bytes : 0;
  *max_records = 0;
}

inline void on_buffer_completed(void*, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid) {
  Sink& s = Sink::get();
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.api && s.out && buffer && valid) parse_buffer(*s.api, buffer, valid, *s.out);
  }
  ::operator delete(buffer);
}

inline void ignore_callback(void*, int, std::uint32_t, const void*) {}

}  // namespace detail

/// Whether another CUPTI client is attached to this process (Nsight Compute, Nsight Systems or a
/// profiler of a framework): a CUDA injection library is set (`CUDA_INJECTION64_PATH`, which
/// both Nsight tools set), or cuptiSubscribe reports CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED.
/// Returns the sentence that says which, or "" when none is seen.
inline std::string other_client(const Library& lib) {
  if (const char* p = std::getenv("CUDA_INJECTION64_PATH"); p && *p)
    return std::string("a CUDA injection library is loaded (CUDA_INJECTION64_PATH=") + p + "): Nsight Compute or Nsight Systems";
  const Api& a = lib.api();
  if (a.subscribe && a.unsubscribe) {
    void* sub = nullptr;
    const Result r = a.subscribe(&sub, detail::ignore_callback, nullptr);
    if (r == error_multiple_subscribers) return "another CUPTI subscriber is attached (cuptiSubscribe: " + lib.result_string(r) + ")";
    if (r == success) a.unsubscribe(sub);
  }
  return {};
}

/// One tracing session: start() enables the activity kinds, push()/pop() bracket each launch of
/// the step, stop() flushes, disables and returns the records. One session at a time per process
/// (CUPTI's activity buffers are process-wide); a second concurrent start() fails with a reason.
class Tracer {
 public:
  explicit Tracer(Library& lib) : lib_(lib) {}
  ~Tracer() { stop(); }
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  /// Enables tracing. Returns "" on success, else why not (and nothing stays enabled).
  std::string start() {
    if (!lib_.available()) return lib_.error();
    const Api& a = lib_.api();
    {
      auto& s = detail::Sink::get();
      std::lock_guard<std::mutex> lock(s.mutex);
      if (s.out) return "another experiment or Timer of this process is tracing kernels now (CUPTI's activity buffers are "
                               "process-wide: one tracing at a time)";
      s.api = &a;
      s.out = &collected_;
    }
    active_ = true;
    const Result reg = lib_.register_callbacks(detail::on_buffer_requested, detail::on_buffer_completed);
    if (reg != success) return fail("cuptiActivityRegisterCallbacks: " + lib_.result_string(reg));
    for (int k : {kind::concurrent_kernel, kind::memcpy, kind::memset, kind::runtime, kind::driver, kind::external_correlation}) {
      const Result r = a.activity_enable(k);
      if (r != success) return fail("cuptiActivityEnable(" + std::to_string(k) + "): " + lib_.result_string(r));
      enabled_.push_back(k);
    }
    return {};
  }
  /// Brackets one launch of the step with gauge's external correlation id. A failure is kept
  /// (the first one) and returned by stop() in Collected::error.
  void push(std::uint64_t id) { note("cuptiActivityPushExternalCorrelationId", lib_.api().push_external_correlation_id(external_kind_gauge, id)); }
  void pop() {
    std::uint64_t last = 0;
    note("cuptiActivityPopExternalCorrelationId", lib_.api().pop_external_correlation_id(external_kind_gauge, &last));
  }
  /// Flushes every record (waiting for the work traced to finish), disables the kinds it enabled
  /// and returns what was collected. Safe to call twice.
  Collected stop() {
    if (!active_) return std::move(collected_);
    const Api& a = lib_.api();
    note("cuptiActivityFlushAll", a.activity_flush_all(flush_forced));
    for (int k : enabled_) a.activity_disable(k);
    enabled_.clear();
    note("cuptiActivityFlushAll", a.activity_flush_all(flush_forced));
    auto& s = detail::Sink::get();
    std::lock_guard<std::mutex> lock(s.mutex);
    s.out = nullptr;
    s.api = nullptr;
    active_ = false;
    if (collected_.error.empty()) collected_.error = error_;
    return std::move(collected_);
  }

 private:
  std::string fail(std::string why) {
    stop();
    return why;
  }
  void note(const char* call, Result r) {
    if (r != success && error_.empty()) error_ = std::string(call) + ": " + lib_.result_string(r);
  }
  Library& lib_;
  Collected collected_;
  std::vector<int> enabled_;
  bool active_ = false;
  std::string error_;
};

}  // namespace gauge::detail::cupti
