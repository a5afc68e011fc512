#!/usr/bin/env bash
# report_corpus.sh — `gpuflame report` and `gpuflame syncs` on the real traces
# of $GF_SHARED/corpus/traces:
#  - every trace runs `report --format json` with exit 0 and the JSON parses;
#    per step, the gap causes add up to the idle time exactly;
#  - Qwen (tracelens/h100): the `.item()` chain under `if t:` is found:
#    op aten::is_nonzero, chain through aten::item and
#    aten::_local_scalar_dense, cudaMemcpyAsync device-to-host then
#    cudaStreamSynchronize, at transformers' modeling_attn_mask_utils.py(243);
#  - hta/critical_path/cuda_event_sync*: cudaEventSynchronize, the .item()
#    chain and cudaDeviceSynchronize are found; cudaStreamWaitEvent is not a
#    host block;
#  - sglang decode (ROCm): the blocking hipMemcpyWithStream of 463 ms under
#    cuda_graph_runner.py(276), op aten::copy_;
#  - every trace: the verdict's cause (summary.verdict_cause) and its Next
#    name the same top key; an edge verdict never blames code;
#  - the issue-12 cases (the gap model, docs/report.md): vllm graph_execution
#    is GPU-bound with its 8.4 ms leading edge, no sync; sglang bs_32_rank0's
#    trailing 32.7 ms are the window's edge, not cuda_graph_runner.py(1201);
#    sglang Qwen3 decode / prefilldecode are ~463 / 493 ms queued behind
#    hipStreamWaitEvent, not host; HTA negative_queue rank0 is queued, not
#    sync; nccl_data names its host stack with that stack's 9.27% share; the
#    ROCm minitoy's 6.5 ms hipLaunchKernel is host; Qwen (h100): the syncs
#    section and the gap table's sync sites give the same per-step bubble.
. "$(dirname "$0")/lib.sh"

need_shared "report-corpus" || exit 0
C=$GF_SHARED/corpus/traces

