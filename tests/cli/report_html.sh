#!/usr/bin/env bash
# report_html.sh — `report --format html` and `diff --format html` as a user
# runs them: the page's data against independent computations
# (tests/gen/page_check.py: the embedded report equals --format json, the
# graphs equal fold's stacks and are pruned as documented, calls and the gemm
# family from the raw trace), one file all or nothing, usage errors, --help.
# The page in a browser: tests/browser/page_test.mjs.
. "$(dirname "$0")/lib.sh"
dec=examples/decode-sync.json.gz
check_page() { # name trace [exact]
  local name=$1 tr=$2
  gf report --format html -o "$T/$name.html" "$tr"; expect_rc "html-$name-rc" 0
  "$GF" report --format json "$tr" >"$T/$name.json" 2>/dev/null
  for w in gpu cpu wall idle; do "$GF" fold -w "$w" -o "$T/$name.$w" "$tr" 2>/dev/null; done
  python3 tests/gen/page_check.py "$T/$name.html" "$T/$name.json" "$tr" "$T/$name.gpu" "$T/$name.cpu" \
    "$T/$name.wall" "$T/$name.idle" ${3:-} | sed "s/^\(PASS\|FAIL\) /\1 html-$name-/"
}
check_page decode "$dec" exact
# the step timeline against the raw trace and the independent gap model (tests/gen/timeline_check.py)
check_timeline() { # name trace [--steps N,M | --median] [report options...]
  local name=$1 tr=$2 how=$3; shift 3
  gf report --format html "$@" -o "$T/tl-$name.html" "$tr"; expect_rc "timeline-$name-rc" 0
  "$GF" report --format json "$@" -o "$T/tl-$name.json" "$tr" 2>/dev/null
  python3 tests/gen/gapmodel.py "$tr" >"$T/tl-$name.gm" 2>/dev/null || echo '{"steps": []}' >"$T/tl-$name.gm"
  if [ "$how" = --median ]; then set -- --median "$T/tl-$name.json"; else set -- "$how"; fi
  python3 tests/gen/timeline_check.py "$T/tl-$name.html" "$tr" "$T/tl-$name.gm" "$@" | sed "s/^\(PASS\|FAIL\) /\1 html-$name-/"
}
check_timeline decode "$dec" --median
check_timeline decode-asked "$dec" "--steps=3,5,6,7" --timeline 3,5..7

# one vocabulary: the page's tabs are titled as `gpuflame svg` titles the same weight's fold, its
# causes are the report JSON's gap fields in the order the JSON writes them
for w in gpu cpu wall idle; do "$GF" fold -w "$w" "$dec" 2>/dev/null | "$GF" svg >"$T/vocab.$w.svg"; done
"$GF" report --format html -o "$T/vocab.html" "$dec" 2>/dev/null
python3 - "$T/vocab.html" "$T/vocab" <<'PY' && pass html-vocab || fail html-vocab "the page's vocabulary differs from svg's titles or the JSON's causes"
import json, re, sys
s = open(sys.argv[1], encoding='utf-8').read()
d = json.loads(re.search(r'id="gf-data">(.*?)</script>', s, re.S).group(1))
v = d['vocab']
assert [w['key'] for w in v['weights']] == ['gpu', 'cpu', 'wall', 'idle'], v['weights']
for w in v['weights']:
    svg = open('%s.%s.svg' % (sys.argv[2], w['key']), encoding='utf-8').read()
    title = re.search(r'<text id="title"[^>]*>([^<]*)<', svg).group(1)
    assert title == w['title'], (w, title)
row = d['report']['gaps']
fields = [k for k in row if k.endswith('_us') and not k.startswith('hta_')]
assert [c['json'] for c in v['causes']] == fields, (v['causes'], fields)
assert all(c['key'] + '_us' == c['json'] and c['color'].startswith('#') and c['pattern'] for c in v['causes'])
keyed = [c['keys'] for c in v['causes'] if 'keys' in c]
# the key tables (gaps.classes, issue 24's idle by cause and class, is no cause's key table)
assert keyed == [k for k in row if isinstance(row[k], list) and k != 'classes'], keyed
# the classes of host work: the keys issue 24 specifies (causes.h), each with a label
assert [c['key'] for c in v['classes']] == ['allocator', 'warmup', 'data', 'python', 'sync', 'launch', 'other'], v['classes']
assert all(c['label'] for c in v['classes'])
# every (cause, class) row of the JSON names a cause and a class of the vocabulary
assert row['classes'] and all(r['cause'] in [c['key'] for c in v['causes']] and
                              r['class'] in [c['key'] for c in v['classes']] for r in row['classes']), row['classes']
