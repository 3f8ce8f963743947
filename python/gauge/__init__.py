"""gauge: trustworthy GPU benchmarks from Python, measured by gauge's C++ protocol.

    import gauge, torch

    a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    def step(stream):                       # a gauge.Stream; torch runs on it
        with gauge.torch_stream(stream):
            a @ a
    result = gauge.Experiment("matmul", step, flop=2 * 4096**3, dimensions={"N": 4096}).run()
    print(result.median_s, result.status, [w["code"] for w in result.warnings])

The timing is gauge's C++ protocol (warm-up to steady state, CUDA events behind the launch gate on
a pool of streams, a stopping rule on the median's distribution-free interval, wall time beside
it): Python only calls the step. Every name here mirrors the C++ library's (docs/python.md).
"""

from __future__ import annotations

import json as _json
import os as _os
import warnings as _warnings
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence, Union

from . import _gauge
from ._gauge import ConfigError, ReportError, Stream

__all__ = [
    "ConfigError",
    "Comparison",
    "Experiment",
    "Report",
    "ReportError",
    "Result",
    "Stream",
    "StoredReport",
    "Timer",
    "TimerSummary",
    "compare",
    "cmake_dir",
    "cuda_available",
    "gate",
    "include_dir",
    "read_report",
    "torch_stream",
    "version",
]

version = _gauge.version
__version__ = version


def cuda_available() -> tuple[bool, str]:
    """(True, "") where a CUDA device can be used now; else (False, the reason in words)."""
    return _gauge.cuda_available()


def include_dir() -> str:
    """The folder of gauge's C++ headers inside the installed package (``-I`` it)."""
    return _os.path.join(_os.path.dirname(__file__), "include")


def cmake_dir() -> str:
    """The folder of gauge's CMake package inside the installed package:
    ``cmake -Dgauge_DIR=$(python -m gauge --cmake-dir)`` then ``find_package(gauge CONFIG)``."""
    return _os.path.join(_os.path.dirname(__file__), "lib", "cmake", "gauge")


class _Fields:
    """Attribute access to a report's JSON object (``r.gpu_time_s["p50"]`` or ``r["gpu_time_s"]``)."""

    def __init__(self, data: dict, native: Any = None):
        object.__setattr__(self, "_data", data)
        object.__setattr__(self, "_native", native)  # the C++ object the data is the JSON of

    def __getattr__(self, key: str) -> Any:
        try:
            return self._data[key]
        except KeyError:
            raise AttributeError(f"{type(self).__name__} has no field {key!r} (fields: {', '.join(sorted(self._data))})") from None

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __contains__(self, key: str) -> bool:
        return key in self._data

    def to_dict(self) -> dict:
        """The JSON object, exactly as the report holds it (a copy)."""
        return _json.loads(_json.dumps(self._data))


class Result(_Fields):
    """One experiment's outcome, with the same fields as the report's ``experiments[i]``
    (``status``, ``error``, ``gpu_time_s`` with ``p50`` ..., ``wall_time_s``, ``throughput``,
    ``warnings``, ``samples``, ``config``, ``device``, ...; seconds for times, docs/method.md).

    ``median_s`` is the median time per step (GPU time on the CUDA backend, real time on the host
    backend), ``ok`` whether the experiment succeeded. ``python_call_s`` (from ``run()`` only): the
    host time of one call from gauge into Python, seconds, measured just before the run (the median
    per call of 11 batches of 100 calls of an empty Python function through the step's path): what
    calling a Python step costs per step before its own work; with the launch gate it stays out of the GPU time while the GPU is the
    bottleneck, and the warning ``launch_bound`` says when it is not.
    """

    def __init__(self, native: "_gauge._Result"):
        _Fields.__init__(self, _json.loads(native.json()), native)

    @classmethod
    def from_dict(cls, data: Mapping) -> "Result":
        """A Result from a report's experiment object (e.g. ``read_report(p).experiments[0]``,
        changed); ReportError naming the first missing or mistyped key."""
        return cls(_gauge._result_from_json(_json.dumps(data)))

    @property
    def ok(self) -> bool:
        return self._data.get("status") == "ok"

    @property
    def median_s(self) -> Optional[float]:
        """The median time per step, seconds (``gpu_time_s.p50``); None when nothing was measured."""
        return (self._data.get("gpu_time_s") or {}).get("p50")

    def __repr__(self) -> str:
        median = self.median_s
        shown = "n/a" if median is None else f"{median * 1e6:.4g} us"
        return f"<gauge.Result {self._data.get('name')!r} {self._data.get('status')} median {shown}>"


