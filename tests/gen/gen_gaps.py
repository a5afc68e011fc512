#!/usr/bin/env python3
"""gen_gaps.py — small Kineto traces, one per gap-model scenario, each with
its per-step cause split and verdict cause KNOWN BY CONSTRUCTION (written
below as numbers worked out by hand from the scenario's timeline; nothing
here runs the model of tests/gen/gapmodel.py or gpuflame).

  gen_gaps.py --list                      -> the scenario names
  gen_gaps.py NAME -o T.json --expect E.json
  gen_gaps.py --all DIR                   -> DIR/NAME.json, DIR/NAME.expect.json

Every trace: host thread pid 100 tid 1 (the step thread), GPU 0 stream 7
(stream 8 where a second stream is needed), integer-us times (exact ns).
E.json: {"steps": [{"index", "edge", "sync", "host", "untraced", "queued",
"launch"}] (ns), "summary": the steady means, "verdict_cause", and where
the scenario pins them "sync_sites"/"host_stacks"/"queued_waits" as
[[label, ns]] (time inside the steady steps, largest first).

The rule each scenario pins (the timeline is in each function's comment):
  deep_queue         GPU-bound: launches issued long before the kernels run;
                     5 us gaps are launch, one 40 us gap with the work already
                     queued is queued, the window's edges are edge
  cross_stream       a kernel on stream 8 queued behind a cuStreamWaitEvent
                     (the wait call after the previous launch names the wait;
                     an earlier cudaStreamWaitEvent does not)
  window_edges       idle before the first and after the last activity is
                     edge; the step is GPU-bound outside the edges
  h2d_pageable       a pageable host-to-device copy called while the GPU was
                     idle: not a sync; host, then queued, then launch
  h2d_pageable_drain the same copy called while the GPU still had work and
                     returning after it ran out: sync up to the next launch
  d2h_pageable       a pageable device-to-host copy always blocks: sync from
                     the copy's end to the next launch
  sync_after_idle    cudaStreamSynchronize called after the GPU went idle:
                     not a drain, the gap is host
  drain_host_launch  a sync drain, then host work, then a launch: sync up to
                     the launch, the 25 us launch-to-start after it launch
  idle_helper        drain_host_launch plus a sleeping helper thread with
                     a long frame and its own cudaStreamSynchronize: same
                     answer
  host_untraced      host late: a traced frame (host) and time with only the
                     step marker open (untraced)
  short_gap          a 20 us gap between kernels is launch even though the
                     host was late
  before_window      a kernel launched before the window (no runtime call,
                     correlation below all) is edge; one whose correlation
                     matches no call but is not below all is queued ("no
                     launch in the trace")
  blocked_after_launch  the sglang shape: the next kernel is launched 38 us
                     into the gap after a hipStreamWaitEvent, then the host
                     blocks in hipMemcpyWithStream while the kernel waits:
                     38 us host, the rest queued on the wait call
  warmup_means       three steps, the first a warm-up; the steady mean of
                     two steps rounds half to even
  launch_bound       back-to-back short kernels, every gap under 30 us: the
                     verdict cause is launch
  two_syncs          two blocking calls on two threads both drained the GPU:
                     the one that returned first is charged
"""
import argparse
import json
import os
import sys

US = 1000


class Tr:
    def __init__(self):
        self.ev = [{"ph": "M", "name": "thread_name", "pid": 100, "tid": 1,
                    "args": {"name": "python3"}}]
        self.corr = 1

    def x(self, cat, name, ts, dur, tid=1, **args):
        e = {"ph": "X", "cat": cat, "name": name, "pid": 100, "tid": tid, "ts": ts, "dur": dur}
        if args:
            e["args"] = args
        self.ev.append(e)
        return e

    def step(self, n, ts, dur):
        self.x("user_annotation", "ProfilerStep#%d" % n, ts, dur)

    def py(self, name, ts, dur, tid=1):
        self.x("python_function", name, ts, dur, tid=tid)

    def rt(self, name, ts, dur, tid=1, cat="cuda_runtime", corr=None):
        if corr is None:
            corr = self.corr
            self.corr += 1
        self.x(cat, name, ts, dur, tid=tid, correlation=corr)
        return corr

    def act(self, cat, name, ts, dur, corr, stream=7, device=0):
        self.ev.append({"ph": "X", "cat": cat, "name": name, "pid": device, "tid": stream, "ts": ts,
                        "dur": dur, "args": {"device": device, "stream": stream, "correlation": corr}})

    def launch(self, ts, kts, kdur, stream=7, name="cudaLaunchKernel", dur=3, kname=None):
        c = self.rt(name, ts, dur)
        self.act("kernel", kname or "k%d" % c, kts, kdur, c, stream)
        return c


def row(index, edge=0, sync=0, host=0, untraced=0, queued=0, launch=0):
    """A step row from us values."""
    return {"index": index, "edge": edge * US, "sync": sync * US, "host": host * US,
            "untraced": untraced * US, "queued": queued * US, "launch": launch * US}


def one_step(r, verdict, **lists):
    s = {k: v for k, v in r.items() if k != "index"}
    e = {"steps": [r], "summary": s, "verdict_cause": verdict}
    for k, v in lists.items():
        e[k] = [[a, b * US] for a, b in v]
    return e


