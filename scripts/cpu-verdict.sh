#!/usr/bin/env bash
# The comparison rule on a CPU-only machine (issue 21, "done when", the CPU part): the host-backend
# benchmark examples/host_sort (10 arrays of 8192 ints sorted per step) against itself and against
# a 10 % slower step.
#   1. PAIRS pairs: two runs of the same binary (tools/gauge-ab --runs 1, so A then B), compared
#      both ways (A vs B by gauge-ab, B vs A by gauge-compare): expected `same`; the verdicts are
#      counted.
#   2. base = host_sort, new = host_sort --slower 0.10 (one more array of ten: 10 % more work), by
#      tools/gauge-ab with SLOWER_RUNS runs per side (3 where gauge-compare takes `base... -- new...`,
#      else 1): expected `slower` with a ratio near 1.10; prints the headline change.
#
#   bash scripts/cpu-verdict.sh          # B=build-cuda bash scripts/cpu-verdict.sh for another build folder
#
# Needs $B/examples/host_sort and $B/tools/gauge-compare (cmake --build $B --target host_sort
# gauge-compare). Environment: B (default build), OUT (default ./cpu-out), PAIRS (10), MAX_TIME
# (host_sort's --max-time per run, default 1 s), SLOWER_RUNS (default: 3 or 1, as above).
# Files in $OUT: cpu-verdict.log (every command and its output), cpu-summary.md (the counts),
# reports.tar.gz. About 2 s per run: ~60-80 s with the defaults.
set -uo pipefail
B=${B:-build}
OUT=${OUT:-$PWD/cpu-out}
PAIRS=${PAIRS:-10}
MAX_TIME=${MAX_TIME:-1}
mkdir -p "$OUT"
LOG="$OUT/cpu-verdict.log"
SUMMARY="$OUT/cpu-summary.md"
: > "$LOG"
: > "$SUMMARY"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
say() { echo "$*" | tee -a "$LOG"; }
line() { echo "$*" | tee -a "$LOG" "$SUMMARY"; }
START=$SECONDS

SORT="$B/examples/host_sort"
COMPARE="$B/tools/gauge-compare"
for f in "$SORT" "$COMPARE"; do
  [ -x "$f" ] || { say "missing $f: build first, e.g. cmake --build $B -j2 --target host_sort gauge-compare"; exit 2; }
done
{ date -u; nproc; uptime; } >> "$LOG" 2>&1

# A comparison's verdict and ratio [low, high] from gauge-compare's JSON on stdin.
describe() {
  python3 -c '
import json, sys
try:
    d = json.load(sys.stdin)
except ValueError:
    print("none no comparison JSON"); sys.exit()
e = d["experiments"][0] if d.get("experiments") else None
if e is None:
    print("none no experiment matched"); sys.exit()
r = e.get("ratio") or {}
f = lambda v: "n/a" if v is None else "%.4f" % v
print(e["verdict"], "new/base %s [%s, %s]" % (f(r.get("estimate")), f(r.get("low")), f(r.get("high"))))'
}

declare -A COUNT=([same]=0 [slower]=0 [faster]=0 [inconclusive]=0 [none]=0)
pass=0
CMD="$SORT --max-time $MAX_TIME"
line "## cpu-verdict: $PAIRS pairs of identical runs of host_sort (--max-time $MAX_TIME), each compared both ways"
line ""
line '```'
for i in $(seq 1 "$PAIRS"); do
  dir="$WORK/pair-$i"
  say "\$ tools/gauge-ab --base \"$CMD\" --new \"$CMD\" --runs 1 --fail-on-regression (pair $i)"
  python3 tools/gauge-ab --base "$CMD" --new "$CMD" --runs 1 --out-dir "$dir" --compare "$COMPARE" \
      --fail-on-regression --json "$dir/ab.json" >> "$LOG" 2>&1
  rc_ab=$?
  "$COMPARE" "$dir/new-1.json" "$dir/base-1.json" --format json --fail-on-regression > "$dir/ba.json" 2>> "$LOG"
  rc_ba=$?
  for way in ab ba; do
    read -r verdict rest < <(if [ -s "$dir/$way.json" ]; then describe < "$dir/$way.json"; else echo "none no comparison JSON"; fi)
    rc=$([ $way = ab ] && echo $rc_ab || echo $rc_ba)
    COUNT[$verdict]=$((${COUNT[$verdict]:-0} + 1))
    [ "$rc" -eq 0 ] && pass=$((pass + 1))
    line "$(printf 'pair %-2d %s  %-13s %s, exit %d' "$i" "$([ $way = ab ] && echo 'A vs B' || echo 'B vs A')" "$verdict" "$rest" "$rc")"
  done
done
line '```'
line ""
line "| identical runs | comparisons | same | slower | faster | inconclusive | no result | gate pass (exit 0) |"
line "|---|---|---|---|---|---|---|---|"
line "| host_sort vs host_sort | $((2 * PAIRS)) | ${COUNT[same]} | ${COUNT[slower]} | ${COUNT[faster]} | ${COUNT[inconclusive]} | ${COUNT[none]} | $pass |"
line ""

# Several reports per side only where gauge-compare takes them (`base... -- new...`).
r="$WORK/pair-1/base-1.json"
if [ -z "${SLOWER_RUNS:-}" ]; then
  if "$COMPARE" "$r" "$r" -- "$r" "$r" > /dev/null 2>&1; then SLOWER_RUNS=3; else
    SLOWER_RUNS=1
    line "(this gauge-compare takes two reports only: the 10 % slower step is compared with 1 run per side)"
  fi
fi
dir="$WORK/slower"
say "\$ tools/gauge-ab --base \"$CMD\" --new \"$CMD --slower 0.10\" --runs $SLOWER_RUNS --fail-on-regression --ignore-dimension slower"
python3 tools/gauge-ab --base "$CMD" --new "$CMD --slower 0.10" --runs "$SLOWER_RUNS" --out-dir "$dir" --compare "$COMPARE" \
    --fail-on-regression --ignore-dimension slower --json "$dir/comparison.json" >> "$LOG" 2>&1
rc=$?
read -r verdict rest < <(if [ -s "$dir/comparison.json" ]; then describe < "$dir/comparison.json"; else echo "none no comparison JSON"; fi)
line "10 % slower step ($SLOWER_RUNS run(s) per side): **$verdict**, $rest (expected slower, about 1.10), exit $rc"
tar -czf "$OUT/reports.tar.gz" -C "$WORK" . 2>> "$LOG"
say "== done in $((SECONDS - START)) s; log: $LOG, summary: $SUMMARY"
