#!/usr/bin/env bash
# report_numbers.sh — `gpuflame report` text and Markdown say what its JSON
# says (issue 12, item 9), checked by tests/gen/report_numbers.py: every table
# by header and row key, every sentence by pattern, every number of the
# verdicts against a JSON value; a number with no JSON counterpart fails.
# Cases: examples/*.json.gz, generated decode loops (gen_decode.py: sync,
# fixed, graph, tp), every trace under $GF_SHARED/corpus/traces/{tracelens,
# hta,kineto} (SKIPped visibly when absent), with --unprofiled-step-ms and
# --expect-ms (above, below and past the idle time); and many ranks
# (gpuflame.ranks/1, tests/gen/ranks_numbers.py): two generated tp ranks,
# 6 and 8 ranks of two process groups (bench/gen_trace.c), 1,024 ranks
# (tests/gen/gen_summaries.py), two corpus ranks and nccl_data as two ranks.
# Self-checks: each digit of three texts altered in turn is caught.
. "$(dirname "$0")/lib.sh"
P=tests/gen/report_numbers.py
LIST=$T/list
: > "$LIST"
k=0
# add NAME ARGS...: report in text, md and json into the list
add() {
  local name=$1; shift
  k=$((k + 1))
  local b=$T/c$k
  "$GF" report "$@" > "$b.txt" 2> "$b.err.txt"; local r1=$?
  "$GF" report -f md "$@" > "$b.md" 2> "$b.err.md"; local r2=$?
  "$GF" report -f json "$@" > "$b.json" 2> "$b.err.json"; local r3=$?
  if [ $r1 -ne 0 ] || [ $r2 -ne 0 ] || [ $r3 -ne 0 ]; then
    fail "numbers-$name-rc" "exit $r1/$r2/$r3: $(head -c 300 "$b.err.txt")"
    return
  fi
  printf '%s\t%s\t%s\t%s\n' "$name" "$b.txt" "$b.md" "$b.json" >> "$LIST"
}

