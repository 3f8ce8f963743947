#pragma once
// A fake CUPTI for the CPU tests: a function table (gauge::detail::cupti::Api) over one process-wide
// state, writing activity records in the layouts gauge/env/cupti.hpp declares, with the
// behaviour of CUPTI's Activity API that gauge relies on: records are delivered through the
// registered buffer callbacks at a flush; an API call made while an external correlation id is
// pushed is preceded by an EXTERNAL_CORRELATION record; kernel records carry the correlation id
// of the launch. Hooked to a FakeDevice (tests/fake_backend.hpp) by `attach`.

#include <cstdint>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "fake_backend.hpp"
#include "gauge/env/cupti.hpp"

namespace gauge::testing {

struct FakeCupti {
  // ---- script ----
  detail::cupti::Result subscribe_result = detail::cupti::success; ///< what cuptiSubscribe answers
  int refuse_kind = -1;                             ///< cuptiActivityEnable fails for this kind
  std::uint64_t dropped = 0;                        ///< what cuptiActivityGetNumDroppedRecords says
  detail::cupti::Result push_result = detail::cupti::success; ///< what cuptiActivityPushExternalCorrelationId answers
  detail::cupti::Result flush_result = detail::cupti::success; ///< what cuptiActivityFlushAll answers
  bool external_records = true;                     ///< false: EXTERNAL_CORRELATION records never come

  // ---- state ----
  std::set<int> enabled;
  std::vector<std::uint64_t> external;  ///< the pushed ids (kind CUSTOM2), top last
  std::uint32_t next_correlation = 100;
  std::vector<std::vector<std::uint8_t>> pending;  ///< records written, not yet delivered
  detail::cupti::BufferRequested requested = nullptr;
  detail::cupti::BufferCompleted completed = nullptr;
  std::size_t flushes = 0, pushes = 0, pops = 0, enables = 0, disables = 0;
  std::vector<std::string> names;  ///< storage for kernel names (records point into it)

  static FakeCupti*& current() {
    static FakeCupti* p = nullptr;
    return p;
  }

  /// The function table; every entry forwards to current().
  static detail::cupti::Api api() {
    detail::cupti::Api a;
    a.get_version = [](std::uint32_t* v) { *v = 130001; return detail::cupti::success; };
    a.get_result_string = [](detail::cupti::Result r, const char** s) {
      *s = r == detail::cupti::error_multiple_subscribers ? "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED" : "CUPTI_ERROR_UNKNOWN";
      return detail::cupti::success;
    };
    a.subscribe = [](void** sub, detail::cupti::CallbackFunc, void*) {
      *sub = current();
      return current()->subscribe_result;
    };
    a.unsubscribe = [](void*) { return detail::cupti::success; };
    a.activity_enable = [](int k) {
      if (k == current()->refuse_kind) return detail::cupti::error_insufficient_privileges;
      ++current()->enables;
      current()->enabled.insert(k);
      return detail::cupti::success;
    };
    a.activity_disable = [](int k) {
      ++current()->disables;
      current()->enabled.erase(k);
      return detail::cupti::success;
    };
    a.activity_register_callbacks = [](detail::cupti::BufferRequested req, detail::cupti::BufferCompleted done) {
      current()->requested = req;
      current()->completed = done;
      return detail::cupti::success;
    };
    a.activity_flush_all = [](std::uint32_t) {
      current()->deliver();
      return current()->flush_result;
    };
    a.activity_get_next_record = [](std::uint8_t* buffer, std::size_t valid, void** rec) {
      std::size_t at = 0;
      if (*rec) at = static_cast<std::size_t>(static_cast<std::uint8_t*>(*rec) - buffer) + record_size(*rec);
      if (at >= valid) return detail::cupti::error_max_limit_reached;
      *rec = buffer + at;
      return detail::cupti::success;
    };
    a.activity_get_num_dropped_records = [](void*, std::uint32_t, std::size_t* n) {
      *n = static_cast<std::size_t>(current()->dropped);
      current()->dropped = 0;  // CUPTI reports drops since the last call
      return detail::cupti::success;
    };
    a.push_external_correlation_id = [](int kind, std::uint64_t id) {
      if (kind != detail::cupti::external_kind_gauge) return 1;
      if (current()->push_result != detail::cupti::success) return current()->push_result;
      ++current()->pushes;
      current()->external.push_back(id);
      return detail::cupti::success;
    };
    a.pop_external_correlation_id = [](int, std::uint64_t* last) {
      FakeCupti* f = current();
      if (f->external.empty()) return 1;
      ++f->pops;
      if (last) *last = f->external.back();
      f->external.pop_back();
      return detail::cupti::success;
    };
    return a;
  }

  /// Hooks the device's launches to this fake: a launch is an API call (external correlation
  /// record when an id is pushed), a kernel that ran is a CONCURRENT_KERNEL record.
  void attach(FakeDevice& dev) {
    dev.on_launch = [this] { return launch(); };
    dev.on_kernel_run = [this](std::uint32_t corr, const char* name, double start, double end, std::size_t stream) {
      kernel_ran(corr, name, start, end, stream);
    };
  }

