#!/usr/bin/env bash
# The tests: installs what is missing (scripts/install-deps.sh --for test), builds everything
# (Release, -Wall -Wextra -Werror for host code) and runs CTest. GPU tests run where a GPU exists
# and are reported as skipped where none does. gauge's Catch2 matchers are tested against Catch2
# v2 and, where install-deps.sh brought its sources, v3. Arguments go to ctest.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bash "$here/install-deps.sh" --for test
source "$here/env.sh"
catch2_v3=
if [ -f "$GAUGE_CATCH2_V3_DIR/extras/catch_amalgamated.cpp" ]; then catch2_v3=$GAUGE_CATCH2_V3_DIR; fi
echo "gauge: configuring $GAUGE_BUILD"
cmake -S "$GAUGE_ROOT" -B "$GAUGE_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGAUGE_BUILD_TESTS=ON -DGAUGE_BUILD_EXAMPLES=ON \
      "-DGAUGE_CATCH2_V3_SOURCE_DIR=$catch2_v3"
echo "gauge: building"
cmake --build "$GAUGE_BUILD" -j "$(nproc)"
echo "gauge: testing"
ctest --test-dir "$GAUGE_BUILD" --output-on-failure -j "$(nproc)" "$@"
