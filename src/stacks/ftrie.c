/* ftrie.c — tail-compressed trie for pruned trees (see ftrie.h).
 *
 * Speed notes (the reference input has 200,000 unsorted lines of ~30 frames;
 * its trie has ~325,000 nodes, so each line walks ~12 shared frames and then
 * leaves its tail as bytes):
 *  - a regular file is mapped (mmap): no kernel copy, and tails point into
 *    the mapping; other streams are read with large freads and their tails
 *    copied into an append-only block arena (no realloc copies);
 *  - a frame is never interned while reading: the child table is keyed by a
 *    *path hash* (hash of the parent's path hash and the frame's
 *    bytes), which depends only on the line's bytes, so the slots of the next
 *    LOOKAHEAD frames are prefetched while the current one is compared; a
 *    match is confirmed exactly (same parent node, same name bytes), so the
 *    result never depends on the hash nor on the input order;
 *  - the ';' search and the frame hash are one pass over 8-byte words;
 *  - memory is one 32-byte node per trie node and a 4-byte slot of the
 *    lookup table (kept at most 3/4 full) — no interned name, no copy of
 *    the bytes of a mapped file: a node names its frame by a pointer into
 *    the line's bytes (the mapping, or the arena for other streams), and
 *    its tail (if any) follows the frame's ';' there. Names are interned
 *    only for the nodes ftrie_build materialises (issue 16: 10 M unique
 *    stacks, 227 MB, took 1428 MB of peak RSS, now 679 MB, the mapped
 *    file's pages included). The table slot is a node index, so a shared
 *    frame costs two cache lines (slot, node) besides its bytes.
 */
#include "stacks/ftrie.h"

#include "base/limits.h"
#include "base/mapguard.h"
#include "base/num.h"
#include "base/vec.h"
#include "input/input.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#define ROOT_PH 0x243f6a8885a308d3ULL /* path hash of the root */
#define LOOKAHEAD 3                   /* frames scanned (and prefetched) ahead */
#define READ_MIN (64u << 10)          /* first read buffer */
#define READ_MAX (1u << 20)           /* read buffer once input is big */
#define ARENA_FIRST (64u << 10)       /* first arena block; blocks double */
#define ARENA_MAX (16u << 20)         /* largest regular arena block */
#define MAP_MIN 1                     /* mapped from this size on (mmap rejects 0) */

/* One trie node (node 0 is the root). Its frame is name[0, nlen), in bytes
 * that live until ftrie_free (the mapped file or the arena). tlen: 0 for a
 * materialised frame; else the node is a tail, its frame followed by the
 * frames in name[nlen + 1, nlen + tlen) (tlen - 1 bytes after the ';',
 * possibly 0 = one empty frame). Children have larger indices than their
 * parent. ph: the low 32 bits of the path hash, the node's place in the
 * lookup table (rehashing needs nothing else). */
struct tnode {
	int64_t w;
	const char *name;
	uint32_t nlen, tlen;
	uint32_t parent, ph;
};

/* One frame of the line being inserted. */
struct frm {
	size_t off, len;
	uint64_t ph; /* path hash of the node this frame would be */
};

struct ftrie {
	struct ftree *t;
	struct tnode *node;
	uint32_t nn, ncap;
	uint32_t *slot; /* node index, 0 = empty */
	size_t nslot, nused;
	size_t arena_bytes;
	int64_t rootw;
	char **blk; /* arena blocks */
	size_t nblk;
	struct fmap { void *p; size_t n; } *maps; /* mapped input files */
	size_t nmaps;
	bool stable; /* the current line's bytes stay valid (mapped file) */
	char *cur;
	size_t left, next_blk;
	unsigned scale;
	int want_cols; /* 0 until the first stack line, then 1 */
	VEC(struct frm) fr;
	/* frame scanner state for the current line */
	const char *ls;
	size_t ln, lpos;
	bool ldone;
	uint64_t lph;
	struct sbuf rev; /* reversed stack for --reverse */
	uint64_t off; /* input bytes before the current buffer (for messages) */
};

