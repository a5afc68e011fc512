#!/usr/bin/env bash
# tests/cli/export_stacks.sh — `gpuflame export --to speedscope|pprof` (issue
# 14) from folded stacks and from traces, checked by independent code:
# tests/gen/check_export.py (stdlib Python, exact Decimals: stacks, frames,
# units, totals), speedscope's own schema (ajv), the speedscope app in
# headless Chromium, `protoc --decode perftools.profiles.Profile` with the
# .proto written for the test (tests/gen/proto/profile.proto) and npm
# pprof-format. Errors: exit codes, one-line messages, no partial output.
. "$(dirname "$0")/lib.sh"
CHK="python3 tests/gen/check_export.py"
BR=tests/browser
have_node=0
if command -v node >/dev/null && [ -d $BR/node_modules/ajv ] && [ -d $BR/node_modules/pprof-format ] &&
   [ -d $BR/node_modules/speedscope ]; then have_node=1; fi
have_protoc=0; command -v protoc >/dev/null && have_protoc=1
have_go=0; command -v go >/dev/null && go tool -n pprof >/dev/null 2>&1 && have_go=1
GO_SKIP="go tool pprof missing (scripts/deps.sh test installs Debian's golang-go)"

# a folded file with Python frames of both spellings, decimals, hostile names
printf '# gpuflame: weight=gpu; unit=us; rank=3;\nmain;model.py(12): forward;aten::mm;gemm 30.5\nmain;alpha 10\n' >"$T/a.folded"
printf 'main;forward (x/y.py:7);b\xff"<>&\\\x1b[31m 1.25\nmain;alpha;ProfilerStep#4 0.001\n' >>"$T/a.folded"
printf 'a;b 3\na;c 4\nd 5\n' >"$T/plain.folded"             # counts, no header
printf '# gpuflame: weight=calls;\nx;cudaLaunchKernel 7\n' >"$T/calls.folded"

gf export --to speedscope -o "$T/a.json" "$T/a.folded"
expect_rc export-speedscope-rc 0
expect_eq export-speedscope-check "$($CHK speedscope "$T/a.folded" -- "$T/a.json")" ok
gf export --to speedscope "$T/plain.folded"
cp "$T/out" "$T/plain.json"
expect_eq export-speedscope-counts "$($CHK speedscope "$T/plain.folded" -- "$T/plain.json")" ok
expect_grep export-speedscope-unit-none '"unit":"none"' "$T/plain.json"
# the checker itself fails on a wrong weight
sed 's/"weights":\[1250,/"weights":[1251,/' "$T/a.json" >"$T/bad.json"
if $CHK speedscope "$T/a.folded" -- "$T/bad.json" >/dev/null; then fail export-speedscope-check-fails "tampered file accepted"
else pass export-speedscope-check-fails; fi

gf export --to pprof -o "$T/a.pb.gz" "$T/a.folded"
expect_rc export-pprof-rc 0
if [ "$(head -c 2 "$T/a.pb.gz" | od -An -tx1 | tr -d ' ')" = 1f8b ]; then pass export-pprof-gzip
else fail export-pprof-gzip "not gzip"; fi
gf export --to pprof -o "$T/calls.pb.gz" "$T/calls.folded"
if [ $have_protoc = 1 ]; then
  for x in a calls; do
    if zcat "$T/$x.pb.gz" | protoc --decode perftools.profiles.Profile -I tests/gen/proto profile.proto \
         >"$T/$x.txt" 2>"$T/perr"; then pass export-pprof-protoc-$x
    else fail export-pprof-protoc-$x "$(head -c 300 "$T/perr")"; fi
    expect_eq export-pprof-check-$x "$($CHK pprof "$T/$x.folded" -- "$T/$x.txt")" ok
  done
  expect_grep export-pprof-rank-label 'key: 1' "$T/a.txt"        # "rank" is string 1
  expect_grep export-pprof-step-label 'num: 4' "$T/a.txt"
  sed 's/value: 30500/value: 30501/' "$T/a.txt" >"$T/bad.txt"
  if $CHK pprof "$T/a.folded" -- "$T/bad.txt" >/dev/null; then fail export-pprof-check-fails "tampered accepted"
  else pass export-pprof-check-fails; fi
else
  skip export-pprof-protoc "protoc not installed (scripts/deps.sh test installs protobuf-compiler)"
fi

