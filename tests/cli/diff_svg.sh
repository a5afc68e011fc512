#!/usr/bin/env bash
# diff_svg.sh — gpuflame diff --svg: the colour of EVERY drawn frame follows
# the change of its total (red = grew, blue = shrank), its outline the change
# of its self weight (dark red / dark blue / none), and its width is AFTER's
# (BEFORE's with --negate), checked by tests/gen/check_diff_svg.py against the
# inputs; the structure equals inferno's differential fixture; sampled inputs
# that differ only by noise colour nothing, a real +5 point change is coloured.
. "$(dirname "$0")/lib.sh"
CHK=tests/gen/check_diff_svg.py


# --- inferno's differential fixture, split into before/after ---
if need_shared "diff-svg-inferno"; then
  F=$GF_SHARED/corpus/flamegraph/jonhoo-inferno/tests/data/flamegraph/differential
  awk '{a=$NF; b=$(NF-1); $NF=""; $(NF-1)=""; sub(/ +$/, ""); print $0, b}' "$F/perf-cycles-instructions-01-collapsed-all-diff.txt" > "$T/b.txt"
  awk '{a=$NF; b=$(NF-1); $NF=""; $(NF-1)=""; sub(/ +$/, ""); print $0, a}' "$F/perf-cycles-instructions-01-collapsed-all-diff.txt" > "$T/a.txt"
  # exact mode: every frame coloured by the sign of its total change
  gf diff --no-sampled --svg "$T/b.txt" "$T/a.txt"; expect_rc "diff-svg-rc" 0
  cp "$T/out" "$T/d.svg"
  python3 "$CHK" "$T/b.txt" "$T/a.txt" "$T/d.svg" --paths="$T/paths" > "$T/chk"; r=$?
  cp "$T/chk" "$T/chk0"
  if [ $r -eq 0 ]; then pass "diff-svg-colours-and-widths"; else fail "diff-svg-colours-and-widths" "$(grep BAD "$T/chk" | head -3)"; fi
  expect_grep "diff-svg-frames" "^frames 19$" "$T/chk"
  expect_grep "diff-svg-red" "^red 17$" "$T/chk"
  expect_grep "diff-svg-blue" "^blue 1$" "$T/chk"
  # inner frames are coloured too (flamegraph.pl leaves them white)
  expect_grep "diff-svg-inner-red" 'data-n="__libc_start_main">' "$T/d.svg"
  grep -A1 'data-n="__libc_start_main">' "$T/d.svg" | grep -q 'fill="rgb(255,' && pass "diff-svg-inner-coloured" || fail "diff-svg-inner-coloured" "parent frame not red"
  # structure: the same path -> width table as inferno's diff.svg
  if python3 "$GF_SHARED/tools/svgframes.py" paths "$F/diff.svg" 2>/dev/null | LC_ALL=C sort > "$T/ref"; then
    LC_ALL=C sort "$T/paths" > "$T/ours"
    expect_same "diff-svg-structure-vs-inferno" "$T/ours" "$T/ref"
  fi
  # tooltip: before, after, delta, delta%; legend explains
  expect_grep "diff-svg-tooltip" "<title>cksum \(total 57 -&gt; 96, \+39 \(\+68.4%\); self 0\)</title>" "$T/d.svg"
  expect_grep "diff-svg-legend" "red = grew, blue = shrank" "$T/d.svg"
  # outlines: the checker asserted their direction (self grew = dark red,
  # shrank = dark blue, none when unchanged) and width order for every frame
  expect_grep "diff-svg-outlined" "^outlined [1-9]" "$T/chk0"
  expect_grep "diff-svg-outline-red" "^outline-red [1-9]" "$T/chk0"
  # cksum's own weight grew 57 -> 96 (it is a leaf): dark red outline
  grep -A1 'data-n="cksum">' "$T/d.svg" | grep -q 'stroke="rgb(160,0,0)" stroke-width="[0-9.]*"' \
    && pass "diff-svg-outline-leaf-red" || fail "diff-svg-outline-leaf-red" "cksum not outlined dark red"
  # a frame whose self weight is unchanged (0 -> 0) has no outline
  grep -A1 'data-n="__libc_start_main">' "$T/d.svg" | grep -q 'stroke=' \
    && fail "diff-svg-no-outline-unchanged-self" "outlined" || pass "diff-svg-no-outline-unchanged-self"
  expect_grep "diff-svg-legend-outline" "Outline: change of the frame.{1,6}s own \(self\) weight, dark red = grew" "$T/d.svg"
  # --negate: BEFORE's widths, same colour convention
  gf diff --no-sampled --negate --svg "$T/b.txt" "$T/a.txt"; expect_rc "diff-svg-negate-rc" 0
  cp "$T/out" "$T/n.svg"
  python3 "$CHK" "$T/b.txt" "$T/a.txt" "$T/n.svg" --negate > "$T/chk"; r=$?
  if [ $r -eq 0 ]; then pass "diff-svg-negate"; else fail "diff-svg-negate" "$(grep BAD "$T/chk" | head -3)"; fi
  expect_grep "diff-svg-negate-outlined" "^outlined [1-9]" "$T/chk"
  # sampled (default for integer counts): 333 vs 513 samples, nothing significant
  gf diff --svg "$T/b.txt" "$T/a.txt"
  cp "$T/out" "$T/s.svg"
  python3 "$CHK" "$T/b.txt" "$T/a.txt" "$T/s.svg" --sampled > "$T/chk"
  expect_grep "diff-svg-sampled-legend" "Sampled counts: grey = change within noise" "$T/s.svg"
  # -o x.svg implies --svg
  gf diff --no-sampled -o "$T/o.svg" "$T/b.txt" "$T/a.txt"; expect_rc "diff-svg-o-rc" 0
  expect_grep "diff-svg-o-is-svg" "<svg " "$T/o.svg"
