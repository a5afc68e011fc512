/* steps.c — the per-step table (see steps.h). */
#include "trace/analysis/steps.h"

#include "base/vec.h"

#include <stdlib.h>
#include <string.h>

void steps_row(const struct actx *c, gf_ns lo, gf_ns hi, struct step_row *row)
{
	const struct trace *t = c->t;
	row->start = lo;
	row->end = hi;
	row->wall = hi - lo;
	row->busy = c->dev == TRACE_NONE ? 0 : actx_busy_in(c, lo, hi);
	row->idle = row->wall - row->busy;
	VEC(gf_ns) kd = VEC_INIT;
	if (c->dev != TRACE_NONE) {
		/* the activities that started before lo and still run, then those
		 * starting in the window: each step costs its own activities */
		uint32_t *sv = NULL;
		size_t scap = 0, ns = c->endmax ? actx_straddlers(c, lo, &sv, &scap) : 0;
		uint32_t i0 = c->endmax ? trace_act_lower(t, lo) : actx_act_from(c, lo);
		for (size_t j = 0;; j++) {
			uint32_t i = j < ns ? sv[j] : i0 + (uint32_t)(j - ns);
			if (j >= ns && (i >= t->nact || t->act[i].start >= hi))
				break;
			const struct trace_act *a = &t->act[i];
			if (!actx_on_dev(c, a))
				continue;
			gf_ns ov = actx_overlap(a->start, a->end, lo, hi);
			switch (a->kind) {
			case TA_KERNEL:
				row->kernel += ov;
				if (a->start >= lo) {
					row->kernels++;
					vec_push(&kd, a->end - a->start);
				}
				break;
			case TA_MEMCPY:
				row->memcpy += ov;
				break;
			case TA_MEMSET:
				row->memset += ov;
				break;
			}
		}
		free(sv);
	}
	row->median_kernel = actx_median(kd.v, kd.n);
	vec_free(&kd);
	/* host calls on all threads that start in the window */
	{
		for (uint32_t j = actx_range_lower(c, lo); j < t->nr && t->r[c->by_start[j]].start < hi; j++) {
			uint32_t i = c->by_start[j];
			const struct trace_range *r = &t->r[i];
			if (r->kind != TR_RUNTIME && r->kind != TR_DRIVER)
				continue;
			if (r->flags & TRF_LAUNCH) {
				row->launches++;
				if (r->flags & TRF_GRAPH)
					row->graph_launches++;
			}
			if (c->blk[i]) {
				row->syncs++;
				row->sync_wait += r->end - r->start;
			}
		}
	}
}

/*
 * The fast path of steps_analyze: what steps_row finds by visiting a
 * window's activities and calls, from prefix sums, so each step costs
 * O(log n) however many steps hold the same events (nested or overlapping
 * markers): Σ|a ∩ [lo, hi)| = F(hi) - F(lo) with F(x) = Σ|a ∩ (-inf, x)| =
 * #starts<x · x - Σstarts<x - (#ends<x · x - Σends<x); counts and sums of
 * the calls starting in a window are differences of prefix sums along
 * c->by_start; the median kernel is a range query on a wavelet matrix of
 * the kernels' durations in start order. Sums are exact integers computed
 * modulo 2^64, so they equal steps_row's whenever those fit (actx_span).
 */
struct sfast {
	struct actx_span k[3];    /* kernel, memcpy, memset */
	uint32_t *kcnt;       /* kcnt[i]: device kernels among act[0..i) */
	uint64_t *launch, *graph, *sync, *swait; /* along c->by_start, prefix */
};

