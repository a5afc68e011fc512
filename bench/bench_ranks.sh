#!/usr/bin/env bash
# bench_ranks.sh — many ranks (issue 25): N = 8, 128 and 1,024 rank traces
# (bench/gen_trace.c --rank R --world N --pg 2 --steps S: two process groups,
# a straggler in each), and for each N, in one run:
#   - report N      the all-in-one `gpuflame report TRACE...` (-j 1: one rank
#                   at a time read on two cores; -j 2: two ranks at a time);
#   - summarise     `gpuflame summarise` of every trace through GNU parallel -j 2
#                   (the fan-out, here on this machine's two cores);
#   - combine       `gpuflame report --from-summaries` of the N summaries;
#   - baseline      the issue's "before": `report` of git rev BASE_REV (the
#                   integrator's main when issue 25 began: every rank's model
#                   kept to the end), built once into bench/out/rev-REV/; up
#                   to BASE_MAX ranks (128: at 1,024 it would hold them all).
# Each: wall, CPU (user + sys) and peak RSS (GNU time; summarise: the largest
# task's). Then the issue's targets, as PASS/FAIL lines:
#   - the combine's peak RSS at 1,024 ranks <= 1.5 x at 128;
#   - report -j 1 over N ranks <= one rank's peak (summarise of one trace) +
#     a bounded summary per rank (2 x the mean compressed summary, kept in
#     memory until the combine);
#   - both cores busy: CPU / wall >= 1.6 for report -j 2 and for summarise
#     through parallel.
# The outputs of report N and of the combine must be equal (checked).
# Usage: bench/bench_ranks.sh          (NS="8 128 1024" STEPS=6 BASE_REV=57615c8)
#        NS="8 128" bench/bench_ranks.sh    (quicker; the 1,024 case takes minutes)
# Traces and summaries go to bench/out/ranks (deleted at the end unless KEEP=1).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. bench/lib.sh
GF=${GF_REL:-build/rel/gpuflame}
[ -x "$GF" ] || { make -s all >/dev/null && GF=build/rel/gpuflame; }
GF=$(cd "$(dirname "$GF")" && pwd)/$(basename "$GF")
NS=${NS:-8 128 1024}
STEPS=${STEPS:-6}
BASE_REV=${BASE_REV:-57615c8}
D=${DIR:-$root/bench/out/ranks}
command -v parallel >/dev/null || { echo "GNU parallel missing (apt-get install parallel)"; exit 1; }
[ -x "$TIME" ] || { echo "GNU time missing (apt-get install time)"; exit 1; }
BASE=${BASE:-}
if [ -z "$BASE" ]; then
  BASE=$(build_rev "$BASE_REV") || BASE=none
fi
mkdir -p "$D"
cc -O2 -o "$D/gen_trace" bench/gen_trace.c || exit 1
echo "gpuflame: $GF; baseline: $BASE (git rev $BASE_REV); $(nproc) cores; $STEPS steps a rank, two process groups"
# The machine's own ceiling for "both cores busy": two independent CPU-bound
# processes at once (a shared host may give two vCPUs less than two cores:
# on the integrator's machine two such processes read cpu/wall 1.35).
printf 'int main(void){volatile unsigned long x=0;for(unsigned long i=0;i<400000000UL;i++)x+=i;return 0;}\n' >"$D/spin.c"
cc -O1 -o "$D/spin" "$D/spin.c" || exit 1
read -r W C K <<<"$(run_once "$D/err" bash -c "'$D/spin' & '$D/spin' & wait")"
ceil_cw=$(ratio "$C" "$W")
echo "this machine's ceiling: two CPU-bound processes at once read cpu/wall $ceil_cw (2.00 on two free cores)"
printf '%-7s %-18s %9s %9s %10s %8s\n' ranks run "wall s" "cpu s" "peak MB" "cpu/wall"

