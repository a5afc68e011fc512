#!/usr/bin/env python3
"""expect_diff.py — the exact per-step diff of two gen_decode.py variants,
computed from the generator's expected fold outputs (known by construction).

USAGE: expect_diff.py BEFORE.exp.json AFTER.exp.json "FOLD ARGS" > expected.diff

Reads folds[FOLD ARGS] of both expectation files (folded lines, self weights
in the fold unit, ns by default), divides each by the variant's step count exactly (Fraction) and prints
"stack before after" lines sorted by stack bytes, weights as plain decimals
with trailing zeros removed (gpuflame's format), 0 for a missing side; the
thread frame's id normalised as diff's rule R6 does.
"""
import json
import re
import sys
from fractions import Fraction

# diff's name rule R6 (docs/diff.md): a leading thread frame "thread (TID)..."
# or "thread (TID, pid ...": the decimal id becomes "..."
R6 = re.compile(r"^thread \(\d+(?=[),])")


def load(path, key):
    e = json.load(open(path))
    w = {}
    for line in e["folds"][key]:
        stack, _, cnt = line.rpartition(" ")
        stack = R6.sub("thread (...", stack)
        w[stack] = w.get(stack, 0) + Fraction(cnt)
    return w, e["steps"]


def fmt(x):
    if x == 0:
        return "0"
    for d in range(0, 10):
        v = x * 10 ** d
        if v.denominator == 1:
            s = str(v.numerator).rjust(d + 1, "0")
            return s if d == 0 else s[:-d] + "." + s[-d:]
    raise SystemExit("not a short decimal: %s" % x)


def main():
    b, sb = load(sys.argv[1], sys.argv[3])
    a, sa = load(sys.argv[2], sys.argv[3])
    out = []
    for k in set(b) | set(a):
        out.append((k.encode("utf-8", "surrogateescape"), "%s %s %s" % (k, fmt(b.get(k, 0) / sb), fmt(a.get(k, 0) / sa))))
    for _, line in sorted(out):
        print(line)


if __name__ == "__main__":
    main()