def _number(name: str, value: Any) -> float:
    """A finite number >= 0 (not a string, not a bool), or ConfigError naming ``name``."""
    if isinstance(value, (bool, str, bytes)) or not isinstance(value, (int, float)) and not hasattr(value, "__float__"):
        raise ConfigError(f"{name}: expected a number, got {value!r}")
    v = float(value)
    if not (v >= 0) or v == float("inf"):
        raise ConfigError(f"{name}: expected a finite number >= 0, got {value!r}")
    return v


def _seconds(name: str, value: Any) -> float:
    return _number(f"{name} (seconds)", value)


def _merge(into: dict, patch: Mapping) -> dict:
    for k, v in patch.items():
        if isinstance(v, Mapping) and isinstance(into.get(k), dict):
            _merge(into[k], v)
        else:
            into[k] = v
    return into


def _stream_handle(stream: Any) -> int:
    """An int handle from an int, a gauge.Stream or anything with ``__cuda_stream__``."""
    if isinstance(stream, bool):
        raise ConfigError(f"stream: expected a CUDA stream, got {stream!r}")
    if isinstance(stream, int):
        return stream
    protocol = getattr(stream, "__cuda_stream__", None)
    if protocol is not None:
        version_, handle = protocol() if callable(protocol) else protocol
        return int(handle)
    for attr in ("cuda_stream", "ptr", "handle"):  # torch.cuda.Stream, cupy.cuda.Stream
        if hasattr(stream, attr):
            return int(getattr(stream, attr))
    raise ConfigError(f"stream: expected a CUDA stream (an int handle or an object with __cuda_stream__), got {stream!r}")


