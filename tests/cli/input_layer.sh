#!/usr/bin/env bash
# input_layer.sh — the one input layer (issue 11, src/input/input.h):
#  - svg, top, merge, norm read folded stacks plain, gzip'd (two members too),
#    zstd'd (pzstd's skippable frame too) and from stdin ('-' and no file),
#    with output byte-identical to the plain file (the old code read the
#    compressed bytes as text: "no valid stack lines");
#  - a trace (plain, .gz, .zst, stdin) given to them gets ONE line naming the
#    command to run, exit 1 (the old code: "expected a NUL byte inside the
#    line");
#  - folded stacks given to info, fold, report name 'gpuflame svg' (exit 1);
#  - the other formats the sniffer knows are named (speedscope, perf script,
#    pprof, nsys sqlite);
#  - merge re-reads compressed regular files for its unsorted fallback;
#    '-' given twice is a usage error; stdin from a pipe is read once.
# The traces and folded text are generated here; the corpus adds real ones
# (SKIP when ../shared is absent).
. "$(dirname "$0")/lib.sh"

have() { command -v "$1" >/dev/null 2>&1; }

# folded text: unsorted, decimals, a header, a comment, an invalid line
cat >"$T/a.folded" <<'EOF'
# gpuflame: weight=cpu; unit=samples; steps=2;
main;work;leaf 7
main;idle 3
# a comment
main;work 2.5
main;work;leaf 1
not a stack line
EOF
LC_ALL=C sort "$T/a.folded" | grep -v '^not' >"$T/sorted.folded"
printf '{"traceEvents": [{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 2}]}' >"$T/t.json"
gzip -c "$T/t.json" >"$T/t.json.gz"

# compressed copies of a file: .gz, a two-member .gz, .zst and pzstd's
# skippable frame in front of a zstd frame
compress_all() { # FILE
  local f=$1
  gzip -c "$f" >"$f.gz"
  { head -c 40 "$f" | gzip -c; tail -c +41 "$f" | gzip -c; } >"$f.2.gz"
  if have zstd; then
    zstd -q -c "$f" >"$f.zst"
    { printf '\x50\x2a\x4d\x18\x04\x00\x00\x00abcd'; zstd -q -c "$f"; } >"$f.skip.zst"
  fi
}
compress_all "$T/a.folded"
compress_all "$T/sorted.folded"
have zstd && zstd -q -c "$T/t.json" >"$T/t.json.zst"

# run_cmd NAME FILE: the command NAME on FILE, output in $T/out
run_cmd() {
  case $1 in
    svg) gf svg "$2" ;;
    top) gf top "$2" ;;
    merge) gf merge "$2" ;;
    norm) gf norm "$2" ;;
  esac
}
run_stdin() { # NAME FILE [-]
  case $1 in
    svg) gf_in "$2" svg ${3:-} ;;
    top) gf_in "$2" top ${3:-} ;;
    merge) gf_in "$2" merge ${3:-} ;;
    norm) gf_in "$2" norm ${3:-} ;;
  esac
}

