#!/usr/bin/env bash
# One device call for the issue-25 stop request and the reader's schema check, on the H200:
#   source .deps/activate.sh && bash scripts/gpu-stop.sh [OLD_TREE]
# scripts/gpu-verify.sh (build for sm_90, all of CTest with the GPU tests, the GEMM example twice,
# with OLD_TREE that tree's GEMM and gauge-compare), then examples/sweep (CUDA backend) stopped by
# SIGTERM after 8 s: exit 143, the report on disk holds the points finished and the interrupted
# one, and gauge-export reads it (schema check included); then the whole sweep and the GPU pictures
# (gauge-plot compare of OLD_TREE's GEMM against this tree's, timeline, sweep) in $OUT/images.
# Key lines in $OUT/summary.log.
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
S=$OUT/summary.log
log() { echo "$@" | tee -a "$S"; }
if ls .wheels/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .wheels/*.whl &&
    export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
bash scripts/gpu-verify.sh "$@"
B=build-h200
T=$OUT/stop
mkdir -p "$T"
log "== gemm --kernels: kernel tracing through gauge::tracing"
$B/examples/gemm --m 4096 --n 4096 --k 4096 --dtype bf16 --kernels --require-gpu --max-time 2 --out "$T/gemm-kernels.json" > "$T/gemm-kernels.log" 2>&1
log "exit $?"
python3 - "$T/gemm-kernels.json" <<'PY' | tee -a "$S"
import json, sys
t = json.load(open(sys.argv[1]))["experiments"][0]["kernel_trace"]
print("kernel_trace:", t["status"], (t.get("reason") or "")[:120], [k["name"][:48] for k in (t.get("kernels") or [])][:2])
PY
log "== sweep (CUDA), SIGTERM after 8 s"
$B/examples/sweep --out "$T/sigterm.json" > "$T/sigterm.out" 2> "$T/sigterm.err" &
pid=$!
sleep 8
kill -TERM $pid
wait $pid
log "exit $? (expected 143)"
grep -a "interrupted" "$T/sigterm.err" | tail -2 | tee -a "$S"
python3 - "$T/sigterm.json" <<'PY' | tee -a "$S"
import json, sys
d = json.load(open(sys.argv[1]))
e = d["experiments"]
print("report: %d experiments, %d ok; last: %s %s, stopping %s, %d GPU samples kept" % (
    len(e), sum(x["status"] == "ok" for x in e), e[-1]["name"], e[-1]["status"], e[-1]["stopping"]["reason"],
    len(e[-1]["samples"]["gpu_time_per_step_s"])))
print("error:", (e[-1].get("error") or "")[:160])
PY
$B/tools/gauge-export --format csv "$T/sigterm.json" > "$T/sigterm.csv" 2> "$T/export.err"
log "gauge-export: exit $?, $(wc -l < "$T/sigterm.csv") lines $(head -c 200 "$T/export.err")"
log "== host timing on the GPU machine's CPU: process CPU time and hardware counters"
$B/tests/gauge_tests "[cpu_time]" 2>&1 | grep -A1 "hardware counters" | tail -2 | tee -a "$S"
if [ -x $B/examples/host_sweep ]; then
  $B/examples/host_sweep --quick --filter 'bytes=(4096|16777216)$' --out "$T/host-sweep.json" > "$T/host-sweep.out" 2>&1
  log "host_sweep exit $?"; grep -E "bytes|4096|16777216" "$T/host-sweep.out" | head -3 | tee -a "$S"
  python3 - "$T/host-sweep.json" <<'PY' | tee -a "$S"
import json, sys
for e in json.load(open(sys.argv[1]))["experiments"]:
    k = e["cpu_counters"]
    print("bytes %d: real %.4g s, cpu %.4g s, counters %s %s, instructions/step %s, IPC %s" % (
        e["dimensions"]["bytes"], e["gpu_time_s"]["median"], e["cpu_time_s"]["median"], k["status"], k["reason"][:80],
        k["instructions_per_step"]["median"], k["instructions_per_cycle"]))
PY
fi
log "== sweep --interleave on the GPU: the runner's view against gauge-export --format interleaved"
$B/examples/sweep --interleave triad/T=float/bytes=67108864 triad/T=double/bytes=67108864 --max-time 4 --out "$T/ab.json" > "$T/ab.out" 2> "$T/ab.err"
log "exit $?"; tee -a "$S" < "$T/ab.out"
$B/tools/gauge-export "$T/ab.json" --format interleaved > "$T/ab.export" 2>&1
if cmp -s "$T/ab.out" "$T/ab.export"; then log "runner --interleave == gauge-export --format interleaved: identical ($(wc -l < "$T/ab.out") lines)"; else log "DIFFERENT:"; diff "$T/ab.out" "$T/ab.export" | head -10 | tee -a "$S"; fi
log "== sweep (CUDA), whole, and the GPU pictures of docs/images"
timeout 150 $B/examples/sweep --out "$OUT/sweep-h200.json" > "$T/sweep.out" 2> "$T/sweep.err"; log "sweep exit $?"
I=$OUT/images; mkdir -p "$I"
P="python3 tools/gauge-plot"
if [ -f "$OUT/gemm-h200-old.json" ]; then
  $B/tools/gauge-compare "$OUT/gemm-h200-old.json" "$OUT/gemm-h200.json" --format json > "$T/gemm-compare.json"
  $P compare "$OUT/gemm-h200-old.json" "$OUT/gemm-h200.json" --comparison "$T/gemm-compare.json" -o "$I/gpu-compare.png" --data "$I/gpu-compare.json" 2>&1 | tee -a "$S"
fi
$P timeline "$OUT/gemm-h200.json" -o "$I/gpu-timeline.png" --data "$I/gpu-timeline.json" 2>&1 | tee -a "$S"
$P sweep "$OUT/sweep-h200.json" --x bytes -o "$I/gpu-sweep.png" --data "$I/gpu-sweep.json" 2>&1 | tee -a "$S"
( cd "$OUT" && tar czf images.tar.gz images && rm -rf images; tar czf stop.tar.gz stop && rm -rf stop )
