#!/usr/bin/env python3
"""Tests of the report schema and of the tools (gauge-compare, gauge-export, gauge-plot), run by
CTest with the standard library's unittest (no pytest needed):

    python3 tests/test_tools.py [TestClass ...]

Environment (CTest sets it): GAUGE_SOURCE_DIR, GAUGE_WORK_DIR (scratch), GAUGE_COMPARE,
GAUGE_EXPORT, GAUGE_WRITE_REPORTS (built programs); GAUGE_GEMM and GAUGE_TRAINING_LOOP (the CUDA
examples) only where they are built, i.e. where nvcc exists, and GAUGE_HOST_SORT where CLI11 is:
without them their tests are skipped.
When every test that ran was skipped, the exit status is 77 (CTest's SKIP_RETURN_CODE). Needs jsonschema, NumPy and matplotlib
(Debian: python3-jsonschema python3-numpy python3-matplotlib); SciPy where present checks the
U test independently; Google Benchmark's compare.py from libbenchmark-tools.

Expected values are computed here from the stored reports with NumPy/SciPy, or stated by hand.
"""
import csv
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import unittest

import jsonschema
import numpy as np

SOURCE = os.environ.get("GAUGE_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORK = os.environ.get("GAUGE_WORK_DIR", "/tmp/gauge-test-tools")
COMPARE = os.environ.get("GAUGE_COMPARE", "gauge-compare")
EXPORT = os.environ.get("GAUGE_EXPORT", "gauge-export")
WRITE_REPORTS = os.environ.get("GAUGE_WRITE_REPORTS")
GEMM = os.environ.get("GAUGE_GEMM")
TRAINING_LOOP = os.environ.get("GAUGE_TRAINING_LOOP")
HOST_SORT = os.environ.get("GAUGE_HOST_SORT")
HOST_SWEEP = os.environ.get("GAUGE_HOST_SWEEP")
PLOT = os.path.join(SOURCE, "tools", "gauge-plot")
SCHEMA = os.path.join(SOURCE, "schema", "gauge-report.schema.json")
REPORTS = os.path.join(SOURCE, "tests", "data", "reports")
# The first H200 report (values pinned by the tests) and the current one (with telemetry).
H200 = os.path.join(SOURCE, "tests", "data", "reports", "h200-first.json")
H200_CURRENT = os.path.join(SOURCE, "examples", "reports", "gemm-h200.json")
COMPARE_PY = os.environ.get("GAUGE_GBENCH_COMPARE_PY", "/usr/share/benchmark/compare.py")

VALID = ["base.json", "same.json", "slower.json", "fp32.json", "noisy.json", "few-samples.json", "different-gpu.json",
         "failed.json", "multi-base.json", "multi-new.json", "telemetry.json", "telemetry-throttled.json"]


def report(name):
    return os.path.join(REPORTS, name)


def gpu_samples(path, i=0):
    with open(path) as f:
        return np.array(json.load(f)["experiments"][i]["samples"]["gpu_time_per_step_s"])


def run(*args, env=None):
    e = dict(os.environ, MPLBACKEND="Agg")
    e.update(env or {})
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, env=e, timeout=120)


USAGE_HINT = "(see --help)"


def header_version():
    """gauge's version as include/gauge/version.hpp states it."""
    with open(os.path.join(SOURCE, "include", "gauge", "version.hpp")) as f:
        text = f.read()
    m = re.search(r'version_string = "([0-9]+\.[0-9]+\.[0-9]+)"', text)
    assert m, "no version_string in version.hpp"
    major, minor, patch = (re.search(rf"#define GAUGE_VERSION_{k} ([0-9]+)", text).group(1) for k in ("MAJOR", "MINOR", "PATCH"))
    assert m.group(1) == f"{major}.{minor}.{patch}", "version.hpp: version_string and the GAUGE_VERSION_* macros differ"
    return m.group(1)


class ReleaseVersions(unittest.TestCase):
    """A release is one version everywhere: gauge/version.hpp, CMake's project(), pyproject.toml and
    the newest released heading of CHANGELOG.md (the git tag v<version> names the same)."""

    def read(self, *parts):
        with open(os.path.join(SOURCE, *parts), encoding="utf-8") as f:
            return f.read()

    def test_every_place_names_the_version_of_version_hpp(self):
        version = header_version()
        cmake = re.search(r"project\(gauge VERSION ([0-9.]+)", self.read("CMakeLists.txt"))
        self.assertIsNotNone(cmake, "CMakeLists.txt: no project(gauge VERSION ...)")
        self.assertEqual(version, cmake.group(1), "CMakeLists.txt's project version")
        pyproject = re.search(r'^version = "([0-9.]+)"', self.read("pyproject.toml"), re.M)
        self.assertIsNotNone(pyproject, "pyproject.toml: no version")
        self.assertEqual(version, pyproject.group(1), "pyproject.toml's version")
        headings = re.findall(r"^## \[([^\]]+)\]( - (\d{4}-\d{2}-\d{2}))?$", self.read("CHANGELOG.md"), re.M)
        released = [(name, date) for name, _, date in headings if name != "Unreleased"]
        self.assertTrue(released, "CHANGELOG.md has no released version heading")
        self.assertEqual(version, released[0][0], "the newest released heading of CHANGELOG.md")
        self.assertTrue(released[0][1], "the newest release heading has no date (## [X.Y.Z] - YYYY-MM-DD)")
        # Newest first, each once.
        key = [tuple(int(x) for x in name.split(".")) for name, _ in released]
        self.assertEqual(sorted(key, reverse=True), key, "CHANGELOG.md's releases are not newest first")
        self.assertEqual(len(set(key)), len(key), "a release heading is there twice")


def header_schema_version():
    """The report schema version that include/gauge/version.hpp states (report_schema_version)."""
    with open(os.path.join(SOURCE, "include", "gauge", "version.hpp")) as f:
        m = re.search(r'report_schema_version = "([0-9]+\.[0-9]+\.[0-9]+)"', f.read())
    assert m, "no report_schema_version in version.hpp"
    return m.group(1)


def assert_usage_error(test, p, program, bad_text):
    """Exit status 2, nothing on stdout, and on stderr one line "<program>: error: ..." that names
    `bad_text`, optionally followed by the hint line."""
    test.assertEqual(2, p.returncode, p.stdout + p.stderr)
    test.assertEqual("", p.stdout)
    test.assertTrue(p.stderr.endswith("\n"), repr(p.stderr))
    lines = p.stderr.splitlines()
    test.assertEqual(1, len(lines), p.stderr)
    test.assertTrue(lines[0].startswith(program + ": error: "), p.stderr)
    test.assertIn(bad_text, lines[0])


class FlagConventions:
    """The conventions every tool and example follows (CLI11): --help and --version exit 0,
    `--opt=value` works as `--opt value`, and bad usage exits 2 with one line naming the bad text.
    A subclass sets NAME, PROGRAM and the cases below."""

    NAME = ""
    # The program's path, from the environment variable PROGRAM_VARIABLE; for an example, which is
    # built only where nvcc was found at configure time, the tests are skipped where it is not set.
    PROGRAM = None
    PROGRAM_VARIABLE = ""
    # Every option: (option, its default as --help shows it or None, words of its description).
    OPTIONS = []
    # (arguments, text the error line must name); the arguments are complete command lines.
    USAGE_ERRORS = []

    def setUp(self):
        if not self.PROGRAM:
            self.skipTest(f"examples/{self.NAME} is not built here (no nvcc at configure time): "
                          f"{self.PROGRAM_VARIABLE} is not set")

    def program(self):
        return self.PROGRAM

    def help_entry(self, text, option):
        """The --help entry of `option`: its line and the indented lines that continue it."""
        lines = text.splitlines()
        for i, line in enumerate(lines):
            if re.match(rf"^  (?:-\w,)?{re.escape(option)}(?:[ =]|$)", line):
                entry = [line]
                for cont in lines[i + 1:]:
                    if not cont.startswith("      "):
                        break
                    entry.append(cont)
                return " ".join(x.strip() for x in entry)
        self.fail(f"{option} is not in --help:\n{text}")

    def test_help_exits_0_with_descriptions_defaults_and_exit_codes(self):
        self.assertTrue(self.OPTIONS)
        for flag in ["--help", "-h"]:
            with self.subTest(flag=flag):
                p = run(self.program(), flag)
                self.assertEqual(0, p.returncode, p.stderr)
                self.assertEqual("", p.stderr)
                self.assertIn(f"Usage: {self.NAME} [OPTIONS]", p.stdout)
                self.assertIn("--version", p.stdout)
                self.assertRegex(p.stdout, r"\nExit status:")
                exit_codes = p.stdout.split("Exit status:")[1]
                self.assertRegex(exit_codes, r"\b0\b")
                self.assertRegex(exit_codes, r"\b2\b.*usage")
                for option, default, words in self.OPTIONS:
                    entry = self.help_entry(p.stdout, option)
                    if default is not None:
                        self.assertIn(f"={default} ", entry + " ")
                    self.assertIn(words, entry)

    def test_version_prints_the_version_of_version_hpp(self):
        p = run(self.program(), "--version")
        self.assertEqual(0, p.returncode, p.stderr)
        self.assertEqual("", p.stderr)
        self.assertEqual(f"gauge {header_version()}\n", p.stdout)

    def test_bad_usage_exits_2_with_one_line_naming_the_bad_text(self):
        self.assertTrue(self.USAGE_ERRORS)
        for args, bad_text in self.USAGE_ERRORS:
            with self.subTest(args=args):
                assert_usage_error(self, run(self.program(), *args), self.NAME, bad_text)


def validator():
    with open(SCHEMA) as f:
        schema = json.load(f)
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


def reject_constant(name):
    raise ValueError(f"non-finite number {name}")


def load_strict(path):
    with open(path) as f:
        return json.load(f, parse_constant=reject_constant)


def scratch(name):
    d = os.path.join(WORK, name)
    os.makedirs(d, exist_ok=True)
    return d


class SchemaStored(unittest.TestCase):
    """The schema accepts the real H200 report and the valid stored reports, rejects the others."""

    def test_valid_reports_validate(self):
        v = validator()
        for name in [H200, H200_CURRENT] + [report(n) for n in VALID]:
            with self.subTest(report=os.path.basename(name)):
                errors = sorted(v.iter_errors(load_strict(name)), key=lambda e: list(e.path))
                self.assertEqual([], [f"{list(e.path)}: {e.message}" for e in errors])

    def test_invalid_reports_are_rejected_at_the_key(self):
        v = validator()
        cases = {"missing-key.json": (["experiments", 0, "gpu_time_s"], "'p50' is a required property"),
                 "wrong-type.json": (["experiments", 0, "sampling", "steps_per_sample"], "is not of type 'integer'"),
                 "wrong-schema.json": (["schema"], "'gauge.report' was expected"),
                 "newer-major.json": (["schema_version"], "does not match")}
        for name, (path, message) in cases.items():
            with self.subTest(report=name):
                errors = list(v.iter_errors(load_strict(report(name))))
                self.assertEqual(1, len(errors), [e.message for e in errors])
                self.assertEqual(path, list(errors[0].path))
                self.assertIn(message, errors[0].message)

    def test_broken_json_does_not_parse(self):
        for name in ["malformed.json", "truncated.json", "nan.json", "empty.json"]:
            with self.subTest(report=name):
                with self.assertRaises(ValueError):
                    load_strict(report(name))


class SchemaWritten(unittest.TestCase):
    """Every report gauge's writer produces (fake and host backends, and full.json with every feature of
    the format) validates, and reads back."""

    def test_written_reports_validate_and_read_back(self):
        self.assertTrue(WRITE_REPORTS, "GAUGE_WRITE_REPORTS is not set")
        out = scratch("written")
        p = run(WRITE_REPORTS, out)
        self.assertEqual(0, p.returncode, p.stderr)
        v = validator()
        names = sorted(n for n in os.listdir(out) if n.endswith(".json"))
        self.assertEqual(["fake-gpu.json", "full.json", "host.json"], names)
        for name in names:
            with self.subTest(report=name):
                doc = load_strict(os.path.join(out, name))
                errors = [f"{list(e.path)}: {e.message}" for e in v.iter_errors(doc)]
                self.assertEqual([], errors)
                q = run(COMPARE, os.path.join(out, name), os.path.join(out, name), "--format", "json")
                self.assertEqual(0, q.returncode, q.stderr)
        doc = load_strict(os.path.join(out, "fake-gpu.json"))
        self.assertEqual(["gemm", "tiny", "cold", "graph", "broken", "never-ran", "one-sample"],
                         [e["name"] for e in doc["experiments"]])
        self.assertEqual("failed", doc["experiments"][4]["status"])
        self.assertGreater(doc["experiments"][1]["sampling"]["steps_per_sample"], 1)
        # Every feature (values from tests/full_report.hpp), each validated above.
        full = load_strict(os.path.join(out, "full.json"))
        self.assertEqual("1.9.0", full["schema_version"])
        gemm, broken = full["experiments"]
        self.assertEqual(0.015, gemm["config"]["telemetry_interval_s"])
        self.assertEqual(2 ** 40, gemm["config"]["memory_growth_tolerance_bytes"])
        self.assertEqual(0.8, gemm["config"]["sm_clock_warning_fraction"])
        self.assertEqual([0.3, 0.315], gemm["telemetry"]["series"]["t_s"])
        self.assertEqual([1500.0, None], gemm["telemetry"]["series"]["sm_clock_mhz"])
        self.assertEqual(-(2 ** 20), gemm["memory"]["device_growth_bytes"])
        self.assertEqual(["gauge::gate_kernel", "my_kernel"], [k["name"] for k in gemm["kernels"]])
        self.assertEqual(("GPU time", "CUDA events"), (gemm["time_label"], gemm["time_clock"]))
        self.assertEqual(("failed", "real time", "host steady clock"), (broken["status"], broken["time_label"], broken["time_clock"]))
        self.assertEqual(2 ** 63 + 1, full["environment"]["cuda"]["devices"][0]["nvml"]["clock_event_reasons"])
        self.assertEqual(["forward", "attention"], [r["name"] for r in full["timers"][0]["regions"]])
        self.assertEqual("forward", full["timers"][0]["regions"][1]["parent"])


