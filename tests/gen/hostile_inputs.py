#!/usr/bin/env python3
"""hostile_inputs.py — writes hostile variants of a trace and a folded file.

Usage: hostile_inputs.py TRACE.json FOLDED OUTDIR
Writes OUTDIR/<class>/<n>.<ext> and prints one manifest line per file:
    <kind> <class> <path> <expect>
kind is 'trace' or 'folded'; expect is 'any' (must not crash, exit 0/1/4, and
when it fails, fail cleanly), 'err' (must fail with exit 1), 'limit' (must
fail with exit 4 naming the GPUFLAME_MAX_* variable the run sets; see the
class name), 'ok' (must succeed) or 'trunc' (a trace cut short: refused, or
read up to the cut with the truncation said on stderr or in the output).  Deterministic: a fixed seed.
"""
import gzip
import os
import random
import subprocess
import sys

trace_path, folded_path, out = sys.argv[1:4]
rnd = random.Random(16)
trace = open(trace_path, 'rb').read()
folded = open(folded_path, 'rb').read()
have_zstd = subprocess.run(['sh', '-c', 'command -v zstd'], capture_output=True).returncode == 0


def zstd(data):
    return subprocess.run(['zstd', '-q', '-c'], input=data, capture_output=True, check=True).stdout


def put(kind, cls, name, data, expect):
    d = os.path.join(out, cls)
    os.makedirs(d, exist_ok=True)
    p = os.path.join(d, name)
    with open(p, 'wb') as f:
        f.write(data)
    print(kind, cls, p, expect)


def offsets(n, k):
    """the first 12 byte offsets, then k spread over the rest"""
    s = set(range(min(12, n)))
    s.update(12 + (n - 12) * i // k for i in range(k))
    return sorted(o for o in s if o < n)


def flips(data, k):
    res = []
    for _ in range(k):
        b = bytearray(data)
        i = rnd.randrange(len(b))
        b[i] ^= 1 << rnd.randrange(8)
        res.append(bytes(b))
    return res


for kind, base, ext in (('trace', trace, 'json'), ('folded', folded, 'folded')):
    for o in offsets(len(base), 24):
        put(kind, kind + '-trunc', '%d.%s' % (o, ext), base[:o], 'trunc' if kind == 'trace' else 'any')
    for i, b in enumerate(flips(base, 40)):
        put(kind, kind + '-flip', '%d.%s' % (i, ext), b, 'any')
    if kind == 'trace':  # compressed folded input is issue 11's
        gz = gzip.compress(base, mtime=0)
        for o in offsets(len(gz), 10):
            put(kind, kind + '-trunc-gz', '%d.%s.gz' % (o, ext), gz[:o], 'err')
        for i, b in enumerate(flips(gz, 12)):
            put(kind, kind + '-flip-gz', '%d.%s.gz' % (i, ext), b, 'any')
        put(kind, kind + '-gz-garbage', '0.%s.gz' % ext, gz + b'garbage!', 'err')
        if have_zstd:
            zs = zstd(base)
            for o in offsets(len(zs), 10):
                put(kind, kind + '-trunc-zst', '%d.%s.zst' % (o, ext), zs[:o], 'err')
            for i, b in enumerate(flips(zs, 12)):
                put(kind, kind + '-flip-zst', '%d.%s.zst' % (i, ext), b, 'any')
            put(kind, kind + '-zst-garbage', '0.%s.zst' % ext, zs + b'garbage!', 'err')

# --- traces: duplicate keys, out-of-range numbers, NUL and control bytes ---
ev = b'{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": %s, "dur": %s, "args": {"correlation": 1}}'
op = b'{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 50}'
launch = b'{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 2, "dur": 3, "args": {"correlation": 1}}'


def mini(kernel_ts=b'10', kernel_dur=b'5', head=b'', extra=b''):
    return (b'{' + head + b'"traceEvents": [' + op + b',\n' + launch + b',\n' +
            ev % (kernel_ts, kernel_dur) + extra + b']}')


put('trace', 'trace-dupkey', 'events.json', mini()[:-1] + b', "traceEvents": [' + op + b']}', 'err')
put('trace', 'trace-dupkey', 'base.json', mini(head=b'"baseTimeNanoseconds": 1, "baseTimeNanoseconds": 2, '), 'err')
numbers = [(b'10', b'1e400'), (b'10', b'null'), (b'1e400', b'5'), (b'-1e400', b'5'), (b'10', b'-5'),
           (b'9223372036854775807', b'5'), (b'9223372036854775', b'9223372036854775'),
           (b'-9223372036854775', b'5'), (b'10', b'"5"'), (b'10', b'true'), (b'1e-400', b'5'),
           (b'10', b'18446744073709551616'), (b'0.0000000001', b'0.0000000001')]
for i, (ts, dur) in enumerate(numbers):
    put('trace', 'trace-numbers', '%d.json' % i, mini(ts, dur), 'any')
put('trace', 'trace-numbers', 'base-max.json', mini(head=b'"baseTimeNanoseconds": 9223372036854775807, '), 'any')
put('trace', 'trace-numbers', 'base-neg.json', mini(head=b'"baseTimeNanoseconds": -9223372036854775808, '), 'any')
put('trace', 'trace-numbers', 'pid-huge.json', mini().replace(b'"pid": 1,', b'"pid": 1e30,'), 'any')
put('trace', 'trace-numbers', 'corr-huge.json', mini().replace(b'"correlation": 1', b'"correlation": 99999999999999999999999'), 'any')
for i, s in enumerate([b'\\u0000', b'\\u001b[31mred\\u001b[0m', b'a\\nb;c d', b'\\ud800', b'\\u202e', b'<script>&amp;']):
    put('trace', 'trace-names', 'escaped-%d.json' % i, mini().replace(b'"aten::mm"', b'"aten::mm ' + s + b'"'), 'ok' if i != 3 else 'any')
for i, s in enumerate([b'\x00', b'\x1b[31m', b'\x01', b'\xff\xfe', b'\xc0\x80', b'\xed\xa0\x80']):
    put('trace', 'trace-raw', 'raw-%d.json' % i, mini().replace(b'"aten::mm"', b'"aten::mm' + s + b'"'), 'err')
put('trace', 'trace-raw', 'key-utf8.json', mini(head=b'"\xff\xfe": 1, '), 'err')
put('trace', 'trace-raw', 'nul-between.json', mini().replace(b',\n', b',\x00\n', 1), 'err')

# --- folded: odd names and weights ---
lines = [b'a;b 1\n' + s for s in [
    b'x\x00y;z 2\n', b'x\x1b[2Jy 2\n', b'\xff\xfe;a 2\n', b'a;b 99999999999999999999\n', b'a;b -3\n',
    b'a;b 1e400\n', b'a;b 1.5\n', b'; 3\n', b';;; 3\n', b'a;;b 3\n', b'a\tb 3\n', b'a b c 3\n', b'a;b 3\r\n',
    b' 3\n', b'a;b\n', b'a;b 0\n', b'a;b 9223372036854775807\na;b 9223372036854775807\n']]
for i, data in enumerate(lines):
    put('folded', 'folded-odd', '%d.folded' % i, data, 'any')
