/*
 * http.h — the HTTP/1.1 client of `gpuflame push` (a plain TCP socket: one
 * POST, "Connection: close", Content-Length or chunked replies, a timeout).
 * Only http:// URLs: behind TLS, point it at a local proxy (docs/store.md).
 *
 *   struct http_reply r;
 *   http_post("http://host:4040", "/ingest?name=x", "text/plain", hdrs, n, body, len, 30, &r, &err);
 *
 * Layer: store. Never prints.
 */
#ifndef GF_HTTP_H
#define GF_HTTP_H

#include "base/gf.h"
#include "base/sbuf.h"

struct http_reply {
	int status;        /* 200...; 0 when no reply was read */
	struct sbuf body;  /* the reply's body (chunked decoded) */
};

/*
 * POSTs body to url's host with path (url's own path is its prefix).
 * url: http://[user:password@]host[:port][/prefix]; a user:password becomes
 * Basic authorisation. headers: extra "Name: value" lines.
 * @return GF_OK when a reply was read (any status: see r->status),
 * GF_EUSAGE for a bad URL, GF_EOUTPUT when the server could not be reached
 * or the connection failed, with the reason in err.
 */
int http_post(const char *url, const char *path, const char *ctype, const char *const *headers, size_t nheaders,
	      const char *body, size_t len, int timeout_s, struct http_reply *r, struct sbuf *err);
void http_reply_release(struct http_reply *r);

/* Parses a whole reply buf[0..n) (status line, headers, body; chunked
 * bodies decoded) into r (its body initialised by the caller). @return 0,
 * or -1 when it is not an HTTP/1.x reply. Bounded: reads nothing past n. */
int http_parse_reply(const char *buf, size_t n, struct http_reply *r);

/* Appends s percent-encoded for a query value (unreserved bytes kept). */
void http_query_escape(struct sbuf *b, const char *s, size_t n);

#endif
