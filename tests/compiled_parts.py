#!/usr/bin/env python3
"""What each program compiles of gauge's compiled part (issue "Compiled once": a program that does
not use MPI or kernel tracing compiles neither).

Preprocesses small plain-build programs with the C++ compiler's -H (the headers it opens, one per
line on stderr) and checks which of gauge's parts each one pulls in; with --archive NAME=PATH, also
reads the defined symbols of CMake's static libraries (nm) and checks which hold CUPTI tracing.

  compiled_parts.py --cxx g++ --include include/ [--cuda-include DIR] [--archive host=lib.a ...]

Exit 0: every expectation held; 1: one did not (each named); 2: bad arguments or a tool failed.
"""
import argparse
import os
import subprocess
import sys
import tempfile

PROGRAMS = {
    # name: (source, headers that must be opened, headers that must not)
    "plain build, GAUGE_IMPLEMENTATION + gauge.hpp": (
        "#define GAUGE_IMPLEMENTATION\n#include <gauge/gauge.hpp>\nint main() {}\n",
        ["gauge/implementation/protocol.hpp", "gauge/implementation/environment.hpp",
         "gauge/implementation/report.hpp"],
        ["gauge/implementation/tracing.hpp", "gauge/env/cupti.hpp", "gauge/env/cupti_tracer.hpp",
         "gauge/mpi.hpp", "mpi.h", "CLI/CLI.hpp", "gauge/suite/implementation.hpp"]),
    "plain build with <gauge/tracing.hpp>": (
        "#define GAUGE_IMPLEMENTATION\n#include <gauge/gauge.hpp>\n#include <gauge/tracing.hpp>\nint main() {}\n",
        ["gauge/implementation/tracing.hpp", "gauge/env/cupti.hpp", "gauge/implementation/protocol.hpp"],
        ["gauge/mpi.hpp", "mpi.h", "CLI/CLI.hpp"]),
    "a benchmark file (no GAUGE_IMPLEMENTATION)": (
        "#include <gauge/gauge.hpp>\n#include <gauge/tracing.hpp>\n#include <gauge/timer.hpp>\nint main() {}\n",
        [],
        ["gauge/implementation/protocol.hpp", "gauge/implementation/report.hpp",
         "gauge/implementation/tracing.hpp", "gauge/env/cupti.hpp", "nlohmann/json.hpp", "gauge/mpi.hpp"]),
    "a Timer loop with GAUGE_IMPLEMENTATION": (
        "#define GAUGE_IMPLEMENTATION\n#include <gauge/timer.hpp>\nint main() {}\n",
        [],
        ["gauge/implementation/tracing.hpp", "gauge/env/cupti.hpp", "gauge/mpi.hpp"]),
}
# A symbol only CUPTI tracing defines (gauge/implementation/tracing.hpp).
TRACING_SYMBOL = "make_cupti_kernel_tracer"


def opened(cxx, flags, source):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "program.cpp")
        with open(path, "w") as f:
            f.write(source)
        p = subprocess.run([cxx, "-std=c++17", "-E", "-H", *flags, path], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{cxx} failed to preprocess:\n{p.stderr[-2000:]}")
    return [line.lstrip(". ").strip() for line in p.stderr.splitlines() if line.startswith(".")]


def has(headers, name):
    return any(h == name or h.endswith("/" + name) for h in headers)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cxx", required=True)
    ap.add_argument("--include", required=True, help="gauge's include/ folder")
    ap.add_argument("--cuda-include", default="/usr/local/cuda/include")
    ap.add_argument("--archive", action="append", default=[],
                    help="NAME=PATH of a static library; NAME 'with' must hold tracing, 'without' must not")
    a = ap.parse_args()
    flags = ["-I" + a.include]
    if os.path.isdir(a.cuda_include):
        flags.append("-I" + a.cuda_include)
    failed = []
    try:
        for name, (source, must, must_not) in PROGRAMS.items():
            headers = opened(a.cxx, flags, source)
            missing = [h for h in must if not has(headers, h)]
            extra = [h for h in must_not if has(headers, h)]
            print(f"{name}: {len(headers)} headers opened" + (f"; missing {missing}" if missing else "")
                  + (f"; should not open {extra}" if extra else ""))
            if missing or extra:
                failed.append(name)
        for spec in a.archive:
            kind, _, path = spec.partition("=")
            if kind not in ("with", "without") or not path:
                print(f"compiled_parts.py: --archive {spec!r}: expected with=PATH or without=PATH", file=sys.stderr)
                return 2
            p = subprocess.run(["nm", "-C", "--defined-only", path], capture_output=True, text=True)
            if p.returncode != 0:
                raise RuntimeError(f"nm {path} failed: {p.stderr.strip()}")
            traced = TRACING_SYMBOL in p.stdout
            print(f"{os.path.basename(path)}: {'holds' if traced else 'does not hold'} CUPTI tracing")
            if traced != (kind == "with"):
                failed.append(path)
    except (RuntimeError, OSError) as e:
        print(f"compiled_parts.py: {e}", file=sys.stderr)
        return 2
    if failed:
        print("FAILED: " + "; ".join(failed))
        return 1
    print("ok: every program compiles only the parts it uses")
    return 0


if __name__ == "__main__":
    sys.exit(main())
