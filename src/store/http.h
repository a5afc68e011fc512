/*
 * http.h — the HTTP/1.1 client of `gpuflame push`: one POST over a plain
 * TCP socket, "Connection: close", a deadline on the whole request, a
 * strict reply parser. Only http:// URLs: behind TLS, point it at a local
 * proxy (docs/store.md).
 *
 *   struct http_reply r;
 *   http_post("http://host:4040", "/ingest?name=x", "text/plain", hdrs, n, body, len, 30, &r, &err);
 *
 * What counts as delivered: every byte of the request (headers and body)
 * was sent AND a complete, valid reply was read. A reply is valid when its
 * status line is exactly "HTTP/1.x DDD reason" (three digits, the reason
 * any bytes but controls; "HTTP/1.x DDD" alone too), its header lines hold
 * no NUL or control byte and its body is complete: Content-Length bytes
 * (the connection may stay open: nothing more is waited for), chunked to
 * its last chunk and trailers, or, with neither, up to the server's close.
 * Interim 1xx replies are skipped. The deadline (timeout_s) bounds the
 * whole request: resolving aside, connecting, sending and reading together,
 * so a server that drips bytes or sends endless headers or body fails with
 * a timeout. Bounds: the header section of a reply is at most 64 KiB; only
 * the first HTTP_BODY_KEEP bytes of a body are kept (the rest is read and
 * dropped).
 *
 * Layer: store. Never prints; messages never hold the URL's password.
 */
#ifndef GF_HTTP_H
#define GF_HTTP_H

#include "base/gf.h"
#include "base/sbuf.h"

#define HTTP_HEAD_MAX (64 * 1024)
#define HTTP_BODY_KEEP (1024 * 1024)

struct http_reply {
	int status;          /* 100...999; 0 when no reply was read */
	struct sbuf body;    /* the reply's body (chunked decoded), its first HTTP_BODY_KEEP bytes */
	int64_t retry_after; /* Retry-After: seconds from now (an HTTP-date converted); -1 when absent */
};

/*
 * POSTs body to url's host with path (url's own path is its prefix).
 * url: http://[user[:password]@]host[:port][/prefix] (host a name, an IPv4
 * address or [IPv6]); user and password (percent-decoded) become Basic
 * authorisation. headers: extra "Name: value" lines.
 * @return GF_OK when the whole request was sent and a complete reply read
 * (any status: see r->status; a non-2xx reply read after the server closed
 * a half-sent request is GF_OK too, its status saying why), GF_EUSAGE for
 * a bad URL, GF_EOUTPUT when the server could not be reached, the
 * connection failed, the deadline passed or the reply was not valid HTTP,
 * with the reason in err.
 */
int http_post(const char *url, const char *path, const char *ctype, const char *const *headers, size_t nheaders,
	      const char *body, size_t len, int timeout_s, struct http_reply *r, struct sbuf *err);
void http_reply_release(struct http_reply *r);

/*
 * The reply parser, fed as bytes arrive:
 *   struct http_rx x; http_rx_init(&x, &r);
 *   k = http_rx_feed(&x, buf, n, &used, &err);   // HTTP_RX_MORE, HTTP_RX_DONE or < 0
 *   at the end of the stream: k = http_rx_eof(&x, &err);
 * r->body must be initialised by the caller. Errors are GF_EOUTPUT with
 * what was wrong ("the status line is not 'HTTP/1.x DDD reason'", "the
 * reply ended inside its body (12 of 40 bytes)"...). now: the current UNIX
 * time, for a Retry-After given as an HTTP-date.
 */
enum { HTTP_RX_MORE = 0, HTTP_RX_DONE = 1 };
struct http_rx {
	struct http_reply *r;
	int state;
	struct sbuf line;    /* the header section, or a chunk-size / trailer line, being gathered */
	uint64_t left;       /* body bytes still due (Content-Length, or the current chunk) */
	uint64_t got;        /* body bytes read */
	bool chunked, has_len, te; /* te: a Transfer-Encoding was given */
	int64_t now;
};
void http_rx_init(struct http_rx *x, struct http_reply *r, int64_t now);
int http_rx_feed(struct http_rx *x, const char *buf, size_t n, size_t *used, struct sbuf *err);
int http_rx_eof(struct http_rx *x, struct sbuf *err);
void http_rx_release(struct http_rx *x);

/* A whole reply buf[0..n) (then the end of the stream) through the parser
 * into r (its body initialised by the caller). @return GF_OK or the
 * parser's error. Reads nothing past n. */
int http_parse_reply(const char *buf, size_t n, struct http_reply *r, struct sbuf *err);

/* Retry-After's value v[0..n): delta-seconds, or an HTTP-date (IMF-fixdate,
 * RFC 850 or asctime) made relative to now. @return the seconds (0 for a
 * date in the past), or -1 when it is neither. */
int64_t http_retry_after(const char *v, size_t n, int64_t now);

/* Whether url is one http_post takes (the same messages, GF_EUSAGE). */
int http_url_check(const char *url, struct sbuf *err);

/* url with its password (user:PASSWORD@) replaced by "***", into out. */
void http_url_redact(const char *url, struct sbuf *out);

/* Appends s percent-encoded for a query value (unreserved bytes kept). */
void http_query_escape(struct sbuf *b, const char *s, size_t n);

#endif
