#!/usr/bin/env bash
# merge_basic.sh — gpuflame merge: exact sums, header rules (steps summed,
# sources counted, ranks/weights/units refused unless allowed), streaming of
# sorted input, the in-memory fallback for unsorted files, stdin, bad input,
# and merge(A, B) == A + B on generated files.
. "$(dirname "$0")/lib.sh"

gf merge --help; expect_rc "merge-help" 0
expect_grep "merge-help-text" "usage: gpuflame merge" "$T/out"
gf merge --bogus; expect_rc "merge-bad-option" 2

cat > "$T/w1" <<'X'
# gpuflame: weight=gpu; unit=us; steps=5; rank=0; world_size=8; source=win1.json;
a;b 1.5
a;c 2
d 1
X
cat > "$T/w2" <<'X'
# gpuflame: weight=gpu; unit=us; steps=3; rank=0; world_size=8; source=win2.json;
a;b 0.25
a;d 7
d 1
X
gf merge "$T/w1" "$T/w2"; expect_rc "merge-rc" 0
printf '# gpuflame: weight=gpu; unit=us; steps=8; rank=0; world_size=8; source=win1.json,win2.json; sources=2;\na;b 1.75\na;c 2\na;d 7\nd 2\n' > "$T/want"
expect_same "merge-sum-and-header" "$T/out" "$T/want"
gf merge -o "$T/m.folded" "$T/w1" "$T/w2"; expect_rc "merge-o-rc" 0
expect_same "merge-o-file" "$T/m.folded" "$T/want"
# merging the result again with itself doubles it (output is sorted: streams)
gf merge "$T/m.folded" "$T/m.folded"; expect_rc "merge-again-rc" 0
expect_grep "merge-again-doubled" "^a;b 3.5$" "$T/out"
expect_grep "merge-again-steps" "steps=16;" "$T/out"
expect_nogrep "merge-again-no-fallback" "not sorted" "$T/err"
# stdin
gf_in "$T/w2" merge "$T/w1" -; expect_rc "merge-stdin-rc" 0
expect_same "merge-stdin" "$T/out" "$T/want"

# --- like with like ---
sed 's/rank=0/rank=1/' "$T/w2" > "$T/r1"
gf merge -o "$T/bad.folded" "$T/w1" "$T/r1"; expect_rc "merge-ranks-refused" 2
expect_grep "merge-ranks-msg" "r1': rank '1' differs from '0' in '.*w1'; refusing to merge unlike profiles \(use --allow-ranks" "$T/err"
if [ -e "$T/bad.folded" ]; then fail "merge-refused-no-output" "file exists"; else pass "merge-refused-no-output"; fi
gf merge --allow-ranks "$T/w1" "$T/r1"; expect_rc "merge-allow-ranks" 0
expect_grep "merge-allow-ranks-header" "rank=0,1;" "$T/out"
sed 's/weight=gpu/weight=cpu/' "$T/w2" > "$T/c1"
gf merge "$T/w1" "$T/c1"; expect_rc "merge-weights-refused" 2
expect_grep "merge-weights-msg" "weight 'cpu' differs from 'gpu'.*--allow-weights" "$T/err"
gf merge --allow-weights "$T/w1" "$T/c1"; expect_rc "merge-allow-weights" 0
sed 's/unit=us/unit=ms/' "$T/w2" > "$T/u1"
gf merge "$T/w1" "$T/u1"; expect_rc "merge-units-refused" 2
expect_grep "merge-units-msg" "--allow-units" "$T/err"
grep -v '^#' "$T/w2" > "$T/plain"
gf merge "$T/w1" "$T/plain"; expect_rc "merge-header-vs-plain-refused" 2

