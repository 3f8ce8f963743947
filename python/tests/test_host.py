"""gauge's Python package on the host backend (no GPU needed): the protocol through Python steps,
the report, the reader, the comparison, the checks and the CLI. Values are checked against what
Python itself counted or computed (NumPy), never against numbers gauge printed."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import gauge
from gauge import testing

QUICK = {"measure": {"max_time_s": 0.15, "min_time_s": 0.02}, "warmup": {"max_time_s": 0.2}}


def spin(seconds):
    """Busy-waits `seconds` of perf_counter (a step with a known lower bound on its time)."""
    import time
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def host(name, step, **kw):
    kw.setdefault("config", QUICK)
    return gauge.Experiment(name, step, backend="host", **kw)


def test_every_call_of_the_step_is_accounted_for():
    calls = []
    r = host("count", lambda s: calls.append(s)).run()
    assert r.ok, r["error"]
    assert r["backend"] == "host"
    assert all(s is None for s in calls)  # the host backend hands the step no stream
    sampling, warmup = r["sampling"], r["warmup"]
    accounted = warmup["steps"] + sampling["calibration_steps"] + sampling["steps"] + sampling["wall_steps"]
    assert sampling["steps"] > 0 and sampling["wall_steps"] > 0
    # Every call Python saw is one gauge counted somewhere, and none was counted twice.
    assert len(calls) == accounted, (len(calls), warmup["steps"], sampling)


def test_the_python_call_cost_is_measured():
    r = host("cost", lambda s: None).run()
    # one call of an empty builtin from C++: more than nothing, far less than a millisecond
    assert 0 < r.python_call_s < 1e-3


def test_the_median_is_at_least_the_steps_own_duration():
    r = host("spin", lambda s: spin(200e-6)).run()
    assert r.ok
    # Lower bound only (a loaded machine is slower, never faster): 200 us of spinning.
    assert r.median_s >= 200e-6
    samples = np.array(r["samples"]["gpu_time_per_step_s"])
    assert samples.size >= 10
    assert r.median_s == pytest.approx(float(np.median(samples)), rel=1e-9)


def test_work_gives_throughput_from_the_median():
    r = host("work", lambda s: spin(100e-6), flop=1e6, bytes=2e6, items={"tokens": 512}).run()
    assert r.ok
    t = r["throughput"]["gpu"]
    assert t["flop_per_s"] == pytest.approx(1e6 / r.median_s, rel=1e-9)
    assert t["bytes_per_s"] == pytest.approx(2e6 / r.median_s, rel=1e-9)
    assert t["items_per_s"]["tokens"] == pytest.approx(512 / r.median_s, rel=1e-9)


def test_dimensions_keep_their_types():
    r = host("dims", lambda s: None, dimensions={"M": 4096, "scale": 0.5, "dtype": "bf16", "transposed": True}).run()
    assert r["dimensions"] == {"M": 4096, "scale": 0.5, "dtype": "bf16", "transposed": True}
    assert type(r["dimensions"]["M"]) is int and type(r["dimensions"]["transposed"]) is bool


def test_a_python_exception_fails_the_result_with_its_traceback():
    def broken_step(stream):
        raise ValueError("the kernel's input was never allocated")

    r = host("broken", broken_step).run()
    assert r["status"] == "failed"
    assert "ValueError" in r["error"] and "the kernel's input was never allocated" in r["error"]
    assert "broken_step" in r["error"]  # the traceback names the function


def test_an_exception_after_some_steps_keeps_what_was_measured():
    calls = [0]

    def late(stream):
        calls[0] += 1
        if calls[0] == 40:
            raise RuntimeError("step 40 broke")

    r = host("late", late).run()
    assert r["status"] == "failed" and "step 40 broke" in r["error"]
    assert calls[0] == 40


def test_keyboard_interrupt_stops_the_run():
    def interrupted(stream):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        host("ctrl-c", interrupted).run()


def test_setup_runs_before_every_step_and_verify_once():
    order = []
    r = host("setup", lambda s: order.append("step"), setup=lambda s: order.append("setup"),
             verify=lambda: order.append("verify") or True).run()
    assert r.ok, r["error"]
    assert order.count("verify") == 1 and order[-1] == "verify"
    steps = [x for x in order if x != "verify"]
    # setup, step, setup, step, ...: each step right after its own setup
    assert steps[0::2] == ["setup"] * (len(steps) // 2) and steps[1::2] == ["step"] * (len(steps) // 2)
    assert 0 < r["sampling"]["setup_calls"] <= order.count("setup")


def test_verify_false_fails_the_result():
    r = host("wrong", lambda s: None, verify=lambda: False).run()
    assert r["status"] == "failed"
    assert "verif" in r["error"]


@pytest.mark.parametrize("kwargs, words", [
    ({"config": {"measure": {"max_tim_s": 1}}}, 'unknown key "measure.max_tim_s"'),
    ({"config": {"measure": {"max_time_s": "two"}}}, "max_time_s"),
    ({"max_time": -1}, "max_time"),
    ({"dimensions": {"M": [1, 2]}}, "dimensions: M"),
    ({"dimensions": {"M": 2**64}}, "64-bit"),
    ({"backend": "tpu"}, "backend"),
    ({"flop": "lots"}, "flop"),
    ({"items": {"tokens": -1}}, "items['tokens']"),
    ({"max_time": "2"}, "max_time"),
    ({"graph": True, "synchronizes_host": True}, "graph"),
])
def test_bad_settings_raise_config_error_naming_them(kwargs, words):
    with pytest.raises(gauge.ConfigError) as e:
        gauge.Experiment("bad", lambda s: None, **kwargs)
    assert words in str(e.value)


def test_bad_names_and_steps_raise():
    with pytest.raises(gauge.ConfigError, match="name"):
        gauge.Experiment("", lambda s: None)
    with pytest.raises(gauge.ConfigError, match="step"):
        gauge.Experiment("x", 42)


def test_cuda_backend_without_a_gpu_is_a_config_error():
    ok, why = gauge.cuda_available()
    if ok:
        pytest.skip("a CUDA device is present")
    with pytest.raises(gauge.ConfigError, match='backend "cuda": no CUDA device'):
        gauge.Experiment("cuda", lambda s: None, backend="cuda").run()


def test_auto_backend_without_a_gpu_says_so():
    ok, why = gauge.cuda_available()
    if ok:
        pytest.skip("a CUDA device is present")
    assert why
    with pytest.warns(RuntimeWarning, match="host backend"):
        r = gauge.Experiment("auto", lambda s: None, config=QUICK).run()
    assert r["backend"] == "host"


def test_report_round_trip(tmp_path):
    path = tmp_path / "r.json"
    report = gauge.Report(path)
    a = host("a", lambda s: spin(50e-6)).run()
    b = host("b", lambda s: spin(100e-6)).run()
    report.add(a)
    report.add(b)
    report.write()
    on_disk = json.loads(path.read_text())
    assert [e["name"] for e in on_disk["experiments"]] == ["a", "b"]
    stored = gauge.read_report(path)
    assert [r["name"] for r in stored.results] == ["a", "b"]
    assert stored.find("b")["gpu_time_s"] == b["gpu_time_s"]
    assert stored.find("a").median_s == pytest.approx(float(np.median(on_disk["experiments"][0]["samples"]["gpu_time_per_step_s"])))
    assert "a" in report.summary() and "b" in report.summary()
    # A point that is not there is named as every gauge tool spells it.
    with pytest.raises(gauge.ReportError) as e:
        stored.find("a", n=3, flag=True)
    assert "no experiment 'a/n=3/flag=true'" in str(e.value)


def test_report_refuses_an_unwritable_path(tmp_path):
    with pytest.raises(gauge.ReportError) as e:
        gauge.Report(tmp_path / "no" / "such" / "folder" / "r.json")
    assert "no" in str(e.value)


def test_read_report_names_the_bad_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": "gauge.report"}')
    with pytest.raises(gauge.ReportError) as e:
        gauge.read_report(bad)
    assert "bad.json" in str(e.value) and "schema_version" in str(e.value)


def scaled(result, factor):
    """`result` with every per-step time multiplied by `factor` (samples and summaries)."""
    d = result.to_dict()
    times = {"min", "max", "mean", "median", "iqr", "mad", "stddev"} | {k for k in d["gpu_time_s"] if k.startswith("p") and k[1:].isdigit()}
    for key in ("gpu_time_s", "wall_time_s", "cpu_time_s"):
        if key not in d:
            continue
        summary = d[key]
        for k in times:
            if isinstance(summary.get(k), (int, float)):
                summary[k] *= factor
        if isinstance(summary.get("median_ci"), dict):
            for k in ("low", "high"):
                summary["median_ci"][k] *= factor
    d["samples"] = {k: [x * factor for x in v] if isinstance(v, list) else v for k, v in d["samples"].items()}
    return gauge.Result.from_dict(d)


def test_compare_a_result_with_itself_and_with_a_slower_copy():
    r = host("cmp", lambda s: spin(100e-6)).run()
    # threshold 20 %: the interval of a ratio of a run with itself is as wide as the run is noisy
    same = gauge.compare(r, r, threshold=0.2)
    assert same.verdicts == {"cmp": "same"} and same.gate() == "pass"
    slower = gauge.compare(r, scaled(r, 1.5), threshold=0.2)
    e = slower["experiments"][0]
    assert e["verdict"] == "slower" and slower.gate() == "regression"
    expected = float(np.median(np.array(r["samples"]["gpu_time_per_step_s"]) * 1.5) / np.median(r["samples"]["gpu_time_per_step_s"]))
    assert e["ratio"]["estimate"] == pytest.approx(expected, rel=1e-6)
    assert "slower" in slower.text() and "|" in slower.markdown()


def test_compare_stored_reports_agrees_with_the_data():
    data = os.path.join(os.environ["GAUGE_SOURCE_DIR"], "tests", "data", "reports")
    c = gauge.compare(os.path.join(data, "base.json"), os.path.join(data, "slower.json"))
    base = gauge.read_report(os.path.join(data, "base.json")).results[0]
    new = gauge.read_report(os.path.join(data, "slower.json")).results[0]
    truth = np.median(new["samples"]["gpu_time_per_step_s"]) / np.median(base["samples"]["gpu_time_per_step_s"])
    assert c["experiments"][0]["ratio"]["estimate"] == pytest.approx(float(truth), rel=1e-6)
    assert c["experiments"][0]["verdict"] == ("slower" if truth > 1.02 else "same")


def test_compare_options_are_checked():
    r = host("opt", lambda s: None).run()
    with pytest.raises(gauge.ConfigError, match="threshold"):
        gauge.compare(r, r, threshold=2)
    with pytest.raises(gauge.ConfigError, match="metric"):
        gauge.compare(r, r, metric="energy")


def test_no_slower_than_is_the_catch2_rule():
    r = host("check", lambda s: spin(100e-6)).run()
    ok, text = testing.no_slower_than(r, r, tolerance=0.2)  # 20 %: wider than any run's own noise here
    assert ok, text
    ok, text = testing.no_slower_than(scaled(r, 2.0), r, tolerance=0.03)
    assert not ok and "slower" in text
    with pytest.raises(AssertionError, match="not confirmed"):
        testing.assert_no_slower_than(scaled(r, 2.0), r)
    with pytest.raises(gauge.ConfigError, match="tolerance"):
        testing.no_slower_than(r, r, tolerance=-1)


def test_throughput_at_least_uses_the_medians_interval():
    r = host("rate", lambda s: spin(100e-6), flop=1e9).run()
    samples = np.sort(np.array(r["samples"]["gpu_time_per_step_s"]))
    ok, text = testing.throughput_at_least(r, 0.5 * 1e9 / samples[-1], "flop")
    assert ok, text
    ok, text = testing.throughput_at_least(r, 2 * 1e9 / samples[0], "flop")
    assert not ok and "below" in text
    ok, text = testing.throughput_at_least(r, 1, "tokens")
    assert not ok and "declares no" in text


def run_cli(*args):
    env = dict(os.environ)
    return subprocess.run([sys.executable, "-m", "gauge", *args], capture_output=True, text=True, env=env)


def test_cli_compare_exit_codes(tmp_path):
    r = host("cli", lambda s: spin(100e-6)).run()
    paths = {}
    for label, res in (("base", r), ("same", r), ("slow", scaled(r, 1.5))):
        rep = gauge.Report(tmp_path / f"{label}.json")
        rep.add(res)
        rep.write()
        paths[label] = str(tmp_path / f"{label}.json")
    same = run_cli("compare", paths["base"], paths["same"], "--fail-on-regression", "--threshold", "0.2")
    assert same.returncode == 0, same.stdout
    slow = run_cli("compare", paths["base"], paths["slow"], "--fail-on-regression", "--threshold", "0.2")
    assert slow.returncode == 1 and "slower" in slow.stdout
    assert run_cli("compare", paths["base"], paths["slow"]).returncode == 0  # no gate asked
    j = run_cli("compare", paths["base"], paths["slow"], "--format", "json")
    assert json.loads(j.stdout)["experiments"][0]["verdict"] == "slower"
    missing = run_cli("compare", paths["base"], str(tmp_path / "nope.json"))
    assert missing.returncode == 2 and "nope.json" in missing.stderr
    assert run_cli("--version").stdout.strip() == f"gauge {gauge.version}"


def test_pytest_fixture_saves_then_checks_a_baseline(tmp_path):
    test_file = tmp_path / "test_bench.py"
    baseline = tmp_path / "baselines" / "baseline.json"  # its folder is made by --gauge-save-baselines
    test_file.write_text(textwrap.dedent(f"""
        import time, gauge
        FACTOR = float(__import__("os").environ.get("FACTOR", "1"))
        def spin(s):
            end = time.perf_counter() + s
            while time.perf_counter() < end:
                pass
        def test_spin(gauge_benchmark):
            e = gauge.Experiment("spin", lambda s: spin(FACTOR * 200e-6), backend="host", config={json.dumps(QUICK)})
            gauge_benchmark(e, baseline={str(baseline)!r}, tolerance=0.5)
    """))
    # An installed package brings the plugin through its entry point (pytest11); a build tree's
    # module on PYTHONPATH does not, so -p loads it there (both would register it twice).
    plugin = [] if _plugin_installed() else ["-p", "gauge.pytest_plugin"]

    def pytest_run(*extra, factor="1"):
        env = dict(os.environ, FACTOR=factor)
        return subprocess.run([sys.executable, "-m", "pytest", "-q", *plugin, "-p", "no:cacheprovider",
                               str(test_file), *extra], capture_output=True, text=True, env=env, cwd=tmp_path)
    first = pytest_run()
    assert first.returncode == 1 and "--gauge-save-baselines" in first.stdout
    saved = pytest_run("--gauge-save-baselines")
    assert saved.returncode == 0, saved.stdout
    assert gauge.read_report(baseline).results[0]["name"] == "spin"
    again = pytest_run()
    assert again.returncode == 0, again.stdout
    # 5x slower than the baseline: beyond the 50 % tolerance
    slow = pytest_run(factor="5")
    assert slow.returncode == 1 and "not confirmed" in slow.stdout


def _plugin_installed():
    """Whether gauge's pytest plugin is installed as an entry point (the package installed by pip)."""
    from importlib import metadata
    eps = metadata.entry_points()
    group = eps.select(group="pytest11") if hasattr(eps, "select") else eps.get("pytest11", [])
    return any(ep.name == "gauge" for ep in group)


