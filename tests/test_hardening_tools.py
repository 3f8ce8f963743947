"""Hardening of the tools (issue 11): each failing input of the adversarial review, run through
gauge-export, gauge-compare and gauge-plot, with the expected output computed here (NumPy, the csv
module, counts made by construction).

Run by CTest, one test per class: python3 tests/test_hardening_tools.py CLASS.
"""
import copy
import csv
import io
import json
import os
import resource
import signal
import subprocess
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_tools import COMPARE, EXPORT, PLOT, SCHEMA as SCHEMA_PATH, report, run, scratch  # noqa: E402

EXIT_OUTPUT = 74  # sysexits.h's EX_IOERR: standard output or the plot could not be written


def base_doc():
    with open(report("base.json")) as f:
        return json.load(f)


def write_doc(directory, name, doc):
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def write_text(directory, name, text):
    path = os.path.join(directory, name)
    with open(path, "wb") as f:
        f.write(text if isinstance(text, bytes) else text.encode())
    return path


def run_bytes(*args, stdout=subprocess.PIPE, preexec_fn=None):
    env = dict(os.environ, MPLBACKEND="Agg")
    return subprocess.run([str(a) for a in args], stdout=stdout, stderr=subprocess.PIPE, env=env, timeout=300,
                          preexec_fn=preexec_fn)


def hostile_inputs(directory):
    """The review's inputs: 100,000 nested brackets under "schema" (200 KB), and [1e309]."""
    deep = write_text(directory, "deep.json", '{"schema":' + "[" * 100000 + "]" * 100000 + "}")
    big = write_text(directory, "big.json", "[1e309]")
    return deep, big


