#!/usr/bin/env python3
"""gen_decode.py — seeded generator of realistic LLM decode-loop PyTorch
profiler (Kineto) traces with answers known BY CONSTRUCTION.

Usage:
  gen_decode.py --variant sync|fixed|graph|tp [--steps N] [--layers L]
                [--seed S] [--rank R] [--abs-ts]
                -o TRACE.json [--expect EXPECT.json]

Variants (torch 2.x schema: relative 3-decimal ts + baseTimeNanoseconds; with
--abs-ts the 19-digit absolute form without baseTimeNanoseconds):
  sync   the worked example of Flame Graphs for LLMs, in depth: per step a forward (python stack,
         nn.Module frames, record_function "## forward ##", aten ops,
         cudaLaunchKernel / cuLaunchKernel -> kernels on stream 7), sampling
         (argmax + memset), then `.item()` at engine.py(251): check_eos ->
         aten::item -> aten::_local_scalar_dense -> cudaMemcpyAsync (DtoH
         memcpy) + cudaStreamSynchronize, then Python stop-string matching and
         detokenisation on the engine thread while the GPU idles.
  fixed  ids copied asynchronously one step behind (aten::copy_ ->
         cudaMemcpyAsync, no sync); stop strings/detokenisation on a worker
         thread.
  graph  like sync, but the forward is one cudaGraphLaunch whose correlation
         is shared by all the forward kernels (graph replay).
  tp     like sync, plus NCCL all-reduce kernels on stream 13 overlapping
         compute; distributedInfo world_size 2, rank --rank.
Every variant also has one kernel launched before the profiling window (its
correlation has no runtime event), ac2g flows, metadata events, a
gpu_user_annotation twin of each step, a Trace span and [memory] instants.
All times are integer ns; durations are deliberately not multiples of 1 us.

The expected-answers JSON (--expect):
{
  "variant": "sync", "steps": 5, "rank": 0, "world_size": 1,
  "folds": {                       # exact `gpuflame fold` output lines
    "<args>": ["stack weight", ...],   # key = fold arguments joined by ' ',
    ...                                # e.g. "--weight gpu", "--weight idle",
  },                                   # "--weight wall --stack step,module,op,runtime"
                                       # lines in output order (DFS, children
                                       # sorted by name bytes), header excluded;
                                       # cpu/wall: over the steps, the engine
                                       # thread only, under its thread frame
                                       # "thread (4242): python3" (docs/fold.md)
  "totals_ns": {"gpu": N, "cpu": N, "wall": N, "idle": N, "calls": N},
  "report": {
    "steps": [ {"index": i, "number": n, "start_ns": .., "end_ns": ..,   # as written (relative) ns
                "wall_ns", "gpu_busy_ns", "kernel_ns", "memcpy_ns", "memset_ns",
                "idle_ns", "sync_count", "sync_wait_ns", "launches", "kernels",
                "nccl_ns"} ],
    "syncs": [ {"site": "engine.py(251): check_eos", "op": "aten::item",
                "api": "cudaStreamSynchronize", "count": N, "wait_ns": N,
                "bubble_ns": N} ]
  }
}
Per-step definitions: window = [start, end) of ProfilerStep#n on the engine
thread; gpu_busy = union of all kernel/memcpy/memset intervals (all streams)
clipped to the window; kernel/memcpy/memset/nccl_ns = sum of those
activities' overlap with the window (nccl = NCCL kernels, also in kernel_ns);
idle = wall - busy; sync_count / sync_wait = blocking calls
(cudaStreamSynchronize) starting in the window and their durations;
launches = runtime/driver calls with GPU work starting in the window
(a graph launch counts once); kernels = kernels starting in the window.
Sync sites: site = innermost Python frame that is user code (not torch, not
a <built-in ...>), op = outermost aten op above the call, bubble = what the
call exposed: in a gap [a, b) whose next work was issued (its launch call
returned) at h > a, the sync called before a that returned in [a, h] (the
first to return) drained the device: min(h - a, its wait while the device
was busy), measured inside the step windows. The idle fold follows the gap
model's one rule (docs/report.md), its stacks rooted in [cause];[class].
"""
import argparse
import json
import random
import sys

BASE_NS = 1764374400000000000     # baseTimeNanoseconds
T0 = 1234567890123                # first event, ns relative to the base

GEMM = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas"
ELEM = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3>)"
FLASH = "void flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, false, false, cutlass::bfloat16_t>, false, true>(Flash_fwd_params)"
ROPE = "void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*, c10::BFloat16*, c10::BFloat16*, c10::BFloat16 const*, int, long, long, int, int, int)"
TRITON = "triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_0"
REDUCE = "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::ArgMaxOps<float>, unsigned int, long, 4> >(at::native::ReduceOp<float, at::native::ArgMaxOps<float>, unsigned int, long, 4>)"
NCCL = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
FILL = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)"
MEMCPY_DTOH = "Memcpy DtoH (Device -> Pinned)"
MEMSET = "Memset (Device)"

