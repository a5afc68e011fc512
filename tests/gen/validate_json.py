#!/usr/bin/env python3
"""validate_json.py — check JSON outputs against gpuflame's JSON Schemas.

Usage: validate_json.py SCHEMA FILE...

Validates each FILE with python3-jsonschema (Draft 2020-12) against SCHEMA
(docs/schema/*.schema.json). Prints "ok N" when all are valid, else one line
per invalid file ("FILE: path: message") and exits 1. Exits 3 when jsonschema
is not installed (the caller SKIPs).
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    print('python3-jsonschema is not installed')
    sys.exit(3)


def main():
    schema = json.load(open(sys.argv[1], encoding='utf-8'))
    jsonschema.Draft202012Validator.check_schema(schema)
    v = jsonschema.Draft202012Validator(schema)
    bad = 0
    for f in sys.argv[2:]:
        try:
            doc = json.load(open(f, encoding='utf-8'))
        except ValueError as e:
            print('%s: not JSON: %s' % (f, e))
            bad += 1
            continue
        errs = sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))
        if errs:
            e = errs[0]
            print('%s: %s: %s (%d errors)' % (f, '/'.join(map(str, e.absolute_path)) or '(root)', e.message[:300], len(errs)))
            bad += 1
    if bad:
        sys.exit(1)
    print('ok %d' % (len(sys.argv) - 2))


if __name__ == '__main__':
    main()
