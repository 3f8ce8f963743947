#!/usr/bin/env bash
# Real regressions by the CI recipe on the H200 (issue 21, "done when": the GEMM plus an extra
# kernel of 3 % and of 5 % of its time, in the same experiment, 10 comparisons each, default
# threshold 2 %, 3 runs per side), with the base runs shared between the two levels so that both
# fit in the device time:
#   per trial, 9 separate gemm processes at 8192^3 in the order  B N3 N5 | N5 N3 B | B N3 N5
#   (B: the plain GEMM, N3/N5: gemm --extra-work 0.03/0.05; each kind's mean position is 4.7-5.3,
#   so a drift over the trial reaches all three alike), then
#     gauge-compare B1 B2 B3 -- N3_1 N3_2 N3_3 --fail-on-regression   (expected slower, exit 1)
#     gauge-compare B1 B2 B3 -- N5_1 N5_2 N5_3 --fail-on-regression   (expected slower, exit 1)
#   and, from trial 2 on, the previous trial's base runs against this one's (identical code, 3 runs
#   per side, about 90 s apart: expected same, exit 0).
# The comparisons of one level are independent of each other (no run is shared between trials).
#
#   FIRST=1 LAST=5 bash scripts/gpu-regression.sh     # trials 1-5 (a later call: FIRST=6 LAST=10)
#
# Environment: OUT (default ./gpu-out), B (build folder, default build-h200), FIRST, LAST (trial
# numbers, default 1 and 10), DEADLINE (seconds: no trial starts that would end later; default 560),
# MAX_TIME, MIN_TIME (gemm's, default 1 and 0.5 s). Files in $OUT: regression-FIRST.log (every
# command and output), regression-FIRST.md (one line per comparison and the counts),
# regression-FIRST.tar.gz (the reports). A run takes ~9-10 s (3 s warm-up into the power-capped
# regime), a trial ~90 s.
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}
B=${B:-build-h200}
FIRST=${FIRST:-1}
LAST=${LAST:-10}
DEADLINE=${DEADLINE:-560}
MAX_TIME=${MAX_TIME:-1}
MIN_TIME=${MIN_TIME:-0.5}
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
LOG="$OUT/regression-$FIRST.log"
MD="$OUT/regression-$FIRST.md"
: > "$LOG"
: > "$MD"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
START=$SECONDS
say() { echo "$*" | tee -a "$LOG"; }
line() { echo "$*" | tee -a "$LOG" "$MD"; }
GEMM="$B/examples/gemm"
COMPARE="$B/tools/gauge-compare"
for f in "$GEMM" "$COMPARE"; do [ -x "$f" ] || { say "missing $f: build first"; exit 2; }; done
{ date -u; nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,clocks.mem,temperature.gpu,power.draw,power.limit --format=csv; } >> "$LOG" 2>&1

run() {  # kind index: one gemm process
  local kind=$1 i=$2 extra=
  case $kind in n3) extra="--extra-work 0.03";; n5) extra="--extra-work 0.05";; esac
  $GEMM --m 8192 --n 8192 --k 8192 --dtype bf16 --require-gpu --max-time "$MAX_TIME" --min-time "$MIN_TIME" $extra \
        -o "$dir/$kind-$i.json" >> "$LOG" 2>&1 || say "run $kind-$i exited $?"
}
compare() {  # label base-glob new-glob
  local label=$1 rc
  # Options before the reports: after `--` come only the new side's reports.
  "$COMPARE" --ignore-dimension=extra_work --fail-on-regression --format json $2 -- $3 > "$dir/$label.json" 2>> "$LOG"
  rc=$?
  python3 - "$dir/$label.json" "$label" "$rc" "$t" <<'EOF' | tee -a "$LOG" "$MD"
import json, sys
path, label, rc, trial = sys.argv[1:]
try:
    e = json.load(open(path))["experiments"][0]
except (OSError, ValueError, IndexError, KeyError) as x:
    print("trial %s %-9s none (%s), exit %s" % (trial, label, x.__class__.__name__, rc)); sys.exit()
f = lambda r: "n/a" if not r else "%.4f [%.4f, %.4f]" % (r["estimate"], r["low"], r["high"])
print("trial %s %-9s %-12s time %s, clock-normalized %s, decided on %s, exit %s" % (
    trial, label, e["verdict"], f(e.get("ratio")), f(e.get("clock_normalized_ratio")), e.get("decided_on"), rc))
EOF
}

line "## gpu-regression trials $FIRST-$LAST: gemm 8192^3 bf16, --max-time $MAX_TIME --min-time $MIN_TIME, 3 runs per side"
line '```'
longest=0
prev=
for t in $(seq "$FIRST" "$LAST"); do
  if [ -n "$prev" ] && [ $((SECONDS - START + longest)) -gt "$DEADLINE" ]; then
    line "stopped before trial $t at $((SECONDS - START)) s (a trial takes up to $longest s; deadline $DEADLINE s)"
    break
  fi
  t0=$SECONDS
  dir="$WORK/trial-$t"
  mkdir -p "$dir"
  for kind_i in b:1 n3:1 n5:1 n5:2 n3:2 b:2 b:3 n3:3 n5:3; do run "${kind_i%%:*}" "${kind_i##*:}"; done
  compare extra-3% "$dir/b-*.json" "$dir/n3-*.json"
  compare extra-5% "$dir/b-*.json" "$dir/n5-*.json"
  if [ -n "$prev" ]; then
    compare identical "$prev/b-*.json" "$dir/b-*.json"
  fi
  prev=$dir
  took=$((SECONDS - t0))
  [ $took -gt $longest ] && longest=$took
  say "trial $t took $took s"
done
line '```'
for label in extra-3% extra-5% identical; do
  counts=$(grep -E "^trial [0-9]+ $label " "$MD" | awk '{print $4}' | sort | uniq -c | awk '{printf "%s %s, ", $2, $1}')
  line "$label: ${counts%, }"
done
{ date -u; nvidia-smi --query-gpu=pstate,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv; } >> "$LOG" 2>&1
tar -czf "$OUT/regression-$FIRST.tar.gz" -C "$WORK" . 2>> "$LOG"
say "== done in $((SECONDS - START)) s"