/* Frame hashing. A frame's bytes are taken 8 at a time (little-endian
 * words); the last 0..7 bytes are zero-padded and mixed with the length. The
 * scanner (scan_one) finds the ';' and hashes in one pass with the same
 * arithmetic, so fhash(s, n) equals what the scanner computes for a frame
 * s[0, n). */
#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL
#define SEMIS (ONES * (uint64_t)';')
#define HK 0x9fb21c651e98df25ULL

static inline uint64_t ld8(const char *s)
{
	uint64_t w;
	memcpy(&w, s, 8);
	return w;
}

static inline uint64_t hword(uint64_t h, uint64_t w)
{
	h = (h ^ w) * HK;
	return h ^ (h >> 32);
}

static inline uint64_t hlast(uint64_t h, uint64_t part, size_t n)
{
	h = (h ^ part ^ ((uint64_t)n << 56)) * HK;
	return h ^ (h >> 29);
}

/* Zero-padded word of the n < 8 bytes at s (first byte lowest). */
static inline uint64_t ldpart(const char *s, size_t n)
{
	uint64_t w = 0;
	for (size_t i = 0; i < n; i++)
		w |= (uint64_t)(unsigned char)s[i] << (8 * i);
	return w;
}

/* Hash of one frame's bytes (reads only s[0, n)). */
static inline uint64_t fhash(const char *s, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL;
	size_t i = 0;
	for (; n - i >= 8; i += 8)
		h = hword(h, ld8(s + i));
	return hlast(h, ldpart(s + i, n - i), n);
}

/* Mask of the ';' bytes of w (exact up to the first one, which is all
 * that is used). */
static inline uint64_t semis(uint64_t w)
{
	uint64_t x = w ^ SEMIS;
	return (x - ONES) & ~x & HIGHS;
}

/* Path hash of a child named by bytes with hash fh under a node with path
 * hash ph. */
static inline uint64_t phash(uint64_t ph, uint64_t fh)
{
	return gf_hash_u64((ph * 0xc2b2ae3d27d4eb4fULL + fh) ^ gf_hash_seed);
}

/* Length of the first frame of s[0..n). */
static inline size_t frame_len(const char *s, size_t n)
{
	const char *p = memchr(s, ';', n);
	return p ? (size_t)(p - s) : n;
}


static void slot_rehash(struct ftrie *tr)
{
	size_t ns = tr->nslot * 2, mask = ns - 1;
	/* malloc + memset, not calloc: the table is read before it is written,
	 * and a calloc'd mapping would take two page faults per page */
	uint32_t *s = gf_xreallocarray(NULL, ns, sizeof *s);
	memset(s, 0, ns * sizeof *s);
	for (uint32_t i = 1; i < tr->nn; i++) {
		size_t j = tr->node[i].ph & mask;
		while (s[j])
			j = (j + 1) & mask;
		s[j] = i;
	}
	free(tr->slot);
	tr->slot = s;
	tr->nslot = ns;
}

/* Parent's child named s[0, n) with path hash ph, or 0. */
static inline uint32_t lookup(const struct ftrie *tr, uint64_t ph, uint32_t parent,
			      const char *s, size_t n)
{
	size_t mask = tr->nslot - 1;
	uint32_t h = (uint32_t)ph;
	for (size_t j = h & mask; tr->slot[j]; j = (j + 1) & mask) {
		uint32_t i = tr->slot[j];
		const struct tnode *e = &tr->node[i];
		if (e->ph == h && e->parent == parent && e->nlen == n && !memcmp(e->name, s, n))
			return i;
	}
	return 0;
}

/* New node under parent named name[0, nlen) (bytes that stay valid), tail
 * length tlen (0 or rest bytes + 1, the rest following name's ';').
 * @return the node. */
