/* gaps.c — GPU idle time by cause, and the launch-bound diagnosis (see gaps.h). */
#include "trace/analysis/gaps.h"

#include "base/names.h"
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

/* A host stack's or sync site's label: "site > inner" by name ids. */
static void host_label(const struct trace *t, uint64_t key, struct sbuf *b)
{
	uint32_t a = (uint32_t)(key >> 32), z = (uint32_t)key;
	sbuf_addstr(b, a == UINT32_MAX ? "[no Python frame]" : pool_str(t->names, a));
	if (z != UINT32_MAX) {
		sbuf_addstr(b, " > ");
		sbuf_addstr(b, pool_str(t->names, z));
	}
}

/* Turns a map into keys labelled by label(), sorted by time then label. */
static struct gap_key *map_keys(const struct trace *t, struct kmap *m, size_t *n,
				void (*label)(const struct trace *, uint64_t, struct sbuf *))
{
	struct gap_key *k = gf_xcalloc(m->n ? m->n : 1, sizeof *k);
	size_t j = 0;
	struct sbuf b = SBUF_INIT;
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->s[i].used)
			continue;
		sbuf_reset(&b);
		label(t, m->s[i].key, &b);
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


/* Queued-wait keys: high 32 bits the wait call's name id, or these. */
#define QW_NONE UINT32_MAX        /* "stream S: no wait call in the trace" */
#define QW_NOLAUNCH (UINT32_MAX - 1) /* "no launch in the trace (stream S)" */

static void wait_label(const struct trace *t, uint64_t key, struct sbuf *b)
{
	uint32_t w = (uint32_t)(key >> 32);
	long long st = (int32_t)(uint32_t)key;
	if (w == QW_NONE)
		sbuf_addf(b, "stream %lld: no wait call in the trace", st);
	else if (w == QW_NOLAUNCH)
		sbuf_addf(b, "no launch in the trace (stream %lld)", st);
	else
		sbuf_addf(b, "%s (stream %lld)", pool_str(t->names, w), st);
}


int64_t gaps_share(gf_ns part, gf_ns whole)
{
	int64_t v = 0;
	if (whole <= 0 || !num_muldiv(part, 10000, whole, &v))
		return 0;
	return v;
}

gf_ns gaps_mean(gf_ns x, size_t n)
{
	int64_t v = 0;
	if (!n || !num_muldiv(x, 1, (int64_t)n, &v))
		return 0;
	return v;
}

