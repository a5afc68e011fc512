#!/usr/bin/env bash
# fold_threads.sh — `fold --weight wall|cpu` and host threads (issue 12 item
# 10): py-spy's thread frame "thread (TID): NAME" roots every stack; by
# default only the thread(s) holding the step markers are folded, over their
# steps, so a wall fold sums to the steps' wall time; the other threads are
# counted in the header and on stderr; --all-threads adds them under their
# own frames; --no-thread-frames drops the frame. Checked EXACTLY against
# tests/gen/gen_threads.py (answers by construction, hostile thread names
# through every writer) and, on the corpus, against the step's duration read
# from the trace by Python. Before: no thread frames, every thread summed
# (the h100 Qwen trace: 99.5 ms of wall for a 47 ms step).
. "$(dirname "$0")/lib.sh"

python3 tests/gen/gen_threads.py "$T/t.json" "$T/e.json" || { fail "gen"; exit 0; }

# roots FILE: JSON {root frame: total ns}, plus the header's keys
cat >"$T/roots.py" <<'PY'
import json, sys
raw = open(sys.argv[1], "rb").read().split(b"\n")
head = {}
if raw and raw[0].startswith(b"# gpuflame:"):
    for kv in raw[0][len(b"# gpuflame:"):].split(b";"):
        kv = kv.strip()
        if b"=" in kv:
            k, v = kv.split(b"=", 1)
            head[k.decode()] = v.decode()
roots = {}
for l in raw[1:]:
    if not l:
        continue
    st, w = l.rsplit(b" ", 1)
    r = st.split(b";")[0].decode()
    roots[r] = roots.get(r, 0) + int(w)
print(json.dumps({"roots": roots, "head": head}, sort_keys=True))
PY
# check NAME GOT_JSON: compares the fold's roots and header with the
# expectation built by the python snippet in $want
check() {
  local name=$1 file=$2 want=$3
  got=$(python3 "$T/roots.py" "$file" | python3 -c '
import json, sys
g = json.loads(sys.stdin.read()); w = json.loads(sys.argv[1])
bad = []
if g["roots"] != w["roots"]:
    bad.append("roots %s expected %s" % (g["roots"], w["roots"]))
for k, v in w["head"].items():
    if g["head"].get(k) != v:
        bad.append("header %s=%s expected %s" % (k, g["head"].get(k), v))
for k in w.get("nohead", []):
    if k in g["head"]:
        bad.append("header has %s" % k)
print("; ".join(bad) or "ok")' "$want")
  expect_eq "$name" "$got" "ok"
}
E=$(cat "$T/e.json")
want() { # SNIPPET over e (the expectation): prints the wanted JSON
  python3 -c "import json, sys; e = json.loads(sys.argv[1]); print(json.dumps($1))" "$E"
}

# default: the step thread only, sums to the steps' wall time
gf fold -w wall --unit ns "$T/t.json"
expect_rc "threads-wall-rc" 0
cp "$T/out" "$T/wall"
check "threads-wall-step-only" "$T/wall" "$(want '{"roots": {e["step_frame"]: e["step_wall_ns"]},
  "head": {"threads": "steps", "threads_left_out": str(e["left_out_threads"]), "left_out": str(e["left_out_wall_ns"])}}')"
expect_grep "threads-wall-stderr" "2 host threads without the folded steps' markers left out \(510000 ns of wall time\); --all-threads folds them" "$T/err"

gf fold -w cpu --unit ns "$T/t.json"
check "threads-cpu-step-only" "$T/out" "$(want '{"roots": {e["step_frame"]: e["step_cpu_ns"]},
  "head": {"threads": "steps", "threads_left_out": str(e["left_out_threads"]), "left_out": str(e["left_out_cpu_ns"])}}')"

# --all-threads: the others under their own frames, the step thread unchanged
for w in wall cpu; do
  gf fold -w $w --unit ns --all-threads "$T/t.json"
  expect_rc "threads-all-$w-rc" 0
  k=$([ $w = wall ] && echo 0 || echo 1)
  check "threads-all-$w" "$T/out" "$(want "{\"roots\": dict([(e[\"step_frame\"], e[\"step_${w}_ns\"])] + [(f, v[$k]) for f, v in e[\"threads\"].items()]),
    \"head\": {\"threads\": \"all\"}, \"nohead\": [\"threads_left_out\", \"left_out\"]}")"
  expect_nogrep "threads-all-$w-stderr" "left out" "$T/err"
