#!/usr/bin/env python3
"""A fake gauge-compare for gauge-ab's tests: appends its arguments (a JSON list per line) to
$FAKE_COMPARE_LOG, prints "fake <format>" (and a Markdown table for --format markdown), and exits
with $FAKE_COMPARE_EXIT (default 0) when --fail-on-regression is given, else 0."""
import json
import os
import sys

args = sys.argv[1:]
with open(os.environ["FAKE_COMPARE_LOG"], "a") as f:
    f.write(json.dumps(args) + "\n")
fmt = args[args.index("--format") + 1] if "--format" in args else "text"
if fmt == "markdown":
    print("| experiment | verdict |\n|---|---|\n| gemm | same |")
else:
    print(f"fake {fmt}")
sys.exit(int(os.environ.get("FAKE_COMPARE_EXIT", "0")) if "--fail-on-regression" in args else 0)
