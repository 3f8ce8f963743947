#!/usr/bin/env bash
# gauge over MPI ranks on a 2-GPU host (issue 13), in one call of about 8 minutes:
#   1. builds gauge's MPI targets (allreduce, training_loop_mpi, gauge_mpi_tests) for sm_90 against
#      the image's NCCL (the torch image's nvidia/nccl Python package) and MPI (mpicc/mpirun);
#   2. builds nccl-tests' all_reduce_perf from the carried source (.nccl-tests) with its Makefile (MPI=1);
#   3. runs gauge's all-reduce sweep (examples/allreduce.cu; float and bf16, then float) twice and
#      `all_reduce_perf -b 8 -e 1G -f 2 -g 1` twice, alternating, all under `mpirun -np 2`, compares
#      them (scripts/mpi_compare.py), and runs all-gather and reduce-scatter (float) once;
#   4. runs the training loop under MPI with rank 1 slowed (--slow-rank 1);
#   5. runs the MPI CTest tests (ctest -R '^mpi:').
# Started from the repository root, with `.deps` (source .deps/activate.sh) and `.nccl-tests`
# carried. Writes to $OUT: summary.log (the key lines), gpu-mpi.tar.gz (every log and report),
# allreduce-1.json, allreduce-2.json, training-loop-mpi.json (gather-scatter.json is in the tar).
#   OUT=/path bash scripts/gpu-mpi.sh
set -uo pipefail
# Mandatory on this host: no NVLink SHARP / multicast, in every process (passed through mpirun -x).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
W=$OUT/work            # logs and reports, packed at the end
mkdir -p "$W"
S=$OUT/summary.log
: > "$S"
log() { echo "$*" | tee -a "$S"; }
status=0
# run NAME TIMEOUT_S COMMAND...: logs to $W/NAME.log, notes the exit code in the summary.
# GAUGE_MPI_DEADLINE_S (default 540): a step that would start later is skipped (the device call's
# limit is 600 s; what was measured by then still comes back).
deadline=${GAUGE_MPI_DEADLINE_S:-540}
run() {
  local name=$1 limit=$2
  shift 2
  if [ "$SECONDS" -ge "$deadline" ]; then log "== $name: skipped (past ${deadline} s)"; status=1; return 1; fi
  [ $((SECONDS + limit)) -gt $((deadline + 50)) ] && limit=$((deadline + 50 - SECONDS))
  echo "== $*" > "$W/$name.log"
  local t0=$SECONDS
  timeout --kill-after=10 "$limit" "$@" >> "$W/$name.log" 2>&1
  local rc=$?
  log "== $name: exit $rc after $((SECONDS - t0)) s"
  [ "$rc" -ne 0 ] && status=1
  return $rc
}
pack() {
  tar -C "$W" -czf "$OUT/gpu-mpi.tar.gz" . 2>/dev/null
  for f in allreduce-1.json allreduce-2.json training-loop-mpi.json; do [ -f "$W/$f" ] && cp "$W/$f" "$OUT/$f"; done
}
trap pack EXIT

[ -f .deps/activate.sh ] && source .deps/activate.sh > /dev/null
export PATH=/usr/local/cuda/bin:$PATH
log "== host $(hostname), $(nvidia-smi -L 2>/dev/null | wc -l) GPUs; $(mpirun --version 2>&1 | head -1); NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE"
nvidia-smi topo -m > "$W/topo.log" 2>&1

# NCCL from the torch image's Python package (nvidia/nccl: include/nccl.h, lib/libnccl.so.2). The
# Makefile of nccl-tests links -lnccl: a folder with lib/libnccl.so -> libnccl.so.2 stands for it.
NCCL=$(python3 -c "import nvidia.nccl as m, os; print(os.path.realpath(list(m.__path__)[0]))" 2>/dev/null)
if [ -z "$NCCL" ] || [ ! -f "$NCCL/include/nccl.h" ]; then
  log "gpu-mpi: no NCCL in the Python package nvidia.nccl ($NCCL)"; exit 1
fi
NCCL_HOME=/tmp/gauge-nccl-home
rm -rf "$NCCL_HOME"; mkdir -p "$NCCL_HOME/lib"
ln -s "$NCCL/include" "$NCCL_HOME/include"
for f in "$NCCL"/lib/libnccl.so*; do ln -s "$f" "$NCCL_HOME/lib/"; done
[ -e "$NCCL_HOME/lib/libnccl.so" ] || ln -s "$NCCL/lib/libnccl.so.2" "$NCCL_HOME/lib/libnccl.so"
export LD_LIBRARY_PATH=$NCCL_HOME/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
log "== NCCL $(grep -m1 -E '^#define NCCL_VERSION_CODE' "$NCCL/include/nccl.h" | awk '{print $3}') from $NCCL"

