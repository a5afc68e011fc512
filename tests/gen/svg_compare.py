#!/usr/bin/env python3
"""svg_compare.py — compare many (ours, reference) SVG pairs in one process
with the shared structural extractor ($GF_SHARED/tools/svgframes.py).

usage: svg_compare.py SVGFRAMES_PY LIST
LIST lines (TAB-separated): test-name  kind  ours.svg  reference.svg  fills
  kind  exact:    path -> weight tables equal (svgframes' `diff`)
        filtered: equal after dropping the frames that differ on purpose:
                  a blank frame ' ' (flamegraph.pl keeps the blank of
                  'a;  3', we trim it; with --reverse its subtree merges into
                  the same frames under the root) and our
                  '[N frames < minwidth]' aggregates
  fills yes: also compare the set of (name, fill) pairs
Prints PASS/FAIL lines (tests/cli/lib.sh conventions).
"""
import importlib.util
import sys


def load(path):
    spec = importlib.util.spec_from_file_location("svgframes", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def table(sf, frames):
    unit = frames and frames[0]["unit"] == "samples"
    return sf.build_paths(frames, 0.5 if unit else 0.15)


def filtered(t):
    out = {}
    for p, n in t.items():
        seg = p.split(";")
        if seg[-1].strip() == "" or seg[-1].endswith("frames < minwidth]"):
            continue
        k = ";".join(s for i, s in enumerate(seg) if i == 0 or s.strip() != "")
        out[k] = out.get(k, 0) + n
    return out


def fills(frames):
    return {(f["name"], f["fill"]) for f in frames
            if f["name"].strip() != "" and not f["name"].endswith("frames < minwidth]")}


def main():
    sf = load(sys.argv[1])
    bad = 0
    for line in open(sys.argv[2]):
        name, kind, ours, ref, fl = line.rstrip("\n").split("\t")
        try:
            a, b = sf.load_frames(ours), sf.load_frames(ref)
        except Exception as e:  # parse errors are failures, not crashes
            print(f"FAIL {name}: {e}")
            bad += 1
            continue
        ta, tb = table(sf, a), table(sf, b)
        if kind == "filtered":
            ta, tb = filtered(ta), filtered(tb)
        diff = sorted(p for p in set(ta) | set(tb) if ta.get(p) != tb.get(p))
        if diff:
            print(f"FAIL {name}: {len(diff)} paths differ, e.g. "
                  + " | ".join(f"{ta.get(p)} vs {tb.get(p)}: {p[-120:]}" for p in diff[:3]))
            bad += 1
        else:
            print(f"PASS {name}")
        if fl == "yes":
            fa, fb = fills(a), fills(b)
            if fa == fb:
                print(f"PASS {name}-fill")
            else:
                print(f"FAIL {name}-fill: {sorted(fa ^ fb)[:4]}")
                bad += 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
