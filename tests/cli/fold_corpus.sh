#!/usr/bin/env bash
# fold_corpus.sh — `gpuflame fold` on every Kineto trace of the shared corpus
# ($GF_SHARED/corpus/traces): every weight folds without error, and the GPU
# weight is conserved to the nanosecond against an independent stdlib-Python
# sum (tests/gen/sum_activities.py). On the sglang decode trace, every kernel
# of the graph replay lands under the launching Python stack
# (tests/gen/graph_kernels.py gives the independent total).
# The gpu weight runs on $GF (ASan); the other four weights run on $GF_REL
# (release build) when it exists, to keep the loop near a minute.
. "$(dirname "$0")/lib.sh"
need_shared "fold-corpus" || exit 0
GFR=${GF_REL:-$GF}
# a release binary that predates `fold` (or is missing) falls back to $GF
"$GFR" fold --help >/dev/null 2>&1 || GFR=$GF
SUM='import sys
t = 0
for l in sys.stdin:
    if l.startswith("# gpuflame:"):
        continue
    t += int(l.rstrip("\n").rsplit(" ", 1)[1])
print(t)'
n=0
while IFS= read -r f; do
  name=${f#"$GF_SHARED"/corpus/traces/}
  want=$(python3 tests/gen/sum_activities.py "$f" 2>/dev/null) || { skip "fold-corpus $name" "not a JSON trace for Python"; continue; }
  want=${want%% *}
  gf fold -q --unit ns "$f"
  if [ "$rc" -ne 0 ]; then fail "fold-corpus gpu $name" "exit $rc: $(head -c 300 "$T/err")"; continue; fi
  got=$(python3 -c "$SUM" <"$T/out")
  expect_eq "fold-corpus conservation $name" "$got" "$want"
  for w in cpu wall idle calls; do
    "$GFR" fold -q -w "$w" "$f" >"$T/out" 2>"$T/err"; rc=$?
    if [ "$rc" -ne 0 ]; then fail "fold-corpus $w $name" "exit $rc: $(head -c 300 "$T/err")"; fi
  done
  n=$((n + 1))
done < <(find "$GF_SHARED/corpus/traces" \( -name '*.json' -o -name '*.json.gz' \) ! -name 'execution_details.json' | sort)
[ "$n" -ge 30 ] && pass "fold-corpus count ($n traces)" || fail "fold-corpus count" "only $n traces"

# graph replay: all kernels of the launch under the launching python stack
f=$GF_SHARED/corpus/traces/tracelens/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz
read -r gsum gcount glaunch < <(python3 tests/gen/graph_kernels.py "$f")
expect_eq "graph-replay kernels" "$gcount" "544"
gf fold -q --unit ns --stack python,runtime "$f"
under=$(grep -F 'cuda_graph_runner.py(1333): replay;torch/cuda/graphs.py(139): replay;hipGraphLaunch;' "$T/out" | python3 -c "$SUM")
expect_eq "graph-replay under python stack" "$under" "$gsum"
gf fold -q -w calls --stack python,runtime "$f"
expect_grep "graph-replay one launch" 'cuda_graph_runner\.py\(1333\): replay;torch/cuda/graphs\.py\(139\): replay;hipGraphLaunch 1$' "$T/out"
# default stack: the launch is not inside any cpu_op, so the python frames carry it
gf fold -q --unit ns "$f"
under=$(grep -F 'torch/cuda/graphs.py(139): replay;' "$T/out" | python3 -c "$SUM")
expect_eq "graph-replay default stack" "$under" "$gsum"
exit 0
