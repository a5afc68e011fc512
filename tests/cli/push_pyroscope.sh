#!/usr/bin/env bash
# push_pyroscope.sh — gpuflame push against a local stand-in for Pyroscope's ingest API
# (tests/gen/pyroscope_recv.py), each request checked by tests/gen/pyroscope_check.py
# against the documented rules (docs/store.md, "Pyroscope") and the folded totals.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/http_srv.inc"
start_recv() { srv_start tests/gen/pyroscope_recv.py "$@"; } # STATUS...
check() { python3 tests/gen/pyroscope_check.py "$T/log" "$@"; }
G=$T/gen; mkdir -p "$G"; python3 tests/gen/store_gen.py "$G"

start_recv 200
gf push --format folded --url "$URL" --app llm --release v2 --label batch=32 "$G/v2.folded"; expect_rc "push-folded-rc" 0
expect_eq "push-folded-contract" "$(check 0 "$G/v2.folded" llm gpu 16000 release=v2 batch=32)" ok
expect_grep "push-folded-says" "pushed .*v2.folded gpu: 42 lines \(0 stacks in \[other\], 0 cut\), total 231788051, HTTP 200" "$T/out"
# top-N + [other]: 6000 stacks, 100 lines at most
gf push --format folded --url "$URL" --app llm --max-stacks 100 "$G/big.folded"; expect_rc "push-topn-rc" 0
expect_eq "push-topn-contract" "$(check 1 "$G/big.folded" llm gpu 100)" ok
# a stack over 64 KiB is cut at a frame, its weight kept
python3 -c "
import sys
f = open('$T/long.folded', 'w')
f.write('# gpuflame: weight=wall; unit=ns; steps=2;\n')
f.write(';'.join('frame%05d' % i for i in range(8000)) + ' 77\n')
f.write('short;stack 23\n')"
gf push --format folded --url "$URL" --app llm "$T/long.folded"; expect_rc "push-long-rc" 0
expect_eq "push-long-contract" "$(check 2 "$T/long.folded" llm wall 16000)" ok
expect_eq "push-long-cut" "$(python3 -c "
import json; b=json.loads(open('$T/log').read().split('\n')[2])['body']
print(sorted((len(l) < 65536, l.rsplit(' ',1)[0].endswith('[truncated]')) for l in b.split('\n') if l))")" "[(True, False), (True, True)]"
# py-spy samples: .cpu, sampleRate 100
printf 'main;work 30\nmain;idle 12\n' >"$T/py.folded"
gf push --format folded --url "$URL" --app svc "$T/py.folded"; expect_rc "push-samples-rc" 0
expect_eq "push-samples-contract" "$(check 3 "$T/py.folded" svc samples 16000)" ok
# a trace: one request per weight asked
if need_shared "push-trace"; then
  A=$GF_SHARED/corpus/traces/kineto/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz
  gf push --format folded --url "$URL" --app rn -w gpu -w idle "$A"; expect_rc "push-trace-rc" 0
  "$GF" fold -w gpu --unit ns "$A" >"$T/tg.folded" 2>/dev/null
  "$GF" fold -w idle --unit ns "$A" >"$T/ti.folded" 2>/dev/null
  expect_eq "push-trace-gpu-contract" "$(check 4 "$T/tg.folded" rn gpu 16000)" ok
  expect_eq "push-trace-idle-contract" "$(check 5 "$T/ti.folded" rn idle 16000)" ok
fi
# a stored run
"$GF" store add --db "$T/s.db" --release v9 --label batch=8 "$G/v3.folded" >/dev/null
gf push --format folded --url "$URL" --app llm --db "$T/s.db" run:1; expect_rc "push-run-rc" 0
sed "1s/;\$/; label.batch=8;/" "$G/v3.folded" >"$T/v3l.folded"
n=$(($(wc -l <"$T/log") - 1))
expect_eq "push-run-contract" "$(check $n "$T/v3l.folded" llm gpu 16000 release=v9)" ok
gf push --format folded --url "$URL" --app llm --db "$T/s.db" --release v10 v9; expect_rc "push-release-rc" 0
expect_eq "push-release-contract" "$(check $((n + 1)) "$T/v3l.folded" llm gpu 16000 release=v10)" ok

