#!/usr/bin/python3
"""Validate `fdewiz list --json` output against data/fdewiz-list.schema.json (Draft 2020-12).

Usage: check-list-schema.py JSON_FILE [SCHEMA_FILE]
The schema defaults to $FDEWIZ_SCHEMA, then to ../../data/ next to this script.
Exit 0 valid, 1 invalid (every error printed), 2 usage or unreadable input.
"""
import json
import os
import sys

try:
    from jsonschema import Draft202012Validator
except ImportError:
    print("check-list-schema: the python3 jsonschema module is missing "
          "(apt-get install python3-jsonschema, or run tests/install-deps.sh test)",
          file=sys.stderr)
    sys.exit(1)


def default_schema():
    env = os.environ.get("FDEWIZ_SCHEMA")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(here, "..", "..", "data", "fdewiz-list.schema.json")


def load(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print(f"check-list-schema: cannot read {what} {path}: {e}", file=sys.stderr)
        sys.exit(2 if what == "schema" else 1)


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    data = load(sys.argv[1], "JSON output")
    schema = load(sys.argv[2] if len(sys.argv) == 3 else default_schema(), "schema")
    Draft202012Validator.check_schema(schema)
    errors = sorted(Draft202012Validator(schema).iter_errors(data),
                    key=lambda e: list(e.absolute_path))
    for e in errors:
        where = "/".join(str(p) for p in e.absolute_path) or "(top)"
        print(f"check-list-schema: {sys.argv[1]}: at {where}: {e.message}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