PY
if need_shared "html-corpus"; then
  check_page qwen "$GF_SHARED/corpus/traces/tracelens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
  check_timeline qwen "$GF_SHARED/corpus/traces/tracelens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz" --median
  check_timeline nccl "$GF_SHARED/corpus/traces/hta/nccl_parser_config/nccl_data.json.gz" --median
  check_timeline rank0 "$GF_SHARED/corpus/traces/hta/trace_filter/sampled_rank-0.json.gz" --median
  r0=$GF_SHARED/corpus/traces/hta/trace_filter/sampled_rank-0.json.gz
  r1=$GF_SHARED/corpus/traces/hta/trace_filter/sampled_rank-1.json.gz
  gf report --format html -o "$T/ranks.html" "$r0" "$r1"; expect_rc "html-ranks-rc" 0
  "$GF" report --format json "$r0" "$r1" >"$T/ranks.json"
  "$GF" report --format json "$r0" >"$T/rank0.json"
  "$GF" report --format json "$r1" >"$T/rank1.json"
  python3 - "$T/ranks.html" "$T/ranks.json" "$T/rank0.json" "$T/rank1.json" <<'PY' && pass html-ranks-data || fail html-ranks-data "page data of two ranks"
import json, re, sys
s = open(sys.argv[1], encoding='utf-8').read()
d = json.loads(re.search(r'id="gf-data">(.*?)</script>', s, re.S).group(1))
r = json.load(open(sys.argv[2]))
one = [json.load(open(p)) for p in sys.argv[3:]]
# the page elides strings over 1000 bytes (these traces' kernel names) and keeps them in full_names
full = dict(d.pop('full_names', []))
def unelide(x):
    if isinstance(x, dict): return {k: unelide(v) for k, v in x.items()}
    if isinstance(x, list): return [unelide(v) for v in x]
    return full.get(x, x) if isinstance(x, str) else x
d = unelide(d)
# the page embeds the ranks JSON; the ranks shown in full embed their own report, exactly
assert d['kind'] == 'ranks' and d['report'] == r and len(r['per_rank']) == 2
assert 1 <= len(d['ranks']) <= 2 and all(k['report'] in one and k['page']['graphs']['gpu'] for k in d['ranks'])
assert [r['per_rank'][k['index']]['file'] for k in d['ranks']] == [k['report']['file'] for k in d['ranks']]
PY
fi

# one file, all or nothing; stdout works; the page is self-contained
gf report --format html "$dec"; expect_rc "html-stdout" 0
expect_grep "html-stdout-doctype" '^<!DOCTYPE html>' "$T/out"
if python3 -c "
import re, sys
s = open(sys.argv[1], encoding='utf-8').read()
urls = set(re.findall(r'[a-z]+://[^\s\'\"]*', s))
sys.exit(0 if urls <= {'http://www.w3.org/2000/svg'} and not re.search(r'<(link|img|iframe|object|embed)\b|\s(src|href)=|@import|url\((?!#)', s) else 1)
" "$T/out"; then pass "html-no-remote"; else fail "html-no-remote" "a URL, link or remote load in the page"; fi
expect_grep "html-csp" "Content-Security-Policy\" content=\"default-src 'none'; script-src 'sha256-" "$T/out"
gf report --format html -o "$T/nodir/x.html" "$dec"; expect_rc "html-unwritable" 3
printf '{"traceEvents": [{"ph": "X", "ts": }' >"$T/cut.json"
gf report --format html -o "$T/cut.html" "$T/cut.json"
if [ "$rc" -ne 0 ] && [ ! -e "$T/cut.html" ]; then pass "html-bad-input-no-file"; else fail "html-bad-input-no-file" "rc $rc"; fi

