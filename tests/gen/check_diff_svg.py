#!/usr/bin/env python3
"""check_diff_svg.py — checks a differential SVG written by `gpuflame diff --svg`
against the two folded inputs it was made from (stdlib only).

USAGE: check_diff_svg.py BEFORE AFTER SVG [--negate] [--sampled] [--hex] [--paths=OUT]

For every drawn frame (a <g data-d=.. data-w=..> with a <rect fill>), rebuilds
its path from the depth order, computes its total weight before and after
from the folded inputs (exact, with Fraction), and checks:
  - width: data-w / root data-w == after(path) / after(root)   (before with --negate)
  - fill:  red (r=255 > g) when after > before, blue (b=255 > r) when
           after < before, white/grey (r == g == b) when equal.
  - outline (stroke, the frame's own change): red (r > b) when its self
           weight grew, blue (b > r) when it shrank, none when equal, and
           a width in [0.5, 2.5] px that grows with |self delta|.
With --sampled the fill check is skipped; instead the script prints the
coloured frames (and OUTLINED lines for outlined ones). Prints "frames N",
"coloured N", "red N", "blue N", "neutral N", "outlined N", "outline-red N",
"outline-blue N", then one "BAD ..." line per mismatch (exit 1 when any).
--paths=OUT writes "width<TAB>all;path" lines (sorted), the format of
../shared/tools/svgframes.py paths, for a structural comparison.
"""
import re
import sys
from fractions import Fraction


HEX = "--hex" in sys.argv  # apply diff's rule R1 (0x<hex> -> 0x...) to the inputs


def read_folded(path, selfw=None):
    tot = {}
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            line = line.rstrip("\n").rstrip("\r")
            if not line.strip() or line.startswith("#"):
                continue
            stack, _, cnt = line.rpartition(" ")
            w = Fraction(cnt)
            # the renderer shows perf's "_[k]"-style annotations without the suffix
            frames = [re.sub(r"_\[[kwij]\]$", "", x) for x in stack.split(";")]
            if HEX:
                frames = [re.sub(r"0[xX][0-9a-fA-F]+", "0x...", x) for x in frames]
            tot[()] = tot.get((), 0) + w
            if selfw is not None:
                k = tuple(frames)
                selfw[k] = selfw.get(k, 0) + w
            for i in range(1, len(frames) + 1):
                k = tuple(frames[:i])
                tot[k] = tot.get(k, 0) + w
    return tot


def unxml(s):
    return (s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"')
            .replace("&#39;", "'").replace("&apos;", "'").replace("&amp;", "&"))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    negate = "--negate" in sys.argv
    sampled = "--sampled" in sys.argv
    self_b, self_a = {}, {}
    before, after = read_folded(args[0], self_b), read_folded(args[1], self_a)
    svg = open(args[2], encoding="utf-8").read()
    gre = re.compile(r'<g data-x="(\d+)" data-w="(\d+)" data-d="(\d+)"(?: data-n="([^"]*)")?>\s*'
                     r'<title>(.*?)</title><rect [^>]*fill="rgb\((\d+),(\d+),(\d+)\)"'
                     r'(?: stroke="rgb\((\d+),(\d+),(\d+)\)" stroke-width="([0-9.]+)")?', re.S)
    stack = []
    frames = coloured = red = blue = neutral = 0
    outlined = ored = oblue = 0
    widths = []  # (|self delta|, width) of outlined frames
    bad = []
    root_w = None
    paths_out = []
    width_of = after if not negate else before
    for m in gre.finditer(svg):
        w, d = int(m.group(2)), int(m.group(3))
        name = unxml(m.group(4) or "")
        r, g, b = int(m.group(6)), int(m.group(7)), int(m.group(8))
        if d == 0:
            root_w = w
            stack = []
            paths_out.append("%d\tall" % w)
            continue
        if name.startswith("[") and "frames <" in name:
            continue
        del stack[d - 1:]
        stack.append(name)
        path = tuple(stack)
        paths_out.append("%d\tall;%s" % (w, ";".join(path)))
        frames += 1
        bt, at = before.get(path, 0), after.get(path, 0)
        if root_w and width_of.get((), 0):
            want = Fraction(width_of.get(path, 0)) / width_of[()]
            got = Fraction(w, root_w)
            if abs(want - got) > Fraction(1, 10**6):
                bad.append("width %s: %s vs %s" % (";".join(path), got, want))
        kind = "red" if (r == 255 and g < 255 and g == b) else "blue" if (b == 255 and r < 255 and r == g) else \
            "neutral" if r == g == b else "other"
        if kind == "red":
            red += 1
        elif kind == "blue":
            blue += 1
        elif kind == "neutral":
            neutral += 1
        if kind in ("red", "blue"):
            coloured += 1
            if sampled:
                print("COLOURED %s %s before=%s after=%s" % (kind, ";".join(path), bt, at))
        sb, sa = self_b.get(path, 0), self_a.get(path, 0)
        okind = "none"
        if m.group(9) is not None:
            sr, sg, sbl, sw = int(m.group(9)), int(m.group(10)), int(m.group(11)), float(m.group(12))
            okind = "red" if sr > sbl else "blue" if sbl > sr else "other"
            outlined += 1
            ored += okind == "red"
            oblue += okind == "blue"
            if not 0.5 <= sw <= 2.5:
                bad.append("outline width %s: %s" % (";".join(path), sw))
            widths.append((abs(sa - sb), sw, ";".join(path)))
            if sampled:
                print("OUTLINED %s %s self before=%s after=%s" % (okind, ";".join(path), sb, sa))
        if sampled:
            continue
        owant = "red" if sa > sb else "blue" if sa < sb else "none"
        if okind != owant:
            bad.append("outline %s: %s but self before %s after %s" % (";".join(path), okind, sb, sa))
        want = "red" if at > bt else "blue" if at < bt else "neutral"
        if kind != want:
            bad.append("fill %s: %s (rgb %d,%d,%d) but before %s after %s" % (";".join(path), kind, r, g, b, bt, at))
    print("frames %d" % frames)
    print("coloured %d" % coloured)
    print("red %d" % red)
    print("blue %d" % blue)
    print("neutral %d" % neutral)
    print("outlined %d" % outlined)
    print("outline-red %d" % ored)
    print("outline-blue %d" % oblue)
    # thicker outline = larger self change (monotone, up to the 0.1 px rounding)
    widths.sort()
    for (d1, w1, p1), (d2, w2, p2) in zip(widths, widths[1:]):
        if d2 > d1 and w2 + 0.1 < w1:
            bad.append("outline widths: %s (|d| %s) %s px > %s (|d| %s) %s px" % (p1, d1, w1, p2, d2, w2))
    for x in bad:
        print("BAD " + x)
    for a in sys.argv[1:]:
        if a.startswith("--paths="):
            with open(a[len("--paths="):], "w") as f:
                f.write("".join(l + "\n" for l in sorted(paths_out)))
    if root_w is None:
        print("BAD no root frame")
        sys.exit(1)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
