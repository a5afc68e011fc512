#!/usr/bin/env bash
# one_class.sh — one class per call and kernel: for every runtime call and
# kernel name of real CUDA and ROCm traces (and the generated rccl +
# cuGraphLaunch trace of tests/gen/gen_steps.py), info's counts, fold's family
# leaves, report's step counts and communication, the calls syncs lists and
# the gpu palette's colours all give the class that tests/gen/one_class.py's
# own table gives (docs/classes.md). The truth never comes from gpuflame.
. "$(dirname "$0")/lib.sh"

run_one() { # TRACE
  local tr=$1 d="$T/o" ok=1
  rm -rf "$d"; mkdir -p "$d"
  "$GF" info --format json "$tr" >"$d/info.json" 2>/dev/null || ok=0
  "$GF" report --format json "$tr" >"$d/report.json" 2>/dev/null || ok=0
  "$GF" syncs --format json "$tr" >"$d/syncs.json" 2>/dev/null || ok=0
  "$GF" fold -q -w gpu --unit ns --kernel-names full "$tr" >"$d/full.folded" || ok=0
  "$GF" fold -q -w gpu --unit ns "$tr" >"$d/fam.folded" || ok=0
  "$GF" fold -q -w wall --unit ns -s annotation,python,op,runtime "$tr" >"$d/wall.folded" || ok=0
  local w
  for w in full fam wall; do
    "$GF" svg --colors gpu --minwidth 0 "$d/$w.folded" >"$d/$w.svg" 2>/dev/null || ok=0
  done
  if [ "$ok" = 1 ]; then
    python3 tests/gen/one_class.py "$tr" "$d"
  else
    fail "one-class-run-$(basename "$tr")" "a gpuflame command failed on $tr"
  fi
}

# the generated trace: an rccl kernel launched by cuGraphLaunch
python3 tests/gen/gen_steps.py "$T/steps.json" "$T/steps.expect.json" && run_one "$T/steps.json"

need_shared "one-class-corpus" || exit 0
C=$GF_SHARED/corpus/traces
for tr in \
  "$C/tracelens/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz" \
  "$C/tracelens/inference/vllm_decode_full/graph_execution.json.gz" \
  "$C/tracelens/inference/sglang_prefilldecode/sglang_Qwen3-8B_prefilldecode.json.gz" \
  "$C/hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz" \
  "$C/hta/negative_queue_length_values_check/rank0.json.gz" \
  "$C/hta/nccl_parser_config/nccl_data.json.gz" \
  "$C/tracelens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"; do
  if [ -f "$tr" ]; then run_one "$tr"; else skip "one-class-$(basename "$tr")" "not in the corpus"; fi
done
