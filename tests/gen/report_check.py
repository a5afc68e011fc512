#!/usr/bin/env python3
"""report_check.py — compare `gpuflame report/syncs --format json` with the
expected answers of gen_decode.py (--expect), EXACTLY (decimal us vs int ns).

USAGE: report_check.py report REPORT.json EXPECT.json [--skip N]
       report_check.py syncs SYNCS.json EXPECT.json
       report_check.py nccl REPORT.json EXPECT.json
Prints one "PASS name" / "FAIL name: why" line per check (tests/cli/lib.sh
style) and exits 0 (failures are counted from the FAIL lines).

Checks for `report`: per step, in order: index (= ProfilerStep number),
wall_us, gpu_busy_us, kernel_us, memcpy_us, memset_us, idle_us,
sync_wait_us, syncs, launches, kernels; then `syncs[]` (site, op, api,
count, wait_us, bubble_us) against the expected sites; summary.steady_step_us
= the median of the expected walls. For `syncs`: the sites only.
For `nccl`: per step comm_us (union of NCCL kernels in the step) == the
expected NCCL kernel time (they run one at a time on one stream).
"""
import json
import sys
from decimal import Decimal


def us(ns):
    return Decimal(ns) / 1000


def load(p):
    with open(p) as fp:
        return json.load(fp, parse_float=Decimal, parse_int=Decimal)


def check(name, got, want):
    if got == want:
        print("PASS %s" % name)
    else:
        print("FAIL %s: got %r, expected %r" % (name, got, want))


def median(v):
    v = sorted(v)
    n = len(v)
    if n % 2:
        return v[n // 2]
    s = v[n // 2 - 1] + v[n // 2]
    q, r = divmod(s, 2)
    if r and q % 2:
        q += 1
    return q


def check_syncs(tag, got, want):
    check("%s-nsites" % tag, len(got), len(want))
    for i, w in enumerate(want):
        g = [s for s in got if s["site"] == w["site"] and s["op"] == w["op"] and s["api"] == w["api"]]
        if not g:
            print("FAIL %s-site%d: no site (%s, %s, %s) in %r" % (tag, i, w["site"], w["op"], w["api"],
                                                                  [(s["site"], s["op"], s["api"]) for s in got]))
            continue
        g = g[0]
        check("%s-site%d-count" % (tag, i), g["count"], w["count"])
        check("%s-site%d-wait" % (tag, i), g["wait_us"], us(w["wait_ns"]))
        check("%s-site%d-bubble" % (tag, i), g["bubble_us"], us(w["bubble_ns"]))


def main():
    mode, gotp, expp = sys.argv[1], sys.argv[2], sys.argv[3]
    skip = int(sys.argv[5]) if len(sys.argv) > 5 and sys.argv[4] == "--skip" else 0
    got = load(gotp)
    exp = json.load(open(expp))["report"]
    tag = exp_tag = expp.rsplit("/", 1)[-1].split(".")[0]
    if mode == "syncs":
        check_syncs(tag + "-syncs", got["syncs"], exp["syncs"])
        return
    steps = exp["steps"][skip:]
    if mode == "nccl":
        for w, g in zip(steps, got["steps"]):
            n = w["number"]
            check("%s-step%d-comm" % (tag, n), g.get("comm_us"), us(w["nccl_ns"]))
        return
    check("%s-nsteps" % tag, len(got["steps"]), len(steps))
    for w, g in zip(steps, got["steps"]):
        n = w["number"]
        pre = "%s-step%d" % (exp_tag, n)
        check(pre + "-index", g["index"], n)
        for k in ("wall", "gpu_busy", "kernel", "memcpy", "memset", "idle", "sync_wait"):
            check("%s-%s" % (pre, k), g[k + "_us"], us(w[k + "_ns"]))
        check(pre + "-syncs", g["syncs"], w["sync_count"])
        check(pre + "-launches", g["launches"], w["launches"])
        check(pre + "-kernels", g["kernels"], w["kernels"])
    walls = [w["wall_ns"] for w in steps]
    if not any(g["warmup"] for g in got["steps"]):
        check(tag + "-steady", got["summary"]["steady_step_us"], us(median(walls)))
    if skip == 0:
        check_syncs(tag + "-syncs", got["syncs"], exp["syncs"])


if __name__ == "__main__":
    main()
