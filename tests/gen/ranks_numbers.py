#!/usr/bin/env python3
"""ranks_numbers.py — `gpuflame report` of many ranks (text and Markdown)
says what its JSON ("gpuflame.ranks/1") says: every table parsed by its header
and row key, every number compared with the JSON field it stands for (ms =
us / 1000 rounded half away from zero to 3 decimals, "GPU busy %" = the
share x 100 at 2 decimals, "6 of 6 (100%)" = arrived_last of matched, the
whole percentage), the verdict and Next sentences equal to the JSON's, the
names of ranks to per_rank's; a table, row or number with no JSON
counterpart fails. Stdlib only, exact Decimals.

usage: ranks_numbers.py LIST                      (lines: NAME TEXT MD JSON)
       ranks_numbers.py --selfcheck NAME FMT TEXT JSON
Prints PASS/FAIL lines. --selfcheck alters each digit of the text in turn
(to the next digit) and expects every altered text to fail.
"""
import json
import re
import sys
from decimal import Decimal as D, ROUND_HALF_UP

FIGS = {
    'step wall ms': 'step_wall_us', 'GPU busy ms': 'gpu_busy_us', 'GPU busy %': 'gpu_busy_share',
    'GPU idle ms': 'idle_us', 'sync wait ms': 'sync_wait_us', 'syncs': 'syncs', 'launches': 'launches',
    'kernels': 'kernels', 'NCCL ms': 'comm_us', 'NCCL overlap ms': 'comm_overlap_us',
    'NCCL exposed ms': 'comm_exposed_us', 'coll. wait ms (all steps)': 'collective_wait_us',
    'arrived last (all steps)': 'arrived_last', 'idle: edge ms': 'idle_edge_us', 'idle: sync ms': 'idle_sync_us',
    'idle: host ms': 'idle_host_us', 'idle: untraced ms': 'idle_untraced_us', 'idle: queued ms': 'idle_queued_us',
    'idle: launch ms': 'idle_launch_us',
}
COLUMN_ROWS = {'step wall ms': 'step_wall_us', 'GPU busy ms': 'gpu_busy_us', 'GPU busy %': 'gpu_busy_share',
               'GPU idle ms': 'idle_us', 'sync wait ms': 'sync_wait_us', 'syncs': 'syncs', 'launches': 'launches',
               'kernels': 'kernels', 'NCCL exposed ms': 'comm_exposed_us', 'coll. wait ms': 'collective_wait_us',
               'arrived last': 'arrived_last'}


# the prose lines that may follow a table (text: as indented as its rows)
PROSE = re.compile(r"^  (\d+ steps not shown|\d+ more groups|\d+ matched collectives|Group '|Kernels with)")


class Bad(Exception):
    pass


def ms(us):
    v = (D(us) / 1000).quantize(D('0.001'), ROUND_HALF_UP)
    return str(v.copy_abs() if v == 0 else v)  # gpuflame prints no '-0.000'


def fmt(key, v, unit):
    if v is None:
        return '-'
    if unit == 'us':
        return ms(v)
    if unit == 'share':
        return str((D(v) * 100).quantize(D('0.01'), ROUND_HALF_UP)) + '%'
    return str(v)


def pct_whole(a, b):
    return '-' if b <= 0 else str((D(a) * 100 / D(b)).quantize(D('1'), ROUND_HALF_UP)) + '%'


def expect(what, got, want):
    if got != want:
        raise Bad('%s: printed %r, the JSON says %r' % (what, got, want))


def unmd(s):
    return re.sub(r'\\(.)', r'\1', s).replace('&lt;', '<').replace('&gt;', '>').replace('&amp;', '&')


