/* tree_pruned.c — tail-compressed trie for pruned trees (see tree_pruned.h). */
#include "tree_pruned.h"

#include "../base/num.h"
#include "../base/vec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A child entry: a materialised frame (tlen == 0), or a tail: frame `name`
 * followed by the frames in arena[toff, toff + tlen - 1) (tlen - 1 bytes,
 * possibly 0 bytes = one empty frame; tlen == 0 means no more frames). */
struct fnode {
	uint32_t name, child, sib, tlen;
	uint64_t toff;
	int64_t w;
	bool tail;
};

struct slot { uint32_t parent, name, node; };

struct ftrie {
	struct ftree *t;
	VEC(struct fnode) n;
	struct slot *slot;
	size_t nslot;
	char *arena;
	size_t alen, acap;
	unsigned scale;
	int want_cols; /* 0 until the first stack line, then 1 */
	struct sbuf rev; /* reversed stack for --reverse */
};

static size_t hslot(uint32_t parent, uint32_t name, size_t ns)
{
	return (size_t)gf_hash_u64(((uint64_t)parent << 32) | name) & (ns - 1);
}

static void slot_rehash(struct ftrie *tr)
{
	size_t ns = tr->nslot * 2;
	struct slot *s = gf_xcalloc(ns, sizeof *s);
	for (size_t i = 0; i < tr->nslot; i++) {
		struct slot e = tr->slot[i];
		if (!e.node)
			continue;
		size_t j = hslot(e.parent, e.name, ns);
		while (s[j].node)
			j = (j + 1) & (ns - 1);
		s[j] = e;
	}
	free(tr->slot);
	tr->slot = s;
	tr->nslot = ns;
}

static uint32_t lookup(const struct ftrie *tr, uint32_t parent, uint32_t name)
{
	size_t j = hslot(parent, name, tr->nslot);
	for (; tr->slot[j].node; j = (j + 1) & (tr->nslot - 1))
		if (tr->slot[j].parent == parent && tr->slot[j].name == name)
			return tr->slot[j].node;
	return 0; /* node 0 is the root, never a child */
}

/* New child of parent; tails get their bytes set by the caller. */
static uint32_t add_child(struct ftrie *tr, uint32_t parent, uint32_t name, int64_t w)
{
	struct fnode *f = vec_add(&tr->n);
	uint32_t i = (uint32_t)(tr->n.n - 1);
	f->name = name;
	f->child = FT_NONE;
	f->w = w;
	f->sib = tr->n.v[parent].child;
	tr->n.v[parent].child = i;
	if ((tr->n.n + 1) * 2 > tr->nslot)
		slot_rehash(tr);
	size_t j = hslot(parent, name, tr->nslot);
	while (tr->slot[j].node)
		j = (j + 1) & (tr->nslot - 1);
	tr->slot[j] = (struct slot){parent, name, i};
	return i;
}

static uint64_t arena_put(struct ftrie *tr, const char *s, size_t n)
{
	if (tr->alen + n > tr->acap) {
		size_t c = tr->acap ? tr->acap : (1u << 20);
		while (c < tr->alen + n)
			c *= 2;
		tr->arena = gf_xrealloc(tr->arena, c);
		tr->acap = c;
	}
	memcpy(tr->arena + tr->alen, s, n);
	uint64_t off = tr->alen;
	tr->alen += n;
	return off;
}

struct ftrie *ftrie_new(struct ftree *t)
{
	struct ftrie *tr = gf_xcalloc(1, sizeof *tr);
	tr->t = t;
	struct fnode *root = vec_add(&tr->n);
	root->name = FT_NONE;
	root->child = root->sib = FT_NONE;
	tr->nslot = 1024;
	tr->slot = gf_xcalloc(tr->nslot, sizeof *tr->slot);
	sbuf_init(&tr->rev, 256);
	return tr;
}

void ftrie_free(struct ftrie *tr)
{
	if (!tr)
		return;
	vec_free(&tr->n);
	free(tr->slot);
	free(tr->arena);
	sbuf_release(&tr->rev);
	free(tr);
}

int64_t ftrie_total(const struct ftrie *tr)
{
	return tr->n.v[0].w;
}

unsigned ftrie_scale(const struct ftrie *tr)
{
	return tr->scale;
}

