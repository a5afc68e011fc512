#!/usr/bin/env python3
"""gen_steps.py -- a small trace for the one classifier and the one step
selection (tests/cli/step_marker.sh), and what every command must find in
it, computed here from the rules as docs/fold.md and docs/trace-reader.md
state them (not from gpuflame):

  python3 tests/gen/gen_steps.py TRACE.json EXPECT.json

Rules written out independently:
  - a step is a user_annotation or cpu_op event with ph "X" and a dur whose
    name is the marker M itself or M + "#" + 1..18 decimal digits; numbered
    by the digits, a bare M by its rank (0, 1, ...) among the bare ones by
    start;
  - --steps A..B keeps the steps numbered A..B, --skip N then drops the
    first N of those (by start);
  - fold -w gpu charges each kernel to its launching runtime/driver call
    (same correlation) and keeps it when that call starts inside a kept
    step;
  - a graph launch is cudaGraphLaunch / hipGraphLaunch / cuGraphLaunch (a
    "_suffix" ignored); a communication kernel has "nccl" or "rccl" in its
    name, in any case.
"""
import json
import re
import sys

STEPS = [  # (name, ph, ts, dur): ts/dur in us, on pid 1 tid 1
    ("decode", "X", 0, 100), ("decode#1", "X", 100, 100), ("decode#2", "X", 200, 100),
    ("decode#5", "X", 300, 100), ("decode#7", "i", 350, None), ("decode#x", "X", 400, 10),
    ("decodeX", "X", 410, 10), ("ProfilerStep#9", "X", 420, 50), ("ProfilerStep#12abc", "X", 480, 10),
]
# (api, cat, call ts, correlation, kernel name, kernel ts, kernel dur)
LAUNCHES = [
    ("cudaLaunchKernel", "cuda_runtime", 10, 1, "k_step0", 20, 11),
    ("cudaLaunchKernel", "cuda_runtime", 110, 2, "k_step1", 120, 13),
    ("cudaLaunchKernel", "cuda_runtime", 210, 3, "k_step2", 220, 17),
    ("cudaLaunchKernel", "cuda_runtime", 310, 4, "k_step5", 320, 19),
    ("cudaLaunchKernel", "cuda_runtime", 421, 5, "k_pstep9", 440, 23),
    ("cuGraphLaunch", "cuda_driver", 425, 6, "rccl_AllReduce_kernel", 450, 3),
]


def events():
    ev = [{"name": "thread_name", "ph": "M", "pid": 1, "tid": 1, "args": {"name": "main"}}]
    for name, ph, ts, dur in STEPS:
        e = {"ph": ph, "cat": "user_annotation", "name": name, "pid": 1, "tid": 1, "ts": ts}
        if dur is not None:
            e["dur"] = dur
        else:
            e["s"] = "t"
        ev.append(e)
    for api, cat, ts, corr, kname, kts, kdur in LAUNCHES:
        ev.append({"ph": "X", "cat": cat, "name": api, "pid": 1, "tid": 1, "ts": ts, "dur": 2,
                   "args": {"correlation": corr}})
        ev.append({"ph": "X", "cat": "kernel", "name": kname, "pid": 0, "tid": 7, "ts": kts, "dur": kdur,
                   "args": {"correlation": corr, "device": 0, "stream": 7}})
    return ev


def steps_of(ev, marker):
    """[(number, start, end)] by start, by the rule above."""
    pat = re.compile(re.escape(marker) + r"(#([0-9]{1,18}))?\Z")
    found = []
    for e in ev:
        if e.get("cat") not in ("user_annotation", "cpu_op") or e["ph"] != "X" or "dur" not in e:
            continue
        m = pat.match(e["name"])
        if m:
            found.append([int(m.group(2)) if m.group(2) else None, e["ts"], e["ts"] + e["dur"]])
    found.sort(key=lambda s: s[1])
    bare = 0
    for s in found:
        if s[0] is None:
            s[0] = bare
            bare += 1
    return found


def select(steps, first, last, skip):
    kept = [s for s in steps if first <= s[0] <= last]
    return kept[skip:]


def gpu_in(ev, kept):
    calls = {e["args"]["correlation"]: e["ts"] for e in ev if e.get("cat") in ("cuda_runtime", "cuda_driver")}
    tot = 0
    for e in ev:
        if e.get("cat") == "kernel":
            t = calls[e["args"]["correlation"]]
            if any(a <= t < b for _, a, b in kept):
                tot += e["dur"]
    return tot


def main():
    ev = events()
    with open(sys.argv[1], "w") as fp:
        json.dump({"schemaVersion": 1, "traceEvents": ev}, fp)
    big = 10 ** 30
    dec = steps_of(ev, "decode")
    ps = steps_of(ev, "ProfilerStep")
    graph = sum(1 for e in ev if e.get("cat") in ("cuda_runtime", "cuda_driver") and
                re.match(r"(cuda|hip|cu)GraphLaunch(_|\Z)", e["name"]))
    comm = sum(1 for e in ev if e.get("cat") == "kernel" and re.search("[nr]ccl", e["name"], re.I))
    exp = {
        "decode_numbers": sorted({s[0] for s in dec}), "decode_events": len(dec),
        "ps_numbers": sorted({s[0] for s in ps}), "ps_events": len(ps),
        "decode_1_2": [s[0] for s in select(dec, 1, 2, 0)],
        "decode_1_2_gpu_us": gpu_in(ev, select(dec, 1, 2, 0)),
        "decode_to5_skip1": [s[0] for s in select(dec, -big, 5, 1)],
        "decode_to5_skip1_gpu_us": gpu_in(ev, select(dec, -big, 5, 1)),
        "ps_9_gpu_us": gpu_in(ev, select(ps, 9, 9, 0)),
        "decode_count": len(dec), "decode_first": dec[0][0], "decode_last": dec[-1][0],
        "graph_launches": graph, "comm_kernels": comm,
    }
    with open(sys.argv[2], "w") as fp:
        json.dump(exp, fp)


main()
