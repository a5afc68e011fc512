#!/usr/bin/env bash
# hostile_matrix.sh — every command against hostile files: truncation at many
# offsets (plain, gzip, zstd), bit flips, decompression bombs, duplicate keys,
# out-of-range numbers, NUL and control bytes, odd folded lines.
#
# For every run it asserts what docs/cli.md promises whatever the input:
#   - no crash and no sanitizer report; exit 0, 1, 2 or 4 (never a signal);
#   - on failure: the last stderr line is "gpuflame CMD: 'FILE'..." naming the
#     input, every stderr line carries the "gpuflame CMD:" prefix, the
#     pre-existing -o output keeps its bytes and its mode, no other file
#     (temporary or partial) is left in the output's folder;
#   - on success: the output was written; and what merge/norm/fold write,
#     `top` reads back (whatever a command writes, every command reads);
#   - where the class says so, the input must be refused (exit 1) or hit a
#     limit (exit 4, naming the GPUFLAME_MAX_* variable).
# One PASS/FAIL line per (class, command) with the number of cases.
. "$(dirname "$0")/lib.sh"

if ! command -v python3 >/dev/null; then skip "hostile-matrix" "python3 absent"; exit 0; fi
trace=$T/base.json
gzip -dc examples/decode-sync.json.gz >"$trace"
python3 tests/gen/hostile_inputs.py "$trace" examples/demo.folded "$T/in" >"$T/manifest" || {
  fail "hostile-matrix-gen" "tests/gen/hostile_inputs.py failed"; exit 1; }

mkdir -p "$T/o"
OUT=$T/o/out

# one case: kind cmd expect file [env...]; appends a reason to $T/bad on failure
run_case() {
  local cmd=$1 expect=$2 f=$3; shift 3
  local -a args
  case $cmd in
    info) args=(info -o "$OUT" "$f") ;;
    fold-gpu) args=(fold --weight gpu -o "$OUT" "$f") ;;
    fold-idle) args=(fold --weight idle -o "$OUT" "$f") ;;
    report) args=(report -o "$OUT" "$f") ;;
    report-md) args=(report -f md -o "$OUT" "$f") ;;
    syncs) args=(syncs -o "$OUT" "$f") ;;
    diff) args=(diff -o "$OUT" "$f" "$f") ;;
    svg) args=(svg -o "$OUT" "$f") ;;
    top) args=(top -o "$OUT" "$f") ;;
    merge) args=(merge -o "$OUT" "$f") ;;
    norm) args=(norm --steps 2 -o "$OUT" "$f") ;;
  esac
  rm -rf "$T/o"; mkdir "$T/o"
  printf 'KEEP\n' >"$OUT"; chmod 600 "$OUT"
  env "$@" "$GF" "${args[@]}" >"$T/cout" 2>"$T/cerr" </dev/null
  local r=$? name=${cmd%%-*} why=
  if [ "$r" -ge 5 ] || [ "$r" -eq 3 ]; then why="exit $r"
  elif grep -qE 'runtime error|AddressSanitizer|LeakSanitizer|Segmentation|Aborted' "$T/cerr"; then why="sanitizer: $(grep -m1 -E 'runtime error|Sanitizer' "$T/cerr")"
  elif [ "$(ls -A "$T/o")" != out ]; then why="left in the output folder: $(ls -A "$T/o" | tr '\n' ' ')"
  elif [ "$r" -ne 0 ]; then
    if [ "$(cat "$OUT")" != KEEP ] || [ "$(stat -c %a "$OUT")" != 600 ]; then why="pre-existing output changed"
    elif ! tail -n 1 "$T/cerr" | grep -qF "gpuflame $name: '$f'"; then why="last stderr line does not name the file: $(tail -n 1 "$T/cerr" | head -c 200)"
    elif grep -vq "^gpuflame $name: " "$T/cerr"; then why="stderr line without the prefix: $(grep -v -m1 "^gpuflame $name: " "$T/cerr" | head -c 200)"
    fi
  elif [ "$(cat "$OUT")" = KEEP ]; then why="exit 0 but the output was not written"
  fi
  if [ -z "$why" ]; then
    case $expect in
      err) [ "$r" -eq 1 ] || why="expected exit 1 (refused input), got $r" ;;
      trunc) [ "$r" -ne 0 ] || grep -qi truncat "$T/cerr" "$OUT" || why="read a truncated trace without saying so" ;;
      ok) [ "$r" -eq 0 ] || why="expected exit 0, got $r: $(tail -n 1 "$T/cerr" | head -c 200)" ;;
      limit-*) var=GPUFLAME_MAX_${expect#limit-}
        if [ "$r" -ne 4 ]; then why="expected exit 4 ($var), got $r: $(tail -n 1 "$T/cerr" | head -c 200)"
        elif ! grep -q "$var" "$T/cerr"; then why="the message does not name $var"; fi ;;
    esac
  fi
  # round trip: what merge/norm/fold wrote, top reads
  if [ -z "$why" ] && [ "$r" -eq 0 ] && [ "$expect" != limit-* ]; then
    case $cmd in merge|norm|fold-*)
      if grep -qv '^#' "$OUT"; then
        "$GF" top "$OUT" >/dev/null 2>"$T/rerr" || why="top cannot read what $cmd wrote: $(head -c 200 "$T/rerr")"
      fi ;;
    esac
  fi
  [ -n "$why" ] && printf '%s: %s\n' "$f" "$why" >>"$T/bad"
  return 0
}