gf_ns gaps_idle(const struct gap_row *g)
{
	gf_ns s = 0;
	for (int k = 0; k < GAP_NCAUSES; k++)
		s += g->c[k];
	return s;
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
enum { GC_HTA_HOST = GAP_NCAUSES, GC_HTA_KERNEL, GC_HTA_OTHER, GC_N };

struct gcause {
	struct actx_pairs p[GC_N];
	struct actx_span steady; /* the steady step windows */
	struct actx_span sel;    /* every selected step window (syncs' bubble) */
	const uint32_t *wait_of; /* per range: the wait-event call before the launch */
	struct kmap keys[GAP_NCAUSES]; /* host stacks, sync sites, queued waits */
	VEC(struct gap_call) calls;
	bool keep;               /* record the pieces (gaps_analyze_pieces) */
	VEC(struct gap_piece) pieces;
};

/* Adds [lo, hi) to cause k's list (GAP_*), and to the pieces when they
 * are kept. */
static void piece(struct gcause *gc, int k, gf_ns lo, gf_ns hi, uint32_t ri)
{
	actx_pairs_add(&gc->p[k], lo, hi);
	if (gc->keep && hi > lo) {
		struct gap_piece x = { lo, hi, ri, (uint8_t)k };
		vec_push(&gc->pieces, x);
	}
}

/* Charges [lo, hi) of a host-late gap by what the launching thread was
 * doing; each stack gets its time inside the steady steps (once per step
 * holding it). */
static void charge_host(const struct actx *c, uint32_t th, gf_ns lo, gf_ns hi, struct gcause *gc)
{
	const struct trace *t = c->t;
	struct trace_wsweep s;
	gf_ns a, b;
	uint32_t r;
	/* O(log depth) to start: one sweep per gap stays linear on deep stacks */
	trace_wsweep_init(&s, &c->walk, th, lo, hi);
	while (trace_wsweep_next(&s, &a, &b, &r)) {
		if (r == TRACE_NONE || (t->r[r].flags & TRF_STEP)) {
			piece(gc, GAP_UNTRACED, a, b, TRACE_NONE);
			continue;
		}
		piece(gc, GAP_HOST, a, b, r);
		gf_ns w = actx_span_in(&gc->steady, a, b);
		if (w) {
			uint32_t site = actx_site(c, r);
			uint32_t sn = site == TRACE_NONE ? UINT32_MAX : t->r[site].name;
			uint32_t in = site == r ? UINT32_MAX : t->r[r].name;
			kmap_add(&gc->keys[GAP_HOST], (uint64_t)sn << 32 | in, w);
		}
	}
	trace_wsweep_release(&s);
}

/* A queued piece [lo, hi) before activity na (launched by L, or none). */
static void charge_queued(const struct actx *c, uint32_t na, uint32_t L, gf_ns lo, gf_ns hi, struct gcause *gc)
{
	if (hi <= lo)
		return;
	piece(gc, GAP_QUEUED, lo, hi, L);
	gf_ns w = actx_span_in(&gc->steady, lo, hi);
	if (!w)
		return;
	uint32_t wc = L == TRACE_NONE ? QW_NOLAUNCH : gc->wait_of[L];
	if (wc == TRACE_NONE)
		wc = QW_NONE;
	else if (wc != QW_NOLAUNCH)
		wc = c->t->r[wc].name;
	kmap_add(&gc->keys[GAP_QUEUED], (uint64_t)wc << 32 | (uint32_t)c->t->act[na].stream, w);
}

/* The blocking call that drained the device into the gap at af: B.start <
 * af <= B.end <= h, the smallest end, then the lowest index (be is sorted
 * so); only the calls ending in [af, h] are looked at. TRACE_NONE. */
static uint32_t drain_call(const struct actx *c, const struct bends *be, gf_ns af, gf_ns h)
{
	size_t lo = 0, hi = be->n;
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;
		if (be->v[m].end < af)
			lo = m + 1;
		else
			hi = m;
	}
	for (size_t k = lo; k < be->n && be->v[k].end <= h; k++)
		if (c->t->r[be->v[k].ri].start < af)
			return be->v[k].ri;
	return TRACE_NONE;
}

/* The sync piece [lo, hi) charged to blocking call B (returned at bend). */
static void charge_sync(const struct actx *c, uint32_t B, gf_ns lo, gf_ns hi, struct gcause *gc)
{
	const struct trace *t = c->t;
	if (hi <= lo)
		return;
	piece(gc, GAP_SYNC, lo, hi, B);
	gf_ns w = actx_span_in(&gc->steady, lo, hi);
	if (w) {
		uint32_t site = actx_site(c, B);
		uint64_t key = site == TRACE_NONE ? (uint64_t)UINT32_MAX << 32 | t->r[B].name
						  : (uint64_t)t->r[site].name << 32 | UINT32_MAX;
		kmap_add(&gc->keys[GAP_SYNC], key, w);
	}
	gf_ns in = actx_span_in(&gc->sel, lo, hi);
	gf_ns be = t->r[B].end > lo ? t->r[B].end : lo;
	gf_ns after = actx_span_in(&gc->sel, be, hi);
	/* one gap per call: B.end lies in exactly one gap's [a, h] */
	if (in) {
		struct gap_call x = { B, in, after, w };
		vec_push(&gc->calls, x);
	}
}

/* Classifies the idle gap [af, bf) (busy pair ends and starts; INT64_MIN /
 * INT64_MAX at the trace's ends), as far as [cur, e) (the steps' span):
 * the rules of gaps.h, in that order. */
