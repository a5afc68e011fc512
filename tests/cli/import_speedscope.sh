#!/usr/bin/env bash
# import_speedscope.sh — speedscope JSON imported (stacks/import_speedscope.c):
# speedscope's own sample profiles and hand-made ones (py-spy's
# --format speedscope shape, decimals, several profiles, file/line frames,
# hostile names) against tests/gen/speedscope_fold.py (the file read by
# speedscope's rules, in Python, exact); the totals speedscope shows; every
# folded command; the errors; austin and py-spy samples (import.c).
. "$(dirname "$0")/lib.sh"
PY=tests/gen/speedscope_fold.py

check() { # name file [--merge]
  local name=$1 f=$2 m=${3:-}
  if [ -n "$m" ]; then "$GF" fold --threads merge "$f" >"$T/o" 2>"$T/e"; else "$GF" fold "$f" >"$T/o" 2>"$T/e"; fi
  rc=$?; expect_rc "$name-rc" 0
  python3 "$PY" $m "$f" >"$T/w"
  expect_same "$name" "$T/o" "$T/w"
}

# py-spy --format speedscope: one sampled profile per thread, seconds,
# frames with file and line
cat >"$T/pyspy.json" <<'EOF'
{"$schema": "https://www.speedscope.app/file-format-schema.json",
 "profiles": [
  {"type": "sampled", "name": "MainThread (0x7f00)", "unit": "seconds", "startValue": 0, "endValue": 0.03,
   "samples": [[0, 1], [0, 1, 2], [0, 1, 2]], "weights": [0.01, 0.01, 0.01]},
  {"type": "sampled", "name": "Thread 2", "unit": "seconds", "startValue": 0, "endValue": 0.005,
   "samples": [[0, 3]], "weights": [0.005]}],
 "shared": {"frames": [
  {"name": "<module>", "file": "serve.py", "line": 10},
  {"name": "decode", "file": "/app/model.py", "line": 42},
  {"name": "item", "file": "/usr/lib/python3/site-packages/torch/_tensor.py"},
  {"name": "a;b\nc"}]},
 "name": "py-spy", "activeProfileIndex": 0, "exporter": "py-spy@0.3.14"}
EOF
check pyspy-speedscope "$T/pyspy.json"
expect_grep pyspy-frame '^MainThread \(0x7f00\);<module> \(serve.py:10\);decode \(/app/model.py:42\);item \(/usr/lib/python3/site-packages/torch/_tensor.py\) 0.02$' "$T/o"
check pyspy-speedscope-merge "$T/pyspy.json" --merge
gf fold "$T/pyspy.json"; expect_grep pyspy-header '^# gpuflame: format=speedscope; unit=s; profiles=2;$' "$T/out"
# an evented profile with decimal times and exponents, frames open at the end
cat >"$T/ev.json" <<'EOF'
{"$schema": "https://www.speedscope.app/file-format-schema.json",
 "shared": {"frames": [{"name": "step"}, {"name": "mm"}, {"name": "sync"}]},
 "profiles": [{"type": "evented", "name": "ev", "unit": "milliseconds", "startValue": 0.5, "endValue": 9.25,
  "events": [{"type": "O", "frame": 0, "at": 0.5}, {"type": "O", "frame": 1, "at": 1.125},
             {"type": "C", "frame": 1, "at": 2.5e0}, {"type": "O", "frame": 2, "at": 3},
             {"type": "C", "frame": 2, "at": 7.75}]}]}
