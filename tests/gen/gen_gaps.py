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
# The answers under the contract: the host time still inside the launch call
# of a queued piece is host. GAPMODEL_ISSUED=start: the answers of the first
# draft (the whole piece queued), for comparing gapmodel.py's variant only.
AT_RETURN = os.environ.get("GAPMODEL_ISSUED") != "start"


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
    # step [1000, 2000); ten launches at 1000 + 5k (all issued by 1045);
    # kernels: 1100-1185, 1190-1275, 1280-1365, 1370-1455, 1460-1545,
    # 1585-1670 (gap 40, queued: its launch at 1025 came before 1545),
    # 1675-1760, 1765-1850, 1855-1940, 1945-1995.
    # edge: [1000,1100) 100 + [1995,2000) 5 = 105; launch: 8 gaps of 5 = 40;
    # queued 40. busy 9*85 + 50 = 815 >= 90% of (1000 - 105) = 805.5.
    t = Tr()
    t.step(1, 1000, 1000)
    ks = [(1100, 85), (1190, 85), (1280, 85), (1370, 85), (1460, 85), (1585, 85), (1675, 85),
          (1765, 85), (1855, 85), (1945, 50)]
    for k, (s, d) in enumerate(ks):
        t.launch(1000 + 5 * k, s, d)
    return t, one_step(row(1, edge=105, launch=40, queued=40), "gpu_bound",
                       queued_waits=[("stream 7: no wait call in the trace", 40)])


def cross_stream():
    # step [1000, 2000). 1001 cudaStreamWaitEvent (before the first launch);
    # 1010 launch k0 (stream 7) -> 1020-1200; 1020 cudaEventRecord;
    # 1025 cudaStreamWaitEvent; 1030 cuStreamWaitEvent (driver); 1040 launch
    # k1 on stream 8 -> 1500-1990.
    # [1000,1020) edge 20; [1200,1500) queued 300 (issued at 1040 <= 1200),
    # named by the latest wait call after the previous launch: cuStreamWaitEvent;
    # [1990,2000) edge 10. busy 180 + 490 = 670 < 90% of 970.
    t = Tr()
    t.step(1, 1000, 1000)
    t.rt("cudaStreamWaitEvent", 1001, 2)
    t.launch(1010, 1020, 180)
    t.rt("cudaEventRecord", 1020, 2)
    t.rt("cudaStreamWaitEvent", 1025, 2)
    t.rt("cuStreamWaitEvent", 1030, 2, cat="cuda_driver")
    t.launch(1040, 1500, 490, stream=8)
    return t, one_step(row(1, edge=30, queued=300), "queued",
                       queued_waits=[("cuStreamWaitEvent (stream 8)", 300)])


def window_edges():
    # step [1000, 2000); one kernel launched at 1300 runs 1400-1600. Before it
    # nothing ran on the device (edge 400), after it nothing runs (edge 400):
    # never host, never sync (a sync at 1700 returns inside the trailing
    # edge). busy 200 >= 90% of (1000 - 800), but the edges hold 80% of the
    # step: the verdict is the edge, not GPU-bound.
    t = Tr()
    t.step(1, 1000, 1000)
    t.py("app.py(5): main", 1001, 998)
    t.launch(1300, 1400, 200)
    t.rt("cudaDeviceSynchronize", 1700, 10)
    return t, one_step(row(1, edge=800), "edge")


