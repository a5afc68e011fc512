#!/usr/bin/env python3
"""py_fold.py — the baseline for bench/bench_fold.sh: a straightforward Python
GPU fold of a Kineto trace, the way Flame Graphs for LLMs, in depth sketches it but without its
quadratic scan: json.load, runtime calls by correlation, host ranges sorted
per (pid, tid) by (ts, -dur) and nested with a stack sweep, each GPU activity
charged to its launching stack + kernel family. Floats, as Python users do.

Usage: py_fold.py TRACE.json > out.folded
"""
import json
import re
import sys
from collections import defaultdict

HOST = {"user_annotation", "python_function", "cpu_op"}
GPU = {"kernel", "gpu_memcpy", "gpu_memset"}
FAMS = ("gemm", "flash", "attn", "nccl", "triton", "elementwise", "reduce", "copy", "memcpy", "memset")


def family(name):
    n = name.lower()
    for k in FAMS:
        if k in n:
            return k
    return re.sub(r"[<(].*", "", name)


def main():
    with open(sys.argv[1]) as fp:
        events = json.load(fp)["traceEvents"]
    ranges = defaultdict(list)
    launch = {}
    for e in events:
        if e.get("ph") != "X":
            continue
        c = e.get("cat")
        if c in HOST or c == "cuda_runtime" or c == "cuda_driver":
            ranges[(e["pid"], e["tid"])].append(e)
        if c in ("cuda_runtime", "cuda_driver"):
            corr = e.get("args", {}).get("correlation")
            if corr is not None:
                launch[corr] = e
    stack_of = {}
    for rs in ranges.values():
        rs.sort(key=lambda e: (e["ts"], -e["dur"]))
        st = []
        for e in rs:
            while st and st[-1][0] <= e["ts"]:
                st.pop()
            names = (st[-1][1] if st else ())
            if e["cat"] in HOST:
                names = names + (e["name"].replace(";", ":"),)
            st.append((e["ts"] + e["dur"], names))
            if e["cat"] in ("cuda_runtime", "cuda_driver"):
                stack_of[id(e)] = names
    folded = defaultdict(float)
    for e in events:
        if e.get("ph") != "X" or e.get("cat") not in GPU:
            continue
        l = launch.get(e.get("args", {}).get("correlation"))
        stack = stack_of.get(id(l), ()) if l is not None else ("[unattributed]",)
        folded[";".join(stack + (family(e["name"]),))] += e["dur"]
    out = sys.stdout
    for k in sorted(folded):
        out.write("%s %.3f\n" % (k, folded[k]))


if __name__ == "__main__":
    main()
