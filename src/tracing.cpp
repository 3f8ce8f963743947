// Kernel tracing's compiled part (gauge/implementation/tracing.hpp: CUPTI) as the CMake target
// gauge::gauge builds it, once per build tree, into the static library gauge_implementation; not
// in gauge::host's. A plain build compiles the same code in the file that defines
// GAUGE_IMPLEMENTATION and includes <gauge/tracing.hpp>.
#include <gauge/implementation/tracing.hpp>