class Experiment:
    """A step and its settings; ``run()`` measures it with gauge's protocol.

    ``step(stream)`` is any callable. On the CUDA backend it receives a ``gauge.Stream`` and must
    launch its work on that stream (``gauge.torch_stream(stream)`` for PyTorch,
    ``cupy.cuda.ExternalStream(stream.handle)`` for CuPy); it must not synchronize the host unless
    ``synchronizes_host=True``. On the host backend it receives ``None``.

    Arguments (all but ``name`` and ``step`` by keyword):
      dimensions: ``{"M": 4096, "dtype": "bf16"}``: ints, floats, strings, bools.
      flop, bytes: work per step (FLOP, bytes moved), for throughput and the speed-of-light check.
      items: ``{"tokens": 8192}``: named items per step.
      config: the report's ``config`` keys to change, e.g. ``{"measure": {"max_time_s": 2}}``
        (unknown keys raise ConfigError naming them).
      max_time, min_time: seconds of measuring (shortcuts for ``config.measure``).
      cold_cache: flush L2 before every step, outside the timed interval.
      graph: time replays of a CUDA graph of captured steps.
      synchronizes_host: the step waits for the GPU (no launch gate).
      setup: ``setup(stream)`` before every step, untimed.
      verify: ``verify() -> bool`` once after measuring; False or an exception fails the result.
      backend: "auto" (CUDA where a device exists, else the host backend, with a warning), "cuda"
        or "host".
      stream: measure on this stream (an int handle or an object with ``__cuda_stream__``) instead
        of gauge's pool of streams.

    A Python exception in the step makes the result ``failed`` with the traceback in ``error``
    (nothing raised); Ctrl-C stops the run and raises KeyboardInterrupt.
    """

    def __init__(
        self,
        name: str,
        step: Callable[[Any], Any],
        *,
        dimensions: Optional[Mapping[str, Any]] = None,
        flop: Optional[float] = None,
        bytes: Optional[float] = None,
        items: Optional[Mapping[str, float]] = None,
        config: Optional[Mapping[str, Any]] = None,
        max_time: Optional[float] = None,
        min_time: Optional[float] = None,
        cold_cache: bool = False,
        graph: bool = False,
        synchronizes_host: bool = False,
        setup: Optional[Callable[[Any], Any]] = None,
        verify: Optional[Callable[[], bool]] = None,
        backend: str = "auto",
        stream: Any = None,
    ):
        if not isinstance(name, str) or not name:
            raise ConfigError(f"name: expected a non-empty string, got {name!r}")
        if not callable(step):
            raise ConfigError(f"step: expected a callable step(stream), got {step!r}")
        for label, fn in (("setup", setup), ("verify", verify)):
            if fn is not None and not callable(fn):
                raise ConfigError(f"{label}: expected a callable, got {fn!r}")
        if backend not in ("auto", "cuda", "host"):
            raise ConfigError(f'backend: expected "auto", "cuda" or "host", got {backend!r}')
        if graph and synchronizes_host:
            raise ConfigError("graph and synchronizes_host: a step that synchronizes the host cannot be captured in a CUDA graph")
        self.name = name
        self.step = step
        self.setup = setup
        self.verify = verify
        self.backend = backend
        self.stream = None if stream is None else _stream_handle(stream)
        d = _gauge._Declared()
        d.name = name
        ints, floats, strings, bools = [], [], [], []
        for key, value in (dimensions or {}).items():
            if not isinstance(key, str) or not key:
                raise ConfigError(f"dimensions: a key must be a non-empty string, got {key!r}")
            if isinstance(value, bool):
                bools.append((key, value))
            elif isinstance(value, int):
                if not -(2**63) <= value < 2**63:
                    raise ConfigError(f"dimensions: {key}={value} does not fit a signed 64-bit integer")
                ints.append((key, value))
            elif isinstance(value, float):
                floats.append((key, value))
            elif isinstance(value, str):
                strings.append((key, value))
            else:
                raise ConfigError(f"dimensions: {key} must be an int, float, str or bool, got {type(value).__name__}")
        d.int_dimensions, d.float_dimensions, d.string_dimensions, d.bool_dimensions = ints, floats, strings, bools
        d.flop = None if flop is None else _number("flop", flop)
        d.bytes = None if bytes is None else _number("bytes", bytes)
        d.items = [(str(k), _number(f"items[{k!r}]", v)) for k, v in (items or {}).items()]
        patch: dict = {}
        if config is not None:
            if not isinstance(config, Mapping):
                raise ConfigError(f"config: expected a dict of the report's config keys, got {type(config).__name__}")
            _merge(patch, _json.loads(_json.dumps(config)))
        if max_time is not None:
            _merge(patch, {"measure": {"max_time_s": _seconds("max_time", max_time)}})
        if min_time is not None:
            _merge(patch, {"measure": {"min_time_s": _seconds("min_time", min_time)}})
        d.config_json = _json.dumps(patch) if patch else ""
        _gauge._check_config(d.config_json)  # unknown keys and wrong types now, not at run()
        d.cold_cache, d.graph, d.synchronizes_host = bool(cold_cache), bool(graph), bool(synchronizes_host)
        self._declared = d

    def _resolved_backend(self) -> str:
        if self.backend == "host":
            return "host"
        ok, why = _gauge.cuda_available()
        if self.backend == "cuda":
            if not ok:
                raise ConfigError(f'backend "cuda": no CUDA device can be used ({why}); backend="host" or "auto" measures on the CPU')
            return "cuda"
        if ok:
            return "cuda"
        if self.stream is not None:
            raise ConfigError(f"stream: no CUDA device to measure on ({why})")
        _warnings.warn(f"gauge: no CUDA device ({why}): {self.name!r} is measured on the host backend (real time from the steady clock)",
                       RuntimeWarning, stacklevel=3)
        return "host"

    def run(self) -> Result:
        """Measures the step and returns its Result. Raises ConfigError for an invalid setting
        (before anything runs); a failing step gives a failed Result instead."""
        backend = self._resolved_backend()
        call_s = _gauge._python_call_seconds()
        native = _gauge._run(self._declared, self.step, self.setup, self.verify, backend, self.stream)
        result = Result(native)
        object.__setattr__(result, "python_call_s", call_s)
        return result


def torch_stream(stream: Stream):
    """``torch.cuda.stream(...)`` of gauge's stream: ``with gauge.torch_stream(stream): ...`` runs
    PyTorch's work on it. The ExternalStream objects are cached per handle."""
    import torch  # only where used

    cached = _torch_streams.get(stream.handle)
    if cached is None:
        cached = _torch_streams[stream.handle] = torch.cuda.ExternalStream(stream.handle)
    return torch.cuda.stream(cached)


_torch_streams: dict = {}


class Report:
    """The JSON report of a program run (the C++ ``gauge::Report``): ``add`` results, ``write``
    atomically, ``summary`` for the console. Raises ReportError at once when ``path`` cannot be
    written (missing folder, no permission)."""

    def __init__(self, path: Union[str, "_os.PathLike[str]"]):
        self._native = _gauge._Report(_os.fspath(path))

    def add(self, item: Union[Result, TimerSummary]) -> None:
        """Adds a Result (from Experiment.run) or a TimerSummary (from Timer.finish)."""
        if isinstance(item, Result):
            self._native.add(item._native)
        elif isinstance(item, TimerSummary):
            self._native.add_timer(item._native)
        else:
            raise TypeError(f"Report.add: expected a gauge.Result or gauge.TimerSummary, got {type(item).__name__}")

    def write(self) -> None:
        self._native.write()

    def summary(self) -> str:
        return self._native.summary()

    def json(self, indent: int = 2) -> str:
        return self._native.json(indent)

    @property
    def path(self) -> str:
        return self._native.path

    @property
    def results(self) -> list[Result]:
        return [Result(r) for r in self._native.results]