done
cp "$T/out" "$T/all.cpu"
gf fold -w wall --unit ns --all-threads "$T/t.json"
cp "$T/out" "$T/all.wall"

# the frames: exact bytes in the folded text (';' and controls replaced)
got=$(python3 - "$T/all.wall" "$T/e.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[2]))
roots = {l.rsplit(b" ", 1)[0].split(b";")[0] for l in open(sys.argv[1], "rb").read().split(b"\n")[1:] if l}
want = {e["step_frame"].encode()} | {f.encode() for f in e["threads"]}
print("ok" if roots == want else "got %r expected %r" % (sorted(roots), sorted(want)))
PY
)
expect_eq "threads-frames-bytes" "$got" "ok"

# hostile thread names through the writers: SVG (XML parses, no raw
# control character; esc_xml lets the bidi override through, valid XML),
# top's JSON and text (no raw control or bidi character) (the decoded name is the frame)
"$GF" svg "$T/all.wall" >"$T/all.svg" 2>"$T/err"; rc=$?
expect_rc "threads-svg-rc" 0
got=$(python3 - "$T/all.svg" <<'PY'
import sys, xml.etree.ElementTree as ET
raw = open(sys.argv[1], "rb").read()
ET.fromstring(raw)
t = raw.decode()
bad = [c for c in ("\x01", "\x9b") if c in t]
print("ok" if not bad and "mon:it&lt;or&gt;&amp;" in t else "raw %r / name missing" % bad)
PY
)
expect_eq "threads-svg-escaped" "$got" "ok"
gf top --format json "$T/all.wall"
expect_rc "threads-top-rc" 0
got=$(python3 - "$T/out" "$T/e.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[2]))
raw = open(sys.argv[1], "rb").read()
def strings(v):
    if isinstance(v, str):
        yield v
    elif isinstance(v, dict):
        for x in v.values():
            yield from strings(x)
    elif isinstance(v, list):
        for x in v:
            yield from strings(x)
got = set(strings(json.loads(raw)))
want = set(e["threads"]) | {e["step_frame"]}
bad = [c for c in ("\x01", "\x9b", "\u202e") if c in raw.decode()]
print("ok" if want <= got and not bad else "missing %r, raw %r" % (sorted(want - got), bad))
PY
)
expect_eq "threads-top-json" "$got" "ok"
for f in text md tsv; do
  gf top --format $f "$T/all.wall"
  expect_rc "threads-top-$f-rc" 0
  got=$(python3 -c 'import sys; t = open(sys.argv[1], "rb").read().decode(); print("ok" if not [c for c in ("\x01", "\x9b", "\u202e") if c in t] else "raw")' "$T/out")
  expect_eq "threads-top-$f-escaped" "$got" "ok"
done
# a differential SVG of two traces with the hostile thread (folded on the fly)
gf diff -w wall --all-threads -o "$T/d.svg" "$T/t.json" "$T/t.json"
expect_rc "threads-diff-svg-rc" 0
got=$(python3 - "$T/d.svg" <<'PY'
import sys, xml.etree.ElementTree as ET
raw = open(sys.argv[1], "rb").read()
ET.fromstring(raw)
t = raw.decode()
print("ok" if not [c for c in ("\x01", "\x9b") if c in t] and "mon:it&lt;or&gt;&amp;" in t else "raw or missing")
PY
)
expect_eq "threads-diff-svg-escaped" "$got" "ok"

# --no-thread-frames: the same weights without the root frame
gf fold -w wall --unit ns --no-thread-frames "$T/t.json"
sed 's/^thread (7): python3;//' "$T/wall" | sed '1s/;$/; thread_frames=no;/' >"$T/want"
expect_same "threads-no-frames" "$T/out" "$T/want"

# a step selection: the step thread over step 2 only; the left-out time is
# the others' inside step 2
gf fold -w wall --unit ns --steps 2 "$T/t.json"
check "threads-steps-2" "$T/out" "$(want '{"roots": {e["step_frame"]: 250000}, "head": {"threads_left_out": "2", "left_out": "310000"}}')"
# normalised: left_out divided by the steps like the stacks
gf fold -w wall --unit us --per-step-normalise "$T/t.json"
expect_grep "threads-normalised" "threads_left_out=2; left_out=255;" "$T/out"

