#!/usr/bin/env bash
# Installs what gauge needs to build and test, where it is missing: a C++17 compiler, CMake,
# Ninja, fmt, nlohmann_json, Catch2, CLI11 (the command lines of the tools and examples) and
# Python 3 (Debian/Ubuntu packages); for the report schema
# and tools tests, python3-jsonschema, python3-numpy, python3-matplotlib (gauge-plot) and Google
# Benchmark's compare.py (libbenchmark-tools, which needs python3-scipy). The CUDA toolkit
# (nvcc, cudart, cuBLAS) must already be installed; without nvcc, the CUDA tests and examples
# are skipped at configure time.
set -euo pipefail

pkgs=()
need() { dpkg -s "$1" >/dev/null 2>&1 || pkgs+=("$1"); }
if command -v dpkg >/dev/null 2>&1; then
  need cmake; need ninja-build; need g++; need python3
  need libfmt-dev; need nlohmann-json3-dev; need catch2; need libcli11-dev
  need python3-jsonschema; need python3-numpy; need python3-matplotlib; need python3-scipy; need libbenchmark-tools
fi
if [ ${#pkgs[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  echo "gauge: installing ${pkgs[*]}"
  $SUDO apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${pkgs[@]}" >/dev/null
fi
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "gauge: nvcc is not on PATH; using /usr/local/cuda/bin/nvcc"
fi