class TimerSummary(_Fields):
    """A Timer's summary, with the report's ``timers[i]`` fields (``window``, ``total``,
    ``regions``, ``counters`` with ``host_synchronizations``, ``warnings``, ...); ``text()`` is the
    console's lines."""

    def __init__(self, native: "_gauge._TimerSummary"):
        _Fields.__init__(self, _json.loads(native.json()), native)

    def text(self) -> str:
        return self._native.text()

    def __repr__(self) -> str:
        return f"<gauge.TimerSummary {self._data.get('name')!r}: {self.text().strip()}>"


class _Region:
    __slots__ = ("_timer", "_id")

    def __init__(self, timer: "Timer", region_id: int):
        self._timer, self._id = timer, region_id

    def __enter__(self):
        self._timer._native.start(self._id)
        return self

    def __exit__(self, *exc):
        self._timer._native.stop(self._id)
        return False


class Timer:
    """gauge's Timer for training loops (the C++ ``gauge::Timer``): named regions as context
    managers, timed by CUDA events on the loop's stream that are queried, never waited on (no host
    synchronization per step), and a step boundary with the step's work.

        timer = gauge.Timer("train", stream=torch.cuda.current_stream(), peak_flop_per_s=989e12)
        for batch in data:
            with timer.region("forward"):
                loss = model(batch)
            with timer.region("backward"):
                loss.backward()
            timer.step(tokens=batch.numel(), flop=6 * params * batch.numel())
        summary = timer.finish()      # regions' shares, throughput, MFU, host synchronizations

    ``stream``: the loop's CUDA stream (an int handle, a torch/CuPy stream, anything with
    ``__cuda_stream__``; None: the legacy default stream). ``backend``: "auto" (CUDA where a device
    exists), "cuda" or "host" (the steady clock, for CPU loops). The other keywords are
    TimerConfig's: warmup_steps (20), window (200), log_every (0: never), level, max_pending_steps
    (256), confidence_level, peak_flop_per_s (None: no MFU), peak_source.
    """

    def __init__(self, name: str, *, stream: Any = None, backend: str = "auto", **config: Any):
        if backend not in ("auto", "cuda", "host"):
            raise ConfigError(f'Timer backend: expected "auto", "cuda" or "host", got {backend!r}')
        if backend == "auto":
            backend = "cuda" if _gauge.cuda_available()[0] else "host"
        c = _gauge.TimerConfig()
        for key, value in config.items():
            if not hasattr(c, key):
                known = ", ".join(k for k in dir(c) if not k.startswith("_"))
                raise ConfigError(f"Timer: unknown setting {key!r} (TimerConfig's: {known})")
            try:
                setattr(c, key, value)
            except TypeError:
                raise ConfigError(f"Timer: {key}={value!r} has the wrong type") from None
        handle = None if stream is None else _stream_handle(stream)
        self._native = _gauge._Timer(name, backend, handle, c)
        self._regions: dict = {}
        self.backend = backend

    def region(self, name: str, level: int = 1) -> _Region:
        """A context manager timing ``name`` (level: 0 coarse, 1 normal, 2 detailed)."""
        key = (name, level)
        r = self._regions.get(key)
        if r is None:
            r = self._regions[key] = _Region(self, self._native.region(name, level))
        return r

    def phase(self, name: str, level: int = 1) -> None:
        """Ends the open phase (if any) and starts ``name``: phases tile the step."""
        self.region(name, level)
        self._native.phase(self._regions[(name, level)]._id)

    def step(self, *, tokens: Optional[float] = None, samples: Optional[float] = None, flop: Optional[float] = None,
             bytes: Optional[float] = None) -> None:
        """Ends a step (one event on the stream, no waiting), with the step's work."""
        self._native.step(tokens, samples, flop, bytes)

    def poll(self) -> int:
        """Resolves finished steps without waiting; returns how many."""
        return self._native.poll()

    def summary(self) -> TimerSummary:
        """The summary of the steps resolved so far (no waiting)."""
        return TimerSummary(self._native.summary())

    def finish(self) -> TimerSummary:
        """Waits for the ended steps (one host synchronization) and returns the final summary."""
        return TimerSummary(self._native.finish())


