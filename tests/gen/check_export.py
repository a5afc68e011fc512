#!/usr/bin/env python3
"""check_export.py — independent checks of `gpuflame export` (stdlib only,
exact integers and Decimals; never calls gpuflame). Prints "ok" or one line
per difference, exit 1 on any.

  check_export.py speedscope FOLDED... -- OUT.json
      every profile of OUT (one per folded file, in order): its stacks (frame
      names, files and lines split here from the folded names) and weights
      equal the folded file's, converted to ns by its header's unit (counts
      as they are); endValue = the total; frames de-duplicated
  check_export.py speedscope FOLDED... -- OUT.json TRACE
      the same, and OUT's evented profiles are TRACE's host threads: per
      thread, opens and closes nest, times never decrease, and the frames
      opened with their [open, close) times (ns from the trace's first
      event) are the thread's host events, read here from the JSON (one the
      model clipped may end earlier, at another range's start or end)
  check_export.py pprof FOLDED... -- DECODED.txt
      DECODED is `protoc --decode perftools.profiles.Profile` of the export:
      one sample type per folded file (name, unit), each sample's stack
      (function system_name, else name, leaf first) and value against the folded file,
      totals exact, string_table[0] == ""
  check_export.py go-pprof FOLDED... -- OUT.pb.gz
      what `go tool pprof` (Debian's golang-go: the ecosystem's own reader)
      shows: for each folded file k, `go tool pprof -sample_index=TYPE
      -traces -unit=ns` of OUT lists every stack with the function names
      pprof displays; they must be the folded frames (a Python frame by its
      function name, any other frame whole: no "<unknown>", no C++ cleanup
      of "<built-in ...>", "(...)" or "<...>", no thread root read as a
      file and line) with the folded weight in ns or counts, exactly
  check_export.py perfetto-overlap OUT.json
      the added slices of every track (B/E pairs, or X) do not overlap once
      read as Perfetto reads a ts: a fractional number as a double, times
      1000, truncated to ns (on absolute microseconds such as 1.7e15 a
      double's step is 0.25 us: an X's start moves, its dur does not)
  check_export.py perfetto TRACE EXPECT.json OUT.json
      OUT is valid JSON; its traceEvents start with TRACE's, equal event by
      event (and every other top-level key equal); the added gpuflame slices
      inside each step window sum, cause by cause, to EXPECT (gen_gaps.py's
      answer known by construction); every sync slice has one flow (s on a
      host slice of the thread that made the blocking call, f at the slice's
      start); one busy-share counter per step = 100 * busy / wall (3 decimals, half
      to even), busy the
      union of the device's activities in the window, computed here.
"""
import gzip
import json
import re
import sys
from decimal import Decimal

UNIT_EXP = {"ns": 0, "us": 3, "ms": 6, "s": 9}
errors = []


def err(msg):
    errors.append(msg)


def read_folded(path):
    """{stack tuple: Decimal weight in the export's unit}, unit name, weight name."""
    meta = {}
    stacks = {}
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="surrogateescape", newline="") as fp:
        for line in fp:
            line = line.rstrip("\n").rstrip("\r")
            if line.startswith("# gpuflame:"):
                for kv in line[len("# gpuflame:"):].split(";"):
                    if "=" in kv:
                        k, v = kv.strip().split("=", 1)
                        meta[k] = v
                continue
            if not line.strip() or re.match(r"#(\s|$)", line):
                continue
            stack, _, w = line.rpartition(" ")
            if stack.endswith(";"):
                stack = stack[:-1]
            key = tuple(stack.split(";"))
            stacks[key] = stacks.get(key, Decimal(0)) + Decimal(w)
    unit = meta.get("unit")
    timed = unit in UNIT_EXP and meta.get("weight") != "calls"
    if timed:
        f = Decimal(10) ** UNIT_EXP[unit]
        stacks = {k: v * f for k, v in stacks.items()}
    unit_name = "nanoseconds" if timed else "bytes" if unit == "bytes" and meta.get("weight") != "calls" else None
    return {k: v for k, v in stacks.items() if v != 0}, unit_name, meta.get("weight")