static void sfast_init(struct sfast *f, const struct actx *c)
{
	const struct trace *t = c->t;
	memset(f, 0, sizeof *f);
	f->kcnt = gf_xmalloc(((size_t)t->nact + 1) * sizeof *f->kcnt);
	size_t nk = 0;
	f->kcnt[0] = 0;
	for (uint32_t i = 0; i < t->nact; i++) {
		const struct trace_act *a = &t->act[i];
		bool on = c->dev != TRACE_NONE && actx_on_dev(c, a);
		int k = a->kind == TA_KERNEL ? 0 : a->kind == TA_MEMCPY ? 1 : a->kind == TA_MEMSET ? 2 : -1;
		if (on && k == 0)
			nk++;
		f->kcnt[i + 1] = (uint32_t)nk;
		if (on && k >= 0)
			actx_span_add(&f->k[k], a->start, a->end);
	}
	for (int k = 0; k < 3; k++)
		actx_span_seal(&f->k[k]);
	size_t nr1 = (size_t)t->nr + 1;
	f->launch = gf_xmalloc(nr1 * sizeof *f->launch);
	f->graph = gf_xmalloc(nr1 * sizeof *f->graph);
	f->sync = gf_xmalloc(nr1 * sizeof *f->sync);
	f->swait = gf_xmalloc(nr1 * sizeof *f->swait);
	f->launch[0] = f->graph[0] = f->sync[0] = f->swait[0] = 0;
	for (uint32_t j = 0; j < t->nr; j++) {
		uint32_t i = c->by_start[j];
		const struct trace_range *r = &t->r[i];
		bool rt = r->kind == TR_RUNTIME || r->kind == TR_DRIVER;
		bool l = rt && (r->flags & TRF_LAUNCH), b = rt && c->blk[i];
		f->launch[j + 1] = f->launch[j] + l;
		f->graph[j + 1] = f->graph[j] + (l && (r->flags & TRF_GRAPH));
		f->sync[j + 1] = f->sync[j] + b;
		f->swait[j + 1] = f->swait[j] + (b ? (uint64_t)r->end - (uint64_t)r->start : 0);
	}
}

static void sfast_release(struct sfast *f)
{
	for (int k = 0; k < 3; k++)
		actx_span_release(&f->k[k]);
	free(f->kcnt);
	free(f->launch);
	free(f->graph);
	free(f->sync);
	free(f->swait);
}

/* steps_row from the prefix sums: the same row in O(log n). */
static void sfast_row(const struct sfast *f, const struct actx *c, gf_ns lo, gf_ns hi, struct step_row *row)
{
	const struct trace *t = c->t;
	row->start = lo;
	row->end = hi;
	row->wall = hi - lo;
	row->busy = c->dev == TRACE_NONE ? 0 : actx_busy_in(c, lo, hi);
	row->idle = row->wall - row->busy;
	row->kernel = actx_span_in(&f->k[0], lo, hi);
	row->memcpy = actx_span_in(&f->k[1], lo, hi);
	row->memset = actx_span_in(&f->k[2], lo, hi);
	uint32_t i0 = trace_act_lower(t, lo), i1 = trace_act_lower(t, hi);
	if (i1 < i0)
		i1 = i0;
	row->kernels = f->kcnt[i1] - f->kcnt[i0];
	uint32_t j0 = actx_range_lower(c, lo), j1 = actx_range_lower(c, hi);
	if (j1 < j0)
		j1 = j0;
	row->launches = f->launch[j1] - f->launch[j0];
	row->graph_launches = f->graph[j1] - f->graph[j0];
	row->syncs = f->sync[j1] - f->sync[j0];
	row->sync_wait = (gf_ns)(f->swait[j1] - f->swait[j0]);
}

#define MED_COL(field)                                              \
	do {                                                        \
		for (size_t k = 0; k < m; k++)                      \
			v[k] = (gf_ns)src[k]->field;                \
		r->steady.field = actx_median(v, m);                \
	} while (0)

/* The rows the steady state takes the median of: the non-warm-up ones, all
 * when every one is warm-up. @return their count (src holds r->n). */
static size_t steady_rows(const struct steps_result *r, const struct step_row **src)
{
	size_t m = 0;
	for (size_t i = 0; i < r->n; i++)
		if (!r->rows[i].warmup)
			src[m++] = &r->rows[i];
	if (!m) {
		for (size_t i = 0; i < r->n; i++)
			src[m++] = &r->rows[i];
	}
	return m;
}

