#!/usr/bin/env bash
# The comparison rule on the H200 (issue 21, "done when"), by the CI recipe of docs/comparing.md:
# tools/gauge-ab runs base and new alternately (B N N B B N), 3 runs per side, and gauge-compare
# decides. Two kinds of comparison, interleaved round-robin so that whatever fits in the time is
# balanced between them:
#   same-8192, same-4096   identical code: base = new = the same gemm binary (bf16, M=N=K);
#                          expected `same`, gate exit 0
#   extra-3%, extra-5%     a real regression: new = gemm --extra-work 0.03 (0.05) at 8192^3, a
#                          spin kernel of 3 % (5 %) of the GEMM's SM cycles after it in the step;
#                          expected `slower`, gate exit 1, ratio near 1.03 (1.05)
#
#   bash scripts/gpu-verdict.sh     # after building build-h200/ (examples and tools), as gpu-compare.sh
#
# Per comparison one line: size, kind, verdict, new/base ratio of medians with its interval, the
# clock-normalized ratio where gauge-compare's JSON has one (clock_normalized_ratio; "n/a" from
# builds without it), the gate's exit status and the seconds it took; at the end a Markdown table
# of the verdicts per kind and how many passed the gate.
#
# Time: a gemm run is ~5-8 s (CUDA start, gemm's 3-6 s warm-up into the power-capped regime,
# --max-time $MAX_TIME of measuring, verification), a comparison 6 runs, ~35-50 s. A comparison
# starts only while it is predicted (from the longest so far) to end before $DEADLINE seconds,
# so the script ends by about DEADLINE + 20 s; with the defaults ~9-12 of the 4 x COUNT planned
# comparisons run (2-3 per kind), and the summary says how many.
#
# Environment: OUT (default ./gpu-out), B (build folder, default build-h200), DEADLINE (seconds,
# default 420), COUNT (comparisons per kind, default 10), RUNS (per side, default 3), MAX_TIME and
# MIN_TIME (gemm's --max-time/--min-time per run, default 1 and 0.5 s).
# Files in $OUT (3): verdict.log (every command and its output, the lines, the table),
# summary.md (the lines and the table), reports.tar.gz (per comparison: the reports, the runs'
# logs, runs.json and comparison.json).
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
B=${B:-build-h200}
DEADLINE=${DEADLINE:-420}
COUNT=${COUNT:-10}
RUNS=${RUNS:-3}
MAX_TIME=${MAX_TIME:-1}
MIN_TIME=${MIN_TIME:-0.5}
LOG="$OUT/verdict.log"
SUMMARY="$OUT/summary.md"
: > "$LOG"
: > "$SUMMARY"
WORK=$(mktemp -d)  # outside $OUT: only the tarball comes back
trap 'rm -rf "$WORK"' EXIT
say() { echo "$*" | tee -a "$LOG"; }
line() { echo "$*" | tee -a "$LOG" "$SUMMARY"; }
START=$SECONDS
elapsed() { echo $((SECONDS - START)); }

GEMM="$B/examples/gemm"
COMPARE="$B/tools/gauge-compare"
for f in "$GEMM" "$COMPARE"; do
  [ -x "$f" ] || { say "missing $f: build first, e.g. cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 && cmake --build $B"; exit 2; }
done
"$GEMM" --help | grep -q -- --extra-work || { say "$GEMM has no --extra-work: rebuild it from this tree"; exit 2; }
{ date -u; nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,clocks.mem,temperature.gpu,power.draw,power.limit --format=csv; } >> "$LOG" 2>&1
# Several reports per side need a gauge-compare that takes `base... -- new...`; an older one gets
# one run per side (and says so) rather than nothing.
R=tests/data/reports
if [ "$RUNS" -gt 1 ] && ! "$COMPARE" $R/base.json $R/same.json -- $R/base.json $R/same.json > /dev/null 2>&1; then
  say "NOTE: $COMPARE takes two reports only (no \`base... -- new...\`): RUNS=$RUNS becomes 1 run per side"
  RUNS=1
fi

# One comparison's line from its comparison.json: verdict, ratio [low, high], clock-normalized ratio.
describe() {
  python3 - "$1" <<'EOF'
import json, sys
try:
    with open(sys.argv[1]) as f:
        d = json.load(f)
except (OSError, ValueError) as e:
    print("none", "no comparison JSON (%s)" % e.__class__.__name__)
    sys.exit()
e = d["experiments"][0] if d.get("experiments") else None
if e is None:
    print("none", "no experiment matched")
    sys.exit()
def interval(r):
    if isinstance(r, dict) and r.get("estimate") is not None:
        s = "%.4f" % r["estimate"]
        if r.get("low") is not None and r.get("high") is not None:
            s += " [%.4f, %.4f]" % (r["low"], r["high"])
        return s
    if isinstance(r, (int, float)) and not isinstance(r, bool):
        return "%.4f" % r
    return "n/a"
print(e["verdict"], "ratio %s, clock-normalized %s%s" % (
    interval(e.get("ratio")), interval(e.get("clock_normalized_ratio")),
    "" if d.get("comparable", True) else ", NOT comparable"))
EOF
}

