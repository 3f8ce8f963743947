#!/usr/bin/env python3
"""Checks that no header under include/gauge/ is longer than a limit (issue "Compiled once": no
header over 500 lines, so that each concept reads in one sitting).

  scripts/header_lines.py [--root DIR] [--limit N]

Prints the longest header; exit 0 when every header has at most N lines (default 500), 1 naming
each longer one, 2 when include/gauge/ is missing.
"""
import argparse
import os
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--limit", type=int, default=500)
    a = ap.parse_args()
    inc = os.path.join(a.root, "include", "gauge")
    if not os.path.isdir(inc):
        sys.stderr.write("header_lines: no folder %s\n" % inc)
        sys.exit(2)
    counts = []
    for dirpath, _, files in os.walk(inc, followlinks=True):
        for f in files:
            if f.lower().endswith((".hpp", ".cuh", ".h", ".ipp", ".inl")):
                p = os.path.join(dirpath, f)
                with open(p, "rb") as h:  # bytes: a header need not be UTF-8 to be counted
                    data = h.read()
                # Lines as an editor counts them: LF, CRLF or a lone CR ends one; a last line
                # without its newline still counts.
                text = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
                n = text.count(b"\n") + (1 if text and not text.endswith(b"\n") else 0)
                counts.append((n, os.path.relpath(p, os.path.join(a.root, "include"))))
    if not counts:
        sys.stderr.write("header_lines: no header under %s\n" % inc)
        sys.exit(2)
    counts.sort(reverse=True)
    over = [(n, p) for n, p in counts if n > a.limit]
    print("header_lines: %d headers, the longest %s with %d lines (limit %d)" % (len(counts), counts[0][1], counts[0][0], a.limit))
    for n, p in over:
        print("  over the limit: %s (%d lines)" % (p, n))
    sys.exit(1 if over else 0)


if __name__ == "__main__":
    main()