def parse(text, md):
    """The document as: head lines, verdict, next, and sections [(heading, tables, prose)]."""
    lines = text.split('\n')
    secs, cur = [], None
    head, verdict, nxt = [], None, None
    i = 0
    # prose paragraphs: text wraps with two-blank continuation lines
    while i < len(lines):
        l = lines[i]
        h = None
        if md and l.startswith('### '):
            h = unmd(l[4:])
        elif not md and l and not l.startswith(' ') and i > 0 and lines[i - 1] == '' and not l.startswith(('Verdict:', 'Next:')):
            h = l
            # a heading longer than 100 columns was wrapped: its next line continues it
            while len(lines[i]) >= 70 and i + 1 < len(lines) and lines[i + 1].startswith('  ') \
                    and not re.match(r'^  \S.*\S  +\S', lines[i + 1]):
                i += 1
                h += ' ' + lines[i].strip()
        if h is not None:
            cur = {'heading': h, 'tables': [], 'prose': []}
            secs.append(cur)
            i += 1
            continue
        if l.startswith('Verdict:') or l.startswith('**Verdict:**'):
            v = l.split(' ', 1)[1]
            while not md and i + 1 < len(lines) and lines[i + 1].startswith('  '):
                i += 1
                v += ' ' + lines[i].strip()
            verdict = unmd(v) if md else v
        elif l.startswith('Next:') or l.startswith('**Next:**'):
            v = l.split(' ', 1)[1]
            while not md and i + 1 < len(lines) and lines[i + 1].startswith('  ') and lines[i + 1].strip():
                i += 1
                v += ' ' + lines[i].strip()
            nxt = unmd(v) if md else v
        elif cur is None:
            if l.strip():
                head.append(unmd(l) if md else l)
        elif (md and l.startswith('|')) or (not md and i + 1 < len(lines) and re.match(r'^  -+( +-+)*$', lines[i + 1])):
            rows = []
            if md:
                while i < len(lines) and lines[i].startswith('|'):
                    cells = [unmd(c.strip()) for c in re.split(r'(?<!\\)\|', lines[i].strip())[1:-1]]
                    if not all(re.fullmatch(r':?-+:?', c) for c in cells):
                        rows.append(cells)
                    i += 1
                i -= 1
            else:
                rule = lines[i + 1]
                spans = [(m.start(), m.end()) for m in re.finditer(r'-+', rule)]
                j = i
                while j < len(lines) and lines[j].startswith('  ') and lines[j].strip() and not PROSE.match(lines[j]):
                    if j != i + 1:
                        l2 = lines[j]
                        cells = []
                        for k, (a, b) in enumerate(spans):
                            e = spans[k + 1][0] if k + 1 < len(spans) else len(l2)
                            cells.append(l2[a:e].strip())
                        rows.append(cells)
                    j += 1
                i = j - 1
            cur['tables'].append(rows)
        elif l.strip():
            p = l.strip()
            if md and p.startswith('- '):
                p = p[2:]
            if not md and l.startswith('    ') and cur['prose']:  # a wrapped line goes on
                cur['prose'][-1] += ' ' + p
            else:
                cur['prose'].append(unmd(p) if md else p)
        i += 1
    return head, verdict, nxt, secs


def elided(cell, full, md):
    """full, or (text) the cell that stands for it cut in the middle with '...'."""
    if md or cell == full:
        return full
    h, sep, t = cell.partition('...')
    return cell if sep and full.startswith(h) and full.endswith(t) and len(cell) < len(full) else full


def rank_name(d, k):
    p = d['per_rank'][k]
    return 'rank %d' % p['rank'] if p['rank'] is not None else '#%d (%s)' % (k + 1, p['file'])


