#!/usr/bin/env bash
# two_cores.sh — the two-core reader of plain (mapped) traces gives exactly
# the one-core results: `info --format json` and `fold` (gpu, cpu and idle
# weights; report and syncs, and diff of a trace with itself, on the generated
# one) with --threads 2 and with --threads 1 (and GPUFLAME_THREADS=1) must be
# byte-identical, on a generated 12 MB trace (bench/gen_trace.c) and
# on the largest real traces of the shared corpus, decompressed (the reader
# only splits plain files it maps; they are 25-62 MB, so 12-30 chunks).
# Also: --threads accepts only 1 or 2 (usage error, exit 2). And the same
# with GPUFLAME_HUGEPAGES=0 (large blocks in 4 KB pages, docs/cli.md), whose
# only values are 0 and 1.
. "$(dirname "$0")/lib.sh"
GFR=${GF_REL:-$GF}
"$GFR" fold --help 2>/dev/null | grep -q -- --threads || GFR=$GF

same_both() { # name file args...
  local name=$1 f=$2; shift 2
  "$GFR" "$@" --threads 1 "$f" >"$T/one" 2>"$T/one.err"; local r1=$?
  "$GFR" "$@" --threads 2 "$f" >"$T/two" 2>"$T/two.err"; local r2=$?
  GPUFLAME_THREADS=1 "$GFR" "$@" "$f" >"$T/env" 2>/dev/null
  GPUFLAME_HUGEPAGES=0 "$GFR" "$@" "$f" >"$T/small" 2>/dev/null
  if [ $r1 -ne 0 ] || [ $r2 -ne 0 ]; then
    fail "$name" "exit $r1/$r2: $(head -c 300 "$T/one.err" "$T/two.err")"
  elif ! cmp -s "$T/one" "$T/two"; then
    fail "$name" "--threads 2 differs from --threads 1: $(diff "$T/one" "$T/two" | head -5)"
  elif ! cmp -s "$T/one" "$T/env"; then
    fail "$name" "GPUFLAME_THREADS=1 differs from --threads 1"
  elif ! cmp -s "$T/one" "$T/small"; then
    fail "$name" "GPUFLAME_HUGEPAGES=0 differs from the default"
  else
    pass "$name"
  fi
}

check_trace() { # label plain-file [all]
  same_both "two-cores info $1" "$2" info --format json
  for w in gpu cpu idle; do
    same_both "two-cores fold $w $1" "$2" fold -q --weight "$w"
  done
  if [ -n "${3:-}" ]; then
    same_both "two-cores report $1" "$2" report --format json
    same_both "two-cores syncs $1" "$2" syncs --format json
  fi
}

cc -O2 -o "$T/gen_trace" bench/gen_trace.c 2>"$T/cc.err" || { fail "two-cores gen" "$(head -c 300 "$T/cc.err")"; exit 0; }
"$T/gen_trace" 12 7 >"$T/gen.json"
check_trace "generated-12MB" "$T/gen.json" all
# diff of a trace against itself (both folded on the fly): same with one core
"$GFR" diff -j 1 "$T/gen.json" "$T/gen.json" >"$T/d1" 2>/dev/null; r1=$?
"$GFR" diff -j 2 "$T/gen.json" "$T/gen.json" >"$T/d2" 2>/dev/null; r2=$?
if [ $r1 -eq 0 ] && [ $r2 -eq 0 ] && cmp -s "$T/d1" "$T/d2"; then pass "two-cores diff generated-12MB"
else fail "two-cores diff generated-12MB" "exit $r1/$r2 or outputs differ"; fi

"$GFR" info --threads 3 "$T/gen.json" >/dev/null 2>"$T/err"; rc=$?
expect_rc "two-cores --threads 3 is a usage error" 2
for cmd in fold report syncs diff; do
  "$GFR" $cmd -j 0 "$T/gen.json" >/dev/null 2>"$T/err"; rc=$?
  expect_rc "two-cores $cmd -j 0 is a usage error" 2
done
GPUFLAME_THREADS=zero "$GFR" fold "$T/gen.json" >/dev/null 2>"$T/err"; rc=$?
expect_rc "two-cores GPUFLAME_THREADS=zero is a usage error" 2
expect_grep "two-cores GPUFLAME_THREADS message" "GPUFLAME_THREADS" "$T/err"
GPUFLAME_HUGEPAGES=yes "$GFR" info "$T/gen.json" >/dev/null 2>"$T/err"; rc=$?
expect_rc "two-cores GPUFLAME_HUGEPAGES=yes is a usage error" 2
expect_grep "two-cores GPUFLAME_HUGEPAGES message" "GPUFLAME_HUGEPAGES" "$T/err"

need_shared "two-cores-corpus" || exit 0
for rel in tracelens/inference/xdit_sd_3.5/profile_trace_rank_0.json.gz \
	   hta/df_index_resolver/df_index_resolver.json.gz \
	   tracelens/inference/vllm_decode_full/capture_traces/graph_capture_rank_0.1773709742341309550.pt.trace.json.gz \
	   param/resnet_kineto.json.gz; do
  f=$GF_SHARED/corpus/traces/$rel
  [ -f "$f" ] || { skip "two-cores $rel" "not in the corpus"; continue; }
  gzip -dc "$f" >"$T/c.json"
  check_trace "$rel" "$T/c.json"
done
