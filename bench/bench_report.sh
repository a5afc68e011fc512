#!/usr/bin/env bash
# bench_report.sh — `gpuflame report --format json` and `gpuflame syncs`
# throughput and peak RSS on a generated decode-loop trace (tests/gen/
# gen_decode.py, the .item()-every-step shape of Flame Graphs for LLMs, in depth), next to the
# baseline measured in the same run: `gpuflame info` on the same file (the
# cost of reading alone). The analyses are linear: the goal is report <= 2x
# info and peak RSS <= 1/2 of the file.
# Usage: bench/bench_report.sh [STEPS]   (default 10000, ~220 MB); file in /tmp.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
GF=${GF_REL:-build/rel/gpuflame}
[ -x "$GF" ] || { make -s all >/dev/null && GF=build/rel/gpuflame; }
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "GNU time missing (apt-get install -y time)"; exit 1; }
steps=${1:-10000}
f=/tmp/bench_report_${steps}.json
[ -s "$f" ] || python3 tests/gen/gen_decode.py --variant sync --steps "$steps" -o "$f" || exit 1
bytes=$(stat -c %s "$f")
echo "-- trace $f: $((bytes / 1000000)) MB, $steps steps"

measure() { # label cmd... -> prints a line; sets $secs $kb
  local label=$1; shift
  "$TIME" -f '%e %M' -o /tmp/bench_report.time "$@" >/dev/null 2>/tmp/bench_report.err || {
    echo "$label: failed: $(head -c 300 /tmp/bench_report.err)"; secs=0; kb=0; return 1; }
  read -r secs kb </tmp/bench_report.time
  python3 -c "s=float('$secs') or 0.01; print('%-32s %7.2f s %8.1f MB/s %9d KB peak RSS' % ('$label', s, $bytes/1e6/s, $kb))"
}
ratio() { python3 -c "a=float('$1') or 0.01; b=float('$2') or 0.01; print('%.2f' % (a/b))"; }

measure "gpuflame info (baseline)" "$GF" info "$f"; info_s=$secs
measure "gpuflame report --format json" "$GF" report --format json "$f"; rep_s=$secs; rep_kb=$kb
measure "gpuflame report (text)" "$GF" report "$f"
measure "gpuflame syncs" "$GF" syncs "$f"
echo "report / info time ratio: $(ratio "$rep_s" "$info_s")   (goal <= 2.0)"
echo "report peak RSS / file size: $(python3 -c "print('%.3f' % ($rep_kb*1024/$bytes))")   (goal <= 0.5)"
