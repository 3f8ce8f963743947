#!/usr/bin/env bash
# Everything that needs the GPU, in one call on the H200 (see the developers' guide):
#   source .deps/activate.sh && bash scripts/gpu-check.sh
# Builds for sm_90, runs the whole test suite (GPU tests included), the GEMM example at
# M=N=K=8192 bf16 (short and 30 s sustained), gauge's benchmarks and, where present, the Timer
# and compare scripts. Everything is written under $OUT/r and packed into $OUT/results.tar.gz;
# $OUT/summary.log has the key lines.
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}
R=$OUT/r
mkdir -p "$R"
export PATH=/usr/local/cuda/bin:$PATH
B=build-h200
# Python packages the tests need that the GPU image lacks, carried as wheels (.whl), and Google
# Benchmark's compare.py from the carried Debian package (.deps). The tools and the examples parse
# their command lines with CLI11: where the GPU image lacks it, .deps must carry libcli11-dev too
# (headers and CMake package; CMake finds it through CMAKE_PREFIX_PATH).
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl &&
    export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
[ -f /tmp/gauge-deps/usr/share/benchmark/compare.py ] && export GAUGE_GBENCH_COMPARE_PY=/tmp/gauge-deps/usr/share/benchmark/compare.py
# GAUGE_GPU_SKIP: comma-separated parts to leave out (sustained, bench, timer, compare).
skip() { case ",${GAUGE_GPU_SKIP:-}," in *",$1,"*) return 0;; esac; return 1; }
S=$OUT/summary.log
log() { echo "$@" | tee -a "$S"; }
pack() { tar czf "$OUT/results.tar.gz" -C "$OUT" r && rm -rf "$R"; }
trap pack EXIT
{
  date -u; nvidia-smi; nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,clocks.mem,temperature.gpu,power.draw,memory.total --format=csv
  nvcc --version | tail -2; cmake --version | head -1
} > "$R/machine.txt" 2>&1
tail -4 "$R/machine.txt" | head -2 | tee -a "$S"
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DGAUGE_BUILD_BENCH=ON > "$R/build.log" 2>&1 || { tail -40 "$R/build.log" | tee -a "$S"; exit 1; }
# -k 0: build everything that compiles, so one broken target does not cost the whole GPU run.
if cmake --build $B -j 16 -- -k 0 >> "$R/build.log" 2>&1; then log "== build ok"; else
  log "== BUILD FAILED (continuing with what built):"; grep -E "error|FAILED" "$R/build.log" | head -20 | tee -a "$S"; fi
ctest --test-dir $B -j 4 -E '^gpu:|example_.*_gpu|training_loop' --output-on-failure > "$R/ctest.log" 2>&1
ctest --test-dir $B -R '^gpu:|example_.*_gpu|training_loop' -V >> "$R/ctest.log" 2>&1
grep -E "tests passed|\*\*\*Failed|Not Run|Skipped\)" "$R/ctest.log" | tail -12 | tee -a "$S"
grep -E "^[0-9]+: (spin|other|16 MiB|GPU:|kernel |memory:|telemetry)" "$R/ctest.log" | sed 's/^[0-9]*: //' | tee -a "$S"
if ! skip bench; then
log "== bench_method"
$B/bench/bench_method --out "$R/bench_method.json" > "$R/bench.log" 2>&1
cat "$R/bench.log" | tee -a "$S"
log "== bench_python"
PYTHONUNBUFFERED=1 timeout 300 python3 bench/bench_python.py --out "$R/bench_python.json" 2>&1 | tee -a "$R/bench.log" | tee -a "$S"
fi
log "== gemm 8192 bf16"
$B/examples/gemm --m 8192 --n 8192 --k 8192 --dtype bf16 --out "$R/gemm-h200.json" > "$R/gemm.log" 2>&1
grep -v "^\[info\]" "$R/gemm.log" | head -8 | tee -a "$S"
if ! skip sustained; then
log "== gemm 8192 bf16, 30 s sustained"
$B/examples/gemm --m 8192 --n 8192 --k 8192 --dtype bf16 --min-time 30 --out "$R/gemm-sustained.json" > "$R/gemm-sustained.log" 2>&1
head -6 "$R/gemm-sustained.log" | tee -a "$S"
python3 - "$R/gemm-sustained.json" <<'PY' | tee -a "$S"
import json, sys
e = json.load(open(sys.argv[1]))["experiments"][0]
t = e["telemetry"]
print("sustained: median %.4f ms, p99 %.4f ms, n %d, measured %.1f s" % (e["gpu_time_s"]["p50"] * 1e3, e["gpu_time_s"]["p99"] * 1e3, e["gpu_time_s"]["n"], e["stopping"]["measure_time_s"]))
print("telemetry: available %s, %d readings; SM clock MHz min/mean/max %s / %s / %s (max %s); power W %s / %s / %s; temp C max %s"
      % (t["available"], len(t["series"]["t_s"]), t["sm_clock_mhz"]["min"], t["sm_clock_mhz"]["mean"], t["sm_clock_mhz"]["max"],
         t["sm_clock_max_mhz"], t["power_w"]["min"], t["power_w"]["mean"], t["power_w"]["max"], t["temperature_c"]["max"]))
print("throttle reasons seen: %s; throttled samples %d of %d" % (t["throttle_reason_names"], len(t["throttled_samples"]), e["gpu_time_s"]["n"]))
print("memory: peak %s bytes (%s), fits %s: %s" % (e["memory"]["peak_bytes"], e["memory"]["peak_source"], e["memory"]["fits"], e["memory"]["fits_reason"]))
print("warnings:", [w["code"] for w in e["warnings"]])
PY
fi
if [ -f scripts/gpu-timer.sh ] && ! skip timer; then
  log "== timer"
  OUT=$R bash scripts/gpu-timer.sh > "$R/timer-run.log" 2>&1
  tail -30 "$R/timer-run.log" | tee -a "$S"
fi
if [ -f scripts/gpu-compare.sh ] && ! skip compare; then
  log "== compare"
  OUT=$R bash scripts/gpu-compare.sh > "$R/compare-run.log" 2>&1
  tail -30 "$R/compare-run.log" | tee -a "$S"
fi
