/*
 * source.c — plain / gzip / zstd byte source with an optional inflate thread
 * (see source.h).
 *
 * Decoding runs in decode(), which fills a caller buffer from the compressed
 * input. Without a thread, source_read calls it directly. With a thread, the
 * thread calls it to fill a ring of SLOTS buffers and source_read copies out
 * of the oldest full one; the copy costs far less than the inflate it overlaps.
 */
#include "input/source.h"

#include "base/limits.h"
#include "base/mapguard.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>
#ifdef GF_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

#define IN_CAP (1u << 20)
#define SLOT_CAP (1u << 20)
#define SLOTS 4

struct slot {
	char *buf;
	size_t len;
};

struct source {
	char *name;
	int fd;
	bool own_fd;
	bool regular;     /* a regular file (can be opened again) */
	char *map;        /* source_map: the reservation (file + padding pages) */
	size_t map_len;
	size_t map_pop;   /* source_map_done: populated up to here */
	size_t map_drop;  /* source_map_done: released up to here */
	const uint8_t *mem;
	size_t mem_len, mem_pos;
	int kind;
	uint64_t file_pos, file_size;

	/* peeked magic bytes, served first for plain input */
	uint8_t peek[4];
	size_t npeek, peek_pos;

	/* compressed input */
	uint8_t *in;
	size_t in_len, in_pos;
	bool in_eof;
	bool member_done, finished;
	uint64_t in_base; /* file offset of in[0] */

	z_stream z;
	bool z_init;
#ifdef GF_HAVE_ISAL
	struct inflate_state *isal;
#endif
	ZSTD_DCtx *zd;
	size_t zlast;
	uint64_t zframes; /* zstd frames (skippable ones included) completed */

	uint64_t out_total; /* bytes handed to the caller (the gf_limits.input check) */

	/* inflate thread */
	bool threaded;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct slot slots[SLOTS];
	unsigned head, count; /* head: next slot to consume; count: full slots */
	size_t cur_off;       /* read offset in the head slot */
	bool th_done, th_stop;
	int th_rc;
	struct sbuf th_err;
	uint64_t th_file_pos;
	size_t split_first, split_chunk; /* tests: cut the output */
	bool split_used;
	char *back;          /* source_unread: bytes served before anything else */
	size_t nback, back_pos;
};

const char *source_kind_name(int kind)
{
	switch (kind) {
	case SOURCE_GZIP: return "gzip";
	case SOURCE_ZSTD: return "zstd";
	default: return "plain";
	}
}

/* Reads raw bytes from the file or memory; *n = 0 at end. */
static int raw_read(struct source *s, void *dst, size_t cap, size_t *n, struct sbuf *err)
{
	if (s->mem) {
		size_t k = GF_MIN(cap, s->mem_len - s->mem_pos);
		memcpy(dst, s->mem + s->mem_pos, k);
		s->mem_pos += k;
		*n = k;
		return GF_OK;
	}
	for (;;) {
		ssize_t r = read(s->fd, dst, cap);
		if (r >= 0) {
			*n = (size_t)r;
			return GF_OK;
		}
		if (errno == EINTR)
			continue;
		sbuf_setf(err, "'%s': read error: %s", s->name, strerror(errno));
		return GF_EINPUT;
	}
}

/* Refills s->in when it is used up. */
static int fill_in(struct source *s, struct sbuf *err)
{
	if (s->in_pos < s->in_len || s->in_eof)
		return GF_OK;
	s->in_base += s->in_len;
	s->in_len = s->in_pos = 0;
	/* the peeked magic bytes go first */
	if (s->peek_pos < s->npeek) {
		size_t k = s->npeek - s->peek_pos;
		memcpy(s->in, s->peek + s->peek_pos, k);
		s->peek_pos = s->npeek;
		s->in_len = k;
		return GF_OK;
	}
	size_t n;
	int rc = raw_read(s, s->in, IN_CAP, &n, err);
	if (rc)
		return rc;
	if (!n)
		s->in_eof = true;
	s->in_len = n;
	return GF_OK;
}

static uint64_t in_off(const struct source *s)
{
	return s->in_base + s->in_pos;
}

