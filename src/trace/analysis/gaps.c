/* gaps.c — GPU idle time by cause, and the launch-bound diagnosis (see gaps.h). */
#include "trace/analysis/gaps.h"

#include "base/num.h"
#include "base/vec.h"

#include <stdlib.h>
#include <string.h>

/* HTA's runtime_cutoff for "short GPU kernels". */
#define RUNTIME_CUTOFF_NS 50000

struct bend {
	gf_ns end;
	uint32_t ri;
};

static int cmp_bend(const void *a, const void *b)
{
	const struct bend *x = a, *y = b;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return (x->ri > y->ri) - (x->ri < y->ri);
}

/* Accumulator keyed by (site name id, inner name id). */
struct kacc {
	uint64_t key;
	gf_ns ns;
	bool used;
};

struct kmap {
	struct kacc *s;
	size_t cap, n;
};

static void kmap_add(struct kmap *m, uint64_t key, gf_ns ns)
{
	if (2 * (m->n + 1) > m->cap) {
		size_t nc = m->cap ? 2 * m->cap : 64;
		struct kacc *ns_ = gf_xcalloc(nc, sizeof *ns_);
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->s[i].used)
				continue;
			size_t h = gf_hash_u64(m->s[i].key) & (nc - 1);
			while (ns_[h].used)
				h = (h + 1) & (nc - 1);
			ns_[h] = m->s[i];
		}
		free(m->s);
		m->s = ns_;
		m->cap = nc;
	}
	size_t h = gf_hash_u64(key) & (m->cap - 1);
	while (m->s[h].used && m->s[h].key != key)
		h = (h + 1) & (m->cap - 1);
	if (!m->s[h].used) {
		m->s[h].used = true;
		m->s[h].key = key;
		m->n++;
	}
	m->s[h].ns += ns;
}

static int cmp_key(const void *a, const void *b)
{
	const struct gap_key *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return strcmp(x->label, y->label);
}

/* Turns a map into sorted labelled keys. */
static struct gap_key *kmap_keys(const struct trace *t, struct kmap *m, size_t *n)
{
	struct gap_key *k = gf_xcalloc(m->n ? m->n : 1, sizeof *k);
	size_t j = 0;
	struct sbuf b = SBUF_INIT;
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->s[i].used)
			continue;
		uint32_t a = (uint32_t)(m->s[i].key >> 32), z = (uint32_t)m->s[i].key;
		sbuf_reset(&b);
		sbuf_addstr(&b, a == UINT32_MAX ? "[no Python frame]" : pool_str(t->names, a));
		if (z != UINT32_MAX) {
			sbuf_addstr(&b, " > ");
			sbuf_addstr(&b, pool_str(t->names, z));
		}
		k[j].label = gf_xstrdup(b.buf);
		k[j].ns = m->s[i].ns;
		j++;
	}
	sbuf_release(&b);
	free(m->s);
	memset(m, 0, sizeof *m);
	qsort(k, j, sizeof *k, cmp_key);
	*n = j;
	return k;
}

gf_ns gaps_mean(gf_ns x, size_t n)
{
	int64_t v = 0;
	if (!n || !num_muldiv(x, 1, (int64_t)n, &v))
		return 0;
	return v;
}

const char *gaps_launch_advice(const struct launch_diag *ld)
{
	if (ld->graphs)
		return "the step already replays CUDA graphs: raise the effective batch, or fuse "
		       "kernels (torch.compile) so each launch carries more work";
	return "capture the step in a CUDA graph (torch.compile mode=\"reduce-overhead\" or "
	       "torch.cuda.graphs), raise the effective batch, or compile the step: most kernels "
	       "are shorter than their launch call";
}

/* The first activity on the device starting at or after ts, or TRACE_NONE. */
static uint32_t next_act(const struct actx *c, gf_ns ts)
{
	const struct trace *t = c->t;
	for (uint32_t i = trace_act_lower(t, ts); i < t->nact; i++)
		if (actx_on_dev(c, &t->act[i]))
			return i;
	return TRACE_NONE;
}

struct bends {
	struct bend *v;
	size_t n;
};

/* The causes of gaps.h as sorted disjoint intervals of time: gap j's cause
 * does not depend on the step (it is decided on the gap's full extent), so
 * a step's row is the measure of each list inside its window, O(log n)
 * however many steps hold the same gaps (nested or overlapping markers). */
enum { GC_SYNC, GC_LAUNCH, GC_HOST, GC_UNTRACED, GC_OTHER, GC_HTA_HOST, GC_HTA_KERNEL, GC_HTA_OTHER, GC_N };

