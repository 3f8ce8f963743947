// gauge's compiled part for the test programs (gauge/implementation.hpp), in its own file so
// that every test file includes only what it tests.
#include <gauge/implementation.hpp>
