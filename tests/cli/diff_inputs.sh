#!/usr/bin/env bash
# diff_inputs.sh — how gpuflame diff takes its inputs: gzip and zstd folded
# files read as plain ones (decided by the decompressed bytes, not by the
# name: a trace named x.gz is still folded on the fly), with the same output
# as the plain files; a truncated compressed folded file is exit 1 naming its
# byte; a folded file starting "[unknown];" is folded text, and a trace with
# a UTF-8 BOM or a top-level array is a trace, whatever their names.
. "$(dirname "$0")/lib.sh"
command -v gzip >/dev/null && command -v zstd >/dev/null || { skip "diff-inputs" "gzip or zstd absent"; exit 0; }
cat > "$T/b.folded" <<'X'
# gpuflame: weight=wall; unit=us; steps=5;
main;step;sync 50
main;step;work 100.5
main;old 3
X
cat > "$T/a.folded" <<'X'
# gpuflame: weight=wall; unit=us; steps=3;
main;step;work 60
main;new 1
X
gzip -c "$T/b.folded" > "$T/b.folded.gz"
zstd -q -c "$T/a.folded" > "$T/a.folded.zst"
gzip -c "$T/a.folded" > "$T/a.gz"           # no .folded in the name
# the values, per step: 50/5, 100.5/5, 3/5 before; 60/3, 1/3 after
printf 'main;new 0 0.3333\nmain;old 0.6 0\nmain;step;sync 10 0\nmain;step;work 20.1 20\n' > "$T/want"
for pair in "b.folded.gz a.folded.zst" "b.folded a.folded.zst" "b.folded.gz a.gz"; do
  set -- $pair
  gf diff "$T/$1" "$T/$2"; expect_rc "diff-inputs-$1-$2-rc" 0
  grep -v '^#' "$T/out" > "$T/got"
  expect_same "diff-inputs-$1-$2-values" "$T/got" "$T/want"
  expect_grep "diff-inputs-$1-$2-header" "^# gpuflame: weight=wall; unit=us; steps=1; .*steps.before=5; steps.after=3;" "$T/out"
done
# the same bytes as from the plain files, for every output
gf diff --svg "$T/b.folded" "$T/a.folded"; cp "$T/out" "$T/plain.svg"
gf diff --svg "$T/b.folded.gz" "$T/a.folded.zst"; expect_same "diff-inputs-svg-same" "$T/out" "$T/plain.svg"
gf diff --top 3 "$T/b.folded" "$T/a.folded"; cp "$T/out" "$T/plain.top"
gf diff --top 3 "$T/b.folded.gz" "$T/a.folded.zst"; expect_same "diff-inputs-top-same" "$T/out" "$T/plain.top"
# stdin: plain folded text
gf_in "$T/a.folded" diff "$T/b.folded.gz" -; expect_rc "diff-inputs-stdin-rc" 0
grep -v '^#' "$T/out" > "$T/got"; expect_same "diff-inputs-stdin" "$T/got" "$T/want"
# truncated: the decompressor's message, exit 1, no output
awk 'BEGIN { for (i = 0; i < 20000; i++) printf "f%d;g %d\n", i, i + 1 }' | gzip -c > "$T/big.gz"
head -c 30000 "$T/big.gz" > "$T/trunc.gz"
gf diff "$T/trunc.gz" "$T/a.folded"; expect_rc "diff-inputs-truncated-rc" 1
expect_grep "diff-inputs-truncated-msg" "^gpuflame diff: '.*trunc.gz': byte 30000: truncated gzip data" "$T/err"
expect_eq "diff-inputs-truncated-no-output" "$(wc -c < "$T/out")" "0"
# a trace named .gz / .zst is still a trace (folded on the fly); fold options warn on the folded side
printf '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0, "dur": 7}]}\n' | gzip -c > "$T/t.gz"
gf diff --weight cpu "$T/t.gz" "$T/a.folded.zst"; expect_rc "diff-inputs-trace-gz-rc" 2
expect_grep "diff-inputs-trace-gz-folded" "weight: 'cpu' vs 'wall'" "$T/err"
expect_grep "diff-inputs-trace-gz-warn" "a.folded.zst' is folded already" "$T/err"
# "[unknown];..." (perf's frames) is a folded stack, not a JSON array, plain or gzip
printf '[unknown];main 6\nmain;x 4\n' > "$T/u.txt"; gzip -c "$T/u.txt" > "$T/u.gz"
printf '[unknown];main 2\nmain;x 4\n' > "$T/u2.txt"
printf '[unknown];main 6 2\nmain;x 4 4\n' > "$T/uwant"
for f in u.txt u.gz; do
  gf diff "$T/$f" "$T/u2.txt"; expect_rc "diff-inputs-bracket-$f-rc" 0
  expect_same "diff-inputs-bracket-$f" "$T/out" "$T/uwant"