# --timeline: the steps asked for, none, and one-line usage errors (exit 2)
gf report --format html --timeline none -o "$T/tn.html" "$dec"; expect_rc "timeline-none-rc" 0
python3 - "$T/tn.html" <<'PY' && pass timeline-none || fail timeline-none "a timeline embedded"
import json, re, sys
d = json.loads(re.search(r'id="gf-data">(.*?)</script>', open(sys.argv[1], encoding='utf-8').read(), re.S).group(1))
assert d['ranks'][0]['timeline'] == []
PY
gf report --format html --timeline 3,x -o "$T/tx.html" "$dec"; expect_rc "timeline-bad-rc" 2
expect_grep "timeline-bad-msg" "invalid argument for '--timeline'; expected median, none, or step numbers" "$T/err"
gf report --format html --timeline 99 -o "$T/tx.html" "$dec"; expect_rc "timeline-absent-rc" 2
expect_grep "timeline-absent-msg" "no selected step numbered 99 .the selected steps are numbered 3\.\.8" "$T/err"
gf report --format html --timeline 1,2,3,4,5,6,7,8,9 -o "$T/tx.html" "$dec"; expect_rc "timeline-too-many-rc" 2
expect_grep "timeline-too-many-msg" "at most 8 steps" "$T/err"
gf report --format html --steps 3..4 --timeline 6 -o "$T/tx.html" "$dec"; expect_rc "timeline-unselected-rc" 2
# several ranks (traces or summaries) have the ranks page, which draws no step timeline: refused
gf report --format html --timeline median -o "$T/tx.html" "$dec" "$dec"; expect_rc "timeline-ranks-rc" 2
expect_grep "timeline-ranks-msg" "^gpuflame report: --timeline draws the steps of one trace; the page of several ranks has no step timeline" "$T/err"
gf report --from-summaries --format html --timeline 3 -o "$T/tx.html" "$T"; expect_rc "timeline-summaries-rc" 2
expect_grep "timeline-summaries-msg" "--timeline draws the steps of one trace" "$T/err"
if [ ! -e "$T/tx.html" ]; then pass "timeline-errors-no-file"; else fail "timeline-errors-no-file" "a page was written"; fi
if need_shared "html-timeline-whole"; then
  whole=$GF_SHARED/corpus/traces/tracelens/inference/vllm_decode_full/graph_execution.json.gz
  gf report --format html -o "$T/tw.html" "$whole"; expect_rc "timeline-whole-rc" 0
  python3 - "$T/tw.html" <<'PY' && pass timeline-whole-trace || fail timeline-whole-trace "no whole-trace timeline"
import json, re, sys
d = json.loads(re.search(r'id="gf-data">(.*?)</script>', open(sys.argv[1], encoding='utf-8').read(), re.S).group(1))
t = d['ranks'][0]['timeline']
assert len(t) == 1 and t[0]['step'] is None and t[0]['wall'] > 0 and any(L['kind'] == 'idle' for L in t[0]['lanes'])
PY
  gf report --format html --timeline 3 -o "$T/tx.html" "$whole"; expect_rc "timeline-whole-asked-rc" 2
  expect_grep "timeline-whole-asked-msg" "the trace has no steps: its timeline is the whole trace" "$T/err"
fi

# pages that were unbounded (issue 22): bounded by what they draw
for m in families longnames deep; do
  python3 tests/gen/gen_page_stress.py $m "$T/s_$m.json"
  gf report --format html -o "$T/s_$m.html" "$T/s_$m.json"; expect_rc "html-stress-$m-rc" 0
done
"$GF" fold -w wall -o "$T/s_deep.wall" "$T/s_deep.json" 2>/dev/null
python3 - "$T" <<'PY' | sed 's/^/  /' ; [ "${PIPESTATUS[0]}" -eq 0 ] && pass html-stress-bounded || fail html-stress-bounded "see above"
import json, os, re, sys
T = sys.argv[1]
def data(p):
    return json.loads(re.search(r'id="gf-data">(.*?)</script>', open(p, encoding='utf-8').read(), re.S).group(1))
bad = []
# 100k kernel families, 2 drawn frames: the page lists the drawn ones only
s = os.path.getsize(T + '/s_families.html'); d = data(T + '/s_families.html')
fams = d['ranks'][0]['families']
if s > 512 * 1024 or [f['name'] for f in fams] != ['gemm']: bad.append('families: %d bytes, %d families' % (s, len(fams)))
# two 10 MB names: elided, their full text over the budget, every string short
s = os.path.getsize(T + '/s_longnames.html'); d = data(T + '/s_longnames.html')
def strings(o):
    if isinstance(o, str): yield o
    elif isinstance(o, list):
        for x in o: yield from strings(x)
    elif isinstance(o, dict):
        for x in o.values(): yield from strings(x)
long_ = [x for x in strings(d) if len(x.encode()) > 1200]
el = [x for x in strings(d) if '(10485760 bytes, middle elided)' in x]
if s > 512 * 1024 or long_ or 'full_names' in d or not el or not all(x.startswith('A' * 300) or x.startswith('B' * 300) or ' … (10485760 bytes' in x for x in el):
    bad.append('longnames: %d bytes, %d long strings, %d elided' % (s, len(long_), len(el)))
# 40,000-deep stacks: a few dozen rows, exact totals (the wall tree's root = fold's total)
s = os.path.getsize(T + '/s_deep.html'); d = data(T + '/s_deep.html')
tot = 0
ns_unit = False  # fold's header names its unit: integer ns (issue 26's default) or us with 3 decimals
for line in open(T + '/s_deep.wall'):
    if line.startswith('#'): ns_unit = ns_unit or 'unit=ns' in line; continue
    if not line.strip(): continue
    v = line.rsplit(' ', 1)[1].strip()
    if ns_unit: tot += int(v); continue
    a, _, b = v.partition('.'); tot += int(a) * 1000 + int((b + '000')[:3])
