#!/usr/bin/env python3
"""The tools users would otherwise pick, on the same ground-truth kernel as bench_method (issue 3).

For T in {2, 10, 100, 1000} us: the kernel's own span (from its %globaltimer stamps),
triton.testing.do_bench (median, 4 runs), and torch.utils.benchmark.Timer.blocked_autorange
(median, 4 runs), with each call's wall time. Offsets are reported time minus the span.
The kernel is compiled by CuPy (NVRTC) and launched on the legacy default stream, which is
PyTorch's current stream, so both tools' events bracket it.

    python3 bench/bench_python.py [--out FILE.json]
"""
import argparse
import json
import time

import cupy
import numpy as np
import torch
import triton.testing
import torch.utils.benchmark as tbench

SRC = r"""
extern "C" __global__ void spin(unsigned long long ns, unsigned long long* stamps, int slot) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  now = start;
  while (now - start < ns) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  if (stamps && threadIdx.x == 0) { stamps[2 * slot] = start; stamps[2 * slot + 1] = now; }
}
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="bench_python.json")
    ap.add_argument("--runs", type=int, default=4)
    args = ap.parse_args()
    torch.cuda.init()
    spin = cupy.RawModule(code=SRC, options=("-arch=sm_90",)).get_function("spin")
    rows = []
    print(f"{'T_us':>6} {'span_us':>9} {'triton_us':>10} {'off':>7} {'spread%':>8} {'wall_s':>7} "
          f"{'torch_us':>10} {'off':>7} {'spread%':>8} {'wall_s':>7}")
    for t_us in (2, 10, 100, 1000):
        ns = np.uint64(t_us * 1000)
        stamps = cupy.zeros(2 * 100, dtype=cupy.uint64)
        for i in range(100):
            spin((1,), (32,), (ns, stamps, np.int32(i)))
        cupy.cuda.runtime.deviceSynchronize()
        h = stamps.get().reshape(-1, 2)
        span = float(np.median(h[:, 1] - h[:, 0])) * 1e-9

        def fn():
            spin((1,), (32,), (ns, np.uint64(0), np.int32(0)))

        tri, tri_wall, tor, tor_wall = [], [], [], []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            tri.append(triton.testing.do_bench(fn, return_mode="median") * 1e-3)
            tri_wall.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            m = tbench.Timer(stmt="fn()", globals={"fn": fn}).blocked_autorange(min_run_time=0.2)
            tor.append(m.median)
            tor_wall.append(time.perf_counter() - t0)
        def spread(v):
            return (max(v) - min(v)) / float(np.median(v))
        row = {
            "T_us": t_us, "span_s": span,
            "triton_do_bench_median_s": tri, "triton_wall_s": tri_wall,
            "torch_blocked_autorange_median_s": tor, "torch_wall_s": tor_wall,
        }
        rows.append(row)
        print(f"{t_us:6d} {span*1e6:9.3f} {np.median(tri)*1e6:10.3f} {(np.median(tri)-span)*1e6:7.3f} "
              f"{100*spread(tri):8.3f} {np.median(tri_wall):7.3f} {np.median(tor)*1e6:10.3f} "
              f"{(np.median(tor)-span)*1e6:7.3f} {100*spread(tor):8.3f} {np.median(tor_wall):7.3f}")
    info = {"torch": torch.__version__, "triton": triton.__version__, "cupy": cupy.__version__,
            "gpu": torch.cuda.get_device_name(0)}
    print(info)
    with open(args.out, "w") as f:
        json.dump({"rows": rows, "versions": info}, f, indent=2)


if __name__ == "__main__":
    main()
