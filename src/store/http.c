/*
 * http.c — one HTTP/1.1 POST over a TCP socket with a deadline, and a
 * strict incremental reply parser (http.h).
 */
#include "store/http.h"

#include "store/store_eng.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

void http_query_escape(struct sbuf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
		    c == '.' || c == '~') {
			sbuf_addch(b, (char)c);
		} else {
			sbuf_addch(b, '%');
			sbuf_addch(b, hex[c >> 4]);
			sbuf_addch(b, hex[c & 15]);
		}
	}
}

static void b64(struct sbuf *b, const char *s, size_t n)
{
	static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)(unsigned char)s[i] << 16;
		if (i + 1 < n)
			v |= (unsigned)(unsigned char)s[i + 1] << 8;
		if (i + 2 < n)
			v |= (unsigned char)s[i + 2];
		sbuf_addch(b, t[v >> 18 & 63]);
		sbuf_addch(b, t[v >> 12 & 63]);
		sbuf_addch(b, i + 1 < n ? t[v >> 6 & 63] : '=');
		sbuf_addch(b, i + 2 < n ? t[v & 63] : '=');
	}
}

/* ---- the URL ---- */

struct url {
	char host[256];   /* for getaddrinfo (an IPv6 address without its brackets) */
	char hosthdr[264]; /* for the Host header and messages ("[::1]:4040") */
	char port[8];
	struct sbuf prefix, auth;
};

/* The authority of url: [s, e) after "scheme://", the userinfo's '@' (or NULL). */
static const char *authority(const char *url, const char **e, const char **at)
{
	const char *s = strstr(url, "://");
	s = s ? s + 3 : url;
	*e = s + strcspn(s, "/?#");
	*at = NULL;
	for (const char *p = s; p < *e; p++)
		if (*p == '@')
			*at = p;
	return s;
}

void http_url_redact(const char *url, struct sbuf *out)
{
	char *r = store_eng_redact(url);
	sbuf_addstr(out, r);
	free(r);
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : (c | 32) >= 'a' && (c | 32) <= 'f' ? (c | 32) - 'a' + 10 : -1;
}

/* Percent-decodes s[0..n) into b. @return false on a bad %XX. */
static bool pct_decode(struct sbuf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '%') {
			sbuf_addch(b, s[i]);
			continue;
		}
		int h = n - i >= 3 ? hexval(s[i + 1]) : -1, l = n - i >= 3 ? hexval(s[i + 2]) : -1;
		if (h < 0 || l < 0)
			return false;
		sbuf_addch(b, (char)(h * 16 + l));
		i += 2;
	}
	return true;
}

static int url_fail(const char *url, const char *what, struct sbuf *err)
{
	struct sbuf r = SBUF_INIT;
	http_url_redact(url, &r);
	sbuf_setf(err, "'%s': %s", r.buf, what);
	sbuf_release(&r);
	return GF_EUSAGE;
}

