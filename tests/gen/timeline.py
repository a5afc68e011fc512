#!/usr/bin/env python3
"""timeline.py — print the raw timeline of a Kineto trace so that a person
can read why the device idled (issue 24's claims corpus). Stdlib only, exact
decimal microseconds (Decimal, never float), plain, gzip or zstd input (zstd
through the `zstd` command). It reads the trace itself and never calls
gpuflame; it applies no gap rule: it prints facts, the reader decides.

  timeline.py TRACE                     header, devices, steps, the 10
                                        largest idle gaps of the device
  timeline.py TRACE --gaps N            the N largest gaps (0: all)
  timeline.py TRACE --at T [--at T2]    the state at instant T: device busy
                                        or in which gap, the work already
                                        issued (launch call returned) but not
                                        started, the launch calls in flight,
                                        the ranges open on every host thread,
                                        the next device activity and its
                                        launch call
  timeline.py TRACE --window A B        every event overlapping [A, B): the
                                        device's activities (stream,
                                        correlation) and each host thread's
                                        ranges with their depth; launch and
                                        blocking calls with their correlation,
                                        when the call started and returned and
                                        when its work started on the device
  --gap K                               the window of the K-th largest gap
                                        (1-based), widened by --margin US
                                        (default 20) on both sides
  --device D                            the device to read (default: the one
                                        with the most busy time)
  --step-marker NAME                    step ranges named NAME#<n> (default
                                        ProfilerStep)
  --threads T1,T2                       only these host threads (tid as
                                        written) in --window
  --max N                               at most N events per thread in
                                        --window (default 300)
  --min-dur US                          hide host ranges shorter than US in
                                        --window (launch and blocking calls
                                        are always shown)
  --max-depth D                         hide host ranges deeper than D

All times are the trace's own "ts" values as written (µs; relative to
baseTimeNanoseconds where the trace has one). A device activity is a
kernel, memcpy or memset event (kernel/gpu_memcpy/gpu_memset, legacy
Kernel/Memcpy/Memset); its device is args.device, else pid; its stream
args.stream, else tid. A launch call is a host event whose category ends in
_runtime or _driver (legacy Runtime) carrying the activity's correlation.
Busy = the union of the device's activities; a gap = a maximal interval
between two busy intervals; the leading and trailing edges run from the
window's start to the first activity and from the last to the window's end
(the window is the union of the step ranges, else the extent of all complete
events). Steps are ranges named <marker>#<n> on a host thread.
"""
import argparse
import json
import os
import sys
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

DEVICE_CATS = {"kernel": "kernel", "gpu_memcpy": "memcpy", "gpu_memset": "memset",
               "Kernel": "kernel", "Memcpy": "memcpy", "Memset": "memset"}
SKIP_HOST_CATS = {"ac2g", "async", "fwdbwd", "async_gpu", "async_cpu_to_gpu", "cpu_to_cuda",
                  "Trace", "overhead", "gpu_user_annotation", "gpu_user_Annotation",
                  "cpu_instant_event"}
BLOCKING_WORDS = ("Synchronize", "synchronize")


def is_launchish(cat):
    return cat.endswith("_runtime") or cat.endswith("_driver") or cat == "Runtime"


def is_blocking_name(name):
    if any(w in name for w in BLOCKING_WORDS):
        return True
    # synchronous copies: *Memcpy* without Async (cudaMemcpy, hipMemcpyWithStream, cuMemcpyDtoH)
    return ("Memcpy" in name or "memcpy" in name) and "Async" not in name and "async" not in name


def load(path):
    raw = common.trace_bytes(path)
    try:
        doc = json.loads(raw, parse_float=Decimal, parse_int=Decimal)
    except json.JSONDecodeError as e:
        raise SystemExit("timeline.py: %s: not JSON: %s" % (path, e))
    if isinstance(doc, list):
        return {}, doc
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        raise SystemExit("timeline.py: %s: expected an object with a traceEvents array" % path)
    return doc, doc["traceEvents"]


def dec(v):
    if isinstance(v, Decimal):
        return v
    if isinstance(v, (int, str)):
        try:
            return Decimal(v)
        except Exception:
            return None
    return None


