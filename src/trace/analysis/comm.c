/* comm.c — NCCL time, overlap, exposed communication, collectives (see comm.h). */
#include "trace/analysis/comm.h"

#include "base/names.h"
#include "base/vec.h"
#include "trace/analysis/gaps.h"

#include <stdlib.h>
#include <string.h>

typedef VEC(gf_ns) nsvec;

/* Merged union of the device's kernels with (is_nccl == want). */
static void kunion(const struct actx *c, bool want, nsvec *u)
{
	const struct trace *t = c->t;
	for (uint32_t i = 0; i < t->nact; i++) {
		const struct trace_act *a = &t->act[i];
		if (!actx_on_dev(c, a) || a->kind != TA_KERNEL || !!(a->flags & TAF_NCCL) != want)
			continue;
		if (a->end <= a->start)
			continue;
		if (u->n && a->start <= u->v[u->n - 1]) {
			if (a->end > u->v[u->n - 1])
				u->v[u->n - 1] = a->end;
			continue;
		}
		vec_push(u, a->start);
		vec_push(u, a->end);
	}
}

/* Index (even) of the first pair of u whose end is > lo: pairs before it
 * cannot meet [lo, ...). */
static size_t first_after(const nsvec *u, gf_ns lo)
{
	size_t l = 0, h = u->n / 2;
	while (l < h) {
		size_t m = l + (h - l) / 2;
		if (u->v[2 * m + 1] <= lo)
			l = m + 1;
		else
			h = m;
	}
	return 2 * l;
}

/* |u ∩ [lo, hi)|: only the pairs that meet the window are visited, so a
 * step costs O(log n + its pairs), not O(n). */
static gf_ns measure(const nsvec *u, gf_ns lo, gf_ns hi)
{
	gf_ns s = 0;
	for (size_t i = first_after(u, lo); i + 1 < u->n && u->v[i] < hi; i += 2)
		s += actx_overlap(u->v[i], u->v[i + 1], lo, hi);
	return s;
}

/* |a ∩ b ∩ [lo, hi)| by a two-pointer sweep over the pairs that meet the
 * window (pairs ending by lo or starting at hi or later add nothing). */
static gf_ns inter(const nsvec *a, const nsvec *b, gf_ns lo, gf_ns hi)
{
	gf_ns s = 0;
	size_t i = first_after(a, lo), j = first_after(b, lo);
	while (i + 1 < a->n && j + 1 < b->n && a->v[i] < hi && b->v[j] < hi) {
		gf_ns x0 = a->v[i] > b->v[j] ? a->v[i] : b->v[j];
		gf_ns x1 = a->v[i + 1] < b->v[j + 1] ? a->v[i + 1] : b->v[j + 1];
		if (x1 > x0)
			s += actx_overlap(x0, x1, lo, hi);
		if (a->v[i + 1] < b->v[j + 1])
			i += 2;
		else
			j += 2;
	}
	return s;
}

/* u (sorted disjoint pairs) with prefix sums of its lengths: |u ∩ [lo, hi)|
 * in O(log n), so a step costs no scan of the pairs it holds (nested or
 * overlapping steps would make that steps x pairs). */
struct pmeasure {
	const nsvec *u;
	uint64_t *pre;
};

static void pmeasure_init(struct pmeasure *p, const nsvec *u)
{
	size_t n = u->n / 2;
	p->u = u;
	p->pre = gf_xmalloc((n + 1) * sizeof *p->pre);
	p->pre[0] = 0;
	for (size_t i = 0; i < n; i++)
		p->pre[i + 1] = p->pre[i] + ((uint64_t)u->v[2 * i + 1] - (uint64_t)u->v[2 * i]);
}

static gf_ns pmeasure_in(const struct pmeasure *p, gf_ns lo, gf_ns hi)
{
	return actx_measure_in(p->u->v, p->u->n / 2, p->pre, lo, hi);
}

/* a ∩ b as sorted disjoint pairs (the pieces inter() sums). */
static void inter_pairs(const nsvec *a, const nsvec *b, nsvec *out)
{
	size_t i = 0, j = 0;
	while (i + 1 < a->n && j + 1 < b->n) {
		gf_ns x0 = a->v[i] > b->v[j] ? a->v[i] : b->v[j];
		gf_ns x1 = a->v[i + 1] < b->v[j + 1] ? a->v[i + 1] : b->v[j + 1];
		if (x1 > x0) {
			vec_push(out, x0);
			vec_push(out, x1);
		}
		if (a->v[i + 1] < b->v[j + 1])
			i += 2;
		else
			j += 2;
	}
}

/* The collective kind of communication kernel a: the innermost range above
 * its launching call that names one (nccl:all_reduce, c10d::allreduce_),
 * else its own name (ncclKernel_AllReduce_...). */