FAMILY_RULES = ("gemm", "nvjet", "flash", "attn", "nccl", "triton", "elementwise", "reduce", "copy",
                "memcpy", "memset")


def family(name, kind):
    """Leaf rule of docs/fold.md (default families)."""
    if kind == "memcpy":
        return "memcpy"
    if kind == "memset":
        return "memset"
    low = name.lower()
    for key in FAMILY_RULES:
        if key in low:
            return "gemm" if key == "nvjet" else key
    s = name[5:] if name.startswith("void ") else name
    cut = len(s)
    for ch in "<(":
        i = s.find(ch)
        if i >= 0:
            cut = min(cut, i)
    s2 = s[:cut].rstrip(" ")
    return s2 if s2 else name


def norm_frame(name, python):
    """Frame-name rule of docs/fold.md: ';' -> ':', control -> ' ', leading '# ' -> '#_',
    0x<hex> -> 0x... in python frames."""
    out = []
    i, n = 0, len(name)
    if name.startswith("#") and (n == 1 or name[1] in " \t"):
        out.append("#_")
        i = min(n, 2)
    hexd = "0123456789abcdefABCDEF"
    while i < n:
        c = name[i]
        if (python and c == "0" and i + 2 < n and name[i + 1] in "xX" and name[i + 2] in hexd
                and (i == 0 or name[i - 1] not in hexd)):
            out.append("0x...")
            i += 2
            while i + 1 < n and name[i + 1] in hexd:
                i += 1
            i += 1
            continue
        out.append(":" if c == ";" else (" " if ord(c) < 32 or c == "\x7f" else c))
        i += 1
    return "".join(out) if out else "[empty]"


class Frame:
    __slots__ = ("name", "kind", "flags", "start", "args", "pyid", "corr")

    def __init__(self, name, kind, flags, start, args):
        self.name, self.kind, self.flags, self.start, self.args = name, kind, flags, start, args
        self.pyid = None
        self.corr = None


