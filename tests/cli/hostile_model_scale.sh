#!/usr/bin/env bash
# hostile_model_scale.sh — loading a trace into the model stays linear (or
# n log n) on hostile nesting shapes (issue 16): run time at 4N over run
# time at N must stay under 8 (linear: ~4 or less; the old quadratic code:
# ~16). Each time is the best of 3 runs. Shapes (tests/gen/gen_nested.py):
#  - a Python chain under a cpu_op whose "Python parent id" names the Python
#    root above the op (the re-parent check walked up the chain per frame);
#  - the same whose links name the frame 2 above (half are taken, the other
#    half walked the taken chain);
#  - Python ids crafted to collide in one bucket of the model's former hash;
#  - one thread with N Python frames, then N threads with one each (the
#    former table was cleared at the largest thread's size per thread);
#  - linear already, kept so: links to a far ancestor, to nothing, to a
#    later frame, cycles, no links, a deep cpu_op chain, partial overlaps.
# The sizes are ones where the old code took seconds at 4N (ASan build: N =
# 8000 chain frames or threads, 2.3 s at 4N; the fixed code 0.1 s).
# Also: the nesting is right on the deep shapes (folded stacks).
. "$(dirname "$0")/lib.sh"

GEN=tests/gen/gen_nested.py
N=${SCALE_N:-8000}
LIMIT=${SCALE_TIMEOUT:-60}

gen() { # NAME SIZE ARGS... : $T/NAME1.json at SIZE and $T/NAME4.json at 4 SIZE
  local name=$1 n=$2; shift 2
  python3 "$GEN" "$@" -n "$n" -o "$T/${name}1.json" && python3 "$GEN" "$@" -n "$((4 * n))" -o "$T/${name}4.json"
}
# the shapes that were quadratic at N, the others (linear already) at N/4
for l in root stair flood; do
  gen "pc$l" "$N" --shape pychain --link "$l" || { fail "model-scale-gen" "generator failed ($l)"; exit 0; }
done
for l in far none later cycle nolink ops; do
  gen "pc$l" "$((N / 4))" --shape pychain --link "$l" || { fail "model-scale-gen" "generator failed ($l)"; exit 0; }
done
gen pt "$N" --shape pythreads && gen ov "$((N / 4))" --shape clip || { fail "model-scale-gen" "generator failed"; exit 0; }

# check NAME SHAPE ARGS... : 4N / N < 8 (lib.sh ratio_check) on the SHAPE inputs
check() {
  local name=$1 shape=$2; shift 2
  ratio_check "$name" "$T/${shape}1.json" "$T/${shape}4.json" "$@"
}

W=(fold --weight wall --max-depth 3)
check "model-scale-pychain-root-link" pcroot "${W[@]}"
check "model-scale-pychain-stair-link" pcstair "${W[@]}"
check "model-scale-pychain-colliding-ids" pcflood "${W[@]}"
check "model-scale-many-python-threads" pt "${W[@]}"
check "model-scale-pychain-far-link" pcfar "${W[@]}"
check "model-scale-pychain-dangling-link" pcnone "${W[@]}"
check "model-scale-pychain-later-link" pclater "${W[@]}"
check "model-scale-pychain-cycle" pccycle "${W[@]}"
check "model-scale-pychain-no-links" pcnolink "${W[@]}"
check "model-scale-cpu-op-chain" pcops "${W[@]}"
check "model-scale-overlaps" ov "${W[@]}"
check "model-scale-report-pychain-root-link" pcroot report

# the nesting, on small chains (M frames): a link across the cpu_op is not
# taken (the innermost frame's stack holds every chain frame), a link to the
# chain's first frame is (every frame hangs off it: stacks 4 deep), and
# every-other links keep the odd frames under their time parent
M=40
for l in root far stair; do
  python3 "$GEN" --shape pychain --link "$l" -n "$M" -o "$T/small_$l.json" || fail "model-scale-gen" "generator failed ($l)"
done
gf fold --weight gpu --stack python,op "$T/small_root.json"
expect_rc "model-scale-root-link-rc" 0
expect_grep "model-scale-root-link-deep" "^train.py\(10\): main;aten::chain(;torch[^;]*){$M};k_[0-9] 10000$" "$T/out"
gf fold --weight gpu --stack python,op "$T/small_far.json"
expect_rc "model-scale-far-link-rc" 0
expect_grep "model-scale-far-link-flat" "^train.py\(10\): main;aten::chain;torch/nn/modules/module.py\(1\): _call_impl;torch/nn/modules/module.py\([0-9]+\): _call_impl;k_[0-9] 10000$" "$T/out"
expect_nogrep "model-scale-far-link-no-deeper" "^train[^;]*(;[^;]*){5}" "$T/out"
gf fold --weight calls --stack python,op "$T/small_stair.json"
expect_rc "model-scale-stair-link-rc" 0
expect_grep "model-scale-stair-link-half" "^train.py\(10\): main;aten::chain(;torch[^;]*){$((M / 2 + 1))};cudaLaunchKernel 1$" "$T/out"
expect_nogrep "model-scale-stair-link-no-deeper" "^train.py\(10\): main;aten::chain(;torch[^;]*){$((M / 2 + 2))}" "$T/out"
