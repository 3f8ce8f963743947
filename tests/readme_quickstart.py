#!/usr/bin/env python3
"""Compiles README.md's Quickstart exactly as the README says (its ```cpp block saved as
my_bench.cu, its nvcc command run with <prefix>/include replaced by this tree's include/), then,
where a GPU exists, runs it and checks the report. Exit 0: built (and ran, with a GPU);
77: built, but no GPU to run it (CTest reports the run test as skipped); 1: failed.

usage: readme_quickstart.py README.md INCLUDE_DIR WORK_DIR [--run]
"""
import json
import os
import re
import shlex
import subprocess
import sys


def main():
    readme, include, work = sys.argv[1:4]
    run = "--run" in sys.argv[4:]
    text = open(readme, encoding="utf-8").read()
    section = text[text.index("## Quickstart"):]
    code = re.search(r"```cpp\n(.*?)```", section, re.S).group(1)
    command = next(line for line in re.findall(r"```sh\n(.*?)```", section, re.S)[0].splitlines()
                   if line.startswith("nvcc "))
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(work, "my_bench.cu"), "w", encoding="utf-8") as f:
        f.write(code)
    argv = [a.replace("<prefix>/include", include) for a in shlex.split(command)]
    print("$", " ".join(argv), flush=True)
    if not run:
        return subprocess.call(argv, cwd=work)
    probe = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True) if shutil_which("nvidia-smi") else None
    if probe is None or probe.returncode != 0 or "GPU" not in probe.stdout:
        print("SKIPPED: no GPU to run the Quickstart on")
        return 77
    if not os.path.exists(os.path.join(work, "my_bench")):
        print("the Quickstart was not built (readme_quickstart_build)")
        return 1
    rc = subprocess.call([os.path.join(work, "my_bench")], cwd=work)
    if rc != 0:
        return rc
    report = json.load(open(os.path.join(work, "my-report.json"), encoding="utf-8"))
    e = report["experiments"][0]
    print("sgemm:", e["status"], "median", e["gpu_time_s"]["p50"], "s")
    return 0 if e["status"] == "ok" and e["gpu_time_s"]["p50"] > 0 else 1


def shutil_which(name):
    import shutil
    return shutil.which(name)


if __name__ == "__main__":
    sys.exit(main())
