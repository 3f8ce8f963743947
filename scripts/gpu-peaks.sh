#!/usr/bin/env bash
# Speed of light on the GPU (issue "Speed of light"). Builds nothing: expects build-h200 built with
# examples, tools and bench (scripts/gpu-check.sh: -DGAUGE_BUILD_EXAMPLES=ON -DGAUGE_BUILD_BENCH=ON).
# About 2-3 minutes on an H200. Writes 3 files under $OUT (default ./gpu-out): peaks.log (everything
# printed), gemm-report.json (the bf16 GEMM's report, with its peaks), peaks-cache.json (the cache
# gauge-peaks wrote). Prints what the issue's "done when" needs:
#   1. gauge-peaks' table: measured copy/triad bandwidth and bf16/fp16/fp8/tf32/fp32 GEMM rates beside
#      the theoretical (max boost) and datasheet peaks; the cache file;
#   2. the bf16 GEMM's "% of peak" lines (theoretical at max boost and at the run's clock, datasheet,
#      measured from the cache: the cache used by a later run) and its roofline;
#   3. the GEMM declaring twice its FLOP (--flop-scale 2): its above_compute_peak warning;
#   4. the sweep's 1 GiB triad: its fraction of the memory peak;
#   5. bench_l2_flush: the cold read-only step over 3/4 of the L2 against the constructed clean-cold
#      reference (within 5 %?), the old write flush beside it, and the hot 16 MiB copy's
#      above_memory_peak warning naming the L2 (and the 1 GiB copy's fraction).
#   OUT=/path bash scripts/gpu-peaks.sh
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
LOG="$OUT/peaks.log"
: > "$LOG"
B=${GAUGE_BUILD_DIR:-build-h200}
TMP=$(mktemp -d)
export GAUGE_PEAKS_CACHE_DIR="$TMP/cache"
for exe in "$B/tools/gauge-peaks" "$B/examples/gemm" "$B/examples/sweep" "$B/bench/bench_l2_flush"; do
  if [ ! -x "$exe" ]; then
    echo "gpu-peaks: $exe is missing: build $B first (scripts/gpu-check.sh)" | tee -a "$LOG"
    exit 1
  fi
done
status=0
run() {  # run NAME CMD...: output to $TMP/NAME.out and the log; the exit code noted
  local name=$1
  shift
  echo "== $*" >> "$LOG"
  "$@" > "$TMP/$name.out" 2>&1
  local rc=$?
  cat "$TMP/$name.out" >> "$LOG"
  if [ "$rc" -ne 0 ]; then
    echo "== exit code $rc: $*" | tee -a "$LOG"
    status=1
  fi
  return 0
}
section() { echo; echo "### $*"; }
out() { cat "$TMP/$1.out"; }

section "1. gauge-peaks (achievable peaks, cached in \$GAUGE_PEAKS_CACHE_DIR)"
start=$SECONDS
run peaks "$B/tools/gauge-peaks" --max-time 2
out peaks | grep -E "^(gauge-peaks|peak |memory|bf16|fp16|fp8|tf32|fp32|cache:)"
cp "$GAUGE_PEAKS_CACHE_DIR"/*.json "$OUT/peaks-cache.json" 2>/dev/null || echo "no cache file written"
echo "(gauge-peaks: $((SECONDS - start)) s)"

section "2. bf16 GEMM 8192^3: % of peak (the measured peak read from the cache)"
run gemm "$B/examples/gemm" --require-gpu --max-time 2 --out "$OUT/gemm-report.json"
out gemm | grep -E "^(% of peak|roofline)"
python3 - "$OUT/gemm-report.json" <<'PY' 2>&1 || true
import json, sys
r = json.load(open(sys.argv[1]))["experiments"][0]["peaks"]
print("report peaks.status:", r["status"], "| dtype:", r["dtype"], "| reason:", r["reason"] or "-")
for f in r["fractions"]:
    if f["throughput"] == "gpu" and f["quantity"] == "compute":
        print(f"  gpu {f['rate']/1e12:.1f} TFLOP/s = {100*f['fraction']:.1f} % of {f['peak']/1e12:.1f} TFLOP/s ({f['basis']}, {f['clock_basis']})")
PY

section "3. the GEMM declaring twice its FLOP: above_compute_peak"
run gemm2 "$B/examples/gemm" --require-gpu --flop-scale 2 --max-time 1 --out "$TMP/gemm-double.json"
out gemm2 | grep -E "above_compute_peak" || echo "NO above_compute_peak warning"

section "4. the sweep's triad (1 GiB per array): fraction of the memory peak"
run sweep "$B/examples/sweep" --filter triad --axis 'bytes=[1073741824]' --max-time 1 --quiet --out "$TMP/sweep.json"
python3 - "$TMP/sweep.json" <<'PY' 2>&1 || true
import json, sys
for e in json.load(open(sys.argv[1]))["experiments"]:
    for f in e.get("peaks", {}).get("fractions", []):
        if f["throughput"] == "gpu" and f["quantity"] == "memory_bandwidth":
            print(f"  {e['name']} {e['dimensions']}: {f['rate']/1e12:.3f} TB/s = {100*f['fraction']:.1f} % of {f['peak']/1e12:.3f} TB/s ({f['basis']}, {f['clock_basis']})")
PY

section "5. cold cache: read-only step over 3/4 of the L2 vs the clean-cold reference; hot 16 MiB copy"
run flush "$B/bench/bench_l2_flush" --samples 200
out flush

echo
echo "gpu-peaks: done in $SECONDS s, status $status (log: $LOG)"
rm -rf "$TMP"
exit $status
