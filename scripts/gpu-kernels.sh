#!/usr/bin/env bash
# The GPU checks of kernel tracing (issue 14), on the build of scripts/gpu-verify.sh (or its own):
#   source .deps/activate.sh && bash scripts/gpu-kernels.sh
# The GPU test of tracing, bench/bench_kernels (traced durations against the spin kernel's stamped
# span, and the tracing overhead), the GEMM example with --kernels, the training loop at Timer
# level 2 with --kernels, and the GEMM example under ncu (tracing must step aside with a warning).
# Logs in $OUT/k (packed by the caller), key lines in $OUT/summary.log.
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}
K=$OUT/k
mkdir -p "$K"
export PATH=/usr/local/cuda/bin:$PATH
B=${GAUGE_BUILD_DIR:-build-h200}
S=$OUT/summary.log
log() { echo "$@" | tee -a "$S"; }
log "== kernels: CUPTI on this machine"
ls -l /usr/local/cuda/lib64/libcupti.so* /usr/local/cuda/extras/CUPTI/lib64/libcupti.so* 2>&1 | head -4 | tee -a "$S"
if [ ! -x "$B/bench/bench_kernels" ] || [ ! -x "$B/examples/gemm" ]; then
  cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DGAUGE_BUILD_BENCH=ON > "$K/build.log" 2>&1
  cmake --build "$B" -j 16 --target bench_kernels gemm training_loop gauge_gpu_tests >> "$K/build.log" 2>&1 || tail -20 "$K/build.log" | tee -a "$S"
fi
log "== kernels: GPU test [kernels]"
"$B/tests/gauge_gpu_tests" "[kernels]" > "$K/gpu-test.log" 2>&1; log "exit $?"
grep -E "^traced|passed|failed|FAILED" "$K/gpu-test.log" | head -12 | tee -a "$S"
log "== kernels: bench_kernels"
t0=$(date +%s)
"$B/bench/bench_kernels" --runs 3 --out "$K/bench_kernels.json" > "$K/bench_kernels.md" 2> "$K/bench_kernels.err"
log "exit $? ($(( $(date +%s) - t0 )) s)"
tee -a "$S" < "$K/bench_kernels.md"; tail -3 "$K/bench_kernels.err" | tee -a "$S"
log "== kernels: gemm 8192 bf16 --kernels"
"$B/examples/gemm" --m 8192 --n 8192 --k 8192 --dtype bf16 --require-gpu --kernels --out "$K/gemm-kernels.json" > "$K/gemm.log" 2>&1
log "exit $?"; grep -v "^\[info\]" "$K/gemm.log" | head -14 | tee -a "$S"
log "== kernels: training loop, level 2, --kernels"
"$B/examples/training_loop" --steps 1500 --log-every 500 --timer-level 2 --kernels --out "$K/training-loop.json" \
  --jsonl "$K/training-loop.jsonl" > "$K/training.log" 2>&1
log "exit $?"; grep -E "kernels|^  |host sync|markers per|MFU" "$K/training.log" | tail -24 | tee -a "$S"
log "== kernels: ncu's gpu__time_duration of the spin kernel (a second measure of its duration)"
timeout 240 ncu --clock-control none --metrics gpu__time_duration.sum --csv --print-units base -k regex:spin_kernel \
  "$B/bench/bench_kernels" --launch-only > "$K/ncu-spin.csv" 2>&1
log "exit $?"; grep -E "launch-only" "$K/ncu-spin.csv" | head -20 | tee -a "$S"
grep -E "gpu__time_duration" "$K/ncu-spin.csv" | awk -F'","' '{print $(NF)}' | tr -d '"' | head -20 | tr '\n' ' ' | tee -a "$S"; echo | tee -a "$S"
log "== kernels: gemm under ncu (tracing must be disabled with profiler_attached)"
timeout 240 ncu --launch-count 1 --clock-control none "$B/examples/gemm" --m 2048 --n 2048 --k 2048 --dtype bf16 --require-gpu \
  --kernels --min-time 0.2 --max-time 1 --out "$K/gemm-ncu.json" > "$K/gemm-ncu.log" 2>&1
log "exit $?"; grep -E "profiler_attached|not traced|==PROF==|==ERROR==" "$K/gemm-ncu.log" | head -6 | tee -a "$S"