def test_package_paths():
    assert gauge.version == gauge._gauge.version
    assert isinstance(gauge.include_dir(), str) and isinstance(gauge.cmake_dir(), str)


def test_timer_regions_steps_and_work_on_the_host():
    timer = gauge.Timer("loop", backend="host", warmup_steps=5)
    steps = 40
    for _ in range(steps):
        with timer.region("a"):
            spin(100e-6)
        with timer.region("b"):
            spin(300e-6)
        timer.step(tokens=10)
    s = timer.finish()
    assert s["counters"]["steps"] == steps and s["total"]["steps"] == steps - 5
    regions = {r["name"]: r for r in s["regions"]}
    assert set(regions) == {"a", "b"}
    # lower bounds from the spins themselves (a loaded machine is slower, never faster)
    assert regions["a"]["total"]["time_per_step_s"]["min"] >= 100e-6
    assert regions["b"]["total"]["time_per_step_s"]["min"] >= 300e-6
    step = s["total"]["gpu_time_per_step_s"]
    assert step["min"] >= 400e-6
    # the shares are the regions' sums over the step's sum (computed here from the sums)
    for r in regions.values():
        assert r["total"]["share_of_step"] == pytest.approx(r["total"]["time_per_step_s"]["sum"] / step["sum"], rel=1e-6)
    assert s["total"]["throughput"]["tokens_per_s"] == pytest.approx(10 * (steps - 5) / step["sum"], rel=1e-6)
    assert "a" in s.text() and "b" in s.text()


