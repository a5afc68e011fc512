#!/usr/bin/env bash
# diff_traces.sh — gpuflame diff on generated traces (tests/gen/gen_decode.py,
# variants sync = .item() every token, fixed = async copy + worker thread),
# folded on the fly: the sync frame and the host work after it disappear from
# the wall and idle diffs, the GPU diff is nearly flat, and every per-step
# number equals the generator's known answer exactly (tests/gen/expect_diff.py).
. "$(dirname "$0")/lib.sh"
G=tests/gen/gen_decode.py
if [ ! -f "$G" ]; then skip "diff-traces" "tests/gen/gen_decode.py absent"; exit 0; fi
python3 "$G" --variant sync --steps 5 -o "$T/sync.json" --expect "$T/sync.exp.json" || { fail "diff-traces-gen" "sync"; exit 0; }
python3 "$G" --variant fixed --steps 5 -o "$T/fixed.json" --expect "$T/fixed.exp.json" || { fail "diff-traces-gen" "fixed"; exit 0; }

for w in wall idle gpu cpu; do
  gf diff --weight $w "$T/sync.json" "$T/fixed.json"; expect_rc "diff-traces-$w-rc" 0
  cp "$T/out" "$T/$w.diff"
  expect_grep "diff-traces-$w-header" "^# gpuflame: weight=$w; unit=ns; steps=1; .*steps.before=5; steps.after=5; normalised=per-step;" "$T/$w.diff"
  grep -v '^#' "$T/$w.diff" > "$T/got"
  python3 tests/gen/expect_diff.py "$T/sync.exp.json" "$T/fixed.exp.json" "--weight $w" > "$T/want"
  expect_same "diff-traces-$w-exact-per-step" "$T/got" "$T/want"
done
# the sync and the host work behind it are gone in AFTER (wall stacks start
# with the engine thread's frame, docs/fold.md; idle stacks have none)
# (idle stacks are rooted in their cause and class since issue 24: [host];[python];...)
TH='(thread \((4242|\.\.\.)\): python3;|\[[a-z]+\];\[[a-z]+\];)?'
for w in wall idle; do
  expect_grep "diff-traces-$w-sync-gone" "check_eos;.*;cudaStreamSynchronize [0-9.]+ 0$" "$T/$w.diff"
  expect_grep "diff-traces-$w-detok-gone" "^${TH}engine.py\(240\): step;engine.py\(260\): process_outputs;detokenizer.py\(77\): decode_incremental [0-9.]+ 0$" "$T/$w.diff"
  n=$(grep -v '^#' "$T/$w.diff" | grep -E 'check_eos|engine.py\(260\)' | awk '$NF != 0' | grep -cE "^${TH}engine")
  expect_eq "diff-traces-$w-nothing-left-on-engine" "$n" "0"
done
# the GPU diff is nearly flat: root totals within 3 %, no frame moves by > 10 % of the total
python3 - "$T/gpu.diff" > "$T/flat" <<'PY'
import sys
from fractions import Fraction
b = a = 0
rows = []
for line in open(sys.argv[1]):
    if line.startswith("#"):
        continue
    s, x, y = line.rsplit(" ", 2)
    b += Fraction(x); a += Fraction(y); rows.append((Fraction(x), Fraction(y)))
big = max(abs(y - x) for x, y in rows)
print("flat" if abs(a - b) <= b * Fraction(3, 100) and big <= b / 10 else "not flat: %s -> %s, max %s" % (float(b), float(a), float(big)))
PY
expect_eq "diff-traces-gpu-nearly-flat" "$(cat "$T/flat")" "flat"
# --top on the wall diff names the sync among the biggest self changes
gf diff --weight wall --top 3 "$T/sync.json" "$T/fixed.json"
# (its class is the step-to-step test's, docs/diff.md: 5 steps a side cannot
# reach BH's threshold among 54 changed stacks, so every change is noise and
# the closing sentence says so)
expect_grep "diff-traces-top-noise-said" "^Step-to-step noise: Mann-Whitney U on the per-step values \(5 steps before, 5 after\)" "$T/out"
expect_grep "diff-traces-top-detok" "noise +${TH}engine.py\(240\): step;engine.py\(260\): process_outputs;detokenizer.py\(77\): decode_incremental$" "$T/out"
# SVG from traces
gf diff --weight wall -o "$T/w.svg" "$T/sync.json" "$T/fixed.json"; expect_rc "diff-traces-svg-rc" 0
expect_grep "diff-traces-svg-legend" "Widths: AFTER per step" "$T/w.svg"
# a folded file and a trace mix fine; fold options warn on the folded one
"$GF" fold --weight wall "$T/sync.json" > "$T/sync.wall" 2>/dev/null
gf diff --weight wall "$T/sync.wall" "$T/fixed.json"; expect_rc "diff-traces-mixed-rc" 0
expect_grep "diff-traces-mixed-warn" "is folded already" "$T/err"
grep -v '^#' "$T/out" > "$T/got"
python3 tests/gen/expect_diff.py "$T/sync.exp.json" "$T/fixed.exp.json" "--weight wall" > "$T/want"
expect_same "diff-traces-mixed-exact" "$T/got" "$T/want"
# unlike weights are refused
"$GF" fold --weight gpu "$T/fixed.json" > "$T/fixed.gpu" 2>/dev/null
gf diff "$T/sync.wall" "$T/fixed.gpu"; expect_rc "diff-traces-unlike" 2
expect_grep "diff-traces-unlike-msg" "weight: 'wall' vs 'gpu'" "$T/err"
# --steps A..B selects steps to fold (3 steps each)
gf diff --weight gpu --steps 2..4 "$T/sync.json" "$T/fixed.json"; expect_rc "diff-traces-select-rc" 0
expect_grep "diff-traces-select" "steps.before=([1-4]); steps.after=\1;" "$T/out"
exit 0
