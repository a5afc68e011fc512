#!/usr/bin/env bash
# fold_pipes.sh — fold's default output is what every folded-stack reader
# takes (issue 26, item 2): integer ns. Every stack line of the default fold
# (four weights, a generated trace and every h100 corpus trace) has an
# integer count, which speedscope's collapsed-stack importer requires (it
# matches /^(.*) (\d+)$/ and skips any other line without a word) and inferno
# parses (u64 counts); the header is a comment to inferno ("# ") and never a
# stack to flamegraph.pl (it ends in ';'). Then the real reader: speedscope's
# built app in headless Chromium loads the Qwen trace's wall fold and shows
# cudaDeviceSynchronize's total exactly as the folded lines sum it (with
# the old default, decimal us, it loaded 34 of 5,697 stacks).
. "$(dirname "$0")/lib.sh"
BR=tests/browser

check_ints() { # name folded
  python3 - "$2" <<'PY' | { read -r r; if [ "$r" = ok ]; then pass "$1"; else fail "$1" "$r"; fi; }
import re, sys
lines = open(sys.argv[1], encoding="utf-8", errors="surrogateescape").read().split("\n")
if not lines[0].startswith("# gpuflame:") or not lines[0].endswith(";"):
    print("header %r" % lines[0][:80]); sys.exit()
bad = [l for l in lines[1:] if l and not re.match(r"^(.*) (\d+)$", l)]
n = sum(1 for l in lines[1:] if l)
print("ok" if not bad and n else "%d of %d lines without an integer count, e.g. %r" % (len(bad), n, bad[:1]))
PY
}

python3 tests/gen/gen_decode.py --variant sync --steps 4 -o "$T/g.json" >/dev/null || fail pipes-gen "gen_decode.py failed"
for w in gpu cpu wall idle calls; do
  gf fold -q -w $w "$T/g.json"; expect_rc "pipes-gen-$w-rc" 0
  check_ints "pipes-gen-$w-integers" "$T/out"
  expect_grep "pipes-gen-$w-unit" "^# gpuflame: weight=$w; unit=$([ $w = calls ] && echo calls || echo ns);" "$T/out"
done
# the other units stay on request, with their decimals
gf fold -q -w gpu --unit us "$T/g.json"
expect_grep pipes-unit-us '^# gpuflame: weight=gpu; unit=us;' "$T/out"
expect_grep pipes-unit-us-decimals ' [0-9]+\.[0-9]+$' "$T/out"

if need_shared pipes-corpus; then
  for f in "$GF_SHARED"/corpus/traces/tracelens/h100/*.json.gz; do
    b=$(basename "$f" .json.gz | cut -c1-24)
    for w in gpu cpu wall idle; do
      "$GF" fold -q -w $w "$f" >"$T/c.folded" 2>/dev/null
      check_ints "pipes-$b-$w-integers" "$T/c.folded"
    done
  done
  Q=$(ls "$GF_SHARED"/corpus/traces/tracelens/h100/Qwen_Qwen1.5-0.5B-Chat__*.json.gz | head -1)
  "$GF" fold -q -w wall "$Q" >"$T/qw.folded"
  # svg shows the ns as us (exact)
  gf svg "$T/qw.folded"
  tot=$(awk '!/^#/{s+=$NF} END{printf "%d", s}' "$T/qw.folded")
  expect_eq pipes-svg-total-us "$(grep -o 'all ([0-9,.]* us, 100%)' "$T/out" | head -1)" \
    "all ($(python3 -c "print(f'{$tot / 1000:,.3f}'.rstrip('0').rstrip('.'))") us, 100%)"
  if command -v node >/dev/null && [ -d $BR/node_modules/speedscope ] && [ -d $BR/node_modules/playwright-core ] &&
     [ -x /usr/bin/chromium ]; then
    want=$(awk '!/^#/ && /;cudaDeviceSynchronize [0-9]+$/ {s+=$NF} END{printf "%d", s}' "$T/qw.folded" |
           python3 -c 'import sys; print(f"{int(sys.stdin.read()):,}")')
    timeout 120 node $BR/export_test.mjs app "$T/qw.folded" cudaDeviceSynchronize "$want" aten::mm aten::addmm |
      sed 's/^\(PASS\|FAIL\) export-speedscope-app/\1 pipes-speedscope-app/'
  else
    skip pipes-speedscope-app "node, chromium or tests/browser/node_modules (speedscope, playwright-core) missing"
  fi
fi
exit 0
