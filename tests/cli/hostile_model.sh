#!/usr/bin/env bash
# hostile_model.sh — the trace model and `info` under hostile times and ids
# (issue 16): hand-built traces with ts near INT64_MAX/1000 us, huge dur,
# baseTimeNanoseconds near +-INT64_MAX, negative ts, GPU or host durations
# summing past INT64_MAX, kernels whose dur is null / 1e400 / absent / a string, and
# correlation ids that collide across two processes. Every trace command
# (info text and JSON, fold with every weight, report, syncs, diff) runs on
# $GF (the ASan+UBSan build): no sanitizer report, the documented exit code,
# no wrong number. GPU weight is conserved: info's gpu_time.total_ns equals
# the sum of `fold --weight gpu` exactly (Python integers), and fold, report
# and syncs warn about unweighted activities in info's words. On the corpus:
# the same equality on every trace, and traces merged into one file (the 8
# dlrm ranks, two HTA ranks, two processes sharing GPU 0) fold exactly to
# the sum of their folds (links stay within a process). With GF_OLD=<older gpuflame>, also checks that fold --weight
# gpu and info --format json (less the gpu_time line, on both sides) did not change on the
# corpus. SKIPs the corpus parts without ../shared.
. "$(dirname "$0")/lib.sh"
GFR=${GF_REL:-$GF}
"$GFR" fold --help >/dev/null 2>&1 || GFR=$GF

SUM='import sys
t = 0
for l in sys.stdin:
    if l.startswith("# gpuflame:"):
        continue
    t += int(l.rstrip("\n").rsplit(" ", 1)[1])
print(t)'

# no_san NAME: the last run printed no sanitizer report
no_san() {
  if grep -qE "runtime error|AddressSanitizer|LeakSanitizer" "$T/err"; then
    fail "$1" "sanitizer: $(grep -m1 -E 'runtime error|Sanitizer' "$T/err" | head -c 300)"
  else pass "$1"; fi
}

cat >"$T/ovf_ts.json" <<'J'
{"traceEvents":[
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":9223372036854774,"dur":9223372036854774},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":9223372036854774,"dur":5,"args":{"correlation":1}},
{"ph":"X","cat":"kernel","name":"gemm_k","pid":0,"tid":7,"ts":9223372036854774,"dur":9223372036854774,"args":{"correlation":1}},
{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":10,"dur":20}
]}
J
cat >"$T/ovf_base.json" <<'J'
{"baseTimeNanoseconds":9223372036854775000,"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":100,"dur":1000},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":110,"dur":100},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":120,"dur":5,"args":{"correlation":1}},
{"ph":"X","cat":"kernel","name":"gemm_k","pid":0,"tid":7,"ts":130,"dur":50,"args":{"correlation":1}}
]}
J
cat >"$T/neg.json" <<'J'
{"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":-2305843009213693,"dur":2305843009213693},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":-2305843009213690,"dur":100},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":-2305843009213689,"dur":5,"args":{"correlation":1}},
{"ph":"X","cat":"cuda_runtime","name":"cudaStreamSynchronize","pid":1,"tid":1,"ts":-2305843009213680,"dur":2305843009213680,"args":{"correlation":2}},
{"ph":"X","cat":"kernel","name":"gemm_k","pid":0,"tid":7,"ts":-2305843009213688,"dur":2305843009213693,"args":{"correlation":1}},
{"ph":"X","cat":"kernel","name":"gemm_k","pid":0,"tid":7,"ts":2305843009213693,"dur":2305843009213693,"args":{"correlation":9}},
{"ph":"i","cat":"cpu_instant_event","name":"x","pid":1,"tid":1,"ts":-9223372036854774,"s":"t"}
]}
J
python3 - "$T/sum.json" <<'PY'
import json, sys
ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 2305843009213693},
      {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 100}]
