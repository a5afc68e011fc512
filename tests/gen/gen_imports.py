#!/usr/bin/env python3
"""gen_imports.py — other profilers' outputs made from samples known by
construction, with the folded stacks gpuflame must make of them (issue 26:
units travel from every importer). Stdlib only; never calls gpuflame.

USAGE: gen_imports.py OUTDIR

Writes, for each case NAME, OUTDIR/NAME.<ext> (the profiler's own format, as
its source writes it) and OUTDIR/NAME.expect (the header keys on line 1 as
"key=value;" pairs, then the expected folded lines, sorted by bytes):

  perf10        perf script, 10 cpu-clock samples of 10101010 ns, 3 of them in
                cudaStreamSynchronize under CPython's -X perf frame
                py::step:/w/train.py (the syncs share 3/10: 10.8-60.3 %)
  perfcyc       perf script, cycles:u periods (a count, not a time)
  austin_wall   austin 3, wall mode: metrics in us
  austin_mem    austin 3, memory mode: bytes, negative deltas (memory freed)
                kept under a [freed] root with their magnitude
  export_stacks PyTorch's profiler.export_stacks() (blanks as '_'), us
  pyspy_raw     py-spy record --format raw --threads --subprocesses on Linux:
                decimal thread ids, two ancestor process frames
  pyspy_ss      py-spy --format speedscope: 1/97 s per sample (rate 97)
  pyspy_chrome  py-spy --format chrometrace: B/E events per thread as py-spy's
                chrometrace.rs writes them from the same samples; the folded
                weight of a stack is the time from one sample to the next (us)
"""
import json
import os
import sys

OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)


def write(name, ext, data, header, folded):
    with open(os.path.join(OUT, name + "." + ext), "w", encoding="utf-8") as f:
        f.write(data)
    lines = sorted(("%s %s" % (k, v) for k, v in folded.items() if v),
                   key=lambda s: s.rsplit(" ", 1)[0].encode())
    with open(os.path.join(OUT, name + ".expect"), "w", encoding="utf-8") as f:
        f.write("".join("%s=%s;" % kv for kv in header) + "\n")
        f.write("".join(l + "\n" for l in lines))


def add(d, k, v):
    d[k] = d.get(k, 0) + v


# ---- perf script: samples are (stack root first, period) ----
def perf(name, event, samples, header_unit):
    text, folded, total = [], {}, 0
    for i, (stack, period) in enumerate(samples):
        text.append("python  4242/4242  [001] 1000.%06d: %12d %s: " % (i * 1010, period, event))
        for j, f in enumerate(reversed(stack)):
            text.append("\t    7f00%04x %s+0x1%s (%s)" % (j, f, "", "/usr/lib/lib.so"))
        text.append("")
        add(folded, ";".join(["python"] + stack), period)
        total += period
    write(name, "txt", "\n".join(text) + "\n",
          [("format", "perf"), ("unit", header_unit), ("event", event), ("samples", len(samples))], folded)


sync = ["main", "py::step:/w/train.py", "_PyEval_EvalFrameDefault", "cudaStreamSynchronize"]
work = ["main", "py::forward:/w/model.py", "gemm_launch"]
perf("perf10", "cpu-clock", [(sync, 10101010)] * 3 + [(work, 10101010)] * 7, "ns")
perf("perfcyc", "cycles:u", [(work, 250000), (sync, 125000), (work, 250001)], "events")

# ---- austin 3: P<pid>;T<iid>:<tid>;file:func:line;... metric ----
wall = [("a.py", "main", 3), ("a.py", "step", 7)]
other = [("a.py", "main", 3), ("b.py", "load", 12)]
aus = [(wall, 100), (wall, 101), (other, 250)]
text = "# austin: 3.6.0\n# interval: 100\n# mode: wall\n\n"
folded = {}
for st, m in aus:
    text += "P6360;T0:6360;%s %d\n" % (";".join("%s:%s:%d" % f for f in st), m)
    add(folded, ";".join(["process 6360", "thread (6360)"] + ["%s (%s:%d)" % (fn, fi, ln) for fi, fn, ln in st]), m)
text += "\n# duration: 1000\n"
write("austin_wall", "txt", text, [("format", "austin"), ("unit", "us"), ("mode", "wall"), ("samples", 3)], folded)

mem = [(wall, 4096), (wall, -1024), (other, -2048), (other, 512)]
text = "# austin: 3.6.0\n# interval: 100\n# mode: memory\n\n"
folded = {}
for st, m in mem:
    text += "P6360;T0:6360;%s %d\n" % (";".join("%s:%s:%d" % f for f in st), m)
    k = ";".join(["process 6360", "thread (6360)"] + ["%s (%s:%d)" % (fn, fi, ln) for fi, fn, ln in st])
    add(folded, ("[freed];" + k) if m < 0 else k, abs(m))
write("austin_mem", "txt", text, [("format", "austin"), ("unit", "bytes"), ("mode", "memory"), ("samples", 4)],
      folded)

# ---- PyTorch export_stacks: evt.stack reversed, " ;\t\n" -> "_", int(us) ----
evts = [(["test.py(8): <module>", "torch/nn/modules/module.py(1501): _call_impl", "model.py(12): forward"], 1234),
        (["test.py(8): <module>", "model.py(20): loss fn"], 56),
        (["test.py(8): <module>", "torch/nn/modules/module.py(1501): _call_impl", "model.py(12): forward"], 66)]
tr = str.maketrans(" ;\t\n", "____")
text, folded = "", {}
for st, us in evts:
    text += ";".join(e.translate(tr) for e in st) + " " + str(us) + "\n"
    # read back: the first "):_" is the "): " export_stacks turned into "):_"
    add(folded, ";".join(e.translate(tr).replace("):_", "): ", 1) for e in st), us)
