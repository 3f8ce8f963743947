#!/usr/bin/env bash
# Installs what gauge's scripts need, where it is missing, and says what it installs.
#
#   scripts/install-deps.sh --for run    the main job (scripts/run-gemm.sh): a C++17 compiler,
#                                        CMake, Ninja, fmt, nlohmann_json, CLI11
#   scripts/install-deps.sh --for test   the tests (scripts/test.sh; the default): the above, and
#                                        Catch2 v2 (Debian's catch2), Google Benchmark
#                                        (libbenchmark-dev; its compare.py in libbenchmark-tools,
#                                        which needs python3-scipy), Python 3 with jsonschema, NumPy
#                                        and matplotlib (the report schema and tools tests),
#                                        dpkg-dev (dpkg-source), Open MPI (libopenmpi-dev,
#                                        openmpi-bin: gauge/mpi.hpp's tests under mpirun),
#                                        clang with its libFuzzer and
#                                        sanitizer runtimes, python3-dev, python3-pip and
#                                        python3-pytest (the Python module's tests); then, on
#                                        Debian, Catch2 v3's sources, pinned
#                                        (scripts/fetch-catch2-v3.sh), and nanobind, pinned, from
#                                        PyPI (scripts/fetch-nanobind.sh)
#
# Debian/Ubuntu packages, through apt-get: as root, or with sudo; with neither, it prints the
# apt-get line to run and exits 1. The CUDA toolkit (nvcc, cudart, cuBLAS) must already be
# installed; without nvcc, CMake leaves the CUDA tests and examples out.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

usage() { echo "usage: $0 [--for run|test]" >&2; exit 2; }
set_for=test
while [ $# -gt 0 ]; do
  case "$1" in
    --for) [ $# -ge 2 ] || usage; set_for=$2; shift 2 ;;
    --for=*) set_for=${1#--for=}; shift ;;
    -h|--help) sed -n '2,/^[^#]/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage ;;
  esac
done
case "$set_for" in run|test) ;; *) usage ;; esac

build_set=(cmake ninja-build g++ libfmt-dev nlohmann-json3-dev libcli11-dev)
# clang: the clang build of the tests and the libFuzzer target of the report reader; Debian 12's
# clang is 14, whose libFuzzer and sanitizer runtimes are in libclang-rt-14-dev (a recommendation,
# which --no-install-recommends leaves out); elsewhere (Ubuntu 22.04) they come with clang.
test_set=(catch2 libbenchmark-dev libbenchmark-tools python3 python3-jsonschema python3-numpy python3-scipy
          python3-matplotlib python3-dev python3-pip python3-pytest dpkg-dev clang libopenmpi-dev openmpi-bin
          locales)  # locales: the sources of de_DE, which tests/test_locale.cpp compiles (localedef) for a comma decimal point
if command -v apt-cache >/dev/null 2>&1 && apt-cache show libclang-rt-14-dev >/dev/null 2>&1; then
  test_set+=(libclang-rt-14-dev)
fi
wanted=("${build_set[@]}")
if [ "$set_for" = test ]; then wanted+=("${test_set[@]}"); fi

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
  echo "gauge: not a Debian/Ubuntu system (no dpkg-query or apt-get): install the equivalents of these" \
       "Debian packages yourself: ${wanted[*]}" >&2
else
  missing=()
  for p in "${wanted[@]}"; do
    dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    echo "gauge: the packages for the '$set_for' set are installed: ${wanted[*]}"
  else
    install_line="apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
    if [ "$(id -u)" -eq 0 ]; then
      as_root=()
    elif command -v sudo >/dev/null 2>&1; then
      as_root=(sudo)
    else
      echo "gauge: these packages for the '$set_for' set are missing: ${missing[*]}" >&2
      echo "gauge: installing them needs root, and there is no sudo here. As root, run:" >&2
      echo "  $install_line" >&2
      echo "gauge: then run this again." >&2
      exit 1
    fi
    echo "gauge: installing the packages missing for the '$set_for' set: ${missing[*]}"
    log=$(mktemp)
    trap 'rm -f "$log"' EXIT
    # apt's output goes to a log, shown whole when a step fails; its warnings are shown either way.
    apt_step() {
      if ! "$@" >"$log" 2>&1; then
        cat "$log" >&2
        echo "gauge: failed (above): $*" >&2
        echo "gauge: to install the packages by hand: $install_line" >&2
        exit 1
      fi
      grep -E '^(W|E|Err):' "$log" >&2 || true
    }
    echo "gauge: apt-get update"
    apt_step "${as_root[@]}" apt-get update -q
    echo "gauge: apt-get install -y --no-install-recommends ${missing[*]}"
    apt_step "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
    echo "gauge: installed ${missing[*]}"
  fi
fi

if [ "$set_for" = test ]; then
  # Catch2 v3 beside the installed v2, for the tests of gauge's Catch2 matchers (scripts/test.sh
  # builds them against both). Where the installed Catch2 is v3 already, everything is built
  # against it; the sources come from Debian's archive, so elsewhere they are left out.
  source "$here/env.sh"
  installed_catch2=$(dpkg-query -W -f='${Version}' catch2 2>/dev/null || true)
  os_id=$( (. /etc/os-release 2>/dev/null && echo "${ID:-}") || true)
  if [ -f "$GAUGE_CATCH2_V3_DIR/extras/catch_amalgamated.cpp" ] && [ ! -f "$GAUGE_CATCH2_V3_DIR/.gauge-source" ]; then
    echo "gauge: Catch2 v3 sources: $GAUGE_CATCH2_V3_DIR (GAUGE_CATCH2_V3_DIR)"
  elif [[ "$installed_catch2" == 3.* ]]; then
    echo "gauge: the installed Catch2 is $installed_catch2 (v3): no second Catch2 needed"
  elif [ "$os_id" = debian ]; then
    bash "$here/fetch-catch2-v3.sh"
  else
    echo "gauge: note: Catch2 v3's sources come from Debian's archive; on ${os_id:-this system} the matcher" \
         "tests are built against the installed Catch2 only (set GAUGE_CATCH2_V3_DIR to a Catch2 v3 source" \
         "tree to add v3)"
  fi
fi

if [ "$set_for" = test ]; then
  bash "$here/fetch-nanobind.sh"
fi

if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "gauge: nvcc is not on PATH; using /usr/local/cuda/bin/nvcc"
fi
