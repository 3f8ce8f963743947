#pragma once
/// \file gauge/detail/backend_traits.hpp
/// Which optional parts of the backend interface (gauge/experiment.hpp's file comment) a backend
/// has: `backend_has_telemetry<B>::value` and the like, detected from the expressions below.
/// BackendAdaptorBase calls a part only where its backend has it.

#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

namespace gauge::detail {

#define GAUGE_DETAIL_HAS(trait, expr)                                           \
  template <class B, class = void>                                              \
  struct trait : std::false_type {};                                            \
  template <class B>                                                            \
  struct trait<B, std::void_t<decltype(expr)>> : std::true_type {};
GAUGE_DETAIL_HAS(backend_has_telemetry, std::declval<B&>().telemetry_probe(std::declval<std::string&>()))
GAUGE_DETAIL_HAS(backend_has_memory, std::declval<B&>().memory_snapshot())
GAUGE_DETAIL_HAS(backend_has_kernels, std::declval<B&>().kernel_binary(nullptr, std::string()))
GAUGE_DETAIL_HAS(backend_has_reset_persisting_l2, std::declval<B&>().reset_persisting_l2())
GAUGE_DETAIL_HAS(backend_has_host_memory, std::declval<B&>().host_memory())
GAUGE_DETAIL_HAS(backend_has_time_label, B::time_label)
GAUGE_DETAIL_HAS(backend_has_streams, std::declval<B&>().select_stream(std::size_t{}))
GAUGE_DETAIL_HAS(backend_has_clock_probe, std::declval<B&>().clock_probe_read())
GAUGE_DETAIL_HAS(backend_has_device_attributes, std::declval<const B&>().device_attributes())
GAUGE_DETAIL_HAS(backend_has_cache_flush_record, std::declval<B&>().cache_flush_record())
GAUGE_DETAIL_HAS(backend_has_adopt_stream, std::declval<B&>().adopt_stream(std::declval<typename B::stream_type>()))
GAUGE_DETAIL_HAS(backend_has_threads, std::declval<B&>().threads_declared())
#undef GAUGE_DETAIL_HAS

}  // namespace gauge::detail
