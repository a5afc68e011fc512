#!/usr/bin/env bash
# cli_help.sh — the first hour's help (issue 27): `gpuflame help CMD` is `gpuflame CMD --help`
# byte for byte for every command (and an unknown CMD one line, exit 2); `--version` lists every
# command's outputs — its --format/--to values as the bash completion offers them, generated
# from the same option tables — and the inputs the sniffer reads, and says nothing by hand that
# a table contradicts.
. "$(dirname "$0")/lib.sh"
gf --help
cmds=$(awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }' "$T/out")
[ -n "$cmds" ] || fail help-commands "no command listed by --help"
"$GF" --print-completion bash >"$T/bash" 2>/dev/null
"$GF" --version >"$T/version" 2>&1
for c in $cmds; do
  "$GF" "$c" --help >"$T/a" 2>&1; a=$?
  "$GF" help "$c" >"$T/b" 2>&1; b=$?
  if [ "$a" = 0 ] && [ "$b" = 0 ] && cmp -s "$T/a" "$T/b"; then pass "help-$c"; else fail "help-$c" "exit $a/$b or the texts differ"; fi
  # the command's line of --version: its --format (else --to) values, in the table's order
  line=$(awk -v c="$c" '/^outputs:/ { on = 1; next } on && $1 == c { $1 = ""; sub(/^ /, ""); print; exit }' "$T/version")
  vals=$(awk -v c="$c" '$0 == "\t" c ")" { on = 1; next } on && /^\t\t;;/ { exit }
    on && /(^|[|\t])--(format|to)\)/ { if (match($0, /_gpuflame_words \x27[^\x27]*\x27/)) { v = substr($0, RSTART + 17, RLENGTH - 18); gsub(/ /, ", ", v); print v; exit } }' "$T/bash")
  if [ -z "$line" ]; then fail "version-outputs-$c" "no line for $c under outputs: in --version"
  elif [ -n "$vals" ] && [ "$line" != "$vals" ]; then fail "version-outputs-$c" "'$line' vs the table's '$vals'"
  else pass "version-outputs-$c"; fi
done
gf help nosuch; expect_rc help-unknown-rc 2
expect_eq help-unknown-one-line "$(wc -l <"$T/err")" 1
expect_grep help-unknown-msg "'nosuch' is not a gpuflame command" "$T/err"
for f in "folded stacks" "a PyTorch profiler trace" "a speedscope profile" "perf script output"; do
  expect_grep "version-input-${f// /-}" "^inputs: .*$f" "$T/version"
done
expect_grep version-named-only "named with what to run instead: a pprof profile" "$T/version"
exit 0
