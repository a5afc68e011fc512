#!/usr/bin/env bash
# svg_errors.sh — `gpuflame svg` on bad input and bad options: one-line
# messages with file and line, documented exit codes, no crash, and no output
# file unless the whole SVG was written.
. "$(dirname "$0")/lib.sh"

printf 'a;b 3\nnot a stack line\na;c x\nb 2\n' >"$T/mixed.folded"
gf svg "$T/mixed.folded" -o "$T/m.svg"
expect_rc svg-err-invalid-lines-warn 0
expect_grep svg-err-invalid-lines-msg "warning: ignored 2 invalid lines \(first at '$T/mixed.folded': line 2: expected" "$T/err"
expect_grep svg-err-invalid-lines-svg '<title>all \(5 samples, 100%\)</title>' "$T/m.svg"

gf svg --strict "$T/mixed.folded" -o "$T/strict.svg"
expect_rc svg-err-strict-exit1 1
expect_grep svg-err-strict-msg "'$T/mixed.folded': line 2: expected" "$T/err"
if [ -e "$T/strict.svg" ]; then fail svg-err-strict-no-file "file written"; else pass svg-err-strict-no-file; fi
[ "$(wc -l <"$T/err")" -eq 1 ] && pass svg-err-strict-one-line || fail svg-err-strict-one-line "$(cat "$T/err")"

: >"$T/empty.folded"
gf svg "$T/empty.folded" -o "$T/e.svg"
expect_rc svg-err-empty-exit1 1
expect_grep svg-err-empty-msg "^gpuflame svg: '$T/empty.folded': no stack lines" "$T/err"
if [ -e "$T/e.svg" ]; then fail svg-err-empty-no-file "file written"; else pass svg-err-empty-no-file; fi
gf_in "$T/empty.folded" svg
expect_rc svg-err-empty-stdin 1
[ -s "$T/out" ] && fail svg-err-empty-stdout-empty "$(head -c 100 "$T/out")" || pass svg-err-empty-stdout-empty

printf '# only a comment\n\n# gpuflame: unit=ns;\n' >"$T/comments.folded"
gf svg "$T/comments.folded"; expect_rc svg-err-only-comments 1

printf 'a 0\nb 0\n' >"$T/zero.folded"
gf svg "$T/zero.folded" -o "$T/z.svg"; expect_rc svg-err-zero-total 1
expect_grep svg-err-zero-total-msg 'total is 0' "$T/err"
[ -e "$T/z.svg" ] && fail svg-err-zero-no-file "written" || pass svg-err-zero-no-file

# binary junk and NUL bytes
head -c 65536 /dev/urandom >"$T/junk.bin" 2>/dev/null || python3 -c 'import os,sys; sys.stdout.buffer.write(os.urandom(65536))' >"$T/junk.bin"
gf svg "$T/junk.bin" -o "$T/j.svg"
if [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]; then pass svg-err-junk-no-crash; else fail svg-err-junk-no-crash "exit $rc $(head -c 300 "$T/err")"; fi
printf 'a;b\0c 5\nx 1\n' >"$T/nul.folded"
gf svg "$T/nul.folded" -o "$T/n.svg"
expect_rc svg-err-nul-skipped 0
expect_grep svg-err-nul-msg 'line 1: expected a NUL byte' "$T/err"
printf 'a;b\0c 5\n' >"$T/nul2.folded"
gf svg "$T/nul2.folded"; expect_rc svg-err-nul-only 1

# a 10 MB single line (no count), then with a count
python3 -c 'import sys; sys.stdout.write("f;" * 5000000 + "\n")' >"$T/long.folded"
gf svg "$T/long.folded" -o "$T/l.svg"; expect_rc svg-err-10mb-line-invalid 1
expect_grep svg-err-10mb-line-msg "line 1: expected" "$T/err"
python3 -c 'import sys; sys.stdout.write("x" * 10000000 + " 3\n")' >"$T/long2.folded"
gf svg "$T/long2.folded" -o "$T/l2.svg"; expect_rc svg-err-10mb-name-ok 0
[ "$(wc -c <"$T/l2.svg")" -gt 10000000 ] && pass svg-err-10mb-name-kept || fail svg-err-10mb-name-kept "$(wc -c <"$T/l2.svg")"

# missing file, bad options
gf svg "$T/nope.folded"; expect_rc svg-err-missing-file 1
expect_grep svg-err-missing-msg "'$T/nope.folded': cannot open" "$T/err"  # the input layer's one wording
printf 'a 1\n' >"$T/one.folded"
gf svg --colors chartreuse "$T/one.folded"; expect_rc svg-err-bad-palette 2
expect_grep svg-err-bad-palette-msg "valid arguments are: hot, mem" "$T/err"
gf svg --bgcolors pink "$T/one.folded"; expect_rc svg-err-bad-bg 2
gf svg --minwidth 1%% "$T/one.folded"; expect_rc svg-err-bad-minwidth 2
gf svg --minwidth abc "$T/one.folded"; expect_rc svg-err-bad-minwidth2 2
gf svg --width 5 "$T/one.folded"; expect_rc svg-err-bad-width 2
gf svg --bogus "$T/one.folded"; expect_rc svg-err-unknown-option 2
gf svg --factor -1 "$T/one.folded"; expect_rc svg-err-bad-factor 2
gf svg --total 0.4 "$T/one.folded"; expect_rc svg-err-total-too-small 0
expect_grep svg-err-total-warning 'less than the actual total 1' "$T/err"
# unwritable output: exit 3, nothing left behind
gf svg "$T/one.folded" -o "$T/no/such/dir/x.svg"; expect_rc svg-err-unwritable 3
gf svg --help; expect_rc svg-help 0
expect_grep svg-help-usage '^usage: gpuflame svg' "$T/out"
exit 0
