#!/usr/bin/env python3
"""layers.py -- check src/ against the layer table of src/README.md.

Prints one PASS/FAIL line per rule:
  - every folder under src/ holding sources has a row of the table, and every row names a folder;
  - every #include "..." under src/ names a file from src/ (src-rooted path) that exists;
  - every include edge is allowed: a folder includes itself and the folders its row lists;
  - `cli/` is included by nothing outside `cli/`;
  - file names are unique across the tree;
  - commands are thin: no function in src/cli/cmd_*.c runs longer than MAX_CMD_LINES lines
    (options, calls, exit; the work lives in the library);
  - comments that cannot go stale: each header's `Layer:` line names its own folder, and no
    comment names a file of the project that does not exist (a C file or header, a document,
    a script or test by its path);
  - one vocabulary, one table: a gap cause's key, JSON field ("<k>_us") and store metric
    ("idle.<k>") are C string literals only in trace/analysis/causes.c (a few other words that
    happen to be spelled the same are listed in VOCAB_ALLOWED with what they are), and the
    page's script (page_assets.js) holds no list of causes or weights (no line names two).
Also checks itself: a table that forbids a present edge must make the edge check fail (--selftest).
"""
import os, re, sys

root = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith('--') else '.'
src = os.path.join(root, 'src')

def table(text):
    rows = {}
    for line in text.splitlines():
        m = re.match(r'\|\s*`([a-z_/]+)/`\s*\|.*\|\s*([^|]*)\|\s*$', line)
        if not m:
            continue
        folder, allow = m.group(1), m.group(2).strip()
        if allow.startswith('everything'):
            rows[folder] = ('all-but', set(re.findall(r'`([a-z_/]+)`', allow)))
        else:
            rows[folder] = ('only', set(re.findall(r'`([a-z_/]+)`', allow)))
    return rows

def sources():
    for d, _, fs in os.walk(src):
        for f in sorted(fs):
            if f.endswith(('.c', '.h')):
                p = os.path.join(d, f)
                yield os.path.relpath(d, src), f, p

inc_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

def edges():
    for folder, f, p in sources():
        text = open(p, encoding='utf-8').read()
        for m in inc_re.finditer(text):
            line = text.count('\n', 0, m.start()) + 1
            yield folder, f, line, m.group(1)

def allowed(rows, a, b):
    if a == b:
        return True
    kind, s = rows[a]
    if kind == 'all-but':
        return b not in s
    return b in s

def check(rows, out):
    bad = 0
    folders = sorted({f for f, _, _ in sources()})
    missing = [f for f in folders if f not in rows]
    extra = [f for f in rows if not os.path.isdir(os.path.join(src, f))]
    out('table-covers-tree', not missing and not extra,
        'folders without a row: %s; rows without a folder: %s' % (missing, extra))
    unresolved, forbidden, cli_in = [], [], []
    for folder, f, line, name in edges():
        where = '%s/%s:%d "%s"' % (folder, f, line, name)
        if not os.path.isfile(os.path.join(src, name)):
            unresolved.append(where)
            continue
        b = os.path.dirname(name)
        if folder not in rows:
            continue
        if b == 'cli' and folder != 'cli':
            cli_in.append(where)
        elif not allowed(rows, folder, b):
            forbidden.append(where + ' (%s may not include %s)' % (folder, b))
    out('includes-src-rooted', not unresolved, '; '.join(unresolved[:10]))
    out('includes-allowed', not forbidden, '; '.join(forbidden[:10]))
    out('cli-included-by-none', not cli_in, '; '.join(cli_in[:10]))
    seen, dup = {}, []
    for folder, f, _ in sources():
        if f in seen:
            dup.append('%s/%s and %s/%s' % (seen[f], f, folder, f))
        seen[f] = folder
    out('file-names-unique', not dup, '; '.join(dup))
    return forbidden

MAX_CMD_LINES = 60

def prefix_exceptions():
    text = open(os.path.join(src, 'README.md'), encoding='utf-8').read()
    m = re.search(r'prefixes: (.*?)\.\n', text, re.S)
    ex = {}
    if m:
        for stem, rest in re.findall(r'`(\w+)` ((?:\w+_?(?: \([^)]*\))?[ ,]*)+)', m.group(1)):
            ex[stem] = [w for w in re.findall(r'\b(\w+?_?)(?=[ ,]|$)', re.sub(r'\([^)]*\)', '', rest)) if w]
    return ex

