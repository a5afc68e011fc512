#!/usr/bin/env bash
# svg_header.sh — `gpuflame svg` honours the "# gpuflame:" header of its
# input (docs/svg.md, "The header"): the unit in tooltips, the gpu palette,
# a title and subtitle from weight/steps/rank/labels when the user gave none,
# "all" on the root box; `fold --kinds` suffixes colour frames by the kind
# the model knows (checked against the colour ranges of the gpu palette, by
# tests/gen/check_kinds_svg.py) and are not shown; plain folded input keeps
# flamegraph.pl's defaults byte for byte.
. "$(dirname "$0")/lib.sh"

printf 'main;aten::mm;gemm 3\nmain;cudaStreamSynchronize 2\n' >"$T/plain.folded"
{ printf '# gpuflame: weight=gpu; unit=us; steps=5; rank=0; world_size=8; source=t.json; label.batch=4;\n'
  cat "$T/plain.folded"; } >"$T/hdr.folded"
# plain: flamegraph.pl's defaults
gf svg "$T/plain.folded"; expect_rc plain-rc 0
cp "$T/out" "$T/plain.svg"
expect_grep plain-title '<text id="title"[^>]*>Flame Graph</text>' "$T/out"
expect_grep plain-unit '<title>all \(5 samples, 100%\)' "$T/out"
expect_nogrep plain-no-subtitle 'id="subtitle"' "$T/out"
expect_grep plain-root-empty '^<text x="13.00" y="[0-9.]*"></text>$' "$T/out"
# a header of another tool's keys only (no weight, no unit) changes nothing
{ printf '# gpuflame: source=x;\n'; cat "$T/plain.folded"; } >"$T/other.folded"
gf svg "$T/other.folded"; expect_same other-header-same "$T/out" "$T/plain.svg"
# gpuflame's header
gf svg "$T/hdr.folded"; expect_rc hdr-rc 0
expect_grep hdr-title '<text id="title"[^>]*>GPU time</text>' "$T/out"
expect_grep hdr-subtitle '<text id="subtitle"[^>]*>5 steps, rank 0 of 8, t.json, batch=4</text>' "$T/out"
expect_grep hdr-unit '<title>gemm \(3 us, 60.00%\)' "$T/out"
# tooltips: total, self, and the value per step (5 steps: exact to 3 more decimals)
expect_grep hdr-tip-main '<title>main \(5 us, 100.00%\)&#10;self: 0 us \(0.00%\)&#10;per step: 1 us \(5 steps\)</title>' "$T/out"
expect_grep hdr-tip-gemm '<title>gemm \(3 us, 60.00%\)&#10;self: 3 us \(60.00%\)&#10;per step: 0.6 us \(5 steps\)</title>' "$T/out"
expect_grep hdr-tip-root '<title>all \(5 us, 100%\)&#10;per step: 1 us \(5 steps\)</title>' "$T/out"
expect_nogrep plain-no-tip-lines '&#10;' "$T/plain.svg"
sed 's/steps=5;/steps=5; normalised=per-step;/' "$T/hdr.folded" >"$T/norm.folded"
gf svg "$T/norm.folded"; expect_nogrep normalised-no-per-step 'per step:' "$T/out"
expect_grep normalised-self '&#10;self: 3 us' "$T/out"
expect_grep normalised-subtitle '>5 steps \(per step\), rank 0 of 8' "$T/out"
gf svg "$T/hdr.folded"
expect_grep hdr-root-label '^<text x="13.00" y="[0-9.]*">all</text>$' "$T/out"
# the gpu palette: the same fills as --colors gpu on the plain input
grep -o 'fill="rgb([^"]*"' "$T/out" | tail -n +2 >"$T/f1"
"$GF" svg --colors gpu "$T/plain.folded" | grep -o 'fill="rgb([^"]*"' | tail -n +2 >"$T/f2"
expect_same hdr-gpu-palette "$T/f1" "$T/f2"
# what the user gives wins
gf svg --title 'Mine' --subtitle 'sub' --countname ms --colors hot "$T/hdr.folded"
expect_grep given-title '>Mine</text>' "$T/out"
expect_grep given-subtitle '>sub</text>' "$T/out"
expect_grep given-unit '<title>gemm \(3 ms, 60.00%\)' "$T/out"
"$GF" svg --colors hot "$T/plain.folded" | grep -o 'fill="rgb([^"]*"' | tail -n +2 >"$T/f3"
grep -o 'fill="rgb([^"]*"' "$T/out" | tail -n +2 >"$T/f4"
expect_same given-palette "$T/f4" "$T/f3"
# calls and idle weights: their own titles and units
sed 's/weight=gpu; unit=us/weight=calls; unit=calls/' "$T/hdr.folded" >"$T/calls.folded"
gf svg "$T/calls.folded"; expect_grep calls-title '>Kernel launches</text>' "$T/out"
expect_grep calls-unit '<title>gemm \(3 calls, 60.00%\)' "$T/out"
# an imported speedscope profile: its unit
printf '{"$schema": "https://www.speedscope.app/file-format-schema.json", "shared": {"frames": [{"name": "a"}]}, "profiles": [{"type": "sampled", "unit": "milliseconds", "samples": [[0]], "weights": [2.5]}]}' >"$T/s.json"
gf svg "$T/s.json"; expect_grep speedscope-unit '<title>a \(2.5 ms, 100.00%\)' "$T/out"
expect_grep speedscope-title '>Flame Graph</text>' "$T/out"

