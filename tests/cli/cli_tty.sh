#!/usr/bin/env bash
# cli_tty.sh — a command left without a FILE while standard input is a
# terminal says what it waits for (issue 17), through a pty
# (tests/gen/pty_run.py); "-" and a pipe stay silent. The input typed then
# is read as usual.
. "$(dirname "$0")/lib.sh"
printf 'main;mm 30\nmain;mm;gemm 70\n' >"$T/in.folded"
pty() { python3 tests/gen/pty_run.py "$1" "$T/out" "$T/err" -- "${@:2}"; rc=$?; }

pty "$T/in.folded" "$GF" top
expect_rc top-tty-rc 0
expect_grep top-tty-note "^gpuflame top: reading folded stacks from standard input \(a terminal; end with Ctrl-D" "$T/err"
expect_grep top-tty-read "^ +70  70.00 +70 +70.00 +1  gemm$" "$T/out"
pty "$T/in.folded" "$GF" top -
expect_rc top-dash-rc 0
expect_nogrep top-dash-silent "standard input" "$T/err"
gf_in "$T/in.folded" top
expect_nogrep top-pipe-silent "standard input" "$T/err"

python3 tests/gen/gen_decode.py --variant sync --steps 3 --layers 1 -o "$T/t.json" || fail gen "generator failed"
pty "$T/t.json" "$GF" report
expect_rc report-tty-rc 0
expect_grep report-tty-note "^gpuflame report: reading a trace from standard input" "$T/err"
expect_grep report-tty-read "^gpuflame report: <stdin>" "$T/out"
pty "$T/t.json" "$GF" fold
expect_grep fold-tty-note "^gpuflame fold: reading a trace from standard input" "$T/err"
pty "$T/in.folded" "$GF" syncs
expect_grep syncs-tty-note "^gpuflame syncs: reading a trace or folded stacks from standard input" "$T/err"
exit 0
