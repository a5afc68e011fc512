#!/usr/bin/env bash
# svg_options.sh — `gpuflame svg` options and output properties on small
# generated inputs: merge of several files and stdin, determinism, single-dash
# flamegraph.pl spellings, minwidth aggregation, flame chart, reverse,
# inverted, palettes (gpu legend, --cp palette.map), differential colours.
. "$(dirname "$0")/lib.sh"

printf 'main;a;b 3\nmain;a 1\nmain;c 4\n' >"$T/x.folded"
printf 'main;c 4\nother 2\n' >"$T/y.folded"
gf svg "$T/x.folded" "$T/y.folded"
expect_rc svg-opt-two-files 0
expect_grep svg-opt-two-files-merged '<title>c \(8 samples, 57.14%\)</title>' "$T/out"
expect_grep svg-opt-two-files-total '<title>all \(14 samples, 100%\)</title>' "$T/out"
cat "$T/x.folded" "$T/y.folded" | "$GF" svg >"$T/stdin.svg"
expect_same svg-opt-stdin-same "$T/out" "$T/stdin.svg"
"$GF" svg - <"$T/x.folded" >"$T/dash.svg"; "$GF" svg "$T/x.folded" >"$T/file.svg"
expect_same svg-opt-dash-is-stdin "$T/dash.svg" "$T/file.svg"
# merge anywhere: the same stack on separate lines is one frame
printf 'a;b 1\nc 1\na;b 2\n' | "$GF" svg >"$T/m.svg"
n=$(grep -c '<title>b (' "$T/m.svg"); expect_eq svg-opt-merge-anywhere "$n" 1
expect_grep svg-opt-merge-sum '<title>b \(3 samples' "$T/m.svg"

# determinism (also --random)
"$GF" svg --random "$T/x.folded" >"$T/r1.svg"; "$GF" svg --random "$T/x.folded" >"$T/r2.svg"
expect_same svg-opt-random-deterministic "$T/r1.svg" "$T/r2.svg"
"$GF" svg --seed 7 "$T/x.folded" >"$T/r3.svg"
if cmp -s "$T/r1.svg" "$T/r3.svg"; then fail svg-opt-seed-changes "same"; else pass svg-opt-seed-changes; fi

# single-dash long options (flamegraph.pl users type them) and -o
"$GF" svg -title 'My T' -width 800 -hash "$T/x.folded" -o "$T/sd.svg"
expect_grep svg-opt-single-dash-title '>My T</text>' "$T/sd.svg"
expect_grep svg-opt-single-dash-width 'width="800"' "$T/sd.svg"

# output file replaced atomically, nothing on stdout
gf svg "$T/x.folded" -o "$T/o.svg"; expect_rc svg-opt-output 0
[ -s "$T/out" ] && fail svg-opt-output-stdout-empty "" || pass svg-opt-output-stdout-empty
expect_same svg-opt-output-same "$T/o.svg" "$T/file.svg"

# minwidth aggregation: 200 children of weight 1 under p and one of 5000
python3 -c '
for i in range(200): print("p;f%03d 1" % i)
print("p;big 5000")' >"$T/agg.folded"
"$GF" svg --minwidth 1 "$T/agg.folded" >"$T/agg.svg"
expect_grep svg-opt-aggregate '<title>\[200 frames &lt; minwidth\] \(200 samples, 3.85%\)</title>' "$T/agg.svg"
"$GF" svg --minwidth 5% "$T/agg.folded" >"$T/agg5.svg"
expect_nogrep svg-opt-aggregate-too-narrow 'frames &lt; minwidth' "$T/agg5.svg"
"$GF" svg --minwidth 0 "$T/agg.folded" >"$T/agg0.svg"
n=$(grep -c '<title>f' "$T/agg0.svg"); expect_eq svg-opt-minwidth0-all "$n" 200

# flame chart keeps input order, reverse, inverted
printf 'z 1\na 1\nz 1\n' | "$GF" svg --flamechart >"$T/fc.svg"
n=$(grep -c '<title>z (1 samples' "$T/fc.svg"); expect_eq svg-opt-flamechart-order "$n" 2
expect_grep svg-opt-flamechart-title '>Flame Chart</text>' "$T/fc.svg"
printf 'main;a;b 3\n' | "$GF" svg --reverse >"$T/rev.svg"
expect_grep svg-opt-reverse '<title>b \(3 samples, 100.00%\)</title><rect x="10.0" y="69"' "$T/rev.svg"
printf 'main;a;b 3\n' | "$GF" svg --inverted >"$T/inv.svg"
expect_grep svg-opt-inverted '<title>all \(3 samples, 100%\)</title><rect x="10.0" y="36"' "$T/inv.svg"
expect_grep svg-opt-inverted-title '>Icicle Graph</text>' "$T/inv.svg"

# gpu palette: classes coloured apart, sync saturated red, legend drawn
printf 'train.py(10): step;aten::item;aten::_local_scalar_dense;cudaStreamSynchronize 5\ntrain.py(10): step;nn.Module: Linear_0;aten::mm;cudaLaunchKernel 3\n[idle] 2\n' >"$T/gpu.folded"
"$GF" svg --colors gpu "$T/gpu.folded" >"$T/gpu.svg"
expect_grep svg-opt-gpu-legend '<g id="legend">' "$T/gpu.svg"
expect_grep svg-opt-gpu-sync-red '<title>cudaStreamSynchronize \(5 samples, 50.00%\)</title><rect [^>]*fill="rgb\(2[2-5][0-9],0,[0-9]+\)"' "$T/gpu.svg"
expect_grep svg-opt-gpu-item-red '<title>aten::item \(5 samples, 50.00%\)</title><rect [^>]*fill="rgb\(2[2-5][0-9],0,' "$T/gpu.svg"
expect_nogrep svg-opt-gpu-mm-not-red '<title>aten::mm [^<]*</title><rect [^>]*fill="rgb\(2[2-5][0-9],0,' "$T/gpu.svg"
expect_grep svg-opt-gpu-bg-grey 'stop-color="#f8f8f8"' "$T/gpu.svg"

