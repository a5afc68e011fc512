#!/usr/bin/env python3
"""check_kinds_svg.py — every frame of a `gpuflame fold --kinds` text is drawn
by `gpuflame svg` in the colour range of its kind (the gpu palette's ranges,
docs/svg.md), with its name shown without the suffix.

  check_kinds_svg.py FOLDED SVG    -> "ok N frames", or the first mismatch

The kind of each frame comes from the folded text (its "_[xx]" suffix); the
colour from the SVG's <rect fill> next to the <title> naming the frame.
"""
import re
import sys

# (r, g, b) ranges of palette_gpu_rgb per class: lo..hi inclusive
R = {
    'python': ((90, 140), (190, 235), (80, 120)),
    'module': ((50, 100), (170, 215), (170, 215)),
    'aten': ((215, 245), (205, 235), (60, 90)),
    'runtime': ((235, 255), (130, 170), (20, 50)),
    'gemm': ((40, 80), (80, 120), (200, 245)),
    'attn': ((120, 155), (80, 110), (210, 250)),
    'comm': ((150, 185), (110, 140), (60, 85)),
    'triton': ((70, 105), (150, 180), (230, 255)),
    'copy': ((130, 160), (145, 175), (165, 195)),
    'kother': ((140, 180), (180, 210), (240, 255)),
    'sync': ((225, 255), (0, 0), (20, 40)),
    'other': ((220, 245), (205, 230), (180, 205)),
}
KIND = {'an': ['other'], 'py': ['python'], 'mo': ['module'], 'op': ['aten', 'sync'], 'la': ['runtime'],
        'sy': ['sync'], 'ke': ['gemm', 'attn', 'comm', 'triton', 'copy', 'kother']}

kinds = {}
for line in open(sys.argv[1], encoding='utf-8', errors='replace'):
    if line.startswith('#') and (len(line) < 2 or line[1] in ' \t\n'):
        continue
    stack = line.rstrip('\n').rsplit(' ', 1)[0]
    for f in stack.split(';'):
        m = re.match(r'^(.*)_\[(an|py|mo|op|la|sy|ke)\]$', f, re.S)
        if m:
            kinds.setdefault(m.group(1), set()).add(m.group(2))

svg = open(sys.argv[2], encoding='utf-8').read()
unesc = lambda s: s.replace('&lt;', '<').replace('&gt;', '>').replace('&quot;', '"').replace('&apos;', "'").replace('&amp;', '&')
n = 0
for m in re.finditer(r'<title>(.*?) \([\d,.]+ [^,]*, [\d.]+%\)(?:&#10;[^<]*)?</title><rect [^>]*fill="rgb\((\d+),(\d+),(\d+)\)"', svg):
    name = unesc(m.group(1))
    if name == 'all' or name.startswith('[') or name.startswith('thread ('):
        continue  # the root, markers and thread frames have no kind
    rgb = tuple(int(m.group(i)) for i in (2, 3, 4))
    ks = kinds.get(name)
    if not ks:
        print('frame %r has no kind in the folded text' % name)
        sys.exit(1)
    ok = any(all(lo <= c <= hi for c, (lo, hi) in zip(rgb, R[cls])) for k in ks for cls in KIND[k])
    if not ok:
        print('frame %r of kind %s drawn rgb%s, outside %s' % (name, sorted(ks), rgb, [KIND[k] for k in ks]))
        sys.exit(1)
    n += 1
print('ok %d frames' % n)
