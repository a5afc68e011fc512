#!/usr/bin/env python3
"""gen_page_stress.py -- Kineto traces that would make an unbounded HTML page
(issue 22): the page must stay bounded by what it draws.

usage: gen_page_stress.py MODE OUT.json [N]
  families   one step; one 5 ms gemm kernel launched from a Python frame, and N (100000)
             1 ns kernels with N distinct names (N kernel families: the name is its own
             family), none wide enough to be drawn: 2 drawn frames and one aggregate
  longnames  one step; a Python frame and a kernel each named with N (10485760) bytes
             ('A'..., 'B'...), the kernel launched from the frame
  deep       one step; N (40000) nested python_function frames, each 1 ns longer at both
             ends than the one inside it, a launch and its kernel at the bottom
Times are exact: ts and dur in us with 3 decimals.
"""
import json, sys

mode, out = sys.argv[1], sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else {'families': 100000, 'longnames': 10485760, 'deep': 40000}[mode]


def us(ns):
    return '%d.%03d' % divmod(ns, 1000)


ev = []


def x(cat, name, ts, dur, pid=1, tid=1, args=None):
    e = '{"ph":"X","cat":%s,"name":%s,"pid":%d,"tid":%d,"ts":%s,"dur":%s' % (
        json.dumps(cat), json.dumps(name), pid, tid, us(ts), us(dur))
    if args:
        e += ',"args":' + json.dumps(args)
    ev.append(e + '}')


def kernel(name, ts, dur, corr=None):
    a = {'device': 0, 'stream': 7}
    if corr is not None:
        a['correlation'] = corr
    x('kernel', name, ts, dur, pid=0, tid=7, args=a)


def launch(ts, corr):
    x('cuda_runtime', 'cudaLaunchKernel', ts, 3000, args={'correlation': corr})


STEP = 10_000_000  # 10 ms
x('user_annotation', 'ProfilerStep#1', 0, STEP)
if mode == 'families':
    x('python_function', 'train.py(10): step', 1000, 20000)
    launch(2000, 1)
    kernel('gemm_big_kernel', 100_000, 5_000_000, 1)
    for i in range(n):
        kernel('kfam_%d_kernel' % i, 5_200_000 + 40 * i, 1)
elif mode == 'longnames':
    x('python_function', 'A' * n, 1000, 20000)
    launch(2000, 1)
    kernel('B' * n, 100_000, 5_000_000, 1)
elif mode == 'deep':
    for i in range(n):
        x('python_function', 'rec.py(%d): f%d' % (i % 100, i), 1000 + i, 2 * (n - i) + 10000)
    launch(1000 + n + 1, 1)
    kernel('deep_kernel', 100_000, 5_000_000, 1)
else:
    sys.exit('gen_page_stress.py: unknown mode ' + mode)
with open(out, 'w', encoding='utf-8') as f:
    f.write('{"traceEvents":[\n')
    f.write(',\n'.join(ev))
    f.write('\n],"deviceProperties":[{"id":0,"name":"GPU"}]}\n')
