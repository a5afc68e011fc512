/*
 * http.c — a minimal HTTP/1.1 POST over a TCP socket (http.h).
 */
#include "store/http.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
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
		unsigned v = (unsigned char)s[i] << 16;
		if (i + 1 < n)
			v |= (unsigned char)s[i + 1] << 8;
		if (i + 2 < n)
			v |= (unsigned char)s[i + 2];
		sbuf_addch(b, t[v >> 18 & 63]);
		sbuf_addch(b, t[v >> 12 & 63]);
		sbuf_addch(b, i + 1 < n ? t[v >> 6 & 63] : '=');
		sbuf_addch(b, i + 2 < n ? t[v & 63] : '=');
	}
}

struct url {
	char host[256], port[8], prefix[1024], auth[512];
};

static int parse_url(const char *url, struct url *u, struct sbuf *err)
{
	memset(u, 0, sizeof *u);
	if (!strncmp(url, "https://", 8)) {
		sbuf_setf(err, "'%s': https is not supported: use http:// (through a local TLS proxy)", url);
		return GF_EUSAGE;
	}
	if (strncmp(url, "http://", 7)) {
		sbuf_setf(err, "'%s': expected an http://host[:port] URL", url);
		return GF_EUSAGE;
	}
	const char *p = url + 7, *end = p + strcspn(p, "/?#"), *at = memchr(p, '@', (size_t)(end - p));
	if (at) {
		struct sbuf a = SBUF_INIT;
		b64(&a, p, (size_t)(at - p));
		snprintf(u->auth, sizeof u->auth, "%s", a.buf ? a.buf : "");
		sbuf_release(&a);
		p = at + 1;
	}
	const char *colon = memchr(p, ':', (size_t)(end - p));
	size_t hn = (size_t)((colon ? colon : end) - p);
	if (!hn || hn >= sizeof u->host || (colon && (end - colon - 1 <= 0 || end - colon - 1 > 5))) {
		sbuf_setf(err, "'%s': expected an http://host[:port] URL", url);
		return GF_EUSAGE;
	}
	memcpy(u->host, p, hn);
	if (colon)
		memcpy(u->port, colon + 1, (size_t)(end - colon - 1));
	else
		strcpy(u->port, "80");
	snprintf(u->prefix, sizeof u->prefix, "%s", *end == '/' ? end : "");
	size_t pl = strlen(u->prefix);
	while (pl && u->prefix[pl - 1] == '/')
		u->prefix[--pl] = 0;
	return GF_OK;
}

static int dial(const struct url *u, int timeout_s, struct sbuf *err)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
	int g = getaddrinfo(u->host, u->port, &hints, &ai);
	if (g) {
		sbuf_setf(err, "cannot resolve '%s': %s", u->host, gai_strerror(g));
		return -1;
	}
	int fd = -1, e = 0;
	for (struct addrinfo *a = ai; a && fd < 0; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
		if (fd < 0)
			continue;
		struct timeval tv = { timeout_s, 0 };
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
		if (connect(fd, a->ai_addr, a->ai_addrlen)) {
			e = errno;
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(ai);
	if (fd < 0)
		sbuf_setf(err, "cannot connect to %s:%s: %s", u->host, u->port, strerror(e ? e : ECONNREFUSED));
	return fd;
}

static int send_all(int fd, const char *p, size_t n, struct sbuf *err)
{
	while (n) {
		ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			sbuf_setf(err, "sending the request failed: %s", strerror(errno));
			return GF_EOUTPUT;
		}
		p += k;
		n -= (size_t)k;
	}
	return GF_OK;
}