def split_frame(s):
    if re.match(r"^thread \([0-9?][^)]*\)(: .*)?$", s, re.S) or re.match(r"^process \d", s):
        return (s, None, None)  # a root frame, not a Python frame
    m = re.match(r"^py::([^:]+):(.+)$", s, re.S)
    if m:
        return (m.group(1), m.group(2), None)
    m = re.match(r"^(?!<)([^(]+)\((\d+)\): ?(.*)$", s, re.S)
    if m:
        return (m.group(3), m.group(1), int(m.group(2)))
    m = re.match(r"^(.*) \(([^()]*):(\d+)\)$", s, re.S)
    if m and m.group(1):
        return (m.group(1), m.group(2), int(m.group(3)))
    return (s, None, None)


def shown_name(s):
    """The function name pprof shows for a folded frame (split_frame's name;
    CPython's -X perf "py::fn:file" is fn)."""
    return split_frame(s)[0]


def check_go_pprof(folded, pb):
    import subprocess
    for path in folded:
        want, unit, weight = read_folded(path)
        agg = {}
        for st, v in want.items():
            key = tuple(clean(shown_name(f)) for f in st)
            agg[key] = agg.get(key, Decimal(0)) + v
        want = {k: v for k, v in agg.items() if v}
        r = subprocess.run(["go", "tool", "pprof", "-sample_index=" + (weight or "samples"), "-traces",
                            "-unit=ns", pb], capture_output=True, text=True)
        if r.returncode:
            err("go tool pprof %s: exit %d: %s" % (weight, r.returncode, r.stderr.strip()[:200]))
            continue
        got = {}
        blocks = r.stdout.split("-----------+-------------------------------------------------------\n")[1:]
        for b in blocks:
            lines = [l for l in b.split("\n") if l.strip()]
            # label lines ("      rank:  3") come first, then "  VALUE   leaf"
            while lines and re.match(r"^ +\w+: +\S", lines[0]):
                lines.pop(0)
            if not lines:
                continue
            m = re.match(r"^ *(-?\d+)(ns)?   (.*)$", lines[0])
            if not m:
                err("go tool pprof %s: unparsed trace line %r" % (weight, lines[0]))
                continue
            v = int(m.group(1))
            col = len(lines[0]) - len(m.group(3))
            # the callers' column is pprof's value width, which a value of
            # more than 10 characters ("341132000ns") pushes the leaf past
            if len(lines) > 1:
                col = min(col, min(len(l) - len(l.lstrip(" ")) for l in lines[1:]))
            names = [m.group(3)] + [l[col:] for l in lines[1:]]
            if v:
                key = tuple(reversed(names))
                got[key] = got.get(key, 0) + v
        bad = sorted({n for key in got for n in key if n == "<unknown>" or re.search(r"thread :\d", n)})
        if bad:
            err("go tool pprof %s: shows %s" % (weight, ", ".join(repr(n) for n in bad[:5])))
        if {k: Decimal(v) for k, v in got.items()} != want:
            diff = sorted(set(got.items()) ^ set(want.items()), key=str)
            err("go tool pprof %s: %d stacks shown differ, e.g. %s" % (weight, len(diff), diff[:3]))
        if sum(got.values()) != sum(want.values()):
            err("go tool pprof %s: total %s, folded %s" % (weight, sum(got.values()), sum(want.values())))


def clean(s):
    """Names as JSON/proto carry them: invalid UTF-8 as U+FFFD."""
    return s.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


HOST = ("user_annotation", "python_function", "cpu_op", "cuda_runtime", "cuda_driver", "Operator", "Runtime")
GPU = ("kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset")


