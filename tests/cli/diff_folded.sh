#!/usr/bin/env bash
# diff_folded.sh — gpuflame diff on folded files: inferno's diff-folded
# fixtures (compared as sorted sets: our order is by stack bytes), name
# normalisation, normalisation modes, like-with-like refusal, --force,
# --top, usage errors and bad input.
. "$(dirname "$0")/lib.sh"

body() { grep -v '^#' "$1" | LC_ALL=C sort; }

# --- usage ---
gf diff --help; expect_rc "diff-help" 0
expect_grep "diff-help-text" "usage: gpuflame diff" "$T/out"
gf diff only-one.folded; expect_rc "diff-one-arg" 2
gf diff --scale bogus a b; expect_rc "diff-bad-scale" 2
gf diff --steps 5 a b; expect_rc "diff-bad-steps" 2
gf diff /nonexistent/a /nonexistent/b; expect_rc "diff-missing-file" 1
expect_grep "diff-missing-msg" "'/nonexistent/a': cannot open" "$T/err"

# --- inferno fixtures ---
if need_shared "diff-inferno"; then
  D=$GF_SHARED/corpus/flamegraph/jonhoo-inferno/tests/data/diff-folded
  # default: names normalised (0x... like difffolded -s) -> strip_hex.txt
  gf diff "$D/before.txt" "$D/after.txt"; expect_rc "diff-inferno-default-rc" 0
  body "$T/out" > "$T/got"; LC_ALL=C sort "$D/results/strip_hex.txt" > "$T/want"
  expect_same "diff-inferno-strip-hex" "$T/got" "$T/want"
  # as they are -> default.txt
  gf diff --no-normalise-names "$D/before.txt" "$D/after.txt"
  body "$T/out" > "$T/got"; LC_ALL=C sort "$D/results/default.txt" > "$T/want"
  expect_same "diff-inferno-no-normalise" "$T/got" "$T/want"
  # difffolded -n: before scaled to after's total, truncated
  gf diff --no-normalise-names --scale total --decimals 0 --round floor "$D/before.txt" "$D/after.txt"
  body "$T/out" > "$T/got"; LC_ALL=C sort "$D/results/normalize.txt" > "$T/want"
  expect_same "diff-inferno-normalize" "$T/got" "$T/want"
  expect_grep "diff-inferno-normalize-header" "^# gpuflame: normalised=total;" "$T/out"
  # exact --scale total keeps the total: sum(before) == sum(after) == 80
  gf diff --scale total "$D/before.txt" "$D/after.txt"
  s=$(grep -v '^#' "$T/out" | awk '{b+=$(NF-1); a+=$NF} END {printf "%.6f %.6f", b, a}')
  expect_eq "diff-scale-total-conserved" "$s" "80.000000 80.000000"
  # fractional counts: kept exactly (inferno truncates them: compare truncated)
  gf diff --no-normalise-names "$D/before_fractionals.txt" "$D/after.txt"; expect_rc "diff-frac-rc" 0
  expect_grep "diff-frac-exact" "^dd;\[unknown\];read;system_call_\[k\];__fdget_pos_\[k\] 11\.98 15$" "$T/out"
  expect_grep "diff-frac-rounded-warn" "rounded" "$T/err"
  body "$T/out" | awk '{b=$(NF-1); sub(/\..*/, "", b); $(NF-1)=b; print}' > "$T/got"
  LC_ALL=C sort "$D/results/fractionals.txt" > "$T/want"
  expect_same "diff-frac-truncated-equals-inferno" "$T/got" "$T/want"
  # a bad line is skipped with a warning naming file and line
  gf diff "$D/bad_before.txt" "$D/after.txt"; expect_rc "diff-bad-line-rc" 0
  expect_grep "diff-bad-line-warn" "ignored 1 invalid line \(first at '[^']*bad_before.txt': line 3" "$T/err"
  gf diff --strict "$D/bad_before.txt" "$D/after.txt"; expect_rc "diff-bad-line-strict" 1
  expect_grep "diff-bad-line-strict-msg" "bad_before.txt': line 3: expected" "$T/err"
  # the traces/ copy is the same fixture
  gf diff "$GF_SHARED/corpus/traces/inferno/diff-folded/before.txt" "$GF_SHARED/corpus/traces/inferno/diff-folded/after.txt"
  body "$T/out" > "$T/got"; LC_ALL=C sort "$D/results/strip_hex.txt" > "$T/want"
  expect_same "diff-traces-copy" "$T/got" "$T/want"
fi