trace_cmds="info fold-gpu fold-idle report report-md syncs diff"
folded_cmds="svg top merge norm diff syncs"

classes=$(awk '{print $1 ":" $2}' "$T/manifest" | sort -u)
for kc in $classes; do
  kind=${kc%%:*} cls=${kc#*:}
  if [ "$kind" = trace ]; then cmds=$trace_cmds; else cmds=$folded_cmds; fi
  for cmd in $cmds; do
    : >"$T/bad"; n=0
    while read -r k c f e; do
      [ "$k" = "$kind" ] && [ "$c" = "$cls" ] || continue
      run_case "$cmd" "$e" "$f"; n=$((n + 1))
    done <"$T/manifest"
    if [ -s "$T/bad" ]; then fail "hostile-$cls-$cmd" "$(wc -l <"$T/bad") of $n cases: $(head -n 2 "$T/bad" | tr '\n' '|')"
    else pass "hostile-$cls-$cmd ($n cases)"; fi
  done
done

# --- decompression bombs: one huge string, and a huge total, gzip and zstd ---
python3 - "$T" <<'PY'
import gzip, sys, subprocess, shutil
t = sys.argv[1]
name = b'{"traceEvents": [{"ph": "X", "name": "' + b'a' * (48 << 20) + b'", "ts": 1, "dur": 1}]}'
ev = b'{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 1},\n'
many = b'{"traceEvents": [' + ev * (200000) + ev[:-2] + b']}'
line = b'a' * (48 << 20)  # a folded line with no end
for tag, data in (('string', name), ('total', many), ('line', line)):
    open('%s/bomb-%s.gz' % (t, tag), 'wb').write(gzip.compress(data, 9, mtime=0))
    if shutil.which('zstd'):
        open('%s/bomb-%s.zst' % (t, tag), 'wb').write(
            subprocess.run(['zstd', '-q', '-19', '-c'], input=data, capture_output=True, check=True).stdout)
open('%s/bomb-line.folded' % t, 'wb').write(line)
PY
for z in gz zst; do
  [ -f "$T/bomb-string.$z" ] || { skip "hostile-bomb-$z" "zstd absent"; continue; }
  for cmd in $trace_cmds; do
    : >"$T/bad"
    run_case "$cmd" limit-TOKEN "$T/bomb-string.$z" GPUFLAME_MAX_TOKEN=1M
    run_case "$cmd" limit-INPUT "$T/bomb-total.$z" GPUFLAME_MAX_INPUT=4M
    if [ -s "$T/bad" ]; then fail "hostile-bomb-$z-$cmd" "$(head -n 2 "$T/bad" | tr '\n' '|')"
    else pass "hostile-bomb-$z-$cmd"; fi
  done
done
for cmd in $folded_cmds; do
  : >"$T/bad"
  run_case "$cmd" limit-TOKEN "$T/bomb-line.folded" GPUFLAME_MAX_TOKEN=1M
  if [ -s "$T/bad" ]; then fail "hostile-bomb-line-$cmd" "$(head -n 2 "$T/bad" | tr '\n' '|')"
  else pass "hostile-bomb-line-$cmd"; fi
done
exit 0
