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
assert keyed == [k for k in row if isinstance(row[k], list)], keyed
PY
if need_shared "html-corpus"; then
  check_page qwen "$GF_SHARED/corpus/traces/tracelens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
  r0=$GF_SHARED/corpus/traces/hta/trace_filter/sampled_rank-0.json.gz
  r1=$GF_SHARED/corpus/traces/hta/trace_filter/sampled_rank-1.json.gz
  gf report --format html -o "$T/ranks.html" "$r0" "$r1"; expect_rc "html-ranks-rc" 0
  "$GF" report --format json "$r0" "$r1" >"$T/ranks.json"
  python3 - "$T/ranks.html" "$T/ranks.json" <<'PY' && pass html-ranks-data || fail html-ranks-data "page data of two ranks"
import json, re, sys
s = open(sys.argv[1], encoding='utf-8').read()
d = json.loads(re.search(r'id="gf-data">(.*?)</script>', s, re.S).group(1))
r = json.load(open(sys.argv[2]))
assert d['report'] == r and len(d['ranks']) == 2 and len(r['ranks']) == 2
assert [k['file'] for k in d['ranks']] == [k['file'] for k in r['ranks']]
assert all(k['graphs']['gpu'] for k in d['ranks'])
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
