"""pyroscope_pprof.py -- checks a `push --format pprof` request against Pyroscope's pprof ingest rules.

Usage: pyroscope_pprof.py LOG INDEX OUT APP MAX_SAMPLES TYPES [KEY=VALUE...]
Request INDEX of LOG (tests/gen/pyroscope_recv.py) must be what Grafana Pyroscope's
POST /ingest?format=pprof takes and stores as sent (read from its sources:
pkg/og/convert/pprof/profile.go ParseToPprof, metricName, fixTime; pkg/validation:
max_profile_stacktrace_samples 16000, reject_older_than 1h, reject_newer_than 10m;
the distributor keeps a sample label only with a string value):
  - POST /ingest with name=APP{...}, from < until (integers), format=pprof;
  - a gzip'd profile.proto: string_table[0] == "", sample types TYPES (comma list, in
    order; their unit "nanoseconds" or "count"), each sample with one value per type and
    its location ids defined; at most MAX_SAMPLES samples;
  - every sample label a string (key and str, no num): a numeric label is dropped;
  - time_nanos set (0 or 1970 would be replaced by `from`), within [now - 1 h, now + 10 min];
  - the name's labels hold every KEY=VALUE given (service_name = APP);
  - a total:TYPE=N argument: the values of TYPE sum to N (exact, "[other]" included).
The body is written to OUT (for `go tool pprof`). Prints "ok" or the first broken rule.
"""
import gzip, json, os, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pprof_totals import fields, values  # noqa: E402 -- the one protobuf decoder of the tests

log, idx, out, app, maxs, types = sys.argv[1:7]
want_labels = dict(kv.split('=', 1) for kv in sys.argv[7:] if not kv.startswith('total:'))
want_totals = {kv[6:].split('=')[0]: int(kv.split('=')[1]) for kv in sys.argv[7:] if kv.startswith('total:')}
idx, maxs, types = int(idx), int(maxs), types.split(',')
req = [json.loads(l) for l in open(log)][idx]


def die(m):
    print(m)
    sys.exit(0)


q = {k: v[0] for k, v in req['query'].items()}
if req['path'] != '/ingest':
    die('path %r' % req['path'])
if q.get('format') != 'pprof':
    die('format %r' % q.get('format'))
for k in ('name', 'from', 'until'):
    if k not in q:
        die('no %s' % k)
if not (q['from'].isdigit() and q['until'].isdigit() and int(q['from']) < int(q['until'])):
    die('from/until %r %r' % (q['from'], q['until']))
base, _, labels = q['name'].partition('{')
if base != app or not labels.endswith('}'):
    die('name %r' % q['name'])
got = dict(kv.split('=', 1) for kv in labels[:-1].split(',') if kv)
for k, v in want_labels.items():
    if got.get(k) != v:
        die('label %s=%r, expected %r (name %r)' % (k, got.get(k), v, q['name']))

body = req['body'].encode('latin-1')
open(out, 'wb').write(body)
try:
    raw = gzip.decompress(body)
    msg = list(fields(raw))
except Exception as e:  # noqa: BLE001 -- any decoding failure is a broken rule
    die('not a gzip\'d profile.proto: %s' % e)
strs = [v for f, w, v in msg if f == 6]
if not strs or strs[0] != b'':
    die('string_table[0] is not ""')
stypes = []
for f, w, v in msg:
    if f == 1:
        d = {ff: vv for ff, _, vv in fields(v)}
        stypes.append((strs[d.get(1, 0)].decode(), strs[d.get(2, 0)].decode()))
if [t for t, _ in stypes] != types:
    die('sample types %r, expected %r' % (stypes, types))
if any(u not in ('nanoseconds', 'count') for _, u in stypes):
    die('units %r' % stypes)
locs = {dict((ff, vv) for ff, _, vv in fields(v)).get(1) for f, w, v in msg if f == 4}
samples = [v for f, w, v in msg if f == 2]
sums = [0] * len(types)
if len(samples) > maxs:
    die('%d samples, over the cap of %d' % (len(samples), maxs))
for s in samples:
    vals, ids = [], []
    for f, w, v in fields(s):
        if f == 1:
            ids += values(w, v)
        elif f == 2:
            vals += values(w, v)
        elif f == 3:
            lab = {ff: vv for ff, _, vv in fields(v)}
            if 3 in lab or 2 not in lab:
                die('label %r has no string value: Pyroscope drops it' % strs[lab.get(1, 0)])
    if len(vals) != len(types):
        die('a sample with %d values for %d types' % (len(vals), len(types)))
    sums = [a + b for a, b in zip(sums, vals)]
    if not ids or any(i not in locs for i in ids):
        die('a sample with undefined locations %r' % ids)
for t, n in want_totals.items():
    if sums[types.index(t)] != n:
        die('%s sums to %d, expected %d' % (t, sums[types.index(t)], n))
tn = [v for f, w, v in msg if f == 9]
now = time.time_ns()
if not tn or tn[0] == 0 or time.gmtime(tn[0] // 10**9).tm_year == 1970:
    die('no time_nanos: Pyroscope would use from')
if not now - 3600 * 10**9 <= tn[0] <= now + 600 * 10**9:
    die('time_nanos %d outside the ingestion window (now - 1 h, now + 10 min)' % tn[0])
print('ok')
