#!/usr/bin/env python3
"""graph_kernels.py — independent check data for graph replays: the total
duration (exact integer ns) and number of GPU activities whose correlation
belongs to a cudaGraphLaunch / hipGraphLaunch runtime event.

Usage: graph_kernels.py TRACE[.gz]   -> prints "<total_ns> <count> <launches>"
"""
import sys

import common

GPU = common.GPU_CATS


def main():
    evs = common.trace_events(sys.argv[1])
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
                total += common.us_to_ns(e["dur"])
                count += 1
    print(total, count, len(corr))


if __name__ == "__main__":
    main()
