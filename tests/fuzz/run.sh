#!/usr/bin/env bash
# tests/fuzz/run.sh — run every libFuzzer target briefly, then replay its corpus.
#
# For each build/fuzz/fuzz_<name>: replays tests/fuzz/corpus/<name>/ (the
# regression seeds, committed), then fuzzes for FUZZ_SECONDS (default 15)
# from those seeds into a scratch copy. Prints PASS/FAIL per target.
# A crash leaves its input in build/fuzz/crash-<name>-* and fails.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
secs=${FUZZ_SECONDS:-15}
dir=${FUZZ_BUILD:-build/fuzz}
found=0
for f in "$dir"/fuzz_*; do
  [ -x "$f" ] || continue
  found=1
  name=$(basename "$f"); name=${name#fuzz_}
  seeds=tests/fuzz/corpus/$name
  work=$(mktemp -d)
  [ -d "$seeds" ] && cp -r "$seeds"/. "$work"/ 2>/dev/null
  if "$f" -runs=0 "$work" >"$work.log" 2>&1 &&
     "$f" -max_total_time="$secs" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
          -artifact_prefix="$dir/crash-$name-" "$work" >>"$work.log" 2>&1; then
    echo "PASS fuzz_$name ($(grep -Eo 'Done [0-9]+ runs in [0-9]+ second' "$work.log" | tail -1))"
  else
    echo "FAIL fuzz_$name: $(grep -E 'ERROR|SUMMARY|crash' "$work.log" | head -3 | tr '\n' ' ')"
  fi
  rm -rf "$work" "$work.log"
done
[ "$found" = 1 ] || echo "SKIP fuzz: no fuzz targets built (run make fuzz; needs clang)"