def check_prefixes(out):
    """Every function a header of the library declares starts with the file stem (or the
    prefix src/README.md names for that file)."""
    ex = prefix_exceptions()
    bad = []
    decl = re.compile(r'^(?!static|typedef|#|\s)(?:[A-Za-z_][\w]*[ \*]+)+\**([a-z_][a-z0-9_]*)\(', re.M)
    for folder, f, p in sources():
        if folder == 'cli' or not f.endswith('.h') or f.endswith('_int.h'):
            continue
        stem = f[:-2]
        ok = [stem + '_', stem, 'gf_'] + ex.get(stem, [])
        for m in decl.finditer(open(p, encoding='utf-8').read()):
            n = m.group(1)
            if n.startswith('__') or any(n == o or n.startswith(o) for o in ok):
                continue
            bad.append('%s/%s: %s' % (folder, f, n))
    out('prefixes-are-stems', not bad, '; '.join(bad[:12]))

def long_functions(path, limit):
    """(name, lines) of each top-level function in a C file longer than limit lines, from
    its opening line to its closing brace at column 0."""
    out, start, name = [], None, None
    for i, line in enumerate(open(path, encoding='utf-8').read().split('\n')):
        if start is None:
            m = re.match(r'^[A-Za-z_][\w \*]*?\b(\w+)\s*\(', line)
            if m and not line.rstrip().endswith(';'):
                start, name = i, m.group(1)
        elif line.startswith('}'):
            if i - start + 1 > limit:
                out.append((name, i - start + 1))
            start = None
        elif line.strip().endswith(';') and not line.startswith(('\t', ' ', '{')) and start == i - 1:
            start = None
    return out

def check_thin(out):
    long = []
    for folder, f, p in sources():
        if folder == 'cli' and f.startswith('cmd_') and f.endswith('.c'):
            long += ['%s:%s (%d lines)' % (f, n, k) for n, k in long_functions(p, MAX_CMD_LINES)]
    out('commands-thin', not long, 'longer than %d lines: %s' % (MAX_CMD_LINES, '; '.join(long)))

CAUSES = ['edge', 'sync', 'host', 'untraced', 'queued', 'launch']
WEIGHTS = ['gpu', 'cpu', 'wall', 'idle', 'calls']
VOCAB_TABLE = 'trace/analysis/causes.c'
# (file, the line's code) of literals spelled like a cause that are another word
VOCAB_ALLOWED = {
    ('trace/write/report_json.c', 'jsonw_key(j, "launch");'): 'the launch diagnosis object of the report JSON',
    ('trace/write/report_json.c', 'jsonw_str(j, r->top[i].kind == TR_OP ? "op" : "launch");'): 'a top call\'s kind',
    ('trace/write/report_out.c', 'rtable_cell(&tb, r->top[i].kind == TR_OP ? "op" : "launch");'): 'a top call\'s kind',
    ('trace/write/report_out.c', '"sync", "syncs", "launch", "kern", "med k us", "" };'): 'step table columns (sync wait, launches)',
}

def strip_comments(text):
    """C text with comments blanked (line structure kept); strings are left alone."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == '\\' else 1
            out.append(text[i:j + 1]); i = j + 1
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2); j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j])); i = j
        elif text.startswith('//', i):
            j = text.find('\n', i); j = n if j < 0 else j
            out.append(' ' * (j - i)); i = j
        else:
            out.append(c); i += 1
    return ''.join(out)

def vocab_hits(files):
    """(where, literal) of every cause literal outside the table and not allowed."""
    lit = re.compile(r'"(?:idle\.)?(%s)(?:_us)?"' % '|'.join(CAUSES))
    hits = []
    for rel, text in files:
        if rel == VOCAB_TABLE:
            continue
        for no, line in enumerate(strip_comments(text).split('\n'), 1):
            for m in lit.finditer(line):
                if (rel, line.strip()) not in VOCAB_ALLOWED:
                    hits.append('%s:%d %s' % (rel, no, m.group(0)))
    return hits

def js_lists(text):
    """Lines of the page's script that name two causes or two weights (a list of its own)."""
    bad = []
    for no, line in enumerate(text.split('\n'), 1):
        for names in (CAUSES, WEIGHTS):
            got = {w for w in names if re.search(r"""['"]%s['"]|[{,]\s*%s\s*:""" % (w, w), line)}
            if len(got) >= 2:
                bad.append('page_assets.js:%d names %s' % (no, ', '.join(sorted(got))))
    return bad

def check_vocab(out):
    files = [(os.path.relpath(p, src), open(p, encoding='utf-8').read()) for _, _, p in sources()]
    hits = vocab_hits(files)
    out('vocab-one-table', not hits, 'gap cause spelled outside %s: %s' % (VOCAB_TABLE, '; '.join(hits[:10])))
    js = os.path.join(src, 'stacks', 'render', 'page_assets.js')
    bad = js_lists(open(js, encoding='utf-8').read()) if os.path.isfile(js) else []
    out('vocab-page-no-lists', not bad, '; '.join(bad[:10]))
    # the checks must be able to fail
    out('selftest-vocab-caught', bool(vocab_hits([('cli/x.c', 'f("idle.queued"); /* "edge" */')])) and
        not vocab_hits([('cli/x.c', '/* "edge" */ f(1);')]) and
        bool(js_lists("const C = ['edge', 'sync'];")) and bool(js_lists("const W = { gpu: 'a', cpu: 'b' };")),
        'a planted cause literal or page list was not reported')

