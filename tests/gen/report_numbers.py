#!/usr/bin/env python3
"""report_numbers.py — every number `gpuflame report` prints in text and
Markdown is the JSON's (issue 12, item 9). Stdlib only; independent of the C
writers: it parses what a reader sees.

USAGE: report_numbers.py LIST        one case a line: NAME<TAB>TEXT<TAB>MD<TAB>JSON
       report_numbers.py --selfcheck NAME text|md DOC JSON
Prints "PASS NAME-text", "PASS NAME-md" or "FAIL NAME-FMT: why" per case,
and NAME-FMT-verdict-numbers for the numbers of the verdicts and "Next"
(tests/cli/lib.sh style), exit 0. --selfcheck alters each digit of DOC in
turn (outside the fixed wording: headings, the gap table's cause labels, the
"Not launch-bound (... 80% ...)" sentence, the multi-rank title's aside) and
prints PASS when every altered text FAILs the check (an error the unaltered
one has not), else FAIL naming the first digit that went unnoticed; with
several ranks, the digits of the ranks' head only (each rank's section is the
one-rank case). An added sentence with a number is caught too.

How the text is read (structure-aware, not by position):
- documents are split into ranks at each "gpuflame report: FILE" title; the
  multi-rank head (its "per step" table, straggler prose, "#k: verdict"
  items) is checked against ranks[] and straggler;
- text tables are found by their dashed rule (column extents from the runs of
  '-'), Markdown tables by their pipes; a table is recognised by its header and
  its rows keyed: the step table by row order (= steps[], then "steady" =
  summary), the gap-cause table by the cause word before ':' (gaps.<cause>_us,
  so renamed causes keep working), the site/stack/wait tables by their label
  (matched against the gaps.* and idle_stacks lists), syncs and top calls by
  order and name, the ranks table by row name;
- prose by pattern: each known sentence maps its numbers to JSON fields; the
  verdict and "Next" equal summary.verdict/action word for word and every
  number in them equals some JSON value of the rank (ms/us fields as printed,
  shares as %, counts, a sum of gap causes: "X are gaps", "Y other");
- a number left in the prose that no pattern took, a table or column no rule
  knows, is a FAIL: a writer may not print a value the JSON does not carry.
Rounding is the writers': ms = us/1000 to 3 decimals, us to 1, half away from
zero; % = exact part/whole of the JSON fields (integer or 1 decimal, half up);
shares given only as 4-decimal JSON numbers are matched within their
precision.
"""
import json
import re
import sys
from decimal import Decimal, ROUND_HALF_UP, ROUND_FLOOR
from fractions import Fraction

NUM = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?")


class Fail(Exception):
    pass


# --- formatting as the writers do -------------------------------------------

def ns(us):
    return int(Decimal(us) * 1000)


def fixed(v, decimals):
    q = Decimal(1).scaleb(-decimals)
    return str(Decimal(v).quantize(q, rounding=ROUND_HALF_UP))


def ms3(us):
    return fixed(Decimal(us) / 1000, 3)


def us1(us):
    return fixed(Decimal(us), 1)


def ctrunc(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def pct0(part, whole):
    """report_fmt_pct: "43%" (integers in ns or counts)"""
    if whole <= 0:
        return "-"
    return "%d%%" % ctrunc(part * 200 + whole, 2 * whole)


def pct1(part, whole):
    """pct1: "42.9%" """
    if whole <= 0:
        return "-"
    p = ctrunc(part * 2000 + whole, 2 * whole)
    s = "-" if p < 0 else ""
    p = abs(p)
    return "%s%d.%d%%" % (s, p // 10, p % 10)


def share_pct_ok(printed, share):
    """printed "41%" / "41.2%" against a 4-decimal share: equal within the
    share's own rounding (+-0.00005) and the printed one."""
    m = re.fullmatch(r"(-?\d+(?:\.\d+)?)%", printed)
    if not m or share is None:
        return False
    p = Decimal(m.group(1))
    d = -p.as_tuple().exponent
    if d >= 2:
        # as many digits as the 4-decimal share: the same rounding, exactly
        return p == Decimal(share) * 100
    half = Decimal(5).scaleb(-d - 1)
    return abs(p - Decimal(share) * 100) <= half + Decimal("0.005")


# --- names as the writers show them -----------------------------------------

BIDI = set([0x200E, 0x200F] + list(range(0x202A, 0x202F)) + list(range(0x2066, 0x206A)))


def term(s):
    """esc_term (and esc_md after unescaping): controls as \\xNN, bidi as \\uXXXX."""
    out = []
    for ch in s:
        c = ord(ch)
        if c < 0x20 or c == 0x7F or 0x80 <= c < 0xA0:
            out.append("\\x%02X" % c)
        elif c in BIDI:
            out.append("\\u%04X" % c)
        else:
            out.append(ch)
    return "".join(out)


def basename_site(site):
    """report_text's cell_site: the directories before the '(' dropped."""
    p = site.find("(")
    e = p if p >= 0 else len(site)
    b = 0
    for i in range(e):
        if site[i] in "/\\":
            b = i + 1
    return site[b:]


def label_match(cell, full):
    """a cell shows full, cut to its start ("head..."), its end ("...tail") or
    elided in the middle ("head...tail": the first frame and the innermost ones)"""
    full = term(full)
    if cell == full:
        return True
    i = cell.find("...")
    while i >= 0:
        head, tail = cell[:i], cell[i + 3:]
        if (head or tail) and len(head) + len(tail) < len(full) and full.startswith(head) and full.endswith(tail):
            return True
        i = cell.find("...", i + 1)
    if cell.startswith("...") and len(cell) > 3 and full.endswith(cell[3:]):
        return True
    if cell.endswith("...") and len(cell) > 3 and full.startswith(cell[:-3]):
        return True
    return False


MD_ESC = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|~:$])|&(lt|gt|amp);")


def md_unescape(s):
    return MD_ESC.sub(lambda m: m.group(1) if m.group(1) is not None else
                      {"lt": "<", "gt": ">", "amp": "&"}[m.group(2)], s)


def ws(s):
    return " ".join(s.split())


# --- documents into blocks ----------------------------------------------------

RULE = re.compile(r"^ *-+( +-+)*$")