class Gen:
    def __init__(self, a):
        self.a = a
        self.rng = random.Random(a.seed * 1000 + (a.rank if a.variant == "tp" else 0))
        self.events = []          # JSON texts
        self.pid = 4242
        self.main_tid = 4242
        self.worker_tid = 4300
        self.next_pyid = 1
        self.next_corr = 100
        self.next_ext = 1
        self.launches = []        # dict(start, end, stack, name, acts=[...])
        self.acts = []            # dict(start, end, kind, name, stream, corr, launch, nccl)
        self.segs = {}            # tid -> [(a, b, stack tuple)]
        self.syncs = []           # dict(start, end, stack)
        self.steps = []           # (number, start, end)
        self.stream_end = {}      # stream -> last end
        self.host = {}

    # --- JSON helpers ---
    def ts(self, ns):
        v = ns + (BASE_NS if self.a.abs_ts else 0)
        return "%d.%03d" % (v // 1000, v % 1000)

    @staticmethod
    def dur(ns):
        return "%d.%03d" % (ns // 1000, ns % 1000)

    def x(self, cat, name, pid, tid, start, end, args):
        body = ('{"ph": "X", "cat": "%s", "name": %s, "pid": %d, "tid": %d, "ts": %s, "dur": %s'
                % (cat, json.dumps(name), pid, tid, self.ts(start), self.dur(end - start)))
        if args:
            body += ', "args": ' + json.dumps(args)
        self.events.append(body + "}")

    # --- host emitter: time advances only through work(); segments are recorded by construction ---
    def hstate(self, tid):
        if tid not in self.host:
            self.host[tid] = {"t": None, "stack": []}
            self.segs[tid] = []
        return self.host[tid]

    def at(self, tid, t):
        h = self.hstate(tid)
        h["t"] = t

    def now(self, tid):
        return self.hstate(tid)["t"]

    def work(self, tid, d):
        h = self.hstate(tid)
        if d <= 0:
            return
        stack = tuple((f.name, f.kind, f.flags) for f in h["stack"])
        self.segs[tid].append((h["t"], h["t"] + d, stack))
        h["t"] += d

    def open(self, tid, name, kind, flags=0, args=None):
        h = self.hstate(tid)
        f = Frame(name, kind, flags, h["t"], dict(args or {}))
        if kind == "python":
            f.pyid = self.next_pyid
            self.next_pyid += 1
            parent = None
            for g in reversed(h["stack"]):
                if g.kind == "python":
                    parent = g.pyid
                    break
            f.args["Python id"] = f.pyid
            f.args["Python parent id"] = parent
            if name.startswith("nn.Module: "):
                f.args["Python module id"] = int(name.rsplit("_", 1)[1])
        elif kind in ("op", "annotation", "step"):
            f.args.setdefault("External id", self.next_ext)
            self.next_ext += 1
        h["stack"].append(f)
        self.work(tid, self.rng.randint(150, 900))   # self time before children
        return f

    def close(self, tid):
        h = self.hstate(tid)
        self.work(tid, self.rng.randint(120, 700))    # self time after children
        f = h["stack"].pop()
        cat = {"python": "python_function", "op": "cpu_op", "annotation": "user_annotation",
               "step": "user_annotation", "runtime": "cuda_runtime", "driver": "cuda_driver"}[f.kind]
        self.x(cat, f.name, self.pid, tid, f.start, h["t"], f.args)
        return f

    def stack_tuple(self, tid):
        return tuple((f.name, f.kind, f.flags) for f in self.hstate(tid)["stack"])

    def ext_of_op(self, tid):
        for f in reversed(self.hstate(tid)["stack"]):
            if f.kind in ("op",):
                return f.args.get("External id")
        return None

    # --- launches ---
    def gpu(self, stream, start_min, dur, kind, name, corr, launch):
        start = max(start_min, self.stream_end.get(stream, 0))
        end = start + dur
        self.stream_end[stream] = end
        act = {"start": start, "end": end, "kind": kind, "name": name, "stream": stream, "corr": corr,
               "launch": launch, "nccl": "nccl" in name.lower()}
        self.acts.append(act)
        if launch is not None:
            launch["acts"].append(act)
        return act

    def launch(self, tid, api, kernels, kind="runtime", stream=7):
        """kernels: list of (kind, name, dur); one call, one correlation (a graph launch has many)."""
        corr = self.next_corr
        self.next_corr += 1
        ext = self.ext_of_op(tid)
        args = {"cbid": 211, "correlation": corr}
        if ext is not None:
            args["External id"] = ext
        f = self.open(tid, api, kind, 0, args)
        rec = {"start": f.start, "stack": self.stack_tuple(tid), "name": api, "acts": []}
        self.launches.append(rec)
        self.work(tid, self.rng.randint(1500, 4000))
        self.close(tid)
        rec["end"] = self.now(tid)
        # flows: s on the call, f on each activity
        self.events.append('{"ph": "s", "id": %d, "pid": %d, "tid": %d, "ts": %s, "cat": "ac2g", "name": "ac2g"}'
                           % (corr, self.pid, tid, self.ts(f.start)))
        for (k, name, d) in kernels:
            act = self.gpu(stream, rec["end"] - self.rng.randint(200, 1200), d, k, name, corr, rec)
            self.emit_act(act, ext)
        return rec

    def emit_act(self, act, ext):
        cat = {"kernel": "kernel", "memcpy": "gpu_memcpy", "memset": "gpu_memset"}[act["kind"]]
        args = {"device": 0, "stream": act["stream"]}
        if act["corr"] is not None:
            args["correlation"] = act["corr"]
        if ext is not None:
            args["External id"] = ext
        if act["kind"] == "kernel":
            args.update({"registers per thread": 128, "grid": [132, 1, 1], "block": [128, 1, 1]})
        else:
            args["bytes"] = 4 * 8
        self.x(cat, act["name"], 0, act["stream"], act["start"], act["end"], args)
        if act["corr"] is not None:
            self.events.append('{"ph": "f", "id": %d, "pid": 0, "tid": %d, "ts": %s, "cat": "ac2g", "name": "ac2g", "bp": "e"}'
                               % (act["corr"], act["stream"], self.ts(act["start"])))

    def kd(self, lo, hi):
        return self.rng.randint(lo, hi)

    # --- model pieces ---
    def op_launch(self, tid, op, api, kernels, inner=None, driver=False, stream=7):
        self.open(tid, op, "op")
        if inner:
            self.open(tid, inner, "op")
        self.launch(tid, api, kernels, "driver" if driver else "runtime", stream)
        if inner:
            self.close(tid)
        self.close(tid)

    def layer(self, tid, l, tp):
        self.open(tid, "nn.Module: DecoderLayer_%d" % l, "python")
        self.open(tid, "model.py(30): forward", "python")
        self.open(tid, "nn.Module: RMSNorm_%d" % (2 * l), "python")
        self.op_launch(tid, "triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_0", "cuLaunchKernel",
                       [("kernel", TRITON, self.kd(2100, 2900))], driver=True)
        self.close(tid)
        self.open(tid, "nn.Module: Attention_%d" % l, "python")
        self.open(tid, "<built-in function linear>", "python")
        self.op_launch(tid, "aten::linear", "cudaLaunchKernel", [("kernel", GEMM, self.kd(9000, 14000))],
                       inner="aten::mm")
        self.close(tid)
        self.op_launch(tid, "_C::rotary_embedding", "cudaLaunchKernel", [("kernel", ROPE, self.kd(1500, 2500))])
        self.op_launch(tid, "vllm::flash_attn_varlen", "cudaLaunchKernel", [("kernel", FLASH, self.kd(12000, 20000))])
        self.close(tid)
        self.open(tid, "nn.Module: MLP_%d" % l, "python")
        self.open(tid, "<built-in function linear>", "python")
        self.op_launch(tid, "aten::linear", "cudaLaunchKernel", [("kernel", GEMM, self.kd(20000, 30000))],
                       inner="aten::mm")
        self.close(tid)
        self.op_launch(tid, "aten::add", "cudaLaunchKernel", [("kernel", ELEM, self.kd(1800, 2600))])
        self.close(tid)
        if tp:
            self.open(tid, "distributed.py(120): all_reduce", "python")
            self.op_launch(tid, "c10d::allreduce_", "cudaLaunchKernel", [("kernel", NCCL, self.kd(15000, 25000))],
                           inner="record_param_comms", stream=13)
            self.close(tid)
        self.close(tid)
        self.close(tid)

    def forward(self, tid, tp, graph):
        self.open(tid, "## forward ##", "annotation")
        self.open(tid, "nn.Module: DecoderLM_0", "python")
        self.open(tid, "model.py(50): forward", "python")
        if graph:
            self.open(tid, "cuda_graph_runner.py(300): replay", "python")
            self.open(tid, "<built-in method replay of CUDAGraph object at 0x7f3a2c1d5e40>", "python")
            ks = []
            for l in range(self.a.layers):
                ks += [("kernel", TRITON, self.kd(2100, 2900)), ("kernel", GEMM, self.kd(9000, 14000)),
                       ("kernel", ROPE, self.kd(1500, 2500)), ("kernel", FLASH, self.kd(12000, 20000)),
                       ("kernel", GEMM, self.kd(20000, 30000)), ("kernel", ELEM, self.kd(1800, 2600))]
            # graph kernels run back to back from the launch
            corr = self.next_corr
            self.next_corr += 1
            f = self.open(tid, "cudaGraphLaunch", "runtime", 0, {"cbid": 311, "correlation": corr})
            rec = {"start": f.start, "stack": self.stack_tuple(tid), "name": "cudaGraphLaunch", "acts": []}
            self.launches.append(rec)
            self.work(tid, self.rng.randint(8000, 12000))
            self.close(tid)
            rec["end"] = self.now(tid)
            self.events.append('{"ph": "s", "id": %d, "pid": %d, "tid": %d, "ts": %s, "cat": "ac2g", "name": "ac2g"}'
                               % (corr, self.pid, tid, self.ts(f.start)))
            t = rec["end"] - 3000
            for (k, name, d) in ks:
                act = self.gpu(7, t, d, k, name, corr, rec)
                t = act["end"] + self.rng.randint(300, 900)
                self.emit_act(act, None)
            self.close(tid)
            self.close(tid)
        else:
            for l in range(self.a.layers):
                self.layer(tid, l, tp)
        self.close(tid)
        self.close(tid)
        self.close(tid)

    def sample(self, tid):
        self.open(tid, "sampler.py(88): sample", "python")
        self.op_launch(tid, "aten::zero_", "cudaMemsetAsync", [("memset", MEMSET, self.kd(900, 1500))],
                       inner="aten::fill_")
        self.open(tid, "<built-in method argmax of type object at 0x5581e3a0c2a0>", "python")
        self.op_launch(tid, "aten::argmax", "cudaLaunchKernel", [("kernel", REDUCE, self.kd(3000, 4500))])
        self.close(tid)
        self.close(tid)

    def sync_item(self, tid):
        """engine.py(251): check_eos -> .item() -> DtoH copy + cudaStreamSynchronize."""
        self.open(tid, "engine.py(251): check_eos", "python")
        self.open(tid, "<built-in method item of Tensor object at 0x7f3a2c1d9b80>", "python")
        self.open(tid, "aten::item", "op")
        self.open(tid, "aten::_local_scalar_dense", "op")
        self.launch(tid, "cudaMemcpyAsync", [("memcpy", MEMCPY_DTOH, self.kd(1100, 1900))])
        # the sync waits for the stream(s) to drain
        f = self.open(tid, "cudaStreamSynchronize", "runtime", 0,
                      {"cbid": 131, "correlation": self.next_corr, "External id": self.ext_of_op(tid)})
        self.next_corr += 1
        drain = max(self.stream_end.values())
        wait = max(drain - self.now(tid), 0) + self.rng.randint(1500, 2500)
        self.work(tid, wait)
        self.close(tid)
        self.syncs.append({"start": f.start, "end": self.now(tid), "site": "engine.py(251): check_eos",
                           "op": "aten::item", "api": "cudaStreamSynchronize"})
        self.close(tid)
        self.close(tid)
        self.close(tid)
        self.close(tid)

    def host_python(self, tid, long):
        """stop strings + detokenisation: host-only Python."""
        self.open(tid, "engine.py(260): process_outputs", "python")
        for r in range(4):
            self.open(tid, "stop_strings.py(40): match_stop; request %d" % r, "python")
            self.work(tid, self.kd(20000, 40000) if long else self.kd(3000, 6000))
            self.close(tid)
            self.open(tid, "detokenizer.py(77): decode_incremental", "python")
            self.work(tid, self.kd(30000, 60000) if long else self.kd(3000, 6000))
            self.close(tid)
        self.close(tid)

    def copy_async(self, tid):
        self.open(tid, "engine.py(255): stash_ids", "python")
        self.open(tid, "<built-in method copy_ of Tensor object at 0x7f3a2c1da010>", "python")
        self.open(tid, "aten::copy_", "op")
        self.launch(tid, "cudaMemcpyAsync", [("memcpy", MEMCPY_DTOH, self.kd(1100, 1900))])
        self.close(tid)
        self.close(tid)
        self.close(tid)

    def run(self):
        a = self.a
        tid = self.main_tid
        tp = a.variant == "tp"
        graph = a.variant == "graph"
        fixed = a.variant == "fixed"
        self.at(tid, T0)
        # a kernel launched before the window: no runtime event, small correlation
        pre = self.gpu(7, T0 + 700, 3333, "kernel", FILL, 7, None)
        self.emit_act(pre, None)
        first_step = 3
        for s in range(a.steps):
            num = first_step + s
            self.work(tid, 0)
            step = self.open(tid, "ProfilerStep#%d" % num, "step")
            self.open(tid, "engine.py(240): step", "python")
            self.forward(tid, tp, graph)
            self.sample(tid)
            if fixed:
                self.copy_async(tid)
            else:
                self.sync_item(tid)
                self.host_python(tid, True)
            self.close(tid)
            self.close(tid)
            self.steps.append((num, step.start, self.now(tid)))
            # gpu_user_annotation twin on the main stream (kept apart by the model)
            self.x("gpu_user_annotation", "ProfilerStep#%d" % num, 0, 7, step.start + 400, self.now(tid) - 100,
                   {"External id": step.args["External id"]})
            # gap between steps: no range on the engine thread
            h = self.hstate(tid)
            h["t"] += self.rng.randint(2000, 5000)
        if fixed:
            # the worker thread consumes ids one step behind, concurrently
            wt = self.worker_tid
            for s in range(a.steps):
                num, st, en = self.steps[s]
                self.at(wt, max(st + 5000, self.now(wt) or 0))
                self.open(wt, "detok_worker.py(30): run", "python")
                self.host_python(wt, False)
                self.close(wt)
        self.end = max([self.now(tid)] + [x["end"] for x in self.acts])

    # --- output ---
    def write_trace(self, path):
        a = self.a
        meta = []
        meta.append('{"ph": "M", "name": "process_name", "pid": %d, "tid": 0, "args": {"name": "python3"}}' % self.pid)
        meta.append('{"ph": "M", "name": "process_labels", "pid": %d, "tid": 0, "args": {"labels": "CPU"}}' % self.pid)
        meta.append('{"ph": "M", "name": "thread_name", "pid": %d, "tid": %d, "args": {"name": "thread %d (python3)"}}'
                    % (self.pid, self.main_tid, self.main_tid))
        if a.variant == "fixed":
            meta.append('{"ph": "M", "name": "thread_name", "pid": %d, "tid": %d, "args": {"name": "thread %d (detok)"}}'
                        % (self.pid, self.worker_tid, self.worker_tid))
        meta.append('{"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "python3"}}')
        meta.append('{"ph": "M", "name": "process_labels", "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}}')
        for st in sorted(set(x["stream"] for x in self.acts)):
            meta.append('{"ph": "M", "name": "thread_name", "pid": 0, "tid": %d, "args": {"name": "stream %d "}}' % (st, st))
        extra = ['{"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": "PyTorch Profiler", "ts": %s, "dur": %s, "args": {"Op count": 0}}'
                 % (self.ts(T0 - 1000), self.dur(self.end - T0 + 2000)),
                 '{"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": %d, "tid": %d, "ts": %s, "args": {"Total Reserved": 2097152, "Total Allocated": 512, "Bytes": 512, "Addr": 139876543, "Device Id": 0, "Device Type": 1}}'
                 % (self.pid, self.main_tid, self.ts(T0 + 100))]
        # CPU events first, GPU later, as Kineto writes them (not sorted by ts)
        evs = meta + self.events + extra
        ws = 2 if a.variant == "tp" else 1
        rank = a.rank if a.variant == "tp" else 0
        with open(path, "w") as fp:
            fp.write('{\n  "schemaVersion": 1,\n  "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85029158912, "computeMajor": 9, "computeMinor": 0, "numSms": 132}],\n')
            fp.write('  "with_stack": 1,\n')
            if not a.abs_ts:
                fp.write('  "displayTimeUnit": "ms",\n  "baseTimeNanoseconds": %d,\n' % BASE_NS)
            else:
                fp.write('  "displayTimeUnit": "ns",\n')
            fp.write('  "traceEvents": [\n  ')
            fp.write(",\n  ".join(evs))
            fp.write('\n  ],\n')
            fp.write('  "distributedInfo": {"backend": "nccl", "rank": %d, "world_size": %d, "pg_count": 1},\n' % (rank, ws))
            fp.write('  "traceName": "/tmp/gen_decode_%s.json"\n}\n' % a.variant)

    # --- expected answers, from the schedule ---
    def frames(self, stack, levels, per_step=False):
        out = []
        for (name, kind, flags) in stack:
            if kind == "step":
                if "step" in levels or per_step:
                    out.append(name if per_step else name.split("#")[0])
            elif kind == "annotation":
                if "annotation" in levels:
                    out.append(norm_frame(name, False))
            elif kind == "python":
                if "python" in levels or ("module" in levels and name.startswith("nn.Module: ")):
                    out.append(norm_frame(name, True))
            elif kind == "op":
                if "op" in levels:
                    out.append(norm_frame(name, False))
            else:
                if "runtime" in levels:
                    out.append(norm_frame(name, False))
        return out

    @staticmethod
    def is_sync(name):
        return name in ("cudaStreamSynchronize",)

    def host_stack(self, stack, levels, per_step):
        """stack for host time whose innermost open frames are `stack` (wall/idle rules)."""
        if not stack:
            return ("[untraced]",)
        for i, (name, kind, flags) in enumerate(stack):
            if kind == "runtime" and self.is_sync(name):
                fr = self.frames(stack[:i + 1], levels, per_step)
                if "runtime" not in levels:
                    fr.append(name)
                return tuple(fr)
        fr = self.frames(stack, levels, per_step)
        if stack[-1][1] == "step":
            return tuple(fr + ["[untraced]"])
        if not fr:
            return ("[other]",)
        return tuple(fr)

    def in_sync(self, stack):
        return any(k == "runtime" and self.is_sync(n) for (n, k, f) in stack)

    def step_windows(self, sel):
        return [(st, en) for (num, st, en) in sel]

    def fold(self, weight, levels, per_step=False, skip=0, normalise=False, unit=0, steps=None):
        sel = [s for s in self.steps if steps is None or steps[0] <= s[0] <= steps[1]][skip:]
        has_sel = skip > 0 or steps is not None
        wins = self.step_windows(sel)

        def in_win(t):
            return any(a <= t < b for (a, b) in wins)

        def ov(a, b, ws):
            return sum(max(0, min(b, y) - max(a, x)) for (x, y) in ws)

        acc = {}

        def add(k, w):
            if w:
                acc[k] = acc.get(k, 0) + w
        if weight == "gpu":
            for x in self.acts:
                L = x["launch"]
                when = L["start"] if L else x["start"]
                if has_sel and not in_win(when):
                    continue
                st = tuple(self.frames(L["stack"], levels, per_step)) if L else ("[unattributed]",)
                add(st + (family(x["name"], x["kind"]),), x["end"] - x["start"])
        elif weight == "calls":
            for L in self.launches:
                if not L["acts"] or (has_sel and not in_win(L["start"])):
                    continue
                fr = self.frames(L["stack"], levels, per_step)
                if "runtime" not in levels:
                    fr.append(L["name"])
                add(tuple(fr), 1)
            for x in self.acts:
                if x["launch"] is None and (not has_sel or in_win(x["start"])):
                    add(("[unattributed]", family(x["name"], x["kind"])), 1)
        elif weight in ("cpu", "wall"):
            # the window is the (selected) steps, and only the thread holding
            # the step markers is folded, under py-spy's thread frame
            # "thread (TID): NAME" (Kineto's "thread 4242 (python3)" names
            # it python3); the worker thread of "fixed" is left out
            root = ("thread (%d): python3" % self.main_tid,)
            for (a, b, stack) in self.segs[self.main_tid]:
                if not stack:
                    if weight == "wall":
                        add(root + ("[untraced]",), ov(a, b, wins))
                    continue
                if weight == "cpu" and self.in_sync(stack):
                    continue
                add(root + self.host_stack(stack, levels, per_step), ov(a, b, wins))
        elif weight == "idle":
            # the gap model's one rule (docs/report.md, "Why the GPU idled: the
            # rule"), by construction of this schedule: every launch is the
            # engine thread's, no stream waits on an event, only
            # cudaStreamSynchronize blocks; stacks rooted in [cause];[class]
            wins_i = wins if wins else [(T0, self.end)]
            for (x0, x1, lab) in self.idle_pieces(wins_i):
                cause, cls, stack = lab
                if cause in ("edge", "untraced"):
                    add(("[%s]" % cause,), x1 - x0)
                elif cause == "queued":
                    add(("[queued]", stack), x1 - x0)
                else:
                    fr = self.frames(stack, levels, per_step)
                    if cause in ("sync", "launch") and "runtime" not in levels:
                        fr.append(stack[-1][0])
                    elif not fr:
                        fr = ["[other]"]
                    add(("[%s]" % cause, "[%s]" % cls) + tuple(fr), x1 - x0)
        total = sum(acc.values())
        scale = 0 if weight == "calls" else unit
        if normalise:
            k = min(3, 9 - scale)
            n = len(sel)
            acc = {s: round_half_even(w * 10 ** k, n) for s, w in acc.items()}
            scale += k
        lines = []
        for s in sorted(acc, key=lambda s: tuple(f.encode() for f in s)):
            if acc[s]:
                lines.append(";".join(s) + " " + fmt_num(acc[s], scale))
        return lines, total

    def first_issue(self, b):
        """The earliest launch return among the activities starting at or
        after b (work issued and not started from then on)."""
        ends = [x["launch"]["end"] for x in self.acts if x["start"] >= b and x["launch"] is not None]
        return min(ends) if ends else float("inf")

    def idle_pieces(self, wins):
        """(lo, hi, (cause, class, stack or label)) over the idle time inside
        wins, by the gap model's rule on this schedule."""
        busy = union([(x["start"], x["end"]) for x in self.acts])
        INF = float("inf")
        gaps = []
        prev = -INF
        for (x, y) in busy:
            gaps.append((prev, x))
            prev = y
        gaps.append((prev, INF))
        timeline = []
        t = None
        for (a, b, stack) in self.segs[self.main_tid]:
            if t is not None and a > t:
                timeline.append((t, a, ()))
            timeline.append((a, b, stack))
            t = b
        first, last = timeline[0][0], timeline[-1][1]
        timeline = [(-INF, first, ())] + timeline + [(last, INF, ())]
        out = []
        for (a, b) in gaps:
            for (w0, w1) in wins:
                lo, hi = max(a, w0), min(b, w1)
                if hi <= lo:
                    continue
                nxt = [x for x in self.acts if x["start"] == b]
                N = None
                if nxt:
                    withl = [x for x in nxt if x["launch"] is not None]
                    N = (withl or nxt)[0]
                q = self.first_issue(b) if b != INF else INF
                nq = min(max(q, lo), hi)
                zone = a == -INF or b == INF
                if nq > lo:
                    if N is not None and N["launch"] is None:
                        out.append((lo, nq, ("edge", None, None)))
                    else:
                        for (x, y, stack) in timeline:
                            x0, x1 = max(x, lo), min(y, nq)
                            if x1 <= x0:
                                continue
                            if not stack or stack[-1][1] == "step":
                                out.append((x0, x1, ("edge" if zone else "untraced", None, None)))
                            elif stack[-1][1] == "runtime" and self.is_sync(stack[-1][0]):
                                out.append((x0, x1, ("sync", "sync", stack)))
                            elif stack[-1][1] in ("runtime", "driver"):
                                out.append((x0, x1, ("launch", "launch", stack)))
                            else:
                                py = any(k in ("python", "annotation") for (_, k, _) in stack)
                                out.append((x0, x1, ("host", "python" if py else "other", stack)))
                q0 = max(q, lo)
                if q0 < hi:
                    if a == -INF:
                        out.append((q0, hi, ("edge", None, None)))
                        continue
                    # named by N once N is issued, before by the first issued
                    cands = [x for x in self.acts if x["start"] >= b and x["launch"] is not None]
                    qa = min(cands, key=lambda x: (x["launch"]["end"], x["start"]))
                    ni = N["launch"]["end"] if N is not None and N["launch"] is not None else INF
                    parts = [(q0, hi, N)] if ni <= q0 else ([(q0, ni, qa), (ni, hi, N)] if ni < hi else [(q0, hi, qa)])
                    for (x0, x1, X) in parts:
                        L = X["launch"]
                        if X["start"] - L["end"] < 30000:
                            lab = "launch latency (stream %d)" % X["stream"]
                        elif b - a < 30000 and L["end"] <= a:
                            lab = "back-to-back on stream %d" % X["stream"]
                        else:
                            lab = "stream %d: no wait in the trace" % X["stream"]
                        out.append((x0, x1, ("queued", None, lab)))
        return out

    def report(self):
        busy_all = union([(x["start"], x["end"]) for x in self.acts])
        out = []
        for i, (num, st, en) in enumerate(self.steps):
            w = [(st, en)]

            def ovs(kind=None, nccl=None):
                s = 0
                for x in self.acts:
                    if kind and x["kind"] != kind:
                        continue
                    if nccl is not None and x["nccl"] != nccl:
                        continue
                    s += max(0, min(en, x["end"]) - max(st, x["start"]))
                return s
            busy = sum(max(0, min(en, b) - max(st, a)) for (a, b) in busy_all)
            syncs = [s for s in self.syncs if st <= s["start"] < en]
            out.append({
                "index": i, "number": num, "start_ns": st, "end_ns": en, "wall_ns": en - st,
                "gpu_busy_ns": busy, "kernel_ns": ovs("kernel"), "memcpy_ns": ovs("memcpy"),
                "memset_ns": ovs("memset"), "nccl_ns": ovs("kernel", True),
                "idle_ns": en - st - busy, "sync_count": len(syncs),
                "sync_wait_ns": sum(s["end"] - s["start"] for s in syncs),
                "launches": sum(1 for L in self.launches if L["acts"] and st <= L["start"] < en),
                "kernels": sum(1 for x in self.acts if x["kind"] == "kernel" and st <= x["start"] < en),
            })
            del w
        # bubble = what a sync exposed (docs/report.md): in a gap [a, b) whose
        # next work was issued (its call returned) at h = min(q, b) > a, the
        # sync with start < a <= end <= h (smallest end, then first) drained
        # the device: min(h - a, its wait while the device was busy), measured
        # inside every step window
        bubble = [0] * len(self.syncs)
        for k in range(len(busy_all) - 1):
            a, b = busy_all[k][1], busy_all[k + 1][0]
            q = self.first_issue(b)
            h = min(q, b)
            if h <= a:
                continue
            cand = [(s["end"], j) for j, s in enumerate(self.syncs) if s["start"] < a <= s["end"] <= h]
            if cand:
                j = min(cand)[1]
                B = self.syncs[j]
                busy = sum(max(0, min(a, y) - max(B["start"], x)) for (x, y) in busy_all)
                e = a + min(h - a, busy)
                bubble[j] += sum(max(0, min(en, e) - max(st, a)) for (_, st, en) in self.steps)
        sites = {}
        for j, s in enumerate(self.syncs):
            key = (s["site"], s["op"], s["api"])
            e = sites.setdefault(key, {"site": key[0], "op": key[1], "api": key[2], "count": 0,
                                       "wait_ns": 0, "bubble_ns": 0})
            e["count"] += 1
            e["wait_ns"] += s["end"] - s["start"]
            e["bubble_ns"] += bubble[j]
        return {"steps": out, "syncs": sorted(sites.values(), key=lambda e: -e["bubble_ns"])}


def union(iv):
    out = []
    for (a, b) in sorted(iv):
        if b <= a:
            continue
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


def subtract(wins, busy):
    out = []
    for (a, b) in wins:
        cur = a
        for (x, y) in busy:
            if y <= cur or x >= b:
                continue
            if x > cur:
                out.append((cur, x))
            cur = max(cur, y)
        if cur < b:
            out.append((cur, b))
    return out


def round_half_even(num, den):
    q, r = divmod(num, den)
    if 2 * r > den or (2 * r == den and q % 2 == 1):
        q += 1
    return q


def fmt_num(v, scale):
    neg = v < 0
    v = abs(v)
    if scale == 0:
        s = str(v)
    else:
        ip, fp = divmod(v, 10 ** scale)
        f = ("%0*d" % (scale, fp)).rstrip("0")
        s = str(ip) + ("." + f if f else "")
    return ("-" if neg else "") + s


FOLDS = [
    # (key args, weight, levels, kwargs)
    ("--weight gpu", "gpu", "annotation,python,op", {}),
    ("--weight cpu", "cpu", "annotation,python,op", {}),
    ("--weight wall", "wall", "annotation,python,op", {}),
    ("--weight idle", "idle", "annotation,python,op", {}),
    ("--weight calls", "calls", "annotation,python,op", {}),
    ("--weight gpu --stack step,module,op,runtime", "gpu", "step,module,op,runtime", {}),
    ("--weight wall --stack step,module,op,runtime", "wall", "step,module,op,runtime", {}),
    ("--weight idle --stack step,python", "idle", "step,python", {}),
    ("--weight calls --stack module,op,runtime", "calls", "module,op,runtime", {}),
    ("--weight gpu --per-step --stack module", "gpu", "module", {"per_step": True}),
    ("--weight gpu --skip 1 --per-step-normalise", "gpu", "annotation,python,op", {"skip": 1, "normalise": True}),
    ("--weight cpu --steps 4..5", "cpu", "annotation,python,op", {"steps": (4, 5)}),
    ("--weight calls --steps 4..6 --skip 1", "calls", "annotation,python,op", {"steps": (4, 6), "skip": 1}),
    ("--weight wall --skip 2 --unit ns", "wall", "annotation,python,op", {"skip": 2, "unit": 0}),
    ("--weight gpu --unit us", "gpu", "annotation,python,op", {"unit": 3}),
    ("--weight cpu --skip 1 --unit us --per-step-normalise", "cpu", "annotation,python,op",
     {"skip": 1, "unit": 3, "normalise": True}),
    ("--weight idle --skip 1 --unit ms --per-step-normalise", "idle", "annotation,python,op",
     {"skip": 1, "unit": 6, "normalise": True}),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variant", choices=["sync", "fixed", "graph", "tp"], default="sync")
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rank", type=int, default=0)
    ap.add_argument("--abs-ts", action="store_true", help="19-digit absolute ts, no baseTimeNanoseconds")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--expect")
    a = ap.parse_args()
    if a.steps < 3:
        ap.error("--steps must be >= 3")
    g = Gen(a)
    g.run()
    g.write_trace(a.output)
    if a.expect:
        folds, totals = {}, {}
        for (key, weight, levels, kw) in FOLDS:
            lines, total = g.fold(weight, levels.split(","), **kw)
            folds[key] = lines
            if key == "--weight " + weight:
                totals[weight] = total
        exp = {"variant": a.variant, "steps": a.steps, "rank": a.rank if a.variant == "tp" else 0,
               "world_size": 2 if a.variant == "tp" else 1, "folds": folds, "totals_ns": totals,
               "report": g.report()}
        with open(a.expect, "w") as fp:
            json.dump(exp, fp, indent=1)
            fp.write("\n")


if __name__ == "__main__":
    sys.exit(main())