for i in range(6):  # six kernels of 2^61 ns: each in range, the sum is not
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 2 + i, "dur": 1, "args": {"correlation": i + 1}})
    ev.append({"ph": "X", "cat": "kernel", "name": "gemm_k", "pid": 0, "tid": 7 + i, "ts": 10, "dur": 2305843009213693, "args": {"correlation": i + 1}})
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
python3 - "$T/hostsum.json" <<'PY'
import json, sys
M = 2305843009213693  # us, just under 2^61 ns: each range in range, 8 threads of them are not
ev = []
for th in range(8):
    ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": th, "ts": -M, "dur": M})
    ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::item", "pid": 1, "tid": th, "ts": -M + 1, "dur": M - 2})
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 1, "tid": th, "ts": -M + 2, "dur": M - 4, "args": {"correlation": 100 + th}})
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
cat >"$T/dur.json" <<'J'
{"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":100,"dur":1000},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":110,"dur":100},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":120,"dur":5,"args":{"correlation":1}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":130,"dur":5,"args":{"correlation":2}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":140,"dur":5,"args":{"correlation":3}},
{"ph":"X","cat":"kernel","name":"gemm_k","pid":0,"tid":7,"ts":150,"dur":50.125,"args":{"correlation":1}},
{"ph":"X","cat":"kernel","name":"gemm_k","pid":0,"tid":7,"ts":210,"dur":null,"args":{"correlation":2}},
{"ph":"X","cat":"kernel","name":"gemm_k","pid":0,"tid":7,"ts":220,"dur":1e400,"args":{"correlation":3}},
{"ph":"X","cat":"kernel","name":"gemm_k","pid":0,"tid":7,"ts":230,"args":{"correlation":3}},
{"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoH","pid":0,"tid":7,"ts":240,"dur":"abc","args":{"correlation":3}},
{"ph":"X","cat":"gpu_memset","name":"Memset","pid":0,"tid":7,"ts":250,"dur":7,"args":{"correlation":3}}
]}
J
# two processes (ranks) whose correlation ids collide; pid 200 issued one call more
cat >"$T/coll.json" <<'J'
{"traceEvents":[
{"ph":"X","cat":"cpu_op","name":"rank0_op","pid":100,"tid":100,"ts":10,"dur":100},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":100,"ts":20,"dur":5,"args":{"correlation":1}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":100,"ts":30,"dur":5,"args":{"correlation":2}},
{"ph":"X","cat":"kernel","name":"gemm_a","pid":0,"tid":7,"ts":50,"dur":10,"args":{"correlation":1,"device":0}},
{"ph":"X","cat":"kernel","name":"gemm_a","pid":0,"tid":7,"ts":60,"dur":10,"args":{"correlation":2,"device":0}},
{"ph":"X","cat":"cpu_op","name":"rank1_op","pid":200,"tid":200,"ts":10,"dur":100},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":200,"tid":200,"ts":21,"dur":5,"args":{"correlation":1}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":200,"tid":200,"ts":31,"dur":5,"args":{"correlation":2}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":200,"tid":200,"ts":41,"dur":5,"args":{"correlation":3}},
{"ph":"X","cat":"kernel","name":"reduce_b","pid":1,"tid":7,"ts":51,"dur":20,"args":{"correlation":1,"device":1}},
{"ph":"X","cat":"kernel","name":"reduce_b","pid":1,"tid":7,"ts":61,"dur":20,"args":{"correlation":2,"device":1}},
{"ph":"X","cat":"kernel","name":"reduce_b","pid":1,"tid":7,"ts":71,"dur":20,"args":{"correlation":3,"device":1}}
]}
J

# 1. every trace command on every hostile trace: no sanitizer report, exit as documented
for f in ovf_ts ovf_base neg sum hostsum dur coll; do
  for cmd in "info" "info --format json" "fold -w gpu" "fold -w cpu" "fold -w wall" "fold -w idle" \
             "fold -w calls" "fold -w idle --per-step" "report" "report --format json" "syncs" "syncs --format json"; do
    # shellcheck disable=SC2086
    gf $cmd "$T/$f.json"
    no_san "hostile $f $cmd: no sanitizer report"
    want=0
    case "$f:$cmd" in
      sum:info*|hostsum:info*) want=0 ;;
      sum:*|hostsum:*) want=1 ;;
      ovf_base:*) want=1 ;; # the reader refuses a base that overflows absolute times (docs/trace-reader.md)
    esac
    expect_rc "hostile $f $cmd: exit $want" "$want"
  done
  for g in ovf_base neg dur; do
    gf diff "$T/$f.json" "$T/$g.json"
    no_san "hostile diff $f $g: no sanitizer report"
  done
done

# 2. the GPU sum beyond INT64_MAX: a clear error naming the file (exit 1), info shows null
gf fold "$T/sum.json"
expect_grep "hostile sum fold message" "sum.json': the durations of the 6 GPU activities add up to more than 2\\^63-1 ns" "$T/err"
gf_in "$T/sum.json" report -
expect_grep "hostile sum stdin message" "^gpuflame report: '<stdin>': the durations of the 6 GPU activities" "$T/err"
gf info --format json "$T/sum.json"
python3 - "$T/out" >"$T/check" 2>&1 <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["traces"][0]
assert t["gpu_time"] == {"weighted": 6, "unweighted": 0, "total_ns": None}, t["gpu_time"]
assert any("add up to more than 2^63-1 ns" in w for w in t["warnings"]), t["warnings"]
print("ok")
PY
expect_grep "hostile sum info gpu_time null" "^ok$" "$T/check"