static void steady(struct steps_result *r)
{
	const struct step_row **src = gf_xcalloc(r->n ? r->n : 1, sizeof *src);
	size_t m = steady_rows(r, src);
	gf_ns *v = gf_xcalloc(m ? m : 1, sizeof *v);
	memset(&r->steady, 0, sizeof r->steady);
	r->steady.number = -1;
	r->steady.step = TRACE_NONE;
	MED_COL(wall);
	MED_COL(busy);
	MED_COL(kernel);
	MED_COL(memcpy);
	MED_COL(memset);
	MED_COL(idle);
	MED_COL(sync_wait);
	MED_COL(syncs);
	MED_COL(launches);
	MED_COL(graph_launches);
	MED_COL(kernels);
	MED_COL(median_kernel);
	free(v);
	free(src);
}

/* Kernels a copy per step may hold beyond twice the device's kernels. */
#define STEPS_COPY_SLACK 4096

void steps_medians(const struct actx *c, struct steps_result *r)
{
	if (r->whole_trace)
		return; /* steps_row computed it */
	const struct trace *t = c->t;
	uint32_t *kcnt = gf_xmalloc(((size_t)t->nact + 1) * sizeof *kcnt);
	gf_ns *kd = gf_xmalloc((t->nact ? t->nact : 1) * sizeof *kd);
	size_t nk = 0;
	kcnt[0] = 0;
	for (uint32_t i = 0; i < t->nact; i++) {
		const struct trace_act *a = &t->act[i];
		if (c->dev != TRACE_NONE && actx_on_dev(c, a) && a->kind == TA_KERNEL)
			kd[nk++] = a->end - a->start;
		kcnt[i + 1] = (uint32_t)nk;
	}
	/* a step's kernels are kd[kcnt[i0] .. kcnt[i1]): when the steps hold
	 * few kernels more than once (disjoint steps: each at most once), the
	 * median of a copy of each is linear in all; else one index answers
	 * each step in O(log n) (nested or overlapping steps). Both are the
	 * median of the same values. */
	uint32_t *lo = gf_xmalloc((r->n ? r->n : 1) * sizeof *lo), *hi = gf_xmalloc((r->n ? r->n : 1) * sizeof *hi);
	uint64_t tot = 0;
	size_t most = 0;
	for (size_t k = 0; k < r->n; k++) {
		uint32_t i0 = trace_act_lower(t, r->rows[k].start), i1 = trace_act_lower(t, r->rows[k].end);
		if (i1 < i0)
			i1 = i0;
		lo[k] = kcnt[i0];
		hi[k] = kcnt[i1];
		tot += hi[k] - lo[k];
		most = GF_MAX(most, (size_t)(hi[k] - lo[k]));
	}
	if (tot <= 2 * (uint64_t)nk + STEPS_COPY_SLACK) {
		gf_ns *v = gf_xmalloc((most ? most : 1) * sizeof *v);
		for (size_t k = 0; k < r->n; k++) {
			size_t m = hi[k] - lo[k];
			memcpy(v, kd + lo[k], m * sizeof *v);
			r->rows[k].median_kernel = actx_median(v, m);
		}
		free(v);
	} else {
		struct actx_kth kdur; /* the kernels' durations, in act order */
		actx_kth_init(&kdur, kd, nk);
		for (size_t k = 0; k < r->n; k++)
			r->rows[k].median_kernel = actx_kth_median(&kdur, lo[k], hi[k]);
		actx_kth_release(&kdur);
	}
	free(lo);
	free(hi);
	free(kd);
	free(kcnt);
	const struct step_row **src = gf_xcalloc(r->n ? r->n : 1, sizeof *src);
	size_t m = steady_rows(r, src);
	gf_ns *v = gf_xcalloc(m ? m : 1, sizeof *v);
	MED_COL(median_kernel);
	free(v);
	free(src);
}

int steps_analyze(const struct actx *c, const struct trace_sel *o, struct steps_result *r,
		  struct sbuf *err)
{
	return steps_analyze_part(c, o, STEPS_SUMS | STEPS_MEDIAN, r, err);
}

/* A row of the window [lo, hi) without its sums (STEPS_SUMS not asked). */
static void window_row(gf_ns lo, gf_ns hi, struct step_row *row)
{
	row->start = lo;
	row->end = hi;
	row->wall = hi - lo;
}

