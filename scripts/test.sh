#!/usr/bin/env bash
# The tests: installs what is missing, builds everything (Release, -Wall -Wextra -Werror for
# host code) and runs CTest. GPU tests run where a GPU exists and are reported as skipped where
# none does.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bash "$here/install-deps.sh"
source "$here/env.sh"
cmake -S "$GAUGE_ROOT" -B "$GAUGE_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGAUGE_BUILD_TESTS=ON -DGAUGE_BUILD_EXAMPLES=ON
cmake --build "$GAUGE_BUILD" -j "$(nproc)"
ctest --test-dir "$GAUGE_BUILD" --output-on-failure -j "$(nproc)" "$@"