struct gcause {
	struct actx_pairs p[GC_N];
	struct actx_span steady; /* the steady step windows */
};

/* Charges [lo, hi) of a host-late gap by what the launching thread was
 * doing; each stack gets its time inside the steady steps (once per step
 * holding it). */
static void charge_host(const struct actx *c, uint32_t th, gf_ns lo, gf_ns hi, struct gcause *gc,
			struct kmap *m)
{
	const struct trace *t = c->t;
	struct trace_wsweep s;
	gf_ns a, b;
	uint32_t r;
	/* O(log depth) to start: one sweep per gap stays linear on deep stacks */
	trace_wsweep_init(&s, &c->walk, th, lo, hi);
	while (trace_wsweep_next(&s, &a, &b, &r)) {
		if (r == TRACE_NONE || (t->r[r].flags & TRF_STEP)) {
			actx_pairs_add(&gc->p[GC_UNTRACED], a, b);
			continue;
		}
		actx_pairs_add(&gc->p[GC_HOST], a, b);
		gf_ns w = actx_span_in(&gc->steady, a, b);
		if (w) {
			uint32_t site = actx_site(c, r);
			uint32_t sn = site == TRACE_NONE ? UINT32_MAX : t->r[site].name;
			uint32_t in = site == r ? UINT32_MAX : t->r[r].name;
			kmap_add(m, (uint64_t)sn << 32 | in, w);
		}
	}
	trace_wsweep_release(&s);
}

/* Classifies the idle gap [af, bf) (busy pair ends and starts; INT64_MIN /
 * INT64_MAX at the trace's ends), as far as [cur, e) (the steps' span). */
static void gap_classify(const struct actx *c, const struct bends *be, gf_ns af, gf_ns bf, gf_ns cur,
			 gf_ns e, struct gcause *gc, struct kmap *hostm, struct kmap *syncm)
{
	const struct trace *t = c->t;
	bool full_short = af != INT64_MIN && bf != INT64_MAX && bf - af < ACTX_KERNEL_WAIT_NS;
	/* the next activity and its launch */
	uint32_t na = bf == INT64_MAX ? TRACE_NONE : next_act(c, bf);
	uint32_t L = na == TRACE_NONE ? TRACE_NONE : t->act[na].launch;
	bool late = L != TRACE_NONE && t->r[L].start > af;
	/* HTA's rule */
	actx_pairs_add(&gc->p[late ? GC_HTA_HOST : full_short ? GC_HTA_KERNEL : GC_HTA_OTHER], cur, e);
	/* a blocking call returning within [af, bf] */
	size_t lo2 = 0, hi2 = be->n;
	while (lo2 < hi2) {
		size_t m = lo2 + (hi2 - lo2) / 2;
		if (be->v[m].end < af)
			lo2 = m + 1;
		else
			hi2 = m;
	}
	if (lo2 < be->n && be->v[lo2].end <= bf) {
		actx_pairs_add(&gc->p[GC_SYNC], cur, e);
		gf_ns w = actx_span_in(&gc->steady, cur, e);
		if (w) {
			uint32_t sr = be->v[lo2].ri;
			uint32_t site = actx_site(c, sr);
			uint64_t key = site == TRACE_NONE ? (uint64_t)UINT32_MAX << 32 | t->r[sr].name
							  : (uint64_t)t->r[site].name << 32 | UINT32_MAX;
			kmap_add(syncm, key, w);
		}
	} else if (full_short) {
		actx_pairs_add(&gc->p[GC_LAUNCH], cur, e);
	} else if (late) {
		charge_host(c, t->r[L].thread, cur, e, gc, hostm);
	} else {
		actx_pairs_add(&gc->p[GC_OTHER], cur, e);
	}
}

/* Gap j of the device (0 <= j <= nbusy): [end of busy pair j-1, start of
 * pair j), unbounded at the ends. */
static gf_ns gap_af(const struct actx *c, size_t j)
{
	return j > 0 ? c->busy[2 * j - 1] : INT64_MIN;
}

static gf_ns gap_bf(const struct actx *c, size_t j)
{
	return j < c->nbusy ? c->busy[2 * j] : INT64_MAX;
}

/* The gaps meeting [lo, hi) (hi > lo) are among jf..jl. */
static void gap_span(const struct actx *c, gf_ns lo, gf_ns hi, size_t *jf, size_t *jl)
{
	size_t i = actx_busy_after(c, lo);
	*jf = (i < c->nbusy && c->busy[2 * i] <= lo) ? i + 1 : i;
	/* jl: pairs ending before hi */
	size_t l = 0, h = c->nbusy;
	while (l < h) {
		size_t m = l + (h - l) / 2;
		if (c->busy[2 * m + 1] < hi)
			l = m + 1;
		else
			h = m;
	}
	*jl = l;
}

