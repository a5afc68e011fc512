/* folded.c — folded-stack reader (see folded.h). */
#include "stacks/folded.h"

#include "base/limits.h"
#include "base/num.h"
#include "base/vec.h"
#include "input/input.h"
#include "stacks/weight.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define META_PREFIX "# gpuflame:"

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_count(const char *s, size_t n)
{
	/* \d+(\.\d*)? */
	size_t i = 0;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	if (i == 0)
		return false;
	if (i < n && s[i] == '.') {
		i++;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
	}
	return i == n;
}

/* Splits off the last blank-separated token of s[0..*n); @return its start or
 * NULL when there is no blank-separated token. Trims blanks before it. */
static const char *last_token(const char *s, size_t *n, size_t *tok_len)
{
	size_t e = *n;
	size_t b = e;
	while (b > 0 && !is_blank(s[b - 1]))
		b--;
	if (b == 0 || b == e)
		return NULL;
	*tok_len = e - b;
	size_t k = b;
	while (k > 0 && is_blank(s[k - 1]))
		k--;
	*n = k;
	return s + b;
}

int folded_parse_line(const char *s, size_t n, int want_cols, struct folded_line *out,
		      const char **why)
{
	if (n && s[n - 1] == '\r')
		n--;
	size_t i = 0;
	while (i < n && is_blank(s[i]))
		i++;
	if (i == n)
		return FOLDED_BLANK;
	/* A comment is '#' followed by a blank or the end of the line (inferno's
	 * rule): frames such as "## forward ##" (record_function names) must
	 * stay stacks. */
	if (s[0] == '#' && (n == 1 || is_blank(s[1]))) {
		if (n >= sizeof META_PREFIX - 1 && !memcmp(s, META_PREFIX, sizeof META_PREFIX - 1))
			return FOLDED_META;
		return FOLDED_COMMENT;
	}
	if (memchr(s, 0, n)) {
		*why = "a NUL byte inside the line";
		return FOLDED_INVALID;
	}
	while (n && is_blank(s[n - 1]))
		n--;
	size_t len = n, tl;
	const char *t = last_token(s, &len, &tl);
	if (!t || !is_count(t, tl)) {
		*why = "'stack count' with a non-negative decimal count at the end";
		return FOLDED_INVALID;
	}
	out->ncols = 1;
	out->cnt[0] = t;
	out->cnt_len[0] = tl;
	if (want_cols != 1) {
		size_t len2 = len, tl2;
		const char *t2 = last_token(s, &len2, &tl2);
		if (t2 && is_count(t2, tl2) && len2 > 0) {
			out->ncols = 2;
			out->cnt[1] = out->cnt[0];
			out->cnt_len[1] = out->cnt_len[0];
			out->cnt[0] = t2;
			out->cnt_len[0] = tl2;
			len = len2;
		}
	}
	if (want_cols == 2 && out->ncols != 2) {
		*why = "'stack before after' (two counts) as in the first line";
		return FOLDED_INVALID;
	}
	if (len == 0) {
		*why = "a stack before the count";
		return FOLDED_INVALID;
	}
	out->stack = s;
	out->stack_len = len;
	return FOLDED_STACK;
}

static unsigned char unhex(char c)
{
	return (unsigned char)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

static void pct_decode(struct sbuf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		if (s[i] == '%' && i + 2 < n && is_hex(s[i + 1]) && is_hex(s[i + 2])) {
			sbuf_addch(b, unhex(s[i + 1]) << 4 | unhex(s[i + 2]));
			i += 3;
		} else {
			sbuf_addch(b, s[i++]);
		}
	}
}

int folded_parse_meta(const char *s, size_t n, struct ftree_meta *m)
{
	if (n >= sizeof META_PREFIX - 1 && !memcmp(s, META_PREFIX, sizeof META_PREFIX - 1)) {
		s += sizeof META_PREFIX - 1;
		n -= sizeof META_PREFIX - 1;
	}
	int count = 0;
	size_t i = 0;
	struct sbuf k = SBUF_INIT, v = SBUF_INIT;
	while (i < n) {
		while (i < n && (is_blank(s[i]) || s[i] == ';' || s[i] == '\r'))
			i++;
		size_t ks = i;
		while (i < n && s[i] != '=' && s[i] != ';')
			i++;
		if (i >= n || s[i] != '=')
			break;
		size_t ke = i;
		while (ke > ks && is_blank(s[ke - 1]))
			ke--;
		sbuf_reset(&k);
		pct_decode(&k, s + ks, ke - ks); /* keys are %-encoded as values are */
		i++;
		size_t vs = i;
		while (i < n && s[i] != ';' && s[i] != '\r')
			i++;
		sbuf_reset(&v);
		pct_decode(&v, s + vs, i - vs);
		if (k.len && k.buf[0]) { /* keys are C strings: a NUL-led key is no key */
			ftree_meta_set(m, k.buf, v.buf);
			count++;
		}
	}
	sbuf_release(&k);
	sbuf_release(&v);
	return count;
}