# --cp: palette.map is read, extended and written sorted
(cd "$T" && printf 'main->rgb(1,2,3)\n' >palette.map && "$GF" svg --cp x.folded >cp.svg)
expect_grep svg-opt-cp-used '<title>main \(8 samples, 100.00%\)</title><rect [^>]*fill="rgb\(1,2,3\)"' "$T/cp.svg"
expect_eq svg-opt-cp-written "$(cut -d- -f1 "$T/palette.map" | tr '\n' ' ')" "a b c main "

# differential: red grew, blue shrank, --negate swaps
printf 'main;foo 1 2\nmain;foo;bar 0 4\nmain;baz 5 1\n' >"$T/d.folded"
"$GF" svg "$T/d.folded" >"$T/d.svg"
expect_grep svg-opt-diff-red '<title>bar \(4 samples, 57.14%; \+57.14%\)</title><rect [^>]*fill="rgb\(255,0,0\)"' "$T/d.svg"
expect_grep svg-opt-diff-blue '<title>baz \(1 samples, 14.29%; -57.14%\)</title><rect [^>]*fill="rgb\(0,0,255\)"' "$T/d.svg"
"$GF" svg --negate "$T/d.folded" >"$T/dn.svg"
expect_grep svg-opt-diff-negate '<title>bar \(4 samples, 57.14%; -57.14%\)</title><rect [^>]*fill="rgb\(0,0,255\)"' "$T/dn.svg"

# notes with markup are escaped, not refused; no '--' inside the comment
gf svg --notes 'a <b> -- c' "$T/x.folded"; expect_rc svg-opt-notes 0
expect_grep svg-opt-notes-escaped '<!-- NOTES: a &lt;b&gt; - - c -->' "$T/out"
# inferno's options (issue 26): the python palette's three colour ranges
# (inferno: site-packages aqua, the standard library yellow, the rest red)
printf '%s\n' 'main (app.py:3);load (/venv/lib/python3.11/site-packages/torch/x.py:2) 5' \
  'main (app.py:3);wait (/usr/lib/python3.11/threading.py:359) 3' 'main (app.py:3);<built-in method item> 2' >"$T/py.folded"
gf svg --colors python --deterministic "$T/py.folded"; expect_rc svg-opt-python-rc 0
python3 - "$T/out" <<'PY' | while read -r r; do case $r in ok*) pass "svg-opt-python-${r#ok }";; *) fail svg-opt-python "$r";; esac; done
import re, sys
s = open(sys.argv[1]).read()
fill = {m.group(1).split(" (")[0]: tuple(map(int, m.group(2).split(","))) for m in
        re.finditer(r"<title>(.*?) \([^<]*</title><rect [^>]*fill=\"rgb\(([0-9,]+)\)\"", s)}
# inferno's basic palettes: aqua (50+60v, 165+55v, 165+55v), yellow (175+55v, 175+55v, 50+20v), red (200+55v, 50+80v, 50+80v)
want = {"load": lambda r, g, b: 50 <= r <= 110 and 165 <= g <= 220 and g == b,
        "wait": lambda r, g, b: 175 <= r <= 230 and r == g and 50 <= b <= 70,
        "&lt;built-in method item&gt;": lambda r, g, b: 175 <= r <= 230 and r == g and 50 <= b <= 70,
        "main": lambda r, g, b: 200 <= r <= 255 and 50 <= g <= 130 and g == b}
for k, ok in want.items():
    print(("ok %s" % k.replace("&lt;", "").replace("&gt;", "").replace(" ", "-")) if k in fill and ok(*fill[k]) else "%s: %s" % (k, fill.get(k)))
PY
# conflicts as inferno's, one line each
gf svg --deterministic --hash "$T/py.folded"; expect_rc svg-opt-deterministic-hash 2
gf svg --colordiffusion --colors java "$T/py.folded"; expect_rc svg-opt-colordiffusion-colors 2
# a bare --minwidth is pixels: said once (inferno reads it as a percentage); -q silences it
gf svg --minwidth 0.5 "$T/py.folded"; expect_rc svg-opt-minwidth-px 0
expect_grep svg-opt-minwidth-note "note: --minwidth 0.5 is pixels .*inferno reads a bare number as a percentage of the total: write 0.5% for that" "$T/err"
gf svg --minwidth 0.5% "$T/py.folded"; expect_eq svg-opt-minwidth-pct-quiet "$(cat "$T/err")" ""
gf svg -q --minwidth 0.5 "$T/py.folded"; expect_eq svg-opt-minwidth-q "$(cat "$T/err")" ""
# --base: re-rooted at the innermost match; none: exit 1
gf svg --base 'main (app.py:3)' "$T/py.folded"; expect_rc svg-opt-base 0
expect_grep svg-opt-base-root '<title>main \(app.py:3\) \(10 samples, 100.00%\)</title>' "$T/out"
gf svg --base nothing "$T/py.folded"; expect_rc svg-opt-base-none 1
expect_grep svg-opt-base-none-msg "no stack holds a frame named by --base" "$T/err"
gf svg --colordiffusion "$T/py.folded" # and its output is XML, below

# valid XML everywhere
for f in "$T/gpu.svg" "$T/d.svg" "$T/agg.svg" "$T/fc.svg" "$T/out"; do
  python3 -c 'import sys,xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$f" || fail svg-opt-xml "$f"
done
pass svg-opt-xml-checked
exit 0
