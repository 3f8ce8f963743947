#!/usr/bin/env bash
# The suites' GPU checks (issue 12), in one call on the H200 (about 3-4 minutes):
#   source .deps/activate.sh && bash scripts/gpu-suite.sh
# Builds examples/sweep and bench/bench_sweep for sm_90; runs the sweep (report, markdown tables,
# the plot), bench_sweep (triad vs a back-to-back copy rate, the runner's overhead), and
# `ncu --profile-from-start off` on `sweep --profile` for one point, listing the kernels it
# captured (expected: exactly the step's kernel, none of gauge's), and two `sweep --interleave`
# runs (paired ratio B/A on the CUDA backend). Everything goes to $OUT;
# $OUT/summary.log has the key lines.
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
B=${GAUGE_BUILD_DIR:-build-h200-suite}
S=$OUT/summary.log
log() { echo "$@" | tee -a "$S"; }
{ date -u; nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,clocks.mem,temperature.gpu,power.draw,memory.total --format=csv
  nvcc --version | tail -2; cmake --version | head -1; ncu --version | tail -1; git log -1 --oneline 2>/dev/null; } > "$OUT/machine.txt" 2>&1
head -3 "$OUT/machine.txt" | tee -a "$S"
t0=$(date +%s)
if [ ! -x "$B/examples/sweep" ]; then
  cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DGAUGE_BUILD_BENCH=ON \
    -DGAUGE_BUILD_TESTS=OFF -DGAUGE_BUILD_TOOLS=OFF > "$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log" | tee -a "$S"; exit 1; }
  cmake --build $B -j 16 --target sweep bench_sweep >> "$OUT/build.log" 2>&1 || { grep -E "error|FAILED" "$OUT/build.log" | head -20 | tee -a "$S"; exit 1; }
  log "== build ok ($(( $(date +%s) - t0 )) s)"
fi

log "== sweep --list | wc -l"; $B/examples/sweep --list | wc -l | tee -a "$S"
t1=$(date +%s)
log "== sweep (copy, triad: 2^12..2^30 bytes x {float,double}; gemm: 2^10..2^13 x {fp32,fp16,bf16}), --max-time 2"
$B/examples/sweep --max-time 2 --out "$OUT/sweep-h200.json" --format markdown > "$OUT/sweep-h200.md" 2> "$OUT/sweep.err"
log "exit $? ($(( $(date +%s) - t1 )) s)"
tail -1 "$OUT/sweep.err" | tee -a "$S"
grep -A24 "^## triad" "$OUT/sweep-h200.md" | tee -a "$S"
if python3 -c "import matplotlib" 2>/dev/null; then
  MPLBACKEND=Agg python3 tools/gauge-plot sweep "$OUT/sweep-h200.json" --x bytes -o "$OUT/sweep-bytes-h200.png" 2>&1 | tee -a "$S"
  MPLBACKEND=Agg python3 tools/gauge-plot sweep "$OUT/sweep-h200.json" --x N -o "$OUT/sweep-gemm-h200.png" 2>&1 | tee -a "$S"
else
  log "no matplotlib: plots not drawn (tools/gauge-plot sweep on the report elsewhere)"
fi

# --interleave on the CUDA backend: a copy against itself at another size (B moves twice the
# bytes: B/A near 2 for a bandwidth-bound size, verdict slower) and fp16 against bf16 GEMM at one N
# (same tensor-core rate on an H200: B/A near 1), each with its report validated by the schema.
log "== sweep --interleave copy/T=float/bytes=268435456 copy/T=float/bytes=536870912"
$B/examples/sweep --interleave copy/T=float/bytes=268435456 copy/T=float/bytes=536870912 --max-time 4 \
  --out "$OUT/interleave-copy-h200.json" > "$OUT/interleave-copy.log" 2>&1
log "exit $? (expected 0; B/A near 2)"
grep -A2 "^interleaved A/B" "$OUT/interleave-copy.log" | tee -a "$S"
log "== sweep --interleave gemm/N=4096/dtype=fp16 gemm/N=4096/dtype=bf16"
$B/examples/sweep --interleave gemm/N=4096/dtype=fp16 gemm/N=4096/dtype=bf16 --max-time 4 \
  --out "$OUT/interleave-gemm-h200.json" > "$OUT/interleave-gemm.log" 2>&1
log "exit $? (expected 0)"
grep -A2 "^interleaved A/B" "$OUT/interleave-gemm.log" | tee -a "$S"
python3 tests/validate_report.py schema/gauge-report.schema.json "$OUT/interleave-copy-h200.json" \
  "$OUT/interleave-gemm-h200.json" 2>&1 | tee -a "$S"

log "== bench_sweep"
$B/bench/bench_sweep "$OUT/bench-sweep.json" > "$OUT/bench_sweep.log" 2> "$OUT/bench_sweep.err"
log "exit $?"
sed -n '/== triad bandwidth/,$p' "$OUT/bench_sweep.log" | tee -a "$S"

log "== ncu --profile-from-start off: sweep --profile --filter 'triad/T=float/bytes=268435456'"
ncu --profile-from-start off --csv --print-summary none --metrics gpu__time_duration.sum \
  $B/examples/sweep --profile --filter 'triad/T=float/bytes=268435456$' > "$OUT/ncu.csv" 2> "$OUT/ncu.err"
log "exit $?"
{ echo "kernels captured (ID, kernel name):"
  python3 - "$OUT/ncu.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if r]
head = next((i for i, r in enumerate(rows) if "Kernel Name" in r), None)
if head is None:
    print("no kernel table in ncu's output"); sys.exit(0)
h = rows[head]; k, i = h.index("Kernel Name"), h.index("ID")
seen = {}
for r in rows[head + 1:]:
    if len(r) > k: seen.setdefault(r[i], r[k])
for id_, name in seen.items(): print(id_, name)
print("count:", len(seen))
PY
  echo "--- sweep's stderr under ncu:"; tail -5 "$OUT/ncu.err"; } > "$OUT/ncu.log" 2>&1
tee -a "$S" < "$OUT/ncu.log"
log "== done in $(( $(date +%s) - t0 )) s"
