#!/usr/bin/env python3
"""Validate a tool's --json output against share/asmevo/report.schema.json.

usage: validate_report.py SCHEMA REPORT.json TOOL OUTCOME EXIT
Exit 0 when REPORT is exactly one JSON document that the schema accepts and whose tool, outcome
and exit_code are the ones given; 1 with the reason otherwise.
"""
import json
import sys

import jsonschema


def main():
    schema_path, report_path, tool, outcome, exit_code = sys.argv[1:6]
    with open(schema_path) as f:
        schema = json.load(f)
    with open(report_path) as f:
        text = f.read()
    try:
        report = json.loads(text)
    except json.JSONDecodeError as e:
        print(f"not one JSON document: {e}: {text[:200]!r}")
        return 1
    try:
        jsonschema.validate(report, schema, cls=jsonschema.Draft202012Validator)
    except jsonschema.ValidationError as e:
        print(f"schema: {e.message} at {list(e.absolute_path)}")
        return 1
    for key, want in (("tool", tool), ("outcome", outcome), ("exit_code", int(exit_code))):
        if report[key] != want:
            print(f"{key} is {report[key]!r}, expected {want!r}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