static int parse_url(const char *url, struct url *u, struct sbuf *err)
{
	memset(u, 0, sizeof *u);
	for (const char *p = url; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f) {
			/* never echoed: a CR or LF would forge header lines, and the URL may hold a password */
			sbuf_setf(err, "--url holds a control byte or a blank at byte %zu: expected http://host[:port][/path]",
				  (size_t)(p - url));
			return GF_EUSAGE;
		}
	if (!strncasecmp(url, "https://", 8))
		return url_fail(url, "https is not supported: use http:// (through a local TLS proxy)", err);
	if (strncasecmp(url, "http://", 7))
		return url_fail(url, "expected an http://host[:port] URL", err);
	const char *e, *at, *p = authority(url, &e, &at);
	if (*e == '?' || *e == '#' || strpbrk(e, "?#"))
		return url_fail(url, "expected http://host[:port][/path], without a query or a fragment", err);
	if (at) {
		const char *colon = memchr(p, ':', (size_t)(at - p));
		struct sbuf up = SBUF_INIT;
		bool ok = pct_decode(&up, p, (size_t)((colon ? colon : at) - p));
		sbuf_addch(&up, ':');
		ok = ok && (!colon || pct_decode(&up, colon + 1, (size_t)(at - colon - 1)));
		if (ok)
			b64(&u->auth, up.buf, up.len);
		sbuf_release(&up);
		if (!ok)
			return url_fail(url, "a bad %XX escape in the user or password", err);
		p = at + 1;
	}
	const char *hend, *port = NULL;
	if (*p == '[') {
		hend = memchr(p, ']', (size_t)(e - p));
		if (!hend || hend == p + 1 || (size_t)(hend - p - 1) >= sizeof u->host)
			return url_fail(url, "expected http://[IPv6 address][:port]", err);
		memcpy(u->host, p + 1, (size_t)(hend - p - 1));
		hend++;
		if (hend < e && *hend != ':')
			return url_fail(url, "expected ':' or '/' after the IPv6 address", err);
	} else {
		hend = memchr(p, ':', (size_t)(e - p));
		hend = hend ? hend : e;
		if (hend == p || (size_t)(hend - p) >= sizeof u->host)
			return url_fail(url, "expected an http://host[:port] URL", err);
		memcpy(u->host, p, (size_t)(hend - p));
	}
	if (hend < e)
		port = hend + 1;
	long pv = 80;
	if (port) {
		size_t n = (size_t)(e - port);
		pv = 0;
		for (size_t i = 0; i < n && pv <= 65535; i++)
			pv = port[i] >= '0' && port[i] <= '9' ? pv * 10 + (port[i] - '0') : 99999;
		if (!n || n > 5 || pv < 1 || pv > 65535)
			return url_fail(url, "expected a port from 1 to 65535", err);
	}
	snprintf(u->port, sizeof u->port, "%ld", pv);
	snprintf(u->hosthdr, sizeof u->hosthdr, "%s%.*s%s", *p == '[' ? "[" : "", (int)strlen(u->host), u->host,
		 *p == '[' ? "]" : "");
	if (pv != 80) {
		size_t hl = strlen(u->hosthdr);
		snprintf(u->hosthdr + hl, sizeof u->hosthdr - hl, ":%ld", pv);
	}
	sbuf_add(&u->prefix, e, strlen(e));
	while (u->prefix.len && u->prefix.buf[u->prefix.len - 1] == '/')
		sbuf_setlen(&u->prefix, u->prefix.len - 1);
	return GF_OK;
}

static void url_release(struct url *u)
{
	sbuf_release(&u->prefix);
	sbuf_release(&u->auth);
}

int http_url_check(const char *url, struct sbuf *err)
{
	struct url u;
	int rc = parse_url(url, &u, err);
	url_release(&u);
	return rc;
}

/* ---- time ---- */

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Milliseconds left before the deadline (0 when past), for poll. */
static int left_ms(int64_t deadline)
{
	int64_t l = deadline - now_ms();
	return l <= 0 ? 0 : l > 1000000000 ? 1000000000 : (int)l;
}

/* ---- the reply parser ---- */

enum { RX_HEAD, RX_LEN, RX_CHUNK_SIZE, RX_CHUNK_DATA, RX_CHUNK_END, RX_TRAILER, RX_CLOSE, RX_DONE, RX_BAD };

void http_rx_init(struct http_rx *x, struct http_reply *r, int64_t now)
{
	memset(x, 0, sizeof *x);
	x->r = r;
	x->now = now;
	r->status = 0;
	r->retry_after = -1;
	sbuf_reset(&r->body);
}

void http_rx_release(struct http_rx *x)
{
	sbuf_release(&x->line);
}

static int rx_fail(struct http_rx *x, struct sbuf *err, const char *what)
{
	x->state = RX_BAD;
	sbuf_setf(err, "%s", what);
	return GF_EOUTPUT;
}

static void keep_body(struct http_rx *x, const char *p, size_t n)
{
	x->got += n;
	size_t room = x->r->body.len < HTTP_BODY_KEEP ? HTTP_BODY_KEEP - x->r->body.len : 0;
	sbuf_add(&x->r->body, p, n < room ? n : room);
}