for c in svg top merge norm; do
  run_cmd $c "$T/a.folded"; expect_rc "$c-plain" 0
  cp "$T/out" "$T/want.$c"
  for x in gz 2.gz zst skip.zst; do
    [ -f "$T/a.folded.$x" ] || { skip "$c-$x" "zstd absent"; continue; }
    run_cmd $c "$T/a.folded.$x"; expect_rc "$c-$x-rc" 0
    expect_same "$c-$x-same" "$T/out" "$T/want.$c"
  done
  run_stdin $c "$T/a.folded" -; expect_rc "$c-dash-rc" 0
  expect_same "$c-dash-same" "$T/out" "$T/want.$c"
  run_stdin $c "$T/a.folded.gz"; expect_rc "$c-stdin-gz-rc" 0
  expect_same "$c-stdin-gz-same" "$T/out" "$T/want.$c"
  # stdin from a pipe, read once (merge: sorted input, it cannot re-read a pipe)
  if [ $c = merge ]; then
    gf merge "$T/sorted.folded"; cp "$T/out" "$T/want.pipe"
    cat "$T/sorted.folded.gz" | "$GF" $c - >"$T/out" 2>"$T/err"; rc=$?
  else
    cp "$T/want.$c" "$T/want.pipe"
    cat "$T/a.folded.gz" | "$GF" $c - >"$T/out" 2>"$T/err"; rc=$?
  fi
  expect_rc "$c-pipe-rc" 0
  expect_same "$c-pipe-same" "$T/out" "$T/want.pipe"
  # one warning, one wording, for the invalid line
  run_cmd $c "$T/a.folded.gz"
  expect_grep "$c-invalid-wording" "warning: ignored 1 invalid line \(first at '$T/a.folded.gz': line 7: expected" "$T/err"

  # a trace where folded text is expected: one line, exit 1, what to run
  for tr in t.json t.json.gz t.json.zst; do
    [ -f "$T/$tr" ] || { skip "$c-hint-$tr" "zstd absent"; continue; }
    run_cmd $c "$T/$tr"; expect_rc "$c-hint-$tr-rc" 1
    expect_eq "$c-hint-$tr-one-line" "$(wc -l <"$T/err")" 1
    expect_grep "$c-hint-$tr-msg" "^gpuflame $c: '$T/$tr' is a PyTorch profiler trace, not folded stacks: run 'gpuflame fold $T/$tr \| gpuflame $c'$" "$T/err"
    expect_nogrep "$c-hint-$tr-no-nul" "NUL byte" "$T/err"
  done
  run_stdin $c "$T/t.json.gz"; expect_rc "$c-hint-stdin-rc" 1
  expect_grep "$c-hint-stdin-msg" "^gpuflame $c: '<stdin>' is a PyTorch profiler trace, not folded stacks: run 'gpuflame fold \| gpuflame $c'$" "$T/err"
done

# several inputs mixing kinds: svg and top merge plain and compressed files
gf svg "$T/a.folded" "$T/a.folded"; cp "$T/out" "$T/two.svg"
gf svg "$T/a.folded.gz" "$T/a.folded"; expect_rc "svg-mixed-rc" 0
expect_same "svg-mixed-same" "$T/out" "$T/two.svg"
gf svg --full-tree "$T/a.folded.gz"; expect_same "svg-full-tree-gz" "$T/out" "$T/want.svg"
# the hint names a path that needs quoting in the shell quoted
cp "$T/t.json.gz" "$T/it's a trace.gz"
gf svg "$T/it's a trace.gz"; expect_rc "svg-hint-quoted-rc" 1
expect_grep "svg-hint-quoted" "run 'gpuflame fold '$T/it'\\\\''s a trace.gz' \| gpuflame svg'" "$T/err"
# a name with a control byte stays one escaped line
cp "$T/t.json" "$T/n$(printf '\033')x.json"
gf top "$T/n$(printf '\033')x.json"; expect_rc "top-hint-escaped-rc" 1
expect_eq "top-hint-escaped-one-line" "$(wc -l <"$T/err")" 1
expect_nogrep "top-hint-escaped-no-esc" "$(printf '\033')" "$T/err"

# merge: sorted compressed inputs stream; unsorted compressed regular files
# are inflated again for the in-memory fallback (written to a file and to a pipe)
gf merge "$T/sorted.folded" -o "$T/m.plain"
gf merge "$T/sorted.folded.gz" -o "$T/m.gz"; expect_rc "merge-sorted-gz-rc" 0
expect_same "merge-sorted-gz-same" "$T/m.gz" "$T/m.plain"
gf merge "$T/a.folded" "$T/sorted.folded" -o "$T/m.plain"
gf merge "$T/a.folded.gz" "$T/sorted.folded.gz" -o "$T/m.gz"; expect_rc "merge-unsorted-gz-file-rc" 0
expect_same "merge-unsorted-gz-file-same" "$T/m.gz" "$T/m.plain"
expect_grep "merge-unsorted-gz-fell-back" "merged in memory" "$T/err"
gf merge "$T/a.folded.gz" "$T/sorted.folded.gz"; expect_rc "merge-unsorted-gz-stdout-rc" 0
expect_same "merge-unsorted-gz-stdout-same" "$T/out" "$T/m.plain"
# stdin redirected from a compressed regular file can be read again too
gf_in "$T/a.folded.gz" merge "$T/sorted.folded" -; expect_rc "merge-unsorted-stdin-gz-rc" 0
expect_same "merge-unsorted-stdin-gz-same" "$T/out" "$T/m.plain"
# from a pipe it cannot
cat "$T/a.folded.gz" | "$GF" merge "$T/sorted.folded" - >"$T/out" 2>"$T/err"; rc=$?
expect_rc "merge-unsorted-pipe-rc" 1
expect_grep "merge-unsorted-pipe-msg" "stdin cannot be re-read" "$T/err"
gf_in "$T/a.folded" merge - -; expect_rc "merge-dash-twice-rc" 2
expect_grep "merge-dash-twice-msg" "stdin \('-'\) can be given only once" "$T/err"
gf merge "$T/sorted.folded" "$T/t.json.gz"; expect_rc "merge-hint-second-input-rc" 1
expect_grep "merge-hint-second-input" "t.json.gz' is a PyTorch profiler trace" "$T/err"
# norm takes one input: more is a usage error, as before
gf norm "$T/a.folded" "$T/a.folded.gz"; expect_rc "norm-two-inputs" 2

