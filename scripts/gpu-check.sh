#!/usr/bin/env bash
# Everything that needs the GPU, in one call on the H200 (see the developers' guide):
#   source .deps/activate.sh && bash scripts/gpu-check.sh
# Builds for sm_90, runs the whole test suite (GPU tests included), the GEMM example at
# M=N=K=8192 bf16, and the benchmarks. Logs and reports go to $OUT (default ./gpu-out).
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
B=build-h200
{
  date -u; nvidia-smi; nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,clocks.mem,temperature.gpu,power.draw,memory.total --format=csv
  nvcc --version | tail -2; cmake --version | head -1
} > "$OUT/bench.log" 2>&1
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DGAUGE_BUILD_BENCH=ON > "$OUT/build.log" 2>&1 &&
  cmake --build $B -j 16 >> "$OUT/build.log" 2>&1 || { tail -50 "$OUT/build.log"; exit 1; }
echo "== build ok"
ctest --test-dir $B -j 4 -E '^gpu:|example_gemm_gpu' --output-on-failure > "$OUT/ctest.log" 2>&1
ctest --test-dir $B -R '^gpu:|example_gemm_gpu' -V >> "$OUT/ctest.log" 2>&1
grep -E "tests passed|Skipped|Failed|\*\*\*" "$OUT/ctest.log" | tail -15
grep -E "^(spin|other|16 MiB|GPU:)|verification" "$OUT/ctest.log" | sed 's/^[0-9]*: //' | head -20
echo "== gemm 8192 bf16"
$B/examples/gemm --m 8192 --n 8192 --k 8192 --dtype bf16 --out "$OUT/gemm-h200.json" 2>&1 | tee "$OUT/gemm.log"
echo "== bench_method"
$B/bench/bench_method --out "$OUT/bench_method.json" 2>&1 | tee -a "$OUT/bench.log"
echo "== bench_python"
PYTHONUNBUFFERED=1 timeout 300 python3 bench/bench_python.py --out "$OUT/bench_python.json" 2>&1 | tee -a "$OUT/bench.log"
