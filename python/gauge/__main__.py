"""``python -m gauge``: gauge's tools from Python.

    python -m gauge compare BASE.json... [-- NEW.json...] [--threshold 0.02] [--fail-on-regression] [--format text|markdown|json]
    python -m gauge show REPORT.json          # the console summary of a report
    python -m gauge --cmake-dir | --include-dir | --version

Exit status of compare (as gauge-compare's): 0 no regression; 1 a regression with
--fail-on-regression; 3 not comparable; 4 inconclusive; 2 bad usage or an unreadable report.
"""

from __future__ import annotations

import argparse
import sys

from . import ConfigError, ReportError, cmake_dir, compare, include_dir, read_report, version

_EXIT = {"pass": 0, "regression": 1, "not_comparable": 3, "inconclusive": 4}


def _compare(argv: list[str]) -> int:
    if "--" in argv:
        i = argv.index("--")
        head, new = argv[:i], argv[i + 1:]
    else:
        head, new = argv, None
    p = argparse.ArgumentParser(prog="python -m gauge compare", description="Compares gauge reports (gauge-compare's rule).")
    p.add_argument("reports", nargs="+", help="BASE NEW, or BASE... -- NEW... for several runs per side")
    p.add_argument("--threshold", type=float, default=0.02, help="noise threshold as a fraction (default 0.02 = 2 %%)")
    p.add_argument("--confidence", type=float, default=0.95, help="confidence level (default 0.95)")
    p.add_argument("--metric", choices=["gpu_time", "wall_time", "cpu_time"], default="gpu_time")
    p.add_argument("--clock", choices=["auto", "cycles", "time"], default="auto")
    p.add_argument("--ignore-dimension", action="append", default=[], metavar="KEY")
    p.add_argument("--run-spread", type=float, default=0.0, help="known run-to-run relative SD (one report per side)")
    p.add_argument("--fail-on-regression", action="store_true")
    p.add_argument("--format", choices=["text", "markdown", "json"], default="text")
    a = p.parse_args(head)
    if new is None:
        if len(a.reports) != 2:
            p.error("give BASE NEW, or BASE... -- NEW...")
        base, new = [a.reports[0]], [a.reports[1]]
    else:
        base = a.reports
        if not new:
            p.error("no new reports after --")
    try:
        c = compare(base, new, threshold=a.threshold, confidence_level=a.confidence, metric=a.metric, clock=a.clock,
                    ignore_dimensions=a.ignore_dimension, run_spread=a.run_spread)
    except (ConfigError, ReportError) as e:
        print(f"python -m gauge compare: {e}", file=sys.stderr)
        return 2
    if a.format == "json":
        import json
        print(json.dumps(c.to_dict(), indent=2))
    else:
        print(c.markdown() if a.format == "markdown" else c.text(), end="")
    outcome = c.gate()
    if outcome == "regression" and not a.fail_on_regression:
        return 0
    return _EXIT[outcome]


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    if argv[0] == "--version":
        print(f"gauge {version}")
        return 0
    if argv[0] == "--cmake-dir":
        print(cmake_dir())
        return 0
    if argv[0] == "--include-dir":
        print(include_dir())
        return 0
    if argv[0] == "compare":
        return _compare(argv[1:])
    if argv[0] == "show" and len(argv) == 2:
        try:
            r = read_report(argv[1])
        except ReportError as e:
            print(f"python -m gauge show: {e}", file=sys.stderr)
            return 2
        for res in r.results:
            print(repr(res))
        return 0
    print(f"python -m gauge: unknown command {argv[0]!r} (see --help)", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
