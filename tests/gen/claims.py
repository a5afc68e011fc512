#!/usr/bin/env python3
"""claims.py — check hand-written claims about real traces (issue 24) against
`gpuflame report --format json --explain all`. Stdlib only; numbers are read
as exact decimals.

  claims.py FILE.claims...              run $GF on each claims file's trace
                                        and check every claim: one line
                                        "PASS claims/<trace>/<line>" or
                                        "FAIL claims/<trace>/<line>: expected
                                        X, got Y" per claim
  claims.py --json REPORT FILE.claims   check against a saved report instead
                                        of running $GF
  claims.py --self-check ...            flip every claim that holds in turn
                                        (another cause or class, a negated
                                        substring, busy <-> idle, a verdict
                                        claim <-> its negation) and require
                                        the check of the flipped claim to
                                        fail: "PASS selfcheck/<trace>/<line>/
                                        <flip>" or FAIL
  claims.py --parse-only FILE.claims... parse and report syntax errors only
  claims.py --no-explain FILE.claims... run `report --format json` without
                                        --explain (a build from before issue
                                        24): check the verdict and Next claims
                                        only; each `at` claim prints SKIP

A claims file whose trace is absent prints one "SKIP claims/<trace>: ..."
line (with the number of claims not checked) and counts as no failure.
Exit status: 0 when no line printed is FAIL, 1 when any FAIL, 2 on a
syntax error in a claims file or a usage error.

Claims file (docs: /work/notes/explain_contract.md, tests/README.md):
  trace <path under tests/corpus/>            the first non-comment line
  args <extra report arguments>               optional (--steps 2..5, ...)
  at <ts_us> cause=<c> [class=<k>|class=null] [frame~S] [stack~S] [call~S]
        [waits~S]        the instant lies in an idle piece of the explained
                         gaps with those properties
  at <ts_us> busy        no idle piece holds the instant and it lies inside
                         a selected step (the device is busy there)
  at <ts_us> idle        some idle piece holds the instant (any cause)
  verdict cause=<c> [class=<k>] [stack~S]
  verdict-not cause=<c> | class=<k> | text~S
  next~S / next-not~S
A term key!~S requires the field NOT to contain S. Values with spaces or '#'
are written in double quotes (shell-like words; '#' starts a comment at the
start of a word). Substring tests of at/verdict/next are case-sensitive;
verdict-not text~S is case-insensitive (the text must not say it in any
case). The instant is µs in the trace's own time base, as its "ts" values
are written (the report's steps[].start_us base).
"""
import json
import os
import shlex
import subprocess
import sys
from decimal import Decimal, InvalidOperation

CAUSES = ["edge", "sync", "host", "untraced", "queued", "launch"]
CLASSES = ["allocator", "warmup", "data", "python", "sync", "launch", "other"]
SUBKEYS = {"frame": "frame", "stack": "stack", "call": "call", "waits": "waits_on"}
HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.normpath(os.path.join(HERE, "..", "corpus"))


class SyntaxErr(Exception):
    pass


class Claim:
    """kind: at | verdict | verdict-not | next | next-not; terms: list of (key, op, value)."""

    def __init__(self, line, kind, ts=None, terms=None, text=""):
        self.line = line
        self.kind = kind
        self.ts = ts
        self.terms = terms or []
        self.text = text

    def copy(self, kind=None, terms=None):
        return Claim(self.line, kind or self.kind, self.ts,
                     list(terms if terms is not None else self.terms), self.text)

    def render(self):
        parts = [self.kind]
        if self.ts is not None:
            parts.append(str(self.ts))
        for k, op, v in self.terms:
            if k in ("busy", "idle"):
                parts.append(k)
            elif op == "=":
                parts.append("%s=%s" % (k, v))
            else:
                parts.append("%s%s%s" % (k, op, shlex.quote(v)))
        return " ".join(parts)


def parse_term(tok, where):
    for op in ("!~", "~", "="):
        i = tok.find(op)
        if i > 0:
            k, v = tok[:i], tok[i + len(op):]
            return k, op, v
    raise SyntaxErr("%s: expected key=value or key~substring, got %r" % (where, tok))


