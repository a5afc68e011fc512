#!/usr/bin/env python3
"""gen_backends.py — small Kineto traces of other accelerators and of the
fields gpuflame used to leave unread, with their answers known by
construction (issue 26, items 5 and 9). Stdlib only; never calls gpuflame.

USAGE: gen_backends.py OUTDIR

Writes OUTDIR/NAME.json and OUTDIR/NAME.expect.json for each case:
  xpu, privateuse1, mtia  an op launching device work through its backend's
                          runtime category (xpu_runtime urEnqueueKernelLaunch,
                          privateuse1_runtime Launch, mtia_runtime runFunction
                          with MTIA's mtia_ccp_events pe_exe / dma_request /
                          event_wait): "fold" is the gpu fold's stacks (ns),
                          "kind" the device kind info and report name
  cuda_fields             a CUDA step with kernels carrying grid, block,
                          registers and occupancy, Kineto's cuda_sync records
                          (a Stream Sync on the row tid = stream + 1000000
                          named "stream 7 (sync)", an Event Sync naming the
                          stream and the event record it waited on, a Context
                          Sync) and [memory] instant events: "device_syncs",
                          "memory_events", "sync_rows", "kernels_with_launch_config",
                          "gpu_streams" as info --format json must give them
"""
import json
import os
import sys

OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
PID, TID = 4242, 4242


def meta(pid, tid, name):
    return {"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "ts": 0, "args": {"name": name}}


def x(cat, name, ts, dur, pid=PID, tid=TID, **args):
    return {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur, "args": args}


def write(name, events, expect):
    with open(os.path.join(OUT, name + ".json"), "w") as f:
        json.dump({"schemaVersion": 1, "traceEvents": events}, f)
    with open(os.path.join(OUT, name + ".expect.json"), "w") as f:
        json.dump(expect, f)


def backend(name, rt_cat, rt_name, device_events, kind, fold):
    ev = [meta(PID, TID, "thread %d (python)" % TID),
          x("user_annotation", "ProfilerStep#1", 0, 1000),
          x("cpu_op", "aten::mm", 10, 300)]
    for i, (cat, dname, dur) in enumerate(device_events):
        c = 100 + i
        ev.append(x(rt_cat, rt_name, 20 + 40 * i, 10, correlation=c))
        ev.append(x(cat, dname, 400 + 100 * i, dur, pid=0, tid=7, device=0, stream=7, correlation=c))
    write(name, ev, {"kind": kind, "fold": fold})


# xpu: kernels and copies of the XPU backend, launched through xpu_runtime
backend("xpu", "xpu_runtime", "urEnqueueKernelLaunch",
        [("kernel", "gemm_xpu_kernel", 50), ("gpu_memcpy", "Memcpy M2D", 7)], "XPU",
        ["aten::mm;gemm 50000", "aten::mm;memcpy 7000"])
backend("privateuse1", "privateuse1_runtime", "Launch", [("kernel", "npu_conv2d", 33)], "PrivateUse1",
        ["aten::mm;npu_conv2d 33000"])
# MTIA: mtia_ccp_events say what they are by name: pe_exe computes, dma_request
# copies, event_wait is a stream waiting (a sync record: no GPU time)
backend("mtia", "mtia_runtime", "runFunction",
        [("mtia_ccp_events", "pe_exe", 40), ("mtia_ccp_events", "dma_request", 9), ("mtia_ccp_events", "event_wait", 500)],
        "MTIA", ["aten::mm;memcpy 9000", "aten::mm;pe_exe 40000"])

# CUDA with the fields left unused before
ev = [meta(PID, TID, "thread %d (python)" % TID), meta(0, 7, "stream 7 "), meta(0, 1000007, "stream 7 (sync)"),
      x("user_annotation", "ProfilerStep#1", 0, 2000),
      x("cpu_op", "aten::mm", 10, 300),
      x("cuda_runtime", "cudaLaunchKernel", 20, 10, correlation=1),
      x("kernel", "ampere_sgemm_128x64_nn", 400, 50, pid=0, tid=7, device=0, stream=7, correlation=1,
        grid=[128, 1, 1], block=[256, 1, 1], **{"registers per thread": 90, "est. achieved occupancy %": 37.5}),
      x("cuda_runtime", "cudaLaunchKernel", 40, 10, correlation=2),
      x("kernel", "ampere_sgemm_128x64_nn", 460, 50, pid=0, tid=7, device=0, stream=7, correlation=2,
        grid=[128, 1, 1], block=[256, 1, 1], **{"registers per thread": 90, "est. achieved occupancy %": 37.5}),
      x("cuda_runtime", "cudaStreamSynchronize", 60, 500, correlation=3),
      x("cuda_sync", "Stream Sync", 520, 30, pid=0, tid=1000007, device=0, stream=7, correlation=3,
        cuda_sync_kind="Stream Sync"),
      x("cuda_runtime", "cudaEventSynchronize", 600, 40, correlation=5),
      x("cuda_sync", "Event Sync", 610, 20, pid=0, tid=-1, device=0, stream=-1, correlation=5,
        cuda_sync_kind="Event Sync", wait_on_stream=7, wait_on_cuda_event_record_corr_id=4, wait_on_cuda_event_id=1),
      x("cuda_sync", "Context Sync", 700, 5, pid=0, tid=-1, device=0, stream=-1, correlation=6,
        cuda_sync_kind="Context Sync")]
mem = [(1000, 4096, 4096), (1100, 1024, 5120), (1200, -4096, 1024), (1300, 2048, 3072)]
for ts, b, tot in mem:
    ev.append({"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": PID, "tid": TID, "ts": ts,
               "args": {"Total Reserved": 2097152, "Total Allocated": tot, "Bytes": b, "Addr": 140000000 + ts,
                        "Device Type": 1, "Device Id": 0}})
write("cuda_fields", ev, {
    "kind": "CUDA",
    "fold": ["aten::mm;gemm 100000"],
    "device_syncs": {"count": 3, "stream_sync": 1, "event_sync": 1, "stream_wait_event": 0, "context_sync": 1,
                     "other": 0, "with_wait_on_stream": 1, "with_wait_on_event_record": 1},
    "memory_events": {"count": 4, "allocations": 3, "frees": 1, "bytes_allocated": 4096 + 1024 + 2048,
                      "bytes_freed": 4096, "peak_total_allocated": 5120},
    "sync_rows": [[0, 1000007, 7, "stream 7 (sync)", 1], [0, -1, -1, None, 2]],
    "gpu_streams": [[0, 7]],
    "kernels_with_launch_config": 2,
    "launch_config": "grid 128x1x1, block 256x1x1, 90 regs, 37.5% occupancy",
})
print("ok")
