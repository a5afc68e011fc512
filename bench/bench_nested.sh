#!/usr/bin/env bash
# bench_nested.sh — `gpuflame report`, `syncs` and `fold --weight idle
# --max-depth 3` (the idle stacks report shows) on traces of 10k/20k/40k/80k
# host ranges each nested inside the previous (tests/gen/gen_nested.py: one
# launch per window between two range starts or ends, a sync every other
# window, so gaps, idle stacks and sync sites all sit under deep stacks).
# Prints the time and peak RSS of each, the growth ratio from the previous
# size (linear: ~2.0 per doubling; quadratic: ~4.0) and the baseline of
# issue 16: report took 1 / 3.9 / 15 / 61 s at these sizes before the fix.
# GF_OLD=path/to/old/gpuflame also measures an old binary (up to OLD_MAX,
# default 20000 ranges: it is quadratic).
# (fold --weight idle without --max-depth prints every stack in full: on this
# shape its output alone is quadratic in N, so it is not timed here.)
# Then the step-marker shapes (gen_nested.py --shape steps: N ProfilerSteps
# each inside the previous; --shape overlap: N steps each holding half the
# trace), STEP_SIZES steps (default 4000 16000 64000): report, syncs, fold
# --weight idle --max-depth 3 and report of two ranks (the same trace twice).
# Before the fix report took 0.13 / 1.65 s at 1000 / 4000 nested steps and
# 0.23 / 3.16 s at 1000 / 4000 overlapping ones (release build).
# Usage: bench/bench_nested.sh [SIZES...]   files in /tmp.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. bench/lib.sh
GF=${GF_REL:-build/rel/gpuflame}
[ -x "$GF" ] || { make -s all >/dev/null && GF=build/rel/gpuflame; }
[ -x "$TIME" ] || { echo "GNU time missing (apt-get install -y time)"; exit 1; }
GF_OLD=${GF_OLD:-}
OLD_MAX=${OLD_MAX:-20000}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 20000 40000 80000)
declare -A base=([10000]=1 [20000]=3.9 [40000]=15 [80000]=61)

printf '%-42s %7s %10s %8s %8s %s\n' "command" "ranges" "time s" "growth" "RSS MB" "baseline (issue 16)"
for c in "report" "syncs" "fold --weight idle --max-depth 3"; do
  for bin in "$GF" $GF_OLD; do
    prev=""
    for n in "${sizes[@]}"; do
      [ "$bin" != "$GF" ] && [ "$n" -gt "$OLD_MAX" ] && continue
      f=/tmp/bench_nested_$n.json
      [ -s "$f" ] || python3 tests/gen/gen_nested.py --shape nested -n "$n" -o "$f" || exit 1
      # shellcheck disable=SC2086
      r=$(best_time /tmp/bench_nested.err "$bin" $c "$f") || { echo "$c $n: failed: $(head -c 300 /tmp/bench_nested.err)"; continue; }
      read -r w _ _ k <<<"$r"
      g="-"
      [ -n "$prev" ] && g=$(ratio "$w" "$prev")
      b="-"
      [ "$c" = report ] && [ -n "${base[$n]:-}" ] && b="${base[$n]} s"
      label="$c"
      [ "$bin" != "$GF" ] && label="$c (old)"
      printf '%-42s %7d %10s %8s %8d %s\n' "$label" "$n" "$w" "$g" $((k / 1024)) "$b"
      prev=$w
    done
  done
done

step_sizes=(${STEP_SIZES:-4000 16000 64000})
printf '\n%-42s %7s %10s %8s %8s\n' "command (step shapes)" "steps" "time s" "growth" "RSS MB"
for shape in steps overlap; do
  for c in "report" "syncs" "fold --weight idle --max-depth 3" "report (2 ranks)"; do
    for bin in "$GF" $GF_OLD; do
      prev=""
      for n in "${step_sizes[@]}"; do
        [ "$bin" != "$GF" ] && [ "$n" -gt 4000 ] && continue
        f=/tmp/bench_${shape}_$n.json
        [ -s "$f" ] || python3 tests/gen/gen_nested.py --shape "$shape" -n "$n" -o "$f" || exit 1
        if [ "$c" = "report (2 ranks)" ]; then
          r=$(best_time /tmp/bench_nested.err "$bin" report "$f" "$f")
        else
          # shellcheck disable=SC2086
          r=$(best_time /tmp/bench_nested.err "$bin" $c "$f")
        fi || { echo "$c $n: failed: $(head -c 300 /tmp/bench_nested.err)"; continue; }
        read -r w _ _ k <<<"$r"
        g="-"
        [ -n "$prev" ] && g=$(ratio "$w" "$prev")
        label="$c [$shape]"
        [ "$bin" != "$GF" ] && label="$c [$shape] (old)"
        printf '%-42s %7d %10s %8s %8d\n' "$label" "$n" "$w" "$g" $((k / 1024))
        prev=$w
      done
    done
  done
done
