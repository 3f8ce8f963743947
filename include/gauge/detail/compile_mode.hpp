#pragma once
/// \file gauge/detail/compile_mode.hpp
/// The inline namespace of the gauge types that differ with the compiler of the translation unit
/// (the launch gate and CudaBackend, whose gate kernel exists only under nvcc): `cuda_compiled`
/// where nvcc compiles it, `host_compiled` elsewhere. A program that mixes both kinds of
/// translation unit then holds two distinct types instead of one type defined two ways.

#if defined(__CUDACC__)
#define GAUGE_DETAIL_INLINE_COMPILE_MODE_NAMESPACE inline namespace cuda_compiled {
#else
#define GAUGE_DETAIL_INLINE_COMPILE_MODE_NAMESPACE inline namespace host_compiled {
#endif

/// Opens `namespace gauge` and the inline namespace of this translation unit's compiler.
#define GAUGE_BEGIN_COMPILE_MODE_NAMESPACE \
  namespace gauge {                        \
  GAUGE_DETAIL_INLINE_COMPILE_MODE_NAMESPACE

/// Closes what GAUGE_BEGIN_COMPILE_MODE_NAMESPACE opened.
#define GAUGE_END_COMPILE_MODE_NAMESPACE \
  }                                      \
  }

/// Opens `namespace gauge::backend_parts` (the CUDA backend's parts) and the inline namespace of this
/// translation unit's compiler, as GAUGE_BEGIN_COMPILE_MODE_NAMESPACE does for `gauge`.
#define GAUGE_BEGIN_BACKEND_PARTS_COMPILE_MODE_NAMESPACE \
  namespace gauge {                                 \
  namespace backend_parts {                              \
  GAUGE_DETAIL_INLINE_COMPILE_MODE_NAMESPACE

/// Closes what GAUGE_BEGIN_BACKEND_PARTS_COMPILE_MODE_NAMESPACE opened.
#define GAUGE_END_BACKEND_PARTS_COMPILE_MODE_NAMESPACE \
  }                                               \
  }                                               \
  }
