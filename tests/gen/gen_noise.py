#!/usr/bin/env python3
"""gen_noise.py — two captures of one training loop whose only real
difference is known by construction, for `gpuflame diff`'s step-to-step
noise test (docs/diff.md, "Step-to-step noise").

  gen_noise.py --seed S [--steps N] [--plant OP] [--factor F] -o TRACE.json
  gen_noise.py --check-top TOP.txt OP     (prints ok or what is wrong)

Each step runs the same ops (OPS below) on one thread: every op is a cpu_op
whose own host time and whose kernel's duration are their base value times
an independent uniform factor in [0.9, 1.1] per step (jitter of +-10%, the
seed's). --plant OP multiplies that op's host self time and its kernel by F
(default 1.2: +20%) in every step. Steps are ProfilerStep#1..N, 16 by
default; integer ns.

So between a capture with --plant aten::mm and one without (another seed),
the only stacks whose per-step values really differ are those ending in
aten::mm (its self time on the host: cpu and wall weights) or in its kernel
(gpu weight); every other stack differs by jitter alone. --check-top reads
`gpuflame diff --top N` (N large enough for every change) and checks: every
stack classed grew/shrank by self weight holds OP (and, with OP given, at
least one does); every frame classed grew/shrank by total weight is on the
path of such a stack (a prefix of it). With OP "-" (two captures of the same
loop, different seeds) nothing may be classed grew or shrank.
"""
import argparse
import json
import random
import sys

OPS = [  # (op, kernel, host self ns, kernel ns): the host is slower than its kernels (each kernel
    # ends before its op returns), so a step's length is the host's and no
    # frame waits for the GPU: a planted kernel changes nothing else
    ("aten::mm", "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_cublas", 2741003, 903011),
    ("aten::add", "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>", 473011, 151007),
    ("aten::softmax", "void at::native::cunn_SoftMaxForward<4, float, float, float>", 1231007, 402013),
    ("aten::layer_norm", "void at::native::vectorized_layer_norm_kernel<float, float>", 929017, 301019),
    ("aten::gelu", "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl>", 619013, 201031),
    ("aten::bmm", "ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_tn", 2137019, 702017),
    ("aten::copy_", "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda>", 317029, 101021),
    ("aten::sum", "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float>>", 771023, 251033),
]
PID, TID = 88, 88
BASE_NS = 1767189312000000000


def us(ns):
    return "%d.%03d" % (ns // 1000, ns % 1000)


def generate(a):
    rng = random.Random(a.seed)
    ev = []

    def x(cat, name, pid, tid, s, e, args=None):
        d = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid}
        body = json.dumps(d)[:-1] + ', "ts": %s, "dur": %s' % (us(s), us(e - s))
        if args:
            body += ', "args": ' + json.dumps(args)
        ev.append(body + "}")

    corr = 100
    t = 1000000
    gpu_end = 0
    for k in range(1, a.steps + 1):
        T = t
        h = T + 5003
        ops = []
        for (op, kern, hs, kd) in OPS:
            f = a.factor if op == a.plant else 1.0
            hself = int(hs * rng.uniform(0.9, 1.1) * f)
            kdur = int(kd * rng.uniform(0.9, 1.1) * f)
            corr += 1
            # the op: its own time before and after the launch call (7,001 ns);
            # the kernel runs right after the call, within the op's time
            pre = hself // 10
            ls = h + pre
            le = ls + 7001
            oe = le + (hself - pre)
            x("cpu_op", op, PID, TID, h, oe)
            x("cuda_runtime", "cudaLaunchKernel", PID, TID, ls, le, {"correlation": corr})
            ks = max(le + 2003, gpu_end)
            ke = ks + kdur
            gpu_end = ke
            assert ke < oe, "a kernel outlives its op"

            x("kernel", kern, 0, 7, ks, ke, {"device": 0, "stream": 7, "correlation": corr})
            ops.append(oe)
            h = oe + 1009
        E = h + 3001
        x("user_annotation", "ProfilerStep#%d" % k, PID, TID, T, E)
        x("python_function", "train.py(10): train_step", PID, TID, T + 1001, E - 1001)
        t = E + 20011
    with open(a.o, "w") as fp:
        fp.write('{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}],\n'
                 ' "traceEvents": [\n  ' + ",\n  ".join(ev) + '\n ],\n "baseTimeNanoseconds": %d}\n' % BASE_NS)


def parse_top(path):
    """{'total': [(class, stack)], 'self': [...]} from diff --top's text"""
    out, cur = {}, None
    for line in open(path, encoding="utf-8", errors="replace"):
        if line.startswith("Biggest changes by "):
            cur = "self" if line.startswith("Biggest changes by self") else "total"
            out[cur] = []
            continue
        f = line.split(None, 5)
        if cur and len(f) == 6 and f[4] in ("same", "grew", "shrank", "noise", "small"):
            out[cur].append((f[4], f[5].rstrip("\n")))
        elif not line.strip():
            cur = None
    return out


def check_top(path, op):
    top = parse_top(path)
    errs = []
    if set(top) != {"total", "self"}:
        print("no --top tables in %s" % path)
        return 1
    sig = [s for c, s in top["self"] if c in ("grew", "shrank")]
    if op == "-":
        sig_t = [s for c, s in top["total"] if c in ("grew", "shrank")]
        for s in sig + sig_t:
            errs.append("flagged in a capture of the same loop: %s" % s)
    else:
        frames = lambda s: s.split(";")
        for s in sig:
            if op not in frames(s):
                errs.append("stack classed changed without %s: %s" % (op, s))
        if not any(op in frames(s) for c, s in top["self"] if c == "grew"):
            errs.append("the planted change (%s) is not classed grew" % op)
        for c, s in top["total"]:
            if c in ("grew", "shrank") and not any(p == s or p.startswith(s + ";") for p in sig):
                errs.append("frame classed changed off the planted path: %s" % s)
    print("\n".join(errs) if errs else "ok")
    return 1 if errs else 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--check-top":
        return check_top(sys.argv[2], sys.argv[3])
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--steps", type=int, default=16)
    p.add_argument("--plant", default=None)
    p.add_argument("--factor", type=float, default=1.2)
    p.add_argument("-o", required=True)
    generate(p.parse_args())
    return 0


if __name__ == "__main__":
    sys.exit(main())