struct reader {
	struct ftree *t;
	const char *fname;
	const struct folded_opts *opts;
	struct folded_stats *st;
	struct sbuf *err;
	int want_cols;
	VEC(uint32_t) frames;
};

/* Raises the tree's scale to hold d decimals (at most NUM_MAX_SCALE). */
static int want_scale(struct reader *r, unsigned d)
{
	if (d > NUM_MAX_SCALE)
		d = NUM_MAX_SCALE;
	return d > r->t->scale ? ftree_set_scale(r->t, d, r->err) : GF_OK;
}

static int parse_weight(struct reader *r, const char *c, size_t n, int64_t *out)
{
	int rc = num_parse(c, n, r->t->scale, 0, out);
	if (rc == NUM_ROUNDED) {
		r->st->rounded++;
	} else if (rc != NUM_OK) {
		sbuf_setf(r->err, "count '%.*s' does not fit in 64-bit integers", (int)GF_MIN(n, 40), c);
		return GF_EINPUT;
	}
	return GF_OK;
}

int folded_line_error(struct sbuf *err, const char *fname, uint64_t line)
{
	struct sbuf m = SBUF_INIT;
	sbuf_addf(&m, "'%s': line %llu: %s", fname, (unsigned long long)line, err->buf);
	sbuf_reset(err);
	sbuf_add(err, m.buf, m.len);
	sbuf_release(&m);
	return GF_EINPUT;
}

static int line_error(struct reader *r)
{
	return folded_line_error(r->err, r->fname, r->st->lines);
}

int folded_take_line(const char *s, size_t n, int want_cols, bool strict, const char *fname,
		     struct ftree_meta *meta, struct folded_stats *st, struct folded_line *fl,
		     struct sbuf *err)
{
	st->lines++;
	const char *why = NULL;
	switch (folded_parse_line(s, n, want_cols, fl, &why)) {
	case FOLDED_STACK:
		return 1;
	case FOLDED_BLANK:
		st->blank++;
		return 0;
	case FOLDED_META:
		folded_parse_meta(s, n, meta);
		/* fall through */
	case FOLDED_COMMENT:
		st->comments++;
		return 0;
	default:
		break;
	}
	if (!why)
		why = "'stack count'";
	if (!st->invalid) {
		st->first_invalid_line = st->lines;
		snprintf(st->first_invalid_why, sizeof st->first_invalid_why, "%s", why);
	}
	st->invalid++;
	if (strict) {
		sbuf_setf(err, "'%s': line %llu: expected %s", fname, (unsigned long long)st->lines, why);
		return GF_EINPUT;
	}
	return 0;
}

static int do_line(struct reader *r, const char *s, size_t n)
{
	struct folded_stats *st = r->st;
	struct folded_line fl;
	int k = folded_take_line(s, n, r->want_cols, r->opts->strict, r->fname, &r->t->meta, st,
				 &fl, r->err);
	if (k <= 0)
		return k;
	if (!r->want_cols) {
		r->want_cols = fl.ncols;
		if (fl.ncols == 2)
			ftree_make_diff(r->t);
	}
	int64_t w[2] = { 0, 0 };
	unsigned d = 0;
	for (int c = 0; c < fl.ncols; c++)
		d = GF_MAX(d, num_decimals(fl.cnt[c], fl.cnt_len[c]));
	if (want_scale(r, d))
		return line_error(r);
	for (int c = 0; c < fl.ncols; c++)
		if (parse_weight(r, fl.cnt[c], fl.cnt_len[c], &w[c]))
			return line_error(r);
	/* split frames */
	r->frames.n = 0;
	size_t len = fl.stack_len;
	if (len && fl.stack[len - 1] == ';')
		len--; /* a trailing ';' adds no empty frame */
	size_t b = 0;
	for (size_t i = 0; i <= len; i++) {
		if (i == len || fl.stack[i] == ';') {
			vec_push(&r->frames, pool_intern(r->t->names, fl.stack + b, i - b));
			b = i + 1;
		}
	}
	if (r->opts->reverse) {
		for (size_t i = 0, j = r->frames.n - 1; i < j; i++, j--) {
			uint32_t x = r->frames.v[i];
			r->frames.v[i] = r->frames.v[j];
			r->frames.v[j] = x;
		}
	}
	if (ftree_add(r->t, r->frames.v, r->frames.n, w, r->err) == FT_NONE)
		return line_error(r);
	st->stacks++;
	return GF_OK;
}