static int coll_kind(const struct trace *t, const struct trace_act *a)
{
	unsigned d = 0;
	for (uint32_t ri = a->launch; ri != TRACE_NONE && d < 256; ri = t->r[ri].parent, d++) {
		uint32_t nm = t->r[ri].name;
		int k = names_coll_kind(pool_str(t->names, nm), pool_len(t->names, nm), false);
		if (k != NAMES_COLL_UNKNOWN)
			return k;
	}
	return names_coll_kind(pool_str(t->names, a->name), pool_len(t->names, a->name), false);
}

/* A communication kernel's own piece of the communication union: the time
 * it runs while no earlier-started communication kernel does. */
struct piece {
	gf_ns start, a, b;   /* the kernel's start; its piece [a, b), empty when a >= b */
	uint32_t act;        /* index into t->act */
	uint32_t row;        /* index into the collective rows */
	gf_ns exposed;       /* Σ over steady steps */
};

typedef VEC(struct comm_coll) collvec;

static uint32_t coll_row(collvec *rows, int kind, int32_t stream)
{
	for (size_t i = 0; i < rows->n; i++)
		if (rows->v[i].kind == kind && rows->v[i].stream == stream)
			return (uint32_t)i;
	struct comm_coll *x = vec_add(rows);
	memset(x, 0, sizeof *x);
	x->kind = kind;
	x->stream = stream;
	return (uint32_t)(rows->n - 1);
}

static int cmp_coll(const void *pa, const void *pb)
{
	const struct comm_coll *x = pa, *y = pb;
	if (x->exposed != y->exposed)
		return x->exposed > y->exposed ? -1 : 1;
	if (x->comm != y->comm)
		return x->comm > y->comm ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return (x->stream > y->stream) - (x->stream < y->stream);
}

/* Index of the first piece whose end is > lo (non-empty pieces only: their
 * ends increase). */
static size_t piece_after(const struct piece *p, size_t n, gf_ns lo)
{
	size_t l = 0, h = n;
	while (l < h) {
		size_t m = l + (h - l) / 2;
		if (p[m].b <= lo)
			l = m + 1;
		else
			h = m;
	}
	return l;
}

/* The collectives of the steady steps (comm.h, struct comm_coll); pc is the
 * computation union with its prefix sums. */
