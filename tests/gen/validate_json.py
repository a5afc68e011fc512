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


def validator(path):
    """The validator of the schema at path; a $ref to another schema of the same
    folder (by its $id: report -> ranks, summary -> report) resolves to it."""
    import glob
    import os
    schema = json.load(open(path, encoding='utf-8'))
    jsonschema.Draft202012Validator.check_schema(schema)
    others = [json.load(open(f, encoding='utf-8')) for f in glob.glob(os.path.join(os.path.dirname(path) or '.', '*.schema.json'))]
    try:
        from referencing import Registry, Resource
        reg = Registry().with_resources([(o['$id'], Resource.from_contents(o)) for o in others if '$id' in o])
        return jsonschema.Draft202012Validator(schema, registry=reg)
    except ImportError:  # python3-jsonschema of Debian 12 (4.10): RefResolver
        store = dict((o['$id'], o) for o in others if '$id' in o)
        return jsonschema.Draft202012Validator(schema, resolver=jsonschema.RefResolver.from_schema(schema, store=store))


def main():
    v = validator(sys.argv[1])
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
