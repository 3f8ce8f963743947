// A consumer that does not define GAUGE_IMPLEMENTATION: gauge::host brings gauge's compiled part,
// which CMake built in this project's tree. Built -O2 with NDEBUG while the compiled part is built
// Debug: the report must name this file's flags, not the library's (Report(path) is inline).
#include "consumer_main.hpp"

int main(int argc, char** argv) {
  return consumer_main(argc, argv, "consumer-linked.json", std::chrono::milliseconds(200));
}
