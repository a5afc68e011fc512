#!/usr/bin/env python3
"""gen_summaries.py — rank summaries (gpuflame.summary/1) of a job of W ranks
written directly, with known answers, for the combine at sizes that traces
would make slow to test (1,024 ranks: the page's rank view, the text's length).

usage: gen_summaries.py OUTDIR --world W [--steps S] [--delay-us D] [--base-us B]
                        [--slow-rank R --slow-us X]

Two process groups, "1" (ranks 0..W/2-1) and "2" (the others), one all-reduce
each per step with Seq = 100 + step. The straggler of each group is the member
a third into its rank list (as bench/gen_trace.c): its collective lasts B us,
every other member's B + D us. So each group's straggler arrived last at every
one of its S collectives, the others waited (members - 1) * D * S us in all.
Each rank's step wall is 1000 us + its rank's share (rank % 7) us, except
--slow-rank R, whose walls are X us (an outlier). page is null; report is the
smallest gpuflame.report/2 the reader accepts.
"""
import argparse
import json
import os


def summary(r, a):
    w = a.world
    h = w // 2
    first, size = (0, h) if r < h else (h, w - h)
    strag = first + size // 3
    gname = "1" if r < h else "2"
    S = a.steps
    wall = a.slow_us if r == a.slow_rank else 1000 + r % 7
    durs = [a.base_us + (0 if r == strag else a.delay_us) for _ in range(S)]
    steps = [{"index": s + 1, "warmup": False, "wall_us": wall, "gpu_busy_us": wall // 2, "idle_us": wall - wall // 2,
              "sync_wait_us": 0, "syncs": 0, "launches": 10, "kernels": 10, "gaps": None} for s in range(S)]
    return {
        "schema": "gpuflame.summary/1", "generator": "gen_summaries.py", "run": "gen",
        "options": {"steps": None, "skip": 0, "step_marker": "ProfilerStep", "device": None,
                    "unprofiled_step_us": None, "expect_us": None},
        "file": "rank%d.json.gz" % r, "rank": r, "world_size": w, "backend": "nccl",
        "groups": [{"name": gname, "desc": "group_a" if r < h else "group_b",
                    "ranks": list(range(first, first + size)), "size": size}],
        "collectives": {"count": S, "names": ["allreduce", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL"],
                        "group": [0] * S, "seq": [100 + s + 1 for s in range(S)], "collective": [0] * S,
                        "kernel": [1] * S, "dtype": [-1] * S, "nelems": [16777216] * S,
                        "step": [s + 1 for s in range(S)], "enqueue_us": [None] * S,
                        "start_us": [1000 * (s + 1) for s in range(S)], "dur_us": durs},
        "kernels": [{"name": "gemm", "count": 10 * S, "gpu_us": (wall // 2) * S}],
        "report": {"schema": "gpuflame.report/2", "file": "rank%d.json.gz" % r, "rank": r, "device": 0,
                   "whole_trace": False, "steps": steps,
                   "summary": {"steady_step_us": wall, "gpu_busy_us": wall // 2, "idle_us": wall - wall // 2,
                               "sync_wait_us": 0, "syncs": 0, "launches": 10, "kernels": 10,
                               "verdict": None, "verdict_cause": None, "action": None},
                   "gaps": None, "comm": None, "idle_stacks": None},
        "page": None,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--world", type=int, required=True)
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--delay-us", type=int, default=420)
    ap.add_argument("--base-us", type=int, default=200)
    ap.add_argument("--slow-rank", type=int, default=-1)
    ap.add_argument("--slow-us", type=int, default=5000)
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    for r in range(a.world):
        with open(os.path.join(a.outdir, "rank%04d.summary.json" % r), "w") as f:
            json.dump(summary(r, a), f)


if __name__ == "__main__":
    main()
