#!/usr/bin/env bash
# The GPU checks of a change, in one call on the H200 (see the developers' guide):
#   source .deps/activate.sh && bash scripts/gpu-verify.sh [OLD_TREE]
# Builds for sm_90 (tests, examples, tools, bench), runs the whole CTest suite (GPU tests
# included), the GEMM example at M=N=K=8192 bf16 twice, gauge's method benchmark, and, with
# OLD_TREE (an older gauge source tree, e.g. `git archive 232a8ee`), that tree's GEMM example,
# then compares the reports with gauge-compare. Logs and reports go to $OUT/r, packed into
# $OUT/results.tar.gz; $OUT/summary.log has the key lines.
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}
R=$OUT/r
mkdir -p "$R"
export PATH=/usr/local/cuda/bin:$PATH
old=${1:-}
B=build-h200
S=$OUT/summary.log
log() { echo "$@" | tee -a "$S"; }
pack() { tar czf "$OUT/results.tar.gz" -C "$OUT" r && rm -rf "$R"; }
trap pack EXIT
{ date -u; nvidia-smi; nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,clocks.mem,temperature.gpu,power.draw,memory.total --format=csv
  nvcc --version | tail -2; cmake --version | head -1; git log -1 --oneline 2>/dev/null; } > "$R/machine.txt" 2>&1
tail -4 "$R/machine.txt" | head -3 | tee -a "$S"
t0=$(date +%s)
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DGAUGE_BUILD_BENCH=ON -DGAUGE_BUILD_GPU_ONLY=ON -DGAUGE_HEADER_ISOLATION=all > "$R/build.log" 2>&1 || { tail -40 "$R/build.log" | tee -a "$S"; exit 1; }
if cmake --build $B -j 16 -- -k 0 >> "$R/build.log" 2>&1; then log "== build ok ($(( $(date +%s) - t0 )) s)"; else
  log "== BUILD FAILED (continuing with what built):"; grep -E "error|FAILED" "$R/build.log" | head -20 | tee -a "$S"; fi
ctest --test-dir $B -j 8 -E '^gpu:|example_.*_gpu|training_loop|readme_quickstart_run' --output-on-failure > "$R/ctest.log" 2>&1
grep -E "tests passed|\*\*\*Failed|Not Run" "$R/ctest.log" | tail -8 | tee -a "$S"
ctest --test-dir $B -R '^gpu:|example_.*_gpu|training_loop|readme_quickstart' -V > "$R/ctest-gpu.log" 2>&1
grep -E "tests passed|\*\*\*Failed|Not Run|Skipped\)" "$R/ctest-gpu.log" | tail -8 | tee -a "$S"
grep -E "^[0-9]+: (spin|other|16 MiB|GPU:|kernel |memory:|telemetry|sgemm)" "$R/ctest-gpu.log" | sed 's/^[0-9]*: //' | tee -a "$S"
G=(--m 8192 --n 8192 --k 8192 --dtype bf16 --require-gpu)
log "== gemm 8192 bf16 (this tree), twice"
$B/examples/gemm "${G[@]}" --out "$R/new1.json" > "$R/gemm-new1.log" 2>&1; log "exit $?"; grep -v "^\[info\]" "$R/gemm-new1.log" | head -6 | tee -a "$S"
$B/examples/gemm "${G[@]}" --out "$R/new2.json" > "$R/gemm-new2.log" 2>&1; log "exit $?"
C=$B/tools/gauge-compare
if [ -n "$old" ] && [ -d "$old" ]; then
  log "== gemm 8192 bf16 ($old)"
  cmake -S "$old" -B build-old -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DGAUGE_BUILD_TESTS=OFF > "$R/build-old.log" 2>&1 &&
    cmake --build build-old -j 16 --target gemm >> "$R/build-old.log" 2>&1 || { log "old build failed"; tail -20 "$R/build-old.log" | tee -a "$S"; }
  build-old/examples/gemm "${G[@]}" --out "$R/old.json" > "$R/gemm-old.log" 2>&1; log "exit $?"; grep -v "^\[info\]" "$R/gemm-old.log" | head -4 | tee -a "$S"
  log "== gauge-compare old new1"; $C "$R/old.json" "$R/new1.json" --fail-on-regression 2>&1 | tee -a "$S"; log "exit ${PIPESTATUS[0]}"
fi
log "== gauge-compare new1 new2"; $C "$R/new1.json" "$R/new2.json" --fail-on-regression 2>&1 | tee -a "$S"; log "exit ${PIPESTATUS[0]}"
log "== bench_method"
$B/bench/bench_method --out "$R/bench_method.json" > "$R/bench.log" 2>&1
tail -25 "$R/bench.log" | tee -a "$S"
log "== hardware counters on this host (perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo '?'))"
(cd "$R" && "$OLDPWD/$B/examples/cpu_quickstart" > cpu.log 2>&1; echo "cpu_quickstart exit $?" >> cpu.log)
python3 - "$R/cpu-report.json" <<'PY' 2>&1 | tee -a "$S"
import json, sys
r = json.load(open(sys.argv[1]))["experiments"][0]
c = r.get("cpu_counters") or {}
print("cpu_counters:", c.get("status"), c.get("reason") or "")
cyc, ins, cpu = (c.get("cycles_per_step") or {}).get("p50"), (c.get("instructions_per_step") or {}).get("p50"), r["cpu_time_s"].get("p50")
mhz = [float(l.split(":")[1]) for l in open("/proc/cpuinfo") if l.startswith("cpu MHz")]
print("cycles/step", cyc, "instructions/step", ins, "IPC", c.get("instructions_per_cycle"), "cpu_time p50", cpu)
if cyc and cpu and mhz:
    print("second method: cycles / (CPU time x cpu MHz %.0f) = %.3f" % (max(mhz), cyc / (cpu * max(mhz) * 1e6)))
PY
log "== bench_timer_host"; $B/bench/bench_timer_host --steps 1000000 2>&1 | tail -7 | tee -a "$S"
cp "$R/new1.json" "$OUT/gemm-h200.json" 2>/dev/null
cp "$R/new2.json" "$OUT/gemm-h200-new2.json" 2>/dev/null
[ -f "$R/old.json" ] && cp "$R/old.json" "$OUT/gemm-h200-old.json"
log "== done in $(( $(date +%s) - t0 )) s"