def text_table(lines, i):
    head, rule = lines[i], lines[i + 1]
    spans = [(m.start(), m.end()) for m in re.finditer(r"-+", rule)]

    def cells(line):
        out = []
        for k, (a, b) in enumerate(spans):
            out.append((line[a:] if k + 1 == len(spans) else line[a:b]).strip())
        return out

    def is_row(line):
        # a row is never wider than its rule (cells are padded to it) and
        # is blank between the columns
        if not line.strip() or len(line.rstrip()) > len(rule):
            return False
        for k in range(1, len(spans)):
            if line[spans[k - 1][1]:spans[k][0]].strip():
                return False
        return True

    rows = []
    j = i + 2
    while j < len(lines) and is_row(lines[j]):
        rows.append(cells(lines[j]))
        j += 1
    return ("table", cells(head), rows), j


def blocks_text(doc):
    lines = doc.split("\n")
    out = []
    i = 0
    prev_blank = True
    after_title = False
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            prev_blank = True
            i += 1
            continue
        if i + 1 < len(lines) and RULE.match(lines[i + 1]) and lines[i + 1].strip():
            blk, i = text_table(lines, i)
            out.append(blk)
            prev_blank = False
            after_title = False
            continue
        ind = len(line) - len(line.lstrip(" "))
        # gather continuation lines (rtable_wrap: indent + 2)
        j = i + 1
        parts = [line.strip()]
        while j < len(lines) and lines[j].strip() and \
                len(lines[j]) - len(lines[j].lstrip(" ")) == ind + 2 and \
                not (j + 1 < len(lines) and RULE.match(lines[j + 1]) and lines[j + 1].strip()):
            if ind == 0 and not re.match(r"(Verdict|Next): |gpuflame report: ?", line):
                break  # after a heading or the info line, an indented line is a paragraph
            parts.append(lines[j].strip())
            j += 1
        s = " ".join(parts)
        if ind == 0:
            if s.startswith("gpuflame report:"):
                s = s.replace("gpuflame report:", "gpuflame report: ", 1).replace("report:  ", "report: ", 1)
                out.append(("title", s[len("gpuflame report: "):]))
                after_title = True
            elif s.startswith("Verdict: "):
                out.append(("verdict", s[len("Verdict: "):]))
            elif s.startswith("Next: "):
                out.append(("next", s[len("Next: "):]))
            elif after_title:
                out.append(("info", s))
                after_title = False
            elif prev_blank:
                out.append(("heading", s))
            else:
                out.append(("para", s))
        else:
            out.append(("para", s))
            after_title = False
        prev_blank = False
        i = j
    return out


def md_cells(line):
    s = line.strip()
    assert s.startswith("|") and s.endswith("|")
    cells, cur, k = [], "", 1
    while k < len(s) - 1:
        ch = s[k]
        if ch == "\\" and k + 1 < len(s) - 1:
            cur += s[k:k + 2]
            k += 2
            continue
        if ch == "|":
            cells.append(cur)
            cur = ""
        else:
            cur += ch
        k += 1
    cells.append(cur)
    return [md_unescape(c.strip()) for c in cells]


def blocks_md(doc):
    lines = doc.split("\n")
    out = []
    i = 0
    after_title = False
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        if line.startswith("|"):
            head = md_cells(line)
            rule = md_cells(lines[i + 1]) if i + 1 < len(lines) and lines[i + 1].startswith("|") else []
            if len(rule) != len(head) or not all(re.fullmatch(r"-+:?", c) for c in rule):
                raise Fail("md table without its rule row at line %d" % (i + 1))
            rows = []
            j = i + 2
            while j < len(lines) and lines[j].startswith("|"):
                r = md_cells(lines[j])
                if len(r) != len(head):
                    raise Fail("md row %d has %d cells, header %d" % (j + 1, len(r), len(head)))
                rows.append(r)
                j += 1
            out.append(("table", head, rows))
            i = j
            after_title = False
            continue
        s = md_unescape(line.strip())
        if line.startswith("## gpuflame report: "):
            out.append(("title", md_unescape(line[len("## gpuflame report: "):].strip())))
            after_title = True
        elif line.startswith("### "):
            out.append(("heading", line[4:].strip()))
        elif line.startswith("**Verdict:** "):
            out.append(("verdict", md_unescape(line[len("**Verdict:** "):].strip())))
        elif line.startswith("**Next:** "):
            out.append(("next", md_unescape(line[len("**Next:** "):].strip())))
        elif after_title:
            out.append(("info", s))
            after_title = False
        else:
            out.append(("para", s[2:] if s.startswith("- ") else s))
        i += 1
    return out


# --- the checks ---------------------------------------------------------------

class Ctx:
    def __init__(self, fmt):
        self.fmt = fmt
        self.errs = []
        self.verrs = []  # numbers of the verdicts (their own check line)

    def eq(self, what, got, want):
        if got != want:
            self.errs.append("%s: text %r, JSON says %r" % (what, got, want))


def jget(d, path, default=None):
    for k in path.split("."):
        if not isinstance(d, dict) or k not in d:
            return default
        d = d[k]
    return d


def rank_steps(J):
    s = jget(J, "summary")
    return int(s["steady_steps"]) if int(s["steady_steps"]) else int(s["steps"])


def check_step_table(c, head, rows, J):
    want_head = ["step", "wall", "busy", "busy%", "kernel", "memcpy", "idle", "sync", "syncs", "launch",
                 "kern", "med k us"]
    # a trace without device activity: the steps' wall time only
    cpu_only = head == ["step", "wall"] and J["summary"].get("verdict_cause") == "none"
    if not cpu_only and (head[:12] != want_head or len(head) > 13):
        raise Fail("step table header %r" % head)
    steps = J["steps"]
    if len(rows) != len(steps) + 1:
        raise Fail("step table: %d rows, JSON has %d steps + steady" % (len(rows), len(steps)))
    for i, r in enumerate(rows):
        last = i == len(steps)
        s = J["summary"] if last else steps[i]
        key = "steady" if last else ("all" if s["index"] is None else str(s["index"]))
        c.eq("step row %d key" % i, r[0], key)
        wall = s["steady_step_us"] if last else s["wall_us"]
        tag = "step %s" % key
        c.eq(tag + " wall", r[1], ms3(wall))
        if cpu_only:
            continue
        c.eq(tag + " busy", r[2], ms3(s["gpu_busy_us"]))
        c.eq(tag + " busy%", r[3], pct0(ns(s["gpu_busy_us"]), ns(wall)))
        c.eq(tag + " kernel", r[4], ms3(s["kernel_us"]))
        c.eq(tag + " memcpy", r[5], ms3(s["memcpy_us"]))
        c.eq(tag + " idle", r[6], ms3(s["idle_us"]))
        c.eq(tag + " sync", r[7], ms3(s["sync_wait_us"]))
        c.eq(tag + " syncs", r[8], str(s["syncs"]))
        c.eq(tag + " launch", r[9], str(s["launches"]))
        c.eq(tag + " kern", r[10], str(s["kernels"]))
        c.eq(tag + " med k us", r[11], us1(s["median_kernel_us"]))
        warm = "" if last else ("warm" if s["warmup"] else "")
        c.eq(tag + " warm-up", r[12] if len(r) > 12 else "", warm)