static int truncated(struct source *s, struct sbuf *err)
{
	sbuf_setf(err, "'%s': byte %llu: truncated %s data (the compressed stream ends before its end marker)",
		  s->name, (unsigned long long)in_off(s), source_kind_name(s->kind));
	return GF_EINPUT;
}

static int trailing(struct source *s, uint64_t at, const char *what, struct sbuf *err)
{
	sbuf_setf(err, "'%s': byte %llu: trailing data after the last %s (expected another %s or the end of "
		  "the file)", s->name, (unsigned long long)at, what, what);
	return GF_EINPUT;
}

/* After a gzip member, as gzip -d does: another member (magic 1f 8b) is read
 * on; zero bytes up to the end of the file are padding and are ignored;
 * anything else (a non-zero byte, or zeros then more data) is an error naming
 * its offset; a lone 1f at the end is a truncated member. */
static int gzip_next_member(struct source *s, struct sbuf *err)
{
	bool zeros = false;
	for (;;) {
		int rc = fill_in(s, err);
		if (rc)
			return rc;
		if (s->in_pos >= s->in_len) {
			s->finished = true; /* the end, possibly after zero padding */
			return GF_OK;
		}
		if (s->in[s->in_pos])
			break;
		s->in_pos++;
		zeros = true;
	}
	uint64_t at = in_off(s);
	if (zeros)
		return trailing(s, at, "gzip member", err);
	/* need two bytes for the magic; they may straddle a refill */
	uint8_t b0 = s->in[s->in_pos], b1;
	if (b0 != 0x1f)
		return trailing(s, at, "gzip member", err);
	if (s->in_pos + 1 < s->in_len) {
		b1 = s->in[s->in_pos + 1];
	} else {
		s->in_pos++;
		int rc = fill_in(s, err);
		if (rc)
			return rc;
		if (s->in_pos >= s->in_len)
			return truncated(s, err);
		b1 = s->in[s->in_pos];
		/* put the first byte back in front of the buffer */
		memmove(s->in + 1, s->in + s->in_pos, s->in_len - s->in_pos);
		s->in_len = s->in_len - s->in_pos + 1;
		s->in_base += s->in_pos;
		s->in_pos = 0;
		s->in[0] = b0;
		s->in_base--;
	}
	if (b1 != 0x8b)
		return trailing(s, at, "gzip member", err);
	s->member_done = false;
#ifdef GF_HAVE_ISAL
	isal_inflate_reset(s->isal);
	s->isal->crc_flag = ISAL_GZIP;
#else
	inflateReset(&s->z);
#endif
	return GF_OK;
}

#ifdef GF_HAVE_ISAL
static int decode_gzip(struct source *s, uint8_t *dst, size_t cap, size_t *n, struct sbuf *err)
{
	size_t got = 0;
	while (got < cap && !s->finished) {
		if (s->member_done) {
			int rc = gzip_next_member(s, err);
			if (rc)
				return rc;
			continue;
		}
		int rc = fill_in(s, err);
		if (rc)
			return rc;
		struct inflate_state *st = s->isal;
		st->next_in = s->in + s->in_pos;
		st->avail_in = (uint32_t)(s->in_len - s->in_pos);
		st->next_out = dst + got;
		st->avail_out = (uint32_t)GF_MIN(cap - got, (size_t)UINT32_MAX);
		uint32_t before_out = st->avail_out;
		uint32_t before_in = st->avail_in;
		int r = isal_inflate(st);
		s->in_pos += before_in - st->avail_in;
		got += before_out - st->avail_out;
		if (r < 0) {
			sbuf_setf(err, "'%s': byte %llu: corrupt gzip data (ISA-L error %d)", s->name,
				  (unsigned long long)in_off(s), r);
			return GF_EINPUT;
		}
		if (st->block_state == ISAL_BLOCK_FINISH) {
			s->member_done = true;
			continue;
		}
		if (before_out == st->avail_out && before_in == st->avail_in && s->in_eof)
			return truncated(s, err);
	}
	*n = got;
	return GF_OK;
}
#else
static int decode_gzip(struct source *s, uint8_t *dst, size_t cap, size_t *n, struct sbuf *err)
{
	size_t got = 0;
	while (got < cap && !s->finished) {
		if (s->member_done) {
			int rc = gzip_next_member(s, err);
			if (rc)
				return rc;
			continue;
		}
		int rc = fill_in(s, err);
		if (rc)
			return rc;
		z_stream *z = &s->z;
		z->next_in = s->in + s->in_pos;
		z->avail_in = (uInt)(s->in_len - s->in_pos);
		z->next_out = dst + got;
		z->avail_out = (uInt)GF_MIN(cap - got, (size_t)UINT32_MAX);
		uInt before_out = z->avail_out, before_in = z->avail_in;
		int r = inflate(z, Z_NO_FLUSH);
		s->in_pos += before_in - z->avail_in;
		got += before_out - z->avail_out;
		if (r == Z_STREAM_END) {
			s->member_done = true;
			continue;
		}
		if (r != Z_OK && r != Z_BUF_ERROR) {
			sbuf_setf(err, "'%s': byte %llu: corrupt gzip data (%s)", s->name,
				  (unsigned long long)in_off(s), z->msg ? z->msg : "zlib error");
			return GF_EINPUT;
		}
		if (before_out == z->avail_out && before_in == z->avail_in && s->in_eof)
			return truncated(s, err);
	}
	*n = got;
	return GF_OK;
}
#endif

