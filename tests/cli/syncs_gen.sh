#!/usr/bin/env bash
# syncs_gen.sh — `gpuflame syncs` with known answers:
#  - generated traces (tests/gen/gen_decode.py): the .item() site of the
#    `sync` variant with its exact count, wait and bubble; gone in `fixed`;
#  - a synthetic py-spy --native --format raw file whose shares and 95%
#    Wilson intervals are known by construction (computed here in Python);
#  - bad input, usage errors and output errors with their exit codes.
. "$(dirname "$0")/lib.sh"

GEN=tests/gen/gen_decode.py
CHK=tests/gen/report_check.py

python3 "$GEN" --variant sync --steps 4 -o "$T/sync.json" --expect "$T/sync.exp.json"
python3 "$GEN" --variant fixed --steps 4 -o "$T/fixed.json" --expect "$T/fixed.exp.json"
python3 "$GEN" --variant graph --steps 4 -o "$T/graph.json" --expect "$T/graph.exp.json"

gf syncs --format json "$T/sync.json"
expect_rc "trace-sync-rc" 0
cp "$T/out" "$T/sync.syncs.json"
out=$(python3 "$CHK" syncs "$T/sync.syncs.json" "$T/sync.exp.json" 2>&1); printf '%s\n' "$out"
expect_grep "trace-sync-schema" '"schema": "gpuflame.syncs/2"' "$T/sync.syncs.json"
expect_grep "trace-sync-per-step" '"count_per_step": 1.00,' "$T/sync.syncs.json"
expect_grep "trace-sync-chain" '"op_chain": "aten::item > aten::_local_scalar_dense"' "$T/sync.syncs.json"
gf_in "$T/sync.json" syncs --format json
expect_rc "trace-stdin-rc" 0
if diff <(grep -v '"file":' "$T/out") <(grep -v '"file":' "$T/sync.syncs.json") >/dev/null; then pass "trace-stdin-same"; else fail "trace-stdin-same"; fi
gf syncs --format json "$T/graph.json"
cp "$T/out" "$T/graph.syncs.json"
out=$(python3 "$CHK" syncs "$T/graph.syncs.json" "$T/graph.exp.json" 2>&1); printf '%s\n' "$out"
gf syncs --format json "$T/fixed.json"
expect_rc "trace-fixed-rc" 0
got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["count"], len(d["syncs"]))' "$T/out")
expect_eq "trace-fixed-no-sites" "$got" "0 0"
gf syncs "$T/sync.json"
expect_rc "trace-text-rc" 0
expect_grep "trace-text-site" "check_eos +aten::item +cudaStreamSynchronize" "$T/out"
expect_grep "trace-text-fix" "pinned" "$T/out"
long=$(awk 'length($0) > 100' "$T/out" | wc -l)
expect_eq "trace-text-100-columns" "$long" "0"
gf syncs --format md "$T/sync.json"
expect_grep "trace-md" '^\| \\?# \| per step \|' "$T/out"
gf syncs --format json "$T/sync.json" "$T/fixed.json"
got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d), d[0]["count"], d[1]["count"])' "$T/out")
expect_eq "trace-two-inputs" "$got" "2 4 0"

# --- py-spy folded: known shares -------------------------------------------
cat >"$T/wall.folded" <<'EOF'
thread (0x7f01);main (serve.py:10);step (engine.py:240);check_eos (engine.py:251);_local_scalar_dense_cuda (libtorch_cuda.so);cudaStreamSynchronize (libcudart.so.12);cuStreamSynchronize (libcuda.so.1) 300
thread (0x7f01);main (serve.py:10);step (engine.py:240);check_eos (engine.py:251);cudaMemcpyAsync (libcudart.so.12) 20
thread (0x7f01);main (serve.py:10);step (engine.py:240);wait_done (engine.py:300);synchronize (torch/cuda/__init__.py:954);cudaDeviceSynchronize (libcudart.so.12) 100
thread (0x7f01);main (serve.py:10);log_stats (stats.py:5);cudaEventSynchronize (libcudart.so.12) 10
thread (0x7f01);cudaStreamSynchronize (libcudart.so.12) 4
thread (0x7f01);main (serve.py:10);step (engine.py:240);forward (model.py:100) 1500
thread (0x7f01);main (serve.py:10);step (engine.py:240);hipLaunchKernel (libamdhip64.so) 66
EOF
gf syncs --format json "$T/wall.folded"
expect_rc "folded-rc" 0
cp "$T/out" "$T/folded.json"
got=$(python3 - "$T/folded.json" <<'EOF'
import json, math, sys
d = json.load(open(sys.argv[1]))
def wilson(k, n, z=1.96):
    p = k / n
    den = 1 + z * z / n
    c = (p + z * z / (2 * n)) / den
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, c - h), min(1.0, c + h)
want = [("engine.py(251): check_eos", "cudaStreamSynchronize", 320, False),
        ("engine.py(300): wait_done", "cudaDeviceSynchronize", 100, False),
        ("stats.py(5): log_stats", "cudaEventSynchronize", 10, True),
        ("[no Python frame]", "cudaStreamSynchronize", 4, True)]
