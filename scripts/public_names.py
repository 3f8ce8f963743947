#!/usr/bin/env python3
"""Counts gauge's public names and checks them against the README's table (issue "Compiled once").

A public name is a name declared directly in namespace `gauge` (a type, function, variable, alias or
namespace), or directly in one of the user-facing sub-namespaces `gauge::catch2` and `gauge::mpi`
(written `catch2::X`, `mpi::X`), and a macro the table lists that a public header #defines
(`GAUGE_BENCHMARK`). Everything in `gauge::detail` is machinery, and so is every name
inside another sub-namespace of `gauge` (the namespace itself counts once, e.g. `warning_code`).
The members of the eight sub-namespaces by concept (`stats`, `records`, `env`, `peaks`, `compare`,
`formats`, `suite`, `backend_parts`) are listed in full in docs/names.md, whose tables (first column:
`stats::summarize`, ...) are checked against the headers the same way.

The names come from the compiler, not from a text search: clang++ parses one translation unit that
includes every public header under include/gauge/ (gauge/mpi.hpp and gauge/mpi/ only where <mpi.h>
is found; gauge/catch2.hpp with Catch2 v2 or v3, whichever is installed) and lists every declaration
(`-Xclang -ast-list`, which prints qualified names).

The README's table is the one under the heading "## Public names": its first column holds the
names in backticks (`Experiment`, `catch2::no_slower_than`), one or several per row; the count the
section's text quotes ("agree: N names") must be the headers' count too. Exit status: 0 when the two sets agree
(and prints the count), 1 when they differ (prints both differences), 2 when clang++ or the README
table is missing, 77 (CTest's skip code) with --skip-without-clang when no clang++ exists.

  scripts/public_names.py [--root DIR] [--list] [--skip-without-clang]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

USER_NAMESPACES = ("catch2", "mpi")
# Sub-namespaces by concept: each counts once in the README; docs/names.md lists their members.
CONCEPT_NAMESPACES = ("stats", "records", "env", "peaks", "compare", "formats", "suite", "backend_parts")
# The inline namespaces of the compile mode (gauge/detail/compile_mode.hpp): an ABI tag that keeps a
# type compiled by nvcc apart from the same type compiled by g++; transparent, never written.
INLINE_NAMESPACES = ("host_compiled", "cuda_compiled")


def headers(root):
    inc = os.path.join(root, "include")
    out = []
    for dirpath, _, files in os.walk(os.path.join(inc, "gauge")):
        for f in files:
            if f.endswith(".hpp"):
                out.append(os.path.relpath(os.path.join(dirpath, f), inc).replace(os.sep, "/"))
    return sorted(out)


def mpi_include():
    for d in ("/usr/lib/x86_64-linux-gnu/openmpi/include", "/usr/include/x86_64-linux-gnu/openmpi",
              "/usr/lib/aarch64-linux-gnu/openmpi/include", "/usr/include/openmpi", "/usr/include"):
        if os.path.isfile(os.path.join(d, "mpi.h")):
            return d
    return None


def compiler_names(root, clang):
    mpi = mpi_include()
    hs = [h for h in headers(root) if mpi or not (h == "gauge/mpi.hpp" or h.startswith("gauge/mpi/"))]
    # The implementation headers hold definitions only (their names are declared elsewhere).
    with tempfile.NamedTemporaryFile("w", suffix=".cpp", delete=False) as f:
        f.write("".join('#include <%s>\n' % h for h in hs))
        tu = f.name
    cmd = [clang, "-std=c++17", "-fsyntax-only", "-I", os.path.join(root, "include"), "-DOMPI_SKIP_MPICXX"]
    for d in ("/usr/local/cuda/include",):
        if os.path.isdir(d):
            cmd += ["-isystem", d]
    if mpi:
        cmd += ["-isystem", mpi]
    cmd += ["-Xclang", "-ast-list", tu]
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    finally:
        os.unlink(tu)
    if p.returncode != 0:
        sys.stderr.write("public_names: clang++ could not parse the public headers:\n" + p.stderr[-4000:])
        sys.exit(2)
    names = set()
    members = set()
    for line in p.stdout.splitlines():
        q = line.strip()
        if not q.startswith("gauge::"):
            continue
        parts = [x for x in q.split("::")[1:] if x not in INLINE_NAMESPACES]
        # (to_json, from_json and to_string there: the hooks gauge::to_json, ... names, found by ADL.)
        if len(parts) == 2 and parts[0] in CONCEPT_NAMESPACES and re.match(r"^[A-Za-z_][A-Za-z_0-9]*$", parts[1]) \
                and parts[1] not in ("to_json", "from_json", "to_string"):
            members.add(parts[0] + "::" + parts[1])
        if not parts or not re.match(r"^[A-Za-z_][A-Za-z_0-9]*$", parts[0]) or parts[0] == "detail":
            continue
        if len(parts) == 1:
            names.add(parts[0])
        elif parts[0] in USER_NAMESPACES and len(parts) == 2 and re.match(r"^[A-Za-z_][A-Za-z_0-9]*$", parts[1]):
            if parts[1] != "detail":
                names.add(parts[0] + "::" + parts[1])
    # A user-facing namespace is not itself a name in the table: its members are.
    names -= set(USER_NAMESPACES)
    return names, members


def readme_names(root):
    path = os.path.join(root, "README.md")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^## Public names[^\n]*\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    if not m:
        sys.stderr.write("public_names: README.md has no section '## Public names'\n")
        sys.exit(2)
    names = set()
    dupes = []
    for row in m.group(1).splitlines():
        if not row.startswith("|") or re.match(r"^\|\s*-", row):
            continue
        first = row.split("|")[1]
        for n in re.findall(r"`([^`]+)`", first):
            n = re.sub(r"\(.*", "", n).strip()  # `run()` or `gate(c)` name `run`, `gate`
            n = re.sub(r"<.*", "", n).strip()   # `Experiment<Step>` names `Experiment`
            if n.startswith("gauge::"):
                n = n[len("gauge::"):]
            if n:
                if n in names:
                    dupes.append(n)
                names.add(n)
    if dupes:
        sys.stderr.write("public_names: listed more than once in README.md's table: %s\n" % " ".join(sorted(set(dupes))))
        sys.exit(1)
    return names


def names_page(root):
    """The names docs/names.md's tables list (first column, `stats::summarize`), or None without the page."""
    path = os.path.join(root, "docs", "names.md")
    if not os.path.isfile(path):
        return None
    names = set()
    with open(path, encoding="utf-8") as f:
        for row in f.read().splitlines():
            if row.startswith("|") and not re.match(r"^\|\s*-", row):
                names.update(n for n in re.findall(r"`([^`]+)`", row.split("|")[1]) if "::" in n)
    return names


