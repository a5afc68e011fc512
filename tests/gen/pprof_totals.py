"""pprof_totals.py -- the total of each sample type of a gzip'd pprof profile.

Usage: pprof_totals.py PROFILE.pb.gz
       pprof_totals.py --folded < FOLDED
Prints "TYPE=SUM" per sample type, in order, read with a protobuf decoder of its own
(profile.proto's Profile.sample_type, Sample.value, string_table; packed or not); with
--folded, the sum of the folded lines on stdin (a comment is '#' then a blank or the
line's end: "## forward ##;..." is a stack), 0 for none.
"""
import gzip, sys


def varint(b, i):
    v = s = 0
    while True:
        if i >= len(b):
            raise ValueError('truncated varint')
        c = b[i]
        i += 1
        v |= (c & 127) << s
        s += 7
        if not c & 128:
            return v, i


def fields(b):
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        if key & 7 == 0:
            v, i = varint(b, i)
        elif key & 7 == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
            if i > len(b):
                raise ValueError('truncated')
        else:
            raise ValueError('wire type %d' % (key & 7))
        yield key >> 3, key & 7, v


def values(w, v):
    if w == 0:
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = varint(v, i)
        out.append(x - (1 << 64) if x >> 63 else x)
    return out


def main():
    if sys.argv[1] == '--folded':
        total = 0
        for line in sys.stdin.buffer:
            line = line.rstrip(b'\n')
            if not line or (line[:1] == b'#' and (len(line) == 1 or line[1:2] in b' \t')):
                continue
            total += int(line.rsplit(b' ', 1)[1])
        print(total)
        return
    msg = list(fields(gzip.decompress(open(sys.argv[1], 'rb').read())))
    strs = [v for f, w, v in msg if f == 6]
    types = [strs[dict((ff, vv) for ff, _, vv in fields(v)).get(1, 0)].decode() for f, w, v in msg if f == 1]
    sums = [0] * len(types)
    for f, w, v in msg:
        if f == 2:
            vals = []
            for ff, ww, vv in fields(v):
                if ff == 2:
                    vals += values(ww, vv)
            sums = [a + b for a, b in zip(sums, vals)]
    print(' '.join('%s=%d' % kv for kv in zip(types, sums)))


if __name__ == '__main__':
    main()
