#pragma once
// Includes Catch2 v3 where it is installed, else Catch2 v2 (Debian 12's `catch2` package).
#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
#define GAUGE_CATCH2_V3 1
using Catch::Approx;
#else
#include <catch2/catch.hpp>
#define GAUGE_CATCH2_V3 0
#endif