def check_comm_steps(c, head, rows, J):
    """the busy split per step (comm): busy = compute + overlapped + exposed"""
    if head != ["step", "wall", "busy", "compute", "overlapped", "exposed", "exposed%", ""]:
        raise Fail("comm step table header %r" % head)
    steps, cm = J["steps"], J.get("comm")
    if not cm:
        raise Fail("busy split table but comm is null")
    if len(rows) != len(steps) + 1:
        raise Fail("comm step table: %d rows, JSON has %d steps + steady" % (len(rows), len(steps)))
    for i, r in enumerate(rows):
        last = i == len(steps)
        s = None if last else steps[i]
        key = "steady" if last else ("all" if s["index"] is None else str(s["index"]))
        c.eq("comm row %d key" % i, r[0], key)
        tag = "comm step %s" % key
        if last:
            v = [cm["wall_us"], cm["busy_us"], cm["compute_us"], cm["overlap_us"], cm["exposed_us"]]
        else:
            v = [s["wall_us"], s["gpu_busy_us"], s["compute_us"], s["comm_overlap_us"], s["comm_exposed_us"]]
        for j, name in enumerate(("wall", "busy", "compute", "overlapped", "exposed")):
            c.eq(tag + " " + name, r[1 + j], ms3(v[j]))
        # the split adds up exactly (integer ns), in the JSON
        if ns(v[1]) != ns(v[2]) + ns(v[3]) + ns(v[4]):
            c.errs.append("%s: busy %s != compute %s + overlapped %s + exposed %s" % (tag, v[1], v[2], v[3], v[4]))
        c.eq(tag + " exposed%", r[6], pct0(ns(v[4]), ns(v[0])))
        c.eq(tag + " mark", r[7], "mean" if last else ("warm" if s["warmup"] else ""))


def check_coll_table(c, head, rows, J):
    if head != ["exposed ms", "comm ms", "calls/step", "stream", "collective", "kernel"]:
        raise Fail("collectives table header %r" % head)
    co = (J.get("comm") or {}).get("collectives") or []
    if len(rows) != len(co):
        c.errs.append("collectives: %d rows, JSON %d" % (len(rows), len(co)))
    for i, (r, x) in enumerate(zip(rows, co)):
        tag = "collective[%d]" % i
        c.eq(tag + " exposed", r[0], ms3(x["exposed_us"]))
        c.eq(tag + " comm", r[1], ms3(x["comm_us"]))
        c.eq(tag + " calls/step", r[2], str(x["calls_per_step"]))
        c.eq(tag + " stream", r[3], "-" if x["stream"] is None else str(x["stream"]))
        c.eq(tag + " collective", md_unescape(r[4]) if c.fmt == "md" else r[4], x["collective"])
        if not label_match(r[5], x["kernel"]):
            c.errs.append("%s kernel: text %r, JSON %r" % (tag, r[5], x["kernel"]))


def gap_causes(gaps):
    return {k[:-3]: v for k, v in gaps.items()
            if k.endswith("_us") and not k.startswith("hta") and not isinstance(v, (list, dict))}


def check_cause_table(c, head, rows, J):
    gaps = J.get("gaps")
    if not gaps:
        raise Fail("cause table but gaps is null")
    causes = gap_causes(gaps)
    col = {h: k for k, h in enumerate(head)}
    if "ms/step" not in col:
        raise Fail("cause table header %r" % head)
    keys = []
    for r in rows:
        k = r[0].split(":", 1)[0].strip()
        # the only number a cause's label holds is the launch rule's
        # threshold, 30 us (docs/report.md)
        nums = re.findall(r"\d+(?:\.\d+)?(?: ?\w+)?", md_unescape(r[0]) if c.fmt == "md" else r[0])
        if any(x != "30 us" for x in nums):
            c.errs.append("cause %r label numbers %r (only the 30 us threshold)" % (k, nums))
        if k not in causes:
            raise Fail("cause %r has no gaps.%s_us" % (k, k))
        keys.append(k)
    if sorted(keys) != sorted(causes):
        c.errs.append("cause table rows %r, JSON causes %r" % (keys, sorted(causes)))
    total = sum(ns(causes[k]) for k in keys)
    for r, k in zip(rows, keys):
        for h, j in col.items():
            if j == 0:
                continue
            if h == "ms/step":
                c.eq("cause %s ms/step" % k, r[j], ms3(causes[k]))
            elif h in ("of idle", "share"):
                c.eq("cause %s %s" % (k, h), r[j], pct1(ns(causes[k]), total))
            else:
                raise Fail("cause table column %r has no JSON counterpart" % h)