/* zstd as zstd -d reads it: any number of frames, skippable frames (pzstd's
 * leading one) anywhere; bytes after the last frame that do not start a frame
 * are an error naming their offset, a frame cut short is "truncated". */
static int decode_zstd(struct source *s, uint8_t *dst, size_t cap, size_t *n, struct sbuf *err)
{
	size_t got = 0;
	while (got < cap) {
		int rc = fill_in(s, err);
		if (rc)
			return rc;
		ZSTD_inBuffer in = { s->in + s->in_pos, s->in_len - s->in_pos, 0 };
		ZSTD_outBuffer out = { dst + got, cap - got, 0 };
		if (!in.size && s->in_eof && s->zlast == 0)
			break; /* every frame complete and flushed */
		uint64_t at = in_off(s);
		bool boundary = s->zlast == 0; /* the next byte starts a frame */
		size_t r = ZSTD_decompressStream(s->zd, &out, &in);
		s->in_pos += in.pos;
		got += out.pos;
		if (ZSTD_isError(r)) {
			if (boundary && s->zframes && ZSTD_getErrorCode(r) == ZSTD_error_prefix_unknown)
				return trailing(s, at, "zstd frame", err);
			sbuf_setf(err, "'%s': byte %llu: corrupt zstd data (%s)", s->name,
				  (unsigned long long)in_off(s), ZSTD_getErrorName(r));
			return GF_EINPUT;
		}
		if (r == 0 && (s->zlast != 0 || in.pos))
			s->zframes++;
		s->zlast = r;
		if (!in.pos && !out.pos && s->in_eof) {
			if (r != 0)
				return truncated(s, err);
			break;
		}
	}
	*n = got;
	return GF_OK;
}

static int decode(struct source *s, void *dst, size_t cap, size_t *n, struct sbuf *err)
{
	if (s->kind == SOURCE_GZIP)
		return decode_gzip(s, dst, cap, n, err);
	return decode_zstd(s, dst, cap, n, err);
}

static void *inflate_thread(void *arg)
{
	struct source *s = arg;
	for (;;) {
		pthread_mutex_lock(&s->mu);
		while (s->count == SLOTS && !s->th_stop)
			pthread_cond_wait(&s->cv, &s->mu);
		if (s->th_stop) {
			pthread_mutex_unlock(&s->mu);
			return NULL;
		}
		unsigned idx = (s->head + s->count) % SLOTS;
		pthread_mutex_unlock(&s->mu);

		struct slot *sl = &s->slots[idx];
		size_t n = 0;
		int rc = decode(s, sl->buf, SLOT_CAP, &n, &s->th_err);
		pthread_mutex_lock(&s->mu);
		s->th_file_pos = in_off(s);
		if (rc || n == 0) {
			s->th_rc = rc;
			s->th_done = true;
			pthread_cond_broadcast(&s->cv);
			pthread_mutex_unlock(&s->mu);
			return NULL;
		}
		sl->len = n;
		s->count++;
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
	}
}

