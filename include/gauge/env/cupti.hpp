#pragma once
/// \file gauge/env/cupti.hpp
/// CUPTI's Activity API, loaded at run time with `dlopen("libcupti.so")`: no link-time dependency,
/// and its absence is recorded with the reason, never fatal. Only the entries and record fields
/// gauge uses are declared, with the signatures, constants and record layouts of NVIDIA's CUPTI
/// documentation (CUPTI API version 130001, CUDA 13.0: cupti_activity.h, cupti_callbacks.h,
/// cupti_result.h). Records are read through their common prefix, which is the same in every
/// version of the kernel (CUpti_ActivityKernel4..10), memcpy (Memcpy5..6) and memset (Memset4)
/// records; tests/test_kernel_trace.cpp checks the offsets against the real header where it is
/// installed. Tests swap the function table for a fake that writes records in these layouts.
///
/// How gauge uses it (gauge/protocol/protocol.hpp, `trace_kernels`): enable CONCURRENT_KERNEL,
/// MEMCPY, MEMSET, RUNTIME, DRIVER and EXTERNAL_CORRELATION; push an external correlation id
/// (kind CUSTOM2) around each launch of the step; force a flush; disable. CUPTI then precedes the
/// API record of every runtime or driver call made inside the step by an external correlation
/// record that maps its correlation id to gauge's id, and the kernel, memcpy and memset records
/// carry the correlation id of the call that launched them.

#include <dlfcn.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#if defined(__GNUG__) || defined(__clang__)
#include <cxxabi.h>
#endif

#include "gauge/core/kernel_trace_summary.hpp"

