#!/usr/bin/env bash
# norm_basic.sh — gpuflame norm: per-step normalisation, exact, with the
# total conserved (largest remainder), header updated, errors.
. "$(dirname "$0")/lib.sh"

gf norm --help; expect_rc "norm-help" 0
expect_grep "norm-help-text" "usage: gpuflame norm" "$T/out"
printf 'a;b 12\na 3\nc 1\n' > "$T/p"
gf norm --steps 5 "$T/p"; expect_rc "norm-rc" 0
printf '# gpuflame: steps=1; steps.raw=5; normalised=per-step;\na 0.6\na;b 2.4\nc 0.2\n' > "$T/want"
expect_same "norm-exact" "$T/out" "$T/want"
# thirds: the total 1 stays exactly 1.000 (one line gets the extra unit)
printf 'a 1\nb 1\nc 1\n' > "$T/t"
gf norm --steps 3 "$T/t"
s=$(grep -v '^#' "$T/out" | awk '{print $2}' | paste -sd' ')
expect_eq "norm-thirds" "$s" "0.334 0.333 0.333"
gf norm --steps 3 --round even "$T/t"
s=$(grep -v '^#' "$T/out" | awk '{print $2}' | paste -sd' ')
expect_eq "norm-thirds-even" "$s" "0.333 0.333 0.333"
gf norm --steps 3 --decimals 0 --round floor "$T/t"
expect_eq "norm-thirds-floor" "$(grep -vc '^#' "$T/out")" "0"
# steps from the header; stdin
printf '# gpuflame: weight=gpu; unit=us; steps=4; rank=0;\nx 10\n' > "$T/h"
gf_in "$T/h" norm; expect_rc "norm-header-rc" 0
expect_eq "norm-header" "$(cat "$T/out")" "$(printf '# gpuflame: weight=gpu; unit=us; steps=1; rank=0; steps.raw=4; normalised=per-step;\nx 2.5')"
gf norm -o "$T/n1" "$T/h"; expect_rc "norm-o" 0
gf norm "$T/n1"; expect_rc "norm-twice-refused" 2
expect_grep "norm-twice-msg" "already normalised" "$T/err"
gf norm "$T/p"; expect_rc "norm-no-steps" 2
expect_grep "norm-no-steps-msg" "no steps= header; give --steps N" "$T/err"
gf norm --steps 0 "$T/p"; expect_rc "norm-steps-zero" 2
gf norm --steps 2 /nonexistent; expect_rc "norm-missing" 1
printf 'a 1\nbad\n' > "$T/bad"
gf norm --steps 2 --strict "$T/bad"; expect_rc "norm-strict" 1
expect_grep "norm-strict-msg" "bad': line 2: expected" "$T/err"
# norm then diff == diff with --steps
if need_shared "norm-inferno"; then
  D=$GF_SHARED/corpus/flamegraph/jonhoo-inferno/tests/data/diff-folded
  "$GF" norm --steps 4 "$D/before.txt" > "$T/bn" 2>/dev/null
  "$GF" norm --steps 7 "$D/after.txt" > "$T/an" 2>/dev/null
  gf diff "$T/bn" "$T/an"; grep -v '^#' "$T/out" > "$T/x"
  gf diff --steps 4,7 "$D/before.txt" "$D/after.txt"; grep -v '^#' "$T/out" > "$T/y"
  expect_same "norm-then-diff" "$T/x" "$T/y"
fi
exit 0
