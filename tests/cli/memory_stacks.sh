#!/usr/bin/env bash
# memory_stacks.sh — memory per stack in `top` and `svg` (issue 16): 200,000
# unique stacks (4.2 MB of folded text, 220,002 tree nodes, 200,001 names)
# must fit under an address-space limit (ulimit -v: 48 MB for top, 40 MB for
# svg) that the old code exceeded (out of memory, exit 4), with output
# identical to an unlimited run. bench/bench_memory.sh measures the same
# shape at 1 M, 3 M and 10 M stacks.
# The limits hold on the release binary (GF_REL); ASan reserves terabytes of
# address space, so these checks SKIP visibly without GF_REL.
. "$(dirname "$0")/lib.sh"
GFR=${GF_REL:-}

awk 'BEGIN { for (i = 0; i < 200000; i++) printf "main;b%d;c%d 1\n", int(i / 10), i }' >"$T/u.folded"

# limited CMD...: runs CMD under `ulimit -v LIMIT_KB` ($LIM), sets $rc
limited() { (ulimit -v "$LIM" && "$@" >"$T/lim.out" 2>"$T/err"); rc=$?; }
# same NAME FILE EXPECTED: identical output, when the limited run succeeded
same() {
  if [ "$rc" -ne 0 ]; then fail "$1" "not written (exit $rc)"; else expect_same "$@"; fi
}

if [ -z "$GFR" ] || [ ! -x "$GFR" ]; then
  skip memory-top "GF_REL (the release binary) absent: ulimit -v needs it"
  skip memory-svg "GF_REL (the release binary) absent: ulimit -v needs it"
else
  # old code: 80 MB peak RSS for text (the five cells of every row kept as
  # strings, the whole output in memory, qsort's copy of the rows); now 22 MB
  LIM=48000
  for fmt in text tsv md json; do
    "$GFR" top --format "$fmt" "$T/u.folded" >"$T/full.out" 2>/dev/null
    limited "$GFR" top --format "$fmt" "$T/u.folded"
    expect_rc "memory-top-$fmt-under-${LIM}k" 0
    same "memory-top-$fmt-same-output" "$T/lim.out" "$T/full.out"
  done
  "$GFR" top --sort name "$T/u.folded" >"$T/full.out" 2>/dev/null
  limited "$GFR" top --sort name -o "$T/named.out" "$T/u.folded"
  expect_rc "memory-top-sort-name-file-under-${LIM}k" 0
  same "memory-top-sort-name-file-same" "$T/named.out" "$T/full.out"

  # svg reads named files into the pruned trie: old code 43 MB peak RSS
  # (every frame interned, 32-byte slots, 24-byte nodes), now 16 MB
  LIM=40000
  "$GFR" svg "$T/u.folded" >"$T/full.out" 2>/dev/null
  limited "$GFR" svg "$T/u.folded"
  expect_rc "memory-svg-under-${LIM}k" 0
  same "memory-svg-same-output" "$T/lim.out" "$T/full.out"
  limited "$GFR" svg --title big -o "$T/named.svg" "$T/u.folded"
  expect_rc "memory-svg-file-under-${LIM}k" 0
  "$GFR" svg --title big "$T/u.folded" >"$T/full.out" 2>/dev/null
  same "memory-svg-file-same" "$T/named.svg" "$T/full.out"
fi
