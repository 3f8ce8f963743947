// gauge's compiled part, measured peaks (gauge/implementation/peaks_cache.hpp), as the CMake targets build it: once
// per build tree, with the consumer's compiler and flags, into the static library behind
// gauge::gauge (gauge_implementation) and gauge::host (gauge_host_implementation, GAUGE_NO_CUDA).
// A plain build compiles the same code in the one file that defines GAUGE_IMPLEMENTATION.
#include <gauge/implementation/peaks_cache.hpp>
