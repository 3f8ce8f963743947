#!/usr/bin/env python3
"""README.md's CPU example: its ```cpp block under "### On the CPU" must be examples/cpu_quickstart.cpp
exactly (so the README shows what is built and run); the built program is run in WORK_DIR and its
report read back: one experiment "sort", status ok, a median > 0, 65,536 ints per step.

usage: readme_cpu_example.py README.md cpu_quickstart.cpp PROGRAM WORK_DIR
"""
import json
import os
import re
import subprocess
import sys


def main():
    readme, source, program, work = sys.argv[1:5]
    text = open(readme, encoding="utf-8").read()
    section = text[text.index("### On the CPU"):]
    block = re.search(r"```cpp\n(.*?)```", section, re.S).group(1)
    if block != open(source, encoding="utf-8").read():
        print(f"README.md's CPU example differs from {source}: keep them equal")
        return 1
    os.makedirs(work, exist_ok=True)
    rc = subprocess.call([program], cwd=work)
    if rc != 0:
        print(f"{program} exited {rc}")
        return 1
    report = json.load(open(os.path.join(work, "cpu-report.json"), encoding="utf-8"))
    (e,) = report["experiments"]
    print("sort:", e["status"], "median", e["gpu_time_s"]["p50"], "s", "backend", e["backend"])
    ok = (e["name"] == "sort" and e["status"] == "ok" and e["gpu_time_s"]["p50"] > 0 and e["backend"] == "host"
          and e["work"]["items_per_step"]["ints"] == 65536)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
