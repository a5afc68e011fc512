#!/usr/bin/env bash
# bench_scale.sh — does every trace command cost linear time and memory in the
# size of the trace (issue 11)? `info`, `fold`, `report`, `syncs` and `diff` on
# generated torch-2.x traces of 300 MB and 900 MB (bench/gen_trace.c, seed 1;
# diff compares it with the trace of the same size made with seed 2), in one
# run: wall seconds and peak RSS at both sizes and the 900/300 ratio (target
# <= 3.3: the input grows 3x), then, on the largest trace (900 MB: the issue's
# "1 GB trace"), report / info and syncs / info in wall time (targets <= 1.6
# and <= 1.3) with peak RSS side by side. Every figure is also measured, in the
# same run, for a BASELINE binary: by default the release build of git rev
# 0848d76 (the issue's "before"), built once into bench/out/rev-0848d76/.
# Prints "PASS target ..." / "FAIL target ..." lines; it is a benchmark, not a
# test (exit 0 unless a run fails).
#
# Environment:
#   GF_REL       binary measured (default build/rel/gpuflame; built when absent)
#   BASE         baseline binary (default: build_rev BASE_REV); BASE=none skips it
#   BASE_REV     git revision of the default baseline (0848d76)
#   SMALL LARGE  trace sizes in MB (300 900)
#   BENCH_RUNS   best of N runs by wall time (3)
#   DIR          where the traces go (bench/out/scale); KEEP=1 keeps them
#                (a later run reuses them), else they are deleted at the end
#   GPUFLAME_THREADS  as for gpuflame (default: 2 cores for reading when there are)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
GF=${GF_REL:-build/rel/gpuflame}
BASE=${BASE:-}
BASE_REV=${BASE_REV:-0848d76}
SMALL=${SMALL:-300}
LARGE=${LARGE:-900}
RUNS=${BENCH_RUNS:-3}
DIR=${DIR:-bench/out/scale}
KEEP=${KEEP:-}
. "$root/bench/lib.sh"
[ -x "$TIME" ] || { echo "needs GNU time (apt-get install -y time)"; exit 1; }
[ -x "$GF" ] || { make -s -j1 all >/dev/null && GF=build/rel/gpuflame; } || { echo "cannot build $GF"; exit 1; }
if [ -z "$BASE" ]; then
	echo "building the baseline, git rev $BASE_REV (once) ..."
	BASE=$(build_rev "$BASE_REV") || exit 1
fi
[ "$BASE" = none ] && BASE=
[ -z "$BASE" ] || [ -x "$BASE" ] || { echo "baseline $BASE is not an executable"; exit 1; }
export GPUFLAME_NO_PROGRESS=1
mkdir -p "$DIR"
gen=$DIR/gen_trace
[ -x "$gen" ] || cc -O2 -o "$gen" bench/gen_trace.c || exit 1

# the traces: t<MB>s<seed>.json
for mb_ in "$SMALL" "$LARGE"; do
	for seed in 1 2; do
		f=$DIR/t${mb_}s$seed.json
		[ -s "$f" ] || { "$gen" "$mb_" "$seed" >"$f.tmp" && mv "$f.tmp" "$f"; } || { echo "cannot write $f"; exit 1; }
	done
done
cleanup() { [ -n "$KEEP" ] || rm -f "$DIR"/t*s[12].json "$DIR"/t*.tmp; }
trap cleanup EXIT
bs=$(stat -c %s "$DIR/t${SMALL}s1.json")
bl=$(stat -c %s "$DIR/t${LARGE}s1.json")
cmds="info fold report syncs diff"

# measure WHO CMD MB: one run; keeps in R[WHO.CMD.MB] the "wall cpu peak_kb" of
# the fastest run so far ("" once a run failed)
declare -A R=()
measure() {
	local who=$1 cmd=$2 size=$3 bin t
	if [ "$who" = new ]; then bin=$GF; else bin=$BASE; fi
	local a=$DIR/t${size}s1.json b=$DIR/t${size}s2.json key=$who.$cmd.$size
	[ "${R[$key]-unset}" = "" ] && return 1
	if [ "$cmd" = diff ]; then
		t=$(run_once "$DIR/err" "$bin" diff "$a" "$b")
	else
		t=$(run_once "$DIR/err" "$bin" "$cmd" "$a")
	fi || { echo "$who $cmd at $size MB failed: $(head -c 300 "$DIR/err")"; R[$key]=""; return 1; }
	if [ "${R[$key]-unset}" = unset ] || awk -v x="${t%% *}" -v y="${R[$key]%% *}" 'BEGIN { exit !(x < y) }'; then
		R[$key]=$t
	fi
}
field() { local v=${R[$1]:-}; [ -n "$v" ] && echo "$v" | cut -d' ' -f"$2"; }
wall() { field "$1" 1; }
cpu() { field "$1" 2; }
rss() { field "$1" 3; }

echo "== bench_scale: $GF vs baseline ${BASE:-(none)}; best of $RUNS by wall time, the runs interleaved"
echo "   (binary, command and size in turn, so a busy moment of a shared machine hits them alike); GPUFLAME_THREADS=${GPUFLAME_THREADS:-default}"
echo "   traces: ${SMALL} MB = $bs bytes, ${LARGE} MB = $bl bytes (size ratio $(ratio "$bl" "$bs")); diff: seed 1 vs seed 2 of the same size"
nfail=0
for r in $(seq "$RUNS"); do
	for c in $cmds; do
		for size in "$SMALL" "$LARGE"; do
			for who in new ${BASE:+base}; do measure "$who" "$c" "$size" || [ "$r" -gt 1 ] || nfail=$((nfail + 1)); done
		done
	done
