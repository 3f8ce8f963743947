#pragma once
/// \file gauge/detail/enum_names.hpp
/// The text names of an enum's values as one table, so that `to_string` of an enum is a lookup
/// in the list that names each value once.

#include <cstddef>

namespace gauge::detail {

/// One value of enum `E` and its text name.
template <class E>
struct EnumName {
  E value;           ///< the value
  const char* name;  ///< its stable text name (as written in reports)
};

/// The name of `e` in `table`, or "?" for a value the table lacks (e.g. a cast integer).
template <class E, std::size_t N>
constexpr const char* name_of(const EnumName<E> (&table)[N], E e) {
  for (const EnumName<E>& n : table)
    if (n.value == e) return n.name;
  return "?";
}

}  // namespace gauge::detail