done
# a trace with a BOM, or a top-level array, not named .json: folded on the fly
printf '\xef\xbb\xbf{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0, "dur": 7}]}\n' > "$T/bom.trace"
printf ' [\n{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0, "dur": 7}]\n' > "$T/arr.trace"
gzip -c "$T/bom.trace" > "$T/bom.gz"
for f in bom.trace arr.trace bom.gz; do
  gf diff --weight cpu "$T/$f" "$T/a.folded"; expect_rc "diff-inputs-trace-$f-rc" 2
  expect_grep "diff-inputs-trace-$f" "weight: 'cpu' vs 'wall'" "$T/err"
done

# stdin through the one input layer: compressed folded text, and a trace
gf_in "$T/a.folded.zst" diff "$T/b.folded.gz" -; expect_rc "diff-inputs-stdin-zst-rc" 0
grep -v '^#' "$T/out" > "$T/got"; expect_same "diff-inputs-stdin-zst" "$T/got" "$T/want"
if need_shared "diff-inputs-stdin-trace"; then
  tr="$GF_SHARED/corpus/traces/hta/trace_compare/rank_0.json.gz"
  [ -f "$tr" ] || tr=$(find "$GF_SHARED/corpus/traces" -name '*.json.gz' | sort | head -1)
  gf diff "$tr" "$tr"; cp "$T/out" "$T/named"
  gf_in "$tr" diff "$tr" -; expect_rc "diff-inputs-stdin-trace-rc" 0
  # the same weights as the named file (the header names the source: drop it)
  grep -v '^#' "$T/out" > "$T/got"; grep -v '^#' "$T/named" > "$T/want2"
  expect_same "diff-inputs-stdin-trace" "$T/got" "$T/want2"
  gunzip -c "$tr" > "$T/plain.json"
  gf_in "$T/plain.json" diff - "$tr"; expect_rc "diff-inputs-stdin-plain-trace-rc" 0
fi
# imported formats are folded stacks to diff (a .json name does not make a
# speedscope file a trace); an empty one says so
printf '{"$schema": "https://www.speedscope.app/file-format-schema.json", "profiles": []}\n' > "$T/p.speedscope.json"
gf diff "$T/p.speedscope.json" "$T/a.folded"; expect_rc "diff-inputs-speedscope-rc" 1
expect_grep "diff-inputs-speedscope-msg" "p.speedscope.json': no stack lines" "$T/err"
printf '{"$schema": "https://www.speedscope.app/file-format-schema.json", "shared": {"frames": [{"name": "a"}]}, "profiles": [{"type": "sampled", "unit": "none", "samples": [[0]], "weights": [3]}]}\n' > "$T/q.speedscope.json"
gf diff "$T/q.speedscope.json" "$T/q.speedscope.json"; expect_rc "diff-inputs-speedscope-same-rc" 0
# a broken trace named .json keeps the trace reader's message
printf '{"traceEvents": [{"ph": "X" "ts": 1}]}' > "$T/bad.json"
gf diff "$T/bad.json" "$T/a.folded"; expect_rc "diff-inputs-bad-trace-rc" 1
expect_grep "diff-inputs-bad-trace-msg" "bad.json': byte [0-9]+" "$T/err"
exit 0
