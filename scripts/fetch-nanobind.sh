#!/usr/bin/env bash
# Brings nanobind, pinned, into $GAUGE_NANOBIND_DIR (default .deps-src/nanobind-<version>/, which
# git ignores), for the test build of gauge's Python module (scripts/test.sh: -DGAUGE_BUILD_PYTHON=ON).
# `pip install .` does not need it: scikit-build-core brings nanobind itself. It downloads the
# wheel from PyPI with pip, checks it against the SHA-256 pinned below and unpacks it (a wheel is
# a zip: nanobind's headers, sources and CMake package); it needs no root. scripts/install-deps.sh
# --for test runs it. To move to another version: change GAUGE_NANOBIND_VERSION (scripts/env.sh)
# and wheel_sha256 together (sha256sum the wheel `pip download nanobind==<version> --no-deps` brings).
set -euo pipefail
source "$(dirname "$0")/env.sh"

version=$GAUGE_NANOBIND_VERSION
wheel=nanobind-$version-py3-none-any.whl
wheel_sha256=96984dbe8154ffb86e653b1b60aaeed6985c710c5e75ad0279eb87943c66292d
dest=$GAUGE_NANOBIND_DIR
stamp="nanobind $version $wheel_sha256"

if [ -f "$dest/.gauge-source" ] && [ "$(cat "$dest/.gauge-source")" = "$stamp" ]; then
  echo "gauge: nanobind: $dest (nanobind $version, there already)"
  exit 0
fi
python=${GAUGE_TEST_PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "gauge: downloading nanobind $version from PyPI (pip download) into $dest"
if ! "$python" -m pip download --quiet --no-deps --only-binary=:all: "nanobind==$version" -d "$work" >"$work/log" 2>&1; then
  cat "$work/log" >&2
  echo "gauge: cannot download nanobind $version (above); the Python module's tests need it (or set GAUGE_NANOBIND_DIR)" >&2
  exit 1
fi
actual=$(sha256sum "$work/$wheel" | cut -d' ' -f1)
if [ "$actual" != "$wheel_sha256" ]; then
  echo "gauge: $wheel has SHA-256 $actual, not the pinned $wheel_sha256: not used" >&2
  exit 1
fi
rm -rf "$dest"
mkdir -p "$dest"
"$python" -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$work/$wheel" "$dest"
echo "$stamp" > "$dest/.gauge-source"
echo "gauge: nanobind $version: $dest (its CMake package: $dest/nanobind/cmake)"
