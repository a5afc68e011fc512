#!/usr/bin/env bash
# bench_merge.sh — gpuflame merge on 500 sorted folded files of 10,000 stacks
# each (generated once under /tmp by bench/gen_folded_many.py, seeded), next to
# what users do today, measured in the same run:
#   baseline A: sort -m FILES | awk (sum consecutive equal stacks)  — streaming
#   baseline B: cat FILES | awk (hash of all stacks) | sort         — in memory
# Prints wall time, MB/s of input and peak RSS (GNU time), and checks that the
# three outputs have the same stacks and totals. A second run on 100 files
# that our peak RSS does not grow with the stacks: it is a few KB per open
# file (stdio buffer + one line), whatever the number of stacks.
# Environment: GF (default build/rel/gpuflame), NFILES (500), PER (10000),
# DIR (/tmp/gf-bench-merge).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
GF=${GF_REL:-build/rel/gpuflame}   # the release binary under test
NFILES=${NFILES:-500}
PER=${PER:-10000}
DIR=${DIR:-/tmp/gf-bench-merge}
TIME=/usr/bin/time
[ -x "$GF" ] || { echo "build $GF first (make)"; exit 1; }
[ -x "$TIME" ] || { echo "needs GNU time (apt-get install -y time)"; exit 1; }
if [ ! -f "$DIR/.done-$NFILES-$PER" ]; then
  rm -rf "$DIR"; mkdir -p "$DIR/in"
  echo "generating $NFILES files x $PER stacks in $DIR/in ..."
  python3 bench/gen_folded_many.py "$DIR/in" "$NFILES" "$PER" > "$DIR/bytes" && touch "$DIR/.done-$NFILES-$PER"
fi
bytes=$(cat "$DIR/bytes")
mb=$(awk -v b="$bytes" 'BEGIN {printf "%.1f", b / 1048576}')
echo "input: $NFILES files, $PER stacks each, $mb MB"
ulimit -n 4096 2>/dev/null

run() { # label, command...  -> prints "label: S s, MB/s, RSS"
  local label=$1; shift
  $TIME -f '%e %M' -o "$DIR/time" bash -c "$*" || { echo "$label: failed"; return 1; }
  read -r secs kb < "$DIR/time"
  printf '%-34s %7.2f s  %8.1f MB/s  peak RSS %8.1f MB\n' "$label" "$secs" \
    "$(awk -v b="$bytes" -v s="$secs" 'BEGIN {print (s > 0 ? b / 1048576 / s : 0)}')" \
    "$(awk -v k="$kb" 'BEGIN {print k / 1024}')"
  echo "$secs $kb" > "$DIR/last"
}

files="$DIR/in/f*.folded"
run "gpuflame merge (streaming)" "$GF merge -o $DIR/ours.folded $files"
read -r s_ours kb_ours < "$DIR/last"
run "baseline A: sort -m | awk" "LC_ALL=C sort -m $files | awk '/^#/ {next} {c=\$NF; \$NF=\"\"; sub(/ \$/, \"\"); if (\$0 != k && NR > 1 && k != \"\") print k, s; if (\$0 != k) {k=\$0; s=0} s+=c} END {print k, s}' > $DIR/a.folded"
read -r s_a kb_a < "$DIR/last"
run "baseline B: cat | awk hash | sort" "cat $files | awk '/^#/ {next} {c=\$NF; \$NF=\"\"; sub(/ \$/, \"\"); s[\$0]+=c} END {for (k in s) print k, s[k]}' | LC_ALL=C sort > $DIR/b.folded"
read -r s_b kb_b < "$DIR/last"
echo "ratios: time vs A $(awk -v a="$s_a" -v o="$s_ours" 'BEGIN {printf "%.1fx", a / o}') faster," \
     "vs B $(awk -v a="$s_b" -v o="$s_ours" 'BEGIN {printf "%.1fx", a / o}') faster;" \
     "peak RSS vs A $(awk -v a="$kb_a" -v o="$kb_ours" 'BEGIN {printf "%.2fx", o / a}')," \
     "vs B $(awk -v a="$kb_b" -v o="$kb_ours" 'BEGIN {printf "%.2fx", o / a}')"
# same stacks, same totals (awk prints floats: compare stacks + rounded sums)
n1=$(grep -vc '^#' "$DIR/ours.folded"); n2=$(grep -c . "$DIR/a.folded"); n3=$(grep -c . "$DIR/b.folded")
t1=$(grep -v '^#' "$DIR/ours.folded" | awk '{s+=$NF} END {printf "%.0f", s}')
t2=$(awk '{s+=$NF} END {printf "%.0f", s}' "$DIR/a.folded")
echo "check: stacks ours $n1, A $n2, B $n3; total ours $t1, A $t2 (awk sums in double)"
head -1 "$DIR/ours.folded"
# bounded memory: peak RSS with 100 files (same stacks per file)
small=$(ls $files | head -100 | tr '\n' ' ')
bytes_all=$bytes
bytes=$(cat $small | wc -c)
run "gpuflame merge, first 100 files" "$GF merge -o $DIR/ours100.folded $small"
read -r s_100 kb_100 < "$DIR/last"
bytes=$bytes_all
echo "peak RSS 100 files: $(awk -v k="$kb_100" 'BEGIN {printf "%.1f", k / 1024}') MB, 500 files: $(awk -v k="$kb_ours" 'BEGIN {printf "%.1f", k / 1024}') MB"
rm -f "$DIR/a.folded" "$DIR/b.folded" "$DIR/ours100.folded"