# MPI: MPI_HOME with include/mpi.h and lib/libmpi.so, from mpicc (a folder of links where the
# wrapper's directories are not <prefix>/include and <prefix>/lib).
MPI_HOME=$(dirname "$(dirname "$(readlink -f "$(command -v mpicc)")")")
if [ ! -f "$MPI_HOME/include/mpi.h" ] || [ ! -e "$MPI_HOME/lib/libmpi.so" ]; then
  MPI_HOME=/tmp/gauge-mpi-home
  rm -rf "$MPI_HOME"; mkdir -p "$MPI_HOME"
  ln -s "$(mpicc --showme:incdirs | awk '{print $1}')" "$MPI_HOME/include"
  ln -s "$(mpicc --showme:libdirs | awk '{print $1}')" "$MPI_HOME/lib"
fi
log "== MPI_HOME=$MPI_HOME"
MPIRUN=(mpirun -np 2 --allow-run-as-root --bind-to none
        -x NCCL_NVLS_ENABLE -x TORCH_SYMM_MEM_DISABLE_MULTICAST -x NVSHMEM_DISABLE_NVLS -x LD_LIBRARY_PATH -x PATH)

# 1. gauge (in the background while nccl-tests builds; 16 cores).
B=build-mpi
( cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DGAUGE_NCCL_ROOT="$NCCL" \
    -DGAUGE_BUILD_TOOLS=OFF -DMPI_CXX_COMPILER="$(command -v mpicxx)" \
  && cmake --build $B -j 10 --target allreduce training_loop_mpi gauge_mpi_tests ) > "$W/build-gauge.log" 2>&1 &
gauge_build=$!
# 2. nccl-tests' all_reduce_perf only (src/Makefile's rule for one program, with its libraries).
run build-nccl-tests 400 make -C .nccl-tests/src -j 6 MPI=1 MPI_HOME="$MPI_HOME" NCCL_HOME="$NCCL_HOME" \
  CUDA_HOME=/usr/local/cuda NVCC_GENCODE=-gencode=arch=compute_90,code=sm_90 BUILDDIR="$PWD/build-nccl-tests" \
  os.build "$PWD/build-nccl-tests/all_reduce_perf"
wait $gauge_build; rc=$?
log "== build-gauge: exit $rc"
[ "$rc" -ne 0 ] && { tail -30 "$W/build-gauge.log" | tee -a "$S"; status=1; }
PERF=$PWD/build-nccl-tests/all_reduce_perf

# 3. The sweep, twice each, alternating (gauge, nccl-tests, gauge, nccl-tests).
if [ -x $B/examples/allreduce ]; then
  run allreduce-1 200 "${MPIRUN[@]}" $B/examples/allreduce --ops all_reduce --types float,bf16 \
    --places out,in --min-bytes 8 --max-bytes 1G --max-time 2 -o "$W/allreduce-1.json"
fi
[ -x "$PERF" ] && run nccl-tests-1 120 "${MPIRUN[@]}" "$PERF" -b 8 -e 1G -f 2 -g 1
if [ -x $B/examples/allreduce ]; then
  run allreduce-2 120 "${MPIRUN[@]}" $B/examples/allreduce --ops all_reduce --types float --places out,in \
    --min-bytes 8 --max-bytes 1G --max-time 2 -o "$W/allreduce-2.json"
fi
[ -x "$PERF" ] && run nccl-tests-2 120 "${MPIRUN[@]}" "$PERF" -b 8 -e 1G -f 2 -g 1
if [ -x $B/examples/allreduce ]; then
  run gather-scatter 150 "${MPIRUN[@]}" $B/examples/allreduce --ops all_gather,reduce_scatter --types float --places out,in \
    --min-bytes 8 --max-bytes 1G --max-time 2 -o "$W/gather-scatter.json"
fi
for place in out in; do
  if python3 scripts/mpi_compare.py --gauge "$W/allreduce-1.json" "$W/allreduce-2.json" \
       --nccl "$W/nccl-tests-1.log" "$W/nccl-tests-2.log" --place $place > "$W/compare-$place.log" 2>&1; then :; else status=1; fi
  cat "$W/compare-$place.log" >> "$S"
done
grep -h -E "^all_reduce +bf16|^(all_gather|reduce_scatter) " "$W/allreduce-1.log" "$W/gather-scatter.log" 2>/dev/null \
  | awk '$4 >= 67108864' >> "$S"
grep -h "per-rank medians differ" "$W/allreduce-1.log" "$W/gather-scatter.log" 2>/dev/null | head -5 >> "$S"

# 4. The training loop, one rank per GPU, rank 1 slowed by 2 ms per step.
if [ -x $B/examples/training_loop_mpi ]; then
  run training-loop-mpi 150 "${MPIRUN[@]}" $B/examples/training_loop_mpi --steps 1500 --log-every 250 --slow-rank 1 \
    --slow-us 2000 -o "$W/training-loop-mpi.json" --jsonl "$W/training-loop-mpi.jsonl"
  grep -h -E "^rank [0-9]|^  timer mlp_train across|^straggler:|^timer: .* host synchronizations|^loss:" \
    "$W/training-loop-mpi.log" | tail -12 >> "$S"
fi

# 5. The MPI CTest tests (CPU; 4 ranks oversubscribed).
run ctest-mpi 200 ctest --test-dir $B -R '^mpi:' --output-on-failure
grep -E "tests passed|Failed|\*\*\*" "$W/ctest-mpi.log" >> "$S"
log "== gpu-mpi: status $status"
exit $status