static void gap_classify(const struct actx *c, const struct bends *be, gf_ns af, gf_ns bf, gf_ns cur,
			 gf_ns e, struct gcause *gc)
{
	const struct trace *t = c->t;
	bool finite = af != INT64_MIN && bf != INT64_MAX;
	bool full_short = finite && bf - af < ACTX_KERNEL_WAIT_NS;
	/* the next activity and its launch */
	uint32_t na = bf == INT64_MAX ? TRACE_NONE : next_act(c, bf);
	uint32_t L = na == TRACE_NONE ? TRACE_NONE : t->act[na].launch;
	bool late = L != TRACE_NONE && t->r[L].start > af;
	/* HTA's rule */
	actx_pairs_add(&gc->p[late ? GC_HTA_HOST : full_short ? GC_HTA_KERNEL : GC_HTA_OTHER], cur, e);
	if (!finite || (!full_short && na != TRACE_NONE && (t->act[na].flags & TAF_BEFORE))) {
		piece(gc, GAP_EDGE, cur, e, TRACE_NONE);
		return;
	}
	if (full_short) {
		piece(gc, GAP_LAUNCH, cur, e, L);
		return;
	}
	if (!late) {
		/* no launch in the trace, or issued before the GPU went idle */
		charge_queued(c, na, L, cur, e, gc);
		return;
	}
	gf_ns i = t->r[L].start, h = i < bf ? i : bf;
	gf_ns hlo = cur, hhi = h < e ? h : e;
	if (hhi > hlo) {
		uint32_t B = drain_call(c, be, af, h);
		if (B != TRACE_NONE)
			charge_sync(c, B, hlo, hhi, gc);
		else
			charge_host(c, t->r[L].thread, hlo, hhi, gc);
	}
	if (i < bf) {
		gf_ns dlo = h > cur ? h : cur;
		if (bf - i < ACTX_KERNEL_WAIT_NS) {
			piece(gc, GAP_LAUNCH, dlo, e, L);
			return;
		}
		/* while the host is still inside the launch call (a launch that
		 * loads code, allocates or blocks), the work is not issued yet:
		 * host, charged to that call; after its return, launch or queued */
		gf_ns r = t->r[L].end < bf ? t->r[L].end : bf;
		gf_ns rr = r < e ? r : e;
		if (rr > dlo)
			charge_host(c, t->r[L].thread, dlo, rr, gc);
		dlo = rr > dlo ? rr : dlo;
		if (bf - r < ACTX_KERNEL_WAIT_NS)
			piece(gc, GAP_LAUNCH, dlo, e, L);
		else
			charge_queued(c, na, L, dlo, e, gc);
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
	VEC(struct actx_wval) lat = VEC_INIT;
	uint64_t nkd = 0, nldur = 0, nlat = 0;
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
		uint32_t fa = c->first_act[k];
		if (fa != TRACE_NONE && actx_on_dev(c, &t->act[fa])) {
			struct actx_wval z = { t->act[fa].start - x->start, w };
			vec_push(&lat, z);
			nlat += w;
		}
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
	ld->median_latency = actx_wmedian(lat.v, lat.n);
	ld->latency_launches = nlat;
	ld->kernels_per_step = (gf_ns)st->steady.kernels;
	ld->launches_per_step = (gf_ns)st->steady.launches;
	ld->graphs = ld->graph_launches > 0;
	vec_free(&kd);
	vec_free(&ldur);
	vec_free(&lat);
	const struct step_row *s = &st->steady;
	const struct gap_row *g = &r->steady;
	bool low_busy = (__int128)s->busy * 5 < (__int128)s->wall * 4;
	bool short_k = ld->kernels && ld->launch_calls && ld->median_kernel < ld->median_launch;
	if (ld->graphs && !ld->launch_calls)
		short_k = ld->kernels_per_step > 0 && ld->median_kernel < ACTX_KERNEL_WAIT_NS;
	const gf_ns *v = g->c;
	ld->launch_bound = low_busy && short_k && v[GAP_LAUNCH] + v[GAP_HOST] + v[GAP_UNTRACED] > v[GAP_SYNC] &&
			   v[GAP_LAUNCH] + v[GAP_HOST] > 0;
}

/* Per launch call (TRF_LAUNCH runtime/driver range): the latest wait-event
 * call on its thread after the thread's previous launch call and at or
 * before it (thread order is by start), else TRACE_NONE: one pass per
 * thread, names classified once per pool id. */
static uint32_t *waits_before(const struct trace *t)
{
	uint32_t np = pool_count(t->names);
	uint8_t *cls = gf_xcalloc(np ? np : 1, 1); /* 0 unknown, 1 no, 2 a wait call */
	uint32_t *w = gf_xmalloc((t->nr ? t->nr : 1) * sizeof *w);
	for (uint32_t k = 0; k < t->nth; k++) {
		uint32_t last = TRACE_NONE;
		for (uint32_t i = t->th[k].first; i < t->th[k].first + t->th[k].n; i++) {
			const struct trace_range *x = &t->r[i];
			w[i] = TRACE_NONE;
			if (x->kind != TR_RUNTIME && x->kind != TR_DRIVER)
				continue;
			if (x->flags & TRF_LAUNCH) {
				w[i] = last;
				last = TRACE_NONE;
				continue;
			}
			if (x->name >= np)
				continue;
			if (!cls[x->name])
				cls[x->name] = (names_api(pool_str(t->names, x->name), pool_len(t->names, x->name)) &
						NAMES_API_WAIT) ? 2 : 1;
			if (cls[x->name] == 2)
				last = i;
		}
	}
	free(cls);
	return w;
}

static int cmp_call(const void *a, const void *b)
{
	const struct gap_call *x = a, *y = b;
	return (x->ri > y->ri) - (x->ri < y->ri);
}

const struct gap_call *gaps_call(const struct gaps_result *r, uint32_t ri)
{
	size_t lo = 0, hi = r->ncalls;
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;
		if (r->calls[m].ri < ri)
			lo = m + 1;
		else
			hi = m;
	}
	return lo < r->ncalls && r->calls[lo].ri == ri ? &r->calls[lo] : NULL;
}