# diff of two runs: thread ids differ; diff's name normalisation (R6) makes
# the thread frames "thread (...): NAME", so the same host work diffs flat;
# without it the roots differ; --no-thread-frames drops them
sed 's/"tid": 7,/"tid": 17,/g; s/thread 7 (python3)/thread 17 (python3)/' "$T/t.json" >"$T/t17.json"
gf diff -w wall --unit ns "$T/t.json" "$T/t17.json"
expect_rc "threads-diff-rc" 0
expect_grep "threads-diff-normalised" "^thread \(\.\.\.\): python3;model.py\(10\): forward;aten::add 25000 25000$" "$T/out"
got=$(grep -v '^#' "$T/out" | awk '$(NF-1) != $NF' | wc -l)
expect_eq "threads-diff-normalised-flat" "$got" "0"
gf diff -w wall --unit ns --no-normalise-names "$T/t.json" "$T/t17.json"
expect_grep "threads-diff-roots-differ" "^thread \(17\): python3;model.py\(10\): forward;aten::add 0 25000$" "$T/out"
gf diff -w wall --unit ns --no-thread-frames "$T/t.json" "$T/t17.json"
expect_rc "threads-diff-noframes-rc" 0
got=$(grep -v '^#' "$T/out" | awk '$(NF-1) != $NF || /^thread/' | wc -l)
n=$(grep -vc '^#' "$T/out")
expect_eq "threads-diff-noframes-flat" "$got $([ "$n" -gt 3 ] && echo some)" "0 some"

# gpu, idle and calls keep their stacks: no thread frame
for w in gpu idle calls; do
  gf fold -w $w "$T/t.json"
  expect_nogrep "threads-$w-no-frame" "^thread \(" "$T/out"
  expect_nogrep "threads-$w-no-header" "threads=" "$T/out"
done

# the thread options are cpu/wall options
for w in gpu idle calls; do
  gf fold -w $w --all-threads "$T/t.json"
  expect_rc "threads-$w-all-threads-usage" 2
  expect_grep "threads-$w-all-threads-msg" "--all-threads and --no-thread-frames apply to --weight cpu and wall" "$T/err"
done

# the corpus: the h100 Qwen trace, a 47 ms step and a sleeping tqdm monitor
need_shared "threads-qwen" || exit 0
Q=$GF_SHARED/corpus/traces/tracelens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz
cat >"$T/qwen.py" <<'PY'
import json, sys
sys.path.insert(0, "tests/gen")
import common
ev = common.trace_events(sys.argv[1])
host = {}
step = None
names = {}
for e in ev:
    if e.get("ph") == "M" and e.get("name") == "thread_name":
        names[(e["pid"], e["tid"])] = e["args"]["name"]
    if e.get("ph") != "X" or e.get("cat") in common.GPU_CATS or e.get("cat") in ("gpu_user_annotation", "ac2g"):
        continue
    if not isinstance(e.get("pid"), int) or not isinstance(e.get("tid"), int):
        continue
    a = common.us_to_ns(e["ts"])
    b = a + common.us_to_ns(e["dur"])
    host.setdefault((e["pid"], e["tid"]), []).append((a, b))
    if str(e["name"]).startswith("ProfilerStep#"):
        step = (a, b, (e["pid"], e["tid"]))
a, b, th = step
other = {}
for k, iv in host.items():
    if k == th:
        continue
    s, cur = 0, a
    for x, y in sorted(iv):
        x, y = max(x, cur), min(y, b)
        if y > x:
            s += y - x
            cur = y
    if s:
        other[k] = s
frame = lambda k: "thread (%d): %s" % (k[1], names[k].split("(", 1)[1][:-1])
print(json.dumps({"step_ns": b - a, "step_frame": frame(th),
                  "others": {frame(k): v for k, v in other.items()}}))
PY
QE=$(python3 "$T/qwen.py" "$Q") || { fail "threads-qwen-python"; exit 0; }
E=$QE
gf fold -w wall --unit ns "$Q"
expect_rc "threads-qwen-rc" 0
check "threads-qwen-wall" "$T/out" "$(want '{"roots": {e["step_frame"]: e["step_ns"]},
  "head": {"threads": "steps", "threads_left_out": str(len(e["others"])), "left_out": str(sum(e["others"].values()))}}')"
gf fold -w wall --unit ns --all-threads "$Q"
check "threads-qwen-all" "$T/out" "$(want '{"roots": dict([(e["step_frame"], e["step_ns"])] + list(e["others"].items())), "head": {"threads": "all"}}')"
exit 0