gf syncs "$T/hostsum.json"
expect_grep "hostile host sum syncs message" "hostsum.json': the durations of the 24 host ranges add up to more than 2\\^63-1 ns" "$T/err"
gf info "$T/hostsum.json"
expect_grep "hostile host sum info warns" "^warning: the durations of the host ranges add up to more than 2\\^63-1 ns" "$T/out"

# 3. info: no wrapped absolute time; out-of-range events left out of the span, said so
gf info --format json "$T/ovf_base.json"
expect_rc "hostile info base overflow refused" 1
expect_grep "hostile info base overflow message" "ovf_base.json': byte 23: expected a baseTimeNanoseconds that keeps every event's absolute time \\(baseTimeNanoseconds \\+ ts \\+ dur\\) within int64 nanoseconds, got 9223372036854775000" "$T/err"
expect_nogrep "hostile info base overflow no output" "." "$T/out"
gf info --format json "$T/ovf_ts.json"
python3 - "$T/out" >"$T/check" 2>&1 <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["traces"][0]
assert t["span"] == {"start_ns": 10000, "end_ns": 30000, "duration_ns": 20000}, t["span"]
assert t["time_out_of_range"] == 3, t["time_out_of_range"]
assert t["gpu_time"] == {"weighted": 0, "unweighted": 1, "total_ns": 0}, t["gpu_time"]
print("ok")
PY
expect_grep "hostile info ts overflow json" "^ok$" "$T/check"
gf info --format json "$T/neg.json"
python3 - "$T/out" >"$T/check" 2>&1 <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["traces"][0]
# from the step's start (-2305843009213693000) to the last kernel's end (2 * 2305843009213693000)
assert t["span"]["duration_ns"] == 3 * 2305843009213693000, t["span"]
assert t["span"]["start_ns"] == -2305843009213693000, t["span"]
assert t["time_out_of_range"] == 1, t
assert t["gpu_time"]["total_ns"] == 2 * 2305843009213693000, t["gpu_time"]
print("ok")
PY
expect_grep "hostile info negative ts json" "^ok$" "$T/check"

# 4. conservation: info's GPU total == sum of fold --weight gpu, exactly; the
# unweighted count is the same in info, fold, report and syncs, in the same words
check_conservation() { # name trace
  "$GF" info --format json "$2" >"$T/info.json" 2>"$T/err" || { fail "$1" "info exit $?"; return; }
  "$GF" fold -q --unit ns "$2" >"$T/fold" 2>"$T/err" || { fail "$1" "fold exit $?"; return; }
  local got
  got=$(python3 -c "$SUM" <"$T/fold")
  python3 - "$T/info.json" "$got" >"$T/check" 2>&1 <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["traces"][0]
g = t["gpu_time"]
assert g["total_ns"] == int(sys.argv[2]), (g, sys.argv[2])
assert g["weighted"] + g["unweighted"] == t["gpu_activities"], (g, t["gpu_activities"])
print("ok")
PY
  if grep -q '^ok$' "$T/check"; then pass "$1"; else fail "$1" "$(tail -2 "$T/check" | tr '\n' ' ')"; fi
}
check_conservation "hostile dur conservation" "$T/dur.json"
gf info --format json "$T/dur.json"
python3 - "$T/out" >"$T/check" 2>&1 <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["traces"][0]
assert t["gpu_activities"] == 6, t["gpu_activities"]
assert t["gpu_time"] == {"weighted": 2, "unweighted": 4, "total_ns": 57125}, t["gpu_time"]
w = [x for x in t["warnings"] if "unweighted" in x]
assert len(w) == 1, t["warnings"]
print(w[0])
PY
msg=$(cat "$T/check")
case "$msg" in
  "4 GPU activities are unweighted: dur missing or out of range"*) pass "hostile dur info count" ;;
  *) fail "hostile dur info count" "$msg" ;;
esac
for cmd in fold report syncs; do
  gf $cmd "$T/dur.json"
  expect_rc "hostile dur $cmd exit" 0
  if grep -qF "gpuflame $cmd: warning: '$T/dur.json': $msg" "$T/err"; then pass "hostile dur $cmd warns in info's words"
  else fail "hostile dur $cmd warns in info's words" "$(head -c 400 "$T/err")"; fi
done
gf fold --unit ns "$T/dur.json"
expect_eq "hostile dur fold weights" "$(grep -v '^#' "$T/out" | tr '\n' '|')" "aten::mm;gemm 50125|aten::mm;memset 7000|"