namespace gauge::cupti {

/// CUptiResult.
using Result = int;
inline constexpr Result success = 0;                          ///< CUPTI_SUCCESS
inline constexpr Result error_max_limit_reached = 12;         ///< CUPTI_ERROR_MAX_LIMIT_REACHED
inline constexpr Result error_not_initialized = 15;           ///< CUPTI_ERROR_NOT_INITIALIZED
inline constexpr Result error_invalid_kind = 21;              ///< CUPTI_ERROR_INVALID_KIND (also: an incomplete record)
inline constexpr Result error_insufficient_privileges = 35;   ///< CUPTI_ERROR_INSUFFICIENT_PRIVILEGES
inline constexpr Result error_multiple_subscribers = 39;      ///< CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED

/// CUpti_ActivityKind values gauge enables.
namespace kind {
inline constexpr int memcpy = 1;                 ///< CUPTI_ACTIVITY_KIND_MEMCPY
inline constexpr int memset = 2;                 ///< CUPTI_ACTIVITY_KIND_MEMSET
inline constexpr int kernel = 3;                 ///< CUPTI_ACTIVITY_KIND_KERNEL (serializing; read, not enabled)
inline constexpr int driver = 4;                 ///< CUPTI_ACTIVITY_KIND_DRIVER
inline constexpr int runtime = 5;                ///< CUPTI_ACTIVITY_KIND_RUNTIME
inline constexpr int concurrent_kernel = 10;     ///< CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL
inline constexpr int external_correlation = 39;  ///< CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION
}  // namespace kind

/// CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2: the kind gauge pushes (CUSTOM0 and CUSTOM1 are left to
/// frameworks such as PyTorch's profiler).
inline constexpr int external_kind_gauge = 5;
/// CUPTI_ACTIVITY_FLAG_FLUSH_FORCED.
inline constexpr std::uint32_t flush_forced = 1u << 0;

/// The record prefixes gauge reads (PACKED_ALIGNMENT = packed, 8-byte aligned). Offsets in bytes.
namespace record {
#pragma pack(push, 1)
/// CUpti_ActivityKernel4..10: kind 0, registersPerThread 6, start 16, end 24, streamId 48,
/// gridX..Z 52..60, blockX..Z 64..72, staticSharedMemory 76, dynamicSharedMemory 80,
/// correlationId 92, name 104.
struct Kernel {
  std::uint32_t kind;
  std::uint8_t cache_config, shared_memory_config;
  std::uint16_t registers_per_thread;
  std::uint32_t partitioned_cache_requested, partitioned_cache_executed;
  std::uint64_t start, end, completed;
  std::uint32_t device_id, context_id, stream_id;
  std::int32_t grid_x, grid_y, grid_z, block_x, block_y, block_z;
  std::int32_t static_shared_memory, dynamic_shared_memory;
  std::uint32_t local_memory_per_thread, local_memory_total;
  std::uint32_t correlation_id;
  std::int64_t grid_id;
  const char* name;
};
/// CUpti_ActivityMemcpy5..6: kind 0, copyKind 4, bytes 8, start 16, end 24, streamId 40, correlationId 44.
struct Memcpy {
  std::uint32_t kind;
  std::uint8_t copy_kind, src_kind, dst_kind, flags;
  std::uint64_t bytes, start, end;
  std::uint32_t device_id, context_id, stream_id, correlation_id;
};
/// CUpti_ActivityMemset4: kind 0, value 4, bytes 8, start 16, end 24, streamId 40, correlationId 44.
struct Memset {
  std::uint32_t kind;
  std::uint32_t value;
  std::uint64_t bytes, start, end;
  std::uint32_t device_id, context_id, stream_id, correlation_id;
};
/// CUpti_ActivityExternalCorrelation: kind 0, externalKind 4, externalId 8, correlationId 16.
struct ExternalCorrelation {
  std::uint32_t kind;
  std::uint32_t external_kind;
  std::uint64_t external_id;
  std::uint32_t correlation_id, reserved;
};
#pragma pack(pop)
static_assert(offsetof(Kernel, registers_per_thread) == 6 && offsetof(Kernel, start) == 16 &&
              offsetof(Kernel, stream_id) == 48 && offsetof(Kernel, grid_x) == 52 && offsetof(Kernel, block_x) == 64 &&
              offsetof(Kernel, static_shared_memory) == 76 && offsetof(Kernel, correlation_id) == 92 &&
              offsetof(Kernel, name) == 104, "CUpti_ActivityKernel prefix");
static_assert(offsetof(Memcpy, bytes) == 8 && offsetof(Memcpy, start) == 16 && offsetof(Memcpy, stream_id) == 40 &&
              offsetof(Memcpy, correlation_id) == 44, "CUpti_ActivityMemcpy prefix");
static_assert(offsetof(Memset, bytes) == 8 && offsetof(Memset, stream_id) == 40 && offsetof(Memset, correlation_id) == 44,
              "CUpti_ActivityMemset prefix");
static_assert(offsetof(ExternalCorrelation, external_id) == 8 && offsetof(ExternalCorrelation, correlation_id) == 16,
              "CUpti_ActivityExternalCorrelation");
}  // namespace record

/// CUpti_BuffersCallbackRequestFunc and CUpti_BuffersCallbackCompleteFunc (CUcontext as void*).
using BufferRequested = void (*)(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records);
using BufferCompleted = void (*)(void* context, std::uint32_t stream_id, std::uint8_t* buffer, std::size_t size,
                                 std::size_t valid_size);
/// CUpti_CallbackFunc (the callback gauge subscribes with only to learn whether another client is).
using CallbackFunc = void (*)(void* userdata, int domain, std::uint32_t cbid, const void* cbdata);

/// The CUPTI entries gauge uses; a null pointer is an entry the library lacks.
struct Api {
  Result (*get_version)(std::uint32_t*) = nullptr;                        ///< cuptiGetVersion
  Result (*get_result_string)(Result, const char**) = nullptr;            ///< cuptiGetResultString
  Result (*subscribe)(void** subscriber, CallbackFunc, void*) = nullptr;  ///< cuptiSubscribe
  Result (*unsubscribe)(void* subscriber) = nullptr;                      ///< cuptiUnsubscribe
  Result (*activity_enable)(int kind) = nullptr;                          ///< cuptiActivityEnable
  Result (*activity_disable)(int kind) = nullptr;                         ///< cuptiActivityDisable
  Result (*activity_register_callbacks)(BufferRequested, BufferCompleted) = nullptr;  ///< cuptiActivityRegisterCallbacks
  Result (*activity_flush_all)(std::uint32_t flag) = nullptr;             ///< cuptiActivityFlushAll
  /// cuptiActivityGetNextRecord(buffer, validBufferSizeBytes, CUpti_Activity** record).
  Result (*activity_get_next_record)(std::uint8_t*, std::size_t, void**) = nullptr;
  /// cuptiActivityGetNumDroppedRecords(CUcontext, streamId, size_t* dropped).
  Result (*activity_get_num_dropped_records)(void*, std::uint32_t, std::size_t*) = nullptr;
  Result (*push_external_correlation_id)(int kind, std::uint64_t id) = nullptr;   ///< cuptiActivityPushExternalCorrelationId
  Result (*pop_external_correlation_id)(int kind, std::uint64_t* last) = nullptr; ///< cuptiActivityPopExternalCorrelationId
};

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

/// CUPTI loaded (or the reason it is not). Process-wide: CUPTI itself is.
class Library {
 public:
  /// Loads CUPTI with dlopen: `GAUGE_CUPTI_LIBRARY` if set, else "libcupti.so" and its versioned
  /// names on the loader's path, then under $CUDA_HOME, /usr/local/cuda (lib64, lib,
  /// extras/CUPTI/lib64). Never throws: failures land in error().
  static std::unique_ptr<Library> load() {
    std::unique_ptr<Library> lib(new Library());
    std::vector<std::string> candidates;
    const char* chosen = std::getenv("GAUGE_CUPTI_LIBRARY");
    if (chosen && *chosen) {
      const char* p = chosen;
      candidates.emplace_back(p);
    } else {
      for (const char* n : {"libcupti.so", "libcupti.so.13", "libcupti.so.12"}) candidates.emplace_back(n);
      std::vector<std::string> roots;
      if (const char* h = std::getenv("CUDA_HOME"); h && *h) roots.emplace_back(h);
      roots.emplace_back("/usr/local/cuda");
      for (const auto& r : roots)
        for (const char* sub : {"/lib64/libcupti.so", "/lib/libcupti.so", "/extras/CUPTI/lib64/libcupti.so",
                                "/targets/x86_64-linux/lib/libcupti.so"})
          candidates.push_back(r + sub);
    }
    std::string tried;
    for (const auto& c : candidates) {
      lib->handle_ = ::dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (lib->handle_) {
        lib->path_ = c;
        break;
      }
      const char* e = ::dlerror();
      if (tried.empty()) tried = e ? e : c + ": unknown error";
    }
    if (!lib->handle_) {
      lib->error_ = chosen && *chosen
                        ? "cannot load CUPTI from GAUGE_CUPTI_LIBRARY=" + std::string(chosen) + ": " + tried
                        : "cannot load CUPTI (libcupti.so on the loader's path, under $CUDA_HOME or /usr/local/cuda; "
                          "set GAUGE_CUPTI_LIBRARY to its path): " + tried;
      return lib;
    }
    auto sym = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(lib->handle_, name));
    };
    Api& a = lib->api_;
    sym(a.get_version, "cuptiGetVersion");
    sym(a.get_result_string, "cuptiGetResultString");
    sym(a.subscribe, "cuptiSubscribe");
    sym(a.unsubscribe, "cuptiUnsubscribe");
    sym(a.activity_enable, "cuptiActivityEnable");
    sym(a.activity_disable, "cuptiActivityDisable");
    sym(a.activity_register_callbacks, "cuptiActivityRegisterCallbacks");
    sym(a.activity_flush_all, "cuptiActivityFlushAll");
    sym(a.activity_get_next_record, "cuptiActivityGetNextRecord");
    sym(a.activity_get_num_dropped_records, "cuptiActivityGetNumDroppedRecords");
    sym(a.push_external_correlation_id, "cuptiActivityPushExternalCorrelationId");
    sym(a.pop_external_correlation_id, "cuptiActivityPopExternalCorrelationId");
    lib->check();
    return lib;
  }

  /// Wraps a ready function table (tests).
  static std::unique_ptr<Library> from_api(const Api& api, std::string path = "fake") {
    std::unique_ptr<Library> lib(new Library());
    lib->api_ = api;
    lib->path_ = std::move(path);
    lib->check();
    return lib;
  }

  /// The CUPTI every experiment uses: the process-wide one (loaded at first use), or the one set
  /// by `set_active` (tests).
  static Library& active() {
    std::lock_guard<std::mutex> lock(active_mutex());
    if (override_slot()) return *override_slot();
    static std::unique_ptr<Library> shared = load();
    return *shared;
  }
  /// Makes `lib` the library `active()` returns (null: back to the process-wide one). Tests only.
  static void set_active(Library* lib) {
    std::lock_guard<std::mutex> lock(active_mutex());
    override_slot() = lib;
  }

  ~Library() {
    if (handle_) ::dlclose(handle_);
  }
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  bool available() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  const Api& api() const { return api_; }
  /// "CUPTI API version 130001 (/usr/local/cuda/lib64/libcupti.so)".
  std::string description() const {
    return "CUPTI API version " + (version_ ? std::to_string(version_) : std::string("unknown")) + " (" + path_ + ")";
  }
  /// cuptiActivityRegisterCallbacks, once for this library (CUPTI keeps them for the process).
  Result register_callbacks(BufferRequested requested, BufferCompleted completed) {
    std::call_once(registered_, [&] { registration_ = api_.activity_register_callbacks(requested, completed); });
    return registration_;
  }
  /// CUPTI's text for a result code.
  std::string result_string(Result r) const {
    const char* s = nullptr;
    if (api_.get_result_string && api_.get_result_string(r, &s) == success && s) return std::string(s) + " (" + std::to_string(r) + ")";
    return "CUPTI error " + std::to_string(r);
  }

 private:
  Library() = default;
  void check() {
    const char* missing = nullptr;
    if (!api_.activity_enable) missing = "cuptiActivityEnable";
    else if (!api_.activity_disable) missing = "cuptiActivityDisable";
    else if (!api_.activity_register_callbacks) missing = "cuptiActivityRegisterCallbacks";
    else if (!api_.activity_flush_all) missing = "cuptiActivityFlushAll";
    else if (!api_.activity_get_next_record) missing = "cuptiActivityGetNextRecord";
    else if (!api_.push_external_correlation_id) missing = "cuptiActivityPushExternalCorrelationId";
    else if (!api_.pop_external_correlation_id) missing = "cuptiActivityPopExternalCorrelationId";
    if (missing) {
      error_ = std::string(path_) + " lacks " + missing;
      return;
    }
    if (api_.get_version) api_.get_version(&version_);
  }
  static std::mutex& active_mutex() {
    static std::mutex m;
    return m;
  }
  static Library*& override_slot() {
    static Library* p = nullptr;
    return p;
  }
  void* handle_ = nullptr;
  Api api_;
  std::string path_;
  std::string error_;
  std::uint32_t version_ = 0;
  std::once_flag registered_;
  Result registration_ = success;
};