def fmt(d):
    """A Decimal as plain text without exponent and without trailing zeros."""
    if d is None:
        return "-"
    s = format(d, "f")
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return s if s not in ("-0", "") else "0"


def short(name, n=90):
    name = str(name).replace("\n", " ")
    return name if len(name) <= n else name[: n - 3] + "..."


class Ev:
    __slots__ = ("i", "cat", "name", "pid", "tid", "ts", "dur", "end", "args", "depth",
                 "corr", "dev", "stream", "kind", "thread")

    def __init__(self, i, e):
        self.i = i
        self.cat = str(e.get("cat", ""))
        self.name = str(e.get("name", ""))
        self.pid = e.get("pid")
        self.tid = e.get("tid")
        self.ts = dec(e.get("ts"))
        self.dur = dec(e.get("dur"))
        if self.dur is None or self.dur < 0:
            self.dur = Decimal(0)
        self.end = self.ts + self.dur if self.ts is not None else None
        a = e.get("args")
        self.args = a if isinstance(a, dict) else {}
        c = self.args.get("correlation")
        self.corr = c if isinstance(c, Decimal) else None
        self.depth = 0
        self.kind = DEVICE_CATS.get(self.cat)
        dv = self.args.get("device")
        self.dev = fmt(dv) if isinstance(dv, Decimal) else str(self.pid)
        st = self.args.get("stream")
        self.stream = fmt(st) if isinstance(st, Decimal) else str(self.tid)
        self.thread = (str(self.pid), str(self.tid))


class Trace:
    def __init__(self, path, marker):
        self.meta, raw = load(path)
        self.path = path
        self.thread_names = {}
        self.acts = []       # device activities
        self.host = {}       # (pid, tid) -> [Ev]
        self.calls_by_corr = {}
        self.steps = []
        n_x = 0
        for i, e in enumerate(raw):
            if not isinstance(e, dict):
                continue
            ph = e.get("ph")
            if ph == "M" and e.get("name") == "thread_name":
                a = e.get("args") or {}
                self.thread_names[(str(e.get("pid")), str(e.get("tid")))] = str(a.get("name", ""))
                continue
            if ph != "X" or dec(e.get("ts")) is None:
                continue
            n_x += 1
            ev = Ev(i, e)
            if ev.kind:
                self.acts.append(ev)
                continue
            if ev.cat in SKIP_HOST_CATS:
                continue
            self.host.setdefault(ev.thread, []).append(ev)
            if is_launchish(ev.cat) and ev.corr is not None:
                self.calls_by_corr.setdefault(ev.corr, []).append(ev)
            if ev.name.startswith(marker + "#") and ev.name[len(marker) + 1:].isdigit():
                self.steps.append(ev)
        self.n_x = n_x
        for evs in self.host.values():
            evs.sort(key=lambda x: (x.ts, -x.dur, x.i))
            stack = []
            for x in evs:
                while stack and stack[-1].end <= x.ts:
                    stack.pop()
                x.depth = len(stack)
                stack.append(x)
        self.acts.sort(key=lambda x: (x.ts, x.i))
        self.acts_by_corr = {}
        for a in self.acts:
            if a.corr is not None:
                self.acts_by_corr.setdefault(a.corr, []).append(a)
        self.steps.sort(key=lambda x: (x.ts, x.i))
        all_x = [x for evs in self.host.values() for x in evs] + self.acts
        self.t0 = min(x.ts for x in all_x) if all_x else Decimal(0)
        self.t1 = max(x.end for x in all_x) if all_x else Decimal(0)

    def launch_of(self, act):
        """The host call carrying the activity's correlation (runtime before driver)."""
        if act.corr is None:
            return None
        cs = self.calls_by_corr.get(act.corr)
        if not cs:
            return None
        rt = [c for c in cs if not c.cat.endswith("_driver")]
        return (rt or cs)[0]

    def devices(self):
        out = {}
        for a in self.acts:
            d = out.setdefault(a.dev, {"acts": [], "threads": {}})
            d["acts"].append(a)
            L = self.launch_of(a)
            key = L.thread if L else ("-", "-")
            d["threads"][key] = d["threads"].get(key, 0) + 1
        for d in out.values():
            d["busy"] = union(d["acts"])
        return out

    def window(self):
        if self.steps:
            return min(s.ts for s in self.steps), max(s.end for s in self.steps)
        return self.t0, self.t1

    def step_of(self, t):
        names = [s.name for s in self.steps if s.ts <= t < s.end]
        return ",".join(names) if names else None

    def tname(self, th):
        n = self.thread_names.get(th)
        return "%s/%s%s" % (th[0], th[1], (" (%s)" % n) if n else "")


