#!/usr/bin/env python3
"""diff_numbers.py — `gpuflame diff --top` prints exact numbers and says what
the 3-column `diff` output says (issue 12, item 9). Stdlib only: the truth
is computed here from the two folded inputs with Fractions.

USAGE: diff_numbers.py NAME BEFORE AFTER TOP STACKS MODE DECIMALS
  BEFORE, AFTER  the folded inputs (headers read for steps=)
  TOP            the output of `gpuflame diff --no-normalise-names --top N ...`
  STACKS         the output of `gpuflame diff --no-normalise-names ...`
  MODE           steps | total | none (what the diff applied)
  DECIMALS       --decimals (3 by default)
Prints PASS/FAIL lines (tests/cli/lib.sh style), exit 0.

Checks:
- the last column of both --top tables is headed "stack" (it holds whole
  stacks, root;...;frame) and every row names a stack of the inputs;
- before, after and delta of every row are the exact normalised weights of
  that stack's total (or self) weight rounded half to even at the output
  scale (input decimals + DECIMALS, capped at 9, for steps and total; the
  input's for none), printed with trailing zeros dropped: an integer stays an
  integer, no 9589.499999 for 9589.5; delta% is the exact change relative to
  before, one decimal, half to even ("new" when before is 0);
- the class is grew/shrank by the sign of the delta (exact weights: not
  sampled);
- rows are the largest changes: |delta| does not increase down a table;
- the 3-column text agrees: each line is within one unit of the exact value
  (largest-remainder rounding, docs/diff.md) and equal to it when the exact
  value needs no rounding; each column's total is the exactly rounded total;
  a --top self row of a stack that is a line shows that line's value
  whenever that needs no rounding.
"""
import re
import sys
from fractions import Fraction


def parse_folded(path):
    steps = None
    w = {}
    scale = 0
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("#"):
            m = re.search(r"(?:^|[ ;])steps=(\d+);", line)
            if m:
                steps = int(m.group(1))
            continue
        if not line.strip():
            continue
        stack, _, cnt = line.rpartition(" ")
        if "." in cnt:
            scale = max(scale, len(cnt.split(".")[1]))
        w[stack] = w.get(stack, 0) + Fraction(cnt)
    return w, steps, scale


def totals(lines):
    """every prefix path: (total, self)"""
    tot, slf = {}, {}
    for stack, v in lines.items():
        fr = stack.split(";")
        for k in range(1, len(fr) + 1):
            p = ";".join(fr[:k])
            tot[p] = tot.get(p, 0) + v
        slf[stack] = slf.get(stack, 0) + v
    return tot, slf


def round_even(x):
    q, r = divmod(x.numerator, x.denominator)
    r2 = 2 * r
    if r2 > x.denominator or (r2 == x.denominator and q % 2):
        q += 1
    return q


def fmt(units, scale):
    """num_fmt: units / 10^scale, trailing zeros dropped"""
    neg = units < 0
    u = abs(units)
    s = str(u).rjust(scale + 1, "0")
    ip, fp = (s[:-scale], s[-scale:]) if scale else (s, "")
    fp = fp.rstrip("0")
    return ("-" if neg else "") + ip + ("." + fp if fp else "")


