#!/usr/bin/env python3
"""gen_pyspy.py — synthetic py-spy captures (plain folded, sample counts) for the
diff noise tests. Stdlib only, seeded, so every run writes the same bytes.

USAGE: gen_pyspy.py --seed S [--samples N] [--variant same|change] [--thread-id HEX] > x.folded

The "program" is a decode loop with 8 leaf stacks of known probabilities
(STACKS below). Each sample picks one stack (multinomial), so two captures with
different seeds and variant "same" differ ONLY by sampling noise. Variant
"change" moves 5 percentage points of probability onto
decode_step;sample;item (15% -> 20%), taken proportionally from every other
stack, i.e. a real change of +5 points (+33% relative) of one frame.
Every stack starts with py-spy's thread frame, "thread (0x<id>)", whose id
changes between captures (the name normalisation must merge them).
Output: "frame;frame;... count" lines sorted by stack, as py-spy writes them
(one line per distinct stack).
"""
import argparse
import random

STACKS = [
    ("main (serve.py:40);decode_step (engine.py:88);forward (model.py:120);attention (model.py:60)", 0.25),
    ("main (serve.py:40);decode_step (engine.py:88);forward (model.py:120);mlp (model.py:90)", 0.20),
    ("main (serve.py:40);decode_step (engine.py:88);sample (engine.py:140);topk (sampler.py:12)", 0.10),
    ("main (serve.py:40);decode_step (engine.py:88);sample (engine.py:140);item (sampler.py:30)", 0.15),
    ("main (serve.py:40);decode_step (engine.py:88);detokenize (engine.py:170)", 0.10),
    ("main (serve.py:40);scheduler (sched.py:20);schedule (sched.py:44)", 0.12),
    ("main (serve.py:40);scheduler (sched.py:20);poll (sched.py:70)", 0.06),
    ("main (serve.py:40);log (util.py:5)", 0.02),
]
CHANGED = 3  # index of the stack that grows in variant "change"


def probs(variant):
    p = [w for _, w in STACKS]
    if variant == "change":
        rest = 1.0 - p[CHANGED]
        scale = (rest - 0.05) / rest
        p = [w * scale for w in p]
        p[CHANGED] = STACKS[CHANGED][1] + 0.05
    return p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--samples", type=int, default=3000)
    ap.add_argument("--variant", choices=["same", "change"], default="same")
    ap.add_argument("--thread-id", default=None, help="hex id of the thread frame (default from seed)")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    tid = a.thread_id or "7F%010X" % rng.randrange(1 << 40)
    counts = [0] * len(STACKS)
    for i in rng.choices(range(len(STACKS)), weights=probs(a.variant), k=a.samples):
        counts[i] += 1
    lines = []
    for (stack, _), c in zip(STACKS, counts):
        if c:
            lines.append("thread (0x%s);%s %d" % (tid, stack, c))
    for line in sorted(lines):
        print(line)


if __name__ == "__main__":
    main()
