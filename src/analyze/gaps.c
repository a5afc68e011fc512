/* gaps.c — GPU idle time by cause, and the launch-bound diagnosis (see gaps.h). */
#include "gaps.h"

#include "../base/num.h"
#include "../base/vec.h"

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

static void charge_host(const struct actx *c, uint32_t th, gf_ns lo, gf_ns hi, struct gap_row *g,
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
			g->untraced += b - a;
			continue;
		}
		g->host += b - a;
		if (m) {
			uint32_t site = actx_site(c, r);
			uint32_t sn = site == TRACE_NONE ? UINT32_MAX : t->r[site].name;
			uint32_t in = site == r ? UINT32_MAX : t->r[r].name;
			kmap_add(m, (uint64_t)sn << 32 | in, b - a);
		}
	}
	trace_wsweep_release(&s);
}

static void launch_diag(const struct actx *c, const struct steps_result *st, struct gaps_result *r)
{
	const struct trace *t = c->t;
	struct launch_diag *ld = &r->ld;
	/* Every activity and call counts once per steady step whose window
	 * holds its start (steps may overlap): weighted, so overlapping or
	 * nested steps cost O(n log steps), not a copy per step. */
	struct actx_cover cv;
	actx_cover_init(&cv, st);
	VEC(struct actx_wval) kd = VEC_INIT;
	VEC(struct actx_wval) ldur = VEC_INIT;
	uint64_t nkd = 0, nldur = 0;
	if (c->dev != TRACE_NONE && cv.n) {
		for (uint32_t k = 0; k < t->nact; k++) {
			const struct trace_act *a = &t->act[k];
			if (!actx_on_dev(c, a) || a->kind != TA_KERNEL)
				continue;
			uint64_t w = actx_cover_at(&cv, a->start);
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
		uint64_t w = actx_cover_at(&cv, x->start);
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
	for (size_t ri = 0; ri < st->n; ri++) {
		const struct step_row *row = &st->rows[ri];
		struct gap_row *g = &r->rows[ri];
		bool steady = !row->warmup || !st->nsteady;
		gf_ns lo = row->start, hi = row->end;
		if (c->dev == TRACE_NONE) {
			g->other = hi - lo;
			g->hta_other = hi - lo;
			continue;
		}
		size_t i = actx_busy_after(c, lo);
		gf_ns cur = lo;
		while (cur < hi) {
			if (i < c->nbusy && c->busy[2 * i] <= cur) {
				cur = c->busy[2 * i + 1];
				i++;
				continue;
			}
			gf_ns af = i > 0 ? c->busy[2 * i - 1] : INT64_MIN;
			gf_ns bf = i < c->nbusy ? c->busy[2 * i] : INT64_MAX;
			gf_ns e = bf < hi ? bf : hi;
			gf_ns len = e - cur;
			bool full_short = af != INT64_MIN && bf != INT64_MAX && bf - af < ACTX_KERNEL_WAIT_NS;
			/* the next activity and its launch */
			uint32_t na = bf == INT64_MAX ? TRACE_NONE : next_act(c, bf);
			uint32_t L = na == TRACE_NONE ? TRACE_NONE : t->act[na].launch;
			bool late = L != TRACE_NONE && t->r[L].start > af;
			/* HTA's rule */
			if (late)
				g->hta_host += len;
			else if (full_short)
				g->hta_kernel += len;
			else
				g->hta_other += len;
			/* a blocking call returning within [af, bf] */
			size_t lo2 = 0, hi2 = be.n;
			while (lo2 < hi2) {
				size_t m = lo2 + (hi2 - lo2) / 2;
				if (be.v[m].end < af)
					lo2 = m + 1;
				else
					hi2 = m;
			}
			if (lo2 < be.n && be.v[lo2].end <= bf) {
				g->sync += len;
				if (steady) {
					uint32_t sr = be.v[lo2].ri;
					uint32_t site = actx_site(c, sr);
					uint64_t key = site == TRACE_NONE
						? (uint64_t)UINT32_MAX << 32 | t->r[sr].name
						: (uint64_t)t->r[site].name << 32 | UINT32_MAX;
					kmap_add(&syncm, key, len);
				}
			} else if (full_short) {
				g->launch += len;
			} else if (late) {
				charge_host(c, t->r[L].thread, cur, e, g, steady ? &hostm : NULL);
			} else {
				g->other += len;
			}
			cur = e;
		}
	}
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
