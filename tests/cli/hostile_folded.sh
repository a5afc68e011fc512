#!/usr/bin/env bash
# hostile_folded.sh — folded text and compressed sources under hostile input
# (issue 16, slice 3): whatever merge/norm/diff write, every command reads
# back with the same weights (the stack ';', empty frames, blanks, numbers,
# '#'); read errors are errors (a directory: exit 1); one line longer than
# GPUFLAME_MAX_TOKEN and an input larger than GPUFLAME_MAX_INPUT are exit 4;
# escape sequences in names never reach a terminal raw (a pty via script(1));
# gzip/zstd/pzstd outputs of the real tools: concatenated members, zero
# padding, skippable frames, trailing garbage.
. "$(dirname "$0")/lib.sh"

# --- round trip: merge writes ' 3' for ';' and then rejects its own output ---
printf '; 3\n' > "$T/semi"
gf merge "$T/semi"; expect_rc "rt-merge-semi-rc" 0
cp "$T/out" "$T/semi.m"
expect_eq "rt-merge-semi-out" "$(cat "$T/semi.m")" "; 3"
gf merge --strict "$T/semi.m"; expect_rc "rt-merge-reads-merge" 0
expect_same "rt-merge-idempotent" "$T/out" "$T/semi.m"
gf norm --strict --steps 1 "$T/semi.m"; expect_rc "rt-norm-reads-merge" 0
expect_grep "rt-norm-weight" "^; 3$" "$T/out"
gf top "$T/semi.m"; expect_rc "rt-top-reads-merge" 0
gf svg "$T/semi.m"; expect_rc "rt-svg-reads-merge" 0
gf diff --strict "$T/semi.m" "$T/semi.m"; expect_rc "rt-diff-reads-merge" 0
expect_grep "rt-diff-weight" "^; 3 3$" "$T/out"

# odd stacks: empty frames, only separators, blanks before ';', a number at
# the end of the last frame, '#', CR, invalid UTF-8, decimals, zero, huge
printf 'a;; 2\n;; 1\n#; 1\nlead 1\nx 12; 3\nb ; 4\nc\t; 4\na\rb 5\n\377\376;\303 6\nd 0.5\nz 0\n' > "$T/odd"
printf 'big 9223372036854775000\n' > "$T/big"
gf merge "$T/odd"; expect_rc "rt-odd-merge-rc" 0
cp "$T/out" "$T/odd.m"
gf merge --strict "$T/odd.m"; expect_rc "rt-odd-merge-again" 0
expect_same "rt-odd-merge-idempotent" "$T/out" "$T/odd.m"
expect_grep "rt-odd-empty-leaf" "^a;; 2$" "$T/odd.m"
expect_grep "rt-odd-hash" "^#; 1$" "$T/odd.m"
expect_grep "rt-odd-number-leaf" "^x 12 3$" "$T/odd.m"
# the first stack line decides one or two counts: there a number at the end
# of the last frame gets a ';' (else "x 12 3" would read as two counts)
printf 'x 12; 3\ny 1\n' > "$T/numfirst"
gf merge --strict "$T/numfirst"; expect_rc "rt-number-first-line" 0
expect_eq "rt-number-first-line-out" "$(cat "$T/out")" "$(printf 'x 12; 3\ny 1')"
cp "$T/out" "$T/numfirst.m"
gf norm --strict --steps 1 "$T/numfirst.m"; expect_rc "rt-number-first-line-norm" 0
expect_grep "rt-number-first-line-norm-out" "^x 12; 3$" "$T/out"
gf top "$T/numfirst.m"; expect_rc "rt-number-first-line-top" 0
expect_nogrep "rt-number-first-line-not-diff" "differential" "$T/err"
gf norm --strict --steps 1 "$T/odd.m"; expect_rc "rt-odd-norm" 0
cp "$T/out" "$T/odd.n"
gf merge --strict "$T/odd.n"; expect_rc "rt-odd-merge-reads-norm" 0
expect_eq "rt-odd-norm-same-stacks" "$(grep -av '^#' "$T/out")" "$(grep -av '^#' "$T/odd.m")"
gf diff --strict "$T/odd.m" "$T/odd.n"; expect_rc "rt-odd-diff" 0
cp "$T/out" "$T/odd.d"
gf diff --strict "$T/odd.d" "$T/odd.d"; expect_rc "rt-odd-diff-of-diff-refused-as-differential" 2
gf top "$T/odd.d"; expect_rc "rt-odd-top-reads-diff" 0
# the total of the output must fit what a reader can hold
gf merge "$T/big" "$T/big"; expect_rc "rt-merge-sum-overflow" 1
printf 'big 9223372036854775000\nbig2 9223372036854775000\n' > "$T/big2"
gf merge "$T/big2"; expect_rc "rt-merge-total-overflow" 1
expect_grep "rt-merge-total-overflow-msg" "no command could read the output" "$T/err"
gf merge "$T/big"; expect_rc "rt-merge-huge-ok" 0
gf norm --strict --steps 1 "$T/out"; expect_rc "rt-norm-reads-huge" 0
# columns decided by the first stack line, as the folded reader does
printf 'a 1\nx 12 3\n' > "$T/cols"
gf merge "$T/cols"; expect_rc "rt-merge-columns-first-line" 0
expect_grep "rt-merge-columns-stack" "^x 12 3$" "$T/out"

