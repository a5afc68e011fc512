#!/usr/bin/env python3
"""gen_comm.py — training-step traces whose communication overlap is known
by construction, and the answers `gpuflame report` must give for them
(docs/report.md, "Communication").

  gen_comm.py SCENARIO TRACE.json EXPECT.json
  gen_comm.py --list
  gen_comm.py --check EXPECT.json REPORT.json TEXT   (prints ok, or one line per difference)

Every step of a scenario is the same (5 steps, no warm-up), laid out on the
device as written below; all times are integer ns, deliberately not whole
microseconds. Compute is one run of kernels back to back on stream 7 from
cs to ce = cs + C. The collectives are launched from the host at the
step's start: all_reduce through PyTorch's chain (c10d::allreduce_ >
record_param_comms > nccl:all_reduce > cudaLaunchKernel) as the kernel
ncclDevKernel_Generic (its kind is known from the host chain only),
all_gather by a bare cudaLaunchKernel as ncclDevKernel_AllGather_RING_LL
(its kind is known from the kernel's name only). AR and AG are their
durations.

  full     AR inside compute [cs+a, cs+a+AR), AG inside [cs+b, cs+b+AG):
           busy C, comm AR+AG, overlapped AR+AG, exposed 0          -> gpu_bound
  half     AG straddles the start [cs-AG/2, cs+AG/2), AR the end
           [ce-AR/2, ce+AR/2): busy C+(AR+AG)/2, exposed (AR+AG)/2  -> gpu_bound
  none     AR then AG after compute: busy C+AR+AG, exposed AR+AG     -> comm
  copy     none, plus a memcpy DtoD on stream 15 inside AR's time: a copy
           does not hide communication: the same split as none       -> comm
  streams  AR on stream 13 from ce, AG on stream 14 from ce+AR/2 (AG >
           AR/2): the union is AR/2+AG; AR (started first) owns AR, AG
           owns AG-AR/2; exposed AR/2+AG                            -> comm
  small    12 all_reduces of 50,037 ns back to back after compute
           (C small): many small calls                               -> comm, "fewer, larger"
  unknown  none, plus one ncclDevKernel_Generic per step with no launch
           call in the trace, after AG: its kind is unknown, it exposes
           most; Next advises on all_reduce, the largest named one   -> comm

The step window is [cs - P, busy end + P) with P = 200,011 ns of idle on
each side, so idle = 2P: the verdict rules read exposed E, wall W = busy +
2P, idle 2P: comm when 4E >= W and E >= 2P, else gpu_bound (busy >= 90%).
EXPECT.json: {"scenario", "steps": [{wall_ns, busy_ns, compute_ns,
overlap_ns, exposed_ns}], "collectives": [{collective, stream, calls, comm_ns,
exposed_ns}] (Σ over the steps), "verdict_cause", "action_has": [phrases],
"verdict_starts"}.
"""
import json
import sys
from decimal import Decimal

BASE_NS = 1767189312000000000
PID, TID = 77, 77
STEPS = 5
P = 200011
GENERIC = "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)"
ALLGATHER = "ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
COMPUTE = [("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_cublas", 0.5),
           ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>>", 0.2),
           ("triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_0", 0.3)]
# the all-reduce's message (record_param_comms args): quoted by the report
NELEMS = 25557032

SCENARIOS = ("full", "half", "none", "copy", "streams", "small", "unknown")


