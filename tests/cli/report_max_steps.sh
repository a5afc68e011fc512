#!/usr/bin/env bash
# report_max_steps.sh — long reports (issue 17): the verdict comes first,
# before the step table; --max-steps N keeps the first ceil(N/2) and the last
# floor(N/2) step rows (and the steady row) and says how many are shown, N = 20
# by default (issue 27: a long trace shows its first and last steps), 0 = all; the
# JSON keeps every step. Truth: the generator's steps (numbered from 3:
# ProfilerStep#3.. by construction) counted here.
. "$(dirname "$0")/lib.sh"
python3 tests/gen/gen_decode.py --variant sync --steps 30 --layers 1 -o "$T/t.json" || fail gen "generator failed"
step_rows() { grep -E '^ +[0-9]+ [0-9]+\.[0-9]{3} ' "$1" | awk '{print $1}' | tr '\n' ' '; }

gf report --max-steps 0 "$T/t.json"
expect_rc all-rc 0
expect_eq all-rows "$(step_rows "$T/out" | wc -w)" 30
v=$(grep -n '^Verdict:' "$T/out" | cut -d: -f1); s=$(grep -n '^ *step  *wall' "$T/out" | cut -d: -f1)
if [ -n "$v" ] && [ -n "$s" ] && [ "$v" -lt "$s" ]; then pass summary-first; else fail summary-first "verdict line $v, table line $s"; fi
expect_nogrep all-no-note "steps shown" "$T/out"

gf report --max-steps 5 "$T/t.json"
expect_rc max5-rc 0
expect_eq max5-rows "$(step_rows "$T/out")" "3 4 5 31 32 "
expect_grep max5-steady "^ +steady " "$T/out"
expect_grep max5-note "^\(5 of 30 steps shown, the first 3 and the last 2: --max-steps; the JSON has every step\)$" "$T/out"
gf report --max-steps 5 --format md "$T/t.json"
expect_grep max5-md-note "5 of 30 steps shown" "$T/out"
gf report --max-steps 30 "$T/t.json"
expect_eq max30-rows "$(step_rows "$T/out" | wc -w)" 30
expect_nogrep max30-no-note "steps shown" "$T/out"
# the default: beyond 20 steps, the first 10 and the last 10 (issue 27); 0 shows them all
gf report "$T/t.json"
expect_eq default-rows "$(step_rows "$T/out")" "3 4 5 6 7 8 9 10 11 12 23 24 25 26 27 28 29 30 31 32 "
expect_grep default-note "^\(20 of 30 steps shown, the first 10 and the last 10: --max-steps; the JSON has every step\)$" "$T/out"
gf report --max-steps 0 "$T/t.json"
expect_eq max0-rows "$(step_rows "$T/out" | wc -w)" 30
expect_nogrep max0-no-note "steps shown" "$T/out"
gf report --max-steps 5 --format json "$T/t.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["steps"]))' "$T/out" >"$T/n" 2>&1
expect_eq max5-json-all "$(cat "$T/n")" 30
exit 0