static bool is_tchar(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* A field value's bytes: no control byte but HTAB. */
static bool value_ok(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (((unsigned char)p[i] < ' ' && p[i] != '\t') || p[i] == 0x7f)
			return false;
	return true;
}

static void trim(const char **p, size_t *n)
{
	while (*n && (**p == ' ' || **p == '\t'))
		(*p)++, (*n)--;
	while (*n && ((*p)[*n - 1] == ' ' || (*p)[*n - 1] == '\t'))
		(*n)--;
}

/* One header field (name: value) of the reply. */
static int rx_field(struct http_rx *x, const char *s, size_t n, struct sbuf *err)
{
	const char *colon = memchr(s, ':', n);
	if (!colon || colon == s)
		return rx_fail(x, err, "a reply header line is not 'Name: value'");
	for (const char *p = s; p < colon; p++)
		if (!is_tchar((unsigned char)*p))
			return rx_fail(x, err, "a reply header name holds a byte that is not a token character");
	const char *v = colon + 1;
	size_t vn = (size_t)(s + n - v), kn = (size_t)(colon - s);
	if (!value_ok(v, vn))
		return rx_fail(x, err, "a reply header value holds a NUL or control byte");
	trim(&v, &vn);
	if (kn == 14 && !strncasecmp(s, "content-length", kn)) {
		uint64_t len = 0;
		if (!vn || vn > 18)
			return rx_fail(x, err, "the reply's Content-Length is not a number of 1 to 18 digits");
		for (size_t i = 0; i < vn; i++) {
			if (v[i] < '0' || v[i] > '9')
				return rx_fail(x, err, "the reply's Content-Length is not a number of 1 to 18 digits");
			len = len * 10 + (uint64_t)(v[i] - '0');
		}
		if (x->has_len && len != x->left)
			return rx_fail(x, err, "the reply has two different Content-Length headers");
		x->has_len = true;
		x->left = len;
	} else if (kn == 17 && !strncasecmp(s, "transfer-encoding", kn)) {
		/* the last coding: chunked frames the body; any other: read to the close */
		const char *last = v, *c;
		while ((c = memchr(last, ',', vn - (size_t)(last - v))))
			last = c + 1;
		size_t ln = vn - (size_t)(last - v);
		trim(&last, &ln);
		x->chunked = ln == 7 && !strncasecmp(last, "chunked", 7);
		x->te = true;
	} else if (kn == 11 && !strncasecmp(s, "retry-after", kn)) {
		x->r->retry_after = http_retry_after(v, vn, x->now);
	}
	return GF_OK;
}

/* The status line and header fields of h[0..n) (lines end in LF or CRLF;
 * the blank line excluded). */
static int rx_head(struct http_rx *x, const char *h, size_t n, struct sbuf *err)
{
	const char *nl = memchr(h, '\n', n);
	size_t ln = nl ? (size_t)(nl - h) : n;
	if (ln && h[ln - 1] == '\r')
		ln--;
	/* HTTP/1.x SP DDD [SP reason] */
	if (ln < 12 || memcmp(h, "HTTP/1.", 7) || h[7] < '0' || h[7] > '9' || h[8] != ' ' ||
	    (ln > 12 && h[12] != ' '))
		return rx_fail(x, err, "the reply's status line is not 'HTTP/1.x DDD reason'");
	int st = 0;
	for (int i = 9; i < 12; i++) {
		if (h[i] < '0' || h[i] > '9')
			return rx_fail(x, err, "the reply's status line is not 'HTTP/1.x DDD reason' (three digits)");
		st = st * 10 + (h[i] - '0');
	}
	if (st < 100 || !value_ok(h + 12, ln - 12))
		return rx_fail(x, err, "the reply's status line is not 'HTTP/1.x DDD reason'");
	x->r->status = st;
	x->r->retry_after = -1;
	x->has_len = x->chunked = x->te = false;
	x->left = 0;
	size_t i = nl ? (size_t)(nl - h) + 1 : n;
	while (i < n) {
		const char *e = memchr(h + i, '\n', n - i);
		size_t l = e ? (size_t)(e - h) - i : n - i;
		size_t k = l && h[i + l - 1] == '\r' ? l - 1 : l;
		if (h[i] == ' ' || h[i] == '\t')
			return rx_fail(x, err, "the reply has a folded header line (obsolete line folding)");
		if (memchr(h + i, '\r', k))
			return rx_fail(x, err, "a reply header line holds a bare CR");
		if (rx_field(x, h + i, k, err))
			return GF_EOUTPUT;
		i += l + 1;
	}
	if (st == 101)
		return rx_fail(x, err, "the server switched protocols (HTTP 101)");
	if (st < 200) { /* interim: the final reply follows */
		x->state = RX_HEAD;
		return GF_OK;
	}
	if (st == 204 || st == 304)
		x->state = RX_DONE;
	else if (x->chunked)
		x->state = RX_CHUNK_SIZE;
	else if (x->te)
		x->state = RX_CLOSE;
	else if (x->has_len)
		x->state = x->left ? RX_LEN : RX_DONE;
	else
		x->state = RX_CLOSE;
	return GF_OK;
}

/* Gathers a line into x->line (bounded by cap). @return 1 when a line is
 * complete (LF consumed; without its CR LF in x->line), 0 for more, < 0 over cap. */
static int rx_line(struct http_rx *x, const char *p, size_t n, size_t *k, size_t cap)
{
	const char *nl = memchr(p, '\n', n);
	size_t take = nl ? (size_t)(nl - p) + 1 : n;
	if (x->line.len + take > cap)
		return -1;
	sbuf_add(&x->line, p, take);
	*k = take;
	if (!nl)
		return 0;
	sbuf_setlen(&x->line, x->line.len - 1);
	if (x->line.len && x->line.buf[x->line.len - 1] == '\r')
		sbuf_setlen(&x->line, x->line.len - 1);
	return 1;
}

/* The header section: gathered until a blank line, at most HTTP_HEAD_MAX. */
static int rx_feed_head(struct http_rx *x, const char *p, size_t n, size_t *k, struct sbuf *err)
{
	size_t old = x->line.len, from = old > 3 ? old - 3 : 0;
	size_t take = n;
	if (old + take > HTTP_HEAD_MAX + 4)
		take = HTTP_HEAD_MAX + 4 - old;
	sbuf_add(&x->line, p, take);
	const char *b = x->line.buf;
	for (size_t i = from; i < x->line.len; i++) {
		if (b[i] != '\n' || i < 1)
			continue;
		size_t end = 0; /* the head without its blank line */
		if (b[i - 1] == '\n')
			end = i - 1;
		else if (b[i - 1] == '\r' && i >= 2 && b[i - 2] == '\n')
			end = i - 2;
		else
			continue;
		if (memchr(b, '\0', end))
			return rx_fail(x, err, "the reply's head holds a NUL byte");
		*k = i + 1 - old;
		int rc = rx_head(x, b, end, err);
		sbuf_reset(&x->line);
		return rc;
	}
	if (x->line.len > HTTP_HEAD_MAX)
		return rx_fail(x, err, "the reply's header section is longer than 64 KiB");
	*k = take;
	return GF_OK;
}

static int rx_chunk_size(struct http_rx *x, struct sbuf *err)
{
	const char *s = x->line.buf ? x->line.buf : "";
	size_t n = x->line.len, i = 0;
	uint64_t v = 0;
	for (; i < n && hexval(s[i]) >= 0; i++) {
		if (i == 15)
			return rx_fail(x, err, "a chunk of the reply is larger than 15 hex digits");
		v = v * 16 + (uint64_t)hexval(s[i]);
	}
	if (!i || (i < n && s[i] != ';' && s[i] != ' ' && s[i] != '\t') || !value_ok(s + i, n - i))
		return rx_fail(x, err, "a chunk size of the reply is not hex digits");
	x->left = v;
	x->state = v ? RX_CHUNK_DATA : RX_TRAILER;
	return GF_OK;
}

int http_rx_feed(struct http_rx *x, const char *p, size_t n, size_t *used, struct sbuf *err)
{
	size_t i = 0;
	*used = 0;
	while (i < n && x->state != RX_DONE) {
		size_t k = 0;
		int l;
		switch (x->state) {
		case RX_BAD:
			return rx_fail(x, err, "the reply is not valid HTTP");
		case RX_HEAD:
			if (rx_feed_head(x, p + i, n - i, &k, err))
				return GF_EOUTPUT;
			break;
		case RX_LEN:
		case RX_CHUNK_DATA:
			k = n - i < x->left ? n - i : (size_t)x->left;
			keep_body(x, p + i, k);
			x->left -= k;
			if (!x->left)
				x->state = x->state == RX_LEN ? RX_DONE : RX_CHUNK_END;
			break;
		case RX_CLOSE:
			k = n - i;
			keep_body(x, p + i, k);
			break;
		case RX_CHUNK_SIZE:
		case RX_CHUNK_END:
		case RX_TRAILER:
			l = rx_line(x, p + i, n - i, &k, 4096);
			if (l < 0)
				return rx_fail(x, err, "a chunk-size or trailer line of the reply is longer than 4 KiB");
			if (l == 0)
				break;
			if (x->state == RX_CHUNK_SIZE) {
				if (rx_chunk_size(x, err))
					return GF_EOUTPUT;
			} else if (x->state == RX_CHUNK_END) {
				if (x->line.len)
					return rx_fail(x, err, "a chunk of the reply does not end where its size says");
				x->state = RX_CHUNK_SIZE;
			} else if (!x->line.len) {
				x->state = RX_DONE;
			} else if (!value_ok(x->line.buf, x->line.len) || (x->got += x->line.len) > HTTP_HEAD_MAX) {
				return rx_fail(x, err, "the reply's trailer is not valid or longer than 64 KiB");
			}
			sbuf_reset(&x->line);
			break;
		}
		i += k;
	}
	*used = i;
	return x->state == RX_DONE ? HTTP_RX_DONE : HTTP_RX_MORE;
}

int http_rx_eof(struct http_rx *x, struct sbuf *err)
{
	switch (x->state) {
	case RX_DONE:
		return HTTP_RX_DONE;
	case RX_CLOSE:
		x->state = RX_DONE;
		return HTTP_RX_DONE;
	case RX_HEAD:
		if (!x->line.len && !x->r->status)
			return rx_fail(x, err, "the server closed the connection without a reply");
		return rx_fail(x, err, "the reply ended inside its head");
	case RX_LEN:
		sbuf_setf(err, "the reply ended inside its body (%llu of %llu bytes)", (unsigned long long)x->got,
			  (unsigned long long)(x->got + x->left));
		x->state = RX_BAD;
		return GF_EOUTPUT;
	case RX_BAD:
		return rx_fail(x, err, "the reply is not valid HTTP");
	default:
		return rx_fail(x, err, "the reply ended inside its chunked body");
	}
}

int http_parse_reply(const char *buf, size_t n, struct http_reply *r, struct sbuf *err)
{
	struct http_rx x;
	http_rx_init(&x, r, (int64_t)time(NULL));
	size_t used;
	int k = http_rx_feed(&x, buf, n, &used, err);
	if (k == HTTP_RX_MORE)
		k = http_rx_eof(&x, err);
	http_rx_release(&x);
	return k < 0 ? k : GF_OK;
}

int64_t http_retry_after(const char *v, size_t n, int64_t now)
{
	if (!n || n > 63)
		return -1;
	bool digits = true;
	for (size_t i = 0; i < n && digits; i++)
		digits = v[i] >= '0' && v[i] <= '9';
	if (digits) {
		int64_t s = 0;
		for (size_t i = 0; i < n && s < 1000000000; i++)
			s = s * 10 + (v[i] - '0');
		return s;
	}
	char b[64];
	memcpy(b, v, n);
	b[n] = 0;
	/* IMF-fixdate, RFC 850, asctime (RFC 9110, 5.6.7); the C locale's names */
	static const char *const fmt[] = { "%a, %d %b %Y %H:%M:%S GMT", "%A, %d-%b-%y %H:%M:%S GMT", "%a %b %e %H:%M:%S %Y" };
	for (size_t f = 0; f < sizeof fmt / sizeof fmt[0]; f++) {
		struct tm tm;
		memset(&tm, 0, sizeof tm);
		const char *end = strptime(b, fmt[f], &tm);
		if (end && !*end) {
			int64_t t = (int64_t)timegm(&tm);
			return t > now ? t - now : 0;
		}
	}
	return -1;
}

/* ---- the exchange ---- */

/* Connects to u within the deadline (non-blocking connect then poll). */
static int dial(const struct url *u, int64_t deadline, int timeout_s, struct sbuf *err)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
	int g = getaddrinfo(u->host, u->port, &hints, &ai);
	if (g) {
		sbuf_setf(err, "cannot resolve '%s': %s", u->host, gai_strerror(g));
		return -1;
	}
	int fd = -1, e = 0;
	for (struct addrinfo *a = ai; a && fd < 0; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
		if (fd < 0) {
			e = errno;
			continue;
		}
		if (connect(fd, a->ai_addr, a->ai_addrlen) && errno != EINPROGRESS) {
			e = errno;
		} else {
			struct pollfd pf = { fd, POLLOUT, 0 };
			int k;
			while ((k = poll(&pf, 1, left_ms(deadline))) < 0 && errno == EINTR)
				;
			socklen_t sl = sizeof e;
			if (k == 0)
				e = ETIMEDOUT;
			else if (k < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &sl))
				e = errno;
			if (!e)
				break;
		}
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0 && e == ETIMEDOUT)
		sbuf_setf(err, "cannot connect to %s within %d s (--timeout)", u->hosthdr, timeout_s);
	else if (fd < 0)
		sbuf_setf(err, "cannot connect to %s: %s", u->hosthdr, strerror(e ? e : ECONNREFUSED));
	return fd;
}

