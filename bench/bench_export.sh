#!/usr/bin/env bash
# bench_export.sh — `gpuflame export` (issue 14) throughput, peak RSS and
# growth on generated decode-loop traces (tests/gen/gen_decode.py) of two
# sizes, next to the baselines measured in the same run: `gpuflame report
# --format json` (the model and gap analysis the perfetto export builds) and
# `gpuflame fold` x4 weights (what speedscope/pprof fold), plus `cat` and
# `gzip -1` for the streamed copy. Goals: the perfetto export's peak RSS
# within 1.2x report's (the copy streams: it adds a fixed 64 KiB buffer and
# the compressor, never the file), and every export's time and RSS growing
# no faster than the input (LARGE/SMALL ratios <= input ratio x 1.1).
# Usage: bench/bench_export.sh [SMALL_STEPS LARGE_STEPS]  (default 1000 4000)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
GF=${GF_REL:-build/rel/gpuflame}
[ -x "$GF" ] || { make -s all >/dev/null && GF=build/rel/gpuflame; }
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "GNU time missing (apt-get install -y time)"; exit 1; }
small=${1:-1000}; large=${2:-4000}
o=$(mktemp -d); trap 'rm -rf "$o"' EXIT

measure() { # label bytes cmd... -> prints a line; sets $secs $kb
  local label=$1 bytes=$2; shift 2
  "$TIME" -f '%e %M' -o "$o/time" "$@" >/dev/null 2>"$o/err" || {
    echo "$label: failed: $(head -c 300 "$o/err")"; secs=0; kb=0; return 1; }
  read -r secs kb <"$o/time"
  python3 -c "s=float('$secs') or 0.01; print('%-40s %7.2f s %8.1f MB/s %9d KB peak RSS' % ('$label', s, $bytes/1e6/s, $kb))"
}
ratio() { python3 -c "a=float('$1') or 0.01; b=float('$2') or 0.01; print('%.2f' % (a/b))"; }

declare -A S K
for n in "$small" "$large"; do
  f=/tmp/bench_export_$n.json
  [ -s "$f" ] || python3 tests/gen/gen_decode.py --variant sync --steps "$n" -o "$f" || exit 1
  b=$(stat -c %s "$f"); S[bytes$n]=$b
  echo "-- trace $f: $((b / 1000000)) MB, $n steps"
  measure "cat (copy baseline)" "$b" cat "$f"
  measure "gzip -1 (copy baseline)" "$b" gzip -1c "$f"
  measure "report --format json (model baseline)" "$b" "$GF" report --format json "$f"; S[rep$n]=$secs; K[rep$n]=$kb
  fsum=0; fkb=0
  for w in gpu cpu wall idle; do
    measure "fold -w $w (baseline)" "$b" "$GF" fold -q -w $w "$f"
    fsum=$(python3 -c "print($fsum + $secs)"); [ "$kb" -gt "$fkb" ] && fkb=$kb
  done
  S[fold$n]=$fsum; K[fold$n]=$fkb
  for x in perfetto:json perfetto:json.gz perfetto:json.zst speedscope:json pprof:pb.gz; do
    to=${x%%:*}; ext=${x#*:}
    measure "export --to $to (.$ext)" "$b" "$GF" export --to "$to" -q -o "$o/x.$ext" "$f"
    S[$to.$ext$n]=$secs; K[$to.$ext$n]=$kb
  done
done
grow=$(ratio "${S[bytes$large]}" "${S[bytes$small]}")
echo "-- input grows ${grow}x ($small -> $large steps)"
for k in perfetto.json perfetto.json.gz perfetto.json.zst speedscope.json pprof.pb.gz; do
  echo "$k: time x$(ratio "${S[$k$large]}" "${S[$k$small]}"), RSS x$(ratio "${K[$k$large]}" "${K[$k$small]}")"
done
echo "perfetto (plain) / report at $large steps: time $(ratio "${S[perfetto.json$large]}" "${S[rep$large]}"), RSS $(ratio "${K[perfetto.json$large]}" "${K[rep$large]}")   (goal RSS <= 1.2)"
echo "speedscope / 4 folds at $large steps: time $(ratio "${S[speedscope.json$large]}" "${S[fold$large]}"), RSS $(ratio "${K[speedscope.json$large]}" "${K[fold$large]}")"
echo "pprof / 4 folds at $large steps: time $(ratio "${S[pprof.pb.gz$large]}" "${S[fold$large]}"), RSS $(ratio "${K[pprof.pb.gz$large]}" "${K[fold$large]}")"
