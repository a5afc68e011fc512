"""hostile_http.py -- an HTTP server on 127.0.0.1 that misbehaves on purpose, for push's
hostile tests (tests/cli/hostile_push.sh).

Usage: hostile_http.py PORTFILE LOG BEHAVIOUR...

Listens on a free port of 127.0.0.1 (written to PORTFILE once listening) and serves each
new connection with the next BEHAVIOUR of the list (the last one repeats). Every request
whose head was read is logged to LOG as one JSON line: the connection's number, the
behaviour, the monotonic time it arrived, the request line, the headers (lower-case
names), and how many body bytes were read.

Behaviours (a word, then ':'-separated arguments):
  ok                  read the request, answer 200 with Content-Length and keep the
                      connection open (keep-alive: no close until the client closes)
  ok-chunked          read the request, answer 200 chunked (two chunks, a trailer)
  ok-close            read the request, answer 200 without a length, then close
  ok-100              read the request, answer 100 Continue, then 200 with a length
  status:N[:RA]       read the request, answer status N (Content-Length, body
                      "error: N from the hostile server"), Retry-After: RA when given
                      (digits, or 'date+S': an IMF-fixdate S seconds ahead), then close
  early:N             read the head only, answer N with a body, shut down the writing
                      side and read the rest of the body (an early refusal)
  reset-after-head    read the head only, answer 200 OK (length 0), then reset the
                      connection (SO_LINGER 0) without reading the body
  drip                read the request, send a valid status line then one header byte
                      every 0.3 s for ever
  endless-head        read the request, send header lines as fast as possible for ever
  endless-body        read the request, answer 200 without a length and send body
                      bytes for ever
  endless-chunks      read the request, answer 200 chunked and send chunks for ever
  raw:HEX             read the request, send the bytes HEX (a whole reply), then close
  cut-body            read the request, answer Content-Length 100 with 10 bytes, close
"""
import json
import os
import socket
import struct
import sys
import threading
import time
from email.utils import formatdate

portfile, log = sys.argv[1], sys.argv[2]
behaviours = sys.argv[3:] or ['ok']
lock = threading.Lock()
count = [0]


def read_head(c):
    data = b''
    while b'\r\n\r\n' not in data:
        b = c.recv(65536)
        if not b:
            return None, b''
        data += b
    head, rest = data.split(b'\r\n\r\n', 1)
    return head, rest


def logit(n, what, head, got):
    lines = head.decode('latin-1').split('\r\n')
    hdrs = {}
    for l in lines[1:]:
        k, _, v = l.partition(':')
        hdrs[k.strip().lower()] = v.strip()
    with lock:
        with open(log, 'a') as f:
            f.write(json.dumps({'conn': n, 'behaviour': what, 'time': time.monotonic(),
                                'request': lines[0], 'headers': hdrs, 'body_bytes': got}) + '\n')


def read_request(c, n, what):
    head, rest = read_head(c)
    if head is None:
        return None
    want = 0
    for l in head.split(b'\r\n')[1:]:
        k, _, v = l.partition(b':')
        if k.strip().lower() == b'content-length':
            want = int(v)
    got = len(rest)
    while got < want:
        b = c.recv(1 << 20)
        if not b:
            break
        got += len(b)
    logit(n, what, head, got)
    return head


def forever(c, chunk, delay=0.0):
    try:
        while True:
            c.sendall(chunk)
            if delay:
                time.sleep(delay)
    except OSError:
        pass


def serve(c, n, what):
    w = what.split(':')
    kind = w[0]
    if kind == 'early':
        head, rest = read_head(c)
        if head is None:
            return
        logit(n, what, head, len(rest))
        body = b'error: %s from the hostile server\n' % w[1].encode()
        c.sendall(b'HTTP/1.1 %s Refused\r\nContent-Length: %d\r\n\r\n' % (w[1].encode(), len(body)) + body)
        c.shutdown(socket.SHUT_WR)
        while c.recv(1 << 20):
            pass
        return
    if kind == 'reset-after-head':
        head, rest = read_head(c)
        if head is None:
            return
        logit(n, what, head, len(rest))
        c.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n')
        c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack('ii', 1, 0))
        return
    if read_request(c, n, what) is None:
        return
    if kind == 'ok':
        c.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok')
        while c.recv(65536):  # keep-alive: the client is the one to close
            pass
    elif kind == 'ok-chunked':
        c.sendall(b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nX-T: 1\r\n\r\n')
        while c.recv(65536):
            pass
    elif kind == 'ok-close':
        c.sendall(b'HTTP/1.1 200 OK\r\n\r\nall of the body, up to the close')
    elif kind == 'ok-100':
        c.sendall(b'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n')
        while c.recv(65536):
            pass
    elif kind == 'status':
        body = b'error: %s from the hostile server\n' % w[1].encode()
        ra = b''
        if len(w) > 2:
            v = w[2]
            if v.startswith('date+'):
                v = formatdate(time.time() + int(v[5:]), usegmt=True)
            ra = b'Retry-After: %s\r\n' % v.encode()
        c.sendall(b'HTTP/1.1 %s Status\r\nContent-Length: %d\r\n%s\r\n' % (w[1].encode(), len(body), ra) + body)
    elif kind == 'drip':
        c.sendall(b'HTTP/1.1 200 OK\r\n')
        forever(c, b'X', 0.3)
    elif kind == 'endless-head':
        c.sendall(b'HTTP/1.1 200 OK\r\n')
        forever(c, b'X-Endless: ' + b'h' * 1000 + b'\r\n')
    elif kind == 'endless-body':
        c.sendall(b'HTTP/1.1 200 OK\r\n\r\n')
        forever(c, b'b' * 65536)
    elif kind == 'endless-chunks':
        c.sendall(b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n')
        forever(c, b'400\r\n' + b'c' * 1024 + b'\r\n')
    elif kind == 'raw':
        c.sendall(bytes.fromhex(w[1]))
    elif kind == 'cut-body':
        c.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789')
    else:
        raise SystemExit('unknown behaviour ' + what)


def conn(c, n, what):
    try:
        serve(c, n, what)
    except OSError:
        pass
    finally:
        c.close()


def main():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(('127.0.0.1', 0))
    s.listen(16)
    with open(portfile + '.tmp', 'w') as f:
        f.write(str(s.getsockname()[1]))
    os.rename(portfile + '.tmp', portfile)
    while True:
        c, _ = s.accept()
        with lock:
            n = count[0]
            count[0] += 1
        what = behaviours[min(n, len(behaviours) - 1)]
        threading.Thread(target=conn, args=(c, n, what), daemon=True).start()


if __name__ == '__main__':
    main()
