#!/usr/bin/env python3
"""one_class.py -- one class per call and kernel name across gpuflame's
outputs (tests/cli/one_class.sh). Stdlib only; reads the trace itself and
never runs gpuflame: the expected class of every name comes from the tables
below, written from docs/classes.md, not from the program.

  python3 tests/gen/one_class.py TRACE DIR

DIR holds what one_class.sh captured from gpuflame for TRACE:
  info.json     info --format json
  report.json   report --format json
  syncs.json    syncs --format json
  full.folded   fold -w gpu --unit ns --kernel-names full
  fam.folded    fold -w gpu --unit ns            (family leaves)
  wall.folded   fold -w wall --unit ns -s annotation,python,op,runtime
  full.svg, fam.svg, wall.svg   svg --colors gpu of those
Prints PASS/FAIL lines (name prefixed with the trace's base name).

Checks, for every call and kernel name of the trace:
  - info: graph_launches, sync_calls, nccl_kernels equal the counts of the
    trace's runtime/driver events of class graph / sync and of its kernel
    events of class comm;
  - fold: under every stack, the full-name leaves grouped by their expected
    default family weigh what the family leaves of that name weigh, and
    each class weighs the same in both folds;
  - report: each step's graph_launches is the number of graph-class calls
    starting in it with a linked GPU activity; its syncs count at least the
    sync-class calls starting in it, at most those plus the async copies
    into or from pageable memory (whose blocking is decided by evidence,
    docs/report.md); comm.kernels is the number of comm-class kernels on the
    analysed device;
  - syncs: every listed call is of class sync or an async memcpy, and every
    sync-class call starting in a selected step is counted once;
  - svg --colors gpu: every frame that is a call, a kernel or a family leaf
    has its class's colour (red sync, orange API, brown comm, violet
    attention, dark blue GEMM, sky blue Triton, slate copy, light blue other
    kernel).
"""
import collections
import decimal
import gzip
import html
import json
import os
import re
import sys

# ---- the class table of calls: every runtime/driver call name of the test
# traces, written out (a name missing here is a FAIL, so the table grows with
# the traces). sync = blocks the host until the GPU's work is done
# (synchronize calls, memcpy without Async); graph = a graph launch;
# memcpy = an async memcpy (pageable ones are decided by evidence); api =
# any other call (kernel launches, queries, events, memsets...).
CALLS = {
    "cudaDeviceSynchronize": "sync", "cudaStreamSynchronize": "sync", "cudaEventSynchronize": "sync",
    "cudaMemcpy": "sync", "cuMemcpyDtoH_v2": "sync",
    "hipDeviceSynchronize": "sync", "hipStreamSynchronize": "sync", "hipEventSynchronize": "sync",
    "hipMemcpyWithStream": "sync", "hipMemcpy": "sync",
    "cudaGraphLaunch": "graph", "hipGraphLaunch": "graph", "cuGraphLaunch": "graph",
    "cudaMemcpyAsync": "memcpy", "hipMemcpyAsync": "memcpy",
    "hipMemset": "api", "hipMemsetAsync": "api", "cudaMemsetAsync": "api",
    # Kineto's name for a CUPTI callback it has no name for: a call of no
    # known kind (an API call; no frame colour is asked of it)
    "INVALID": "unnamed",
}
API = """cuLaunchKernel cudaDeviceGetAttribute cudaDeviceGetStreamPriorityRange cudaDriverGetVersion
cudaEventElapsedTime cudaEventQuery cudaEventRecord cudaFree cudaFuncGetAttributes cudaFuncSetAttribute
cudaGetDeviceCount cudaGetDeviceProperties cudaGetSymbolAddress cudaHostAlloc cudaHostGetDevicePointer
cudaLaunchKernel cudaLaunchKernelExC cudaMalloc cudaOccupancyMaxActiveBlocksPerMultiprocessor
cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags cudaPeekAtLastError cudaPointerGetAttributes
cudaStreamCreateWithFlags cudaStreamCreateWithPriority cudaStreamGetCaptureInfo cudaStreamGetCaptureInfo_v2
cudaStreamGetPriority cudaStreamIsCapturing cudaStreamWaitEvent cudaEventCreateWithFlags cudaEventDestroy
hipCtxGetCurrent hipDeviceGetAttribute hipDriverGetVersion hipEventDestroy hipEventElapsedTime
hipExtModuleLaunchKernel hipFree hipGetDevicePropertiesR0600 hipGraphDestroy hipGraphGetNodes
hipGraphInstantiateWithFlags hipInit hipLaunchKernel hipMalloc hipModuleLaunchKernel hipModuleLoadData
hipPointerGetAttribute hipPointerGetAttributes hipStreamBeginCapture hipStreamEndCapture
hipStreamGetCaptureInfo hipStreamGetDevice hipStreamIsCapturing hipStreamWaitEvent hipEventRecord
hipEventQuery hipLaunchKernelExC cudaEventCreate""".split()
for _n in API:
    CALLS.setdefault(_n, "api")