struct xfer {
	int fd;
	const struct url *u;
	int64_t deadline;
	int timeout_s;
	struct http_rx rx;
	int k;     /* the parser's state: HTTP_RX_MORE, HTTP_RX_DONE or an error */
	bool eof;  /* the server closed (or reset) its side */
	int rerr;  /* errno of a failed recv */
	size_t got;
	struct sbuf perr; /* the parser's error */
};

/* Reads what is there (once) into the parser. */
static void xfer_recv(struct xfer *x)
{
	char buf[16384];
	ssize_t n = recv(x->fd, buf, sizeof buf, 0);
	if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
		return;
	if (n <= 0) {
		x->eof = true;
		x->rerr = n < 0 ? errno : 0;
		if (x->k == HTTP_RX_MORE && !x->rerr)
			x->k = http_rx_eof(&x->rx, &x->perr);
		return;
	}
	x->got += (size_t)n;
	size_t used;
	if (x->k == HTTP_RX_MORE)
		x->k = http_rx_feed(&x->rx, buf, (size_t)n, &used, &x->perr);
}

/* Sends req then body; reads an early reply meanwhile. @return bytes sent. */
static size_t xfer_send(struct xfer *x, const struct sbuf *req, const char *body, size_t len, int *serr)
{
	size_t sent = 0, total = req->len + len;
	*serr = 0;
	while (sent < total && !x->eof && x->k >= 0) {
		if (x->k == HTTP_RX_DONE && (x->rx.r->status < 200 || x->rx.r->status > 299))
			break; /* refused before the end: no use sending the rest */
		struct pollfd pf = { x->fd, POLLOUT | POLLIN, 0 };
		int k = poll(&pf, 1, left_ms(x->deadline));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			*serr = k ? errno : ETIMEDOUT;
			break;
		}
		if (pf.revents & (POLLIN | POLLHUP | POLLERR))
			xfer_recv(x);
		if (!(pf.revents & POLLOUT) || x->eof)
			continue;
		struct iovec iov[2];
		int niov = 0;
		if (sent < req->len)
			iov[niov++] = (struct iovec){ req->buf + sent, req->len - sent };
		size_t bo = sent > req->len ? sent - req->len : 0;
		if (len > bo)
			iov[niov++] = (struct iovec){ (void *)(body + bo), len - bo };
		struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)niov };
		ssize_t n = sendmsg(x->fd, &mh, MSG_NOSIGNAL);
		if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
			continue;
		if (n < 0) {
			*serr = errno;
			break;
		}
		sent += (size_t)n;
	}
	return sent;
}