# what `go tool pprof` shows (issue 26): names pprof would "demangle" when a
# function's name equals its system_name, a thread root that reads as a
# file and line, CPython -X perf frames; every stack and total exact
{ printf '# gpuflame: weight=wall; unit=ns;\n'
  printf 'thread (3113936): python3.8;x.py(3): run;<built-in method item of Tensor object at 0x...>;aten::item 7\n'
  printf 'thread (3113936): python3.8;x.py(3): run;<built-in function len> 2\n'
  printf 'thread (12);Memcpy HtoD (Pinned -> Device) 5\n'
  printf 'thread (12);void at::native::vectorized_elementwise_kernel<4, float>(int, float) 11\n'
  printf 'thread (12);void at::native::vectorized_elementwise_kernel<8, float>(int, float) 13\n'
  printf 'process 7:"python -X perf t.py";py::train:/w/t.py;py::step:/w/t.py;std::vector<int>::push_back 17\n'
  printf '<string>(1): <module>;x[0] 19\n'; } >"$T/names.folded"
gf export --to pprof -o "$T/names.pb.gz" "$T/names.folded"
if [ $have_go = 1 ]; then
  expect_eq export-pprof-go-names "$($CHK go-pprof "$T/names.folded" -- "$T/names.pb.gz")" ok
  expect_eq export-pprof-go-a "$($CHK go-pprof "$T/a.folded" -- "$T/a.pb.gz")" ok
  # the check fails on what pprof made of the old encoding (system_name == name)
  go tool pprof -traces "$T/names.pb.gz" >"$T/names.traces" 2>/dev/null
  expect_grep export-pprof-go-builtin-shown '<built-in method item of Tensor object at 0x\.\.\.>' "$T/names.traces"
  expect_grep export-pprof-go-thread-shown '^ +thread \(3113936\): python3\.8$' "$T/names.traces"
else
  skip export-pprof-go "$GO_SKIP"
fi

if [ $have_node = 1 ]; then
  node $BR/export_test.mjs schema "$T/a.json"
  node $BR/export_test.mjs schema "$T/plain.json" | sed 's/schema$/schema-plain/'
  node $BR/export_test.mjs pprof "$T/a.pb.gz" gpu=41751
  node $BR/export_test.mjs pprof "$T/calls.pb.gz" calls=7 | sed 's/^\(PASS\|FAIL\) \([^:]*\)/\1 \2-calls/'
  if [ -x /usr/bin/chromium ] && [ -d $BR/node_modules/playwright-core ]; then
    timeout 120 node $BR/export_test.mjs app "$T/a.json" main 41.75µs main gemm alpha aten::mm forward
  else skip export-speedscope-app "chromium or playwright-core missing"; fi
else
  skip export-node "node or tests/browser/node_modules (ajv, pprof-format, speedscope) missing: npm install in tests/browser"
fi

# traces: every weight, each profile equal to `fold -w W --unit ns`
python3 tests/gen/gen_gaps.py two_syncs -o "$T/t.json" --expect "$T/t.expect.json" >/dev/null
for w in gpu cpu wall idle; do "$GF" fold -q -w $w --unit ns "$T/t.json" >"$T/t.$w.folded"; done
gf export --to speedscope -q -o "$T/t.ss.json" "$T/t.json"
expect_rc export-trace-speedscope-rc 0
expect_eq export-trace-speedscope "$($CHK speedscope "$T"/t.{gpu,cpu,wall,idle}.folded -- "$T/t.ss.json" "$T/t.json")" ok
# the evented check fails on a moved event
sed '0,/"type":"C","frame":\([0-9]*\),"at":\([0-9]*\)/s//"type":"C","frame":\1,"at":\21/' "$T/t.ss.json" >"$T/t.bad.json"
if $CHK speedscope "$T"/t.{gpu,cpu,wall,idle}.folded -- "$T/t.bad.json" "$T/t.json" >/dev/null; then
  fail export-trace-evented-check-fails "a moved close was accepted"; else pass export-trace-evented-check-fails; fi
gf export --to pprof -q -o "$T/t.pb.gz" "$T/t.json"
if [ $have_protoc = 1 ]; then
  zcat "$T/t.pb.gz" | protoc --decode perftools.profiles.Profile -I tests/gen/proto profile.proto >"$T/t.txt"
  expect_eq export-trace-pprof "$($CHK pprof "$T"/t.{gpu,cpu,wall,idle}.folded -- "$T/t.txt")" ok
  expect_grep export-trace-pprof-duration 'duration_nanos: [1-9]' "$T/t.txt"