# folded stacks given to a trace command: the command to run instead (info,
# fold and report all read through trace_read)
printf '{"traceEvents": [{"ph": "X" "ts": 1}]}' >"$T/bad.json"
for c in info fold report; do
  for f in a.folded a.folded.gz; do
    gf $c "$T/$f"; expect_rc "$c-reverse-$f-rc" 1
    expect_eq "$c-reverse-$f-one-line" "$(wc -l <"$T/err")" 1
    want="^gpuflame $c: '$T/$f' is folded stacks, not a PyTorch profiler trace: run 'gpuflame svg $T/$f' \(or top, merge, norm, diff\)$"
    expect_grep "$c-reverse-$f-msg" "$want" "$T/err"
  done
  # a broken trace keeps the reader's own message
  gf $c "$T/bad.json"; expect_rc "$c-bad-trace-rc" 1
  expect_grep "$c-bad-trace-reader-msg" "bad.json': byte [0-9]+" "$T/err"
  expect_nogrep "$c-bad-trace-no-hint" "is folded stacks" "$T/err"
done
# stdin too: the peek window the input layer kept is the evidence (nothing is read twice)
for c in info fold report; do
  gf_in "$T/a.folded" $c; expect_rc "$c-reverse-stdin-rc" 1
  expect_grep "$c-reverse-stdin-msg" "^gpuflame $c: '<stdin>' is folded stacks, not a PyTorch profiler trace: run 'gpuflame svg' \\(or top, merge, norm, diff\\)$" "$T/err"
  gzip -c "$T/a.folded" >"$T/a2.folded.gz"
  gf_in "$T/a2.folded.gz" $c; expect_rc "$c-reverse-stdin-gz-rc" 1
  expect_grep "$c-reverse-stdin-gz-msg" "'<stdin>' is folded stacks" "$T/err"
  # a broken trace on stdin keeps the reader's message
  gf_in "$T/bad.json" $c; expect_rc "$c-bad-trace-stdin-rc" 1
  expect_grep "$c-bad-trace-stdin-msg" "'<stdin>': byte [0-9]+" "$T/err"
done
# a trace on stdin is read once, streamed (plain and gzip)
for c in info fold "report --format json"; do
  $GF $c "$T/t.json.gz" >"$T/want" 2>/dev/null
  gf_in "$T/t.json.gz" $c; expect_rc "stdin-trace-$c-rc" 0
  sed 's/<stdin>/X/g; s|'"$T"'/t.json.gz|X|g; s|t.json.gz|X|g' "$T/out" >"$T/o1"; sed 's/<stdin>/X/g; s|'"$T"'/t.json.gz|X|g; s|t.json.gz|X|g' "$T/want" >"$T/o2"
  expect_same "stdin-trace-$c-same" "$T/o1" "$T/o2"
done