int source_magic(const unsigned char *b, size_t n)
{
	if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b)
		return SOURCE_GZIP;
	if (n >= 4 && ((b[0] == 0x28 && b[1] == 0xb5 && b[2] == 0x2f && b[3] == 0xfd) ||
		       /* a skippable frame (pzstd starts with one): 5? 2a 4d 18 */
		       ((b[0] & 0xf0) == 0x50 && b[1] == 0x2a && b[2] == 0x4d && b[3] == 0x18)))
		return SOURCE_ZSTD;
	return SOURCE_PLAIN;
}

static int start(struct source *s, unsigned threads, struct sbuf *err)
{
	/* peek at the magic bytes */
	while (s->npeek < 4) {
		size_t n;
		int rc = raw_read(s, s->peek + s->npeek, 4 - s->npeek, &n, err);
		if (rc)
			return rc;
		if (!n)
			break;
		s->npeek += n;
	}
	s->file_pos = s->npeek;
	s->kind = source_magic(s->peek, s->npeek);
	if (s->kind == SOURCE_PLAIN) {
		/* a plain file's size is known up front: refuse it before reading */
		if (s->file_size > gf_limits.input)
			return gf_limit_input(err, s->name);
		return GF_OK;
	}
	s->file_pos = 0;
	s->in = gf_xmalloc(IN_CAP + 1);
	if (s->kind == SOURCE_GZIP) {
#ifdef GF_HAVE_ISAL
		s->isal = gf_xcalloc(1, sizeof *s->isal);
		isal_inflate_init(s->isal);
		s->isal->crc_flag = ISAL_GZIP;
#else
		memset(&s->z, 0, sizeof s->z);
		if (inflateInit2(&s->z, 16 + 15) != Z_OK) {
			sbuf_setf(err, "'%s': cannot start zlib", s->name);
			return GF_EINTERNAL;
		}
		s->z_init = true;
#endif
	} else {
		s->zd = ZSTD_createDCtx();
		if (!s->zd) {
			sbuf_setf(err, "'%s': cannot start zstd", s->name);
			return GF_EINTERNAL;
		}
	}
	if (threads != 1) {
		for (unsigned i = 0; i < SLOTS; i++)
			s->slots[i].buf = gf_xmalloc(SLOT_CAP);
		pthread_mutex_init(&s->mu, NULL);
		pthread_cond_init(&s->cv, NULL);
		sbuf_init(&s->th_err, 0);
		if (pthread_create(&s->th, NULL, inflate_thread, s) == 0) {
			s->threaded = true;
		} else {
			pthread_mutex_destroy(&s->mu);
			pthread_cond_destroy(&s->cv);
		}
	}
	return GF_OK;
}

static struct source *alloc_source(const char *name)
{
	struct source *s = gf_xcalloc(1, sizeof *s);
	s->name = gf_xstrdup(name);
	s->fd = -1;
	return s;
}