def check_class_table(c, head, rows, J):
    """The idle by class of host work: a row per gaps.classes entry (cause,
    class), ms/step its idle_per_step_us, "of cause" its share."""
    cl = (J.get("gaps") or {}).get("classes")
    if cl is None:
        raise Fail("class table but no gaps.classes")
    col = {h: k for k, h in enumerate(head)}
    want = {(x["cause"], x["class"]): x for x in cl}
    got = []
    for r in rows:
        key = (r[0].strip(), r[col["class of host work"]].strip())
        got.append(key)
        x = want.get(key)
        if x is None:
            c.errs.append("class row %r has no gaps.classes entry" % (key,))
            continue
        for h, j in col.items():
            if h in ("cause", "class of host work"):
                continue
            if h == "ms/step":
                c.eq("class %s/%s ms/step" % key, r[j], ms3(x["idle_per_step_us"]))
            elif h == "of cause":
                if not share_pct_ok(r[j], x.get("share")):
                    c.errs.append("class %s/%s of cause: text %r, JSON share %r" % (key + (r[j], x.get("share"))))
            else:
                raise Fail("class table column %r has no JSON counterpart" % h)
    if got != [(x["cause"], x["class"]) for x in cl]:
        c.errs.append("class table rows %r, JSON gaps.classes %r" % (got, [(x["cause"], x["class"]) for x in cl]))


def keyed_lists(J):
    out = []
    gaps = J.get("gaps") or {}
    for k, v in gaps.items():
        if isinstance(v, list):
            out.append(("gaps." + k, v))
    if J.get("idle_stacks"):
        out.append(("idle_stacks", J["idle_stacks"]))
    hs = J.get("host_side") or {}
    if hs.get("stacks"):
        out.append(("host_side.stacks", hs["stacks"]))
    return out


def entry_label(e):
    for k in ("stack", "wait", "site", "label"):
        if k in e:
            return e[k]
    return None


def check_keyed_table(c, heading, head, rows, J):
    """ms/step | ... | label tables: sync sites, host stacks, queued waits, idle stacks"""
    lab = len(head) - 1
    best = None
    for name, lst in keyed_lists(J):
        if len(rows) > len(lst):
            continue
        if all(label_match(r[lab], entry_label(e) or "") for r, e in zip(rows, lst)):
            best = (name, lst)
            # the heading names the list when two could match
            if ("syncs" in heading) == (name == "gaps.sync_sites") or len(rows) == 0:
                break
    if best is None:
        raise Fail("table %r under %r: no JSON list with these labels in this order" % (head, heading))
    name, lst = best
    for i, (r, e) in enumerate(zip(rows, lst)):
        for j, h in enumerate(head[:lab]):
            tag = "%s[%d] %s" % (name, i, h)
            if h == "ms/step":
                c.eq(tag, r[j], ms3(e["self_per_step_us"] if name == "host_side.stacks" else e["idle_per_step_us"]))
            elif h in ("ms", "idle ms"):
                c.eq(tag, r[j], ms3(e["idle_us"]))
            elif "share" in h or "%" in h or h.startswith("of "):
                if not share_pct_ok(r[j], e.get("share")):
                    c.errs.append("%s: text %r, JSON share %r" % (tag, r[j], e.get("share")))
            else:
                raise Fail("column %r of %s has no JSON counterpart" % (h, name))


def check_syncs_table(c, head, rows, J):
    if head != ["#", "per step", "wait ms", "bubble ms", "site", "op", "api"]:
        raise Fail("syncs table header %r" % head)
    sy = J["syncs"]
    if len(rows) > len(sy):
        raise Fail("syncs table has %d rows, JSON %d sites" % (len(rows), len(sy)))
    for i, (r, s) in enumerate(zip(rows, sy)):
        tag = "syncs[%d]" % i
        c.eq(tag + " #", r[0], str(i + 1))
        c.eq(tag + " per step", r[1], str(s["count_per_step"]))
        c.eq(tag + " wait", r[2], ms3(s["wait_us"]))
        # the table's bubble is per steady step (the gap table's sync-site
        # number for the same site): bubble_per_step_us
        c.eq(tag + " bubble", r[3], ms3(s["bubble_per_step_us"]))
        site = term(s["site"]) if c.fmt == "md" else term(basename_site(s["site"]))
        if not label_match(r[4], site if c.fmt == "md" else basename_site(s["site"])):
            c.errs.append("%s site: text %r, JSON %r" % (tag, r[4], s["site"]))
        if not label_match(r[5], s["op"]):
            c.errs.append("%s op: text %r, JSON %r" % (tag, r[5], s["op"]))
        api = s["api"] + (" (pageable)" if s["pageable"] else "")
        if not label_match(r[6], api):
            c.errs.append("%s api: text %r, JSON %r" % (tag, r[6], api))
    return len(rows)


def check_top_table(c, head, rows, J):
    if head == ["calls/step", "op"]:
        # a trace without device activity: the calls that would synchronise on a GPU
        ws_ = (J.get("host_side") or {}).get("would_sync") or []
        if len(rows) != len(ws_):
            c.errs.append("would-sync calls: %d rows, JSON %d" % (len(rows), len(ws_)))
        for i, (r, x) in enumerate(zip(rows, ws_)):
            c.eq("would_sync[%d] calls/step" % i, r[0], fixed(Decimal(x["count_per_step"]), 2))
            if not label_match(r[1], x["op"]):
                c.errs.append("would_sync[%d] op: text %r, JSON %r" % (i, r[1], x["op"]))
        return
    if head != ["calls/step", "kind", "name"]:
        raise Fail("top calls header %r" % head)
    tc = J["top_calls"]
    if len(rows) != len(tc):
        c.errs.append("top calls: %d rows, JSON %d" % (len(rows), len(tc)))
    for i, (r, t) in enumerate(zip(rows, tc)):
        c.eq("top[%d] calls/step" % i, r[0], str(t["per_step"]))
        c.eq("top[%d] kind" % i, r[1], t["kind"])
        if not label_match(r[2], t["name"]):
            c.errs.append("top[%d] name: text %r, JSON %r" % (i, r[2], t["name"]))


