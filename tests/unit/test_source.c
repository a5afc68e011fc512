/*
 * test_source.c — compressed byte sources under hostile input (read/source):
 * gzip members, zero padding and trailing data as gzip -d; zstd skippable
 * frames (pzstd), several frames, trailing data as zstd -d; the
 * gf_limits.input bound on plain and decompressed bytes. Every case runs with
 * the inflate thread (threads 0) and without (threads 1).
 */
#include "t.h"

#include "base/limits.h"
#include "input/source.h"

#include <zlib.h>
#include <zstd.h>

/* Reads all of buf[0..len) through a source; @return the rc, data in out,
 * message in err. */
static int read_all(const void *buf, size_t len, unsigned threads, struct sbuf *out, struct sbuf *err)
{
	struct source *s;
	sbuf_reset(out);
	sbuf_reset(err);
	int rc = source_open_mem(&s, buf, len, "x", threads, err);
	if (rc)
		return rc;
	char tmp[7]; /* small reads: limits and boundaries are crossed mid-buffer */
	for (;;) {
		size_t n;
		rc = source_read(s, tmp, sizeof tmp, &n, err);
		if (rc || !n)
			break;
		sbuf_add(out, tmp, n);
	}
	source_close(s);
	return rc;
}

static void gz(struct sbuf *b, const char *text)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	deflateInit2(&z, 6, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY);
	unsigned char out[4096];
	z.next_in = (unsigned char *)text;
	z.avail_in = (uInt)strlen(text);
	z.next_out = out;
	z.avail_out = sizeof out;
	deflate(&z, Z_FINISH);
	sbuf_add(b, out, sizeof out - z.avail_out);
	deflateEnd(&z);
}

static void zst(struct sbuf *b, const char *text)
{
	char out[4096];
	size_t k = ZSTD_compress(out, sizeof out, text, strlen(text), 3);
	sbuf_add(b, out, k);
}

/* A skippable frame: magic 0x184D2A5m, 4-byte little-endian size, payload. */
static void skippable(struct sbuf *b, unsigned m, const char *payload)
{
	size_t n = strlen(payload);
	unsigned char h[8] = { (unsigned char)(0x50 | m), 0x2a, 0x4d, 0x18, (unsigned char)n,
			       (unsigned char)(n >> 8), 0, 0 };
	sbuf_add(b, h, 8);
	sbuf_add(b, payload, n);
}

#define FOR_THREADS for (unsigned th = 0; th < 2; th++)

T_TEST(test_source__gzip_members_read_whole)
{
	struct sbuf in = SBUF_INIT, out = SBUF_INIT, err = SBUF_INIT;
	gz(&in, "hello ");
	gz(&in, "world");
	FOR_THREADS {
		T_EQ_I64(read_all(in.buf, in.len, th, &out, &err), GF_OK);
		T_EQ_STR(out.buf, "hello world");
	}
	sbuf_release(&in);
	sbuf_release(&out);
	sbuf_release(&err);
}

T_TEST(test_source__gzip_zero_padding_ignored)
{
	struct sbuf in = SBUF_INIT, out = SBUF_INIT, err = SBUF_INIT;
	gz(&in, "padded");
	for (int i = 0; i < 5000; i++) /* tape-block style padding */
		sbuf_addch(&in, 0);
	FOR_THREADS {
		T_EQ_I64(read_all(in.buf, in.len, th, &out, &err), GF_OK);
		T_EQ_STR(out.buf, "padded");
	}
	sbuf_release(&in);
	sbuf_release(&out);
	sbuf_release(&err);
}

T_TEST(test_source__gzip_trailing_garbage_is_an_error)
{
	struct sbuf in = SBUF_INIT, out = SBUF_INIT, err = SBUF_INIT, want = SBUF_INIT;
	gz(&in, "data");
	size_t end = in.len;
	sbuf_addstr(&in, "JUNK");
	sbuf_setf(&want, "'x': byte %zu: trailing data after the last gzip member", end);
	FOR_THREADS {
		T_EQ_I64(read_all(in.buf, in.len, th, &out, &err), GF_EINPUT);
		T_TRUE(strstr(err.buf, want.buf) != NULL);
	}
	/* zeros, then data: gzip calls it trailing garbage too (offset of the data) */
	sbuf_setlen(&in, end);
	sbuf_add(&in, "\0\0\0x", 4);
	sbuf_setf(&want, "'x': byte %zu: trailing data", end + 3);
	FOR_THREADS {
		T_EQ_I64(read_all(in.buf, in.len, th, &out, &err), GF_EINPUT);
		T_TRUE(strstr(err.buf, want.buf) != NULL);
	}
	/* 1f then not 8b */
	sbuf_setlen(&in, end);
	sbuf_add(&in, "\x1f\x8c", 2);
	FOR_THREADS {
		T_EQ_I64(read_all(in.buf, in.len, th, &out, &err), GF_EINPUT);
		T_TRUE(strstr(err.buf, "trailing data") != NULL);
	}
	/* a lone 1f at the end: a member cut short (gzip: unexpected end of file) */
	sbuf_setlen(&in, end);
	sbuf_addch(&in, 0x1f);
	FOR_THREADS {
		T_EQ_I64(read_all(in.buf, in.len, th, &out, &err), GF_EINPUT);
		T_TRUE(strstr(err.buf, "truncated gzip") != NULL);
	}
	sbuf_release(&in);
	sbuf_release(&out);
	sbuf_release(&err);
	sbuf_release(&want);
}

