#!/usr/bin/env python3
"""gauge's all-reduce sweep (examples/allreduce.cu reports) against nccl-tests' all_reduce_perf logs.

usage: mpi_compare.py --gauge RUN1.json RUN2.json --nccl RUN1.log RUN2.log [--type float] [--place out]

Prints one row per size S (bytes): gauge's median time per step (us, run 1), nccl-tests' mean time
(us, run 1), gauge's busbw and nccl-tests' busbw (GB/s = 1e9 B/s, run 1), their ratio, and how much
each moved between its two runs: |run2 - run1| / run1 of gauge's median and of nccl-tests' mean
time (%). Then, over S >= 64 MiB: the largest |ratio - 1| and whether gauge's run-to-run move is
smaller than nccl-tests' at every size. Bus bandwidth is nccl-tests' (doc/PERFORMANCE.md):
algbw * 2(n-1)/n for all-reduce; gauge's is its throughput (bytes declared = S * 2(n-1)/n).

nccl-tests' data lines (src/util.cu, writeBenchmarkLinePreamble and writeBenchmarkLineBody) are
"size count type redop root" then, out of place and in place, "time algbw busbw #wrong"
(#wrong is N/A with -c 0); comment lines start with '#'. Python 3 standard library only.
"""
import argparse
import json
import sys


def read_nccl(path, type_name):
    """{(place, size): (time_us, algbw, busbw)} from an all_reduce_perf log."""
    rows = {}
    with open(path, errors="replace") as f:
        for line in f:
            fields = line.split()
            if not fields or line.lstrip().startswith("#") or len(fields) < 13:
                continue
            try:
                size = int(fields[0])
                int(fields[1])
                oop = tuple(float(x) for x in fields[5:8])
                ip = tuple(float(x) for x in fields[9:12])
            except ValueError:
                continue
            if fields[2] != type_name:
                continue
            rows[("out", size)] = oop
            rows[("in", size)] = ip
    return rows


def read_gauge(path, type_name):
    """{(place, size): (median_us, algbw_GBs, busbw_GBs, status)} from an allreduce.cu report."""
    with open(path) as f:
        doc = json.load(f)
    rows = {}
    for e in doc.get("experiments", []):
        d = e.get("dimensions", {})
        if e.get("name") != "all_reduce" or d.get("type") != type_name:
            continue
        med = (e.get("gpu_time_s") or {}).get("p50")
        gpu = (e.get("throughput") or {}).get("gpu") or {}
        busbw = gpu.get("bytes_per_s")
        algbw = (gpu.get("items_per_s") or {}).get("algorithm_bytes")
        rows[(d.get("place"), int(d.get("bytes")))] = (
            None if med is None else med * 1e6,
            None if algbw is None else algbw / 1e9,
            None if busbw is None else busbw / 1e9,
            e.get("status"),
        )
    return rows


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def move(a, b):
    return None if a is None or b is None or a == 0 else 100 * abs(b - a) / a


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--gauge", nargs=2, required=True, metavar=("RUN1", "RUN2"))
    p.add_argument("--nccl", nargs=2, required=True, metavar=("RUN1", "RUN2"))
    p.add_argument("--type", default="float")
    p.add_argument("--place", default="out", choices=["out", "in"])
    p.add_argument("--large", type=int, default=64 << 20, help="sizes from here are checked (bytes)")
    a = p.parse_args(argv)
    g1, g2 = (read_gauge(x, a.type) for x in a.gauge)
    n1, n2 = (read_nccl(x, a.type) for x in a.nccl)
    if not g1:
        sys.exit(f"mpi_compare: no all_reduce {a.type} experiment in {a.gauge[0]}")
    if not n1:
        sys.exit(f"mpi_compare: no {a.type} data line in {a.nccl[0]}")
    sizes = sorted({s for (pl, s) in g1 if pl == a.place} | {s for (pl, s) in n1 if pl == a.place})
    print(f"all_reduce {a.type}, {'out of place' if a.place == 'out' else 'in place'}: gauge (median) vs nccl-tests (mean)")
    print(f"{'size_B':>12} {'gauge_us':>10} {'nccl_us':>10} {'gauge_busbw':>12} {'nccl_busbw':>11} {'ratio':>7} "
          f"{'gauge_move%':>12} {'nccl_move%':>11}")
    worst = None
    steadier = True
    compared = 0
    for s in sizes:
        g, gg = g1.get((a.place, s)), g2.get((a.place, s))
        n, nn = n1.get((a.place, s)), n2.get((a.place, s))
        ratio = g[2] / n[2] if g and n and g[2] and n[2] else None
        gm = move(g[0] if g else None, gg[0] if gg else None)
        nm = move(n[0] if n else None, nn[0] if nn else None)
        print(f"{s:>12} {fmt(g and g[0], '10.2f')} {fmt(n and n[0], '10.2f')} {fmt(g and g[2], '12.2f')} "
              f"{fmt(n and n[2], '11.2f')} {fmt(ratio, '7.4f')} {fmt(gm, '12.3f')} {fmt(nm, '11.3f')}")
        if s >= a.large and ratio is not None:
            compared += 1
            dev = abs(ratio - 1)
            worst = dev if worst is None else max(worst, dev)
            if gm is None or nm is None or not gm < nm:
                steadier = False
    if compared == 0:
        print(f"sizes >= {a.large} B: none measured by both")
        return 1
    print(f"sizes >= {a.large} B ({compared}): largest |gauge busbw / nccl-tests busbw - 1| = {100 * worst:.2f} % "
          f"({'within' if worst <= 0.02 else 'NOT within'} 2 %); gauge's median moved less than nccl-tests' mean "
          f"between runs at {'every' if steadier else 'NOT every'} size")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