static void launch_diag(const struct actx *c, const struct steps_result *st, struct gaps_result *r)
{
	const struct trace *t = c->t;
	struct launch_diag *ld = &r->ld;
	/* Every activity and call counts once per steady step whose window
	 * holds its start (steps may overlap): weighted, so overlapping or
	 * nested steps cost O(n + threads log steps), not a copy per step. */
	struct actx_cover cv;
	actx_cover_init(&cv, st);
	VEC(struct actx_wval) kd = VEC_INIT;
	VEC(struct actx_wval) ldur = VEC_INIT;
	uint64_t nkd = 0, nldur = 0;
	/* activities by start, each thread's calls by start: sweeps */
	struct actx_cover_sweep sa = { 0 }, sr = { 0 };
	if (c->dev != TRACE_NONE && cv.n) {
		for (uint32_t k = 0; k < t->nact; k++) {
			const struct trace_act *a = &t->act[k];
			if (!actx_on_dev(c, a) || a->kind != TA_KERNEL)
				continue;
			uint64_t w = actx_cover_next(&cv, &sa, a->start);
			if (!w)
				continue;
			struct actx_wval x = { a->end - a->start, w };
			vec_push(&kd, x);
			nkd += w;
			if (a->launch == TRACE_NONE || (a->flags & TAF_GRAPH))
				continue;
			const struct trace_range *l = &t->r[a->launch];
			ld->compared += w;
			gf_ns cd = l->end - l->start;
			if (cd <= RUNTIME_CUTOFF_NS && a->end - a->start < cd)
				ld->short_kernels += w;
		}
	}
	for (uint32_t k = 0; k < t->nr && cv.n; k++) {
		const struct trace_range *x = &t->r[k];
		if (!(x->flags & TRF_LAUNCH) || (x->kind != TR_RUNTIME && x->kind != TR_DRIVER))
			continue;
		uint64_t w = actx_cover_next(&cv, &sr, x->start);
		if (!w)
			continue;
		if (x->flags & TRF_GRAPH) {
			ld->graph_launches += w;
			continue;
		}
		struct actx_wval y = { x->end - x->start, w };
		vec_push(&ldur, y);
		nldur += w;
	}
	actx_cover_release(&cv);
	ld->kernels = nkd;
	ld->launch_calls = nldur;
	ld->median_kernel = actx_wmedian(kd.v, kd.n);
	ld->median_launch = actx_wmedian(ldur.v, ldur.n);
	ld->kernels_per_step = (gf_ns)st->steady.kernels;
	ld->launches_per_step = (gf_ns)st->steady.launches;
	ld->graphs = ld->graph_launches > 0;
	vec_free(&kd);
	vec_free(&ldur);
	const struct step_row *s = &st->steady;
	const struct gap_row *g = &r->steady;
	bool low_busy = (__int128)s->busy * 5 < (__int128)s->wall * 4;
	bool short_k = ld->kernels && ld->launch_calls && ld->median_kernel < ld->median_launch;
	if (ld->graphs && !ld->launch_calls)
		short_k = ld->kernels_per_step > 0 && ld->median_kernel < ACTX_KERNEL_WAIT_NS;
	ld->launch_bound = low_busy && short_k && g->launch + g->host + g->untraced > g->sync &&
			   g->launch + g->host > 0;
}

