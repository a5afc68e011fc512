"""pyroscope_recv.py -- a stand-in for Pyroscope's POST /ingest, for push's contract test.

Usage: pyroscope_recv.py PORTFILE LOG [STATUS...]
Listens on 127.0.0.1 (a free port, written to PORTFILE), appends one JSON line per
request to LOG (method, path, query, headers, body as latin-1), and answers each
request with the next STATUS of the list (default 200; the last one repeats). A
non-2xx answer carries the body "error: STATUS from the test receiver".
"""
import json, sys, threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import urlsplit, parse_qs

portfile, log = sys.argv[1], sys.argv[2]
statuses = [int(x) for x in sys.argv[3:]] or [200]
lock = threading.Lock()
count = [0]

class H(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def do_POST(self):
        n = int(self.headers.get('Content-Length', '0'))
        body = self.rfile.read(n)
        u = urlsplit(self.path)
        with lock:
            st = statuses[min(count[0], len(statuses) - 1)]
            count[0] += 1
            with open(log, 'a') as f:
                f.write(json.dumps({'method': 'POST', 'path': u.path, 'query': parse_qs(u.query, keep_blank_values=True),
                                    'headers': {k.lower(): v for k, v in self.headers.items()},
                                    'body': body.decode('latin-1'), 'status': st}) + '\n')
        reply = b'' if st < 300 else b'error: %d from the test receiver\n' % st
        self.send_response(st)
        self.send_header('Content-Length', str(len(reply)))
        self.send_header('Connection', 'close')
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *a):
        pass

srv = HTTPServer(('127.0.0.1', 0), H)
with open(portfile + '.tmp', 'w') as f:
    f.write(str(srv.server_address[1]))
import os
os.rename(portfile + '.tmp', portfile)
srv.serve_forever()