static void row_add(struct gap_row *s, const struct gap_row *g)
{
	for (int k = 0; k < GAP_NCAUSES; k++)
		s->c[k] += g->c[k];
	s->hta_host += g->hta_host;
	s->hta_kernel += g->hta_kernel;
	s->hta_other += g->hta_other;
}

/* The steady sums and means (ns rounded half to even). */
static void steady_rows(const struct steps_result *st, struct gaps_result *r)
{
	struct gap_row sum = { 0 };
	size_t m = 0;
	for (size_t ri = 0; ri < st->n; ri++) {
		if (st->rows[ri].warmup && st->nsteady)
			continue;
		row_add(&sum, &r->rows[ri]);
		m++;
	}
	r->steady_sum = sum;
	r->nsteady = m;
	for (int k = 0; k < GAP_NCAUSES; k++)
		r->steady.c[k] = gaps_mean(sum.c[k], m);
	r->steady.hta_host = gaps_mean(sum.hta_host, m);
	r->steady.hta_kernel = gaps_mean(sum.hta_kernel, m);
	r->steady.hta_other = gaps_mean(sum.hta_other, m);
}

/* Each step's row: the measure of every cause inside its window. */
static void step_rows(const struct actx *c, const struct steps_result *st, const struct gcause *gc,
		      struct gaps_result *r)
{
	for (size_t ri = 0; ri < st->n; ri++) {
		const struct step_row *row = &st->rows[ri];
		struct gap_row *g = &r->rows[ri];
		gf_ns lo = row->start, hi = row->end;
		if (c->dev == TRACE_NONE) {
			g->c[GAP_EDGE] = hi > lo ? hi - lo : 0;
			g->hta_other = g->c[GAP_EDGE];
			continue;
		}
		gf_ns v[GC_N];
		for (int k = 0; k < GC_N; k++)
			v[k] = actx_pairs_in(&gc->p[k], lo, hi);
		for (int k = 0; k < GAP_NCAUSES; k++)
			g->c[k] = v[k];
		g->hta_host = v[GC_HTA_HOST];
		g->hta_kernel = v[GC_HTA_KERNEL];
		g->hta_other = v[GC_HTA_OTHER];
		/* the causes split the step's idle time exactly, and so does HTA's rule */
		GF_ASSERT(gaps_idle(g) == (hi - lo) - actx_busy_in(c, lo, hi));
		GF_ASSERT(g->hta_host + g->hta_kernel + g->hta_other == gaps_idle(g));
	}
}

