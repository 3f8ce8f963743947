"""Performance checks for tests, by the rules of gauge's Catch2 matchers (gauge/report/checks.hpp:
the same C++ function decides, with the same words).

    from gauge.testing import assert_no_slower_than, assert_throughput_at_least
    result = experiment.run()
    assert_no_slower_than(result, "baselines/gemm.json", tolerance=0.03)   # 3 %, 95 % confidence
    assert_throughput_at_least(result, 600e12, "flop")                     # 600 TFLOP/s
"""

from __future__ import annotations

import os
from typing import Any, Optional, Sequence, Union

from . import ConfigError, Result, StoredReport, _gauge, read_report

__all__ = ["assert_no_slower_than", "assert_throughput_at_least", "baselines", "no_slower_than", "throughput_at_least"]

PathLike = Union[str, "os.PathLike[str]"]


def baselines(paths: Union[PathLike, Sequence[PathLike]], name: str) -> list[Result]:
    """The result named ``name`` from each report (one report per baseline run, separate processes)."""
    items = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    if not items:
        raise ConfigError("baselines: no report paths given (one report per run of the baseline)")
    runs = []
    for p in items:
        found = [r for r in read_report(p).results if r["name"] == name]
        if len(found) != 1:
            raise _gauge.ReportError(f"{os.fspath(p)}: {'no' if not found else len(found)} experiment(s) named {name!r}")
        runs.append(found[0])
    return runs


def _baseline_runs(result: Result, baseline: Any) -> list[Result]:
    if isinstance(baseline, Result):
        return [baseline]
    if isinstance(baseline, StoredReport):
        return [baseline.find(result["name"])]
    if isinstance(baseline, (list, tuple)) and baseline and all(isinstance(b, Result) for b in baseline):
        return list(baseline)
    return baselines(baseline, result["name"])


def no_slower_than(result: Result, baseline: Any, tolerance: float = 0.03, confidence: float = 0.95,
                   metric: str = "gpu_time", allow_other_device: bool = False) -> tuple[bool, str]:
    """(ok, the numbers in words): the result is no slower than the baseline (a Result, a list of
    Results, a report path or a list of paths: several runs) by more than ``tolerance`` at
    ``confidence``: gauge::catch2::no_slower_than's rule. ConfigError for a bad tolerance."""
    runs = _baseline_runs(result, baseline)
    return _gauge._no_slower_than([r._native for r in runs], result._native, float(tolerance), float(confidence), metric,
                                  bool(allow_other_device))


def throughput_at_least(result: Result, per_second: float, quantity: str = "flop", confidence: float = 0.95,
                        metric: str = "gpu_time") -> tuple[bool, str]:
    """(ok, the numbers in words): work / (upper bound of the median time's interval) >= per_second,
    with ``quantity`` "flop", "bytes" or an item name: gauge::catch2::throughput_at_least's rule."""
    return _gauge._throughput_at_least(result._native, float(per_second), quantity, float(confidence), metric)


def assert_no_slower_than(result: Result, baseline: Any, tolerance: float = 0.03, confidence: float = 0.95,
                          metric: str = "gpu_time", allow_other_device: bool = False) -> str:
    """Raises AssertionError with the numbers unless ``no_slower_than`` holds; returns the numbers."""
    ok, text = no_slower_than(result, baseline, tolerance, confidence, metric, allow_other_device)
    if not ok:
        raise AssertionError(f"{result['name']}: not confirmed no slower than the baseline by more than "
                             f"{100 * tolerance:g} % at {100 * confidence:g} % confidence: {text}")
    return text


def assert_throughput_at_least(result: Result, per_second: float, quantity: str = "flop", confidence: float = 0.95,
                               metric: str = "gpu_time") -> str:
    """Raises AssertionError with the numbers unless ``throughput_at_least`` holds; returns them."""
    ok, text = throughput_at_least(result, per_second, quantity, confidence, metric)
    if not ok:
        raise AssertionError(f"{result['name']}: throughput not at least {per_second:g} {quantity}/s: {text}")
    return text
