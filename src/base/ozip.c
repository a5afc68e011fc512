#include "base/ozip.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#if GF_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

#define OZIP_BUF (64u << 10)

static bool ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && !strcmp(s + n - m, suf);
}

int ozip_by_name(const char *path)
{
	if (!path)
		return OZIP_PLAIN;
	if (ends_with(path, ".gz"))
		return OZIP_GZIP;
	if (ends_with(path, ".zst"))
		return OZIP_ZSTD;
	return OZIP_PLAIN;
}

static void put(struct ozip *z, const void *p, size_t n)
{
	if (z->failed || !n)
		return;
	if (fwrite(p, 1, n, z->fp) != n) {
		z->failed = true;
		z->err = errno ? errno : EIO;
	}
}

int ozip_open(struct ozip *z, FILE *fp, int kind)
{
	memset(z, 0, sizeof *z);
	z->fp = fp;
	z->kind = kind;
	if (kind == OZIP_PLAIN)
		return 0;
	z->buf = malloc(OZIP_BUF);
	if (!z->buf)
		return -1;
	if (kind == OZIP_GZIP) {
#if GF_HAVE_ISAL
		/* ISA-L's level 1: several times zlib's speed, gzip-compatible output */
		struct isal_zstream *s = calloc(1, sizeof *s);
		uint8_t *lb = malloc(ISAL_DEF_LVL1_DEFAULT);
		if (!s || !lb) {
			free(s);
			free(lb);
			free(z->buf);
			return -1;
		}
		isal_deflate_init(s);
		s->level = 1;
		s->level_buf = lb;
		s->level_buf_size = ISAL_DEF_LVL1_DEFAULT;
		s->gzip_flag = IGZIP_GZIP;
		z->state = s;
#else
		z_stream *s = calloc(1, sizeof *s);
		/* 15 + 16: a gzip header and trailer (RFC 1952) */
		if (!s || deflateInit2(s, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
			free(s);
			free(z->buf);
			return -1;
		}
		z->state = s;
#endif
	} else {
		ZSTD_CStream *s = ZSTD_createCStream();
		if (!s || ZSTD_isError(ZSTD_initCStream(s, 3))) {
			ZSTD_freeCStream(s);
			free(z->buf);
			return -1;
		}
		z->state = s;
	}
	return 0;
}

#if GF_HAVE_ISAL
static void gz_run(struct ozip *z, const void *p, size_t n, int flush)
{
	struct isal_zstream *s = z->state;
	s->next_in = (uint8_t *)p;
	s->avail_in = (uint32_t)n;
	s->end_of_stream = flush == Z_FINISH;
	do {
		s->next_out = z->buf;
		s->avail_out = OZIP_BUF;
		if (isal_deflate(s) != COMP_OK) {
			z->failed = true;
			return;
		}
		put(z, z->buf, OZIP_BUF - s->avail_out);
	} while (!z->failed && (s->avail_in || s->avail_out == 0 ||
				(flush == Z_FINISH && s->internal_state.state != ZSTATE_END)));
}

static void gz_end(struct ozip *z)
{
	struct isal_zstream *s = z->state;
	free(s->level_buf);
	free(s);
}
#else
static void gz_end(struct ozip *z)
{
	deflateEnd(z->state);
	free(z->state);
}

static void gz_run(struct ozip *z, const void *p, size_t n, int flush)
{
	z_stream *s = z->state;
	s->next_in = (Bytef *)p;
	s->avail_in = (uInt)n;
	int rc;
	do {
		s->next_out = z->buf;
		s->avail_out = OZIP_BUF;
		rc = deflate(s, flush);
		if (rc == Z_STREAM_ERROR) {
			z->failed = true;
			return;
		}
		put(z, z->buf, OZIP_BUF - s->avail_out);
	} while (s->avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
}
#endif

static void zs_run(struct ozip *z, const void *p, size_t n, bool end)
{
	ZSTD_inBuffer in = { p, n, 0 };
	for (;;) {
		ZSTD_outBuffer out = { z->buf, OZIP_BUF, 0 };
		size_t rc = end ? ZSTD_endStream(z->state, &out) : ZSTD_compressStream(z->state, &out, &in);
		if (ZSTD_isError(rc)) {
			z->failed = true;
			return;
		}
		put(z, z->buf, out.pos);
		if (end ? rc == 0 : (in.pos == in.size && out.pos < out.size))
			return;
	}
}

void ozip_write(struct ozip *z, const void *p, size_t n)
{
	if (z->failed || !n)
		return;
	if (z->kind == OZIP_PLAIN) {
		put(z, p, n);
		return;
	}
	/* zlib takes at most UINT_MAX bytes at once */
	const unsigned char *c = p;
	while (n && !z->failed) {
		size_t k = n > (1u << 30) ? (1u << 30) : n;
		if (z->kind == OZIP_GZIP)
			gz_run(z, c, k, Z_NO_FLUSH);
		else
			zs_run(z, c, k, false);
		c += k;
		n -= k;
	}
}

int ozip_close(struct ozip *z)
{
	if (z->kind == OZIP_GZIP && z->state) {
		if (!z->failed)
			gz_run(z, NULL, 0, Z_FINISH);
		gz_end(z);
	} else if (z->kind == OZIP_ZSTD && z->state) {
		if (!z->failed)
			zs_run(z, NULL, 0, true);
		ZSTD_freeCStream(z->state);
	}
	z->state = NULL;
	free(z->buf);
	z->buf = NULL;
	return z->failed ? -1 : 0;
}