static void collectives(const struct actx *c, const struct steps_result *st, const struct pmeasure *pc,
			struct comm_result *r)
{
	const struct trace *t = c->t;
	VEC(struct piece) pv = VEC_INIT; /* every comm kernel, by start */
	collvec rows = VEC_INIT;
	gf_ns front = INT64_MIN;
	for (uint32_t i = 0; i < t->nact; i++) {
		const struct trace_act *a = &t->act[i];
		if (!actx_on_dev(c, a) || a->kind != TA_KERNEL || !(a->flags & TAF_NCCL))
			continue;
		struct piece p = { a->start, a->start > front ? a->start : front, a->end, i,
				   coll_row(&rows, coll_kind(t, a), a->stream), 0 };
		if (a->end > front)
			front = a->end;
		vec_push(&pv, p);
	}
	/* the non-empty pieces, for measuring (their ends increase) */
	struct piece **ne = gf_xmalloc((pv.n ? pv.n : 1) * sizeof *ne);
	struct piece *nev = gf_xmalloc((pv.n ? pv.n : 1) * sizeof *nev);
	size_t nn = 0;
	for (size_t i = 0; i < pv.n; i++)
		if (pv.v[i].a < pv.v[i].b) {
			ne[nn] = &pv.v[i];
			nev[nn++] = pv.v[i];
		}
	/* Linear in steps + kernels however the steps overlap (issue 16's
	 * hostile_scale: each step may hold half the trace): the pieces a step
	 * holds whole are a run of indices (their starts and ends increase),
	 * counted with a difference array and measured once each; only the (at
	 * most two) pieces a step's ends cut are measured per step. */
	int64_t *whole = gf_xcalloc(nn + 1, sizeof *whole);
	gf_ns *los = gf_xmalloc((st->n ? st->n : 1) * sizeof *los), *his = gf_xmalloc((st->n ? st->n : 1) * sizeof *his);
	size_t ns = 0;
	for (size_t s = 0; s < st->n; s++) {
		const struct step_row *row = &st->rows[s];
		if (row->warmup && st->nsteady)
			continue;
		gf_ns lo = row->start, hi = row->end;
		los[ns] = lo;
		his[ns++] = hi;
		if (hi <= lo)
			continue;
		size_t k0 = piece_after(nev, nn, lo), k1; /* first piece ending after lo */
		size_t cut[2], ncut = 0;
		if (k0 < nn && nev[k0].a < lo)
			cut[ncut++] = k0++; /* cut by lo (and maybe by hi) */
		k1 = k0 + piece_after(nev + k0, nn - k0, hi); /* first piece ending after hi */
		if (k0 < k1) { /* [k0, k1) lie inside [lo, hi) */
			whole[k0]++;
			whole[k1]--;
		}
		if (k1 < nn && nev[k1].a < hi && (!ncut || cut[0] != k1))
			cut[ncut++] = k1; /* cut by hi */
		for (size_t j = 0; j < ncut; j++) {
			size_t k = cut[j];
			gf_ns x0 = nev[k].a > lo ? nev[k].a : lo, x1 = nev[k].b < hi ? nev[k].b : hi;
			if (x1 <= x0)
				continue;
			gf_ns e = (x1 - x0) - pmeasure_in(pc, x0, x1);
			struct comm_coll *x = &rows.v[nev[k].row];
			x->comm += x1 - x0;
			x->exposed += e;
			ne[k]->exposed += e;
		}
	}
	int64_t times = 0;
	for (size_t k = 0; k < nn; k++) {
		times += whole[k];
		GF_ASSERT(times >= 0);
		if (!times)
			continue;
		gf_ns e = (nev[k].b - nev[k].a) - pmeasure_in(pc, nev[k].a, nev[k].b);
		struct comm_coll *x = &rows.v[nev[k].row];
		x->comm += times * (nev[k].b - nev[k].a);
		x->exposed += times * e;
		ne[k]->exposed += times * e;
	}
	free(whole);
	/* the calls: kernels starting in a step (each step counts): the steps
	 * starting at or before the kernel's start less those ending by then */
	actx_sort_ns(los, ns);
	actx_sort_ns(his, ns);
	for (size_t k = 0; k < pv.n; k++)
		rows.v[pv.v[k].row].calls +=
			actx_count_le(los, ns, pv.v[k].start) - actx_count_le(his, ns, pv.v[k].start);
	free(los);
	free(his);
	uint32_t *top = gf_xmalloc((rows.n ? rows.n : 1) * sizeof *top);
	for (size_t i = 0; i < rows.n; i++)
		top[i] = TRACE_NONE;
	for (size_t i = 0; i < pv.n; i++) {
		uint32_t w = pv.v[i].row;
		if (top[w] == TRACE_NONE || pv.v[i].exposed > rows.v[w].top_exposed) {
			top[w] = pv.v[i].act;
			rows.v[w].top_exposed = pv.v[i].exposed;
		}
	}
	for (size_t i = 0; i < rows.n; i++) {
		rows.v[i].kernel = gf_xstrdup(pool_str(t->names, t->act[top[i]].name));
		const struct trace_coll *k = trace_coll_of(t, top[i]);
		rows.v[i].nelems = k && k->nelems >= 0 ? k->nelems : KEV_NONE;
		rows.v[i].dtype = k && k->dtype != TRACE_NONE && rows.v[i].nelems != KEV_NONE
					  ? gf_xstrdup(pool_str(t->names, k->dtype))
					  : NULL;
	}
	free(top);
	if (rows.n)
		qsort(rows.v, rows.n, sizeof *rows.v, cmp_coll);
	r->coll = rows.v;
	r->ncoll = rows.n;
	free(ne);
	free(nev);
	vec_free(&pv);
}

int comm_analyze(const struct actx *c, const struct steps_result *st, struct comm_result *r)
{
	const struct trace *t = c->t;
	memset(r, 0, sizeof *r);
	r->n = st->n;
	r->rows = gf_xcalloc(st->n ? st->n : 1, sizeof *r->rows);
	if (c->dev == TRACE_NONE)
		return GF_OK;
	for (uint32_t i = 0; i < t->nact; i++)
		if (actx_on_dev(c, &t->act[i]) && t->act[i].kind == TA_KERNEL && (t->act[i].flags & TAF_NCCL))
			r->kernels++;
	if (!r->kernels)
		return GF_OK;
	nsvec cu = VEC_INIT, pu = VEC_INIT;
	kunion(c, true, &cu);
	kunion(c, false, &pu);
	r->hta_comm = measure(&cu, INT64_MIN, INT64_MAX);
	r->hta_overlap = inter(&cu, &pu, INT64_MIN, INT64_MAX);
	nsvec iu = VEC_INIT;
	inter_pairs(&cu, &pu, &iu);
	struct pmeasure pc, pi;
	pmeasure_init(&pc, &cu);
	pmeasure_init(&pi, &iu);
	struct comm_row sum = { 0 };
	size_t m = 0;
	for (size_t i = 0; i < st->n; i++) {
		const struct step_row *row = &st->rows[i];
		struct comm_row *x = &r->rows[i];
		x->comm = pmeasure_in(&pc, row->start, row->end);
		x->overlap = pmeasure_in(&pi, row->start, row->end);
		x->exposed = x->comm - x->overlap;
		x->wall = row->wall;
		x->busy = row->busy;
		x->compute = row->busy - x->comm; /* the comm union is part of the busy union */
		if (row->warmup && st->nsteady)
			continue;
		sum.comm += x->comm;
		sum.exposed += x->exposed;
		sum.wall += x->wall;
		sum.busy += x->busy;
		m++;
	}
	/* means; overlap and compute are the remainders, so the row adds up
	 * (busy = compute + overlap + exposed, comm = overlap + exposed) */
	r->nsteady = m;
	r->steady.comm = gaps_mean(sum.comm, m);
	r->steady.exposed = gaps_mean(sum.exposed, m);
	r->steady.overlap = r->steady.comm - r->steady.exposed;
	r->steady.wall = gaps_mean(sum.wall, m);
	r->steady.busy = gaps_mean(sum.busy, m);
	r->steady.compute = r->steady.busy - r->steady.comm;
	struct pmeasure pp;
	pmeasure_init(&pp, &pu);
	collectives(c, st, &pp, r);
	free(pp.pre);
	free(pc.pre);
	free(pi.pre);
	vec_free(&iu);
	vec_free(&cu);
	vec_free(&pu);
	return GF_OK;
}