fi

# --- py-spy captures: noise vs change (3,000 samples each, seeded) ---
python3 tests/gen/gen_pyspy.py --seed 1 > "$T/p1"
python3 tests/gen/gen_pyspy.py --seed 2 > "$T/p2"
python3 tests/gen/gen_pyspy.py --seed 3 --variant change > "$T/p3"
gf diff --svg "$T/p1" "$T/p2"; expect_rc "diff-pyspy-noise-rc" 0
cp "$T/out" "$T/noise.svg"
python3 "$CHK" "$T/p1" "$T/p2" "$T/noise.svg" --sampled --hex > "$T/chk"; r=$?
# (the thread frame's 0x id differs: --hex applies the same name rule)
if [ $r -eq 0 ]; then pass "diff-pyspy-noise-widths"; else fail "diff-pyspy-noise-widths" "$(grep BAD "$T/chk" | head -3)"; fi
expect_grep "diff-pyspy-noise-nothing-coloured" "^coloured 0$" "$T/chk"
expect_grep "diff-pyspy-noise-frames" "^frames 14$" "$T/chk"
gf diff --svg "$T/p1" "$T/p3"; expect_rc "diff-pyspy-change-rc" 0
cp "$T/out" "$T/change.svg"
python3 "$CHK" "$T/p1" "$T/p3" "$T/change.svg" --sampled --hex > "$T/chk"
expect_grep "diff-pyspy-change-item-red" "^COLOURED red .*;item \(sampler.py:30\) " "$T/chk"
expect_grep "diff-pyspy-change-sample-red" "^COLOURED red .*;sample \(engine.py:140\) " "$T/chk"
# the same pair without the noise test colours (almost) everything
gf diff --no-sampled --svg "$T/p1" "$T/p2"
cp "$T/out" "$T/ns.svg"
python3 "$CHK" "$T/p1" "$T/p2" "$T/ns.svg" --hex > "$T/chk"; r=$?
if [ $r -eq 0 ]; then pass "diff-pyspy-no-sampled-directions"; else fail "diff-pyspy-no-sampled-directions" "$(grep BAD "$T/chk" | head -3)"; fi
n=$(sed -n 's/^coloured //p' "$T/chk")
if [ "${n:-0}" -ge 8 ]; then pass "diff-pyspy-no-sampled-colours"; else fail "diff-pyspy-no-sampled-colours" "coloured $n"; fi
# --top classes: the changed frame is 'grew', the rest noise
gf diff --top 3 "$T/p1" "$T/p3"
expect_grep "diff-pyspy-top-grew" "grew +thread \(0x\.\.\.\);main \(serve.py:40\);decode_step \(engine.py:88\);sample \(engine.py:140\);item \(sampler.py:30\)$" "$T/out"
# nothing to draw (AFTER is empty): exit 1, no partial SVG left behind
printf 'a 1\n' > "$T/one"; printf 'a 0\n' > "$T/zero"
gf diff -o "$T/empty.svg" "$T/one" "$T/zero"; expect_rc "diff-svg-empty-after" 1
if ls "$T"/empty.svg* >/dev/null 2>&1; then fail "diff-svg-no-partial" "output left"; else pass "diff-svg-no-partial"; fi
# 10 more noise-only pairs: false colours stay rare (alpha 0.01, ~13 frames)
tot=0
for s in 11 12 13 14 15 16 17 18 19 20; do
  python3 tests/gen/gen_pyspy.py --seed $s > "$T/x"
  python3 tests/gen/gen_pyspy.py --seed $((s + 100)) > "$T/y"
  "$GF" diff --top 50 "$T/x" "$T/y" > "$T/top" 2>/dev/null
  k=$(awk '$5 == "grew" || $5 == "shrank"' "$T/top" | wc -l)
  tot=$((tot + k))
done
if [ "$tot" -le 4 ]; then pass "diff-pyspy-false-colour-rate"; else fail "diff-pyspy-false-colour-rate" "$tot coloured rows in 10 noise pairs"; fi
exit 0