int gaps_analyze(const struct actx *c, const struct steps_result *st, struct gaps_result *r)
{
	const struct trace *t = c->t;
	memset(r, 0, sizeof *r);
	r->n = st->n;
	r->rows = gf_xcalloc(st->n ? st->n : 1, sizeof *r->rows);
	VEC(struct bend) be = VEC_INIT;
	for (uint32_t i = 0; i < t->nr; i++)
		if (c->blk[i]) {
			struct bend x = { t->r[i].end, i };
			vec_push(&be, x);
		}
	if (be.n)
		qsort(be.v, be.n, sizeof *be.v, cmp_bend);
	struct kmap hostm = { 0 }, syncm = { 0 };
	struct bends bs = { be.v, be.n };
	/*
	 * Each gap is classified once, on its full extent, as far as the steps
	 * reach (only gaps meeting a step); a step's row is then the measure of
	 * each cause inside its window, and a stack or sync site counts its time
	 * inside each steady step (actx_span): O(n log n) even when every step
	 * holds most of the trace.
	 */
	struct gcause gc;
	memset(&gc, 0, sizeof gc);
	size_t ng = c->dev == TRACE_NONE ? 0 : c->nbusy + 1;
	int64_t *dall = gf_xcalloc(ng + 1, sizeof *dall);
	gf_ns slo = INT64_MAX, shi = INT64_MIN;
	for (size_t ri = 0; ri < st->n && ng; ri++) {
		const struct step_row *row = &st->rows[ri];
		size_t jf, jl;
		if (row->end <= row->start)
			continue;
		if (!row->warmup || !st->nsteady)
			actx_span_add(&gc.steady, row->start, row->end);
		slo = row->start < slo ? row->start : slo;
		shi = row->end > shi ? row->end : shi;
		gap_span(c, row->start, row->end, &jf, &jl);
		if (jf > jl)
			continue;
		dall[jf]++;
		dall[jl + 1]--;
	}
	actx_span_seal(&gc.steady);
	int64_t call = 0;
	for (size_t j = 0; j < ng; j++) {
		call += dall[j];
		gf_ns af = gap_af(c, j), bf = gap_bf(c, j);
		gf_ns cur = af > slo ? af : slo, e = bf < shi ? bf : shi;
		if (!call || e <= cur)
			continue;
		gap_classify(c, &bs, af, bf, cur, e, &gc, &hostm, &syncm);
	}
	free(dall);
	for (int k = 0; k < GC_N; k++)
		actx_pairs_seal(&gc.p[k]);
	for (size_t ri = 0; ri < st->n; ri++) {
		const struct step_row *row = &st->rows[ri];
		struct gap_row *g = &r->rows[ri];
		gf_ns lo = row->start, hi = row->end;
		if (c->dev == TRACE_NONE) {
			g->other = hi - lo;
			g->hta_other = hi - lo;
			continue;
		}
		g->sync = actx_pairs_in(&gc.p[GC_SYNC], lo, hi);
		g->launch = actx_pairs_in(&gc.p[GC_LAUNCH], lo, hi);
		g->host = actx_pairs_in(&gc.p[GC_HOST], lo, hi);
		g->untraced = actx_pairs_in(&gc.p[GC_UNTRACED], lo, hi);
		g->other = actx_pairs_in(&gc.p[GC_OTHER], lo, hi);
		g->hta_host = actx_pairs_in(&gc.p[GC_HTA_HOST], lo, hi);
		g->hta_kernel = actx_pairs_in(&gc.p[GC_HTA_KERNEL], lo, hi);
		g->hta_other = actx_pairs_in(&gc.p[GC_HTA_OTHER], lo, hi);
	}
	for (int k = 0; k < GC_N; k++)
		actx_pairs_release(&gc.p[k]);
	actx_span_release(&gc.steady);
	vec_free(&be);
	/* steady means */
	struct gap_row sum = { 0 };
	size_t m = 0;
	for (size_t ri = 0; ri < st->n; ri++) {
		if (st->rows[ri].warmup && st->nsteady)
			continue;
		const struct gap_row *g = &r->rows[ri];
		sum.sync += g->sync;
		sum.launch += g->launch;
		sum.host += g->host;
		sum.untraced += g->untraced;
		sum.other += g->other;
		sum.hta_host += g->hta_host;
		sum.hta_kernel += g->hta_kernel;
		sum.hta_other += g->hta_other;
		m++;
	}
	r->steady.sync = gaps_mean(sum.sync, m);
	r->steady.launch = gaps_mean(sum.launch, m);
	r->steady.host = gaps_mean(sum.host, m);
	r->steady.untraced = gaps_mean(sum.untraced, m);
	r->steady.other = gaps_mean(sum.other, m);
	r->steady.hta_host = gaps_mean(sum.hta_host, m);
	r->steady.hta_kernel = gaps_mean(sum.hta_kernel, m);
	r->steady.hta_other = gaps_mean(sum.hta_other, m);
	r->host = kmap_keys(t, &hostm, &r->nhost);
	r->sync = kmap_keys(t, &syncm, &r->nsync);
	launch_diag(c, st, r);
	return GF_OK;
}

void gaps_release(struct gaps_result *r)
{
	for (size_t i = 0; i < r->nhost; i++)
		free(r->host[i].label);
	for (size_t i = 0; i < r->nsync; i++)
		free(r->sync[i].label);
	free(r->host);
	free(r->sync);
	free(r->rows);
	memset(r, 0, sizeof *r);
}