static uint32_t add_node(struct ftrie *tr, uint32_t parent, const char *name, size_t nlen,
			 uint64_t ph, int64_t w, uint32_t tlen)
{
	if (tr->nn == tr->ncap) {
		tr->ncap *= 2;
		tr->node = gf_xreallocarray(tr->node, tr->ncap, sizeof *tr->node);
	}
	uint32_t i = tr->nn++;
	tr->node[i] = (struct tnode){w, name, (uint32_t)nlen, tlen, parent, (uint32_t)ph};
	if ((tr->nused + 1) * 4 > tr->nslot * 3) /* load <= 3/4 */
		slot_rehash(tr);
	size_t mask = tr->nslot - 1, j = (uint32_t)ph & mask;
	while (tr->slot[j])
		j = (j + 1) & mask;
	tr->slot[j] = i;
	tr->nused++;
	return i;
}

/* Copies n bytes into the arena. */
static const char *arena_put(struct ftrie *tr, const char *s, size_t n)
{
	if (!n)
		return ""; /* one empty frame: no bytes, but never NULL */
	if (n > tr->left) {
		bool own = n > ARENA_MAX / 4; /* a block of its own; the current one stays */
		size_t bs = own ? n : tr->next_blk ? tr->next_blk : ARENA_FIRST;
		while (bs < n)
			bs *= 2;
		char *b = gf_xmalloc(bs);
		tr->arena_bytes += bs;
		tr->blk = gf_xreallocarray(tr->blk, tr->nblk + 1, sizeof *tr->blk);
		tr->blk[tr->nblk++] = b;
		if (own) {
			memcpy(b, s, n);
			return b;
		}
		tr->next_blk = bs < ARENA_MAX ? bs * 2 : ARENA_MAX;
		tr->cur = b;
		tr->left = bs;
	}
	char *d = tr->cur;
	memcpy(d, s, n);
	tr->cur += n;
	tr->left -= n;
	return d;
}

struct ftrie *ftrie_new(struct ftree *t)
{
	struct ftrie *tr = gf_xcalloc(1, sizeof *tr);
	tr->t = t;
	tr->ncap = 1024;
	tr->node = gf_xmalloc(tr->ncap * sizeof *tr->node);
	tr->nn = 1;
	tr->node[0] = (struct tnode){0, "", 0, 0, FT_NONE, 0};
	tr->nslot = 1024;
	tr->slot = gf_xcalloc(tr->nslot, sizeof *tr->slot);
	sbuf_init(&tr->rev, 256);
	return tr;
}

void ftrie_free(struct ftrie *tr)
{
	if (!tr)
		return;
	free(tr->node);
	free(tr->slot);
	for (size_t i = 0; i < tr->nblk; i++)
		free(tr->blk[i]);
	free(tr->blk);
	for (size_t i = 0; i < tr->nmaps; i++) {
		mapguard_remove(tr->maps[i].p);
		munmap(tr->maps[i].p, tr->maps[i].n);
	}
	free(tr->maps);
	vec_free(&tr->fr);
	sbuf_release(&tr->rev);
	free(tr);
}

size_t ftrie_bytes(const struct ftrie *tr)
{
	return (size_t)tr->ncap * sizeof *tr->node + tr->nslot * sizeof *tr->slot + tr->arena_bytes;
}

int64_t ftrie_total(const struct ftrie *tr)
{
	return tr->rootw;
}

unsigned ftrie_scale(const struct ftrie *tr)
{
	return tr->scale;
}

/* Scans the next frame of the current line into tr->fr (with its path hash,
 * which chains from the previous frame's) and prefetches its slot. Finds the
 * ';' and hashes in one pass over 8-byte words (fhash's arithmetic). */
