#include "stacks/export/export_pprof.h"

#include "base/names.h"
#include "base/ozip.h"
#include "base/pool.h"
#include "base/vec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define FLUSH_AT (64u << 10)

/* Profile's fields */
enum { P_SAMPLE_TYPE = 1, P_SAMPLE = 2, P_LOCATION = 4, P_FUNCTION = 5, P_STRINGS = 6, P_TIME = 9,
       P_DURATION = 10, P_PERIOD_TYPE = 11, P_PERIOD = 12, P_DEFAULT_TYPE = 14 };

void export_pprof_varint(struct sbuf *b, uint64_t v)
{
	while (v >= 0x80) {
		sbuf_addch(b, (int)(v & 0x7f) | 0x80);
		v >>= 7;
	}
	sbuf_addch(b, (int)v);
}

void export_pprof_key(struct sbuf *b, unsigned field, unsigned wire)
{
	export_pprof_varint(b, (uint64_t)field << 3 | wire);
}

void export_pprof_uint(struct sbuf *b, unsigned field, uint64_t v)
{
	export_pprof_key(b, field, 0);
	export_pprof_varint(b, v);
}

void export_pprof_bytes(struct sbuf *b, unsigned field, const void *p, size_t n)
{
	export_pprof_key(b, field, 2);
	export_pprof_varint(b, n);
	sbuf_add(b, p, n);
}

struct pctx {
	struct ozip z;
	struct sbuf out, msg, tmp, u8;
	struct pool *strs, *frames;
	uint32_t *fid;           /* per node: frame index */
	unsigned k, n;           /* the tree's slot, number of trees */
	int64_t rank;            /* -1: none */
	uint32_t s_rank, s_step; /* string ids */
	const char *marker;
	struct sbuf *err;
	int rc;
	bool str_labels;
	/* the cap (x->max_samples): in the current tree, stacks heavier than
	 * thr are kept, and keep_eq of those equal to it; the rest sum to other */
	bool capped;
	int64_t thr, other;
	size_t keep_eq;
	uint32_t other_fid;      /* the "[other]" frame */
	struct export_pprof_stats st;
	VEC(uint32_t) path;      /* a sample's frames */
};

static uint32_t str(struct pctx *c, const char *s, size_t n)
{
	sbuf_reset(&c->u8);
	export_stacks_utf8(&c->u8, s, n);
	return pool_intern(c->strs, c->u8.buf ? c->u8.buf : "", c->u8.len);
}

static void flush(struct pctx *c, bool force)
{
	if (c->out.len && (force || c->out.len >= FLUSH_AT)) {
		ozip_write(&c->z, c->out.buf, c->out.len);
		sbuf_reset(&c->out);
	}
}

/* Label{key, num} (go tool pprof's -tags), or Label{key, str} with
 * str_labels (Pyroscope drops a label without a string value). */
static void num_label(struct pctx *c, uint32_t key, int64_t v)
{
	sbuf_reset(&c->tmp);
	export_pprof_uint(&c->tmp, 1, key);
	if (c->str_labels) {
		char s[24];
		int n = snprintf(s, sizeof s, "%lld", (long long)v);
		export_pprof_uint(&c->tmp, 2, str(c, s, (size_t)n));
	} else {
		export_pprof_uint(&c->tmp, 3, (uint64_t)v);
	}
	export_pprof_bytes(&c->msg, 3, c->tmp.buf, c->tmp.len);
}

/* One Sample: locations (leaf first) and v in the tree's slot. */
static void sample_head(struct pctx *c, const uint32_t *fids, size_t depth, int64_t v)
{
	sbuf_reset(&c->msg);
	sbuf_reset(&c->tmp);
	for (size_t i = depth; i-- > 0;)
		export_pprof_varint(&c->tmp, (uint64_t)fids[i] + 1);
	export_pprof_bytes(&c->msg, 1, c->tmp.buf, c->tmp.len);
	sbuf_reset(&c->tmp);
	for (unsigned j = 0; j < c->n; j++)
		export_pprof_varint(&c->tmp, j == c->k ? (uint64_t)v : 0);
	export_pprof_bytes(&c->msg, 2, c->tmp.buf, c->tmp.len);
	if (c->rank >= 0)
		num_label(c, c->s_rank, c->rank);
	c->st.samples++;
}

