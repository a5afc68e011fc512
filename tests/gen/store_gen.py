"""store_gen.py -- folded profiles for the release-store tests, with the answers.

Usage: store_gen.py OUTDIR
Writes OUTDIR/{v1a,v1b,v2,v3}.folded (gpu weight, ns, a "# gpuflame:" header with
steps=) with hostile frame names (blanks, markup, quotes, '%', a backslash, a tab,
UTF-8 and invalid UTF-8), OUTDIR/big.folded (a few thousand stacks, for the crash
and concurrency tests) and OUTDIR/expect.json: per file its total, its steps and
its per-step total (total // steps), computed here with exact integers.
"""
import json, os, random, sys

out = sys.argv[1]
rng = random.Random(15)
names = [b'main', b'forward', b'attn <script>&"x"', b'mlp 50%', b'back\\slash', b'tab\there',
         'caf\u00e9 \u2603'.encode(), b'bad \xff\xfe utf8', b'gemm', b'reduce', b'[unattributed]']

def stacks(n, seed):
    r = random.Random(seed)
    s = {}
    for _ in range(n):
        depth = r.randint(1, 5)
        st = b';'.join(r.choice(names) for _ in range(depth))
        s[st] = s.get(st, 0) + r.randint(1, 10**7)
    return s

def write(name, st, steps, header=True):
    with open(os.path.join(out, name), 'wb') as f:
        if header:
            f.write(b'# gpuflame: weight=gpu; unit=ns; steps=%d;\n' % steps)
        for k in sorted(st):
            f.write(k + b' %d\n' % st[k])
    tot = sum(st.values())
    return {'total': tot, 'steps': steps, 'per_step': tot // steps, 'stacks': len(st)}

exp = {}
exp['v1a'] = write('v1a.folded', stacks(40, 1), 4)
exp['v1b'] = write('v1b.folded', stacks(40, 2), 6)
exp['v2'] = write('v2.folded', stacks(45, 3), 5)
exp['v3'] = write('v3.folded', stacks(30, 4), 5)
big = {}
for i in range(6000):
    big[b'root;layer%d;op%d;kernel-%d' % (i % 50, i % 300, i)] = rng.randint(1, 10**6)
exp['big'] = write('big.folded', big, 10)
json.dump(exp, open(os.path.join(out, 'expect.json'), 'w'), indent=1, sort_keys=True)
