#!/usr/bin/env bash
# The tests: installs what is missing (scripts/install-deps.sh --for test), builds everything
# (Release, -Wall -Wextra -Werror for host code) and runs CTest. GPU tests run where a GPU exists
# and are reported as skipped where none does. gauge's Catch2 matchers are tested against Catch2
# v2 and, where install-deps.sh brought its sources, v3. Arguments go to ctest.
#
# Sanitizers (issue 11; GAUGE_TEST_SANITIZERS=0 leaves them out):
# - the main build (g++) leaves the host tests out (GAUGE_BUILD_HOST_TESTS=OFF); CTest runs every
#   other test there;
# - then a clang build in $GAUGE_BUILD-clang (-O0): every host test (gauge_tests, with a compiled
#   part of its own) with ASan+UBSan (clang compiles them so in about half g++'s time: 141 s
#   against ~200 s on 2 cores), run by CTest there (`-L host_tests`), and the
#   libFuzzer target of the report reader (the tools are built, -Werror, by the main build only), run for $GAUGE_FUZZ_SECONDS (default 15) seconds on a
#   seed corpus of the stored reports (tests/data/reports/).
# GAUGE_TEST_SANITIZERS=0: the host tests unsanitized in the main build, and no clang build.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# Each stage's cost, printed as it ends (the README quotes them).
stage() { echo "gauge: [$(date -u +%H:%M:%S), +${SECONDS} s] $*"; }
bash "$here/install-deps.sh" --for test
source "$here/env.sh"
catch2_v3=
if [ -f "$GAUGE_CATCH2_V3_DIR/extras/catch_amalgamated.cpp" ]; then catch2_v3=$GAUGE_CATCH2_V3_DIR; fi
# The test build optimizes at -O1, not Release's -O3: the tests check behaviour, not speed (speed is
# measured by bench/ on the GPU machine), and -O1 halves the compile time of gauge's larger files
# (gauge-compare: 53 s at -O3, 29 s at -O1 on a 2-core machine); at -O1 GCC reports std::optional's
# payload as maybe uninitialized where it is not (GCC bug 80635). Without a GPU, the CUDA programs that
# only run on GPUs (the GPU tests, gauge-peaks, the MPI GPU examples) are not built: their tests
# report as skipped either way (GAUGE_BUILD_GPU_ONLY=OFF).
gpu_examples=ON
if ! { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU; }; then gpu_examples=OFF; fi
# The Python module (python/) with the pinned nanobind, for the Python the tests use.
python_args=() python_module=off
if [ -d "$GAUGE_NANOBIND_DIR/nanobind/cmake" ]; then
  python_module=on
  python_args=(-DGAUGE_BUILD_PYTHON=ON "-DPython_EXECUTABLE=$GAUGE_TEST_PYTHON" "-Dnanobind_DIR=$GAUGE_NANOBIND_DIR/nanobind/cmake")
fi
# The host tests (gauge_tests): with ASan+UBSan in the clang build below, or (GAUGE_TEST_SANITIZERS=0)
# without, in this one.
sanitize=address,undefined host_tests=OFF
[ "${GAUGE_TEST_SANITIZERS:-1}" = 0 ] && sanitize= host_tests=ON
# Header isolation: the headers README.md names and the entry points here (GAUGE_TEST_ALL_HEADERS=1:
# every header, as scripts/gpu-verify.sh checks them on the GPU machine's 16 cores before a landing).
# The examples' speed comparisons (GAUGE_TEST_SPEED_CHECKS) are left out: no test here depends on
# the machine's speed.
header_isolation=documented
[ "${GAUGE_TEST_ALL_HEADERS:-0}" = 1 ] && header_isolation=all
stage "configuring $GAUGE_BUILD (GPU-only programs: $gpu_examples; Python module: $python_module)"
cmake -S "$GAUGE_ROOT" -B "$GAUGE_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGAUGE_BUILD_TESTS=ON -DGAUGE_BUILD_EXAMPLES=ON \
      "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG -Wno-maybe-uninitialized" \
      "-DCMAKE_CUDA_FLAGS_RELEASE=-O1 -DNDEBUG -Xcompiler=-Wno-maybe-uninitialized" \
      "-DGAUGE_BUILD_GPU_ONLY=$gpu_examples" "-DGAUGE_CATCH2_V3_SOURCE_DIR=$catch2_v3" "${python_args[@]}" \
      "-DGAUGE_BUILD_HOST_TESTS=$host_tests" "-DGAUGE_HEADER_ISOLATION=$header_isolation" -DGAUGE_TEST_SPEED_CHECKS=OFF
stage "building"
cmake --build "$GAUGE_BUILD" -j "$(nproc)"
stage "testing (CTest)"
# A failing stage does not hide the stages after it: CTest's status is kept, the clang build and
# the fuzzer still run, and the script exits non-zero at the end naming what failed.
failed=()
ctest --test-dir "$GAUGE_BUILD" --output-on-failure -j "$(nproc)" "$@" || failed+=("CTest")

if [ "${GAUGE_TEST_SANITIZERS:-1}" != 0 ]; then
  # The clang build (the host tests with ASan+UBSan at -O0; the fuzz target), CTest of the host
  # tests there, then the fuzzer.
  jobs=$(nproc)
  clang_build=$GAUGE_BUILD-clang
  stage "clang build in $clang_build (host tests with $sanitize, fuzz target)"
  if ! { cmake -S "$GAUGE_ROOT" -B "$clang_build" -G Ninja -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O0" \
           -DCMAKE_CXX_COMPILER=clang++ -DGAUGE_ENABLE_CUDA=OFF -DGAUGE_BUILD_TESTS=ON -DGAUGE_BUILD_EXAMPLES=OFF \
           -DGAUGE_BUILD_FUZZERS=ON -DGAUGE_CATCH2_V3_SOURCE_DIR= "-DGAUGE_TEST_SANITIZE=$sanitize" >/dev/null &&
         cmake --build "$clang_build" -j "$jobs" --target gauge_tests gauge_fuzz_read_report; } \
       > "$GAUGE_BUILD/clang-build.log" 2>&1; then
    cat "$GAUGE_BUILD/clang-build.log"
    echo "gauge: the clang build failed (above)" >&2
    failed+=("the clang build")
  else
    stage "testing the host tests with $sanitize (CTest in $clang_build)"
    ctest --test-dir "$clang_build" -L host_tests --output-on-failure -j "$jobs" "$@" || failed+=("the sanitized host tests")
    seconds=${GAUGE_FUZZ_SECONDS:-15}
    stage "fuzzing the report reader for $seconds s"
    corpus=$clang_build/fuzz-corpus
    mkdir -p "$corpus"
    "$clang_build/tests/fuzz/gauge_fuzz_read_report" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 \
        -print_final_stats=1 -artifact_prefix="$clang_build/fuzz-" "$corpus" "$GAUGE_ROOT/tests/data/reports" ||
      failed+=("the fuzzer")
  fi
fi
if [ ${#failed[@]} -gt 0 ]; then
  stage "FAILED: ${failed[*]}"
  exit 1
fi
stage "done"