write("export_stacks", "txt", text, [("format", "export_stacks"), ("unit", "us")], folded)

# ---- py-spy: samples of threads, each a stack of (name, file, line) ----
T1, T2 = (4242, 12345, "MainThread"), (4242, 12346, "")
mod = ("<module>", "t.py", 3)
step = ("step", "t.py", 7)
syn = ("sync", "t.py", 9)
load = ("load", "w.py", 2)
SAMPLES = [  # (thread, stack root first, time in us)
    (T1, [mod, step], 10), (T2, [load], 12), (T1, [mod, step], 20), (T1, [mod, syn], 40),
    (T2, [load], 52), (T1, [mod], 55), (T1, [mod, step], 61), (T2, [], 70), (T1, [mod, step], 90),
]
END = 100  # the chrometrace's last "now": every open frame ends there

# raw, --threads --subprocesses: "process PID:"CMD"" for each ancestor (outermost first)
procs = ['process 1:"/bin/sh -c run"', 'process 4000:"python launcher.py"', 'process 4242:"python t.py"']
raw, folded, merged = {}, {}, {}
for (pid, tid, tname), st, _ in SAMPLES:
    if not st:
        continue
    th = "thread (%d): %s" % (tid, tname) if tname else "thread (%d)" % tid
    frames = ["%s (%s:%d)" % f for f in st]
    add(raw, ";".join(procs + [th] + frames), 1)
    add(merged, ";".join(frames), 1)
text = "".join("%s %d\n" % kv for kv in sorted(raw.items()))
write("pyspy_raw", "txt", text, [("format", "py-spy"), ("unit", "samples"), ("samples", sum(raw.values()))], raw)
with open(os.path.join(OUT, "pyspy_raw.merged"), "w") as f:
    f.write("".join("%s %d\n" % (k, v) for k, v in sorted(merged.items(), key=lambda kv: kv[0].encode())))

# speedscope, as py-spy's speedscope.rs writes it (weights 1/rate s)
rate = 97
frames, fidx, per = [], {}, {}
for (pid, tid, tname), st, _ in SAMPLES:
    if not st:
        continue
    ids = []
    for f in st:
        if f not in fidx:
            fidx[f] = len(frames)
            frames.append({"name": f[0], "file": f[1], "line": f[2], "col": None})
        ids.append(fidx[f])
    per.setdefault((pid, tid, tname), []).append(ids)
profiles = []
folded = {}
for (pid, tid, tname), ss in per.items():
    pname = 'Thread %d "%s"' % (tid, tname)
    profiles.append({"type": "sampled", "name": pname, "unit": "seconds", "startValue": 0.0,
                     "endValue": len(ss) / rate, "samples": ss, "weights": [1 / rate] * len(ss)})
    for ids in ss:
        add(folded, ";".join([pname] + ["%s (%s:%d)" % tuple(frames[i][k] for k in ("name", "file", "line"))
                                        for i in ids]), 1)
profiles.sort(key=lambda p: p["name"])
doc = {"$schema": "https://www.speedscope.app/file-format-schema.json", "profiles": profiles,
       "shared": {"frames": frames}, "activeProfileIndex": None, "exporter": "py-spy@0.4.1",
       "name": "py-spy profile"}
write("pyspy_ss", "json", json.dumps(doc), [("format", "speedscope"), ("unit", "samples"), ("profiles", len(profiles)),
                                            ("samples", sum(len(s) for s in per.values())), ("rate", rate)], folded)

# chrometrace, as py-spy's chrometrace.rs writes it: per thread, E for the frames
# that left the stack and B for those that came, at the sample's time; M
# thread_name "TID: NAME" once per thread (tids remapped to 0, 1...); at the
# end E for every frame still open, at "now"
ev, remap, prev, folded = [], {}, {}, {}
last = {}


def event(pid, tid, f, ph, ts):
    return {"args": {"filename": f[1], "line": f[2]}, "cat": "py-spy", "name": f[0], "ph": ph, "pid": pid,
            "tid": remap[tid], "ts": ts}


for (pid, tid, tname), st, ts in SAMPLES:
    if tid not in remap:
        remap[tid] = len(remap)
        ev.append({"args": {"filename": "", "line": None, "name": "%d: %s" % (tid, tname)}, "cat": "py-spy",
                   "name": "thread_name", "ph": "M", "pid": pid, "tid": remap[tid], "ts": 0})
    old = prev.get(tid, [])
    # the time since this thread's last sample belongs to the stack then
    if old and tid in last:
        th = "thread (%d): %s" % (tid, tname) if tname else "thread (%d)" % tid
        add(folded, ";".join([th] + ["%s (%s:%d)" % f for f in old]), ts - last[tid])
    common = 0
    while common < min(len(old), len(st)) and old[common] == st[common]:
        common += 1
    for f in reversed(old[common:]):
        ev.append(event(pid, tid, f, "E", ts))
    for f in st[common:]:
        ev.append(event(pid, tid, f, "B", ts))
    prev[tid], last[tid] = st, ts
for (pid, tid, tname), _, _ in SAMPLES:
    if prev.get(tid):
        th = "thread (%d): %s" % (tid, tname) if tname else "thread (%d)" % tid
        add(folded, ";".join([th] + ["%s (%s:%d)" % f for f in prev[tid]]), END - last[tid])
        for f in reversed(prev[tid]):
            ev.append(event(pid, tid, f, "E", END))
        prev[tid] = []
write("pyspy_chrome", "json", json.dumps(ev, separators=(",", ":")) + "\n",
      [("format", "chrometrace"), ("unit", "us"), ("threads", len(remap))], folded)
print("ok")
