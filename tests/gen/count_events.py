#!/usr/bin/env python3
"""count_events.py — independent event counts of a Chrome/Kineto trace (stdlib json).

Usage: count_events.py TRACE            (plain, .gz or .zst-less; gzip detected by magic bytes)
Prints one JSON object: {"events": N, "events_by_phase": {...}, "events_by_category": {...},
"truncated": bool}. Used by tests/cli/info_corpus.sh to check `gpuflame info --format json`.

Conventions mirrored from gpuflame (docs/trace-reader.md): an event without "cat" (or with a
non-string cat) counts under ""; "ph" that is not a one-character printable ASCII string counts
under "?". A truncated trailing array (the file ends inside traceEvents) is read up to the last
complete event: the text is cut after the last '}' that closes an array element and re-parsed.
"""
import gzip
import json
import sys


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data.decode("utf-8")


def events_of(text):
    try:
        doc = json.loads(text)
        truncated = False
    except json.JSONDecodeError:
        doc = None
        truncated = True
    if doc is None:
        # cut after the last complete array element: try successively earlier '}'
        end = len(text)
        while True:
            end = text.rfind("}", 0, end)
            if end < 0:
                raise SystemExit("not a recoverable trace")
            cand = text[: end + 1]
            for closer in ("]", "]}"):
                try:
                    doc = json.loads(cand + closer)
                    break
                except json.JSONDecodeError:
                    doc = None
            if doc is not None:
                break
    evs = doc if isinstance(doc, list) else doc["traceEvents"]
    return evs, truncated


def main():
    evs, truncated = events_of(load(sys.argv[1]))
    by_ph, by_cat = {}, {}
    for e in evs:
        ph = e.get("ph")
        ph = ph if isinstance(ph, str) and len(ph) == 1 and 0x20 <= ord(ph) < 0x7F else "?"
        by_ph[ph] = by_ph.get(ph, 0) + 1
        cat = e.get("cat")
        cat = cat if isinstance(cat, str) else ""
        by_cat[cat] = by_cat.get(cat, 0) + 1
    print(json.dumps({"events": len(evs), "events_by_phase": by_ph, "events_by_category": by_cat,
                      "truncated": truncated}, sort_keys=True))


if __name__ == "__main__":
    main()