class HardeningExport(unittest.TestCase):
    """gauge-export and gauge-compare on hostile reports and unwritable output."""

    def test_deep_nesting_and_huge_numbers_exit_2_with_one_line(self):
        deep, big = hostile_inputs(scratch("hardening-read"))
        for tool, args in [(EXPORT, [deep]), (COMPARE, [deep, deep]), (EXPORT, [big]), (COMPARE, [report("base.json"), big])]:
            with self.subTest(tool=os.path.basename(tool), report=os.path.basename(args[-1])):
                p = run(tool, *args)
                self.assertEqual(2, p.returncode, p.stderr)  # before: -11 (SIGSEGV) for deep.json
                self.assertEqual(1, len(p.stderr.splitlines()), p.stderr)
                expected = "nested deeper than 256 levels" if args[-1] == deep else "number out of range of a double"
                self.assertIn(expected, p.stderr)

    def test_an_unwritable_standard_output_exits_74(self):
        for tool, args in [(EXPORT, [report("base.json")]), (EXPORT, [report("base.json"), "--format", "csv"]),
                           (COMPARE, [report("base.json"), report("same.json")])]:
            with self.subTest(tool=os.path.basename(tool), args=args[1:]):
                with open("/dev/full", "wb") as full:
                    p = run_bytes(tool, *args, stdout=full)
                stderr = p.stderr.decode()
                self.assertEqual(EXIT_OUTPUT, p.returncode, stderr)  # before: 0
                self.assertIn("cannot write standard output: No space left on device", stderr)
                self.assertEqual(1, len(stderr.splitlines()), stderr)

    def hostile_name_report(self):
        doc = base_doc()
        doc["experiments"][0]["name"] = "a\u0000b\r\n|c"
        doc["experiments"][0]["dimensions"]["dtype"] = "bf\r16|x"
        return write_doc(scratch("hardening-names"), "names.json", doc)

    def test_nul_cr_lf_and_pipe_in_names_are_escaped(self):
        path = self.hostile_name_report()
        # CSV: one record; CR and LF kept inside quotes (RFC 4180), the NUL made visible.
        p = run_bytes(EXPORT, path, "--format", "csv")
        self.assertEqual(0, p.returncode, p.stderr)
        self.assertNotIn(b"\x00", p.stdout)
        rows = list(csv.DictReader(io.StringIO(p.stdout.decode(), newline="")))
        self.assertEqual(1, len(rows))
        self.assertEqual("a\\0b\r\n|c", rows[0]["name"])
        self.assertEqual("bf\r16|x", rows[0]["dim.dtype"])
        # Markdown: header, separator and exactly one row with as many cells as the header (whose
        # names hold no '|'): the names' '|' escaped, none of them a cell boundary.
        p = run_bytes(EXPORT, path, "--format", "markdown")
        self.assertEqual(0, p.returncode, p.stderr)
        text = p.stdout.decode()
        self.assertNotIn("\x00", text)
        self.assertNotIn("\r", text)
        lines = text.split("\n")
        self.assertEqual(["", ], lines[3:])  # before: the row was cut at the NUL / broken by CR, LF
        row = lines[2]
        unescaped = sum(1 for i, ch in enumerate(row) if ch == "|" and (i == 0 or row[i - 1] != "\\"))
        self.assertEqual(lines[0].count("|"), unescaped, row)
        self.assertGreaterEqual(unescaped, 9)
        # detail::escape::markdown_cell: NUL, CR, LF shown as \0, \r, \n with the backslash itself
        # escaped (so GitHub renders "a\0b\r\n|c"), '|' escaped.
        self.assertIn("a\\\\0b\\\\r\\\\n\\|c", row)
        # Console: the name visible on one line.
        p = run_bytes(EXPORT, path, "--format", "console")
        self.assertEqual(0, p.returncode, p.stderr)
        self.assertNotIn(b"\x00", p.stdout)
        self.assertIn(b"a\\0b\\r\\n|c", p.stdout)

    def test_terminal_escape_sequences_in_names_never_reach_the_terminal(self):
        # ESC [2J clears the screen, ESC ]0; retitles the window, C2 9B is the C1 CSI: a report's
        # name must not drive the terminal of whoever reads the report.
        doc = base_doc()
        doc["experiments"][0]["name"] = "gemm\x1b[2J\x1b]0;pwned\x07\u009b31m"
        path = write_doc(scratch("hardening-escape"), "escape.json", doc)
        outputs = [run_bytes(EXPORT, path, "--format", f) for f in ("console", "markdown", "csv")]
        outputs.append(run_bytes(COMPARE, path, path))
        outputs.append(run_bytes(COMPARE, path, path, "--format", "markdown"))
        for p in outputs:
            for stream in (p.stdout, p.stderr):
                self.assertNotIn(b"\x1b", stream)
                self.assertNotIn(b"\x07", stream)
                self.assertNotIn(b"\xc2\x9b", stream)
        self.assertIn(b"gemm\\x1b[2J", outputs[0].stdout)  # shown as an escape, readable
        # An error line naming the bad text: the same.
        bad = write_doc(scratch("hardening-escape"), "bad.json", {"schema": "\x1b[2J"})
        p = run_bytes(EXPORT, bad)
        self.assertEqual(2, p.returncode)
        self.assertNotIn(b"\x1b", p.stderr)
        # JSON output keeps its own escaping (\u001b), unchanged.
        p = run_bytes(EXPORT, path, "--format", "gbench")
        self.assertEqual(0, p.returncode, p.stderr)
        self.assertIn("gemm\x1b[2J", json.loads(p.stdout)["benchmarks"][0]["name"])

    def test_gbench_writes_at_most_100_repetitions_and_the_aggregates(self):
        # 100,000 samples and a name of 1,000 bytes. Before: one entry per sample, each carrying the
        # name: about 130 MB. Google Benchmark's shape: repetitions (here 100 groups of 1,000
        # consecutive samples, each its mean), then _mean and _median (gauge's own, from the
        # result's summary), _stddev and _cv over the repetitions.
        doc = base_doc()
        e = doc["experiments"][0]
        rng = np.random.default_rng(11)
        samples = 1e-3 + 1e-5 * rng.standard_normal(100000)
        e["samples"]["gpu_time_per_step_s"] = samples.tolist()
        # The summary of these samples, consistent as the reader requires (order statistics in order,
        # the median's interval holding the median): NumPy's percentiles (type 7, gauge's method).
        g = e["gpu_time_s"]
        for key in ["p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99"]:
            if key in g:
                g[key] = float(np.percentile(samples, float(key[1:])))
        g["min"], g["max"], g["mean"] = float(samples.min()), float(samples.max()), float(np.mean(samples))
        if isinstance(g.get("median_ci"), dict):
            g["median_ci"]["low"] = float(np.percentile(samples, 49.7))
            g["median_ci"]["high"] = float(np.percentile(samples, 50.3))
        e["dimensions"]["long"] = "x" * 1000
        path = write_doc(scratch("hardening-gbench"), "many.json", doc)
        self.assertGreater(os.path.getsize(path), 1_000_000)
        p = run_bytes(EXPORT, path, "--format", "gbench")
        self.assertEqual(0, p.returncode, p.stderr)
        self.assertLess(len(p.stdout), 400_000)
        b = json.loads(p.stdout)["benchmarks"]
        iterations = [x for x in b if x["run_type"] == "iteration"]
        aggregates = {x["aggregate_name"]: x for x in b if x["run_type"] == "aggregate"}
        self.assertEqual(100, len(iterations))
        means = samples.reshape(100, 1000).mean(axis=1)
        steps_per_sample = e["sampling"]["steps_per_sample"]
        for i, x in enumerate(iterations):
            self.assertEqual(i, x["repetition_index"])
            self.assertEqual(100, x["repetitions"])
            self.assertEqual(1000 * steps_per_sample, x["iterations"])
            self.assertAlmostEqual(means[i] * 1e9, x["real_time"], delta=1e-6)
        self.assertEqual({"mean", "median", "stddev", "cv"}, set(aggregates))
        self.assertAlmostEqual(float(np.median(samples)) * 1e9, aggregates["median"]["real_time"], delta=1e-6)
        self.assertAlmostEqual(float(np.mean(samples)) * 1e9, aggregates["mean"]["real_time"], delta=1e-6)
        self.assertAlmostEqual(float(np.std(means, ddof=1)) * 1e9, aggregates["stddev"]["real_time"], delta=1e-6)

    def test_gbench_marks_failures_with_error_occurred_and_omits_an_unknown_governor(self):
        with open(report("failed.json")) as f:
            failed = json.load(f)
        p = run(EXPORT, report("failed.json"), "--format", "gbench")
        self.assertEqual(0, p.returncode, p.stderr)
        out = json.loads(p.stdout)
        errors = [x for x in out["benchmarks"] if x.get("error_occurred")]
        expected = [e for e in failed["experiments"] if e["status"] == "failed"]
        self.assertEqual(len(expected), len(errors))
        self.assertEqual(expected[0]["error"], errors[0]["error_message"])
        self.assertEqual(0, errors[0]["iterations"])
        # base.json's governor is null (unknown): no cpu_scaling_enabled. Known: written.
        self.assertNotIn("cpu_scaling_enabled", json.loads(run(EXPORT, report("base.json")).stdout)["context"])
        directory = scratch("hardening-governor")
        for governor, scaling in [("performance", False), ("powersave", True)]:
            doc = base_doc()
            doc["environment"]["host"]["cpu"]["governor"] = governor
            p = run(EXPORT, write_doc(directory, governor + ".json", doc))
            self.assertEqual(0, p.returncode, p.stderr)
            self.assertIs(scaling, json.loads(p.stdout)["context"]["cpu_scaling_enabled"])


