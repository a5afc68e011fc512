#!/usr/bin/env bash
# hostile_inject.sh — issue 16, "Hold under attack", the writers' part:
#  - report's --expect-ms / --unprofiled-step-ms lines (and the NCCL line) show
#    the user's numbers, with no use of freed memory (run under ASan);
#  - untrusted frame, kernel, thread and file names cannot become Markdown
#    links, images or HTML in `report -f md` / `syncs -f md` (rendered with
#    cmark-gfm when it is installed, and checked character by character);
#  - text output shows control characters visibly; JSON stays valid;
#  - `svg` options that reach the markup are validated or escaped: the SVG
#    stays well-formed XML and no value leaves its context (CSS, script,
#    attribute, comment);
#  - `svg - -` is a usage error.
. "$(dirname "$0")/lib.sh"

GEN=tests/gen/gen_decode.py

# --- report: the user's numbers, no freed memory ---------------------------
# one 10 ms step, one 1 ms kernel: every number is known by construction
cat >"$T/one.json" <<'EOF'
{"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#0","pid":1,"tid":1,"ts":0,"dur":10000},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":5,"args":{"correlation":1}},
{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":20,"dur":1000,"args":{"correlation":1,"device":0,"stream":7}}
]}
EOF
gf report --expect-ms 2.5 --unprofiled-step-ms 4 "$T/one.json"
expect_rc report-expect-rc 0
# the text is wrapped at 100 columns: join the lines before matching
tr '\n' ' ' <"$T/out" | sed 's/  */ /g' >"$T/flat"
expect_grep report-expect-numbers 'Steady step 10\.000 ms vs your estimate 2\.500 ms: 7\.500 ms \(300\.0%\) above it; GPU busy alone is 1\.000 ms, so GPU idle \(9\.000 ms\) explains 100\.0% of the distance\.' "$T/flat"
expect_grep report-unprofiled-numbers 'Profiled steady step 10\.000 ms vs unprofiled 4\.000 ms: the profiler adds 6\.000 ms per step \(150\.0% of the unprofiled step\)' "$T/flat"
gf report -f md --expect-ms 2.5 "$T/one.json"
expect_grep report-expect-numbers-md '^Steady step 10\\?\.000 ms vs your estimate 2\\?\.500 ms: 7\\?\.500 ms \(300\\?\.0%\) above it' "$T/out"
# a step long enough that the numbers outgrow the formatter's first buffer:
# the old code read freed memory here (ASan: heap-use-after-free)
sed 's/"dur":10000}/"dur":1000000000000000}/' "$T/one.json" >"$T/long.json"
gf report --expect-ms 0.1 --unprofiled-step-ms 0.2 "$T/long.json"
expect_rc report-expect-long-rc 0
expect_nogrep report-expect-long-no-asan 'AddressSanitizer|heap-use-after-free' "$T/err"
tr '\n' ' ' <"$T/out" | sed 's/  */ /g' >"$T/flat"
expect_grep report-expect-long-numbers 'Steady step 1000000000000\.000 ms vs your estimate 0\.100 ms: 999999999999\.900 ms \(999999999999900\.0%\) above it' "$T/flat"
expect_grep report-unprofiled-long-numbers 'vs unprofiled 0\.200 ms: the profiler adds 999999999999\.800 ms per step' "$T/flat"
# the NCCL line printed a percentage as the exposed time ("exposed 100.0% ms")
if python3 "$GEN" --variant tp --steps 3 -o "$T/tp.json" 2>/dev/null; then
  gf report "$T/tp.json"
  tr '\n' ' ' <"$T/out" | sed 's/  */ /g' >"$T/flat"
  expect_grep report-nccl-exposed-ms 'exposed [0-9]+\.[0-9]{3} ms per step' "$T/flat"
  expect_nogrep report-nccl-no-pct-ms '% ms' "$T/flat"
  # several ranks: the file column keeps the end of long names, cut at a
  # UTF-8 boundary (not in the middle of a character: no U+FFFD)
  cp "$T/tp.json" "$T/ranké_éé_0.json"
  python3 "$GEN" --variant tp --steps 3 --rank 1 -o "$T/tp1.json" 2>/dev/null
  gf report "$T/ranké_éé_0.json" "$T/tp1.json"
  expect_grep report-ranks-file-cut-utf8 '^  file +\.\.\._éé_0\.json +tp1\.json' "$T/out"
  expect_nogrep report-ranks-file-no-fffd $'\xef\xbf\xbd' "$T/out"