def candidates(J):
    """every value of the rank's JSON as the prose may print it, by unit"""
    ms, us, pct, cnt = set(), set(), set(), set()

    def add_us(v):
        for d in (1, 2, 3):
            ms.add(fixed(Decimal(v) / 1000, d))
        for d in (0, 1, 2, 3):
            us.add(fixed(Decimal(v), d))

    def walk(x, key=""):
        if isinstance(x, dict):
            for k, v in x.items():
                walk(v, k)
        elif isinstance(x, list):
            for v in x:
                walk(v, key)
        elif isinstance(x, bool) or x is None or isinstance(x, str):
            return
        elif key.endswith("_us"):
            add_us(x)
        elif "share" in key or "ratio" in key:
            for d in (0, 1, 2):
                for delta in (Decimal("-0.00005"), 0, Decimal("0.00005")):
                    pct.add(fixed((Decimal(x) + delta) * 100, d))
        else:
            cnt.add(str(x))
            add_us(Decimal(x))
    walk(J)
    gaps = J.get("gaps")
    S = J.get("summary") or {}
    if gaps:
        # sums of gap causes: "X are gaps" (all of them), "Y other" (the
        # causes a verdict lumps together, each under 1% of the step)
        vals = list(gap_causes(gaps).values())
        for mask in range(1, 1 << len(vals)):
            add_us(sum(Decimal(v) for k, v in enumerate(vals) if mask >> k & 1))
        # the GPU-bound verdict's busy share outside the window edges
        if "edge_us" in gaps and S.get("steady_step_us") is not None:
            w = ns(S["steady_step_us"]) - ns(gaps["edge_us"])
            if w > 0:
                pct.add(pct0(ns(S["gpu_busy_us"]), w)[:-1])
                pct.add(pct1(ns(S["gpu_busy_us"]), w)[:-1])
    if S.get("steady_step_us") is not None:
        pct.add(pct0(ns(S["gpu_busy_us"]), ns(S["steady_step_us"]))[:-1])
    cm = J.get("comm")
    if cm and ns(cm["wall_us"]) > 0:
        # the communication verdict's busy and exposed shares of the mean step
        for k in ("busy_us", "exposed_us"):
            pct.add(pct0(ns(cm[k]), ns(cm["wall_us"]))[:-1])
    return ms, us, pct, cnt


def strings(J):
    out = set()

    def walk(x):
        if isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
        elif isinstance(x, str) and len(x) >= 3:
            out.add(term(x))
            b = basename_site(x)
            if "(" in x and len(b) >= 3:
                out.add(term(b))
    walk(J)
    for k in ("verdict", "action"):
        out.discard(term(J["summary"].get(k) or ""))
    return sorted(out, key=len, reverse=True)


def check_free_numbers(c, what, s, J):
    """every number in s (names of the JSON removed) is a JSON value"""
    # and the frames of the verdict's stack, which the prose names a few of
    vs = (J.get("summary") or {}).get("verdict_stack") or ""
    names = sorted(set(strings(J)) | set(vs.split(" > ")) - {""}, key=len, reverse=True)
    for name in names:
        if name in s:
            s = s.replace(name, " ")
    # the launch rule's threshold (HTA's consecutive_kernel_delay), a constant
    s = s.replace("gaps under 30 us", " ")
    ms, us, pct, cnt = candidates(J)
    for m in re.finditer(r"(?<![\w.#])(-?\d+(?:\.\d+)?)( ?(ms|us|%))?", s):
        v, unit = m.group(1), m.group(3)
        pool = {"ms": ms, "us": us, "%": pct}.get(unit, cnt | ms | us)
        if v not in pool:
            c.verrs.append("%s: %s%s has no JSON counterpart" % (what, v, " " + unit if unit else ""))


FIXED = {
    "Not launch-bound (needs the time inside launch calls plus the launch latency of queued work to be the "
    "largest part of the idle time, GPU busy < 80%, median kernel < median launch call, and no deep queue of "
    "graph replays).",
    "Compare its step table with the others': its extra time before the collectives is the cause.",
    "No clear straggler (ranks arrive last about equally often); the most likely one:",
}