for f in examples/*.json.gz; do
  add "$(basename "$f")" "$f"
done
E=examples/decode-sync.json.gz
# the issue's command line: both given values, above the step's
add "overhead-expect" --unprofiled-step-ms 0.4 --expect-ms 0.3 "$E"
# overhead past the idle time; estimate not reached
add "overhead-past-idle" --unprofiled-step-ms 0.1 --expect-ms 0.05 "$E"
# no overhead, estimate reached
add "overhead-none" --unprofiled-step-ms 9 --expect-ms 9 "$E"
add "md-steps" --steps 4..6 "$E"

G=tests/gen/gen_decode.py
for v in sync fixed graph tp; do
  python3 "$G" --variant $v --steps 4 -o "$T/gen_$v.json" >/dev/null 2>&1 || { fail "numbers-gen-$v" "gen_decode.py failed"; continue; }
  add "gen-$v" "$T/gen_$v.json"
done
python3 "$G" --variant tp --steps 4 --rank 1 -o "$T/gen_tp1.json" >/dev/null 2>&1
add "gen-sync-expect" --unprofiled-step-ms 0.2 --expect-ms 0.1 "$T/gen_sync.json"
# many ranks (gpuflame.ranks/1): their own checker, tests/gen/ranks_numbers.py
RP=tests/gen/ranks_numbers.py
RLIST=$T/rlist
: > "$RLIST"
radd() { # NAME ARGS...: report of many ranks in text, md and json into RLIST
  local name=$1; shift
  k=$((k + 1))
  local b=$T/r$k
  "$GF" report "$@" > "$b.txt" 2> "$b.err" && "$GF" report -f md "$@" > "$b.md" 2>> "$b.err" &&
    "$GF" report -f json "$@" > "$b.json" 2>> "$b.err" || { fail "numbers-$name-rc" "$(head -c 300 "$b.err")"; return; }
  printf '%s\t%s\t%s\t%s\n' "$name" "$b.txt" "$b.md" "$b.json" >> "$RLIST"
}
radd "gen-ranks" "$T/gen_tp.json" "$T/gen_tp1.json"
cc -O2 -o "$T/gen_trace" bench/gen_trace.c || fail gen "bench/gen_trace.c does not build"
for r in 0 1 2 3 4 5 6 7; do "$T/gen_trace" 100 1 --rank "$r" --world 8 --pg 2 --steps 12 >"$T/pg$r.json"; done
# 6 ranks: one column per rank too; 8: not; 12 steps: the skew table shows 10
radd "gen-pg2-6" --max-steps 4 "$T"/pg[0-5].json
radd "gen-pg2-8" "$T"/pg?.json
python3 tests/gen/gen_summaries.py "$T/k" --world 1024 --steps 6 --slow-rank 100 || fail gen "gen_summaries failed"
radd "gen-1024" --from-summaries "$T/k"

ncorpus=0
if need_shared "numbers-corpus"; then
  C=$GF_SHARED/corpus/traces
  while IFS= read -r f; do
    ncorpus=$((ncorpus + 1))
    add "${f#"$C"/}" "$f"
  done < <(find "$C/tracelens" "$C/hta" "$C/kineto" \( -name '*.json' -o -name '*.json.gz' \) \
             -not -name execution_details.json | sort)
  F=$C/hta/trace_filter
  radd "corpus-ranks" "$F/sampled_rank-0.json.gz" "$F/sampled_rank-1.json.gz"
  N=$C/hta/nccl_parser_config/nccl_data.json.gz
  "$GF" summarise "$N" -o "$T/n0.summary.json" 2>/dev/null
  "$GF" summarise --rank 1 "$N" -o "$T/n1.summary.json" 2>/dev/null
  radd "corpus-nccl-two" --from-summaries "$T/n0.summary.json" "$T/n1.summary.json"
  add "corpus-nccl-expect" --unprofiled-step-ms 200 --expect-ms 100 "$C/hta/nccl_parser_config/nccl_data.json.gz"
  [ "$ncorpus" -ge 30 ] && pass "numbers-corpus-count" || fail "numbers-corpus-count" "only $ncorpus traces"
fi

python3 "$P" "$LIST"
python3 "$RP" "$RLIST"

# self-checks: one altered digit anywhere is caught
b=$(awk -F'\t' '$1 == "overhead-expect" { print $2 "\t" $3 "\t" $4 }' "$LIST")
if [ -n "$b" ]; then
  IFS=$'\t' read -r bt bm bj <<<"$b"
  python3 "$P" --selfcheck overhead-expect text "$bt" "$bj"
  python3 "$P" --selfcheck overhead-expect md "$bm" "$bj"
else
  fail "numbers-selfcheck" "no overhead-expect case"
fi
b=$(awk -F'\t' '$1 == "gen-pg2-6" { print $2 "\t" $3 "\t" $4 }' "$RLIST")
if [ -n "$b" ]; then
  IFS=$'\t' read -r bt bm bj <<<"$b"
  python3 "$RP" --selfcheck gen-pg2-6 text "$bt" "$bj"
  python3 "$RP" --selfcheck gen-pg2-6 md "$bm" "$bj"
else
  fail "numbers-ranks-selfcheck" "no gen-pg2-6 case"
fi
# the checker catches the two misprints of the issue: a share printed as ms
# on the NCCL line, the profiled step printed instead of the given value
b=$(awk -F'\t' '$1 == "overhead-expect" { print $2 "\t" $4 }' "$LIST")
IFS=$'\t' read -r bt bj <<<"$b"
sed -E 's/vs unprofiled [0-9.]+ ms/vs unprofiled 0.572 ms/' "$bt" > "$T/bad1.txt"
printf 'bad1\t%s\t%s\t%s\n' "$T/bad1.txt" "${bt%.txt}.md" "$bj" > "$T/bad.list"
python3 "$P" "$T/bad.list" > "$T/bad.out"
if grep -q '^FAIL bad1-text: overhead unprofiled' "$T/bad.out"; then
  pass "numbers-catches-profiled-for-given"; else fail "numbers-catches-profiled-for-given" "not caught"; fi
b=$(awk -F'\t' '$1 == "gen-tp" { print $2 "\t" $3 "\t" $4 }' "$LIST")
if [ -n "$b" ]; then
  IFS=$'\t' read -r bt bm bj <<<"$b"
  sed -E 's/exposed ([0-9.]+) ms per/exposed 15.6% ms per/' "$bt" > "$T/bad2.txt"
  printf 'bad2\t%s\t%s\t%s\n' "$T/bad2.txt" "$bm" "$bj" > "$T/bad.list"
  python3 "$P" "$T/bad.list" > "$T/bad.out"
  if grep -q '^FAIL bad2-text: NCCL' "$T/bad.out"; then
    pass "numbers-catches-share-as-ms"; else fail "numbers-catches-share-as-ms" "not caught"; fi
fi
exit 0