fi
[ $have_go = 1 ] && expect_eq export-trace-pprof-go "$($CHK go-pprof "$T"/t.{gpu,cpu,wall,idle}.folded -- "$T/t.pb.gz")" ok
if [ $have_node = 1 ]; then
  tot() { awk '!/^#/{s+=$NF} END{printf "%d", s}' "$1"; }
  node $BR/export_test.mjs pprof "$T/t.pb.gz" gpu=$(tot "$T/t.gpu.folded") cpu=$(tot "$T/t.cpu.folded") \
    wall=$(tot "$T/t.wall.folded") idle=$(tot "$T/t.idle.folded") | sed 's/^\(PASS\|FAIL\) \([^:]*\)/\1 \2-trace/'
  node $BR/export_test.mjs schema "$T/t.ss.json" | sed 's/schema$/schema-trace/'
  if [ -x /usr/bin/chromium ] && [ -d $BR/node_modules/playwright-core ]; then
    # the gpu profile is the one shown first: k4's total is the gpu fold's (540 us)
    timeout 120 node $BR/export_test.mjs app "$T/t.ss.json" k4 \
      "$(awk '!/^#/ && $1=="k4"{printf "%.2fµs", $NF/1000}' "$T/t.gpu.folded")" k1 k4 | sed 's/^\(PASS\|FAIL\) \([^:]*\)/\1 \2-trace/'
  fi
fi
gf export --to speedscope -w gpu,calls -o "$T/t2.json" "$T/t.json"
expect_eq export-trace-weights "$(python3 -c 'import json,sys; print(",".join(p["name"]+":"+p["unit"] for p in json.load(open(sys.argv[1]))["profiles"] if p["type"] == "sampled"))' "$T/t2.json")" "gpu:nanoseconds,calls:none"

# a real trace (corpus): both formats against the folds
if need_shared export-corpus; then
  f=$(ls "$GF_SHARED"/corpus/traces/tracelens/h100/Qwen_Qwen1.5-0.5B-Chat__*.json.gz | head -1)
  for w in gpu cpu wall idle; do "$GF" fold -q -w $w --unit ns "$f" >"$T/q.$w.folded"; done
  gf export --to speedscope -q -o "$T/q.json" "$f"
  # the threads' evented profiles: exact but for ranges the model clipped
  expect_eq export-corpus-speedscope "$($CHK speedscope "$T"/q.{gpu,cpu,wall,idle}.folded -- "$T/q.json" "$f")" ok
  gf export --to pprof -q -o "$T/q.pb.gz" "$f"
  if [ $have_protoc = 1 ]; then
    zcat "$T/q.pb.gz" | protoc --decode perftools.profiles.Profile -I tests/gen/proto profile.proto >"$T/q.txt"
    expect_eq export-corpus-pprof "$($CHK pprof "$T"/q.{gpu,cpu,wall,idle}.folded -- "$T/q.txt")" ok
  fi
  # issue 26's done-when: no <unknown>, no "thread :TID", every stack as folded
  if [ $have_go = 1 ]; then
    expect_eq export-corpus-pprof-go "$($CHK go-pprof "$T"/q.{gpu,cpu,wall,idle}.folded -- "$T/q.pb.gz")" ok
    go tool pprof -sample_index=wall -top -lines "$T/q.pb.gz" >"$T/q.top" 2>/dev/null
    if grep -q '<unknown>\|thread :[0-9]' "$T/q.top"; then fail export-corpus-pprof-go-top "$(grep -m1 '<unknown>\|thread :' "$T/q.top")"
    else pass export-corpus-pprof-go-top; fi
  else skip export-corpus-pprof-go "$GO_SKIP"; fi
fi

# errors: one line, documented exit, no output file
gf export "$T/a.folded"
expect_rc export-no-to 2
gf export --to svg "$T/a.folded"
expect_rc export-bad-to 2
printf 'a;b 1 2\n' >"$T/diff.folded"
gf export --to speedscope -o "$T/d.json" "$T/diff.folded"
expect_rc export-differential 1
expect_grep export-differential-msg 'differential stacks' "$T/err"
[ -e "$T/d.json" ] && fail export-differential-nofile "output left" || pass export-differential-nofile
printf 'a;b 2.5\n' >"$T/half.folded"
gf export --to pprof -o "$T/h.pb.gz" "$T/half.folded"
expect_rc export-pprof-fraction 1
expect_grep export-pprof-fraction-msg "stack 'a;b' is not a whole number of counts" "$T/err"
[ -e "$T/h.pb.gz" ] && fail export-pprof-fraction-nofile "output left" || pass export-pprof-fraction-nofile
gf export --to perfetto -o "$T/p.json" "$T/a.folded"
expect_rc export-perfetto-folded 1
expect_grep export-perfetto-folded-msg 'needs a PyTorch profiler trace' "$T/err"
gf export --help
expect_rc export-help 0
expect_grep export-help-text 'speedscope, pprof or perfetto' "$T/out"
exit 0
