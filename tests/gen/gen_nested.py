#!/usr/bin/env python3
"""gen_nested.py — hostile-shape Kineto traces for the scaling tests
(tests/cli/hostile_scale.sh, bench/bench_nested.sh): costs that grow with
depth x events show up as quadratic run times on these.

  --shape nested    N python frames, each inside the previous (frame i spans
                    [100 i, 100 (2N - i)) us), under one ProfilerStep#1. In
                    each of the 2N windows between two frame starts or ends
                    the innermost open frame launches one kernel; every other
                    window also calls cudaStreamSynchronize after it. The gap
                    before each kernel is idle time charged to the host
                    (report, fold --weight idle), each sync is a sync site
                    (syncs), all of them under stacks N/2 deep on average.
  --shape siblings  a chain of D nested frames (--depth), then N sibling
                    cpu_ops at depth D, each launching one kernel with a
                    gap before it.
  --shape longkernel  N steps of three kernels each, and one kernel on
                    another stream that runs through all of them (a step
                    must not scan back over every activity the long one
                    may overlap).
  --shape steps     N ProfilerSteps, each inside the previous, and N
                    kernels launched in the innermost (nested step markers:
                    per-step work is what it is, but memory must not be a
                    copy of every kernel per step).
  --shape overlap   N ProfilerSteps, step i from i T/2N for T/2 (every
                    step overlaps half the others), over 2N launches of
                    kernels (short and long gaps, every fifth an NCCL kernel
                    on a second stream), a cpu_op around each launch and a
                    sync every third (the step table, gaps, comm and stacks
                    must not cost steps x events).
  --shape threads   N steps, and N host threads with one cpu_op each, one
                    per step (a step must not search every thread).
  --shape pychain   the trace model's Python re-parenting (--link): a
                    python root frame, a cpu_op in it, then a chain of N
                    python frames, each inside the previous, whose
                    "Python parent id" is
                      root    the root's id (across the cpu_op: never taken)
                      far     the chain's first frame (taken; every frame
                              then hangs off it)
                      stair   the frame 2 above (taken by even frames,
                              which chain N/2 deep; an odd frame's check
                              walks that chain and fails at the cpu_op)
                      none    an id no frame has
                      later   the next frame's id (not open yet)
                      cycle   its own id (every frame has the same id)
                      nolink  absent (no Python id either)
                      ops     absent, and the chain is cpu_ops
                      flood   the previous frame's (the plain link), with
                              Python ids crafted to collide in one bucket of
                              a hash table (murmur3 fmix64, inverted)
                    each chain frame launches one kernel at its start.
  --shape pythreads one thread with N python frames with Python ids, then
                    N threads with one such frame each (per-thread setup
                    must not cost the largest thread's size).
  --shape random    N host ranges on 3 threads (--seed): python frames,
                    cpu_ops, annotations and launches at random times and
                    lengths (ties, zero lengths, partial overlaps), Python
                    ids repeated and parent ids naming ancestors, siblings,
                    later frames, themselves or nothing: a differential
                    check of the model against another build.
  --shape clip      N cpu_ops, each starting inside the previous and ending
                    after it (every one clipped), and N staircase python
                    frames of growing length (each cut the other way).

Frames are torch-internal ("torch/nn/modules/module.py(L): _call_impl") so
the user's site is the outermost frame: finding it walks the whole chain.
Output: plain JSON (-o FILE).
"""
import argparse
import json
import random

PID, TID = 4242, 4242


M64 = (1 << 64) - 1


