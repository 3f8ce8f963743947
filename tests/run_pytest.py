"""Runs pytest on a file of gauge's Python tests for CTest. With --require-gpu it first asks the
module whether a CUDA device can be used and exits 77 (CTest: skipped, never passed) where none can.

usage: run_pytest.py [--require-gpu] TEST_FILE
"""
import subprocess
import sys


def main():
    args = sys.argv[1:]
    require_gpu = "--require-gpu" in args
    files = [a for a in args if a != "--require-gpu"]
    if len(files) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    if require_gpu:
        import gauge
        ok, why = gauge.cuda_available()
        if not ok:
            print(f"SKIPPED: no CUDA device for the Python GPU tests: {why}")
            return 77
    return subprocess.call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", files[0]])


if __name__ == "__main__":
    sys.exit(main())