def check_evented(d, trace):
    with (gzip.open if trace.endswith(".gz") else open)(trace, "rt", encoding="utf-8") as fp:
        oe = json.load(fp, parse_float=Decimal)["traceEvents"]
    xs = [e for e in oe if e.get("ph") == "X" and "dur" in e and e.get("cat") in HOST + GPU]
    win = min(ns(e["ts"]) for e in xs)
    want = {}
    for e in xs:
        if e["cat"] in HOST:
            want.setdefault(str(e["tid"]), []).append((split_frame(e["name"]), ns(e["ts"]) - win,
                                                       ns(e["ts"]) + ns(e["dur"]) - win))
    names = [(f["name"], f.get("file"), f.get("line")) for f in d["shared"]["frames"]]
    got = {}
    for p in d["profiles"]:
        if p["type"] != "evented":
            continue
        m = re.match(r"thread \((\S+)\)", p["name"])
        tid = m.group(1) if m else p["name"]
        stack, last, out = [], None, []
        for ev in p["events"]:
            if last is not None and ev["at"] < last:
                err("evented %s: time goes back at %s" % (p["name"], ev["at"]))
            last = ev["at"]
            if ev["type"] == "O":
                stack.append((ev["frame"], ev["at"]))
            elif not stack or stack[-1][0] != ev["frame"]:
                err("evented %s: close of a frame not open at %s" % (p["name"], ev["at"]))
                return
            else:
                f, at = stack.pop()
                out.append((names[f], at, ev["at"]))
        if stack:
            err("evented %s: %d frames never closed" % (p["name"], len(stack)))
        got[tid] = sorted(out)
    # a range the model clipped (it overlapped another without nesting, or
    # its parent was cut: docs/trace-reader.md) ends earlier, at another
    # range's start or end on the same thread; exact everywhere else
    if sorted(got) != sorted(want):
        err("evented: threads %s, trace %s" % (sorted(got), sorted(want)))
        return
    for k in want:
        g = sorted((f, a, -b) for f, a, b in got[k])
        w = sorted((f, a, -b) for f, a, b in want[k])
        if [x[:2] for x in g] != [x[:2] for x in w]:
            bad = [x for x, y in zip(g, w) if x[:2] != y[:2]][:2]
            err("evented thread %s: frames or starts differ: %s" % (k, bad))
            continue
        bounds = {a for _, a, _ in want[k]} | {b for _, _, b in want[k]}
        for x, y in zip(g, w):
            if x[2] != y[2] and (-x[2] > -y[2] or -x[2] not in bounds):
                err("evented thread %s: %s ends at %d, the trace's at %d" % (k, x[0], -x[2], -y[2]))
                break


def check_speedscope(folded, out, trace=None):
    with open(out, encoding="utf-8") as fp:
        d = json.load(fp)
    if trace:
        check_evented(d, trace)
    if d.get("$schema") != "https://www.speedscope.app/file-format-schema.json":
        err("speedscope: $schema")
    frames = d["shared"]["frames"]
    keys = [(f["name"], f.get("file"), f.get("line")) for f in frames]
    if len(set(keys)) != len(keys):
        err("speedscope: frames not de-duplicated")
    sampled = [p for p in d["profiles"] if p["type"] == "sampled"]
    if len(sampled) != len(folded):
        err("speedscope: %d profiles for %d folded files" % (len(sampled), len(folded)))
    for path, p in zip(folded, sampled):
        want, unit, _ = read_folded(path)
        want = {tuple(split_frame(clean(f)) for f in k): v for k, v in want.items()}
        if p["type"] != "sampled" or p["unit"] != (unit or "none"):
            err("speedscope %s: type %s unit %s" % (path, p["type"], p["unit"]))
        got = {}
        for s, w in zip(p["samples"], p["weights"]):
            k = tuple(keys[i] for i in s)
            got[k] = got.get(k, Decimal(0)) + Decimal(str(w))
        if got != want:
            diff = set(got.items()) ^ set(want.items())
            err("speedscope %s: stacks differ: %s" % (path, sorted(diff, key=str)[:4]))
        total = sum(want.values(), Decimal(0))
        if Decimal(str(p["endValue"])) != total or p["startValue"] != 0:
            err("speedscope %s: endValue %s, total %s" % (path, p["endValue"], total))


