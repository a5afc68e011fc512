#!/usr/bin/env bash
# hostile_messages.sh — messages stay one line and name the file whatever the
# input's name holds; svg's own reader and top keep the input limits; a second
# '-' is refused by every command that takes several folded files.
. "$(dirname "$0")/lib.sh"

printf 'a;b 1\n' >"$T/ok.folded"
# a file name with ESC and a newline: the message shows them escaped, on one line
bad="$T/e$(printf '\033')[31m
x.folded"
: >"$bad"
for cmd in svg top; do
  gf "$cmd" "$bad"
  expect_rc "msg-$cmd-exit" 1
  expect_eq "msg-$cmd-one-line" "$(wc -l <"$T/err")" 1
  if grep -q "$(printf '\033')" "$T/err"; then fail "msg-$cmd-no-raw-esc" "raw ESC in the message"; else pass "msg-$cmd-no-raw-esc"; fi
  expect_grep "msg-$cmd-escaped" "e\\\\x1B\[31m\\\\x0Ax\.folded': no stack lines" "$T/err"
done
gf info "$bad"
expect_rc "msg-info-exit" 1
expect_eq "msg-info-one-line" "$(wc -l <"$T/err")" 1

# "no stack lines" names the inputs
: >"$T/empty.folded"
gf top "$T/empty.folded"
expect_grep "msg-top-empty-names" "^gpuflame top: '$T/empty.folded': no stack lines" "$T/err"
gf svg "$T/empty.folded" "$T/empty.folded"
expect_grep "msg-svg-empty-names-both" "^gpuflame svg: '$T/empty.folded', '$T/empty.folded': no stack lines" "$T/err"

# '-' at most once
for cmd in svg top; do
  gf_in "$T/ok.folded" "$cmd" - -
  expect_rc "dash-twice-$cmd" 2
  expect_grep "dash-twice-$cmd-msg" "can be given only once" "$T/err"
done

# svg's pruned reader (mapped file and stream) keeps the token and input limits
python3 -c 'import sys; sys.stdout.write("a;b 1\n" + "x" * 3000000)' >"$T/long.folded"
gf svg "$T/long.folded"
expect_rc "svg-long-line-default" 0   # under the default limit: one invalid line, skipped with a warning
expect_grep "svg-long-line-default-warns" "ignored 1 invalid line" "$T/err"
GPUFLAME_MAX_TOKEN=1M gf svg "$T/long.folded"
expect_rc "svg-long-line-mapped" 4
expect_grep "svg-long-line-mapped-msg" "^gpuflame svg: '$T/long.folded': line 2 \(byte 1048582\): a line longer than 1048576 bytes \(GPUFLAME_MAX_TOKEN\)$" "$T/err"
GPUFLAME_MAX_TOKEN=1M gf_in "$T/long.folded" svg
expect_rc "svg-long-line-stream" 4
expect_grep "svg-long-line-stream-msg" "line 2 \(byte 1048582\): a line longer than 1048576 bytes \(GPUFLAME_MAX_TOKEN\)" "$T/err"
GPUFLAME_MAX_TOKEN=1M gf top "$T/long.folded"
expect_rc "top-long-line" 4
GPUFLAME_MAX_INPUT=1M gf svg "$T/long.folded"
expect_rc "svg-big-input-mapped" 4
expect_grep "svg-big-input-mapped-msg" "an input larger than 1048576 bytes \(GPUFLAME_MAX_INPUT\)" "$T/err"
GPUFLAME_MAX_INPUT=1M gf_in "$T/long.folded" svg
expect_rc "svg-big-input-stream" 4
# a bad limit value is a usage error for every command
GPUFLAME_MAX_TOKEN=lots gf svg "$T/ok.folded"
expect_rc "limit-bad-value" 2
expect_grep "limit-bad-value-msg" "invalid GPUFLAME_MAX_TOKEN='lots'" "$T/err"
# diff tells a pzstd trace (leading skippable frame) from folded text by its bytes
if command -v pzstd >/dev/null; then
  gzip -dc examples/decode-sync.json.gz >"$T/t.json"
  pzstd -q -p 2 "$T/t.json" -o "$T/t.bin" 2>/dev/null
  gf diff "$T/t.bin" "$T/t.bin"
  expect_rc "diff-pzstd-trace" 0
  expect_grep "diff-pzstd-trace-folded" "^# gpuflame: weight=gpu" "$T/out"
else
  skip "diff-pzstd-trace" "pzstd absent"
fi
exit 0