def check_para(c, s, J):
    s = ws(s)
    # a finding (caveats of the profile): its words are the JSON's findings[].text
    if any(ws(f.get("text") or "") == s for f in J.get("findings") or []):
        return
    if s in FIXED:
        if s.startswith("Not launch-bound") and J.get("launch") and J["launch"]["launch_bound"]:
            c.errs.append("'Not launch-bound' but launch.launch_bound is true")
        return
    g = J.get("gaps") or {}
    L = J.get("launch") or {}
    cm = J.get("comm") or {}
    S = J["summary"]
    W = J.get("warnings") or {}
    m = re.fullmatch(r"HTA.*?host wait (\S+) ms, kernel wait (\S+) ms, other (\S+) ms", s)
    if m:
        def hk(suffix):
            ks = [k for k in g if k.startswith("hta") and k.endswith(suffix)]
            if len(ks) != 1:
                raise Fail("HTA line: no single gaps.hta*%s field (%r)" % (suffix, ks))
            return g[ks[0]]
        c.eq("HTA host wait", m.group(1), ms3(hk("host_wait_us")))
        c.eq("HTA kernel wait", m.group(2), ms3(hk("kernel_wait_us")))
        c.eq("HTA other", m.group(3), ms3(hk("other_us")))
        return
    m = re.fullmatch(r"Work starts a median (\S+) (ms|us) after its launch call \((\d+) launch calls?\)\.", s)
    if m:
        lat = g.get("latency") or {}
        v = Decimal(lat.get("median_launch_to_start_us", -1))
        # printed in us like the launch line's other medians
        c.eq("latency median", m.group(1) + " " + m.group(2), us1(v) + " us")
        c.eq("latency launches", m.group(3), str(lat.get("launches")))
        return
    m = re.fullmatch(r"(\d+) kernels and (\d+) launch calls per step(?: \((\d+) graph launches in (\d+) "
                     r"steps\))?; median kernel (\S+) us vs median launch call (\S+) us\.", s)
    if m:
        c.eq("kernels per step", m.group(1), str(L["kernels_per_step"]))
        c.eq("launches per step", m.group(2), str(L["launches_per_step"]))
        if m.group(3):
            c.eq("graph launches", m.group(3), str(L["graph_launches"]))
            c.eq("graph launch steps", m.group(4), str(rank_steps(J)))
        elif int(L["graph_launches"]):
            c.errs.append("graph launches %s not in the text" % L["graph_launches"])
        c.eq("median kernel", m.group(5), us1(L["median_kernel_us"]))
        c.eq("median launch", m.group(6), us1(L["median_launch_us"]))
        return
    m = re.fullmatch(r"(\S+) of (\d+) kernels are shorter than their launch call \(HTA short kernels\)\.", s)
    if m:
        c.eq("short kernels %", m.group(1), pct0(int(L["short_kernels"]), int(L["compared_kernels"])))
        c.eq("compared kernels", m.group(2), str(L["compared_kernels"]))
        return
    m = re.fullmatch(r"Launch-bound: (.*)\.", s)
    if m:
        c.eq("launch advice", m.group(1), ws(term(L.get("recommendation") or "")))
        return
    if s == "No blocking host calls in the selected steps.":
        if J["syncs"]:
            c.errs.append("'No blocking host calls' but JSON lists %d" % len(J["syncs"]))
        return
    m = re.fullmatch(r"\.\.\. (\d+) more sites \(gpuflame syncs lists them all\)", s)
    if m:
        c.eq("more sites", m.group(1), str(len(J["syncs"]) - c.sync_rows))
        return
    m = re.fullmatch(r"(\d+) NCCL kernels; comm (\S+) ms, overlapped with compute (\S+) ms \((\S+)\), "
                     r"exposed (\S+) ms per step\.", s)
    if m:
        c.eq("NCCL kernels", m.group(1), str(cm["kernels"]))
        c.eq("NCCL comm", m.group(2), ms3(cm["comm_us"]))
        c.eq("NCCL overlap", m.group(3), ms3(cm["overlap_us"]))
        c.eq("NCCL overlap %", m.group(4), pct1(ns(cm["overlap_us"]), ns(cm["comm_us"])))
        c.eq("NCCL exposed", m.group(5), ms3(cm["exposed_us"]))
        return
    m = re.fullmatch(r"HTA comm/compute overlap over the whole trace: (\S+)\.", s)
    if m:
        c.eq("HTA overlap", m.group(1), pct1(ns(cm["hta_overlap_us"]), ns(cm["hta_comm_us"])))
        if not share_pct_ok(m.group(1), cm["hta_overlap_ratio"]):
            c.errs.append("HTA overlap %s vs hta_overlap_ratio %s" % (m.group(1), cm["hta_overlap_ratio"]))
        return
    m = re.fullmatch(r"Profiled steady step (\S+) ms vs unprofiled (\S+) ms: (?:the profiler adds (\S+) ms "
                     r"per step \((\S+) of the unprofiled step\); (that is more than all GPU idle time, so "
                     r"host-bound conclusions may be profiler artefacts|host gaps above are inflated by at "
                     r"most that much)\.|(no measurable profiler overhead)\.)", s)
    if m:
        o = J.get("overhead")
        if not o:
            raise Fail("overhead prose but JSON overhead is null")
        c.eq("overhead step", m.group(1), ms3(S["steady_step_us"]))
        c.eq("overhead unprofiled", m.group(2), ms3(o["unprofiled_step_us"]))
        d = ns(o["overhead_us"])
        if m.group(6):
            if d > 0:
                c.errs.append("'no measurable overhead' but overhead_us %s" % o["overhead_us"])
        else:
            c.eq("overhead", m.group(3), ms3(o["overhead_us"]))
            c.eq("overhead %", m.group(4), pct1(d, ns(o["unprofiled_step_us"])))
            more = d > ns(S["idle_us"])
            if more != m.group(5).startswith("that is more"):
                c.errs.append("overhead vs idle: text says %r, JSON %s vs idle %s" %
                              (m.group(5)[:20], o["overhead_us"], S["idle_us"]))
        return
    m = re.fullmatch(r"Steady step (\S+) ms vs your estimate (\S+) ms: (?:(\S+) ms \((\S+)\) above it; GPU "
                     r"busy alone is (\S+) ms, so GPU idle \((\S+) ms\) explains (\S+) of the distance\.|"
                     r"(at or below it: the estimate is reached)\.)", s)
    if m:
        e = J.get("expect")
        if not e:
            raise Fail("speed-of-light prose but JSON expect is null")
        c.eq("expect step", m.group(1), ms3(S["steady_step_us"]))
        c.eq("expect estimate", m.group(2), ms3(e["expect_us"]))
        d = ns(e["distance_us"])
        if m.group(8):
            if d > 0:
                c.errs.append("'at or below' but distance_us %s" % e["distance_us"])
        else:
            c.eq("distance", m.group(3), ms3(e["distance_us"]))
            c.eq("distance %", m.group(4), pct1(d, ns(e["expect_us"])))
            c.eq("expect busy", m.group(5), ms3(S["gpu_busy_us"]))
            c.eq("expect idle", m.group(6), ms3(S["idle_us"]))
            idle = ns(S["idle_us"])
            c.eq("idle explains", m.group(7), pct1(min(idle, d), d))
        return
    m = re.fullmatch(r"(\d+) GPU activities have no launch in the trace \((\d+) launched before the window\)", s)
    if m:
        c.eq("unattributed", m.group(1), str(W["unattributed_activities"]))
        c.eq("before window", m.group(2), str(W["launched_before_window"]))
        return
    m = re.fullmatch(r"(\d+) host ranges overlapped without nesting and were clipped", s)
    if m:
        c.eq("clipped", m.group(1), str(W["clipped_ranges"]))
        return
    if s == "no step markers: the whole trace is one step (use --step-marker NAME)":
        if not J["whole_trace"]:
            c.errs.append("'no step markers' but whole_trace is false")
        return
    m = re.fullmatch(r"(\d+) steps left out by --steps/--skip", s)
    if m:
        c.eq("steps left out", m.group(1), str(W["steps_left_out"]))
        return
    if s == "the trace file is truncated: read up to its last complete event":
        if not W["truncated"]:
            c.errs.append("'truncated' but warnings.truncated is false")
        return
    if NUM.search(s):
        c.errs.append("prose with numbers no rule knows: %r" % s[:160])


def check_info(c, s, J):
    m = re.fullmatch(r"(?:rank (\d+)(?: of (\d+))?, )?(?:device (\d+)(?: \(([\w+]+)\))?, )?(\d+) steps? "
                     r"\((\d+) warm-up, (\d+) steady\); times in ms", ws(s))
    if not m:
        raise Fail("info line %r" % s)
    S = J["summary"]
    c.eq("rank", m.group(1), None if J["rank"] is None else str(J["rank"]))
    c.eq("world size", m.group(2), None if J["world_size"] is None or J["rank"] is None else str(J["world_size"]))
    c.eq("device", m.group(3), None if J["device"] is None else str(J["device"]))
    c.eq("device kind", m.group(4), J.get("device_kind") if J["device"] is not None else None)
    c.eq("steps", m.group(5), str(S["steps"]))
    c.eq("warm-up steps", m.group(6), str(S["warmup_steps"]))
    c.eq("steady steps", m.group(7), str(S["steady_steps"]))