EOF
check evented "$T/ev.json"
python3 "$PY" --totals "$T/ev.json" >"$T/tot"
expect_eq evented-total-is-span "$(awk '{print ($2 == $3)}' "$T/tot")" 1
# only weights and times set the precision: a decimal elsewhere (a version)
# does not push a large integer weight out of 64 bits
printf '{"$schema": "https://www.speedscope.app/file-format-schema.json", "version": 1.123456789, "shared": {"frames": [{"name": "a"}]}, "profiles": [{"type": "sampled", "unit": "nanoseconds", "samples": [[0]], "weights": [9000000000000000000]}]}' >"$T/big.json"
gf fold "$T/big.json"; expect_rc big-weight-rc 0
expect_grep big-weight '^a 9000000000000000000$' "$T/out"
# every folded command reads it; names stay escaped in the SVG
gf svg "$T/pyspy.json"; expect_rc svg-rc 0
expect_grep svg-frame '<title>decode \(/app/model.py:42\)' "$T/out"
expect_nogrep svg-raw-newline 'a;b$' "$T/out"
gf top "$T/ev.json"; expect_rc top-rc 0
gf merge "$T/ev.json" "$T/ev.json"; expect_grep merge-sum '^step;sync 9.5$' "$T/out"
gzip -c "$T/ev.json" >"$T/ev.json.gz"
gf_in "$T/ev.json.gz" svg; expect_rc svg-stdin-gz-rc 0
# hostile names: escaped in every output (XML here), control bytes stand in
printf '{"$schema": "https://www.speedscope.app/file-format-schema.json", "shared": {"frames": [{"name": "<script>alert(1)</script>\\u001b[31m&\\"x"}, {"name": "# not a comment"}]}, "profiles": [{"type": "sampled", "unit": "none", "samples": [[1, 0]], "weights": [1]}]}' >"$T/evil.json"
gf svg "$T/evil.json"; expect_rc evil-svg-rc 0
expect_nogrep evil-no-raw-script '<script>alert' "$T/out"
expect_nogrep evil-no-raw-esc "$(printf '\033')" "$T/out"
gf fold "$T/evil.json"; expect_grep evil-first-frame-not-comment '^#_not a comment;' "$T/out"
gf top --format json "$T/evil.json"; expect_rc evil-top-json-rc 0
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/out" && pass evil-top-json-valid || fail evil-top-json-valid
# errors: one line, naming the byte
printf '{"$schema": "https://www.speedscope.app/file-format-schema.json", "shared": {"frames": [{"name": "a"}]}, "profiles": [{"type": "sampled", "samples": [[0, 7]], "weights": [1]}]}' >"$T/bad1.json"
gf svg "$T/bad1.json"; expect_rc bad-index-rc 1
expect_grep bad-index-msg "bad1.json': byte [0-9]+: expected a frame index into shared.frames" "$T/err"
printf '{"$schema": "https://www.speedscope.app/file-format-schema.json", "shared": {"frames": [{"name": "a"}]}, "profiles": [{"type": "sampled", "samples": [[0]], "weights": [1, 2]}]}' >"$T/bad2.json"
gf fold "$T/bad2.json"; expect_rc bad-weights-rc 1
expect_grep bad-weights-msg "expected as many weights as samples" "$T/err"
printf '{"$schema": "https://www.speedscope.app/file-format-schema.json", "profiles": [' >"$T/bad3.json"
gf fold "$T/bad3.json"; expect_rc truncated-rc 1
expect_grep truncated-msg "bad3.json': byte [0-9]+: expected a value" "$T/err"
printf '{"$schema": "https://www.speedscope.app/file-format-schema.json", "shared": {"frames": [{"name": "a"}]}, "profiles": [{"type": "evented", "unit": "none", "endValue": 5, "events": [{"type": "O", "frame": 0, "at": 3}, {"type": "C", "frame": 0, "at": 1}]}]}' >"$T/bad4.json"
gf fold "$T/bad4.json"; expect_rc backwards-rc 1
expect_grep backwards-msg 'expected events in time order' "$T/err"
printf '{"$schema": "https://www.speedscope.app/file-format-schema.json", "shared": {"frames": [{"name": "a"}]}, "profiles": [{"type": "sampled", "unit": "seconds", "samples": [[0]], "weights": [1]}, {"type": "sampled", "unit": "bytes", "samples": [[0]], "weights": [1]}]}' >"$T/bad5.json"
gf fold "$T/bad5.json"; expect_rc units-rc 1
expect_grep units-msg 'profile 2 is in bytes, an earlier one in s: one unit per import' "$T/err"

