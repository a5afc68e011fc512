#!/usr/bin/env bash
# bench_store.sh — the release store (issue 15): `store add` and `store diff` at scale on
# SQLite and PostgreSQL, beside `gpuflame diff` of the same two folded files.
#
# RUNS runs (default 20) of STACKS stacks (default 100000: the issue's size per run),
# 95% shared between runs (gen_store_runs.py), added one by one; prints per engine the
# add time of the first and the last 5 runs (flat = cost independent of what the store
# holds already), stacks/s, peak RSS, the database's bytes per run, then `store diff`
# of the first and the last run against `gpuflame diff` of their two folded files, and
# the extrapolation to the issue's 1,000 runs x 100k stacks (add: 1,000 x the last-runs
# time; size: 1,000 x bytes/run; diff: unchanged, it reads two runs by index).
# PostgreSQL: a private server (tests/cli/pg.inc), fsync on. Scratch: bench/out/store.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. bench/lib.sh
GF_REL=${GF_REL:-$root/build/rel/gpuflame}
NRUNS=${RUNS_STORE:-20}
STACKS=${STACKS:-100000}
D=$root/bench/out/store
rm -rf "$D"; mkdir -p "$D"
python3 bench/gen_store_runs.py "$D/runs" "$NRUNS" "$STACKS"
files=("$D"/runs/r*.folded)
first=${files[0]} last=${files[$((NRUNS - 1))]}
T=$D/tmp; mkdir -p "$T"
RUNS=3 # best_run's repeats

bench_engine() { # name url size_cmd
  local name=$1 url=$2 i r w c k sum_first=0 sum_last=0 peak=0
  for i in $(seq 0 $((${#files[@]} - 1))); do
    r=$(run_once "$T/err" "$GF_REL" store add --db "$url" --release "r$i" "${files[$i]}") ||
      { echo "$name: add failed: $(cat "$T/err")"; return 1; }
    read -r w c k <<<"$r"
    [ "$k" -gt "$peak" ] && peak=$k
    [ "$i" -lt 5 ] && sum_first=$(awk -v a="$sum_first" -v b="$w" 'BEGIN { print a + b }')
    [ "$i" -ge $((${#files[@]} - 5)) ] && sum_last=$(awk -v a="$sum_last" -v b="$w" 'BEGIN { print a + b }')
  done
  local bytes; bytes=$($3)
  local d; d=$(best_run "$T/err" "$GF_REL" store diff --db "$url" r0 "r$((${#files[@]} - 1))") ||
    { echo "$name: diff failed: $(cat "$T/err")"; return 1; }
  local base; base=$(best_run "$T/err" "$GF_REL" diff "$first" "$last")
  "$GF_REL" store diff --db "$url" r0 "r$((${#files[@]} - 1))" >"$T/a"
  "$GF_REL" diff "$first" "$last" >"$T/b"
  local same=different; cmp -s "$T/a" "$T/b" && same=identical
  awk -v n="$name" -v f="$sum_first" -v l="$sum_last" -v s="$STACKS" -v p="$peak" -v b="$bytes" -v R="${#files[@]}" \
      -v d="${d%% *}" -v dk="${d##* }" -v g="${base%% *}" -v same="$same" 'BEGIN {
    printf "%-10s add: first 5 runs %.3f s/run, last 5 %.3f s/run (growth %.2fx), %.0f stacks/s, peak RSS %.1f MB\n",
      n, f / 5, l / 5, (l / 5) / (f / 5), s / (l / 5), p / 1024
    printf "%-10s size: %.1f MB for %d runs = %.2f MB/run -> 1,000 runs: %.1f GB; add at 1,000 runs: %.0f s in all\n",
      n, b / 1048576, R, b / 1048576 / R, b / R * 1000 / 1073741824, l / 5 * 1000
    printf "%-10s diff of two runs: %.3f s (peak %.1f MB) vs gpuflame diff of the two folded files %.3f s: ratio %.2f; outputs %s\n",
      n, d, dk / 1024, g, d / (g > 0 ? g : 0.001), same
  }'
}

echo "store: $NRUNS runs x $STACKS stacks ($(du -sh "$D/runs" | cut -f1) of folded text)"
sq_size() { du -cb "$D/s.db"* | tail -1 | cut -f1; }
bench_engine sqlite "$D/s.db" sq_size
if [ -x "$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | tail -1)/initdb" ]; then
  . tests/cli/pg.inc
  trap 'pg_stop' EXIT
  if pg_start; then
    pg_size() { $PG_PSQL -c "SELECT pg_database_size('gftest')"; }
    bench_engine postgresql "$PG_URL" pg_size
  fi
else
  echo "postgresql: not installed (scripts/deps.sh bench installs it)"
fi
rm -rf "$D"