# ---- kernels: the default families, first match of a case-insensitive
# substring (docs/classes.md), with their classes
KRULES = [
    ("nccl", "nccl", "comm"), ("rccl", "nccl", "comm"),
    ("flash", "flash", "attn"), ("fmha", "attn", "attn"), ("attn", "attn", "attn"), ("attention", "attn", "attn"),
    ("gemm", "gemm", "gemm"), ("gemv", "gemm", "gemm"), ("nvjet", "gemm", "gemm"), ("cijk_", "gemm", "gemm"),
    ("xmma", "gemm", "gemm"), ("cutlass", "gemm", "gemm"), ("matmul", "gemm", "gemm"),
    ("triton", "triton", "triton"),
    ("elementwise", "elementwise", "kernel"), ("reduce", "reduce", "kernel"),
    ("copy", "copy", "copy"), ("memcpy", "memcpy", "copy"), ("memset", "memset", "copy"),
]
FAMILIES = {f: c for _, f, c in KRULES}


def kernel_rule(name):
    low = name.lower()
    for sub, fam, cls in KRULES:
        if sub in low:
            return fam, cls
    return None, None


def cut_family(name):
    """The family of a kernel no rule matches (docs/fold.md): ck_tile's entry
    template gives the kernel it wraps, a mangled name its qualified
    identifier, else the name without "void " cut at its template arguments
    or parameter list ("(anonymous namespace)" belongs to the name)."""
    m = re.match(r"_ZN7ck_tile6kentryI(?:L[^E]*E)*N", name)
    if m:
        i, parts = m.end(), []
        while i < len(name):
            if name.startswith("S_", i):
                parts.append("ck_tile")
                i += 2
                continue
            d = re.match(r"[1-9][0-9]*", name[i:])
            if not d or int(d.group()) > len(name) - i - len(d.group()):
                break
            i += len(d.group())
            parts.append(name[i:i + int(d.group())])
            i += int(d.group())
        if len(parts) > 1:
            return "::".join(parts)
    if name.startswith("_Z") and len(name) > 3:
        i, nested, parts = 2, name[2:3] == "N", []
        i += nested
        while i < len(name) and name[i] in "123456789":
            d = re.match(r"[0-9]+", name[i:]).group()
            if int(d) > len(name) - i - len(d):
                break
            i += len(d)
            parts.append(name[i:i + int(d)])
            i += int(d)
            if not nested:
                break
        if parts:
            return "::".join(parts)
    s = name[5:] if name.startswith("void ") and len(name) > 5 else name
    m = re.match(r"ck_tile::kentry<[^,]*, *([^<(,>]+)", s)
    if m:
        return m.group(1)
    j = 0
    while j < len(s) and s[j] != "<":
        if s[j] == "(":
            if s.startswith("(anonymous namespace)", j):
                j += len("(anonymous namespace)")
                continue
            break
        j += 1
    cut = s[:j].rstrip(" ")
    return cut if cut else name


KERNEL_NS = ("_Z", "void ", "ck_tile::", "ck::", "cudnn_", "cudnn::", "at::native::", "at::cuda::",
             "(anonymous namespace)::", "cutlass::", "cub::", "rocprim::")


def kernel_colour_class(name):
    """The palette class of a kernel frame: its family's class, else
    'kernel' for names that read as kernels, else 'other'."""
    fam, cls = kernel_rule(name)
    if cls:
        return cls
    if name.startswith(KERNEL_NS) or "_scudnn_" in name or "kernel" in name or "Kernel" in name:
        return "kernel"
    return "other"


# ---- the gpu palette's colours (docs/svg.md): r, g, b ranges per class
COLOURS = {
    "sync": ((225, 255), (0, 0), (20, 40)),
    "api": ((235, 255), (130, 170), (20, 50)),
    "gemm": ((40, 80), (80, 120), (200, 245)),
    "attn": ((120, 155), (80, 110), (210, 250)),
    "comm": ((150, 185), (110, 140), (60, 85)),
    "triton": ((70, 105), (150, 180), (230, 255)),
    "copy": ((130, 160), (145, 175), (165, 195)),
    "kernel": ((140, 180), (180, 210), (240, 255)),
    "other": ((220, 245), (205, 230), (180, 205)),
}


