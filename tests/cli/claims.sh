#!/usr/bin/env bash
# claims.sh — issue 24's claims corpus: the hand-written claims of tests/corpus/claims/*.claims about
# the real traces of tests/corpus/ (written from tests/gen/timeline.py readings, never from gpuflame's
# output), checked against `report --format json --explain all` by tests/gen/claims.py.
#  - every claims file parses;
#  - the checker itself: on hand-made reports (tests/corpus/claims/fixtures/*.report.json) every claim of
#    the matching claims file passes, every flipped claim fails (--self-check: another cause or class, a
#    negated substring, busy <-> idle, a verdict claim <-> its negation), and tampered reports (a
#    piece's cause, a half-open end moved to the instant, a forbidden word in the verdict, a missing
#    explain array, a Next without the required words) are caught; $GF is run with the claims file's
#    args and --explain all (a stand-in GF that records its arguments);
#  - every claim of every corpus trace holds on $GF's report (one PASS/FAIL line per claim; one SKIP
#    line per claims file whose trace is absent).
# Runs since issue 24 core added `report --explain` (renamed from claims.sh.pending).
. "$(dirname "$0")/lib.sh"

PY=${PYTHON:-python3}
C=tests/gen/claims.py
CL=tests/corpus/claims
FX=$CL/fixtures

