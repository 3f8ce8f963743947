#!/usr/bin/env bash
# gauge::Timer on the GPU (issue 5): the training-loop example (default level, then with the
# per-layer regions of level 2) and the Timer benchmark. Builds nothing: expects the build tree
# build-h200 that scripts/gpu-check.sh makes (-DGAUGE_BUILD_BENCH=ON). Logs go to $OUT/timer.log,
# reports to $OUT (default ./gpu-out).
#   OUT=/path bash scripts/gpu-timer.sh
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
B=${GAUGE_BUILD_DIR:-build-h200}
for exe in "$B/examples/training_loop" "$B/bench/bench_timer"; do
  if [ ! -x "$exe" ]; then
    echo "gpu-timer: $exe is missing: build $B first (scripts/gpu-check.sh)" | tee -a "$OUT/timer.log"
    exit 1
  fi
done
status=0
run() {
  echo "== $*" | tee -a "$OUT/timer.log"
  "$@" 2>&1 | tee -a "$OUT/timer.log"
  local rc=${PIPESTATUS[0]}
  if [ "$rc" -ne 0 ]; then
    echo "== exit code $rc: $*" | tee -a "$OUT/timer.log"
    status=1
  fi
}
run "$B/examples/training_loop" --out "$OUT/training-loop.json" --jsonl "$OUT/training-loop.jsonl"
run "$B/examples/training_loop" --steps 500 --log-every 250 --timer-level 2 \
  --out "$OUT/training-loop-level2.json" --jsonl "$OUT/training-loop-level2.jsonl"
run "$B/bench/bench_timer" --out "$OUT/bench_timer.json"
exit $status
