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
#    cuda_graph_runner.py(276), op aten::copy_.
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
exit 0