int source_open(struct source **out, const char *path, unsigned threads, struct sbuf *err)
{
	*out = NULL;
	bool is_stdin = !strcmp(path, "-");
	struct source *s = alloc_source(is_stdin ? "<stdin>" : path);
	if (is_stdin) {
		s->fd = 0;
	} else {
		s->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (s->fd < 0) {
			sbuf_setf(err, "'%s': cannot open: %s", path, strerror(errno));
			source_close(s);
			return GF_EINPUT;
		}
		s->own_fd = true;
	}
	struct stat st;
	if (fstat(s->fd, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			sbuf_setf(err, "'%s': is a directory", s->name);
			source_close(s);
			return GF_EINPUT;
		}
		if (S_ISREG(st.st_mode)) {
			s->file_size = (uint64_t)st.st_size;
			s->regular = true;
		}
	}
	if (s->file_size > (1u << 24))
		posix_fadvise(s->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	int rc = start(s, threads, err);
	if (rc) {
		source_close(s);
		return rc;
	}
	*out = s;
	return GF_OK;
}

int source_open_mem(struct source **out, const void *buf, size_t len, const char *name,
		    unsigned threads, struct sbuf *err)
{
	*out = NULL;
	struct source *s = alloc_source(name);
	s->mem = buf ? buf : (const uint8_t *)"";
	s->mem_len = len;
	s->file_size = len;
	int rc = start(s, threads, err);
	if (rc) {
		source_close(s);
		return rc;
	}
	*out = s;
	return GF_OK;
}

static int read_some(struct source *s, void *dst, size_t cap, size_t *n, struct sbuf *err)
{
	*n = 0;
	if (!s->split_used && s->split_first) {
		cap = GF_MIN(cap, s->split_first);
		s->split_used = true;
	} else if (s->split_chunk) {
		cap = GF_MIN(cap, s->split_chunk);
	}
	if (!cap)
		return GF_OK;
	if (s->back_pos < s->nback) {
		size_t k = GF_MIN(cap, s->nback - s->back_pos);
		memcpy(dst, s->back + s->back_pos, k);
		s->back_pos += k;
		*n = k;
		return GF_OK;
	}
	if (s->kind == SOURCE_PLAIN) {
		if (s->peek_pos < s->npeek) {
			size_t k = GF_MIN(cap, s->npeek - s->peek_pos);
			memcpy(dst, s->peek + s->peek_pos, k);
			s->peek_pos += k;
			*n = k;
			return GF_OK;
		}
		int rc = raw_read(s, dst, cap, n, err);
		s->file_pos += *n;
		return rc;
	}
	if (!s->threaded) {
		int rc = decode(s, dst, cap, n, err);
		s->file_pos = in_off(s);
		return rc;
	}
	size_t got = 0;
	pthread_mutex_lock(&s->mu);
	while (got < cap) {
		while (s->count == 0 && !s->th_done)
			pthread_cond_wait(&s->cv, &s->mu);
		if (s->count == 0) {
			s->file_pos = s->th_file_pos;
			if (s->th_rc && got == 0) {
				sbuf_setf(err, "%s", s->th_err.buf);
				pthread_mutex_unlock(&s->mu);
				return s->th_rc;
			}
			break;
		}
		struct slot *sl = &s->slots[s->head];
		pthread_mutex_unlock(&s->mu);
		size_t k = GF_MIN(cap - got, sl->len - s->cur_off);
		memcpy((char *)dst + got, sl->buf + s->cur_off, k);
		got += k;
		s->cur_off += k;
		pthread_mutex_lock(&s->mu);
		if (s->cur_off == sl->len) {
			s->cur_off = 0;
			s->head = (s->head + 1) % SLOTS;
			s->count--;
			pthread_cond_broadcast(&s->cv);
		}
		s->file_pos = s->th_file_pos;
		if (got && s->count == 0)
			break; /* hand over what we have rather than wait */
	}
	pthread_mutex_unlock(&s->mu);
	*n = got;
	return GF_OK;
}

/* source_read with the gf_limits.input bound: never hands out a byte past the
 * limit; reading one more than it allows is the error. */
int source_read(struct source *s, void *dst, size_t cap, size_t *n, struct sbuf *err)
{
	*n = 0;
	uint64_t lim = gf_limits.input;
	uint64_t room = s->out_total < lim ? lim - s->out_total : 0;
	if (room < (uint64_t)SIZE_MAX && cap > room + 1)
		cap = (size_t)room + 1;
	int rc = read_some(s, dst, cap, n, err);
	if (rc)
		return rc;
	if (*n > room) {
		*n = 0;
		if (s->kind == SOURCE_PLAIN)
			return gf_limit_input(err, s->name);
		sbuf_setf(err, "'%s': byte %llu (compressed byte %llu): %s data decompressing to more "
			  "than %llu bytes (GPUFLAME_MAX_INPUT)", s->name, (unsigned long long)lim,
			  (unsigned long long)s->file_pos, source_kind_name(s->kind), (unsigned long long)lim);
		return GF_EINTERNAL;
	}
	s->out_total += *n;
	return GF_OK;
}

void source_unread(struct source *s, const void *b, size_t n)
{
	if (!n)
		return;
	size_t left = s->nback - s->back_pos;
	char *nb = gf_xmalloc(n + left);
	memcpy(nb, b, n);
	if (left)
		memcpy(nb + n, s->back + s->back_pos, left);
	free(s->back);
	s->back = nb;
	s->nback = n + left;
	s->back_pos = 0;
	s->out_total = s->out_total >= n ? s->out_total - n : 0; /* counted again when read */
}

void source_set_split(struct source *s, size_t first, size_t chunk)
{
	s->split_first = first;
	s->split_chunk = chunk;
}

int source_kind(const struct source *s)
{
	return s->kind;
}

uint64_t source_file_pos(const struct source *s)
{
	return s->file_pos;
}

uint64_t source_file_size(const struct source *s)
{
	return s->file_size;
}

bool source_is_regular(const struct source *s)
{
	return s->regular;
}

const char *source_name(const struct source *s)
{
	return s->name;
}

bool source_map(struct source *s, size_t pad, size_t min_size, const char **data, size_t *len)
{
	if (s->kind != SOURCE_PLAIN || s->mem || !s->own_fd || s->fd < 0 || s->map || s->file_size < min_size || s->file_size > (uint64_t)SIZE_MAX / 2 ||
	    s->split_first || s->split_chunk)
		return false;
	long pg = sysconf(_SC_PAGESIZE);
	if (pg <= 0)
		return false;
	size_t fsz = (size_t)s->file_size;
	size_t mlen = (fsz + pad + (size_t)pg - 1) / (size_t)pg * (size_t)pg + (size_t)pg;
	/* reserve zero pages for the file and its padding, then map the file
	 * over the start: the bytes after the end of the file read as NUL */
	char *res = mmap(NULL, mlen, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (res == MAP_FAILED)
		return false;
	if (mmap(res, fsz, PROT_READ, MAP_PRIVATE | MAP_FIXED, s->fd, 0) == MAP_FAILED) {
		munmap(res, mlen);
		return false;
	}
	madvise(res, fsz, MADV_SEQUENTIAL);
	mapguard_add(res, fsz);
	s->map = res;
	s->map_len = mlen;
	s->file_pos = s->file_size;
	*data = res;
	*len = fsz;
	return true;
}

void source_map_done(struct source *s, size_t upto, size_t ahead)
{
	if (!s->map)
		return;
	long pg = sysconf(_SC_PAGESIZE);
	if (pg <= 0)
		return;
	size_t end = upto / (size_t)pg * (size_t)pg;
	if (end > s->map_drop) {
		madvise(s->map + s->map_drop, end - s->map_drop, MADV_DONTNEED);
		s->map_drop = end;
	}
#ifdef MADV_POPULATE_READ
	size_t from = GF_MAX(s->map_pop, end);
	size_t to = GF_MIN(upto + ahead, (size_t)s->file_size);
	if (ahead && from < to) {
		size_t n = (to - from + (size_t)pg - 1) / (size_t)pg * (size_t)pg;
		if (madvise(s->map + from, n, MADV_POPULATE_READ) == 0)
			s->map_pop = from + n;
		else
			s->map_pop = SIZE_MAX; /* not supported: rely on page faults */
	}
#else
	(void)ahead;
#endif
}

void source_close(struct source *s)
{
	if (!s)
		return;
	if (s->map) {
		mapguard_remove(s->map);
		munmap(s->map, s->map_len);
	}
	if (s->threaded) {
		pthread_mutex_lock(&s->mu);
		s->th_stop = true;
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
		pthread_join(s->th, NULL);
		pthread_mutex_destroy(&s->mu);
		pthread_cond_destroy(&s->cv);
	}
	for (unsigned i = 0; i < SLOTS; i++)
		free(s->slots[i].buf);
	sbuf_release(&s->th_err);
	if (s->z_init)
		inflateEnd(&s->z);
#ifdef GF_HAVE_ISAL
	free(s->isal);
#endif
	if (s->zd)
		ZSTD_freeDCtx(s->zd);
	free(s->in);
	free(s->back);
	if (s->own_fd && s->fd >= 0)
		close(s->fd);
	free(s->name);
	free(s);
}