# --- read errors are errors, never end of file ---
mkdir "$T/dir"
for c in merge norm top; do
  if [ "$c" = norm ]; then gf norm --steps 1 "$T/dir"; else gf $c "$T/dir"; fi
  expect_rc "readerr-$c-dir" 1
  expect_grep "readerr-$c-dir-msg" "dir': is a directory" "$T/err"  # refused at open by the input layer
done
printf 'a 1\n' > "$T/a1"
# a folder beside a file: folders are ranks (issue 25), so a usage error
gf diff "$T/a1" "$T/dir"; expect_rc "readerr-diff-dir" 2
expect_grep "readerr-diff-dir-msg" "dir' is a folder and .* is not" "$T/err"

# --- bounded lines and inputs ---
{ printf 'a 1\n'; head -c 3000 /dev/zero | tr '\0' x; printf ' 1\n'; } > "$T/long"
for c in merge norm top; do
  if [ "$c" = norm ]; then GPUFLAME_MAX_TOKEN=1K gf norm --steps 1 "$T/long"; else GPUFLAME_MAX_TOKEN=1K gf $c "$T/long"; fi
  expect_rc "limit-token-$c" 4
  expect_grep "limit-token-$c-msg" "long': line 2 \(byte 1028\): a line longer than 1024 bytes \(GPUFLAME_MAX_TOKEN\)" "$T/err"
done
GPUFLAME_MAX_TOKEN=4K gf merge "$T/long"; expect_rc "limit-token-raised" 0
GPUFLAME_MAX_INPUT=1K gf norm --steps 1 "$T/long"; expect_rc "limit-input-norm" 4
expect_grep "limit-input-norm-msg" "byte 1024: an input larger than 1024 bytes \(GPUFLAME_MAX_INPUT\)" "$T/err"
GPUFLAME_MAX_INPUT=1K gf_in "$T/long" merge; expect_rc "limit-input-merge-stdin" 4
expect_grep "limit-input-merge-stdin-msg" "'<stdin>': byte 1024: an input larger than 1024 bytes" "$T/err"
GPUFLAME_MAX_TOKEN=1K gf diff "$T/a1" "$T/long"; expect_rc "limit-token-diff" 4

# --- terminals: escape sequences in names never reach one raw ---
printf 'a\033[31mRED\033]0;pwned\007;b\302\233\377 3\n' > "$T/esc"
cp "$T/esc" "$T/esc2"
if command -v script >/dev/null 2>&1; then
  for c in "merge $T/esc" "norm --steps 1 $T/esc" "diff $T/esc $T/esc2"; do
    name=$(echo "$c" | cut -d' ' -f1)
    script -qc "$GF $c" /dev/null > "$T/tty" 2>&1 < /dev/null
    if LC_ALL=C grep -q $'\033\|\007\|\302\233\|\377' "$T/tty"; then
      fail "tty-$name-escaped" "raw control or invalid bytes reached the terminal: $(od -c "$T/tty" | head -3 | tr '\n' '|')"
    else pass "tty-$name-escaped"; fi
    expect_grep "tty-$name-visible" 'a\\x1B\[31mRED' "$T/tty"
  done
else
  skip "tty-escaped" "script(1) not installed (util-linux)"
fi
# a file or a pipe keeps the bytes
gf merge "$T/esc"; expect_rc "tty-pipe-rc" 0
expect_same "tty-pipe-keeps-bytes" "$T/out" "$T/esc"

# --- compressed sources, real tools ---
J='{"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":2,"pid":1,"tid":1,"cat":"cpu_op"}]}'
printf '%s' "$J" > "$T/t.json"
if command -v gzip >/dev/null 2>&1; then
  gzip -c "$T/t.json" > "$T/t.gz"
  gf info "$T/t.gz"; expect_rc "gzip-ok" 0
  { cat "$T/t.gz"; head -c 4096 /dev/zero; } > "$T/pad.gz"
  gf info "$T/pad.gz"; expect_rc "gzip-zero-padding-ignored" 0
  sz=$(stat -c %s "$T/t.gz")
  { cat "$T/t.gz"; printf 'JUNK'; } > "$T/junk.gz"
  gf info "$T/junk.gz"; expect_rc "gzip-trailing-garbage" 1
  expect_grep "gzip-trailing-garbage-msg" "junk.gz': byte $sz: trailing data after the last gzip member" "$T/err"
  { cat "$T/t.gz"; printf '\0\0x'; } > "$T/zjunk.gz"
  gf info "$T/zjunk.gz"; expect_rc "gzip-zeros-then-garbage" 1
  expect_grep "gzip-zeros-then-garbage-msg" "byte $((sz + 2)): trailing data" "$T/err"
  # concatenated members are one stream (zcat): the trace split in two
  printf '%s' "${J:0:30}" | gzip -c > "$T/two.gz"; printf '%s' "${J:30}" | gzip -c >> "$T/two.gz"
  gf info "$T/two.gz"; expect_rc "gzip-members-read-whole" 0
  GPUFLAME_MAX_INPUT=50 gf info "$T/t.gz"; expect_rc "gzip-input-limit" 4
  expect_grep "gzip-input-limit-msg" "t.gz': byte 50 \(compressed byte [0-9]+\): gzip data decompressing to more than 50 bytes \(GPUFLAME_MAX_INPUT\)" "$T/err"
