#!/usr/bin/env python3
"""sum_activities.py — independent GPU-time total of a Kineto trace, for the
fold conservation test: the exact sum, in integer ns, of the durations of
all complete ("ph": "X") kernel, gpu_memcpy and gpu_memset events (legacy
Kernel/Memcpy/Memset too) and MTIA's mtia_ccp_events but its ordering
records (event_wait, event_record). Numbers are parsed as decimals (no float), so the
sum is exact; sub-ns digits round half away from zero, negative durations
count as 0, like the C reader.

Usage: sum_activities.py TRACE[.gz]   -> prints "<total_ns> <count>"
"""
import sys

import common



def main():
    evs = common.trace_events(sys.argv[1], errors="replace")
    total = count = 0
    for e in evs:
        if not isinstance(e, dict) or e.get("ph") != "X" or not common.is_device_work(e):
            continue
        d = e.get("dur")
        if d is None or d == "":
            continue
        total += common.us_to_ns(d)
        count += 1
    print(total, count)


if __name__ == "__main__":
    main()
