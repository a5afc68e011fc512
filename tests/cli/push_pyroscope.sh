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
gf push --url "$URL" --app llm --release v2 --label batch=32 "$G/v2.folded"; expect_rc "push-folded-rc" 0
expect_eq "push-folded-contract" "$(check 0 "$G/v2.folded" llm gpu 16000 release=v2 batch=32)" ok
expect_grep "push-folded-says" "pushed .*v2.folded gpu: 42 lines \(0 stacks in \[other\], 0 cut\), total 231788051, HTTP 200" "$T/out"
# top-N + [other]: 6000 stacks, 100 lines at most
gf push --url "$URL" --app llm --max-stacks 100 "$G/big.folded"; expect_rc "push-topn-rc" 0
expect_eq "push-topn-contract" "$(check 1 "$G/big.folded" llm gpu 100)" ok
# a stack over 64 KiB is cut at a frame, its weight kept
python3 -c "
import sys
f = open('$T/long.folded', 'w')
f.write('# gpuflame: weight=wall; unit=ns; steps=2;\n')
f.write(';'.join('frame%05d' % i for i in range(8000)) + ' 77\n')
f.write('short;stack 23\n')"
gf push --url "$URL" --app llm "$T/long.folded"; expect_rc "push-long-rc" 0
expect_eq "push-long-contract" "$(check 2 "$T/long.folded" llm wall 16000)" ok
expect_eq "push-long-cut" "$(python3 -c "
import json; b=json.loads(open('$T/log').read().split('\n')[2])['body']
print(sorted((len(l) < 65536, l.rsplit(' ',1)[0].endswith('[truncated]')) for l in b.split('\n') if l))")" "[(True, False), (True, True)]"
# py-spy samples: .cpu, sampleRate 100
printf 'main;work 30\nmain;idle 12\n' >"$T/py.folded"
gf push --url "$URL" --app svc "$T/py.folded"; expect_rc "push-samples-rc" 0
expect_eq "push-samples-contract" "$(check 3 "$T/py.folded" svc samples 16000)" ok
# a trace: one request per weight asked
if need_shared "push-trace"; then
  A=$GF_SHARED/corpus/traces/kineto/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz
  gf push --url "$URL" --app rn -w gpu -w idle "$A"; expect_rc "push-trace-rc" 0
  "$GF" fold -w gpu --unit ns "$A" >"$T/tg.folded" 2>/dev/null
  "$GF" fold -w idle --unit ns "$A" >"$T/ti.folded" 2>/dev/null
  expect_eq "push-trace-gpu-contract" "$(check 4 "$T/tg.folded" rn gpu 16000)" ok
  expect_eq "push-trace-idle-contract" "$(check 5 "$T/ti.folded" rn idle 16000)" ok
fi
# a stored run
"$GF" store add --db "$T/s.db" --release v9 --label batch=8 "$G/v3.folded" >/dev/null
gf push --url "$URL" --app llm --db "$T/s.db" run:1; expect_rc "push-run-rc" 0
sed "1s/;\$/; label.batch=8;/" "$G/v3.folded" >"$T/v3l.folded"
n=$(($(wc -l <"$T/log") - 1))
expect_eq "push-run-contract" "$(check $n "$T/v3l.folded" llm gpu 16000 release=v9)" ok
gf push --url "$URL" --app llm --db "$T/s.db" --release v10 v9; expect_rc "push-release-rc" 0
expect_eq "push-release-contract" "$(check $((n + 1)) "$T/v3l.folded" llm gpu 16000 release=v10)" ok

# retries with backoff: 503, 503, then 200
start_recv 503 503 200
gf push --url "$URL" --app llm "$G/v2.folded"; expect_rc "push-retry-rc" 0
expect_eq "push-retry-attempts" "$(wc -l <"$T/log")" 3
# a refusal is not retried and says what the server answered
start_recv 400
gf push --url "$URL" --app llm "$G/v2.folded"; expect_rc "push-refused-rc" 3
expect_grep "push-refused-msg" "answered HTTP 400: error: 400 from the test receiver" "$T/err"
expect_eq "push-refused-once" "$(wc -l <"$T/log")" 1
start_recv 503
gf push --url "$URL" --app llm --retries 1 "$G/v2.folded"; expect_rc "push-gives-up-rc" 3
expect_grep "push-gives-up-msg" "HTTP 503.*after 2 attempts" "$T/err"
srv_stop
gf push --url "$URL" --app llm --retries 0 "$G/v2.folded"; expect_rc "push-unreachable-rc" 3
expect_grep "push-unreachable-msg" "cannot connect to 127.0.0.1" "$T/err"
# what Pyroscope cannot take is refused before sending
gf push --url "http://127.0.0.1:1" --app llm --label 'bad=a,b' "$G/v2.folded"; expect_rc "push-bad-label-rc" 2
gf push --url "http://127.0.0.1:1" --app llm -w calls "$G/v2.folded"; expect_rc "push-calls-rc" 2
gf push --url "https://x" --app llm "$G/v2.folded"; expect_rc "push-https-rc" 2
expect_grep "push-https-msg" "https is not supported" "$T/err"
gf push --app llm "$G/v2.folded"; expect_rc "push-no-url-rc" 2
"$GF" push --help >"$T/out"; expect_grep "push-help" "^usage: gpuflame push" "$T/out"
exit 0
