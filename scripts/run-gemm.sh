#!/usr/bin/env bash
# The main job: installs what is missing to build it (scripts/install-deps.sh --for run), builds
# gauge's GEMM example (Release) and runs it. On a machine with a GPU: cuBLAS GEMM, M=N=K=8192
# bf16 by default; without one, the same protocol on the host backend with a CPU GEMM (it says
# so), writing build/gemm-report.json. Arguments go to the example, e.g.
# scripts/run-gemm.sh --dtype fp16 --out my-report.json
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bash "$here/install-deps.sh" --for run
source "$here/env.sh"
echo "gauge: configuring $GAUGE_BUILD"
cmake -S "$GAUGE_ROOT" -B "$GAUGE_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGAUGE_BUILD_TESTS=OFF
echo "gauge: building the GEMM example"
cmake --build "$GAUGE_BUILD" --target gemm
# The report goes into the build folder (not the repository's root) unless --out says where.
out=()
case " $* " in *" --out "*|*" --out="*) ;; *) out=(--out "$GAUGE_BUILD/gemm-report.json") ;; esac
"$GAUGE_BUILD/examples/gemm" "${out[@]}" "$@"