def parse_text_proto(text):
    """protoc's text format into nested dicts of lists (enough for Profile)."""
    tok = re.findall(r'"(?:[^"\\]|\\.)*"|[{}]|[A-Za-z_]\w*:?|-?\d+', text)
    pos = 0

    def unquote(q):
        b = bytearray()
        i, q = 0, q[1:-1]
        while i < len(q):
            c = q[i]
            if c == "\\":
                n = q[i + 1]
                if n in "01234567":
                    j = i + 1
                    while j < len(q) and j < i + 4 and q[j] in "01234567":
                        j += 1
                    b.append(int(q[i + 1:j], 8))
                    i = j
                    continue
                b.extend({"n": b"\n", "t": b"\t", "r": b"\r", "\\": b"\\", "'": b"'", '"': b'"'}.get(n, n.encode()))
                i += 2
                continue
            b.extend(c.encode("utf-8"))
            i += 1
        return bytes(b).decode("utf-8")

    def msg():
        nonlocal pos
        m = {}
        while pos < len(tok) and tok[pos] != "}":
            name = tok[pos].rstrip(":")
            pos += 1
            if tok[pos] == "{":
                pos += 1
                v = msg()
                pos += 1
            else:
                v = tok[pos]
                v = unquote(v) if v.startswith('"') else int(v)
                pos += 1
            m.setdefault(name, []).append(v)
        return m

    return msg()


def check_pprof(folded, decoded):
    with open(decoded, encoding="utf-8") as fp:
        p = parse_text_proto(fp.read())
    st = p.get("string_table", [])
    if not st or st[0] != "":
        err("pprof: string_table[0] is not empty")
    fn = {f["id"][0]: f for f in p.get("function", [])}
    loc = {l["id"][0]: l for l in p.get("location", [])}
    types = p.get("sample_type", [])
    if len(types) != len(folded):
        err("pprof: %d sample types for %d files" % (len(types), len(folded)))
    got = [dict() for _ in folded]
    for s in p.get("sample", []):
        names = []
        for lid in s.get("location_id", []):
            f = fn[loc[lid]["line"][0]["function_id"][0]]
            # the full frame: system_name, written only where it differs
            # from name (pprof "demangles" a function whose two are equal)
            names.append(st[f.get("system_name", f.get("name", [0]))[0]])
        key = tuple(reversed(names))
        vals = s.get("value", [])
        vals += [0] * (len(folded) - len(vals))
        for k, v in enumerate(vals):
            if v:
                got[k][key] = got[k].get(key, 0) + v
    for k, path in enumerate(folded):
        want, unit, weight = read_folded(path)
        want = {tuple(clean(f) for f in s): v for s, v in want.items()}
        t = types[k] if k < len(types) else {}
        tname, tunit = st[t.get("type", [0])[0]], st[t.get("unit", [0])[0]]
        if tunit != (unit or "count"):
            err("pprof %s: unit %s" % (path, tunit))
        if weight and tname != weight:
            err("pprof %s: type %s, weight %s" % (path, tname, weight))
        if {s: Decimal(v) for s, v in got[k].items()} != want:
            diff = set(got[k].items()) ^ set(want.items())
            err("pprof %s: stacks differ: %s" % (path, sorted(diff, key=str)[:4]))
        if sum(got[k].values()) != sum(want.values()):
            err("pprof %s: total %s, folded %s" % (path, sum(got[k].values()), sum(want.values())))


def ns(v):
    return int(Decimal(str(v)) * 1000)


def union_in(iv, lo, hi):
    tot, cur = 0, None
    for a, b in sorted((max(a, lo), min(b, hi)) for a, b in iv if min(b, hi) > max(a, lo)):
        if cur and a <= cur[1]:
            cur[1] = max(cur[1], b)
        else:
            if cur:
                tot += cur[1] - cur[0]
            cur = [a, b]
    return tot + (cur[1] - cur[0] if cur else 0)


def be_slices(events):
    """B/E pairs per (pid, tid) as slices {pid, tid, name, ts, end, args}, in
    order; an E without its B or a B left open is an error."""
    open_, out = {}, []
    for e in events:
        if e["ph"] not in "BE":
            continue
        k = (e["pid"], e["tid"])
        if e["ph"] == "B":
            open_.setdefault(k, []).append(e)
        elif not open_.get(k):
            err("perfetto: an E without a B on %s at %s" % (k, e["ts"]))
        else:
            b = open_[k].pop()
            out.append({"pid": b["pid"], "tid": b["tid"], "name": b.get("name"), "ts": b["ts"], "end": e["ts"],
                        "args": b.get("args", {})})
    if any(open_.values()):
        err("perfetto: a B without its E")
    return out