else
  fail report-nccl-gen "gen_decode.py failed"
fi

# --- hostile names in report / syncs: Markdown, text, JSON ------------------
# The payload: Markdown links and images, raw HTML, an entity reference,
# emphasis, strikethrough, code, math, a mention, bare URLs (autolinks), a
# table pipe, a backslash, ESC (terminal colours) and a bidi override.
cat >"$T/payload.py" <<'EOF'
H = ('E[x](javascript:alert(1))![i](http://e.example/x.png)<img src=x onerror=alert(1)>'
     '&lt;*b*_u_~~s~~`c`$m$@me http://evil.example/ www.evil.example a@b.example|\\\x1b[31m\u202eZ')
HF = H.replace(";", "")  # in folded input ';' separates frames
EOF
# the checks of one Markdown output, in Python: without a renderer, every
# metacharacter of the payload is escaped; with cmark-gfm (GitHub's renderer,
# raw HTML allowed), no link, image, strikethrough, emphasis or HTML comes out
# of a name and the rendered text shows the name literally
cat >"$T/mdcheck.py" <<'EOF'
import html, re, subprocess, sys
sys.path.insert(0, sys.argv[3])
import payload
H = getattr(payload, sys.argv[4] if len(sys.argv) > 4 else "H")
md = open(sys.argv[1], encoding="utf-8").read()
what = sys.argv[2]
bad = []
esc = {"<": "&lt;", ">": "&gt;", "&": "&amp;", "\x1b": "\\x1B", "\u202e": "\\u202E"}
exp = "".join(esc.get(c, "\\" + c if c in "\\`*_{}[]()#+-.!|~:$" else c) for c in H)
if exp not in md:
    bad.append("payload not escaped as expected: " + exp[:60])
if "\x1b" in md or "\u202e" in md:
    bad.append("raw ESC or U+202E in the Markdown")
try:
    out = subprocess.run(["cmark-gfm", "--unsafe", "-e", "table", "-e", "autolink", "-e", "strikethrough"],
                         input=md.encode(), capture_output=True, check=True).stdout.decode()
except FileNotFoundError:
    out = None
if out is not None:
    # GFM links a bare e-mail address to itself whatever is escaped (documented)
    out = re.sub(r'<a href="mailto:([^"<>]*)">\1</a>', r"\1", out)
    for tag in ("<a ", "<a>", "<img", "<del>", "<em>", "<script", "<iframe"):
        if tag in out:
            bad.append("rendered HTML has " + tag)
    text = html.unescape(re.sub(r"<[^>]*>", "", out))
    if H.replace("\x1b", "\\x1B").replace("\u202e", "\\u202E") not in text:
        bad.append("the rendered text does not show the name literally")
# Python-Markdown, when installed, must not make markup of a name either
try:
    import markdown
    pm = markdown.markdown(md, extensions=["tables"])
    pm = re.sub(r'<a href="mailto:[^"<>]*">[^<]*</a>', "", pm)
    for tag in ("<a ", "<a>", "<img", "<del>", "<em>", "<script", "<iframe"):
        if tag in pm:
            bad.append("Python-Markdown's HTML has " + tag)
except ImportError:
    pass
for b in bad:
    print("FAIL %s: %s" % (what, b))
if not bad:
    print("PASS %s%s" % (what, "" if out is not None else " (cmark-gfm absent: escaping checked, not rendered)"))
EOF
cat >"$T/mkhostile.py" <<'EOF'
import json, sys
sys.path.insert(0, sys.argv[3])
from payload import H
d = json.load(open(sys.argv[1]))
for e in d["traceEvents"] if isinstance(d, dict) else d:
    nm = e.get("name", "")
    if "check_eos" in nm or nm == "aten::mm":   # the sync site; an op in the top calls
        e["name"] = nm + H
