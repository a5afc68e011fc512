#!/usr/bin/env bash
# ranks.sh — many ranks (issue 25): gpuflame summarise, report --from-summaries,
# report of several traces through the same summaries, process groups, and diff
# of two folders of ranks. The truth comes from bench/gen_trace.c, whose ranks
# are known by construction (--rank R --world W --pg P --steps N --delay-us D):
# the straggler of each group is the member at a third of its rank list; it
# computes D us more before each collective, which every other member waits
# out inside its NCCL kernel, so each other member waits exactly D per
# collective, the straggler arrives last at every one, and the others wait
# (members - 1) * D * steps in all. Also: nccl_data of the corpus (the kernels'
# own args), errors (one line naming the file, exit 1, nothing written), the
# summary's size against the trace's, and the equality of every route.
. "$(dirname "$0")/lib.sh"
GFR=${GF_REL:-}; [ -x "$GFR" ] || GFR=$GF
cc -O2 -o "$T/gen_trace" bench/gen_trace.c || { fail gen-build "bench/gen_trace.c does not build"; exit 0; }
GEN=$T/gen_trace
W=8 S=6 D=420

# gen DIR PG [ARGS...]: the W rank traces of one job into DIR/rR.json
gen() {
  local dir=$1 pg=$2; shift 2
  mkdir -p "$dir"
  for r in $(seq 0 $((W - 1))); do
    "$GEN" 100 1 --rank "$r" --world "$W" --pg "$pg" --steps "$S" --delay-us "$D" "$@" >"$dir/r$r.json" || return 1
  done
}
# sums DIR OUT [summarise options...]: every trace of DIR summarised into OUT
sums() {
  local dir=$1 out=$2; shift 2
  mkdir -p "$out"
  for f in "$dir"/r*.json; do
    "$GFR" summarise "$@" "$f" -o "$out/$(basename "$f" .json).summary.json.zst" 2>>"$T/sum.err" || return 1
  done
}
gen "$T/pg2" 2 || fail gen "gen_trace failed"