/// What one tracing session collected.
struct Collected {
  std::vector<Activity> activities;                          ///< kernels, memcpys, memsets
  std::map<std::uint32_t, std::uint64_t> external;           ///< correlation id → gauge's external id
  std::size_t api_records = 0;                               ///< runtime/driver API records seen
  std::uint64_t dropped = 0;                                 ///< records CUPTI dropped
  std::size_t incomplete = 0;                                ///< buffers that ended at an incomplete record
  /// The first CUPTI call that failed while tracing (push, pop, flush, reading records), with
  /// CUPTI's text; empty when none did. Records may then be missing or misattributed.
  std::string error;
};

namespace detail {

/// A memcpy or memset record (the same fields at the same offsets) as an Activity.
template <class Record>
Activity transfer(ActivityKind kind, const char* name, const Record& r) {
  Activity a;
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
      Activity a;
      a.kind = ActivityKind::kernel;
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
      out.activities.push_back(transfer(ActivityKind::memcpy, r.copy_kind < std::size(names) ? names[r.copy_kind] : "memcpy", r));
    } else if (k == static_cast<std::uint32_t>(kind::memset)) {
      record::Memset r;
      std::memcpy(&r, rec, sizeof r);
      out.activities.push_back(transfer(ActivityKind::memset, "memset", r));
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

}  // namespace gauge::cupti