json.dump(d, open(sys.argv[2], "w"))
EOF
cat >"$T/jsoncheck.py" <<'EOF'
import json, sys
sys.path.insert(0, sys.argv[2])
from payload import H
raw = open(sys.argv[1], "rb").read()
assert b"\x1b" not in raw and b"\xe2\x80\xae" not in raw, "raw ESC or U+202E in JSON"
d = json.loads(raw)
assert any(s["site"].endswith("check_eos" + H) for s in d["syncs"]), d["syncs"]
EOF
if python3 "$GEN" --variant sync --steps 3 -o "$T/sync.json" 2>/dev/null &&
   python3 "$T/mkhostile.py" "$T/sync.json" "$T/hostile.json" "$T"; then
  gf report -f md "$T/hostile.json"; expect_rc md-report-rc 0
  python3 "$T/mdcheck.py" "$T/out" md-report-hostile "$T"
  gf syncs -f md "$T/hostile.json"; expect_rc md-syncs-rc 0
  python3 "$T/mdcheck.py" "$T/out" md-syncs-hostile "$T"
  for c in report syncs; do
    gf $c "$T/hostile.json"
    if grep -q $'\x1b' "$T/out"; then fail text-$c-no-raw-esc "raw ESC in the text output"; else pass text-$c-no-raw-esc; fi
    if grep -q $'\xe2\x80\xae' "$T/out"; then fail text-$c-no-raw-bidi "raw U+202E"; else pass text-$c-no-raw-bidi; fi
    expect_grep text-$c-esc-visible '\\x1B\[31m' "$T/out"
    gf $c -f json "$T/hostile.json"
    if python3 "$T/jsoncheck.py" "$T/out" "$T"; then pass json-$c-hostile-roundtrip
    else fail json-$c-hostile-roundtrip "$(head -c 200 "$T/out")"; fi
  done
else
  fail md-gen "gen_decode.py failed"
fi
# py-spy folded input: the site and the sync call are frame names too
python3 - "$T/py.folded" "$T" <<'EOF'
import sys
sys.path.insert(0, sys.argv[2])
from payload import HF
with open(sys.argv[1], "w", encoding="utf-8") as f:
    f.write("main (a.py:1);evil%s (b.py:2);cudaMemcpy%s 50\n" % (HF, HF))
    f.write("main (a.py:1);work (c.py:3) 50\n")
EOF
gf syncs -f md "$T/py.folded"; expect_rc md-pyspy-rc 0
python3 "$T/mdcheck.py" "$T/out" md-pyspy-hostile "$T" HF
expect_nogrep md-pyspy-fix-call-escaped '\(cudaMemcpyE\[' "$T/out"
gf syncs "$T/py.folded"
if grep -q $'\x1b' "$T/out"; then fail text-pyspy-no-raw-esc "raw ESC in the text output"; else pass text-pyspy-no-raw-esc; fi
# invalid UTF-8 in a folded name: U+FFFD in text and Markdown, \ufffd in JSON
printf 'main (a.py:1);bad\xff\xfe (b.py:2);cudaStreamSynchronize 5\n' >"$T/bad.folded"
for f in text md json; do
  gf syncs -f $f "$T/bad.folded"
  if python3 -c 'import sys; open(sys.argv[1], encoding="utf-8").read()' "$T/out" 2>/dev/null; then
    pass utf8-pyspy-$f; else fail utf8-pyspy-$f "output is not UTF-8"; fi
done

# --- svg: every option that reaches the markup ------------------------------
printf 'main;f 3\nmain;g 2\n' >"$T/s.folded"
# CSS injection through --fonttype is a usage error naming the option
gf svg --fonttype 'Verdana; } #frames { display:none } x {' "$T/s.folded"
expect_rc svg-fonttype-css-rc 2
expect_grep svg-fonttype-css-msg "invalid value .* for '--fonttype'" "$T/err"
[ -s "$T/out" ] && fail svg-fonttype-css-no-svg "SVG written" || pass svg-fonttype-css-no-svg
for v in 'x</style><script>alert(1)</script>' 'a{}' "x'" '"x' 'x:y' 'a,,b' '' $'x\ny' 'url(x)' 'x\'; do
  gf svg --fonttype "$v" "$T/s.folded"
  expect_rc "svg-fonttype-bad-$(printf %s "$v" | od -An -tx1 | tr -d ' \n' | head -c 16)" 2
