#!/usr/bin/env python3
"""Writes the stored reports of tests/data/reports/ (run from anywhere; needs NumPy and SciPy).

Every report starts from the first real H200 report tests/data/reports/h200-first.json (its environment and
experiment layout) with the per-step samples replaced by seeded synthetic ones, so that the
expected verdicts are known by construction, and the statistics recomputed from the samples the
way gauge computes them (type-7 percentiles, exact binomial CI of the median, Tukey fences). The
malformed ones are cut or edited copies. Regenerate with:

    /usr/bin/python3 tests/data/gen_reports.py

The tests assert numbers computed from these files (medians, U statistics, p-values, in comments
beside them): after regenerating (a new NumPy may draw other samples from the same seeds),
recompute those numbers with the calls in the comments.
"""
import copy
import json
import os

import numpy as np
from scipy import stats

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(HERE, "reports")
REAL = os.path.join(ROOT, "tests", "data", "reports", "h200-first.json")


def summary(samples, level=0.95):
    """gauge's Summary of `samples` (see include/gauge/core/statistics.hpp)."""
    x = np.sort(np.asarray(samples, dtype=float))
    n = len(x)
    s = {"n": n, "confidence_level": level,
         "percentile_method": "linear interpolation (Hyndman-Fan type 7, NumPy default)",
         "median_ci_method": "distribution-free order statistics x(l), x(n+1-l), narrowest with exact Binomial(n, 1/2) "
                             "coverage >= level (Conover 1999; Hahn & Meeker 1991)",
         "outlier_method": "Tukey fences (1.5 IQR mild, 3 IQR severe)"}
    keys = ["min", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "max", "mean", "stddev", "cv", "mad",
            "iqr", "median_ci", "median_ci_relative_width"]
    if n == 0:
        s.update({k: None for k in keys})
        s["outliers"] = {"low_severe": 0, "low_mild": 0, "high_mild": 0, "high_severe": 0}
        return s
    q = {p: float(np.percentile(x, p)) for p in (1, 5, 10, 25, 50, 75, 90, 95, 99)}
    s.update({"min": float(x[0]), "max": float(x[-1]), "mean": float(np.mean(x))})
    for p, v in q.items():
        s[f"p{p}"] = v
    s["stddev"] = float(np.std(x, ddof=1)) if n >= 2 else None
    s["cv"] = s["stddev"] / s["mean"] if n >= 2 else None
    s["mad"] = float(np.median(np.abs(x - q[50])))
    s["iqr"] = q[75] - q[25]
    ci = None
    for lo in range(n // 2, 0, -1):
        coverage = 1 - 2 * stats.binom.cdf(lo - 1, n, 0.5)
        if coverage >= level:
            ci = {"low": float(x[lo - 1]), "high": float(x[n - lo]), "level": level, "coverage": float(coverage),
                  "lower_rank": lo, "upper_rank": n + 1 - lo}
            break
    s["median_ci"] = ci
    s["median_ci_relative_width"] = (ci["high"] - ci["low"]) / q[50] if ci else None
    iqr = s["iqr"]
    f = dict(ls=q[25] - 3 * iqr, lm=q[25] - 1.5 * iqr, hm=q[75] + 1.5 * iqr, hs=q[75] + 3 * iqr)
    s["outliers"] = {"low_severe": int(np.sum(x < f["ls"])), "low_mild": int(np.sum((x >= f["ls"]) & (x < f["lm"]))),
                     "high_mild": int(np.sum((x > f["hm"]) & (x <= f["hs"]))), "high_severe": int(np.sum(x > f["hs"]))}
    return s


def draw(seed, median_s, n, cv=0.004, outliers=2):
    """n per-step times around `median_s`: lognormal noise of the given CV, plus a few slow ones."""
    rng = np.random.default_rng(seed)
    x = median_s * np.exp(rng.normal(0.0, cv, n))
    x[rng.choice(n, outliers, replace=False)] *= 1.0 + rng.uniform(0.02, 0.05, outliers)
    return [float(v) for v in x]


def experiment(template, gpu, wall, **changes):
    e = copy.deepcopy(template)
    e["samples"] = {"gpu_time_per_step_s": gpu, "wall_time_per_step_s": wall}
    e["gpu_time_s"] = summary(gpu)
    e["wall_time_s"] = summary(wall)
    work = e["work"]
    for view, summ in (("gpu", e["gpu_time_s"]), ("wall", e["wall_time_s"])):
        t = summ["p50"]
        e["throughput"][view] = {"flop_per_s": work["flop_per_step"] / t if t else None,
                                 "bytes_per_s": work["bytes_per_step"] / t if t else None, "items_per_s": {}}
    e["host_overhead_per_step_s"] = (e["wall_time_s"]["p50"] - e["gpu_time_s"]["p50"]) if gpu and wall else None
    e["sampling"]["rounds"] = e["sampling"]["wall_rounds"] = len(wall)
    e["sampling"]["steps"] = len(gpu)
    e["stopping"]["relative_ci_width"] = e["gpu_time_s"]["median_ci_relative_width"]
    e.update(changes)
    return e


def report(doc, experiments, **top):
    r = copy.deepcopy(doc)
    r["experiments"] = experiments
    r["created_utc"] = "2026-11-30T12:00:00Z"
    r.update(top)
    return r


def write(name, doc):
    with open(os.path.join(OUT, name), "w") as f:
        json.dump(doc, f, indent=2, allow_nan=False)
        f.write("\n")


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(REAL) as f:
        real = json.load(f)
    t = real["experiments"][0]
    m = 1.600e-3  # median GPU time per step of the synthetic bf16 GEMM, seconds

    base = report(real, [experiment(t, draw(1, m, 60), draw(11, m * 1.008, 14, outliers=0))])
    write("base.json", base)
    # Same distribution, other seed: "same" at the default 2 % threshold.
    write("same.json", report(real, [experiment(t, draw(2, m, 60), draw(12, m * 1.008, 14, outliers=0))]))
    # 5 % slower: "slower" at 2 %.
    write("slower.json", report(real, [experiment(t, draw(3, m * 1.05, 60), draw(13, m * 1.058, 14, outliers=0))]))
    # fp32 instead of bf16, 13.5x the time: "faster" for bf16 with --ignore-dimension dtype.
    fp32 = experiment(t, draw(4, m * 13.5, 40), draw(14, m * 13.6, 10, outliers=0))
    fp32["dimensions"]["dtype"] = "fp32"
    fp32["work"]["bytes_per_step"] = 2 * t["work"]["bytes_per_step"]
    write("fp32.json", report(real, [fp32]))
    # The same median, 8 % noise and 20 samples: the interval straddles 1 + 2 %: "inconclusive".
    write("noisy.json", report(real, [experiment(t, draw(5, m, 20, cv=0.08, outliers=0), draw(15, m, 8, cv=0.08, outliers=0))]))
    # Only 4 samples: too few for a 95 % distribution-free interval of the median.
    write("few-samples.json", report(real, [experiment(t, draw(6, m, 4, outliers=0), draw(16, m, 2, outliers=0))]))
    # Another GPU and driver: the comparison is listed as not comparable.
    other = report(real, [experiment(t, draw(7, m * 2.2, 60), draw(17, m * 2.21, 14, outliers=0))])
    dev = other["environment"]["cuda"]["devices"][0]
    dev.update({"name": "NVIDIA A100-SXM4-80GB", "uuid": "GPU-00000000-1111-2222-3333-444444444444",
                "compute_capability": "8.0", "multiprocessors": 108, "sm_clock_max_mhz": 1410.0,
                "memory_clock_max_mhz": 1593.0, "l2_cache_bytes": 41943040})
    other["environment"]["cuda"]["driver_version"] = 12040
    other["environment"]["cuda"]["runtime_version"] = 12040
    other["experiments"][0]["device"].update({"name": "NVIDIA A100-SXM4-80GB", "uuid": dev["uuid"]})
    write("different-gpu.json", other)
    # A failed experiment (cuBLAS error after 3 samples).
    failed = experiment(t, draw(8, m, 3, outliers=0), [], status="failed",
                        error="step 3 of measurement: cublasGemmEx failed: CUBLAS_STATUS_EXECUTION_FAILED")
    write("failed.json", report(real, [failed]))

    # Several experiments: two GEMM sizes (same name, told apart by M), one only in base, one only in new.
    def gemm(seed, size, scale):
        e = experiment(t, draw(seed, m * scale, 30), draw(seed + 100, m * scale, 8, outliers=0))
        e["dimensions"].update({"M": size, "N": size, "K": size})
        return e
    copy_exp = experiment(t, draw(21, 2e-5, 30), draw(22, 2.1e-5, 8, outliers=0), name="copy",
                          dimensions={"bytes": 1 << 26})
    scan_exp = experiment(t, draw(23, 5e-5, 30), draw(24, 5.2e-5, 8, outliers=0), name="scan",
                          dimensions={"n": 1 << 24})
    write("multi-base.json", report(real, [gemm(31, 4096, 0.125), gemm(32, 8192, 1.0), copy_exp]))
    write("multi-new.json", report(real, [gemm(33, 8192, 1.10), gemm(34, 4096, 0.125), scan_exp]))

    # Schema 1.1-style additions (as gauge's telemetry work writes them): round times, telemetry
    # series and summary. Unknown keys must be ignored by readers of 1.0.
    def with_telemetry(seed, clock_mhz, version):
        e = experiment(t, draw(seed, m, 60), draw(seed + 10, m * 1.008, 12, outliers=0))
        start = 0.105
        rounds = [5] * 12
        e["sampling"]["round_start_s"] = [start + 0.02 * i for i in range(12)]
        e["sampling"]["round_end_s"] = [start + 0.02 * i + 0.0085 for i in range(12)]
        e["sampling"]["round_samples"] = rounds
        ts = [0.02 * i for i in range(19)]
        clock = [1755.0 if tt < 0.06 else clock_mhz for tt in ts]
        e["telemetry"] = {"available": True, "unavailable_reason": None, "interval_s": 0.02, "warmup_start_s": 0.0,
                          "measure_start_s": start, "measure_end_s": start + 0.2285,
                          "sm_clock_mhz": {"min": clock_mhz, "mean": clock_mhz, "max": clock_mhz},
                          "sm_clock_max_mhz": 1980.0,
                          "series": {"t_s": ts, "sm_clock_mhz": clock, "power_w": [400.0 + 10 * (i % 3) for i in range(19)]}}
        e["memory"] = {"peak_bytes": 1207959552, "fits": True, "fits_reason": "no growth"}
        e["a_key_from_the_future"] = {"nested": [1, 2, 3]}
        r = report(real, [e], schema_version=version)
        r["environment"]["nvml"] = {"available": True, "error": None, "driver_version": "580.159.04", "device_count": 1}
        r["another_future_key"] = "ignored"
        return r
    write("telemetry.json", with_telemetry(41, 1980.0, "1.1.0"))
    write("telemetry-throttled.json", with_telemetry(42, 1500.0, "1.7.3"))

    # Malformed and unsupported.
    newer = copy.deepcopy(base)
    newer["schema_version"] = "2.0.0"
    write("newer-major.json", newer)
    wrong = copy.deepcopy(base)
    wrong["schema"] = "nvbench.report"
    write("wrong-schema.json", wrong)
    missing = copy.deepcopy(base)
    del missing["experiments"][0]["gpu_time_s"]["p50"]
    write("missing-key.json", missing)
    mistyped = copy.deepcopy(base)
    mistyped["experiments"][0]["sampling"]["steps_per_sample"] = "one"
    write("wrong-type.json", mistyped)
    with open(os.path.join(OUT, "base.json")) as f:
        text = f.read()
    with open(os.path.join(OUT, "truncated.json"), "w") as f:
        f.write(text[: len(text) // 2])  # a crash mid-write, as a non-atomic writer would leave it
    lines = text.split("\n")
    first = next(i for i, line in enumerate(lines) if line.endswith(","))
    lines[first] = lines[first][:-1]  # the first comma at a line's end is lost: an error on the next line
    with open(os.path.join(OUT, "malformed.json"), "w") as f:
        f.write("\n".join(lines))
    with open(os.path.join(OUT, "nan.json"), "w") as f:
        f.write(text.replace('"total_time_s": ', '"total_time_s": NaN, "was": ', 1))
    with open(os.path.join(OUT, "empty.json"), "w") as f:
        f.write("")
    write("gbench.json", {"context": {"date": "2026-11-30 12:00:00", "num_cpus": 16}, "benchmarks": []})


if __name__ == "__main__":
    main()