def test_timer_settings_are_checked():
    with pytest.raises(gauge.ConfigError, match="unknown setting 'windw'"):
        gauge.Timer("t", backend="host", windw=10)
    with pytest.raises(gauge.ConfigError, match="window"):
        timer = gauge.Timer("t", backend="host", window=0)
        timer.step()


def test_report_holds_a_timer(tmp_path):
    timer = gauge.Timer("loop", backend="host", warmup_steps=1)
    for _ in range(5):
        with timer.region("work"):
            spin(50e-6)
        timer.step()
    report = gauge.Report(tmp_path / "t.json")
    report.add(timer.finish())
    report.write()
    stored = gauge.read_report(tmp_path / "t.json")
    assert [t["name"] for t in stored["timers"]] == ["loop"]


def test_suite_sweeps_every_point_in_order(tmp_path):
    from gauge.suite import Benchmark, Point, run_benchmarks

    seen = []

    def body(point):
        seen.append((point["n"], point["mode"]))
        if point["n"] == 3 and point["mode"] == "b":
            point.skip("not for 3/b")
        point.run(lambda s: spin(20e-6), items={"elements": point["n"]})

    b = Benchmark(body, "sweep", {"n": [1, 3], "mode": ["a", "b"]}, {"backend": "host", "config": QUICK})
    out = run_benchmarks(str(tmp_path / "s.json"), benchmarks=[b], verbose=False)
    assert seen == [(1, "a"), (1, "b"), (3, "a"), (3, "b")]  # the last axis fastest
    assert [r["dimensions"] for r in out["results"]] == [{"n": 1, "mode": "a"}, {"n": 1, "mode": "b"}, {"n": 3, "mode": "a"}]
    assert out["skipped"] == [("sweep/n=3/mode=b", "not for 3/b")]
    assert len(gauge.read_report(tmp_path / "s.json").results) == 3
    sub = run_benchmarks(benchmarks=[b], filter="mode=a", verbose=False)
    assert [r["dimensions"]["mode"] for r in sub["results"]] == ["a", "a"]
    with pytest.raises(gauge.ConfigError, match="no point matches"):
        run_benchmarks(benchmarks=[b], filter="nomatch", verbose=False)
    with pytest.raises(gauge.ConfigError, match="repeats"):
        Benchmark(body, "dup", {"n": [1, 1]}, {})
    with pytest.raises(gauge.ConfigError, match="no axis 'm'"):
        Point(b, {"n": 1, "mode": "a"})["m"]
