/* ranks_diff.c — two runs of many ranks, rank by rank (see ranks_diff.h). */
#include "ranks/ranks_diff.h"

#include "base/num.h"
#include "base/pool.h"
#include "base/vec.h"
#include "trace/write/report_fmt.h"

#include <stdlib.h>
#include <string.h>

struct key {
	int64_t rank;
	size_t i;
};

static int cmp_key(const void *a, const void *b)
{
	const struct key *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* The ranks of a side, sorted; *known when every profile has one. */
static int side_keys(const struct ranks_side *s, struct key *k, bool *known, struct sbuf *err)
{
	*known = true;
	for (size_t i = 0; i < s->n; i++) {
		int rc = s->rank(s->ctx, i, &k[i].rank, err);
		if (rc)
			return rc;
		k[i].i = i;
		if (k[i].rank < 0)
			*known = false;
	}
	if (*known) {
		qsort(k, s->n, sizeof *k, cmp_key);
		for (size_t i = 1; i < s->n; i++)
			if (k[i].rank == k[i - 1].rank) {
				sbuf_setf(err, "'%s' and '%s' are both rank %lld", s->name(s->ctx, k[i - 1].i),
					  s->name(s->ctx, k[i].i), (long long)k[i].rank);
				return GF_EINPUT;
			}
	} else {
		for (size_t i = 0; i < s->n; i++)
			k[i].rank = (int64_t)i;
	}
	return GF_OK;
}

/* One rank's comparison. */
struct row {
	int64_t rank;           /* the rank, or the position */
	int64_t b, a;           /* totals per step (at the result's scale) */
	unsigned scale;
	char *stack;            /* the frame whose own weight changed most, NULL */
	int64_t sd;             /* its change */
};

static int cmp_row(const void *x, const void *y)
{
	const struct row *p = x, *q = y;
	/* compare |a - b| at a common scale: rows carry the same scale (one diff setup) */
	__int128 dp = (__int128)p->a - p->b, dq = (__int128)q->a - q->b;
	if (dp < 0)
		dp = -dp;
	if (dq < 0)
		dq = -dq;
	if (dp != dq)
		return dp > dq ? -1 : 1;
	return (p->rank > q->rank) - (p->rank < q->rank);
}

/* A stack's changes over the ranks. */
struct stk {
	uint32_t grew, shrank;
	VEC(int64_t) d;
};

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The unit a tree's header says its weights are in: how many decimals to
 * add to print ms (us: 3, ns: 6, ms: 0), or -1 for counts. */
static int ms_shift(const struct ftree *t)
{
	const char *u = ftree_meta_get(&t->meta, "unit");
	if (!u)
		return -1;
	return !strcmp(u, "us") ? 3 : !strcmp(u, "ns") ? 6 : !strcmp(u, "ms") ? 0 : -1;
}

static void amount(struct sbuf *b, int64_t v, unsigned scale, int shift, bool sign)
{
	if (sign && v > 0)
		sbuf_addch(b, '+');
	if (shift < 0)
		num_fmt_fixed(b, v, scale, 2, false);
	else
		num_fmt_fixed(b, v, scale + (unsigned)shift, 3, false);
}

struct run {
	const struct ranks_side *b, *a;
	const struct ranks_diff_opts *o;
	struct sbuf *err;
	VEC(struct row) rows;
	struct pool *paths;
	VEC(struct stk) st;
	int shift;
	unsigned scale;
	const char *weight;
};

/* Compares profile bi of before with ai of after into one row. */
static int pair(struct run *R, size_t bi, size_t ai, int64_t rank)
{
	struct ftree tb, ta;
	ftree_init(&tb, NULL, 0);
	ftree_init(&ta, NULL, 0);
	int rc = R->b->tree(R->b->ctx, bi, &tb, R->err);
	if (!rc)
		rc = R->a->tree(R->a->ctx, ai, &ta, R->err);
	struct sbuf diffs = SBUF_INIT;
	if (!rc && diff_check_meta(&tb.meta, &ta.meta, &diffs) && !R->o->force) {
		sbuf_setf(R->err, "refusing to compare unlike profiles '%s' and '%s': %s (use --force to compare anyway)",
			  R->b->name(R->b->ctx, bi), R->a->name(R->a->ctx, ai), diffs.buf);
		rc = GF_EUSAGE;
	}
	sbuf_release(&diffs);
	struct diff_result r;
	memset(&r, 0, sizeof r);
	if (!rc)
		rc = diff_run(&r, &tb, &ta, &R->o->d, R->err);
	if (!rc) {
		if (!R->rows.n) {
			R->shift = ms_shift(&r.t);
			R->scale = r.t.scale;
			const char *w = ftree_meta_get(&r.t.meta, "weight");
			R->weight = w && !strcmp(w, "gpu") ? "GPU time" : w && !strcmp(w, "cpu") ? "CPU time"
				    : w && !strcmp(w, "wall") ? "wall time" : w && !strcmp(w, "idle") ? "GPU idle" : "weight";
		}
		struct row *x = vec_add(&R->rows);
		memset(x, 0, sizeof *x);
		x->rank = rank;
		x->scale = r.t.scale;
		x->b = r.t.total[0];
		x->a = r.t.total2[0];
		/* rows of another scale (an unusual pair) are brought to the first's */
		while (x->scale < R->scale && num_rescale(&x->b, 1) && num_rescale(&x->a, 1))
			x->scale++;
		size_t want = R->o->stacks ? R->o->stacks : 5;
		struct diff_row *top = gf_xcalloc(want, sizeof *top);
		size_t k = diff_top(&r, true, want, top);
		struct sbuf path = SBUF_INIT;
		for (size_t i = 0; i < k; i++) {
			sbuf_reset(&path);
			ftree_path(&r.t, top[i].node, &path);
			if (!i) {
				x->stack = gf_xstrdup(path.buf);
				x->sd = top[i].delta;
			}
			uint32_t id = pool_intern(R->paths, path.buf, path.len);
			while (R->st.n <= id) {
				struct stk *s = vec_add(&R->st);
				memset(s, 0, sizeof *s);
			}
			struct stk *s = &R->st.v[id];
			if (top[i].delta > 0)
				s->grew++;
			else
				s->shrank++;
			vec_push(&s->d, top[i].delta);
		}
		sbuf_release(&path);
		free(top);
		diff_result_release(&r);
	}
	ftree_release(&tb);
	ftree_release(&ta);
	return rc;
}

static void rank_cell(struct rtable *t, bool known, int64_t rank)
{
	if (known)
		rtable_cellf(t, "rank %lld", (long long)rank);
	else
		rtable_cellf(t, "#%lld", (long long)rank + 1);
}

static void rank_table(struct run *R, bool known, const struct report_fmt *f, struct sbuf *out)
{
	qsort(R->rows.v, R->rows.n, sizeof *R->rows.v, cmp_row);
	size_t show = R->o->rows ? R->o->rows : 20;
	struct rtable t;
	rtable_init(&t, 7);
	static const char *const h[7] = { "rank", "before", "after", "change", "change %", "frame changed most (own weight)",
					  "its change" };
	for (unsigned c = 0; c < 7; c++)
		rtable_head(&t, c, h[c], c == 0 || c == 5 ? RT_LEFT : RT_RIGHT);
	struct sbuf b = SBUF_INIT;
	for (size_t i = 0; i < R->rows.n && i < show; i++) {
		const struct row *x = &R->rows.v[i];
		rank_cell(&t, known, x->rank);
		int64_t v[3] = { x->b, x->a, x->a - x->b };
		for (int c = 0; c < 3; c++) {
			sbuf_reset(&b);
			amount(&b, v[c], x->scale, R->shift, c == 2);
			rtable_cell(&t, b.buf);
		}
		if (x->b > 0) {
			sbuf_reset(&b);
			__int128 p = ((__int128)(x->a - x->b) * 2000) / x->b;
			p = p >= 0 ? (p + 1) / 2 : (p - 1) / 2;
			if (p > 0)
				sbuf_addch(&b, '+');
			num_fmt_fixed(&b, (int64_t)p, 1, 1, false);
			sbuf_addch(&b, '%');
			rtable_cell(&t, b.buf);
		} else {
			rtable_cell(&t, x->a > 0 ? "new" : "-");
		}
		f->cell_long(&t, x->stack ? x->stack : "-", 60);
		sbuf_reset(&b);
		if (x->stack)
			amount(&b, x->sd, x->scale, R->shift, true);
		rtable_cell(&t, x->stack ? b.buf : "-");
	}
	sbuf_release(&b);
	f->table(out, &t);
	if (show < R->rows.n)
		sbuf_addf(out, "%s%zu more ranks changed less (--top N shows more).\n", f->next, R->rows.n - show);
}

struct stkrow {
	uint32_t id, n;
	int64_t med;
};

static int cmp_stkrow(const void *a, const void *b)
{
	const struct stkrow *x = a, *y = b;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	int64_t ax = x->med < 0 ? -x->med : x->med, ay = y->med < 0 ? -y->med : y->med;
	if (ax != ay)
		return ax > ay ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

static void stack_table(struct run *R, const struct report_fmt *f, struct sbuf *out)
{
	size_t n = R->st.n;
	struct stkrow *v = gf_xcalloc(n ? n : 1, sizeof *v);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		struct stk *s = &R->st.v[i];
		if (!s->d.n)
			continue;
		qsort(s->d.v, s->d.n, sizeof *s->d.v, cmp_i64);
		v[m].id = (uint32_t)i;
		v[m].n = s->grew + s->shrank;
		v[m].med = s->d.v[(s->d.n + 1) / 2 - 1]; /* the nearest-rank median */
		m++;
	}
	qsort(v, m, sizeof *v, cmp_stkrow);
	struct rtable t;
	rtable_init(&t, 4);
	rtable_head(&t, 0, "stack (root;...;frame)", RT_LEFT);
	rtable_head(&t, 1, "grew on", RT_RIGHT);
	rtable_head(&t, 2, "shrank on", RT_RIGHT);
	rtable_head(&t, 3, "median change", RT_RIGHT);
	struct sbuf b = SBUF_INIT;
	for (size_t i = 0; i < m && i < 15; i++) {
		const struct stk *s = &R->st.v[v[i].id];
		f->cell_long(&t, pool_str(R->paths, v[i].id), 70);
		rtable_cellf(&t, "%u", s->grew);
		rtable_cellf(&t, "%u", s->shrank);
		sbuf_reset(&b);
		amount(&b, v[i].med, R->scale, R->shift, true);
		rtable_cell(&t, b.buf);
	}
	sbuf_release(&b);
	f->table(out, &t);
	free(v);
}

/* The ranks of one side with no partner, listed (at most 10). */
static void lonely(const char *label, const struct key *k, size_t n, const bool *paired, bool known,
		   const struct report_fmt *f, struct sbuf *out)
{
	size_t cnt = 0;
	for (size_t i = 0; i < n; i++)
		cnt += !paired[i];
	if (!cnt)
		return;
	sbuf_addf(out, "%s%zu rank%s only %s:", f->next, cnt, cnt == 1 ? "" : "s", label);
	for (size_t i = 0, s = 0; i < n && s < 10; i++)
		if (!paired[i]) {
			sbuf_addf(out, known ? " %lld" : " #%lld", (long long)(known ? k[i].rank : k[i].rank + 1));
			s++;
		}
	sbuf_addstr(out, cnt > 10 ? " ...\n" : "\n");
}

int ranks_diff(const struct ranks_side *b, const struct ranks_side *a, const struct ranks_diff_opts *o, int format,
	       struct sbuf *out, struct sbuf *err)
{
	const struct report_fmt *f = format == REP_MD ? &report_md_fmt : &report_text_fmt;
	struct key *kb = gf_xcalloc(b->n ? b->n : 1, sizeof *kb), *ka = gf_xcalloc(a->n ? a->n : 1, sizeof *ka);
	bool knb, kna;
	int rc = side_keys(b, kb, &knb, err);
	if (!rc)
		rc = side_keys(a, ka, &kna, err);
	bool known = !rc && knb && kna;
	if (!rc && !known) { /* by position: both sides in their given (name) order */
		for (size_t i = 0; i < b->n; i++)
			kb[i] = (struct key){ (int64_t)i, i };
		for (size_t i = 0; i < a->n; i++)
			ka[i] = (struct key){ (int64_t)i, i };
	}
	struct run R;
	memset(&R, 0, sizeof R);
	R.b = b;
	R.a = a;
	R.o = o;
	R.err = err;
	R.paths = pool_new();
	bool *pb = gf_xcalloc(b->n + 1, sizeof *pb), *pa = gf_xcalloc(a->n + 1, sizeof *pa);
	for (size_t i = 0, j = 0; !rc && i < b->n && j < a->n;) {
		if (kb[i].rank < ka[j].rank) {
			i++;
		} else if (kb[i].rank > ka[j].rank) {
			j++;
		} else {
			rc = pair(&R, kb[i].i, ka[j].i, kb[i].rank);
			pb[i++] = pa[j++] = true;
		}
	}
	if (!rc && !R.rows.n) {
		sbuf_setf(err, "no rank of %s is also in %s: nothing to compare", b->what ? b->what : "BEFORE",
			  a->what ? a->what : "AFTER");
		rc = GF_EUSAGE;
	}
	if (!rc) {
		struct sbuf body = SBUF_INIT, h = SBUF_INIT;
		sbuf_addf(&h, "%zu rank%s compared, rank by rank", R.rows.n, R.rows.n == 1 ? "" : "s");
		f->title(&body, "gpuflame diff: ", h.buf);
		sbuf_addf(&body, "%s%s per step where both sides know their steps%s; %s -> %s%s\n", f->lead, R.weight,
			  R.shift >= 0 ? ", in ms" : "", b->what ? b->what : "BEFORE", a->what ? a->what : "AFTER",
			  known ? "" : "; the profiles have no rank: paired by position (name order)");
		lonely("before", kb, b->n, pb, known, f, &body);
		lonely("after", ka, a->n, pa, known, f, &body);
		f->heading(&body, "Ranks by the change of their total");
		rank_table(&R, known, f, &body);
		f->heading(&body, "Stacks that changed on the most ranks (each rank's largest changes of own weight)");
		stack_table(&R, f, &body);
		f->finish(&body, out);
		sbuf_release(&body);
		sbuf_release(&h);
	}
	for (size_t i = 0; i < R.rows.n; i++)
		free(R.rows.v[i].stack);
	vec_free(&R.rows);
	for (size_t i = 0; i < R.st.n; i++)
		vec_free(&R.st.v[i].d);
	vec_free(&R.st);
	pool_free(R.paths);
	free(pb);
	free(pa);
	free(kb);
	free(ka);
	return rc;
}
