#!/usr/bin/env bash
# tests/cli/export_perfetto.sh — `gpuflame export --to perfetto` (issue 14):
# the original trace kept event for event plus the gap model's tracks,
# checked by tests/gen/check_export.py (stdlib Python, exact ns) against the
# answers gen_gaps.py knows by construction and, on corpus traces, against
# the independent tests/gen/gapmodel.py: idle slices per step and cause sum
# to the step's idle exactly, one flow per sync bubble from its blocking
# call, a busy-share counter per step; gzip/zstd by the output name; gpuflame
# reads the export back to the same folds; errors leave no file.
. "$(dirname "$0")/lib.sh"
CHK="python3 tests/gen/check_export.py"
mkdir -p "$T/g"
python3 tests/gen/gen_gaps.py --all "$T/g" >/dev/null
bad=""
for f in "$T"/g/*.expect.json; do
  n=$(basename "$f" .expect.json)
  if ! "$GF" export --to perfetto -o "$T/$n.out.json" "$T/g/$n.json" 2>"$T/err"; then
    bad="$bad $n(exit $?: $(head -c 200 "$T/err"))"; continue; fi
  r=$($CHK perfetto "$T/g/$n.json" "$f" "$T/$n.out.json")
  [ "$r" = ok ] || bad="$bad $n: $r"
done
expect_eq export-perfetto-gen "${bad:-ok}" ok

# the checker fails on a missing slice and on a changed original event
n=two_syncs
grep -v '"name":"launch","pid":1000000000' "$T/$n.out.json" >"$T/cut.json"
if $CHK perfetto "$T/g/$n.json" "$T/g/$n.expect.json" "$T/cut.json" >/dev/null; then
  fail export-perfetto-check-slices "a removed slice was not noticed"; else pass export-perfetto-check-slices; fi
sed '0,/"dur": 540/s//"dur": 541/' "$T/$n.out.json" >"$T/chg.json"
if cmp -s "$T/chg.json" "$T/$n.out.json" || $CHK perfetto "$T/g/$n.json" "$T/g/$n.expect.json" "$T/chg.json" >/dev/null
then fail export-perfetto-check-events "a changed event was not noticed"; else pass export-perfetto-check-events; fi

# compressed by name; the same bytes inside
"$GF" export --to perfetto -o "$T/$n.json.gz" "$T/g/$n.json" && "$GF" export --to perfetto -o "$T/$n.json.zst" "$T/g/$n.json"
if [ "$(head -c 2 "$T/$n.json.gz" | od -An -tx1 | tr -d ' ')" = 1f8b ] && zcat "$T/$n.json.gz" | cmp -s - "$T/$n.out.json"
then pass export-perfetto-gzip; else fail export-perfetto-gzip "not the plain export gzip'd"; fi
if command -v zstd >/dev/null; then
  if zstd -qdc "$T/$n.json.zst" | cmp -s - "$T/$n.out.json"; then pass export-perfetto-zstd
  else fail export-perfetto-zstd "not the plain export"; fi
fi
# gpuflame reads it back: the same folds as the original
same=ok
for w in gpu cpu wall idle calls; do
  cmp -s <("$GF" fold -q -w $w "$T/g/$n.json" | grep -v '^#') <("$GF" fold -q -w $w "$T/$n.json.gz" | grep -v '^#') || same="differs for $w"
done
expect_eq export-perfetto-readback "$same" ok
# the report reads the export as it reads the trace (the same JSON but the file's name)
"$GF" report --format json "$T/g/$n.json" | grep -v '"file":' >"$T/r1.json"
"$GF" report --format json "$T/$n.json.gz" | grep -v '"file":' >"$T/r2.json"
expect_same export-perfetto-readback-report "$T/r2.json" "$T/r1.json"
# hostile names (ESC, quotes, markup, a bidi override) reach the args escaped, intact when decoded
python3 - "$T/g/$n.json" "$T/hostile.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for e in d["traceEvents"]:
    if e.get("name") == "a.py(1): f":
        e["name"] = 'a.py(1): f\x1b[31m"<>&\u202e'
json.dump(d, open(sys.argv[2], "w"))
PY
gf export --to perfetto -o "$T/hostile.out.json" "$T/hostile.json"
expect_eq export-perfetto-hostile "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(sorted({e["args"].get("site") for e in d["traceEvents"] if e.get("cat") == "gpuflame" and e.get("name") == "sync"}) == ["a.py(1): f\x1b[31m\"<>&\u202e"])' "$T/hostile.out.json")" True
expect_nogrep export-perfetto-hostile-raw "$(printf '\x1b')" "$T/hostile.out.json"
# stdin redirected from a file is rewound; a pipe is refused (it is read twice)
"$GF" export --to perfetto -o "$T/stdin.json" - <"$T/g/$n.json" 2>"$T/err"
rc=$?; expect_rc export-perfetto-stdin-file 0
expect_same export-perfetto-stdin-same "$T/stdin.json" "$T/$n.out.json"
cat "$T/g/$n.json" | "$GF" export --to perfetto -o "$T/pipe.json" - 2>"$T/err"
rc=$?; expect_rc export-perfetto-pipe 1
expect_grep export-perfetto-pipe-msg 'reads the trace twice' "$T/err"
[ -e "$T/pipe.json" ] && fail export-perfetto-pipe-nofile "output left" || pass export-perfetto-pipe-nofile
# a top-level array of events and an empty events array
python3 - "$T/g/$n.json" "$T/arr.json" "$T/empty.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
json.dump(d["traceEvents"], open(sys.argv[2], "w"))
json.dump({"traceEvents": [], "schemaVersion": 1}, open(sys.argv[3], "w"))
PY
gf export --to perfetto -o "$T/arr.out.json" "$T/arr.json"
expect_eq export-perfetto-array "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); o=json.load(open(sys.argv[2])); print(isinstance(d,list) and d[:len(o)]==o and all(e["cat"]=="gpuflame" for e in d[len(o):]))' "$T/arr.out.json" "$T/arr.json")" True
gf export --to perfetto -o "$T/empty.out.json" "$T/empty.json"
expect_eq export-perfetto-empty "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["schemaVersion"], all(e["cat"]=="gpuflame" for e in d["traceEvents"]))' "$T/empty.out.json")" "1 True"
# the events key written with an escape is still the one the added events join (no second key)
printf '{"trace\\u0045vents": [{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":2}], "x\\"y": 1}' >"$T/esc.json"
gf export --to perfetto -o "$T/esc.out.json" "$T/esc.json"
expect_eq export-perfetto-escaped-key "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]), object_pairs_hook=lambda p: [k for k, _ in p] if len(p) == 2 and p[0][0] == "traceEvents" else dict(p)); print(d)' "$T/esc.out.json")" "['traceEvents', 'x\"y']"
"$GF" info "$T/esc.out.json" >/dev/null 2>"$T/err"; rc=$?
expect_rc export-perfetto-escaped-key-reads 0
# a cut-off trace is refused, nothing written
head -c 900 "$T/g/$n.json" >"$T/cut.trace.json"
gf export --to perfetto -o "$T/cutout.json" "$T/cut.trace.json"
if [ "$rc" -ne 0 ] && [ ! -e "$T/cutout.json" ]; then pass export-perfetto-truncated
else fail export-perfetto-truncated "exit $rc"; fi

# absolute microseconds (1.7e15 us: a double's step is 0.25 us): no two slices
# of a track overlap once read as Perfetto reads a ts (issue 26; the check
# fails on the corpus trace's slices written as X, below)
python3 - "$T/g/$n.json" "$T/abs.json" <<'PY'
import json, sys
from decimal import Decimal
d = json.load(open(sys.argv[1]), parse_float=Decimal)
d.pop("baseTimeNanoseconds", None)
# every event its own sub-microsecond fraction, so slice ends fall between doubles
for i, e in enumerate(d["traceEvents"]):
    if "ts" in e:
        e["ts"] = Decimal(str(e["ts"])) + Decimal("1700000000000000") + Decimal(i * 37 % 1000) / 1000
json.dump(d, open(sys.argv[2], "w"), default=str)
PY
sed -i 's/"ts": "\([0-9.]*\)"/"ts": \1/g' "$T/abs.json"
gf export --to perfetto -o "$T/abs.out.json" "$T/abs.json"; expect_rc export-perfetto-abs-rc 0
expect_eq export-perfetto-abs-no-overlap "$($CHK perfetto-overlap "$T/abs.out.json")" ok
# every device gets its own process beside the GPU's row (two GPUs)
python3 tests/gen/gen_twodev.py -o "$T/two.json" --expect "$T/two.expect.json" >/dev/null
gf export --to perfetto -o "$T/two.out.json" "$T/two.json"; expect_rc export-perfetto-devices-rc 0
expect_eq export-perfetto-devices "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
a = [e for e in d["traceEvents"] if e.get("cat") == "gpuflame"]
print(sorted((e["pid"], e["args"]["sort_index"]) for e in a if e["ph"] == "M" and e["name"] == "process_sort_index"),
      sorted({e["pid"] for e in a if e["ph"] == "B" and e["tid"] == 1}), sorted({e["pid"] for e in a if e["ph"] == "C"}))' "$T/two.out.json")" \
  "[(1000000000, 5000000), (1000000001, 5000001)] [1000000000, 1000000001] [1000000000, 1000000001]"
for dv in 0 1; do
  gf export --to perfetto --device $dv -o "$T/two$dv.out.json" "$T/two.json"
  expect_eq "export-perfetto-device-$dv-only" "$(python3 -c 'import json,sys; print(sorted({e["pid"] for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("cat") == "gpuflame"}))' "$T/two$dv.out.json")" "[100000000$dv]"
done

# real traces: against the independent gap model
if need_shared export-perfetto-corpus; then
  for f in "$GF_SHARED"/corpus/traces/kineto/resnet50_num_workers_0/*.json.gz \
           "$GF_SHARED"/corpus/traces/tracelens/h100/Qwen_Qwen1.5-0.5B-Chat__*.json.gz; do
    b=$(basename "$f" .json.gz)
    python3 tests/gen/gapmodel.py "$f" >"$T/$b.expect.json"
    gf export --to perfetto -q -o "$T/$b.out.json.gz" "$f"
    expect_rc "export-perfetto-corpus-$b-rc" 0
    expect_eq "export-perfetto-corpus-$b" "$($CHK perfetto "$f" "$T/$b.expect.json" "$T/$b.out.json.gz")" ok
  done
  # absolute us with 3 decimals, as Kineto wrote them (19 digits): 888 of 6,529
  # slices overlapped with X slices
  f=$GF_SHARED/corpus/traces/hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz
  gf export --to perfetto -q -o "$T/nsr.json" "$f"; expect_rc export-perfetto-abs-corpus-rc 0
  expect_eq export-perfetto-abs-corpus-no-overlap "$($CHK perfetto-overlap "$T/nsr.json")" ok
python3 - "$T/nsr.json" "$T/nsrx.json" <<'PY'
import json, sys
from decimal import Decimal
d = json.load(open(sys.argv[1]), parse_float=Decimal)
out, stack = [], {}
for e in d["traceEvents"]:
    if e.get("cat") == "gpuflame" and e["ph"] == "B":
        stack.setdefault((e["pid"], e["tid"]), []).append(e)
    elif e.get("cat") == "gpuflame" and e["ph"] == "E":
        b = stack[(e["pid"], e["tid"])].pop()
        b = dict(b, ph="X", dur=e["ts"] - b["ts"])
        out.append(b)
    else:
        out.append(e)
d["traceEvents"] = out
json.dump(d, open(sys.argv[2], "w"), default=str)
PY
sed -i 's/"\(ts\|dur\)": "\([0-9.]*\)"/"\1": \2/g' "$T/nsrx.json"
if $CHK perfetto-overlap "$T/nsrx.json" | grep -q 'overlap the one before'; then pass export-perfetto-abs-corpus-check-fails-on-x
else fail export-perfetto-abs-corpus-check-fails-on-x "the X form was not caught"; fi
fi
exit 0
