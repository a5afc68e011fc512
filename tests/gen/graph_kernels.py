#!/usr/bin/env python3
"""graph_kernels.py — independent check data for graph replays: the total
duration (exact integer ns) and number of GPU activities whose correlation
belongs to a cudaGraphLaunch / hipGraphLaunch runtime event.

Usage: graph_kernels.py TRACE[.gz]   -> prints "<total_ns> <count> <launches>"
"""
import decimal
import gzip
import json
import sys

GPU = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset"}


def ns(v):
    d = (decimal.Decimal(str(v)) * 1000).quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP)
    return max(int(d), 0)


def main():
    raw = open(sys.argv[1], "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    doc = json.loads(raw, parse_float=str)
    evs = doc["traceEvents"] if isinstance(doc, dict) else doc
    corr = set()
    for e in evs:
        if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "Runtime") and "GraphLaunch" in e.get("name", ""):
            c = e.get("args", {}).get("correlation")
            if c is not None:
                corr.add(int(c))
    total = count = 0
    for e in evs:
        if e.get("ph") == "X" and e.get("cat") in GPU and e.get("dur") is not None:
            c = e.get("args", {}).get("correlation")
            if c is not None and int(c) in corr:
                total += ns(e["dur"])
                count += 1
    print(total, count, len(corr))


if __name__ == "__main__":
    main()
