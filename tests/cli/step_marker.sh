#!/usr/bin/env bash
# step_marker.sh — one classifier, one step selection: a custom --step-marker
# selects the same steps in info, fold and report; one wrong --steps gets one
# message from fold and report; info's steps, graph launches and
# communication kernels follow the model's rules (bare markers, ph X only,
# no "ProfilerStep#12abc", cuGraphLaunch). Truth: tests/gen/gen_steps.py.
. "$(dirname "$0")/lib.sh"

python3 tests/gen/gen_steps.py "$T/s.json" "$T/e.json" || { fail "gen" "gen_steps.py failed"; exit 0; }
e() { python3 -c "import json,sys; v=json.load(open('$T/e.json'))['$1']; print(' '.join(map(str,v)) if isinstance(v,list) else v)"; }
# the sum of a folded file's weights, exactly
fsum() { python3 -c "
import decimal, re, sys
t = decimal.Decimal(0)
per = 1  # the sum in us: a fold's header names its unit (ns since issue 26)
for l in open(sys.argv[1]):
    m = re.match(r'# gpuflame:.*\\bunit=(ns|us);', l)
    if m: per = decimal.Decimal('0.001') if m.group(1) == 'ns' else 1
    if l.startswith('#') or not l.strip(): continue
    t += decimal.Decimal(l.rsplit(' ', 1)[1])
t *= per
print('{:f}'.format(t.normalize()) if t else 0)" "$1"; }

# info: the steps of a custom marker (bare marker = ordinal 0) and of the default one
gf info --format json --step-marker decode "$T/s.json"
expect_rc "info-marker-rc" 0
expect_eq "info-marker-numbers" "$(python3 -c "import json,sys; s=json.load(open('$T/out'))['traces'][0]['steps']; print(' '.join(map(str,s['numbers'])), s['events'])")" "$(e decode_numbers) $(e decode_events)"
gf info --format json "$T/s.json"
expect_eq "info-default-numbers" "$(python3 -c "import json,sys; s=json.load(open('$T/out'))['traces'][0]['steps']; print(' '.join(map(str,s['numbers'])), s['events'])")" "$(e ps_numbers) $(e ps_events)"
expect_eq "info-graph-launches" "$(python3 -c "import json; print(json.load(open('$T/out'))['traces'][0]['graph_launches'])")" "$(e graph_launches)"
expect_eq "info-comm-kernels" "$(python3 -c "import json; print(json.load(open('$T/out'))['traces'][0]['nccl_kernels'])")" "$(e comm_kernels)"
gf info --step-marker decode "$T/s.json"
expect_grep "info-marker-text" "^steps: 4 \(decode#0 \.\. #5\)$" "$T/out"

# fold and report select the same steps with the custom marker
gf fold --step-marker decode --steps 1..2 "$T/s.json"
expect_rc "fold-marker-rc" 0
expect_grep "fold-marker-steps" "steps=2;" "$T/out"
expect_eq "fold-marker-gpu" "$(fsum "$T/out")" "$(e decode_1_2_gpu_us)"
gf report --step-marker decode --steps 1..2 --format json "$T/s.json"
expect_rc "report-marker-rc" 0
expect_eq "report-marker-steps" "$(python3 -c "import json; print(' '.join(str(s['index']) for s in json.load(open('$T/out'))['steps']))")" "$(e decode_1_2)"
gf fold --step-marker decode --steps ..5 --skip 1 "$T/s.json"
expect_eq "fold-marker-skip-gpu" "$(fsum "$T/out")" "$(e decode_to5_skip1_gpu_us)"
gf report --step-marker decode --steps ..5 --skip 1 --format json "$T/s.json"
expect_eq "report-marker-skip-steps" "$(python3 -c "import json; print(' '.join(str(s['index']) for s in json.load(open('$T/out'))['steps']))")" "$(e decode_to5_skip1)"
gf fold --steps 9 "$T/s.json"
expect_eq "fold-default-gpu" "$(fsum "$T/out")" "$(e ps_9_gpu_us)"

# one mistake, one message
msg="no step left by the step selection (the trace has $(e decode_count) steps, numbered $(e decode_first)..$(e decode_last))"
gf fold --step-marker decode --steps 100.. "$T/s.json"
expect_rc "fold-empty-rc" 2
cp "$T/err" "$T/fold.err"
gf report --step-marker decode --steps 100.. "$T/s.json"
expect_rc "report-empty-rc" 2
expect_grep "fold-empty-msg" "$(printf %s "$msg" | sed 's/[().]/\\&/g')" "$T/fold.err"
expect_grep "report-empty-msg" "$(printf %s "$msg" | sed 's/[().]/\\&/g')" "$T/err"
gf syncs --step-marker decode --steps 100.. "$T/s.json"
expect_grep "syncs-empty-msg" "$(printf %s "$msg" | sed 's/[().]/\\&/g')" "$T/err"
# a trace without steps: --steps and --skip select nothing, in every command
# (issue 24 item 8: report and syncs took the whole trace, exit 0)
python3 -c '
import json, sys
ev = [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 2, "args": {"correlation": 1}},
      {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 14, "dur": 5, "args": {"device": 0, "stream": 7, "correlation": 1}}]
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))' "$T/nosteps.json"
for cmd in fold report syncs; do
  for sel in "--steps 2..3" "--skip 1"; do
    gf $cmd $sel "$T/nosteps.json"
    expect_rc "$cmd-nosteps-${sel%% *}-rc" 2
    expect_grep "$cmd-nosteps-${sel%% *}-msg" "nosteps.json': the trace has no steps \(no 'ProfilerStep' ranges\) to select" "$T/err"
    expect_eq "$cmd-nosteps-${sel%% *}-no-output" "$(wc -c <"$T/out")" 0
  done
  gf $cmd "$T/nosteps.json"
  expect_rc "$cmd-nosteps-whole-rc" 0
