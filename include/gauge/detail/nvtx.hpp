#pragma once
/// \file gauge/detail/nvtx.hpp
/// NVTX ranges in gauge's own domain ("gauge"), so Nsight Systems and Nsight Compute show which
/// benchmark point ran when, and inside it the protocol's warm-up and measured rounds (`nsys
/// profile`, `ncu --nvtx --nvtx-include "gauge@*"`). Used by the protocol and the suite runner;
/// gauge/suite/nvtx.hpp re-exports it.
///
/// NVTX v3 is header-only and ships with the CUDA toolkit (`nvtx3/nvToolsExt.h`): without a tool
/// attached, a range costs one test of a function pointer (no library is loaded). Where the header
/// is not found (a host-only build without the toolkit) or GAUGE_NO_NVTX is defined, the ranges
/// compile to nothing.

#include <string>

#if !defined(GAUGE_NO_NVTX) && __has_include(<nvtx3/nvToolsExt.h>)
#include <nvtx3/nvToolsExt.h>
#define GAUGE_HAS_NVTX 1
#else
#define GAUGE_HAS_NVTX 0
#endif

namespace gauge {

namespace detail {
/// Whether NVTX ranges are emitted by this build (the nvtx3 header was found).
inline constexpr bool nvtx_available = GAUGE_HAS_NVTX != 0;
}  // namespace detail

#if GAUGE_HAS_NVTX
namespace detail {
/// gauge's NVTX domain, created on first use.
inline nvtxDomainHandle_t nvtx_domain() {
  static nvtxDomainHandle_t domain = nvtxDomainCreateA("gauge");
  return domain;
}
}  // namespace detail
#endif

/// A push/pop NVTX range in the "gauge" domain for the lifetime of the object (RAII); `message`
/// is the range's name, e.g. "triad/T=float/N=4096". Not copyable; never throws.
class NvtxRange {
 public:
  explicit NvtxRange(const std::string& message) noexcept {
#if GAUGE_HAS_NVTX
    nvtxEventAttributes_t a{};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = message.c_str();
    nvtxDomainRangePushEx(detail::nvtx_domain(), &a);
#else
    (void)message;
#endif
  }
  ~NvtxRange() {
#if GAUGE_HAS_NVTX
    nvtxDomainRangePop(detail::nvtx_domain());
#endif
  }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

}  // namespace gauge
