#pragma once
/// \file gauge/core/do_not_optimize.hpp
/// Keeping the optimizer from removing the work a host step measures. A step whose result is never
/// used can be deleted whole by the compiler (a sum of a vector at -O2 then reads as 1-3 ns,
/// the empty step's cost); do_not_optimize(result) makes the compiler treat the value as read
/// (and, for a non-const lvalue, as possibly written), clobber_memory() makes it treat all memory
/// as read and written, so that stores before it happen. Neither emits an instruction of its own
/// (a value that is not an integer or pointer may be stored to memory first).
/// The technique (an empty `asm volatile` with the value as operand and a "memory" clobber) is
/// Chandler Carruth's, "Tuning C++: Benchmarks, and CPUs, and Compilers! Oh My!" (CppCon 2015),
/// as Google Benchmark's DoNotOptimize and ClobberMemory use it. GCC and Clang (nvcc's host
/// compiler); host code only.

#include <type_traits>

namespace gauge {

namespace detail {
/// Whether do_not_optimize passes `T` in a general-purpose register ("r"): integers, enums and
/// pointers. Anything else goes through memory ("m"), which is correct for every type and costs a
/// store at most; no multi-alternative constraint ("r,m"), which compilers have handled unevenly.
template <class T>
inline constexpr bool in_register_v = (std::is_integral_v<T> || std::is_enum_v<T> || std::is_pointer_v<T>) && sizeof(T) <= sizeof(void*);
}  // namespace detail

/// The compiler must assume `value` is read here: the computation that produced it is kept.
/// \param value any object.
template <class T>
inline void do_not_optimize(const T& value) {
  if constexpr (std::is_function_v<T>) {
    const auto address = &value;  // a function: its address is what can be kept
    asm volatile("" : : "r"(address) : "memory");
  } else if constexpr (detail::in_register_v<std::remove_cv_t<T>> && !std::is_volatile_v<T>) {
    asm volatile("" : : "r"(value) : "memory");
  } else {
    asm volatile("" : : "m"(value) : "memory");
  }
}

/// The compiler must assume `value` is read and may have been changed here: the computation
/// that produced it is kept, and later code cannot reuse what it knew of the value.
/// A volatile or a function is only read (a volatile is never written back: it may be a device
/// register).
template <class T>
inline void do_not_optimize(T& value) {
  if constexpr (std::is_function_v<T> || std::is_volatile_v<T>) {
    do_not_optimize(static_cast<const T&>(value));
  } else if constexpr (detail::in_register_v<T>) {
    asm volatile("" : "+r"(value) : : "memory");
  } else {
    asm volatile("" : "+m"(value) : : "memory");
  }
}

/// The compiler must assume all memory is read and written here: stores before it are made.
inline void clobber_memory() { asm volatile("" : : : "memory"); }

}  // namespace gauge
