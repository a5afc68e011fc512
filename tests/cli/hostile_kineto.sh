#!/usr/bin/env bash
# hostile_kineto.sh — the trace reader against hostile or broken traces
# (issue 16): duplicate keys, invalid UTF-8 in skipped strings, an unusable
# baseTimeNanoseconds, a decompression bomb of one huge string (bounded
# memory, exit 4 naming the offset and GPUFLAME_MAX_TOKEN), an event longer
# than twice the limit, deep nesting; one core and two give the same error.
. "$(dirname "$0")/lib.sh"
GF_REL=${GF_REL:-build/rel/gpuflame}

check() { # name file exit pattern
  local name=$1 f=$2 want=$3 pat=$4
  gf info "$f"
  expect_rc "$name" "$want"
  expect_grep "$name-msg" "^gpuflame info: '$f': $pat" "$T/err"
  expect_eq "$name-one-line" "$(wc -l <"$T/err")" "1"
}

EV='{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 2}'

printf '{"traceEvents": [%s], "traceEvents": [%s]}' "$EV" "$EV" >"$T/dup.json"
check "dup-traceEvents" "$T/dup.json" 1 'byte 100 \(line 1\): expected one "traceEvents" key in the top-level object, got a second one \(duplicate keys are refused\)'
printf '{"traceEvents": [\n{"ph": "X", "ts": 1, "dur": 2, "dur": 3}]}' >"$T/dupdur.json"
check "dup-dur" "$T/dupdur.json" 1 'byte 49 \(line 2\): expected one "dur" key in an event'
printf '{"traceEvents": [%s], "baseTimeNanoseconds": 1, "baseTimeNanoseconds": 2}' "$EV" >"$T/dupbase.json"
check "dup-base" "$T/dupbase.json" 1 'byte 126 \(line 1\): expected one "baseTimeNanoseconds" key'

printf '{"traceEvents": [%s], "metadata": {"\xff": 1}}' "$EV" >"$T/utf8.json"
check "utf8-skipped-key" "$T/utf8.json" 1 'byte 114 \(line 1\): expected valid UTF-8 in a string, got byte 0xff'

printf '{"baseTimeNanoseconds": 1e400, "traceEvents": [%s]}' "$EV" >"$T/base1.json"
check "base-out-of-range" "$T/base1.json" 1 'byte 24 \(line 1\): expected baseTimeNanoseconds as an integer number of nanoseconds within int64'
printf '{"traceEvents": [%s], "baseTimeNanoseconds": 9223372036854775807}' "$EV" >"$T/base2.json"
check "base-overflows-ts" "$T/base2.json" 1 "byte 123: expected a baseTimeNanoseconds that keeps every event's absolute time"

# one 600 MB string in 21 kB of zstd: stops at GPUFLAME_MAX_TOKEN (64 MiB),
# memory bounded (before: read whole, 1.2 GB of RSS)
head -c 600M /dev/zero | tr '\0' a | { printf '{"traceEvents": [{"ph": "X", "ts": 1, "name": "'; cat; printf '"}]}'; } \
  | zstd -q -1 -c >"$T/bomb.zst"
check "bomb-string" "$T/bomb.zst" 4 'byte 46: a string longer than 67108864 bytes \(GPUFLAME_MAX_TOKEN\)$'
if [ -x "$GF_REL" ] && [ -x /usr/bin/time ]; then
  /usr/bin/time -f %M -o "$T/rss" "$GF_REL" info "$T/bomb.zst" >/dev/null 2>&1
  kb=$(tail -1 "$T/rss")
  if [ "$kb" -lt 400000 ]; then pass "bomb-string-rss"; else fail "bomb-string-rss" "peak RSS $kb KB (expected < 400 MB)"; fi
else
  skip "bomb-string-rss" "no release binary or /usr/bin/time"
fi
GPUFLAME_MAX_TOKEN=1M gf info "$T/bomb.zst"
expect_rc "bomb-string-1M" 4
expect_grep "bomb-string-1M-msg" "byte 46: a string longer than 1048576 bytes \(GPUFLAME_MAX_TOKEN\)$" "$T/err"
GPUFLAME_MAX_TOKEN=1G gf info "$T/bomb.zst"
expect_rc "bomb-string-raised" 0