def h2d_pageable(drain=False):
    if not drain:
        # step [1000, 2000), frame model.py(10): fwd over [1001, 1999).
        # launch 1005 -> k0 1010-1100; cudaMemcpyAsync [1300, 1400) whose copy
        # "Memcpy HtoD (Pageable -> Device)" runs 1350-1360 (the GPU had been
        # idle 200 us when it was called: no drain, not blocking);
        # launch 1450 -> k1 1460-1900.
        # [1100,1350): issued at 1300: host [1100,1300) 200 (fwd), queued
        # [1300,1350) 50; [1360,1460): issued 1450: host 90 ([1360,1400)
        # inside the copy call: "fwd > cudaMemcpyAsync" 40, then fwd 50),
        # launch 10; edge 10 + 100. busy 90 + 10 + 440 = 540.
        t = Tr()
        t.step(1, 1000, 1000)
        t.py("model.py(10): fwd", 1001, 998)
        t.launch(1005, 1010, 90)
        c = t.rt("cudaMemcpyAsync", 1300, 100)
        t.act("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 1350, 10, c)
        t.launch(1450, 1460, 440)
        if AT_RETURN:
            # [1300,1350): the host is still inside the copy call (until 1400)
            return t, one_step(row(1, edge=110, host=340, launch=10), "host",
                               host_stacks=[("model.py(10): fwd", 250),
                                            ("model.py(10): fwd > cudaMemcpyAsync", 90)],
                               queued_waits=[], sync_sites=[])
        return t, one_step(row(1, edge=110, host=290, queued=50, launch=10), "host",
                           host_stacks=[("model.py(10): fwd", 250),
                                        ("model.py(10): fwd > cudaMemcpyAsync", 40)],
                           queued_waits=[("stream 7: no wait call in the trace", 50)],
                           sync_sites=[])
    # step [1000, 2000); launch 1005 -> k0 1010-1300; frame
    # train.py(42): load_batch [1190, 1410) holds cudaMemcpyAsync [1200, 1400)
    # whose copy "Memcpy HtoD (Pageable -> Device)" runs 1300-1310 (busy
    # [1010, 1310) holds the call's start, the call returns at 1400 >= 1310:
    # it drained the stream: blocking); frame train.py(50): step [1410, 1999)
    # launches at 1500 -> k1 1520-1950.
    # [1310,1520): issued 1500: sync [1310,1500) 190 (train.py(42)), launch 20;
    # edge 10 + 50. busy 300 + 430 = 730.
    t = Tr()
    t.step(1, 1000, 1000)
    t.launch(1005, 1010, 290)
    t.py("train.py(42): load_batch", 1190, 220)
    c = t.rt("cudaMemcpyAsync", 1200, 200)
    t.act("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 1300, 10, c)
    t.py("train.py(50): step", 1410, 589)
    t.launch(1500, 1520, 430)
    return t, one_step(row(1, edge=60, sync=190, launch=20), "sync",
                       sync_sites=[("train.py(42): load_batch", 190)])


def d2h_pageable():
    # as h2d_pageable without drain, but the copy is
    # "Memcpy DtoH (Device -> Pageable)": always blocking. [1100,1350):
    # issued at 1300, no blocking call returned in [1100, 1300]: host 200,
    # queued 50; [1360,1460): the copy call [1300,1400) started before 1360
    # and returned at 1400 <= the launch at 1450: sync 90, then launch 10.
    t = Tr()
    t.step(1, 1000, 1000)
    t.py("model.py(10): fwd", 1001, 998)
    t.launch(1005, 1010, 90)
    t.py("model.py(20): to_cpu", 1300, 101)
    c = t.rt("cudaMemcpyAsync", 1300, 100)
    t.act("gpu_memcpy", "Memcpy DtoH (Device -> Pageable)", 1350, 10, c)
    t.launch(1450, 1460, 440)
    if AT_RETURN:
        return t, one_step(row(1, edge=110, sync=90, host=250, launch=10), "host",
                           sync_sites=[("model.py(20): to_cpu", 90)],
                           host_stacks=[("model.py(10): fwd", 200),
                                        ("model.py(20): to_cpu > cudaMemcpyAsync", 50)])
    return t, one_step(row(1, edge=110, sync=90, host=200, queued=50, launch=10), "host",
                       sync_sites=[("model.py(20): to_cpu", 90)],
                       host_stacks=[("model.py(10): fwd", 200)])


def sync_after_idle():
    # step [1000, 2000), frame eng.py(7): loop [1001, 1999). launch 1005 ->
    # k0 1010-1100; cudaStreamSynchronize [1200, 1205) (the GPU is idle since
    # 1100: nothing to drain); launch 1500 -> k1 1510-1950.
    # [1100,1510): host [1100,1500) 400 (eng.py(7): loop, 5 of it inside the
    # sync call: "eng.py(7): loop > cudaStreamSynchronize"), launch 10;
    # edge 10 + 50. busy 90 + 440 = 530.
    t = Tr()
    t.step(1, 1000, 1000)
    t.py("eng.py(7): loop", 1001, 998)
    t.launch(1005, 1010, 90)
    t.rt("cudaStreamSynchronize", 1200, 5)
    t.launch(1500, 1510, 440)
    return t, one_step(row(1, edge=60, host=400, launch=10), "host",
                       host_stacks=[("eng.py(7): loop", 395),
                                    ("eng.py(7): loop > cudaStreamSynchronize", 5)], sync_sites=[])


def drain_host_launch(helper=False):
    # step [1000, 2000). launch 1005 -> k0 1010-1300; frame eng.py(12): sync
    # [1090, 1320) holds cudaStreamSynchronize [1100, 1310) (called while k0
    # ran, returned after it ended: a drain); frame eng.py(20): detok
    # [1320, 1480); launch [1490, 1495) -> k1 1515-1950.
    # [1300,1515): sync [1300,1490) 190 (eng.py(12): sync: the host waited,
    # then worked until it launched), launch-to-start [1490,1515) 25 < 30:
    # launch. edge 10 + 50. busy 290 + 435 = 725.
    # helper: thread tid 2 sleeps in tqdm/_monitor.py(60): run [900, 2100)
    # and calls cudaStreamSynchronize [1250, 1600) (returns after the next
    # launch: no candidate) — nothing changes.
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
    return t, one_step(row(1, edge=60, sync=190, launch=25), "sync",
                       sync_sites=[("eng.py(12): sync", 190)], host_stacks=[])


def host_untraced():
    # step [1000, 2000). launch 1005 -> k0 1010-1100; frame eng.py(30): post
    # [1150, 1250); launch 1400 -> k1 1410-1950 (both launches directly under
    # the step marker). [1100,1410): host 100 (eng.py(30): post), untraced
    # [1100,1150) + [1250,1400) = 200, launch 10. edge 10 + 50.
    # busy 90 + 540 = 630.
    t = Tr()
    t.step(1, 1000, 1000)
    t.launch(1005, 1010, 90)
    t.py("eng.py(30): post", 1150, 100)
    t.launch(1400, 1410, 540)
    return t, one_step(row(1, edge=60, host=100, untraced=200, launch=10), "untraced",
                       host_stacks=[("eng.py(30): post", 100)])


def short_gap():
    # step [1000, 2000). launch 1005 -> k0 1010-1500; launch 1505 (after k0
    # ended: the host was late) -> k1 1520-1990. The 20 us gap is launch.
    # edge 10 + 10. busy 960 >= 90% of 980.
    t = Tr()
    t.step(1, 1000, 1000)
    t.launch(1005, 1010, 490)
    t.launch(1505, 1520, 470)
    return t, one_step(row(1, edge=20, launch=20), "gpu_bound")


def before_window():
    # step [1000, 2000), frame run.py(3): go [1001, 1999). Runtime
    # correlations start at 5. launch (corr 5) 1005 -> k0 1010-1100; kz
    # (corr 2, before the window) 1110-1200; kx (corr 1: below every runtime
    # correlation, launched before the window) 1400-1500; launch (corr 6)
    # 1600 -> k2 1610-1900; ky (corr 99: no call, not below them) 1950-1960.
    # [1100,1110) launch 10 (short: whatever else holds); [1200,1400) edge
    # 200 (its work came from before the window); [1500,1610): host 100,
    # launch 10; [1900,1950): queued 50 ("no launch in the trace (stream
    # 7)"); edge 10 + 200 + 40 = 250.
    # busy 90 + 90 + 100 + 290 + 10 = 580 < 90% of 750; edge is the largest.
    t = Tr()
    t.corr = 5
    t.step(1, 1000, 1000)
    t.py("run.py(3): go", 1001, 998)
    t.launch(1005, 1010, 90)
    t.act("kernel", "kz", 1110, 90, 2)
    t.act("kernel", "kx", 1400, 100, 1)
    t.launch(1600, 1610, 290)
    t.act("kernel", "ky", 1950, 10, 99)
    return t, one_step(row(1, edge=250, host=100, launch=20, queued=50), "edge",
                       queued_waits=[("no launch in the trace (stream 7)", 50)],
                       host_stacks=[("run.py(3): go", 100)])


def blocked_after_launch():
    # step [1000, 3000) (ROCm names). hipLaunchKernel 1005 -> k0 1010-1100;
    # frame cuda_graph_runner.py(276): replay [1001, 2990):
    # hipStreamWaitEvent 1120, hipLaunchKernel 1138 -> k1 on stream 8
    # 2500-2900, hipMemcpyWithStream [1150, 2950) (blocking; its copy
    # "Memcpy DtoH (Device -> Host)" 2905-2910 on stream 8).
    # [1100,2500): issued at 1138: host [1100,1138) 38 (the blocking call
    # started after the GPU went idle: no sync; 3 of it inside the wait
    # call: "replay > hipStreamWaitEvent"), queued [1138,2500) 1362 on
    # "hipStreamWaitEvent (stream 8)"; [2900,2905) launch 5;
    # edge 10 + 90. busy 90 + 400 + 5 = 495.
    t = Tr()
    t.step(1, 1000, 2000)
    t.launch(1005, 1010, 90, name="hipLaunchKernel")
    t.py("cuda_graph_runner.py(276): replay", 1001, 1989)
    t.rt("hipStreamWaitEvent", 1120, 3)
    t.launch(1138, 2500, 400, stream=8, name="hipLaunchKernel")
    c = t.rt("hipMemcpyWithStream", 1150, 1800)
    t.act("gpu_memcpy", "Memcpy DtoH (Device -> Host)", 2905, 5, c, stream=8)
    if AT_RETURN:
        return t, one_step(row(1, edge=100, host=41, queued=1359, launch=5), "queued",
                           queued_waits=[("hipStreamWaitEvent (stream 8)", 1359)],
                           host_stacks=[("cuda_graph_runner.py(276): replay", 35),
                                        ("cuda_graph_runner.py(276): replay > hipLaunchKernel", 3),
                                        ("cuda_graph_runner.py(276): replay > hipStreamWaitEvent", 3)],
                           sync_sites=[])
    return t, one_step(row(1, edge=100, host=38, queued=1362, launch=5), "queued",
                       queued_waits=[("hipStreamWaitEvent (stream 8)", 1362)],
                       host_stacks=[("cuda_graph_runner.py(276): replay", 35),
                                    ("cuda_graph_runner.py(276): replay > hipStreamWaitEvent", 3)],
                       sync_sites=[])


def warmup_means():
    # three steps: #1 [1000, 4000) (wall 3000 > 1.5 x the median 1001: warm-up),
    # #2 [4000, 5001), #3 [5001, 6002). Frame loop.py(1): run over each step
    # exactly (it nests inside the marker: every host piece is host).
    # #1: launch 1005 -> 1010-3990: edge 10 (nothing ran before),
    #     [3990, 4000) belongs to the gap [3990, 4100): launch 4050 -> 4100-4900
    #     issued after 3990: host [3990,4050) 60 (10 in #1, 50 in #2),
    #     queued [4050,4100) 50 (in #2).
    # #2: [4000,4050) host 50, [4050,4100) queued 50, [4900,5001) is the gap
    #     [4900, 5101) (launch 5060 -> 5101-5902): host [4900,5060) 160 (101
    #     in #2, 59 in #3), queued [5060,5101) 41 (in #3).
    #     #2: host 151, queued 50.
    # #3: host 59, queued 41; after 5902 nothing: edge [5902,6002) 100.
    # steady means over #2 and #3: host (151 + 59) / 2 = 105,
    # queued (50 + 41) / 2 = 45.5 us = 45500 ns exactly; edge 50.
    # In ns the half-to-even rounding shows with an odd ns sum: the last
    # kernel ends at 5902.001 (so edge #3 = 99.999 us: mean 49999.5 ns -> 50000 ns).
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
    r1 = row(1, edge=10, host=10)
    r2 = row(2, host=151, queued=50)
    r3 = row(3, host=59, queued=41, edge=0)
    r3["edge"] = 99999
    r1["warmup"] = True
    if AT_RETURN:
        # the 3 us launch calls at 4050 and 5060 are host, not queued
        r2 = row(2, host=154, queued=47)
        r3 = row(3, host=62, queued=38)
        r3["edge"] = 99999
        summ = {"edge": 50000, "sync": 0, "host": 108000, "untraced": 0, "queued": 42500, "launch": 0}
        return t, {"steps": [r1, r2, r3], "summary": summ, "verdict_cause": "host",
                   "host_stacks": [["loop.py(1): run", 210 * US], ["loop.py(1): run > cudaLaunchKernel", 6 * US]],
                   "queued_waits": [["stream 7: no wait call in the trace", 85 * US]]}
    summ = {"edge": 50000, "sync": 0, "host": 105000, "untraced": 0, "queued": 45500, "launch": 0}
    # busy #2 = 1001 - 201 = 800, #3 = 801.001 us; median 800.5005 us;
    # wall 1001: busy < 90% of (1001 - 50)
    return t, {"steps": [r1, r2, r3], "summary": summ, "verdict_cause": "host",
               "host_stacks": [["loop.py(1): run", 210 * US]],
               "queued_waits": [["stream 7: no wait call in the trace", 91 * US]]}


def launch_bound():
    # step [1000, 2000); 33 kernels of 10 us at 1010 + 30 j (j = 0..32), each
    # launched 5 us before it starts (after the previous one ended: the host
    # is late, but every gap is 20 us < 30: launch). launch 32 x 20 = 640;
    # edge 10 + [1980, 2000) 20 = 30; busy 330 < 90% of 970.
    t = Tr()
    t.step(1, 1000, 1000)
    for j in range(33):
        t.launch(1005 + 30 * j, 1010 + 30 * j, 10)
    return t, one_step(row(1, edge=30, launch=640), "launch", host_stacks=[], sync_sites=[])


def two_syncs():
    # step [1000, 2000). launch 1005 -> k0 1010-1300. Thread 1: frame
    # a.py(1): f [1090, 1330) holds cudaStreamSynchronize [1100, 1320);
    # thread 2: frame b.py(2): g [1190, 1310) holds cudaDeviceSynchronize
    # [1200, 1305). Both started before 1300 and returned before the launch
    # at 1400 (-> k1 1410-1950): the one returning first (1305, thread 2)
    # takes [1300,1400) sync 100; launch 10; edge 10 + 50.
    # busy 290 + 540 = 830 < 90% of 940.
    t = Tr()
    t.step(1, 1000, 1000)
    t.launch(1005, 1010, 290)
    t.py("a.py(1): f", 1090, 240)
    t.rt("cudaStreamSynchronize", 1100, 220)
    t.py("b.py(2): g", 1190, 120, tid=2)
    t.rt("cudaDeviceSynchronize", 1200, 105, tid=2)
    t.launch(1400, 1410, 540)
    return t, one_step(row(1, edge=60, sync=100, launch=10), "sync",
                       sync_sites=[("b.py(2): g", 100)])


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