def main(argv):
    name, bp, ap, topp, stp, mode, dec = argv[1:8]
    dec = int(dec)
    B, sb, scb = parse_folded(bp)
    A, sa, sca = parse_folded(ap)
    in_scale = max(scb, sca)
    tb, slb = totals(B)
    ta, sla = totals(A)
    TB, TA = sum(B.values(), Fraction(0)), sum(A.values(), Fraction(0))
    if mode == "steps":
        fb, fa = Fraction(1, sb), Fraction(1, sa)
        scale = min(in_scale + dec, 9)
    elif mode == "total":
        if TB and TB != TA:
            fb, fa = TA / TB, Fraction(1)
            scale = min(in_scale + dec, 9)
        else:
            fb = fa = Fraction(1)
            scale = in_scale
    else:
        fb = fa = Fraction(1)
        scale = in_scale
    unit = Fraction(1, 10 ** scale)
    errs = []

    def exact(self_, path):
        b = (slb if self_ else tb).get(path, 0) * fb
        a = (sla if self_ else ta).get(path, 0) * fa
        return b, a

    top = open(topp, encoding="utf-8", errors="replace").read().split("\n")
    tables = []
    cur = None
    for line in top:
        m = re.match(r"Biggest changes by (total|self) weight", line)
        if m:
            cur = (m.group(1) == "self", [])
            tables.append(cur)
            continue
        if cur is None or not line.strip():
            cur = None if not line.strip() else cur
            continue
        f = line.split(None, 5)
        if f[:5] == ["before", "after", "delta", "delta%", "class"]:
            if len(f) < 6 or f[5] != "stack":
                errs.append("--top last column headed %r, not 'stack'" % (f[5] if len(f) > 5 else ""))
            continue
        if line.startswith("(no change)"):
            continue
        if len(f) < 6:
            errs.append("--top row %r" % line)
            continue
        cur[1].append(f)
    if len(tables) != 2:
        errs.append("%d --top tables, expected 2" % len(tables))
    nrows = 0
    for self_, rows in tables:
        last = None
        kind = "self" if self_ else "total"
        for f in rows:
            nrows += 1
            b_s, a_s, d_s, rel_s, cls, path = f
            if path not in (slb if self_ else tb) and path not in (sla if self_ else ta):
                errs.append("%s row %r is no stack of the inputs" % (kind, path))
                continue
            b, a = exact(self_, path)
            want = (fmt(round_even(b / unit), scale), fmt(round_even(a / unit), scale))
            d = a - b
            dw = fmt(round_even(d / unit), scale)
            dw = ("+" if round_even(d / unit) > 0 else "") + dw
            if b == 0:
                relw = "new"
            else:
                q = round_even(d * 1000 / b)
                relw = ("+" if q > 0 else "") + ("-" if q < 0 else "") + "%d.%d%%" % (abs(q) // 10, abs(q) % 10)
            if (b_s, a_s) != want:
                errs.append("%s %s: before/after %s %s, exact %s %s" % (kind, path, b_s, a_s, want[0], want[1]))
            if d_s != dw:
                errs.append("%s %s: delta %s, exact %s" % (kind, path, d_s, dw))
            if rel_s != relw:
                errs.append("%s %s: delta%% %s, exact %s" % (kind, path, rel_s, relw))
            wc = "grew" if d > 0 else "shrank" if d < 0 else "same"
            if cls != wc:
                errs.append("%s %s: class %s, delta %s" % (kind, path, cls, d))
            if last is not None and abs(d) > last + 2 * unit:
                errs.append("%s %s: |delta| %s after a smaller one %s" % (kind, path, abs(d), last))
            last = abs(d)
            if self_ and path in S_LINES:
                lb, la = S_LINES[path]
                if b / unit == int(b / unit) and lb != want[0]:
                    errs.append("self %s: --top before %s, 3-column line %s" % (path, b_s, lb))
                if a / unit == int(a / unit) and la != want[1]:
                    errs.append("self %s: --top after %s, 3-column line %s" % (path, a_s, la))
    if not nrows:
        errs.append("no --top rows")
    # the 3-column text
    sum_b = sum_a = Fraction(0)
    for stack, (lb, la) in S_LINES.items():
        b, a = exact(True, stack)
        for got, x, side in ((lb, b, "before"), (la, a, "after")):
            g = Fraction(got)
            if abs(g - x) >= unit:
                errs.append("line %s %s %s: exact %s" % (stack, side, got, x))
            elif x / unit == int(x / unit) and g != x:
                errs.append("line %s %s %s: exact %s needs no rounding" % (stack, side, got, x))
        sum_b += Fraction(lb)
        sum_a += Fraction(la)
    for got, x, side in ((sum_b, TB * fb, "before"), (sum_a, TA * fa, "after")):
        if got != round_even(x / unit) * unit:
            errs.append("3-column %s total %s, exactly rounded %s" % (side, got, fmt(round_even(x / unit), scale)))
    if errs:
        print("FAIL %s: %s%s" % (name, "; ".join(errs[:3]), " (+%d more)" % (len(errs) - 3) if len(errs) > 3 else ""))
    else:
        print("PASS %s (%d --top rows, %d lines)" % (name, nrows, len(S_LINES)))
    return 0


def read_lines(path):
    out = {}
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("#") or not line.strip():
            continue
        stack, b, a = line.rsplit(" ", 2)
        out[stack] = (b, a)
    return out


if __name__ == "__main__":
    if len(sys.argv) != 8:
        sys.stderr.write(__doc__)
        sys.exit(2)
    S_LINES = read_lines(sys.argv[5])
    sys.exit(main(sys.argv))
