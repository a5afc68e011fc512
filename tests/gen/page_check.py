#!/usr/bin/env python3
"""page_check.py -- checks the data of gpuflame's HTML page (report --format html)
against independent computations. Prints PASS/FAIL lines.

usage: page_check.py PAGE.html REPORT.json TRACE.json[.gz] FOLD_GPU FOLD_CPU FOLD_WALL FOLD_IDLE [exact]

- the embedded "report" equals `report --format json` (same value);
- each graph tree is well formed (a parent before its children, totals = self + children),
  its root total equals the folded file's total, every written frame that is not an
  aggregate weighs at least keep_min, and the pruned weight equals the aggregates' weight
  (the "[N frames < minwidth]" and "[N frames deeper than 512 levels]" frames);
  with "exact" (a trace where nothing is pruned) the tree's stacks equal the folded stacks;
- calls: for every cpu_op name, the number of cpu_op events of the raw trace with that
  name whose ts falls inside a ProfilerStep range (the steps of the page), computed here
  from the trace JSON with exact decimals, equals the page's "calls";
- the gemm family: its kernel count and GPU time (kernels whose name holds "gemm",
  launched inside the steps, found by correlation here; an unattributed one by its own
  start) equal the page's family; every family listed is a frame the GPU graph draws;
  each of its top kernels' launch configuration
  (the most frequent grid, block, registers, occupancy of its name) is the page's cfg.
"""
import gzip, json, os, re, sys
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pagelib import Checks, page_data  # noqa: E402

page, rep_json, trace = sys.argv[1:4]
folds = dict(zip(['gpu', 'cpu', 'wall', 'idle'], sys.argv[4:8]))
exact = len(sys.argv) > 8 and sys.argv[8] == 'exact'
C = Checks()
ok = C.ok

s = open(page, encoding='utf-8').read()
D = page_data(page)
ok('page-data-block', D is not None and s.count('<script') == 2)
ok('page-schema', D['schema'] == 'gpuflame.page/1' and D['kind'] == 'report')
R = json.load(open(rep_json, encoding='utf-8'))
ok('page-report-equals-json', D['report'] == R, 'the embedded report differs from report --format json')

def folded(path):
    """Stacks in ns: the header's unit (fold's default ns, or us, ms) says the scale."""
    st, total, exp = {}, 0, 0
    for line in open(path, encoding='utf-8', errors='surrogateescape'):
        line = line.rstrip('\n')
        if line.startswith('# gpuflame:'):
            exp = {'ns': 0, 'us': 3, 'ms': 6}.get(dict(kv.strip().split('=', 1) for kv in line[11:].split(';')
                                                     if '=' in kv).get('unit', 'ns'), 0)
        if not line or line.startswith('#'):
            continue
        stack, c = line.rsplit(' ', 1)
        ns = int(Decimal(c) * 10 ** exp)
        st[stack] = st.get(stack, 0) + ns
        total += ns
    return st, total