# an event of many small values, longer than twice the limit
python3 -c 'import sys; sys.stdout.write("{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1}, {\"ph\": \"X\", \"ts\": 2, \"args\": {\"a\": [" + ",".join(["1"]*2000) + "]}}]}")' >"$T/bigev.json"
GPUFLAME_MAX_TOKEN=1K gf info "$T/bigev.json"
expect_rc "long-event" 4
expect_grep "long-event-msg" "^gpuflame info: '$T/bigev.json': byte 39: an event longer than 2048 bytes \(twice GPUFLAME_MAX_TOKEN\)$" "$T/err"
gf info "$T/bigev.json"
expect_rc "long-event-default" 0

# nesting: an error at the 64th level, however deep the text goes
python3 -c 'import sys; sys.stdout.write("{\"metadata\": " + "[{"*500000)' >"$T/deep.json"
check "deep-top-level" "$T/deep.json" 1 "byte 76 \(line 1\): expected nesting no deeper than 64 levels, got '\{'"

# two cores: the same error as one (a duplicate key deep in a 12 MB mapped file)
python3 - "$T/big.json" <<'PY'
import sys
ev = '{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": %d, "dur": 2, "args": {"correlation": %d}}'
with open(sys.argv[1], "w") as f:
    f.write('{"traceEvents": [\n')
    f.write(",\n".join(ev % (i, i) for i in range(100000)))
    f.write(',\n{"ph": "X", "ts": 5, "ts": 6}')
    f.write(",\n".join([""] + [ev % (i, i) for i in range(10000)]))
    f.write("\n]}\n")
PY
GPUFLAME_THREADS=1 gf info "$T/big.json"; cp "$T/err" "$T/err1"; rc1=$rc
gf info "$T/big.json"
expect_eq "two-cores-same-rc" "$rc" "$rc1"
expect_same "two-cores-same-error" "$T/err" "$T/err1"
expect_grep "two-cores-error" "expected one \"ts\" key in an event" "$T/err"

# info reports the unusable ts/dur counts by reason, in JSON and in its warnings
cat >"$T/unusable.json" <<'J'
{"traceEvents":[
{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1,"dur":null},
{"ph":"X","cat":"cpu_op","name":"b","pid":1,"tid":1,"ts":2,"dur":"soon"},
{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":3,"dur":1e400},
{"ph":"X","cat":"cpu_op","name":"c","pid":1,"tid":1,"ts":null,"dur":1},
{"ph":"X","cat":"cpu_op","name":"d","pid":1,"tid":1,"ts":"x","dur":1},
{"ph":"X","cat":"cpu_op","name":"e","pid":1,"tid":1,"ts":-1e400,"dur":1},
{"ph":"X","cat":"cpu_op","name":"f","pid":1,"tid":1,"dur":1},
{"ph":"X","cat":"cpu_op","name":"g","pid":1,"tid":1,"ts":9,"dur":1}
]}
J
gf info --format json "$T/unusable.json"
expect_rc "unusable-info-json" 0
python3 - "$T/out" >"$T/check" 2>&1 <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["traces"][0]
ts = t["timestamps"]
want = {"ts_null": 1, "ts_invalid": 1, "ts_overflow": 1, "dur_null": 1, "dur_invalid": 1, "dur_overflow": 1}
assert {k: ts[k] for k in want} == want, ts
assert t["events_skipped"] == 4, t["events_skipped"]
w = " | ".join(t["warnings"])
assert "4 events without a usable ts were skipped (ts null 1, not a number 1, out of range 1; the rest had no ts)" in w, w
assert "3 events have a dur that could not be read (null 1, not a number 1, out of range 1); they add no time" in w, w
print("ok")
PY
expect_grep "unusable-info-counts" "^ok$" "$T/check"
gf info "$T/unusable.json"
expect_grep "unusable-info-text" "^warning: 3 events have a dur that could not be read \(null 1, not a number 1, out of range 1\)" "$T/out"
