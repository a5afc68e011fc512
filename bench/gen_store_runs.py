#!/usr/bin/env python3
"""gen_store_runs.py — seeded folded files standing for benchmark runs, for bench_store.sh.

USAGE: gen_store_runs.py DIR RUNS STACKS
Writes DIR/r0000.folded ... : each a gpu profile ("# gpuflame: weight=gpu; unit=ns;
steps=10;") of STACKS distinct stacks (6-14 frames of LLM-serving-like names), 95% of
them shared by every run (the same code) and 5% the run's own (new kernels, new
shapes), with integer ns weights that move from run to run.
"""
import os
import random
import sys

d, runs, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.makedirs(d, exist_ok=True)
rng = random.Random(15)
mods = ["model", "engine", "attention", "mlp", "sampler", "scheduler", "kv_cache", "rotary", "norm", "moe"]
funcs = ["forward", "step", "decode", "prefill", "matmul", "softmax", "topk", "linear", "gather", "scatter"]


def stack(r, i):
    depth = 6 + (i * 7 + r) % 9
    return ";".join("%s.%s:%d" % (mods[(i >> k) % 10], funcs[(i * 31 + k) % 10], (i + k * 977) % 4096)
                    for k in range(depth)) + ";kernel_%d" % i


shared = int(per * 0.95)
for r in range(runs):
    with open(os.path.join(d, "r%04d.folded" % r), "w") as f:
        f.write("# gpuflame: weight=gpu; unit=ns; steps=10;\n")
        for i in range(per):
            key = i if i < shared else per * (r + 1) + i
            f.write("%s %d\n" % (stack(0, key), 1000 + rng.randrange(10**6)))