int steps_analyze_part(const struct actx *c, const struct trace_sel *o, unsigned what,
		       struct steps_result *r, struct sbuf *err)
{
	bool sums = (what & STEPS_SUMS) != 0;
	const struct trace *t = c->t;
	memset(r, 0, sizeof *r);
	if (!t->nsteps) {
		/* --steps/--skip on a trace without steps select nothing: the
		 * usage error every command gives (trace_sel_pick's message) */
		uint32_t none;
		if (trace_sel_active(o))
			return trace_sel_pick(t, o, NULL, NULL, &none, err);
		r->whole_trace = true;
		r->rows = gf_xcalloc(1, sizeof *r->rows);
		r->n = 1;
		r->rows[0].number = -1;
		r->rows[0].step = TRACE_NONE;
		if (sums)
			steps_row(c, t->win_start, t->win_end, &r->rows[0]);
		else
			window_row(t->win_start, t->win_end, &r->rows[0]);
	} else {
		uint32_t *keep = gf_xmalloc(t->nsteps * sizeof *keep), nkeep;
		int rc = trace_sel_pick(t, o, NULL, keep, &nkeep, err);
		r->dropped = t->nsteps - nkeep;
		if (rc) {
			free(keep);
			return rc;
		}
		r->rows = gf_xcalloc(t->nsteps, sizeof *r->rows);
		struct sfast f;
		if (sums)
			sfast_init(&f, c);
		/* a zero-length step holds nothing: left out (it would count in
		 * the steady means' denominator), unless every kept step is one */
		uint32_t nonempty = 0;
		for (uint32_t k = 0; k < nkeep; k++)
			nonempty += t->steps[keep[k]].end > t->steps[keep[k]].start;
		for (uint32_t k = 0; k < nkeep; k++) {
			const struct trace_step *st = &t->steps[keep[k]];
			if (nonempty && st->end <= st->start) {
				r->empty++;
				continue;
			}
			struct step_row *row = &r->rows[r->n++];
			row->number = st->number;
			row->step = keep[k];
			if (sums)
				sfast_row(&f, c, st->start, st->end, row);
			else
				window_row(st->start, st->end, row);
		}
		if (sums)
			sfast_release(&f);
		free(keep);
	}
	/* warm-up: leading steps slower than 1.5x the median wall */
	if (r->n >= 3) {
		gf_ns *w = gf_xmalloc(r->n * sizeof *w);
		for (size_t i = 0; i < r->n; i++)
			w[i] = r->rows[i].wall;
		gf_ns med = actx_median(w, r->n);
		free(w);
		for (size_t i = 0; i < r->n / 2; i++) {
			__int128 lhs = (__int128)r->rows[i].wall * STEPS_WARM_DEN;
			__int128 rhs = (__int128)med * STEPS_WARM_NUM;
			if (lhs <= rhs)
				break;
			r->rows[i].warmup = true;
			r->nwarm++;
		}
	}
	r->nsteady = r->n - r->nwarm;
	steady(r);
	if (sums && (what & STEPS_MEDIAN))
		steps_medians(c, r);
	return GF_OK;
}

void steps_release(struct steps_result *r)
{
	free(r->rows);
	memset(r, 0, sizeof *r);
}

gf_ns *steps_pmax(const struct steps_result *r)
{
	if (!r->n)
		return NULL;
	gf_ns *pmax = gf_xmalloc(r->n * sizeof *pmax);
	for (size_t s = 0; s < r->n; s++)
		pmax[s] = s && pmax[s - 1] > r->rows[s].end ? pmax[s - 1] : r->rows[s].end;
	return pmax;
}

long steps_row_at(const struct steps_result *r, const gf_ns *pmax, gf_ns ts)
{
	/* the first row ending after ts (the first prefix maximum past it)
	 * holds ts when it starts at or before it */
	size_t l = 0, h = r->n;
	while (l < h) {
		size_t m = l + (h - l) / 2;
		if (pmax[m] <= ts)
			l = m + 1;
		else
			h = m;
	}
	return l < r->n && r->rows[l].start <= ts ? (long)l : -1;
}