def inv_fmix64(h):
    """The x with gf_hash_u64(x) == h (src/base/pool.h: murmur3 fmix64),
    as a signed 64-bit integer."""
    def unshift(x):
        return x ^ (x >> 33)
    x = unshift(h)
    x = (x * pow(0xc4ceb9fe1a85ec53, -1, 1 << 64)) & M64
    x = unshift(x)
    x = (x * pow(0xff51afd7ed558ccd, -1, 1 << 64)) & M64
    x = unshift(x)
    return x - (1 << 64) if x >> 63 else x


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", choices=["nested", "siblings", "longkernel", "threads", "steps", "overlap", "pychain", "pythreads", "clip", "random"], default="nested")
    ap.add_argument("-n", type=int, required=True, help="nested frames / sibling ops")
    ap.add_argument("--depth", type=int, default=1000, help="siblings: depth of the chain")
    ap.add_argument("--link", choices=["root", "far", "stair", "none", "later", "cycle", "nolink", "flood", "ops"],
                    default="root", help="pychain: what each frame's Python parent id names")
    ap.add_argument("--seed", type=int, default=1, help="random: the seed")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    ev = []
    corr = [1]

    def rng(cat, name, ts, dur, args=None):
        ev.append('{"ph":"X","cat":%s,"name":%s,"pid":%d,"tid":%d,"ts":%d,"dur":%d,"args":%s}'
                  % (json.dumps(cat), json.dumps(name), PID, TID, ts, dur, json.dumps(args or {})))

    def launch(ts, kts, kdur=10, api="cudaLaunchKernel", kname=None, stream=7):
        c = corr[0]
        corr[0] += 1
        rng("cuda_runtime", api, ts, 2, {"correlation": c})
        ev.append('{"ph":"X","cat":"kernel","name":%s,"pid":0,"tid":%d,"ts":%d,"dur":%d,'
                  '"args":{"device":0,"stream":%d,"correlation":%d}}'
                  % (json.dumps(kname or "void k_%d<float>(int)" % (c % 7)), stream, kts, kdur, stream, c))

    def sync(ts):
        c = corr[0]
        corr[0] += 1
        rng("cuda_runtime", "cudaStreamSynchronize", ts, 5, {"correlation": c})

    def frame(i, ts, dur):
        name = "train.py(10): main" if i == 0 else "torch/nn/modules/module.py(%d): _call_impl" % (i % 97 + 1)
        rng("python_function", name, ts, dur, {"Python id": i + 1, "Python parent id": i})

    if a.shape == "nested":
        n = a.n
        total = 100 * 2 * n + 200
        rng("user_annotation", "ProfilerStep#1", 0, total)
        for i in range(n):
            frame(i, 100 * i + 50, 100 * (2 * n - 2 * i))
        # windows: [100 w + 50, 100 (w + 1) + 50) for w in 0 .. 2n-2
        for w in range(2 * n - 1):
            s = 100 * w + 50
            launch(s + 10, s + 20)
            if w % 2 == 0:
                sync(s + 40)
    elif a.shape == "steps":
        n = a.n
        for i in range(n):
            rng("user_annotation", "ProfilerStep#%d" % i, 10 * i, 20 * n - 20 * i + 10 * n)
        for k in range(n):
            launch(10 * n + 5 * k, 10 * n + 5 * k + 3, 2)
    elif a.shape == "overlap":
        n = a.n
        pos = 0
        for k in range(2 * n):
            rng("cpu_op", "aten::op%d" % (k % 3), pos, 8)
            if k % 5 == 0:
                launch(pos + 1, pos + 4, 40, "cudaLaunchKernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 9)
            else:
                launch(pos + 1, pos + 4, 3 + k % 4)
            if k % 3 == 0:
                sync(pos + 9)
            pos += 12 if k % 4 else 70
        for i in range(n):
            rng("user_annotation", "ProfilerStep#%d" % i, i * pos // (2 * n), pos // 2)
    elif a.shape == "threads":
        n = a.n
        for k in range(n):
            s = 100 * k + 1
            rng("user_annotation", "ProfilerStep#%d" % k, s, 90)
            ev.append('{"ph":"X","cat":"cpu_op","name":"aten::x","pid":%d,"tid":%d,"ts":%d,"dur":5,"args":{}}'
                      % (PID, k + 1, s + 10))
        launch(5, 10)
    elif a.shape == "longkernel":
        n = a.n
        ev.append('{"ph":"X","cat":"kernel","name":"long","pid":0,"tid":8,"ts":0,"dur":%d,'
                  '"args":{"device":0,"stream":8}}' % (100 * n + 100))
        for k in range(n):
            s = 100 * k + 1
            rng("user_annotation", "ProfilerStep#%d" % k, s, 90)
            for j in range(3):
                launch(s + 2 + 20 * j, s + 5 + 20 * j)
    elif a.shape == "pychain":
        n = a.n
        total = 200 * n + 1000
        rng("user_annotation", "ProfilerStep#1", 0, total)
        ids = [i + 2 for i in range(n)]
        root_id = 1
        if a.link == "flood":
            ids = [inv_fmix64(((i + 1) << 24) | 0x5a5a5a) for i in range(n + 1)]
            root_id, ids = ids[0], ids[1:]
        if a.link == "nolink":
            rng("python_function", "train.py(10): main", 1, total - 2)
        else:
            rng("python_function", "train.py(10): main", 1, total - 2, {"Python id": root_id, "Python parent id": 0})
        rng("cpu_op", "aten::chain", 2, total - 4)
        for i in range(n):
            name = "torch/nn/modules/module.py(%d): _call_impl" % (i % 97 + 1)
            pid = {"root": root_id, "far": ids[0], "flood": ids[max(i - 1, 0)], "stair": ids[max(i - 2, 0)],
                   "none": 10 ** 15 + i, "later": i + 3, "cycle": 7, "nolink": None, "ops": None}[a.link]
            my = 7 if a.link == "cycle" else ids[i]
            args = {} if a.link in ("nolink", "ops") else {"Python id": my, "Python parent id": pid}
            rng("cpu_op" if a.link == "ops" else "python_function", name, 10 + 100 * i, total - 20 - 200 * i, args)
        for i in range(n):
            launch(11 + 100 * i, 12 + 100 * i)
    elif a.shape == "pythreads":
        n = a.n
        for i in range(n):
            rng("python_function", "f", 10 + i, 2 * n - 2 * i, {"Python id": i + 1, "Python parent id": i})
        for k in range(n):
            ev.append('{"ph":"X","cat":"python_function","name":"g","pid":%d,"tid":%d,"ts":%d,"dur":5,'
                      '"args":{"Python id":%d,"Python parent id":0}}' % (PID, k + 1, 10 + k, k + 1))
        launch(5, 10)
    elif a.shape == "clip":
        n = a.n
        for i in range(n):
            rng("cpu_op", "aten::o%d" % (i % 5), 10 * i, 15)
        base = 10 * n + 100
        for i in range(n):
            rng("python_function", "p.py(%d): f" % (i % 97), base + 10 * i, 15 + 10 * i,
                {"Python id": i + 1, "Python parent id": i})
        launch(5, 10)
    elif a.shape == "random":
        rnd = random.Random(a.seed)
        n = a.n
        span = 20 * n + 100
        ids = []
        for k in range(n):
            tid = rnd.choice([TID, TID, TID + 1, TID + 2])
            ts = rnd.randrange(span)
            dur = rnd.choice([0, 1, 2, 5, rnd.randrange(1, 50), rnd.randrange(1, span)])
            cat = rnd.choice(["python_function"] * 6 + ["cpu_op", "cpu_op", "user_annotation", "cuda_runtime"])
            if cat == "cuda_runtime":
                launch(ts, ts + 1, 3)
                continue
            args = {}
            if cat == "python_function" and rnd.random() < 0.9:
                my = rnd.choice(ids) if ids and rnd.random() < 0.1 else k + 1
                ids.append(my)
                pid = rnd.choice([ids[rnd.randrange(len(ids))], ids[-1], my, my + 1, 0, 10 ** 12, None])
                args = {"Python id": my}
                if pid is not None:
                    args["Python parent id"] = pid
            name = "%s_%d" % (cat[:2], rnd.randrange(5))
            ev.append('{"ph":"X","cat":"%s","name":"%s","pid":%d,"tid":%d,"ts":%d,"dur":%d,"args":%s}'
                      % (cat, name, PID, tid, ts, dur, json.dumps(args)))
    else:
        d, n = a.depth, a.n
        total = 100 * n + 4 * d + 200
        rng("user_annotation", "ProfilerStep#1", 0, total)
        for i in range(d):
            frame(i, 1 + i, total - 2 - 2 * i)
        for k in range(n):
            s = 2 * d + 100 * k + 50
            rng("cpu_op", "aten::op%d" % (k % 5), s, 30)
            launch(s + 5, s + 20)
    doc = ('{"schemaVersion":1,"deviceProperties":[{"id":0,"name":"gen"}],"baseTimeNanoseconds":1700000000000000000,'
           '"traceEvents":[\n' + ",\n".join(ev) + "\n]}\n")
    with open(a.output, "w") as fp:
        fp.write(doc)


if __name__ == "__main__":
    main()