def deep_queue():
    # step [1000, 2000); ten launches [1000 + 5k, 1003 + 5k) (all issued by 1048);
    # kernels: 1100-1185, 1190-1275, 1280-1365, 1370-1455, 1460-1545,
    # 1585-1670, 1675-1760, 1765-1850, 1855-1940, 1945-1995.
    # [1000,1003): inside the first launch call: launch 3; [1003,1100) the
    # work is issued but nothing ran on the device before it: edge 97.
    # 8 gaps of 5 us: the next kernel was issued long before (queued,
    # "back-to-back on stream 7": gap < 30 us, issued before it began);
    # [1545,1585) 40 queued, "stream 7: no wait in the trace" (it started 557
    # us after its call returned); [1995,2000): only the step marker open,
    # after the last activity: edge 5. busy 815 >= 90% of 1000 - 102.
    t = Tr()
    t.step(1, 1000, 1000)
    ks = [(1100, 85), (1190, 85), (1280, 85), (1370, 85), (1460, 85), (1585, 85), (1675, 85),
          (1765, 85), (1855, 85), (1945, 50)]
    for k, (s, d) in enumerate(ks):
        t.launch(1000 + 5 * k, s, d)
    e = one_step(row(1, edge=102, launch=3, queued=80), "gpu_bound",
                 queued_waits=[("back-to-back on stream 7", 40), ("stream 7: no wait in the trace", 40)])
    e["launch_bound"] = False
    return t, e


def cross_stream():
    # step [1000, 2000). cudaStreamWaitEvent [1001,1003) (before the first
    # launch); launch k0 [1010,1013) (stream 7) -> 1020-1200; cudaEventRecord
    # [1020,1022); cudaStreamWaitEvent [1025,1027); cuStreamWaitEvent
    # [1030,1032) (driver); launch k1 [1040,1043) on stream 8 -> 1500-1990.
    # Before 1020: [1000,1001) nothing traced on the only thread: edge 1;
    # [1001,1003) inside a (non-launch) runtime call: host 2; [1003,1010)
    # edge 7; [1010,1013) launch 3; [1013,1020) issued, nothing ran before:
    # edge 7. [1200,1500) queued 300 (k1 issued at 1043), named by the latest
    # wait call after the previous launch: cuStreamWaitEvent. [1990,2000)
    # edge 10. busy 180 + 490 = 670 < 90% of 975.
    t = Tr()
    t.step(1, 1000, 1000)
    t.rt("cudaStreamWaitEvent", 1001, 2)
    t.launch(1010, 1020, 180)
    t.rt("cudaEventRecord", 1020, 2)
    t.rt("cudaStreamWaitEvent", 1025, 2)
    t.rt("cuStreamWaitEvent", 1030, 2, cat="cuda_driver")
    t.launch(1040, 1500, 490, stream=8)
    return t, one_step(row(1, edge=25, host=2, launch=3, queued=300), "queued",
                       queued_waits=[("cuStreamWaitEvent (stream 8)", 300)])


def window_edges():
    # step [1000, 2000); frame app.py(5): main [1001, 1999); one kernel
    # launched [1300,1303) runs 1400-1600; cudaDeviceSynchronize [1700,1710).
    # Traced host code before the first and after the last activity is the
    # host's, not the window's edge (issue 24, item 2): [1000,1001) edge 1,
    # [1001,1300) host 299, [1300,1303) launch 3, [1303,1400) issued with
    # nothing before it: edge 97; after: [1600,1700) host 100, [1700,1710)
    # inside the blocking call: sync 10, [1710,1999) host 289, [1999,2000)
    # edge 1. busy 200.
    t = Tr()
    t.step(1, 1000, 1000)
    t.py("app.py(5): main", 1001, 998)
    t.launch(1300, 1400, 200)
    t.rt("cudaDeviceSynchronize", 1700, 10)
    e = one_step(row(1, edge=99, host=688, launch=3, sync=10), "host",
                 host_stacks=[("app.py(5): main", 688)], sync_sites=[("app.py(5): main", 10)])
    e["verdict_class"] = "python"
    return t, e


