#!/usr/bin/env bash
# tests/fuzz/run.sh — run every libFuzzer target briefly, then replay its corpus.
#
# For each build/fuzz/fuzz_<name>: replays tests/fuzz/corpus/<name>/ (the
# regression seeds, committed), then fuzzes for FUZZ_SECONDS (default 15)
# from those seeds into a scratch copy. Prints PASS/FAIL per target.
# A crash leaves its input in build/fuzz/crash-<name>-* and fails.
#
# FUZZ_JOBS=N runs N targets at a time (default 1). The long run that issue 16
# asks for (ten minutes a target, documented in docs/cli.md):
#   make fuzz && FUZZ_SECONDS=600 FUZZ_JOBS=2 tests/fuzz/run.sh
# FUZZ_KEEP=DIR keeps each target's grown corpus in DIR/<name> (to read what
# it found, or to seed the next run); it is never committed whole.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
secs=${FUZZ_SECONDS:-15}
jobs=${FUZZ_JOBS:-1}
dir=${FUZZ_BUILD:-build/fuzz}
keep=${FUZZ_KEEP:-}
res=$(mktemp -d); trap 'rm -rf "$res"' EXIT

one() { # target -> $res/<name>.line
  local f=$1 name; name=$(basename "$f"); name=${name#fuzz_}
  local seeds=tests/fuzz/corpus/$name work
  work=$(mktemp -d)
  [ -d "$seeds" ] && cp -r "$seeds"/. "$work"/ 2>/dev/null
  if "$f" -runs=0 "$work" >"$work.log" 2>&1 &&
     "$f" -max_total_time="$secs" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
          -artifact_prefix="$dir/crash-$name-" "$work" >>"$work.log" 2>&1; then
    echo "PASS fuzz_$name ($(grep -Eo 'Done [0-9]+ runs in [0-9]+ second' "$work.log" | tail -1))" >"$res/$name.line"
  else
    echo "FAIL fuzz_$name: $(grep -E 'ERROR|SUMMARY|crash' "$work.log" | head -3 | tr '\n' ' ')" >"$res/$name.line"
  fi
  if [ -n "$keep" ]; then mkdir -p "$keep/$name" && cp -r "$work"/. "$keep/$name"/; fi
  rm -rf "$work" "$work.log"
}

found=0 running=0
for f in "$dir"/fuzz_*; do
  [ -x "$f" ] || continue
  found=1
  one "$f" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait
for l in "$res"/*.line; do [ -f "$l" ] && cat "$l"; done
[ "$found" = 1 ] || echo "SKIP fuzz: no fuzz targets built (run make fuzz; needs clang)"
