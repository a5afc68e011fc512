#!/usr/bin/env bash
# info_basic.sh — `gpuflame info` on small known traces: text and JSON output,
# stdin, gzip/zstd by content, several files, -o, --help, usage errors.
. "$(dirname "$0")/lib.sh"

# A torch-2.x-shaped trace whose answers are known by construction:
# 2 steps, 1 python frame + 1 nn.Module frame, 3 runtime calls (one graph
# launch), 4 GPU activities of which one was launched before the window
# (correlation 5 < first runtime correlation 10), 1 NCCL kernel, one partial
# overlap on the host thread, relative ts + baseTimeNanoseconds.
cat >"$T/t.json" <<'J'
{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100"}],
 "distributedInfo": {"backend": "nccl", "rank": 2, "world_size": 4},
 "baseTimeNanoseconds": 1700000000000000000,
 "traceEvents": [
 {"name": "thread_name", "ph": "M", "ts": 0, "pid": 10, "tid": 11, "args": {"name": "thread 11 (python3)"}},
 {"name": "thread_name", "ph": "M", "ts": 0, "pid": 0, "tid": 7, "args": {"name": "stream 7 "}},
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 10, "tid": 11, "ts": 100.000, "dur": 50.000},
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#4", "pid": 10, "tid": 11, "ts": 150.000, "dur": 50.000},
 {"ph": "X", "cat": "python_function", "name": "train.py(3): step", "pid": 10, "tid": 11, "ts": 140.000, "dur": 20.000, "args": {"Python id": 1, "Python parent id": null}},
 {"ph": "X", "cat": "python_function", "name": "nn.Module: Linear_0", "pid": 10, "tid": 11, "ts": 101.000, "dur": 10.000, "args": {"Python id": 2, "Python parent id": 1}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 11, "ts": 102.000, "dur": 1.000, "args": {"correlation": 10, "External id": 10}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 10, "tid": 11, "ts": 104.000, "dur": 1.000, "args": {"correlation": 11, "External id": 11}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 11, "ts": 106.000, "dur": 1.000, "args": {"correlation": 12, "External id": 12}},
 {"ph": "X", "cat": "kernel", "name": "early_kernel", "pid": 0, "tid": 7, "ts": 99.500, "dur": 1.000, "args": {"correlation": 5, "stream": 7, "device": 0}},
 {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 103.000, "dur": 2.000, "args": {"correlation": 10, "stream": 7, "device": 0}},
 {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", "pid": 0, "tid": 7, "ts": 106.000, "dur": 5.000, "args": {"correlation": 11, "stream": 7, "device": 0}},
 {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pinned)", "pid": 0, "tid": 7, "ts": 112.000, "dur": 1.000, "args": {"correlation": 12, "bytes": 4}},
 {"ph": "s", "cat": "ac2g", "name": "ac2g", "id": 10, "pid": 10, "tid": 11, "ts": 102.000},
 {"ph": "f", "cat": "ac2g", "name": "ac2g", "id": 10, "pid": 0, "tid": 7, "ts": 103.000, "bp": "e"},
 {"ph": "i", "s": "t", "name": "[memory]", "pid": 10, "tid": 11, "ts": 120.000}
 ],
 "traceName": "/tmp/t.json"}
J

gf info --help
expect_rc "info-help" 0
expect_grep "info-help-usage" "^usage: gpuflame info" "$T/out"

gf info --format json "$T/t.json"
expect_rc "info-json" 0
python3 - "$T/out" >"$T/check" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["gpuflame_info"] == 1
t = d["traces"][0]
exp = {
  "events": 16, "container": "object", "truncated": False, "compression": "none",
  "events_by_phase": {"M": 2, "X": 11, "f": 1, "i": 1, "s": 1},
  "events_by_category": {"": 3, "ac2g": 2, "cuda_runtime": 3, "gpu_memcpy": 1, "kernel": 3,
                         "python_function": 2, "user_annotation": 2},
  "python_function_events": 2, "nn_module_events": 1, "graph_launches": 1, "nccl_kernels": 1,
  "gpu_activities": 4,
}
for k, v in exp.items():
    assert t[k] == v, (k, t[k], v)
