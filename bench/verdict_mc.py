#!/usr/bin/env python3
"""The comparison's verdicts on simulated pairs: how often identical code reads `same`, and how
often a real change reads `slower` (issue "Same code, same verdict"; the tail rule at `Verdict`).

Each scenario draws R pairs of per-step GPU times (n per side) from mixtures of clock states
(each state a normal of 0.2 % width around its time; the states' weights drawn per run within
the stated range, as power-capped clocks move between runs), compares each pair both ways with
`gauge::compare_results` and `no_slower_than`, and counts the verdicts. With --old-include, a
second tree's headers (e.g. the last release: `git archive <tag> | tar -x -C old`) run the same
pairs beside this tree's.

  python3 bench/verdict_mc.py [--include include] [--old-include DIR] [--reps 200] [--n 1000 200] [--only TEXT]
Needs numpy, g++ and {fmt} (-lfmt). Prints one table row per scenario and tree.
"""
import argparse, os, subprocess, sys, tempfile
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def build(include, out):
    cmd = ["g++", "-O2", "-std=c++17", "-I", os.path.abspath(include)]
    if os.path.isdir("/usr/local/cuda/include"):
        cmd += ["-isystem", "/usr/local/cuda/include"]
    cmd += [os.path.join(HERE, "verdict_mc.cpp"), "-o", out, "-lfmt"]
    subprocess.run(cmd, check=True)


def states(times, w_lo, w_hi, jitter=0.002):
    """Two clock states at `times` (ms); the first's weight drawn in [w_lo, w_hi] per run."""
    def draw(rng, n):
        w = rng.uniform(w_lo, w_hi)
        k = rng.random(n) < w
        x = np.where(k, times[0], times[1]) * 1e-3
        return x * (1 + rng.normal(0, jitter, n))
    return draw


def tail(body, share, scale, jitter=0.002):
    """One clock state at `body` (ms) with a continuous tail: `share` of the steps slower by an
    exponential amount of mean `scale` × the body (no second mode)."""
    def draw(rng, n):
        x = body * 1e-3 * (1 + rng.normal(0, jitter, n))
        slow = rng.random(n) < share
        return x * (1 + np.where(slow, rng.exponential(scale, n), 0.0))
    return draw


# name, base generator, new generator, what the right verdict is
SCENARIOS = [
    ("identical: 1.00/1.05 ms, weights 0.4-0.6", states((1.0, 1.05), 0.4, 0.6), None, "same"),
    ("identical: 1.00/1.03 ms, weights 0.3-0.7", states((1.0, 1.03), 0.3, 0.7), None, "same"),
    ("identical: 1.00/1.25 ms, weights 0.75-0.85", states((1.0, 1.25), 0.75, 0.85), None, "same"),
    ("identical: 1.00/1.10 ms, weights 0.85-0.95", states((1.0, 1.10), 0.85, 0.95), None, "same"),
    ("slow mode new: none -> 15 % at 1.30 ms", states((1.0, 1.3), 1.0, 1.0), states((1.0, 1.3), 0.85, 0.85), "slower"),
    ("slow mode moved: 5 % at 1.10 -> 20 % at 1.25 ms", states((1.0, 1.1), 0.95, 0.95), states((1.0, 1.25), 0.8, 0.8), "slower"),
    ("slow mode +9 %: 10 % at 1.10 -> 1.20 ms", states((1.0, 1.1), 0.9, 0.9), states((1.0, 1.2), 0.9, 0.9), "slower"),
    ("weight shift, mean +2.5 %: 5 % -> 30 % at 1.10 ms", states((1.0, 1.1), 0.95, 0.95), states((1.0, 1.1), 0.7, 0.7), "slower"),
    ("weight shift, mean +0.95 %: 5 % -> 15 % at 1.10 ms", states((1.0, 1.1), 0.95, 0.95), states((1.0, 1.1), 0.85, 0.85), "same (below t)"),
    ("both modes -2.5 %: 1.00/1.10 -> 0.975/1.0725 ms, weights 0.85-0.95", states((1.0, 1.1), 0.85, 0.95),
     states((0.975, 1.0725), 0.85, 0.95), "faster"),
    ("both modes +2.5 %: 1.00/1.10 -> 1.025/1.1275 ms, weights 0.85-0.95", states((1.0, 1.1), 0.85, 0.95),
     states((1.025, 1.1275), 0.85, 0.95), "slower"),
    ("identical: 1 % of the steps at 4.0 ms (too few for a mode), weights 0.985-0.995", states((1.0, 4.0), 0.985, 0.995),
     None, "same"),
    ("slow minority new: none -> 1 % at 4.0 ms, mean +3 %", states((1.0, 4.0), 1.0, 1.0), states((1.0, 4.0), 0.99, 0.99),
     "slower"),
    ("identical: a continuous tail, 3 % of the steps slower by 20 % on average", tail(1.0, 0.03, 0.2), None, "same"),
    ("body +3 %, the same continuous tail", tail(1.0, 0.03, 0.2), tail(1.03, 0.03, 0.2), "slower"),
]


def run(binary, pairs, threshold=0.02):
    buf = []
    for a, b in pairs:
        buf.append("cuda %d %d %g %g\n%s\n%s\n" % (len(a), len(b), threshold, threshold,
                                                   " ".join("%.9e" % x for x in a), " ".join("%.9e" % x for x in b)))
    out = subprocess.run([binary], input="".join(buf), capture_output=True, text=True, check=True).stdout
    return [line.split() for line in out.splitlines()]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--include", default=os.path.join(os.path.dirname(HERE), "include"))
    ap.add_argument("--old-include")
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--n", type=int, nargs="+", default=[1000, 200])
    ap.add_argument("--seed", type=int, default=20261206)
    ap.add_argument("--only", help="run only the scenarios whose name contains this text")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp()
    trees = [("this tree", os.path.join(tmp, "new"), a.include)]
    if a.old_include:
        trees.insert(0, ("old tree", os.path.join(tmp, "old"), a.old_include))
    for _, binary, include in trees:
        build(include, binary)
    print("| scenario | n | right | tree | same | slower | faster | inconclusive | matcher fails (both ways) |")
    print("|---|---:|---|---|---:|---:|---:|---:|---:|")
    for n in a.n:
        for i, (name, gen_a, gen_b, right) in enumerate(SCENARIOS):
            if a.only and a.only not in name:
                continue
            rng = np.random.default_rng([a.seed, n, i])
            gen_b = gen_b or gen_a
            pairs = [(gen_a(rng, n), gen_b(rng, n)) for _ in range(a.reps)]
            for label, binary, _ in trees:
                rows = run(binary, pairs)
                count = {v: sum(r[0] == v for r in rows) for v in ("same", "slower", "faster", "inconclusive")}
                fails = sum(r[1] == "fail" for r in rows) + sum(r[3] == "fail" for r in rows)
                print("| %s | %d | %s | %s | %d | %d | %d | %d | %d |" % (name, n, right, label, count["same"], count["slower"],
                                                                         count["faster"], count["inconclusive"], fails))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
