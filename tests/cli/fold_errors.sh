#!/usr/bin/env bash
# fold_errors.sh — `gpuflame fold` usage and bad input: --help, bad options
# (exit 2 with a message), unreadable / malformed traces (exit 1, one line
# naming the file and byte offset), bad --families files, empty step
# selections, normalising without steps, unwritable -o (exit 3, no partial
# file), and the stderr warnings.
. "$(dirname "$0")/lib.sh"
python3 tests/gen/gen_decode.py --variant sync --steps 3 --layers 1 -o "$T/t.json" || fail "gen" "generator failed"

gf fold --help
expect_rc "help-rc" 0
expect_grep "help-usage" '^usage: gpuflame fold' "$T/out"
expect_grep "help-weights" 'idle' "$T/out"

gf fold --weight heat "$T/t.json"
expect_rc "bad-weight-rc" 2
expect_grep "bad-weight-msg" "invalid argument 'heat' for '--weight'" "$T/err"
gf fold --stack python,frames "$T/t.json"
expect_rc "bad-stack-rc" 2
expect_grep "bad-stack-msg" "invalid stack level 'frames'" "$T/err"
gf fold --steps 5..2 "$T/t.json"
expect_rc "bad-steps-rc" 2
gf fold --steps x..2 "$T/t.json"
expect_rc "bad-steps2-rc" 2
gf fold --label nokey "$T/t.json"
expect_rc "bad-label-rc" 2
gf fold --max-depth 0 "$T/t.json"
expect_rc "bad-depth-rc" 2
gf fold "$T/t.json" "$T/t.json"
expect_rc "two-traces-rc" 2
expect_grep "two-traces-msg" 'one trace at a time' "$T/err"

# empty selection / no steps to normalise
gf fold --steps 40..50 "$T/t.json"
expect_rc "empty-selection-rc" 2
expect_grep "empty-selection-msg" "no step left by the step selection \(the trace has 3 steps, numbered 3\.\.5\)" "$T/err"
gf fold --skip 3 "$T/t.json"
expect_rc "skip-all-rc" 2
gf fold --step-marker nosuchmarker --per-step-normalise "$T/t.json"
expect_rc "normalise-nosteps-rc" 2
expect_grep "normalise-nosteps-msg" "no steps \(no 'nosuchmarker' ranges\) to normalise by" "$T/err"
gf fold --steps 4 --unit ns "$T/t.json"
expect_rc "one-step-rc" 0
expect_grep "one-step-header" 'steps=1;' "$T/out"

# unreadable and malformed input
gf fold "$T/missing.json"
expect_rc "missing-rc" 1
expect_grep "missing-msg" "missing\.json" "$T/err"
printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 2}, {"ph": ' >"$T/cut.json"
printf '{"traceEvents": [{"ph": "X", "cat": "kernel" "name": "k"}]}' >"$T/bad.json"
gf fold "$T/bad.json"
expect_rc "malformed-rc" 1
expect_grep "malformed-msg" "bad\.json': byte [0-9]+" "$T/err"
expect_eq "malformed-no-stdout" "$(wc -c <"$T/out")" "0"
gf fold -o "$T/never.folded" "$T/bad.json"
expect_rc "malformed-o-rc" 1
[ -e "$T/never.folded" ] && fail "malformed-no-file" "output file created" || pass "malformed-no-file"
gf fold "$T/cut.json"
expect_rc "truncated-rc" 0
expect_grep "truncated-warning" 'truncated' "$T/err"
expect_grep "truncated-folded" '^\[unattributed\];k 2000$' "$T/out"

# families file errors
printf 'gemm\n' >"$T/fam.txt"
gf fold --families "$T/fam.txt" "$T/t.json"
expect_rc "families-bad-rc" 1
expect_grep "families-bad-msg" "fam\.txt': line 1: expected 'PATTERN<TAB>FAMILY'" "$T/err"
gf fold --families "$T/nofam.txt" "$T/t.json"
expect_rc "families-missing-rc" 1
printf '=flash\tattention\n^sm90\tcublas\n' >"$T/fam.txt"
gf fold --families "$T/fam.txt" --stack op "$T/t.json"
expect_rc "families-ok-rc" 0
expect_grep "families-ok-flash" '^vllm::flash_attn_varlen;attention ' "$T/out"
expect_grep "families-ok-gemm" '^aten::linear;aten::mm;cublas ' "$T/out"
# regexes glibc would compile into exponential memory (or match in exponential
# time) are refused before regcomp; ordinary ones with bounds and groups pass
printf 'void (x)+++++++++++++++++++++++++++++++\tboom\n' >"$T/fam.txt"
gf fold --families "$T/fam.txt" "$T/t.json"
expect_rc "families-stacked-rc" 1
expect_grep "families-stacked-msg" "fam\.txt': line 1: expected a regular expression without stacked repetitions" "$T/err"
printf '=x\ty\n((ab{99}){99}){99}\tboom\n' >"$T/fam.txt"
gf fold --families "$T/fam.txt" "$T/t.json"
expect_rc "families-nested-rc" 1
expect_grep "families-nested-msg" "line 2: expected a regular expression without a compiled size over 100000 states" "$T/err"
printf 'x{,22222}\tboom\n' >"$T/fam.txt"
gf fold --families "$T/fam.txt" "$T/t.json"
expect_rc "families-optional-rc" 1
expect_grep "families-optional-msg" "line 1: expected a regular expression without more than 2000 optional states" "$T/err"
printf '(sm)[0-9]+\\1\tboom\n' >"$T/fam.txt"
gf fold --families "$T/fam.txt" "$T/t.json"
expect_rc "families-backref-rc" 1
expect_grep "families-backref-msg" "without back-references" "$T/err"
printf '^(sm[0-9]{2,3}_)?x{1,4}[]a-z[:digit:]]*(gemm|mm){1,2}\tgemm2\n' >"$T/fam.txt"
gf fold --families "$T/fam.txt" --stack op "$T/t.json"
expect_rc "families-bounded-ok-rc" 0
gf fold --kernel-names full --stack op "$T/t.json"
expect_grep "kernel-names-full" '^aten::add;void at::native::vectorized_elementwise_kernel<4, ' "$T/out"

# unwritable output: exit 3, nothing left behind
gf fold -o "$T/nodir/x.folded" "$T/t.json"
expect_rc "unwritable-rc" 3
[ -n "$(ls "$T"/nodir 2>/dev/null)" ] && fail "unwritable-nothing" "files left" || pass "unwritable-nothing"

# warnings: a clipped overlap and a bogus External id, on stderr only; -q silences them
cat >"$T/w.json" <<'J'
{"traceEvents": [
 {"ph": "X", "cat": "python_function", "name": "short", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 5, "dur": 100},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 20, "dur": 5, "args": {"correlation": 3, "External id": 3}},
 {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 30, "dur": 4, "args": {"correlation": 3}}
]}
J
gf fold "$T/w.json"
expect_rc "warn-rc" 0
expect_grep "warn-clipped" "1 host ranges overlapped without nesting" "$T/err"
expect_grep "warn-bogus" "1 runtime calls carry External id == correlation" "$T/err"
expect_grep "warn-stdout-clean" '^\[other\];k 4000$|^k 4000$' "$T/out"
gf fold -q "$T/w.json"
expect_eq "quiet" "$(wc -c <"$T/err")" "0"
exit 0
