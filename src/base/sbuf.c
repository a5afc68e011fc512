/* sbuf.c — growable byte buffer (see sbuf.h for the invariants). */
#include "base/sbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char sbuf_empty_[1];

void sbuf_init(struct sbuf *b, size_t hint)
{
	b->buf = sbuf_empty_;
	b->len = b->alloc = 0;
	if (hint)
		sbuf_grow(b, hint);
}

void sbuf_release(struct sbuf *b)
{
	if (b->alloc)
		free(b->buf);
	sbuf_init(b, 0);
}

char *sbuf_detach(struct sbuf *b, size_t *len)
{
	if (!b->alloc)
		sbuf_grow(b, 0);
	char *r = b->buf;
	if (len)
		*len = b->len;
	sbuf_init(b, 0);
	return r;
}

void sbuf_grow(struct sbuf *b, size_t extra)
{
	if (extra > SIZE_MAX - b->len - 2) {
		fprintf(stderr, "gpuflame: buffer size overflow\n");
		exit(GF_EXIT_INTERNAL);
	}
	size_t need = b->len + extra + 1;
	if (need <= b->alloc)
		return;
	size_t c = b->alloc ? b->alloc : 16;
	while (c < need)
		c = c < SIZE_MAX / 2 ? c * 2 : need;
	if (!b->alloc) {
		b->buf = gf_xmalloc(c);
		b->buf[0] = 0;
	} else {
		b->buf = gf_xrealloc(b->buf, c);
	}
	b->alloc = c;
}

void sbuf_add(struct sbuf *b, const void *p, size_t n)
{
	if (!n)
		return;
	sbuf_grow(b, n);
	memcpy(b->buf + b->len, p, n);
	b->len += n;
	b->buf[b->len] = 0;
}

void sbuf_addstr(struct sbuf *b, const char *s)
{
	sbuf_add(b, s, strlen(s));
}

void sbuf_vaddf(struct sbuf *b, const char *fmt, va_list ap)
{
	va_list cp;
	va_copy(cp, ap);
	char tmp[256];
	int n = vsnprintf(tmp, sizeof tmp, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	if ((size_t)n < sizeof tmp) {
		sbuf_add(b, tmp, (size_t)n);
		return;
	}
	sbuf_grow(b, (size_t)n);
	vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void sbuf_addf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sbuf_vaddf(b, fmt, ap);
	va_end(ap);
}

void sbuf_setf(struct sbuf *b, const char *fmt, ...)
{
	sbuf_reset(b);
	va_list ap;
	va_start(ap, fmt);
	sbuf_vaddf(b, fmt, ap);
	va_end(ap);
}

void sbuf_setlen(struct sbuf *b, size_t len)
{
	if (len > b->len)
		sbuf_grow(b, len - b->len);
	b->len = len;
	if (b->alloc)
		b->buf[len] = 0;
}

bool sbuf_add_file(struct sbuf *b, FILE *fp)
{
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, fp)) > 0)
		sbuf_add(b, buf, n);
	return !ferror(fp);
}
