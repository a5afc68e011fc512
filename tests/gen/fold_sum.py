#!/usr/bin/env python3
"""fold_sum.py — folded stacks summed per stack and sorted by bytes, as
stackcollapse-perf.pl prints them ("stack count" lines; integer counts).

  fold_sum.py [--cut-args] FILE   (stdin when FILE is '-')

--cut-args applies stackcollapse-perf.pl's argument-list cut to every frame
(from the first '(' that does not open "(anonymous namespace)"), used to
compare inferno's frames, which keep C++ template argument lists, with perl's.
"""
import re
import sys

args = sys.argv[1:]
cut = '--cut-args' in args
args = [a for a in args if a != '--cut-args']
src = sys.stdin.buffer if not args or args[0] == '-' else open(args[0], 'rb')
sums = {}
for line in src:
    line = line.rstrip(b'\n')
    if not line:
        continue
    stack, w = line.rsplit(b' ', 1)
    if cut:
        stack = b';'.join(re.sub(rb'\((?!anonymous namespace\)).*', b'', f) for f in stack.split(b';'))
    sums[stack] = sums.get(stack, 0) + int(w)
out = sys.stdout.buffer
for s in sorted(sums):
    out.write(s + b' ' + str(sums[s]).encode() + b'\n')