def union(acts):
    iv = []
    for a in sorted(acts, key=lambda x: (x.ts, x.end)):
        if iv and a.ts <= iv[-1][1]:
            if a.end > iv[-1][1]:
                iv[-1][1] = a.end
        else:
            iv.append([a.ts, a.end])
    return iv


def gaps_of(busy, w0, w1):
    """Idle intervals of a busy union inside [w0, w1): (start, end, kind)."""
    out = []
    if not busy:
        return [(w0, w1, "no activity")]
    if w0 < busy[0][0]:
        out.append((w0, min(busy[0][0], w1), "leading edge"))
    for (s0, e0), (s1, e1) in zip(busy, busy[1:]):
        a, b = max(e0, w0), min(s1, w1)
        if a < b:
            out.append((a, b, "between"))
    if busy[-1][1] < w1:
        out.append((max(busy[-1][1], w0), w1, "trailing edge"))
    return out


def act_line(a, tr, t_ref=None):
    L = tr.launch_of(a)
    s = "%s %s  [%s, %s) dur %s  stream %s corr %s  %s" % (
        a.kind, "", fmt(a.ts), fmt(a.end), fmt(a.dur), a.stream, fmt(a.corr), short(a.name, 70))
    if L is not None:
        s += "\n        launched by %s %s on %s: call [%s, %s) start - return = %s" % (
            L.cat, L.name, tr.tname(L.thread), fmt(L.ts), fmt(L.end), fmt(a.ts - L.end))
    else:
        s += "\n        launch call: none in the trace"
    return s


def next_act(acts, t):
    lo, hi = 0, len(acts)
    while lo < hi:
        m = (lo + hi) // 2
        if acts[m].ts < t:
            lo = m + 1
        else:
            hi = m
    return acts[lo] if lo < len(acts) else None


def prev_act(acts, t):
    best = None
    for a in acts:
        if a.ts >= t:
            break
        if a.end <= t and (best is None or a.end > best.end):
            best = a
    return best


def print_header(tr, dev, devs):
    print("trace %s" % tr.path)
    keys = [k for k in tr.meta.keys() if k != "traceEvents"]
    print("  top-level keys: %s" % (", ".join(keys) if keys else "(a bare event array)"))
    props = tr.meta.get("deviceProperties") or []
    if props:
        names = sorted({str(p.get("name", "")) for p in props if isinstance(p, dict)})
        print("  deviceProperties: %d (%s)" % (len(props), "; ".join(names)))
    print("  complete events %d, host threads %d, device activities %d" % (
        tr.n_x, len(tr.host), len(tr.acts)))
    print("  extent [%s, %s) = %s us" % (fmt(tr.t0), fmt(tr.t1), fmt(tr.t1 - tr.t0)))
    print("devices (busy = union of kernels, memcpy, memset):")
    for d, v in sorted(devs.items(), key=lambda kv: -sum(e - s for s, e in kv[1]["busy"])):
        busy = sum(e - s for s, e in v["busy"])
        th = sorted(v["threads"].items(), key=lambda kv: -kv[1])
        ths = ", ".join("%s: %d" % (tr.tname(k) if k[0] != "-" else "no launch call", n)
                        for k, n in th[:4])
        mark = "  <- read" if d == dev else ""
        print("  device %s: %d activities, busy %s us, launched by %s%s" % (
            d, len(v["acts"]), fmt(busy), ths, mark))
    if tr.steps:
        print("steps (%d):" % len(tr.steps))
        for s in tr.steps:
            print("  %s on %s [%s, %s) wall %s" % (s.name, tr.tname(s.thread), fmt(s.ts),
                                                   fmt(s.end), fmt(s.dur)))
    else:
        print("steps: none (the window is the extent of the trace)")
    w0, w1 = tr.window()
    print("window [%s, %s) = %s us" % (fmt(w0), fmt(w1), fmt(w1 - w0)))