  std::uint32_t launch() {
    const std::uint32_t corr = next_correlation++;
    if (enabled.count(detail::cupti::kind::external_correlation) && !external.empty() && external_records) {
      detail::cupti::record::ExternalCorrelation r{};
      r.kind = detail::cupti::kind::external_correlation;
      r.external_kind = detail::cupti::external_kind_gauge;
      r.external_id = external.back();
      r.correlation_id = corr;
      write(&r, sizeof r);
    }
    if (enabled.count(detail::cupti::kind::runtime)) {
      const std::uint32_t k = detail::cupti::kind::runtime;
      std::uint8_t api_record[40] = {};
      std::memcpy(api_record, &k, sizeof k);
      write(api_record, sizeof api_record);
    }
    return corr;
  }

  void kernel_ran(std::uint32_t corr, const char* name, double start_s, double end_s, std::size_t stream) {
    if (!enabled.count(detail::cupti::kind::concurrent_kernel)) return;
    names.emplace_back(name);
    detail::cupti::record::Kernel r{};
    r.kind = detail::cupti::kind::concurrent_kernel;
    r.registers_per_thread = 32;
    r.start = static_cast<std::uint64_t>(start_s * 1e9 + 0.5);
    r.end = static_cast<std::uint64_t>(end_s * 1e9 + 0.5);
    r.stream_id = static_cast<std::uint32_t>(7 + stream);
    r.grid_x = 132, r.grid_y = 1, r.grid_z = 1;
    r.block_x = 256, r.block_y = 1, r.block_z = 1;
    r.correlation_id = corr;
    r.name = nullptr;  // set at delivery, when the names' storage no longer moves
    write(&r, sizeof r);
    name_index.push_back({pending.size() - 1, names.size() - 1});
  }

  /// Writes a memcpy or memset record directly (the parser's tests).
  void write(const void* p, std::size_t n) {
    std::vector<std::uint8_t> bytes(n);
    std::memcpy(bytes.data(), p, n);
    pending.push_back(std::move(bytes));
  }

  /// Delivers the pending records in one buffer through the registered callbacks.
  void deliver() {
    ++flushes;
    if (pending.empty() || !requested || !completed) return;
    for (const auto& [record, name] : name_index) {
      const char* ptr = names[name].c_str();
      std::memcpy(pending[record].data() + offsetof(detail::cupti::record::Kernel, name), &ptr, sizeof ptr);
    }
    name_index.clear();
    std::uint8_t* buffer = nullptr;
    std::size_t size = 0, max_records = 0;
    requested(&buffer, &size, &max_records);
    std::size_t at = 0;
    for (const auto& r : pending) {
      const std::size_t padded = (r.size() + 7) / 8 * 8;
      if (at + padded > size) break;
      std::memset(buffer + at, 0, padded);
      std::memcpy(buffer + at, r.data(), r.size());
      at += padded;
    }
    pending.clear();
    completed(nullptr, 0, buffer, size, at);
  }

  /// Size of a record in the buffer, by its kind (padded to 8 bytes).
  static std::size_t record_size(const void* rec) {
    std::uint32_t k = 0;
    std::memcpy(&k, rec, sizeof k);
    std::size_t n = 40;
    if (k == static_cast<std::uint32_t>(detail::cupti::kind::concurrent_kernel) || k == static_cast<std::uint32_t>(detail::cupti::kind::kernel))
      n = sizeof(detail::cupti::record::Kernel);
    else if (k == static_cast<std::uint32_t>(detail::cupti::kind::memcpy)) n = sizeof(detail::cupti::record::Memcpy);
    else if (k == static_cast<std::uint32_t>(detail::cupti::kind::memset)) n = sizeof(detail::cupti::record::Memset);
    else if (k == static_cast<std::uint32_t>(detail::cupti::kind::external_correlation)) n = sizeof(detail::cupti::record::ExternalCorrelation);
    return (n + 7) / 8 * 8;
  }

  std::vector<std::pair<std::size_t, std::size_t>> name_index;  ///< (pending record, name) to patch
};

/// Makes a FakeCupti the CUPTI every experiment uses, for the lifetime of this object.
class ScopedFakeCupti {
 public:
  ScopedFakeCupti() : lib_(detail::cupti::Library::from_api(FakeCupti::api(), "fake libcupti")) {
    FakeCupti::current() = &fake;
    detail::cupti::Library::set_active(lib_.get());
  }
  /// A CUPTI that lacks `cuptiActivityPushExternalCorrelationId` (unusable).
  explicit ScopedFakeCupti(bool incomplete) {
    detail::cupti::Api a = FakeCupti::api();
    if (incomplete) a.push_external_correlation_id = nullptr;
    lib_ = detail::cupti::Library::from_api(a, "fake libcupti");
    FakeCupti::current() = &fake;
    detail::cupti::Library::set_active(lib_.get());
  }
  ~ScopedFakeCupti() {
    detail::cupti::Library::set_active(nullptr);
    FakeCupti::current() = nullptr;
  }
  ScopedFakeCupti(const ScopedFakeCupti&) = delete;
  ScopedFakeCupti& operator=(const ScopedFakeCupti&) = delete;
  FakeCupti fake;

 private:
  std::unique_ptr<detail::cupti::Library> lib_;
};

}  // namespace gauge::testing