def perfetto_ns(ts):
    """Perfetto's reading of a JSON ts in us (json_trace_tokenizer.cc /
    json_utils CoerceToTs): a number with a fraction is a double, times 1000,
    truncated to int64 ns; an integer stays exact."""
    t = str(ts)
    if re.fullmatch(r"-?\d+", t):
        return int(t) * 1000
    return int(float(t) * 1000.0)


def check_perfetto_overlap(out):
    """No two added slices of one track overlap once Perfetto has rounded
    their ends (X: ts rounded, dur added; B/E: both rounded)."""
    with (gzip.open if out.endswith(".gz") else open)(out, "rt", encoding="utf-8") as fp:
        d = json.load(fp, parse_float=Decimal)
    added = [e for e in d["traceEvents"] if e.get("cat") == "gpuflame"]
    tracks = {}
    for e in added:
        if e["ph"] == "X":
            a = perfetto_ns(e["ts"])
            tracks.setdefault((e["pid"], e["tid"]), []).append((a, a + perfetto_ns(e["dur"])))
    for s in be_slices(added):
        tracks.setdefault((s["pid"], s["tid"]), []).append((perfetto_ns(s["ts"]), perfetto_ns(s["end"])))
    n = bad = 0
    for k, iv in tracks.items():
        iv.sort()
        n += len(iv)
        bad += sum(1 for i in range(1, len(iv)) if iv[i][0] < iv[i - 1][1])
    if not n:
        err("perfetto: no slices")
    if bad:
        err("perfetto: %d of %d slices overlap the one before after Perfetto's rounding" % (bad, n))


