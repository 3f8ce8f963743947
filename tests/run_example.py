#!/usr/bin/env python3
"""Runs the GEMM example and checks its report.

usage: run_example.py GEMM OUT [ARGS...]

Checks: strict JSON (NaN / Infinity rejected), validity against schema/gauge-report.schema.json
(python3-jsonschema), one experiment with status ok and a GPU-time median from at least 10
samples. Exit code 77 from the example (no GPU) is passed on, which CTest reports as skipped.
"""
import json
import os
import subprocess
import sys

SCHEMA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "schema", "gauge-report.schema.json")

gemm, out, *args = sys.argv[1:]
proc = subprocess.run([gemm, *args, "--out", out])
if proc.returncode == 77:
    sys.exit(77)
if proc.returncode != 0:
    sys.exit(f"gemm exited with {proc.returncode}")


def reject(constant):
    raise ValueError(f"non-finite number in the report: {constant}")


with open(out) as f:
    doc = json.load(f, parse_constant=reject)
assert doc["schema"] == "gauge.report", doc["schema"]
try:
    import jsonschema
except ImportError:
    sys.exit("run_example.py needs python3-jsonschema to validate the report (scripts/install-deps.sh installs it)")
with open(SCHEMA) as f:
    errors = sorted(jsonschema.Draft7Validator(json.load(f)).iter_errors(doc), key=lambda e: list(e.path))
if errors:
    sys.exit("\n".join(f"{out}: at {'/'.join(map(str, e.path)) or '(top)'}: {e.message}" for e in errors))
experiments = doc["experiments"]
assert len(experiments) == 1, len(experiments)
e = experiments[0]
assert e["status"] == "ok", e.get("error")
g = e["gpu_time_s"]
assert g["n"] >= 10 and g["p50"] > 0, g
print(f"report ok: {e['name']} median {g['p50']:.6g} s from {g['n']} samples")
