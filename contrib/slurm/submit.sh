#!/bin/bash
# submit.sh — gpuflame on a Slurm cluster: one array task per rank trace
# (summarise.sbatch: gpuflame summarise), then one job that depends on all of
# them (combine.sbatch: gpuflame report --from-summaries, and store add).
# Nothing is home-made: Slurm schedules, retries and accounts the tasks.
#
# usage: submit.sh -o DIR [-n MAX] [-s 'SUMMARISE OPTIONS'] [-r RELEASE [-d DB]]
#                  [-g GPUFLAME] [-b 'SBATCH OPTIONS'] TRACE...
#   -o DIR   DIR/summaries/ gets one summary per rank, DIR/report.{txt,json,html} the report
#   -n MAX   at most MAX tasks at once (sbatch --array=...%MAX)
#   -s OPTS  options of gpuflame summarise for every rank (e.g. '--skip 2')
#   -r REL   store the ranks as release REL (gpuflame store add), in DB (-d)
#   -g PATH  the gpuflame to run (default: gpuflame on the nodes' PATH)
#   -b OPTS  more sbatch options for both jobs (partition, account, time)
# Prints the two job ids. docs/scale.md has the memory and time to expect.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out='' max='' opts='' rel='' db='' gf=gpuflame sb=''
while getopts "o:n:s:r:d:g:b:h" c; do
	case $c in
	o) out=$OPTARG ;; n) max=$OPTARG ;; s) opts=$OPTARG ;; r) rel=$OPTARG ;; d) db=$OPTARG ;;
	g) gf=$OPTARG ;; b) sb=$OPTARG ;;
	h) sed -n '2,18p' "$0"; exit 0 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ -z "$out" ] || [ $# -eq 0 ]; then echo "usage: submit.sh -o DIR [options] TRACE... (-h: help)" >&2; exit 2; fi
mkdir -p "$out/summaries"
out=$(cd "$out" && pwd)
list=$out/traces.list
: >"$list.tmp"
for t in "$@"; do
	[ -r "$t" ] || { echo "submit.sh: cannot read '$t'" >&2; exit 1; }
	echo "$(cd "$(dirname "$t")" && pwd)/$(basename "$t")" >>"$list.tmp"
done
mv "$list.tmp" "$list"
n=$#
array=0-$((n - 1))${max:+%$max}
# shellcheck disable=SC2086 # $sb holds several sbatch options on purpose
array_id=$(sbatch --parsable $sb --array="$array" \
	--export="ALL,GF_LIST=$list,GF_SUMS=$out/summaries,GF_OPTS=$opts,GPUFLAME=$gf" \
	"$here/summarise.sbatch")
array_id=${array_id%%;*}
# shellcheck disable=SC2086
combine_id=$(sbatch --parsable $sb --dependency=afterok:"$array_id" \
	--export="ALL,GF_SUMS=$out/summaries,GF_OUT=$out,GF_RUN=$array_id,GF_RELEASE=$rel,GF_DB=$db,GPUFLAME=$gf" \
	"$here/combine.sbatch")
combine_id=${combine_id%%;*}
echo "summarise: job array $array_id ($n tasks); combine: job $combine_id (after every task succeeds)"
echo "$array_id $combine_id" >"$out/jobs"
