# Sourced by gauge's scripts: puts nvcc on PATH when the toolkit is in /usr/local/cuda.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
GAUGE_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
GAUGE_BUILD=${GAUGE_BUILD:-$GAUGE_ROOT/build}