# one measured run: NAME CMD... -> prints a row, sets W C K (wall, cpu, kb)
row() {
  local n=$1 name=$2; shift 2
  local r
  r=$(run_once "$D/err" "$@") || { echo "$name failed: $(head -c 300 "$D/err")"; W=0 C=0 K=0; return 1; }
  read -r W C K <<<"$r"
  printf '%-7s %-18s %9.3f %9.2f %10.1f %8.2f\n' "$n" "$name" "$W" "$C" "$(mb "$K")" "$(ratio "$C" "$W")"
}
declare -A COMB_K REP1_K REP1_W ONE_K ZAVG
fails=0
target() { # NAME OK(0/1) TEXT
  if [ "$2" = 1 ]; then echo "PASS target: $1: $3"; else echo "FAIL target: $1: $3"; fails=$((fails + 1)); fi
}
for n in $NS; do
  t=$D/t$n s=$D/s$n
  rm -rf "$t" "$s"; mkdir -p "$t" "$s"
  for r in $(seq 0 $((n - 1))); do
    "$D/gen_trace" 100 1 --rank "$r" --world "$n" --pg 2 --steps "$STEPS" >"$t/rank$r.json" || exit 1
  done
  traces=$(ls "$t"/rank*.json | sort -V)
  bytes=$(cat "$t"/rank*.json | wc -c)
  echo "-- $n ranks: $((bytes / 1000000)) MB of traces ($((bytes / n / 1000)) KB a rank)"
  # shellcheck disable=SC2086
  row "$n" "report -j1" "$GF" report -j 1 -o "$D/rep$n.txt" $traces; REP1_W[$n]=$W REP1_K[$n]=$K
  # shellcheck disable=SC2086
  row "$n" "report -j2" "$GF" report -j 2 -o "$D/rep$n-j2.txt" $traces
  [ "$n" = "$(echo "$NS" | awk '{print $NF}')" ] && j2_cw=$(ratio "$C" "$W")
  if [ "$BASE" != none ] && [ "$n" -le "${BASE_MAX:-128}" ]; then
    # shellcheck disable=SC2086
    row "$n" "baseline report" "$BASE" report -o "$D/base$n.txt" $traces
    echo "   baseline / report -j1: wall $(ratio "$W" "${REP1_W[$n]}"), peak RSS $(ratio "$K" "${REP1_K[$n]}")"
  elif [ "$BASE" != none ]; then
    echo "   baseline report: not run above BASE_MAX=${BASE_MAX:-128} ranks (it holds every rank's model to the end)"
  fi
  # shellcheck disable=SC2086
  row "$n" "summarise (par 2)" parallel --will-cite -j 2 "$GF" summarise -j 1 {} -o "$s/{/.}.summary.json.zst" ::: $traces
  sum_cw=$(ratio "$C" "$W")
  row "$n" "combine" "$GF" report --from-summaries -o "$D/comb$n.txt" "$s"; COMB_K[$n]=$K
  row "$n" "summarise one" "$GF" summarise -j 1 "$t/rank0.json" -o "$D/one.summary.json.zst"; ONE_K[$n]=$K
  zbytes=$(cat "$s"/*.zst | wc -c)
  ZAVG[$n]=$((zbytes / n))
  echo "   summaries: $((zbytes / 1000)) KB in all, $((zbytes / n)) bytes a rank (zstd)"
  if cmp -s "$D/rep$n.txt" "$D/comb$n.txt" && cmp -s "$D/rep$n.txt" "$D/rep$n-j2.txt"; then
    echo "   report -j1 = report -j2 = combine: the same bytes"
  else
    echo "   FAIL: report and combine differ"; fails=$((fails + 1))
  fi
  grep -m2 "^  [12] " "$D/comb$n.txt" | sed 's/^/   /'
  # report over N ranks against one rank's peak + a bounded summary per rank
  bound=$((ONE_K[$n] + 2 * n * ZAVG[$n] / 1024))
  target "report-bounded-$n" "$([ "${REP1_K[$n]}" -le "$bound" ] && echo 1 || echo 0)" \
    "report -j1 peak $(mb "${REP1_K[$n]}") MB <= one rank's peak $(mb "${ONE_K[$n]}") MB + $n x 2 x ${ZAVG[$n]} B = $(mb "$bound") MB"
  target "summarise-both-cores-$n" "$(awk -v r="$sum_cw" 'BEGIN{print (r >= 1.6)}')" "summarise through parallel: cpu/wall $sum_cw (>= 1.6; this machine's ceiling $ceil_cw)"
done
if [ -n "${COMB_K[128]:-}" ] && [ -n "${COMB_K[1024]:-}" ]; then
  r=$(ratio "${COMB_K[1024]}" "${COMB_K[128]}")
  target combine-peak-1024-vs-128 "$(awk -v r="$r" 'BEGIN{print (r <= 1.5)}')" \
    "combine peak $(mb "${COMB_K[1024]}") MB at 1,024 ranks / $(mb "${COMB_K[128]}") MB at 128 = $r (<= 1.5)"
fi
[ -n "${j2_cw:-}" ] && target report-j2-both-cores "$(awk -v r="$j2_cw" 'BEGIN{print (r >= 1.6)}')" \
  "report -j 2 at the largest N: cpu/wall $j2_cw (>= 1.6; this machine's ceiling $ceil_cw: $(ratio "$j2_cw" "$ceil_cw") of it)"
[ "${KEEP:-0}" = 1 ] || rm -rf "$D"/t* "$D"/s*
echo "$fails target(s) failed"
exit 0
