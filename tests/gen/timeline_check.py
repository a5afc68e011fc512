#!/usr/bin/env python3
"""timeline_check.py -- checks the step timelines of gpuflame's HTML page
(report --format html) against the raw trace, read here with the stdlib, and
against the independent gap model (tests/gen/gapmodel.py). Prints PASS/FAIL lines.

usage: timeline_check.py PAGE.html TRACE.json[.gz] [GAPMODEL.json] [--steps N,M | --median REPORT.json]

For each timeline of rank 0:
- its window is the ProfilerStep#N range of the trace (exact ns from the decimal text): wall;
- device lanes: per stream (communication kernels, a name holding nccl or rccl, apart), the
  kernels, memcpy and memset of the page's device meeting the window, counted and their
  time clipped to the window, equal the lane's items and items_ns;
- the idle lane: the time of each cause (single pieces and the parts of merged blocks)
  equals gapmodel.py's split of that step, ns for ns (when GAPMODEL.json is given);
- the runtime-call lane: the thread's outermost cuda_runtime/cuda_driver calls meeting the
  window (not inside another call of the thread) are its items;
- merging: the members of every block add up to the lane's items, the merged ones and their
  time to its merged counts, blocks are in time order inside the window, a block of several
  members spans less than two pixels (px), and a lane holds at most two blocks per pixel of
  the default width plus its wide items: the page stays bounded;
- --median REPORT.json: the one timeline is the steady step whose wall is nearest the steady
  median wall of the report (earliest on a tie); --steps: exactly those step numbers.
"""
import gzip, json, os, re, subprocess, sys
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pagelib import Checks, page_data  # noqa: E402

args = sys.argv[1:]
page, trace = args[0], args[1]
gm_path = args[2] if len(args) > 2 and not args[2].startswith('--') else None
want_steps = None
median_rep = None
if '--steps' in args:
    want_steps = [int(x) for x in args[args.index('--steps') + 1].split(',')]
if '--median' in args:
    median_rep = args[args.index('--median') + 1]
C = Checks()
ok = C.ok
D = page_data(page)
P = D['ranks'][0]
TL = P.get('timeline', [])
op = gzip.open if trace.endswith('.gz') else open
if trace.endswith('.zst'):
    raw = subprocess.run(['zstd', '-dc', trace], capture_output=True, check=True).stdout
    T = json.loads(raw)
else:
    T = json.load(op(trace, 'rt', encoding='utf-8'))
ev = T['traceEvents'] if isinstance(T, dict) else T


def ns(x):
    return int(Decimal(str(x)) * 1000)


steps = {}
for e in ev:
    if e.get('ph') == 'X' and e.get('cat') != 'gpu_user_annotation' and re.fullmatch(r'ProfilerStep#\d+', str(e.get('name', ''))):
        steps[int(e['name'].split('#')[1])] = (ns(e['ts']), ns(e['ts']) + ns(e['dur']))

if want_steps is not None:
    got = [t['step'] for t in TL]
    ok('timeline-steps-asked', got == sorted(want_steps), '%s vs %s' % (got, want_steps))
if median_rep is not None:
    R = json.load(open(median_rep))
    rows = R['steps']
    steady = [r for r in rows if not r['warmup']] or rows
    med = Decimal(str(R['summary']['steady_step_us']))
    best = min(steady, key=lambda r: (abs(Decimal(str(r['wall_us'])) - med), rows.index(r)))
    ok('timeline-median-step', len(TL) == 1 and TL[0]['median'] and TL[0]['step'] == best['index'],
       '%s vs step %s' % ([t['step'] for t in TL], best['index']))

gm = json.load(open(gm_path)) if gm_path else None
kinds = {'kernel', 'gpu_memcpy', 'gpu_memset'}
calls = [e for e in ev if e.get('ph') == 'X' and e.get('cat') in ('cuda_runtime', 'cuda_driver') and 'dur' in e]

