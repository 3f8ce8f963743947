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
# compiled and linked); D = include_only.cpp (only <gauge/gauge.hpp>); A''' = the compiled part
# as a .cu; G = the compiled part's files as CMake builds them (each, and all two at a time);
# F = a three-file CMake project (gauge through add_subdirectory, CMake building its compiled
# part) against the same with Google Benchmark: first build, then touch one benchmark
# file and rebuild. With --suite, E =
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
    -h|--help) sed -n 2,19p "$0" | sed 's/^# \{0,1\}//'; exit 0;;
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
# The compiled part alone as a .cu (nvcc), as a plain build of a CUDA program compiles it.
cp "$src/report_main.cpp" "$tmp/report_main.cu"
read -r a_impl_cu a_impl_cu_mb < <(measure A-impl-cu "$nvcc" -std=c++17 -O2 -DNDEBUG -arch=sm_90 -I"$include" -c "$tmp/report_main.cu" -o "$tmp/main_cu.o")
# G: the compiled part as CMake builds it, one file per part (src/*.cpp of the tree measured:
# protocol, environment, report, and tracing for gauge::gauge), each alone and all of them two at
# a time (cmake --build -j 2 on this machine). Trees from before the split have none.
srcdir=$(cd "$include/.." && pwd)/src
parts=() g_rows=""
for p in protocol environment report peaks_cache tracing; do [ -f "$srcdir/$p.cpp" ] && parts+=("$p"); done
for p in "${parts[@]}"; do
  read -r t m < <(measure "G-$p" "${cxx[@]}" -c "$srcdir/$p.cpp" -o "$tmp/g_$p.o")
  g_rows+="| G: the compiled part's $p (src/$p.cpp) | g++ -O2 -c | $t | $m | ≤ 10 s | $(awk -v x="$t" 'BEGIN { print (x <= 10 ? "met" : "missed") }') |"$'\n'
