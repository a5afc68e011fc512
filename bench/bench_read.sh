#!/usr/bin/env bash
# bench_read.sh — the trace reader (`gpuflame info`) on a ~1 GB generated
# torch 2.x trace (bench/gen_trace.c, seed 1), plain, .gz and .zst, next to
# the baselines measured in the same run:
#   - plain: `cat > /dev/null` (page-cache copy; GNU cat may splice, so it is
#     an upper bound) and Python's json.load (on a ~200 MB trace of the same
#     generator: json.load needs ~5x the file in RAM; say so in the output);
#   - .gz: `zcat > /dev/null` and zlib's inflate alone (Python zlib, streamed);
#   - .zst: `zstdcat > /dev/null`;
#   - the machine: simdjson's On-Demand parser (bench/ref_simdjson.cpp, Debian's
#     libsimdjson-dev) pulling the same fields out of the same 1 GB file on one
#     core, parse time only (its load into memory is left out): what the
#     fastest general JSON parser does here, to read the 1 GB/s goal against.
# Goals (issue 3): plain >= 1000 MB/s on one core (GPUFLAME_THREADS=1; the
# default also parses on a second core, shown next to it); .gz time <= 1.2x
# zcat; peak RSS <= 1/4 of the file size. Files are generated once under /tmp/gpuflame-bench/.
# Usage: bench/bench_read.sh [SIZE_MB]   (default 1000)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
GF=${GF_REL:-build/rel/gpuflame}
[ -x "$GF" ] || { make -s all >/dev/null && GF=build/rel/gpuflame; }
D=/tmp/gpuflame-bench
mkdir -p "$D"
bash scripts/deps.sh bench || echo "(scripts/deps.sh bench failed: some reference rows may be missing)"
cc -O2 -o "$D/gen_trace" bench/gen_trace.c || exit 1
ref=""
if [ -f /usr/include/simdjson.h ] && g++ -O2 -std=c++17 -o "$D/ref_simdjson" bench/ref_simdjson.cpp -lsimdjson; then
  ref=$D/ref_simdjson
fi
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "GNU time missing (apt-get install -y time)"; exit 1; }
size=${1:-1000}
f=$D/t${size}.json
[ -s "$f" ] || "$D/gen_trace" "$size" 1 >"$f"
[ -s "$f.gz" ] || gzip -6 -c "$f" >"$f.gz"
[ -s "$f.zst" ] || zstd -q -3 -c "$f" >"$f.zst"
small=$D/t200.json
[ -s "$small" ] || "$D/gen_trace" 200 1 >"$small"
bytes=$(stat -c %s "$f")

# measure LABEL CMD... : sets $secs (wall) $cpu (user+sys) $kb and prints a
# row; MB/s are of JSON text, by wall time and by CPU time (the CPU figure is
# the one to trust on a loaded machine; for the threaded .gz/.zst reads it sums
# both threads, so compare their wall times).
# Every row is the best of $RUNS runs (bench/lib.sh).
. "$root/bench/lib.sh"
measure() {
  local label=$1; shift
  local t u s
  t=$(best_time "$D/err" "$@") || {
    echo "$label: failed: $(head -c 300 "$D/err")"; secs=0; cpu=0; kb=0; return 1; }
  read -r secs u s kb <<<"$t"
  cpu=$(python3 -c "print('%.2f' % ($u + $s))")
  python3 -c "w=float('$secs') or 0.01; c=float('$cpu') or 0.01; print('%-36s %6.2f s wall %6.0f MB/s | %6.2f s cpu %6.0f MB/s | %8d KB peak RSS' % ('$label', w, $mbytes/1e6/w, c, $mbytes/1e6/c, $kb))"
}

