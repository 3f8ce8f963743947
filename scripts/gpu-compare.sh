#!/usr/bin/env bash
# Comparison and plots on the H200 (issue 6, "done when"): two runs of the same GEMM compare as
# `same`, bf16 against fp32 as `faster` with its interval, and plots of a real report.
#
#   bash scripts/gpu-compare.sh            # after scripts/gpu-check.sh built build-h200/
#
# Assumes build-h200/ is built with the examples and tools (gpu-check.sh's configure does: both
# are on by default). Runs the GEMM example at M=N=K=8192 twice in bf16 and once in fp32, then
# gauge-compare (run1 vs run2: expect `same`; fp32 vs bf16 with --ignore-dimension dtype: expect
# `faster`) and gauge-plot (timeline of run1, distributions of run1 vs run2 and of fp32 vs bf16).
# Everything goes to $OUT (default ./gpu-out), at most 8 files:
#   run1.json run2.json fp32.json   the reports
#   compare.log                      every command, its output, the verdicts (text and JSON)
#   timeline.png compare-same.png compare-bf16-fp32.png
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
B=${B:-build-h200}
LOG="$OUT/compare.log"
: > "$LOG"
say() { echo "$*" | tee -a "$LOG"; }
run() { say "\$ $*"; "$@" >> "$LOG" 2>&1; local rc=$?; say "(exit $rc)"; return $rc; }

for f in "$B/examples/gemm" "$B/tools/gauge-compare"; do
  [ -x "$f" ] || { say "missing $f: build first, e.g. cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 && cmake --build $B"; exit 2; }
done
{ date -u; nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv; } >> "$LOG" 2>&1

G=(--m 8192 --n 8192 --k 8192)
run "$B/examples/gemm" "${G[@]}" --dtype bf16 --require-gpu --out "$OUT/run1.json" || exit 1
run "$B/examples/gemm" "${G[@]}" --dtype bf16 --require-gpu --out "$OUT/run2.json" || exit 1
run "$B/examples/gemm" "${G[@]}" --dtype fp32 --require-gpu --out "$OUT/fp32.json" || exit 1

if python3 -c "import jsonschema" 2>/dev/null; then
  run python3 tests/validate_report.py schema/gauge-report.schema.json "$OUT/run1.json" "$OUT/run2.json" "$OUT/fp32.json"
else
  say "python3-jsonschema not installed here: schema validation skipped"
fi

C="$B/tools/gauge-compare"
run "$C" "$OUT/run1.json" "$OUT/run2.json" --fail-on-regression
run "$C" "$OUT/run1.json" "$OUT/run2.json" --format json
run "$C" "$OUT/fp32.json" "$OUT/run1.json" --ignore-dimension dtype
run "$C" "$OUT/fp32.json" "$OUT/run1.json" --ignore-dimension dtype --format json
run "$C" "$OUT/fp32.json" "$OUT/run1.json" --ignore-dimension dtype --format markdown

# The verdicts, checked against what the issue expects.
verdict() { "$C" "$@" --format json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
e = d["experiments"][0] if d["experiments"] else None
if e is None:
    print("no match", "; ".join(d.get("notes", [])))
else:
    r = e["ratio"] or {}
    print(e["verdict"], "new/base %.4f [%.4f, %.4f]" % (r.get("estimate", 0), r.get("low", 0), r.get("high", 0)),
          "comparable" if d["comparable"] else "NOT comparable")'; }
same=$(verdict "$OUT/run1.json" "$OUT/run2.json")
faster=$(verdict "$OUT/fp32.json" "$OUT/run1.json" --ignore-dimension dtype)
status=0
case "$same" in same*) say "PASS run1 vs run2: $same";; *) say "FAIL run1 vs run2 (expected same): $same"; status=1;; esac
case "$faster" in faster*) say "PASS fp32 vs bf16: $faster";; *) say "FAIL fp32 vs bf16 (expected faster): $faster"; status=1;; esac

P="python3 tools/gauge-plot"
if python3 -c "import matplotlib, numpy" 2>/dev/null; then
  run $P timeline "$OUT/run1.json" -o "$OUT/timeline.png" || status=1
  run $P compare "$OUT/run1.json" "$OUT/run2.json" -o "$OUT/compare-same.png" || status=1
  "$C" "$OUT/fp32.json" "$OUT/run1.json" --ignore-dimension dtype --format json > /tmp/gauge-bf16-fp32.json 2>/dev/null
  run $P compare "$OUT/fp32.json" "$OUT/run1.json" --ignore-dimension dtype --comparison /tmp/gauge-bf16-fp32.json \
      -o "$OUT/compare-bf16-fp32.png" || status=1
else
  say "matplotlib not installed here: make the plots from the returned reports with"
  say "  tools/gauge-plot timeline run1.json -o docs/timeline.png"
  say "  tools/gauge-plot compare run1.json run2.json -o docs/compare-same.png"
  say "  tools/gauge-plot compare fp32.json run1.json --ignore-dimension dtype -o docs/compare-bf16-fp32.png"
fi
say "== $([ $status -eq 0 ] && echo ok || echo FAILED); log: $LOG"
exit $status