n=0
while IFS= read -r f; do
  case "$f" in */execution_details.json) continue ;; esac
  n=$((n + 1))
  name=${f#"$C"/}
  gf report --format json "$f"
  if [ "$rc" -ne 0 ]; then fail "corpus-report-$name" "exit $rc: $(head -c 300 "$T/err")"; continue; fi
  res=$(python3 - "$T/out" <<'EOF' 2>&1
import json, sys
from decimal import Decimal
d = json.load(open(sys.argv[1]), parse_float=Decimal)
sm, gp = d["summary"], d["gaps"]
# the verdict's cause and its Next name the same key (sync site, host stack, wait)
keys = {"sync": "sync_sites", "host": "host_stacks", "queued": "queued_waits"}
ck = sm["verdict_cause"]
if ck in keys and gp[keys[ck]]:
    k = gp[keys[ck]][0]
    lab = k.get("stack") or k.get("wait")
    if lab not in sm["verdict"] or lab not in sm["action"]:
        print("verdict/Next do not both name %r" % lab)
if ck == "edge" and "not code" not in sm["verdict"]:
    print("edge verdict blames code")
for s in d["steps"]:
    g = s["gaps"]
    if g["edge_us"] + g["sync_us"] + g["host_us"] + g["untraced_us"] + g["queued_us"] + g["launch_us"] != s["idle_us"]:
        print("gaps != idle at step %r" % s["index"]); break
    if s["wall_us"] != s["gpu_busy_us"] + s["idle_us"]:
        print("wall != busy + idle at step %r" % s["index"]); break
else:
    print("ok")
EOF
)
  expect_eq "corpus-report-$name" "$res" "ok"
done < <(find "$C" \( -name '*.json' -o -name '*.json.gz' \) -not -path '*/speedscope/*' | sort)
[ "$n" -gt 30 ] && pass "corpus-count" || fail "corpus-count" "only $n traces found"

# a non-trace JSON is bad input, not a crash
f=$(find "$C" -name execution_details.json | head -1)
if [ -n "$f" ]; then
  gf report "$f"
  expect_rc "corpus-not-a-trace" 1
fi

# a CPU-only trace: the verdict says there is no GPU activity
gf report --format json "$C/hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"
expect_grep "cpu-only-verdict" '"verdict": "No GPU activity' "$T/out"
expect_grep "cpu-only-device" '"device": null' "$T/out"

# sync-field extractor: prints "api|op|op_chain|copy|site|count|wait_us" per site
sites() {
  python3 -c '
import json, sys
for s in json.load(open(sys.argv[1]))["syncs"]:
    print("|".join(str(s[k]) for k in ("api", "op", "op_chain", "copy", "site", "count", "wait_us")))' "$1"
}

q=$C/tracelens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz
gf syncs --format json "$q"
expect_rc "qwen-syncs-rc" 0
sites "$T/out" >"$T/qwen.txt"
expect_grep "qwen-item-chain" '^cudaStreamSynchronize\|aten::is_nonzero\|aten::is_nonzero > aten::item > aten::_local_scalar_dense\|cudaMemcpyAsync\|transformers/modeling_attn_mask_utils.py\(243\): _ignore_causal_mask_sdpa\|1\|7.69$' "$T/qwen.txt"
expect_grep "qwen-device-sync" '^cudaDeviceSynchronize\|-\|' "$T/qwen.txt"

# cuda_event_sync: an explicit cudaEventSynchronize (+ the is_nonzero chain,
# a device sync); multi_stream: event waits are GPU-side only (cudaStreamWaitEvent
# does not block the host), the one host block is cudaDeviceSynchronize
gf syncs --format json "$C/hta/critical_path/cuda_event_sync/event_sync_trace.json.gz"
expect_rc "event-sync-rc" 0
sites "$T/out" >"$T/ev.txt"
expect_grep "event-sync-event" '^cudaEventSynchronize\|-\|-\|None\|' "$T/ev.txt"
expect_grep "event-sync-item" '^cudaStreamSynchronize\|aten::is_nonzero\|' "$T/ev.txt"
expect_grep "event-sync-device" '^cudaDeviceSynchronize\|' "$T/ev.txt"
gf syncs --format json "$C/hta/critical_path/cuda_event_sync_multi_stream/event_sync_trace.json.gz"
expect_rc "event-sync-ms-rc" 0
sites "$T/out" >"$T/ev.txt"
expect_grep "event-sync-ms-device" '^cudaDeviceSynchronize\|' "$T/ev.txt"
expect_nogrep "event-sync-ms-no-wait-event" '^cudaStreamWaitEvent' "$T/ev.txt"

s=$C/tracelens/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz
gf syncs --format json "$s"
expect_rc "sglang-syncs-rc" 0
sites "$T/out" >"$T/sg.txt"
expect_grep "sglang-memcpy-with-stream" '^hipMemcpyWithStream\|aten::copy_\|.*cuda_graph_runner.py\(276\): populate_from_forward_batch\|1\|463063.75$' "$T/sg.txt"
gf report "$s"
expect_rc "sglang-report-rc" 0
expect_grep "sglang-whole-trace-note" "no step markers" "$T/out"
long=$(awk 'length($0) > 100' "$T/out" | wc -l)
expect_eq "sglang-text-100-columns" "$long" "0"

# issue 12: "cause|edge|sync|host|queued|top wait|verdict|action"
gapsum() {
  python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
s, g = d["summary"], d["gaps"]
q = g["queued_waits"][0]["wait"] if g["queued_waits"] else "-"
print("|".join(str(x) for x in (s["verdict_cause"], g["edge_us"], g["sync_us"], g["host_us"], g["queued_us"], q,
                                 s["verdict"], s["action"])))' "$1"
}
I=$C/tracelens/inference
gf report --format json "$I/vllm_decode_full/graph_execution.json.gz"
gapsum "$T/out" >"$T/g.txt"
expect_grep "vllm-graph-gpu-bound" '^gpu_bound\|8370.878\|0\|0\|0\|' "$T/g.txt"
expect_grep "vllm-graph-latency" 'work starts a median 7.7 ms after its launch call' "$T/g.txt"
gf report --format json "$I/sglang_decode/capture_traces/bs_32_rank0.json.gz"
gapsum "$T/out" >"$T/g.txt"
expect_grep "sglang-bs32-edge" '^edge\|33705.79\|0\|' "$T/g.txt"
expect_nogrep "sglang-bs32-not-1201" 'cuda_graph_runner.py\(1201\)' "$T/g.txt"
gf report --format json "$I/sglang_decode/sglang_Qwen3-8B_decode.json.gz"
gapsum "$T/out" >"$T/g.txt"
expect_grep "sglang-decode-queued" '^queued\|80.589\|137.851\|228.956\|463525.448\|hipStreamWaitEvent \(stream 3\)\|.*99.94% of it behind hipStreamWaitEvent \(stream 3\).*\|The work was issued but waited behind hipStreamWaitEvent \(stream 3\)' "$T/g.txt"
gf report --format json "$I/sglang_prefilldecode/sglang_Qwen3-8B_prefilldecode.json.gz"
gapsum "$T/out" >"$T/g.txt"
expect_grep "sglang-prefilldecode-queued" '^queued\|78.587\|525.485\|410.459\|493239.121\|hipStreamWaitEvent \(stream 3\)\|' "$T/g.txt"
gf report --format json "$C/hta/negative_queue_length_values_check/rank0.json.gz"
gapsum "$T/out" >"$T/g.txt"
expect_grep "hta-negative-queue-queued" '^queued\|18111\|875.6\|1260.2\|113915\|stream 7: no wait call in the trace\|' "$T/g.txt"
gf report --format json "$C/hta/nccl_parser_config/nccl_data.json.gz"
gapsum "$T/out" >"$T/g.txt"
expect_grep "nccl-data-host-share" '^host\|.*147.5 ms host late to launch; 9.27% of it in \[no Python frame\] > aten::empty;.*\|The host is too slow to feed the GPU; no single host stack dominates \(the largest, \[no Python frame\] > aten::empty, holds 9.27%\):' "$T/g.txt"
gf report --format json "$C/hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz"
gapsum "$T/out" >"$T/g.txt"
expect_grep "rocm-long-launch-is-host" '^host\|212.738\|224.281\|3884.142\|0\|-\|.*84.23% of it in \[no Python frame\] > hipLaunchKernel' "$T/g.txt"
# one number per sync: per site, the syncs section's per-step bubble = the gap table's
gf report --format json "$q"
res=$(python3 - "$T/out" <<'EOF'
import json, sys
from decimal import Decimal
d = json.load(open(sys.argv[1]), parse_float=Decimal)
by = {}
for s in d["syncs"]:
    by[s["site"]] = by.get(s["site"], 0) + s["bubble_per_step_us"]
gs = {k["stack"]: k["idle_per_step_us"] for k in d["gaps"]["sync_sites"]}
print("ok" if by and all(by[k] == gs.get(k, 0) for k in by) and len(gs) == len(by) else "%r vs %r" % (by, gs))
EOF
)
expect_eq "qwen-one-bubble-per-site" "$res" "ok"
exit 0