def parse_file(path):
    trace, args, claims = None, [], []
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for n, raw in enumerate(lines, 1):
        where = "%s:%d" % (path, n)
        try:
            words = shlex.split(raw, comments=True, posix=True)
        except ValueError as e:
            raise SyntaxErr("%s: %s" % (where, e))
        if not words:
            continue
        head, rest = words[0], words[1:]
        if trace is None:
            if head != "trace" or len(rest) != 1:
                raise SyntaxErr("%s: expected 'trace <path under tests/corpus/>' first" % where)
            trace = rest[0]
            continue
        if head == "trace":
            raise SyntaxErr("%s: a second 'trace' line" % where)
        if head == "args":
            if claims:
                raise SyntaxErr("%s: 'args' must come before the claims" % where)
            args += rest
            continue
        if head == "at":
            if not rest:
                raise SyntaxErr("%s: 'at' needs an instant" % where)
            try:
                ts = Decimal(rest[0])
            except InvalidOperation:
                raise SyntaxErr("%s: expected an instant in us, got %r" % (where, rest[0]))
            terms = []
            for tok in rest[1:]:
                if tok in ("busy", "idle"):
                    terms.append((tok, "", ""))
                    continue
                k, op, v = parse_term(tok, where)
                if k == "cause":
                    if op != "=" or v not in CAUSES:
                        raise SyntaxErr("%s: cause must be one of %s" % (where, ", ".join(CAUSES)))
                elif k == "class":
                    if op != "=" or (v not in CLASSES and v != "null"):
                        raise SyntaxErr("%s: class must be one of %s or null" % (
                            where, ", ".join(CLASSES)))
                elif k in SUBKEYS:
                    if op == "=":
                        raise SyntaxErr("%s: %s takes ~substring" % (where, k))
                else:
                    raise SyntaxErr("%s: unknown key %r" % (where, k))
                terms.append((k, op, v))
            kinds = [k for k, _, _ in terms]
            if ("busy" in kinds) + ("idle" in kinds) + ("cause" in kinds) != 1:
                raise SyntaxErr("%s: 'at' takes exactly one of busy, idle or cause=" % where)
            if "busy" in kinds and len(terms) != 1:
                raise SyntaxErr("%s: 'at T busy' takes no other term" % where)
            claims.append(Claim(n, "at", ts, terms, raw.strip()))
            continue
        if head in ("verdict", "verdict-not"):
            terms = [parse_term(t, where) for t in rest]
            if not terms:
                raise SyntaxErr("%s: %s needs a term" % (where, head))
            for k, op, v in terms:
                if k == "cause" and (op != "=" or v not in CAUSES + ["gpu_bound", "comm", "none"]):
                    raise SyntaxErr("%s: verdict cause must be one of %s, gpu_bound, comm, none" % (
                        where, ", ".join(CAUSES)))
                if k == "class" and (op != "=" or (v not in CLASSES and v != "null")):
                    raise SyntaxErr("%s: verdict class must be a class key or null" % where)
                if k not in ("cause", "class", "stack", "text"):
                    raise SyntaxErr("%s: unknown verdict key %r" % (where, k))
                if head == "verdict" and k == "text":
                    raise SyntaxErr("%s: text~ is for verdict-not (use next~ for Next)" % where)
                if head == "verdict-not" and (len(terms) != 1 or k == "stack"):
                    raise SyntaxErr("%s: verdict-not takes one of cause=, class=, text~" % where)
            claims.append(Claim(n, head, None, terms, raw.strip()))
            continue
        if head.startswith("next~") or head.startswith("next-not~"):
            k, op, v = parse_term(head, where)
            if rest:
                raise SyntaxErr("%s: quote a substring with spaces: next~\"...\"" % where)
            claims.append(Claim(n, k, None, [("text", op, v)], raw.strip()))
            continue
        raise SyntaxErr("%s: unknown claim %r" % (where, head))
    if trace is None:
        raise SyntaxErr("%s: no 'trace' line" % path)
    return trace, args, claims


def loads(text):
    return json.loads(text, parse_float=Decimal, parse_int=Decimal)