# --- per-step normalisation, exact ---
cat > "$T/b.folded" <<'X'
# gpuflame: weight=wall; unit=us; steps=5; rank=0; world_size=8; label.batch=4;
main;step;sync 50
main;step;work 100.5
main;old 3
X
cat > "$T/a.folded" <<'X'
# gpuflame: weight=wall; unit=us; steps=3; rank=0; world_size=8; label.batch=4;
main;step;work 60
main;new 1
X
gf diff "$T/b.folded" "$T/a.folded"; expect_rc "diff-steps-rc" 0
expect_grep "diff-steps-header" "^# gpuflame: weight=wall; unit=us; steps=1; .*steps.before=5; steps.after=3; normalised=per-step;" "$T/out"
grep -v '^#' "$T/out" > "$T/got"
printf 'main;new 0 0.3333\nmain;old 0.6 0\nmain;step;sync 10 0\nmain;step;work 20.1 20\n' > "$T/want"
expect_same "diff-steps-values" "$T/got" "$T/want"
gf diff --scale none "$T/b.folded" "$T/a.folded"
expect_grep "diff-scale-none" "^main;step;work 100.5 60$" "$T/out"
gf diff --negate "$T/b.folded" "$T/a.folded"
expect_grep "diff-negate-swaps" "^main;step;sync 0 10$" "$T/out"
# plain files: --steps N,M
grep -v '^#' "$T/b.folded" > "$T/bp"; grep -v '^#' "$T/a.folded" > "$T/ap"
gf diff --steps 5,3 "$T/bp" "$T/ap"
grep -v '^#' "$T/out" > "$T/got"
expect_same "diff-steps-option" "$T/got" "$T/want"
gf diff --scale steps "$T/bp" "$T/ap"; expect_rc "diff-scale-steps-needs-counts" 2
expect_grep "diff-scale-steps-msg" "no steps= header; give --steps N,M" "$T/err"

# --- like with like ---
sed 's/weight=wall/weight=cpu/; s/label.batch=4/label.batch=8/' "$T/a.folded" > "$T/a2.folded"
gf diff "$T/b.folded" "$T/a2.folded"; expect_rc "diff-unlike-refused" 2
expect_grep "diff-unlike-msg" "refusing to compare unlike profiles: weight: 'wall' vs 'cpu'; label.batch: '4' vs '8'" "$T/err"
expect_eq "diff-unlike-no-output" "$(wc -c < "$T/out")" "0"
gf diff --force "$T/b.folded" "$T/a2.folded"; expect_rc "diff-force-rc" 0
expect_grep "diff-force-prints" "comparing unlike profiles \(--force\): weight: 'wall' vs 'cpu'" "$T/err"
expect_grep "diff-force-output" "^main;step;work" "$T/out"
sed 's/rank=0/rank=1/' "$T/a.folded" > "$T/a3.folded"
gf diff "$T/b.folded" "$T/a3.folded"; expect_rc "diff-rank-refused" 2
expect_grep "diff-rank-msg" "rank: '0' vs '1'" "$T/err"
sed 's/; label.batch=4;/;/' "$T/a.folded" > "$T/a4.folded"
gf diff "$T/b.folded" "$T/a4.folded"; expect_rc "diff-label-absent-refused" 2
expect_grep "diff-label-absent-msg" "label.batch: '4' vs \(absent\)" "$T/err"

# --- name normalisation ---
printf 'thread (0x7F01);ProfilerStep#3;pid=12 worker 5\n' > "$T/n1"
printf 'thread (0x7F02);ProfilerStep#9;pid=13 worker 7\n' > "$T/n2"
gf diff "$T/n1" "$T/n2"
expect_eq "diff-names-merged" "$(grep -v '^#' "$T/out")" "thread (0x...);ProfilerStep#...;pid=... worker 5 7"
gf diff --no-normalise-names "$T/n1" "$T/n2"
expect_eq "diff-names-kept" "$(grep -v '^#' "$T/out" | grep -c .)" "2"

# --- --top ---
gf diff --top 2 "$T/b.folded" "$T/a.folded"; expect_rc "diff-top-rc" 0
expect_grep "diff-top-total-head" "^Biggest changes by total weight per step \(us\):" "$T/out"
# scale 1 (100.5) + 3 decimals: 61/3 = 20.3333
expect_grep "diff-top-main" "^ +30.7 +20.3333 +-10.3667 +-33.8%  shrank main$" "$T/out"
expect_grep "diff-top-self" "^ +10 +0 +-10 +-100.0%  shrank main;step;sync$" "$T/out"
expect_grep "diff-top-only" "^2 frames only in BEFORE, 1 only in AFTER$" "$T/out"

# --- output file: all or nothing ---
gf diff -o "$T/o.folded" "$T/b.folded" "$T/a.folded"; expect_rc "diff-o-rc" 0
expect_grep "diff-o-written" "^main;step;sync 10 0$" "$T/o.folded"
gf diff -o "$T/o2.folded" "$T/b.folded" "$T/a2.folded"; expect_rc "diff-o-refused" 2
if [ -e "$T/o2.folded" ]; then fail "diff-o-no-partial" "output exists"; else pass "diff-o-no-partial"; fi
gf diff -o /nonexistent/dir/x.folded "$T/b.folded" "$T/a.folded"; expect_rc "diff-o-unwritable" 3
# a differential file as input is refused
printf 'a 1 2\n' > "$T/d2"
gf diff "$T/d2" "$T/ap"; expect_rc "diff-differential-input" 2
expect_grep "diff-differential-msg" "already differential" "$T/err"
printf '# nothing\n' > "$T/empty"
gf diff "$T/empty" "$T/a.folded"; expect_rc "diff-empty-input" 1
exit 0
