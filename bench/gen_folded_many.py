#!/usr/bin/env python3
"""gen_folded_many.py — seeded generator of many sorted folded files for
bench_merge.sh (stdlib only).

USAGE: gen_folded_many.py DIR NFILES STACKS_PER_FILE [--universe U] [--seed S]

Writes DIR/f0000.folded ... each with a "# gpuflame: weight=cpu; unit=us;
steps=5; rank=0;" header and STACKS_PER_FILE distinct stacks drawn from a
universe of U stacks (default 5 x STACKS_PER_FILE; 4-12 frames of py-spy-like
names), sorted by bytes (LC_ALL=C order), with decimal weights (3 decimals).
Prints the total bytes written.
"""
import os
import random
import sys


def main():
    d, nfiles, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    uni = per * 5
    seed = 1
    a = sys.argv[4:]
    for i, x in enumerate(a):
        if x == "--universe":
            uni = int(a[i + 1])
        if x == "--seed":
            seed = int(a[i + 1])
    rng = random.Random(seed)
    mods = ["model", "engine", "attention", "mlp", "sampler", "scheduler", "tokenizer", "cache"]
    funcs = ["forward", "step", "decode", "prefill", "matmul", "softmax", "topk", "item", "linear", "norm"]
    stacks = set()
    while len(stacks) < uni:
        depth = rng.randrange(4, 13)
        fr = ["%s (%s.py:%d)" % (rng.choice(funcs), rng.choice(mods), rng.randrange(1, 400)) for _ in range(depth)]
        stacks.add(";".join(["main (serve.py:10)"] + fr))
    stacks = sorted(s.encode() for s in stacks)
    os.makedirs(d, exist_ok=True)
    total = 0
    for k in range(nfiles):
        pick = sorted(rng.sample(range(uni), per))
        buf = [b"# gpuflame: weight=cpu; unit=us; steps=5; rank=0;\n"]
        for i in pick:
            w = rng.randrange(1, 5000000)
            buf.append(b"%s %d.%03d\n" % (stacks[i], w // 1000, w % 1000))
        data = b"".join(buf)
        with open(os.path.join(d, "f%04d.folded" % k), "wb") as f:
            f.write(data)
        total += len(data)
    print(total)


if __name__ == "__main__":
    main()