def run_report(trace_path, args, explain=True):
    gf = os.environ.get("GF")
    if not gf:
        raise SystemExit("claims.py: set GF to the gpuflame binary (or use --json)")
    cmd = [gf, "report", "--format", "json"] + (["--explain", "all"] if explain else []) + args + [
        trace_path]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        err = p.stderr.decode("utf-8", "replace").strip().split("\n")[0]
        return None, "%s exited %d: %s" % (" ".join(cmd[1:]), p.returncode, err)
    try:
        return loads(p.stdout.decode("utf-8")), None
    except ValueError as e:
        return None, "report output is not JSON: %s" % e


def num(v):
    return v if isinstance(v, Decimal) else None


def pieces_at(rep, t):
    out = []
    for g in rep.get("explain") or []:
        gs, ge = num(g.get("start_us")), num(g.get("end_us"))
        if gs is None or ge is None or not (gs <= t < ge):
            continue
        for p in g.get("pieces") or []:
            ps, pe = num(p.get("start_us")), num(p.get("end_us"))
            if ps is not None and pe is not None and ps <= t < pe:
                out.append(p)
    return out


def in_steps(rep, t):
    for s in rep.get("steps") or []:
        st, w = num(s.get("start_us")), num(s.get("wall_us"))
        if st is not None and w is not None and st <= t < st + w:
            return True
    return False


def describe(p):
    keys = ("cause", "class", "frame", "stack", "call", "waits_on")
    return "{" + ", ".join("%s=%s" % (k, json.dumps(p.get(k))) for k in keys) + "}"


def check_term(val, op, want):
    if op == "=":
        if want == "null":
            return val is None
        return val == want
    s = val if isinstance(val, str) else ""
    has = want in s
    return has if op == "~" else not has


def check(claim, rep):
    """(ok, message) of one claim against a report."""
    if claim.kind == "at":
        t = claim.ts
        kinds = [k for k, _, _ in claim.terms]
        ps = pieces_at(rep, t)
        if "busy" in kinds:
            if ps:
                return False, "expected busy at %s, got idle piece %s" % (t, describe(ps[0]))
            if not in_steps(rep, t):
                return False, "expected busy at %s, got an instant outside the selected steps" % t
            return True, ""
        if not ps:
            return False, "expected an idle piece at %s (%s), got none (busy or not explained)" % (
                t, claim.render())
        if len(ps) > 1:
            return False, "expected one idle piece at %s, got %d overlapping" % (t, len(ps))
        p = ps[0]
        for k, op, v in claim.terms:
            if k == "idle":
                continue
            field = SUBKEYS.get(k, k)
            if not check_term(p.get(field), op, v):
                return False, "expected %s%s%s at %s, got %s" % (k, op, v, t, describe(p))
        return True, ""
    s = rep.get("summary") or {}
    if claim.kind in ("verdict", "verdict-not"):
        neg = claim.kind == "verdict-not"
        for k, op, v in claim.terms:
            if k == "cause":
                got = s.get("verdict_cause")
            elif k == "class":
                got = s.get("verdict_class")
            elif k == "stack":
                got = s.get("verdict_stack")
            else:  # text, verdict-not only: case-insensitive over verdict and Next
                got = "%s\n%s" % (s.get("verdict") or "", s.get("action") or "")
                has = v.lower() in got.lower()
                ok = (not has) if op == "~" else has
                if not ok:
                    return False, "expected the verdict and Next %s say %r, got %r" % (
                        "not to" if op == "~" else "to", v, got)
                continue
            ok = check_term(got, op, v)
            if neg:
                ok = not ok
            if not ok:
                return False, "expected verdict %s%s%s%s, got %s" % (
                    "not " if neg else "", k, op, v, json.dumps(got))
        return True, ""
    # next / next-not
    got = s.get("action") or ""
    (_, op, v), = claim.terms
    has = v in got
    want = (op == "~") if claim.kind == "next" else (op != "~")
    if has != want:
        return False, "expected Next %s contain %r, got %r" % ("to" if want else "not to", v, got)
    return True, ""


