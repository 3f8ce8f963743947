#!/usr/bin/env bash
# One H200 call for issue 21 ("Same code, same verdict"), in parts (default: build tests ab verdict):
#   source .deps/activate.sh && bash scripts/gpu-issue21.sh [build] [tests] [ab] [verdict] [peaks]
# build:   configures build-h200/ (sm_90, benchmarks on) and builds the targets the parts use;
# tests:   the GPU tests (gauge_gpu_tests: the clock probe against a clock-bound kernel and NVML,
#          interleaved A/B of spin kernels, everything else), their printed lines in the summary;
# ab:      bench/bench_ab (in-process interleaved A/B of spin kernels 1 % apart, 20 runs each);
# verdict: scripts/gpu-verdict.sh until DEADLINE seconds after this script started (default 560);
# peaks:   scripts/gpu-peaks.sh where it exists (issue "Speed of light");
# suiteab: the suite runner's --interleave on the GPU (examples/sweep): a copy against itself at
#          twice the size (B/A near 2), and fp16 against bf16 GEMM at 4096^3;
# regression: scripts/gpu-regression.sh trials $FIRST-$LAST (default 1-10) until DEADLINE seconds
#          after this script started (default 560);
# ctest:   builds every target and runs CTest without the GPU-test cases (run one per process by
#          `tests`), the consumer builds and header isolation: the examples' GPU runs, the Quickstart;
# versions: the GEMM example of prev/ (an earlier commit's tree, carried) against this tree's, by
#          gauge-ab (3 runs per side, gate), at VN^3 (default 4096);
# python:  the Python package (built by `build` where python3 has Python.h and nanobind is carried):
#          its tests, examples/training_loop.py, bench/bench_python_gauge.py and bench_method;
# wheel:   `pip wheel .` as a user builds it (build tools from carried wheels), installed apart and
#          the Python tests run against the install.
# Files in $OUT: summary.log, and the parts' own files (verdict: verdict.log, summary.md,
# reports.tar.gz), the rest packed into logs.tar.gz.
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT/r"
export PATH=/usr/local/cuda/bin:$PATH
B=build-h200
S=$OUT/summary.log
START=$SECONDS
log() { echo "$@" | tee -a "$S"; }
# The GPU tests' names, one per line: Catch2 v2 lists them with --list-test-names-only, v3 (the
# H200's) with --list-tests --verbosity quiet.
list_tests() {
  local names
  names=$($B/tests/gauge_gpu_tests --list-test-names-only 2>/dev/null)
  [ -z "$names" ] && names=$($B/tests/gauge_gpu_tests --list-tests --verbosity quiet 2>/dev/null)
  printf '%s\n' "$names"
}
pack() { tar czf "$OUT/logs.tar.gz" -C "$OUT" r && rm -rf "$OUT/r"; }
trap pack EXIT
parts=("$@")
[ ${#parts[@]} -eq 0 ] && parts=(build tests ab verdict)
{ date -u; nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,clocks.mem,temperature.gpu,power.draw,power.limit --format=csv
  git log -1 --oneline 2>/dev/null; } | tee -a "$S"
for p in "${parts[@]}"; do
  case "$p" in
    build)
      t0=$SECONDS
      # The Python module where this machine's python3 has its headers and nanobind is carried
      # (.deps-src/nanobind-*: scripts/fetch-nanobind.sh).
      py_args=() py_targets=()
      py=$(command -v python3)
      py_inc=$("$py" -c "import sysconfig; print(sysconfig.get_paths()['include'])" 2>/dev/null)
      nb=$(ls -d .deps-src/nanobind-*/nanobind/cmake 2>/dev/null | head -1)
      if [ -f "$py_inc/Python.h" ] && [ -n "$nb" ]; then
        py_args=(-DGAUGE_BUILD_PYTHON=ON "-DPython_EXECUTABLE=$py" "-Dnanobind_DIR=$PWD/$nb"); py_targets=(_gauge bench_method)
        log "python module: $py ($("$py" --version 2>&1)), nanobind $nb"
      else
        log "NO PYTHON MODULE: Python.h at '$py_inc' $( [ -f "$py_inc/Python.h" ] && echo found || echo missing ), nanobind '${nb:-not carried}'"
      fi
      cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DGAUGE_BUILD_BENCH=ON \
            -DGAUGE_BUILD_TESTS=ON -DGAUGE_BUILD_EXAMPLES=ON "${py_args[@]}" > "$OUT/r/build.log" 2>&1 || { tail -30 "$OUT/r/build.log" | tee -a "$S"; exit 1; }
      targets=(gemm gauge-compare gauge-export gauge_gpu_tests bench_ab sweep "${py_targets[@]}")
      [ -f scripts/gpu-peaks.sh ] && targets+=(gauge-peaks sweep bench_l2_flush)
      if cmake --build $B -j 16 --target "${targets[@]}" -- -k 0 >> "$OUT/r/build.log" 2>&1; then log "== build ok ($((SECONDS - t0)) s)"
      else log "== BUILD FAILED:"; grep -E "error|FAILED" "$OUT/r/build.log" | head -20 | tee -a "$S"; fi ;;
    tests)
      t0=$SECONDS
      log "== GPU tests"
      # One process per test case (CTest, as CI's GPU job does): the lost-context test must not
      # poison the cases after it.
      : > "$OUT/r/gpu-tests.log"
      fails=0; n=0
      while IFS= read -r name; do
        [ -z "$name" ] && continue
        n=$((n + 1))
        timeout 120 $B/tests/gauge_gpu_tests "$name" >> "$OUT/r/gpu-tests.log" 2>&1 || { fails=$((fails + 1)); log "FAILED: $name"; }
      done < <(list_tests | sed 's/^ *//; s/\([][,*\\]\)/\\\1/g')
      log "GPU tests: $n cases, $fails failed, one process each ($((SECONDS - t0)) s)"
      grep -E "^(clock probe|interleaved|spin|traced|GPU:|telemetry|16 MiB|other stream|memory:|kernel )" "$OUT/r/gpu-tests.log" | tee -a "$S"
      grep -E "FAILED|failed|passed" -A3 "$OUT/r/gpu-tests.log" | tail -30 | tee -a "$S" ;;
    ab)
      t0=$SECONDS
      log "== bench_ab"
      timeout 300 $B/bench/bench_ab > "$OUT/r/bench_ab.md" 2> "$OUT/r/bench_ab.err"; log "exit $? ($((SECONDS - t0)) s)"
      cat "$OUT/r/bench_ab.md" | tee -a "$S"; tail -5 "$OUT/r/bench_ab.err" | tee -a "$S" ;;
    verdict)
      left=$(( ${DEADLINE:-560} - (SECONDS - START) ))
      log "== gpu-verdict.sh with DEADLINE=$left s"
      [ $left -gt 60 ] && OUT=$OUT B=$B DEADLINE=$left bash scripts/gpu-verdict.sh > "$OUT/r/verdict-stdout.log" 2>&1
      cat "$OUT/summary.md" 2>/dev/null | tee -a "$S" ;;
    peaks)
      if [ -f scripts/gpu-peaks.sh ]; then log "== gpu-peaks.sh"; OUT=$OUT/r GAUGE_BUILD_DIR=$B timeout 240 bash scripts/gpu-peaks.sh 2>&1 | tail -70 | tee -a "$S"
      else log "no scripts/gpu-peaks.sh"; fi ;;
    suiteab)
      log "== sweep --interleave"
      for pair in "copy/T=float/bytes=268435456 copy/T=float/bytes=536870912" "gemm/N=4096/dtype=fp16 gemm/N=4096/dtype=bf16"; do
        n=$(echo "$pair" | tr '/= ' '___')
        timeout 60 $B/examples/sweep --interleave $pair --max-time 4 --out "$OUT/r/interleave-$n.json" > "$OUT/r/interleave-$n.log" 2>&1
        log "sweep --interleave $pair: exit $?"
        grep -A3 "^interleaved A/B\|B/A" "$OUT/r/interleave-$n.log" | head -8 | tee -a "$S"
      done ;;
    regression)
      left=$(( ${DEADLINE:-560} - (SECONDS - START) ))
      log "== gpu-regression.sh trials ${FIRST:-1}-${LAST:-10} with DEADLINE=$left s"
      [ $left -gt 100 ] && OUT=$OUT B=$B DEADLINE=$left bash scripts/gpu-regression.sh > "$OUT/r/regression-stdout.log" 2>&1
      cat "$OUT/regression-${FIRST:-1}.md" 2>/dev/null | tee -a "$S" ;;
    ctest)
      # The CTest tests that need a GPU (the examples' runs, the README's Quickstart built with nvcc
      # exactly as written and run) beside the host tests, in build-h200/.
      t0=$SECONDS
      log "== ctest (all targets built first)"
      cmake --build $B -j 16 -- -k 0 > "$OUT/r/build-all.log" 2>&1 || { log "BUILD (all) FAILED:"; grep -E "error|FAILED" "$OUT/r/build-all.log" | head -20 | tee -a "$S"; }
      (cd $B && timeout 400 ctest -j 8 -E "^gpu:|consumer_|header_isolation" --output-on-failure > "$OUT/r/ctest.log" 2>&1)
      log "ctest exit $? ($((SECONDS - t0)) s)"
      grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)|example_.*gpu|readme_quickstart|mpi:" "$OUT/r/ctest.log" | tail -25 | tee -a "$S" ;;
    versions)
      # This tree's GEMM against the previous version's (prev/, carried: `git archive <commit>`),
      # by the CI recipe: gauge-ab, 3 runs per side alternately, gauge-compare's gate.
      t0=$SECONDS
      log "== versions: prev/ ($(cat prev/.commit 2>/dev/null || echo '?')) against this tree, gemm ${VN:-4096}^3"
      cmake -S prev -B build-prev -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DGAUGE_BUILD_TESTS=OFF \
            -DGAUGE_BUILD_EXAMPLES=ON > "$OUT/r/build-prev.log" 2>&1 && cmake --build build-prev -j 16 --target gemm >> "$OUT/r/build-prev.log" 2>&1 \
        || { log "prev build FAILED"; tail -20 "$OUT/r/build-prev.log" | tee -a "$S"; continue; }
      n=${VN:-4096}
      timeout 300 python3 tools/gauge-ab --base "build-prev/examples/gemm --m $n --n $n --k $n" --new "$B/examples/gemm --m $n --n $n --k $n" \
        --runs 3 --time-limit 60 --out-dir "$OUT/r/versions" --compare $B/tools/gauge-compare --fail-on-regression \
        --markdown "$OUT/versions.md" > "$OUT/r/versions.log" 2>&1
      log "gauge-ab prev -> this tree: exit $? ($((SECONDS - t0)) s)"
      grep -vE "^\s*$" "$OUT/r/versions.log" | head -14 | tee -a "$S" ;;
    python)
      # The Python package on the GPU: its tests (host and GPU), the PyTorch training loop with the
      # Timer, gauge beside do_bench and torch.utils.benchmark (bench/bench_python_gauge.py), and
      # the C++ path's spread on the same spin kernel (bench_method), one after another.
      t0=$SECONDS
      log "== python"
      export PYTHONPATH=$PWD/$B/python${PYTHONPATH:+:$PYTHONPATH} GAUGE_SOURCE_DIR=$PWD
      if ! python3 -c "import gauge" 2>> "$OUT/r/python.log"; then log "import gauge FAILED"; tail -5 "$OUT/r/python.log" | tee -a "$S"; continue; fi
      python3 -c "import gauge; print('gauge', gauge.version, 'cuda', gauge.cuda_available())" | tee -a "$S"
      timeout 300 python3 -m pytest -q -p no:cacheprovider -rs python/tests > "$OUT/r/pytest.log" 2>&1; log "pytest exit $?"
      tail -15 "$OUT/r/pytest.log" | tee -a "$S"
      timeout 120 python3 examples/training_loop.py --out "$OUT/r/training-loop-py.json" > "$OUT/r/training-loop-py.log" 2>&1
      log "training_loop.py exit $?"; cat "$OUT/r/training-loop-py.log" | tee -a "$S"
      timeout 400 python3 bench/bench_python_gauge.py --runs ${PY_RUNS:-5} --out "$OUT/bench_python_gauge.json" > "$OUT/bench_python_gauge.md" 2> "$OUT/r/bench_python_gauge.err"
      log "bench_python_gauge exit $? ($((SECONDS - t0)) s)"; cat "$OUT/bench_python_gauge.md" | tee -a "$S"; tail -5 "$OUT/r/bench_python_gauge.err" | tee -a "$S"
      timeout 200 $B/bench/bench_method > "$OUT/bench_method.md" 2> "$OUT/r/bench_method.err"; log "bench_method exit $?"
      cat "$OUT/bench_method.md" | tee -a "$S" ;;
    wheel)
      # The wheel as a user builds it: `pip wheel .` (scikit-build-core, nanobind and their
      # dependencies from the carried wheels on PYTHONPATH, no build isolation: no registry here),
      # installed into a folder of its own, and the Python tests run against that install.
      t0=$SECONDS
      log "== wheel: pip wheel . with $(python3 --version 2>&1)"
      rm -rf /tmp/gauge-wheel /tmp/gauge-site && mkdir -p /tmp/gauge-wheel
      timeout 400 python3 -m pip wheel . --no-build-isolation --no-deps --no-cache-dir -w /tmp/gauge-wheel \
          -C cmake.define.CMAKE_CUDA_ARCHITECTURES=90 -C build-dir=build/python-h200 > "$OUT/r/wheel.log" 2>&1
      log "pip wheel exit $? ($((SECONDS - t0)) s): $(cd /tmp/gauge-wheel && ls)"
      tail -5 "$OUT/r/wheel.log" >> "$S"
      python3 -m pip install -q --no-index --no-deps --target /tmp/gauge-site /tmp/gauge-wheel/*.whl >> "$OUT/r/wheel.log" 2>&1
      so=$(ls /tmp/gauge-site/gauge/_gauge*.so 2>/dev/null | head -1)
      log "installed module: ${so:-none}"; [ -n "$so" ] && ldd "$so" | tee -a "$S"
      ( cd /tmp && PYTHONPATH=/tmp/gauge-site:${PYTHONPATH:-} python3 -c "import gauge, sys; print('import', gauge.__file__, gauge.version, 'cuda', gauge.cuda_available(), 'abi3' if '.abi3.' in gauge._gauge.__file__ else 'not abi3')" ) 2>&1 | tee -a "$S"
      ( PYTHONPATH=/tmp/gauge-site:${PYTHONPATH:-} GAUGE_SOURCE_DIR=$PWD timeout 300 python3 -m pytest -q -p no:cacheprovider -rs python/tests ) > "$OUT/r/pytest-wheel.log" 2>&1
      log "pytest on the installed wheel: exit $?"; tail -8 "$OUT/r/pytest-wheel.log" | tee -a "$S" ;;
    *) log "unknown part $p"; exit 2 ;;
  esac
done
log "== done in $((SECONDS - START)) s"
