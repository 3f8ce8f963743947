// Catch2 entry point for gauge's host tests (Catch2 v2 or v3).
#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_session.hpp>
int main(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
int main(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }
#endif

#if defined(GAUGE_SANITIZED)
// Built with sanitizers (GAUGE_TEST_SANITIZE): their options, so that every way of running the
// tests (CTest, test discovery, by hand) gets them. ASAN_OPTIONS and UBSAN_OPTIONS override them.
// Leaks count; a UBSan finding stops the test; where a GPU is, the CUDA driver maps memory in ASan's
// shadow gap unless it is left unprotected.
extern "C" const char* __asan_default_options() {
  return "detect_leaks=1:abort_on_error=0:strict_string_checks=1:protect_shadow_gap=0";
}
extern "C" const char* __ubsan_default_options() { return "print_stacktrace=1:halt_on_error=1"; }
// glibc's setlocale keeps the parsed LOCPATH (argz_add_sep) for the process's life: not gauge's, and
// seen only by tests/test_locale.cpp, which compiles a comma locale where none is installed.
extern "C" const char* __lsan_default_suppressions() { return "leak:argz_add_sep\n"; }
#endif