# 5. colliding correlation ids: each kernel charged to its own process's op
gf fold --unit ns "$T/coll.json"
expect_eq "hostile collision fold" "$(grep -v '^#' "$T/out" | tr '\n' '|')" "rank0_op;gemm 20000|rank1_op;reduce 60000|"
expect_grep "hostile collision fold warns" "2 correlation ids are carried by runtime/driver calls of more than one process .*linked within their device's process, 0 left unattributed" "$T/err"
gf fold -w calls "$T/coll.json"
expect_eq "hostile collision calls" "$(grep -v '^#' "$T/out" | tr '\n' '|')" "rank0_op;cudaLaunchKernel 2|rank1_op;cudaLaunchKernel 3|"
gf info "$T/coll.json"
expect_grep "hostile collision info warns" "^warning: 2 correlation ids are carried by runtime/driver calls of more than one process \\(2 processes" "$T/out"
for cmd in report syncs; do
  gf $cmd "$T/coll.json"
  expect_grep "hostile collision $cmd warns" "warning: '.*coll.json': 2 correlation ids are carried" "$T/err"
done

# 6. corpus: conservation on every trace; merged ranks fold to the sum of the ranks
need_shared "hostile-corpus" || exit 0
n=0
while IFS= read -r f; do
  name=${f#"$GF_SHARED"/corpus/traces/}
  GF=$GFR check_conservation "hostile corpus conservation $name" "$f"
  n=$((n + 1))
done < <(find "$GF_SHARED/corpus/traces" \( -name '*.json' -o -name '*.json.gz' \) ! -name 'execution_details.json' | sort)
[ "$n" -ge 30 ] && pass "hostile corpus count ($n traces)" || fail "hostile corpus count" "only $n traces"

# merged_equals_sum NAME TRACE... : the traces merged into one file fold to
# exactly the sum of their folds (fold stacks carry no pid), and fold warns
# when their correlation ids collide (WARN_COLLIDE=1)
merged_equals_sum() {
  local name=$1; shift
  python3 - "$T/merged.json" "$@" <<'PY'
import gzip, json, sys
ev = []
for f in sys.argv[2:]:
    b = open(f, "rb").read()
    if b[:2] == b"\x1f\x8b":
        b = gzip.decompress(b)
    ev += json.loads(b)["traceEvents"]
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
  for f in "$@"; do "$GFR" fold -q --unit ns "$f" | grep -v '^#'; done |
    python3 -c '
import sys, collections
s = collections.Counter()
for l in sys.stdin:
    k, w = l.rstrip("\n").rsplit(" ", 1)
    s[k] += int(w)
for k in s:
    print(k, s[k])' | sort >"$T/sum.folded"
  "$GFR" fold --unit ns "$T/merged.json" 2>"$T/err" | grep -v '^#' | sort >"$T/merged.folded"
  expect_same "hostile merged $name: fold = sum of folds" "$T/merged.folded" "$T/sum.folded"
  if [ "${WARN_COLLIDE:-0}" = 1 ]; then
    expect_grep "hostile merged $name: warns" "correlation ids are carried by runtime/driver calls of more than one process \\($# processes" "$T/err"
  fi
}
C=$GF_SHARED/corpus/traces
tarf=$C/param/dlrm_kineto.tar.gz
if [ -f "$tarf" ] && mkdir "$T/dlrm" && tar xzf "$tarf" -C "$T/dlrm"; then
  WARN_COLLIDE=1 merged_equals_sum "dlrm 8 ranks" "$T"/dlrm/*/*.json
else
  skip "hostile merged dlrm 8 ranks" "no dlrm_kineto.tar.gz"
fi
# two ranks of one job (GPU 0 and 1)
WARN_COLLIDE=1 merged_equals_sum "hta 2 ranks" "$C/hta/trace_filter/sampled_rank-0.json.gz" "$C/hta/trace_filter/sampled_rank-1.json.gz"
# two unrelated processes on the same device (GPU 0), at different times
merged_equals_sum "2 processes on GPU 0" "$C/tracelens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz" \
  "$C/tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz"

# 7. optional: outputs unchanged against an older binary (GF_OLD)
if [ -z "${GF_OLD:-}" ]; then skip "hostile corpus unchanged" "GF_OLD not set"; exit 0; fi
while IFS= read -r f; do
  name=${f#"$GF_SHARED"/corpus/traces/}
  "$GF_OLD" fold -q "$f" >"$T/o" 2>/dev/null
  "$GFR" fold -q "$f" >"$T/n" 2>/dev/null
  expect_same "hostile unchanged fold gpu $name" "$T/n" "$T/o"
  # an older binary may lack the gpu_time line (it came with the unweighted count): compare without it
  "$GF_OLD" info --format json "$f" 2>/dev/null | grep -v '^  "gpu_time": ' >"$T/o"
  "$GFR" info --format json "$f" 2>/dev/null | grep -v '^  "gpu_time": ' >"$T/n"
  expect_same "hostile unchanged info json $name" "$T/n" "$T/o"
done < <(find "$GF_SHARED/corpus/traces" \( -name '*.json' -o -name '*.json.gz' \) ! -name 'execution_details.json' | sort)