static inline void scan_one(struct ftrie *tr)
{
	const char *s = tr->ls + tr->lpos;
	size_t rem = tr->ln - tr->lpos, i = 0, len;
	uint64_t h = 0x9e3779b97f4a7c15ULL, part;
	bool semi = true;
	for (;;) {
		if (rem - i >= 8) {
			uint64_t w = ld8(s + i);
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
			w = __builtin_bswap64(w);
#endif
			uint64_t m = semis(w);
			if (!m) {
				h = hword(h, w);
				i += 8;
				continue;
			}
			unsigned k = (unsigned)__builtin_ctzll(m) >> 3; /* 0..7 */
			part = w & ((1ULL << (8 * k)) - 1);
			len = i + k;
		} else {
			uint64_t w = ldpart(s + i, rem - i);
			uint64_t m = semis(w); /* the zero padding is no ';' */
			if (m) {
				unsigned k = (unsigned)__builtin_ctzll(m) >> 3;
				part = w & ((1ULL << (8 * k)) - 1);
				len = i + k;
			} else {
				part = w;
				len = rem;
				semi = false;
			}
		}
		break;
	}
	uint64_t ph = phash(tr->lph, hlast(h, part, len));
	struct frm *f = vec_add(&tr->fr);
	f->off = tr->lpos;
	f->len = len;
	f->ph = ph;
	tr->lph = ph;
	__builtin_prefetch(&tr->slot[(uint32_t)ph & (tr->nslot - 1)]);
	if (semi)
		tr->lpos += len + 1;
	else
		tr->ldone = true;
}

/* Makes frame d of the line available (false when the line has fewer),
 * scanning LOOKAHEAD frames beyond it when possible. */
static inline bool frame_at(struct ftrie *tr, size_t d)
{
	while (!tr->ldone && tr->fr.n <= d + LOOKAHEAD)
		scan_one(tr);
	return d < tr->fr.n;
}

/* Adds frames d.. of the line (s, n) as one tail under parent. */
static void add_tail(struct ftrie *tr, uint32_t parent, const char *s, size_t n, size_t d,
		     int64_t w)
{
	const struct frm f = tr->fr.v[d];
	size_t e = f.off + f.len;
	const char *name = tr->stable ? s + f.off : arena_put(tr, s + f.off, n - f.off);
	add_node(tr, parent, name, f.len, f.ph, w, e < n ? (uint32_t)(n - e) : 0);
}

/* Inserts the stack s[0..n) (trailing ';' already removed) with weight w. */
static void insert(struct ftrie *tr, const char *s, size_t n, int64_t w)
{
	tr->rootw += w;
	tr->fr.n = 0;
	tr->ls = s;
	tr->ln = n;
	tr->lpos = 0;
	tr->ldone = false;
	tr->lph = ROOT_PH;
	uint32_t p = 0;
	for (size_t d = 0;; d++) {
		frame_at(tr, d);
		const struct frm f = tr->fr.v[d];
		uint32_t c = lookup(tr, f.ph, p, s + f.off, f.len);
		if (!c) {
			add_tail(tr, p, s, n, d, w);
			return;
		}
		struct tnode *e = &tr->node[c]; /* invalid after add_node */
		size_t end = f.off + f.len; /* the line's rest starts at end + 1 */
		bool lrest = end < n;
		if (!e->tlen) {
			e->w += w;
			if (!lrest)
				return;
			p = c;
			continue;
		}
		/* a tail starting with this frame */
		const char *tp = e->name + e->nlen + 1;
		size_t tl = e->tlen - 1;
		if (lrest && n - end - 1 == tl && !memcmp(s + end + 1, tp, tl)) {
			e->w += w; /* the same stack again */
			return;
		}
		int64_t oldw = e->w;
		uint64_t cph = f.ph; /* the path hash of c (it depends on the bytes only) */
		bool trest = true;
		e->tlen = 0;
		e->w += w;
		uint32_t cur = c;
		while (lrest && trest) {
			frame_at(tr, d + 1);
			const struct frm g = tr->fr.v[d + 1];
			size_t b = frame_len(tp, tl);
			if (g.len != b || memcmp(s + g.off, tp, b))
				break;
			d++;
			cur = add_node(tr, cur, tp, b, g.ph, oldw + w, 0);
			cph = g.ph;
			lrest = g.off + g.len < n;
			if (b < tl) { tp += b + 1; tl -= b + 1; } else trest = false;
		}
		if (trest) {
			/* the tail's rest keeps its bytes where they are */
			size_t b = frame_len(tp, tl);
			uint64_t ph = phash(cph, fhash(tp, b));
			add_node(tr, cur, tp, b, ph, oldw, b < tl ? (uint32_t)(tl - b) : 0);
		}
		if (lrest) {
			frame_at(tr, d + 1);
			add_tail(tr, cur, s, n, d + 1, w);
		}
		return;
	}
}