done
for o in --fonttype --bgcolors --minwidth --factor --total; do
  gf svg $o $'x\x1b[2J' "$T/s.folded"
  expect_rc svg-msg-escaped-rc$o 2
  if grep -q $'\x1b' "$T/err"; then fail svg-msg-escaped$o "raw ESC in the message"; else pass svg-msg-escaped$o; fi
  expect_grep svg-msg-escaped-shown$o "'x\\\\x1B\[2J' for '$o'" "$T/err"
done
for v in Verdana monospace "'DejaVu Sans Mono', monospace" '"Helvetica Neue", Arial, sans-serif' 'Noto Sans CJK JP' 'メイリオ'; do
  gf svg --fonttype "$v" "$T/s.folded"
  expect_rc "svg-fonttype-ok-$(printf %s "$v" | tr -c 'A-Za-z' _ | head -c 20)" 0
  expect_grep "svg-fonttype-ok-css-$(printf %s "$v" | tr -c 'A-Za-z' _ | head -c 20)" "font-family:$v; font-size" "$T/out"
done
# text options and frame names: escaped for their context, checked on the
# parsed SVG (python3 xml.etree) by checks run from Python (bytes as arguments)
cat >"$T/svgopts.py" <<'EOF'
import json, re, subprocess, sys
import xml.etree.ElementTree as ET
GF, folded, names_folded, palmap = sys.argv[1:5]
N = "{http://www.w3.org/2000/svg}"
ALLOWED = {"svg", "defs", "linearGradient", "stop", "style", "script", "rect", "text", "g", "title"}

def run(*args):
    p = subprocess.run([GF, "svg", *args], capture_output=True)
    return p.returncode, p.stdout

def parse(what, raw):
    try:
        root = ET.fromstring(raw, parser=ET.XMLParser(target=ET.TreeBuilder(insert_comments=True)))
    except ET.ParseError as e:
        print("FAIL %s: not well-formed XML: %s" % (what, e))
        return None
    return list(root.iter())

def structure(els, css):
    """No element, event attribute, script, style or comment the renderer does not write itself."""
    bad = []
    scripts = [e for e in els if e.tag == N + "script"]
    styles = [e for e in els if e.tag == N + "style"]
    comments = [e for e in els if e.tag is ET.Comment]
    for e in els:
        if e.tag is ET.Comment:
            continue
        t = e.tag.replace(N, "")
        if t not in ALLOWED:
            bad.append("unexpected element " + t)
        for a, v in e.attrib.items():
            if a.lower().startswith("on") and not (t == "svg" and a == "onload" and v == "init(evt)"):
                bad.append("event attribute %s on %s" % (a, t))
    if len(scripts) != 1 or len(styles) != 1 or len(comments) != 2:
        bad.append("%d scripts, %d styles, %d comments" % (len(scripts), len(styles), len(comments)))
    elif css is not None and styles[0].text != css:
        bad.append("the stylesheet changed")
    return bad

def report(what, bad):
    for b in bad:
        print("FAIL %s: %s" % (what, b))
    if not bad:
        print("PASS " + what)

def shown(b):
    """What the SVG shows for bytes b: controls as \\xNN, invalid UTF-8 as U+FFFD."""
    s = b.decode("utf-8", "replace")
    return "".join("\\x%02X" % ord(c) if ord(c) < 0x20 or 0x7f <= ord(c) < 0xa0 else c for c in s)

rc, base = run(folded)
els = parse("svg-plain", base)
css = [e for e in els if e.tag == N + "style"][0].text if els else None
report("svg-plain-structure", structure(els or [], css))

H = (b'x</text><script>alert(1)</script>]]><!-- --> "q" \'q\' \x1b[31m \xe2\x80\xa8 & &amp; \xff'
     b' "; alert(1); //')