static void reader_init(struct reader *r, struct ftree *t, const char *fname,
			const struct folded_opts *opts, struct folded_stats *st, struct sbuf *err)
{
	static const struct folded_opts defaults;
	memset(r, 0, sizeof *r);
	r->t = t;
	r->fname = fname ? fname : "<stdin>";
	r->opts = opts ? opts : &defaults;
	r->st = st;
	r->err = err;
	r->want_cols = t->n > 1 ? t->ncols : 0;
}

/* ---- bounded line reader ---- */

#define LINES_CAP0 ((size_t)64 << 10)

void folded_lines_init(struct folded_lines *lr, FILE *fp, const char *name)
{
	memset(lr, 0, sizeof *lr);
	lr->fp = fp;
	lr->name = name ? name : "<stdin>";
	lr->cap0 = LINES_CAP0;
}

void folded_lines_init_in(struct folded_lines *lr, struct input *in)
{
	folded_lines_init(lr, NULL, input_name(in));
	lr->in = in;
}

void folded_lines_rewind(struct folded_lines *lr)
{
	lr->len = lr->pos = 0;
	lr->off = lr->lineno = 0;
	lr->eof = false;
}

void folded_lines_free(struct folded_lines *lr)
{
	free(lr->buf);
	lr->buf = NULL;
	lr->cap = lr->len = lr->pos = 0;
}

static int line_too_long(struct folded_lines *lr, struct sbuf *err)
{
	return gf_limit_line(err, lr->name, lr->lineno + 1, lr->off);
}

int folded_lines_next(struct folded_lines *lr, const char **s, size_t *n, struct sbuf *err)
{
	const uint64_t tok = gf_limits.token;
	for (;;) {
		size_t avail = lr->len - lr->pos;
		const char *p = lr->buf ? lr->buf + lr->pos : NULL; /* no buffer before the first read */
		const char *nl = avail ? memchr(p, '\n', avail) : NULL;
		if (nl || (lr->eof && avail)) {
			size_t k = nl ? (size_t)(nl - p) : avail;
			if (k > tok)
				return line_too_long(lr, err);
			*s = p;
			*n = k;
			k += nl != NULL;
			lr->pos += k;
			lr->off += k;
			lr->lineno++;
			return 1;
		}
		if (avail > tok)
			return line_too_long(lr, err);
		if (lr->eof)
			return 0;
		if (lr->pos) {
			memmove(lr->buf, p, avail);
			lr->len = avail;
			lr->pos = 0;
		}
		if (lr->len == lr->cap) {
			/* room for tok + 1 bytes of one line: enough to see it is too long */
			size_t want = lr->cap ? lr->cap * 2 : (size_t)GF_MIN((uint64_t)GF_MAX(lr->cap0, (size_t)16), tok + 1);
			if ((uint64_t)want > tok + 1)
				want = (size_t)GF_MAX((uint64_t)lr->cap + 1, GF_MIN(tok + 1, (uint64_t)SIZE_MAX / 2));
			lr->buf = gf_xrealloc(lr->buf, want);
			lr->cap = want;
		}
		errno = 0;
		size_t got = 0;
		if (lr->in) {
			int rc = input_read(lr->in, lr->buf + lr->len, lr->cap - lr->len, &got, err);
			if (rc)
				return rc;
			if (!got)
				lr->eof = true;
		} else if (!(got = fread(lr->buf + lr->len, 1, lr->cap - lr->len, lr->fp))) {
			if (ferror(lr->fp)) {
				int e = errno ? errno : EIO;
				sbuf_setf(err, "'%s': read error: %s", lr->name, strerror(e));
				return e == ENOMEM ? GF_EINTERNAL : GF_EINPUT;
			}
			lr->eof = true;
		}
		lr->len += got;
		if (lr->off + (lr->len - lr->pos) > gf_limits.input) {
			return gf_limit_input(err, lr->name);
		}
	}
}

int folded_read_mem(struct ftree *t, const char *buf, size_t len, const char *fname,
		    const struct folded_opts *opts, struct folded_stats *st, struct sbuf *err)
{
	struct reader r;
	reader_init(&r, t, fname, opts, st, err);
	int rc = GF_OK;
	size_t i = 0;
	while (i < len) {
		const char *nl = memchr(buf + i, '\n', len - i);
		size_t e = nl ? (size_t)(nl - buf) : len;
		if (e - i > gf_limits.token) {
			rc = gf_limit_line(err, r.fname, st->lines + 1, i);
			break;
		}
		if ((rc = do_line(&r, buf + i, e - i)))
			break;
		i = e + 1;
	}
	vec_free(&r.frames);
	return rc;
}

static int read_lines(struct reader *rd, struct folded_lines *lr);