/* Reads until the reply is complete, the server closes, or the deadline. */
static void xfer_finish(struct xfer *x)
{
	while (x->k == HTTP_RX_MORE && !x->eof) {
		struct pollfd pf = { x->fd, POLLIN, 0 };
		int k = poll(&pf, 1, left_ms(x->deadline));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		xfer_recv(x);
	}
}

static int exchange(struct xfer *x, const struct sbuf *req, const char *body, size_t len, struct sbuf *err)
{
	size_t total = req->len + len;
	int serr;
	size_t sent = xfer_send(x, req, body, len, &serr);
	xfer_finish(x);
	const char *where = x->u->hosthdr;
	int st = x->rx.r->status;
	if (x->k == HTTP_RX_DONE && (sent == total || st < 200 || st > 299))
		return GF_OK; /* delivered, or refused (the caller reports the status) */
	if (x->k < 0) {
		sbuf_setf(err, "%s: %s", where, x->perr.buf);
	} else if (sent < total) {
		sbuf_setf(err, "%s: sending the request failed after %zu of %zu bytes: %s", where, sent, total,
			  serr == ETIMEDOUT ? "timed out (--timeout)" : serr ? strerror(serr)
				      : x->rerr ? strerror(x->rerr) : "the server closed the connection");
		if (x->k == HTTP_RX_DONE)
			sbuf_addf(err, " (its HTTP %d came before the whole body)", st);
	} else if (x->eof && x->rerr) {
		sbuf_setf(err, "%s: reading the reply failed: %s", where, strerror(x->rerr));
	} else {
		sbuf_setf(err, "%s: no complete HTTP reply within %d s (--timeout; %zu bytes read)", where, x->timeout_s,
			  x->got);
	}
	x->rx.r->status = 0;
	return GF_EOUTPUT;
}