def readme_quoted_count(root):
    """The count the section quotes ("... agree: 267 names."), or None where it quotes none."""
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^## Public names[^\n]*\n(.*?)(?=^\| )", text, re.S | re.M)
    n = re.search(r"agree: (\d+) names", m.group(1)) if m else None
    return int(n.group(1)) if n else None


def macro_defined(root, name):
    inc = os.path.join(root, "include", "gauge")
    pattern = re.compile(r"^\s*#\s*define\s+" + re.escape(name) + r"\b", re.M)
    for dirpath, _, files in os.walk(inc):
        for f in files:
            if f.endswith(".hpp"):
                with open(os.path.join(dirpath, f), encoding="utf-8", errors="replace") as h:
                    code = re.sub(r"/\*.*?\*/", "", h.read(), flags=re.S)  # a #define in a comment defines nothing
                    if pattern.search(re.sub(r"//[^\n]*", "", code)):
                        return True
    return False


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--list", action="store_true", help="print every public name the compiler sees")
    ap.add_argument("--skip-without-clang", action="store_true", help="exit 77 (skipped) where clang++ is missing")
    a = ap.parse_args()
    clang = shutil.which("clang++")
    if not clang:
        sys.stderr.write("public_names: clang++ not found (Debian: apt-get install clang)\n")
        sys.exit(77 if a.skip_without_clang else 2)
    seen, members = compiler_names(a.root, clang)
    if a.list:
        print("\n".join(sorted(seen)))
        print("\n".join(sorted(members)))
    listed = readme_names(a.root)
    # Macros (GAUGE_BENCHMARK, ...) are not declarations: a listed macro must be #defined in a
    # public header, and then counts as a public name.
    for n in sorted(x for x in listed if re.match(r"^GAUGE_[A-Z0-9_]+$", x)):
        if macro_defined(a.root, n):
            seen.add(n)
    missing, extra = sorted(seen - listed), sorted(listed - seen)
    print("public names: %d in the headers, %d in README.md's table" % (len(seen), len(listed)))
    quoted = readme_quoted_count(a.root)
    if quoted is None:
        print("README.md's section '## Public names' quotes no count ('agree: N names') before its table")
        extra = extra or ["(the quoted count)"]
    elif quoted != len(seen):
        print("README.md says %d names; the headers have %d" % (quoted, len(seen)))
        extra = extra or ["(the quoted count)"]
    if missing:
        print("in the headers, not in the README's table (%d): %s" % (len(missing), " ".join(missing)))
    if extra:
        print("in the README's table, not a public name (%d): %s" % (len(extra), " ".join(extra)))
    page = names_page(a.root)
    page_missing, page_extra = sorted(members - (page or set())), sorted((page or set()) - members)
    print("sub-namespace members: %d in the headers, %d in docs/names.md" % (len(members), len(page or ())))
    if page_missing:
        print("in the headers, not in docs/names.md (%d): %s" % (len(page_missing), " ".join(page_missing)))
    if page_extra:
        print("in docs/names.md, not in the headers (%d): %s" % (len(page_extra), " ".join(page_extra)))
    sys.exit(1 if missing or extra or page_missing or page_extra else 0)


if __name__ == "__main__":
    main()