done

line() { printf '%-7s %-5s %8s %8s %5s  %7s %7s %5s  %7s %7s %5s\n' "$@"; }
echo
echo "wall and cpu (user + sys) seconds, peak RSS in MB (2^20 bytes), ${LARGE}/${SMALL} ratios (target <= 3.3)"
line command bin "wall $SMALL" "wall $LARGE" ratio "cpu $SMALL" "cpu $LARGE" ratio "RSS $SMALL" "RSS $LARGE" ratio
for c in $cmds; do
	for who in new ${BASE:+base}; do
		ws=$(wall "$who.$c.$SMALL") wl=$(wall "$who.$c.$LARGE")
		cs=$(cpu "$who.$c.$SMALL") cl=$(cpu "$who.$c.$LARGE")
		ks=$(rss "$who.$c.$SMALL") kl=$(rss "$who.$c.$LARGE")
		[ -n "$ws" ] && [ -n "$wl" ] || { line "$c" "$who" failed; continue; }
		line "$c" "$who" "$ws" "$wl" "$(ratio "$wl" "$ws")" "$cs" "$cl" "$(ratio "$cl" "$cs")" \
			"$(mb "$ks")" "$(mb "$kl")" "$(ratio "$kl" "$ks")"
	done
done

# target LABEL VALUE LIMIT [NOTE] : PASS/FAIL on VALUE <= LIMIT; NOTE (the same
# ratio in cpu time, the baseline's) is printed after it
target() {
	local ok
	ok=$(awk -v v="$2" -v l="$3" 'BEGIN { print (v <= l) ? "PASS" : "FAIL" }')
	echo "$ok target: $1 $2 (<= $3)${4:+; $4}"
}
# note WHO_CMD_A WHO_CMD_B : "cpu R, baseline wall R cpu R" for the pair of keys
# (A over B, for new and base), the figures that are known
note() {
	local a=$1 b=$2 n="" x y
	x=$(cpu "new.$a") y=$(cpu "new.$b")
	[ -n "$x" ] && [ -n "$y" ] && n="cpu $(ratio "$x" "$y")"
	if [ -n "$BASE" ]; then
		x=$(wall "base.$a") y=$(wall "base.$b")
		[ -n "$x" ] && [ -n "$y" ] && n="$n; baseline wall $(ratio "$x" "$y")"
		x=$(cpu "base.$a") y=$(cpu "base.$b")
		[ -n "$x" ] && [ -n "$y" ] && n="$n cpu $(ratio "$x" "$y")"
	fi
	echo "$n"
}
rnote() { # the same for peak RSS
	local a=$1 b=$2 x y
	[ -n "$BASE" ] || return 0
	x=$(rss "base.$a") y=$(rss "base.$b")
	[ -n "$x" ] && [ -n "$y" ] && echo "baseline $(ratio "$x" "$y")"
}
echo
for c in $cmds; do
	ws=$(wall "new.$c.$SMALL") wl=$(wall "new.$c.$LARGE")
	[ -n "$ws" ] && [ -n "$wl" ] || { echo "FAIL target: $c ${LARGE}/${SMALL}: a run failed"; continue; }
	target "$c ${LARGE}/${SMALL} wall" "$(ratio "$wl" "$ws")" 3.3 "$(note "$c.$LARGE" "$c.$SMALL")"
	target "$c ${LARGE}/${SMALL} peak RSS" "$(ratio "$(rss "new.$c.$LARGE")" "$(rss "new.$c.$SMALL")")" 3.3 \
		"$(rnote "$c.$LARGE" "$c.$SMALL")"
done

echo
echo "on the largest trace (${LARGE} MB), next to info (reading alone):"
printf '%-8s %-6s %9s %7s  %7s %7s  %8s %7s\n' command binary wall "x info" cpu "x info" "RSS MB" "x info"
for c in info report syncs; do
	for who in new ${BASE:+base}; do
		w=$(wall "$who.$c.$LARGE") u=$(cpu "$who.$c.$LARGE") k=$(rss "$who.$c.$LARGE")
		wi=$(wall "$who.info.$LARGE") ui=$(cpu "$who.info.$LARGE") ki=$(rss "$who.info.$LARGE")
		[ -n "$w" ] && [ -n "$wi" ] || { printf '%-8s %-6s failed\n' "$c" "$who"; continue; }
		printf '%-8s %-6s %9s %7s  %7s %7s  %8s %7s\n' "$c" "$who" "$w" "$(ratio "$w" "$wi")" \
			"$u" "$(ratio "$u" "$ui")" "$(mb "$k")" "$(ratio "$k" "$ki")"
	done
done
for pair in "report 1.6" "syncs 1.3"; do
	read -r c lim <<<"$pair"
	w=$(wall "new.$c.$LARGE") wi=$(wall "new.info.$LARGE")
	[ -n "$w" ] && [ -n "$wi" ] || { echo "FAIL target: $c/info wall at ${LARGE} MB: a run failed"; continue; }
	target "$c/info wall at ${LARGE} MB" "$(ratio "$w" "$wi")" "$lim" "$(note "$c.$LARGE" "info.$LARGE")"
done
[ -n "$KEEP" ] && echo "traces kept in $DIR (KEEP=1)"
[ "$nfail" -eq 0 ]