static int analyze(const struct actx *c, const struct steps_result *st, struct gaps_result *r, bool keep)
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
	if (GF_CHECKS) /* drain_call's binary search */
		for (size_t i = 1; i < be.n; i++)
			GF_ASSERT(cmp_bend(&be.v[i - 1], &be.v[i]) < 0);
	struct bends bs = { be.v, be.n };
	/*
	 * Each gap is classified once, on its full extent, as far as the steps
	 * reach (only gaps meeting a step); a step's row is then the measure of
	 * each cause inside its window, and a stack, site or wait counts its
	 * time inside each steady step (actx_span): O(n log n) even when every
	 * step holds most of the trace.
	 */
	struct gcause gc;
	memset(&gc, 0, sizeof gc);
	gc.keep = keep;
	uint32_t *wait_of = waits_before(t);
	gc.wait_of = wait_of;
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
		actx_span_add(&gc.sel, row->start, row->end);
		slo = row->start < slo ? row->start : slo;
		shi = row->end > shi ? row->end : shi;
		gap_span(c, row->start, row->end, &jf, &jl);
		if (jf > jl)
			continue;
		dall[jf]++;
		dall[jl + 1]--;
	}
	actx_span_seal(&gc.steady);
	actx_span_seal(&gc.sel);
	int64_t call = 0;
	for (size_t j = 0; j < ng; j++) {
		call += dall[j];
		gf_ns af = gap_af(c, j), bf = gap_bf(c, j);
		gf_ns cur = af > slo ? af : slo, e = bf < shi ? bf : shi;
		if (!call || e <= cur)
			continue;
		gap_classify(c, &bs, af, bf, cur, e, &gc);
	}
	free(dall);
	free(wait_of);
	for (int k = 0; k < GC_N; k++)
		actx_pairs_seal(&gc.p[k]);
	step_rows(c, st, &gc, r);
	for (int k = 0; k < GC_N; k++)
		actx_pairs_release(&gc.p[k]);
	actx_span_release(&gc.steady);
	actx_span_release(&gc.sel);
	vec_free(&be);
	steady_rows(st, r);
	for (int k = 0; k < GAP_NCAUSES; k++)
		if (causes_gap[k].keys)
			r->keys[k] = map_keys(t, &gc.keys[k], &r->nkeys[k], k == GAP_QUEUED ? wait_label : host_label);
	if (gc.calls.n)
		qsort(gc.calls.v, gc.calls.n, sizeof *gc.calls.v, cmp_call);
	if (GF_CHECKS) /* gaps_call's binary search: one sync piece per call */
		for (size_t i = 1; i < gc.calls.n; i++)
			GF_ASSERT(gc.calls.v[i - 1].ri < gc.calls.v[i].ri);
	r->calls = gc.calls.v;
	r->ncalls = gc.calls.n;
	r->pieces = gc.pieces.v;
	r->npieces = gc.pieces.n;
	launch_diag(c, st, r);
	return GF_OK;
}

int gaps_analyze(const struct actx *c, const struct steps_result *st, struct gaps_result *r)
{
	return analyze(c, st, r, false);
}

int gaps_analyze_pieces(const struct actx *c, const struct steps_result *st, struct gaps_result *r)
{
	return analyze(c, st, r, true);
}

void gaps_release(struct gaps_result *r)
{
	for (int k = 0; k < GAP_NCAUSES; k++) {
		for (size_t i = 0; i < r->nkeys[k]; i++)
			free(r->keys[k][i].label);
		free(r->keys[k]);
	}
	free(r->calls);
	free(r->pieces);
	free(r->rows);
	memset(r, 0, sizeof *r);
}
