// Compile-time benchmark, program B: program A (sort_gauge.cpp, with report_main.cpp) as one
// file: the host experiment of std::sort and gauge's implementation and report in one
// translation unit, compiled and linked.
#include "report_main.cpp"
#include "sort_gauge.cpp"