P = D['ranks'][0]
for w, path in folds.items():
    g = P['graphs'][w]
    st, total = folded(path)
    if g is None:
        ok('page-graph-%s' % w, total == 0, 'graph missing but fold has weight')
        continue
    n = len(g['p'])
    kids = [0] * n
    wf = all(g['p'][i] < i for i in range(1, n)) and g['p'][0] == -1
    for i in range(1, n):
        kids[g['p'][i]] += g['v'][i]
    conserved = all(g['v'][i] >= kids[i] for i in range(n))
    names = g['names']
    # aggregates hold pruned weight: light children, or children below the depth cap
    agg = [i for i in range(1, n) if re.fullmatch(r'\[\d+ frames? (< minwidth|deeper than \d+ levels)\]', names[g['n'][i]])]
    heavy = all(g['v'][i] >= g['keep_min'] for i in range(1, n) if i not in set(agg))
    ok('page-graph-%s-shape' % w, wf and conserved and heavy and g['v'][0] == total == g['total'] and
       sum(g['v'][i] for i in agg) == g['pruned'] and g['keep_min'] == max(1, -(-total // 11800)),
       'wf %s conserved %s heavy %s total %s vs %s' % (wf, conserved, heavy, g['v'][0], total))
    if exact:
        paths, got = [''] * n, {}
        for i in range(1, n):
            paths[i] = names[g['n'][i]] if g['p'][i] == 0 else paths[g['p'][i]] + ';' + names[g['n'][i]]
            self_ = g['v'][i] - kids[i]
            if self_:
                got[paths[i]] = got.get(paths[i], 0) + self_
        ok('page-graph-%s-stacks' % w, g['pruned'] == 0 and got == st, '%d stacks vs %d' % (len(got), len(st)))

# calls from the raw trace
op = gzip.open if trace.endswith('.gz') else open
T = json.load(op(trace, 'rt', encoding='utf-8'))
ev = T['traceEvents'] if isinstance(T, dict) else T
def ns(x):
    return int(Decimal(str(x)) * 1000)
steps = sorted((ns(e['ts']), ns(e['ts']) + ns(e['dur'])) for e in ev
               if e.get('ph') == 'X' and re.fullmatch(r'ProfilerStep#\d+', e.get('name', '')))
def in_steps(t):
    return any(a <= t < b for a, b in steps)
calls = {}
for e in ev:
    if e.get('ph') == 'X' and e.get('cat') == 'cpu_op' and in_steps(ns(e['ts'])):
        calls[e['name']] = calls.get(e['name'], 0) + 1
pc = {}
for w in folds:
    g = P['graphs'][w]
    if g:
        for k, nm in enumerate(g['names']):
            if g['calls'][k] >= 0:
                pc[nm] = g['calls'][k]
checked = [nm for nm in calls if nm in pc]
wrong = [(nm, calls[nm], pc[nm]) for nm in checked if calls[nm] != pc[nm]]
ok('page-calls-cpu-ops', len(checked) >= 3 and not wrong, 'checked %d, wrong %s' % (len(checked), wrong[:5]))

launch = {e['args']['correlation']: ns(e['ts']) for e in ev
          if e.get('ph') == 'X' and e.get('cat') in ('cuda_runtime', 'cuda_driver') and 'correlation' in e.get('args', {})}
gemm_n, gemm_ns = 0, 0
for e in ev:
    if e.get('ph') == 'X' and e.get('cat') == 'kernel' and 'gemm' in e['name'].lower():
        t = launch.get(e.get('args', {}).get('correlation'), ns(e['ts']))  # unattributed: its own start
        if in_steps(t):
            gemm_n += 1
            gemm_ns += ns(e['dur'])
fam = [f for f in P['families'] if f['name'] == 'gemm']
gnames = set(P['graphs']['gpu']['names']) if P['graphs']['gpu'] else set()
ok('page-families-drawn', all(f['name'] in gnames for f in P['families']), 'a family the GPU graph does not draw')
ok('page-family-gemm', gemm_n > 0 and len(fam) == 1 and fam[0]['count'] == gemm_n and
   int(Decimal(str(fam[0]['us'])) * 1000) == gemm_ns and sum(int(Decimal(str(k['us'])) * 1000) for k in fam[0]['top']) <= gemm_ns,
   '%s vs %d kernels, %d ns' % (fam, gemm_n, gemm_ns))
# each top gemm kernel's launch configuration (issue 26): its most frequent
# (grid, block, registers, occupancy) over the trace's kernels of that name,
# ties to the longest total time, as the page's "cfg" writes it
def cfg_text(g, b, r, o):
    parts = []
    if g: parts.append('grid %dx%dx%d' % tuple(g))
    if b: parts.append('block %dx%dx%d' % tuple(b))
    if r is not None: parts.append('%d regs' % r)
    if o is not None:
        parts.append(('%s' % Decimal(str(o)).quantize(Decimal('0.001'))).rstrip('0').rstrip('.') + '% occupancy')
    return ', '.join(parts)
cfgs = {}
for e in ev:
    if e.get('ph') == 'X' and e.get('cat') == 'kernel' and isinstance(e.get('dur'), (int, float)):
        a = e.get('args', {})
        g, b = a.get('grid'), a.get('block')
        key = (tuple(g) if isinstance(g, list) and len(g) == 3 else None, tuple(b) if isinstance(b, list) and len(b) == 3 else None,
               a.get('registers per thread'), a.get('est. achieved occupancy %'))
        if key == (None, None, None, None):
            continue
        c = cfgs.setdefault(e['name'], {}).setdefault(key, [0, 0])
        c[0] += 1
        c[1] += ns(e['dur'])
wrong, seen = [], 0
for k in (fam[0]['top'] if fam else []):
    if k['name'] not in cfgs:
        if 'cfg' in k: wrong.append((k['name'], k['cfg'], None))
        continue
    best = max(cfgs[k['name']].items(), key=lambda kv: (kv[1][0], kv[1][1]))[0]
    seen += 1
    if k.get('cfg') != cfg_text(*best):
        wrong.append((k['name'], k.get('cfg'), cfg_text(*best)))
ok('page-family-gemm-launch-config', (seen > 0 or not cfgs) and not wrong, 'checked %d, wrong %s' % (seen, wrong[:3]))
sys.exit(1 if C.bad else 0)