# frame kinds from fold: every frame of a known kind gets its suffix; the
# SVG colours by it and shows the names without it
cat >"$T/k.folded" <<'EOF'
# gpuflame: weight=wall; unit=us; steps=1; kinds=yes;
## step ##_[an];train (a.py:3)_[py];nn.Module: Linear_0_[mo];aten::mm_[op];hipLaunchKernel_[la] 5
## step ##_[an];train (a.py:3)_[py];aten::item_[op];hipMemcpyWithStream_[sy] 7
## step ##_[an];train (a.py:3)_[py];aten::mm_[op];ck_tile::kernel_[ke] 4
## step ##_[an];train (a.py:3)_[py];aten::mm_[op];Cijk_gemm_[ke] 4
EOF
gf svg "$T/k.folded"; expect_rc kinds-rc 0
expect_nogrep kinds-not-shown '_\[(an|py|mo|op|la|sy|ke)\]' "$T/out"
python3 tests/gen/check_kinds_svg.py "$T/k.folded" "$T/out" >"$T/chk" 2>&1
expect_grep kinds-colours '^ok [0-9]+ frames$' "$T/chk"
# without kinds=yes the suffixes are names (flamegraph.pl shows them)
sed 's/ kinds=yes;//' "$T/k.folded" >"$T/k2.folded"
gf svg "$T/k2.folded"; expect_grep no-kinds-shown '<title>aten::mm_\[op\] ' "$T/out"

need_shared svg-header-corpus || exit 0
R=$GF_SHARED/corpus/traces/hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz
[ -f "$R" ] || { skip svg-header-rocm "no $R"; exit 0; }
# the issue's example: hipMemcpyWithStream is a sync (red), ck_tile kernels kernels
"$GF" fold -q -w wall -s annotation,python,op,runtime --kinds "$R" >"$T/r.folded"
expect_grep rocm-sync-kind 'hipMemcpyWithStream_\[sy\]' "$T/r.folded"
expect_grep rocm-launch-kind 'hipLaunchKernel_\[la\]' "$T/r.folded"
expect_grep rocm-header-kinds '^# gpuflame: .*kinds=yes;' "$T/r.folded"
"$GF" fold -q --kinds "$R" >"$T/g.folded"
expect_grep rocm-kernel-kind 'gemm_\[ke\] [0-9]' "$T/g.folded"
expect_nogrep rocm-no-marker-kind '\[unattributed\]_\[' "$T/g.folded"
# the weights are the fold's without --kinds
"$GF" fold -q "$R" | grep -v '^#' | awk '{s += $NF} END {print s}' >"$T/w1"
grep -v '^#' "$T/g.folded" | awk '{s += $NF} END {print s}' >"$T/w2"
expect_same rocm-kinds-same-total "$T/w2" "$T/w1"
for f in r g; do
  "$GF" svg "$T/$f.folded" >"$T/$f.svg"
  python3 tests/gen/check_kinds_svg.py "$T/$f.folded" "$T/$f.svg" >"$T/chk" 2>&1
  expect_grep "rocm-$f-kinds-colours" '^ok [0-9]+ frames$' "$T/chk"
done
