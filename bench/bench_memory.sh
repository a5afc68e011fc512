#!/usr/bin/env bash
# bench_memory.sh — peak RSS and time of `gpuflame top` and `gpuflame svg` on
# 1 M, 3 M and 10 M unique folded stacks (issue 16: memory per stack should be
# a small multiple of its bytes), with the RSS / input ratio, next to the
# baseline measured before the fix on the 10 M input (226.8 MB, the shape of
# the issue's 229 MB one): top 3837 MB in 29.5 s, svg 1428 MB in 9.6 s
# (16.9x and 6.3x the input; MB here are 2^20 bytes, as GNU time counts). Set BASE to an older binary to measure it in
# the same run instead (e.g. BASE=../main/build/rel/gpuflame).
#
# Input: "main;b<i/10>;c<i> 1" for i < N (made with awk under /tmp, once):
# N unique stacks, 1.1 N + 1 frame names, every stack a leaf — the worst
# case for memory per stack: nothing is shared but two frames, and `top`
# prints a row per name. Each command runs on the named file (svg's mapped,
# pruned path; top's tree) with its output to /dev/null.
# Environment: GF_REL (default build/rel/gpuflame), SIZES ("1 3 10", in
# millions), RUNS (bench/lib.sh: best of 3 by wall time; RUNS=1 for one),
# BASE (optional older binary), DIR (/tmp/gf-bench-memory).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
GF=${GF_REL:-build/rel/gpuflame}
SIZES=${SIZES:-1 3 10}
DIR=${DIR:-/tmp/gf-bench-memory}
BASE=${BASE:-}
[ -x "$GF" ] || { echo "build $GF first (make)"; exit 1; }
. "$root/bench/lib.sh"
[ -x "$TIME" ] || { echo "needs GNU time (apt-get install -y time)"; exit 1; }
mkdir -p "$DIR"

# row LABEL BYTES CMD... -> "label  wall s  cpu s  peak MB  ratio"; sets $kb $wall
row() {
  local label=$1 bytes=$2; shift 2
  local t u s
  t=$(best_time "$DIR/err" "$@") || {
    echo "$label: failed: $(head -c 300 "$DIR/err")"; kb=0; wall=0; return 1; }
  read -r wall u s kb <<<"$t"
  printf '%-30s %7.2f s  cpu %7.2f s  peak RSS %8.1f MB  RSS/input %5.2f\n' "$label" "$wall" \
    "$(awk -v u="$u" -v s="$s" 'BEGIN {print u + s}')" "$(awk -v k="$kb" 'BEGIN {print k / 1024}')" \
    "$(awk -v k="$kb" -v b="$bytes" 'BEGIN {print k * 1024 / b}')"
}

for m in $SIZES; do
  f=$DIR/u${m}m.folded
  if [ ! -s "$f" ]; then
    awk -v n="$((m * 1000000))" 'BEGIN { for (i = 0; i < n; i++) printf "main;b%d;c%d 1\n", int(i / 10), i }' >"$f.tmp" &&
      mv "$f.tmp" "$f" || { echo "cannot write $f"; exit 1; }
  fi
  bytes=$(wc -c <"$f")
  echo "== $m M unique stacks: $(awk -v b="$bytes" 'BEGIN {printf "%.1f", b / 1048576}') MB"
  row "gpuflame top" "$bytes" "$GF" top "$f"
  top_kb=$kb
  row "gpuflame svg" "$bytes" "$GF" svg "$f"
  svg_kb=$kb
  if [ -n "$BASE" ] && [ -x "$BASE" ]; then
    row "baseline top ($BASE)" "$bytes" "$BASE" top "$f" &&
      echo "top peak RSS: $(ratio "$kb" "$top_kb")x less than the baseline"
    row "baseline svg ($BASE)" "$bytes" "$BASE" svg "$f" &&
      echo "svg peak RSS: $(ratio "$kb" "$svg_kb")x less than the baseline"
  elif [ "$m" = 10 ]; then
    echo "baseline (before the fix, documented, not measured): top 3837 MB in 29.5 s (16.9x)," \
      "svg 1428 MB in 9.6 s (6.3x)"
    echo "peak RSS vs baseline: top $(ratio $((3928944)) "$top_kb")x less," \
      "svg $(ratio $((1462264)) "$svg_kb")x less   (goal: RSS/input <= ~3)"
  fi
done