assert t["timestamps"]["generation"] == "relative-us-3-decimals+baseTimeNanoseconds", t["timestamps"]
assert t["timestamps"]["base_time_ns"] == 1700000000000000000
assert t["span"] == {"start_ns": 1700000000000099500, "end_ns": 1700000000000200000, "duration_ns": 100500}, t["span"]
assert t["distributed"] == {"rank": 2, "world_size": 4, "backend": "nccl"}, t["distributed"]
assert t["devices"] == {"kind": "CUDA", "count": 1, "names": ["NVIDIA H100"]}, t["devices"]
assert t["steps"]["numbers"] == [3, 4] and t["steps"]["count"] == 2
assert t["host_threads"] == [{"pid": 10, "tid": 11, "name": "thread 11 (python3)", "process": None, "events": 9}], t["host_threads"]
assert t["gpu_streams"] == [{"device": 0, "stream": 7, "name": "stream 7 ", "label": None, "events": 5}], t["gpu_streams"]
c = t["correlation"]
assert (c["runtime_calls"], c["gpu_with_correlation"], c["linked"], c["unlinked"], c["launched_before_window"]) == (3, 4, 3, 1, 1), c
assert c["coverage"] == 0.75, c
assert t["external_id"]["bogus"] is True and t["external_id"]["runtime_equal_correlation"] == 3, t["external_id"]
o = t["overlaps"]
assert o["count"] == 2 and o["first"]["outer"] == "ProfilerStep#3" and o["first"]["inner"] == "train.py(3): step", o
w = " | ".join(t["warnings"])
for s in ("overlap without nesting", "bogus External id", "launched before the profiling window"):
    assert s in w, (s, w)
print("ok")
PY
if grep -q '^ok$' "$T/check"; then pass "info-json-values"; else fail "info-json-values" "$(tail -3 "$T/check")"; fi

gf info "$T/t.json"
expect_rc "info-text" 0
expect_grep "info-text-steps" "^steps: 2 \(ProfilerStep#3 .. #4\)" "$T/out"
expect_grep "info-text-thread" "pid 10 tid 11 'thread 11 \(python3\)': 9 events" "$T/out"
expect_grep "info-text-stream" "device 0 stream 7 'stream 7 ': 5 events" "$T/out"
expect_grep "info-text-coverage" "correlation coverage: 3 of 4 GPU activities link to a runtime call \(75.0%\)" "$T/out"
expect_grep "info-text-rank" "^rank: 2  world size: 4  backend: nccl" "$T/out"
expect_grep "info-text-gen" "^timestamps: relative-us-3-decimals" "$T/out"
expect_grep "info-text-warn-before" "^warning: 1 GPU activities were launched before" "$T/out"

# stdin, gzip and zstd by content (names do not matter), several files
gzip -c "$T/t.json" >"$T/t.bin"
zstd -q -c "$T/t.json" >"$T/t.zzz"
gf_in "$T/t.bin" info --format json
expect_rc "info-stdin-gzip" 0
expect_grep "info-stdin-gzip-events" '"file": "<stdin>", "compression": "gzip"' "$T/out"
gf info --format json "$T/t.json" "$T/t.bin" "$T/t.zzz"
expect_rc "info-multi" 0
n=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(",".join("%s:%d" % (t["compression"], t["events"]) for t in d["traces"]))' "$T/out")
expect_eq "info-multi-events" "$n" "none:16,gzip:16,zstd:16"

# -o writes the file; usage errors exit 2
gf info --format json -o "$T/o.json" "$T/t.json"
expect_rc "info-o" 0
expect_grep "info-o-file" '"events": 16' "$T/o.json"
gf info --format xml "$T/t.json"
expect_rc "info-bad-format" 2
expect_grep "info-bad-format-msg" "invalid argument 'xml' for '--format'" "$T/err"
gf info --bogus
expect_rc "info-bad-option" 2

# a bare array from the legacy exporter, truncated: read up to the last event
printf '[{"ph": "X", "name": "a", "pid": "CPU functions", "tid": 1, "ts": 1, "dur": 2},\n{"ph": "X", "name": "b", "pid": "CPU functions", "tid": 1, "ts": 4, "dur"' >"$T/trunc.json"
gf info --format json "$T/trunc.json"
expect_rc "info-truncated" 0
expect_grep "info-truncated-flag" '"truncated": true, "truncated_at": 80' "$T/out"
expect_grep "info-truncated-events" '"events": 1,' "$T/out"
expect_grep "info-truncated-pid" '"pid": "CPU functions"' "$T/out"
gf info "$T/trunc.json"
expect_grep "info-truncated-warning" "^warning: truncated file" "$T/out"
