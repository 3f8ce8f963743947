// A consumer of the installed package written for a plain build: it defines GAUGE_IMPLEMENTATION,
// which gauge's CMake targets turn into a no-op (their library holds the compiled part), so it
// builds and links without duplicate symbols.
#define GAUGE_IMPLEMENTATION  // this file compiles gauge's implementation (once per program)
#include "consumer_main.hpp"

int main(int argc, char** argv) { return consumer_main(argc, argv, "consumer.json", std::chrono::milliseconds(300)); }
