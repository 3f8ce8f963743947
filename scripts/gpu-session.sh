#!/usr/bin/env bash
# One device call for a change touching the protocol, the streams and the suites:
#   source .deps/activate.sh && bash scripts/gpu-session.sh [verify|streams|suite|kernels ...]
# verify: scripts/gpu-verify.sh (build of everything for sm_90, CTest with the GPU tests, the
# GEMM example twice and gauge-compare, bench_method); streams: bench/bench_streams (the stream
# experiment and 20 separate runs per configuration, issue "Honest intervals"); suite:
# scripts/gpu-suite.sh on the same build (the sweep, bench_sweep, ncu on --profile); kernels:
# scripts/gpu-kernels.sh (kernel tracing: GPU test, bench_kernels, GEMM and training loop with
# --kernels, ncu attached). Default: all.
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
parts=("$@")
[ ${#parts[@]} -eq 0 ] && parts=(verify streams suite kernels)
for p in "${parts[@]}"; do
  case "$p" in
    verify) bash scripts/gpu-verify.sh ;;
    streams)
      echo "== bench_streams" | tee -a "$OUT/summary.log"
      if [ ! -x build-h200/bench/bench_streams ]; then
        cmake -S . -B build-h200 -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DGAUGE_BUILD_BENCH=ON > "$OUT/build-streams.log" 2>&1
        cmake --build build-h200 -j 16 --target bench_streams >> "$OUT/build-streams.log" 2>&1 || tail -20 "$OUT/build-streams.log"
      fi
      t0=$(date +%s)
      build-h200/bench/bench_streams --runs 20 --out "$OUT/bench_streams.json" > "$OUT/bench_streams.md" 2> "$OUT/bench_streams.err"
      echo "exit $? ($(( $(date +%s) - t0 )) s)" | tee -a "$OUT/summary.log"
      tee -a "$OUT/summary.log" < "$OUT/bench_streams.md"; tail -3 "$OUT/bench_streams.err" | tee -a "$OUT/summary.log" ;;
    suite) GAUGE_BUILD_DIR=build-h200 bash scripts/gpu-suite.sh ;;
    kernels) GAUGE_BUILD_DIR=build-h200 bash scripts/gpu-kernels.sh ;;
    *) echo "gpu-session: unknown part '$p' (verify, streams, suite, kernels)" >&2; exit 2 ;;
  esac
done
# Everything but the summary in one archive (the device tool brings back a limited number of files).
( cd "$OUT" && tar czf /tmp/session.tar.gz --exclude=session.tar.gz . && find . -mindepth 1 -not -name summary.log -delete &&
  mv /tmp/session.tar.gz . ) && echo "packed $OUT/session.tar.gz"
