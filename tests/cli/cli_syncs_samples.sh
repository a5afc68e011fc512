#!/usr/bin/env bash
# cli_syncs_samples.sh — `syncs` on folded stacks needs sample counts (issue
# 17): a gpuflame fold of a trace (weighted by gpu/cpu/wall/idle time, or
# calls) or decimal weights are refused with the command to run; the Python
# frames of a trace fold ("engine.py(251): check_eos") name the site instead
# of "[no Python frame]". Truth: the generator's sync site is
# engine.py(251): check_eos by construction (tests/gen/gen_decode.py).
. "$(dirname "$0")/lib.sh"
python3 tests/gen/gen_decode.py --variant sync --steps 4 --layers 1 -o "$T/t.json" || fail gen "generator failed"

for w in gpu wall cpu idle calls; do
  "$GF" fold --weight "$w" "$T/t.json" -o "$T/$w.folded" 2>/dev/null
  gf syncs "$T/$w.folded"
  expect_rc "syncs-$w-refused-rc" 1
  expect_eq "syncs-$w-one-line" "$(wc -l <"$T/err")" 1
  expect_grep "syncs-$w-hint" "folded stacks weighted by $w.*not py-spy sample counts.*run 'gpuflame syncs' on the trace itself" "$T/err"
  expect_nogrep "syncs-$w-no-ci" "CI" "$T/out"
done
expect_grep syncs-calls-words "weighted by calls, not py-spy" <("$GF" syncs "$T/calls.folded" 2>&1)
expect_grep syncs-wall-words "weighted by wall in ns, not py-spy" <("$GF" syncs "$T/wall.folded" 2>&1)
gf_in "$T/wall.folded" syncs -
expect_rc syncs-stdin-refused-rc 1
# decimal weights without a header: not samples either
printf 'main;engine.py(251): check_eos;aten::item;cudaStreamSynchronize 2.5\nmain;x 10.25\n' >"$T/dec.folded"
gf syncs "$T/dec.folded"
expect_rc syncs-decimal-refused-rc 1
expect_grep syncs-decimal-hint "with decimal weights" "$T/err"

# the trace's Python frames as a header-less integer fold: the site is named
grep -v '^#' "$T/wall.folded" | python3 -c '
import sys
for line in sys.stdin:
    stack, w = line.rstrip("\n").rsplit(" ", 1)
    print(stack, max(1, round(float(w))))' >"$T/int.folded"
gf syncs --format json "$T/int.folded"
expect_rc syncs-int-rc 0
python3 - "$T/out" >"$T/check" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
sites = [s["site"] for s in d["syncs"]]
assert sites and sites[0] == "engine.py(251): check_eos", sites
assert "[no Python frame]" not in sites, sites
print("ok")
PY
expect_grep syncs-trace-frames-site "^ok$" "$T/check"
# py-spy samples are still read (no header, integer counts)
printf 'main (engine.py:10);step (engine.py:251);item (torch/_tensor.py:9);cudaStreamSynchronize (libcudart.so) 7\nmain (engine.py:10) 93\n' >"$T/pyspy.folded"
gf syncs "$T/pyspy.folded"
expect_rc syncs-pyspy-rc 0
expect_grep syncs-pyspy-site "engine.py\(251\): step" "$T/out"
exit 0