bad = []
if d["samples"] != 2000 or d["sync_samples"] != 434:
    bad.append("totals %r %r" % (d["samples"], d["sync_samples"]))
if len(d["syncs"]) != len(want):
    bad.append("nsites %d" % len(d["syncs"]))
for g, (site, api, k, noise) in zip(d["syncs"], want):
    lo, hi = wilson(k, 2000)
    if (g["site"], g["api"], g["samples"], g["noise"]) != (site, api, k, noise):
        bad.append("site %r" % g)
    if abs(g["share"] - k / 2000) > 2e-6 or abs(g["ci95"][0] - lo) > 2e-6 or abs(g["ci95"][1] - hi) > 2e-6:
        bad.append("ci %r vs %r" % (g, (k / 2000, lo, hi)))
if d["syncs"] and d["syncs"][0]["symbols"] != "cudaStreamSynchronize, cudaMemcpyAsync":
    bad.append("symbols %r" % d["syncs"][0]["symbols"])
print("ok" if not bad else "; ".join(bad))
EOF
)
expect_eq "folded-shares-ci" "$got" "ok"
gf syncs "$T/wall.folded"
expect_rc "folded-text-rc" 0
expect_grep "folded-text-total" "py-spy samples: 2000 .* 434 in blocking" "$T/out"
expect_grep "folded-text-row" "^  1 +320 +16.0% +14\.[0-9]-17\.[0-9]% +engine.py\(251\): check_eos" "$T/out"
expect_grep "folded-text-noise" "0.5% noise" "$T/out"
gf_in "$T/wall.folded" syncs --format json
if diff <(grep -v '"file":' "$T/out") <(grep -v '"file":' "$T/folded.json") >/dev/null; then pass "folded-stdin"; else fail "folded-stdin"; fi
gzip -c "$T/wall.folded" >"$T/wall.folded.gz"
gf syncs --format json "$T/wall.folded.gz"
if diff <(grep -v '"file":' "$T/out") <(grep -v '"file":' "$T/folded.json") >/dev/null; then pass "folded-gzip"; else fail "folded-gzip"; fi
printf 'main (a.py:1);work (a.py:2) 10\n' >"$T/nosync.folded"
gf syncs "$T/nosync.folded"
expect_rc "folded-nosync-rc" 0
expect_grep "folded-nosync-msg" "No stack contains a blocking" "$T/out"

# --- errors ------------------------------------------------------------------
: >"$T/empty"
gf syncs "$T/empty"
expect_rc "err-empty-rc" 1
expect_grep "err-empty-msg" "no stacks" "$T/err"
printf 'hello world\n' >"$T/garbage"
gf syncs "$T/garbage"
expect_rc "err-garbage-rc" 1
expect_grep "err-garbage-msg" "line 1: expected" "$T/err"
printf '{"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2, "pid": 1, "tid": 1} oops' >"$T/bad.json"
gf syncs "$T/bad.json"
expect_rc "err-badjson-rc" 1
expect_grep "err-badjson-msg" "byte [0-9]+" "$T/err"
gf report "$T/bad.json"
expect_rc "err-report-badjson-rc" 1
gf syncs "$T/does-not-exist"
expect_rc "err-missing-rc" 1
gf syncs --bogus "$T/sync.json"
expect_rc "err-option-rc" 2
gf report --format xml "$T/sync.json"
expect_rc "err-format-rc" 2
gf report --expect-ms abc "$T/sync.json"
expect_rc "err-expect-rc" 2
gf report --steps 5..3 "$T/sync.json"
expect_rc "err-steps-rc" 2
gf syncs -o "$T/no/such/dir/out.txt" "$T/sync.json"
expect_rc "err-output-rc" 3
if [ -e "$T/no/such/dir/out.txt" ]; then fail "err-output-nofile"; else pass "err-output-nofile"; fi
gf report -o "$T/r.json" "$T/bad.json"
if [ -e "$T/r.json" ]; then fail "err-no-partial-output"; else pass "err-no-partial-output"; fi
gf syncs --help
expect_rc "help-syncs-rc" 0
expect_grep "help-syncs" "^usage: gpuflame syncs" "$T/out"
gf report --help
expect_rc "help-report-rc" 0
expect_grep "help-report" "^usage: gpuflame report" "$T/out"
exit 0
