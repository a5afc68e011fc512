#!/usr/bin/env python3
"""gen_threads.py -- a trace with one step thread and idle helper threads,
and what `gpuflame fold --weight wall|cpu` must give for it, computed here
from the rules docs/fold.md states (not from gpuflame):

  python3 tests/gen/gen_threads.py TRACE.json EXPECT.json

The trace (integer us, so every time is an exact integer of ns):
  - pid 7 tid 7, thread_name "thread 7 (python3)" (Kineto's form): the step
    thread. ProfilerStep#1 [100, 300) and ProfilerStep#2 [350, 600); a
    python frame [90, 620) around both; in step 1 an aten::mm launching one
    kernel and an aten::item blocked in cudaStreamSynchronize [210, 255);
    host work between the steps [300, 350) that no fold may count;
  - pid 7 tid 9, a helper asleep for the whole trace (tqdm's monitor), whose
    thread name carries hostile bytes (';', a C0 and a C1 control, '<>&"',
    a bidi override, '# ');
  - pid 8 tid 9 (the same tid in another process), no thread name, a frame
    over part of step 2 only;
  - pid 7 tid 11, no thread name, a frame outside the steps only.

Rules written out:
  - a thread frame is "thread (TID)" + ": NAME" when the thread has a name;
    Kineto's "thread <tid> (<comm>)" gives NAME = comm; a tid shared by two
    threads reads "thread (TID, pid PID)"; NAME is normalised like any frame
    (';' -> ':', control bytes -> ' ');
  - the window is the union of the steps; by default only the step thread is
    folded, over its own steps, so wall sums to the steps' wall time; cpu is
    that minus the blocking call;
  - --all-threads adds every other thread's traced time inside the window
    under its own thread frame; the threads left out by default are the ones
    with weight there (threads_left_out, left_out in the header).
EXPECT.json: {"step_wall_ns", "step_cpu_ns", "step_frame", "threads": {frame:
[wall_ns, cpu_ns]} for the other threads with weight, "left_out_threads",
"left_out_wall_ns", "left_out_cpu_ns"}; frames as the decoded folded text.
"""
import json
import sys

HOSTILE = 'mon;it<or>&"\x01 \u009b\u202e# x'.encode()
STEPS = [(100, 300), (350, 600)]


def union(iv):
    out = []
    for a, b in sorted(iv):
        if b <= a:
            continue
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def inter_len(iv, win):
    s = 0
    for a, b in union(iv):
        for x, y in win:
            s += max(0, min(b, y) - max(a, x))
    return s


def norm(name):
    out = bytearray()
    for c in name:
        if c == ord(";"):
            c = ord(":")
        elif c < 0x20 or c == 0x7F:
            c = ord(" ")
        out.append(c)
    return bytes(out)


def jstr(b):
    """A JSON string literal of raw bytes: controls and '"' escaped, other
    bytes (the invalid one too) written as they are."""
    out = bytearray(b'"')
    for c in b:
        if c < 0x20:
            out += b"\\u%04x" % c
        elif c in (0x22, 0x5C):
            out += b"\\" + bytes([c])
        else:
            out.append(c)
    return bytes(out + b'"')


def main():
    ev = []

    def x(cat, name, pid, tid, ts, dur, args=None):
        e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur}
        if args:
            e["args"] = args
        ev.append(e)

    meta = [(7, 7, b"thread 7 (python3)"), (7, 9, HOSTILE)]
    x("python_function", "model.py(10): forward", 7, 7, 90, 530)
    for i, (a, b) in enumerate(STEPS):
        x("user_annotation", "ProfilerStep#%d" % (i + 1), 7, 7, a, b - a)
    x("cpu_op", "aten::mm", 7, 7, 120, 60)
    x("cuda_runtime", "cudaLaunchKernel", 7, 7, 130, 10, {"correlation": 1})
    x("kernel", "gemm_kernel", 0, 7, 150, 20, {"correlation": 1, "device": 0, "stream": 7})
    x("cpu_op", "aten::item", 7, 7, 200, 60)
    sync = (210, 255)
    x("cuda_runtime", "cudaStreamSynchronize", 7, 7, sync[0], sync[1] - sync[0])
    x("cpu_op", "aten::between_steps", 7, 7, 300, 50)
    x("cpu_op", "aten::add", 7, 7, 400, 50)
    # the helper: asleep over the whole trace
    helper = [(40, 710), (50, 700)]
    x("python_function", "tqdm/_monitor.py(60): run", 7, 9, 40, 670)
    x("python_function", "threading.py(359): wait", 7, 9, 50, 650)
    other = [(500, 560)]
    x("python_function", "worker.py(3): poll", 8, 9, 500, 60)
    outside = [(305, 340)]
    x("python_function", "loader.py(5): fetch", 7, 11, 305, 35)

    body = b",\n".join(json.dumps(e).encode() for e in ev)
    for pid, tid, name in meta:
        body += b',\n{"ph": "M", "name": "thread_name", "pid": %d, "tid": %d, "args": {"name": %s}}' % (
            pid, tid, jstr(name))
    with open(sys.argv[1], "wb") as fp:
        fp.write(b'{"schemaVersion": 1, "traceEvents": [\n' + body + b"\n]}\n")

    win = union(STEPS)
    step_wall = sum(b - a for a, b in win)
    step_cpu = step_wall - inter_len([sync], win)
    threads = {}
    for frame, iv in (("thread (9, pid 7): " + norm(HOSTILE).decode(), helper),
                      ("thread (9, pid 8)", other), ("thread (11)", outside)):
        w = inter_len(iv, win)
        if w:
            threads[frame] = [w * 1000, w * 1000]
    exp = {
        "step_wall_ns": step_wall * 1000,
        "step_cpu_ns": step_cpu * 1000,
        "step_frame": "thread (7): python3",
        "threads": threads,
        "left_out_threads": len(threads),
        "left_out_wall_ns": sum(v[0] for v in threads.values()),
        "left_out_cpu_ns": sum(v[1] for v in threads.values()),
    }
    with open(sys.argv[2], "w") as fp:
        json.dump(exp, fp)


if __name__ == "__main__":
    main()