for t in TL:
    tag = 'step%s' % t['step']
    lo, hi = steps[t['step']]
    ok('timeline-%s-window' % tag, t['wall'] == hi - lo, '%s vs %s' % (t['wall'], hi - lo))
    lanes = t['lanes']
    # device lanes against the raw activities
    want = {}
    for e in ev:
        if e.get('ph') != 'X' or e.get('cat') not in kinds or 'dur' not in e:
            continue
        a = e.get('args', {})
        dev = a.get('device', e.get('pid'))
        if dev != t['device']:
            continue
        s0 = ns(e['ts'])
        s1 = s0 + ns(e['dur'])
        c0, c1 = max(s0, lo), min(s1, hi)
        if c1 <= c0:
            continue
        comm = bool(re.search('nccl|rccl', e['name'], re.I)) and e.get('cat') == 'kernel'
        key = ('comm' if comm else 'stream', a.get('stream', e.get('tid')))
        n, w = want.get(key, (0, 0))
        want[key] = (n + 1, w + c1 - c0)
    got = {(L['kind'], L['stream']): (L['items'], L['items_ns']) for L in lanes if L['kind'] in ('stream', 'comm')}
    ok('timeline-%s-device-lanes' % tag, got == want, 'page %s vs trace %s' % (sorted(got.items())[:6], sorted(want.items())[:6]))
    # the idle lane against the gap model
    idle = [L for L in lanes if L['kind'] == 'idle']
    causes = ['edge', 'sync', 'host', 'untraced', 'queued', 'launch']
    split = [0] * 6
    if idle:
        L = idle[0]
        for i in range(len(L['s'])):
            if L['k'][i] == 1:
                split[L['c'][i] & 255] += L['d'][i]
            else:
                split = [a + b for a, b in zip(split, L['m'][i])]
        texts = t['texts']
        ok('timeline-%s-idle-words' % tag, all(0 <= x < len(texts) for x in L['x']) and
           all(texts[L['x'][i]].startswith(causes[L['c'][i] & 255] + ': ') for i in range(len(L['s']))), 'an explanation of another cause')
    if gm is not None:
        row = [r for r in gm['steps'] if r['index'] == t['step']]
        exp = [row[0][c] for c in causes] if row else None
        ok('timeline-%s-idle-gapmodel' % tag, exp == split, 'page %s vs gapmodel %s' % (dict(zip(causes, split)), exp))
    # the runtime-call lane against the thread's outermost calls
    th = t['thread']
    mine = sorted(((ns(e['ts']), ns(e['ts']) + ns(e['dur'])) for e in calls if e.get('pid') == th['pid'] and e.get('tid') == th['tid']),
                  key=lambda x: (x[0], -x[1]))
    outer, end = [], None
    for a, b in mine:
        if end is not None and b <= end:
            continue  # inside the previous outermost call
        outer.append((a, b))
        end = b
    n_calls = sum(1 for a, b in outer if min(b, hi) > max(a, lo))
    cl = [L for L in lanes if L['kind'] == 'calls']
    ok('timeline-%s-calls' % tag, cl and cl[0]['items'] == n_calls, '%s vs %d' % (cl and cl[0]['items'], n_calls))
    # merging and bounds
    px, W = t['px'], t['width_px']
    for L in lanes:
        n = len(L['s'])
        k, d, b, st = L['k'], L['d'], L['b'], L['s']
        good = sum(k) == L['items'] and sum(k[i] for i in range(n) if k[i] > 1) == L['merged'] and \
            sum(b[i] for i in range(n) if k[i] > 1) == L['merged_ns'] and \
            all(st[i] >= 0 and st[i] + d[i] <= t['wall'] for i in range(n)) and \
            all(d[i] < 2 * px for i in range(n) if k[i] > 1) and \
            all(st[i] <= st[i + 1] for i in range(n - 1)) and \
            n <= 2 * W + sum(1 for i in range(n) if d[i] >= px)
        ok('timeline-%s-merge-%s-%s' % (tag, L['kind'], L['stream']), good,
           'items %s merged %s segments %d px %d' % (L['items'], L['merged'], n, px))
sys.exit(1 if C.bad else 0)