def check_rank(c, blocks, J):
    """blocks of one rank's report (title first) against its JSON"""
    kinds = [b[0] for b in blocks]
    if kinds[:2] != ["title", "info"]:
        raise Fail("rank section starts with %r" % kinds[:2])
    c.eq("title file", blocks[0][1], term(J["file"]))
    heading = ""
    seen = set()
    c.sync_rows = 0
    for b in blocks[1:]:
        k = b[0]
        if k == "info":
            check_info(c, b[1], J)
        elif k == "heading":
            heading = b[1]
            if NUM.search(heading):
                c.errs.append("heading with a number: %r" % heading)
        elif k in ("verdict", "next"):
            want = J["summary"]["verdict" if k == "verdict" else "action"]
            c.eq(k, ws(b[1]), ws(term(want or "")))
            check_free_numbers(c, k, ws(b[1]), J)
            seen.add(k)
        elif k == "table":
            head, rows = b[1], b[2]
            for j, h in enumerate(head):
                if not h and all(not r[j] for r in rows):
                    c.errs.append("table %r: column %d is empty in every row" % (head[:3], j + 1))
            if head and head[0] == "step" and "compute" in head:
                check_comm_steps(c, head, rows, J)
            elif head and head[0] == "step":
                check_step_table(c, head, rows, J)
            elif head and head[0] == "exposed ms":
                check_coll_table(c, head, rows, J)
            elif head and head[0] == "cause" and "class of host work" in head:
                check_class_table(c, head, rows, J)
            elif head and head[0] == "cause":
                check_cause_table(c, head, rows, J)
            elif head and head[0] == "#":
                c.sync_rows = check_syncs_table(c, head, rows, J)
            elif head and head[0] == "calls/step":
                check_top_table(c, head, rows, J)
            elif head and head[0] in ("ms/step", "ms", "idle ms"):
                check_keyed_table(c, heading, head, rows, J)
            else:
                raise Fail("a table no rule knows: %r under %r" % (head, heading))
            seen.add(head[0] if head else "")
        elif k == "para":
            check_para(c, b[1], J)
        else:
            raise Fail("block %r in a rank's section" % k)
    if J["summary"].get("verdict") and "verdict" not in seen:
        c.errs.append("JSON has a verdict, the text none")
    if "step" not in seen:
        c.errs.append("no step table")


def check_ranks_table(c, head, rows, D):
    R = D["ranks"]
    st = D.get("straggler")
    if head[0] != "per step":
        raise Fail("ranks table header %r" % head)
    idx = []
    for h in head[1:]:
        m = re.fullmatch(r"#(\d+)", h)
        if not m or not 1 <= int(m.group(1)) <= len(R):
            raise Fail("ranks table column %r" % h)
        idx.append(int(m.group(1)) - 1)
    names = [r[0] for r in rows]
    want = ["file", "rank", "steps (warm-up)", "wall ms", "GPU busy ms", "busy %", "idle ms", "sync wait ms",
            "syncs", "launches", "kernels", "NCCL exposed ms", "coll. wait ms"]
    if names != want:
        raise Fail("ranks table rows %r" % names)
    for r in rows:
        for cell, k in zip(r[1:], idx):
            J = R[k]
            S = J["summary"]
            tag = "#%d %s" % (k + 1, r[0])
            if r[0] == "file":
                nm = J["file"].rsplit("/", 1)[-1]
                if not label_match(cell, nm):
                    c.errs.append("%s: text %r, JSON %r" % (tag, cell, J["file"]))
            elif r[0] == "rank":
                c.eq(tag, cell, "-" if J["rank"] is None else str(J["rank"]))
            elif r[0] == "steps (warm-up)":
                c.eq(tag, cell, "%s (%s)" % (S["steps"], S["warmup_steps"]))
            elif r[0] == "wall ms":
                c.eq(tag, cell, ms3(S["steady_step_us"]))
            elif r[0] == "GPU busy ms":
                c.eq(tag, cell, ms3(S["gpu_busy_us"]))
            elif r[0] == "busy %":
                c.eq(tag, cell, pct0(ns(S["gpu_busy_us"]), ns(S["steady_step_us"])))
            elif r[0] == "idle ms":
                c.eq(tag, cell, ms3(S["idle_us"]))
            elif r[0] == "sync wait ms":
                c.eq(tag, cell, ms3(S["sync_wait_us"]))
            elif r[0] in ("syncs", "launches", "kernels"):
                c.eq(tag, cell, str(S[r[0]]))
            elif r[0] == "NCCL exposed ms":
                c.eq(tag, cell, ms3(J["comm"]["exposed_us"]) if J.get("comm") else "-")
            elif r[0] == "coll. wait ms":
                c.eq(tag, cell, ms3(st["per_rank"][k]["wait_us"]) if st else "-")
    return idx


