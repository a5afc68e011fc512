#!/usr/bin/env python3
"""speedscope_fold.py — the folded stacks a speedscope JSON file holds,
computed from the file by speedscope's own rules (its file-format schema:
shared.frames; "sampled" profiles, where samples[i] weighs weights[i];
"evented" profiles, where the time between two events belongs to the frames
open then, and frames still open at the end close at endValue), in the
mapping docs/formats.md ("Imports") gives gpuflame:

  - a frame is its name, "name (file:line)" or "name (file)";
  - with several profiles each is a root frame named as the profile
    ("profile N" without a name), unless --merge;
  - identical stacks summed, lines sorted by bytes, exact decimals.

Independent of gpuflame (json with Decimal, exact integers). Prints the
folded text (header included) and, with --totals, one line per profile:
"name total endValue-startValue", the totals speedscope shows.

  speedscope_fold.py [--merge] [--totals] FILE
"""
import json
import sys
from decimal import Decimal

args = sys.argv[1:]
merge = '--merge' in args
totals = '--totals' in args
path = [a for a in args if not a.startswith('--')][0]
doc = json.load(open(path, 'rb'), parse_float=Decimal, parse_int=Decimal)

UNITS = {'nanoseconds': 'ns', 'microseconds': 'us', 'milliseconds': 'ms', 'seconds': 's', 'bytes': 'bytes',
         'none': ''}


def clean(s):
    return s.replace(';', ':').replace('\n', ' ').replace('\0', ' ')


def frame_name(f):
    n = clean(f['name'])
    if isinstance(f.get('file'), str):
        n += ' (' + clean(f['file'])
        if isinstance(f.get('line'), Decimal):
            n += ':' + str(f['line'])
        n += ')'
    return n


frames = [frame_name(f) for f in doc.get('shared', {}).get('frames', [])]
profiles = doc['profiles']
sums = {}
tot = []


def add(stack, w):
    sums[stack] = sums.get(stack, Decimal(0)) + w


for i, p in enumerate(profiles):
    root = []
    if len(profiles) > 1 and not merge:
        root = [clean(p['name'])] if p.get('name') else ['profile %d' % (i + 1)]
    total = Decimal(0)
    if p['type'] == 'sampled':
        ws = p.get('weights') or [Decimal(1)] * len(p['samples'])
        for s, w in zip(p['samples'], ws):
            add(';'.join(root + [frames[int(k)] for k in s]) or '[no frames]', w)
            total += w
    else:
        open_, last = [], None
        for e in p['events']:
            at = e['at']
            if open_ and last is not None and at > last:
                add(';'.join(root + [frames[int(k)] for k in open_]), at - last)
                total += at - last
            last = at
            if e['type'] == 'O':
                open_.append(e['frame'])
            else:
                assert open_ and open_[-1] == e['frame'], 'unbalanced close'
                open_.pop()
        if open_ and p['endValue'] > last:
            add(';'.join(root + [frames[int(k)] for k in open_]), p['endValue'] - last)
            total += p['endValue'] - last
    tot.append((p.get('name', ''), total, p['endValue'] - p['startValue']))

if totals:
    for n, t, span in tot:
        print(n, t, span)
    sys.exit(0)


def fmt(d):
    s = format(d.normalize(), 'f')
    if '.' in s:
        s = s.rstrip('0').rstrip('.')
    return s


unit = UNITS[profiles[0].get('unit', 'none')] if profiles else ''
out = sys.stdout.buffer
out.write(b'# gpuflame: format=speedscope;' + ((' unit=%s;' % unit).encode() if unit else b'') +
          (' profiles=%d;\n' % len(profiles)).encode())
for s in sorted(sums, key=lambda k: k.encode()):
    out.write(s.encode() + b' ' + fmt(sums[s]).encode() + b'\n')
