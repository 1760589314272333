#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Checks cephprov's --json documents against their schemas (docs/schema/, docs/json.md):
# each FILE is one document; its `kind` names the schema (drain, destroy, run, convert and
# replace share playbook-run.json, pause and resume pause.json); EXPECTED-KIND, when given as
# FILE=KIND, must be its kind. Prints one line per document and exits 1 when any failed,
# 77 (skip) without python3-jsonschema (Debian's package; contrib/install-deps.sh installs it).
# usage: json-schema-check.py SCHEMA-DIR FILE[=KIND]...
import json
import os
import sys

try:
    import jsonschema
except ImportError:
    print("SKIP: python3-jsonschema is not installed (apt-get install python3-jsonschema, or contrib/install-deps.sh)")
    sys.exit(77)

SHARED = {"drain": "playbook-run", "destroy": "playbook-run", "run": "playbook-run", "convert": "playbook-run",
          "replace": "playbook-run", "resume": "pause"}


def load_schemas(d):
    schemas = {}
    for name in sorted(os.listdir(d)):
        if name.endswith(".json"):
            with open(os.path.join(d, name)) as f:
                s = json.load(f)
            jsonschema.Draft202012Validator.check_schema(s)
            schemas[name[:-5]] = jsonschema.Draft202012Validator(s)
    return schemas


def main():
    schemas = load_schemas(sys.argv[1])
    failed = 0
    for arg in sys.argv[2:]:
        path, _, want = arg.partition("=")
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print("FAIL %s: not one JSON document: %s" % (path, e))
            failed += 1
            continue
        kind = doc.get("kind") if isinstance(doc, dict) else None
        if want and kind != want:
            print("FAIL %s: kind %r, expected %r" % (path, kind, want))
            failed += 1
            continue
        name = SHARED.get(kind, kind)
        if name not in schemas:
            print("FAIL %s: kind %r has no schema in %s" % (path, kind, sys.argv[1]))
            failed += 1
            continue
        errors = sorted(schemas[name].iter_errors(doc), key=lambda e: list(e.absolute_path))
        if errors:
            failed += 1
            for e in errors[:5]:
                print("FAIL %s (%s): at /%s: %s" % (path, kind, "/".join(str(p) for p in e.absolute_path), e.message[:300]))
        else:
            print("ok   %s (%s)" % (path, kind))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