# --- unsorted input ---
printf 'z 1\na 2\n' > "$T/uns"
printf 'a 1\n' > "$T/s1"
gf merge "$T/uns" "$T/s1"; expect_rc "merge-unsorted-fallback-rc" 0
expect_eq "merge-unsorted-fallback-out" "$(cat "$T/out")" "$(printf 'a 3\nz 1')"
expect_grep "merge-unsorted-warn" "uns': line 2: stack sorts before the line above it.*merged in memory" "$T/err"
gf merge --sorted "$T/uns" "$T/s1"; expect_rc "merge-unsorted-strict" 1
expect_grep "merge-unsorted-advice" "LC_ALL=C sort" "$T/err"
# stdin from a regular file can be re-read (falls back); from a pipe it cannot
gf_in "$T/uns" merge "$T/s1" -; expect_rc "merge-unsorted-stdin-file" 0
cat "$T/uns" | "$GF" merge "$T/s1" - > "$T/out" 2> "$T/err"; rc=$?
expect_rc "merge-unsorted-stdin-pipe" 1
expect_grep "merge-unsorted-stdin-msg" "stdin cannot be re-read" "$T/err"

# tree order (gpuflame fold's output: "f1;g" before "f12") streams too
printf 'a 1\nf1 1\nf1;g 2\nf12 3\n' > "$T/tree1"
printf 'f1;g 5\nf12 1\nf12;h 1\n' > "$T/tree2"
gf merge "$T/tree1" "$T/tree2"; expect_rc "merge-tree-order-rc" 0
expect_eq "merge-tree-order-out" "$(cat "$T/out")" "$(printf 'a 1\nf1 1\nf1;g 7\nf12 4\nf12;h 1')"
expect_nogrep "merge-tree-order-streamed" "merged in memory" "$T/err"
gf merge --sorted "$T/tree1" "$T/tree2"; expect_rc "merge-tree-order-sorted-ok" 0

# --- bad input ---
printf 'a 1\nnot a count\nb 2\n' > "$T/badline"
gf merge "$T/badline" "$T/s1"; expect_rc "merge-bad-line-skipped" 0
expect_grep "merge-bad-line-warn" "ignored 1 invalid line \(first at '.*badline': line 2: expected" "$T/err"
gf merge --strict "$T/badline" "$T/s1"; expect_rc "merge-bad-line-strict" 1
expect_grep "merge-bad-line-strict-msg" "badline': line 2: expected" "$T/err"
printf 'a 1 2\n' > "$T/twocol"
gf merge "$T/twocol" "$T/s1"; expect_rc "merge-differential-refused" 1
expect_grep "merge-differential-msg" "twocol': line 1: a differential line" "$T/err"
gf merge /nonexistent/x "$T/s1"; expect_rc "merge-missing" 1
printf 'a 9999999999999999999\n' > "$T/big1"
printf 'a 1\n' > "$T/big2"
gf merge "$T/big1" "$T/big2"; expect_rc "merge-overflow" 1
expect_grep "merge-overflow-msg" "overflows" "$T/err"
gf merge -o /nonexistent/dir/o "$T/s1"; expect_rc "merge-unwritable" 3

# --- merge(A, B, C) == A + B + C, exactly, on generated files ---
python3 - "$T" <<'PY'
import random, sys
from fractions import Fraction
rng = random.Random(7)
t = sys.argv[1]
tot = {}
for k in range(3):
    lines = {}
    for i in range(300):
        s = "f%d;g%d;h%d" % (rng.randrange(20), rng.randrange(5), rng.randrange(3))
        w = Fraction(rng.randrange(1, 10**6), 1000)
        lines[s] = lines.get(s, 0) + w
        tot[s] = tot.get(s, 0) + w
    with open("%s/g%d" % (t, k), "w") as f:
        for s in sorted(lines):
            f.write("%s %s\n" % (s, format(float(lines[s]), ".3f")))
with open("%s/gsum" % t, "w") as f:
    for s in sorted(tot):
        v = tot[s]
        txt = format(float(v), ".3f").rstrip("0").rstrip(".")
        f.write("%s %s\n" % (s, txt))
PY
gf merge "$T/g0" "$T/g1" "$T/g2"; expect_rc "merge-property-rc" 0
expect_same "merge-property-exact-sum" "$T/out" "$T/gsum"
expect_nogrep "merge-property-streamed" "merged in memory" "$T/err"
exit 0