# ---- syntax
if $PY $C --parse-only $CL/*.claims $FX/*.claims >"$T/parse" 2>&1; then
  pass "claims-parse ($(wc -l <"$T/parse") files)"
else
  fail "claims-parse" "$(tail -c 300 "$T/parse")"
fi
printf 'trace x.json.gz\nat 12 cause=busyish\n' >"$T/bad.claims"
$PY $C --parse-only "$T/bad.claims" >"$T/o" 2>"$T/e"; rc=$?
expect_rc "claims-parse-error-exit" 2
expect_grep "claims-parse-error-line" "bad.claims:2: cause must be one of" "$T/e"

# ---- the checker on hand-made reports
for f in $FX/*.report.json; do
  n=$(basename "$f" .report.json)
  cf=$CL/$n.claims; [ -f "$cf" ] || cf=$FX/$n.claims
  $PY $C --json "$f" "$cf" >"$T/o" 2>&1; rc=$?
  expect_rc "checker-fixture-$n" 0
  $PY $C --self-check --json "$f" "$cf" >"$T/o" 2>&1; rc=$?
  expect_rc "checker-selfcheck-$n ($(grep -c '^PASS' "$T/o") flips)" 0
  expect_nogrep "checker-selfcheck-$n-lines" '^FAIL' "$T/o"
done

# tampered copies of the hand-made reports must fail the claims they break
tamper() { # name fixture claims python-expression-on-d  expected-FAIL-line-pattern
  $PY - "$2" "$T/t.json" "$4" <<'PY'
import json, sys
from decimal import Decimal
d = json.load(open(sys.argv[1]), parse_float=Decimal, parse_int=Decimal)
exec(sys.argv[3])
class E(json.JSONEncoder):
    def default(self, o):
        return str(o)
s = json.dumps(d, cls=E)
import re
open(sys.argv[2], "w").write(re.sub(r'"(-?[0-9]+\.[0-9]+)"', r'\1', s))
PY
  $PY $C --json "$T/t.json" "$3" >"$T/o" 2>&1; rc=$?
  expect_rc "checker-tamper-$1-exit" 1
  expect_grep "checker-tamper-$1" "$5" "$T/o"
}
tamper cause $FX/partt-cold-a100.report.json $CL/partt-cold-a100.claims \
  'd["explain"][0]["pieces"][2]["cause"] = "queued"' '^FAIL claims/partt-cold-a100/[0-9]+: expected cause=launch'
tamper class $FX/partt-cold-a100.report.json $CL/partt-cold-a100.claims \
  'd["explain"][0]["pieces"][2]["class"] = "launch"' 'expected class=warmup'
tamper half-open $FX/checker.report.json $FX/checker.claims \
  'd["explain"][1]["pieces"][1]["end_us"] = Decimal("299.999")' '^FAIL claims/checker/[0-9]+: expected an idle piece at 299.999'
tamper busy $FX/checker.report.json $FX/checker.claims \
  'd["explain"].append({"start_us": Decimal(150), "end_us": Decimal(151), "pieces": [{"start_us": Decimal(150), "end_us": Decimal(151), "cause": "host"}]})' 'expected busy at 150'
tamper words $FX/partt-cold-a100.report.json $CL/partt-cold-a100.claims \
  'd["summary"]["action"] += " Move it Off The Launching Thread."' "expected the verdict and Next not to say 'off the launching thread'"
tamper next $FX/checker.report.json $FX/checker.claims \
  'd["summary"]["action"] = "Use CUDA graphs."' 'expected Next to contain'
tamper no-explain $FX/kineto-resnet50-w0-2021.report.json $CL/kineto-resnet50-w0-2021.claims \
  'del d["explain"]' 'got none'

# $GF is run as `report --format json --explain all ARGS TRACE` (a stand-in records its arguments)
printf '#!/bin/sh\necho "$@" >"%s/args"\ncat "%s"\n' "$T" "$FX/checker.report.json" >"$T/fakegf"
chmod +x "$T/fakegf"
GF="$T/fakegf" $PY $C $FX/checker.claims >"$T/o" 2>&1; rc=$?
expect_rc "checker-runs-gf" 0
expect_grep "checker-gf-args" "^report --format json --explain all --steps 1\.\.2 .*tests/corpus/tl-elem-add-mi300\.json\.gz$" "$T/args"
printf '#!/bin/sh\necho "gpuflame: report: unknown option --explain" >&2\nexit 2\n' >"$T/badgf"; chmod +x "$T/badgf"
GF="$T/badgf" $PY $C $CL/partt-cold-a100.claims >"$T/o" 2>&1; rc=$?
expect_rc "checker-gf-error-exit" 1
expect_grep "checker-gf-error-line" "^FAIL claims/partt-cold-a100/[0-9]+: report .* exited 2: gpuflame: report: unknown option --explain" "$T/o"

# a claims file whose trace is absent: one SKIP line naming it and the claims not checked, exit 0
printf 'trace no-such-trace.json.gz\nat 1 busy\nverdict cause=host\n' >"$T/absent.claims"
GF="$T/badgf" $PY $C "$T/absent.claims" >"$T/o" 2>&1; rc=$?
expect_rc "checker-absent-trace-exit" 0
expect_grep "checker-absent-trace-skip" "^SKIP claims/absent: trace .*no-such-trace\.json\.gz absent \(2 claims not checked\)$" "$T/o"
expect_nogrep "checker-absent-trace-no-fail" "^(FAIL|PASS)" "$T/o"
# --no-explain (a build without report --explain): verdict and Next claims checked, each at claim SKIPs
GF="$T/fakegf" $PY $C --no-explain $FX/checker.claims >"$T/o" 2>&1; rc=$?
expect_rc "checker-no-explain-exit" 0
expect_grep "checker-no-explain-args" "^report --format json --steps" "$T/args"
expect_grep "checker-no-explain-skips-at" "^SKIP claims/checker/[0-9]+: an 'at' claim needs --explain" "$T/o"
expect_grep "checker-no-explain-checks-verdict" "^PASS claims/checker/[0-9]+$" "$T/o"

# ---- the corpus: every claim on gpuflame's own report (one PASS/FAIL line per claim; a trace absent
# from tests/corpus prints one SKIP line; a checker that dies without a FAIL line is one FAIL)
for cf in $CL/*.claims; do
  $PY $C "$cf" >"$T/o" 2>&1; crc=$?
  cat "$T/o"
  if [ "$crc" -ne 0 ] && ! grep -q '^FAIL ' "$T/o"; then
    fail "claims-$(basename "$cf" .claims)" "claims.py exited $crc: $(tail -c 300 "$T/o")"
  fi
done

exit 0
