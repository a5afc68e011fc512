#!/usr/bin/env bash
# tests/browser/run.sh — the interactive SVG and the HTML page in headless
# Chromium: renders a small profile with known answers using $GF and runs
# svg_test.mjs on it (zoom, search "Matched: N%" also when zoomed, reset, no
# console errors); then writes the report page of a corpus trace (the shipped
# decode trace without the corpus), pages of many ranks (two corpus ranks, 8
# ranks of two process groups, 1,024 ranks), a diff page and pages of hostile
# names, and runs page_test.mjs on them (see its header).
# GF_SCREENSHOT=FILE: also write the screenshot of the decode trace's page
# there (the README's docs/report.png: GF_SCREENSHOT=$PWD/docs/report.png).
# Prints PASS/FAIL lines; SKIP when chromium, node or playwright-core
# (npm install in tests/browser, done by scripts/deps.sh test) is missing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
GF=${GF:-$root/build/asan/gpuflame}
case $GF in /*) ;; *) GF=$PWD/$GF ;; esac
if [ ! -x /usr/bin/chromium ]; then echo "SKIP browser: /usr/bin/chromium not installed"; exit 0; fi
if ! command -v node >/dev/null; then echo "SKIP browser: node not installed"; exit 0; fi
major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$major" -lt 20 ]; then echo "SKIP browser: playwright-core 1.65 needs node >= 20 (found $(node --version))"; exit 0; fi
if [ ! -d "$here/node_modules/playwright-core" ]; then
  echo "SKIP browser: tests/browser/node_modules missing (npm install)"; exit 0; fi
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
printf 'main;alpha;beta 30\nmain;alpha 10\nmain;gamma;beta 20\nmain;gamma;beta;beta 10\nmain;delta 40\n' >"$T/p.folded"
if ! "$GF" svg "$T/p.folded" -o "$T/p.svg" 2>"$T/err"; then
  echo "FAIL browser-render: $(cat "$T/err")"; exit 1; fi
python3 "$root/scripts/page_assets.py" --check || exit 1
(cd "$here" && timeout 120 node svg_test.mjs "$T/p.svg") || rc=1

# the pages
S=${GF_SHARED-$root/../shared}
qwen=$S/corpus/traces/tracelens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz
r0=$S/corpus/traces/hta/trace_filter/sampled_rank-0.json.gz
r1=$S/corpus/traces/hta/trace_filter/sampled_rank-1.json.gz
one=$root/examples/decode-sync.json.gz
[ -n "$S" ] && [ -f "$qwen" ] && one=$qwen
if [ -z "$S" ] || [ ! -f "$r0" ] || [ ! -f "$r1" ]; then
  echo "SKIP browser-page-ranks: corpus traces missing (two ranks from the decode generator instead)"
  python3 "$root/tests/gen/gen_decode.py" --variant tp --seed 1 --rank 0 -o "$T/r0.json" >/dev/null 2>&1 &&
    python3 "$root/tests/gen/gen_decode.py" --variant tp --seed 2 --rank 1 -o "$T/r1.json" >/dev/null 2>&1 || {
      r0=$one; r1=$one; }
  [ -f "$T/r0.json" ] && r0=$T/r0.json && r1=$T/r1.json
fi
P=$T/page; mkdir -p "$P"
run() { if ! "$GF" "$@" 2>"$T/err"; then echo "FAIL browser-page-render: $* : $(cat "$T/err")"; exit 1; fi; }
run report --format html -o "$P/report.html" "$one"
run fold -w wall -o "$P/wall.folded" "$one"
(cd "$root" && run report --format html --unprofiled-step-ms 0.5 --expect-ms 0.25 -o "$P/decode.html" examples/decode-sync.json.gz) || exit 1
(cd "$root" && run fold -w wall -o "$P/decode-wall.folded" examples/decode-sync.json.gz) || exit 1
run report --format html -o "$P/ranks.html" "$r0" "$r1"
# many ranks: 8 of two process groups (bench/gen_trace.c: stragglers ranks 1 and 5), and 1,024
# summaries written directly (tests/gen/gen_summaries.py: stragglers 170 and 682, rank 100 slow)
cc -O2 -o "$T/gen_trace" "$root/bench/gen_trace.c" || { echo "FAIL browser-gen: gen_trace"; exit 1; }
for r in 0 1 2 3 4 5 6 7; do "$T/gen_trace" 100 1 --rank "$r" --world 8 --pg 2 --steps 6 >"$T/pg$r.json"; done
run report --format html -o "$P/pg2.html" "$T"/pg?.json
python3 "$root/tests/gen/gen_summaries.py" "$T/k" --world 1024 --steps 6 --slow-rank 100 || exit 1
run report --from-summaries --format html -o "$P/k1024.html" "$T/k"
run diff --force --format html -o "$P/diff.html" "$r0" "$r1"
python3 "$root/tests/gen/gen_hostile_page.py" "$root/examples/decode-sync.json.gz" "$T/hostile.json" || exit 1
run report --format html -o "$P/hostile.html" "$T/hostile.json"
printf 'main;<img src=x onerror=alert(4)>;\xff\xfe bad 10\nmain;</script><script>alert(5)</script> 5\n' >"$T/hb.folded"
printf 'main;<img src=x onerror=alert(4)>;\xff\xfe bad 20\nmain;</script><script>alert(5)</script> 3\n' >"$T/ha.folded"
run diff --format html -o "$P/hdiff.html" "$T/hb.folded" "$T/ha.folded"
(cd "$here" && timeout 180 node page_test.mjs "$P") || rc=1
exit ${rc:-0}