def check(text, d, md):
    head, verdict, nxt, secs = parse(text, md)
    title = 'gpuflame report: %d rank%s' % (d['ranks'], '' if d['ranks'] == 1 else 's')
    if d['world_size'] is not None:
        title += ' of world size %d' % d['world_size']
    expect('title', head[0].lstrip('# '), title + ' (never merged)')
    if d['options']:
        expect('options', head[1], 'summarised with ' + d['options'])
    expect('verdict', verdict, d['verdict'])
    expect('next', nxt, d['action'])
    names = {rank_name(d, k): k for k in range(d['ranks'])}
    seen = set()
    known = ('Stragglers by process group (minimum-wait rule over collectives matched by group and sequence number)',
             'Straggler (minimum-wait rule; no process group in the traces: collectives matched by kernel name and order)',
             'Per-rank figures (the steady step of each rank; outlying: beyond 1.5 IQR of the quartiles)',
             'Step wall across ranks (skew; (w) = warm-up on every rank)', 'Verdicts across ranks', 'Ranks (steady step, ms)')
    for s in secs:
        h = s['heading']
        if not h.startswith('The straggler, ') and h not in known:
            raise Bad('a heading the checker does not know: %r' % h)
        if h.startswith('Straggler') or h.startswith('Stragglers'):
            seen.add('groups')
            if not d['groups']:
                expect('no-group line', s['prose'], ['No NCCL collective in the selected steps of any rank.'])
                continue
            rows = s['tables'][0]
            expect('groups header', rows[0], ['group', 'description', 'ranks', 'matched', 'unmatched', 'straggler',
                                              'arrived last', 'others waited ms', 'max wait ms'])
            order = sorted(range(len(d['groups'])), key=lambda g: (-D(d['groups'][g]['waited_us']), g))
            expect('group rows', len(rows) - 1, min(10, len(order)))
            for r, g in zip(rows[1:], order):
                G = d['groups'][g]
                want = ['(all ranks)' if d['fallback_group'] else G['name'], elided(r[1], G['desc'] or '-', md),
                        str(G['members']), str(G['matched']), str(G['unmatched']),
                        rank_name(d, G['straggler']) if G['straggler'] is not None else '-',
                        ('%d of %d (%s%s)' % (G['arrived_last'], G['matched'], pct_whole(G['arrived_last'], G['matched']),
                                              '' if G['clear'] else ', not clear')) if G['straggler'] is not None else '-',
                        ms(G['waited_us']) if G['straggler'] is not None else '-', ms(G['max_wait_us'])]
                expect('group %s' % G['name'], r, want)
            for p in s['prose']:
                m = re.fullmatch(r"(\d+) more groups \(fewer others waiting\); the JSON lists every group\.", p)
                if m:
                    expect('more groups', int(m.group(1)), len(order) - 10)
                    continue
                m = re.fullmatch(r"(?:Group '(.*)': )?(\d+) matched collectives differ in name or size across ranks "
                                 r"\(the first: seq (-?\d+), (.*) arrived last\): a desynchronised collective\.", p)
                if not m:
                    raise Bad('groups: a sentence the checker does not know: %r' % p)
                G = [x for x in d['groups'] if d['fallback_group'] or x['name'] == m.group(1)][0]
                expect('mismatched', (int(m.group(2)), int(m.group(3)), m.group(4)),
                       (G['mismatched'], G['mismatch']['seq'], rank_name(d, G['mismatch']['index'])))
        elif h.startswith('Per-rank figures'):
            seen.add('figures')
            rows = s['tables'][0]
            expect('figures header', rows[0], ['figure', 'ranks', 'min', 'median', 'p90', 'max', 'outlying ranks'])
            figs = {f['figure']: f for f in d['figures']}
            want_rows = [l for l, k in FIGS.items() if figs[k]['ranks'] > 0]
            expect('figure rows', [r[0] for r in rows[1:]], want_rows)
            for r in rows[1:]:
                f = figs[FIGS[r[0]]]
                u = f['unit']
                outl = ', '.join('%s (%s)' % (rank_name(d, k), fmt(f['figure'], d['per_rank'][k][f['figure']], u))
                                 for k in f['outliers'][:3])
                if len(f['outliers']) > 3:
                    outl += ', %d more' % (len(f['outliers']) - 3)
                want = [r[0], str(f['ranks']), fmt(0, f['min'], u), fmt(0, f['median'], u), fmt(0, f['p90'], u),
                        fmt(0, f['max'], u), outl or '-']
                if not md and len(want[6]) > 80:  # the text column is cut at 80 code points
                    want[6] = r[6] if r[6].endswith('...') and want[6].startswith(r[6][:-3]) else want[6]
                expect('figure %s' % r[0], r, want)
        elif h.startswith('Step wall across ranks'):
            seen.add('steps')
            rows = s['tables'][0]
            expect('steps header', rows[0], ['step', 'ranks', 'min ms', 'median ms', 'max ms', 'spread ms', 'slowest'])
            byidx = {}
            for st in d['steps']:
                byidx['(trace)' if st['index'] is None else str(st['index']) + (' (w)' if st['warmup_ranks'] == st['ranks'] else '')] = st
            for r in rows[1:]:
                st = byidx.get(r[0])
                if st is None:
                    raise Bad('step %r: not in the JSON' % r[0])
                expect('step %s' % r[0], r[1:], [str(st['ranks']), ms(st['min_us']), ms(st['median_us']), ms(st['max_us']),
                                                  ms(st['spread_us']), rank_name(d, st['slowest'])])
            shown = len(rows) - 1
            for p in s['prose']:
                m = re.fullmatch(r'(\d+) steps not shown \(the first (\d+) and the last (\d+) are; --max-steps N shows more, '
                                 r'the JSON has every step\)\.', p)
                if not m:
                    raise Bad('steps: a sentence the checker does not know: %r' % p)
                expect('steps not shown', (int(m.group(1)), int(m.group(2)) + int(m.group(3))), (len(d['steps']) - shown, shown))
            if not s['prose']:
                expect('steps shown', shown, len(d['steps']))
        elif h == 'Verdicts across ranks':
            seen.add('verdicts')
            other = sum(v['ranks'] for v in d['verdicts'][5:])
            want = ['%s: %d rank%s (e.g. %s)' % (v['cause'] or 'no verdict', v['ranks'], '' if v['ranks'] == 1 else 's',
                                                 rank_name(d, v['example'])) for v in d['verdicts'][:5]]
            if other:
                want.append('other verdicts: %d ranks' % other)
            expect('verdicts', s['prose'], want)
        elif h.startswith('The straggler, '):
            seen.add('compare')
            c = d['straggler_vs_median']
            a, b = c['straggler'], c['median']
            expect('compare heading', h, 'The straggler, %s, against the median rank of its group, %s' % (rank_name(d, a), rank_name(d, b)))
            rows = s['tables'][0]
            expect('compare header', rows[0], ['figure', rank_name(d, a), rank_name(d, b), 'difference'])
            keys = {'step wall ms': 'step_wall_us', 'GPU busy ms': 'gpu_busy_us', 'GPU idle ms': 'idle_us',
                    'sync wait ms': 'sync_wait_us', 'NCCL exposed ms': 'comm_exposed_us',
                    'coll. wait ms (all steps)': 'collective_wait_us'}
            for r in rows[1:]:
                k = keys[r[0]]
                x, y = d['per_rank'][a][k], d['per_rank'][b][k]
                expect('compare %s' % r[0], r[1:], [fmt(0, x, 'us'), fmt(0, y, 'us'),
                                                    '-' if x is None or y is None else ms(D(x) - D(y))])
            expect('compare prose', s['prose'], ["Kernels with the most extra GPU time per step (among each rank's top kernels):"]
                   if c['kernels'] else [])
            if len(s['tables']) > 1:
                rows = s['tables'][1]
                expect('kernels header', rows[0], ['kernel', rank_name(d, a) + ' ms/step', rank_name(d, b) + ' ms/step', 'difference'])
                expect('kernels rows', len(rows) - 1, len(c['kernels']))
                for r, kk in zip(rows[1:], c['kernels']):
                    nm = r[0]
                    if not md and nm != kk['name']:
                        h2, _, t2 = nm.partition('...')
                        if not (kk['name'].startswith(h2) and kk['name'].endswith(t2)):
                            raise Bad('kernel %r is not %r' % (nm, kk['name']))
                    elif md:
                        expect('kernel name', nm, kk['name'])
                    expect('kernel %s' % kk['name'][:30], r[1:], [ms(kk['straggler_per_step_us']), ms(kk['median_per_step_us']),
                                                                  ms(D(kk['straggler_per_step_us']) - D(kk['median_per_step_us']))])
        elif h.startswith('Ranks (steady step'):
            seen.add('columns')
            rows = s['tables'][0]
            expect('columns header', rows[0], ['per rank'] + ['#%d' % (k + 1) for k in range(d['ranks'])])
            figs = {f['figure']: f['unit'] for f in d['figures']}
            for r in rows[1:]:
                for k, cell in enumerate(r[1:]):
                    p = d['per_rank'][k]
                    if r[0] == 'file':
                        base = p['file'].rsplit('/', 1)[-1]
                        ok = cell == base or (cell.startswith('...') and base.endswith(cell[3:]) and len(base) > 16)
                        if not ok:
                            raise Bad('file of #%d: %r for %r' % (k + 1, cell, base))
                    elif r[0] == 'rank':
                        expect('rank of #%d' % (k + 1), cell, '-' if p['rank'] is None else str(p['rank']))
                    elif r[0] == 'steps (warm-up)':
                        expect('steps of #%d' % (k + 1), cell, '%d (%d)' % (p['steps'], p['warmup_steps']))
                    elif r[0] == 'verdict':
                        expect('verdict of #%d' % (k + 1), cell, p['verdict_cause'] or '-')
                    else:
                        key = COLUMN_ROWS[r[0]]
                        expect('%s of #%d' % (r[0], k + 1), cell, fmt(key, p[key], figs[key]))
        else:
            raise Bad('a section the checker does not know: %r' % h)
    want = {'groups', 'figures', 'steps', 'verdicts'}
    if d['straggler_vs_median']:
        want.add('compare')
    if d['ranks'] <= 6:
        want.add('columns')
    expect('sections', sorted(seen), sorted(want))