int http_post(const char *url, const char *path, const char *ctype, const char *const *headers, size_t nheaders,
	      const char *body, size_t len, int timeout_s, struct http_reply *r, struct sbuf *err)
{
	r->status = 0;
	r->retry_after = -1;
	sbuf_init(&r->body, 0);
	struct url u;
	int rc = parse_url(url, &u, err);
	if (rc) {
		url_release(&u);
		return rc;
	}
	int64_t deadline = now_ms() + (int64_t)timeout_s * 1000;
	int fd = dial(&u, deadline, timeout_s, err);
	if (fd < 0) {
		url_release(&u);
		return GF_EOUTPUT;
	}
	struct sbuf req = SBUF_INIT;
	sbuf_addf(&req, "POST %s%s HTTP/1.1\r\nHost: %s\r\nUser-Agent: gpuflame\r\nContent-Type: %s\r\n"
		  "Content-Length: %zu\r\nConnection: close\r\n", u.prefix.buf ? u.prefix.buf : "", path, u.hosthdr,
		  ctype, len);
	if (u.auth.len)
		sbuf_addf(&req, "Authorization: Basic %s\r\n", u.auth.buf);
	for (size_t i = 0; i < nheaders; i++)
		sbuf_addf(&req, "%s\r\n", headers[i]);
	sbuf_addstr(&req, "\r\n");
	struct xfer x = { .fd = fd, .u = &u, .deadline = deadline, .timeout_s = timeout_s };
	http_rx_init(&x.rx, r, (int64_t)time(NULL));
	rc = exchange(&x, &req, body, len, err);
	http_rx_release(&x.rx);
	sbuf_release(&x.perr);
	sbuf_release(&req);
	close(fd);
	url_release(&u);
	return rc;
}

void http_reply_release(struct http_reply *r)
{
	sbuf_release(&r->body);
}