static int rescale(struct ftrie *tr, unsigned d, struct sbuf *err)
{
	if (d > NUM_MAX_SCALE)
		d = NUM_MAX_SCALE;
	if (d <= tr->scale)
		return GF_OK;
	int64_t p = num_pow10(d - tr->scale), r;
	if (__builtin_mul_overflow(tr->rootw, p, &r)) {
		sbuf_setf(err, "weights with %u decimals overflow 64-bit integers", d);
		return GF_EINPUT;
	}
	tr->rootw = r;
	for (uint32_t i = 1; i < tr->nn; i++)
		tr->node[i].w *= p;
	tr->scale = d;
	return GF_OK;
}

static int do_line(struct ftrie *tr, const char *s, size_t n, const char *fname,
		   const struct folded_opts *opts, struct folded_stats *st, struct sbuf *err)
{
	struct folded_line fl;
	int k = folded_take_line(s, n, tr->want_cols, opts->strict, fname, &tr->t->meta, st, &fl, err);
	if (k <= 0)
		return k;
	if (fl.ncols != 1)
		return FTRIE_UNSUPPORTED;
	tr->want_cols = 1;
	if (rescale(tr, num_decimals(fl.cnt[0], fl.cnt_len[0]), err))
		return folded_line_error(err, fname, st->lines);
	int64_t w;
	int rc = num_parse(fl.cnt[0], fl.cnt_len[0], tr->scale, 0, &w);
	if (rc == NUM_ROUNDED) {
		st->rounded++;
	} else if (rc != NUM_OK) {
		sbuf_setf(err, "count '%.*s' does not fit in 64-bit integers",
			  (int)GF_MIN(fl.cnt_len[0], 40), fl.cnt[0]);
		return folded_line_error(err, fname, st->lines);
	}
	int64_t r;
	if (__builtin_add_overflow(tr->rootw, w, &r)) {
		sbuf_setf(err, "total weight overflows 64-bit integers");
		return folded_line_error(err, fname, st->lines);
	}
	const char *stk = fl.stack;
	size_t len = fl.stack_len;
	if (len && stk[len - 1] == ';')
		len--;
	if (opts->reverse) {
		/* frames in reverse order */
		sbuf_reset(&tr->rev);
		size_t e = len;
		for (size_t b = len + 1; b-- > 0;) {
			if (b == 0 || stk[b - 1] == ';') {
				sbuf_add(&tr->rev, stk + b, e - b);
				if (b)
					sbuf_addch(&tr->rev, ';');
				e = b ? b - 1 : 0;
			}
		}
		stk = tr->rev.buf;
		len = tr->rev.len;
		tr->stable = false;
	}
	insert(tr, stk, len, w);
	st->stacks++;
	return GF_OK;
}

/* Feeds the lines of buf[0, len) to do_line; *used = bytes consumed (up to
 * after the last '\n', or all of it when last). */