def layout(sc):
    """One step's device work relative to cs: compute length C, and the
    collectives as (kind, stream, start, dur, via) with via 'ar' (host
    chain), 'ag' (kernel name) or 'none' (no launch call)."""
    C, AR, AG = 8000137, 2000071, 1000033
    if sc == "small":
        C = 1200017
    colls, copies = [], []
    if sc == "full":
        colls = [("all_reduce", 13, 1000003, AR, "ar"), ("all_gather", 13, 4000009, AG, "ag")]
    elif sc == "half":
        colls = [("all_gather", 13, -(AG // 2), AG, "ag"), ("all_reduce", 13, C - AR // 2, AR, "ar")]
    elif sc in ("none", "copy", "unknown"):
        colls = [("all_reduce", 13, C, AR, "ar"), ("all_gather", 13, C + AR, AG, "ag")]
        if sc == "copy":
            copies = [(15, C + 100019, 200023)]
        if sc == "unknown":
            colls.append(("unknown", 13, C + AR + AG, 3000017, "none"))
    elif sc == "streams":
        colls = [("all_reduce", 13, C, AR, "ar"), ("all_gather", 14, C + AR // 2, AG + AR // 2 + 500029, "ag")]
    elif sc == "small":
        colls = [("all_reduce", 13, C + i * 50037, 50037, "ar") for i in range(12)]
    return C, colls, copies


def union(iv):
    out = []
    for a, b in sorted(iv):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def expect_step(sc):
    """The answers, from the scenario's closed forms (module docstring);
    the generator's own layout is only used for where the step ends."""
    C, colls, _ = layout(sc)
    AR, AG = 2000071, 1000033
    if sc == "full":
        busy, ovl, exp = C, AR + AG, 0
    elif sc == "half":
        busy, ovl, exp = C + AG // 2 + (AR - AR // 2), (AG - AG // 2) + AR // 2, AG // 2 + (AR - AR // 2)
    elif sc in ("none", "copy"):
        busy, ovl, exp = C + AR + AG, 0, AR + AG
    elif sc == "unknown":
        busy, ovl, exp = C + AR + AG + 3000017, 0, AR + AG + 3000017
    elif sc == "streams":
        agd = AG + AR // 2 + 500029
        busy, ovl, exp = C + AR // 2 + agd, 0, AR // 2 + agd
    elif sc == "small":
        busy, ovl, exp = C + 12 * 50037, 0, 12 * 50037
    comm = ovl + exp
    return {"wall_ns": busy + 2 * P, "busy_ns": busy, "compute_ns": busy - comm, "overlap_ns": ovl,
            "exposed_ns": exp}


def expect_colls(sc):
    """Σ over the steps, by (kind, stream): calls, comm and exposed time
    (closed forms: the owner of a ns is the collective that started first)."""
    AR, AG = 2000071, 1000033
    rows = {}

    def add(k, s, calls, comm, exp):
        r = rows.setdefault((k, s), [0, 0, 0])
        r[0] += calls * STEPS
        r[1] += comm * STEPS
        r[2] += exp * STEPS
    if sc == "full":
        add("all_reduce", 13, 1, AR, 0)
        add("all_gather", 13, 1, AG, 0)
    elif sc == "half":
        add("all_gather", 13, 1, AG, AG // 2)
        add("all_reduce", 13, 1, AR, AR - AR // 2)
    elif sc in ("none", "copy", "unknown"):
        add("all_reduce", 13, 1, AR, AR)
        add("all_gather", 13, 1, AG, AG)
        if sc == "unknown":
            add("unknown", 13, 1, 3000017, 3000017)
    elif sc == "streams":
        agd = AG + AR // 2 + 500029
        add("all_reduce", 13, 1, AR, AR)
        add("all_gather", 14, 1, agd - (AR - AR // 2), agd - (AR - AR // 2))
    elif sc == "small":
        add("all_reduce", 13, 12, 12 * 50037, 12 * 50037)
    return [{"collective": k, "stream": s, "calls": v[0], "comm_ns": v[1], "exposed_ns": v[2]}
            for (k, s), v in rows.items()]


class Trace:
    def __init__(self):
        self.ev = []
        self.corr = 1000

    @staticmethod
    def us(ns):
        return "%d.%03d" % (ns // 1000, ns % 1000)

    def x(self, cat, name, pid, tid, a, b, args=None):
        s = ('{"ph": "X", "cat": "%s", "name": %s, "pid": %d, "tid": %d, "ts": %s, "dur": %s'
             % (cat, json.dumps(name), pid, tid, self.us(a), self.us(b - a)))
        if args:
            s += ', "args": ' + json.dumps(args)
        self.ev.append(s + "}")

    def kernel(self, cat, name, stream, a, b, corr):
        args = {"device": 0, "stream": stream}
        if corr is not None:
            args["correlation"] = corr
        self.x(cat, name, 0, stream, a, b, args)

    def launch(self, t, api="cudaLaunchKernel"):
        """a launch call at host time t (5,003 ns long); its correlation"""
        self.corr += 1
        self.x("cuda_runtime", api, PID, TID, t, t + 5003, {"correlation": self.corr})
        return self.corr


def generate(sc, path):
    C, colls, copies = layout(sc)
    tr = Trace()
    e = expect_step(sc)
    W = e["wall_ns"]
    t0 = 5000000
    for k in range(STEPS):
        T = t0 + k * (W + 50021)
        cs = T + P + max(0, -min(c[2] for c in colls))
        tr.x("user_annotation", "ProfilerStep#%d" % (k + 1), PID, TID, T, T + W)
        tr.x("python_function", "train.py(40): train_step", PID, TID, T + 1009, T + W - 1009)
        h = T + 2003  # host time: launches back to back
        # compute
        x = cs
        for i, (name, frac) in enumerate(COMPUTE):
            d = int(C * frac) if i < len(COMPUTE) - 1 else cs + C - x
            tr.x("cpu_op", "aten::op%d" % i, PID, TID, h, h + 9001)
            c = tr.launch(h + 1000)
            tr.kernel("kernel", name, 7, x, x + d, c)
            x += d
            h += 10007
        for (kind, stream, off, dur, via) in colls:
            a = cs + off
            if via == "ar":
                tr.x("cpu_op", "c10d::allreduce_", PID, TID, h, h + 30011)
                tr.x("cpu_op", "record_param_comms", PID, TID, h + 1000, h + 29000,
                     {"Collective name": "allreduce", "Process Group Name": "0", "In msg nelems": NELEMS,
                      "dtype": "Float"})
                tr.x("user_annotation", "nccl:all_reduce", PID, TID, h + 2000, h + 28000)
                c = tr.launch(h + 3000, "cudaLaunchKernelExC")
                tr.kernel("kernel", GENERIC, stream, a, a + dur, c)
                h += 31019
            elif via == "ag":
                tr.x("python_function", "train.py(52): gather_params", PID, TID, h, h + 20011)
                c = tr.launch(h + 1000)
                tr.kernel("kernel", ALLGATHER, stream, a, a + dur, c)
                h += 21023
            else:
                # no launch call in the trace: a correlation no call carries
                tr.kernel("kernel", GENERIC, stream, a, a + dur, 900000 + k)
        for (stream, off, dur) in copies:
            c = tr.launch(h + 1000, "cudaMemcpyAsync")
            tr.kernel("gpu_memcpy", "Memcpy DtoD (Device -> Device)", stream, cs + off, cs + off + dur, c)
            h += 10009
    with open(path, "w") as fp:
        fp.write('{"schemaVersion": 1,\n "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}],\n'
                 ' "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 2},\n'
                 ' "traceEvents": [\n  ' + ",\n  ".join(tr.ev) + '\n ],\n'
                 ' "baseTimeNanoseconds": %d,\n "displayTimeUnit": "ms"}\n' % BASE_NS)


def expectation(sc):
    e = expect_step(sc)
    X = {"scenario": sc, "steps": [e] * STEPS, "collectives": expect_colls(sc)}
    E, W, idle = e["exposed_ns"], e["wall_ns"], 2 * P
    comm = 4 * E >= W and E >= idle
    X["verdict_cause"] = "comm" if comm else "gpu_bound"
    X["verdict_starts"] = "Communication-bound" if comm else "GPU-bound"
    has = []
    if comm:
        has.append("bucket_cap_mb")  # all_reduce leads, or is advised on
        if sc == "small":
            has.append("fewer, larger collectives")
        if sc == "unknown":
            has.append("the largest collective the trace names")
        has.append("gpuflame report over every rank's trace")  # world size 2
    else:
        has.append("Speed comes from the kernels")
    X["action_has"] = has
    X["comm_noted"] = (not comm) and 10 * E > W
    return X


def ns(v):
    d = Decimal(str(v)) * 1000
    if d != d.to_integral_value():
        raise ValueError("not whole ns: %s" % v)
    return int(d)


def check(xpath, rpath, tpath):
    X = json.load(open(xpath))
    R = json.load(open(rpath), parse_float=str)
    text = open(tpath).read()
    errs = []
    if len(R["steps"]) != len(X["steps"]):
        errs.append("steps: %d, expected %d" % (len(R["steps"]), len(X["steps"])))
    for i, (s, e) in enumerate(zip(R["steps"], X["steps"])):
        got = {"wall_ns": ns(s["wall_us"]), "busy_ns": ns(s["gpu_busy_us"]), "compute_ns": ns(s["compute_us"]),
               "overlap_ns": ns(s["comm_overlap_us"]), "exposed_ns": ns(s["comm_exposed_us"])}
        for k in e:
            if got[k] != e[k]:
                errs.append("step %d %s: %d, expected %d" % (i, k, got[k], e[k]))
    cm = R["comm"]
    n = cm["steps"]
    want = {(c["collective"], c["stream"]): c for c in X["collectives"]}
    gotc = {(c["collective"], c["stream"]): c for c in cm["collectives"]}
    if set(want) != set(gotc):
        errs.append("collectives %s, expected %s" % (sorted(gotc), sorted(want)))
    for key in set(want) & set(gotc):
        w, g = want[key], gotc[key]
        if g["calls"] != w["calls"]:
            errs.append("%s calls %s, expected %s" % (key, g["calls"], w["calls"]))
        for f in ("comm", "exposed"):
            # the JSON gives the mean per step; the sums are whole multiples here
            if ns(g[f + "_us"]) * n != w[f + "_ns"]:
                errs.append("%s %s %s us/step, expected %d ns over %d steps" % (key, f, g[f + "_us"], w[f + "_ns"], n))
    order = [(c["collective"], c["stream"]) for c in cm["collectives"]]
    ex = [want[k]["exposed_ns"] for k in order if k in want]
    if ex != sorted(ex, reverse=True):
        errs.append("collectives not by exposed time: %s" % order)
    S = R["summary"]
    if S["verdict_cause"] != X["verdict_cause"]:
        errs.append("verdict_cause %s, expected %s" % (S["verdict_cause"], X["verdict_cause"]))
    if not S["verdict"].startswith(X["verdict_starts"]):
        errs.append("verdict starts %r, expected %r" % (S["verdict"][:40], X["verdict_starts"]))
    noted = "of NCCL communication is not overlapped with compute" in S["verdict"]
    if noted != X["comm_noted"]:
        errs.append("verdict notes exposed NCCL: %s, expected %s" % (noted, X["comm_noted"]))
    act = " ".join(S["action"].split())
    for ph in X["action_has"]:
        if ph not in act:
            errs.append("action lacks %r: %s" % (ph, act[:200]))
    # the text leads with the same verdict, before the step table
    v = text.find("Verdict: " + X["verdict_starts"])
    if v < 0 or v > text.find("\n    step "):
        errs.append("the text report does not lead with 'Verdict: %s'" % X["verdict_starts"])
    print("\n".join(errs) if errs else "ok")
    return 1 if errs else 0


def main(argv):
    if argv[1:2] == ["--list"]:
        print(" ".join(SCENARIOS))
        return 0
    if argv[1:2] == ["--check"]:
        return check(argv[2], argv[3], argv[4])
    sc, tpath, xpath = argv[1], argv[2], argv[3]
    if sc not in SCENARIOS:
        sys.exit("unknown scenario %r (%s)" % (sc, ", ".join(SCENARIOS)))
    generate(sc, tpath)
    with open(xpath, "w") as fp:
        json.dump(expectation(sc), fp, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
