#!/usr/bin/env bash
# Reports are written without /proc (issue "Every user's first day": "without /proc every report
# write fails after the run"). gauge links its anonymous temporary file in through /proc/self/fd;
# where /proc is absent it writes a named temporary file and renames it instead. This test runs
# gauge_write_reports once as it is and once in a mount namespace whose /proc is an empty tmpfs
# (unshare -m, as root; else `unshare -rm`), and checks that the second writes the same set of
# reports, each valid JSON with the same schema_version, and leaves no temporary file behind.
# Exit 77 (CTest: skipped) where no such namespace can be made here.
#
#   no_proc_write.sh GAUGE_WRITE_REPORTS PYTHON
set -euo pipefail
writer=$1 python=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/with" "$work/without"
hide='mount -t tmpfs none /proc && test ! -e /proc/self/fd'
if unshare -m sh -c "$hide" 2>/dev/null; then ns=(unshare -m)
elif unshare -rm sh -c "$hide" 2>/dev/null; then ns=(unshare -rm)
else echo "no mount namespace can be made here (unshare -m / -rm): skipped"; exit 77; fi
"$writer" "$work/with" >/dev/null
"${ns[@]}" sh -c "$hide && exec \"\$0\" \"\$1\"" "$writer" "$work/without" >"$work/log" 2>&1 || {
  cat "$work/log"; echo "FAIL: gauge_write_reports without /proc exited non-zero"; exit 1; }
"$python" - "$work/with" "$work/without" <<'PY'
import json, os, sys
with_dir, without_dir = sys.argv[1], sys.argv[2]
a, b = sorted(os.listdir(with_dir)), sorted(os.listdir(without_dir))
left = [n for n in b if n.startswith(".gauge-tmp-")]
assert not left, f"temporary files left behind without /proc: {left}"
assert a == b, f"without /proc the writer wrote {b}, with it {a}"
assert len(a) >= 3, f"too few reports written: {a}"
for name in b:
    if not name.endswith(".json"):
        continue
    with open(os.path.join(without_dir, name)) as f:
        doc = json.load(f)
    with open(os.path.join(with_dir, name)) as f:
        ref = json.load(f)
    assert doc.get("schema_version") == ref.get("schema_version"), name
print(f"{len(b)} reports written without /proc, as with it")
PY
