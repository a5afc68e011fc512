#!/usr/bin/env bash
# backends.sh — other accelerators' launches and the Kineto fields gpuflame
# used to leave unread (issue 26, items 5 and 9), on traces whose answers
# are known by construction (tests/gen/gen_backends.py): XPU (xpu_runtime),
# PrivateUse1 (privateuse1_runtime) and MTIA (mtia_runtime, mtia_ccp_events
# by name) launches link to their device work, exactly as CUDA's (the gpu
# fold), and info and report name the device kind; on a CUDA trace, info
# counts Kineto's cuda_sync records by kind with what they waited on, lists
# the Stream Sync row (tid = stream + 1000000) as a sync row, not a GPU
# stream, counts the [memory] events, and the report page's kernel tooltip
# data carries the launch configuration; then the MTIA corpus trace: its
# device work linked (before: no GPU activity at all).
. "$(dirname "$0")/lib.sh"
python3 tests/gen/gen_backends.py "$T/b" >/dev/null || { fail backends-gen "gen_backends.py failed"; exit 0; }
jget() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps(eval(sys.argv[2], {"d": d})))' "$@"; }
for c in xpu privateuse1 mtia cuda_fields; do
  f=$T/b/$c.json; e=$T/b/$c.expect.json
  gf fold -q "$f"; expect_rc "backend-$c-fold-rc" 0
  grep -v '^#' "$T/out" >"$T/got"
  jget "$e" '"\n".join(d["fold"])' | python3 -c 'import json,sys; print(json.load(sys.stdin))' >"$T/want"
  expect_same "backend-$c-fold-linked" "$T/got" "$T/want"
  gf info --format json "$f"; expect_rc "backend-$c-info-rc" 0
  expect_eq "backend-$c-info-kind" "$(jget "$T/out" 'd["traces"][0]["devices"]["kind"]')" "$(jget "$e" 'd["kind"]')"
  gf report --format json "$f"; expect_rc "backend-$c-report-rc" 0
  expect_eq "backend-$c-report-kind" "$(jget "$T/out" 'd["ranks"][0]["device_kind"]' 2>/dev/null || jget "$T/out" 'd["device_kind"]')" \
    "$(jget "$e" 'd["kind"]')"
done
gf report "$T/b/mtia.json"; expect_grep backend-report-text-kind '^device 0 \(MTIA\), 1 step' "$T/out"

# the CUDA fields
f=$T/b/cuda_fields.json; e=$T/b/cuda_fields.expect.json
"$GF" info --format json "$f" >"$T/i.json"
for k in device_syncs memory_events kernels_with_launch_config; do
  expect_eq "backend-info-$k" "$(jget "$T/i.json" "d['traces'][0]['$k']")" "$(jget "$e" "d['$k']")"
done
expect_eq backend-info-sync-rows \
  "$(jget "$T/i.json" '[[r["device"], r["tid"], r["stream"], r["name"], r["events"]] for r in d["traces"][0]["sync_rows"]]')" \
  "$(jget "$e" 'd["sync_rows"]')"
expect_eq backend-info-gpu-streams "$(jget "$T/i.json" '[[s["device"], s["stream"]] for s in d["traces"][0]["gpu_streams"]]')" \
  "$(jget "$e" 'd["gpu_streams"]')"
gf info "$f"
expect_grep backend-info-text-sync-row '^  device 0 tid 1000007 \(stream 7\) .stream 7 \(sync\).: 1 events$' "$T/out"
expect_grep backend-info-text-syncs '^device syncs: 3 \(Stream Sync 1, Event Sync 1, Stream Wait Event 0, Context Sync 1, other 0\); 1 name the stream they waited on, 1 the event record' "$T/out"
expect_grep backend-info-text-memory '^memory events: 4 \(\[memory\]: 3 allocations, 1 frees, 7168 bytes allocated, 4096 freed, peak total allocated 5120 bytes\)$' "$T/out"
gf report --format html -o "$T/p.html" "$f"; expect_rc backend-page-rc 0
expect_eq backend-page-launch-config \
  "$(python3 -c 'import json,re,sys; s=open(sys.argv[1]).read(); d=json.loads(re.search(r"id=\"gf-data\">(.*?)</script>", s, re.S).group(1)); print([k.get("cfg") for f in d["ranks"][0]["families"] if f["name"] == "gemm" for k in f["top"]])' "$T/p.html")" \
  "['$(jget "$e" 'd["launch_config"]' | tr -d '"')']"

if need_shared backend-mtia-corpus; then
  M=$GF_SHARED/corpus/traces/hta/mtia_inference_trace/mtia_inference_rank_0.json.gz
  gf info --format json "$M"
  expect_eq backend-mtia-corpus-kind "$(jget "$T/out" 'd["traces"][0]["devices"]["kind"]')" '"MTIA"'
  # the device work of mtia_ccp_events with a runtime call's correlation is linked
  want=$(python3 - "$M" <<'PY'
import gzip, json, sys
ev = json.load(gzip.open(sys.argv[1]))["traceEvents"]
rt = {e["args"]["correlation"] for e in ev if e.get("cat") == "mtia_runtime" and "correlation" in e.get("args", {})}
dev = [e for e in ev if e.get("cat") == "mtia_ccp_events" and e.get("ph") == "X" and e["name"] not in ("event_wait", "event_record")]
print(len(dev), sum(1 for e in dev if e.get("args", {}).get("correlation") in rt))
PY
)
  expect_eq backend-mtia-corpus-linked "$(jget "$T/out" '[d["traces"][0]["gpu_activities"], d["traces"][0]["correlation"]["linked"]]' | tr -d '[],')" "$want"
fi
exit 0
