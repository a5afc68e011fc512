#!/usr/bin/env python3
"""gen_legacy.py -- legacy autograd profiler traces (PyTorch without Kineto),
built by construction, and what gpuflame must find in them, computed here
from the rules (tests/cli/legacy_torch.sh; docs/trace-reader.md, "Legacy
autograd profiler traces"):

  python3 tests/gen/gen_legacy.py OUT_DIR

Writes OUT_DIR/gpu.json (the older export: host ranges under pid "CPU
functions", kernels under pid "CUDA functions" with tid = the device, flows
"s"/"f" of cat "cpu_to_cuda" between them), OUT_DIR/cpu.json (the 1.13
export: host ranges and "s" flows only, no kernels) and OUT_DIR/expect.json.

Both are bare arrays without "cat" on the complete events, as
torch.autograd.profiler_util.EventList.export_chrome_trace writes them, with
two host threads (tid 1: the decode loop with ProfilerStep#N, decode_step and
eos_check record_function ranges and aten ops; tid 2: a helper thread's
ranges, outside every step), a name holding a ';' and a '"' (fold must
escape it), and one ts with decimals (older exports print floats).

Rules written out independently (exact integers in ns; times as decimal us):
  - host ranges: "ph" "X" events of pid "CPU functions"; a step is one named
    ProfilerStep#N, its wall = its dur;
  - CPU weight (fold --weight cpu, no step selection): per thread, the union
    of its ranges' intervals (the sum of self times: no blocking calls in a
    legacy trace), summed over the threads;
  - GPU activities: "ph" "X" events of pid "CUDA functions", device = tid;
    GPU weight = the sum of their durations (all unattributed: the legacy
    format has no runtime calls to link them to);
  - per step busy = the length of the union of the kernels' intervals
    clipped to the step.
"""
import json
import os
import sys
from decimal import Decimal

ODD = 'aten::odd;name "q"'
# (name, ts, dur) in us on tid 1; the steps are the windows, ops nest in time
MAIN = [
    ("aten::zeros", 5, 4),
    ("ProfilerStep#3", 10, 100),
    ("decode_step", 12, 60),
    ("aten::linear", 14, 30),
    ("aten::addmm", 16, 20),
    ("aten::relu", 50, 8),
    (ODD, 60, 5),
    ("eos_check", 75, 30),
    ("aten::item", 76, 28),
    ("aten::_local_scalar_dense", 77, 26),
    ("ProfilerStep#4", 110, 80),
    ("decode_step", 111, 50),
    ("aten::linear", 112, 30),
    ("aten::addmm", 113, 25),
    ("eos_check", 165, 20),
    ("aten::item", Decimal("166.5"), 18),
    ("aten::_local_scalar_dense", 167, 16),
]
HELPER = [("aten::copy_", 20, 40), ("aten::empty", 30, 5), ("aten::copy_", 150, 70)]
# (launching op index in MAIN, kernel name, ts, dur, device)
KERNELS = [
    (4, "volta_sgemm_128x64_nn", 30, 15, 0),
    (5, "vectorized_elementwise_kernel", 55, 6, 0),
    (12, "volta_sgemm_128x64_nn", 120, 40, 0),
    (12, "reduce_kernel", 150, 50, 0),  # runs past the end of step 4 (190)
]


def ev_x(name, ts, dur, pid, tid):
    return {"name": name, "ph": "X", "ts": ts, "dur": dur, "tid": tid, "pid": pid, "args": {}}


def events(with_gpu):
    ev = []
    flow = 0
    by_op = {}
    for k in KERNELS:
        by_op.setdefault(k[0], []).append(k)
    for i, (name, ts, dur) in enumerate(MAIN):
        ev.append(ev_x(name, ts, dur, "CPU functions", 1))
        for _, kname, kts, kdur, dev in by_op.get(i, []):
            ev.append({"name": name, "ph": "s", "ts": ts, "tid": 1, "pid": "CPU functions", "id": flow,
                       "cat": "cpu_to_cuda", "args": {}})
            if with_gpu:
                ev.append({"name": kname, "ph": "f", "ts": kts, "tid": dev, "pid": "CUDA functions",
                           "id": flow, "cat": "cpu_to_cuda", "args": {}})
                ev.append(ev_x(kname, kts, kdur, "CUDA functions", dev))
            flow += 1
    for name, ts, dur in HELPER:
        ev.append(ev_x(name, ts, dur, "CPU functions", 2))
    return ev


def ns(v):
    return int(Decimal(str(v)) * 1000)


def union(iv):
    tot, cs, ce = 0, None, None
    for s, e in sorted(iv):
        if ce is None or s > ce:
            if ce is not None:
                tot += ce - cs
            cs, ce = s, e
        else:
            ce = max(ce, e)
    return tot + (ce - cs if ce is not None else 0)


def expect(ev):
    threads = {}
    steps = []
    kern = []
    for e in ev:
        if e["ph"] != "X":
            continue
        s, d = ns(e["ts"]), ns(e["dur"])
        if e["pid"] == "CPU functions":
            threads.setdefault(e["tid"], []).append((s, s + d))
            if e["name"].startswith("ProfilerStep#"):
                steps.append((int(e["name"][13:]), s, s + d))
        elif e["pid"] == "CUDA functions":
            kern.append((s, s + d))
    steps.sort(key=lambda x: x[1])
    # cpu/wall fold the step thread (tid 1, which holds the markers) over its
    # steps by default, every thread over the union of the steps with
    # --all-threads (docs/fold.md): ranges clipped to the step windows
    def clip(iv):
        return [(max(a, s), min(b, e)) for a, b in iv for _, s, e in steps if a < e and b > s]

    def inside(name_list):
        out = set()
        for n, ts, d in name_list:
            a, b = ns(ts), ns(ts) + ns(d)
            if not n.startswith("ProfilerStep#") and any(a < e and b > s for _, s, e in steps):
                out.add(n)
        return out
    busy = [union([(max(a, s), min(b, e)) for a, b in kern if a < e and b > s]) for _, s, e in steps]
    return {
        "steps": [n for n, _, _ in steps],
        "walls_ns": [e - s for _, s, e in steps],
        "busy_ns": busy,
        "cpu_ns": union(clip(threads.get(1, []))),
        "cpu_all_ns": sum(union(clip(iv)) for iv in threads.values()),
        "gpu_ns": sum(e - s for s, e in kern),
        "gpu_activities": len(kern),
        "host_events": sum(len(iv) for iv in threads.values()),
        "names": sorted(inside(MAIN)),
        "names_all": sorted(inside(MAIN) | inside(HELPER)),
    }


class Enc(json.JSONEncoder):
    def default(self, o):
        if isinstance(o, Decimal):
            return float(o)
        return super().default(o)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    exp = {}
    for kind, gpu in (("gpu", True), ("cpu", False)):
        ev = events(gpu)
        with open(os.path.join(out, kind + ".json"), "w") as fp:
            fp.write("[" + ", ".join(json.dumps(e, cls=Enc) for e in ev) + "]")
        exp[kind] = expect(ev)
    with open(os.path.join(out, "expect.json"), "w") as fp:
        json.dump(exp, fp, indent=1)


if __name__ == "__main__":
    main()
