#!/usr/bin/env bash
# bench_svg.sh — `gpuflame svg` on the reference synthetic input (200,000
# random stacks, depth 5-60, 5,000 names, ~167 MB, ~5.1 M tree nodes; made
# once by ../shared/tools/gen_synthetic_folded.py 200000 42 into /tmp), next to
# flamegraph.pl measured in the same run when a copy is available.
#
# flamegraph.pl is CDDL and never part of this repository: point FLAMEGRAPH at
# a checkout's flamegraph.pl (default /tmp/FlameGraph/flamegraph.pl, e.g.
# `git clone https://github.com/brendangregg/FlameGraph /tmp/FlameGraph`).
# Without it the documented baseline (renderers.md section 6: 49.9 s median,
# 2.22 GB peak RSS on a 2-vCPU machine) is printed, labelled "documented, not
# measured".
# Prints wall and CPU (user + system) seconds, input MB/s and peak RSS (GNU
# time) for each, the ratios, and the number of frames each SVG draws. On a
# shared machine the CPU ratio is the steadier one (the documented baseline's
# CPU time is about 36 s user).
# Environment: GF (default build/rel/gpuflame), SYNTH (/tmp/synth.folded),
# FLAMEGRAPH, GF_SHARED (default ../shared), RUNS (gpuflame runs, median; 3).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
GF=${GF_REL:-build/rel/gpuflame}   # the release binary under test
SYNTH=${SYNTH:-/tmp/synth.folded}
FLAMEGRAPH=${FLAMEGRAPH:-/tmp/FlameGraph/flamegraph.pl}
GF_SHARED=${GF_SHARED:-$root/../shared}
RUNS=${RUNS:-3}
TIME=/usr/bin/time
OUT=bench/out
mkdir -p "$OUT"
[ -x "$GF" ] || { echo "build $GF first (make)"; exit 1; }
[ -x "$TIME" ] || { echo "needs GNU time (apt-get install -y time)"; exit 1; }
if [ ! -s "$SYNTH" ]; then
  gen=$GF_SHARED/tools/gen_synthetic_folded.py
  [ -f "$gen" ] || { echo "no $SYNTH and no generator at $gen"; exit 1; }
  echo "generating $SYNTH (200000 lines, seed 42) ..."
  python3 "$gen" 200000 42 > "$SYNTH.tmp" && mv "$SYNTH.tmp" "$SYNTH"
fi
bytes=$(wc -c < "$SYNTH")
echo "input: $SYNTH, $(wc -l < "$SYNTH") lines, $(awk -v b="$bytes" 'BEGIN {printf "%.1f", b/1048576}') MB"

measure() { # label, out, command... -> "secs kb" in $OUT/last
  local label=$1 out=$2; shift 2
  if ! $TIME -f '%e %M %U %S' -o "$OUT/time" "$@" > "$out" 2> "$OUT/stderr"; then
    echo "$label: failed: $(tail -2 "$OUT/stderr")"; return 1
  fi
  read -r secs kb usr sys < "$OUT/time"
  cpu=$(awk -v u="$usr" -v s="$sys" 'BEGIN {print u + s}')
  printf '%-28s %8.2f s (cpu %6.2f s) %8.1f MB/s  peak RSS %8.1f MB  %6d frames\n' "$label" "$secs" "$cpu" \
    "$(awk -v b="$bytes" -v s="$secs" 'BEGIN {print (s > 0 ? b / 1048576 / s : 0)}')" \
    "$(awk -v k="$kb" 'BEGIN {print k / 1024}')" "$(grep -c '<rect' "$out")"
  echo "$secs $kb $cpu" > "$OUT/last"
}

# gpuflame: median of RUNS runs
: > "$OUT/gf-runs"
for i in $(seq "$RUNS"); do
  measure "gpuflame svg (run $i)" "$OUT/synth-gpuflame.svg" "$GF" svg "$SYNTH" || exit 1
  cat "$OUT/last" >> "$OUT/gf-runs"
done
read -r s_gf kb_gf c_gf < <(sort -n "$OUT/gf-runs" | awk -v n="$RUNS" 'NR == int((n + 1) / 2)')
echo "gpuflame median: $s_gf s (cpu $c_gf s), peak RSS $(awk -v k="$kb_gf" 'BEGIN {printf "%.1f", k/1024}') MB"

if [ -f "$FLAMEGRAPH" ] && command -v perl >/dev/null; then
  if measure "flamegraph.pl (measured)" "$OUT/synth-flamegraph.svg" perl "$FLAMEGRAPH" "$SYNTH"; then
    read -r s_fg kb_fg c_fg < "$OUT/last"
    label="measured in this run"
  else
    s_fg=49.9; c_fg=36; kb_fg=$((2220 * 1024)); label="documented, not measured (flamegraph.pl failed)"
  fi
else
  s_fg=49.9; c_fg=36; kb_fg=$((2220 * 1024))
  label="documented, not measured (renderers.md 6; set FLAMEGRAPH to measure)"
  printf '%-28s %8.2f s  %8s       peak RSS %8.1f MB  (%s)\n' "flamegraph.pl" "$s_fg" "" 2220 "$label"
fi
echo "ratio vs flamegraph.pl ($label):" \
  "wall time $(awk -v a="$s_fg" -v o="$s_gf" 'BEGIN {printf "%.1fx faster", a / o}')," \
  "cpu time $(awk -v a="$c_fg" -v o="$c_gf" 'BEGIN {printf "%.1fx less", a / o}')," \
  "peak RSS $(awk -v a="$kb_fg" -v o="$kb_gf" 'BEGIN {printf "%.3f of it (%.1fx less)", o / a, a / o}')" \
  "[targets: >= 100x faster, <= 0.1 of the memory]"