def colour_class(rgb):
    hit = [c for c, rng in COLOURS.items() if all(lo <= v <= hi for v, (lo, hi) in zip(rgb, rng))]
    return hit[0] if len(hit) == 1 else "?" + "/".join(hit)


RUNTIME_CATS = {"cuda_runtime", "cuda_driver", "Runtime"}
KERNEL_CATS = {"kernel", "Kernel"}
GPU_CATS = KERNEL_CATS | {"gpu_memcpy", "gpu_memset", "Memcpy", "Memset"}
STEP = re.compile(r"ProfilerStep(#[0-9]{1,18})?\Z")


def ns(v):
    return int((decimal.Decimal(str(v)) * 1000).to_integral_value(rounding=decimal.ROUND_HALF_EVEN))


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt", encoding="utf-8", errors="surrogateescape") as f:
        d = json.load(f, parse_float=decimal.Decimal)
    return d["traceEvents"] if isinstance(d, dict) else d


def frame(name):
    """A name as fold writes it as a frame (docs/fold.md)."""
    s = name.replace(";", ":")
    s = "".join(" " if ord(c) < 32 or ord(c) == 127 else c for c in s)
    return s if s else "[empty]"


class Out:
    def __init__(self, tag):
        self.tag, self.bad = tag, 0

    def check(self, name, ok, why=""):
        print(("PASS " if ok else "FAIL ") + self.tag + "-" + name + ("" if ok else ": " + why[:600]))
        self.bad += not ok


def read_folded(path):
    rows = []
    for line in open(path, encoding="utf-8", errors="surrogateescape"):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        st, w = line.rsplit(" ", 1)
        rows.append((st, decimal.Decimal(w)))
    return rows


def read_svg(path):
    txt = open(path, encoding="utf-8", errors="surrogateescape").read()
    # "NAME (V samples, P%)", or with a gpuflame header "NAME (V us, P%)"
    # followed by "&#10;self: ..." and "&#10;per step: ..." lines (docs/svg.md)
    pat = re.compile(r'<title>(.*?) \([0-9,.]+ [A-Za-z]+, [0-9.]+%\)(?:&#10;[^<]*)?</title><rect [^>]*?fill="rgb\((\d+),(\d+),(\d+)\)"')
    return [(html.unescape(m.group(1)), (int(m.group(2)), int(m.group(3)), int(m.group(4)))) for m in pat.finditer(txt)]


