// GAUGE_FMT_HEADER_ONLY: a program that includes only <gauge/timer.hpp> builds and links without
// libfmt (tests/CMakeLists.txt links no fmt library here), and formats as the linked mode does.
#include <gauge/timer.hpp>

#include <cstdio>
#include <string>

int main() {
  const std::string t = gauge::format_time(1.5e-6);  // fmt::format, header-only here
  std::printf("%s\n", t.c_str());
  return t == "1.5 us" ? 0 : 1;
}