def check_multi_head(c, blocks, D):
    R = D["ranks"]
    st = D.get("straggler")
    m = re.fullmatch(r"(\d+) ranks \(never merged(; steady medians per step, ms)?\)", blocks[0][1])
    if not m:
        raise Fail("ranks title %r" % blocks[0][1])
    c.eq("ranks", m.group(1), str(len(R)))
    cols = []
    for b in blocks[1:]:
        if b[0] == "table":
            cols += check_ranks_table(c, b[1], b[2], D)
        elif b[0] == "heading":
            pass
        elif b[0] == "para":
            s = ws(b[1])
            m = re.fullmatch(r"#(\d+): (.*)", s)
            if m:
                k = int(m.group(1)) - 1
                c.eq("verdict #%d" % (k + 1), m.group(2), ws(term(R[k]["summary"]["verdict"] or "-")))
                check_free_numbers(c, "verdict #%d" % (k + 1), m.group(2), R[k])
                continue
            m = re.fullmatch(r"(?:No clear straggler \(ranks arrive last about equally often\); the most likely "
                             r"one: )?#(\d+) \((.*)\) arrived last at (\d+) of (\d+) matched collectives \((\S+)\);"
                             r" the other ranks waited (\S+) ms in total for it\.(?: (\d+) collectives were not "
                             r"found on every rank\.)?", s)
            if m:
                if not st:
                    raise Fail("straggler prose but JSON straggler is null")
                k = int(m.group(1)) - 1
                c.eq("straggler index", k, st["index"])
                c.eq("straggler file", m.group(2), term(st["file"]))
                pr = st["per_rank"][k]
                c.eq("arrived last", m.group(3), str(pr["arrived_last"]))
                c.eq("matched", m.group(4), str(st["matched"]))
                c.eq("arrived last %", m.group(5), pct0(int(pr["arrived_last"]), int(st["matched"])))
                others = sum(ns(p["wait_us"]) for i, p in enumerate(st["per_rank"]) if i != k)
                c.eq("others waited", m.group(6), ms3(Decimal(others) / 1000))
                c.eq("unmatched", m.group(7), str(st["unmatched"]) if int(st["unmatched"]) else None)
                if s.startswith("No clear") == bool(st["clear"]):
                    c.errs.append("straggler clear=%s but the text says %r" % (st["clear"], s[:30]))
                continue
            if s == "No NCCL collective matched across all ranks.":
                if st:
                    c.errs.append("'No NCCL collective matched' but JSON has a straggler")
                continue
            if s.startswith("No clear straggler") and st and not st["clear"]:
                continue
            check_para(c, s, R[0]) if not NUM.search(s) else c.errs.append("multi-rank prose %r" % s[:120])
        else:
            raise Fail("block %r in the ranks' head" % b[0])
    if sorted(cols) != list(range(len(R))):
        c.errs.append("ranks table columns %r for %d ranks" % (cols, len(R)))


def check_doc(doc, fmt, D):
    c = Ctx(fmt)
    blocks = blocks_text(doc) if fmt == "text" else blocks_md(doc)
    starts = [i for i, b in enumerate(blocks) if b[0] == "title"]
    if not starts or starts[0] != 0:
        raise Fail("no title first")
    secs = [blocks[a:b] for a, b in zip(starts, starts[1:] + [len(blocks)])]
    if "ranks" in D:
        check_multi_head(c, secs[0], D)
        if len(secs) - 1 != len(D["ranks"]):
            raise Fail("%d rank sections, JSON %d ranks" % (len(secs) - 1, len(D["ranks"])))
        for s, J in zip(secs[1:], D["ranks"]):
            check_rank(c, s, J)
    else:
        if len(secs) != 1:
            raise Fail("%d titles in a one-rank report" % len(secs))
        check_rank(c, secs[0], D)
    return c.errs, c.verrs


def run_one(doc, fmt, D):
    """(errors, verdict-number errors)"""
    try:
        return check_doc(doc, fmt, D)
    except Fail as e:
        return [str(e)], []
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as e:
        return ["checker could not map the text (%s: %s)" % (type(e).__name__, e)], []


def load_json(p):
    with open(p) as fp:
        return json.load(fp, parse_float=Decimal)


def fixed_spans(doc):
    """digits that belong to the fixed wording, not to values"""
    spans = []
    for pat in [r"launch\\?: gaps under 30 us between kernels", r"GPU busy < 80%", r"\d+ ranks \(never merged",
                r"--weight", r"\(HTA short kernels\)"]:
        for m in re.finditer(pat, doc):
            spans.append((m.start(), m.end()))
    # the multi-rank title's count is a value: keep only the literal parts
    return spans


def selfcheck(name, fmt, text_path, json_path):
    doc = open(text_path, encoding="utf-8", errors="replace").read()
    D = load_json(json_path)
    e0, v0 = run_one(doc, fmt, D)
    if e0:
        print("FAIL %s-%s-selfcheck: the unaltered text fails: %s" % (name, fmt, e0[0]))
        return
    base = set(v0)

    def caught(alt):
        e, v = run_one(alt, fmt, D)
        return bool(e) or bool(set(v) - base)
    fixed_ = fixed_spans(doc)
    end = len(doc)
    if "ranks" in D:
        # several ranks: the head (ranks table, straggler, verdicts) only;
        # each rank's own section is the one-rank case
        t = re.compile(r"^(## )?gpuflame report: ", re.M)
        starts = [m.start() for m in t.finditer(doc)]
        end = starts[1] if len(starts) > 1 else end
    tried = 0
    for i, ch in enumerate(doc[:end]):
        if not ch.isdigit() or any(a <= i < b for a, b in fixed_):
            continue
        alt = doc[:i] + ("1" if ch != "1" else "2") + doc[i + 1:]
        tried += 1
        if not caught(alt):
            lo = doc.rfind("\n", 0, i) + 1
            hi = doc.find("\n", i)
            print("FAIL %s-%s-selfcheck: digit %d changed at offset %d went unnoticed in %r" %
                  (name, fmt, tried, i, doc[lo:hi if hi >= 0 else None][:120]))
            return
    # a dropped table row and an extra number are caught too
    if not caught(doc + ("\n  42 extra ms.\n" if fmt == "text" else "\n42 extra ms.\n")):
        print("FAIL %s-%s-selfcheck: an added sentence with a number went unnoticed" % (name, fmt))
        return
    print("PASS %s-%s-selfcheck (%d digits altered, each caught)" % (name, fmt, tried))


def main(argv):
    if len(argv) == 6 and argv[1] == "--selfcheck":
        selfcheck(argv[2], argv[3], argv[4], argv[5])
        return 0
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    for line in open(argv[1]):
        line = line.rstrip("\n")
        if not line:
            continue
        name, tp, mp, jp = line.split("\t")
        try:
            D = load_json(jp)
        except (OSError, ValueError) as e:
            print("FAIL %s-json: %s" % (name, e))
            continue
        for fmt, p in (("text", tp), ("md", mp)):
            doc = open(p, encoding="utf-8", errors="replace").read()
            errs, verrs = run_one(doc, fmt, D)
            for tag, e in (("", errs), ("-verdict-numbers", verrs)):
                if e:
                    print("FAIL %s-%s%s: %s%s" % (name, fmt, tag, "; ".join(e[:3]),
                                                  " (+%d more)" % (len(e) - 3) if len(e) > 3 else ""))
                else:
                    print("PASS %s-%s%s" % (name, fmt, tag))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