void comm_release(struct comm_result *r)
{
	free(r->rows);
	for (size_t i = 0; i < r->ncoll; i++) {
		free(r->coll[i].kernel);
		free(r->coll[i].dtype);
	}
	free(r->coll);
	memset(r, 0, sizeof *r);
}

static int cmp_win(const void *a, const void *b)
{
	const gf_ns *x = a, *y = b;
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return (x[1] > y[1]) - (x[1] < y[1]);
}

/* Collective x of activity ai: its kernel, its args, its step (pmax: the
 * prefix maxima of the rows' ends), its launch. */
static void coll_fill(const struct actx *c, const struct steps_result *st, const gf_ns *pmax, uint32_t ai,
		      struct coll *x)
{
	const struct trace *t = c->t;
	const struct trace_act *a = &t->act[ai];
	const struct trace_coll *k = trace_coll_of(t, ai);
	x->name = a->name;
	x->group = k ? k->pg : TRACE_NONE;
	x->desc = k ? k->pg_desc : TRACE_NONE;
	x->ranks = k ? k->pg_ranks : TRACE_NONE;
	x->coll = k ? k->coll : TRACE_NONE;
	x->dtype = k ? k->dtype : TRACE_NONE;
	x->seq = k ? k->seq : KEV_NONE;
	x->nelems = k ? k->nelems : KEV_NONE;
	x->group_size = k ? k->group_size : KEV_NONE;
	x->enqueue = a->launch != TRACE_NONE ? t->r[a->launch].start : KEV_NONE;
	x->start = a->start;
	x->dur = a->end - a->start;
	long s = steps_row_at(st, pmax, a->start);
	x->step = s < 0 ? KEV_NONE : st->rows[s].number;
}

void comm_collectives(const struct actx *c, const struct steps_result *st, struct coll **out,
		      size_t *n)
{
	const struct trace *t = c->t;
	VEC(struct coll) v = VEC_INIT;
	if (c->dev != TRACE_NONE && st->n) {
		/* the union of the step windows: a kernel whose start lies in
		 * any step counts once, however many steps hold it (nested or
		 * overlapping steps would otherwise copy it once per step) */
		gf_ns *w = gf_xmalloc(2 * st->n * sizeof *w);
		size_t nw = 0;
		for (size_t s = 0; s < st->n; s++)
			if (st->rows[s].end > st->rows[s].start) {
				w[2 * nw] = st->rows[s].start;
				w[2 * nw + 1] = st->rows[s].end;
				nw++;
			}
		qsort(w, nw, 2 * sizeof *w, cmp_win);
		size_t m = 0;
		for (size_t i = 0; i < nw; i++) {
			if (m && w[2 * i] <= w[2 * m - 1]) {
				if (w[2 * i + 1] > w[2 * m - 1])
					w[2 * m - 1] = w[2 * i + 1];
				continue;
			}
			w[2 * m] = w[2 * i];
			w[2 * m + 1] = w[2 * i + 1];
			m++;
		}
		gf_ns *pmax = steps_pmax(st);
		size_t k = 0;
		for (uint32_t i = m ? trace_act_lower(t, w[0]) : t->nact; i < t->nact; i++) {
			const struct trace_act *a = &t->act[i];
			while (k < m && w[2 * k + 1] <= a->start)
				k++;
			if (k >= m)
				break;
			if (a->start < w[2 * k])
				continue;
			if (!actx_on_dev(c, a) || a->kind != TA_KERNEL || !(a->flags & TAF_NCCL))
				continue;
			struct coll x;
			coll_fill(c, st, pmax, i, &x);
			vec_push(&v, x);
		}
		free(pmax);
		free(w);
	}
	*out = v.v;
	*n = v.n;
}