# pprof (the default, issue 26): one multi-type profile per input, checked by Pyroscope's pprof
# ingest rules (tests/gen/pyroscope_pprof.py: string labels, time_nanos in the window, the
# sample cap) and read by `go tool pprof`: every stack of every type equals `fold` of that weight
pp() { python3 tests/gen/pyroscope_pprof.py "$T/log" "$@"; }
have_go=0; command -v go >/dev/null && go tool -n pprof >/dev/null 2>&1 && have_go=1
if need_shared "push-pprof-trace"; then
  A=$GF_SHARED/corpus/traces/kineto/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz
  start_recv 200
  gf push --url "$URL" --app rn --release v3 --label batch=8 "$A"; expect_rc "push-pprof-rc" 0
  expect_eq "push-pprof-one-request" "$(wc -l <"$T/log")" 1
  expect_grep "push-pprof-says" "pushed .* gpu,cpu,wall,idle,calls: one pprof profile, [0-9]+ samples \(0 stacks in \[other\]\), HTTP 200" "$T/out"
  for w in gpu cpu wall idle calls; do "$GF" fold -w $w "$A" >"$T/p-$w.folded" 2>/dev/null; done
  tot() { python3 tests/gen/pprof_totals.py --folded <"$T/p-$1.folded"; }
  expect_eq "push-pprof-contract" "$(pp 0 "$T/p.pb.gz" rn 16000 gpu,cpu,wall,idle,calls release=v3 batch=8 \
    total:gpu=$(tot gpu) total:idle=$(tot idle) total:calls=$(tot calls))" ok
  if [ $have_go = 1 ]; then
    expect_eq "push-pprof-go-pprof" "$(python3 tests/gen/check_export.py go-pprof "$T"/p-gpu.folded "$T"/p-cpu.folded \
      "$T"/p-wall.folded "$T"/p-idle.folded "$T"/p-calls.folded -- "$T/p.pb.gz")" ok
  else skip "push-pprof-go-pprof" "go tool pprof missing (scripts/deps.sh test installs golang-go)"; fi
  # the cap: 20 samples for 5 types, each type's heaviest 3 stacks and [other], totals exact
  start_recv 200
  gf push --url "$URL" --app rn --max-stacks 20 "$A"; expect_rc "push-pprof-cap-rc" 0
  expect_eq "push-pprof-cap-contract" "$(pp 0 "$T/c.pb.gz" rn 20 gpu,cpu,wall,idle,calls \
    total:gpu=$(tot gpu) total:cpu=$(tot cpu) total:wall=$(tot wall) total:idle=$(tot idle) total:calls=$(tot calls))" ok
  expect_grep "push-pprof-cap-says" "one pprof profile, 20 samples \([0-9]+ stacks in \[other\]\)" "$T/out"
  # -w picks the types; a per-step fold's step label is a string (a number would be dropped)
  "$GF" fold -w gpu --per-step "$A" >"$T/ps.folded" 2>/dev/null
  start_recv 200
  gf push --url "$URL" --app rn "$T/ps.folded"; expect_rc "push-pprof-step-rc" 0
  expect_eq "push-pprof-step-contract" "$(pp 0 "$T/ps.pb.gz" rn 16000 gpu total:gpu=$(python3 tests/gen/pprof_totals.py --folded <"$T/ps.folded"))" ok
  expect_eq "push-pprof-step-labels" "$(python3 -c "
import gzip; b = gzip.decompress(open('$T/ps.pb.gz', 'rb').read()); print(int(b'step' in b))")" 1
fi
# imported units: a perf file's periods (ns) and a py-spy file's samples go as their own types
printf 'main;work 30\nmain;idle 12\n' >"$T/pyp.folded"
start_recv 200
gf push --url "$URL" --app svc "$T/pyp.folded"; expect_rc "push-pprof-samples-rc" 0
expect_eq "push-pprof-samples-contract" "$(pp 0 "$T/py.pb.gz" svc 16000 samples total:samples=42)" ok

# retries with backoff: 503, 503, then 200
start_recv 503 503 200
gf push --format folded --url "$URL" --app llm "$G/v2.folded"; expect_rc "push-retry-rc" 0
expect_eq "push-retry-attempts" "$(wc -l <"$T/log")" 3
# a refusal is not retried and says what the server answered
start_recv 400
gf push --format folded --url "$URL" --app llm "$G/v2.folded"; expect_rc "push-refused-rc" 3
expect_grep "push-refused-msg" "answered HTTP 400: error: 400 from the test receiver" "$T/err"
expect_eq "push-refused-once" "$(wc -l <"$T/log")" 1
start_recv 503
gf push --format folded --url "$URL" --app llm --retries 1 "$G/v2.folded"; expect_rc "push-gives-up-rc" 3
expect_grep "push-gives-up-msg" "HTTP 503.*after 2 attempts" "$T/err"
srv_stop
gf push --format folded --url "$URL" --app llm --retries 0 "$G/v2.folded"; expect_rc "push-unreachable-rc" 3
expect_grep "push-unreachable-msg" "cannot connect to 127.0.0.1" "$T/err"
# what Pyroscope cannot take is refused before sending
gf push --format folded --url "http://127.0.0.1:1" --app llm --label 'bad=a,b' "$G/v2.folded"; expect_rc "push-bad-label-rc" 2
gf push --format folded --url "http://127.0.0.1:1" --app llm -w calls "$G/v2.folded"; expect_rc "push-calls-rc" 2
gf push --format folded --url "https://x" --app llm "$G/v2.folded"; expect_rc "push-https-rc" 2
expect_grep "push-https-msg" "https is not supported" "$T/err"
gf push --app llm "$G/v2.folded"; expect_rc "push-no-url-rc" 2
"$GF" push --help >"$T/out"; expect_grep "push-help" "^usage: gpuflame push" "$T/out"
exit 0
