#pragma once
// Includes Catch2 v3 where it is installed, else Catch2 v2 (Debian 12's `catch2` package).
#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
#define GAUGE_CATCH2_V3 1
using Catch::Approx;
#include <string>
namespace Catch {
/// Catch2 v2's `Catch::Contains` (a substring matcher; v3 calls it Matchers::ContainsSubstring), so
/// that the tests read the same against both versions.
inline Matchers::StringContainsMatcher Contains(const std::string& s, CaseSensitive cs = CaseSensitive::Yes) {
  return Matchers::ContainsSubstring(s, cs);
}
}  // namespace Catch
#else
#include <catch2/catch.hpp>
#define GAUGE_CATCH2_V3 0
#endif
