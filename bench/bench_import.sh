#!/usr/bin/env bash
# bench_import.sh — `gpuflame fold` importing perf script text (the
# stackcollapse-perf.pl rules), at two sizes, next to stackcollapse-perf.pl
# itself measured in the same run when a copy is available.
#
# Input: FlameGraph's example-perf-stacks.txt.gz (3.1 MB of perf script, in
# ../shared) repeated COPIES (default 30, ~94 MB) and 3*COPIES times into
# /tmp. stackcollapse-perf.pl is CDDL and never part of this repository:
# point COLLAPSE at a checkout's copy (default /tmp/FlameGraph/
# stackcollapse-perf.pl); without it only gpuflame is measured.
# Prints wall and CPU seconds, MB/s and peak RSS (GNU time) for each, the
# ratios, the growth from the small to the large input (linear cost: ~3x
# the time, the same memory: the distinct stacks are the same), and checks
# that both tools print the same bytes.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
GF=${GF_REL:-build/rel/gpuflame}
GF_SHARED=${GF_SHARED:-$root/../shared}
COLLAPSE=${COLLAPSE:-/tmp/FlameGraph/stackcollapse-perf.pl}
COPIES=${COPIES:-30}
TIME=/usr/bin/time
OUT=bench/out
mkdir -p "$OUT"
[ -x "$GF" ] || { echo "build $GF first (make)"; exit 1; }
[ -x "$TIME" ] || { echo "needs GNU time (apt-get install -y time)"; exit 1; }
src=$GF_SHARED/corpus/flamegraph/brendangregg-FlameGraph/example-perf-stacks.txt.gz
[ -f "$src" ] || { echo "no $src"; exit 1; }
zcat "$src" >"$OUT/perf1.txt"
small=/tmp/gf-perf-small.txt large=/tmp/gf-perf-large.txt
[ -s "$small" ] || for i in $(seq "$COPIES"); do cat "$OUT/perf1.txt"; done >"$small"
[ -s "$large" ] || for i in 1 2 3; do cat "$small"; done >"$large"

measure() { # label file out command... -> "$secs $kb $cpu" in $OUT/last
  local label=$1 in=$2 out=$3; shift 3
  if ! $TIME -f '%e %M %U %S' -o "$OUT/time" "$@" >"$out" 2>"$OUT/stderr"; then
    echo "$label: failed: $(tail -2 "$OUT/stderr")"; return 1
  fi
  read -r secs kb usr sys <"$OUT/time"
  local bytes; bytes=$(wc -c <"$in")
  cpu=$(awk -v u="$usr" -v s="$sys" 'BEGIN {print u + s}')
  printf '%-34s %7.2f s (cpu %6.2f s) %8.1f MB/s  peak RSS %7.1f MB\n' "$label" "$secs" "$cpu" \
    "$(awk -v b="$bytes" -v s="$secs" 'BEGIN {print (s > 0 ? b / 1048576 / s : 0)}')" \
    "$(awk -v k="$kb" 'BEGIN {print k / 1024}')"
  echo "$secs $kb $cpu" >"$OUT/last"
}

for f in "$small" "$large"; do
  echo "input: $f, $(awk -v b="$(wc -c <"$f")" 'BEGIN {printf "%.1f", b / 1048576}') MB"
  measure "gpuflame fold" "$f" "$OUT/gf.folded" "$GF" fold "$f" || exit 1
  read -r s_gf kb_gf c_gf <"$OUT/last"
  echo "$s_gf $kb_gf $c_gf" >"$OUT/gf-$(basename "$f")"
  if [ -f "$COLLAPSE" ] && command -v perl >/dev/null; then
    measure "stackcollapse-perf.pl (measured)" "$f" "$OUT/pl.folded" perl "$COLLAPSE" "$f" || continue
    read -r s_pl kb_pl c_pl <"$OUT/last"
    cmp -s "$OUT/gf.folded" "$OUT/pl.folded" && same=yes || same=NO
    echo "ratio vs stackcollapse-perf.pl: wall $(awk -v a="$s_pl" -v o="$s_gf" 'BEGIN {printf "%.1fx faster", a / o}')," \
      "cpu $(awk -v a="$c_pl" -v o="$c_gf" 'BEGIN {printf "%.1fx less", a / o}')," \
      "peak RSS $(awk -v a="$kb_pl" -v o="$kb_gf" 'BEGIN {printf "%.2f of it", o / a}'); same output: $same"
  fi
done
read -r s1 kb1 c1 <"$OUT/gf-$(basename "$small")"
read -r s3 kb3 c3 <"$OUT/gf-$(basename "$large")"
echo "growth small -> large (3x input): cpu $(awk -v a="$c1" -v b="$c3" 'BEGIN {printf "%.2fx", b / a}')," \
  "peak RSS $(awk -v a="$kb1" -v b="$kb3" 'BEGIN {printf "%.2fx", b / a}')"