static int do_lines(struct ftrie *tr, const char *buf, size_t len, bool last, bool stable,
		    size_t *used, const char *fname, const struct folded_opts *opts,
		    struct folded_stats *st, struct sbuf *err)
{
	size_t i = 0;
	int rc = GF_OK;
	for (;;) {
		const char *nl = memchr(buf + i, '\n', len - i);
		if (!nl)
			break;
		size_t e = (size_t)(nl - buf);
		if (e - i > gf_limits.token)
			return gf_limit_line(err, fname, st->lines + 1, tr->off + i);
		tr->stable = stable;
		if ((rc = do_line(tr, buf + i, e - i, fname, opts, st, err)))
			break;
		i = e + 1;
	}
	if (!rc && last && i < len) { /* last line without '\n' */
		if (len - i > gf_limits.token)
			return gf_limit_line(err, fname, st->lines + 1, tr->off + i);
		tr->stable = stable;
		rc = do_line(tr, buf + i, len - i, fname, opts, st, err);
		i = len;
	}
	tr->stable = false;
	*used = i;
	return rc;
}

/* Maps a regular file from its start (nothing read from fp yet). Its bytes
 * then stay valid until ftrie_free, so tails point into it and are not
 * copied, and the kernel does not copy the file either. @return the
 * mapping or NULL (then fp is read normally). */
static const char *map_file(struct ftrie *tr, FILE *fp, size_t *len)
{
#ifdef MAP_POPULATE
	int fd = fileno(fp);
	struct stat sb;
	if (fd < 0 || fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_size < MAP_MIN ||
	    (uint64_t)sb.st_size > SIZE_MAX / 2 || ftello(fp) != 0)
		return NULL;
	void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (p == MAP_FAILED)
		return NULL;
	mapguard_add(p, (size_t)sb.st_size);
	tr->maps = gf_xreallocarray(tr->maps, tr->nmaps + 1, sizeof *tr->maps);
	tr->maps[tr->nmaps++] = (struct fmap){p, (size_t)sb.st_size};
	*len = (size_t)sb.st_size;
	return p;
#else
	(void)tr;
	(void)fp;
	(void)len;
	return NULL;
#endif
}

/* Where ftrie_read's bytes come from: a stdio stream or an input. */
struct rsrc {
	FILE *fp;
	struct input *in;
	int rc;           /* the input's error (read error, corrupt data) */
	struct sbuf err;
};

/* Fills buf[0, cap) as far as the stream goes; @return the bytes read,
 * *eof at the end or on an error (kept in rs, reported after the bytes
 * read before it). */
static size_t rs_read(struct rsrc *rs, char *buf, size_t cap, bool *eof)
{
	if (!rs->in) {
		size_t got = fread(buf, 1, cap, rs->fp);
		*eof = got == 0 || feof(rs->fp) || ferror(rs->fp);
		return got;
	}
	size_t got = 0;
	rs->rc = input_read(rs->in, buf, cap, &got, &rs->err);
	*eof = got == 0 || rs->rc;
	return rs->rc ? 0 : got;
}

static int read_src(struct ftrie *tr, struct rsrc *rs, const char *fname, const struct folded_opts *opts,
		    struct folded_stats *st, struct sbuf *err)
{
	size_t used;
	/* Lines are cut from a buffer filled by large reads; a line longer
	 * than the buffer grows it. buf[0, have) holds unprocessed bytes. */
	size_t cap = READ_MIN, have = 0;
	char *buf = gf_xmalloc(cap);
	int rc = GF_OK;
	bool eof = false;
	errno = 0;
	while (!rc) {
		if (have == cap) {
			/* every complete line was taken: buf holds one unfinished line */
			if (have > gf_limits.token) {
				rc = gf_limit_line(err, fname, st->lines + 1, tr->off);
				break;
			}
			cap *= 2;
			buf = gf_xrealloc(buf, cap);
		} else if (cap < READ_MAX && have > cap / 2) {
			cap = READ_MAX;
			buf = gf_xrealloc(buf, cap);
		}
		size_t got = rs_read(rs, buf + have, cap - have, &eof);
		have += got;
		if (tr->off + have > gf_limits.input) {
			rc = gf_limit_input(err, fname);
			break;
		}
		rc = do_lines(tr, buf, have, eof, false, &used, fname, opts, st, err);
		if (rc || eof)
			break;
		memmove(buf, buf + used, have - used);
		have -= used;
		tr->off += used;
	}
	if (!rc && rs->fp && ferror(rs->fp)) {
		sbuf_setf(err, "cannot read '%s': %s", fname, strerror(errno));
		rc = GF_EINPUT;
	}
	if (!rc && rs->rc) {
		sbuf_setf(err, "%s", rs->err.buf);
		rc = rs->rc;
	}
	free(buf);
	sbuf_release(&rs->err);
	return rc;
}

