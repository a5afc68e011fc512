#!/usr/bin/env bash
# hostile_push.sh — gpuflame push against a server on 127.0.0.1 that misbehaves on purpose
# (tests/gen/hostile_http.py): push says "pushed" and exits 0 only when the whole body was
# sent and a complete, valid reply came back; --timeout bounds a whole attempt (drip,
# endless head or body); a kept-alive reply costs nothing; Retry-After is honoured and
# capped; a URL cannot inject header lines; a password is never printed; a failing stdout
# does not undo a delivered profile. Every run is bounded by `timeout` (a hang is a FAIL,
# never a stuck test); no check depends on how fast the machine is (only lower bounds on
# the waits the server asked for).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/http_srv.inc"
start_srv() { srv_start tests/gen/hostile_http.py "$@"; } # BEHAVIOUR...
# push ARGS...: bounded by 120 s (a hang shows as exit 124)
push() { timeout 120 "$GF" push --format folded --app hx "$@" >"$T/out" 2>"$T/err"; rc=$?; }
reqs() { wc -l <"$T/log"; }
G=$T/gen; mkdir -p "$G"; python3 tests/gen/store_gen.py "$G"
# a 32 MB body: more than the socket buffers hold, so a server that stops reading is seen
python3 -c "
f = open('$T/big.folded', 'w')
for i in range(1000):
    f.write('main;frame%04d;' % i + 'x' * 32000 + ' %d\n' % (i + 1))"

# ---- delivered: a kept-alive reply (Content-Length), chunked, close-delimited, after a 100 ----
start_srv ok
push --url "$URL" --timeout 600 "$G/v1a.folded" "$G/v1b.folded" "$G/v2.folded"
expect_rc "push-keepalive-rc" 0
expect_eq "push-keepalive-requests" "$(reqs)" 3
expect_eq "push-keepalive-said" "$(grep -c '^pushed .*HTTP 200$' "$T/out")" 3
for b in ok-chunked ok-close ok-100; do
  start_srv $b
  push --url "$URL" --timeout 60 "$G/v2.folded"; expect_rc "push-$b-rc" 0
  expect_grep "push-$b-said" "^pushed .*v2.folded gpu: 42 lines .*HTTP 20[01]$" "$T/out"
done

# ---- not delivered: never "pushed", exit 3, the reason said ----
start_srv reset-after-head
push --url "$URL" --retries 0 "$T/big.folded"; expect_rc "push-reset-after-head-rc" 3
expect_grep "push-reset-after-head-msg" "sending the request failed after [0-9]+ of [0-9]+ bytes" "$T/err"
expect_eq "push-reset-after-head-not-said" "$(grep -c pushed "$T/out")" 0
start_srv early:413
push --url "$URL" --retries 0 "$T/big.folded"; expect_rc "push-early-refusal-rc" 3
expect_grep "push-early-refusal-msg" "answered HTTP 413: error: 413 from the hostile server" "$T/err"
for b in drip endless-body endless-chunks; do
  start_srv $b
  push --url "$URL" --timeout 2 --retries 0 "$G/v2.folded"; expect_rc "push-$b-rc" 3
  expect_grep "push-$b-msg" "no complete HTTP reply within 2 s \(--timeout; [0-9]+ bytes read\)" "$T/err"
done
start_srv endless-head
push --url "$URL" --timeout 60 --retries 0 "$G/v2.folded"; expect_rc "push-endless-head-rc" 3
expect_grep "push-endless-head-msg" "the reply's header section is longer than 64 KiB" "$T/err"
start_srv cut-body
push --url "$URL" --retries 0 "$G/v2.folded"; expect_rc "push-cut-body-rc" 3
expect_grep "push-cut-body-msg" "the reply ended inside its body \(10 of 100 bytes\)" "$T/err"
# status lines that only look like one, NUL and control bytes in the head
n=0
for hex in "485454502f312e3120323030304f4b0d0a436f6e74656e742d4c656e6774683a20300d0a0d0a" \
  "485454502f312e31203230300020204f4b0d0a436f6e74656e742d4c656e6774683a20300d0a0d0a" \
  "$(printf 'HTTP/1.1 20 OK\r\nContent-Length: 0\r\n\r\n' | od -An -v -tx1 | tr -d ' \n')" \
  "$(printf 'HTTP/1.1 200OK\r\nContent-Length: 0\r\n\r\n' | od -An -v -tx1 | tr -d ' \n')" \
  "$(printf 'HTTP/2 200 OK\r\nContent-Length: 0\r\n\r\n' | od -An -v -tx1 | tr -d ' \n')" \
  "$(printf 'SSH-2.0-OpenSSH\r\n\r\n' | od -An -v -tx1 | tr -d ' \n')"; do
  n=$((n + 1))
  start_srv "raw:$hex"
  push --url "$URL" --retries 0 "$G/v2.folded"; expect_rc "push-bad-status-$n-rc" 3
  expect_grep "push-bad-status-$n-msg" "the reply's (status line is not 'HTTP/1.x DDD reason'|head holds a NUL byte)" "$T/err"
