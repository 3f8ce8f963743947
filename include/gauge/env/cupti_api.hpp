#pragma once
/// \file gauge/env/cupti_api.hpp
/// The part of CUPTI's Activity API gauge declares itself (gauge/env/cupti.hpp says from which
/// headers): result codes, the activity kinds, the record prefixes gauge reads with their
/// offsets, the buffer callbacks and the table of entries (`cupti::Api`). Part of
/// gauge/env/cupti.hpp.

#include <cstddef>
#include <cstdint>

namespace gauge::detail::cupti {

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

}  // namespace gauge::detail::cupti
