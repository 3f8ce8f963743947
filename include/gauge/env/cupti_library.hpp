#pragma once
/// \file gauge/env/cupti_library.hpp
/// CUPTI loaded at run time (`cupti::Library`): dlopen of libcupti.so, its entries resolved into
/// a `cupti::Api`, the reason when it cannot be used, and the process-wide instance every
/// experiment uses. Part of gauge/env/cupti.hpp.

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "gauge/env/cupti_api.hpp"

namespace gauge::detail::cupti {

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

}  // namespace gauge::detail::cupti