rc, out = run("--title", H, "--subtitle", H + b"!", "--countname", H, folded)
els = parse("svg-text-options", out)
if els is not None:
    bad = structure(els, css)
    byid = {e.get("id"): e.text for e in els if e.get("id")}
    if byid.get("title") != shown(H):
        bad.append("title %r" % byid.get("title"))
    if byid.get("subtitle") != shown(H + b"!"):
        bad.append("subtitle %r" % byid.get("subtitle"))
    tips = [e.text for e in els if e.tag == N + "title"]
    if not any(t == "f (3 %s, 60.00%%)" % shown(H) for t in tips):
        bad.append("countname in tooltips %r" % tips[:3])
    report("svg-title-subtitle-countname", bad)

rc, out = run("--nametype", H, folded)
els = parse("svg-nametype", out)
if els is not None:
    bad = structure(els, css)
    js = [e for e in els if e.tag == N + "script"][0].text
    m = re.search(r'nametype: ("(?:[^"\\\n]|\\.)*") \};\n', js)
    if not m or json.loads(m.group(1)) != H.decode("utf-8", "replace"):
        bad.append("the nametype string literal is %r" % (m.group(1) if m else None))
    report("svg-nametype-js-string", bad)

rc, out = run("--notes", b"a -- b --> <c> & -\x1b", folded)
els = parse("svg-notes", out)
if els is not None:
    bad = structure(els, css)
    notes = [e.text for e in els if e.tag is ET.Comment and e.text.startswith(" NOTES:")]
    if notes != [" NOTES: a - - b - -&gt; &lt;c&gt; &amp; -\\x1B "]:
        bad.append("notes comment %r" % notes)
    report("svg-notes-comment", bad)

rc, out = run("--cp-file", palmap, folded)
els = parse("svg-palette", out)
if els is not None:
    bad = structure(els, css)
    fills = {e.get("fill") for e in els if e.tag == N + "rect"}
    if "rgb(10,20,30)" not in fills:
        bad.append("the valid palette entry was not used")
    report("svg-palette-hostile", bad)

rc, out = run(names_folded)
els = parse("svg-frame-names", out)
if els is not None:
    bad = structure(els, css)
    tips = [e.text for e in els if e.tag == N + "title"]
    for line in open(names_folded, "rb").read().split(b"\n"):
        if line:
            name = shown(line.rsplit(b" ", 1)[0].split(b";")[-1])
            if not any(t.startswith(name + " (") for t in tips):
                bad.append("frame %r not in the tooltips" % name)
    report("svg-frame-names", bad)
EOF
printf 'f->rgb(1,2,3)" onload="alert(1)\ng->rgb(10,20,30)\n' >"$T/pal.map"
printf 'main;x</text><script>alert(1)</script> 3\nmain;"q"\x27q\x27&amp]]>\x1b\xfe 2\nmain;a\xe2\x80\xae-->b 1\n' >"$T/n.folded"
python3 "$T/svgopts.py" "$GF" "$T/s.folded" "$T/n.folded" "$T/pal.map"
# colours and numbers: refused unless they are what they should be
for a in "--colors hot;x" "--bgcolors #fff\"/><script>" "--bgcolors red" "--fontsize 12px;}" "--fontsize nan" \
         "--fontsize inf" "--fontsize 1e999" "--fontwidth -1" "--width 100%" "--height 1e3" "--minwidth 1;" \
         "--total 1e3" "--factor x"; do
  gf svg ${a%% *} "${a#* }" "$T/s.folded"
  expect_rc "svg-bad-value-$(printf %s "$a" | tr -c 'A-Za-z0-9' _)" 2
done
# stdin twice
gf_in "$T/s.folded" svg - -
expect_rc svg-stdin-twice-rc 2
expect_grep svg-stdin-twice-msg "stdin \('-'\) can be given only once" "$T/err"
gf_in "$T/s.folded" svg "$T/s.folded" -
expect_rc svg-stdin-and-file-rc 0
expect_grep svg-stdin-and-file-total '<title>all \(10 samples, 100%\)</title>' "$T/out"

exit 0
