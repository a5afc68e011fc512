#!/usr/bin/env python3
"""sum_activities.py — independent GPU-time total of a Kineto trace, for the
fold conservation test: the exact sum, in integer ns, of the durations of
all complete ("ph": "X") kernel, gpu_memcpy and gpu_memset events (legacy
Kernel/Memcpy/Memset too). Numbers are parsed as decimals (no float), so the
sum is exact; sub-ns digits round half away from zero, negative durations
count as 0, like the C reader.

Usage: sum_activities.py TRACE[.gz]   -> prints "<total_ns> <count>"
"""
import decimal
import gzip
import json
import sys

CATS = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset"}


def ns(v):
    d = decimal.Decimal(str(v)) * 1000
    d = d.quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP)
    return max(int(d), 0)


def main():
    path = sys.argv[1]
    with open(path, "rb") as fp:
        raw = fp.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    doc = json.loads(raw.decode("utf-8", "replace"), parse_float=str)
    evs = doc["traceEvents"] if isinstance(doc, dict) else doc
    total = count = 0
    for e in evs:
        if not isinstance(e, dict) or e.get("ph") != "X" or e.get("cat") not in CATS:
            continue
        d = e.get("dur")
        if d is None or d == "":
            continue
        total += ns(d)
        count += 1
    print(total, count)


if __name__ == "__main__":
    main()