done
if [ ${#parts[@]} -gt 0 ]; then
  read -r t m < <(measure G-all bash -c "printf '%s\n' ${parts[*]} | xargs -P 2 -I{} ${cxx[*]} -c $srcdir/{}.cpp -o $tmp/g_{}.o")
  g_rows+="| G: all ${#parts[@]} parts, two compiles at a time | g++ -O2 -c, 2 jobs | $t | $m | | |"$'\n'
fi
read -r b b_mb < <(measure B "${cxx[@]}" "$src/single_host.cpp" -o "$tmp/b" -L"$cuda/lib64" -lcudart -lfmt -ldl -pthread)
read -r c c_mb < <(measure C "$nvcc" -std=c++17 -O2 -DNDEBUG -arch=sm_90 -I"$include" "$src/single_cuda.cu" -o "$tmp/c" -lfmt)
read -r d d_mb < <(measure D "${cxx[@]}" -c "$src/include_only.cpp" -o "$tmp/d.o")
# F: a three-file CMake project (two benchmark files and main), with gauge through add_subdirectory
# of this tree (CMake builds gauge's compiled part once) and with Google Benchmark (find_package):
# the first build, then touching one benchmark file and rebuilding, the median of N touches.
project_time() {  # DIR: prints "first-build-s touch-rebuild-s"
  local dir=$1 first t0 times=()
  cmake -S "$dir" -B "$dir/build" -G Ninja -DCMAKE_BUILD_TYPE=Release > "$dir/configure.log" 2>&1 \
    || { cat "$dir/configure.log" >&2; echo "compile_time.sh: $dir: configure failed" >&2; exit 1; }
  t0=$(date +%s.%N)
  cmake --build "$dir/build" -j 2 > "$dir/build.log" 2>&1 || { cat "$dir/build.log" >&2; exit 1; }
  first=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
  for ((i = 0; i < repeat; ++i)); do
    sleep 1; touch "$dir/bench_a.cpp"
    t0=$(date +%s.%N)
    cmake --build "$dir/build" -j 2 >> "$dir/build.log" 2>&1 || { cat "$dir/build.log" >&2; exit 1; }
    times+=("$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')")
  done
  echo "$first $(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
}
mkdir -p "$tmp/proj_gauge" "$tmp/proj_gbench"
for x in a b; do
  sed "s/bench_sort/bench_sort_$x/; s/\"sort\"/\"sort_$x\"/" "$src/sort_gauge.cpp" > "$tmp/proj_gauge/bench_$x.cpp"
  sed "s/sort_benchmark/sort_benchmark_$x/g" "$src/sort_gbench.cpp" > "$tmp/proj_gbench/bench_$x.cpp"
done
cat > "$tmp/proj_gauge/main.cpp" <<'CPP'
#include <gauge/gauge.hpp>
gauge::Result bench_sort_a();
gauge::Result bench_sort_b();
int main() {
  gauge::Report report("sort-report.json");
  report.add(bench_sort_a());
  report.add(bench_sort_b());
  report.write();
}
CPP
cat > "$tmp/proj_gauge/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.22)
project(sort_gauge LANGUAGES CXX)
add_subdirectory($root gauge)
add_executable(sort main.cpp bench_a.cpp bench_b.cpp)
target_link_libraries(sort PRIVATE gauge::host)
CMAKE
printf '#include <benchmark/benchmark.h>\nBENCHMARK_MAIN();\n' > "$tmp/proj_gbench/main.cpp"
cat > "$tmp/proj_gbench/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.22)
project(sort_gbench LANGUAGES CXX)
find_package(benchmark REQUIRED)
add_executable(sort main.cpp bench_a.cpp bench_b.cpp)
target_link_libraries(sort PRIVATE benchmark::benchmark)
CMAKE
read -r f_gauge_first f_gauge < <(project_time "$tmp/proj_gauge")
read -r f_gb_first f_gb < <(project_time "$tmp/proj_gbench")

e="-" e_verdict="not run (--suite)"
if [ "$suite" = 1 ]; then
  git -C "$root" clone -q "$root" "$tmp/clone"
  start=$(date +%s)
  (cd "$tmp/clone" && bash scripts/test.sh > "$tmp/suite.log" 2>&1) || { tail -30 "$tmp/suite.log" >&2; echo "compile_time.sh: the suite failed" >&2; exit 1; }
  e=$(( $(date +%s) - start ))
  e_verdict=$(awk -v x="$e" 'BEGIN { print (x <= 900 ? "met" : "missed") }')
  e_verdict="$e_verdict ($(grep -E 'tests passed' "$tmp/suite.log" | tail -1))"
fi
verdict() { awk -v x="$1" -v t="$2" 'BEGIN { print (x <= t ? "met" : "missed") }'; }
ratio=$(awk -v a="$a_gauge" -v b="$a_gb" 'BEGIN { printf "%.2f", a / b }')
f_ratio=$(awk -v a="$f_gauge" -v b="$f_gb" 'BEGIN { printf "%.2f", a / b }')
{
  echo "Compile time, $(date -u +%Y-%m-%d), commit $(git -C "$root" rev-parse --short HEAD), headers from ${include#$root/},"
  echo "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); $(g++ --version | head -1); $("$nvcc" --version | tail -2 | head -1); median of $repeat runs."
  echo
  echo "| program | compiler | wall s | peak MB | target (issue \"Compiled once\") | verdict |"
  echo "|---|---|---:|---:|---|---|"
  echo "| A: host TU defining and running an experiment (report in another TU) | g++ -O2 -c | $a_gauge | $a_gauge_mb | ≤ 2 × Google Benchmark = $(awk -v b="$a_gb" 'BEGIN{printf "%.2f", 2*b}') s | $(verdict "$ratio" 2) (×$ratio) |"
  echo "| A': the same benchmark with Google Benchmark | g++ -O2 -c | $a_gb | $a_gb_mb | | |"
  echo "| A'': the compiled part in one file (GAUGE_IMPLEMENTATION + report), once per program (plain build) | g++ -O2 -c | $a_impl | $a_impl_mb | ≤ 10 s | $(verdict "$a_impl" 10) |"
  echo "| A''': the compiled part as a .cu | nvcc -O2 -arch=sm_90 -c | $a_impl_cu | $a_impl_cu_mb | ≤ 12 s | $(verdict "$a_impl_cu" 12) |"
  printf '%s' "$g_rows"
  echo "| B: one host file, experiment + report | g++ -O2, linked | $b | $b_mb | | |"
  echo "| C: one .cu, CUDA experiment + report | nvcc -O2 -arch=sm_90, linked | $c | $c_mb | | |"
  echo "| D: only #include <gauge/gauge.hpp> | g++ -O2 -c | $d | $d_mb | | |"
  echo "| F: three-file CMake project (gauge::host by add_subdirectory): touch one benchmark file, rebuild | cmake --build, Release | $f_gauge (first build $f_gauge_first) | | ≤ 2 × Google Benchmark = $(awk -v b="$f_gb" 'BEGIN{printf "%.2f", 2*b}') s | $(verdict "$f_ratio" 2) (×$f_ratio) |"
  echo "| F': the same project with Google Benchmark | cmake --build, Release | $f_gb (first build $f_gb_first) | | | |"
  echo "| E: scripts/test.sh on a fresh clone | bash | $e | | ≤ 900 s | $e_verdict |"
} | tee "${out:-/dev/null}"