def check_perfetto(trace, expect, out):
    with (gzip.open if trace.endswith(".gz") else open)(trace, "rt", encoding="utf-8") as fp:
        orig = json.load(fp, parse_float=Decimal)
    with open(expect, encoding="utf-8") as fp:
        exp = json.load(fp)
    with (gzip.open if out.endswith(".gz") else open)(out, "rt", encoding="utf-8") as fp:
        d = json.load(fp, parse_float=Decimal)
    oe, ev = orig["traceEvents"], d["traceEvents"]
    if ev[:len(oe)] != oe:
        err("perfetto: the original events are not kept")
    for k in orig:
        if k != "traceEvents" and d.get(k) != orig[k]:
            err("perfetto: top-level key %s differs" % k)
    added = ev[len(oe):]
    if any(e.get("cat") != "gpuflame" for e in added):
        err("perfetto: an added event without cat gpuflame")
    marks = [e for e in oe if e.get("ph") == "X" and re.fullmatch(r"ProfilerStep#\d+", str(e.get("name", "")))]
    cats = {e.get("cat") for e in marks}
    if "user_annotation" in cats:
        marks = [e for e in marks if e.get("cat") == "user_annotation"]
    steps = sorted({(ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])) for e in marks})
    if not steps and len(exp["steps"]) == 1 and exp["steps"][0]["index"] is None:
        # no step marker: one step over the trace window (every complete event)
        xs = [(ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])) for e in oe if e.get("ph") == "X" and "dur" in e]
        steps = [(min(a for a, _ in xs), max(b for _, b in xs))]
    if len(steps) != len(exp["steps"]):
        err("perfetto: %d steps in the trace, %d expected" % (len(steps), len(exp["steps"])))
    dev = exp.get("device", 0)
    if any(e["ph"] == "X" for e in added):
        err("perfetto: an added X slice (B/E pairs only: an X's start rounds in Perfetto, its dur does not)")
    slices = [e for e in be_slices(added) if e["tid"] == 1 and e["pid"] == 1000000000 + dev]
    causes = ("edge", "sync", "host", "untraced", "queued", "launch")
    for i, (lo, hi) in enumerate(steps):
        got = {c: 0 for c in causes}
        for e in slices:
            a, b = ns(e["ts"]), ns(e["end"])
            if a >= lo and b <= hi:
                got[e["name"]] += b - a
                if e["args"]["cause"] != e["name"]:
                    err("perfetto: slice named %s, cause %s" % (e["name"], e["args"]["cause"]))
        want = {c: exp["steps"][i][c] for c in causes}
        if got != want:
            err("perfetto step %d: slices %s, expected %s" % (i, got, want))
    # flows: one s/f pair per sync slice, f at its start, s inside a runtime call of its thread
    fl = {}
    for e in added:
        if e["ph"] in "sf":
            fl.setdefault(e["id"], {})[e["ph"]] = e
    syncs = [e for e in slices if e["name"] == "sync"]
    if len(fl) != len(syncs):
        err("perfetto: %d flows for %d sync slices" % (len(fl), len(syncs)))
    for e in syncs:
        m = [f for f in fl.values() if "f" in f and f["f"]["ts"] == e["ts"] and f["f"]["pid"] == e["pid"]]
        if len(m) != 1 or "s" not in m[0]:
            err("perfetto: sync slice at %s has %d flows" % (e["ts"], len(m)))
            continue
        s = m[0]["s"]
        # a numeric string tid ("25738", older Kineto) is the same thread as the number
        host = [o for o in oe if o.get("ph") == "X" and str(o.get("pid")) == str(s["pid"])
                and str(o.get("tid")) == str(s["tid"])
                and o.get("name") == e["args"]["call"] and ns(o["ts"]) <= ns(s["ts"]) < ns(o["ts"]) + ns(o["dur"])]
        if not host:
            err("perfetto: flow start at %s is not on the call %s" % (s["ts"], e["args"]["call"]))
    def device(o):
        a = o.get("args") or {}
        return a.get("device", o.get("pid"))
    acts = [(ns(o["ts"]), ns(o["ts"]) + ns(o["dur"])) for o in oe
            if o.get("ph") == "X" and o.get("cat") in ("kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset") and "dur" in o
            and device(o) == dev]
    cs = [e for e in added if e["ph"] == "C" and e["pid"] == 1000000000 + dev]
    if any(e["name"] != "GPU busy" or list(e["args"]) != ["%"] for e in cs):
        err("perfetto: a counter not named 'GPU busy' with the one series '%'")
    cnt = {ns(e["ts"]): Decimal(str(e["args"]["%"])) for e in cs}
    st = [e for e in be_slices(added) if e["tid"] == 2 and e["pid"] == 1000000000 + dev]
    if len(st) != len(steps) or any(Decimal(str(e["args"]["GPU busy %"])) != cnt.get(ns(e["ts"])) for e in st):
        err("perfetto: the steps thread has %d step slices for %d steps, or their share is not the counter's"
            % (len(st), len(steps)))
    srt = [e for e in added if e["ph"] == "M" and e["name"] == "process_sort_index" and e["pid"] == 1000000000 + dev]
    if len(srt) != 1 or srt[0]["args"]["sort_index"] != 5000000 + dev:
        err("perfetto: process_sort_index %s, expected 5000000 + %d (beside GPU %d)" % (srt, dev, dev))
    for lo, hi in steps:
        busy = union_in(acts, lo, hi)
        q, r = divmod(busy * 100000, hi - lo)   # 100 * busy / wall, 3 decimals, half to even
        if 2 * r > hi - lo or (2 * r == hi - lo and q % 2):
            q += 1
        q = Decimal(q) / 1000
        if cnt.get(lo) != q:
            err("perfetto: busy counter at %d is %s, expected %s" % (lo, cnt.get(lo), q))


def main(argv):
    mode = argv[1]
    if mode in ("speedscope", "pprof", "go-pprof"):
        i = argv.index("--")
        if mode == "go-pprof":
            check_go_pprof(argv[2:i], argv[i + 1])
        elif mode == "speedscope":
            check_speedscope(argv[2:i], argv[i + 1], argv[i + 2] if len(argv) > i + 2 else None)
        else:
            check_pprof(argv[2:i], argv[i + 1])
    elif mode == "perfetto-overlap":
        check_perfetto_overlap(argv[2])
    else:
        check_perfetto(argv[2], argv[3], argv[4])
    for e in errors:
        print(e)
    if not errors:
        print("ok")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