int ftrie_read(struct ftrie *tr, FILE *fp, const char *fname, const struct folded_opts *opts,
	       struct folded_stats *st, struct sbuf *err)
{
	static const struct folded_opts defaults;
	if (!opts)
		opts = &defaults;
	if (!fname)
		fname = "<stdin>";
	size_t mlen, used;
	tr->off = 0;
	const char *m = map_file(tr, fp, &mlen);
	if (m) {
		if (mlen > gf_limits.input)
			return gf_limit_input(err, fname);
		return do_lines(tr, m, mlen, true, true, &used, fname, opts, st, err);
	}
	struct rsrc rs = { fp, NULL, 0, SBUF_INIT };
	return read_src(tr, &rs, fname, opts, st, err);
}

int ftrie_read_in(struct ftrie *tr, struct input *in, const struct folded_opts *opts, struct folded_stats *st,
		  struct sbuf *err)
{
	static const struct folded_opts defaults;
	if (!opts)
		opts = &defaults;
	const char *fname = input_name(in);
	size_t mlen, used;
	tr->off = 0;
	const char *m;
	if (input_obj(in, "ftree")) /* an importer's tree: the folded reader merges it whole */
		return FTRIE_UNSUPPORTED;
	if (input_map(in, &m, &mlen))
		return do_lines(tr, m, mlen, true, true, &used, fname, opts, st, err);
	struct rsrc rs = { NULL, in, 0, SBUF_INIT };
	return read_src(tr, &rs, fname, opts, st, err);
}

void ftrie_build(struct ftrie *tr, int64_t keep_min)
{
	struct ftree *t = tr->t;
	struct pool *names = t->names;
	t->scale = tr->scale;
	t->total[0] = tr->rootw;
	/* The lookup table is done with; in its place, the tree node of each
	 * trie node whose children are materialised (FT_NONE for the others).
	 * Parents come before their children, so one pass in index order does
	 * it (the tree is sorted afterwards, so creation order does not show). */
	free(tr->slot);
	tr->slot = NULL;
	tr->nslot = 0;
	uint32_t *tree_of = gf_xmalloc((size_t)tr->nn * sizeof *tree_of);
	tree_of[0] = 0;
	for (uint32_t c = 1; c < tr->nn; c++) {
		const struct tnode *f = &tr->node[c];
		uint32_t tn = tree_of[f->parent];
		tree_of[c] = FT_NONE;
		if (tn == FT_NONE)
			continue;
		uint32_t k = ftree_child(t, tn, pool_intern(names, f->name, f->nlen));
		t->total[k] += f->w;
		if (f->w < keep_min)
			continue;
		if (!f->tlen) {
			tree_of[c] = k;
			continue;
		}
		const char *s = f->name + f->nlen + 1;
		size_t len = f->tlen - 1, i = 0;
		for (;;) {
			size_t fl = frame_len(s + i, len - i);
			k = ftree_child(t, k, pool_intern(names, s + i, fl));
			t->total[k] += f->w;
			if (i + fl >= len)
				break;
			i += fl + 1;
		}
	}
	free(tree_of);
}
