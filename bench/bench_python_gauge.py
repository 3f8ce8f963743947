#!/usr/bin/env python3
"""gauge's Python package beside triton.testing.do_bench and torch.utils.benchmark, in one process
on one GPU (issue "Python"): a torch bf16 matmul (4096^3), a softmax (bf16, 16384 x 4096, last
dimension), and a %globaltimer spin kernel of 2 / 10 / 100 us compiled by CuPy, each tool launching
on its own stream (gauge: the gauge.Stream it hands the step; do_bench and torch: PyTorch's current
stream).

For each workload and tool: the median of each of RUNS runs, the spread of the runs' medians
((max - min) / median), the offset from the back-to-back floor (the floor: the period of 200
launches back to back, for the spin kernel from its own %globaltimer stamps, enqueued behind a 20 ms spin,
for matmul and softmax from two CUDA events around 200 launches after a warm-up, the median of one
before the runs and one after each run), and the wall time to a result. The three tools take turns
within each run, so that each sees the same thermal history (the GPU is power-capped). gauge runs with its defaults except max_time (--max-time, default 2 s).

    python3 bench/bench_python_gauge.py [--runs 5] [--max-time 2] [--out bench_python_gauge.json]

Writes a Markdown table to stdout and the rows to --out.
"""
import argparse
import json
import statistics
import time

import cupy
import numpy as np
import torch
import torch.utils.benchmark as tbench
import triton.testing

import gauge

from bench_python import SRC as SPIN  # the same spin kernel as bench_python.py (this folder)


_cupy_streams = {}


def cupy_stream(stream):
    """CuPy's view of gauge's stream, through the CUDA stream protocol where CuPy has it."""
    s = _cupy_streams.get(stream.handle)
    if s is None:
        s = _cupy_streams[stream.handle] = (cupy.cuda.Stream.from_external(stream) if hasattr(cupy.cuda.Stream, "from_external")
                                            else cupy.cuda.ExternalStream(stream.handle))
    return s


def spread(values):
    m = statistics.median(values)
    return (max(values) - min(values)) / m if m else float("nan")


def event_floor(fn, n=200, warm=50):
    """Period of `n` launches back to back on one stream, between two CUDA events (seconds)."""
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        for _ in range(warm):
            fn()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(n):
            fn()
        end.record()
    end.synchronize()
    return start.elapsed_time(end) * 1e-3 / n


def spin_floor(spin, ns, n=200):
    """Start-to-start period of `n` spin kernels back to back on one stream (their own stamps),
    enqueued while a 20 ms spin holds the stream: the definition of bench_method's floor (there the
    launch gate holds them)."""
    stamps = cupy.zeros(2 * n, dtype=cupy.uint64)
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        spin((1,), (32,), (np.uint64(20_000_000), np.uint64(0), np.int32(0)))
        for i in range(n):
            spin((1,), (32,), (np.uint64(ns), stamps, np.int32(i)))
    stream.synchronize()
    h = stamps.get().reshape(-1, 2).astype(np.float64)
    return float(np.median(np.diff(h[:, 0]))) * 1e-9, float(np.median(h[:, 1] - h[:, 0])) * 1e-9


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--max-time", type=float, default=2.0)
    ap.add_argument("--out", default="bench_python_gauge.json")
    args = ap.parse_args()
    torch.cuda.init()
    spin = cupy.RawModule(code=SPIN, options=("-arch=sm_90",)).get_function("spin")
    n = 4096
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
    x = torch.randn(16384, 4096, device="cuda", dtype=torch.bfloat16)
    y = torch.empty_like(x)

    def matmul():
        torch.matmul(a, b, out=c)

    def softmax():
        torch.softmax(x, dim=-1, out=y)

    workloads = [("matmul bf16 4096^3", matmul, None, 2.0 * n**3), ("softmax bf16 16384x4096", softmax, None, None)]
    for t_us in (2, 10, 100):
        ns = t_us * 1000

        def launch(ns=ns):
            spin((1,), (32,), (np.uint64(ns), np.uint64(0), np.int32(0)))
        workloads.append((f"spin {t_us} us", launch, ns, None))

    rows = []
    print("| workload | floor | tool | median (runs) | − floor | spread of runs | wall per result | warnings (gauge) |")
    print("|---|---:|---|---:|---:|---:|---:|---|")
    for label, fn, ns, flop in workloads:
        if ns is None:
            floor = event_floor(fn)
            span = None
        else:
            floor, span = spin_floor(spin, ns)

        def gauge_step(stream, fn=fn, ns=ns):
            if ns is None:
                with gauge.torch_stream(stream):
                    fn()
            else:
                with cupy_stream(stream):
                    fn()

        results = {"gauge (Python)": ([], []), "triton do_bench": ([], []), "torch.utils.benchmark": ([], [])}
        codes = set()
        host = call = None
        floors = [floor]
        # The tools in turn within each run, so that each sees the same thermal history.
        for _ in range(args.runs):
            t0 = time.perf_counter()
            r = gauge.Experiment(label, gauge_step, flop=flop, max_time=args.max_time).run()
            results["gauge (Python)"][1].append(time.perf_counter() - t0)
            if not r.ok:
                raise SystemExit(f"gauge failed on {label}: {r['error']}")
            results["gauge (Python)"][0].append(r.median_s)
            codes |= {w["code"] for w in r["warnings"] if w["severity"] != "info"}
            host = r["host_overhead_per_step_s"]
            call = r.python_call_s
            t0 = time.perf_counter()
            results["triton do_bench"][0].append(triton.testing.do_bench(fn, return_mode="median") * 1e-3)
            results["triton do_bench"][1].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            m = tbench.Timer(stmt="fn()", globals={"fn": fn}).blocked_autorange(min_run_time=0.2)
            results["torch.utils.benchmark"][0].append(m.median)
            results["torch.utils.benchmark"][1].append(time.perf_counter() - t0)
            if ns is None:
                floors.append(event_floor(fn))
        # Then gauge's runs back to back, as bench_method (C++) takes its runs: the spread of runs
        # that follow each other, beside the spread of runs interleaved with the other tools.
        together = results["gauge (Python), runs back to back"] = ([], [])
        for _ in range(args.runs):
            t0 = time.perf_counter()
            r = gauge.Experiment(label, gauge_step, flop=flop, max_time=args.max_time).run()
            together[1].append(time.perf_counter() - t0)
            if not r.ok:
                raise SystemExit(f"gauge failed on {label}: {r['error']}")
            together[0].append(r.median_s)
        floor = statistics.median(floors)
        for tool, (med, wall) in results.items():
            row = {"workload": label, "tool": tool, "floor_s": floor, "span_s": span, "medians_s": med,
                   "median_s": statistics.median(med), "offset_s": statistics.median(med) - floor, "spread": spread(med),
                   "wall_s": statistics.median(wall)}
            if tool.startswith("gauge"):
                row["warnings"] = sorted(codes)
                row["host_overhead_per_step_s"] = host
                row["python_call_s"] = call
            rows.append(row)
            print(f"| {label} | {floor * 1e6:.3f} us | {tool} | {row['median_s'] * 1e6:.3f} us | "
                  f"{row['offset_s'] * 1e6:+.3f} us | {100 * row['spread']:.3f} % | {row['wall_s']:.2f} s | "
                  f"{', '.join(row.get('warnings', [])) or ('–' if tool.startswith('gauge') else '')} |", flush=True)
    with open(args.out, "w") as f:
        json.dump({"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "triton": triton.__version__,
                   "gauge": gauge.version, "runs": args.runs, "rows": rows}, f, indent=2)


if __name__ == "__main__":
    main()