def sorted_gaps(tr, busy):
    w0, w1 = tr.window()
    return sorted(gaps_of(busy, w0, w1), key=lambda g: (-(g[1] - g[0]), g[0]))


def print_gaps(tr, acts, busy, n):
    gs = sorted_gaps(tr, busy)
    tot = sum(b - a for a, b, _ in gs)
    print("idle gaps of the device inside the window: %d, total %s us; busy intervals %d" % (
        len(gs), fmt(tot), len(busy)))
    if n:
        gs = gs[:n]
    for k, (a, b, kind) in enumerate(gs, 1):
        print("#%d gap [%s, %s) idle %s us  (%s) step %s" % (
            k, fmt(a), fmt(b), fmt(b - a), kind, tr.step_of(a) or "-"))
        p = prev_act(acts, a + Decimal("0.000000001")) if kind != "leading edge" else None
        if p is not None:
            print("    before: %s" % act_line(p, tr).replace("\n", "\n    "))
        nx = next_act(acts, b) if kind != "trailing edge" else None
        if nx is not None:
            print("    next:   %s" % act_line(nx, tr).replace("\n", "\n    "))
    return gs


def open_stack(evs, t):
    """The ranges of one thread open at t (start <= t < end), outermost first."""
    return [x for x in evs if x.ts <= t < x.end]


def print_at(tr, acts, busy, t):
    print("== at %s" % fmt(t))
    running = [a for a in acts if a.ts <= t < a.end]
    if running:
        print("  device BUSY: %s" % "; ".join("%s %s (stream %s)" % (
            a.kind, short(a.name, 60), a.stream) for a in running[:4]))
    else:
        a = b = None
        for s, e in busy:
            if e <= t:
                a = e
            if s > t:
                b = s
                break
        print("  device IDLE in gap [%s, %s)%s" % (
            fmt(a) if a is not None else "-inf", fmt(b) if b is not None else "+inf",
            ("  %s us into it, %s us before its end" % (
                fmt(t - a) if a is not None else "-", fmt(b - t) if b is not None else "-"))))
    issued, inflight = [], []
    for x in acts:
        if x.ts <= t:
            continue
        L = tr.launch_of(x)
        if L is None:
            continue
        if L.end <= t:
            issued.append((x, L))
        elif L.ts <= t:
            inflight.append((x, L))
    print("  issued (launch call returned at or before t) but not started: %d" % len(issued))
    for x, L in issued[:6]:
        print("    %s on stream %s starts %s (call %s returned %s)" % (
            short(x.name, 60), x.stream, fmt(x.ts), L.name, fmt(L.end)))
    print("  launch calls in progress at t: %d" % len(inflight))
    for x, L in inflight[:6]:
        print("    %s on %s [%s, %s) -> %s stream %s starts %s" % (
            L.name, tr.tname(L.thread), fmt(L.ts), fmt(L.end), short(x.name, 50), x.stream,
            fmt(x.ts)))
    nx = next_act(acts, t)
    if nx is not None:
        print("  next activity: %s" % act_line(nx, tr).replace("\n", "\n  "))
    print("  host threads, ranges open at t (outermost first):")
    for th, evs in sorted(tr.host.items(), key=lambda kv: kv[0]):
        st = open_stack(evs, t)
        if not st:
            continue
        print("    %s:" % tr.tname(th))
        for x in st:
            extra = ""
            if x.corr is not None:
                extra = "  corr %s" % fmt(x.corr)
            print("      %s%s %s [%s, %s) dur %s%s" % ("  " * min(x.depth, 30), x.cat,
                                                     short(x.name, 80), fmt(x.ts), fmt(x.end),
                                                     fmt(x.dur), extra))
    silent = [tr.tname(th) for th, evs in tr.host.items() if not open_stack(evs, t)]
    if silent:
        print("    no range open on: %s" % ", ".join(sorted(silent)[:12]))


