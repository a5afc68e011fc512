"""pyroscope_check.py -- checks what push sent against Pyroscope's documented ingest rules.

Usage: pyroscope_check.py LOG INDEX FOLDED APP WEIGHT MAX_STACKS [KEY=VALUE...]
Request INDEX of LOG (tests/gen/pyroscope_recv.py) must be:
  - POST /ingest with name, from, until (integers, from < until), format=folded,
    sampleRate 1000000000 for ns weights (period 1: ns stay ns) or 100 for samples;
  - name = APP.WEIGHT.wall{...} (.cpu for samples): the last dot-suffix types the
    profile; its labels hold weight=WEIGHT and every KEY=VALUE given;
  - a body of "stack value" lines, split at the last blank, integer values, each line
    under 64 KiB, at most MAX_STACKS lines;
  - the FOLDED file's stacks (read here, summed per stack): the heaviest MAX_STACKS-1
    as they are (or all when they fit) and "[other]" with the rest, so the sum is the
    file's total exactly.
Prints "ok" or the first broken rule.
"""
import json, sys

log, idx, folded, app, weight, maxs = sys.argv[1:7]
want_labels = dict(kv.split('=', 1) for kv in sys.argv[7:])
idx, maxs = int(idx), int(maxs)
req = [json.loads(l) for l in open(log)][idx]

def die(m):
    print(m)
    sys.exit(0)

q = {k: v[0] for k, v in req['query'].items()}
if req['path'] != '/ingest':
    die('path %r' % req['path'])
for k in ('name', 'from', 'until'):
    if k not in q:
        die('no %s' % k)
if not (q['from'].isdigit() and q['until'].isdigit() and int(q['from']) < int(q['until'])):
    die('from/until %r %r' % (q['from'], q['until']))
if q.get('format') != 'folded':
    die('format %r' % q.get('format'))
samples = weight == 'samples'
if q.get('sampleRate') != ('100' if samples else '1000000000'):
    die('sampleRate %r' % q.get('sampleRate'))
name = q['name']
base, _, labels = name.partition('{')
if base != '%s.%s.%s' % (app, weight, 'cpu' if samples else 'wall') or not labels.endswith('}'):
    die('name %r' % name)
got = dict(kv.split('=', 1) for kv in labels[:-1].split(',') if kv)
want_labels['weight'] = weight
for k, v in want_labels.items():
    if got.get(k) != v:
        die('label %s=%r, expected %r (name %r)' % (k, got.get(k), v, name))

body = req['body'].encode('latin-1')
lines = body.split(b'\n')
if lines[-1] != b'':
    die('body does not end with a newline')
sent = {}
for l in lines[:-1]:
    if len(l) + 1 >= 65536:
        die('a line of %d bytes' % len(l))
    stack, _, v = l.rpartition(b' ')
    if not v.isdigit():
        die('value %r is not an integer' % v)
    sent[stack] = sent.get(stack, 0) + int(v)
if len(lines) - 1 > maxs:
    die('%d lines, more than %d' % (len(lines) - 1, maxs))

truth = {}
for l in open(folded, 'rb').read().split(b'\n'):
    if not l or l.startswith(b'#'):
        continue
    stack, _, v = l.rpartition(b' ')
    truth[stack] = truth.get(stack, 0) + int(v)
total = sum(truth.values())
if sum(sent.values()) != total:
    die('sum %d, the file has %d' % (sum(sent.values()), total))
order = sorted(truth.items(), key=lambda kv: (-kv[1], kv[0]))
if len(order) <= maxs:
    exp = dict(order)
else:
    exp = dict(order[:maxs - 1])
    exp[b'[other]'] = sum(v for _, v in order[maxs - 1:])
long_ok = all(len(k) + 30 < 65536 for k in exp)
if long_ok and sent != exp:
    diff = [k for k in set(sent) | set(exp) if sent.get(k) != exp.get(k)][:3]
    die('stacks differ: %r' % diff)
print('ok')