def comments(text):
    """(line, text) of each comment of C text."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            i = j + 1
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2); j = n if j < 0 else j + 2
            out.append((text.count('\n', 0, i) + 1, text[i:j])); i = j
        elif text.startswith('//', i):
            j = text.find('\n', i); j = n if j < 0 else j
            out.append((text.count('\n', 0, i) + 1, text[i:j])); i = j
        else:
            i += 1
    return out

# file names a comment may cite: the project's sources and headers, documents, and scripts or
# tests by a path under one of the repository's folders (or a folder outside it, which fails)
TOPS = ['src', 'tests', 'docs', 'scripts', 'bench', 'examples', 'debian', '.ci',
        'tools', 'research', 'corpus', 'shared', 'seed']
CITE = re.compile(r"""(?<![\w./*-])((?:[\w.-]+/)*[A-Za-z_][\w*-]*\.(?:[ch]|md)|(?:%s)/[\w./*-]+\.(?:py|sh|mjs|js|css|inc|proto|json))\b"""
                  % '|'.join(re.escape(t) for t in TOPS))

def cited_missing(rel, text, exists):
    """(line, name) of each file a comment of src/rel cites that exists nowhere it could mean."""
    here = os.path.dirname(rel)
    bad = []
    for line, c in comments(text):
        for m in CITE.finditer(c):
            name = m.group(1)
            if name.endswith('.md'):
                cands = [name, os.path.join('docs', name), os.path.join('src', here, name)]
            elif name.endswith(('.c', '.h')):
                cands = [os.path.join('src', here, name), os.path.join('src', name), name]
                if '/' not in name:
                    cands.append(os.path.join('src', '**', name))
            else:
                cands = [name]
            if not any(exists(x) for x in cands):
                bad.append((line, name))
    return bad

def check_comments(out):
    import glob
    exists = lambda p: bool(glob.glob(os.path.join(root, p), recursive=True))
    layer_bad, cite_bad = [], []
    for folder, f, p in sources():
        text = open(p, encoding='utf-8').read()
        if f.endswith('.h') and folder in LAYERS_SEEN:
            m = re.search(r'Layer: ([a-z/]+)', text)
            if not m or m.group(1) != folder:
                layer_bad.append('%s/%s says %s' % (folder, f, m.group(1) if m else 'nothing'))
        if f == 'page_assets.c':  # generated: the page's script as C strings
            continue
        cite_bad += ['%s/%s:%d %s' % (folder, f, l, n) for l, n in cited_missing(os.path.join(folder, f), text, exists)]
    out('header-layer-lines', not layer_bad, '; '.join(layer_bad[:12]))
    out('comments-cite-files', not cite_bad, 'no such file: ' + '; '.join(cite_bad[:12]))
    planted = cited_missing('stacks/x.c', '/* see read/folded.h and docs/nothing.md */ int x; /* tools/a.py */',
                            exists)
    out('selftest-stale-comment-caught', [n for _, n in planted] == ['read/folded.h', 'docs/nothing.md', 'tools/a.py'],
        'planted stale names: %s' % planted)

LAYERS_SEEN = set()

def main():
    rows = table(open(os.path.join(src, 'README.md'), encoding='utf-8').read())
    fails = []
    def out(name, ok, why):
        print(('PASS layers/%s' % name) if ok else ('FAIL layers/%s: %s' % (name, why)))
        if not ok:
            fails.append(name)
    out('table-parsed', len(rows) >= 5, 'only %d rows parsed from src/README.md' % len(rows))
    check(rows, out)
    check_thin(out)
    check_prefixes(out)
    check_vocab(out)
    LAYERS_SEEN.update(rows)
    check_comments(out)
    # The check must be able to fail: forbid one edge the tree has and expect it reported.
    probe = next(((a, os.path.dirname(n)) for a, _, _, n in edges()
                  if os.path.dirname(n) not in ('', a) and a in rows and rows[a][0] == 'only'), None)
    if probe:
        a, b = probe
        r2 = dict(rows)
        r2[a] = ('only', set(rows[a][1]) - {b})
        got = check(r2, lambda *x: None)
        out('selftest-forbidden-edge-caught', any(('%s may not include %s' % (a, b)) in g for g in got),
            'removing %s -> %s from the table was not reported' % (a, b))
    # and the length check must see a long function: main.c's command table runs past 5 lines
    main_c = os.path.join(src, 'cli', 'main.c')
    out('selftest-long-function-caught', bool(long_functions(main_c, 5)),
        'no function of cli/main.c found longer than 5 lines')
    return 1 if fails else 0

sys.exit(main())