def run(name, fmt_, path, d):
    try:
        check(open(path, encoding='utf-8').read(), d, fmt_ == 'md')
        print('PASS ranks-numbers-%s-%s' % (name, fmt_))
        return True
    except (Bad, KeyError, IndexError, ValueError) as e:
        print('FAIL ranks-numbers-%s-%s: %s' % (name, fmt_, e))
        return False


def main():
    if sys.argv[1] == '--selfcheck':
        name, fmt_, tpath, jpath = sys.argv[2:6]
        d = json.load(open(jpath), parse_float=D)
        text = open(tpath, encoding='utf-8').read()
        digits = [i for i, c in enumerate(text) if c.isdigit()]
        missed = []
        for i in digits:
            t2 = text[:i] + str((int(text[i]) + 1) % 10) + text[i + 1:]
            try:
                check(t2, d, fmt_ == 'md')
                missed.append(i)
            except (Bad, KeyError, IndexError, ValueError):
                pass
        if missed:
            print('FAIL ranks-numbers-selfcheck-%s-%s: %d of %d altered digits not caught (at %s)'
                  % (name, fmt_, len(missed), len(digits), '; '.join(repr(text[max(0, i - 30):i + 10]) for i in missed[:5])))
        else:
            print('PASS ranks-numbers-selfcheck-%s-%s: all %d altered digits caught' % (name, fmt_, len(digits)))
        return
    for line in open(sys.argv[1]):
        name, t, m, j = line.rstrip('\n').split('\t')
        d = json.load(open(j), parse_float=D)
        run(name, 'text', t, d)
        run(name, 'md', m, d)


if __name__ == '__main__':
    main()
