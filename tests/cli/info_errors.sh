#!/usr/bin/env bash
# info_errors.sh — bad input to `gpuflame info`: one-line error naming the
# file, the byte offset (and line) and what was expected; exit 1; no output
# file left behind with -o.
. "$(dirname "$0")/lib.sh"

check() { # name file exit-pattern
  local name=$1 f=$2 pat=$3
  rm -f "$T/o.json"
  gf info -o "$T/o.json" "$f"
  expect_rc "$name" 1
  expect_grep "$name-msg" "^gpuflame info: '$f': $pat" "$T/err"
  local lines; lines=$(wc -l <"$T/err")
  expect_eq "$name-one-line" "$lines" "1"
  if [ -e "$T/o.json" ]; then fail "$name-no-output" "output file written"; else pass "$name-no-output"; fi
}

: >"$T/empty.json"
check "err-empty" "$T/empty.json" "byte 0: expected a JSON object or array \(a trace\), got an empty file"
printf 'not json at all\n' >"$T/text.json"
check "err-not-json" "$T/text.json" "byte 0 \(line 1\): expected '\{' or '\[' at the start of a trace"
printf '{"name": "x", "values": [1, 2, 3]}\n' >"$T/notrace.json"
check "err-not-trace" "$T/notrace.json" "byte [0-9]+: expected a \"traceEvents\" array in the top-level object, got none \(not a Chrome/Kineto trace\)"
printf '{"traceEvents": [\n{"ph": "X", "name": "a\xff\xfe", "ts": 1}]}' >"$T/utf8.json"
check "err-utf8" "$T/utf8.json" "byte 40 \(line 2\): expected valid UTF-8 in a string, got byte 0xff"
printf '{"traceEvents": [\n{"ph": "X", "name": "a\0b", "ts": 1}]}' >"$T/nul.json"
check "err-nul" "$T/nul.json" "byte 40 \(line 2\): expected no NUL byte inside a string, got byte 0x00"
python3 -c 'import sys; sys.stdout.write("{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"args\": {\"a\": " + "["*200 + "]"*200 + "}}]}")' >"$T/deep.json"
check "err-deep" "$T/deep.json" "byte [0-9]+ \(line 1\): expected nesting no deeper than 64 levels, got '\['"
printf '{"traceEvents": [{"ph": "X", "ts": 1}, {"ph": "X", "ts": 2}, {"ph": "X", "ts": 3}]}' | gzip -c >"$T/full.gz"
head -c $(( $(stat -c %s "$T/full.gz") - 12 )) "$T/full.gz" >"$T/trunc.gz"
check "err-trunc-gzip" "$T/trunc.gz" "byte [0-9]+: truncated gzip data"
printf '{"traceEvents": [{"ph": "X", "ts": 1}, {"ph": "X", "ts": 2}, {"ph": "X", "ts": 3}]}' | zstd -q -c >"$T/full.zst"
head -c $(( $(stat -c %s "$T/full.zst") - 5 )) "$T/full.zst" >"$T/trunc.zst"
check "err-trunc-zstd" "$T/trunc.zst" "byte [0-9]+: truncated zstd data"
gf info "$T/does-not-exist.json"
expect_rc "err-missing" 1
expect_grep "err-missing-msg" "cannot open: No such file" "$T/err"
gf info "$T"
expect_rc "err-directory" 1
# the speedscope/Chrome-style edge files that are still traces read fine
printf '[\n{"pid": 0, "tid": 0, "ph": "X", "ts": 0, "dur": 10, "name": "alpha"},\n{"pid": 0, "tid": 0, "ph": "X", "ts": 5, "dur": 10, "name": "beta"}\n]' >"$T/nest.json"
gf info "$T/nest.json"
expect_rc "ok-invalid-nesting" 0
expect_grep "ok-invalid-nesting-warning" "1 host events overlap|^events: 2" "$T/out"

# stdin can be read once: "-" twice is a usage error (as for every command taking FILE...)
printf '{"traceEvents": []}' >"$T/empty_trace.json"
gf_in "$T/empty_trace.json" info - -
expect_rc "stdin-twice-rc" 2
expect_grep "stdin-twice-msg" "stdin \('-'\) can be given only once" "$T/err"
# --step-marker needs a name
gf info --step-marker "" "$T/empty_trace.json"
expect_rc "marker-empty-rc" 2
