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
    print("sort: process CPU time per step", e["cpu_time_s"]["median"], "s over", e["cpu_time_s"]["n"], "rounds")
    # A single-threaded sort: its CPU time per step is about its real time (25 % allowed: the CPU
    # time is a mean per round, the real time a median per step), and one CPU sample per round.
    ok = (e["name"] == "sort" and e["status"] == "ok" and e["gpu_time_s"]["p50"] > 0 and e["backend"] == "host"
          and e["work"]["items_per_step"]["ints"] == 65536 and e["time_label"] == "real time"
          and e["cpu_time_s"]["n"] == e["sampling"]["rounds"] == len(e["samples"]["cpu_time_per_step_s"])
          and 0 < e["cpu_time_s"]["median"] <= 1.25 * e["gpu_time_s"]["median"])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
