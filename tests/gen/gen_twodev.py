#!/usr/bin/env python3
"""gen_twodev.py — a seeded Kineto trace of one host thread launching kernels
on two GPUs (device 0 and device 1), and the host stacks charged with each
device's GPU idle time, computed here independently of gpuflame.

  python3 tests/gen/gen_twodev.py --seed 3 -o t.json --expect e.json

The thread runs ProfilerStep#1..N (with small gaps between the steps); in
each step, flat python_function frames "model.py(L): f<k>", each holding one
or two cudaLaunchKernel calls whose kernels run on a random device and
stream (kernels may overlap, and may run past the step). Times are integer
microseconds, so every duration is an exact integer of ns.

Expected idle of device d, by the rule of docs/report.md ("Why the GPU
idled: the rule"), computed here independently instant by instant (all times
are integer us): the window is the union of the steps; idle = window minus
the union of d's kernels; at each idle instant t, the first that holds:
queued (a kernel of d whose launch call returned at or before t has not
started; before d's first kernel that is edge: docs/report.md), edge (t before d's first or after its last kernel and the thread
has no frame open), launch (the thread is inside a cudaLaunchKernel call,
whichever device it launches on), host (a frame is open: charged to it),
untraced. e.json: {"0": {"host": {frame: ns}, "untraced": ns, "edge": ns,
"queued": ns, "launch": ns}, "1": {...}}.
"""
import argparse
import json
import random


def union(iv):
    out = []
    for a, b in sorted(iv):
        if b <= a:
            continue
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def minus(win, busy):
    """Pieces of the sorted disjoint intervals win not covered by busy."""
    out = []
    for a, b in win:
        cur = a
        for x, y in busy:
            if y <= cur or x >= b:
                continue
            if x > cur:
                out.append((cur, x))
            cur = max(cur, y)
            if cur >= b:
                break
        if cur < b:
            out.append((cur, b))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--expect", required=True)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    ev = []
    steps, frames, calls, kernels = [], [], [], {0: [], 1: []}
    corr = 1
    t = 100
    for s in range(1, a.steps + 1):
        start = t
        length = rng.randint(400, 700)
        steps.append((start, start + length))
        ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % s,
                   "pid": 100, "tid": 1, "ts": start, "dur": length})
        x = start + rng.randint(1, 20)
        k = 0
        while True:
            dur = rng.randint(20, 60)
            if x + dur >= start + length - 5:
                break
            name = "model.py(%d): f%d" % (10 + k % 5, k % 5)
            frames.append((x, x + dur, name))
            ev.append({"ph": "X", "cat": "python_function", "name": name,
                       "pid": 100, "tid": 1, "ts": x, "dur": dur})
            y = x + 1
            for _ in range(rng.randint(1, 2)):
                if y + 3 >= x + dur:
                    break
                ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel",
                           "pid": 100, "tid": 1, "ts": y, "dur": 2,
                           "args": {"correlation": corr}})
                dev = rng.randint(0, 1)
                stream = 7 + rng.randint(0, 1)
                ks = y + rng.randint(3, 40)
                kd = rng.randint(5, 80)
                kernels[dev].append((ks, ks + kd, y + 2))
                calls.append((y, y + 2))
                ev.append({"ph": "X", "cat": "kernel", "name": "k%d_%d" % (dev, corr),
                           "pid": dev, "tid": stream, "ts": ks, "dur": kd,
                           "args": {"device": dev, "stream": stream, "correlation": corr}})
                corr += 1
                y += 3
            x += dur + rng.randint(0, 25)
            k += 1
        t = start + length + rng.randint(5, 30)
    win = union(steps)
    exp = {}
    for d in (0, 1):
        busy = union([(ks, ke) for ks, ke, _ in kernels[d]])
        first, last = min(k[0] for k in kernels[d]), max(k[1] for k in kernels[d])
        e = {"host": {}, "untraced": 0, "edge": 0, "queued": 0, "launch": 0}
        for lo, hi in minus(win, busy):
            for t in range(lo, hi):  # the instant [t, t + 1)
                frame = next((n for fa, fb, n in frames if fa <= t < fb), None)
                if any(ce <= t < ks for ks, _, ce in kernels[d]):
                    # before d's first kernel issued work waits on what the
                    # trace does not show: the window's edge, not queued
                    e["edge" if t < first else "queued"] += 1000
                elif (t < first or t >= last) and frame is None:
                    e["edge"] += 1000
                elif any(ca <= t < ce for ca, ce in calls):
                    e["launch"] += 1000
                elif frame is not None:
                    e["host"][frame] = e["host"].get(frame, 0) + 1000
                else:
                    e["untraced"] += 1000
        exp[str(d)] = e
    with open(a.output, "w") as fp:
        json.dump({"traceEvents": ev}, fp)
    with open(a.expect, "w") as fp:
        json.dump(exp, fp)


if __name__ == "__main__":
    main()
