#!/usr/bin/env python3
"""A fake benchmark for gauge-ab's tests (tests/test_tools.py, class AbDriver): writes a copy of a
stored report with every per-step sample and every time statistic scaled by FACTOR.

    fake_benchmark.py FACTOR [--report PATH] [--log FILE] [--tag TAG] [--sleep S] [--fail] --out FILE

--report: the stored report to copy (default tests/data/reports/base.json); --log: append one
line "TAG FACTOR" per run (the order in which the runs happened); --sleep: seconds to wait before
writing; --fail: write three lines to stderr and exit 3 without a report.
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TIME_SUMMARIES = ("gpu_time_s", "wall_time_s")
NOT_SCALED = {"confidence_level", "cv", "median_ci_relative_width", "level", "coverage"}


def scale(node, factor):
    """Every non-integer number in `node` times `factor`, except relative figures (counts and
    ranks are JSON integers and stay)."""
    if isinstance(node, dict):
        return {k: (v if k in NOT_SCALED else scale(v, factor)) for k, v in node.items()}
    if isinstance(node, list):
        return [scale(v, factor) for v in node]
    if isinstance(node, float):
        return node * factor
    return node


def main():
    p = argparse.ArgumentParser()
    p.add_argument("factor", type=float)
    p.add_argument("--report", default=os.path.join(HERE, "..", "reports", "base.json"))
    p.add_argument("--log")
    p.add_argument("--tag", default="run")
    p.add_argument("--sleep", type=float, default=0)
    p.add_argument("--fail", action="store_true")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    if a.log:
        with open(a.log, "a") as f:
            f.write(f"{a.tag} {a.factor:g}\n")
    time.sleep(a.sleep)
    if a.fail:
        print("fake_benchmark: starting", file=sys.stderr)
        print("fake_benchmark: step 17 failed", file=sys.stderr)
        print("fake_benchmark: giving up", file=sys.stderr)
        return 3
    with open(a.report) as f:
        doc = json.load(f)
    for e in doc["experiments"]:
        e["samples"] = scale(e.get("samples", {}), a.factor)
        for key in TIME_SUMMARIES:
            if isinstance(e.get(key), dict):
                e[key] = scale(e[key], a.factor)
    with open(a.out, "w") as f:
        json.dump(doc, f)
    print(f"report: {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