def load_plot():
    """tools/gauge-plot as a module."""
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader("gauge_plot", PLOT)
    spec = importlib.util.spec_from_loader("gauge_plot", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def schema_path(schema, start, path):
    """The schema of `path` ("a.b[].c") below the object schema `start`, or None if a key is not described."""
    node = start
    for part in path.split("."):
        items = part.endswith("[]")
        node = resolve(schema, node).get("properties", {}).get(part[:-2] if items else part)
        if node is None:
            return None
        if items:
            node = resolve(schema, node).get("items")
    return node


def resolve(schema, node):
    """`node` with $ref resolved, and of a oneOf/anyOf the alternative that is not null."""
    while True:
        if "$ref" in node:
            target = schema
            for part in node["$ref"].lstrip("#/").split("/"):
                target = target[part]
            node = target
            continue
        alternatives = node.get("oneOf") or node.get("anyOf")
        if alternatives:
            node = next(n for n in alternatives if n.get("type") != "null")
            continue
        return node


class PlotKeys(unittest.TestCase):
    """gauge-plot reads only keys that the schema describes, all listed in one place."""

    def test_every_path_gauge_plot_reads_is_in_the_schema(self):
        plot = load_plot()
        with open(SCHEMA) as f:
            schema = json.load(f)
        experiment = schema_path(schema, schema, "experiments[]")
        self.assertIsNotNone(experiment)
        missing = [p for p in sorted(plot.REPORT_PATHS) if schema_path(schema, schema, p) is None]
        missing += ["experiments[]." + p for p in sorted(plot.EXPERIMENT_PATHS) if schema_path(schema, experiment, p) is None]
        self.assertEqual([], missing)
        self.assertIn("time_label", plot.EXPERIMENT_PATHS)
        # The check has teeth, and gauge-plot reads nothing outside its lists.
        self.assertIsNone(schema_path(schema, experiment, "telemetry.series.sm_clock"))
        with self.assertRaises(KeyError):
            plot.at({}, "telemetry.series.sm_clock")

    def test_time_label_is_the_report_s_or_derived_from_the_backend(self):
        plot = load_plot()
        self.assertEqual("CPU time", plot.time_label({"time_label": "CPU time", "backend": "host"}))
        self.assertEqual("real time", plot.time_label({"backend": "host"}))  # schema 1.0 / 1.1
        self.assertEqual("GPU time", plot.time_label({"backend": "cuda"}))
        self.assertEqual(1.5, plot.at({"warmup": {"curve": [{"start_s": 1.5}]}}["warmup"]["curve"][0], "warmup.curve[].start_s"))


    def test_a_long_point_label_wraps_after_a_slash_instead_of_running_off_the_figure(self):
        plot = load_plot()
        # The GEMM example's label (171 characters) ran off the timeline's left edge.
        label = ("gemm/K=8192/M=8192/N=8192/alignment_bytes=256/compute=fp32 accumulate (CUBLAS_COMPUTE_32F)/"
                 "dtype=bf16/epilogue=none (alpha=1, beta=0)/layout=column-major/library=cuBLAS 130100/transa=n/transb=n")
        title = plot.wrapped_title(label, " on NVIDIA H200")
        lines = title.split("\n")
        self.assertEqual(label + " on NVIDIA H200", "".join(lines))  # nothing lost, broken only after '/'
        self.assertTrue(all(line.endswith("/") for line in lines[:-1]))
        self.assertTrue(all(len(line) <= 80 for line in lines[:-1]), lines)
        self.assertGreaterEqual(len(lines), 3)
        self.assertEqual("k/x=1 on d", plot.wrapped_title("k/x=1", " on d"))  # short: one line
        self.assertEqual(240, len(plot.wrapped_title("x" * 1000).replace("\n", "")))  # a hostile label is cut


class CompareCli(unittest.TestCase):
    """gauge-compare: verdicts, formats, exit codes and one-line errors."""

    def compare(self, *args):
        return run(COMPARE, *args)

    def test_same_and_slower(self):
        p = self.compare(report("base.json"), report("same.json"), "--fail-on-regression")
        self.assertEqual(0, p.returncode, p.stderr)
        self.assertRegex(p.stdout, r"\ngemm .* same\n")
        p = self.compare(report("base.json"), report("slower.json"))
        self.assertEqual(0, p.returncode)
        self.assertRegex(p.stdout, r"\ngemm .* slower\n")
        p = self.compare(report("base.json"), report("slower.json"), "--fail-on-regression")
        self.assertEqual(1, p.returncode)
        self.assertEqual("gauge-compare: regression: gemm (slower)\n", p.stderr)
        p = self.compare(report("base.json"), report("slower.json"), "--fail-on-regression", "--threshold", "10%")
        self.assertEqual(0, p.returncode, p.stdout)
        self.assertRegex(p.stdout, r"\ngemm .* same\n")

    def test_json_numbers_match_numpy_and_scipy(self):
        p = self.compare(report("base.json"), report("slower.json"), "--format", "json")
        self.assertEqual(0, p.returncode, p.stderr)
        doc = json.loads(p.stdout)
        e = doc["experiments"][0]
        a, b = gpu_samples(report("base.json")), gpu_samples(report("slower.json"))
        self.assertAlmostEqual(float(np.median(b) / np.median(a)), e["ratio"]["estimate"], places=12)
        self.assertAlmostEqual(float(np.median(a)), e["base_median_s"], places=15)
        self.assertEqual("slower", e["verdict"])
        self.assertTrue(doc["any_regression"])
        self.assertEqual(0.02, doc["options"]["threshold"])
        try:
            from scipy.stats import mannwhitneyu
        except ImportError:
            return
        r = mannwhitneyu(a, b, alternative="two-sided", method="asymptotic")
        self.assertEqual(float(r.statistic), e["mann_whitney"]["u"])
        self.assertAlmostEqual(1.0, e["mann_whitney"]["p_value"] / float(r.pvalue), places=8)

    def test_bf16_against_fp32_with_an_ignored_dimension(self):
        p = self.compare(report("fp32.json"), report("base.json"))
        self.assertEqual(0, p.returncode)
        self.assertIn("--ignore-dimension dtype compares them", p.stdout)
        p = self.compare(report("fp32.json"), report("base.json"), "--ignore-dimension", "dtype", "--format", "markdown")
        self.assertEqual(0, p.returncode, p.stderr)
        self.assertRegex(p.stdout, r"\| gemm \| 21\.\d+ ms \| 1\.6 ms \| 0\.07\d\d \[0\.07\d\d, 0\.07\d\d\] \| -92\.\d\d % \| .* \| \*\*faster\*\* \|")
        self.assertIn("ignored dimension dtype: fp32 → bf16", p.stdout)

    def test_not_comparable_environment_is_shown(self):
        p = self.compare(report("base.json"), report("different-gpu.json"))
        self.assertIn("NOT COMPARABLE", p.stdout)
        self.assertIn("GPU 0 model: NVIDIA H200 → NVIDIA A100-SXM4-80GB", p.stdout)

    def test_bad_input_exits_2_with_one_line(self):
        cases = {
            "missing.json": "no such file",
            "malformed.json": "invalid JSON at line 3, column 15",
            "truncated.json": "unexpected end of input",
            "nan.json": "invalid literal",
            "empty.json": "the file is empty",
            "newer-major.json": "schema_version \"2.0.0\" is newer than this gauge",
            "wrong-schema.json": "not a gauge report",
            "missing-key.json": "experiments[0].gpu_time_s: missing required key \"p50\"",
            "wrong-type.json": "experiments[0].sampling.steps_per_sample: expected an integer, got a string",
        }
        for name, message in cases.items():
            with self.subTest(report=name):
                for order in [(report("base.json"), report(name)), (report(name), report("base.json"))]:
                    p = self.compare(*order)
                    self.assertEqual(2, p.returncode)
                    self.assertEqual("", p.stdout)
                    self.assertEqual(1, p.stderr.count("\n"), p.stderr)
                    self.assertTrue(p.stderr.startswith("gauge-compare: error: "), p.stderr)
                    self.assertIn(message, p.stderr)
        usage = {("--threshold", "2"): "ambiguous", ("--threshold", "x%"): "percentage", ("--format", "html"): "--format",
                 ("--frobnicate",): "unknown option", ("--resamples", "10"): "--resamples", ("--metric", "energy"): "--metric"}
        for extra, message in usage.items():
            with self.subTest(args=extra):
                p = self.compare(report("base.json"), report("same.json"), *extra)
                assert_usage_error(self, p, "gauge-compare", extra[-1])
                self.assertIn(message, p.stderr)
        p = self.compare(report("base.json"))
        assert_usage_error(self, p, "gauge-compare", "1 report(s) given")


class CompareGate(unittest.TestCase):
    """gauge-compare --fail-on-regression: not comparable and inconclusive fail the gate unless allowed."""

    def variant(self, name, change):
        with open(report("base.json")) as f:
            doc = json.load(f)
        change(doc)
        path = os.path.join(scratch("gate"), name)
        with open(path, "w") as f:
            json.dump(doc, f)
        return path

    def test_another_gpu_fails_the_gate_with_exit_3(self):
        def rename(doc):
            doc["environment"]["cuda"]["devices"][0]["name"] = "NVIDIA H100"
            doc["experiments"][0]["device"]["name"] = "NVIDIA H100"
        renamed = self.variant("renamed.json", rename)
        p = run(COMPARE, report("base.json"), renamed, "--fail-on-regression")
        self.assertIn("NOT COMPARABLE", p.stdout)
        self.assertRegex(p.stdout, r"\ngemm .* same\n")  # the same samples
        self.assertEqual(3, p.returncode, p.stderr)
        self.assertIn("not comparable", p.stderr)
        p = run(COMPARE, report("base.json"), renamed, "--fail-on-regression", "--allow-not-comparable")
        self.assertEqual(0, p.returncode, p.stderr)
        p = run(COMPARE, report("base.json"), renamed)  # not a gate: exit 0
        self.assertEqual(0, p.returncode, p.stderr)

    def test_no_samples_is_compared_from_the_summary_or_fails_the_gate(self):
        def drop(doc):
            doc["experiments"][0]["samples"] = {"gpu_time_per_step_s": [], "wall_time_per_step_s": []}
        empty = self.variant("no-samples.json", drop)
        p = run(COMPARE, report("base.json"), empty, "--fail-on-regression", "--format", "json")
        e = json.loads(p.stdout)["experiments"][0]
        self.assertTrue(e["from_summary"], p.stdout)
        self.assertEqual("same", e["verdict"])  # the same summary: median interval [lo/hi, hi/lo]
        ci = json.load(open(report("base.json")))["experiments"][0]["gpu_time_s"]["median_ci"]
        self.assertAlmostEqual(ci["low"] / ci["high"], e["ratio"]["low"], places=12)
        self.assertEqual(0, p.returncode, p.stderr)

        def nulls(doc):
            n = len(doc["experiments"][0]["samples"]["gpu_time_per_step_s"])
            doc["experiments"][0]["samples"]["gpu_time_per_step_s"] = [None] * n
            doc["experiments"][0]["gpu_time_s"]["median_ci"] = None
        all_null = self.variant("null-samples.json", nulls)
        p = run(COMPARE, report("base.json"), all_null, "--fail-on-regression")
        self.assertEqual(4, p.returncode, p.stdout)
        self.assertIn("inconclusive: gemm", p.stderr)
        p = run(COMPARE, report("base.json"), all_null, "--fail-on-regression", "--allow-inconclusive")
        self.assertEqual(0, p.returncode, p.stderr)

    def test_a_slow_minority_fails_the_gate(self):
        def slow_tail(doc):
            s = doc["experiments"][0]["samples"]["gpu_time_per_step_s"]
            for i in range(0, len(s), 5):  # every fifth step 3x slower: median unchanged
                s[i] *= 3
        slow = self.variant("slow-tail.json", slow_tail)
        p = run(COMPARE, report("base.json"), slow, "--fail-on-regression", "--format", "json")
        e = json.loads(p.stdout)["experiments"][0]
        a, b = gpu_samples(report("base.json")), gpu_samples(slow)
        self.assertAlmostEqual(float(np.mean(b) / np.mean(a)),
                               [s for s in e["statistics"] if s["statistic"] == "mean"][0]["estimate"], places=12)
        self.assertEqual("slower", e["verdict"], e["reason"])
        self.assertEqual(1, p.returncode)


class ExportCli(unittest.TestCase):
    """gauge-export: Google Benchmark's compare.py reads its JSON; CSV parses; Markdown renders."""

    def export(self, name, *args):
        p = run(EXPORT, report(name), *args)
        self.assertEqual(0, p.returncode, p.stderr)
        return p.stdout

    def test_gauge_plot_spells_a_point_as_the_cpp_tools_do(self):
        # Two methods: gauge-export's `line` format (C++: gauge::to_string, std::to_chars) and
        # gauge-plot's experiment_text (Python) label the same reals alike.
        with open(report("base.json")) as f:
            doc = json.load(f)
        values = [1e5, 2e6, 1e15, -0.0, 0.5, 1e-07, 123456789.0, 1.0, 0.001, 0.1 + 0.2, 1234.5678, 3e-05, 7, True]
        base = doc["experiments"][0]
        doc["experiments"] = []
        for i, v in enumerate(values):
            e = json.loads(json.dumps(base))
            e["name"] = f"p{i}"
            e["dimensions"] = {"v": v}
            doc["experiments"].append(e)
        path = os.path.join(scratch("labels"), "labels.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        p = run(EXPORT, path, "--format", "line")
        self.assertEqual(0, p.returncode, p.stderr)
        cpp = [line.split(":")[0] for line in p.stdout.splitlines()]
        plot = load_plot()
        self.assertEqual(cpp, [plot.experiment_text(e) for e in doc["experiments"]])
        self.assertIn("p0/v=1e+05", cpp)  # as std::to_chars writes it

    def test_compare_py_reads_the_google_benchmark_export(self):
        self.assertTrue(os.path.exists(COMPARE_PY),
                        f"{COMPARE_PY} not found: install libbenchmark-tools (scripts/install-deps.sh does)")
        out = scratch("gbench")
        for name in ["base.json", "slower.json"]:
            with open(os.path.join(out, name), "w") as f:
                f.write(self.export(name, "--format", "gbench"))
        p = run(sys.executable, COMPARE_PY, "--no-color", "benchmarks", os.path.join(out, "base.json"),
                os.path.join(out, "slower.json"))
        self.assertEqual(0, p.returncode, p.stderr)
        a, b = gpu_samples(report("base.json")), gpu_samples(report("slower.json"))
        change = float(np.median(b) / np.median(a) - 1)  # compare.py's "Time" column for the _median line
        median_lines = [l for l in p.stdout.splitlines() if "_median " in l]
        self.assertEqual(1, len(median_lines), p.stdout)
        fields = median_lines[0].split()
        self.assertAlmostEqual(change, float(fields[-6]), places=4)
        self.assertAlmostEqual(float(np.median(a)) * 1e9, float(fields[-4]), delta=1)
        self.assertTrue(any("_pvalue" in l and "U Test, Repetitions: 60 vs 60" in l for l in p.stdout.splitlines()), p.stdout)

    def test_compare_py_reads_skipped_points_as_google_benchmark_writes_them(self):
        # A point the suite skipped is an entry with "skipped": true and "skip_message", zero
        # iterations and times, as Google Benchmark 1.8+ writes a SkipWithMessage (it was left out
        # and named in context.gauge_skipped, a key no reader of this format knows).
        out = scratch("gbench-skipped")
        with open(report("base.json")) as f:
            doc = json.load(f)
        doc["schema_version"] = "1.3.0"
        doc["skipped"] = [{"name": "gemm", "dimensions": {"M": 65536, "dtype": "fp64"}, "reason": "does not fit"}]
        validator().validate(doc)
        path = os.path.join(out, "skipped.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        p = run(EXPORT, path, "--format", "gbench")
        self.assertEqual(0, p.returncode, p.stderr)
        gb = json.loads(p.stdout)
        self.assertNotIn("gauge_skipped", gb["context"])
        # family 0 (gemm), instance 1: the second point of the gemm family after the measured 8192^3
        self.assertEqual({"name": "gemm/M:65536/dtype:fp64", "family_index": 0, "per_family_instance_index": 1,
                          "run_name": "gemm/M:65536/dtype:fp64", "run_type": "iteration", "repetitions": 1,
                          "repetition_index": 0, "threads": 1, "skipped": True, "skip_message": "does not fit",
                          "iterations": 0, "real_time": 0.0, "cpu_time": 0.0, "time_unit": "ns"}, gb["benchmarks"][-1])
        with open(os.path.join(out, "gbench.json"), "w") as f:
            f.write(p.stdout)
        if os.path.exists(COMPARE_PY):  # compare.py reads it, both sides skipped: no change
            p = run(sys.executable, COMPARE_PY, "--no-color", "benchmarks", os.path.join(out, "gbench.json"),
                    os.path.join(out, "gbench.json"))
            self.assertEqual(0, p.returncode, p.stderr)
            [line] = [l for l in p.stdout.splitlines() if l.startswith("gemm/M:65536/dtype:fp64 ")]
            self.assertEqual(["+0.0000", "+0.0000", "0", "0", "0", "0"], line.split()[1:])

    def test_csv_repetition_column_tells_a_points_repetitions_apart(self):
        # The suite runner's --repetitions 2: two results of one name and dimensions. Each CSV row
        # says its repetition (0-based, the report's "repetition"); a result that ran once, none.
        out = scratch("csv-repetition")
        with open(report("multi-base.json")) as f:
            doc = json.load(f)
        doc["schema_version"] = "1.5.0"
        copy, gemm = doc["experiments"][2], doc["experiments"][0]
        doc["experiments"] = [dict(copy, repetition=0), dict(copy, repetition=1), gemm]
        path = os.path.join(out, "repeated.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        p = run(EXPORT, path, "--format", "csv")
        self.assertEqual(0, p.returncode, p.stderr)
        rows = list(csv.DictReader(io.StringIO(p.stdout)))
        self.assertEqual(["0", "1", ""], [r["repetition"] for r in rows])
        header = p.stdout.splitlines()[0].split(",")
        self.assertEqual("repetition", header[header.index("status") - 1])  # after the dim.* columns
        # Apart from it, the two rows of the point are the same.
        self.assertEqual({k: v for k, v in rows[0].items() if k != "repetition"},
                         {k: v for k, v in rows[1].items() if k != "repetition"})

    def test_every_csv_column_is_documented(self):
        # docs/comparing.md explains each column in a table (`time_n` counts samples, `wall_n`
        # rounds, ...): every column the export writes is there, the families by their pattern.
        with open(os.path.join(SOURCE, "docs", "comparing.md")) as f:
            docs = f.read()
        table = docs[docs.index("| column | what it holds |"):]
        table = table[:table.index("\n\n")]
        documented = set(re.findall(r"`([a-z0-9_.<>*]+)`", table))
        header = self.export("multi-base.json", "--format", "csv").splitlines()[0].split(",")
        self.assertIn("repetition", header)
        for column in header:
            with self.subTest(column=column):
                family = ("dim.<key>" if column.startswith("dim.") else
                          "wall_pct_of_peak_*" if column.startswith("wall_pct_of_peak_") else
                          "pct_of_peak_<quantity>_<basis>" if column.startswith("pct_of_peak_") else column)
                self.assertIn(family, documented)

    def test_csv_parses_with_the_numbers_of_the_report(self):
        rows = list(csv.DictReader(io.StringIO(self.export("multi-base.json", "--format", "csv"))))
        self.assertEqual(["gemm", "gemm", "copy"], [r["name"] for r in rows])
        self.assertEqual("none (alpha=1, beta=0)", rows[0]["dim.epilogue"])
        self.assertEqual("", rows[2]["dim.M"])
        for i, r in enumerate(rows):
            self.assertEqual(float(np.median(gpu_samples(report("multi-base.json"), i))), float(r["time_median_s"]))
            self.assertEqual("30", r["time_n"])

    def test_bencher_metric_format_has_the_median_its_interval_and_the_rates(self):
        doc = json.loads(self.export("base.json", "--format", "bencher"))
        with open(report("base.json")) as f:
            e = json.load(f)["experiments"][0]
        self.assertEqual(1, len(doc))
        (name, measures), = doc.items()
        self.assertTrue(name.startswith("gemm/K:8192/M:8192/N:8192/"), name)
        samples = np.sort(gpu_samples(report("base.json")))
        median = float(np.median(samples))
        # The distribution-free interval: the order statistics at the stored ranks (1-based).
        ci = e["gpu_time_s"]["median_ci"]
        low, high = samples[ci["lower_rank"] - 1], samples[ci["upper_rank"] - 1]
        self.assertAlmostEqual(median * 1e9, measures["latency"]["value"], delta=1e-6)
        self.assertAlmostEqual(low * 1e9, measures["latency"]["lower_value"], delta=1e-6)
        self.assertAlmostEqual(high * 1e9, measures["latency"]["upper_value"], delta=1e-6)
        flop = e["work"]["flop_per_step"]
        self.assertAlmostEqual(flop / median / 1e12, measures["flop-per-second"]["value"] / 1e12, places=9)
        self.assertAlmostEqual(flop / high / 1e12, measures["flop-per-second"]["lower_value"] / 1e12, places=9)
        self.assertAlmostEqual(flop / low / 1e12, measures["flop-per-second"]["upper_value"] / 1e12, places=9)
        self.assertEqual({"latency", "flop-per-second", "bytes-per-second"}, set(measures))
        # A failed experiment is left out: nothing to export.
        self.assertEqual({}, json.loads(self.export("failed.json", "--format", "bencher")))

    def test_github_benchmark_has_the_median_and_the_intervals_half_width(self):
        doc = json.loads(self.export("base.json", "--format", "github_benchmark", "--time-unit", "us"))
        with open(report("base.json")) as f:
            e = json.load(f)["experiments"][0]
        self.assertEqual(1, len(doc))
        entry = doc[0]
        self.assertTrue(entry["name"].startswith("gemm/K:8192/M:8192/N:8192/"), entry["name"])
        self.assertEqual("us", entry["unit"])
        samples = np.sort(gpu_samples(report("base.json")))
        median = float(np.median(samples))
        ci = e["gpu_time_s"]["median_ci"]
        low, high = samples[ci["lower_rank"] - 1], samples[ci["upper_rank"] - 1]
        self.assertAlmostEqual(median * 1e6, entry["value"], delta=1e-9)
        half = max(median - low, high - median) * 1e6
        self.assertTrue(entry["range"].startswith("\u00b1 "), entry["range"])
        self.assertAlmostEqual(half, float(entry["range"][2:]), delta=half * 1e-5)
        self.assertIn("n = %d, GPU time" % len(samples), entry["extra"])
        # A failed experiment is left out: an empty array.
        self.assertEqual([], json.loads(self.export("failed.json", "--format", "github_benchmark")))

    def test_json_writes_the_document_as_read(self):
        # An older report (schema 1.0) comes back as it was: the same keys and values, its own
        # schema version, nothing defaulted (helper-1: an upgrade invented settings the run never
        # recorded); a newer minor version's unknown keys are kept, not dropped.
        with open(report("base.json")) as f:
            old = json.load(f)
        doc = json.loads(self.export("base.json", "--format", "json"), parse_constant=reject_constant)
        self.assertEqual(old, doc)
        newer = dict(old, schema_version="1.99.0", from_the_future={"x": 1})
        newer["experiments"] = [dict(old["experiments"][0], future_key=[1, 2])]
        path = os.path.join(scratch("newer-minor"), "newer.json")
        with open(path, "w") as f:
            json.dump(newer, f)
        p = run(EXPORT, path, "--format", "json")
        self.assertEqual(0, p.returncode, p.stderr)
        self.assertEqual(newer, json.loads(p.stdout))

    def test_a_report_without_experiments_is_refused_not_exported_empty(self):
        with open(report("base.json")) as f:
            doc = json.load(f)
        doc["experiments"], doc["interleaved"] = [], []
        path = os.path.join(scratch("no-experiments"), "timer-only.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        for fmt in ["gbench", "csv", "markdown", "console", "bencher", "github_benchmark"]:
            p = run(EXPORT, path, "--format", fmt)
            self.assertEqual(2, p.returncode, (fmt, p.stdout, p.stderr))
            self.assertEqual("", p.stdout)
            self.assertIn("the report holds no experiments: nothing to export in --format " + fmt, p.stderr)
        # json writes the document whatever it holds.
        p = run(EXPORT, path, "--format", "json")
        self.assertEqual(0, p.returncode, p.stderr)
        self.assertEqual(doc, json.loads(p.stdout))
        # A Timer-only report (gauge's writer: full.json's Timer, its experiments removed): the
        # formats with Timer rows write them; the per-experiment ones refuse.
        out = scratch("timer-only")
        self.assertEqual(0, run(WRITE_REPORTS, out).returncode)
        with open(os.path.join(out, "full.json")) as f:
            full = json.load(f)
        self.assertTrue(full["timers"])
        full["experiments"], full["interleaved"] = [], []
        if full.get("ranks"):
            full["ranks"]["experiments"] = []
        timer_only = os.path.join(out, "timer-only.json")
        with open(timer_only, "w") as f:
            json.dump(full, f)
        name = full["timers"][0]["name"]
        for fmt in ["csv", "markdown", "console"]:
            p = run(EXPORT, timer_only, "--format", fmt)
            self.assertEqual(0, p.returncode, (fmt, p.stderr))
            self.assertIn(name, p.stdout)
        for fmt in ["gbench", "bencher", "github_benchmark"]:
            p = run(EXPORT, timer_only, "--format", fmt)
            self.assertEqual(2, p.returncode, (fmt, p.stdout))
            self.assertIn("(only 1 Timer summary)", p.stderr)

    def test_markdown_and_errors(self):
        md = self.export("base.json", "--format", "markdown")
        self.assertTrue(md.startswith("| experiment | status | median |"), md)
        p = run(EXPORT, report("truncated.json"))
        self.assertEqual(2, p.returncode)
        self.assertIn("unexpected end of input", p.stderr)
        self.assertEqual(1, p.stderr.count("\n"))


class CompareFlags(FlagConventions, unittest.TestCase):
    """gauge-compare's command line: --help, --version, --opt=value, usage errors."""

    NAME = "gauge-compare"
    PROGRAM, PROGRAM_VARIABLE = COMPARE, "GAUGE_COMPARE"
    OPTIONS = [("--threshold", "2%", "Noise threshold"), ("--confidence", "95%", "Confidence level"),
               ("--fail-on-regression", None, "exit 1 when an experiment is slower"), ("--format", "text", "Markdown table"),
               ("--metric", "gpu", "wall time"), ("--ignore-dimension", None, "repeatable"),
               ("--resamples", "2000", "Bootstrap resamples"), ("--seed", "20261130", "Seed")]
    B, S = report("base.json"), report("same.json")
    USAGE_ERRORS = [
        ([B, S, "--frobnicate"], "unknown option '--frobnicate'"),
        ([B, S, "--threshold=x%"], "--threshold: must be a percentage such as 2% or a fraction such as 0.02, got 'x%'"),
        ([B, S, "--threshold", "2"], "--threshold: '2' is ambiguous"),
        ([B, S, "--confidence=150%"], "'150%'"),
        ([B, S, "--format", "html"], "--format: 'html' not in {text,markdown,json}"),
        ([B, S, "--format=html"], "--format: 'html' not in {text,markdown,json}"),
        ([B, S, "--metric", "energy"], "--metric: 'energy' not in {time,gpu,wall,cpu}"),
        ([B, S, "--resamples", "10"], "--resamples: '10' is not an integer in [100, 10000000]"),
        ([B, S, "--resamples=0x200"], "'0x200'"),
        ([B, S, "--seed", "-1"], "--seed: '-1'"),
        ([B, S, "--threshold"], "--threshold"),  # a value is missing
        ([B], "1 report(s) given: compare BASE NEW"),
        ([B, S, "c.json"], "3 report(s) given: compare BASE NEW"),
        # One report twice on a side would be two "runs" that agree exactly.
        ([B, B, "--", S], "report '" + B + "' is given twice on the base side"),
        ([B, "--", S, os.path.join(os.path.dirname(S), ".", os.path.basename(S))], "is given twice on the new side"),
        ([B, S, "--run-spread", "0"], "--run-spread: must be above 0 and below 100 % (0 and 1 excluded), got '0'"),
    ]


    def test_option_equals_value_is_option_space_value(self):
        slower = report("slower.json")
        for option, value in [("--threshold", "10%"), ("--confidence", "0.9"), ("--format", "markdown"),
                              ("--metric", "wall"), ("--resamples", "500"), ("--seed", "7")]:
            with self.subTest(option=option):
                spaced = run(COMPARE, self.B, slower, option, value)
                joined = run(COMPARE, self.B, slower, f"{option}={value}")
                self.assertEqual(0, spaced.returncode, spaced.stderr)
                self.assertEqual(0, joined.returncode, joined.stderr)
                self.assertEqual(spaced.stdout, joined.stdout)
        p = run(COMPARE, self.B, slower, "--threshold=10%", "--confidence=90%", "--resamples=500", "--seed=7",
                "--metric=wall_time", "--format=json")
        self.assertEqual(0, p.returncode, p.stderr)
        options = json.loads(p.stdout)["options"]
        self.assertEqual({"threshold": 0.1, "confidence_level": 0.9, "resamples": 500, "seed": 7, "metric": "wall_time"},
                         {k: options[k] for k in ["threshold", "confidence_level", "resamples", "seed", "metric"]})
        p = run(COMPARE, self.B, slower, "--fail-on-regression", "--threshold=10%")
        self.assertEqual(0, p.returncode, p.stdout)
        self.assertRegex(p.stdout, r"\ngemm .* same\n")
        p = run(COMPARE, report("fp32.json"), self.B, "--ignore-dimension=dtype", "--format=markdown")
        self.assertEqual(0, p.returncode, p.stderr)
        self.assertIn("ignored dimension dtype: fp32 → bf16", p.stdout)


class ExportFlags(FlagConventions, unittest.TestCase):
    """gauge-export's command line: --help, --version, --opt=value, usage errors."""

    NAME = "gauge-export"
    PROGRAM, PROGRAM_VARIABLE = EXPORT, "GAUGE_EXPORT"
    OPTIONS = [("--format", "gbench", "Google Benchmark JSON"), ("--metric", "gpu", "wall time"),
               ("--time-unit", "ns", "time unit"), ("--no-repetitions", None, "one entry per experiment")]
    B = report("base.json")
    USAGE_ERRORS = [
        ([B, "--format", "xml"], "--format: 'xml' not in {gbench,csv,markdown,console,bencher,github_benchmark,json,sweep,sweep_markdown,line,interleaved,interleaved_markdown}"),
        ([B, "--format=xml"], "--format: 'xml' not in {gbench,csv,markdown,console,bencher,github_benchmark,json,sweep,sweep_markdown,line,interleaved,interleaved_markdown}"),
        ([B, "--time-unit", "min"], "--time-unit: 'min' not in {ns,us,ms,s}"),
        ([B, "--metric=cpu"], "--metric: 'cpu' not in {time,gpu,wall}"),
        ([B, "--frobnicate"], "unknown option '--frobnicate'"),
        ([B, "--format"], "--format"),  # a value is missing
        ([], "REPORT is required"),
        ([B, report("same.json")], "unexpected argument '" + report("same.json") + "'"),
    ]


    def test_the_error_line_of_a_value_outside_the_set(self):
        p = run(EXPORT, self.B, "--format=xml")
        self.assertEqual("gauge-export: error: --format: 'xml' not in {gbench,csv,markdown,console,bencher,github_benchmark,json,sweep,sweep_markdown,line,interleaved,interleaved_markdown} (see --help)", p.stderr.splitlines()[0])

    def test_option_equals_value_is_option_space_value(self):
        for args in [("--format", "csv"), ("--format", "markdown"), ("--time-unit", "us"), ("--metric", "wall")]:
            with self.subTest(args=args):
                spaced = run(EXPORT, self.B, *args)
                joined = run(EXPORT, self.B, "=".join(args))
                self.assertEqual(0, spaced.returncode, spaced.stderr)
                self.assertEqual(0, joined.returncode, joined.stderr)
                self.assertEqual(spaced.stdout, joined.stdout)
        rows = list(csv.DictReader(io.StringIO(run(EXPORT, self.B, "--format=csv").stdout)))
        self.assertEqual(float(np.median(gpu_samples(self.B))), float(rows[0]["time_median_s"]))
        p = run(EXPORT, self.B, "--format=gbench", "--time-unit=us", "--metric=wall", "--no-repetitions")
        self.assertEqual(0, p.returncode, p.stderr)
        benchmarks = json.loads(p.stdout)["benchmarks"]
        self.assertEqual(1, len(benchmarks))
        self.assertEqual("us", benchmarks[0]["time_unit"])
        self.assertIn("wall time", json.loads(p.stdout)["context"]["time_source"])


class GemmFlags(FlagConventions, unittest.TestCase):
    """examples/gemm's command line (where nvcc built it; skipped otherwise)."""

    NAME = "gemm"
    PROGRAM, PROGRAM_VARIABLE = GEMM, "GAUGE_GEMM"
    OPTIONS = [("--m", "8192", "Rows"), ("--n", "8192", "Columns"), ("--k", "8192", "op(A)"), ("--dtype", "bf16", "fp32"),
               ("--transa", "n", "transposed"), ("--transb", "n", "transposed"), ("--out", "gemm-report.json", "report"),
               ("--host", None, "host backend"), ("--require-gpu", None, "77"), ("--min-time", None, "seconds"),
               ("--max-time", None, "seconds"), ("--extra-work", "0", "clock64()")]
    USAGE_ERRORS = [
        (["--dtype", "fp8"], "--dtype: fp8 not in {bf16,fp16,fp32}"),
        (["--dtype=fp8"], "--dtype: fp8 not in {bf16,fp16,fp32}"),
        (["--transa", "z9"], "--transa: z9 not in {n,t}"),
        (["--m=abc"], "--m: 'abc' is not an integer in [1, 1048576]"),
        (["-n", "2097152"], "--n: '2097152' is not an integer in [1, 1048576]"),
        (["--max-time", "5000"], "--max-time: '5000' is not seconds in [0, 3600]"),
        (["--extra-work", "3"], "--extra-work: '3' is ambiguous: write 3% for a percentage, or a fraction below 1"),
        (["--extra-work=-0.01"], "--extra-work: '-0.01' is not in [0, 1)"),
        (["--extra-work", "100%"], "--extra-work: '100%' is not in [0, 1)"),
        (["--extra-work", "3 %"], "--extra-work: '3 %' is not a fraction such as 0.03 or a percentage such as 3%"),
        (["--frobnicate"], "--frobnicate"),
        (["--out"], "--out"),  # a value is missing
        (["extra.json"], "extra.json"),
    ]

    def test_option_equals_value_is_option_space_value(self):
        out = os.path.join(scratch("gemm-flags"), "gemm.json")
        if os.path.exists(out):
            os.remove(out)
        p = run(GEMM, "--host", f"--out={out}", "--min-time=0", "--max-time=0.05")
        self.assertEqual(0, p.returncode, p.stdout + p.stderr)
        self.assertIn(f"report: {out}", p.stdout)
        doc = load_strict(out)
        self.assertEqual("gemm_host_cpu", doc["experiments"][0]["name"])

    def test_extra_work_applies_to_the_gpu_gemm_only(self):
        out = os.path.join(scratch("gemm-flags"), "gemm-extra.json")
        p = run(GEMM, "--host", "--extra-work", "3%", f"--out={out}", "--min-time=0", "--max-time=0.05")
        self.assertEqual(0, p.returncode, p.stdout + p.stderr)
        self.assertIn("--extra-work apply to the GPU GEMM", p.stdout)
        dims = load_strict(out)["experiments"][0]["dimensions"]
        self.assertNotIn("extra_work", dims)
        self.assertEqual({"M": 256, "N": 256, "K": 256, "dtype": "fp32", "transa": "n", "transb": "n",
                          "layout": "column-major", "device": "host CPU (no GPU found)"}, dims)


class HostSweep(unittest.TestCase):
    """examples/host_sweep (a CPU-only suite, where CLI11 was found; skipped otherwise): two points
    with --quick; the report passes the schema, each result has real and process CPU time per step
    (one CPU sample per measured round; a single-threaded sum uses no more CPU than real time,
    25 % allowed for a round's mean against a step's median), and gauge-plot sweep draws
    bytes / median real time at each point's bytes."""

    def test_two_points_with_cpu_time_and_their_sweep_plot(self):
        if not HOST_SWEEP:
            self.skipTest("examples/host_sweep was not built (no CLI11)")
        d = scratch("host-sweep")
        out = os.path.join(d, "r.json")
        p = run(HOST_SWEEP, "--quick", "--filter", "bytes=(4096|65536)$", "--out", out)
        self.assertEqual(0, p.returncode, p.stdout + p.stderr)
        self.assertIn("cpu/step", p.stdout)
        doc = load_strict(out)
        validator().validate(doc)
        es = doc["experiments"]
        self.assertEqual([4096, 65536], [e["dimensions"]["bytes"] for e in es])
        for e in es:
            with self.subTest(bytes=e["dimensions"]["bytes"]):
                self.assertEqual(("ok", "host", "real time"), (e["status"], e["backend"], e["time_label"]))
                cpu, real = e["cpu_time_s"], e["gpu_time_s"]
                self.assertEqual(cpu["p50"], cpu["median"])
                self.assertEqual(e["sampling"]["rounds"], cpu["n"])
                self.assertEqual(cpu["n"], len(e["samples"]["cpu_time_per_step_s"]))
                self.assertAlmostEqual(float(np.median(e["samples"]["cpu_time_per_step_s"])), cpu["p50"], delta=1e-15)
                # A single thread uses no more CPU time than real time: over the same steps, the mean
                # CPU time per step is at most the mean real time (10 % for the marker reads between
                # samples). Means, not the CPU median against the real median: an interrupt on a
                # loaded machine lengthens a round's CPU mean and not the steps' median (it failed
                # so, 5.6 against 4.5 us, in one fresh-clone run).
                cpu_mean = float(np.mean(e["samples"]["cpu_time_per_step_s"]))
                real_mean = real["mean"]
                self.assertTrue(0 < cpu["p50"] and cpu_mean <= 1.10 * real_mean, (cpu_mean, real_mean))
        png, data = os.path.join(d, "sweep.png"), os.path.join(d, "sweep.json")
        p = run(sys.executable, PLOT, "sweep", out, "--x", "bytes", "-o", png, "--data", data)
        self.assertEqual(0, p.returncode, p.stdout + p.stderr)
        with open(data) as f:
            [line] = json.load(f)["panels"][0]["lines"]
        self.assertEqual([4096, 65536], line["x"])
        np.testing.assert_allclose(line["y"], [e["dimensions"]["bytes"] / e["gpu_time_s"]["p50"] for e in es], rtol=1e-9)
        # gauge-plot compare --metric cpu draws the CPU samples (the report against itself).
        cdata = os.path.join(d, "cpu-compare.json")
        p = run(sys.executable, PLOT, "compare", out, out, "--metric", "cpu", "-o", os.path.join(d, "cpu.png"), "--data", cdata)
        self.assertEqual(0, p.returncode, p.stdout + p.stderr)
        with open(cdata) as f:
            panels = json.load(f)["panels"]
        for e, panel in zip(es, panels):
            m = float(np.median(e["samples"]["cpu_time_per_step_s"]))
            np.testing.assert_allclose(panel["medians"], [m, m], rtol=1e-12)
        # A GPU report has none: exit 2, saying why.
        p = run(sys.executable, PLOT, "compare", report("base.json"), report("base.json"), "--metric", "cpu",
                "-o", os.path.join(d, "none.png"))
        self.assertEqual(2, p.returncode, p.stdout + p.stderr)
        self.assertIn("has no process CPU time: it is recorded by host timing only", p.stderr)
        # A comparison of another metric lends its interval and verdict to no title.
        cmp_json = os.path.join(d, "cpu-comparison.json")
        with open(cmp_json, "w") as f:
            json.dump({"experiments": [{"name": es[0]["name"], "dimensions": es[0]["dimensions"], "metric": "cpu_time",
                                        "verdict": "slower", "ratio": {"estimate": 2.0, "low": 1.9, "high": 2.1, "level": 0.95}}]}, f)
        tdata = os.path.join(d, "time-compare.json")
        p = run(sys.executable, PLOT, "compare", out, out, "--comparison", cmp_json, "-o", os.path.join(d, "t.png"), "--data", tdata)
        self.assertEqual(0, p.returncode, p.stdout + p.stderr)
        self.assertIn("--comparison compared cpu_time, this plot draws gpu_time", p.stderr)
        with open(tdata) as f:
            title = json.load(f)["panels"][0]["title"]
        self.assertNotIn("slower", title)
        self.assertNotIn("1.9000", title)


class HostSweepFormats(unittest.TestCase):
    """The suite runner's --format reaches every registered export format (issue "Compiled once":
    one registry of renderers for every front end): examples/host_sweep with --format gbench and
    --format json, one point each, against the report file the same run wrote (--out)."""

    def test_gbench_and_json_on_stdout_agree_with_the_report_file(self):
        if not HOST_SWEEP:
            self.skipTest("examples/host_sweep was not built (no CLI11)")
        d = scratch("host-sweep-formats")
        out = os.path.join(d, "r.json")
        p = run(HOST_SWEEP, "--quick", "--filter", "bytes=4096$", "--out", out, "--format", "gbench")
        self.assertEqual(0, p.returncode, p.stdout + p.stderr)
        gb = json.loads(p.stdout)
        [e] = load_strict(out)["experiments"]
        # The median aggregate is the median of the report's samples, by NumPy, in ns.
        [median] = [b for b in gb["benchmarks"] if b.get("aggregate_name") == "median"]
        self.assertAlmostEqual(float(np.median(e["samples"]["gpu_time_per_step_s"])) * 1e9, median["real_time"],
                               delta=1e-6 * median["real_time"])
        self.assertEqual("ns", median["time_unit"])
        self.assertIn("bytes:4096", median["name"])
        # --format json: the report document itself, valid against the schema.
        p = run(HOST_SWEEP, "--quick", "--filter", "bytes=4096$", "--format", "json")
        self.assertEqual(0, p.returncode, p.stdout + p.stderr)
        doc = json.loads(p.stdout, parse_constant=reject_constant)
        validator().validate(doc)
        self.assertEqual([4096], [x["dimensions"]["bytes"] for x in doc["experiments"]])
        self.assertEqual("ok", doc["experiments"][0]["status"])
        # Standard output that cannot be written (a full disk): exit 74, saying so (helper-1 #1).
        with open("/dev/full", "w") as full:
            p = subprocess.run([HOST_SWEEP, "--quick", "--filter", "bytes=4096$", "--format", "json"], stdout=full,
                               stderr=subprocess.PIPE, text=True, timeout=120)
        self.assertEqual(74, p.returncode, p.stderr)
        self.assertIn("standard output could not be written", p.stderr)
        # --repetitions 2 --format csv: the point's two rows, told apart by the repetition column.
        p = run(HOST_SWEEP, "--quick", "--max-time", "0.05", "--filter", "bytes=4096$", "--repetitions", "2",
                "--format", "csv", "--quiet")
        self.assertEqual(0, p.returncode, p.stderr)
        rows = list(csv.DictReader(io.StringIO(p.stdout)))
        self.assertEqual([("sum", "4096", "0"), ("sum", "4096", "1")],
                         [(r["name"], r["dim.bytes"], r["repetition"]) for r in rows])
        # --interleave with a per-experiment format: the paired verdict goes to standard error.
        p = run(HOST_SWEEP, "--quick", "--interleave", "sum/bytes=4096", "sum/bytes=16384", "--format", "csv")
        self.assertIn(p.returncode, (0, 1), p.stderr)
        self.assertTrue(p.stdout.startswith("name,"), p.stdout[:200])
        self.assertEqual(3, len(p.stdout.splitlines()), p.stdout[:300])  # the header and the two points
        self.assertIn("B/A = ", p.stderr)
        # An unknown format: exit 2 before anything runs, naming the choices, the registered ones included.
        p = run(HOST_SWEEP, "--format", "xml")
        self.assertEqual(2, p.returncode, p.stdout + p.stderr)
        self.assertIn("xml", p.stderr)
        for name in ["console", "markdown", "csv", "gbench", "bencher", "github_benchmark", "json"]:
            self.assertIn(name, p.stderr)


class HostSortFlags(FlagConventions, unittest.TestCase):
    """examples/host_sort's command line (where CLI11 was found; skipped otherwise), and --slower."""

    NAME = "host_sort"
    PROGRAM, PROGRAM_VARIABLE = HOST_SORT, "GAUGE_HOST_SORT"
    OPTIONS = [("--out", "host-sort-report.json", "report"), ("--slower", "0", "more arrays"),
               ("--min-time", None, "seconds"), ("--max-time", None, "seconds")]
    USAGE_ERRORS = [
        (["--slower", "0.15"], "--slower: '0.15' is not one of 0, 0.1, 0.2, ..., 1"),
        (["--slower=110%"], "--slower: '110%' is not one of 0, 0.1, 0.2, ..., 1"),
        (["--slower", "x"], "--slower: 'x' is not a fraction such as 0.1 or a percentage such as 10%"),
        (["--max-time", "-1"], "--max-time"),
        (["--frobnicate"], "--frobnicate"),
        (["extra.json"], "extra.json"),
    ]

    def test_slower_sorts_a_tenth_more_per_tenth_and_says_so(self):
        d = scratch("host-sort")
        for slower, dims in [("0", {"n": 8192, "arrays": 10, "algorithm": "std::sort"}),
                             ("20%", {"n": 8192, "arrays": 10, "algorithm": "std::sort", "slower": 0.2})]:
            with self.subTest(slower=slower):
                out = os.path.join(d, f"sort-{slower.rstrip('%')}.json")
                p = run(HOST_SORT, "--slower", slower, "--out", out, "--min-time=0", "--max-time=0.05")
                self.assertEqual(0, p.returncode, p.stdout + p.stderr)
                e = load_strict(out)["experiments"][0]
                self.assertEqual("ok", e["status"])
                self.assertEqual(dims, e["dimensions"])
                self.assertEqual(10 * 8192, e["work"]["items_per_step"]["ints"])
                if slower != "0":
                    self.assertIn("slower: 2 more array(s) of 8192 ints per step (0.2 more work)", p.stdout)


class TrainingLoopFlags(FlagConventions, unittest.TestCase):
    """examples/training_loop's command line (where nvcc built it; skipped otherwise)."""

    NAME = "training_loop"
    PROGRAM, PROGRAM_VARIABLE = TRAINING_LOOP, "GAUGE_TRAINING_LOOP"
    OPTIONS = [("--steps", "3000", "Training steps"), ("--batch", "4096", "multiple of 8"),
               ("--hidden", "4096", "multiple of 8"), ("--layers", "3", "layers"), ("--lr", "0.001", "learning rate"),
               ("--warmup", "50", "warm-up"), ("--log-every", "500", "log lines"), ("--timer-level", "1", "detailed"),
               ("--peak-tflops", "989", "MFU"), ("--jsonl", "training-loop.jsonl", "JSON Lines"),
               ("--out", "training-loop.json", "report")]
    USAGE_ERRORS = [
        (["--hidden", "100"], "--hidden 100 is not a multiple of 8"),
        (["--batch=12"], "--batch 12 is not a multiple of 8"),
        (["--timer-level", "3"], "--timer-level: '3' is not an integer in [-1, 2]"),
        (["--lr=-1"], "--lr: '-1' is not a number > 0"),
        (["--steps=abc"], "--steps: 'abc' is not an integer in [1, 100000000]"),
        (["--frobnicate"], "--frobnicate"),
        (["--out"], "--out"),  # a value is missing
    ]

    def test_option_equals_value_is_option_space_value(self):
        d = scratch("training-loop-flags")
        p = run(TRAINING_LOOP, "--steps=60", "--batch=256", "--hidden=256", "--layers=2", "--lr=0.01", "--warmup=5",
                "--log-every=0", "--timer-level=-1", f"--out={os.path.join(d, 'r.json')}",
                f"--jsonl={os.path.join(d, 'r.jsonl')}")
        self.assertNotEqual(2, p.returncode, p.stderr)  # parsed; 77 without a GPU, else it trained
        self.assertNotIn(USAGE_HINT, p.stderr)
        if p.returncode == 77:
            self.assertIn("SKIPPED: no CUDA GPU found", p.stdout)
        else:
            self.assertIn("MLP: 2 layers of 256 x 256", p.stdout)
            self.assertIn("lr 0.01, 60 steps", p.stdout)


class Plot(unittest.TestCase):
    """gauge-plot with the Agg backend: PNG and SVG files, the telemetry overlay or its absence, errors."""

    def plot(self, *args):
        return run(sys.executable, PLOT, *args)

    def plot_file(self, out, *args, binary=False):
        """Runs gauge-plot with `args` writing `out`, requires exit status 0, and returns what it
        wrote (text, or bytes with `binary`)."""
        p = self.plot(*args, "-o", out)
        self.assertEqual(0, p.returncode, p.stderr)
        with open(out, "rb" if binary else "r") as f:
            return f.read()

    def test_timeline_of_the_real_report(self):
        out = scratch("plots")
        png = os.path.join(out, "timeline.png")
        self.assertEqual(b"\x89PNG\r\n\x1a\n", self.plot_file(png, "timeline", H200, binary=True)[:8])
        self.assertGreater(os.path.getsize(png), 20000)
        text = self.plot_file(os.path.join(out, "timeline.svg"), "timeline", H200, "--experiment", "gemm")
        self.assertIn("<svg", text)
        self.assertIn("no clock telemetry in this report", text)
        self.assertIn("warm-up: 11 steps, converged", text)
        self.assertIn("first step 89.18 ms (off scale)", text)
        self.assertIn("measured samples (n = 98)", text)

    def test_a_python_without_matplotlib_hands_over_to_the_system_s(self):
        # `python3 -S` has no site packages, so no matplotlib: gauge-plot runs itself again with
        # /usr/bin/python3 (Debian's python3-matplotlib) instead of failing.
        if not os.access("/usr/bin/python3", os.X_OK) or subprocess.run(["/usr/bin/python3", "-c", "import matplotlib"],
                                                                        capture_output=True).returncode != 0:
            self.skipTest("no /usr/bin/python3 with matplotlib to hand over to")
        out = os.path.join(scratch("plots"), "reexec.png")
        p = subprocess.run(["/usr/bin/python3", "-S", PLOT, "timeline", H200, "-o", out], capture_output=True, text=True,
                           env=dict(os.environ, MPLBACKEND="Agg"))
        self.assertEqual(0, p.returncode, p.stderr)
        self.assertEqual(f"gauge-plot: wrote {out}\n", p.stdout)
        with open(out, "rb") as f:
            self.assertEqual(b"\x89PNG", f.read(4))
        # Where that one cannot either, the error says what to do (once: no second hand-over).
        p = subprocess.run(["/usr/bin/python3", "-S", PLOT, "timeline", H200, "-o", out], capture_output=True, text=True,
                           env=dict(os.environ, GAUGE_PLOT_REEXEC="1"))
        self.assertEqual(2, p.returncode, p.stderr)
        self.assertIn("gauge-plot needs matplotlib", p.stderr)

    def test_timeline_with_clock_telemetry(self):
        text = self.plot_file(os.path.join(scratch("plots"), "telemetry.svg"), "timeline", report("telemetry.json"))
        self.assertIn("SM clock (telemetry)", text)
        self.assertIn("maximum SM clock 1980 MHz", text)
        self.assertNotIn("no clock telemetry", text)

    def test_the_axes_name_the_time_of_the_backend(self):
        out = scratch("plots")
        with open(report("base.json")) as f:
            doc = json.load(f)
        cases = [("cuda", None, "GPU time per step"), ("host", None, "real time per step"),  # schema 1.0: from backend
                 ("cuda", "Device time", "Device time per step")]  # schema 1.2: the report's time_label
        for backend, label, expected in cases:
            with self.subTest(backend=backend, label=label):
                doc["experiments"][0]["backend"] = backend
                if label:
                    doc["experiments"][0]["time_label"] = label
                path = os.path.join(out, f"label-{backend}.json")
                with open(path, "w") as f:
                    json.dump(doc, f)
                for args in (["timeline", path], ["compare", path, path]):
                    text = self.plot_file(os.path.join(out, f"label-{backend}-{args[0]}.svg"), *args)
                    self.assertIn(expected, text)
                    if backend == "host":
                        self.assertNotIn("GPU", text)
                        self.assertNotIn("clock telemetry", text)  # a CPU has no GPU clock to miss
                    elif args[0] == "timeline":
                        self.assertIn("no clock telemetry in this report", text)

    def test_compare_two_reports(self):
        out = scratch("plots")
        cmp_json = os.path.join(out, "cmp.json")
        p = run(COMPARE, report("base.json"), report("slower.json"), "--format", "json")
        with open(cmp_json, "w") as f:
            f.write(p.stdout)
        text = self.plot_file(os.path.join(out, "compare.svg"), "compare", report("base.json"), report("slower.json"),
                              "--comparison", cmp_json)
        a, b = gpu_samples(report("base.json")), gpu_samples(report("slower.json"))
        self.assertIn(f"median new/base = {np.median(b) / np.median(a):.4f}", text)
        # the median's interval at 95 %: at n = 60 the median alone decides (the mean never does, p90
        # needs n >= 100)
        self.assertRegex(text, r"\[1\.04\d\d, 1\.05\d\d\] at 95 %: slower")
        png = self.plot_file(os.path.join(out, "bf16-fp32.png"), "compare", report("fp32.json"), report("base.json"),
                             "--ignore-dimension", "dtype", binary=True)
        self.assertEqual(b"\x89PNG", png[:4])
        # A dimension one side lacks (host_sort's "slower" at 0) is "-", as gauge-compare writes it.
        with open(report("base.json")) as f:
            doc = json.load(f)
        doc["experiments"][0]["dimensions"]["slower"] = 0.1
        path = os.path.join(out, "with-slower.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        text = self.plot_file(os.path.join(out, "absent-dim.svg"), "compare", report("base.json"), path,
                              "--ignore-dimension", "slower")
        self.assertIn("slower: -", text)
        self.assertIn("slower: 0.1", text)
        self.assertNotIn("None", text)

    def test_a_verdict_on_cycles_titles_the_cycles_not_the_time(self):
        # As on the H200 (2026-12-03): time 0.9779 [0.9739, 0.9796] while the SM clock rose 2 %,
        # cycles 1.0017 [0.9979, 1.0037], verdict same. The title must give the cycles' interval.
        out = scratch("plots")
        a, b = gpu_samples(report("base.json")), gpu_samples(report("slower.json"))
        with open(report("base.json")) as f:
            e = json.load(f)["experiments"][0]
        cmp = {"experiments": [{"name": e["name"], "dimensions": e["dimensions"], "verdict": "same", "decided_on": "cycles",
                                "ratio": {"estimate": 0.9779, "low": 0.9739, "high": 0.9796, "level": 0.95},
                                "clock_normalized_ratio": {"estimate": 1.0017, "low": 0.9979, "high": 1.0037, "level": 0.95}}]}
        cmp_json = os.path.join(out, "cycles-comparison.json")
        with open(cmp_json, "w") as f:
            json.dump(cmp, f)
        data = os.path.join(out, "cycles.json")
        self.plot_file(os.path.join(out, "cycles.svg"), "compare", report("base.json"), report("slower.json"),
                       "--comparison", cmp_json, "--data", data)
        with open(data) as f:
            [panel] = json.load(f)["panels"]
        self.assertEqual(f"{e['name']}: SM cycles new/base = 1.0017 [0.9979, 1.0037] at 95 %: same "
                         f"(time {np.median(b) / np.median(a):.4f}: the clock moved)", panel["title"])

    def test_bad_input_exits_2_with_one_line(self):
        out = scratch("plots")
        cases = [
            (["timeline", report("malformed.json"), "-o", os.path.join(out, "x.png")], "invalid JSON at line 3, column 3: Expecting ','"),
            (["timeline", report("truncated.json"), "-o", os.path.join(out, "x.png")], "invalid JSON"),
            (["timeline", report("nan.json"), "-o", os.path.join(out, "x.png")], "non-finite number NaN"),
            (["timeline", report("newer-major.json"), "-o", os.path.join(out, "x.png")], "newer than gauge-plot reads"),
            (["timeline", report("wrong-schema.json"), "-o", os.path.join(out, "x.png")], "not a gauge report"),
            (["timeline", report("missing.json"), "-o", os.path.join(out, "x.png")], "no such file"),
            (["timeline", report("base.json"), "-o", os.path.join(out, "x.gif")], "extension must be"),
            (["timeline", report("base.json"), "-o", os.path.join(out, "x.png"), "--experiment", "nope"], "no experiment named \"nope\""),
            (["compare", report("fp32.json"), report("base.json"), "-o", os.path.join(out, "x.png")], "--ignore-dimension"),
            (["timeline", report("base.json")], "-o/--output"),
        ]
        for args, message in cases:
            with self.subTest(args=args[:2]):
                p = self.plot(*args)
                self.assertEqual(2, p.returncode, p.stdout + p.stderr)
                self.assertEqual(1, p.stderr.count("\n"), p.stderr)
                self.assertTrue(p.stderr.startswith("gauge-plot: error: "), p.stderr)
                self.assertIn(message, p.stderr)


class PlotOutliers(unittest.TestCase):
    """gauge-plot on CPU-like data where a few slow samples would set the scale: a 10 % change must
    stay visible in compare, and timeline's y axis must not run to the outliers. The ranges are
    read back with --data and checked against NumPy's percentiles of the test's own samples."""

    @classmethod
    def setUpClass(cls):
        cls.out = scratch("plot-outliers")
        with open(report("base.json")) as f:
            doc = json.load(f)
        rng = np.random.default_rng(7)
        e = doc["experiments"][0]
        e["backend"], e["time_label"] = "host", "real time"

        def side(median, n=400):
            x = median * (1 + 0.01 * rng.standard_normal(n))
            x[rng.choice(n, size=n // 50, replace=False)] = 25 * median  # 2 %: another process ran
            return x

        cls.base_x, cls.new_x = side(1e-6), side(1.1e-6)
        cls.paths = []
        for name, x in (("cpu-base.json", cls.base_x), ("cpu-new.json", cls.new_x)):
            d = json.loads(json.dumps(doc))
            ex = d["experiments"][0]
            ex["samples"]["gpu_time_per_step_s"] = [float(v) for v in x]
            ex["samples"]["wall_time_per_step_s"] = [float(v) for v in x]
            ex["gpu_time_s"]["p50"] = float(np.median(x))
            ex["gpu_time_s"]["median_ci"] = {"low": float(np.median(x)) * 0.999, "high": float(np.median(x)) * 1.001,
                                             "level": 0.95}
            ex["sampling"]["steps_per_sample"] = 1
            for key in ("round_start_s", "round_end_s", "round_samples"):
                ex["sampling"].pop(key, None)
            # Warm-up rounds of a shared CPU: the early ones 25x slower, then at the median.
            ex["warmup"]["curve"] = ([{"start_s": 0.0, "steps": 1, "time_per_step_s": 1e-3}]
                                     + [{"start_s": 1e-3 * i, "steps": 100, "time_per_step_s": (25 if i < 3 else 1) * float(np.median(x))}
                                        for i in range(1, 12)])
            path = os.path.join(cls.out, name)
            with open(path, "w") as f:
                json.dump(d, f)
            cls.paths.append(path)

    def run_plot(self, *args):
        p = run(sys.executable, PLOT, *args)
        self.assertEqual(0, p.returncode, p.stderr)
        return p

    def test_compare_shows_a_ten_percent_change_beside_outliers(self):
        out, data = os.path.join(self.out, "compare.png"), os.path.join(self.out, "compare.json")
        self.run_plot("compare", *self.paths, "-o", out, "--data", data)
        with open(data) as f:
            [panel] = json.load(f)["panels"]
        both = np.concatenate([self.base_x, self.new_x])  # seconds, as the panel's xlim
        q1, q3 = np.percentile(both, [25, 75])  # the samples within Tukey's far fences
        inside = both[(both >= q1 - 3 * (q3 - q1)) & (both <= q3 + 3 * (q3 - q1))]
        lo, hi = inside.min(), inside.max()
        pad = 0.05 * (hi - lo)
        np.testing.assert_allclose(panel["xlim"], [lo - pad, hi + pad], rtol=1e-9)
        # The 25x outliers are beyond the axis, counted per side (8 of 400 each); the medians (1.0 and
        # 1.1 us) are a sizeable part of the axis apart (on an axis to the 25 us maximum: 0.4 %).
        self.assertEqual([{"below": 0, "above": 8}, {"below": 0, "above": 8}], panel["beyond"])
        width = panel["xlim"][1] - panel["xlim"][0]
        self.assertGreater((np.median(self.new_x) - np.median(self.base_x)) / width, 0.3)
        self.assertEqual("linear", panel["xscale"])

    def test_timeline_scale_ignores_the_slow_samples_and_early_rounds(self):
        out, data = os.path.join(self.out, "timeline.png"), os.path.join(self.out, "timeline.json")
        self.run_plot("timeline", self.paths[0], "-o", out, "--data", data)
        with open(data) as f:
            [panel] = json.load(f)["panels"]
        m = np.median(self.base_x)
        q1, q3 = np.percentile(self.base_x, [25, 75])
        top = self.base_x[self.base_x <= q3 + 3 * (q3 - q1)].max()  # the median's CI (+0.1 %) is below it
        # y axis: the bulk of the samples, padded by at most 8 % of the span; far below the 25x.
        self.assertLess(panel["ylim"][1], 1.2 * top)
        self.assertGreaterEqual(panel["ylim"][1], top)
        self.assertEqual(int(np.sum(self.base_x > panel["ylim"][1])), panel["samples_above"])
        self.assertEqual(8, panel["samples_above"])
        self.assertEqual(2, panel["warmup_rounds_above"])  # rounds 1 and 2 at 25x the median
        self.assertAlmostEqual(m, panel["median"], delta=m * 1e-12)

    def test_a_report_of_only_timers_is_refused_saying_so(self):
        with open(report("base.json")) as f:
            doc = json.load(f)
        path = os.path.join(self.out, "timers-only.json")
        with open(path, "w") as f:
            json.dump(dict(doc, experiments=[], timers=[{"name": "train"}]), f)
        for args in (["timeline", path], ["compare", path, path]):
            p = run(sys.executable, PLOT, *args, "-o", os.path.join(self.out, "x.png"))
            self.assertEqual(2, p.returncode, p.stderr)
            if args[0] == "timeline":
                self.assertIn("no experiments", p.stderr)
                self.assertIn("1 Timer summary (train)", p.stderr)
                self.assertNotIn("None", p.stderr)


class PlotSweep(unittest.TestCase):
    """gauge-plot sweep on a suite's report built here (triad over bytes = 2^12..2^16 x T, a failed
    and a skipped point; gemm over N x dtype): the plotted lines, read back from the drawn axes with
    --data, equal what the test computes from its own numbers; the scales; the notes; the errors."""

    BYTES = [2 ** k for k in range(12, 17)]
    TYPES = ["float", "double"]
    GEMM_N = [1000, 2000, 3000]

    @staticmethod
    def triad_rate(t, b):
        """GPU bytes/s of triad: 1 GB/s at 2^12 bytes for float, 4x per doubling, double 2x float:
        it spans 2 * 4^4 = 512x (> 100: log y)."""
        return (1.0 if t == "float" else 2.0) * 1e9 * 4.0 ** (int(b).bit_length() - 1 - 12)

    @staticmethod
    def gemm_rate(n):
        """GPU FLOP/s of gemm: 50, 100, 150 TFLOP/s (3x: linear y)."""
        return 50e12 * n / 1000

    @classmethod
    def setUpClass(cls):
        cls.out = scratch("plot-sweep")
        with open(report("base.json")) as f:
            doc = json.load(f)
        template = doc["experiments"][0]

        def result(name, dims, work, gpu, status="ok"):
            e = json.loads(json.dumps(template))
            e["name"], e["status"], e["dimensions"] = name, status, dims
            e["error"] = "verification failed" if status == "failed" else None
            e["work"] = {"flop_per_step": work.get("flop"), "bytes_per_step": work.get("bytes"), "items_per_step": {}}
            kind = "flop" if work.get("flop") is not None else "bytes"
            rates = {"flop_per_s": gpu if kind == "flop" else None, "bytes_per_s": gpu if kind == "bytes" else None}
            if kind == "flop" and work.get("bytes") is not None:  # both declared: bytes/s too (not plotted)
                rates["bytes_per_s"] = work["bytes"] / (work["flop"] / gpu)
            e["throughput"] = {"gpu": dict(rates, items_per_s={}),
                               "wall": {k: (v / 2 if v is not None else None) for k, v in rates.items()}}
            e["throughput"]["wall"]["items_per_s"] = {}
            e["gpu_time_s"]["p50"] = work[kind] / gpu
            e["wall_time_s"]["p50"] = 2 * work[kind] / gpu
            return e

        experiments = [result("triad", {"T": t, "bytes": b}, {"bytes": 3.0 * b}, cls.triad_rate(t, b))
                       for t in cls.TYPES for b in cls.BYTES]
        experiments.append(result("triad", {"T": "float", "bytes": 2 ** 17}, {"bytes": 3.0 * 2 ** 17}, 1e15, "failed"))
        experiments += [result("gemm", {"N": n, "dtype": "fp32"}, {"flop": 2.0 * n ** 3, "bytes": 12.0 * n * n},
                               cls.gemm_rate(n)) for n in cls.GEMM_N]
        doc.update(schema_version="1.3.0", experiments=experiments,
                   skipped=[{"name": "triad", "dimensions": {"T": "double", "bytes": 2 ** 17}, "reason": "does not fit"}])
        validator().validate(doc)  # a report as the runner writes it
        cls.report = os.path.join(cls.out, "suite.json")
        with open(cls.report, "w") as f:
            json.dump(doc, f)
        cls.empty = os.path.join(cls.out, "no-results.json")
        with open(cls.empty, "w") as f:
            json.dump(dict(doc, experiments=[]), f)
        cls.no_work = os.path.join(cls.out, "no-work.json")
        with open(cls.no_work, "w") as f:
            e = result("idle", {"N": 4}, {"bytes": 1.0}, 1.0)
            e["work"]["bytes_per_step"], e["throughput"]["gpu"]["bytes_per_s"] = None, None
            json.dump(dict(doc, experiments=[e], skipped=[]), f)

    def sweep(self, *args, out=None, data=None):
        """Runs gauge-plot sweep writing `out` and `data`; requires exit 0; returns (stderr, data)."""
        out = out or os.path.join(self.out, "sweep.svg")
        data = data or os.path.join(self.out, "lines.json")
        for path in (out, data):
            if os.path.exists(path):
                os.remove(path)
        p = run(sys.executable, PLOT, "sweep", *args, "--out", out, "--data", data)
        self.assertEqual(0, p.returncode, p.stderr)
        self.assertEqual(f"gauge-plot: wrote {out} and {data}\n", p.stdout)
        self.assertTrue(os.path.getsize(out) > 1000)
        with open(data) as f:
            return p.stderr, json.load(f)

    def test_throughput_against_a_power_of_two_axis(self):
        err, data = self.sweep(self.report, "--x", "bytes")
        self.assertEqual(["triad"], [panel["benchmark"] for panel in data["panels"]])
        panel = data["panels"][0]
        self.assertEqual(("B/s", "log", 2, "log"), (panel["quantity"], panel["xscale"], panel["xbase"], panel["yscale"]))
        self.assertEqual(["T=float", "T=double"], [line["label"] for line in panel["lines"]])
        for t, line in zip(self.TYPES, panel["lines"]):
            self.assertEqual(self.BYTES, line["x"])  # the failed and the skipped 2^17 are left out
            np.testing.assert_allclose(line["y"], [self.triad_rate(t, b) for b in self.BYTES], rtol=1e-12)
        self.assertEqual(self.BYTES, panel["xticks"])
        self.assertEqual(["2¹²", "2¹³", "2¹⁴", "2¹⁵", "2¹⁶"], panel["xticklabels"])
        self.assertEqual(["gauge-plot: note: left out 1 failed result and 1 skipped point",
                          "gauge-plot: note: left out 3 results of gemm without the axis \"bytes\""], err.splitlines())
        with open(os.path.join(self.out, "sweep.svg"), encoding="utf-8") as f:
            svg = f.read()
        for text in ("T=float", "T=double", "2¹⁶", "bytes, log2 scale", "triad: throughput (B/s) against bytes",
                     "throughput from GPU time"):
            self.assertIn(text, svg)

    def test_an_axis_of_exactly_100x_is_log10(self):
        # N = 1000, 10000, 100000 (a new user's sweep: exactly 100x, not powers of two): log10, as
        # values spanning 100x or more; gemm's rates 50 TFLOP/s .. 5 PFLOP/s also span 100x: log y.
        with open(self.report) as f:
            doc = json.load(f)
        gemm = [e for e in doc["experiments"] if e["name"] == "gemm"]
        for e, n in zip(gemm, [1000, 10000, 100000]):
            e["dimensions"]["N"] = n
            e["throughput"]["gpu"]["flop_per_s"] = self.gemm_rate(n)
        path = os.path.join(self.out, "hundred.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        _, data = self.sweep(path, "--x", "N")
        [panel] = data["panels"]
        self.assertEqual(("log", 10, "log"), (panel["xscale"], panel["xbase"], panel["yscale"]))

    def test_flop_first_and_linear_scales(self):
        err, data = self.sweep(self.report, "--x", "N", out=os.path.join(self.out, "gemm.png"))
        with open(os.path.join(self.out, "gemm.png"), "rb") as f:
            self.assertEqual(b"\x89PNG\r\n\x1a\n", f.read(8))
        [panel] = data["panels"]
        # gemm declares FLOP and bytes: FLOP/s, as the runner's table (gauge/report/sweep_table.hpp)
        self.assertEqual(("gemm", "FLOP/s", "TFLOP/s", 1e-12), (panel["benchmark"], panel["quantity"], panel["unit"], panel["scale"]))
        self.assertEqual(("linear", "linear"), (panel["xscale"], panel["yscale"]))  # 1000..3000; 3x
        [line] = panel["lines"]
        self.assertEqual(("dtype=fp32", self.GEMM_N), (line["label"], line["x"]))
        np.testing.assert_allclose(line["y"], [self.gemm_rate(n) for n in self.GEMM_N], rtol=1e-12)
        self.assertIn("left out 10 results of triad without the axis \"N\"", err)

    def test_items_per_second_of_the_first_item(self):
        with open(self.report) as f:
            doc = json.load(f)
        e = doc["experiments"][0]
        experiments = []
        for batch in (1, 2, 4, 8):
            e = json.loads(json.dumps(e))
            e["name"], e["dimensions"] = "embed", {"batch": batch, "_impl": "naive"}
            e["work"] = {"flop_per_step": None, "bytes_per_step": None, "items_per_step": {"tokens": 512.0 * batch, "samples": 1.0 * batch}}
            rates = {"tokens": 512e6 * batch, "samples": 1e6 * batch}
            e["throughput"] = {m: {"flop_per_s": None, "bytes_per_s": None, "items_per_s": rates} for m in ("gpu", "wall")}
            experiments.append(e)
        path = os.path.join(self.out, "items.json")
        with open(path, "w") as f:
            json.dump(dict(doc, experiments=experiments, skipped=[]), f)
        err, data = self.sweep(path, "--x", "batch")
        self.assertEqual("", err)
        [panel] = data["panels"]
        # the first item by name, as the runner's table; the x axis 1..8 is powers of two
        self.assertEqual(("samples/s", "samples", "Msamples/s", "log"), (panel["quantity"], panel["item"], panel["unit"], panel["xscale"]))
        self.assertEqual("linear", panel["yscale"])  # 8x
        [line] = panel["lines"]
        self.assertEqual(("_impl=naive", [1, 2, 4, 8]), (line["label"], line["x"]))
        np.testing.assert_allclose(line["y"], [1e6, 2e6, 4e6, 8e6], rtol=1e-12)
        self.assertEqual(["2⁰", "2¹", "2²", "2³"], panel["xticklabels"])

    def test_the_confidence_interval_is_drawn_as_a_band(self):
        # Each triad point gets a median CI of [0.98, 1.03] x its median time; the band of the
        # throughput is the same interval turned over (rate / 1.03 .. rate / 0.98), the band of the
        # time the interval itself. A point whose interval does not hold its median has none (null).
        with open(self.report) as f:
            doc = json.load(f)
        for e in doc["experiments"]:
            p50 = e["gpu_time_s"]["p50"]
            e["gpu_time_s"]["median_ci"] = {"low": 0.98 * p50, "high": 1.03 * p50, "level": 0.99}
        bad = next(e for e in doc["experiments"] if e["dimensions"] == {"T": "double", "bytes": 2 ** 14})
        bad["gpu_time_s"]["median_ci"]["low"] = 1.01 * bad["gpu_time_s"]["p50"]
        path = os.path.join(self.out, "with-ci.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        _, data = self.sweep(path, "--x", "bytes")
        [panel] = data["panels"]
        for t, line in zip(self.TYPES, panel["lines"]):
            rates = [self.triad_rate(t, b) for b in self.BYTES]
            for b, rate, low, high in zip(self.BYTES, rates, line["low"], line["high"]):
                if t == "double" and b == 2 ** 14:
                    self.assertEqual((None, None), (low, high))
                    continue
                self.assertAlmostEqual(rate / 1.03, low, delta=rate * 1e-12)
                self.assertAlmostEqual(rate / 0.98, high, delta=rate * 1e-12)
        _, data = self.sweep(path, "--x", "bytes", "--y", "time")
        line = data["panels"][0]["lines"][0]
        times = [3.0 * b / self.triad_rate("float", b) for b in self.BYTES]
        np.testing.assert_allclose(line["low"], [0.98 * x for x in times], rtol=1e-12)
        np.testing.assert_allclose(line["high"], [1.03 * x for x in times], rtol=1e-12)
        # Without intervals (the report's medians moved, their template CI does not hold them): no band.
        _, plain = self.sweep(self.report, "--x", "bytes")
        self.assertEqual([None] * len(self.BYTES), plain["panels"][0]["lines"][0]["low"])
        with open(os.path.join(self.out, "sweep.svg"), encoding="utf-8") as f:
            self.assertNotIn("CI of the median", f.read())
        self.sweep(path, "--x", "bytes")
        with open(os.path.join(self.out, "sweep.svg"), encoding="utf-8") as f:
            self.assertIn("bands: 99 % CI of the median", f.read())

    def test_median_time_of_the_wall_clock(self):
        _, data = self.sweep(self.report, "--x", "bytes", "--y", "time", "--metric", "wall")
        [panel] = data["panels"]
        self.assertEqual(("time", "log", "linear"), (panel["quantity"], panel["xscale"], panel["yscale"]))
        for t, line in zip(self.TYPES, panel["lines"]):
            expected = [3.0 * b / (self.triad_rate(t, b) / 2) for b in self.BYTES]  # 24.6 .. 1.5 us: 16x, linear
            np.testing.assert_allclose(line["y"], expected, rtol=1e-12)
        _, gpu = self.sweep(self.report, "--x", "bytes", "--metric", "gpu", "--y", "throughput")
        _, wall = self.sweep(self.report, "--x", "bytes", "--metric", "wall")
        np.testing.assert_allclose(np.array(wall["panels"][0]["lines"][1]["y"]) * 2, gpu["panels"][0]["lines"][1]["y"], rtol=1e-12)

    def test_the_output_defaults_to_the_report_s_name(self):
        expected = os.path.join(self.out, "suite-sweep.png")
        if os.path.exists(expected):
            os.remove(expected)
        p = subprocess.run([sys.executable, PLOT, "sweep", self.report, "--x", "bytes"], cwd=self.out,
                           capture_output=True, text=True, env=dict(os.environ, MPLBACKEND="Agg"), timeout=120)
        self.assertEqual(0, p.returncode, p.stderr)
        self.assertEqual("gauge-plot: wrote suite-sweep.png\n", p.stdout)
        with open(expected, "rb") as f:
            self.assertEqual(b"\x89PNG", f.read(4))

    def test_bad_input_exits_2_with_one_line(self):
        png = os.path.join(self.out, "x.png")
        cases = [
            ([self.report, "--x", "size"], f"{self.report}: no result has the axis \"size\" (its axes: N, T, bytes, dtype)"),
            ([self.report, "--x", "T"], "the axis \"T\" is not numeric (triad has T=\"float\"); numeric axes: N, bytes"),
            ([self.report, "--x", "dtype"], "the axis \"dtype\" is not numeric"),
            ([self.empty, "--x", "bytes"], f"{self.empty}: no results (\"experiments\" is empty)"),
            ([self.no_work, "--x", "N"], "idle declares no work (FLOP, bytes or items)"),
            ([self.report], "the following arguments are required: --x"),
            ([self.report, "--x", "bytes", "--y", "speed"], "argument --y: invalid choice: 'speed'"),
            ([self.report, "--x", "bytes", "--metric", "cpu"], "argument --metric: invalid choice: 'cpu'"),  # no throughput of CPU time
            ([self.report, "--x", "bytes", "-o", os.path.join(self.out, "x.gif")], "extension must be"),
            ([report("missing.json"), "--x", "bytes"], "no such file"),
        ]
        for args, message in cases:
            with self.subTest(args=args[1:]):
                p = run(sys.executable, PLOT, "sweep", *args, *(["-o", png] if "-o" not in args else []))
                self.assertEqual(2, p.returncode, p.stdout + p.stderr)
                self.assertEqual("", p.stdout)
                self.assertEqual(1, p.stderr.count("\n"), p.stderr)
                self.assertTrue(p.stderr.startswith("gauge-plot: error: "), p.stderr)
                self.assertIn(message, p.stderr)
        self.assertFalse(os.path.exists(png))
        # with --y time, a benchmark without work is plotted
        _, data = self.sweep(self.no_work, "--x", "N", "--y", "time")
        self.assertEqual([[1.0]], [line["y"] for line in data["panels"][0]["lines"]])


class PlotTrace(unittest.TestCase):
    """gauge-plot trace on a schema 1.4 report built here from base.json with a kernel_trace whose
    sample_step is written by hand (two streams, three activities): the bars, read back from the
    drawn axes with --data, are those spans lane by lane; the period line; the legend; the errors."""

    GEMM = "void gemm_kernel<float, 128, 128, 8>(float const*, float const*, float*, int)"  # 77 characters
    # (name, kind, stream_id, start_s, end_s), in order of start as gauge writes them
    SPANS = [(GEMM, "kernel", 7, 0.0, 25e-6),
             ("memcpy DtoD", "memcpy", 13, 2e-6, 10e-6),
             ("_Z6reducePfi", "kernel", 7, 27e-6, 33e-6)]
    PERIOD = 40e-6

    @classmethod
    def trace(cls, spans=None, **changes):
        """A kernel_trace as gauge writes it (every required key), with `spans` as its sample_step."""
        t = {"status": "traced", "reason": "", "tool": "CUPTI API version 130001 (libcupti.so)",
             "attribution": "external correlation", "steps": 10, "steps_per_unit": 1, "records": 30,
             "attributed_records": 30, "dropped_records": 0, "period_s": cls.PERIOD, "untraced_period_s": 39e-6,
             "tracing_overhead": 0.025, "device_period_s": 39.5e-6, "kernel_time_per_step_s": 39e-6,
             "busy_per_step_s": 30e-6, "gaps_per_step_s": 9.5e-6, "busy_fraction": 0.76, "closure": 0.2125,
             "kernels": [],
             "sample_step": [{"name": n, "kind": k, "stream_id": s, "start_s": a, "end_s": b}
                             for n, k, s, a, b in (cls.SPANS if spans is None else spans)]}
        t.update(changes)
        return t

    @classmethod
    def write(cls, name, experiments, validate=True):
        doc = dict(cls.doc, schema_version="1.4.0", experiments=experiments)
        if validate:
            validator().validate(doc)  # a report as gauge writes it
        path = os.path.join(cls.out, name)
        with open(path, "w") as f:
            json.dump(doc, f)
        return path

    @classmethod
    def experiment(cls, trace, **dims):
        e = json.loads(json.dumps(cls.doc["experiments"][0]))
        e["dimensions"].update(dims)
        e["kernel_trace"] = trace
        return e

    @classmethod
    def setUpClass(cls):
        cls.out = scratch("plot-trace")
        with open(report("base.json")) as f:
            cls.doc = json.load(f)
        cls.report = cls.write("traced.json", [cls.experiment(cls.trace())])
        cls.two = cls.write("two.json", [cls.experiment(cls.trace()), cls.experiment(cls.trace(), dtype="fp32")])

    def plot_trace(self, *args, out=None, data=None):
        """Runs gauge-plot trace writing `out` and `data`; requires exit 0; returns the data."""
        out = out or os.path.join(self.out, "trace.png")
        data = data or os.path.join(self.out, "spans.json")
        for path in (out, data):
            if os.path.exists(path):
                os.remove(path)
        p = run(sys.executable, PLOT, "trace", *args, "-o", out, "--data", data)
        self.assertEqual(0, p.returncode, p.stderr)
        self.assertEqual("", p.stderr)
        self.assertEqual(f"gauge-plot: wrote {out} and {data}\n", p.stdout)
        with open(data) as f:
            return json.load(f)

    def test_the_drawn_bars_are_the_spans_of_each_stream(self):
        png = os.path.join(self.out, "trace.png")
        data = self.plot_trace(self.report, out=png)
        with open(png, "rb") as f:
            self.assertEqual(b"\x89PNG\r\n\x1a\n", f.read(8))
        self.assertGreater(os.path.getsize(png), 10000)
        self.assertEqual(("gemm", "bf16", "µs", 1e6), (data["experiment"], data["dimensions"]["dtype"], data["unit"], data["scale"]))
        self.assertEqual([7, 13], [lane["stream_id"] for lane in data["lanes"]])  # by stream id, the first on top
        self.assertEqual(["stream 7", "stream 13"], [lane["label"] for lane in data["lanes"]])
        for lane in data["lanes"]:
            expected = [(a, b, n) for n, _, s, a, b in self.SPANS if s == lane["stream_id"]]
            with self.subTest(stream=lane["stream_id"]):
                self.assertEqual([n for _, _, n in expected], [n for _, _, n in lane["spans"]])  # full names
                np.testing.assert_allclose([[a, b] for a, b, _ in lane["spans"]], [[a, b] for a, b, _ in expected],
                                           rtol=1e-12, atol=1e-18)
        self.assertAlmostEqual(self.PERIOD, data["period_s"], delta=1e-18)
        # the legend: names in order of first start, the long one cut to 40 characters, then the period
        self.assertEqual([self.GEMM[:39] + "…", "memcpy DtoD", "_Z6reducePfi", "next step (period)"], data["legend"])
        self.assertEqual(40, len(data["legend"][0]))

    def test_the_svg_shows_the_lanes_the_legend_and_the_trace_s_figures(self):
        svg = os.path.join(self.out, "trace.svg")
        self.plot_trace(self.report, "--name", "gemm", out=svg)
        with open(svg, encoding="utf-8") as f:
            text = f.read()
        for s in ("stream 7", "stream 13", "_Z6reducePfi", "memcpy DtoD", "next step (period)",
                  "time from the step's first start (µs)", "period 40 µs (events)", "busy 76.0 %",
                  "gaps 9.5 µs per step", "dtype=bf16", "NVIDIA H200"):
            self.assertIn(s, text)
        self.assertNotIn(self.GEMM, text)  # cut in the legend

    def test_5000_streams_are_refused_at_once_with_the_image_size(self):
        # The review's case: 5,000 lanes ran 113 s before matplotlib refused the image. By hand: the
        # figure is 1.6 + 0.7 x 5000 = 3501.6 inches high, x 120 dpi = 420192 pixels (the limit 65535).
        spans = [("k", "kernel", s, s * 1e-6, s * 1e-6 + 5e-7) for s in range(5000)]
        path = self.write("5000-streams.json", [self.experiment(self.trace(spans))])
        out = os.path.join(self.out, "5000.png")
        started = time.monotonic()
        p = run(sys.executable, PLOT, "trace", path, "-o", out)
        elapsed = time.monotonic() - started
        self.assertEqual(2, p.returncode, p.stderr)
        self.assertEqual(1, len(p.stderr.splitlines()), p.stderr)
        self.assertIn("5000 streams (a lane each)", p.stderr)
        self.assertIn("420192 pixels high at 120 dpi", p.stderr)
        self.assertFalse(os.path.exists(out))
        self.assertLess(elapsed, 30)  # not a speed test: 113 s was the failure; a run is ~2 s
        # A lower --dpi does not get past it: the layout is drawn at the figure's 100 dpi first
        # (3501.6 x 100 = 350160 pixels; matplotlib itself refused "1100x350160").
        q = run(sys.executable, PLOT, "trace", path, "-o", out, "--dpi", "12")
        self.assertEqual(2, q.returncode, q.stderr)
        self.assertIn("350160 pixels high at 100 dpi", q.stderr)

    def test_without_a_period_there_is_no_period_line(self):
        path = self.write("no-period.json", [self.experiment(self.trace(period_s=None))])
        data = self.plot_trace(path)
        self.assertIsNone(data["period_s"])
        self.assertNotIn("next step (period)", data["legend"])
        self.assertEqual(3, sum(len(lane["spans"]) for lane in data["lanes"]))

    def test_the_legend_names_24_and_counts_the_rest(self):
        spans = [(f"_Z{i}k", "kernel", i % 2, i * 1e-3, i * 1e-3 + 5e-4) for i in range(30)]  # 30 names, ms
        data = self.plot_trace(self.write("thirty.json", [self.experiment(self.trace(spans=spans, period_s=0.04))]))
        self.assertEqual(("ms", 1e3), (data["unit"], data["scale"]))
        self.assertEqual([f"_Z{i}k" for i in range(23)] + ["and 7 more names (--data lists every span)", "next step (period)"],
                         data["legend"])  # "_Z..." as it is: matplotlib would hide a label starting with "_"
        self.assertEqual(30, sum(len(lane["spans"]) for lane in data["lanes"]))
        self.assertEqual(["_Z28k", "_Z29k"], [n for _, _, n in data["lanes"][0]["spans"][-1:] + data["lanes"][1]["spans"][-1:]])

    def test_name_and_where_choose_one_experiment(self):
        for args, dtype in ((["--where", "dtype=fp32"], "fp32"),
                            (["--name", "gemm", "--where", "dtype=bf16", "--where", "N=8192"], "bf16"),
                            (["--experiment", "gemm", "--where", "dtype=fp32", "--where", "N=8192.0"], "fp32")):
            with self.subTest(args=args):
                data = self.plot_trace(self.two, *args)
                self.assertEqual(dtype, data["dimensions"]["dtype"])

    def test_the_output_defaults_to_the_report_s_name(self):
        expected = os.path.join(self.out, "traced-trace.png")
        if os.path.exists(expected):
            os.remove(expected)
        p = subprocess.run([sys.executable, PLOT, "trace", self.report], cwd=self.out,
                           capture_output=True, text=True, env=dict(os.environ, MPLBACKEND="Agg"), timeout=120)
        self.assertEqual(0, p.returncode, p.stderr)
        self.assertEqual("gauge-plot: wrote traced-trace.png\n", p.stdout)
        with open(expected, "rb") as f:
            self.assertEqual(b"\x89PNG", f.read(4))

    def test_bad_input_exits_2_with_one_line(self):
        def broken(j, key, value):
            step = self.trace()["sample_step"]
            if value is None:
                del step[j][key]
            else:
                step[j][key] = value
            return self.experiment(self.trace(spans=[], sample_step=step))

        unavailable = self.write("unavailable.json", [self.experiment(self.trace(
            status="unavailable", reason="libcupti.so.13 not found", sample_step=[]))])
        not_run = self.write("not-run.json", [self.experiment(self.trace(status="not run", sample_step=[]))])
        null = self.write("null-trace.json", [self.experiment(None)])
        text_trace = self.write("text-trace.json", [self.experiment("traced")], validate=False)
        empty = self.write("empty-step.json", [self.experiment(self.trace(spans=[]))])
        backwards = self.write("backwards.json", [broken(1, "end_s", 1e-6)], validate=False)
        text = self.write("text-time.json", [broken(2, "start_s", "27e-6")], validate=False)
        no_end = self.write("no-end.json", [broken(0, "end_s", None)], validate=False)
        stream = self.write("bad-stream.json", [broken(1, "stream_id", -1)], validate=False)
        png = os.path.join(self.out, "x.png")
        cases = [
            ([report("base.json")], "experiments[0]: gemm/K=8192/M=8192/N=8192/alignment_bytes=256"),
            ([report("base.json")], "has no kernel_trace: nothing to draw; run with trace_kernels"),
            ([report("base.json")], "a suite's --kernels"),
            ([null], "has no kernel_trace"),
            ([text_trace], "experiments[0]: kernel_trace is not an object (\"traced\")"),
            ([unavailable], "was not traced: kernel_trace.status is \"unavailable\" (reason: libcupti.so.13 not found)"),
            ([not_run], "kernel_trace.status is \"not run\" (reason: none given)"),
            ([empty], "kernel_trace.sample_step is empty: no activity of the step was recorded"),
            ([backwards], f"{backwards}: experiments[0]: kernel_trace.sample_step[1]: end_s 1e-06 is before start_s 2e-06"),
            ([text], "kernel_trace.sample_step[2]: start_s is not a number (\"27e-6\")"),
            ([no_end], "kernel_trace.sample_step[0]: missing required key \"end_s\""),
            ([stream], "kernel_trace.sample_step[1]: stream_id is not a non-negative integer (-1)"),
            # the candidates by the dimensions that tell them apart
            ([self.two], f"{self.two}: 2 experiments in the report; choose one with --name NAME and --where KEY=VALUE: "
                         "experiments[0]: gemm/dtype=bf16 (traced); experiments[1]: gemm/dtype=fp32 (traced)\n"),
            ([self.two, "--name", "gemm"], "2 experiments match; choose one with --name NAME and --where KEY=VALUE"),
            ([self.two, "--where", "dtype=fp16"], f"{self.two}: no experiment with dtype=fp16 (it has: experiments[0]: "
                                                  "gemm/dtype=bf16 (traced); experiments[1]: gemm/dtype=fp32 (traced))"),
            ([report("multi-base.json")], "3 experiments in the report; choose one"),
            ([report("multi-base.json")], "experiments[2]: copy/bytes=67108864 (no kernel_trace)"),
            ([self.two, "--where", "dtype"], "--where dtype: expected KEY=VALUE"),
            ([self.report, "--name", "nope"], "no experiment named \"nope\" (it has: gemm)"),
            ([self.report, "--data", os.path.join(self.out, "no-such-dir", "d.json")], "no-such-dir does not exist"),
            ([self.report, "-o", os.path.join(self.out, "x.gif")], "extension must be"),
            ([report("missing.json")], "no such file"),
        ]
        for args, message in cases:
            with self.subTest(args=[os.path.basename(args[0])] + args[1:], message=message):
                p = run(sys.executable, PLOT, "trace", *args, *(["-o", png] if "-o" not in args else []))
                self.assertEqual(2, p.returncode, p.stdout + p.stderr)
                self.assertEqual("", p.stdout)
                self.assertEqual(1, p.stderr.count("\n"), p.stderr)
                self.assertTrue(p.stderr.startswith("gauge-plot: error: "), p.stderr)
                self.assertIn(message, p.stderr)
        self.assertFalse(os.path.exists(png))


AB = os.path.join(SOURCE, "tools", "gauge-ab")
FAKE_BENCHMARK = os.path.join(SOURCE, "tests", "data", "ab", "fake_benchmark.py")
FAKE_COMPARE = os.path.join(SOURCE, "tests", "data", "ab", "fake_compare.py")


class AbDriver(unittest.TestCase):
    """tools/gauge-ab: the order of the runs, the reports handed to gauge-compare, the time limit,
    the Markdown summary and the errors, with a fake benchmark (tests/data/ab/fake_benchmark.py: a
    stored report with its samples scaled) and a fake gauge-compare that records its arguments;
    then once end to end with the real gauge-compare."""

    def setUp(self):
        self.dir = scratch(f"ab-{self._testMethodName}")
        shutil.rmtree(self.dir)
        os.makedirs(self.dir)
        self.log = os.path.join(self.dir, "order.log")
        self.compare_log = os.path.join(self.dir, "compare.log")

    def bench(self, tag, factor, *extra):
        return shlex.join([sys.executable, FAKE_BENCHMARK, str(factor), "--tag", tag, "--log", self.log, *extra])

    def ab(self, *args, out="out", compare=FAKE_COMPARE, exit_status=0):
        env = {"FAKE_COMPARE_LOG": self.compare_log, "FAKE_COMPARE_EXIT": str(exit_status)}
        return run(sys.executable, AB, "--compare", compare, "--out-dir", os.path.join(self.dir, out), *args, env=env)

    def order(self):
        with open(self.log) as f:
            return [line.split()[0] for line in f]

    def compare_calls(self):
        if not os.path.exists(self.compare_log):
            return []
        with open(self.compare_log) as f:
            return [json.loads(line) for line in f]

    def test_runs_alternate_abba_and_the_sides_are_split_at_double_dash(self):
        p = self.ab("--base", self.bench("base", 1.0), "--new", self.bench("new", 1.25), "--fail-on-regression",
                    "--threshold", "3%", "--ignore-dimension", "dtype", exit_status=1)
        self.assertEqual(1, p.returncode, p.stderr)  # gauge-compare's exit status is gauge-ab's
        self.assertEqual(["base", "new", "new", "base", "base", "new"], self.order())
        out = os.path.join(self.dir, "out")
        b = [os.path.join(out, f"base-{i}.json") for i in (1, 2, 3)]
        n = [os.path.join(out, f"new-{i}.json") for i in (1, 2, 3)]
        self.assertEqual([["--threshold", "3%", "--ignore-dimension", "dtype", "--format", "text", "--fail-on-regression",
                           *b, "--", *n]], self.compare_calls())
        self.assertIn("fake text", p.stdout)
        stored = gpu_samples(report("base.json"))
        for path in b:
            np.testing.assert_allclose(gpu_samples(path), stored, rtol=1e-12)
        for path in n:
            np.testing.assert_allclose(gpu_samples(path), stored * 1.25, rtol=1e-12)
        with open(os.path.join(out, "runs.json")) as f:
            runs = json.load(f)["runs"]
        self.assertEqual([("base", 1), ("new", 1), ("new", 2), ("base", 2), ("base", 3), ("new", 3)],
                         [(r["side"], r["index"]) for r in runs])
        self.assertEqual([0] * 6, [r["exit_status"] for r in runs])
        self.assertTrue(os.path.exists(os.path.join(out, "new-2.log")))

    def test_one_run_per_side_passes_two_reports_without_double_dash(self):
        p = self.ab("--base", self.bench("base", 1.0), "--new", self.bench("new", 1.0), "--runs", "1", "--format", "json")
        self.assertEqual(0, p.returncode, p.stderr)
        self.assertEqual(["base", "new"], self.order())
        out = os.path.join(self.dir, "out")
        self.assertEqual([["--format", "json", os.path.join(out, "base-1.json"), os.path.join(out, "new-1.json")]],
                         self.compare_calls())

    def test_time_limit_stops_adding_pairs_but_keeps_one_run_each(self):
        # Each run sleeps 1 s: after one pair a side has ~1 s (< 1.5 s), after two ~2 s: stop.
        p = self.ab("--base", self.bench("base", 1.0, "--sleep", "1"), "--new", self.bench("new", 1.0, "--sleep", "1"),
                    "--runs", "5", "--time-limit", "1.5")
        self.assertEqual(0, p.returncode, p.stderr)
        self.assertEqual(["base", "new", "new", "base"], self.order())
        self.assertIn("time limit", p.stderr)
        self.assertEqual(2, self.compare_calls()[0].index("--") - self.compare_calls()[0].index("text") - 1)
        # A limit below one run's time: still one run per side.
        os.remove(self.log)
        p = self.ab("--base", self.bench("base", 1.0, "--sleep", "0.2"), "--new", self.bench("new", 1.0, "--sleep", "0.2"),
                    "--runs", "3", "--time-limit", "0.01", out="tiny")
        self.assertEqual(0, p.returncode, p.stderr)
        self.assertEqual(["base", "new"], self.order())

    def test_markdown_is_appended_under_a_heading(self):
        summary = os.path.join(self.dir, "summary.md")
        with open(summary, "w") as f:
            f.write("# earlier step\n")
        table = "| experiment | verdict |\n|---|---|\n| gemm | same |\n"  # what fake_compare.py prints
        for out in ("one", "two"):
            p = self.ab("--base", self.bench("base", 1.0), "--new", self.bench("new", 1.0), "--runs", "2",
                        "--fail-on-regression", "--markdown", summary, out=out)
            self.assertEqual(0, p.returncode, p.stderr)
        with open(summary) as f:
            text = f.read()
        self.assertTrue(text.startswith("# earlier step\n"), text)
        self.assertEqual(2, text.count(table), text)
        self.assertEqual(2, text.count("### gauge-ab: 2 run(s) per side, gate pass\n"), text)
        # The Markdown comparison is a second call with --format markdown and without the gate.
        calls = self.compare_calls()
        self.assertEqual(4, len(calls))
        self.assertIn("--fail-on-regression", calls[0])
        self.assertEqual(["--format", "markdown"], calls[1][0:2])
        self.assertNotIn("--fail-on-regression", calls[1])
        # A file that does not exist is created.
        fresh = os.path.join(self.dir, "fresh.md")
        p = self.ab("--base", self.bench("base", 1.0), "--new", self.bench("new", 1.0), "--runs", "1",
                    "--markdown", fresh, out="three")
        self.assertEqual(0, p.returncode, p.stderr)
        with open(fresh) as f:
            self.assertIn(table, f.read())

        # Without the gate, the heading does not claim one passed.
        p = self.ab("--base", self.bench("base", 1.0), "--new", self.bench("new", 1.0), "--runs", "1",
                    "--markdown", summary, out="three-b")
        self.assertEqual(0, p.returncode, p.stderr)
        with open(summary) as f:
            self.assertIn("### gauge-ab: 1 run(s) per side, no gate (--fail-on-regression not given)\n", f.read())
        # A summary path in a folder that does not exist is refused before any run.
        p = self.ab("--base", self.bench("base", 1.0), "--new", self.bench("new", 1.0), "--runs", "1",
                    "--markdown", os.path.join(self.dir, "no", "such", "s.md"), out="four")
        self.assertEqual(2, p.returncode)
        self.assertIn("--markdown: the folder of", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "four")))

    def test_a_failing_run_is_named_with_its_stderr_and_earlier_reports_are_kept(self):
        p = self.ab("--base", self.bench("base", 1.0), "--new", self.bench("new", 1.0, "--fail"))
        self.assertEqual(2, p.returncode, p.stderr)
        lines = p.stderr.splitlines()
        error = [line for line in lines if line.startswith("gauge-ab: error: ")]
        self.assertEqual(1, len(error), p.stderr)
        self.assertIn("new run 1 (run 2 of 6) exited with status 3", error[0])
        self.assertIn("base-1.json", error[0])  # kept, and said so
        self.assertEqual(["  fake_benchmark: starting", "  fake_benchmark: step 17 failed", "  fake_benchmark: giving up"],
                         lines[-3:])
        self.assertTrue(os.path.exists(os.path.join(self.dir, "out", "base-1.json")))
        self.assertEqual([], self.compare_calls())
        self.assertEqual(["base", "new"], self.order())  # nothing ran after the failure

    def test_usage_errors_exit_2_with_one_line(self):
        ok = self.bench("base", 1.0)
        cases = [
            (["--base", "/no/such/bench --x", "--new", ok], "--base: program '/no/such/bench' not found"),
            (["--base", ok, "--new", "no-such-program-gauge-ab"], "--new: program 'no-such-program-gauge-ab' not found on PATH"),
            (["--base", ok, "--new", "'unbalanced"], "--new: cannot split"),
            (["--base", ok, "--new", ok, "--runs", "0"], "--runs: 0"),
            (["--base", ok, "--new", ok, "--time-limit", "-1"], "--time-limit: -1"),
            (["--new", ok], "--base"),
        ]
        for args, message in cases:
            with self.subTest(args=args):
                p = self.ab(*args)
                self.assertEqual(2, p.returncode, p.stderr)
                self.assertEqual(1, p.stderr.count("\n"), p.stderr)
                self.assertTrue(p.stderr.startswith("gauge-ab: error: "), p.stderr)
                self.assertIn(message, p.stderr)
        self.assertFalse(os.path.exists(self.log))  # nothing ran
        p = self.ab("--base", ok, "--new", ok, compare=os.path.join(self.dir, "no-compare"))
        self.assertEqual(2, p.returncode)
        self.assertIn("--compare:", p.stderr)

    def test_an_out_dir_with_earlier_reports_is_refused(self):
        out = os.path.join(self.dir, "out")
        os.makedirs(out)
        with open(os.path.join(out, "base-1.json"), "w") as f:
            f.write("{}")
        p = self.ab("--base", self.bench("base", 1.0), "--new", self.bench("new", 1.0))
        self.assertEqual(2, p.returncode)
        self.assertIn("already holds reports of an earlier run (base-1.json)", p.stderr)
        self.assertFalse(os.path.exists(self.log))

    def test_out_flag_glued_and_placeholder(self):
        p = self.ab("--base", self.bench("base", 1.0), "--new", self.bench("new", 1.0), "--runs", "1", "--out-flag=--out=")
        self.assertEqual(0, p.returncode, p.stderr)
        with open(os.path.join(self.dir, "out", "runs.json")) as f:
            self.assertEqual("--out=" + os.path.join(self.dir, "out", "base-1.json"), json.load(f)["runs"][0]["command"][-1])
        place = shlex.join([sys.executable, FAKE_BENCHMARK, "1.0", "--out"]) + " {out} --tag x"
        p = self.ab("--base", place, "--new", place, "--runs", "1", out="placeholder")
        self.assertEqual(0, p.returncode, p.stderr)
        with open(os.path.join(self.dir, "placeholder", "runs.json")) as f:
            command = json.load(f)["runs"][1]["command"]
        self.assertEqual(["--out", os.path.join(self.dir, "placeholder", "new-1.json"), "--tag", "x"], command[-4:])

    def test_end_to_end_one_run_per_side_two_identical_reports_are_the_same(self):
        compare = shutil.which(COMPARE)
        if not compare:
            self.skipTest(f"gauge-compare is not built here ({COMPARE})")
        summary = os.path.join(self.dir, "summary.md")
        p = self.ab("--base", self.bench("base", 1.0), "--new", self.bench("new", 1.0), "--runs", "1",
                    "--fail-on-regression", "--markdown", summary, "--json", os.path.join(self.dir, "c.json"),
                    compare=compare)
        self.assertEqual(0, p.returncode, p.stdout + p.stderr)
        self.assertRegex(p.stdout, r"\ngemm .* same\n")
        with open(os.path.join(self.dir, "c.json")) as f:
            doc = json.load(f)
        self.assertEqual(["same"], [e["verdict"] for e in doc["experiments"]])
        self.assertEqual(1.0, doc["experiments"][0]["ratio"]["estimate"])
        with open(summary) as f:
            self.assertIn("same", f.read())

    def test_end_to_end_three_runs_per_side_where_gauge_compare_takes_them(self):
        compare = shutil.which(COMPARE)
        if not compare:
            self.skipTest(f"gauge-compare is not built here ({COMPARE})")
        probe = run(compare, report("base.json"), report("same.json"), "--", report("base.json"), report("same.json"))
        if probe.returncode != 0:
            self.skipTest("this gauge-compare takes two reports only (no `base... -- new...`)")
        p = self.ab("--base", self.bench("base", 1.0), "--new", self.bench("new", 1.0), "--runs", "3",
                    "--fail-on-regression", compare=compare)
        self.assertEqual(0, p.returncode, p.stdout + p.stderr)
        self.assertRegex(p.stdout, r"\ngemm .* same")


if __name__ == "__main__":
    result = unittest.main(argv=[sys.argv[0], "-v"] + sys.argv[1:], exit=False).result
    if not result.wasSuccessful():
        sys.exit(1)
    # Every test skipped (e.g. an example that is not built): exit 77, which CTest reports as skipped.
    sys.exit(77 if result.testsRun and len(result.skipped) == result.testsRun else 0)