def h2d_pageable(drain=False):
    if not drain:
        # step [1000, 2000), frame model.py(10): fwd over [1001, 1999).
        # launch [1005,1008) -> k0 1010-1100; cudaMemcpyAsync [1300, 1400)
        # whose copy "Memcpy HtoD (Pageable -> Device)" runs 1350-1360 (the
        # GPU was idle when it was called: no drain, not blocking: a launch
        # call); launch [1450,1453) -> k1 1460-1900.
        # before 1010: edge 1, host 4, launch 3, edge 2. [1100,1350): host
        # 200 (fwd), [1300,1350) inside the copy call: launch 50 (the copy is
        # not issued until the call returns). [1360,1460): inside the copy
        # call until 1400: launch 40; fwd: host 50; launch 3; [1453,1460)
        # issued, started 7 us later: queued "launch latency" 7.
        # [1900,2000): host 99, edge 1. busy 90 + 10 + 440 = 540.
        t = Tr()
        t.step(1, 1000, 1000)
        t.py("model.py(10): fwd", 1001, 998)
        t.launch(1005, 1010, 90)
        c = t.rt("cudaMemcpyAsync", 1300, 100)
        t.act("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 1350, 10, c)
        t.launch(1450, 1460, 440)
        return t, one_step(row(1, edge=4, host=353, launch=96, queued=7), "host",
                           host_stacks=[("model.py(10): fwd", 353)],
                           queued_waits=[("launch latency (stream 7)", 7)], sync_sites=[])
    # step [1000, 2000); launch [1005,1008) -> k0 1010-1300; frame
    # train.py(42): load_batch [1190, 1410) holds cudaMemcpyAsync [1200, 1400)
    # whose copy "Memcpy HtoD (Pageable -> Device)" runs 1300-1310 (busy
    # [1010, 1310) holds the call's start, the call returns at 1400 >= 1310:
    # it drained the stream: blocking); frame train.py(50): step [1410, 1999)
    # launches [1500,1503) -> k1 1520-1950.
    # before 1010: edge 5 (nothing traced), launch 3, edge 2. [1310,1520):
    # inside the blocking copy until 1400: sync 90; load_batch host 10,
    # step host 90 (both after the drain); launch 3; latency 17.
    # [1950,2000): host 49, edge 1. busy 300 + 10 + 430 = 740.
    # The copy's bubble (syncs): min(1503 - 1310, its wait while busy 110) = 110.
    t = Tr()
    t.step(1, 1000, 1000)
    t.launch(1005, 1010, 290)
    t.py("train.py(42): load_batch", 1190, 220)
    c = t.rt("cudaMemcpyAsync", 1200, 200)
    t.act("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 1300, 10, c)
    t.py("train.py(50): step", 1410, 589)
    t.launch(1500, 1520, 430)
    e = one_step(row(1, edge=8, sync=90, host=149, launch=6, queued=17), "host",
                 sync_sites=[("train.py(42): load_batch", 90)],
                 host_stacks=[("train.py(50): step", 139), ("train.py(42): load_batch", 10)])
    e["syncs"] = [["train.py(42): load_batch", "host-to-device input copy", 110 * US]]
    e["next_has"] = ["drained at the sync at train.py(42): load_batch"]
    return t, e


def d2h_pageable():
    # as h2d_pageable without drain, but the copy is "Memcpy DtoH (Device ->
    # Pageable)" inside frame model.py(20): to_cpu [1300, 1401): always
    # blocking. before 1010: edge 1, host 4, launch 3, edge 2. [1100,1350):
    # host 200 (fwd); [1300,1350) inside the blocking copy: sync 50.
    # [1360,1460): inside it until 1400: sync 40; to_cpu host 1, fwd host 49;
    # launch 3; latency 7. [1900,2000): host 99, edge 1.
    t = Tr()
    t.step(1, 1000, 1000)
    t.py("model.py(10): fwd", 1001, 998)
    t.launch(1005, 1010, 90)
    t.py("model.py(20): to_cpu", 1300, 101)
    c = t.rt("cudaMemcpyAsync", 1300, 100)
    t.act("gpu_memcpy", "Memcpy DtoH (Device -> Pageable)", 1350, 10, c)
    t.launch(1450, 1460, 440)
    return t, one_step(row(1, edge=4, sync=90, host=353, launch=6, queued=7), "host",
                       sync_sites=[("model.py(20): to_cpu", 90)],
                       host_stacks=[("model.py(10): fwd", 352), ("model.py(20): to_cpu", 1)])


def sync_after_idle():
    # step [1000, 2000), frame eng.py(7): loop [1001, 1999). launch
    # [1005,1008) -> k0 1010-1100; cudaStreamSynchronize [1200, 1205) (the
    # GPU is idle since 1100: it drains nothing, but the thread is inside
    # it: sync 5); launch [1500,1503) -> k1 1510-1950.
    # before 1010: edge 1, host 4, launch 3, edge 2; [1100,1510): host 100 +
    # 295, sync 5, launch 3, latency 7; [1950,2000): host 49, edge 1.
    t = Tr()
    t.step(1, 1000, 1000)
    t.py("eng.py(7): loop", 1001, 998)
    t.launch(1005, 1010, 90)
    t.rt("cudaStreamSynchronize", 1200, 5)
    t.launch(1500, 1510, 440)
    e = one_step(row(1, edge=4, sync=5, host=448, launch=6, queued=7), "host",
                 host_stacks=[("eng.py(7): loop", 448)], sync_sites=[("eng.py(7): loop", 5)])
    e["syncs"] = [["eng.py(7): loop", "stream.synchronize()", 0]]
    return t, e


def drain_host_launch(helper=False):
    # step [1000, 2000). launch [1005,1008) -> k0 1010-1300; frame
    # eng.py(12): sync [1090, 1320) holds cudaStreamSynchronize [1100, 1310)
    # (called while k0 ran, returned after it ended: a drain); frame
    # eng.py(20): detok [1320, 1480); launch [1490, 1495) -> k1 1515-1950.
    # before 1010: edge 5, launch 3, edge 2. [1300,1515): inside the sync
    # until 1310: sync 10; eng.py(12) host 10 and detok host 160 (after the
    # drain); [1480,1490) only the step marker: untraced 10; launch 5;
    # latency 20. [1950,2000): edge 50. The sync's bubble: min(1495 - 1300,
    # its wait while busy 200) = 195.
    # helper: thread tid 2 sleeps in tqdm/_monitor.py(60): run [900, 2100)
    # and calls cudaStreamSynchronize [1250, 1600); it launches nothing and
    # holds no step: nothing changes.
    t = Tr()
    t.step(1, 1000, 1000)
    t.launch(1005, 1010, 290)
    t.py("eng.py(12): sync", 1090, 230)
    t.rt("cudaStreamSynchronize", 1100, 210)
    t.py("eng.py(20): detok", 1320, 160)
    t.launch(1490, 1515, 435, dur=5)
    if helper:
        t.ev.append({"ph": "M", "name": "thread_name", "pid": 100, "tid": 2, "args": {"name": "tqdm"}})
        t.py("tqdm/_monitor.py(60): run", 900, 1200, tid=2)
        t.x("python_function", "<built-in method wait of _thread.lock object>", 950, 1100, tid=2)
        t.rt("cudaStreamSynchronize", 1250, 350, tid=2)
    e = one_step(row(1, edge=57, sync=10, host=170, untraced=10, launch=8, queued=20), "host",
                 sync_sites=[("eng.py(12): sync", 10)],
                 host_stacks=[("eng.py(20): detok", 160), ("eng.py(12): sync", 10)])
    e["syncs"] = [["eng.py(12): sync", "stream.synchronize()", 195 * US]]
    e["next_has"] = ["drained at the sync at eng.py(12): sync"]
    return t, e


def host_untraced():
    # step [1000, 2000). launch [1005,1008) -> k0 1010-1100; frame
    # eng.py(30): post [1150, 1250); launch [1400,1403) -> k1 1410-1950 (both
    # launches directly under the step marker). before 1010: edge 5, launch
    # 3, edge 2; [1100,1410): untraced 50 + 150, host 100, launch 3, latency
    # 7; [1950,2000) edge 50. busy 90 + 540 = 630.
    t = Tr()
    t.step(1, 1000, 1000)
    t.launch(1005, 1010, 90)
    t.py("eng.py(30): post", 1150, 100)
    t.launch(1400, 1410, 540)
    return t, one_step(row(1, edge=57, host=100, untraced=200, launch=6, queued=7), "untraced",
                       host_stacks=[("eng.py(30): post", 100)])


def short_gap():
    # step [1000, 2000). launch [1005,1008) -> k0 1010-1500; launch
    # [1505,1508) -> k1 1520-1990. The 20 us gap: untraced 5 (only the step
    # marker), launch 3 (inside the call), launch latency 12 (queued): a
    # short gap is what the thread did, not "launch" as a whole.
    # before 1010: edge 5, launch 3, edge 2; [1990,2000) edge 10.
    # busy 960 >= 90% of 1000 - 17.
    t = Tr()
    t.step(1, 1000, 1000)
    t.launch(1005, 1010, 490)
    t.launch(1505, 1520, 470)
    return t, one_step(row(1, edge=17, untraced=5, launch=6, queued=12), "gpu_bound",
                       queued_waits=[("launch latency (stream 7)", 12)])


def before_window():
    # step [1000, 2000), frame run.py(3): go [1001, 1999). Runtime
    # correlations start at 5. launch (corr 5) [1005,1008) -> k0 1010-1100;
    # kz (corr 2, before the window) 1110-1200; kx (corr 1: below every
    # runtime correlation) 1400-1500; launch (corr 6) [1600,1603) -> k2
    # 1610-1900; ky (corr 99: no call) 1950-1960.
    # before 1010: edge 1, host 4, launch 3, edge 2. [1100,1110) and
    # [1200,1400): the next work has no launch in the trace, no thread is
    # named: edge 10 + 200. [1500,1610): host 100, launch 3, latency 7.
    # [1900,1950): ky has no launch: edge 50. [1960,2000): host 39, edge 1.
    # busy 90 + 90 + 100 + 290 + 10 = 580; edge is the largest.
    t = Tr()
    t.corr = 5
    t.step(1, 1000, 1000)
    t.py("run.py(3): go", 1001, 998)
    t.launch(1005, 1010, 90)
    t.act("kernel", "kz", 1110, 90, 2)
    t.act("kernel", "kx", 1400, 100, 1)
    t.launch(1600, 1610, 290)
    t.act("kernel", "ky", 1950, 10, 99)
    return t, one_step(row(1, edge=264, host=143, launch=6, queued=7), "edge",
                       queued_waits=[("launch latency (stream 7)", 7)],
                       host_stacks=[("run.py(3): go", 143)])


def blocked_after_launch():
    # step [1000, 3000) (ROCm names). hipLaunchKernel [1005,1008) -> k0
    # 1010-1100; frame cuda_graph_runner.py(276): replay [1001, 2990):
    # hipStreamWaitEvent [1120,1123), hipLaunchKernel [1138,1141) -> k1 on
    # stream 8 2500-2900, hipMemcpyWithStream [1150, 2950) (blocking; its
    # copy "Memcpy DtoH (Device -> Host)" 2905-2910 on stream 8).
    # before 1010: edge 1, host 4, launch 3, edge 2. [1100,2500): host 38
    # (replay 35, inside the wait call 3), launch 3, then k1 is issued
    # (1141): queued 1359 on "hipStreamWaitEvent (stream 8)" while the thread
    # blocks elsewhere. [2900,2905): the copy's call has not returned: the
    # thread is inside the blocking call: sync 5. [2910,3000): sync 40 (until
    # 2950), host 40 (replay), edge 10. busy 90 + 400 + 5 = 495.
    t = Tr()
    t.step(1, 1000, 2000)
    t.launch(1005, 1010, 90, name="hipLaunchKernel")
    t.py("cuda_graph_runner.py(276): replay", 1001, 1989)
    t.rt("hipStreamWaitEvent", 1120, 3)
    t.launch(1138, 2500, 400, stream=8, name="hipLaunchKernel")
    c = t.rt("hipMemcpyWithStream", 1150, 1800)
    t.act("gpu_memcpy", "Memcpy DtoH (Device -> Host)", 2905, 5, c, stream=8)
    return t, one_step(row(1, edge=13, host=82, sync=45, queued=1359, launch=6), "queued",
                       queued_waits=[("hipStreamWaitEvent (stream 8)", 1359)],
                       host_stacks=[("cuda_graph_runner.py(276): replay", 79),
                                    ("cuda_graph_runner.py(276): replay > hipStreamWaitEvent", 3)],
                       sync_sites=[("cuda_graph_runner.py(276): replay", 45)])


def warmup_means():
    # three steps: #1 [1000, 4000) (wall 3000 > 1.5 x the median 1001: warm-up),
    # #2 [4000, 5001), #3 [5001, 6002). Frame loop.py(1): run over each step
    # exactly (it nests inside the marker: traced host work all along).
    # #1: [1000,1005) host 5, launch [1005,1008) 3, [1008,1010) edge 2 (issued,
    #     nothing before it); the gap [3990, 4100) (launch [4050,4053) ->
    #     4100-4900): host 10 in #1, host 50 in #2, launch 3, queued 47 ("no
    #     wait": it started 47 us after its call returned).
    # #2: host 50 + 101, launch 3, queued 47 (the gap [4900, 5101): launch
    #     [5060,5063) -> 5101-5902.001: host 101 in #2, 59 in #3).
    # #3: host 59, launch 3, queued 38; after 5902.001 the frame is still
    #     open: host 99.999 (traced work in the step, not the edge).
    # steady means over #2 and #3: host (151 + 158.999) / 2 = 154.9995 us ->
    # 155000 ns (half to even), launch 3, queued (47 + 38) / 2 = 42.5.
    t = Tr()
    t.step(1, 1000, 3000)
    t.step(2, 4000, 1001)
    t.step(3, 5001, 1001)
    t.py("loop.py(1): run", 1000, 3000)
    t.py("loop.py(1): run", 4000, 1001)
    t.py("loop.py(1): run", 5001, 1001)
    t.launch(1005, 1010, 2980)
    t.launch(4050, 4100, 800)
    c = t.rt("cudaLaunchKernel", 5060, 3)
    t.act("kernel", "k_last", 5101, 801.001, c)
    r1 = row(1, edge=2, host=15, launch=3)
    r2 = row(2, host=151, launch=3, queued=47)
    r3 = row(3, host=0, launch=3, queued=38)
    r3["host"] = 158999
    r1["warmup"] = True
    summ = {"edge": 0, "sync": 0, "host": 155000, "untraced": 0, "queued": 42500, "launch": 3000}
    return t, {"steps": [r1, r2, r3], "summary": summ, "verdict_cause": "host",
               "host_stacks": [["loop.py(1): run", 309999]],
               "queued_waits": [["stream 7: no wait in the trace", 85 * US]]}


def launch_bound():
    # step [1000, 2000); 33 launch calls [1000 + 30j, 1027 + 30j) (27 us each:
    # the launch API is the cost), kernel j at [1030 + 30j, 1040 + 30j).
    # [1000,1027) inside the first call: launch 27; [1027,1030) issued with
    # nothing before it: edge 3. Each of the 32 gaps [1040 + 30j, 1060 + 30j):
    # inside the next call until 1057 + 30j: launch 17; latency 3 (queued).
    # launch 27 + 544 = 571, queued 96; busy 330 < 80%; median kernel 10 <
    # median call 27, every kernel shorter than its call: launch-bound.
    t = Tr()
    t.step(1, 1000, 1000)
    for j in range(33):
        t.launch(1000 + 30 * j, 1030 + 30 * j, 10, dur=27)
    e = one_step(row(1, edge=3, launch=571, queued=96), "launch", host_stacks=[], sync_sites=[],
                 queued_waits=[("launch latency (stream 7)", 96)])
    e["launch_bound"] = True
    e["verdict_class"] = "launch"
    e["next_has"] = ["launch-bound", "most kernels are shorter than their launch call"]
    return t, e


def two_syncs():
    # step [1000, 2000). launch [1005,1008) -> k0 1010-1300. Thread 1: frame
    # a.py(1): f [1090, 1330) holds cudaStreamSynchronize [1100, 1320);
    # thread 2: frame b.py(2): g [1190, 1310) holds cudaDeviceSynchronize
    # [1200, 1305). Both started before 1300 and returned before the launch
    # [1400,1403) (-> k1 1410-1950): the one returning first (thread 2's)
    # drained the device: its bubble min(1403 - 1300, 100) = 100, the other's
    # 0. The issuing thread (1): sync 20 (inside its own call until 1320),
    # host 10 (a.py(1): f), untraced 70, launch 3, latency 7. before 1010:
    # edge 5 (thread 2 launches nothing and holds no step), launch 3, edge 2;
    # [1950,2000) edge 50. busy 290 + 540 = 830.
    t = Tr()
    t.step(1, 1000, 1000)
    t.launch(1005, 1010, 290)
    t.py("a.py(1): f", 1090, 240)
    t.rt("cudaStreamSynchronize", 1100, 220)
    t.py("b.py(2): g", 1190, 120, tid=2)
    t.rt("cudaDeviceSynchronize", 1200, 105, tid=2)
    t.launch(1400, 1410, 540)
    e = one_step(row(1, edge=57, sync=20, host=10, untraced=70, launch=6, queued=7), "untraced",
                 sync_sites=[("a.py(1): f", 20)])
    e["syncs"] = [["b.py(2): g", "torch.cuda.synchronize()", 100 * US], ["a.py(1): f", "stream.synchronize()", 0]]
    return t, e


# ---- the cases of issue 24 ("Right on traces nobody tuned for") ----------

def first_launch():
    # Item 1 and 6: a 2 ms first cudaLaunchKernel (module load) is host time in
    # the call, never "queued". No step markers: the window is [1000, 9000).
    # Frame train.py(10): train [1000, 9000); launches (cudaLaunchKernel):
    # [1005,1010) -> k0 1012-1100; aten::conv (cpu_op) [1100, 3200) holds
    # [1110, 3110) (2000 us) -> k1 3105-3200 (it starts before the call
    # returns); then [3210 + 100m, 3215 + 100m) -> k 3220 + 100m .. 3300 +
    # 100m (m = 0..3) and [3610,3615) -> k6 3620-8990.
    # before 1012: host 5, launch 5, edge 2 (issued, nothing before it).
    # [1100,3105): host 10 (aten::conv), launch 1995: the call lasts 2000 us,
    # 400x the median 5 us of its name: warm-up. Each of the 5 later gaps:
    # host 10, launch 5, latency 5. [8990,9000): host 10.
    # busy 88 + 95 + 4 x 80 + 5370 = 5873; idle 2127.
    t = Tr()
    t.py("train.py(10): train", 1000, 8000)
    t.launch(1005, 1012, 88, dur=5)
    t.x("cpu_op", "aten::conv", 1100, 2100)
    t.launch(1110, 3105, 95, dur=2000)
    for m in range(4):
        t.launch(3210 + 100 * m, 3220 + 100 * m, 80, dur=5)
    t.launch(3610, 3620, 5370, dur=5)
    e = one_step(row(None, edge=2, host=75, launch=2025, queued=25), "launch",
                 queued_waits=[("launch latency (stream 7)", 25)])
    e["verdict_class"] = "warmup"
    e["next_has"] = ["one-time work", "cudaLaunchKernel lasts 2.0 ms"]
    e["next_not"] = ["off the launching thread", "reduce-overhead", "--steps"]
    return t, e


def edges_traced():
    # Item 2: pipeline hooks before the first kernel and after the last, and a
    # device synchronize after the last kernel, inside the step: host and
    # sync, never the window's edge. step [1000, 2000); frame
    # pipeline.py(50): __call__ [1001, 1999) holds hooks.py(10): before
    # [1002, 1200), launch [1200,1203) -> k0 1210-1500, launch [1500,1503) ->
    # k1 1505-1700, cudaDeviceSynchronize [1600, 1750), hooks.py(20): after
    # [1760, 1990).
    # before 1210: edge 1 (nothing open), host 1 + 198, launch 3, edge 7
    # (issued, nothing before it). [1500,1505): launch 3, latency 2.
    # after 1700: sync 50 (inside the synchronize), host 10 + 230 + 9, edge 1.
    t = Tr()
    t.step(1, 1000, 1000)
    t.py("pipeline.py(50): __call__", 1001, 998)
    t.py("hooks.py(10): before", 1002, 198)
    t.launch(1200, 1210, 290)
    t.launch(1500, 1505, 195)
    t.rt("cudaDeviceSynchronize", 1600, 150)
    t.py("hooks.py(20): after", 1760, 230)
    e = one_step(row(1, edge=9, host=448, launch=6, queued=2, sync=50), "host",
                 host_stacks=[("hooks.py(20): after", 230), ("hooks.py(10): before", 198),
                              ("pipeline.py(50): __call__", 20)],
                 sync_sites=[("pipeline.py(50): __call__", 50)])
    e["verdict_class"] = "python"
    e["verdict_not"] = ["window's edge"]
    return t, e


def short_sync_then_init():
    # Item 4: a short cudaStreamSynchronize that returned as the GPU went idle
    # is not charged with the one-time work that follows. step [1000, 2000);
    # launch [1005,1008) -> k0 1010-1095; frame eng.py(5): sync [1085, 1101)
    # holds cudaStreamSynchronize [1087, 1100); frame eng.py(9): init
    # [1101, 1900) holds cudaStreamCreateWithFlags [1110, 1880); launch
    # [1900,1903) -> k1 1905-1990.
    # before 1010: edge 5, launch 3, edge 2. [1095,1905): sync 5 (inside the
    # sync), host 1 + 9 + 770 (stream creation: warm-up) + 20, launch 3,
    # latency 2. [1990,2000) edge 10. The sync's bubble is what its wait
    # threw away: min(1903 - 1095, 8 us of wait while busy) = 8.
    t = Tr()
    t.step(1, 1000, 1000)
    t.launch(1005, 1010, 85)
    t.py("eng.py(5): sync", 1085, 16)
    t.rt("cudaStreamSynchronize", 1087, 13)
    t.py("eng.py(9): init", 1101, 799)
    t.rt("cudaStreamCreateWithFlags", 1110, 770)
    t.launch(1900, 1905, 85)
    e = one_step(row(1, edge=17, sync=5, host=800, launch=6, queued=2), "host",
                 sync_sites=[("eng.py(5): sync", 5)])
    e["verdict_class"] = "warmup"
    e["syncs"] = [["eng.py(5): sync", "stream.synchronize()", 8 * US]]
    e["next_has"] = ["one-time work"]
    return t, e


def data_on_launch_thread():
    # Item 4 (the image pipeline) and 5: pre-processing on the launching
    # thread is data loading, with DataLoader advice, not a sync and not
    # decode vocabulary. step [1000, 3000); launch [1005,1008) -> k0
    # 1010-1200; frame torch/utils/data/dataloader.py(700): __next__ [1100,
    # 2500) holds scipy/ndimage/_interpolation.py(739): zoom [1150, 2450);
    # frame train.py(30): to_device [2500, 2600) holds cudaMemcpyAsync
    # [2510,2520) (pinned HtoD, 2525-2530) and cudaStreamSynchronize
    # [2520,2540); launch [2600,2603) -> k2 2610-2990.
    # before 1010: edge 5, launch 3, edge 2. [1200,2525): zoom 1250 + __next__
    # 50 (data), to_device 10, inside the copy call 10 (launch), latency 5.
    # [2530,2610): sync 10, host 60, launch 3, latency 7. [2990,3000) edge 10.
    t = Tr()
    t.step(1, 1000, 2000)
    t.launch(1005, 1010, 190)
    t.py("torch/utils/data/dataloader.py(700): __next__", 1100, 1400)
    t.py("scipy/ndimage/_interpolation.py(739): zoom", 1150, 1300)
    t.py("train.py(30): to_device", 2500, 100)
    c = t.rt("cudaMemcpyAsync", 2510, 10)
    t.act("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", 2525, 5, c)
    t.rt("cudaStreamSynchronize", 2520, 20)
    t.launch(2600, 2610, 380)
    e = one_step(row(1, edge=17, host=1370, launch=16, queued=12, sync=10), "host",
                 host_stacks=[("scipy/ndimage/_interpolation.py(739): zoom", 1250),
                              ("train.py(30): to_device", 70),
                              ("torch/utils/data/dataloader.py(700): __next__", 50)])
    e["verdict_class"] = "data"
    e["next_has"] = ["DataLoader", "torch/utils/data/dataloader.py(700): __next__"]
    e["next_not"] = ["detokeni", "stop check", "tolist"]
    return t, e


def h2d_input_sync():
    # Item 5: an input copy (aten::to -> pageable HtoD -> cudaStreamSynchronize)
    # gets the host-to-device fix, not the .cpu()/.tolist() one. step [1000,
    # 2000); launch [1005,1008) -> k0 1010-1300; frame train.py(40): step
    # [1001, 1999) holds aten::to [1100, 1320) with cudaMemcpyAsync
    # [1110,1120) ("Memcpy HtoD (Pageable -> Device)" 1300-1305: it returned
    # before the device ran out, so not itself blocking) and
    # cudaStreamSynchronize [1125, 1310); launch [1400,1403) -> k1 1410-1990.
    # before 1010: edge 1, host 4, launch 3, edge 2. [1305,1410): sync 5, host
    # 10 + 80 after the drain, launch 3, latency 7. [1990,2000): host 9, edge
    # 1. The sync's bubble: min(1403 - 1305, 180) = 98.
    t = Tr()
    t.step(1, 1000, 1000)
    t.launch(1005, 1010, 290)
    t.py("train.py(40): step", 1001, 998)
    t.x("cpu_op", "aten::to", 1100, 220)
    c = t.rt("cudaMemcpyAsync", 1110, 10)
    t.act("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 1300, 5, c)
    t.rt("cudaStreamSynchronize", 1125, 185)
    t.launch(1400, 1410, 580)
    e = one_step(row(1, edge=4, sync=5, host=103, launch=6, queued=7), "host",
                 sync_sites=[("train.py(40): step", 5)])
    e["syncs"] = [["train.py(40): step", "host-to-device input copy", 98 * US]]
    e["next_has"] = ["host-to-device input copy"]
    e["next_not"] = [".cpu()/.tolist()"]
    return t, e


def tolist_once():
    # Item 5: one .tolist() is one row with one fix, though it makes two
    # blocking calls. step [1000, 2000); launch [1005,1008) -> k0 1010-1300;
    # frame dec.py(7): step [1001, 1999) holds aten::tolist [1100, 1330) with
    # cudaMemcpyAsync [1110, 1310) ("Memcpy DtoH (Device -> Pageable)"
    # 1300-1302: always blocking) and cudaStreamSynchronize [1311, 1315);
    # launch [1400,1403) -> k1 1410-1990.
    # before 1010: edge 1, host 4, launch 3, edge 2. [1302,1410): sync 8 + 4,
    # host 1 + 15 + 70, launch 3, latency 7. [1990,2000): host 9, edge 1.
    # The copy drained the device: bubble min(1403 - 1302, 192) = 101.
    t = Tr()
    t.step(1, 1000, 1000)
    t.launch(1005, 1010, 290)
    t.py("dec.py(7): step", 1001, 998)
    t.x("cpu_op", "aten::tolist", 1100, 230)
    c = t.rt("cudaMemcpyAsync", 1110, 200)
    t.act("gpu_memcpy", "Memcpy DtoH (Device -> Pageable)", 1300, 2, c)
    t.rt("cudaStreamSynchronize", 1311, 4)
    t.launch(1400, 1410, 580)
    e = one_step(row(1, edge=4, sync=12, host=99, launch=6, queued=7), "host",
                 sync_sites=[("dec.py(7): step", 12)])
    e["syncs"] = [["dec.py(7): step", ".cpu()/.tolist()", 101 * US]]
    e["nsyncs"] = 1
    return t, e


def issuing_host():
    # Item 5: host work that IS the launching (a compiled wrapper issuing
    # kernels) is not told to move off the launching thread. step [1000,
    # 1910); frame compiled.py(3): call [1001, 1909); 20 launches [1010 + 45j,
    # 1015 + 45j) -> kernel [1020 + 45j, 1050 + 45j). Each of the 19 gaps: host
    # 5, launch 5, latency 5. before 1020: edge 1, host 9, launch 5, edge 5.
    # [1905,1910): host 4, edge 1. Host 108 (95 of it in the short gaps, all
    # of it in a frame that issues the kernels, 5.4 us per launch call).
    t = Tr()
    t.step(1, 1000, 910)
    t.py("compiled.py(3): call", 1001, 908)
    for j in range(20):
        t.launch(1010 + 45 * j, 1020 + 45 * j, 30, dur=5)
    e = one_step(row(1, edge=7, host=108, launch=100, queued=95), "host",
                 host_stacks=[("compiled.py(3): call", 108)])
    e["verdict_class"] = "python"
    e["launch_bound"] = False
    e["next_has"] = ["issuing of the kernels itself", "CUDA graph"]
    e["next_not"] = ["off the launching thread"]
    return t, e


def hipfree_allocator():
    # Item 6: hipFree with the caching allocator off synchronises the device:
    # sync, class allocator, allocator advice with the call count. No step
    # markers; frame train.py(1): loop [1000, 4010). For j = 0..9:
    # hipLaunchKernel [1010 + 300j, 1015 + 300j) -> k_j [1020 + 300j, 1100 +
    # 300j), hipFree [1110 + 300j, 1300 + 300j).
    # before 1020: host 10, launch 5, edge 5. Each of the 9 gaps [1100 +
    # 300j, 1320 + 300j): host 10, sync 190 (inside hipFree), host 10, launch
    # 5, latency 5. After k9 (3800): host 10, sync 190, host 10.
    t = Tr()
    t.py("train.py(1): loop", 1000, 3010)
    for j in range(10):
        t.launch(1010 + 300 * j, 1020 + 300 * j, 80, name="hipLaunchKernel", dur=5)
        t.rt("hipFree", 1110 + 300 * j, 190)
    e = one_step(row(None, edge=5, host=210, sync=1900, launch=50, queued=45), "sync",
                 sync_sites=[("train.py(1): loop", 1900)])
    e["verdict_class"] = "allocator"
    e["next_has"] = ["caching allocator", "hipFree: 10 in the trace"]
    e["syncs"] = [["train.py(1): loop", "freeing device memory", 0]]
    return t, e


def busy_share():
    # Item 9: "busy 104%" came from a median busy over a median wall minus a
    # mean edge. Three steps of 1000 us: #1 [1000,2000): launch [1001,1004) ->
    # k_a 1010-1960 (busy 950; before it: edge 1, launch 3, edge 6); #2: k_b
    # 2010-2970 (960) issued at [1950,1953); #3: k_c 3000-3700 (700) issued
    # at [2950,2953), then nothing open: edge 300. [1960,2010) and
    # [2970,3000): queued ("no wait"). Medians: busy 950 / (1000 - mean edge
    # 102.333) = 106%; over the steps' sums: 2610 / (3000 - 307) = 97%.
    t = Tr()
    t.step(1, 1000, 1000)
    t.step(2, 2000, 1000)
    t.step(3, 3000, 1000)
    t.launch(1001, 1010, 950)
    t.launch(1950, 2010, 960)
    t.launch(2950, 3000, 700)
    r1 = row(1, edge=7, launch=3, queued=40)
    r2 = row(2, queued=40)
    r3 = row(3, edge=300)
    summ = {"edge": 102333, "sync": 0, "host": 0, "untraced": 0, "queued": 26667, "launch": 1000}
    e = {"steps": [r1, r2, r3], "summary": summ, "verdict_cause": "gpu_bound",
         "queued_waits": [["stream 7: no wait in the trace", 80 * US]]}
    e["verdict_has"] = ["busy 97% of the steady steps"]
    return t, e


SCEN = {
    "deep_queue": deep_queue,
    "cross_stream": cross_stream,
    "window_edges": window_edges,
    "h2d_pageable": lambda: h2d_pageable(False),
    "h2d_pageable_drain": lambda: h2d_pageable(True),
    "d2h_pageable": d2h_pageable,
    "sync_after_idle": sync_after_idle,
    "drain_host_launch": lambda: drain_host_launch(False),
    "idle_helper": lambda: drain_host_launch(True),
    "host_untraced": host_untraced,
    "short_gap": short_gap,
    "before_window": before_window,
    "blocked_after_launch": blocked_after_launch,
    "warmup_means": warmup_means,
    "launch_bound": launch_bound,
    "two_syncs": two_syncs,
    "first_launch": first_launch,
    "edges_traced": edges_traced,
    "short_sync_then_init": short_sync_then_init,
    "data_on_launch_thread": data_on_launch_thread,
    "h2d_input_sync": h2d_input_sync,
    "tolist_once": tolist_once,
    "issuing_host": issuing_host,
    "hipfree_allocator": hipfree_allocator,
    "busy_share": busy_share,
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("name", nargs="?")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("-o", "--output")
    ap.add_argument("--expect")
    ap.add_argument("--all", metavar="DIR", help="every scenario: DIR/NAME.json, DIR/NAME.expect.json")
    a = ap.parse_args()
    if a.list:
        print("\n".join(SCEN))
        return 0
    if a.all:
        for n in SCEN:
            write(n, "%s/%s.json" % (a.all, n), "%s/%s.expect.json" % (a.all, n))
        return 0
    if a.name not in SCEN or not a.output or not a.expect:
        ap.error("NAME -o TRACE --expect EXPECT (names: --list)")
    write(a.name, a.output, a.expect)
    return 0


def write(name, out, expect):
    t, exp = SCEN[name]()
    for r in exp["steps"]:
        r.pop("warmup", None)
    with open(out, "w") as fp:
        json.dump({"traceEvents": t.ev}, fp)
    with open(expect, "w") as fp:
        json.dump(exp, fp, indent=1)


if __name__ == "__main__":
    sys.exit(main())
