#!/usr/bin/env bash
# ranks_parallel.sh — the GNU parallel recipe (contrib/parallel/run.sh) on
# this machine: 32 rank traces summarised by GNU parallel (two at a time),
# then combined; the outputs must equal the all-in-one `gpuflame report` of
# the same traces byte for byte (text, JSON, HTML), the ranks stored (one
# run per rank, store add). Run again, nothing changes (not stored twice); a trace that cannot be read stops it before the combine (exit
# non-zero, the earlier report untouched). SKIPs without GNU parallel
# (scripts/deps.sh test installs it).
. "$(dirname "$0")/lib.sh"
GFR=${GF_REL:-}; [ -x "$GFR" ] || GFR=$GF
command -v parallel >/dev/null || { skip ranks-parallel "GNU parallel missing (scripts/deps.sh test installs it)"; exit 0; }
parallel --version 2>/dev/null | grep -q "GNU parallel" || { skip ranks-parallel "'parallel' is not GNU parallel (moreutils'?)"; exit 0; }
W=32 S=3
cc -O2 -o "$T/gen_trace" bench/gen_trace.c || { fail gen-build "bench/gen_trace.c does not build"; exit 0; }
mkdir -p "$T/traces"
for r in $(seq 0 $((W - 1))); do
  "$T/gen_trace" 100 1 --rank "$r" --world "$W" --pg 2 --steps "$S" | zstd -q -1 -o "$T/traces/rank$r.json.zst" || fail gen "trace $r"
done
traces=("$T"/traces/rank*.json.zst)
contrib/parallel/run.sh -o "$T/out" -j 2 -g "$GFR" -R job1 -r v1 -d "$T/store.db" "${traces[@]}" >"$T/run.out" 2>&1
expect_eq ranks-parallel-rc "$?" 0
# stored: one run per rank, labelled with the run id
stored() { "$GFR" store list --db "$T/store.db" --label "run=$1" --json | python3 -c "import json,sys; r=json.load(sys.stdin); print(len(r), sorted(set(x['kind'] for x in r)), sorted(int(x['labels']['rank']) for x in r) == list(range($W)))"; }
expect_eq ranks-parallel-stored "$(stored job1)" "$W ['summary'] True"
expect_eq ranks-parallel-summaries "$(ls "$T/out/summaries" | grep -c '\.summary\.json\.zst$')" "$W"
"$GFR" report "${traces[@]}" >"$T/all.txt" 2>/dev/null
"$GFR" report --format json "${traces[@]}" >"$T/all.json" 2>/dev/null
"$GFR" report --format html "${traces[@]}" >"$T/all.html" 2>/dev/null
expect_same ranks-parallel-text-equals-report "$T/out/report.txt" "$T/all.txt"
expect_same ranks-parallel-json-equals-report "$T/out/report.json" "$T/all.json"
expect_same ranks-parallel-html-equals-report "$T/out/report.html" "$T/all.html"
expect_grep ranks-parallel-straggler-a "^  1 +group_a +16 +3 +0 +rank 5 " "$T/out/report.txt"
expect_grep ranks-parallel-straggler-b "^  2 +group_b +16 +3 +0 +rank 21 " "$T/out/report.txt"
expect_grep ranks-parallel-run-id '"run": "job1"' <(zstd -dcq "$T/out/summaries/rank0.summary.json.zst")
# again: the same bytes
cp "$T/out/report.txt" "$T/first.txt"
contrib/parallel/run.sh -o "$T/out" -j 2 -g "$GFR" -R job1 -r v1 -d "$T/store.db" "${traces[@]}" >"$T/run2.out" 2>&1
expect_eq ranks-parallel-again-rc "$?" 0
expect_same ranks-parallel-again-same "$T/out/report.txt" "$T/first.txt"
expect_eq ranks-parallel-stored-once "$(stored job1)" "$W ['summary'] True"
# a broken trace: parallel stops, no combine, the last report stays
head -c 2000 "$T/traces/rank7.json.zst" >"$T/broken.json.zst"
contrib/parallel/run.sh -o "$T/out" -j 2 -g "$GFR" -R job2 "${traces[@]:0:7}" "$T/broken.json.zst" >"$T/run3.out" 2>&1
r3=$?
[ "$r3" -ne 0 ] && pass ranks-parallel-broken-fails || fail ranks-parallel-broken-fails "exit 0"
expect_same ranks-parallel-broken-report-untouched "$T/out/report.txt" "$T/first.txt"
expect_grep ranks-parallel-broken-names-file "broken\.json\.zst" "$T/run3.out"
exit 0
