#!/usr/bin/env bash
# diff_numbers.sh — `gpuflame diff --top` prints exact decimals under a
# "stack" column and agrees with the 3-column `diff` text (issue 12, item 9),
# against tests/gen/diff_numbers.py (Fractions from the folded inputs): per
# step with step counts that do not divide (1/3), --scale total and none,
# --decimals 0 and 5, integer and decimal weights, generated decode traces
# folded by `gpuflame fold`, and the hta/trace_compare pair of the corpus.
. "$(dirname "$0")/lib.sh"
P=tests/gen/diff_numbers.py

# case NAME MODE DECIMALS BEFORE AFTER [diff options...]
case_() {
  local name=$1 mode=$2 dec=$3 b=$4 a=$5; shift 5
  "$GF" diff --no-normalise-names --top 40 --decimals "$dec" "$@" "$b" "$a" > "$T/top" 2> "$T/err" ||
    { fail "diff-numbers-$name" "--top: $(head -c 300 "$T/err")"; return; }
  "$GF" diff --no-normalise-names --decimals "$dec" "$@" "$b" "$a" > "$T/stacks" 2> "$T/err" ||
    { fail "diff-numbers-$name" "diff: $(head -c 300 "$T/err")"; return; }
  python3 "$P" "diff-numbers-$name" "$b" "$a" "$T/top" "$T/stacks" "$mode" "$dec"
}

# thirds: 2/3 is 0.667 (not 0.666), 1 stays 1, deltas and shares exact
printf '# gpuflame: weight=gpu; unit=us; steps=3;\np;a 1\np;b 1\nq;c 1\nq;d 1\n' > "$T/b1"
printf '# gpuflame: weight=gpu; unit=us; steps=2;\np;a 1\np;b 1\nq;c 5\nq;d 1\n' > "$T/a1"
case_ thirds steps 3 "$T/b1" "$T/a1"
case_ thirds-d0 steps 0 "$T/b1" "$T/a1"
case_ thirds-d5 steps 5 "$T/b1" "$T/a1"
# the issue's 9589.5: decimal weights per step, sums of lines that round down
printf '# gpuflame: weight=wall; unit=us; steps=3;\nm;x 9589.5\nm;y 9589.5\nm;z 9589.5\nm;w 1\n' > "$T/b2"
printf '# gpuflame: weight=wall; unit=us; steps=6;\nm;x 28768.5\nm;y 1\nm;z 2\nm;w 3\nn 7\n' > "$T/a2"
case_ halves steps 3 "$T/b2" "$T/a2"
case_ halves-d1 steps 1 "$T/b2" "$T/a2"
case_ total total 3 "$T/b2" "$T/a2" --scale total
case_ total-d0 total 0 "$T/b1" "$T/a1" --scale total
case_ none none 3 "$T/b2" "$T/a2" --scale none
# the old header of the --top tables is gone
"$GF" diff --top 3 "$T/b1" "$T/a1" > "$T/top" 2>/dev/null
expect_nogrep "diff-numbers-no-frame-column" "class +frame$" "$T/top"
expect_grep "diff-numbers-stack-column" "class +stack$" "$T/top"
expect_grep "diff-numbers-thirds-exact" "^ +0.667 +3 +\+2.333 +\+350.0% +grew +q$" "$T/top"

# generated decode loops, folded by gpuflame (wall and gpu weights)
G=tests/gen/gen_decode.py
if python3 "$G" --variant sync --steps 3 -o "$T/s.json" >/dev/null 2>&1 &&
   python3 "$G" --variant fixed --steps 4 -o "$T/f.json" >/dev/null 2>&1; then
  for w in wall gpu idle; do
    "$GF" fold --weight $w "$T/s.json" > "$T/s.$w" 2>/dev/null
    "$GF" fold --weight $w "$T/f.json" > "$T/f.$w" 2>/dev/null
    case_ "gen-$w" steps 3 "$T/s.$w" "$T/f.$w"
  done
  case_ gen-wall-total total 3 "$T/s.wall" "$T/f.wall" --scale total
else
  fail "diff-numbers-gen" "gen_decode.py failed"
fi

if need_shared "diff-numbers-corpus"; then
  C=$GF_SHARED/corpus/traces/hta/trace_compare
  "$GF" fold "$C/base/base.json.gz" > "$T/base.f" 2>/dev/null
  "$GF" fold "$C/test/test.json.gz" > "$T/test.f" 2>/dev/null
  if grep -q 'steps=' "$T/base.f" && grep -q 'steps=' "$T/test.f"; then
    case_ corpus-compare steps 3 "$T/base.f" "$T/test.f"
  else
    case_ corpus-compare none 3 "$T/base.f" "$T/test.f"
  fi
  case_ corpus-compare-total total 3 "$T/base.f" "$T/test.f" --scale total
fi
exit 0
