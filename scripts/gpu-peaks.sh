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
#      above_memory_peak warning naming the L2 (and the 1 GiB copy's fraction);
#   6. NVML GPM (schema 1.6, telemetry.gpm) of the bf16 GEMM (section 2's report), of the sweep's
#      1 GiB copy and triad, and of a cold 1 GiB copy (its sampling.cache_flush too): DRAM_BW_UTIL,
#      SM_UTIL, SM_OCCUPANCY and the cross-check with the declared bytes. Expected on an H200: the
#      copies DRAM-bound (dram_bw_util well above 50 %, cross_check "agrees", ratio near 1), the GEMM
#      SM-bound (sm_util near 100 %, dram_bw_util far below the copies'); or status "unavailable"
#      with the reason, never zeros.
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

section "6. NVML GPM over the measured rounds: the bf16 GEMM, the 1 GiB copy and triad, a cold copy"
run sweepgpm "$B/examples/sweep" --filter 'copy|triad' --axis 'bytes=[1073741824]' --max-time 1 --quiet --out "$TMP/sweep-gpm.json"
run coldgpm "$B/examples/sweep" --filter copy --axis 'bytes=[1073741824]' --cold --max-time 1 --quiet --out "$TMP/sweep-cold.json"
python3 - "$OUT/gemm-report.json" "$TMP/sweep-gpm.json" "$TMP/sweep-cold.json" <<'PY' 2>&1 || true
import json, sys
for path in sys.argv[1:]:
    try:
        doc = json.load(open(path))
    except Exception as e:
        print(f"  {path}: {e}")
        continue
    for e in doc["experiments"]:
        g = e.get("telemetry", {}).get("gpm")
        name = f"{e['name']} {e['dimensions']}"
        if not g:
            print(f"  {name}: no telemetry.gpm (report older than schema 1.6?)")
            continue
        if g["status"] != "measured":
            print(f"  {name}: GPM unavailable: {g['reason']}")
            continue
        fmt = lambda v, s="{:.1f}": "-" if v is None else s.format(v)
        print(f"  {name}: dram_bw_util {fmt(g['dram_bw_util_pct'])} % | sm_util {fmt(g['sm_util_pct'])} % | "
              f"sm_occupancy {fmt(g['sm_occupancy_pct'])} % | {fmt(g['interval_s'], '{:.3f}')} s, {g['steps']} steps | "
              f"declared {fmt(g['declared_bytes_per_s'] and g['declared_bytes_per_s'] / 1e9)} GB/s vs GPM "
              f"{fmt(g['gpm_bytes_per_s'] and g['gpm_bytes_per_s'] / 1e9)} GB/s (ratio {fmt(g['declared_to_gpm_ratio'], '{:.3f}')}): "
              f"{g['cross_check']}")
        f = e.get("sampling", {}).get("cache_flush")
        if f:
            print(f"    cache_flush: {f['method']}: {f['description']} | outside the timed interval: {f['outside_timed_interval']}"
                  f" | persisting set-aside {f['persisting_l2_set_aside_bytes']} bytes, lines reset: {f['persisting_lines_reset']}")
        for w in e.get("warnings", []):
            if w["code"] == "gpm_bandwidth_mismatch":
                print(f"    warning gpm_bandwidth_mismatch: {w['message']}")
PY
if [ -x "$B/tests/gauge_gpu_tests" ]; then
  run gpmtest "$B/tests/gauge_gpu_tests" "[gpm]"
  out gpmtest | grep -E "^GPM |passed|failed"
fi

echo
echo "gpu-peaks: done in $SECONDS s, status $status (log: $LOG)"
rm -rf "$TMP"
exit $status
