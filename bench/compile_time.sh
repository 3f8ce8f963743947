#!/usr/bin/env bash
# Compile time of small programs that use gauge, side by side with the same benchmark written
# with Google Benchmark, in one run on this machine (issue "Compile in seconds").
#
#   bash bench/compile_time.sh [--repeat N] [--include DIR] [--suite] [--out FILE]
#
# Programs (bench/compile/): A = sort_gauge.cpp (defines and runs a host experiment; its report
# is written by report_main.cpp, another file) against sort_gbench.cpp (Google Benchmark, Debian
# libbenchmark-dev), both `g++ -O2 -c`; B = single_host.cpp (A's two files as one: experiment + report,
# compiled and linked); C = single_cuda.cu (one .cu: CUDA experiment + report, `nvcc -arch=sm_90`,
# compiled and linked); D = include_only.cpp (only <gauge/gauge.hpp>). With --suite, E =
# scripts/test.sh on a fresh clone of HEAD (takes minutes). Each time is the median wall time of
# N runs (default 3), one compiler at a time; the peak memory is the largest seen. --include
# points at another tree's include/ (e.g. an older commit's) to compare. Writes a Markdown table
# to stdout and, with --out, to FILE.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
repeat=3 include="$root/include" suite=0 out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --repeat) repeat=$2; shift 2;;
    --repeat=*) repeat=${1#*=}; shift;;
    --include) include=$(cd "$2" && pwd); shift 2;;
    --include=*) include=$(cd "${1#*=}" && pwd); shift;;
    --suite) suite=1; shift;;
    --out) out=$2; shift 2;;
    --out=*) out=${1#*=}; shift;;
    -h|--help) sed -n 2,15p "$0" | sed 's/^# \{0,1\}//'; exit 0;;
    *) echo "compile_time.sh: unknown argument '$1' (see --help)" >&2; exit 2;;
  esac
done
cuda=${CUDA_HOME:-/usr/local/cuda}
nvcc=$(command -v nvcc || echo "$cuda/bin/nvcc")
src=$here/compile
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cxx=(g++ -std=c++17 -O2 -I"$include" -I"$cuda/include")

# measure NAME CMD...: median wall seconds and max RSS (MB) of N runs; fails loudly.
measure() {
  local name=$1; shift
  local times=() mem=0
  for ((i = 0; i < repeat; ++i)); do
    if ! /usr/bin/time -f "%e %M" -o "$tmp/time" "$@" > "$tmp/log" 2>&1; then
      echo "compile_time.sh: $name failed to compile:" >&2; cat "$tmp/log" >&2; exit 1
    fi
    read -r t m < "$tmp/time"
    times+=("$t"); [ "$m" -gt "$mem" ] && mem=$m
  done
  local med
  med=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  echo "$med $((mem / 1024))"
}

read -r a_gauge a_gauge_mb < <(measure A "${cxx[@]}" -c "$src/sort_gauge.cpp" -o "$tmp/a.o")
read -r a_gb a_gb_mb < <(measure A-gbench g++ -std=c++17 -O2 -c "$src/sort_gbench.cpp" -o "$tmp/gb.o")
read -r a_impl a_impl_mb < <(measure A-impl "${cxx[@]}" -c "$src/report_main.cpp" -o "$tmp/main.o")
read -r b b_mb < <(measure B "${cxx[@]}" "$src/single_host.cpp" -o "$tmp/b" -L"$cuda/lib64" -lcudart -lfmt -ldl -pthread)
read -r c c_mb < <(measure C "$nvcc" -std=c++17 -O2 -DNDEBUG -arch=sm_90 -I"$include" "$src/single_cuda.cu" -o "$tmp/c" -lfmt)
read -r d d_mb < <(measure D "${cxx[@]}" -c "$src/include_only.cpp" -o "$tmp/d.o")
e="-" e_verdict="not run (--suite)"
if [ "$suite" = 1 ]; then
  git -C "$root" clone -q "$root" "$tmp/clone"
  start=$(date +%s)
  (cd "$tmp/clone" && bash scripts/test.sh > "$tmp/suite.log" 2>&1) || { tail -30 "$tmp/suite.log" >&2; echo "compile_time.sh: the suite failed" >&2; exit 1; }
  e=$(( $(date +%s) - start ))
  e_verdict=$(awk -v x="$e" 'BEGIN { print (x <= 360 ? "met" : "missed") }')
  e_verdict="$e_verdict ($(grep -E 'tests passed' "$tmp/suite.log" | tail -1))"
fi
verdict() { awk -v x="$1" -v t="$2" 'BEGIN { print (x <= t ? "met" : "missed") }'; }
ratio=$(awk -v a="$a_gauge" -v b="$a_gb" 'BEGIN { printf "%.2f", a / b }')
{
  echo "Compile time, $(date -u +%Y-%m-%d), commit $(git -C "$root" rev-parse --short HEAD), headers from ${include#$root/},"
  echo "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); $(g++ --version | head -1); $("$nvcc" --version | tail -2 | head -1); median of $repeat runs."
  echo
  echo "| program | compiler | wall s | peak MB | target | verdict |"
  echo "|---|---|---:|---:|---|---|"
  echo "| A: host TU defining and running an experiment (report in another TU) | g++ -O2 -c | $a_gauge | $a_gauge_mb | ≤ 2 × Google Benchmark = $(awk -v b="$a_gb" 'BEGIN{printf "%.2f", 2*b}') s | $(verdict "$ratio" 2) (×$ratio) |"
  echo "| A': the same benchmark with Google Benchmark | g++ -O2 -c | $a_gb | $a_gb_mb | | |"
  echo "| A'': the other TU: GAUGE_IMPLEMENTATION + report (compiled once per program) | g++ -O2 -c | $a_impl | $a_impl_mb | | |"
  echo "| B: one host file, experiment + report | g++ -O2, linked | $b | $b_mb | ≤ 5 s | $(verdict "$b" 5) |"
  echo "| C: one .cu, CUDA experiment + report | nvcc -O2 -arch=sm_90, linked | $c | $c_mb | ≤ 8 s | $(verdict "$c" 8) |"
  echo "| D: only #include <gauge/gauge.hpp> | g++ -O2 -c | $d | $d_mb | ≤ 1.5 s | $(verdict "$d" 1.5) |"
  echo "| E: scripts/test.sh on a fresh clone | bash | $e | | ≤ 360 s | $e_verdict |"
} | tee "${out:-/dev/null}"
