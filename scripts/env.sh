# Sourced by gauge's scripts: puts nvcc on PATH when the toolkit is in /usr/local/cuda.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
GAUGE_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
GAUGE_BUILD=${GAUGE_BUILD:-$GAUGE_ROOT/build}
# Catch2 v3's sources, pinned (scripts/fetch-catch2-v3.sh brings them; the tests build gauge's
# Catch2 matchers against them as well as against the installed Catch2 v2).
GAUGE_CATCH2_V3_VERSION=3.7.1-0.5
GAUGE_CATCH2_V3_DIR=${GAUGE_CATCH2_V3_DIR:-$GAUGE_ROOT/.deps-src/catch2-$GAUGE_CATCH2_V3_VERSION}
# nanobind, pinned (scripts/fetch-nanobind.sh brings it; the test build compiles gauge's Python
# module with it). The Python the module is built for and tested with: Debian's, with NumPy and pytest.
GAUGE_NANOBIND_VERSION=3.1.0
GAUGE_NANOBIND_DIR=${GAUGE_NANOBIND_DIR:-$GAUGE_ROOT/.deps-src/nanobind-$GAUGE_NANOBIND_VERSION}
if [ -z "${GAUGE_TEST_PYTHON:-}" ]; then
  if [ -x /usr/bin/python3 ]; then GAUGE_TEST_PYTHON=/usr/bin/python3; else GAUGE_TEST_PYTHON=$(command -v python3 || echo python3); fi
fi
