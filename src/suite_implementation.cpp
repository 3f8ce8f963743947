// The suite runner's compiled part (gauge/suite/implementation.hpp: CLI11, planning, the tables)
// as the CMake target gauge::suite builds it, once per build tree. A plain build compiles the same
// code in the file that defines GAUGE_IMPLEMENTATION and includes <gauge/suite.hpp>.
#include <gauge/suite/implementation.hpp>