/* Decodes a chunked body in place. */
static void unchunk(struct sbuf *b)
{
	struct sbuf o = SBUF_INIT;
	size_t i = 0;
	while (i < b->len) {
		size_t n = 0, j = i;
		for (; j < b->len && j - i < 15; j++) {
			char c = b->buf[j];
			int d = c >= '0' && c <= '9' ? c - '0' : (c | 32) >= 'a' && (c | 32) <= 'f' ? (c | 32) - 'a' + 10 : -1;
			if (d < 0)
				break;
			n = n * 16 + (size_t)d;
		}
		const char *nl = memchr(b->buf + j, '\n', b->len - j);
		if (!nl || !n)
			break;
		i = (size_t)(nl - b->buf) + 1;
		if (n > b->len - i)
			n = b->len - i;
		sbuf_add(&o, b->buf + i, n);
		i += n;
		i = b->len - i >= 2 ? i + 2 : b->len;
	}
	sbuf_release(b);
	*b = o;
	if (!b->buf)
		sbuf_addstr(b, "");
}

int http_post(const char *url, const char *path, const char *ctype, const char *const *headers, size_t nheaders,
	      const char *body, size_t len, int timeout_s, struct http_reply *r, struct sbuf *err)
{
	r->status = 0;
	sbuf_init(&r->body, 0);
	struct url u;
	int rc = parse_url(url, &u, err);
	if (rc)
		return rc;
	int fd = dial(&u, timeout_s, err);
	if (fd < 0)
		return GF_EOUTPUT;
	struct sbuf req = SBUF_INIT;
	sbuf_addf(&req, "POST %s%s HTTP/1.1\r\nHost: %s%s%s\r\nUser-Agent: gpuflame\r\nContent-Type: %s\r\n"
		  "Content-Length: %zu\r\nConnection: close\r\n", u.prefix, path, u.host, strcmp(u.port, "80") ? ":" : "",
		  strcmp(u.port, "80") ? u.port : "", ctype, len);
	if (u.auth[0])
		sbuf_addf(&req, "Authorization: Basic %s\r\n", u.auth);
	for (size_t i = 0; i < nheaders; i++)
		sbuf_addf(&req, "%s\r\n", headers[i]);
	sbuf_addstr(&req, "\r\n");
	rc = send_all(fd, req.buf, req.len, err);
	sbuf_release(&req);
	if (!rc)
		rc = send_all(fd, body, len, err);
	struct sbuf in = SBUF_INIT;
	char buf[16384];
	for (;;) {
		ssize_t k = recv(fd, buf, sizeof buf, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		if (in.len < (1u << 20)) /* a reply's first MiB is all push reads */
			sbuf_add(&in, buf, (size_t)k);
	}
	close(fd);
	int bad = http_parse_reply(in.buf ? in.buf : "", in.len, r);
	sbuf_release(&in);
	if (bad) {
		if (!rc)
			sbuf_setf(err, "no HTTP reply from %s:%s", u.host, u.port);
		return GF_EOUTPUT;
	}
	return GF_OK;
}

int http_parse_reply(const char *buf, size_t n, struct http_reply *r)
{
	r->status = 0;
	sbuf_reset(&r->body);
	const char *hend = memmem(buf, n, "\r\n\r\n", 4);
	if (n < 12 || memcmp(buf, "HTTP/1.", 7) || !hend || buf[8] != ' ')
		return -1;
	int st = 0;
	for (int i = 9; i < 12; i++) {
		if (buf[i] < '0' || buf[i] > '9')
			return -1;
		st = st * 10 + (buf[i] - '0');
	}
	r->status = st;
	/* Transfer-Encoding: chunked among the headers (case-insensitive) */
	bool chunked = false;
	static const char te[] = "\r\ntransfer-encoding: chunked";
	for (const char *p = buf; p + sizeof te - 1 <= hend + 2 && !chunked; p++)
		chunked = !strncasecmp(p, te, sizeof te - 1);
	sbuf_add(&r->body, hend + 4, n - (size_t)(hend + 4 - buf));
	if (chunked)
		unchunk(&r->body);
	return 0;
}

void http_reply_release(struct http_reply *r)
{
	sbuf_release(&r->body);
}