/* Length of the first frame of s[0..n). */
static size_t frame_len(const char *s, size_t n)
{
	const char *p = memchr(s, ';', n);
	return p ? (size_t)(p - s) : n;
}

/* Adds the tail "frame[;rest]" (frame = s[0..fl), rest exists when has_rest)
 * under parent. */
static void add_tail(struct ftrie *tr, uint32_t parent, const char *s, size_t n, int64_t w)
{
	size_t fl = frame_len(s, n);
	uint32_t id = pool_intern(tr->t->names, s, fl);
	uint32_t c = add_child(tr, parent, id, w);
	if (fl < n) {
		uint64_t off = arena_put(tr, s + fl + 1, n - fl - 1);
		tr->n.v[c].toff = off;
		tr->n.v[c].tlen = (uint32_t)(n - fl);
		tr->n.v[c].tail = true;
	}
}

/* Inserts the stack s[0..n) (trailing ';' already removed) with weight w. */
static void insert(struct ftrie *tr, const char *s, size_t n, int64_t w)
{
	struct ftree *t = tr->t;
	uint32_t p = 0;
	tr->n.v[0].w += w;
	size_t i = 0;
	for (;;) {
		size_t fl = frame_len(s + i, n - i);
		uint32_t id = pool_intern(t->names, s + i, fl);
		uint32_t c = lookup(tr, p, id);
		if (!c) {
			add_tail(tr, p, s + i, n - i, w);
			return;
		}
		bool lrest = i + fl < n;
		const char *lp = lrest ? s + i + fl + 1 : NULL;
		size_t ll = lrest ? n - i - fl - 1 : 0;
		if (!tr->n.v[c].tail) {
			tr->n.v[c].w += w;
			if (!lrest)
				return;
			p = c;
			i += fl + 1;
			continue;
		}
		/* a tail starting with this frame */
		struct fnode *f = &tr->n.v[c];
		size_t tl = f->tlen - 1;
		if (lrest && ll == tl && !memcmp(lp, tr->arena + f->toff, ll)) {
			f->w += w; /* the same stack again */
			return;
		}
		int64_t oldw = f->w;
		uint64_t toff = f->toff;
		bool trest = true;
		f->tail = false;
		f->tlen = 0;
		f->w += w;
		uint32_t cur = c;
		while (lrest && trest) {
			const char *tp = tr->arena + toff;
			size_t a = frame_len(lp, ll), b = frame_len(tp, tl);
			if (a != b || memcmp(lp, tp, a))
				break;
			uint32_t nid = pool_intern(t->names, lp, a);
			cur = add_child(tr, cur, nid, oldw + w);
			if (a < ll) { lp += a + 1; ll -= a + 1; } else lrest = false;
			if (b < tl) { toff += b + 1; tl -= b + 1; } else trest = false;
		}
		if (trest) {
			/* the tail's rest keeps its bytes in the arena */
			const char *tp = tr->arena + toff;
			size_t b = frame_len(tp, tl);
			uint32_t nid = pool_intern(t->names, tp, b);
			uint32_t k = add_child(tr, cur, nid, oldw);
			if (b < tl) {
				tr->n.v[k].toff = toff + b + 1;
				tr->n.v[k].tlen = (uint32_t)(tl - b);
				tr->n.v[k].tail = true;
			}
		}
		if (lrest)
			add_tail(tr, cur, lp, ll, w);
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
	if (__builtin_mul_overflow(tr->n.v[0].w, p, &r)) {
		sbuf_setf(err, "weights with %u decimals overflow 64-bit integers", d);
		return GF_EINPUT;
	}
	for (size_t i = 0; i < tr->n.n; i++)
		tr->n.v[i].w *= p;
	tr->scale = d;
	return GF_OK;
}

static int line_error(struct sbuf *err, const char *fname, uint64_t line)
{
	struct sbuf m = SBUF_INIT;
	sbuf_addf(&m, "'%s': line %llu: %s", fname, (unsigned long long)line, err->buf);
	sbuf_reset(err);
	sbuf_add(err, m.buf, m.len);
	sbuf_release(&m);
	return GF_EINPUT;
}

static int do_line(struct ftrie *tr, const char *s, size_t n, const char *fname,
		   const struct folded_opts *opts, struct folded_stats *st, struct sbuf *err)
{
	st->lines++;
	struct folded_line fl;
	const char *why = NULL;
	int k = folded_parse_line(s, n, tr->want_cols, &fl, &why);
	switch (k) {
	case FOLDED_BLANK:
		st->blank++;
		return GF_OK;
	case FOLDED_META:
		folded_parse_meta(s, n, &tr->t->meta);
		/* fall through */
	case FOLDED_COMMENT:
		st->comments++;
		return GF_OK;
	case FOLDED_INVALID:
		if (!why)
			why = "'stack count'";
		if (!st->invalid) {
			st->first_invalid_line = st->lines;
			snprintf(st->first_invalid_why, sizeof st->first_invalid_why, "%s", why);
		}
		st->invalid++;
		if (opts->strict) {
			sbuf_setf(err, "'%s': line %llu: expected %s", fname,
				  (unsigned long long)st->lines, why);
			return GF_EINPUT;
		}
		return GF_OK;
	default:
		break;
	}
	if (fl.ncols != 1)
		return FTRIE_UNSUPPORTED;
	tr->want_cols = 1;
	if (rescale(tr, num_decimals(fl.cnt[0], fl.cnt_len[0]), err))
		return line_error(err, fname, st->lines);
	int64_t w;
	int rc = num_parse(fl.cnt[0], fl.cnt_len[0], tr->scale, 0, &w);
	if (rc == NUM_ROUNDED) {
		st->rounded++;
	} else if (rc != NUM_OK) {
		sbuf_setf(err, "count '%.*s' does not fit in 64-bit integers",
			  (int)GF_MIN(fl.cnt_len[0], 40), fl.cnt[0]);
		return line_error(err, fname, st->lines);
	}
	int64_t r;
	if (__builtin_add_overflow(tr->n.v[0].w, w, &r)) {
		sbuf_setf(err, "total weight overflows 64-bit integers");
		return line_error(err, fname, st->lines);
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
	}
	insert(tr, stk, len, w);
	st->stacks++;
	return GF_OK;
}

int ftrie_read(struct ftrie *tr, FILE *fp, const char *fname, const struct folded_opts *opts,
	       struct folded_stats *st, struct sbuf *err)
{
	static const struct folded_opts defaults;
	if (!opts)
		opts = &defaults;
	if (!fname)
		fname = "<stdin>";
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int rc = GF_OK;
	errno = 0;
	while ((n = getline(&line, &cap, fp)) >= 0) {
		size_t len = (size_t)n;
		if (len && line[len - 1] == '\n')
			len--;
		if ((rc = do_line(tr, line, len, fname, opts, st, err)))
			break;
	}
	if (!rc && ferror(fp)) {
		sbuf_setf(err, "cannot read '%s': %s", fname, strerror(errno));
		rc = GF_EINPUT;
	}
	free(line);
	return rc;
}

void ftrie_build(struct ftrie *tr, int64_t keep_min)
{
	struct ftree *t = tr->t;
	t->scale = tr->scale;
	t->total[0] = tr->n.v[0].w;
	/* explicit stack of (trie node, tree node) */
	VEC(uint32_t) st = VEC_INIT;
	vec_push(&st, 0u);
	vec_push(&st, 0u);
	while (st.n) {
		uint32_t tn = st.v[st.n - 1], fn = st.v[st.n - 2];
		st.n -= 2;
		for (uint32_t c = tr->n.v[fn].child; c != FT_NONE; c = tr->n.v[c].sib) {
			const struct fnode *f = &tr->n.v[c];
			uint32_t k = ftree_child(t, tn, f->name);
			t->total[k] += f->w;
			if (f->w < keep_min)
				continue;
			if (f->tail) {
				const char *s = tr->arena + f->toff;
				size_t len = f->tlen - 1, i = 0;
				for (;;) {
					size_t fl = frame_len(s + i, len - i);
					k = ftree_child(t, k, pool_intern(t->names, s + i, fl));
					t->total[k] += f->w;
					if (i + fl >= len)
						break;
					i += fl + 1;
				}
			} else if (f->child != FT_NONE) {
				vec_push(&st, c);
				vec_push(&st, k);
			}
		}
	}
	vec_free(&st);
}