int folded_read(struct ftree *t, FILE *fp, const char *fname,
		const struct folded_opts *opts, struct folded_stats *st, struct sbuf *err)
{
	struct reader r;
	reader_init(&r, t, fname, opts, st, err);
	struct folded_lines lr;
	folded_lines_init(&lr, fp, r.fname);
	return read_lines(&r, &lr);
}

/* An importer's tree (input_open_obj, kind "ftree") instead of its text:
 * the head's lines read as lines, then the tree merged (ftree_merge: what
 * the text would give, in time linear in the tree). @return 1 when the
 * input is not such a tree, or the options need the text. */
static int read_tree(struct reader *r, struct input *in)
{
	const struct ftree *src = input_obj(in, "ftree");
	struct ftree *t = r->t;
	if (!src || r->opts->reverse || t->flamechart || src->ncols != 1 || (t->n > 1 && t->ncols != 1))
		return 1;
	size_t n, i = 0;
	const char *h = input_peek(in, &n);
	int rc = GF_OK;
	while (i < n && !rc) {
		const char *nl = memchr(h + i, '\n', n - i);
		size_t e = nl ? (size_t)(nl - h) : n;
		rc = do_line(r, h + i, e - i);
		i = e + 1;
	}
	uint64_t k = 0;
	if (!rc && (rc = ftree_merge(t, src, &k, r->err)))
		folded_line_error(r->err, r->fname, r->st->lines + 1);
	r->st->lines += k;
	r->st->stacks += k;
	input_obj_taken(in);
	vec_free(&r->frames);
	return rc;
}

int folded_read_in(struct ftree *t, struct input *in, const struct folded_opts *opts,
		   struct folded_stats *st, struct sbuf *err)
{
	struct reader r;
	reader_init(&r, t, input_name(in), opts, st, err);
	int rc = read_tree(&r, in);
	if (rc != 1)
		return rc;
	struct folded_lines lr;
	folded_lines_init_in(&lr, in);
	return read_lines(&r, &lr);
}

/* Reads every line of lr into rd's tree, then frees lr. */
static int read_lines(struct reader *rd, struct folded_lines *lr)
{
	struct reader r = *rd;
	struct sbuf *err = r.err;
	const char *line;
	size_t len;
	int rc = GF_OK, k;
	while ((k = folded_lines_next(lr, &line, &len, err)) == 1)
		if ((rc = do_line(&r, line, len)))
			break;
	rc = k < 0 ? k : k == 1 ? rc : GF_OK;
	folded_lines_free(lr);
	vec_free(&r.frames);
	return rc;
}

void folded_units(const struct ftree *t, struct folded_units *u)
{
	const struct ftree_meta *m = &t->meta;
	const char *un = ftree_meta_get(m, "unit"), *w = ftree_meta_get(m, "weight");
	const char *fmt = ftree_meta_get(m, "format"), *ev = ftree_meta_get(m, "event");
	const char *mode = ftree_meta_get(m, "mode");
	memset(u, 0, sizeof *u);
	u->name = w && *w ? w : NULL;
	int wi = w ? weight_find(w) : -1;
	if (!un || (wi >= 0 && weight_defs[wi].count && strcmp(weight_defs[wi].count, un)))
		return; /* a count (calls) in no unit of its own: a count */
	int k = weight_unit_find(un); /* the vocabulary's time units (stacks/weight.h) */
	if (k >= 0) {
		u->kind = FOLDED_U_TIME;
		u->ns_exp = (int)weight_units[k].digits - (int)t->scale;
	}
	if (!strcmp(un, "samples")) {
		u->kind = FOLDED_U_SAMPLES;
		const char *r = ftree_meta_get(m, "rate");
		int64_t v;
		if (r && num_parse(r, strlen(r), 0, 0, &v) == NUM_OK && v > 0)
			u->rate = v;
	} else if (!strcmp(un, "bytes")) {
		u->kind = FOLDED_U_BYTES;
	} else if (!strcmp(un, "events")) {
		u->kind = FOLDED_U_EVENTS;
	}
	if (u->name)
		return;
	bool perf = fmt && !strcmp(fmt, "perf");
	if (u->kind == FOLDED_U_EVENTS && ev && *ev)
		u->name = ev;
	else if (u->kind == FOLDED_U_TIME && perf)
		u->name = "cpu"; /* a clock event's periods: on-CPU time */
	else if (u->kind == FOLDED_U_TIME && mode && (!strcmp(mode, "cpu") || !strcmp(mode, "wall")))
		u->name = mode;
	else if (u->kind == FOLDED_U_TIME && fmt && (!strcmp(fmt, "chrometrace") || !strcmp(fmt, "austin")))
		u->name = "wall";
	else if (u->kind == FOLDED_U_TIME)
		u->name = "time";
	else if (u->kind == FOLDED_U_SAMPLES)
		u->name = "samples";
	else if (u->kind == FOLDED_U_BYTES)
		u->name = "space";
}