for k, g in d['ranks'][0]['graphs'].items():
    if not g: continue
    dep = [0] * len(g['p'])
    for i in range(1, len(g['p'])): dep[i] = dep[g['p'][i]] + 1
    if max(dep) > 40 or g['collapsed'] < 39000: bad.append('deep %s: depth %d, collapsed %d' % (k, max(dep), g['collapsed']))
if d['ranks'][0]['graphs']['wall']['total'] != tot: bad.append('deep wall total %s vs fold %d' % (d['ranks'][0]['graphs']['wall']['total'], tot))
if s > 512 * 1024: bad.append('deep: %d bytes' % s)
if bad: print('\n'.join(bad))
sys.exit(1 if bad else 0)
PY
python3 tests/gen/gen_page_stress.py longnames "$T/s_5k.json" 5000
gf report --format html -o "$T/s_5k.html" "$T/s_5k.json"
python3 - "$T/s_5k.html" <<'PY' && pass html-longname-full-kept || fail html-longname-full-kept "the 5000-byte names are not in full_names"
import json, re, sys
d = json.loads(re.search(r'id="gf-data">(.*?)</script>', open(sys.argv[1], encoding='utf-8').read(), re.S).group(1))
full = dict(d['full_names'])
# both names, and every longer string that holds one (the report's host stack and verdict path
# name the frame too: "[no Python frame] > AAA...", "[host];[python];AAA..."), each kept whole
vals = list(full.values())
assert 'A' * 5000 in vals and 'B' * 5000 in vals, sorted(len(v) for v in vals)
assert all('A' * 5000 in v or 'B' * 5000 in v for v in vals), sorted(len(v) for v in vals)
assert all(k.startswith(v[:300]) and k.endswith(v[-300:]) and '(%d bytes, middle elided)' % len(v.encode()) in k
           for k, v in full.items())
PY
# Object.prototype names in every slot: the page data is the JSON report's, names kept as they are
for k in 0 1; do
  python3 tests/gen/gen_proto_page.py "$dec" "$T/__proto__$k.json" $((k * 7))
  gf report --format html --step-marker valueOf -o "$T/proto$k.html" "$T/__proto__$k.json"; expect_rc "html-proto$k-rc" 0
  "$GF" report --format json --step-marker valueOf "$T/__proto__$k.json" >"$T/proto$k.json"
  python3 - "$T/proto$k.html" "$T/proto$k.json" <<'PY' && pass html-proto$k-data || fail html-proto$k-data "prototype names changed"
import json, re, sys
d = json.loads(re.search(r'id="gf-data">(.*?)</script>', open(sys.argv[1], encoding='utf-8').read(), re.S).group(1))
assert d['report'] == json.load(open(sys.argv[2]))
names = set(d['ranks'][0]['graphs']['wall']['names']) | set(d['ranks'][0]['graphs']['gpu']['names'])
assert len(names & {'__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty'}) >= 4, names
PY
done

# usage
gf syncs --format html "$dec"; expect_rc "html-syncs-refused" 2
expect_grep "html-syncs-msg" "report --format html" "$T/err"
gf report --help; expect_grep "html-help" "html: one self-contained page" "$T/out"
gf diff --help; expect_grep "html-diff-help" "--format F" "$T/out"
gf diff --negate --format html "$dec" "$dec"; expect_rc "html-diff-negate" 2

# diff page: the changes table is diff --top's, the graph AFTER's shape
printf 'main;a 10\nmain;b 20\nmain;c;d 5\n' >"$T/b.folded"
printf 'main;a 30\nmain;b 20\nmain;c;d 1\n' >"$T/a.folded"
gf diff --no-sampled -o "$T/d.html" "$T/b.folded" "$T/a.folded"; expect_rc "html-diff-suffix" 0
python3 - "$T/d.html" <<'PY' && pass html-diff-data || fail html-diff-data "diff page data"
import json, re, sys
s = open(sys.argv[1], encoding='utf-8').read()
d = json.loads(re.search(r'id="gf-data">(.*?)</script>', s, re.S).group(1))
g = d['graph']
assert d['kind'] == 'diff' and g['v'][0] == 51 and g['b'][0] == 35
name = {g['names'][g['n'][i]]: i for i in range(len(g['p']))}
assert g['v'][name['a']] == 30 and g['b'][name['a']] == 10
fills = g['fills']; x = g['x']
assert fills[x[2 * name['a']]].startswith('rgb(255,') and fills[x[2 * name['d']]].endswith(',255)')
tot = [c for c in d['changes'] if not c['self']]
assert tot[0]['frame'] in ('main', 'main;a') and abs(tot[0]['after'] - tot[0]['before']) == 20
PY
exit 0