# austin: P<pid>;T<iid>:<tid>;file:func:line frames, full metrics
printf '# austin: 3.6.0\n# mode: wall\n\nP4317;T0:7f1a;/usr/lib/python3.11/threading.py:_bootstrap:995;/app/model.py:forward:12 300\nP4317;T0:7f1a;/usr/lib/python3.11/threading.py:_bootstrap:995;/app/model.py:forward:12 200\nP4317;T0:7f1b;C:\\app\\x.py:<module>:1 50,1,-20\nP4318;T0:7f1c 7\n' >"$T/a.austin"
gf fold "$T/a.austin"; expect_rc austin-rc 0
AH='# gpuflame: format=austin; unit=us; mode=wall; samples=4;'   # wall mode: us (issue 26)
printf '%s\n' "$AH" 'process 4317;thread (7f1a);_bootstrap (/usr/lib/python3.11/threading.py:995);forward (/app/model.py:12) 500' \
  'process 4317;thread (7f1b);<module> (C:\app\x.py:1) 50' 'process 4318;thread (7f1c) 7' >"$T/want"
expect_same austin-keep "$T/out" "$T/want"
gf fold --threads merge "$T/a.austin"
printf '%s\n' "$AH" '<module> (C:\app\x.py:1) 50' '[no frames] 7' \
  '_bootstrap (/usr/lib/python3.11/threading.py:995);forward (/app/model.py:12) 500' >"$T/want"
expect_same austin-merge "$T/out" "$T/want"
gf svg "$T/a.austin"; expect_grep austin-svg '<title>forward \(/app/model.py:12\) \(500 us' "$T/out"
# py-spy raw: folded with process/thread roots, merged on request
printf 'process 12:"python x.py";thread (0x7F00AB);main (x.py:3);f (x.py:9) 4\nthread (0x7F00AC);main (x.py:3) 2\n' >"$T/p.txt"
gf fold "$T/p.txt"; expect_rc pyspy-raw-rc 0
PH='# gpuflame: format=py-spy; unit=samples; samples=6;'   # py-spy counts samples (issue 26)
{ echo "$PH"; cat "$T/p.txt"; } >"$T/want"
expect_same pyspy-raw-keep "$T/out" "$T/want"
gf fold --threads merge "$T/p.txt"
printf '%s\n' "$PH" 'main (x.py:3) 2' 'main (x.py:3);f (x.py:9) 4' >"$T/want"
expect_same pyspy-raw-merge "$T/out" "$T/want"
gf fold --threads merge --weight gpu "$T/p.txt"; expect_rc merge-with-weight-rc 2

need_shared import-speedscope-corpus || exit 0
S=$GF_SHARED/corpus/flamegraph/jlfwong-speedscope/sample/profiles/speedscope
n=0
for f in "$S"/*/*.json; do
  case $f in */invalid/out-of-order-events.json) continue;; esac
  n=$((n + 1))
  b=$(basename "$(dirname "$f")")-$(basename "$f" .json)
  check "speedscope-$b" "$f"
  # the total speedscope shows: sampled, the sum of the weights; evented, endValue - startValue
  want=$(python3 "$PY" --totals "$f" | awk '{print $2}' | paste -sd+ | bc)
  got=$(grep -v '^#' "$T/o" | awk '{print $NF}' | paste -sd+ | bc)
  expect_eq "speedscope-$b-total" "$got" "$want"
done
expect_eq speedscope-samples-count "$n" 5
# the issue's file: 14 stacks' worth, no "expected 'stack count'"
gf svg "$S/0.1.2/simple-sampled.speedscope.json"; expect_rc issue-svg-rc 0
expect_grep issue-svg-total '<title>all \(14 s, 100%\)' "$T/out"
# closing a frame that is not on top: refused, as speedscope refuses it
gf fold "$S/invalid/out-of-order-events.json"; expect_rc out-of-order-rc 1
expect_grep out-of-order-msg "byte [0-9]+: expected a close \(\"C\"\) of the frame on top of the stack" "$T/err"