static int sample(void *ctx, const struct ftree *t, const uint32_t *nodes, size_t depth, int64_t self)
{
	struct pctx *c = ctx;
	int64_t v;
	if (!export_stacks_int(t, self, &v)) {
		struct sbuf p = SBUF_INIT;
		ftree_path(t, nodes[depth - 1], &p);
		sbuf_addf(c->err, "weight of stack '%.200s' is not a whole number of %s: pprof values are integers",
			  p.buf, strcmp(export_stacks_unit(t, true), "count") ? export_stacks_unit(t, true) : "counts");
		sbuf_release(&p);
		return GF_EINPUT;
	}
	if (c->capped) {
		bool keep = self > c->thr || (self == c->thr && c->keep_eq && c->keep_eq--);
		if (!keep) {
			if (__builtin_add_overflow(c->other, v, &c->other)) {
				sbuf_addstr(c->err, "the stacks' total overflows a pprof value (int64)");
				return GF_EINPUT;
			}
			c->st.merged++;
			return 0;
		}
	}
	c->path.n = 0;
	for (size_t i = 0; i < depth; i++)
		vec_push(&c->path, c->fid[nodes[i]]);
	sample_head(c, c->path.v, depth, v);
	/* the outermost step marker frame (fold --per-step: under the thread
	 * frame for cpu and wall) */
	for (size_t i = 0; i < depth; i++) {
		int64_t step;
		const char *f = ftree_name(t, nodes[i]);
		if (names_step(f, pool_len(t->names, t->name[nodes[i]]), names_marker(c->marker), &step)) {
			if (step >= 0)
				num_label(c, c->s_step, step);
			break;
		}
	}
	export_pprof_bytes(&c->out, P_SAMPLE, c->msg.buf, c->msg.len);
	flush(c, false);
	return 0;
}

static void value_type(struct pctx *c, unsigned field, const struct export_stacks_prof *p)
{
	const char *unit = export_stacks_unit(p->t, true);
	sbuf_reset(&c->tmp);
	export_pprof_uint(&c->tmp, 1, str(c, p->name, strlen(p->name)));
	export_pprof_uint(&c->tmp, 2, str(c, unit, strlen(unit)));
	export_pprof_bytes(&c->out, field, c->tmp.buf, c->tmp.len);
}

/* Function and Location of frame i (id i + 1). */
static void frame(struct pctx *c, uint32_t i)
{
	const char *s = pool_str(c->frames, i);
	size_t n = pool_len(c->frames, i);
	struct export_stacks_frame f;
	export_stacks_split(s, n, &f);
	sbuf_reset(&c->msg);
	export_pprof_uint(&c->msg, 1, (uint64_t)i + 1);
	export_pprof_uint(&c->msg, 2, str(c, f.name, f.name_len));
	/* system_name only where it differs from name: pprof treats a function
	 * whose name equals its system_name as not yet demangled and cuts what
	 * looks like C++ ("<built-in method ...>" -> "", "Memcpy HtoD (Pinned ->
	 * Device)" -> "Memcpy HtoD ", template arguments) */
	if (f.name != s || f.name_len != n)
		export_pprof_uint(&c->msg, 3, str(c, s, n));
	if (f.file_len) {
		export_pprof_uint(&c->msg, 4, str(c, f.file, f.file_len));
		export_pprof_uint(&c->msg, 5, (uint64_t)f.line);
	}
	export_pprof_bytes(&c->out, P_FUNCTION, c->msg.buf, c->msg.len);
	sbuf_reset(&c->tmp);
	export_pprof_uint(&c->tmp, 1, (uint64_t)i + 1); /* Line.function_id */
	if (f.line)
		export_pprof_uint(&c->tmp, 2, (uint64_t)f.line);
	sbuf_reset(&c->msg);
	export_pprof_uint(&c->msg, 1, (uint64_t)i + 1);
	export_pprof_bytes(&c->msg, 4, c->tmp.buf, c->tmp.len);
	export_pprof_bytes(&c->out, P_LOCATION, c->msg.buf, c->msg.len);
	flush(c, false);
}

static void map_frames(struct pctx *c, const struct ftree *t)
{
	free(c->fid);
	c->fid = gf_xcalloc(t->n ? t->n : 1, sizeof *c->fid);
	for (uint32_t i = 1; i < t->n; i++)
		c->fid[i] = pool_intern(c->frames, ftree_name(t, i), pool_len(t->names, t->name[i]));
}

static int64_t meta_rank(const struct export_stacks *x)
{
	for (unsigned k = 0; k < x->n; k++) {
		const char *r = ftree_meta_get(&x->p[k].t->meta, "rank");
		if (r && *r && strspn(r, "0123456789") == strlen(r) && strlen(r) < 18)
			return strtoll(r, NULL, 10);
	}
	return -1;
}

struct selfs {
	VEC(int64_t) v;
};

static int collect(void *ctx, const struct ftree *t, const uint32_t *nodes, size_t depth, int64_t self)
{
	struct selfs *s = ctx;
	vec_push(&s->v, self);
	return 0;
}