# ---- the known answers: two groups, each with its own straggler ----
gf report --format json "$T"/pg2/r*.json
expect_rc pg2-report-rc 0
cp "$T/out" "$T/pg2.json"
python3 - "$T/pg2.json" "$W" "$S" "$D" <<'PY' && pass pg2-stragglers-known || fail pg2-stragglers-known "$(cat "$T/py.err" 2>/dev/null)"
import json, sys
from decimal import Decimal as Dc
d = json.load(open(sys.argv[1]), parse_float=Dc)
W, S, D = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
h = W // 2
groups = {g['name']: g for g in d['groups']}
want = {'1': (list(range(0, h)), h // 3), '2': (list(range(h, W)), h + (W - h) // 3)}
errs = []
assert d['schema'] == 'gpuflame.ranks/1' and d['ranks'] == W and not d['fallback_group']
assert sorted(groups) == ['1', '2'], groups.keys()
for name, (members, strag) in want.items():
    g = groups[name]
    idx = g['straggler']
    rank = d['per_rank'][idx]['rank']
    exp = dict(members=len(members), matched=S, unmatched=0, mismatched=0, arrived_last=S, clear=True, matched_by='seq',
               waited_us=Dc((len(members) - 1) * D * S), max_wait_us=Dc(D * S), ranks=members)
    for k, v in exp.items():
        if g[k] != v:
            errs.append('group %s %s = %r, want %r' % (name, k, g[k], v))
    if rank != strag:
        errs.append('group %s straggler rank %r, want %d' % (name, rank, strag))
for p in d['per_rank']:
    strag = p['rank'] in (h // 3, h + (W - h) // 3)
    if p['collective_wait_us'] != Dc(0 if strag else D * S) or p['arrived_last'] != (S if strag else 0):
        errs.append('rank %d: wait %s, arrived last %s' % (p['rank'], p['collective_wait_us'], p['arrived_last']))
if errs:
    open(sys.argv[1] + '.err', 'w').write('; '.join(errs))
    sys.exit(1)
PY
[ -f "$T/pg2.json.err" ] && cat "$T/pg2.json.err"
gf report "$T"/pg2/r*.json
cp "$T/out" "$T/pg2.txt"
expect_grep pg2-text-group1 "^  1 +group_a +4 +6 +0 +rank 1 +6 of 6 \(100%\) +7\.560 +2\.520$" "$T/pg2.txt"
expect_grep pg2-text-group2 "^  2 +group_b +4 +6 +0 +rank 5 +6 of 6 \(100%\) +7\.560 +2\.520$" "$T/pg2.txt"
expect_grep pg2-text-verdict "^Verdict: rank 1 is the straggler of process group '1' \(4 ranks\)" "$T/pg2.txt"
expect_grep pg2-text-compare "The straggler, rank 1, against the median rank of its group, rank [023]$" "$T/pg2.txt"
expect_grep pg2-text-gemm "^  sm90_xmma_gemm.* +0\.[0-9]{3} +0\.[0-9]{3} +0\.4[0-9]{2}$" "$T/pg2.txt"
lines=$(wc -l <"$T/pg2.txt")
if [ "$lines" -le 100 ]; then pass pg2-text-short; else fail pg2-text-short "$lines lines"; fi
# the issue's wrong answer: the second group's straggler reported as a rank that waited
expect_nogrep pg2-no-waiting-straggler "rank 5 .*waited" "$T/pg2.txt"

# the same without Seq (matched by their order in each rank)
gen "$T/noseq" 2 --no-seq || fail gen "gen_trace failed"
gf report --format json "$T"/noseq/r*.json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); g=d["groups"]; sys.exit(not (len(g)==2 and all(x["matched_by"]=="order" and x["matched"]==6 and x["arrived_last"]==6 for x in g) and [d["per_rank"][x["straggler"]]["rank"] for x in g]==[1,5]))' "$T/out" \
  && pass noseq-order || fail noseq-order "$(head -c 600 "$T/out")"

# no process group in the traces: one group, by kernel name and order, said so
gen "$T/pg0" 0 || fail gen "gen_trace failed"
gf report "$T"/pg0/r*.json
expect_grep pg0-fallback-said "no process group in the traces: collectives matched by kernel name and" "$T/out"
expect_grep pg0-fallback-row "^  \(all ranks\) +- +8 +6 +0 +rank 2 +6 of 6 \(100%\) +17\.640 +2\.520$" "$T/out"
gf report --format json "$T"/pg0/r*.json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); g=d["groups"]; sys.exit(not (d["fallback_group"] and len(g)==1 and g[0]["name"] is None and g[0]["matched_by"]=="kernel"))' "$T/out" \
  && pass pg0-fallback-json || fail pg0-fallback-json "$(head -c 400 "$T/out")"
# one named group of every rank
gen "$T/pg1" 1 || fail gen "gen_trace failed"
gf report --format json "$T"/pg1/r*.json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); g=d["groups"]; sys.exit(not (len(g)==1 and g[0]["name"]=="0" and g[0]["desc"]=="default_pg" and d["per_rank"][g[0]["straggler"]]["rank"]==2 and g[0]["members"]==8))' "$T/out" \
  && pass pg1-one-group || fail pg1-one-group "$(head -c 400 "$T/out")"