# imported formats are read (stacks/import.h: tests/cli/import_*.sh), the
# formats to come are named, not misread
printf '{"$schema": "https://www.speedscope.app/file-format-schema.json", "profiles": []}\n' >"$T/p.speedscope.json"
gf svg "$T/p.speedscope.json"; expect_rc "svg-speedscope-rc" 1
expect_grep "svg-speedscope-msg" "p.speedscope.json': no stack lines" "$T/err"
printf 'python 1234 [001] 12345.678901:     250000 cpu-clock:\n\t    7f0123456789 func+0x10 (/usr/lib/libx.so)\n\n' >"$T/perf.txt"
gf top "$T/perf.txt"; expect_rc "top-perf-script-rc" 0
expect_grep "top-perf-script-total" "^total 250000 ns in 1 stack" "$T/out"
printf '\x0a\x04\x08\x01\x10\x02\x12\x00' | gzip -c >"$T/cpu.pb.gz"
gf svg "$T/cpu.pb.gz"; expect_rc "svg-pprof-rc" 1
expect_grep "svg-pprof-msg" "is a pprof profile, not folded stacks" "$T/err"
{ printf 'SQLite format 3\0'; head -c 100 /dev/zero; } >"$T/report.sqlite"
gf merge "$T/report.sqlite"; expect_rc "merge-sqlite-rc" 1
expect_grep "merge-sqlite-msg" "is an SQLite database" "$T/err"

# real files from the corpus: compressed copies render the same bytes
if need_shared "input-layer-corpus"; then
  n=0
  for f in "$GF_SHARED"/corpus/flamegraph/jonhoo-inferno/tests/data/flamegraph/*/*.txt; do
    [ -f "$f" ] || continue
    n=$((n + 1)); [ $n -gt 6 ] && break
    b=$(basename "$f" .txt)
    gzip -c "$f" >"$T/c.gz"
    "$GF" svg --hash "$f" >"$T/c.plain.svg" 2>/dev/null; r1=$?
    "$GF" svg --hash "$T/c.gz" >"$T/c.gz.svg" 2>/dev/null; r2=$?
    expect_eq "corpus-svg-gz-rc-$b" "$r2" "$r1"
    expect_same "corpus-svg-gz-$b" "$T/c.gz.svg" "$T/c.plain.svg"
  done
  tr=$(ls "$GF_SHARED"/corpus/traces/*/*.json.gz 2>/dev/null | head -1)
  if [ -n "$tr" ]; then
    gf svg "$tr"; expect_rc "corpus-svg-trace-rc" 1
    expect_grep "corpus-svg-trace-hint" "is a PyTorch profiler trace, not folded stacks: run 'gpuflame fold" "$T/err"
  fi
fi

# syncs takes both kinds through the one opener: a trace or folded stacks,
# plain, compressed or on stdin, with the same output as the named plain file
$GF syncs --format json "$T/t.json" >"$T/want" 2>/dev/null
for x in t.json.gz t.json.zst; do
  [ -f "$T/$x" ] || { skip "syncs-trace-$x" "zstd absent"; continue; }
  gf_in "$T/$x" syncs --format json; expect_rc "syncs-stdin-trace-$x-rc" 0
  sed 's/<stdin>/X/g' "$T/out" >"$T/o1"; sed 's|'"$T"'/t.json|X|g' "$T/want" >"$T/o2"
  expect_same "syncs-stdin-trace-$x-same" "$T/o1" "$T/o2"
done
printf 'main;torch/_tensor.py:__bool__;aten::item 7\nmain;step 3\n' >"$T/py.folded"
$GF syncs --format json "$T/py.folded" >"$T/want" 2>/dev/null
gzip -c "$T/py.folded" >"$T/py.folded.gz"
gf syncs --format json "$T/py.folded.gz"; expect_rc "syncs-folded-gz-rc" 0
sed 's|'"$T"'/py.folded.gz|X|g' "$T/out" >"$T/o1"; sed 's|'"$T"'/py.folded|X|g' "$T/want" >"$T/o2"
expect_same "syncs-folded-gz-same" "$T/o1" "$T/o2"
gf_in "$T/py.folded.gz" syncs --format json; expect_rc "syncs-stdin-folded-gz-rc" 0
sed 's/<stdin>/X/g' "$T/out" >"$T/o1"; expect_same "syncs-stdin-folded-gz-same" "$T/o1" "$T/o2"
printf '[unknown];main;f 2\n' >"$T/unk.folded"
gf syncs "$T/unk.folded"; expect_rc "syncs-unknown-frame-folded-rc" 0
gf syncs "$T/p.speedscope.json"; expect_rc "syncs-speedscope-rc" 1
expect_grep "syncs-speedscope-msg" "p.speedscope.json': no stacks" "$T/err"
gf syncs "$T/bad.json"; expect_rc "syncs-bad-trace-rc" 1
expect_grep "syncs-bad-trace-msg" "bad.json': byte [0-9]+" "$T/err"
