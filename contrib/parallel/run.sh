#!/bin/bash
# run.sh — gpuflame over many rank traces on one large machine with GNU
# parallel: gpuflame summarise per trace (N at a time, retried), then
# gpuflame report --from-summaries, and with -r, store add. The same two
# steps as the Slurm recipe (contrib/slurm), the same outputs, byte for byte.
#
# usage: run.sh -o DIR [-j N] [-s 'SUMMARISE OPTIONS'] [-r RELEASE [-d DB]]
#               [-g GPUFLAME] [-R RUN] TRACE...
#   -o DIR   DIR/summaries/ gets one summary per rank, DIR/report.{txt,json,html} the report
#   -j N     N traces at once (default: the cores); each needs ~0.2 x its trace in memory
#   -s OPTS  options of gpuflame summarise for every rank (e.g. '--skip 2')
#   -r REL   store the ranks as release REL (gpuflame store add), in DB (-d)
#   -R RUN   the run id the summaries carry (default: the date and the shell's pid)
#   -g PATH  the gpuflame to run (default: gpuflame on the PATH)
# Safe to run again: every output is replaced all-or-nothing, ranks already
# stored (the same summaries, known by content) are not added twice; a failed trace stops the
# combine (parallel --halt soon,fail=1) after 2 retries.
set -euo pipefail
out='' jobs='' opts='' rel='' db='' gf=gpuflame run=''
while getopts "o:j:s:r:d:g:R:h" c; do
	case $c in
	o) out=$OPTARG ;; j) jobs=$OPTARG ;; s) opts=$OPTARG ;; r) rel=$OPTARG ;; d) db=$OPTARG ;;
	g) gf=$OPTARG ;; R) run=$OPTARG ;;
	h) sed -n '2,18p' "$0"; exit 0 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ -z "$out" ] || [ $# -eq 0 ]; then echo "usage: run.sh -o DIR [options] TRACE... (-h: help)" >&2; exit 2; fi
command -v parallel >/dev/null || { echo "run.sh: GNU parallel is missing (apt-get install parallel)" >&2; exit 1; }
run=${run:-$(date +%Y%m%d%H%M%S)-$$}
mkdir -p "$out/summaries"
export GF="$gf" GF_OPTS="$opts" GF_RUN="$run" GF_SUMS="$out/summaries"
# one trace: its summary, named after it (rank3.json.gz -> rank3.summary.json.zst)
summarise_one() {
	local name
	name=$(basename "$1"); name=${name%.gz}; name=${name%.zst}; name=${name%.json}
	# shellcheck disable=SC2086 # GF_OPTS holds several options on purpose
	"$GF" summarise $GF_OPTS --run "$GF_RUN" -j 1 "$1" -o "$GF_SUMS/$name.summary.json.zst"
}
export -f summarise_one
parallel --will-cite --halt soon,fail=1 --retries 3 ${jobs:+-j "$jobs"} summarise_one ::: "$@"
"$gf" report --from-summaries "$GF_SUMS" -o "$out/report.txt"
"$gf" report --from-summaries --format json "$GF_SUMS" -o "$out/report.json"
"$gf" report --from-summaries --format html "$GF_SUMS" -o "$out/report.html"
if [ -n "$rel" ]; then
	dbo=()
	[ -n "$db" ] && dbo=(--db "$db")
	# all ranks in one transaction; run again, the same summaries are
	# recognised (their content) and nothing is stored twice
	"$gf" store add "${dbo[@]}" --release "$rel" --label "run=$run" "$GF_SUMS"/*.summary.json*
fi
