"""Suites from Python: benchmarks declared once with their axes and swept over every combination
of the axes' values, the way gauge's C++ runner (GAUGE_BENCHMARK, docs/suite.md) and nvbench's
cuda-bench do.

    import gauge
    from gauge.suite import benchmark, run_benchmarks

    @benchmark(axes={"n": [2**20, 2**24], "dtype": ["float16", "float32"]})
    def copy(point):
        x = torch.empty(point["n"], dtype=getattr(torch, point["dtype"]), device="cuda")
        y = torch.empty_like(x)
        def step(stream):
            with gauge.torch_stream(stream):
                y.copy_(x)
        point.run(step, bytes=2 * x.numel() * x.element_size())

    report = run_benchmarks("sweep.json")      # every point, in order; the report written as it goes

A point's dimensions are its axis values (plus the benchmark's name as the experiment name), so
`gauge-compare` matches two sweeps point by point.
"""

from __future__ import annotations

import itertools
import re
from typing import Any, Callable, Iterable, Mapping, Optional

from . import ConfigError, Experiment, Report, Result

__all__ = ["Benchmark", "Point", "benchmark", "registered", "run_benchmarks"]


class Benchmark:
    """A function ``fn(point)`` and its axes ({name: [values]}; ints, floats, strings, bools)."""

    def __init__(self, fn: Callable[["Point"], Any], name: str, axes: Mapping[str, Iterable[Any]], settings: Mapping[str, Any]):
        if not name:
            raise ConfigError("benchmark: the name must be non-empty")
        self.fn, self.name, self.settings = fn, name, dict(settings)
        self.axes = {}
        for axis, values in axes.items():
            values = list(values)
            if not isinstance(axis, str) or not axis:
                raise ConfigError(f"benchmark {name!r}: an axis name must be a non-empty string, got {axis!r}")
            if not values:
                raise ConfigError(f"benchmark {name!r}: axis {axis!r} has no values")
            for v in values:
                if not isinstance(v, (bool, int, float, str)):
                    raise ConfigError(f"benchmark {name!r}: axis {axis!r}: {v!r} is not an int, float, str or bool")
            if len(set(map(repr, values))) != len(values):
                raise ConfigError(f"benchmark {name!r}: axis {axis!r} repeats a value ({values})")
            self.axes[axis] = values

    def points(self) -> list[dict]:
        """Every combination of the axes' values, the last axis varying fastest."""
        names = list(self.axes)
        return [dict(zip(names, combo)) for combo in itertools.product(*(self.axes[n] for n in names))]


_registry: list[Benchmark] = []


def benchmark(fn: Optional[Callable] = None, *, name: Optional[str] = None, axes: Optional[Mapping[str, Iterable[Any]]] = None,
              **settings: Any):
    """Registers ``fn(point)`` as a benchmark (a decorator, with or without arguments). ``settings``
    are Experiment keywords applied to every point (``max_time``, ``config``, ``backend``, ...)."""

    def register(f: Callable) -> Callable:
        b = Benchmark(f, name or f.__name__, axes or {}, settings)
        if any(x.name == b.name for x in _registry):
            raise ConfigError(f"benchmark {b.name!r} is registered twice")
        _registry.append(b)
        return f

    return register(fn) if fn is not None else register


def registered() -> list[Benchmark]:
    """The benchmarks registered so far, in order."""
    return list(_registry)


class _Skipped(Exception):
    pass


class Point:
    """One point of a sweep: ``point["n"]`` is an axis value; ``run(step, **experiment_keywords)``
    measures it (once per point); ``skip(reason)`` skips it."""

    def __init__(self, bench: Benchmark, values: dict):
        self.benchmark, self.values = bench, values
        self.result: Optional[Result] = None

    def __getitem__(self, axis: str) -> Any:
        try:
            return self.values[axis]
        except KeyError:
            raise ConfigError(f"benchmark {self.benchmark.name!r} has no axis {axis!r} (axes: {', '.join(self.values)})") from None

    def label(self) -> str:
        return self.benchmark.name + "".join(f"/{k}={v}" for k, v in self.values.items())

    def run(self, step: Callable[[Any], Any], **keywords: Any) -> Result:
        if self.result is not None:
            raise ConfigError(f"{self.label()}: point.run() called twice (one experiment per point)")
        kw = dict(self.benchmark.settings)
        kw.update(keywords)
        dims = dict(self.values)
        dims.update(kw.pop("dimensions", {}) or {})
        self.result = Experiment(self.benchmark.name, step, dimensions=dims, **kw).run()
        return self.result

    def skip(self, reason: str) -> None:
        """Skips this point (raises; nothing after it in the function runs)."""
        if self.result is not None:
            raise ConfigError(f"{self.label()}: point.skip() after point.run(): the point was measured")
        raise _Skipped(reason)


def run_benchmarks(report: Optional[str] = None, *, filter: Optional[str] = None, benchmarks: Optional[list[Benchmark]] = None,
                   verbose: bool = True) -> dict:
    """Runs every point of the registered benchmarks (or ``benchmarks``) whose label
    (``name/axis=value/...``) contains ``filter`` (a plain substring, or ``re:`` and a regular
    expression), writing the report at ``report`` after every point. Returns
    {"results": [...], "skipped": [(label, reason)], "failed": [labels], "report": Report or None}.
    ConfigError when the filter matches no point."""
    chosen = list(_registry if benchmarks is None else benchmarks)
    if filter and filter.startswith("re:"):
        pattern = re.compile(filter[3:])
        keep = lambda label: pattern.search(label) is not None  # noqa: E731
    else:
        keep = lambda label: not filter or filter in label  # noqa: E731
    plan = [Point(b, v) for b in chosen for v in b.points()]
    plan = [p for p in plan if keep(p.label())]
    if not plan:
        raise ConfigError(f"run_benchmarks: no point matches the filter {filter!r}" if filter else "run_benchmarks: no benchmarks registered")
    out = Report(report) if report else None
    results, skipped, failed = [], [], []
    for i, p in enumerate(plan, 1):
        try:
            p.benchmark.fn(p)
        except _Skipped as s:
            skipped.append((p.label(), str(s)))
            if verbose:
                print(f"[{i}/{len(plan)}] {p.label()}: skipped: {s}", flush=True)
            continue
        if p.result is None:
            raise ConfigError(f"{p.label()}: the benchmark function returned without point.run() or point.skip()")
        results.append(p.result)
        if not p.result.ok:
            failed.append(p.label())
        if out is not None:
            out.add(p.result)
            out.write()
        if verbose:
            median = p.result.median_s
            shown = "failed: " + str(p.result["error"]).splitlines()[0] if not p.result.ok else f"{median * 1e6:.4g} us"
            print(f"[{i}/{len(plan)}] {p.label()}: {shown}", flush=True)
    return {"results": results, "skipped": skipped, "failed": failed, "report": out}
