#!/usr/bin/env python3
"""gapmodel.py — an independent, exact computation of gpuflame's queue-aware
gap model (docs/report.md, "Gap causes"), stdlib only, integer ns. It reads a
Kineto trace itself (plain, gzip or zstd; zstd through the `zstd` command
when Python has no module for it) and never calls gpuflame.

  gapmodel.py TRACE [--device N]            -> the model as JSON on stdout
  gapmodel.py --check REPORT.json TRACE     -> "ok", or one line per difference
                                               between `gpuflame report
                                               --format json` and this model
  gapmodel.py --batch DIR NAME...            -> per NAME, DIR/NAME.json's model
                                               against DIR/NAME.expect.json
                                               ("model NAME ok"), and
                                               DIR/NAME.report.json against
                                               it ("report NAME ok")
  gapmodel.py --expect EXPECT.json REPORT.json
                                            -> the same comparison against a
                                               generator's known answer
                                               (tests/gen/gen_gaps.py)

What it builds from the events (docs/trace-reader.md, docs/report.md):
  - host ranges per (pid, tid) thread: user_annotation, python_function,
    cpu_op, cuda_runtime, cuda_driver (legacy names too) complete events,
    sorted by (start, longest first, kind), nested by a stack sweep where
    the shorter of two partly overlapping ranges is cut at the boundary;
    python frames re-parented by `Python parent id` when the named frame
    encloses them through Python frames only;
  - GPU activities (kernel, memcpy, memset): device = args.device else pid,
    stream = args.stream else tid; each linked to the runtime call (else the
    driver call) with its correlation; unlinked ones whose correlation is
    absent or below every runtime/driver correlation were launched before
    the window;
  - steps: ProfilerStep#N ranges (user_annotation or cpu_op) as written; no
    marker: one step over the trace window; warm-up = the leading steps
    whose wall exceeds 1.5 x the median (at most half, 3+ steps);
  - the analysed device: the one whose activities the step thread launched
    most of, with the most GPU time; busy = union of its activities.

The model (docs/report.md, "Why the GPU idled: the rule"; a = end of the
previous busy pair, b = start of the next, N the activity starting at b (one
with a launch call first), L its launch call, T = L's thread; after the last
activity T is the thread of the step holding the gap's start in the steps'
span, else the device's launching thread). Work is issued when its launch
call RETURNS. Each instant t of the gap:
  queued    some activity of the device still to start was issued by t:
            from q = min(L.end) over the activities starting at or after b;
            named (queued_waits) by N once N is issued, before by the first
            issued: "<wait call> (stream S)" (the latest stream-wait call on
            its launching thread after that thread's previous launch), else
            "launch latency (stream S)" (it started < 30 us after its call
            returned), else "back-to-back on stream S" (gap < 30 us, issued
            before it began), else "stream S: no wait in the trace". Before
            the device's first activity: edge.
  edge      N has no launch call; or before the first / after the last
            activity where neither T nor any thread that launches the
            device's work or holds a step is in traced work (the profiler's
            own frames do not count);
  else by T's innermost open range: a blocking call -> sync (sync_sites:
  its Python site); a launch call -> launch; other traced range -> host
  (host_stacks: "Python site > innermost range"); none (or the step
  marker) -> untraced.
Blocking calls: *Synchronize and synchronous Memcpy (no "Async"); async
memcpy whose copy is DtoH into pageable memory; async memcpy whose copy is
HtoD from pageable memory only when the device was busy at its start and it
returned at or after the end of that busy interval.
Steady means are rounded half to even; the verdict cause: gpu_bound when
busy >= 90% of the steady steps outside the edges (sums over the steady
steps) and the edges hold under half of them; else the largest cause.

Output (--check compares these; times in ns):
 {"device", "steps": [{"index", "wall", "busy", "edge", "sync", "host",
  "untraced", "queued", "launch", "warmup"}], "summary": {...the six},
  "verdict_cause", "sync_sites": [[label, ns]], "host_stacks": [...],
  "queued_waits": [...], "latency": {"median_ns", "launches"}}
"""
import decimal
import json
import os
import re
import sys

import common

KERNEL_WAIT = 30000
CAUSES = ("edge", "sync", "host", "untraced", "queued", "launch")

# categories -> kind (host ranges 0..4, activities "k"/"c"/"s")
CAT = {"user_annotation": 0, "python_function": 1, "cpu_op": 2, "Operator": 2,
       "cuda_runtime": 3, "Runtime": 3, "cuda_driver": 4,
       "kernel": "k", "Kernel": "k", "gpu_memcpy": "c", "Memcpy": "c",
       "gpu_memset": "s", "Memset": "s"}
K_ANN, K_PY, K_OP, K_RT, K_DRV = range(5)

PYSRC_RE = re.compile(r"^([^<(][^(]*)\((\d+)\):")


