#!/usr/bin/env python3
"""Validates gauge reports against the report's JSON Schema (draft-07), strictly (NaN rejected).

usage: validate_report.py SCHEMA REPORT...

Exit status 0 when every report validates; 1 otherwise, with one line per error:
"REPORT: at experiments/0/gpu_time_s: 'p50' is a required property". Needs python3-jsonschema.
"""
import json
import sys


def reject(constant):
    raise ValueError(f"non-finite number {constant} (gauge writes null)")


def main(argv):
    if len(argv) < 3:
        sys.exit("usage: validate_report.py SCHEMA REPORT...")
    try:
        import jsonschema
    except ImportError:
        sys.exit("validate_report.py needs jsonschema (Debian: apt install python3-jsonschema)")
    with open(argv[1]) as f:
        schema = json.load(f)
    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(schema)
    failures = 0
    for path in argv[2:]:
        try:
            with open(path) as f:
                doc = json.load(f, parse_constant=reject)
        except (OSError, ValueError) as e:
            print(f"{path}: {e}")
            failures += 1
            continue
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
        for e in errors:
            print(f"{path}: at {'/'.join(str(p) for p in e.path) or '(top)'}: {e.message}")
        failures += bool(errors)
        if not errors:
            print(f"{path}: valid")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
