// Compile-time benchmark, program D: a file that only includes gauge's umbrella header.
#include <gauge/gauge.hpp>

int main() {}
