#!/usr/bin/env bash
# legacy_torch.sh — legacy (non-Kineto) PyTorch traces: the autograd
# profiler's bare array (no "cat", pid "CPU functions" / "CUDA functions").
#  1. generated traces (tests/gen/gen_legacy.py, answers by construction):
#     info names the format and finds the steps and GPU activities; fold's
#     CPU and GPU weights are conserved; report's step walls and busy times;
#     the frames (record_function markers, ops, a hostile name) appear.
#  2. the GPU-weight note: fold --weight gpu/idle/calls on a trace with no
#     GPU activity (legacy, and a Kineto CPU-only capture) exits 0 with one
#     line on stderr naming the file and the weights it supports.
#  3. a real capture: Debian's python3-torch (1.13, built without Kineto)
#     runs the decode-loop recipe of Flame Graphs for LLMs, in depth (tests/gen/capture_legacy.py,
#     /usr/bin/python3); steps, walls, frames and the CPU weight are checked
#     against what the Python computes from the exported JSON itself.
#     SKIPped when /usr/bin/python3 cannot import torch.
# Before (main at 0ef3bfc): 0 steps, fold --weight cpu only a header, no note.
. "$(dirname "$0")/lib.sh"

# the sum of a folded file's weights in ns (unit us), exactly
fsum_ns() { python3 -c "
import decimal, re, sys
t = decimal.Decimal(0)
per = 1000  # a header without a unit: us (folds before issue 26)
for l in open(sys.argv[1]):
    m = re.match(r'# gpuflame:.*\\bunit=(ns|us);', l)
    if m: per = 1 if m.group(1) == 'ns' else 1000
    if l.startswith('#') or not l.strip(): continue
    t += decimal.Decimal(l.rsplit(' ', 1)[1])
print(int(t * per))" "$1"; }
# every frame of a folded file, one a line
frames() { python3 -c "
import sys
fr = set()
for l in open(sys.argv[1]):
    if l.startswith('#') or not l.strip(): continue
    fr.update(l.rsplit(' ', 1)[0].split(';'))
print('\n'.join(sorted(fr)))" "$1"; }
# names (one a line in file $2) missing from the frames of folded file $1;
# a ';' in a name is written ':' by the folded writer (docs/fold.md)
missing() { frames "$1" >"$T/frames"; python3 -c "
import sys
fr = set(open(sys.argv[1]).read().split('\n'))
print(' '.join(n.replace(';', ':') for n in open(sys.argv[2]).read().split('\n') if n and n.replace(';', ':') not in fr))" "$T/frames" "$2"; }

# ---- 1. generated legacy traces
G=$T/gen
python3 tests/gen/gen_legacy.py "$G" || { fail "gen" "gen_legacy.py failed"; exit 0; }
e() { python3 -c "import json,sys; v=json.load(open('$G/expect.json'))['$1']['$2']; print(' '.join(map(str,v)) if isinstance(v,list) else v)"; }

gf info "$G/gpu.json"
expect_rc "gen-info-rc" 0
expect_grep "gen-info-format" "bare array, legacy autograd profiler" "$T/out"
expect_grep "gen-info-steps" "^steps: 2 \(ProfilerStep#3 \.\. #4\)$" "$T/out"
gf info --format json "$G/gpu.json"
expect_eq "gen-info-json" "$(python3 -c "
import json,sys; t=json.load(open('$T/out'))['traces'][0]
print(t['format'], ' '.join(map(str,t['steps']['numbers'])), t['gpu_activities'], t['correlation']['launched_before_window'])")" \
  "legacy-autograd $(e gpu steps) $(e gpu gpu_activities) 0"
for k in gpu cpu; do
  gf fold --weight cpu "$G/$k.json"
  expect_rc "gen-$k-fold-cpu-rc" 0
  expect_eq "gen-$k-fold-cpu-total" "$(fsum_ns "$T/out")" "$(e $k cpu_ns)"
  expect_grep "gen-$k-fold-cpu-steps" "steps=2;" "$T/out"
  python3 -c "import json; print('\n'.join(json.load(open('$G/expect.json'))['$k']['names']))" >"$T/names"
  expect_eq "gen-$k-fold-cpu-frames" "$(missing "$T/out" "$T/names")" ""
  gf fold --weight wall "$G/$k.json"
  expect_eq "gen-$k-fold-wall-frames" "$(missing "$T/out" "$T/names")" ""
  # every thread (the helper too) over the steps
  gf fold --weight cpu --all-threads "$G/$k.json"
  expect_eq "gen-$k-fold-cpu-all-total" "$(fsum_ns "$T/out")" "$(e $k cpu_all_ns)"
  python3 -c "import json; print('\n'.join(json.load(open('$G/expect.json'))['$k']['names_all']))" >"$T/names"
  expect_eq "gen-$k-fold-cpu-all-frames" "$(missing "$T/out" "$T/names")" ""
done
gf fold --weight gpu "$G/gpu.json"
expect_rc "gen-fold-gpu-rc" 0
expect_eq "gen-fold-gpu-total" "$(fsum_ns "$T/out")" "$(e gpu gpu_ns)"
expect_nogrep "gen-fold-gpu-no-note" "no GPU activity" "$T/err"
expect_grep "gen-fold-gpu-unattributed" "4 GPU activities .* \(0 launched before the window\)" "$T/err"
gf report --format json "$G/gpu.json"
expect_rc "gen-report-rc" 0
expect_eq "gen-report-steps" "$(python3 -c "
import json,sys
from decimal import Decimal
r=json.load(open('$T/out'), parse_float=Decimal)
print(' '.join(str(s['index']) for s in r['steps']), '|', ' '.join(str(int(s['wall_us']*1000)) for s in r['steps']), '|', ' '.join(str(int(s['gpu_busy_us']*1000)) for s in r['steps']))")" \
  "$(e gpu steps) | $(e gpu walls_ns) | $(e gpu busy_ns)"

# ---- 2. the note for GPU weights on a trace without GPU activity
python3 - "$T/kcpu.json" <<'PY'
import json, sys
ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 5, "tid": 5, "ts": 0, "dur": 100},
      {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 5, "tid": 5, "ts": 10, "dur": 50}]
json.dump({"schemaVersion": 1, "traceEvents": ev}, open(sys.argv[1], "w"))
PY
for f in "$G/cpu.json" "$T/kcpu.json"; do
  n=$(basename "$f" .json)
  for w in gpu idle calls; do
    gf fold --weight $w "$f"
    expect_rc "note-$n-$w-rc" 0
    expect_eq "note-$n-$w-stdout" "$(grep -vc '^#' "$T/out")" "0"
    expect_eq "note-$n-$w-lines" "$(grep -c 'no GPU activity' "$T/err")" "1"
    expect_grep "note-$n-$w-text" "'$(printf %s "$f" | sed 's/[.]/\\&/g')': no GPU activity in the trace .*--weight $w has nothing to weigh: use --weight cpu or wall$" "$T/err"
    gf fold -q --weight $w "$f"
    expect_eq "note-$n-$w-quiet" "$(wc -c <"$T/err")" "0"
  done
  gf fold --weight cpu "$f"
  expect_nogrep "note-$n-cpu-none" "no GPU activity" "$T/err"
done
expect_grep "note-legacy-kind" "legacy autograd profiler" <(gf fold "$G/cpu.json"; cat "$T/err")
expect_grep "note-kineto-kind" "a CPU-only capture" <(gf fold "$T/kcpu.json"; cat "$T/err")

# ---- 3. a real capture with Debian's python3-torch
PY3=${GF_SYSTEM_PYTHON:-/usr/bin/python3}
if ! "$PY3" -c "import torch" 2>/dev/null; then
  skip "capture" "$PY3 cannot import torch (scripts/deps.sh test installs python3-torch)"
  exit 0
fi
C=$T/cap
t0=$(date +%s)
timeout 120 "$PY3" tests/gen/capture_legacy.py "$C" 2>"$T/cap.err"
crc=$?
t1=$(date +%s)
if [ $crc -ne 0 ]; then fail "capture" "capture_legacy.py exit $crc: $(head -c 300 "$T/cap.err")"; exit 0; fi
pass "capture"
expect_eq "capture-fast" "$([ $((t1 - t0)) -lt 20 ] && echo yes || echo "$((t1 - t0)) s")" "yes"
x() { awk -v k="$1" '$1 == k { $1 = ""; print substr($0, 2) }' "$C/expect.txt"; }
if [ "$(x kineto)" = 1 ]; then
  # a torch with Kineto writes Kineto traces: the recipe is still checked, not the legacy reader
  skip "capture-legacy-format" "this torch has Kineto; its export is a Kineto trace"
else
  gf info "$C/legacy.json"
  expect_grep "capture-info-format" "legacy autograd profiler" "$T/out"
fi
gf info --format json "$C/legacy.json"
expect_eq "capture-info-steps" "$(python3 -c "import json; print(json.load(open('$T/out'))['traces'][0]['steps']['count'])")" "$(x steps)"
gf report --format json "$C/legacy.json"
expect_eq "capture-report-walls" "$(python3 -c "
import json
from decimal import Decimal
r=json.load(open('$T/out'), parse_float=Decimal)
print('\n'.join('step %d %d' % (s['index'], int(s['wall_us']*1000)) for s in r['steps']))")" "$(grep '^step ' "$C/expect.txt")"
if [ "$(x kineto)" != 1 ]; then
  # the legacy export records no GPU activity: report says why, not "check the profiler"
  expect_grep "capture-report-legacy-advice" "legacy autograd profiler's export" "$T/out"
fi
gf fold --weight cpu "$C/legacy.json"
expect_rc "capture-fold-cpu-rc" 0
expect_eq "capture-fold-cpu-total" "$(fsum_ns "$T/out")" "$(x cpu_total_ns)"
x name >"$T/names"
expect_eq "capture-frames-markers" "$(grep -c '^decode_step$\|^eos_check$' "$T/names")" "2"
expect_eq "capture-fold-cpu-frames" "$(missing "$T/out" "$T/names")" ""
gf fold --weight wall "$C/legacy.json"
expect_eq "capture-fold-wall-frames" "$(missing "$T/out" "$T/names")" ""
gf fold --weight gpu "$C/legacy.json"
expect_rc "capture-fold-gpu-rc" 0
expect_grep "capture-fold-gpu-note" "no GPU activity in the trace" "$T/err"
exit 0