# ---- every route gives the same bytes ----
sums "$T/pg2" "$T/s2" || fail summarise "$(head -c 300 "$T/sum.err")"
for f in text md json html; do
  "$GFR" report -f "$f" "$T"/pg2/r*.json >"$T/a.$f" 2>"$T/err" || fail "route-$f" "report failed"
  "$GFR" report -j 2 -f "$f" "$T"/pg2/r*.json >"$T/j.$f" 2>/dev/null
  "$GFR" report --from-summaries -f "$f" "$T/s2" >"$T/b.$f" 2>/dev/null
  # the files in another order: ranks are ordered by their number
  "$GFR" report --from-summaries -f "$f" $(ls "$T"/s2/*.zst | sort -r) >"$T/c.$f" 2>/dev/null
  expect_same "route-$f-j2" "$T/j.$f" "$T/a.$f"
  expect_same "route-$f-from-summaries" "$T/b.$f" "$T/a.$f"
  expect_same "route-$f-any-order" "$T/c.$f" "$T/a.$f"
done
# -j beyond the cores is the cores (not refused)
gf report -j 64 "$T"/pg2/r*.json
expect_rc j64-accepted 0
expect_same j64-same "$T/out" "$T/a.text"
# plain and gzip summaries read as the zstd ones
mkdir -p "$T/mix"
"$GFR" summarise "$T/pg2/r0.json" -o "$T/mix/r0.summary.json"
"$GFR" summarise "$T/pg2/r1.json" -o "$T/mix/r1.summary.json.gz"
cp "$T"/s2/r[2-7].summary.json.zst "$T/mix/"
gf report --from-summaries "$T/mix"
expect_same mixed-compression "$T/out" "$T/a.text"
head -c 4 "$T/s2/r0.summary.json.zst" | od -An -tx1 | grep -q "28 b5 2f fd" && pass summary-zstd-by-name || fail summary-zstd-by-name "not zstd"
head -c 2 "$T/mix/r1.summary.json.gz" | od -An -tx1 | grep -q "1f 8b" && pass summary-gzip-by-name || fail summary-gzip-by-name "not gzip"
expect_grep summary-plain-by-name '^  "schema": "gpuflame.summary/1",$' "$T/mix/r0.summary.json"
# stdin: one summary, read once, compared twice
gf_in "$T/mix/r0.summary.json" report --from-summaries --partial -
expect_rc stdin-summary 0

# ---- the page: both stragglers, their full views ----
python3 - "$T/a.html" <<'PY' && pass page-stragglers || fail page-stragglers "page data"
import json, re, sys
s = open(sys.argv[1], encoding='utf-8').read()
d = json.loads(re.search(r'<script type="application/json" id="gf-data">(.*?)</script>', s, re.S).group(1))
r = d['report']
assert d['kind'] == 'ranks' and r['schema'] == 'gpuflame.ranks/1'
strag = sorted(r['per_rank'][g['straggler']]['rank'] for g in r['groups'])
assert strag == [1, 5], strag
full = [r['per_rank'][x['index']]['rank'] for x in d['ranks']]
assert 1 in full and 5 in full and 2 <= len(full) <= 3, full
assert all(x['report']['schema'] == 'gpuflame.report/2' and x['page']['graphs']['gpu'] for x in d['ranks'])
assert len(r['grid']['wall_us']) == 8 and all(len(row) == 6 for row in r['grid']['wall_us'])
PY

# ---- the summary's size does not grow with the trace's ----
# the same trace with 20x its bytes in events that add no stack (instants);
# both written by Python (the same number forms)
python3 - "$T/pg2/r3.json" "$T/small.json" "$T/big.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
json.dump(d, open(sys.argv[2], 'w'))
ev = d['traceEvents']
pad = [{'ph': 'i', 'cat': 'cpu_instant_event', 's': 't', 'name': '[memory]', 'pid': 2718, 'tid': 2718,
        'ts': ev[-2]['ts'], 'args': {'Total Reserved': 2097152000, 'Bytes': 512, 'Addr': i}} for i in range(200000)]
d['traceEvents'] = ev[:-1] + pad + ev[-1:]
json.dump(d, open(sys.argv[3], 'w'))
PY
"$GFR" summarise "$T/small.json" -o "$T/small.summary.json" 2>/dev/null
"$GFR" summarise "$T/big.json" -o "$T/big.summary.json" 2>/dev/null
sed 's/big\.json/small.json/' "$T/big.summary.json" >"$T/big2.summary.json"
bs=$(stat -c %s "$T/big.json"); ss=$(stat -c %s "$T/small.json")
if [ "$bs" -gt $((10 * ss)) ] && cmp -s "$T/small.summary.json" "$T/big2.summary.json"; then pass summary-size-independent
else fail summary-size-independent "trace $ss -> $bs bytes; summaries differ: $(diff "$T/small.summary.json" "$T/big2.summary.json" | head -5 | tr '\n' '|')"; fi

# ---- bad input: one line naming the file, exit 1, nothing written ----
bad() { # name pattern args...
  local name=$1 pat=$2; shift 2
  echo keep >"$T/kept.txt"
  "$GF" "$@" -o "$T/kept.txt" >"$T/out" 2>"$T/err"; rc=$?
  expect_rc "$name-rc" 1
  expect_grep "$name-msg" "$pat" "$T/err"
  expect_eq "$name-one-line" "$(wc -l <"$T/err")" 1
  expect_eq "$name-untouched" "$(cat "$T/kept.txt")" keep
}
mkdir -p "$T/miss" && cp "$T"/s2/*.zst "$T/miss/" && rm "$T/miss/r3.summary.json.zst"
bad missing-rank "rank 3 of world size 8 has no summary \(7 of 8 given in '.*miss'\); --partial combines the ranks present" report --from-summaries "$T/miss"
gf report --from-summaries --partial --format json "$T/miss"
expect_rc partial-ok 0
expect_grep partial-json '"partial": true' "$T/out"
mkdir -p "$T/dup" && cp "$T"/s2/*.zst "$T/dup/" && cp "$T/s2/r1.summary.json.zst" "$T/dup/r1b.summary.json.zst"
bad duplicate-rank "r1b?\.summary\.json\.zst' and '.*r1b?\.summary\.json\.zst' are both rank 1" report --from-summaries "$T/dup"
mkdir -p "$T/runs"
"$GFR" summarise --run A "$T/pg2/r0.json" -o "$T/runs/r0.summary.json" 2>/dev/null
"$GFR" summarise --run B "$T/pg2/r1.json" -o "$T/runs/r1.summary.json" 2>/dev/null
bad other-run "r1\.summary\.json': run 'B', but '.*r0\.summary\.json' is run 'A': not ranks of one run" report --from-summaries --partial "$T/runs"
mkdir -p "$T/opts"
"$GFR" summarise "$T/pg2/r0.json" -o "$T/opts/r0.summary.json" 2>/dev/null
"$GFR" summarise --skip 1 "$T/pg2/r1.json" -o "$T/opts/r1.summary.json" 2>/dev/null
bad other-options "r1\.summary\.json': summarised with '--skip 1', but '.*r0\.summary\.json' with ''" report --from-summaries --partial "$T/opts"
mkdir -p "$T/world"
"$GEN" 100 1 --rank 1 --world 16 --pg 2 --steps "$S" >"$T/w16.json"
"$GFR" summarise "$T/w16.json" -o "$T/world/r1.summary.json" 2>/dev/null
cp "$T/s2/r0.summary.json.zst" "$T/world/"
bad other-world "world size 16, but 8 in '.*r0\.summary\.json\.zst': not ranks of one run" report --from-summaries --partial "$T/world"
mkdir -p "$T/ver"
zstd -dcq "$T/s2/r0.summary.json.zst" | sed 's|"gpuflame.summary/1"|"gpuflame.summary/2"|' >"$T/ver/r0.summary.json"
bad other-version "r0\.summary\.json': summary schema 'gpuflame\.summary/2'; this gpuflame reads gpuflame\.summary/1" report --from-summaries --partial "$T/ver"
mkdir -p "$T/cut"
zstd -dcq "$T/s2/r0.summary.json.zst" >"$T/full.json"
head -c $(($(stat -c %s "$T/full.json") / 2)) "$T/full.json" >"$T/cut/r0.summary.json"
bad truncated-plain "r0\.summary\.json': byte [0-9]+: expected" report --from-summaries --partial "$T/cut"
rm "$T/cut/r0.summary.json"
head -c $(($(stat -c %s "$T/s2/r0.summary.json.zst") / 2)) "$T/s2/r0.summary.json.zst" >"$T/cut/r0.summary.json.zst"
bad truncated-zstd "r0\.summary\.json\.zst" report --from-summaries --partial "$T/cut"
bad trace-not-summary "is a PyTorch profiler trace, not a gpuflame summary: run 'gpuflame summarise .*r0\.json -o RANK\.summary\.json\.zst' first" report --from-summaries "$T/pg2/r0.json"
bad summary-not-trace "r0\.summary\.json' is a gpuflame summary, not a PyTorch profiler trace: run 'gpuflame report --from-summaries .*r0\.summary\.json'" report "$T/mix/r0.summary.json"
mkdir -p "$T/empty"
bad empty-folder "empty'?: no \*\.summary\.json, \*\.summary\.json\.gz or \*\.summary\.json\.zst file in the folder" report --from-summaries "$T/empty"
: >"$T/empty.summary.json"
bad empty-file "empty\.summary\.json': empty, not a gpuflame summary" report --from-summaries "$T/empty.summary.json"
# usage errors (exit 2)
gf report --from-summaries --skip 1 "$T/s2"; expect_rc from-summaries-no-skip 2
expect_grep from-summaries-no-skip-msg "--steps/--skip is chosen when summarising" "$T/err"
gf report --partial "$T"/pg2/r*.json; expect_rc partial-needs-from 2
gf summarise "$T/pg2/r0.json" "$T/pg2/r1.json"; expect_rc summarise-one-trace 2
expect_grep summarise-one-trace-msg "one trace at a time \(2 given\)" "$T/err"
gf summarise --rank 9 --world-size 8 "$T/pg2/r0.json"; expect_rc summarise-rank-below-world 2
# a trace without a rank: --rank / --world-size give one
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); del d["distributedInfo"]; json.dump(d, open(sys.argv[2],"w"))' "$T/pg2/r2.json" "$T/norank.json"
gf summarise --rank 2 --world-size 8 "$T/norank.json"
expect_grep summarise-rank-given '"rank": 2,' "$T/out"
gf summarise "$T/norank.json" -o "$T/norank.summary.json"
cp "$T/s2/r0.summary.json.zst" "$T/norank0.summary.json.zst"
bad ranks-all-or-none "has no rank \(no distributedInfo\.rank\), but '.*' has one: ranks must be known for every trace or for none \(summarise --rank N gives one\)" report --from-summaries --partial "$T/norank0.summary.json.zst" "$T/norank.summary.json"

# ---- 1,024 ranks (summaries written directly, tests/gen/gen_summaries.py) ----
python3 tests/gen/gen_summaries.py "$T/k" --world 1024 --steps 6 --slow-rank 100 || fail gen "gen_summaries failed"
gf report --from-summaries "$T/k"
expect_rc k-report-rc 0
cp "$T/out" "$T/k.txt"
lines=$(wc -l <"$T/k.txt")
if [ "$lines" -le 100 ]; then pass k-text-short; else fail k-text-short "$lines lines at 1,024 ranks"; fi
# a third into each half: ranks 170 and 682; the others wait 511 x 420 us x 6
expect_grep k-group1 "^  1 +group_a +512 +6 +0 +rank 170 +6 of 6 \(100%\) +1287\.720 +2\.520$" "$T/k.txt"
expect_grep k-group2 "^  2 +group_b +512 +6 +0 +rank 682 +6 of 6 \(100%\) +1287\.720 +2\.520$" "$T/k.txt"
expect_grep k-outlier "^  step wall ms +1024 +1\.000 +1\.003 +1\.006 +5\.000 +rank 100 \(5\.000\)$" "$T/k.txt"
expect_nogrep k-no-columns "^  per rank " "$T/k.txt"
gf report --from-summaries --format json "$T/k"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (len(d["per_rank"])==1024 and len(d["grid"]["wall_us"])==1024 and d["figures"][0]["outliers"]==[100]))' "$T/out" \
  && pass k-json || fail k-json "$(head -c 300 "$T/out")"

# ---- the corpus: NCCL kernels that carry their own args (no Seq) ----
if need_shared corpus-nccl-args; then
  N=$GF_SHARED/corpus/traces/hta/nccl_parser_config/nccl_data.json.gz
  gf summarise "$N"
  python3 -c '
import json,sys
d=json.load(open(sys.argv[1])); c=d["collectives"]
assert d["groups"]==[{"name":"0","desc":"default_pg","ranks":[0,1],"size":2}], d["groups"]
assert c["count"]==21 and set(c["group"])=={0} and set(c["seq"])=={None}, c["count"]
names=[c["names"][i] for i in c["collective"]]
assert names.count("allreduce")==15 and names.count("broadcast")==6, names
' "$T/out" && pass corpus-nccl-kernel-args || fail corpus-nccl-kernel-args "$(head -c 300 "$T/out")"
  # the same trace as rank 0 and rank 1: every collective ties, nobody is the straggler
  "$GFR" summarise "$N" -o "$T/n0.summary.json" 2>/dev/null
  "$GFR" summarise --rank 1 "$N" -o "$T/n1.summary.json" 2>/dev/null
  gf report --from-summaries "$T/n0.summary.json" "$T/n1.summary.json"
  expect_grep corpus-ties-no-straggler "^Verdict: No straggler: every one of the 21 matched collectives took as long on every rank" "$T/out"
  gf report "$N" "$N"
  expect_rc corpus-same-rank-twice 1
  expect_grep corpus-same-rank-twice-msg "are both rank 0: the same rank twice, or ranks of two runs" "$T/err"
fi

# ---- diff of two folders of ranks ----
D=800 gen "$T/slow" 2 || fail gen "gen_trace failed"
D=800 sums "$T/slow" "$T/s3" || fail summarise "$(head -c 300 "$T/sum.err")"
gf diff "$T/s2" "$T/s3"
expect_rc diff-ranks-rc 0
cp "$T/out" "$T/diff.txt"
# every rank's step is 380 us longer: the others wait 380 more in NCCL, the stragglers compute it
for r in 0 1 2 3 4 5 6 7; do
  expect_grep "diff-rank$r" "^  rank $r +[0-9.]+ +[0-9.]+ +\+0\.380 " "$T/diff.txt"
done
expect_grep diff-stack-nccl "record_param_comms;nccl +6 +0 +\+0\.380$" "$T/diff.txt"
expect_grep diff-stack-gemm ";gemm +2 +0 +\+0\.380$" "$T/diff.txt"
# folded files of the same ranks: the same totals (pruning keeps them exact)
mkdir -p "$T/f2" "$T/f3"
for r in 0 1 2 3 4 5 6 7; do
  "$GFR" fold "$T/pg2/r$r.json" >"$T/f2/r$r.folded" 2>/dev/null
  "$GFR" fold "$T/slow/r$r.json" >"$T/f3/r$r.folded" 2>/dev/null
done
gf diff "$T/f2" "$T/f3"
awk '/^  rank /{print $1, $2, $3, $4, $5}' "$T/out" >"$T/fd"
awk '/^  rank /{print $1, $2, $3, $4, $5}' "$T/diff.txt" >"$T/sd"
expect_same diff-folded-equals-summaries "$T/fd" "$T/sd"
# one rank's row is what 'gpuflame diff' of its two files says of the root (us -> ms)
"$GFR" diff --top 1 "$T/f2/r1.folded" "$T/f3/r1.folded" >"$T/one" 2>/dev/null
python3 - "$T/one" "$T/diff.txt" <<'PY' && pass diff-rank-as-pairwise || fail diff-rank-as-pairwise "$(head -3 "$T/one" | tr '\n' '|')"
import sys
from decimal import Decimal as D, ROUND_HALF_UP
lines = open(sys.argv[1]).read().split('\n')
one = lines[2].split()
row = [l.split() for l in open(sys.argv[2]) if l.startswith('  rank 1 ')][0]
# --top names the fold's unit: integer ns (fold's default since issue 26) or us
div = 1000000 if '(ns)' in lines[0] else 1000
ms = lambda v: str((D(v) / div).quantize(D('0.001'), ROUND_HALF_UP))
assert [ms(one[0]), ms(one[1])] == row[2:4], (one, row)
PY
gf diff "$T/s2" "$T/f3"; expect_rc diff-kinds-mixed 2
gf diff "$T/s2" "$T/pg2/r0.json"; expect_rc diff-folder-and-file 2
gf diff --svg "$T/s2" "$T/s3"; expect_rc diff-ranks-no-svg 2
exit 0