class SchemaAgreement(unittest.TestCase):
    """The C++ reader refuses every report the schema refuses (issue 25: it took a kernel_trace.status
    outside its enum and a negative period_s). Second method: Python's jsonschema (Draft 7), on
    reports mutated one leaf at a time from the stored ones (seeded, so a failure repeats)."""

    MUTANTS = 160

    def test_every_report_jsonschema_refuses_gauge_export_refuses_too(self):
        import random
        import jsonschema
        with open(SCHEMA_PATH) as f:
            validator = jsonschema.Draft7Validator(json.load(f))
        rng = random.Random(25)
        directory = scratch("schema-agreement")
        sources = [base_doc()]
        with open(report("telemetry.json")) as f:
            sources.append(json.load(f))

        def leaves(node, path):
            # Every key's value, and the first 2 entries of each array (not all 10^3 samples).
            if isinstance(node, dict):
                for k, v in node.items():
                    yield path + [k]
                    yield from leaves(v, path + [k])
            elif isinstance(node, list):
                for i, v in enumerate(node[:2]):
                    yield path + [i]
                    yield from leaves(v, path + [i])

        replacements = ["half traced", "", -1, -1.5, 0, 0.5, 65, 1e300, None, True, [], {}, "UPPER case"]
        refused_by_schema = refused_by_both = refused_by_gauge_only = 0
        for m in range(self.MUTANTS):
            doc = copy.deepcopy(sources[m % len(sources)])
            paths = list(leaves(doc, []))
            path = paths[rng.randrange(len(paths))]
            parent = doc
            for key in path[:-1]:
                parent = parent[key]
            if isinstance(parent, dict) and rng.random() < 0.15:
                del parent[path[-1]]
                change = "deleted"
            else:
                value = rng.choice(replacements)
                parent[path[-1]] = value
                change = "= " + json.dumps(value)
            schema_ok = validator.is_valid(doc)
            out = run(EXPORT, "--format", "csv", write_doc(directory, "m%d.json" % m, doc))
            where = "/".join(map(str, path)) + " " + change
            self.assertIn(out.returncode, (0, 2), where + ": " + out.stderr)
            if not schema_ok:
                refused_by_schema += 1
                self.assertEqual(2, out.returncode, where + ": the schema refuses it, gauge-export read it")
                self.assertEqual(1, out.stderr.strip().count("\n") + 1, out.stderr)
                refused_by_both += 1
            elif out.returncode == 2:
                refused_by_gauge_only += 1  # the reader's own checks (a summary's order, a record's fields)
        print("mutants %d: refused by the schema %d (by gauge too: %d); refused by gauge only %d"
              % (self.MUTANTS, refused_by_schema, refused_by_both, refused_by_gauge_only))
        self.assertGreater(refused_by_schema, self.MUTANTS // 4)  # the mutations do reach the schema's rules


class HardeningPlot(unittest.TestCase):
    """gauge-plot: a one-line error (no traceback) or a plot, for each of the review's inputs."""

    def plot(self, *args, preexec_fn=None):
        p = run_bytes(sys.executable, PLOT, *args, preexec_fn=preexec_fn)
        return p.returncode, p.stderr.decode("utf-8", "replace")

    def assert_one_line_error(self, rc, stderr, code, text):
        self.assertEqual(code, rc, stderr)
        self.assertNotIn("Traceback", stderr)
        self.assertEqual(1, len(stderr.splitlines()), stderr)
        self.assertIn(text, stderr)

    def test_invalid_utf8_and_deep_nesting_are_one_line_errors(self):
        directory = scratch("hardening-plot-bad")
        deep, _ = hostile_inputs(directory)
        raw = json.dumps(base_doc()).encode().replace(b'"gemm"', b'"g\xffemm"', 1)
        bad_utf8 = write_text(directory, "utf8.json", raw)
        out = os.path.join(directory, "x.png")
        at = raw.index(b"\xff")
        rc, err = self.plot("timeline", bad_utf8, "-o", out)
        self.assert_one_line_error(rc, err, 2, f"invalid UTF-8 at byte {at}")
        rc, err = self.plot("compare", deep, deep, "-o", out)
        self.assert_one_line_error(rc, err, 2, "JSON nested deeper than 256 levels")
        self.assertFalse(os.path.exists(out))

    def test_all_zero_samples_a_mathtext_name_and_a_lone_surrogate_are_plotted(self):
        directory = scratch("hardening-plot-ok")
        zero = base_doc()
        e = zero["experiments"][0]
        for key in ("gpu_time_per_step_s", "wall_time_per_step_s"):
            e["samples"][key] = [0.0] * len(e["samples"][key])
        for point in e["warmup"]["curve"]:
            point["time_per_step_s"] = 0.0
        math_name = base_doc()
        math_name["experiments"][0]["name"] = "$\\frac{a$"  # not valid TeX: mathtext would raise
        surrogate = json.dumps(base_doc()).replace('"name": "gemm"', '"name": "g\\ud800emm"', 1)
        cases = [("zero.json", json.dumps(zero)), ("math.json", json.dumps(math_name)), ("surrogate.json", surrogate)]
        for name, text in cases:
            path = write_text(directory, name, text)
            for command in (["timeline", path], ["compare", path, path]):
                for ext in ("png", "svg"):
                    with self.subTest(report=name, command=command[0], ext=ext):
                        out = os.path.join(directory, f"{name}-{command[0]}.{ext}")
                        rc, err = self.plot(*command, "-o", out)
                        self.assertEqual(0, rc, err)
                        self.assertNotIn("Traceback", err)
                        self.assertGreater(os.path.getsize(out), 1000)

    def test_a_full_disk_is_a_one_line_error_and_leaves_no_file(self):
        directory = scratch("hardening-plot-full")
        out = os.path.join(directory, "full.png")
        if os.path.exists(out):
            os.unlink(out)

        def small_files():  # a "full disk": files may not grow past 4 KiB (EFBIG instead of SIGXFSZ)
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

        # matplotlib writes its font cache on first use; a first plot without the limit writes it,
        # so only gauge-plot's own output meets the "full disk" (on a fresh machine the cache
        # write would add its own line).
        warm = os.path.join(scratch("hardening-plot-warm"), "warm.png")
        self.assertEqual(0, self.plot("timeline", report("base.json"), "-o", warm)[0])
        rc, err = self.plot("timeline", report("base.json"), "-o", out, preexec_fn=small_files)
        self.assert_one_line_error(rc, err, EXIT_OUTPUT, f"cannot write {out}: File too large")
        self.assertEqual([], os.listdir(directory))  # no 0-byte PNG, no temporary file


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1] + sys.argv[1:], verbosity=2)