else
  skip "gzip-real" "gzip not installed"
fi
if command -v zstd >/dev/null 2>&1; then
  zstd -q -c "$T/t.json" > "$T/t.zst"
  gf info "$T/t.zst"; expect_rc "zstd-ok" 0
  sz=$(stat -c %s "$T/t.zst")
  { cat "$T/t.zst"; printf 'JUNK'; } > "$T/junk.zst"
  gf info "$T/junk.zst"; expect_rc "zstd-trailing-garbage" 1
  expect_grep "zstd-trailing-garbage-msg" "junk.zst': byte $sz: trailing data after the last zstd frame" "$T/err"
  { cat "$T/t.zst"; head -c 8 /dev/zero; } > "$T/pad.zst"
  gf info "$T/pad.zst"; expect_rc "zstd-zero-padding-refused-as-zstd-d" 1
  printf '%s' "${J:0:30}" | zstd -q -c > "$T/two.zst"; printf '%s' "${J:30}" | zstd -q -c >> "$T/two.zst"
  gf info "$T/two.zst"; expect_rc "zstd-frames-read-whole" 0
  GPUFLAME_MAX_INPUT=50 gf info "$T/t.zst"; expect_rc "zstd-input-limit" 4
else
  skip "zstd-real" "zstd not installed"
fi
if command -v pzstd >/dev/null 2>&1; then
  pzstd -q -c "$T/t.json" > "$T/t.pzst" 2>/dev/null
  gf info "$T/t.pzst"; expect_rc "pzstd-skippable-frame" 0
  expect_grep "pzstd-events" "1" "$T/out"
  gf_in "$T/t.pzst" info -; expect_rc "pzstd-stdin" 0
else
  skip "pzstd-real" "pzstd not installed (apt-get install zstd)"
fi
GPUFLAME_MAX_INPUT=50 gf info "$T/t.json"; expect_rc "plain-input-limit" 4
expect_grep "plain-input-limit-msg" "t.json': byte 50: an input larger than 50 bytes \(GPUFLAME_MAX_INPUT\)" "$T/err"
GPUFLAME_MAX_INPUT=50 gf_in "$T/t.json" info -; expect_rc "stdin-input-limit" 4

# --- header values in messages are escaped too (stderr is a terminal) ---
printf '# gpuflame: normalised=x%%1B[31m;\na 1\n' > "$T/nn"
gf norm "$T/nn"; expect_rc "msg-norm-normalised-rc" 2
if LC_ALL=C grep -q $'\033' "$T/err"; then fail "msg-norm-normalised-escaped" "raw ESC in: $(od -c "$T/err" | head -3 | tr '\n' '|')"; else pass "msg-norm-normalised-escaped"; fi
printf '# gpuflame: steps=%%1B;\na 1\n' > "$T/ns"
gf norm "$T/ns"; expect_rc "msg-norm-steps-rc" 1
if LC_ALL=C grep -q $'\033' "$T/err"; then fail "msg-norm-steps-escaped" "raw ESC"; else pass "msg-norm-steps-escaped"; fi
printf '# gpuflame: rank=0;\na 1\n' > "$T/r0"
printf '# gpuflame: rank=%%1B[2J;\na 1\n' > "$T/r1"
gf merge "$T/r0" "$T/r1"; expect_rc "msg-merge-rank-rc" 2
if LC_ALL=C grep -q $'\033' "$T/err"; then fail "msg-merge-rank-escaped" "raw ESC"; else pass "msg-merge-rank-escaped"; fi
expect_grep "msg-merge-rank-visible" "rank '\\\\x1B\[2J' differs from '0'" "$T/err"

# --- out of memory while reading a line is exit 4, never end of file ---
# (the issue: getline's ENOMEM was taken as EOF, exit 0 with the rest dropped;
# ASan cannot run under ulimit -v, so this uses the release binary)
GFR=${GF_REL:-}
if [ -n "$GFR" ] && [ -x "$GFR" ]; then
  { printf 'a 1\n'; head -c 45000000 /dev/zero | tr '\0' x; printf ' 1\nb 2\n'; } > "$T/huge"
  for c in merge top norm; do
    if [ "$c" = norm ]; then args="norm --steps 1"; else args=$c; fi
    (ulimit -v 40000; "$GFR" $args "$T/huge" > "$T/out" 2> "$T/err"); rc=$?
    expect_rc "oom-$c-not-eof" 4
  done
  rm -f "$T/huge"
else
  skip "oom-not-eof" "GF_REL (release binary) not set"
fi
