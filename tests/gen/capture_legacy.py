#!/usr/bin/python3
"""capture_legacy.py — capture a real legacy (non-Kineto) PyTorch trace and
compute, from the exported JSON alone, what gpuflame must find in it.

Run with Debian's /usr/bin/python3 and its python3-torch (1.13, built without
Kineto: its export_chrome_trace writes the autograd profiler's bare array,
pid "CPU functions", no "cat" on ranges). The decode loop follows the
article's recipe (../shared/seed/flame-graphs-for-llms.txt): a
torch.profiler schedule(wait, warmup, active), with_stack=True,
record_function markers, an `.item()` end-of-sequence check per token.

  /usr/bin/python3 tests/gen/capture_legacy.py OUT_DIR

Writes OUT_DIR/legacy.json (the export, untouched) and OUT_DIR/expect.txt:
  kineto <0|1>                 whether this torch has Kineto
  steps <n>                    ProfilerStep#N ranges in the export
  step <N> <wall_ns>           each step's wall (dur), as written, in ns
  cpu_total_ns <ns>            the CPU-weight rule below, summed
  name <text>                  names that must appear as frames in fold output:
                               the markers and aten ops of the ranges with a
                               dur > 0 (the export's integer microseconds make
                               many ops 0 us long; a stack of weight 0 is not
                               written)
Exits 3 when torch cannot be imported (the test SKIPs).

The CPU-weight rule (exact integer ns, independent of gpuflame): the host
ranges are the "ph": "X" events with a ts and a dur; per (pid, tid) thread,
each range's self time is its dur minus the union of its children's
intervals clipped to it, where a range's parent is the innermost earlier
range (sorted by start, longer first) on the thread that contains its start.
ProfilerStep#N ranges count like any other frame (they carry their own self
time). The legacy format has no blocking calls (no runtime events), so the
CPU weight is the sum of self times = the union of the host ranges' intervals
per thread. gpuflame folds cpu/wall for the thread(s) holding the step
markers, each over its own steps (docs/fold.md; --all-threads for every
thread): so the total is, per step thread, the union of its ranges clipped to
its step windows, summed (cpu_all_ns: every thread, clipped to the union of
all steps). Times: the text's decimal microseconds, read
as exact decimals into ns (no floats).
"""
import json
import os
import sys
from decimal import Decimal


def ns(v):
    return int((Decimal(str(v)) * 1000).to_integral_value(rounding="ROUND_HALF_UP"))


def capture(path):
    import torch
    from torch.profiler import ProfilerActivity, profile, record_function, schedule

    torch.manual_seed(0)
    vocab, dim = 64, 32
    emb = torch.nn.Embedding(vocab, dim)
    layer = torch.nn.Linear(dim, dim)
    head = torch.nn.Linear(dim, vocab)
    eos = vocab - 1
    tok = torch.tensor([1])
    sched = schedule(wait=1, warmup=1, active=3, repeat=1)
    with torch.no_grad(), profile(activities=[ProfilerActivity.CPU], schedule=sched,
                                  record_shapes=False, with_stack=True) as prof:
        for step in range(5):
            with record_function("decode_step"):
                h = torch.relu(layer(emb(tok)))
                logits = head(h)
                tok = torch.argmax(logits, dim=-1)
            with record_function("eos_check"):
                if tok.item() == eos:  # the per-token sync of the recipe
                    tok = torch.tensor([1])
            prof.step()
    prof.export_chrome_trace(path)
    return torch.autograd.profiler.kineto_available()


def self_total(ranges):
    """Sum of self times = per thread, the union of the intervals."""
    total = 0
    by_thread = {}
    for r in ranges:
        by_thread.setdefault(r[0], []).append((r[1], r[2]))
    for iv in by_thread.values():
        iv.sort()
        cur_s, cur_e = None, None
        for s, e in iv:
            if cur_e is None or s > cur_e:
                if cur_e is not None:
                    total += cur_e - cur_s
                cur_s, cur_e = s, e
            elif e > cur_e:
                cur_e = e
        if cur_e is not None:
            total += cur_e - cur_s
    return total


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "legacy.json")
    try:
        kineto = capture(path)
    except ImportError as e:
        print("capture_legacy: no torch: %s" % e, file=sys.stderr)
        return 3
    with open(path) as f:
        text = f.read()
    events = json.loads(text, parse_float=Decimal, parse_int=Decimal)
    if isinstance(events, dict):
        events = events.get("traceEvents", [])
    ranges, steps, cand = [], [], []
    for e in events:
        if e.get("ph") != "X" or "ts" not in e or "dur" not in e:
            continue
        s = ns(e["ts"])
        d = max(ns(e["dur"]), 0)
        th = (str(e.get("pid")), str(e.get("tid")))
        ranges.append((th, s, s + d))
        nm = e.get("name", "")
        if nm.startswith("ProfilerStep#") and nm[13:].isdigit():
            steps.append((int(nm[13:]), d, th, s, s + d))
        elif d > 0 and (nm in ("decode_step", "eos_check") or nm.startswith("aten::")):
            cand.append((nm, th, s, s + d))
    win = {}
    for _, _, th, a, b in steps:
        win.setdefault(th, []).append((a, b))

    def clip(th, a, b):
        return [(max(a, x), min(b, y)) for x, y in win.get(th, []) if a < y and b > x]
    names = {nm for nm, th, a, b in cand if clip(th, a, b)}
    step_ranges = [(th, x, y) for th, a, b in ranges for x, y in clip(th, a, b)]
    with open(os.path.join(out, "expect.txt"), "w") as f:
        f.write("kineto %d\n" % (1 if kineto else 0))
        f.write("steps %d\n" % len(steps))
        for n, d, _, _, _ in sorted(steps):
            f.write("step %d %d\n" % (n, d))
        f.write("cpu_total_ns %d\n" % self_total(step_ranges))
        for nm in sorted(names):
            f.write("name %s\n" % nm)
    return 0


if __name__ == "__main__":
    sys.exit(main())