echo "-- $f: $((bytes / 1000000)) MB JSON, .gz $(( $(stat -c %s "$f.gz") / 1000000 )) MB, .zst $(( $(stat -c %s "$f.zst") / 1000000 )) MB (MB/s of JSON text)"
mbytes=$bytes
cat "$f" >/dev/null # warm the page cache
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
measure "cat > /dev/null" cat "$f"; cat_s=$secs
measure "gpuflame info (plain, one core)" env GPUFLAME_THREADS=1 "$GF" info "$f"; plain_s=$secs; plain_kb=$kb; plain_cpu=$cpu
measure "gpuflame info (plain, two cores)" "$GF" info "$f"; two_s=$secs; two_kb=$kb; two_cpu=$cpu
ref_ms=""
if [ -n "$ref" ]; then
  # fastest parse of $RUNS (the line it prints: "..., parse N ms, ...")
  for i in $(seq "$RUNS"); do
    line=$("$ref" "$f") || { echo "simdjson reference failed"; ref_ms=""; break; }
    ms=$(sed -n 's/.*, parse \([0-9]*\) ms,.*/\1/p' <<<"$line")
    if [ -n "$ms" ] && { [ -z "$ref_ms" ] || [ "$ms" -lt "$ref_ms" ]; }; then ref_ms=$ms; fi
  done
  [ -n "$ref_ms" ] && echo "${line%%:*}, one core, parse only: $ref_ms ms, $(python3 -c "print('%.0f' % ($bytes/1e3/$ref_ms))") MB/s"
else
  echo "simdjson reference: skipped (g++ and libsimdjson-dev missing: scripts/deps.sh bench)"
fi
measure "zcat > /dev/null" zcat "$f.gz"; zcat_s=$secs; zcat_cpu=$cpu
measure "zlib inflate alone (python zlib)" python3 -c '
import sys, zlib
d = zlib.decompressobj(31)
with open(sys.argv[1], "rb") as fp:
    while True:
        b = fp.read(1 << 20)
        if not b: break
        d.decompress(b)' "$f.gz"; zlib_s=$secs; zlib_cpu=$cpu
measure "gpuflame info (.gz)" "$GF" info "$f.gz"; gz_s=$secs; gz_kb=$kb
measure "zstdcat > /dev/null" zstdcat "$f.zst"; zstdcat_s=$secs
measure "gpuflame info (.zst)" "$GF" info "$f.zst"; zst_s=$secs; zst_kb=$kb
sb=$(stat -c %s "$small")
mbytes=$sb
echo "-- json.load on $small ($((sb / 1000000)) MB of the same generator; the 1 GB file would need ~5 GB of RAM):"
measure "python json.load (200 MB)" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$small"; py_s=$secs; py_kb=$kb; py_cpu=$cpu
measure "gpuflame info (plain, 200 MB)" "$GF" info "$small"; small_s=$secs; small_cpu=$cpu
echo "-- ratios"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "plain, one core (GPUFLAME_THREADS=1): $(python3 -c "print('%.0f' % ($bytes/1e6/(float('$plain_s') or 0.01)))") MB/s wall, $(python3 -c "print('%.0f' % ($bytes/1e6/(float('$plain_cpu') or 0.01)))") MB/s cpu (goal >= 1000); time vs cat: $(ratio "$plain_s" "$cat_s")x"
[ -n "$ref_ms" ] && echo "plain, one core vs simdjson On-Demand (same fields, its parse alone): $(python3 -c "print('%.2f' % ($ref_ms/1e3/(float('$plain_s') or 0.01)))")x its throughput"
echo "plain, two cores (default): $(python3 -c "print('%.0f' % ($bytes/1e6/(float('$two_s') or 0.01)))") MB/s wall ($(ratio "$plain_s" "$two_s")x faster than one core; $(python3 -c "print('%.0f' % ($bytes/1e6/(float('$two_cpu') or 0.01)))") MB/s per cpu-second); peak RSS / file $(python3 -c "print('%.3f' % ($two_kb*1024/$bytes))")"
echo ".gz wall time / zcat wall time: $(ratio "$gz_s" "$zcat_s") (goal <= 1.20); / zlib-alone wall time: $(ratio "$gz_s" "$zlib_s")"
echo ".zst wall time / zstdcat wall time: $(ratio "$zst_s" "$zstdcat_s")"
echo "json.load / gpuflame (200 MB): wall $(ratio "$py_s" "$small_s")x, cpu $(ratio "$py_cpu" "$small_cpu")x; json.load peak RSS $((py_kb / 1024)) MB"
echo "peak RSS / file size: plain $(python3 -c "print('%.3f' % ($plain_kb*1024/$bytes))"), .gz $(python3 -c "print('%.3f' % ($gz_kb*1024/$bytes))"), .zst $(python3 -c "print('%.3f' % ($zst_kb*1024/$bytes))") (goal <= 0.25)"