def term_flips(claim, causes):
    """Each term of an at/verdict claim changed in turn: another cause (the next of `causes`), another
    class, a substring test negated."""
    out = []
    for i, (k, op, v) in enumerate(claim.terms):
        t = list(claim.terms)
        if k in ("cause", "class"):
            keys = causes if k == "cause" else CLASSES + ["null"]
            t[i] = (k, op, keys[(keys.index(v) + 1) % len(keys)])
            label = "%s=%s" % (k, t[i][2])
        else:
            t[i] = (k, "!~" if op == "~" else "~", v)
            label = "%s%s" % (k, t[i][1])
        out.append((label, claim.copy(terms=t)))
    return out


def flips(claim):
    """(label, flipped claim) pairs; each must fail where the claim holds."""
    if claim.kind == "at":
        kinds = [k for k, _, _ in claim.terms]
        if "busy" in kinds:
            return [("busy->idle", claim.copy(terms=[("idle", "", "")]))]
        if "idle" in kinds:
            return [("idle->busy", claim.copy(terms=[("busy", "", "")]))]
        return [("idle->busy", claim.copy(terms=[("busy", "", "")]))] + term_flips(claim, CAUSES)
    if claim.kind == "verdict":
        return term_flips(claim, CAUSES + ["gpu_bound", "comm", "none"])
    if claim.kind == "verdict-not":
        (k, op, v), = claim.terms
        if k == "text":
            return [("text-said", claim.copy(terms=[(k, "!~", v)]))]
        return [("verdict %s%s%s" % (k, op, v), claim.copy(kind="verdict"))]
    if claim.kind == "next":
        return [("next-not", claim.copy(kind="next-not"))]
    return [("next", claim.copy(kind="next"))]


def main(argv):
    json_path, self_check, parse_only, files = None, False, False, []
    explain = True
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--json":
            if i + 1 >= len(argv):
                print("claims.py: --json needs a file", file=sys.stderr)
                return 2
            json_path = argv[i + 1]
            i += 2
            continue
        if a == "--self-check":
            self_check = True
        elif a == "--parse-only":
            parse_only = True
        elif a == "--no-explain":
            explain = False
        elif a in ("-h", "--help"):
            print(__doc__)
            return 0
        elif a.startswith("-"):
            print("claims.py: unknown option %s" % a, file=sys.stderr)
            return 2
        else:
            files.append(a)
        i += 1
    if not files:
        print("claims.py: no claims file (see --help)", file=sys.stderr)
        return 2
    if json_path and len(files) != 1:
        print("claims.py: --json takes one claims file", file=sys.stderr)
        return 2
    bad = 0
    for path in files:
        try:
            trace, args, claims = parse_file(path)
        except (SyntaxErr, OSError) as e:
            print("claims.py: %s" % e, file=sys.stderr)
            return 2
        name = os.path.splitext(os.path.basename(path))[0]
        if parse_only:
            print("ok %s: %d claims" % (path, len(claims)))
            continue
        if json_path:
            with open(json_path, encoding="utf-8") as f:
                rep, err = loads(f.read()), None
        else:
            tp = trace if os.path.isabs(trace) else os.path.join(CORPUS, trace)
            if not os.path.exists(tp):
                print("SKIP claims/%s: trace %s absent (%d claims not checked)" % (
                    name, os.path.relpath(tp), len(claims)))
                continue
            rep, err = run_report(tp, args, explain)
        if rep is None:
            for c in claims:
                print("FAIL claims/%s/%d: %s" % (name, c.line, err))
            bad += len(claims) or 1
            continue
        for c in claims:
            if not explain and c.kind == "at":
                print("SKIP claims/%s/%d: an 'at' claim needs --explain" % (name, c.line))
                continue
            ok, msg = check(c, rep)
            if not self_check:
                print("PASS claims/%s/%d" % (name, c.line) if ok else
                      "FAIL claims/%s/%d: %s" % (name, c.line, msg))
                bad += not ok
                continue
            if not ok:
                print("FAIL selfcheck/%s/%d: the claim itself does not hold (%s)" % (
                    name, c.line, msg))
                bad += 1
                continue
            for label, fc in flips(c):
                fok, _ = check(fc, rep)
                if fok:
                    print("FAIL selfcheck/%s/%d/%s: the flipped claim %r still passes" % (
                        name, c.line, label, fc.render()))
                    bad += 1
                else:
                    print("PASS selfcheck/%s/%d/%s" % (name, c.line, label))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