static int desc(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x < y) - (x > y);
}

/* Sets the cap of tree t: at most budget samples, its heaviest budget - 1
 * stacks and "[other]". */
static void cap(struct pctx *c, const struct ftree *t, size_t budget)
{
	struct selfs s;
	memset(&s, 0, sizeof s);
	c->capped = false;
	c->other = 0;
	export_stacks_walk(t, collect, &s);
	if (budget && s.v.n > budget) {
		qsort(s.v.v, s.v.n, sizeof *s.v.v, desc);
		size_t keep = budget - 1, gt = 0;
		c->thr = s.v.v[keep - 1];
		while (gt < keep && s.v.v[gt] > c->thr)
			gt++;
		c->keep_eq = keep - gt;
		c->capped = true;
	}
	vec_free(&s.v);
}

static int body(struct pctx *c, const struct export_stacks *x)
{
	size_t budget = x->max_samples && x->n ? x->max_samples / x->n : 0;
	if (x->max_samples && budget < 2)
		budget = 2;
	for (unsigned k = 0; k < x->n; k++)
		value_type(c, P_SAMPLE_TYPE, &x->p[k]);
	for (unsigned k = 0; k < x->n; k++)
		map_frames(c, x->p[k].t);
	if (budget)
		c->other_fid = pool_intern(c->frames, "[other]", 7);
	for (uint32_t i = 0; i < pool_count(c->frames); i++)
		frame(c, i);
	c->n = x->n;
	for (unsigned k = 0; k < x->n; k++) {
		const struct ftree *t = x->p[k].t;
		c->k = k;
		c->marker = ftree_meta_get(&t->meta, "step_marker");
		map_frames(c, t);
		cap(c, t, budget);
		int rc = export_stacks_walk(t, sample, c);
		if (rc)
			return rc;
		if (c->capped && c->other) {
			sample_head(c, &c->other_fid, 1, c->other);
			export_pprof_bytes(&c->out, P_SAMPLE, c->msg.buf, c->msg.len);
			c->st.others++;
		}
	}
	if (x->time_ns)
		export_pprof_uint(&c->out, P_TIME, (uint64_t)x->time_ns);
	if (x->duration_ns)
		export_pprof_uint(&c->out, P_DURATION, (uint64_t)x->duration_ns);
	if (x->n) {
		value_type(c, P_PERIOD_TYPE, &x->p[0]);
		export_pprof_uint(&c->out, P_PERIOD, 1);
		export_pprof_uint(&c->out, P_DEFAULT_TYPE, str(c, x->p[0].name, strlen(x->p[0].name)));
	}
	/* the string table last: every index is known by now */
	for (uint32_t i = 0; i < pool_count(c->strs); i++) {
		export_pprof_bytes(&c->out, P_STRINGS, pool_str(c->strs, i), pool_len(c->strs, i));
		flush(c, false);
	}
	return GF_OK;
}

int export_pprof_write(const struct export_stacks *x, FILE *fp, struct sbuf *err)
{
	return export_pprof_write_st(x, fp, NULL, err);
}

int export_pprof_write_st(const struct export_stacks *x, FILE *fp, struct export_pprof_stats *st,
			  struct sbuf *err)
{
	for (unsigned k = 0; k < x->n; k++)
		if (x->p[k].t->ncols != 1) {
			sbuf_addf(err, "differential stacks (two counts per line) cannot be exported: "
				       "export each side");
			return GF_EINPUT;
		}
	struct pctx c;
	memset(&c, 0, sizeof c);
	c.err = err;
	c.strs = pool_new();
	c.frames = pool_new();
	str(&c, "", 0); /* string_table[0] is "" */
	c.s_rank = str(&c, "rank", 4);
	c.s_step = str(&c, "step", 4);
	c.rank = meta_rank(x);
	c.str_labels = x->str_labels;
	int rc = GF_OK;
	if (ozip_open(&c.z, fp, OZIP_GZIP)) {
		sbuf_addstr(err, "out of memory starting zlib");
		rc = GF_EINTERNAL;
	} else
		rc = body(&c, x);
	flush(&c, true);
	errno = 0;
	if (c.z.fp && ozip_close(&c.z) && !rc) {
		sbuf_addf(err, "compression or write error: %s", c.z.err ? strerror(c.z.err) : "zlib");
		rc = GF_EOUTPUT;
	}
	sbuf_release(&c.out);
	sbuf_release(&c.msg);
	sbuf_release(&c.tmp);
	sbuf_release(&c.u8);
	free(c.fid);
	vec_free(&c.path);
	pool_free(c.strs);
	pool_free(c.frames);
	if (st)
		*st = c.st;
	return rc;
}