def main():
    trace, d = sys.argv[1], sys.argv[2]
    o = Out(os.path.basename(trace).split(".")[0][:40])
    ev = [e for e in load(trace) if isinstance(e, dict)]
    calls, kernels, acts, steps = [], [], {}, []
    for e in ev:
        cat, ph = e.get("cat"), e.get("ph")
        name = e.get("name")
        if not isinstance(name, str):
            continue
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        if cat in RUNTIME_CATS:
            calls.append(e)
        if cat in GPU_CATS and ph == "X" and "dur" in e:
            acts.setdefault(args.get("correlation"), []).append(e)
            if cat in KERNEL_CATS:
                kernels.append(e)
        if cat in ("user_annotation", "cpu_op") and ph == "X" and "dur" in e and STEP.match(name):
            steps.append((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])))
    steps.sort()
    unknown = sorted({c["name"] for c in calls if c["name"] not in CALLS})
    o.check("table-knows-calls", not unknown, "calls missing from the class table: %s" % unknown)
    cls = lambda c: CALLS.get(c["name"], "?")

    # info
    info = json.load(open(os.path.join(d, "info.json")))["traces"][0]
    want = (sum(cls(c) == "graph" for c in calls), sum(cls(c) == "sync" for c in calls),
            sum(kernel_rule(k["name"])[1] == "comm" for k in kernels))
    got = (info["graph_launches"], info.get("sync_calls"), info["nccl_kernels"])
    o.check("info-counts", got == want, "graph, sync, comm: got %s, expected %s" % (got, want))

    # fold: full names grouped by their family = the family leaves
    full, fam = read_folded(os.path.join(d, "full.folded")), read_folded(os.path.join(d, "fam.folded"))
    kname = {}
    for k in list(kernels) + [a for v in acts.values() for a in v]:
        kname[frame(k["name"])] = k["name"]
    want_f, want_c, got_f, got_c = collections.Counter(), collections.Counter(), collections.Counter(), collections.Counter()
    leaf_class = dict(FAMILIES)  # family leaf -> the colour class of its kernels
    for st, w in full:
        pre, _, leaf = st.rpartition(";")
        full_name = kname.get(leaf, leaf)
        f, c = kernel_rule(full_name)
        f = f or frame(cut_family(full_name))
        want_f[(pre, f)] += w
        want_c[(pre, kernel_colour_class(full_name))] += w
        if leaf_class.setdefault(f, kernel_colour_class(full_name)) != kernel_colour_class(full_name):
            o.check("fold-leaf-one-class", False, "family %r holds kernels of two classes" % f)
    for st, w in fam:
        pre, _, leaf = st.rpartition(";")
        got_f[(pre, leaf)] += w
        got_c[(pre, leaf_class.get(leaf, "(unknown leaf)"))] += w
    diff = [(k, want_f[k], got_f[k]) for k in set(want_f) | set(got_f) if want_f[k] != got_f[k]]
    o.check("fold-families", not diff and len(full) > 0, "stack/family: full-name weight vs family leaf weight: %s" % diff[:3])
    diff = [(k, want_c[k], got_c[k]) for k in set(want_c) | set(got_c) if want_c[k] != got_c[k]]
    o.check("fold-classes", not diff, "%s" % diff[:3])

    # report
    rep = json.load(open(os.path.join(d, "report.json")))
    wins = steps if steps else [(-(1 << 62), 1 << 62)]
    linked = lambda c: bool(acts.get((c.get("args") or {}).get("correlation"))) if isinstance(c.get("args"), dict) else False
    pageable = lambda c: any("Pageable" in a["name"] for a in acts.get(c["args"].get("correlation"), [])) \
        if isinstance(c.get("args"), dict) else False
    rows = rep["steps"]
    o.check("report-steps", len(rows) == len(wins), "%d rows, %d steps" % (len(rows), len(wins)))
    bad = []
    for (lo, hi), row in zip(wins, rows):
        inw = [c for c in calls if c.get("ph") == "X" and lo <= ns(c["ts"]) < hi]
        g = sum(cls(c) == "graph" and linked(c) for c in inw)
        s = sum(cls(c) == "sync" for c in inw)
        p = sum(cls(c) == "memcpy" and pageable(c) for c in inw)
        if row["graph_launches"] != g or not (s <= row["syncs"] <= s + p):
            bad.append((row["index"], row["graph_launches"], g, row["syncs"], s, p))
    o.check("report-step-calls", not bad, "(step, graph got/expected, syncs got, sync calls, pageable copies): %s" % bad[:3])
    dev = rep.get("device")
    comm = sum(kernel_rule(k["name"])[1] == "comm" and (k.get("args") or {}).get("device") == dev for k in kernels)
    o.check("report-comm", (rep.get("comm") or {}).get("kernels", 0) == comm,
            "comm kernels on device %s: got %s, expected %d" % (dev, (rep.get("comm") or {}).get("kernels"), comm))

    # syncs: listed iff blocking
    sy = json.load(open(os.path.join(d, "syncs.json")))
    listed = collections.Counter()
    for r in sy["syncs"]:
        listed[r["api"]] += r["count"]
    wrong = sorted(a for a in listed if CALLS.get(a) not in ("sync", "memcpy"))
    o.check("syncs-only-blocking", not wrong, "listed calls that do not block: %s" % wrong)
    inw = collections.Counter(c["name"] for c in calls if cls(c) == "sync" and c.get("ph") == "X"
                              and any(lo <= ns(c["ts"]) < hi for lo, hi in wins))
    miss = {a: (listed[a], n) for a, n in inw.items() if listed[a] != n}
    o.check("syncs-every-blocking", not miss, "call: (listed, in the steps): %s" % miss)

    # svg colours
    names = {frame(c["name"]): "sync" if cls(c) == "sync" else "api" for c in calls if cls(c) not in ("?", "unnamed")}
    for k in kname.values():
        names.setdefault(frame(k), kernel_colour_class(k))
    for f, c in leaf_class.items():
        names.setdefault(f, c)
    for which in ("full", "fam", "wall"):
        seen, bad = 0, []
        for n, rgb in read_svg(os.path.join(d, which + ".svg")):
            if n in names:
                seen += 1
                if colour_class(rgb) != names[n]:
                    bad.append((n[:80], names[n], colour_class(rgb), rgb))
        o.check("svg-%s-colours" % which, not bad and seen > 0, "%d frames checked; (name, class, colour's class): %s" % (seen, bad[:4]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
