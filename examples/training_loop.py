#!/usr/bin/env python3
"""A PyTorch training loop timed by gauge's Timer (the Python package): an MLP in bf16 on the GPU,
regions forward / backward / optimizer as context managers, the step's tokens and FLOP declared, and
the summary: each region's share of the step, throughput, MFU against the device's bf16 peak, and
the host synchronizations the Timer added (zero per step: its events are queried, never waited on).

    python3 examples/training_loop.py [--steps 300] [--batch 4096] [--hidden 4096] [--peak 989e12] [--out r.json]

Exit status: 0 on success, 1 when the loop or the Timer failed, 2 bad usage. Needs PyTorch and a
CUDA GPU (without one it says so and exits 1).
"""
import argparse
import sys

import gauge


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--hidden", type=int, default=4096)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--peak", type=float, default=989e12, help="peak bf16 FLOP/s for MFU (H100/H200 SXM dense: 989e12)")
    ap.add_argument("--out", default="training-loop-py.json")
    a = ap.parse_args()
    if a.steps < 1 or a.batch < 1 or a.hidden < 1 or a.layers < 1:
        ap.error("--steps, --batch, --hidden and --layers must be >= 1")
    import torch

    if not torch.cuda.is_available():
        print("training_loop.py: no CUDA GPU (this example times a PyTorch loop on one)", file=sys.stderr)
        return 1
    torch.manual_seed(0)
    layers = []
    for _ in range(a.layers):
        layers += [torch.nn.Linear(a.hidden, a.hidden, bias=False), torch.nn.GELU()]
    model = torch.nn.Sequential(*layers).cuda().to(torch.bfloat16)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(a.batch, a.hidden, device="cuda", dtype=torch.bfloat16)
    params = sum(p.numel() for p in model.parameters())
    flop_per_step = 6.0 * params * a.batch  # forward 2, backward 4 FLOP per parameter and token

    report = gauge.Report(a.out)
    timer = gauge.Timer("train", stream=torch.cuda.current_stream(), peak_flop_per_s=a.peak,
                        peak_source="--peak (bf16 dense)", warmup_steps=50)
    for _ in range(a.steps):
        with timer.region("forward"):
            loss = model(x).float().square().mean()
        with timer.region("backward"):
            loss.backward()
        with timer.region("optimizer"):
            opt.step()
            opt.zero_grad(set_to_none=True)
        timer.step(tokens=a.batch, flop=flop_per_step)
    summary = timer.finish()
    report.add(summary)
    report.write()
    print(summary.text(), end="")
    counters = summary["counters"]
    print(f"host synchronizations added by the Timer: {counters['host_synchronizations']} in {a.steps} steps "
          f"(forced waits {counters['forced_waits']})")
    print(f"report: {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
