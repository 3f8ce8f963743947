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

#include "gauge/core/kernel_trace_summary.hpp"
#include "gauge/env/cupti_api.hpp"
#include "gauge/env/cupti_library.hpp"
#include "gauge/env/cupti_tracer.hpp"
