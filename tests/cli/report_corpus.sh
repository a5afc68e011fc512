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
#  - every trace: the verdict names the innermost frames of its stack
#    (summary.verdict_stack) and Next a frame of that stack or the verdict's
#    call; a queued verdict and its Next name the top wait; an edge verdict
#    never blames code;
#  - the issue-12 cases under issue 24's rule (docs/report.md; the numbers
#    are gap_model.sh's, checked there against gen/gapmodel.py): vllm
#    graph_execution is GPU-bound, no sync; sglang bs_32_rank0's verdict is
#    host work (traced scheduling Python, no longer "the window's edge") and
#    never cuda_graph_runner.py(1201); sglang Qwen3 decode / prefilldecode are
#    ~463 / 493 ms queued behind hipStreamWaitEvent, not host; HTA
#    negative_queue rank0 is queued, not sync; nccl_data's verdict and Next
#    name one host stack with one share; the ROCm minitoy's 6.5 ms
#    hipLaunchKernel is time inside a launch call, one-time (warm-up), and
#    Next says so; Qwen (h100): a site's bubble (what its syncs exposed) and
#    its sync idle (the gap table's) are each within its wait.
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
# the verdict and its Next tell one story (issue 24): the verdict names the
# innermost frames of its stack (summary.verdict_stack, read from the
# idle-weighted tree), Next a frame of that same stack or the verdict's call
ck = sm["verdict_cause"]
lab = sm.get("verdict_stack")
if lab:
    fr = lab.split(" > ")
    named = [" > ".join(fr[i:]) for i in range(len(fr)) if " > ".join(fr[i:]) in sm["verdict"]]
    call = (sm.get("verdict_call") or {}).get("name")
    if not named:
        print("the verdict names no frames of its stack %r" % lab)
    elif not (any(f in sm["action"] for f in fr) or (call and call in sm["action"])):
        print("Next names no frame of the verdict's stack %r nor its call %r" % (lab, call))
# a queued verdict names the top wait in both
if ck == "queued" and gp["queued_waits"]:
    w = gp["queued_waits"][0]["wait"]
    if w not in sm["verdict"] or w not in sm["action"]:
        print("verdict/Next do not both name the wait %r" % w)
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

# issue 12's cases under issue 24's rule: "cause|class|queued|top wait|verdict|action"
gapsum() {
  python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
s, g = d["summary"], d["gaps"]
q = g["queued_waits"][0]["wait"] if g["queued_waits"] else "-"
print("|".join(str(x) for x in (s["verdict_cause"], s["verdict_class"], g["queued_us"], q,
                                 s["verdict"], s["action"])))' "$1"
}
I=$C/tracelens/inference
gf report --format json "$I/vllm_decode_full/graph_execution.json.gz"
gapsum "$T/out" >"$T/g.txt"
expect_grep "vllm-graph-gpu-bound" '^gpu_bound\|' "$T/g.txt"
expect_grep "vllm-graph-latency" 'work starts a median 7.7 ms after its launch call' "$T/g.txt"
gf report --format json "$I/sglang_decode/capture_traces/bs_32_rank0.json.gz"
gapsum "$T/out" >"$T/g.txt"
expect_grep "sglang-bs32-host" '^host\|python\|' "$T/g.txt"
expect_nogrep "sglang-bs32-not-1201" 'cuda_graph_runner.py\(1201\)' "$T/g.txt"
gf report --format json "$I/sglang_decode/sglang_Qwen3-8B_decode.json.gz"
gapsum "$T/out" >"$T/g.txt"
expect_grep "sglang-decode-queued" '^queued\|None\|463[0-9.]*\|hipStreamWaitEvent \(stream 3\)\|.*99.99% of it behind hipStreamWaitEvent \(stream 3\).*\|The work was issued but waited behind hipStreamWaitEvent \(stream 3\)' "$T/g.txt"
gf report --format json "$I/sglang_prefilldecode/sglang_Qwen3-8B_prefilldecode.json.gz"
gapsum "$T/out" >"$T/g.txt"
expect_grep "sglang-prefilldecode-queued" '^queued\|None\|493[0-9.]*\|hipStreamWaitEvent \(stream 3\)\|' "$T/g.txt"
gf report --format json "$C/hta/negative_queue_length_values_check/rank0.json.gz"
gapsum "$T/out" >"$T/g.txt"
expect_grep "hta-negative-queue-queued" '^queued\|None\|[0-9.]*\|stream 7: no wait in the trace\|' "$T/g.txt"
gf report --format json "$C/hta/nccl_parser_config/nccl_data.json.gz"
gapsum "$T/out" >"$T/g.txt"
expect_grep "nccl-data-host" '^host\|' "$T/g.txt"
# the verdict's "P% of it in STACK" and Next's "STACK (P%)": one stack, one share
res=$(python3 - "$T/out" <<'EOF'
import json, re, sys
s = json.load(open(sys.argv[1]))["summary"]
m = re.search(r"([0-9.]+)% of it in (.+?);", s["verdict"])
print("ok" if m and "%s (%s%%)" % (m.group(2), m.group(1)) in s["action"] else "%r / %r" % (s["verdict"], s["action"]))
EOF
)
expect_eq "nccl-data-host-share" "$res" "ok"
gf report --format json "$C/hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz"
gapsum "$T/out" >"$T/g.txt"
expect_grep "rocm-long-launch-is-launch" '^launch\|warmup\|.*inside launch calls, 99% of it warm-up and one-time work; .*% of it in .*hipLaunchKernel' "$T/g.txt"
expect_grep "rocm-long-launch-next" 'This is one-time work \(the longest hipLaunchKernel lasts 6.5 ms, its median 6.3 us' "$T/g.txt"
# per site: what the syncs exposed (bubble) and the idle inside them (the gap
# table's sync sites) are each at most the time they waited (docs/report.md)
gf report --format json "$q"
res=$(python3 - "$T/out" <<'EOF'
import json, sys
from decimal import Decimal
d = json.load(open(sys.argv[1]), parse_float=Decimal)
wait, bub = {}, {}
for s in d["syncs"]:
    wait[s["site"]] = wait.get(s["site"], 0) + s["wait_us"]
    bub[s["site"]] = bub.get(s["site"], 0) + s["bubble_us"]
gs = {k["stack"]: k["idle_us"] for k in d["gaps"]["sync_sites"]}
bad = [k for k in bub if bub[k] > wait[k]] + [k for k in gs if gs[k] > wait.get(k, 0)]
print("ok" if wait and gs and not bad else "over the wait: %r (waits %r, bubbles %r, sync idle %r)" % (bad, wait, bub, gs))
EOF
)
expect_eq "qwen-bubble-within-wait" "$res" "ok"
exit 0