done
# without steps the wall fold covers the window on the launching thread: the
# window [10, 19) us, the launch call 2 us, [untraced] the other 7 (issue 24 item 8)
gf fold -w wall "$T/nosteps.json"
expect_grep "nosteps-wall-untraced" '^thread \(1\);\[untraced\] 7000$' "$T/out"
expect_eq "nosteps-wall-window" "$(grep -v '^#' "$T/out" | awk '{s += $NF} END {print s}')" 9000
# a zero-length last step is not steady (issue 24 item 8): 4 steps of 900 us,
# each one 800 us kernel, then ProfilerStep#4 of no duration
python3 -c '
import json, sys
ev = []
for s in range(4):
    t = 1000 + s * 1000
    ev += [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % s, "pid": 1, "tid": 1, "ts": t, "dur": 900},
           {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t + 10, "dur": 5, "args": {"correlation": s + 1}},
           {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": t + 20, "dur": 800, "args": {"device": 0, "stream": 7, "correlation": s + 1}}]
ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#4", "pid": 1, "tid": 1, "ts": 5000, "dur": 0})
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))' "$T/zero.json"
gf report --format json "$T/zero.json"
expect_eq "zero-length-step-not-steady" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
s = d["summary"]
print(s["steps"], s["steady_steps"], d["warnings"]["zero_length_steps"], s["gpu_busy_us"], [x["index"] for x in d["steps"]])' "$T/out")" "4 4 1 800 [0, 1, 2, 3]"
gf report "$T/zero.json"
expect_grep "zero-length-step-note" "1 zero-length step left out" "$T/out"
for cmd in fold report; do
  gf $cmd --steps 3..1 "$T/s.json"
  expect_rc "$cmd-bad-range-rc" 2
  expect_grep "$cmd-bad-range-msg" "invalid argument '3\.\.1' for '--steps': A is after B" "$T/err"
done
exit 0