# kind, size, the new side's extra arguments, gauge-compare's extra arguments
read -r -a KINDS <<< "${KINDS:-same-8192 same-4096 extra-3% extra-5%}"  # KINDS="same-8192 same-4096" runs those only
declare -A SIZE=([same-8192]=8192 [same-4096]=4096 [extra-3%]=8192 [extra-5%]=8192)
declare -A NEW_ARGS=([same-8192]="" [same-4096]="" [extra-3%]="--extra-work 0.03" [extra-5%]="--extra-work 0.05")
IGNORE=(--ignore-dimension extra_work)
declare -A N V_SAME V_SLOWER V_FASTER V_INCONCLUSIVE V_OTHER PASS
for k in "${KINDS[@]}"; do N[$k]=0; V_SAME[$k]=0; V_SLOWER[$k]=0; V_FASTER[$k]=0; V_INCONCLUSIVE[$k]=0; V_OTHER[$k]=0; PASS[$k]=0; done
longest=0
ran=0
stopped=""

line "## gpu-verdict: $RUNS runs per side, gemm --max-time $MAX_TIME --min-time $MIN_TIME, deadline $DEADLINE s"
line ""
line '```'
for i in $(seq 1 "$COUNT"); do
  for k in "${KINDS[@]}"; do
    now=$(elapsed)
    if [ $ran -gt 0 ] && [ $((now + longest)) -gt "$DEADLINE" ]; then
      stopped="stopped at ${now} s: the next comparison (up to ${longest} s) would end past the deadline ($DEADLINE s)"
      break 2
    fi
    s=${SIZE[$k]}
    dir="$WORK/$k-$i"
    base="$GEMM --m $s --n $s --k $s --dtype bf16 --require-gpu --max-time $MAX_TIME --min-time $MIN_TIME"
    new="$base ${NEW_ARGS[$k]}"
    t0=$SECONDS
    say "\$ tools/gauge-ab --base \"$base\" --new \"$new\" --runs $RUNS --fail-on-regression (comparison $k #$i)"
    timeout 300 python3 tools/gauge-ab --base "$base" --new "$new" --runs "$RUNS" --out-dir "$dir" --compare "$COMPARE" \
        --fail-on-regression "${IGNORE[@]}" --json "$dir/comparison.json" >> "$LOG" 2>&1
    rc=$?
    took=$((SECONDS - t0))
    [ $took -gt $longest ] && longest=$took
    ran=$((ran + 1))
    N[$k]=$((N[$k] + 1))
    [ $rc -eq 0 ] && PASS[$k]=$((PASS[$k] + 1))
    read -r verdict rest < <(describe "$dir/comparison.json")
    case "$verdict" in
      same) V_SAME[$k]=$((V_SAME[$k] + 1));;
      slower) V_SLOWER[$k]=$((V_SLOWER[$k] + 1));;
      faster) V_FASTER[$k]=$((V_FASTER[$k] + 1));;
      inconclusive) V_INCONCLUSIVE[$k]=$((V_INCONCLUSIVE[$k] + 1));;
      *) V_OTHER[$k]=$((V_OTHER[$k] + 1));;
    esac
    line "$(printf '%-5s %-10s #%-2d %-13s %s, exit %d, %d s' "$s" "$k" "$i" "$verdict" "$rest" "$rc" "$took")"
  done
done
line '```'
line ""
[ -n "$stopped" ] && line "$stopped."
line "Ran $ran of the $((COUNT * ${#KINDS[@]})) planned comparisons in $(elapsed) s (deadline $DEADLINE s)."
line ""
line "| kind | size | expected | comparisons | same | slower | faster | inconclusive | other | gate pass (exit 0) |"
line "|---|---|---|---|---|---|---|---|---|---|"
for k in "${KINDS[@]}"; do
  case $k in same-*) expect="same, exit 0";; *) expect="slower, exit 1";; esac
  line "| $k | ${SIZE[$k]}^3 | $expect | ${N[$k]} | ${V_SAME[$k]} | ${V_SLOWER[$k]} | ${V_FASTER[$k]} | ${V_INCONCLUSIVE[$k]} | ${V_OTHER[$k]} | ${PASS[$k]} |"
done
{ date -u; nvidia-smi --query-gpu=pstate,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv; } >> "$LOG" 2>&1
tar -czf "$OUT/reports.tar.gz" -C "$WORK" . 2>> "$LOG"
say "== done in $(elapsed) s; log: $LOG, summary: $SUMMARY, reports: $OUT/reports.tar.gz"