T_TEST(test_source__zstd_skippable_frames)
{
	struct sbuf in = SBUF_INIT, out = SBUF_INIT, err = SBUF_INIT;
	/* pzstd's layout: a skippable frame first (it holds the frame size) */
	skippable(&in, 0, "\x13\0\0\0");
	zst(&in, "first ");
	skippable(&in, 0xf, "in the middle");
	zst(&in, "second");
	skippable(&in, 7, "");
	FOR_THREADS {
		T_EQ_I64(read_all(in.buf, in.len, th, &out, &err), GF_OK);
		T_EQ_STR(out.buf, "first second");
		struct source *s;
		T_EQ_I64(source_open_mem(&s, in.buf, in.len, "x", th, &err), GF_OK);
		T_EQ_I64(source_kind(s), SOURCE_ZSTD);
		source_close(s);
	}
	sbuf_release(&in);
	sbuf_release(&out);
	sbuf_release(&err);
}

T_TEST(test_source__zstd_trailing_data_is_an_error)
{
	struct sbuf in = SBUF_INIT, out = SBUF_INIT, err = SBUF_INIT, want = SBUF_INIT;
	zst(&in, "data");
	size_t end = in.len;
	sbuf_addstr(&in, "JUNK");
	sbuf_setf(&want, "'x': byte %zu: trailing data after the last zstd frame", end);
	FOR_THREADS {
		T_EQ_I64(read_all(in.buf, in.len, th, &out, &err), GF_EINPUT);
		T_TRUE(strstr(err.buf, want.buf) != NULL);
	}
	/* zero padding: zstd -d refuses it ("unknown header") */
	sbuf_setlen(&in, end);
	sbuf_add(&in, "\0\0\0\0\0\0\0\0", 8);
	FOR_THREADS {
		T_EQ_I64(read_all(in.buf, in.len, th, &out, &err), GF_EINPUT);
		T_TRUE(strstr(err.buf, want.buf) != NULL);
	}
	/* a frame cut short */
	sbuf_setlen(&in, end - 2);
	FOR_THREADS {
		T_EQ_I64(read_all(in.buf, in.len, th, &out, &err), GF_EINPUT);
		T_TRUE(strstr(err.buf, "truncated zstd") != NULL);
	}
	sbuf_release(&in);
	sbuf_release(&out);
	sbuf_release(&err);
	sbuf_release(&want);
}

T_TEST(test_source__input_limit)
{
	struct sbuf in = SBUF_INIT, out = SBUF_INIT, err = SBUF_INIT;
	uint64_t saved = gf_limits.input;
	gf_limits.input = 100;
	char plain[101];
	memset(plain, 'a', sizeof plain);
	FOR_THREADS {
		/* exactly the limit: fine */
		T_EQ_I64(read_all(plain, 100, th, &out, &err), GF_OK);
		T_EQ_I64(out.len, 100);
		/* one byte more: exit 4, naming the offset and the variable */
		T_EQ_I64(read_all(plain, 101, th, &out, &err), GF_EINTERNAL);
		T_TRUE(strstr(err.buf, "'x': byte 100: an input larger than 100 bytes (GPUFLAME_MAX_INPUT)") != NULL);
		T_TRUE(out.len <= 100);
	}
	/* a small bomb: 100 kB of zeros compress to a few hundred bytes */
	char *big = calloc(1, 100001);
	memset(big, '0', 100000);
	gz(&in, big);
	FOR_THREADS {
		T_EQ_I64(read_all(in.buf, in.len, th, &out, &err), GF_EINTERNAL);
		T_TRUE(strstr(err.buf, "'x': byte 100 (compressed byte ") != NULL);
		T_TRUE(strstr(err.buf, "gzip data decompressing to more than 100 bytes (GPUFLAME_MAX_INPUT)") != NULL);
		T_TRUE(out.len <= 100);
	}
	sbuf_reset(&in);
	zst(&in, big);
	FOR_THREADS {
		T_EQ_I64(read_all(in.buf, in.len, th, &out, &err), GF_EINTERNAL);
		T_TRUE(strstr(err.buf, "zstd data decompressing to more than 100 bytes") != NULL);
		T_TRUE(out.len <= 100);
	}
	free(big);
	gf_limits.input = saved;
	sbuf_release(&in);
	sbuf_release(&out);
	sbuf_release(&err);
}

T_TEST(test_source__plain_file_over_limit_refused_at_open)
{
	struct sbuf err = SBUF_INIT;
	char path[] = "/tmp/gf_test_source_XXXXXX";
	int fd = mkstemp(path);
	T_TRUE(fd >= 0);
	FILE *fp = fdopen(fd, "w");
	for (int i = 0; i < 300; i++)
		fputc('x', fp);
	fclose(fp);
	uint64_t saved = gf_limits.input;
	gf_limits.input = 200;
	struct source *s = NULL;
	T_EQ_I64(source_open(&s, path, 1, &err), GF_EINTERNAL);
	T_TRUE(strstr(err.buf, "byte 200: an input larger than 200 bytes (GPUFLAME_MAX_INPUT)") != NULL);
	T_TRUE(s == NULL);
	source_close(s);
	gf_limits.input = saved;
	unlink(path);
	sbuf_release(&err);
}

int main(void)
{
	T_RUN(test_source__gzip_members_read_whole);
	T_RUN(test_source__gzip_zero_padding_ignored);
	T_RUN(test_source__gzip_trailing_garbage_is_an_error);
	T_RUN(test_source__zstd_skippable_frames);
	T_RUN(test_source__zstd_trailing_data_is_an_error);
	T_RUN(test_source__input_limit);
	T_RUN(test_source__plain_file_over_limit_refused_at_open);
	return t_done();
}