def print_window(tr, acts, a, b, threads, maxn, min_dur, max_depth):
    print("== window [%s, %s) = %s us" % (fmt(a), fmt(b), fmt(b - a)))
    dv = [x for x in acts if x.ts < b and x.end > a]
    print("  device activities overlapping: %d" % len(dv))
    for x in dv[:maxn]:
        L = tr.launch_of(x)
        lc = ("launch %s [%s, %s) on %s" % (L.name, fmt(L.ts), fmt(L.end), tr.tname(L.thread))
              if L else "no launch call in the trace")
        print("    [%s, %s) %s stream %s corr %s %s  | %s" % (
            fmt(x.ts), fmt(x.end), x.kind, x.stream, fmt(x.corr), short(x.name, 60), lc))
    if len(dv) > maxn:
        print("    ... %d more" % (len(dv) - maxn))
    for th, evs in sorted(tr.host.items(), key=lambda kv: kv[0]):
        if threads and th[1] not in threads:
            continue
        sel = [x for x in evs if x.ts < b and x.end > a]
        if not sel:
            continue
        shown = []
        for x in sel:
            call = is_launchish(x.cat)
            if not call:
                if min_dur is not None and x.dur < min_dur:
                    continue
                if max_depth is not None and x.depth > max_depth:
                    continue
            shown.append(x)
        print("  thread %s: %d events overlapping (%d shown)" % (tr.tname(th), len(sel),
                                                                min(len(shown), maxn)))
        for x in shown[:maxn]:
            s = "    d%-2d %s[%s, %s) dur %s %s %s" % (x.depth, "  " * min(x.depth, 20), fmt(x.ts),
                                                      fmt(x.end), fmt(x.dur), x.cat,
                                                      short(x.name, 70))
            if is_launchish(x.cat):
                if x.corr is not None:
                    s += "  corr %s" % fmt(x.corr)
                work = tr.acts_by_corr.get(x.corr, []) if x.corr is not None else []
                if work:
                    w = work[0]
                    s += "  -> %s on device %s stream %s starts %s (%s after the call returned)" % (
                        w.kind, w.dev, w.stream, fmt(w.ts), fmt(w.ts - x.end))
                if is_blocking_name(x.name):
                    s += "  [blocking call]"
            shown_args = []
            for k in ("Python id", "Python parent id"):
                if k in x.args:
                    shown_args.append("%s %s" % (k, fmt(dec(x.args[k]))))
            if shown_args:
                s += "  (" + ", ".join(shown_args) + ")"
            print(s)
        if len(shown) > maxn:
            print("    ... %d more" % (len(shown) - maxn))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--device")
    ap.add_argument("--step-marker", default="ProfilerStep")
    ap.add_argument("--gaps", type=int, default=10)
    ap.add_argument("--at", action="append", default=[])
    ap.add_argument("--window", nargs=2)
    ap.add_argument("--gap", type=int)
    ap.add_argument("--margin", default="20")
    ap.add_argument("--threads")
    ap.add_argument("--max", type=int, default=300)
    ap.add_argument("--min-dur")
    ap.add_argument("--max-depth", type=int)
    args = ap.parse_args(argv)
    tr = Trace(args.trace, args.step_marker)
    devs = tr.devices()
    dev = args.device
    if dev is None and devs:
        dev = max(devs, key=lambda d: (sum(e - s for s, e in devs[d]["busy"]), d))
    acts = [a for a in tr.acts if a.dev == dev] if dev is not None else []
    busy = devs[dev]["busy"] if dev in devs else []
    detail = bool(args.at or args.window or args.gap)
    if not detail:
        print_header(tr, dev, devs)
    if not detail:
        print_gaps(tr, acts, busy, args.gaps)
    for t in args.at:
        print_at(tr, acts, busy, Decimal(t))
    thr = set(args.threads.split(",")) if args.threads else None
    md = Decimal(args.min_dur) if args.min_dur else None
    if args.window:
        print_window(tr, acts, Decimal(args.window[0]), Decimal(args.window[1]), thr, args.max,
                     md, args.max_depth)
    if args.gap:
        gs = sorted_gaps(tr, busy)
        if args.gap > len(gs):
            raise SystemExit("timeline.py: no gap #%d" % args.gap)
        a, b, kind = gs[args.gap - 1]
        m = Decimal(args.margin)
        print("gap #%d [%s, %s) idle %s us (%s) step %s" % (args.gap, fmt(a), fmt(b), fmt(b - a),
                                                           kind, tr.step_of(a) or "-"))
        print_window(tr, acts, a - m, b + m, thr, args.max, md, args.max_depth)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
