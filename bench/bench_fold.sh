#!/usr/bin/env bash
# bench_fold.sh — `gpuflame fold --weight gpu` throughput and peak RSS on a
# ~200 MB and a ~1 GB generated trace (bench/gen_trace.c), next to the
# baselines measured in the same run:
#   - `gpuflame info` on the same file, both on one core (GPUFLAME_THREADS=1)
#     (goal: folding adds <= 30% over it); fold is also run with the default
#     two cores,
#   - bench/py_fold.py, a straightforward Python fold (json.load + per-thread
#     sort and sweep), on the 200 MB file only (json.load needs ~5x the file
#     in RAM; the 1 GB run would need ~6 GB) (goal: >= 100x faster),
#   - peak RSS of the fold vs the file size (goal: <= 1/4).
# Usage: bench/bench_fold.sh [SIZES_MB]   (default "200 1000"); files in /tmp.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
GF=${GF_REL:-build/rel/gpuflame}
[ -x "$GF" ] || { make -s all >/dev/null && GF=build/rel/gpuflame; }
cc -O2 -o /tmp/gen_trace bench/gen_trace.c || exit 1
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "GNU time missing (apt-get install -y time)"; exit 1; }

# The machine is shared, so wall time is noisy: ratios use CPU time (user + sys),
# wall time is printed too. gpuflame rows are the best of $RUNS runs (bench/lib.sh).
. "$root/bench/lib.sh"
measure() { # label file cmd... -> prints a row; sets $secs (CPU s) $wall $kb
  local label=$1 file=$2; shift 2
  local t u s
  t=$(best_time /tmp/bench_fold.err "$@") || {
    echo "$label: failed: $(head -c 300 /tmp/bench_fold.err)"; secs=0; kb=0; return 1; }
  read -r wall u s kb <<<"$t"
  secs=$(python3 -c "print('%.2f' % ($u + $s))")
  local mb
  mb=$(stat -c %s "$file")
  python3 -c "c=float('$secs') or 0.01; w=float('$wall') or 0.01; print('%-34s %7.2f s cpu %8.1f MB/s  %7.2f s wall %8.1f MB/s %9d KB peak RSS' % ('$label', c, $mb/1e6/c, w, $mb/1e6/w, $kb))"
}

for size in ${1:-200 1000}; do
  f=/tmp/bench_fold_${size}.json
  [ -s "$f" ] || /tmp/gen_trace "$size" 7 >"$f"
  bytes=$(stat -c %s "$f")
  echo "-- trace $f: $((bytes / 1000000)) MB"
  measure "gpuflame info (one core)" "$f" env GPUFLAME_THREADS=1 "$GF" info "$f"; info_s=$secs
  measure "gpuflame fold --weight gpu (one core)" "$f" env GPUFLAME_THREADS=1 "$GF" fold -q --weight gpu "$f"; fold_s=$secs; fold1_w=$wall
  measure "gpuflame fold --weight gpu" "$f" "$GF" fold -q --weight gpu "$f"; fold2_w=$wall; fold_kb=$kb
  echo "fold / info CPU time ratio (one core): $(ratio "$fold_s" "$info_s")   (goal <= 1.30)"
  echo "fold on two cores (default) vs one core, wall: $(ratio "$fold1_w" "$fold2_w")x faster"
  echo "fold peak RSS / file size: $(python3 -c "print('%.3f' % ($fold_kb*1024/$bytes))")   (goal <= 0.25)"
  if [ "$size" -le 300 ]; then
    measure "python py_fold.py (baseline)" "$f" python3 bench/py_fold.py "$f"; py_s=$secs; py_w=$wall
    echo "python / fold: wall $(ratio "$py_w" "$fold2_w")x (two cores), $(ratio "$py_w" "$fold1_w")x (one core); CPU time $(ratio "$py_s" "$fold_s")x (one core)   (goal >= 100x)"
  fi
  for w in cpu wall idle calls; do
    measure "gpuflame fold --weight $w" "$f" "$GF" fold -q --weight "$w" "$f"
  done
done