class StoredReport(_Fields):
    """A report read back (``read_report``): its fields (``environment``, ``experiments``, ...)
    and ``results`` as gauge.Result objects; ``find(name, **dimensions)``."""

    def __init__(self, native: "_gauge._StoredReport"):
        _Fields.__init__(self, _json.loads(native.json()), native)
        object.__setattr__(self, "results", [Result(r) for r in native.results])

    @property
    def source(self) -> str:
        return self._native.source

    def __repr__(self) -> str:
        return (f"<gauge.StoredReport {self.source!r}: {len(self.results)} experiment(s), "
                f"{len(self._data.get('timers') or [])} timer(s), gauge {self._data.get('gauge_version')}>")

    def find(self, name: str, **dimensions: Any) -> Result:
        """The one result named ``name`` whose dimensions include these; ReportError if none or several."""
        found = [r for r in self.results
                 if r["name"] == name and all(r["dimensions"].get(k) == v for k, v in dimensions.items())]
        if len(found) != 1:
            what = "no experiment" if not found else f"{len(found)} experiments"
            point = name + "".join(f"/{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in dimensions.items())
            raise ReportError(f"{self.source}: {what} {point!r} (name/dimension=value, as every gauge tool spells a point)")
        return found[0]


def read_report(path: Union[str, "_os.PathLike[str]"]) -> StoredReport:
    """Reads a gauge report (any schema 1.x); ReportError naming the path and the bad key."""
    return StoredReport(_gauge._read_report(_os.fspath(path)))


ReportLike = Union[str, "_os.PathLike[str]", Report, StoredReport, Result]


def _stored(side: Any, label: str) -> list:
    """A side of a comparison as native stored reports: a path, a Report, a StoredReport, a Result,
    or a list of any of them (several runs)."""
    items = list(side) if isinstance(side, (list, tuple)) else [side]
    if not items:
        raise ConfigError(f"compare: no {label} reports given")
    out = []
    for i, x in enumerate(items):
        if isinstance(x, StoredReport):
            out.append(x._native)
        elif isinstance(x, Report):
            out.append(_gauge._stored_from_report(x._native))
        elif isinstance(x, Result):
            out.append(_gauge._stored_from_results([x._native], label if len(items) == 1 else f"{label} run {i + 1}"))
        elif isinstance(x, (str, _os.PathLike)):
            out.append(_gauge._read_report(_os.fspath(x)))
        else:
            raise ConfigError(f"compare: {label}: expected a path, Report, StoredReport or Result, got {type(x).__name__}")
    return out


class Comparison(_Fields):
    """What ``gauge-compare`` prints, as data: ``experiments`` (each with ``verdict``, ``ratio``,
    ``reason``, ...), ``comparable``, ``any_regression``; ``text()``, ``markdown()``, ``gate()``."""

    def __init__(self, native: "_gauge._Comparison"):
        _Fields.__init__(self, _json.loads(native.json()), native)

    def text(self) -> str:
        return self._native.text()

    def markdown(self) -> str:
        return self._native.markdown()

    def gate(self, allow_not_comparable: bool = False, allow_inconclusive: bool = False) -> str:
        """``--fail-on-regression`` in code: "pass", "regression", "not_comparable" or "inconclusive"."""
        return self._native.gate(allow_not_comparable, allow_inconclusive)

    @property
    def verdicts(self) -> dict:
        """{experiment label: verdict}."""
        return {e.get("label", e.get("name")): e["verdict"] for e in self._data.get("experiments", [])}


def compare(
    base: Union[ReportLike, Sequence[ReportLike]],
    new: Union[ReportLike, Sequence[ReportLike]],
    *,
    threshold: float = 0.02,
    confidence_level: float = 0.95,
    metric: str = "gpu_time",
    ignore_dimensions: Iterable[str] = (),
    clock: str = "auto",
    multiplicity: str = "fdr",
    run_spread: float = 0.0,
    clock_tolerance: float = 0.05,
    resamples: int = 2000,
    seed: int = 20261130,
) -> Comparison:
    """``gauge-compare base new``: each side a path, Report, StoredReport or Result, or a list of
    them (several runs per side: the run is a random effect). The rule and its options are
    gauge-compare's (docs/comparing.md); ConfigError for an invalid option."""
    return Comparison(_gauge._compare(_stored(base, "base"), _stored(new, "new"), float(threshold), float(confidence_level),
                                      metric, list(ignore_dimensions), clock, multiplicity, float(run_spread),
                                      float(clock_tolerance), int(resamples), int(seed)))


def gate(comparison: Comparison, allow_not_comparable: bool = False, allow_inconclusive: bool = False) -> str:
    """The gate's outcome of a comparison: "pass", "regression", "not_comparable" or "inconclusive"."""
    return comparison.gate(allow_not_comparable, allow_inconclusive)
