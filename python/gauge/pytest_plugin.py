"""gauge's pytest plugin (registered by the package's ``pytest11`` entry point): the fixture
``gauge_benchmark`` measures an experiment and checks it against a stored baseline by the rule of
gauge's Catch2 matcher ``no_slower_than``.

    def test_matmul(gauge_benchmark):
        result = gauge_benchmark(gauge.Experiment("matmul", step, flop=2 * n**3),
                                 baseline="baselines/matmul.json", tolerance=0.05)

``pytest --gauge-save-baselines`` writes the baselines instead of checking them (their folders
included; a missing baseline is an error otherwise, naming the option). The check must *confirm*
"no slower" (the Catch2 matcher's rule): on a noisy machine a result as fast as its baseline can
fail with "cannot confirm"; give it a wider tolerance or more measuring time (``max_time``).
"""

from __future__ import annotations

import os

import pytest

from . import Experiment, Report
from .testing import assert_no_slower_than


def pytest_addoption(parser):
    group = parser.getgroup("gauge")
    group.addoption("--gauge-save-baselines", action="store_true", default=False,
                    help="write each gauge_benchmark baseline from this run instead of checking against it")


@pytest.fixture
def gauge_benchmark(request):
    """``measure(experiment, baseline=None, tolerance=0.03, confidence=0.95)`` -> gauge.Result:
    runs the experiment; fails the test if it failed; with ``baseline`` (a report path, or a list
    of them: several runs), checks that it is no slower than the baseline's result of the same
    name (or writes the baseline with --gauge-save-baselines)."""
    save = request.config.getoption("--gauge-save-baselines")

    def measure(experiment: Experiment, baseline=None, tolerance: float = 0.03, confidence: float = 0.95):
        result = experiment.run()
        if not result.ok:
            pytest.fail(f"{result['name']} failed: {result['error']}", pytrace=False)
        if baseline is None:
            return result
        paths = [baseline] if isinstance(baseline, (str, os.PathLike)) else list(baseline)
        if save:
            folder = os.path.dirname(os.fspath(paths[0]))
            if folder:
                os.makedirs(folder, exist_ok=True)
            report = Report(paths[0])
            report.add(result)
            report.write()
            return result
        missing = [os.fspath(p) for p in paths if not os.path.exists(p)]
        if missing:
            pytest.fail(f"no baseline report {missing[0]} (run pytest --gauge-save-baselines to write it)", pytrace=False)
        failure = None
        try:
            assert_no_slower_than(result, paths, tolerance, confidence)
        except AssertionError as e:
            failure = str(e)
        if failure is not None:  # outside the except block: one message, no chained traceback
            pytest.fail(failure, pytrace=False)
        return result

    return measure