# --------------------------------------------------------------- numbers

def to_ns(v):
    """A JSON time (int, or a decimal number kept as text, or a quoted
    number) in us to int ns; sub-ns digits round half away from zero. None
    when unusable."""
    if v is None or isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v * 1000
    s = v.strip() if isinstance(v, str) else str(v)
    m = re.match(r"^(-?)(\d+)(?:\.(\d{0,3}))?$", s)
    if m:
        frac = (m.group(3) or "").ljust(3, "0")
        n = int(m.group(2)) * 1000 + int(frac)
        return -n if m.group(1) else n
    try:
        d = decimal.Decimal(s) * 1000
    except decimal.InvalidOperation:
        return None
    if not d.is_finite():
        return None
    q = d.quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP)
    return int(q)


def to_int(v):
    if v is None or isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, str):
        try:
            return int(v.strip())
        except ValueError:
            return None
    return None


def div_even(x, n):
    """x / n rounded half to even (n > 0)."""
    q, r = divmod(x, n)
    if 2 * r > n or (2 * r == n and q % 2):
        q += 1
    return q


def median(v):
    v = sorted(v)
    n = len(v)
    if not n:
        return 0
    if n % 2:
        return v[n // 2]
    return div_even(v[n // 2 - 1] + v[n // 2], 2)


def share4(x, tot):
    """x / tot with 4 decimals, rounded half to even, as a string."""
    if tot <= 0:
        return "0.0000"
    q = div_even(x * 10000, tot)
    return "%d.%04d" % (q // 10000, q % 10000)


# --------------------------------------------------------------- reading

def read_text(path):
    return common.trace_bytes(path)


def load_events(path):
    doc = json.loads(read_text(path), parse_float=str)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def api_flags(name):
    """(sync, graph, memcpy, wait) of a runtime/driver call name, as
    docs/report.md names them (a _suffix is ignored)."""
    base = name.split("_", 1)[0]
    for p in ("cuda", "hip", "cu"):
        if base.startswith(p):
            rest = base[len(p):]
            break
    else:
        return (False, False, False, False)
    sync = rest in ("StreamSynchronize", "DeviceSynchronize", "EventSynchronize",
                    "CtxSynchronize", "ThreadSynchronize")
    memcpy = rest.startswith("Memcpy")
    if memcpy and "Async" not in rest:
        sync = True
    # freeing memory synchronises the device (not the stream-ordered *FreeAsync)
    if rest in ("Free", "FreeHost", "FreeArray", "HostFree", "MemFree", "MemFreeHost"):
        sync = True
    return (sync, rest == "GraphLaunch", memcpy, rest == "StreamWaitEvent")


def py_site(name):
    """(is a source frame, inside torch) of a python_function name."""
    m = PYSRC_RE.match(name)
    if not m or name.startswith("<"):
        return (False, False)
    path = m.group(1)
    in_torch = False
    for k in re.finditer(r"torch[/\\]", path):
        i = k.start()
        if i == 0 or path[i - 1] in "/\\":
            in_torch = True
            break
    return (True, in_torch)


def is_step(name, marker):
    if name == marker:
        return True
    if name.startswith(marker + "#"):
        d = name[len(marker) + 1:]
        return 1 <= len(d) <= 18 and d.isdigit()
    return False


class Trace:
    pass


def build(events, marker="ProfilerStep"):
    T = Trace()
    tracks = {}        # (pid, tid) -> thread index (first appearance)
    names = {}         # name -> first-appearance id (cmp_range's name order)
    R = []             # host ranges: [thread, start, end, kind, nameid, corr, name, pyid, pypar]
    A = []             # activities
    for e in events:
        if not isinstance(e, dict) or e.get("ph") != "X":
            continue
        kind = CAT.get(e.get("cat"))
        if kind is None:
            continue
        ts = to_ns(e.get("ts"))
        dur = to_ns(e.get("dur"))
        if ts is None or dur is None:
            continue
        if dur < 0:
            dur = 0
        name = e.get("name")
        if not isinstance(name, str):
            name = "" if name is None else str(name)
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        pid, tid = e.get("pid"), e.get("tid")
        pi, ti = to_int(pid), to_int(tid)
        pkey = pi if pi is not None else ("s", str(pid))
        tkey = ti if ti is not None else ("s", str(tid))
        if name not in names:
            names[name] = len(names)
        corr = to_int(args.get("correlation"))
        if isinstance(kind, str):
            dv = to_int(args.get("device"))
            if dv is None:
                dv = pi
            st = to_int(args.get("stream"))
            if st is None:
                st = ti
            if dv is None or dv < -1 or dv > 32767:
                dv = -1
            A.append({"start": ts, "end": ts + dur, "dev": dv, "stream": -1 if st is None else st,
                      "corr": corr, "name": name, "nid": names[name], "kind": kind,
                      "order": len(A)})
            continue
        key = (pkey, tkey)
        if key not in tracks:
            tracks[key] = len(tracks)
        R.append({"th": tracks[key], "pid": pkey, "start": ts, "end": ts + dur, "wend": ts + dur,
                  "kind": kind, "nid": names[name], "name": name,
                  "corr": corr if kind >= K_RT else None,
                  "pyid": to_int(args.get("Python id")) if kind == K_PY else None,
                  "pypar": to_int(args.get("Python parent id")) if kind == K_PY else None})
    big = 1 << 62
    R.sort(key=lambda r: (r["th"], r["start"], -r["end"], r["kind"], r["nid"],
                          -big if r["corr"] is None else r["corr"]))
    for i, r in enumerate(R):
        r["i"] = i
        r["parent"] = None
        r["step"] = r["kind"] in (K_ANN, K_OP) and is_step(r["name"], marker)
        if r["kind"] >= K_RT:
            s, g, m, w = api_flags(r["name"])
        else:
            s = g = m = w = False
        r["sync"], r["graph"], r["memcpy"], r["wait"] = s, g, m, w
        r["launch"] = False
    T.R = R
    T.nth = len(tracks)
    # steps, as written (before clipping)
    steps = [r for r in R if r["step"]]
    steps.sort(key=lambda r: (r["start"], r["i"]))
    ordinal = 0
    T.steps = []
    for r in steps:
        m = r["name"][len(marker) + 1:]
        num = int(m) if m else None
        T.steps.append({"start": r["start"], "end": r["end"], "num": num, "th": r["th"], "ri": r["i"]})
    for s in T.steps:
        if s["num"] is None:
            s["num"] = ordinal
            ordinal += 1
    # nesting per thread, with clipping and Python parent ids
    by_th = {}
    for r in R:
        by_th.setdefault(r["th"], []).append(r)
    T.by_th = by_th
    for th, rs in by_th.items():
        pyids = {}
        for r in rs:
            if r["kind"] == K_PY and r["pyid"] is not None and r["pyid"] not in pyids:
                pyids[r["pyid"]] = r["i"]
        stack = []
        for r in rs:
            while stack and R[stack[-1]]["end"] <= r["start"]:
                stack.pop()
            while stack and R[stack[-1]]["end"] < r["end"]:
                t = R[stack[-1]]
                if t["end"] - t["start"] < r["end"] - r["start"]:
                    t["end"] = r["start"]
                    stack.pop()
                else:
                    r["end"] = t["end"]
                    break
            r["parent"] = stack[-1] if stack else None
            if r["kind"] == K_PY and r["pypar"] is not None and r["parent"] is not None:
                p = pyids.get(r["pypar"])
                if (p is not None and p != r["parent"] and p < r["i"] and R[p]["start"] <= r["start"]
                        and R[p]["end"] >= r["end"]):
                    x, ok = r["parent"], True
                    while x != p:
                        if x is None or R[x]["kind"] != K_PY:
                            ok = False
                            break
                        x = R[x]["parent"]
                    if ok:
                        r["parent"] = p
            stack.append(r["i"])
    # window (clipped ends) over ranges and activities
    times = [r["start"] for r in R] + [a["start"] for a in A]
    ends = [r["end"] for r in R] + [a["end"] for a in A]
    T.win = (min(times), max(ends)) if times else (0, 0)
    # linking by correlation: runtime first, then driver, lowest index
    corr = {}
    for r in R:
        if r["kind"] >= K_RT and r["corr"] is not None:
            k = (r["corr"])
            cur = corr.get(k)
            if cur is None or (r["kind"], r["i"]) < (R[cur]["kind"], cur):
                corr[k] = r["i"]
    pids = {r["pid"] for r in R if r["kind"] >= K_RT and r["corr"] is not None}
    T.multi_process = len(pids) > 1
    min_corr = min((r["corr"] for r in R if r["kind"] >= K_RT and r["corr"] is not None),
                   default=None)
    A.sort(key=lambda a: (a["start"], a["end"], a["dev"], a["stream"],
                          -big if a["corr"] is None else a["corr"], a["nid"], a["order"]))
    for a in A:
        L = corr.get(a["corr"]) if a["corr"] is not None else None
        a["L"] = L
        a["before"] = L is None and (a["corr"] is None or min_corr is None or a["corr"] < min_corr)
        if L is not None:
            R[L]["launch"] = True
    T.A = A
    # devices: launch thread (most linked activities, lowest thread index)
    devs = {}
    for a in A:
        if a["dev"] < 0:
            continue
        d = devs.setdefault(a["dev"], {"ns": 0, "cnt": {}})
        d["ns"] += a["end"] - a["start"]
        if a["L"] is not None:
            th = R[a["L"]]["th"]
            d["cnt"][th] = d["cnt"].get(th, 0) + 1
    for d in devs.values():
        best, lt = 0, None
        for th in sorted(d["cnt"]):
            if d["cnt"][th] > best:
                best, lt = d["cnt"][th], th
        d["lt"] = lt
    T.devs = devs
    return T


def pick_device(T):
    th = T.steps[0]["th"] if T.steps else None
    for pass_ in (0, 1):
        best = None
        for dv in sorted(T.devs):
            d = T.devs[dv]
            if pass_ == 0 and (th is None or d["lt"] != th):
                continue
            if best is None or d["ns"] > T.devs[best]["ns"]:
                best = dv
        if best is not None:
            return best
    return None


# --------------------------------------------------------------- model

def bisect_right(v, x):
    lo, hi = 0, len(v)
    while lo < hi:
        m = (lo + hi) // 2
        if v[m] <= x:
            lo = m + 1
        else:
            hi = m
    return lo


def bisect_left(v, x):
    lo, hi = 0, len(v)
    while lo < hi:
        m = (lo + hi) // 2
        if v[m] < x:
            lo = m + 1
        else:
            hi = m
    return lo


class Model:
    def __init__(self, T, device=None):
        self.T = T
        self.D = device if device is not None else pick_device(T)
        R, A = T.R, T.A
        self.acts = [a for a in A if a["dev"] == self.D] if self.D is not None else []
        self.act_starts = [a["start"] for a in self.acts]
        busy = []
        for a in self.acts:
            if a["end"] <= a["start"]:
                continue
            if busy and a["start"] <= busy[-1][1]:
                if a["end"] > busy[-1][1]:
                    busy[-1][1] = a["end"]
                continue
            busy.append([a["start"], a["end"]])
        self.busy = busy
        self.bstart = [b[0] for b in busy]
        self.bend = [b[1] for b in busy]
        # first linked activity of each range (by activity order)
        first = {}
        for a in A:
            if a["L"] is not None and a["L"] not in first:
                first[a["L"]] = a
        self.first = first
        # first linked activity on D of each range
        firstd = {}
        for a in self.acts:
            if a["L"] is not None and a["L"] not in firstd:
                firstd[a["L"]] = a
        self.firstd = firstd
        # blocking calls
        blk = []
        for r in R:
            if r["kind"] < K_RT:
                continue
            b = r["sync"]
            if not b and r["memcpy"] and r["i"] in first:
                x = first[r["i"]]
                if x["kind"] == "c" and "Pageable" in x["name"]:
                    if "DtoH" in x["name"]:
                        b = True
                    elif "HtoD" in x["name"]:
                        j = bisect_right(self.bstart, r["start"]) - 1
                        if j >= 0 and self.bend[j] > r["start"] and r["end"] >= self.bend[j]:
                            b = True
            r["blocking"] = b
            if b:
                blk.append(r)
        blk.sort(key=lambda r: (r["end"], r["i"]))
        self.blk = blk
        self.blk_end = [r["end"] for r in blk]
        self.segs = {}
        self.launch_starts = {}
        self.waits = {}
        for th, rs in T.by_th.items():
            ls = [r for r in rs if r["launch"]]
            ls.sort(key=lambda r: (r["start"], r["i"]))
            self.launch_starts[th] = ([r["start"] for r in ls], ls)
            ws = [r for r in rs if r["wait"]]
            ws.sort(key=lambda r: (r["start"], r["i"]))
            self.waits[th] = ([r["start"] for r in ws], ws)
        self.gap_cache = {}
        # the queue: min launch return over acts[k:] and which activity
        INFN = 1 << 70
        qmin, qarg = [INFN] * len(self.acts), [None] * len(self.acts)
        m, arg = INFN, None
        for k in range(len(self.acts) - 1, -1, -1):
            a = self.acts[k]
            if a["L"] is not None and R[a["L"]]["end"] <= m:
                m, arg = R[a["L"]]["end"], a
            qmin[k], qarg[k] = m, arg
        self.qmin, self.qarg = qmin, qarg
        # the threads of the step: they launch the device's work or hold a step
        self.devth = {R[a["L"]]["th"] for a in self.acts if a["L"] is not None}
        self.devth |= {st["th"] for st in T.steps}
        self.zone = None
        # the steps' span (the gaps are classified as far as it reaches)
        if T.steps:
            self.span = (min(st["start"] for st in T.steps), max(st["end"] for st in T.steps))
        else:
            self.span = T.win

    # innermost open range per thread, as [(x0, x1, ri or None)]
    def segments(self, th):
        if th in self.segs:
            return self.segs[th]
        R = self.T.R
        out = []
        stack = []
        cur = None

        def emit(x0, x1, ri):
            if x1 > x0:
                out.append((x0, x1, ri))

        for r in self.T.by_th[th]:
            while stack and R[stack[-1]]["end"] <= r["start"]:
                top = stack.pop()
                emit(cur, R[top]["end"], top)
                cur = R[top]["end"]
            if stack:
                emit(cur, r["start"], stack[-1])
            elif cur is not None and r["start"] > cur:
                emit(cur, r["start"], None)
            cur = r["start"]
            stack.append(r["i"])
        while stack:
            top = stack.pop()
            emit(cur, R[top]["end"], top)
            cur = R[top]["end"]
        starts = [s[0] for s in out]
        self.segs[th] = (starts, out)
        return self.segs[th]

    def site(self, ri):
        """actx_site: innermost source python frame not inside torch, else
        the innermost source frame (ancestor or self)."""
        R = self.T.R
        x, src = ri, None
        while x is not None:
            r = R[x]
            if r["kind"] == K_PY:
                s, t = py_site(r["name"])
                if s and not t:
                    return x
                if s and src is None:
                    src = x
            x = r["parent"]
        return src

    def host_key(self, ri):
        R = self.T.R
        s = self.site(ri)
        lab = "[no Python frame]" if s is None else R[s]["name"]
        if s != ri:
            lab += " > " + R[ri]["name"]
        return lab

    def sync_key(self, ri):
        R = self.T.R
        s = self.site(ri)
        return "[no Python frame] > " + R[ri]["name"] if s is None else R[s]["name"]

    def wait_label(self, X, a, b):
        """What queued activity X waited on."""
        R = self.T.R
        L = X["L"]
        stream = X["stream"]
        th = R[L]["th"]
        lst, ls = self.launch_starts[th]
        k = bisect_left(lst, R[L]["start"]) - 1
        prev = lst[k] if k >= 0 else None
        wst, ws = self.waits[th]
        j = bisect_right(wst, R[L]["start"]) - 1
        if j >= 0 and (prev is None or wst[j] > prev):
            return "%s (stream %d)" % (ws[j]["name"], stream)
        if X["start"] - R[L]["end"] < KERNEL_WAIT:
            return "launch latency (stream %d)" % stream
        if b - a < KERNEL_WAIT and R[L]["end"] <= a:
            return "back-to-back on stream %d" % stream
        return "stream %d: no wait in the trace" % stream

    def prof(self, ri):
        """Inside the profiler's own frames (ancestor or self)."""
        R = self.T.R
        x = ri
        while x is not None:
            n = R[x]["name"]
            if ("torch/profiler/" in n or "torch/autograd/profiler" in n
                    or n.startswith("<built-in method _record_function_exit")
                    or n.startswith("<built-in method _record_function_enter")):
                return True
            x = R[x]["parent"]
        return False

    def traced(self, ri, zone):
        R = self.T.R
        return ri is not None and not R[ri]["step"] and not (zone and self.prof(ri))

    def zone_pairs(self):
        """Traced work of the threads of the step (sorted, merged)."""
        if self.zone is None:
            iv = []
            for th in sorted(self.devth):
                if th not in self.T.by_th:
                    continue
                _, segs = self.segments(th)
                iv.extend((x, y) for x, y, ri in segs if self.traced(ri, True))
            iv.sort()
            out = []
            for x, y in iv:
                if out and x <= out[-1][1]:
                    out[-1][1] = max(out[-1][1], y)
                else:
                    out.append([x, y])
            self.zone = out
        return self.zone

    def state(self, x, y, ri, zone, out):
        R = self.T.R
        if not self.traced(ri, zone):
            if not zone:
                out.append((x, y, "untraced", None))
                return
            for zx, zy in self.zone_pairs():
                if zy <= x or zx >= y:
                    continue
                if zx > x:
                    out.append((x, zx, "edge", None))
                out.append((max(x, zx), min(y, zy), "untraced", None))
                x = min(y, zy)
            if x < y:
                out.append((x, y, "edge", None))
            return
        r = R[ri]
        if r["kind"] >= K_RT and r["blocking"]:
            out.append((x, y, "sync", self.sync_key(ri)))
        elif r["kind"] >= K_RT and r["launch"]:
            out.append((x, y, "launch", None))
        else:
            out.append((x, y, "host", self.host_key(ri)))

    def thread_pieces(self, th, lo, hi, zone, out):
        if th is None or th not in self.T.by_th:
            self.state(lo, hi, None, zone, out)
            return
        starts, segs = self.segments(th)
        k = bisect_right(starts, lo) - 1
        if k < 0:
            k = 0
        x = lo
        while x < hi:
            if k < len(segs) and segs[k][0] <= x < segs[k][1]:
                y = min(segs[k][1], hi)
                self.state(x, y, segs[k][2], zone, out)
                x = y
                k += 1
            elif k < len(segs) and segs[k][0] > x:
                y = min(segs[k][0], hi)
                self.state(x, y, None, zone, out)
                x = y
            elif k < len(segs):
                k += 1
            else:
                self.state(x, hi, None, zone, out)
                x = hi

    def step_thread(self, ts):
        T = self.T
        st = sorted(T.steps, key=lambda s: s["start"])
        l = bisect_right([s["start"] for s in st], ts)
        for k in range(l, max(0, l - 4), -1):
            if st[k - 1]["start"] <= ts < st[k - 1]["end"]:
                return st[k - 1]["th"]
        return T.devs[self.D]["lt"] if self.D in T.devs else None

    def gap(self, j):
        """Pieces (lo, hi, cause, key) of gap j (between busy j-1 and j),
        as far as the steps' span reaches."""
        if j in self.gap_cache:
            return self.gap_cache[j]
        INF = 1 << 70
        R = self.T.R
        if self.D is None:
            return [(self.span[0], self.span[1], "edge", None)]
        a = self.bend[j - 1] if j > 0 else -INF
        b = self.bstart[j] if j < len(self.busy) else INF
        lo, hi = max(a, self.span[0]), min(b, self.span[1])
        out = []
        if hi <= lo:
            self.gap_cache[j] = out
            return out
        k0 = bisect_left(self.act_starts, b) if b != INF else len(self.acts)
        N = None
        for k in range(k0, len(self.acts)):
            x = self.acts[k]
            if x["start"] != b:
                break
            if N is None:
                N = x
            if x["L"] is not None:
                N = x
                break
        L = N["L"] if N is not None else None
        q = self.qmin[k0] if k0 < len(self.acts) else INF
        qa = self.qarg[k0] if k0 < len(self.acts) else None
        nq = min(max(q, lo), hi)
        zone = a == -INF or b == INF
        if nq > lo:
            if b != INF and L is None:
                out.append((lo, nq, "edge", None))
            else:
                th = R[L]["th"] if L is not None else self.step_thread(lo)
                self.thread_pieces(th, lo, nq, zone, out)
        q0 = max(q, lo)
        if q0 < hi and qa is not None:
            if a == -INF:
                out.append((q0, hi, "edge", None))
            else:
                ni = R[L]["end"] if L is not None else INF
                if ni <= q0:
                    out.append((q0, hi, "queued", self.wait_label(N, a, b)))
                elif ni < hi:
                    out.append((q0, ni, "queued", self.wait_label(qa, a, b)))
                    out.append((ni, hi, "queued", self.wait_label(N, a, b)))
                else:
                    out.append((q0, hi, "queued", self.wait_label(qa, a, b)))
        self.gap_cache[j] = out
        return out

    def window(self, lo, hi):
        """Per cause ns inside [lo, hi), and the keyed pieces."""
        tot = dict.fromkeys(CAUSES, 0)
        keyed = []
        if hi <= lo:
            return tot, keyed
        # (no GPU activity at all: one unbounded gap, all edge)
        # gap j = [bend[j-1], bstart[j]) meets [lo, hi) when bstart[j] > lo
        # and bend[j-1] < hi
        j = bisect_right(self.bstart, lo)
        while j <= len(self.busy) and (j == 0 or self.bend[j - 1] < hi):
            for x, y, c, key in self.gap(j):
                w = min(y, hi) - max(x, lo)
                if w > 0:
                    tot[c] += w
                    if key is not None:
                        keyed.append((c, key, w))
            j += 1
        return tot, keyed

    def busy_in(self, lo, hi):
        s = 0
        for k in range(bisect_right(self.bend, lo), len(self.busy)):
            x, y = self.busy[k]
            if x >= hi:
                break
            s += max(0, min(y, hi) - max(x, lo))
        return s

    def run(self):
        T = self.T
        if T.steps:
            wins = [(s["start"], s["end"], s["num"]) for s in T.steps]
        else:
            wins = [(T.win[0], T.win[1], None)]
        rows = []
        for lo, hi, num in wins:
            tot, keyed = self.window(lo, hi)
            row = {"index": num, "wall": hi - lo, "busy": self.busy_in(lo, hi) if self.D is not None else 0,
                   "warmup": False, "keyed": keyed}
            row.update(tot)
            if sum(tot.values()) != row["wall"] - row["busy"]:
                raise SystemExit("gapmodel.py: step %r: causes %d != idle %d (a bug here)" % (
                    num, sum(tot.values()), row["wall"] - row["busy"]))
            rows.append(row)
        if len(rows) >= 3:
            med = median([r["wall"] for r in rows])
            for k in range(len(rows) // 2):
                if rows[k]["wall"] * 2 <= med * 3:
                    break
                rows[k]["warmup"] = True
        steady = [r for r in rows if not r["warmup"]] or rows
        summ = {c: div_even(sum(r[c] for r in steady), len(steady)) for c in CAUSES}
        keys = {"sync": {}, "host": {}, "queued": {}}
        for r in steady:
            for c, key, w in r["keyed"]:
                keys[c][key] = keys[c].get(key, 0) + w
        totals = {c: sum(r[c] for r in steady) for c in CAUSES}
        lists = {}
        for c, name in (("sync", "sync_sites"), ("host", "host_stacks"), ("queued", "queued_waits")):
            v = sorted(keys[c].items(), key=lambda kv: (-kv[1], kv[0].encode()))
            lists[name] = [[k, ns, share4(ns, totals[c])] for k, ns in v]
        W = median([r["wall"] for r in steady])
        B = median([r["busy"] for r in steady])
        Ws = sum(r["wall"] for r in steady)
        Bs = sum(r["busy"] for r in steady)
        Es = sum(r["edge"] for r in steady)
        if self.D is None:
            verdict = "none"
        elif Ws - Es > 0 and 2 * Es < Ws and 10 * Bs >= 9 * (Ws - Es):
            verdict = "gpu_bound"
        else:
            verdict = max(CAUSES, key=lambda c: (summ[c], -CAUSES.index(c)))
        # launch-to-start latency over the steady steps' launch calls
        calls = sorted((T.R[ri]["start"], a["start"] - T.R[ri]["start"]) for ri, a in self.firstd.items())
        cst = [c[0] for c in calls]
        lat = []
        for (lo, hi, num), r in zip(wins, rows):
            if r["warmup"]:
                continue
            lat.extend(c[1] for c in calls[bisect_left(cst, lo):bisect_left(cst, hi)])
        for r in rows:
            del r["keyed"]
        return {"device": self.D, "steps": rows, "summary": summ, "verdict_cause": verdict,
                "wall": W, "busy": B, "latency": {"median_ns": median(lat), "launches": len(lat)},
                "multi_process": T.multi_process, **lists}


def compute(path, device=None):
    return Model(build(load_events(path)), device).run()


# --------------------------------------------------------------- checking

def us_ns(v):
    """A report JSON time (decimal us, read as Decimal) to int ns."""
    return int(decimal.Decimal(v) * 1000)


def from_report(rep):
    """The comparable part of a gpuflame.report/2 object."""
    if "ranks" in rep:
        rep = rep["ranks"][0]
    out = {"steps": [], "summary": {}, "verdict_cause": rep["summary"].get("verdict_cause")}
    for s in rep["steps"]:
        g = s["gaps"]
        row = {"index": s["index"]}
        for c in CAUSES:
            row[c] = us_ns(g[c + "_us"])
        out["steps"].append(row)
    g = rep["summary"]["gaps"] if isinstance(rep["summary"].get("gaps"), dict) else rep["gaps"]
    for c in CAUSES:
        out["summary"][c] = us_ns(g[c + "_us"])
    for name, field in (("sync_sites", "stack"), ("host_stacks", "stack"), ("queued_waits", "wait")):
        out[name] = [[x.get(field), us_ns(x["idle_us"]), str(x.get("share"))] for x in g.get(name) or []]
    s = rep["summary"]
    out["verdict_class"] = s.get("verdict_class")
    out["verdict"] = s.get("verdict") or ""
    out["action"] = s.get("action") or ""
    if isinstance(rep.get("launch"), dict):
        out["launch_bound"] = rep["launch"].get("launch_bound")
    out["syncs"] = [[x.get("site"), x.get("fix"), us_ns(x["bubble_us"])] for x in rep.get("syncs") or []]
    lat = g.get("latency") if isinstance(g.get("latency"), dict) else None
    if lat is not None:
        med = lat.get("median_launch_to_start_us")
        out["latency"] = {"median_ns": None if med is None else us_ns(med), "launches": lat.get("launches")}
    return out


def compare(want, got, lists=True):
    """Lines describing the differences (empty: equal)."""
    bad = []
    ws, gs = want["steps"], got["steps"]
    if len(ws) != len(gs):
        bad.append("steps: %d expected, got %d" % (len(ws), len(gs)))
    for w, g in zip(ws, gs):
        d = [c for c in CAUSES if w[c] != g[c]]
        if d or w["index"] != g["index"]:
            bad.append("step %r: " % w["index"] + ", ".join(
                "%s %d != %d" % (c, g[c], w[c]) for c in d) + " (got != expected, ns)")
    d = [c for c in CAUSES if want["summary"][c] != got["summary"][c]]
    if d:
        bad.append("summary: " + ", ".join("%s %d != %d" % (c, got["summary"][c], want["summary"][c])
                                           for c in d))
    if want.get("verdict_cause") != got.get("verdict_cause"):
        bad.append("verdict_cause %r != %r" % (got.get("verdict_cause"), want.get("verdict_cause")))
    if "latency" in want and "latency" in got:
        w, g = want["latency"], got["latency"]
        if w["launches"] != g["launches"] or (w["launches"] and w["median_ns"] != g["median_ns"]):
            bad.append("latency: median %s ns over %s launches != %s ns over %s" % (
                g["median_ns"], g["launches"], w["median_ns"], w["launches"]))
    elif "latency" in want:
        bad.append("no gaps.latency in the report")
    # what only the report says (the generator's answers; the model has none)
    for k in ("verdict_class", "launch_bound"):
        if k in want and k in got and want[k] != got[k]:
            bad.append("%s %r != %r" % (k, got[k], want[k]))
    if "verdict" in got:
        for k, field, neg in (("verdict_has", "verdict", False), ("next_has", "action", False),
                              ("next_not", "action", True), ("verdict_not", "verdict", True)):
            for sub in want.get(k, []):
                if (sub in got[field]) == neg:
                    bad.append("%s %s %r: %r" % (field, "says" if neg else "lacks", sub, got[field][:300]))
    if "syncs" in want and "syncs" in got:
        for site, fix, bub in want["syncs"]:
            row = [x for x in got["syncs"] if x[0] == site]
            if not row:
                bad.append("syncs: no row for %r" % site)
            elif fix not in (row[0][1] or "") or row[0][2] != bub:
                bad.append("syncs %r: fix %r, bubble %d ns; expected %r in the fix, bubble %d" % (
                    site, row[0][1], row[0][2], fix, bub))
    if "nsyncs" in want and "syncs" in got and len(got["syncs"]) != want["nsyncs"]:
        bad.append("syncs: %d rows, expected %d" % (len(got["syncs"]), want["nsyncs"]))
    if lists:
        for name in ("sync_sites", "host_stacks", "queued_waits"):
            if name not in want:
                continue
            # the report lists the top 20
            w = [x[:2] for x in want[name]][:20]
            g = [x[:2] for x in got.get(name, [])][:20]
            if w != g:
                bad.append("%s: got %s, expected %s" % (name, json.dumps(g)[:300], json.dumps(w)[:300]))
    return bad


def check_report(want, path):
    """compare() against a report JSON file, as one line."""
    with open(path) as fp:
        rep = json.load(fp, parse_float=decimal.Decimal)
    try:
        got = from_report(rep) if "schema" in rep or "ranks" in rep else rep
    except (KeyError, TypeError) as e:
        return "report JSON lacks the gap model's fields (%s: %s)" % (type(e).__name__, e)
    bad = compare(want, got)
    return "|".join(bad[:5]) if bad else "ok"


def batch(d, names):
    """For each NAME: the model of D/NAME.json against D/NAME.expect.json,
    and D/NAME.report.json (when present) against it too: one process for
    every scenario (Python starts slowly on a loaded machine)."""
    for n in names:
        with open("%s/%s.expect.json" % (d, n)) as fp:
            want = json.load(fp)
        model = compute("%s/%s.json" % (d, n))
        with open("%s/%s.model.json" % (d, n), "w") as fp:
            json.dump(model, fp, indent=1)
            fp.write("\n")
        bad = compare(want, model)
        print("model %s %s" % (n, "|".join(bad[:5]) if bad else "ok"))
        rp = "%s/%s.report.json" % (d, n)
        try:
            print("report %s %s" % (n, check_report(want, rp)))
        except FileNotFoundError:
            print("report %s no report" % n)


def main(argv):
    if len(argv) >= 2 and argv[0] == "--batch":
        batch(argv[1], argv[2:])
        return 0
    if len(argv) >= 3 and argv[0] == "--check":
        with open(argv[1]) as fp:
            rep = json.load(fp, parse_float=decimal.Decimal)
        dev = None
        if len(argv) >= 5 and argv[3] == "--device":
            dev = int(argv[4])
        try:
            got = from_report(rep)
        except (KeyError, TypeError) as e:
            print("report JSON lacks the gap model's fields (%s: %s)" % (type(e).__name__, e))
            return 0
        want = compute(argv[2], dev)
        bad = compare(want, got)
        print("\n".join(bad) if bad else "ok")
        return 0
    if len(argv) == 3 and argv[0] == "--expect":
        with open(argv[1]) as fp:
            want = json.load(fp)
        with open(argv[2]) as fp:
            rep = json.load(fp, parse_float=decimal.Decimal)
        try:
            got = from_report(rep) if "schema" in rep or "ranks" in rep else rep
        except (KeyError, TypeError) as e:
            print("report JSON lacks the gap model's fields (%s: %s)" % (type(e).__name__, e))
            return 0
        bad = compare(want, got)
        print("\n".join(bad) if bad else "ok")
        return 0
    if not argv or argv[0].startswith("-"):
        sys.stderr.write(__doc__)
        return 2
    dev = int(argv[2]) if len(argv) >= 3 and argv[1] == "--device" else None
    json.dump(compute(argv[0], dev), sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