done
start_srv "raw:$(printf 'HTTP/1.1 200 OK\r\nX-A: a' | od -An -v -tx1 | tr -d ' \n')00$(printf 'b\r\nContent-Length: 0\r\n\r\n' | od -An -v -tx1 | tr -d ' \n')"
push --url "$URL" --retries 0 "$G/v2.folded"; expect_rc "push-nul-header-rc" 3
expect_grep "push-nul-header-msg" "the reply's head holds a NUL byte" "$T/err"
start_srv "raw:$(printf 'HTTP/1.1 200 OK\r\nContent-Length: 12x\r\n\r\n' | od -An -v -tx1 | tr -d ' \n')"
push --url "$URL" --retries 0 "$G/v2.folded"; expect_rc "push-bad-length-rc" 3

# ---- retries: Retry-After in seconds and as an HTTP-date, the wait capped ----
start_srv status:503:1 ok
push --url "$URL" --retries 1 "$G/v2.folded"; expect_rc "push-retry-after-rc" 0
expect_eq "push-retry-after-requests" "$(reqs)" 2
expect_eq "push-retry-after-waited" "$(python3 -c "
import json; t=[json.loads(l)['time'] for l in open('$T/log')]; print(t[1] - t[0] >= 1.0)")" True
expect_grep "push-retry-after-said" "attempt 1 failed: .*answered HTTP 503: error: 503 from the hostile server; retrying in 1.0 s" "$T/err"
start_srv status:429:date+2 ok
push --url "$URL" --retries 1 "$G/v2.folded"; expect_rc "push-retry-date-rc" 0
expect_eq "push-retry-date-waited" "$(python3 -c "
import json; t=[json.loads(l)['time'] for l in open('$T/log')]; print(len(t) == 2 and t[1] - t[0] >= 1.0)")" True
expect_grep "push-retry-date-said" "HTTP 429.*retrying in [12].0 s" "$T/err"
start_srv status:503:100000
timeout 120 "$GF" push --format folded --app hx --url "$URL" --retries 1 "$G/v2.folded" >"$T/out" 2>"$T/err" &
pid=$!
for _ in $(seq 1 600); do grep -q "retrying in" "$T/err" && break; sleep 0.1; done
kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
expect_grep "push-retry-after-capped" "retrying in 60.0 s" "$T/err"
start_srv status:400:1
push --url "$URL" --retries 3 "$G/v2.folded"; expect_rc "push-no-retry-400-rc" 3
expect_eq "push-no-retry-400-once" "$(reqs)" 1

# ---- the URL: no header injection, no password printed ----
start_srv ok
push --url "$URL/x"$'\r\n''X-Evil: 1' "$G/v2.folded"; expect_rc "push-url-crlf-rc" 2
expect_grep "push-url-crlf-msg" "--url holds a control byte or a blank at byte [0-9]+" "$T/err"
expect_eq "push-url-crlf-nothing-sent" "$(reqs)" 0
push --url "$URL/x"$'\t'"y" "$G/v2.folded"; expect_rc "push-url-tab-rc" 2
AUTH="http://alice:s3cret%21pw@127.0.0.1:$(cat "$T/port")"
push --url "$AUTH" "$G/v2.folded"; expect_rc "push-basic-auth-rc" 0
expect_eq "push-basic-auth-sent" "$(python3 -c "
import json, base64; h=json.loads(open('$T/log').readline())['headers']['authorization']
print(base64.b64decode(h.split()[1]).decode())")" 'alice:s3cret!pw'
expect_nogrep "push-basic-auth-hidden-ok" "s3cret" "$T/out"
start_srv status:401
AUTH="http://alice:s3cret%21pw@127.0.0.1:$(cat "$T/port")"
push --url "$AUTH" --retries 0 "$G/v2.folded"; expect_rc "push-basic-auth-401-rc" 3
expect_grep "push-basic-auth-401-redacted" "http://alice:\*\*\*@127.0.0.1:[0-9]+ answered HTTP 401" "$T/err"
expect_nogrep "push-basic-auth-401-hidden" "s3cret" "$T/err"
srv_stop
for u in "http://alice:s3cretpw@127.0.0.1:1" "http://alice:s3cretpw@127.0.0.1:99999" "https://alice:s3cretpw@h" \
  "http://alice:s3cretpw@h/p?q=1"; do
  push --url "$u" --retries 0 "$G/v2.folded"
  expect_nogrep "push-password-hidden ${u##*@}" "s3cret" "$T/err"
done

# ---- delivered stays delivered: stdout failing, a later input refused ----
start_srv ok
timeout 120 "$GF" push --format folded --app hx --url "$URL" "$G/v2.folded" >/dev/full 2>"$T/err"; rc=$?
expect_rc "push-stdout-full-rc" 0
expect_grep "push-stdout-full-msg" "standard output failed \(No space left on device\); pushed .*v2.folded gpu: 42 lines" "$T/err"
start_srv ok status:400
push --url "$URL" "$G/v1a.folded" "$G/v2.folded"; expect_rc "push-second-refused-rc" 3
expect_grep "push-second-refused-first-said" "^pushed .*v1a.folded gpu" "$T/out"
expect_grep "push-second-refused-msg" "v2.folded' \(gpu\): .*answered HTTP 400" "$T/err"
exit 0
